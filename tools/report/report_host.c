/*
 * report_host.c — where the host time goes (issue #20) in the Markdown and HTML reports: per
 * GPU-idle category the user's lines the Python stack samples fell on, and in HTML a flame
 * graph of the GPU-idle host time (inline SVG, no script, nothing fetched). From the view
 * only (report_view.h); every name from the trace is escaped.
 */
#include <inttypes.h>
#include <string.h>

#include "report.h"
#include "text_esc.h"

/* ---- Markdown ---- */

void report_host_md(FILE *f, const struct report_view *v, int verbose)
{
    if (!v->n_hostcats) return;
    fputs("\n### Where the GPU-idle host time is in the code\n\n"
          "From Python stack samples of the training thread; ms/step without stepscope's own "
          "cost per launch.\n\n| category | ms/step | samples | where | library frame |\n"
          "|---|---:|---:|---|---|\n",
          f);
    for (size_t c = 0; c < v->n_hostcats; c++) {
        const struct report_hostcat *h = &v->hostcats[c];
        size_t shown = verbose || h->n < REPORT_HOST_SHORT ? h->n : REPORT_HOST_SHORT;
        for (size_t i = 0; i < shown; i++) {
            fprintf(f, "| %s | %.2f | %" PRIu64 " | ", i ? "" : ssa_cat_name(h->cat),
                    h->v[i].h.ms_per_step, h->v[i].h.samples);
            md_escaped(f, h->v[i].where);
            fputs(" | ", f);
            if (h->v[i].h.lib) md_escaped(f, h->v[i].h.lib->function);
            fputs(" |\n", f);
        }
    }
    if (v->r->host.n_sites)
        fprintf(f, "\n`%s`: the lines of the CUDA calls caught while they blocked (the "
                   "samples column counts the calls).\n",
                report_site_cats(&v->r->host));
}

const char *report_site_cats(const struct ssa_host *h)
{
    int sync = 0, alloc = 0;
    for (size_t i = 0; i < h->n_sites; i++)
        sync |= h->sites[i].cat == SSA_CAT_SYNC, alloc |= h->sites[i].cat == SSA_CAT_ALLOC;
    return sync && alloc ? "sync, alloc" : alloc ? "alloc" : "sync";
}

/* ---- HTML: the table ---- */

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

/* ---- HTML: the flame graph ---- */

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
    const struct ssa_pytab *t = &v->r->host.tab;
    char label[512], text[FL_LABEL_CHARS + 4];
    node_label(t, n, label, sizeof label);
    int y = (rows - 1 - n->depth) * FL_ROW; /* the root at the bottom */
    double steps = (double)v->s.steps, all = (double)v->r->host.flame[0].ns;
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
    const struct ssa_host *h = &v->r->host;
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

void report_host_html(FILE *f, const struct report_view *v)
{
    if (!v->n_hostcats) return;
    const struct ssa_host *h = &v->r->host;
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
