/*
 * report_html.c — `stepscope report --format html`: ONE self-contained file to explore (no
 * network, nothing fetched), every section of it: per process the headline, the breakdown of
 * the step by category, the ranked findings, a chart of every step of the run, a timeline of
 * any step kept (every step of a short run; median and slowest one click away), where the
 * GPU-idle host time is in the code (a table and a
 * flame graph), the top kernels and the environment checks; before them the ranks of a
 * multi-GPU job; diff's page.
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
#include "report_html.h"
#include "report_html_assets.h"
#include "text_esc.h"
#include "util/ss_num.h"

static void html_page_begin(FILE *f, const char *title)
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

static void html_page_end(FILE *f)
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

/* A row for each sentence of the view that is there. */
static void html_said(FILE *f, const char *label, const char *sentence)
{
    if (sentence[0]) html_row(f, label, sentence);
}

static void html_identity_steps(FILE *f, const struct report_view *v)
{
    html_row(f, "steps", v->steps_said);
    html_said(f, "step time", v->step_time);
    if (v->has_program) html_row(f, "program", v->program);
    for (size_t i = 0; i < v->n_step_notes; i++)
        html_row(f, "steps, why", v->step_notes[i]);
}

static void html_identity_gpu(FILE *f, const struct report_view *v)
{
    if (v->has_rec_cost) html_row(f, "recording", v->rec_cost);
    if (v->has_lost) html_row(f, "lost while recording", v->lost);
    if (v->has_throughput) html_row(f, "throughput", v->throughput);
    if (v->has_throughput) html_said(f, "device peak", v->peak);
    if (v->has_graphs) html_row(f, "CUDA graphs", v->graphs);
    html_said(f, "caution", v->caution);
    html_row(f, "GPU busy", v->gpu_busy);
}

static void html_identity(FILE *f, const struct report_view *v)
{
    const struct report_trace *t = &v->trace;
    fputs("<h2><code>", f);
    html_escaped(f, t->path);
    fputs("</code></h2>\n", f);
    if (v->damaged) {
        fprintf(f, "<p class=\"damaged\"><strong>%s trace</strong>: ", v->damage_label);
        html_escaped(f, v->damage);
        fputs("</p>\n", f);
    }
    if (v->s.steps) html_cards(f, v);
    fputs("<table class=\"kv\">\n", f);
    html_row(f, "process", v->process);
    html_row(f, "device", t->device);
    html_row(f, "command", t->cmdline);
    html_row(f, "trace", v->trace_said);
    if (v->has_problems) html_row(f, "damage", v->problems);
    html_identity_steps(f, v);
    html_identity_gpu(f, v);
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
                x, w, SVG_H, report_cat_fill(c), ssa_cat_name(c), ms(ns[c]),
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
        ns[c] = ss_u64_clamped(s->cat_ms[c] * 1e6);
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
                c, report_cat_fill(c), ssa_cat_name(c), x, s->cat_pct[c], ssa_cat_description(c));
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
    if (v->alt_of[i]) fprintf(f, "(%s) ", v->alt_said[i]);
    html_escaped(f, x->evidence);
    fputs("<br><b>estimate:</b> ", f);
    html_escaped(f, x->estimate);
    fputs("<br><b>held out:</b> ", f);
    html_escaped(f, v->held_out[i]);
    fputs("<br><b>fix:</b> <code>", f);
    html_escaped(f, x->fix);
    if (x->note) { /* a note: no price to sort by */
        fprintf(f, "</code></div></td><td class=\"n\">note</td><td class=\"n\"></td>"
                   "<td class=\"n\"></td><td>%s</td></tr>\n", ssa_level_name(x->confidence));
        return;
    }
    fprintf(f,
            "</code></div></td><td class=\"n\">%.2f</td><td class=\"n\">%.1f</td>"
            "<td class=\"n\">%.2f&times;</td><td>%s</td></tr>\n",
            x->saving_ms, x->saving_pct, x->speedup, ssa_level_name(x->confidence));
}

static void html_findings(FILE *f, const struct report_view *v)
{
    fputs("<h3>Findings, ranked by estimated saving</h3>\n", f);
    if (!v->f.n) {
        fprintf(f, "<p>%s%s</p>\n", v->no_findings,
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
    if (v->has_all_fixed) {
        fputs("<p class=\"note\">", f);
        html_escaped(f, v->all_fixed);
        fputs("</p>\n", f);
    }
}

/* ---- where the GPU-idle host time is in the code: the table ---- */

/* Every row names its category, so that the table sorts by any column. */
static void html_hotspots(FILE *f, const struct report_view *v)
{
    fputs("<table class=\"sortable\">\n<thead><tr><th>category</th><th class=\"n\">ms/step</th>"
          "<th class=\"n\">samples</th><th>where</th><th>library frame</th></tr></thead>\n"
          "<tbody>\n",
          f);
    for (size_t c = 0; c < v->n_hostcats; c++) {
        const struct report_hostcat *h = &v->hostcats[c];
        for (size_t i = 0; i < h->n; i++) {
            fprintf(f,
                    "<tr><td><span class=\"sw\" style=\"background:%s\"></span>%s</td>"
                    "<td class=\"n\">%.2f</td><td class=\"n\">%" PRIu64 "</td><td><code>",
                    report_cat_fill(h->cat), ssa_cat_name(h->cat), h->v[i].h.ms_per_step,
                    h->v[i].h.samples);
            html_escaped(f, h->v[i].where);
            fputs("</code></td><td><code>", f);
            if (h->v[i].h.lib) html_escaped(f, h->v[i].h.lib->function);
            fputs("</code></td></tr>\n", f);
        }
    }
    fputs("</tbody>\n</table>\n", f);
}

/* ---- ... and the flame graph (inline SVG, no script) ---- */

#define FL_W 900.0
#define FL_ROW 16
#define FL_MAX_ROWS 64     /* deeper frames are not drawn (said below the graph) */
#define FL_MIN_PX 1.0      /* narrower boxes (and what they hold) are not drawn */
#define FL_CHAR_PX 7.0     /* about one character of the 11px font */
#define FL_LABEL_CHARS 200 /* a box's label is cut to its width, at most this long */

/* The colour of a box: categories in the report's colours, then user code warm, libraries
 * cool, the standard library grey. */
static const char *box_fill(const struct ssa_pytab *t, const struct ssa_flame_node *n)
{
    if (!n->frame) return n->depth ? report_cat_fill(n->cat) : "#9e9e9e";
    switch (t->frames[n->frame - 1].kind) {
    case SSA_PYF_USER:
        return "#ffb74d";
    case SSA_PYF_LIBRARY:
        return "#90caf9";
    default:
        return "#cfd8dc";
    }
}

static void node_label(const struct ssa_pytab *t, const struct ssa_flame_node *n, char *buf,
                       size_t cap)
{
    if (n->frame)
        ssa_pyframe_label(&t->frames[n->frame - 1], 1, buf, cap);
    else
        snprintf(buf, cap, "%s", n->depth ? ssa_cat_name(n->cat) : "GPU idle (all categories)");
}

/* The first `chars` bytes of s, cut back to a whole UTF-8 sequence. */
static size_t cut_utf8(const char *s, size_t chars)
{
    size_t n = strlen(s);
    if (n <= chars) return n;
    while (chars > 0 && ((unsigned char)s[chars] & 0xc0) == 0x80)
        chars--;
    return chars;
}

static void flame_box(FILE *f, const struct report_view *v, const struct ssa_flame_node *n,
                      double x, double w, int rows)
{
    const struct ssa_pytab *t = &v->host->tab;
    char label[512], text[FL_LABEL_CHARS + 4];
    node_label(t, n, label, sizeof label);
    int y = (rows - 1 - n->depth) * FL_ROW; /* the root at the bottom */
    double steps = (double)v->s.steps, all = (double)v->host->flame[0].ns;
    fputs("<g><title>", f);
    html_escaped(f, label);
    fprintf(f, ": %.3f ms/step (%.1f %% of the sampled GPU-idle time)</title>",
            (double)n->ns / 1e6 / steps, 100.0 * (double)n->ns / all);
    fprintf(f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>", x, y, w,
            FL_ROW - 1, box_fill(t, n));
    size_t fit = w > 3 * FL_CHAR_PX ? (size_t)(w / FL_CHAR_PX) - 1 : 0;
    if (fit > FL_LABEL_CHARS) fit = FL_LABEL_CHARS;
    if (fit >= 3) {
        size_t k = cut_utf8(label, fit);
        memcpy(text, label, k);
        strcpy(text + k, k < strlen(label) ? ".." : "");
        fprintf(f, "<text x=\"%.2f\" y=\"%d\">", x + 2, y + FL_ROW - 4);
        html_escaped(f, text);
        fputs("</text>", f);
    }
    fputs("</g>\n", f);
}

/* The graph's rows: its deepest node drawn, plus one. */
static int flame_rows(const struct ssa_host *h)
{
    int rows = 1;
    for (size_t i = 0; i < h->n_flame; i++)
        if (h->flame[i].depth + 1 > rows) rows = h->flame[i].depth + 1;
    return rows < FL_MAX_ROWS ? rows : FL_MAX_ROWS;
}

/* Pre-order: a node starts where its parent does, after its earlier siblings (next[d]). */
static void flame_svg(FILE *f, const struct report_view *v)
{
    const struct ssa_host *h = v->host;
    int rows = flame_rows(h);
    double next[FL_MAX_ROWS + 1] = {0}, scale = FL_W / (double)h->flame[0].ns;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%d\" "
            "role=\"img\" aria-label=\"flame graph of GPU-idle host time\" "
            "font-family=\"monospace\" font-size=\"11\">\n",
            FL_W, rows * FL_ROW);
    for (size_t i = 0; i < h->n_flame;) {
        const struct ssa_flame_node *n = &h->flame[i];
        double x = next[n->depth], w = (double)n->ns * scale;
        next[n->depth] = x + w;
        if (w < FL_MIN_PX || n->depth >= FL_MAX_ROWS) {
            i += n->subtree; /* too narrow or too deep: its subtree too */
            continue;
        }
        next[n->depth + 1] = x;
        flame_box(f, v, n, x, w, rows);
        i++;
    }
    fputs("</svg>\n", f);
}

static void html_host(FILE *f, const struct report_view *v)
{
    if (!v->n_hostcats) return;
    const struct ssa_host *h = v->host;
    fputs("<h3>Where the GPU-idle host time is in the code</h3>\n<p class=\"note\">From "
          "Python stack samples of the training thread; ms/step without stepscope's own cost "
          "per launch.</p>\n",
          f);
    html_hotspots(f, v);
    if (!h->n_flame) return;
    fprintf(f,
            "<p class=\"note\">Flame graph of the sampled GPU-idle host time (%" PRIu64
            " samples): the categories at the bottom, then the Python frames from the "
            "outermost call up; user code orange, libraries blue, the standard library grey; "
            "hover for times.%s</p>\n",
            v->sampled_idle_samples,
            h->flame_cut_ns ? " Some deep or rare stacks are left out (node cap)." : "");
    flame_svg(f, v);
}

/* ---- the environment checks (doctor's, judged on the trace's record: report_view.c) ---- */

/* Every check, in a table folded away unless some check warns or fails (or verbose). */
static void html_env(FILE *f, const struct report_env *b, int verbose)
{
    fputs("<h3>Environment</h3>\n<p class=\"note\">", f);
    if (!b->recorded) {
        fputs("not recorded in the trace</p>\n", f);
        return;
    }
    fputs(b->counts_said, f);
    fputs(" (the checks of <code>stepscope doctor</code>, from the trace's environment "
          "record)</p>\n",
          f);
    fprintf(f, "<details%s><summary>every check</summary>\n<table class=\"sortable\">\n"
               "<thead><tr><th>status</th><th>check</th><th>value</th><th>fix</th></tr>"
               "</thead>\n<tbody>\n", verbose || b->notable ? " open" : "");
    for (size_t i = 0; i < b->n; i++) {
        const struct ssa_env_verdict *v = &b->v[i];
        int bad = report_env_notable(v);
        fprintf(f, "<tr><td>%s%s%s</td><td>%s</td><td>", bad ? "<b>" : "",
                ssa_env_status_name(v->status), bad ? "</b>" : "", ssa_env_checks[i].id);
        html_escaped(f, v->value);
        fputs("</td><td><code>", f);
        html_escaped(f, v->fix[0] ? v->fix : NULL);
        fputs("</code></td></tr>\n", f);
    }
    fputs("</tbody>\n</table>\n</details>\n", f);
}

/* The containers the script draws the run chart and the timeline in, and their data. */
static void html_para(FILE *f, const char *open, const char *text);

#define RUN_W 720.0 /* the whole run's chart (px) */
#define RUN_H 120.0

/* The whole run's step time as a line over the run, GPU windows shaded (plain SVG: no
 * script needed), then its stalls, drift and windows compared. */
static void run_svg(FILE *f, const struct report_run *w)
{
    double hi = 0, dx = RUN_W / (double)(w->n_points > 1 ? w->n_points - 1 : 1);
    for (size_t p = 0; p < w->n_points; p++) hi = w->point_ms[p] > hi ? w->point_ms[p] : hi;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "role=\"img\" aria-label=\"step time over the whole run\">\n", RUN_W, RUN_H + 14);
    for (size_t p = 0; p < w->n_points; p++)
        if (w->point_window[p])
            fprintf(f, "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%.0f\" "
                       "fill=\"#dbe9f6\"><title>GPU window</title></rect>\n",
                    (double)p * dx - dx / 2, dx, RUN_H);
    fputs("<polyline fill=\"none\" stroke=\"#333\" stroke-width=\"1\" points=\"", f);
    for (size_t p = 0; p < w->n_points && hi > 0; p++)
        fprintf(f, "%.1f,%.1f ", (double)p * dx, RUN_H - w->point_ms[p] / hi * (RUN_H - 4));
    fprintf(f, "\"/>\n<text x=\"2\" y=\"%.0f\" font-size=\"11\">step %llu</text>"
               "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" text-anchor=\"end\">top %.1f "
               "ms</text>\n</svg>\n", RUN_H + 12, (unsigned long long)w->point_step[0],
            RUN_W - 2, RUN_H + 12, hi);
}

static void html_run(FILE *f, const struct report_run *w)
{
    if (!w->shown) return;
    fputs("<h3>Whole run</h3>\n", f);
    html_para(f, "<p>", w->head);
    run_svg(f, w);
    fprintf(f, "<p class=\"note\">Each point the mean time of %zu step%s; GPU windows shaded."
               "</p>\n", w->steps_per_point, w->steps_per_point == 1 ? "" : "s");
    for (size_t i = 0; i < w->n_lines; i++) html_para(f, "<p>", w->lines[i]);
    for (size_t i = 0; i < w->n_compares; i++) html_para(f, "<p>", w->compares[i]);
    if (w->none[0]) html_para(f, "<p>", w->none);
}

static void html_charts(FILE *f, const struct report_view *v)
{
    if (v->n_bins)
        fprintf(f,
                "<h3>Steps over the run</h3>\n<p class=\"note\">Every step%s: its time by "
                "category, warm-up shaded, outliers (over %.2f ms, %.1f&times; the median) "
                "marked; hover for numbers, click a step to draw it below.</p>\n"
                "<div class=\"ss-run\"><p class=\"nojs\">(the chart needs JavaScript)</p>"
                "</div>\n",
                v->bin_width > 1 ? " (bins of consecutive steps: their mean)" : "",
                v->outlier_ms, SSA_OUTLIER_FACTOR);
    if (v->n_tls)
        fputs("<h3>Timeline</h3>\n<p class=\"note\">Any step of the list (every step of a "
              "short run, else evenly spaced ones with the median and slowest; [ and ] step "
              "through them): its attribution on top (what each instant counted as), then one "
              "lane per GPU stream, per host thread (its CUDA API calls, data ranges) and one of "
              "memory (allocations and frees); wheel or W/S to zoom, drag or A/D to pan, 0 to "
              "fit; hover for names.</p>\n"
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

static void html_top_kernels(FILE *f, const struct report_view *v)
{
    if (!v->n_knames) return;
    fprintf(f, "<h3>Top kernels (whole trace)</h3>\n<p class=\"note\">The kernels with the "
               "most GPU time (at most %d); click a name to see it whole.</p>\n", HTML_TOP_KERNELS);
    fputs("<table class=\"sortable\">\n<thead><tr>"
          "<th class=\"n\">ms</th><th class=\"n\">count</th><th class=\"n\">mean us</th>"
          "<th>class</th><th>name</th></tr></thead>\n<tbody>\n",
          f);
    for (size_t i = 0; i < v->n_knames && i < HTML_TOP_KERNELS; i++) {
        const struct ssa_kname *k = &v->knames[i];
        fprintf(f,
                "<tr><td class=\"n\">%.3f</td><td class=\"n\">%" PRIu64 "</td>"
                "<td class=\"n\">%.1f</td><td>%s</td><td class=\"name\"><code>",
                ms(k->total_ns), k->count, k->count ? (double)k->total_ns / 1e3 / (double)k->count : 0,
                ssa_kclass_name(k->kclass));
        char *shown = report_kernel_name(v->kname_text[i], HTML_KERNEL_NAME);
        html_escaped(f, shown ? shown : v->kname_text[i]);
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
        html_env(f, &v->env, k->o->verbose);
        fputs("<p>nothing to attribute: the trace has no timed records inside a step</p>\n"
              "</section>\n",
              f);
        return;
    }
    html_breakdown(f, v);
    html_findings(f, v);
    html_run(f, &v->run);
    html_charts(f, v);
    html_host(f, v);
    html_top_kernels(f, v);
    html_env(f, &v->env, k->o->verbose);
    fputs("</section>\n", f);
}

/* ---- the ranks of a multi-GPU job (report_view.c says what; here how) ---- */

static void html_rank_row(FILE *f, const struct report_ranks_view *t, size_t row)
{
    const struct ssa_rank *k = &t->job->ranks[t->rows[row]];
    if (!k->usable) {
        fprintf(f,
                "<tr><td></td><td class=\"n\">%d</td><td colspan=\"6\">not compared (no "
                "steady steps from step markers)</td><td><code>",
                (int)k->rank);
    } else {
        fprintf(f,
                "<tr><td>%c</td><td class=\"n\">%d</td><td class=\"n\">%.2f</td>"
                "<td class=\"n\">%.1f</td><td class=\"n\">%.2f</td><td class=\"n\">%.2f</td>"
                "<td class=\"n\">%.0f %%</td><td>%s %.2f</td><td><code>",
                t->mark[row], (int)k->rank, k->step_ms, k->busy_pct, k->nccl_ms, k->comm_ms,
                k->overlap_pct, ssa_cat_name(k->top_cat), k->top_ms);
    }
    html_escaped(f, t->inputs[k->input].path);
    fputs("</code></td></tr>\n", f);
}

static void html_para(FILE *f, const char *open, const char *text)
{
    fputs(open, f);
    html_escaped(f, text);
    fputs("</p>\n", f);
}

static void html_ranks(struct report_sink *k, const struct report_ranks_view *t)
{
    FILE *f = k->f;
    fprintf(f, "<section>\n<h2>Ranks: %s</h2>\n", t->head);
    if (t->notes[0]) html_para(f, "<p class=\"note\">", t->notes);
    /* sortable when every rank has its row (no "ranks between" line) */
    fprintf(f, "<table%s>\n<thead><tr><th></th><th class=\"n\">rank</th><th class=\"n\">step ms"
               "</th><th class=\"n\">GPU busy %%</th><th class=\"n\">NCCL ms</th><th class=\"n\">"
               "exposed comm ms</th><th class=\"n\">overlapped</th><th>largest non-comm, ms</th>"
               "<th>trace</th></tr></thead>\n<tbody>\n", t->elided ? "" : " class=\"sortable\"");
    for (size_t i = 0; i < t->n_rows; i++)
        if (t->rows[i] == REPORT_RANK_BETWEEN)
            fputs("<tr><td></td><td colspan=\"8\">&hellip; ranks between, by non-comm time "
                  "(--format json lists all)</td></tr>\n",
                  f);
        else
            html_rank_row(f, t, i);
    fputs("</tbody>\n</table>\n<p class=\"note\">ms per step; S: straggler, m: median rank.</p>\n",
          f);
    html_para(f, "<p><b>straggler:</b> ", t->straggler);
    if (t->waiting[0]) html_para(f, "<p><b>waiting:</b> ", t->waiting);
    if (t->clocks[0]) html_para(f, "<p><b>clocks:</b> ", t->clocks);
    if (t->arrivals[0]) html_para(f, "<p><b>arrivals:</b> ", t->arrivals);
    if (t->omitted) fprintf(f, "<p class=\"note\">%s.</p>\n", t->omitted_said);
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
        double x = d->b.v.s.cat_ms[c], y = d->a.v.s.cat_ms[c];
        if (d->cat_shown[c])
            fprintf(f, "<tr><td><span class=\"sw\" style=\"background:%s\"></span>%s</td>"
                       "<td class=\"n\">%.3f</td><td class=\"n\">%.3f</td>"
                       "<td class=\"n\">%+.3f</td></tr>\n",
                    report_cat_fill(c), ssa_cat_name(c), x, y, y - x);
    }
    fputs("</tbody>\n</table>\n", f);
}

static void html_diff(FILE *f, const struct diff_view *d)
{
    const struct diff_side *b = &d->b, *a = &d->a;
    html_page_begin(f, "diff");
    fputs("<section>\n<h2><code>", f);
    html_escaped(f, b->path);
    fputs("</code> → <code>", f);
    html_escaped(f, a->path);
    fprintf(f, "</code></h2>\n<p><strong>%s</strong>: %s</p>\n", d->verdict, d->said);
    html_diff_categories(f, d);
    fputs("<table class=\"sortable\">\n<thead><tr><th>finding</th><th class=\"n\">before "
          "ms/step</th><th class=\"n\">after ms/step</th><th>status</th><th>title</th></tr>"
          "</thead>\n<tbody>\n", f);
    for (size_t i = 0; i < d->n_pairs; i++) html_diff_finding(f, &d->pairs[i]);
    fputs("</tbody>\n</table>\n</section>\n", f);
    html_page_end(f);
}


static void html_begin(struct report_sink *k)
{
    html_page_begin(k->f, k->d->title);
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
    html_page_end(k->f);
}


const struct report_writer report_writer_html = {
    .begin = html_begin,
    .ranks = html_ranks,
    .process = html_process,
    .unreadable = html_unreadable,
    .end = html_end,
    .diff = html_diff,
};
