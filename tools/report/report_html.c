/*
 * report_html.c — `stepscope report --format html`: ONE self-contained file to explore (no
 * network, nothing fetched): per process the headline, the breakdown of the step by category,
 * the ranked findings, a chart of every step of the run, a timeline of the median and the
 * slowest step, the host-time hotspots (report_host.c), the top kernels and the environment.
 *
 * The page is static HTML plus two inlined assets, report_html.css and report_html.js (turned
 * into C arrays at build time: report_html_assets.h). The script draws the run chart and the
 * timeline from each section's JSON document (report_html_data.c), sorts the tables, and
 * links each finding (its row's data-cats: the categories it prices) to the spans of those
 * categories. Every string that came from a trace (paths, command lines, kernel names, and
 * the findings' evidence, which quotes the trace) goes through html_escaped() here, or is a
 * JSON string the script puts on screen as text; none is ever written into an attribute.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_diff.h"
#include "report_html_assets.h"
#include "text_esc.h"

/* One fill colour per category (the fill column of SSA_CATS): greens/blues for compute, warm
 * for copies and communication, greys/pinks for GPU idle. */
static const char *const cat_fill[SSA_CAT_COUNT] = {
#define HTML_X_FILL(id, name, glyph, ansi, fill, argb, text) [SSA_CAT_##id] = fill,
    SSA_CATS(HTML_X_FILL)
#undef HTML_X_FILL
};

const char *report_cat_fill(int cat)
{
    return cat >= 0 && cat < SSA_CAT_COUNT ? cat_fill[cat] : "#9e9e9e";
}

void report_html_begin(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<title>stepscope report",
          f);
    if (title) {
        fputs(": ", f);
        html_escaped(f, title);
    }
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n<h1>stepscope report</h1>\n",
            report_html_css);
}

void report_html_end(FILE *f)
{
    fprintf(f, "</main>\n<script>\n%s</script>\n</body>\n</html>\n", report_html_js);
}

static void html_row(FILE *f, const char *label, const char *value)
{
    fprintf(f, "<tr><th>%s</th><td>", label);
    html_escaped(f, value);
    fputs("</td></tr>\n", f);
}

/* The headline numbers, one card each. */
static void html_cards(FILE *f, const struct report_view *v)
{
    const struct ssa_summary *s = &v->s;
    fputs("<div class=\"cards\">\n", f);
    if (v->per_step)
        fprintf(f,
                "<div class=\"card\"><div class=\"v\">%.2f ms</div><div class=\"l\">median "
                "step (p10 %.2f, p90 %.2f)</div></div>\n"
                "<div class=\"card\"><div class=\"v\">%.2f</div><div class=\"l\">steps/s "
                "over %zu steady steps</div></div>\n",
                ms(s->median_ns), ms(s->p10_ns), ms(s->p90_ns), s->steps_per_s, s->steps);
    fprintf(f,
            "<div class=\"card\"><div class=\"v\">%.1f %%</div><div class=\"l\">GPU "
            "busy</div></div>\n",
            s->gpu_busy_pct);
    if (v->f.n)
        fprintf(f,
                "<div class=\"card\"><div class=\"v\">%.2f&times;</div><div class=\"l\">if "
                "the top finding is fixed (%.2f ms/step)</div></div>\n",
                v->f.v[0].speedup, v->f.v[0].saving_ms);
    fputs("</div>\n", f);
}

static void html_identity_steps(FILE *f, const struct report_view *v, char *buf, size_t cap)
{
    const struct ssa_result *r = v->r;
    const struct ssa_summary *s = &v->s;
    if (r->step_source == SSA_STEPS_NONE)
        snprintf(buf, cap, "no step markers: whole trace as one interval (%.1f ms)",
                 ms(s->total_ns));
    else
        snprintf(buf, cap, "%zu of %zu (%s), %zu warm-up excluded%s%s", s->steps, r->n_steps,
                 ssa_step_source_name(r->step_source), r->n_warmup,
                 r->marker_unmatched ? "; no complete NVTX range matched --step-marker" : "",
                 r->outside_capture ? "; steps outside the GPU capture window not counted" : "");
    html_row(f, "steps", buf);
    if (s->steps && r->step_source != SSA_STEPS_NONE) {
        snprintf(buf, cap, "median %.2f ms, p10 %.2f, p90 %.2f, mean %.2f; %.2f steps/s",
                 ms(s->median_ns), ms(s->p10_ns), ms(s->p90_ns), ms(s->mean_ns), s->steps_per_s);
        html_row(f, "step time", buf);
    }
    if (v->has_program) html_row(f, "program", v->program);
    for (size_t i = 0; i < v->n_step_notes; i++)
        html_row(f, "steps, why", v->step_notes[i]);
}

static void html_identity_gpu(FILE *f, const struct report_view *v, char *buf, size_t cap)
{
    const struct ssa_summary *s = &v->s;
    if (v->has_rec_cost) html_row(f, "recording", v->rec_cost);
    if (v->has_graphs) html_row(f, "CUDA graphs", v->graphs);
    if (s->host_ahead) {
        snprintf(buf, cap,
                 "the GPU ran behind the host (%.1f launches, %.1f GPU operations per step): "
                 "these step times understate the training step",
                 s->launches_per_step, s->gpu_ops_per_step);
        html_row(f, "caution", buf);
    }
    if (v->gpu_left_to)
        snprintf(buf, cap, "not recorded: GPU activity was left to another tool (%.200s)",
                 v->gpu_left_to);
    else
        snprintf(buf, cap, "%.1f %%%s", s->gpu_busy_pct,
                 v->has_gpu ? "" : " (no GPU activity recorded: every instant is GPU idle)");
    html_row(f, "GPU busy", buf);
}

static void html_identity(FILE *f, const struct report_view *v)
{
    const struct ssa_result *r = v->r;
    char buf[512];
    fputs("<h2><code>", f);
    html_escaped(f, r->path);
    fputs("</code></h2>\n", f);
    if (v->damaged) {
        fputs("<p class=\"damaged\"><strong>DAMAGED trace</strong>: ", f);
        html_escaped(f, v->damage);
        fputs("</p>\n", f);
    }
    if (v->s.steps) html_cards(f, v);
    fputs("<table class=\"kv\">\n", f);
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
    html_identity_steps(f, v, buf, sizeof buf);
    html_identity_gpu(f, v, buf, sizeof buf);
    fputs("</table>\n", f);
}

#define SVG_W 1000
#define SVG_H 28

/* A stacked bar of ns[] (one per category) with a <title> per piece as its tooltip; it
 * stretches to the page's width. */
static void html_bar(FILE *f, const uint64_t *ns, const char *what)
{
    uint64_t total = 0;
    for (int c = 0; c < SSA_CAT_COUNT; c++)
        total += ns[c];
    fprintf(f,
            "<svg class=\"bar\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
            "preserveAspectRatio=\"none\" role=\"img\" aria-label=\"%s\">\n",
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

static void html_breakdown(FILE *f, const struct report_view *v)
{
    const struct ssa_summary *s = &v->s;
    uint64_t ns[SSA_CAT_COUNT];
    for (int c = 0; c < SSA_CAT_COUNT; c++)
        ns[c] = (uint64_t)(s->cat_ms[c] * 1e6);
    fputs("<h3>Where the step time goes</h3>\n", f);
    html_bar(f, ns, "breakdown of the mean step by category");
    fprintf(f,
            "<table class=\"sortable\">\n<thead><tr><th>category</th><th class=\"n\">%s</th>"
            "<th class=\"n\">%%</th><th>meaning</th></tr></thead>\n<tbody>\n",
            v->per_step ? "ms/step" : "ms");
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        if (s->cat_pct[c] <= 0) continue;
        double x = v->per_step ? s->cat_ms[c] : s->cat_ms[c] * (double)s->steps;
        fprintf(f,
                "<tr class=\"cat\" data-cats=\"%d\"><td><span class=\"sw\" "
                "style=\"background:%s\"></span>%s</td><td class=\"n\">%.3f</td>"
                "<td class=\"n\">%.1f</td><td>%s</td></tr>\n",
                c, cat_fill[c], ssa_cat_name(c), x, s->cat_pct[c], ssa_cat_description(c));
    }
    fprintf(f,
            "</tbody>\n<tfoot><tr><th>total</th><td class=\"n\">%.3f</td><td class=\"n\">"
            "100.0</td><td></td></tr></tfoot>\n</table>\n",
            v->per_step ? ms(s->mean_ns) : ms(s->total_ns));
}

/* data-cats: the category numbers a finding prices, for the script to highlight */
static void html_finding_row(FILE *f, const struct report_view *v, size_t i)
{
    const struct ssa_finding *x = &v->f.v[i];
    fprintf(f, "<tr class=\"finding\" data-cats=\"");
    for (int c = 0, first = 1; c < SSA_CAT_COUNT; c++)
        if (x->cats & SSA_CAT_BIT(c)) fprintf(f, first ? "%d" : " %d", c), first = 0;
    fprintf(f, "\"><td class=\"n\">%zu</td><td><span class=\"sev %s\">%s</span></td><td><b>",
            i + 1, ssa_level_name(x->severity), ssa_level_name(x->severity));
    html_escaped(f, x->title);
    fputs("</b><div class=\"fd\"><b>evidence:</b> ", f);
    if (v->alt_of[i])
        fprintf(f, "(alternative to %zu.: the same time, not additive) ", v->alt_of[i]);
    html_escaped(f, x->evidence);
    fputs("<br><b>estimate:</b> ", f);
    html_escaped(f, x->estimate);
    fputs("<br><b>fix:</b> <code>", f);
    html_escaped(f, x->fix);
    fprintf(f,
            "</code></div></td><td class=\"n\">%.2f</td><td class=\"n\">%.1f</td>"
            "<td class=\"n\">%.2f&times;</td><td>%s</td></tr>\n",
            x->saving_ms, x->saving_pct, x->speedup, ssa_level_name(x->confidence));
}

static void html_findings(FILE *f, const struct report_view *v)
{
    fputs("<h3>Findings, ranked by estimated saving</h3>\n", f);
    if (!v->f.n) {
        fprintf(f, "<p>none above %.0f %% of the step%s</p>\n", SSA_FINDING_MIN_PCT,
                v->per_step ? "" : " (no step markers: no per-step saving)");
        return;
    }
    fputs("<p class=\"note\">Click a finding to highlight, on the charts below, the time it "
          "prices.</p>\n<table class=\"sortable findings\">\n<thead><tr><th class=\"n\">#</th>"
          "<th>level</th><th>finding</th><th class=\"n\">saves ms/step</th><th class=\"n\">"
          "%</th><th class=\"n\">speed-up</th><th>confidence</th></tr></thead>\n<tbody>\n",
          f);
    for (size_t i = 0; i < v->f.n; i++)
        html_finding_row(f, v, i);
    fputs("</tbody>\n</table>\n", f);
}

/* The containers the script draws the run chart and the timeline in, and their data. */
static void html_charts(FILE *f, const struct report_view *v)
{
    if (v->n_bins)
        fprintf(f,
                "<h3>Steps over the run</h3>\n<p class=\"note\">Every step%s: its time by "
                "category, warm-up shaded, outliers (over %.2f ms, %.1f&times; the median) "
                "marked; hover for numbers, click a marked step to draw it below.</p>\n"
                "<div class=\"ss-run\"><p class=\"nojs\">(the chart needs JavaScript)</p>"
                "</div>\n",
                v->bin_width > 1 ? " (bins of consecutive steps: their mean)" : "",
                v->outlier_ms, SSA_OUTLIER_FACTOR);
    if (v->n_tls)
        fputs("<h3>Timeline</h3>\n<p class=\"note\">The step's attribution on top (what "
              "each instant counted as), then one lane per GPU stream and host thread; wheel "
              "or W/S to zoom, drag or A/D to pan, 0 to fit; hover for names.</p>\n"
              "<div class=\"ss-tl\" tabindex=\"0\"><p class=\"nojs\">(the timeline needs "
              "JavaScript)</p></div>\n",
              f);
    else if (v->per_step && v->s.steps)
        fputs("<p class=\"note\">Timeline: not available (no step of the run was kept "
              "whole).</p>\n",
              f);
    report_html_data(f, v);
}

#define HTML_KERNEL_NAME 200 /* characters of a kernel name in the table (by structure) */
#define HTML_TOP_KERNELS 50  /* rows of the table (sortable; a name opens on click) */

static void html_top_kernels(FILE *f, const struct ssa_result *r)
{
    if (!r->n_knames) return;
    fprintf(f, "<h3>Top kernels (whole trace)</h3>\n<p class=\"note\">The kernels with the "
               "most GPU time (at most %d); click a name to see it whole.</p>\n", HTML_TOP_KERNELS);
    fputs("<table class=\"sortable\">\n<thead><tr>"
          "<th class=\"n\">ms</th><th class=\"n\">count</th><th class=\"n\">mean us</th>"
          "<th>class</th><th>name</th></tr></thead>\n<tbody>\n",
          f);
    for (size_t i = 0; i < r->n_knames && i < HTML_TOP_KERNELS; i++) {
        const struct ssa_kname *k = &r->knames[i];
        fprintf(f,
                "<tr><td class=\"n\">%.3f</td><td class=\"n\">%" PRIu64 "</td>"
                "<td class=\"n\">%.1f</td><td>%s</td><td class=\"name\"><code>",
                ms(k->total_ns), k->count, k->count ? (double)k->total_ns / 1e3 / (double)k->count : 0,
                ssa_kclass_name(k->kclass));
        char *shown = report_kernel_name(r->kname_text[i], HTML_KERNEL_NAME);
        html_escaped(f, shown ? shown : r->kname_text[i]);
        fputs("</code></td></tr>\n", f);
        free(shown);
    }
    fputs("</tbody>\n</table>\n", f);
}

static void html_process(struct report_sink *k, const struct report_view *v)
{
    FILE *f = k->f;
    fputs("<section>\n", f);
    html_identity(f, v);
    if (!v->s.steps) {
        report_env_html(f, &v->env, k->o->verbose);
        fputs("<p>nothing to attribute: the trace has no timed records inside a step</p>\n"
              "</section>\n",
              f);
        return;
    }
    html_breakdown(f, v);
    html_findings(f, v);
    html_charts(f, v);
    report_host_html(f, v);
    html_top_kernels(f, v->r);
    report_env_html(f, &v->env, k->o->verbose);
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

static void html_diff_categories(FILE *f, const struct diff_view *d)
{
    fputs("<table class=\"sortable\">\n<thead><tr><th>category</th><th class=\"n\">before "
          "ms/step</th><th class=\"n\">after ms/step</th><th class=\"n\">change</th></tr>"
          "</thead>\n<tbody>\n", f);
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        double x = d->b.s.cat_ms[c], y = d->a.s.cat_ms[c];
        if (d->cat_shown[c])
            fprintf(f, "<tr><td><span class=\"sw\" style=\"background:%s\"></span>%s</td>"
                       "<td class=\"n\">%.3f</td><td class=\"n\">%.3f</td>"
                       "<td class=\"n\">%+.3f</td></tr>\n", cat_fill[c], ssa_cat_name(c), x, y,
                    y - x);
    }
    fputs("</tbody>\n</table>\n", f);
}

void report_html_diff(FILE *f, const struct diff_view *d)
{
    const struct diff_side *b = &d->b, *a = &d->a;
    report_html_begin(f, "diff");
    fputs("<section>\n<h2><code>", f);
    html_escaped(f, b->path);
    fputs("</code> → <code>", f);
    html_escaped(f, a->path);
    fprintf(f, "</code></h2>\n<p><strong>%s</strong>: median step %.2f → %.2f ms (%.2fx; noise "
               "±%.2f ms), mean %.2f → %.2f ms, GPU busy %.1f → %.1f %%</p>\n",
            d->verdict, ms(b->s.median_ns), ms(a->s.median_ns), d->speedup_median,
            d->noise_ms, ms(b->s.mean_ns), ms(a->s.mean_ns), b->s.gpu_busy_pct, a->s.gpu_busy_pct);
    html_diff_categories(f, d);
    fputs("<table class=\"sortable\">\n<thead><tr><th>finding</th><th class=\"n\">before "
          "ms/step</th><th class=\"n\">after ms/step</th><th>status</th><th>title</th></tr>"
          "</thead>\n<tbody>\n", f);
    for (size_t i = 0; i < d->n_pairs; i++) html_diff_finding(f, &d->pairs[i]);
    fputs("</tbody>\n</table>\n</section>\n", f);
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
