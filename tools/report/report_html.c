/*
 * report_html.c — `stepscope report --format html`: ONE self-contained file (inline CSS and
 * SVG, no external resource, no JavaScript) with, per process, the headline, a stacked bar
 * of the categories, the median step's breakdown and the ranked findings.
 *
 * The "median step" panel is that step's category bar and its timeline: one lane per GPU
 * stream (kernels by class, copies, memsets) and per host thread (launch, sync and alloc API
 * calls, data ranges), drawn from the intervals the analysis kept for that step
 * (SSA_TIMELINE); without them the page says the timeline is not available.
 * Every string that came from a trace (paths, command lines, kernel names, and the findings'
 * evidence, which quotes the trace) goes through html_escaped().
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_diff.h"
#include "text_esc.h"

/* One fill colour per category (enum ssa_cat order): greens/blues for compute, warm for
 * copies and communication, greys/pinks for GPU idle. */
static const char *const cat_fill[SSA_CAT_COUNT] = {
    "#2e7d32", "#9e9d24", "#00838f", "#6a1b9a", "#1565c0", "#42a5f5", "#78909c",
    "#ad1457", "#e65100", "#ef6c00", "#f9a825", "#ff7043", "#d84315", "#8d6e63",
    "#c62828", "#f06292", "#ba68c8", "#4dd0e1", "#bdbdbd"};

const char *report_cat_fill(int cat)
{
    return cat >= 0 && cat < SSA_CAT_COUNT ? cat_fill[cat] : "#9e9e9e";
}

void report_html_begin(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
          "stepscope report",
          f);
    if (title) {
        fputs(": ", f);
        html_escaped(f, title);
    }
    fputs("</title>\n<style>\n"
          "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:960px;"
          "color:#222;padding:0 1em}\n"
          "section{border-top:2px solid #ccc;margin-top:2em}\n"
          "table{border-collapse:collapse}td,th{padding:2px 10px;text-align:left}\n"
          "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
          "tr:nth-child(even){background:#f4f4f4}\n"
          ".sw{display:inline-block;width:12px;height:12px;margin-right:6px;"
          "vertical-align:middle}\n"
          ".f{margin:1em 0;padding:.5em 1em;border-left:4px solid #999}\n"
          ".high{border-color:#c62828}.medium{border-color:#ef6c00}.low{border-color:#9e9e9e}\n"
          "code{word-break:break-all}.note{color:#666}\n"
          ".damaged{background:#fdecea;border-left:4px solid #c62828;padding:.5em 1em}\n"
          "</style>\n</head>\n<body>\n<h1>stepscope report</h1>\n",
          f);
}

void report_html_end(FILE *f)
{
    fputs("</body>\n</html>\n", f);
}

static void html_row(FILE *f, const char *label, const char *value)
{
    fprintf(f, "<tr><th>%s</th><td>", label);
    html_escaped(f, value);
    fputs("</td></tr>\n", f);
}

static void html_identity(FILE *f, const struct report_view *v)
{
    const struct ssa_result *r = v->r;
    const struct ssa_summary *s = &v->s;
    char buf[512];
    fputs("<h2><code>", f);
    html_escaped(f, r->path);
    fputs("</code></h2>\n", f);
    if (v->damaged) {
        fputs("<p class=\"damaged\"><strong>DAMAGED trace</strong>: ", f);
        html_escaped(f, v->damage);
        fputs("</p>\n", f);
    }
    fputs("<table>\n", f);
    int n = snprintf(buf, sizeof buf, "pid %" PRIu32, r->pid);
    if (r->rank >= 0 && r->world_size > 0)
        n += snprintf(buf + n, sizeof buf - (size_t)n, ", rank %" PRId32 "/%" PRId32, r->rank,
                      r->world_size);
    snprintf(buf + n, sizeof buf - (size_t)n, ", %" PRIu32 " device(s)", r->n_devices);
    html_row(f, "process", buf);
    html_row(f, "device", r->device_name);
    html_row(f, "command", r->cmdline);
    snprintf(buf, sizeof buf, "%s; %" PRIu64 " records, %" PRIu64 " kernels, %" PRIu64 " copies",
             r->state_line, r->records, r->kernels, r->memcpys);
    html_row(f, "trace", buf);
    if (r->step_source == SSA_STEPS_NONE)
        snprintf(buf, sizeof buf, "no step markers: whole trace as one interval (%.1f ms)",
                 ms(s->total_ns));
    else
        snprintf(buf, sizeof buf, "%zu of %zu (%s), %zu warm-up excluded%s%s", s->steps, r->n_steps,
                 ssa_step_source_name(r->step_source), r->n_warmup,
                 r->marker_unmatched ? "; no complete NVTX range matched --step-marker" : "",
                 r->outside_capture ? "; steps outside the GPU capture window not counted" : "");
    html_row(f, "steps", buf);
    if (s->steps && r->step_source != SSA_STEPS_NONE) {
        snprintf(buf, sizeof buf, "median %.2f ms, p10 %.2f, p90 %.2f, mean %.2f; %.2f steps/s",
                 ms(s->median_ns), ms(s->p10_ns), ms(s->p90_ns), ms(s->mean_ns), s->steps_per_s);
        html_row(f, "step time", buf);
    }
    if (v->has_program) html_row(f, "program", v->program);
    for (size_t i = 0; i < v->n_step_notes; i++)
        html_row(f, "steps, why", v->step_notes[i]);
    if (v->has_rec_cost) html_row(f, "recording", v->rec_cost);
    if (v->has_graphs) html_row(f, "CUDA graphs", v->graphs);
    if (s->host_ahead) {
        snprintf(buf, sizeof buf,
                 "the GPU ran behind the host (%.1f launches, %.1f GPU operations per step): "
                 "these step times understate the training step",
                 s->launches_per_step, s->gpu_ops_per_step);
        html_row(f, "caution", buf);
    }
    if (v->gpu_left_to)
        snprintf(buf, sizeof buf, "not recorded: GPU activity was left to another tool (%.200s)",
                 v->gpu_left_to);
    else
        snprintf(buf, sizeof buf, "%.1f %%%s", s->gpu_busy_pct,
                 v->has_gpu ? "" : " (no GPU activity recorded: every instant is GPU idle)");
    html_row(f, "GPU busy", buf);
    fputs("</table>\n", f);
}

#define SVG_W 900
#define SVG_H 36

/* A stacked bar of ns[] (one per category) with a <title> per piece as its tooltip. */
static void html_bar(FILE *f, const uint64_t *ns, const char *what)
{
    uint64_t total = 0;
    for (int c = 0; c < SSA_CAT_COUNT; c++)
        total += ns[c];
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "role=\"img\" aria-label=\"%s\">\n",
            SVG_W, SVG_H, what);
    double x = 0;
    for (int c = 0; c < SSA_CAT_COUNT && total; c++) {
        if (!ns[c]) continue;
        double w = (double)SVG_W * (double)ns[c] / (double)total;
        fprintf(f,
                "<rect x=\"%.2f\" y=\"0\" width=\"%.2f\" height=\"%d\" fill=\"%s\">"
                "<title>%s: %.3f ms (%.1f %%)</title></rect>\n",
                x, w, SVG_H, cat_fill[c], ssa_cat_name(c), ms(ns[c]),
                100.0 * (double)ns[c] / (double)total);
        x += w;
    }
    fputs("</svg>\n", f);
}

static void html_breakdown(FILE *f, const struct ssa_result *r, const struct ssa_summary *s)
{
    int per_step = r->step_source != SSA_STEPS_NONE;
    uint64_t ns[SSA_CAT_COUNT];
    for (int c = 0; c < SSA_CAT_COUNT; c++)
        ns[c] = (uint64_t)(s->cat_ms[c] * 1e6);
    fputs("<h3>Where the step time goes</h3>\n", f);
    html_bar(f, ns, "breakdown of the mean step by category");
    fprintf(f, "<table>\n<tr><th>category</th><th>%s</th><th>%%</th><th>meaning</th></tr>\n",
            per_step ? "ms/step" : "ms");
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        if (s->cat_pct[c] <= 0) continue;
        double v = per_step ? s->cat_ms[c] : s->cat_ms[c] * (double)s->steps;
        fprintf(f,
                "<tr><td><span class=\"sw\" style=\"background:%s\"></span>%s</td>"
                "<td class=\"n\">%.3f</td><td class=\"n\">%.1f</td><td>%s</td></tr>\n",
                cat_fill[c], ssa_cat_name(c), v, s->cat_pct[c], ssa_cat_description(c));
    }
    fprintf(f,
            "<tr><th>total</th><td class=\"n\">%.3f</td><td class=\"n\">100.0</td>"
            "<td></td></tr>\n</table>\n",
            per_step ? ms(s->mean_ns) : ms(s->total_ns));
}

#define TL_LANE_H 14
#define TL_LABEL_W 150
#define TL_MAX_LANES 32

static int cmp_lane(const void *x, const void *y)
{
    const uint64_t *p = x, *q = y; /* host flag in bit 63 sorts GPU lanes first */
    return *p < *q ? -1 : *p > *q;
}

/* The distinct lanes of the timeline (host flag in bit 63), sorted; at most TL_MAX_LANES,
 * *more set when there were more (their intervals are not drawn). */
static size_t tl_lanes(const struct ssa_result *r, uint64_t *lanes, int *more)
{
    size_t n = 0;
    *more = 0;
    for (size_t i = 0; i < r->n_timeline; i++) {
        uint64_t key = r->timeline[i].lane | (uint64_t)r->timeline[i].host << 63;
        size_t k = 0;
        while (k < n && lanes[k] != key)
            k++;
        if (k == n && n < TL_MAX_LANES)
            lanes[n++] = key;
        else if (k == n)
            *more = 1;
    }
    qsort(lanes, n, sizeof *lanes, cmp_lane);
    return n;
}

static void tl_label(FILE *f, uint64_t key, size_t row)
{
    int host = (int)(key >> 63);
    uint64_t lane = key & ~(1ull << 63);
    fprintf(f, "<text x=\"0\" y=\"%zu\" font-size=\"10\">", row * TL_LANE_H + 10);
    if (host)
        fprintf(f, "host thread %" PRIu64 "</text>\n", lane);
    else
        fprintf(f, "GPU %" PRIu64 " stream %" PRIu64 "</text>\n", lane >> 32, lane & 0xffffffffu);
}

static void html_timeline(FILE *f, const struct ssa_result *r, const struct ssa_step *st)
{
    uint64_t lanes[TL_MAX_LANES];
    int more;
    size_t n = tl_lanes(r, lanes, &more);
    if (more)
        fprintf(f,
                "<p class=\"note\">Only the first %d lanes (GPU streams and host threads) "
                "are drawn.</p>\n",
                TL_MAX_LANES);
    double span = (double)(st->end_ns - st->begin_ns), w = SVG_W - TL_LABEL_W;
    if (!n || span <= 0) return;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%zu\" "
            "role=\"img\" aria-label=\"timeline of the median step\">\n",
            SVG_W, n * TL_LANE_H);
    for (size_t row = 0; row < n; row++)
        tl_label(f, lanes[row], row);
    for (size_t i = 0; i < r->n_timeline; i++) {
        const struct ssa_tl_item *it = &r->timeline[i];
        uint64_t key = it->lane | (uint64_t)it->host << 63;
        size_t row = 0;
        while (row < n && lanes[row] != key)
            row++;
        if (row == n) continue; /* past TL_MAX_LANES */
        double x = TL_LABEL_W + w * (double)(it->start_ns - st->begin_ns) / span;
        double bw = w * (double)(it->end_ns - it->start_ns) / span;
        fprintf(f,
                "<rect x=\"%.2f\" y=\"%zu\" width=\"%.2f\" height=\"%d\" fill=\"%s\">"
                "<title>%s: %.3f ms at +%.3f ms</title></rect>\n",
                x, row * TL_LANE_H + 1, bw < 0.5 ? 0.5 : bw, TL_LANE_H - 2, cat_fill[it->cat],
                ssa_cat_name(it->cat), ms(it->end_ns - it->start_ns),
                ms(it->start_ns - st->begin_ns));
    }
    fputs("</svg>\n", f);
}

static void html_median_step(FILE *f, const struct report_view *v)
{
    const struct ssa_result *r = v->r;
    const struct ssa_step *st = v->median;
    if (!st || r->step_source == SSA_STEPS_NONE) return;
    fprintf(f, "<h3>Median step (step %" PRIu64 ", %.3f ms)</h3>\n", st->number,
            ms(st->end_ns - st->begin_ns));
    html_bar(f, st->cat_ns, "the median step by category");
    fprintf(f,
            "<p class=\"note\">%" PRIu32 " kernels, %" PRIu32 " launches, %" PRIu32
            " syncs in this step.",
            st->n.kernels, st->n.launches, st->n.syncs);
    int drawn = r->timeline_step && r->n_timeline &&
                st->begin_ns == r->briefs[r->timeline_step - 1].begin_ns;
    if (!drawn) {
        fputs(" timeline: not available (no GPU or API intervals recorded in this step)</p>\n", f);
        return;
    }
    fprintf(f, " Timeline: one lane per GPU stream and host thread%s; hover for times.</p>\n",
            r->timeline_dropped ? " (truncated: too many intervals)" : "");
    html_timeline(f, r, st);
}

static void html_findings(FILE *f, const struct report_view *v)
{
    const struct ssa_result *r = v->r;
    const struct ssa_findings *fs = &v->f;
    fputs("<h3>Findings, ranked by estimated saving</h3>\n", f);
    if (!fs->n) {
        fprintf(f, "<p>none above %.0f %% of the step%s</p>\n", SSA_FINDING_MIN_PCT,
                r->step_source == SSA_STEPS_NONE ? " (no step markers: no per-step saving)" : "");
        return;
    }
    fputs("<ol>\n", f);
    for (size_t i = 0; i < fs->n; i++) {
        const struct ssa_finding *x = &fs->v[i];
        fprintf(f, "<li class=\"f %s\"><b>[%s] ", ssa_level_name(x->severity),
                ssa_level_name(x->severity));
        html_escaped(f, x->title);
        fprintf(f,
                "</b><br>saves ~%.2f ms/step (%.0f %%, %.2f&times;), confidence %s<br>\n"
                "<b>evidence:</b> ",
                x->saving_ms, x->saving_pct, x->speedup, ssa_level_name(x->confidence));
        if (v->alt_of[i])
            fprintf(f, "(alternative to %zu.: the same time, not additive) ", v->alt_of[i]);
        html_escaped(f, x->evidence);
        fputs("<br>\n<b>estimate:</b> ", f);
        html_escaped(f, x->estimate);
        fputs("<br>\n<b>fix:</b> <code>", f);
        html_escaped(f, x->fix);
        fputs("</code></li>\n", f);
    }
    fputs("</ol>\n", f);
}

#define HTML_KERNEL_NAME 120 /* characters of a kernel name in the table (by structure) */

static void html_top_kernels(FILE *f, const struct ssa_result *r)
{
    if (!r->n_knames) return;
    fputs("<h3>Top kernels (whole trace)</h3>\n<table>\n<tr><th>ms</th><th>count</th>"
          "<th>class</th><th>name</th></tr>\n",
          f);
    for (size_t i = 0; i < r->n_knames && i < TOP_KERNELS; i++) {
        const struct ssa_kname *k = &r->knames[i];
        fprintf(f,
                "<tr><td class=\"n\">%.3f</td><td class=\"n\">%" PRIu64 "</td><td>%s</td>"
                "<td><code>",
                ms(k->total_ns), k->count, ssa_kclass_name(k->kclass));
        char *shown = report_kernel_name(r->kname_text[i], HTML_KERNEL_NAME);
        html_escaped(f, shown ? shown : r->kname_text[i]);
        fputs("</code></td></tr>\n", f);
        free(shown);
    }
    fputs("</table>\n", f);
}

static void html_process(struct report_sink *k, const struct report_view *v)
{
    FILE *f = k->f;
    fputs("<section>\n", f);
    html_identity(f, v);
    report_env_html(f, &v->env, k->o->verbose);
    if (!v->s.steps) {
        fputs("<p>nothing to attribute: the trace has no timed records inside a step</p>\n"
              "</section>\n",
              f);
        return;
    }
    html_breakdown(f, v->r, &v->s);
    html_median_step(f, v);
    report_host_html(f, v);
    html_findings(f, v);
    html_top_kernels(f, v->r);
    fputs("</section>\n", f);
}

/* ---- stepscope diff ---- */

static void html_diff_finding(FILE *f, const struct diff_pair *p)
{
    fprintf(f, "<tr><td><code>%s</code></td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
               "<td>%s</td><td>", p->x->id, p->before, p->after, p->status);
    html_escaped(f, p->x->title);
    fputs("</td></tr>\n", f);
}

void report_html_diff(FILE *f, const struct diff_view *d)
{
    const struct diff_side *b = &d->b, *a = &d->a;
    report_html_begin(f, "diff");
    fputs("<h2><code>", f);
    html_escaped(f, b->path);
    fputs("</code> → <code>", f);
    html_escaped(f, a->path);
    fprintf(f, "</code></h2>\n<p><strong>%s</strong>: median step %.2f → %.2f ms (%.2fx; noise "
               "±%.2f ms), mean %.2f → %.2f ms, GPU busy %.1f → %.1f %%</p>\n",
            d->verdict, ms(b->s.median_ns), ms(a->s.median_ns), d->speedup_median,
            d->noise_ms, ms(b->s.mean_ns), ms(a->s.mean_ns), b->s.gpu_busy_pct, a->s.gpu_busy_pct);
    fputs("<table>\n<tr><th>category</th><th>before ms/step</th><th>after ms/step</th>"
          "<th>change</th></tr>\n", f);
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        double x = b->s.cat_ms[c], y = a->s.cat_ms[c];
        if (d->cat_shown[c])
            fprintf(f, "<tr><td>%s</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td>"
                       "<td class=\"n\">%+.3f</td></tr>\n", ssa_cat_name(c), x, y, y - x);
    }
    fputs("</table>\n<table>\n<tr><th>finding</th><th>before ms/step</th><th>after ms/step</th>"
          "<th>status</th><th>title</th></tr>\n", f);
    for (size_t i = 0; i < d->n_pairs; i++) html_diff_finding(f, &d->pairs[i]);
    fputs("</table>\n", f);
    report_html_end(f);
}


static void html_begin(struct report_sink *k)
{
    report_html_begin(k->f, k->d->title);
}

static void html_ranks(struct report_sink *k)
{
    report_ranks_html(k->f, k->d->job, k->d->rs, k->d->hidden);
}

static void html_unreadable(struct report_sink *k, const char *const *paths, size_t n)
{
    fprintf(k->f, "<section class=\"damaged\"><h2>Traces that could not be read</h2>\n"
                  "<p>%zu of %zu (why: on stderr)</p>\n<ul>\n", n, k->d->n_inputs);
    for (size_t i = 0; i < n; i++) {
        fputs("<li><code>", k->f);
        html_escaped(k->f, paths[i]);
        fputs("</code></li>\n", k->f);
    }
    fputs("</ul>\n</section>\n", k->f);
}

static void html_end(struct report_sink *k)
{
    report_html_end(k->f);
}


const struct report_writer report_writer_html = {
    .name = "html",
    .begin = html_begin,
    .ranks = html_ranks,
    .process = html_process,
    .unreadable = html_unreadable,
    .end = html_end,
    .diff = report_html_diff,
};
