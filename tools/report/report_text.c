/*
 * report_text.c — the text format, every section of it (`stepscope report`, `stepscope diff`,
 * and the end of `stepscope record`): per process the headline, the environment checks, the
 * stacked bar, the category table, where the host time is in the code, the findings (-v adds
 * the kernel classes, the top kernels and the per-step table); before them the ranks of a
 * multi-GPU job; diff's tables. Every string from the trace is escaped.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd.h"
#include "report.h"
#include "report_diff.h"
#include "text_esc.h"
#include "util/ss_cxxname.h"


#define BAR_WIDTH 64
#define SMALL_CAT_PCT 0.5 /* without -v, rows below this share are summed in one */

/* One character and one ANSI background colour per category for the bar (SSA_CATS). */
static const char cat_glyph[SSA_CAT_COUNT] = {
#define TEXT_X_GLYPH(id, name, glyph, ansi, fill, argb, text) [SSA_CAT_##id] = glyph,
    SSA_CATS(TEXT_X_GLYPH)
#undef TEXT_X_GLYPH
};
static const int cat_color[SSA_CAT_COUNT] = {
#define TEXT_X_ANSI(id, name, glyph, ansi, fill, argb, text) [SSA_CAT_##id] = ansi,
    SSA_CATS(TEXT_X_ANSI)
#undef TEXT_X_ANSI
};

/* ---- text ---- */

static void text_escaped(FILE *out, const char *s)
{
    if (s)
        text_write_escaped(out, s, strlen(s), 1);
    else
        fputs("-", out);
}

static void text_wrapped(FILE *out, const char *label, const char *text);
static void text_hard_wrapped(FILE *out, int indent, const char *s);

#define TEXT_LABEL 13 /* "  command    " */

/* How much of a process's section is shown: everything with -v; without -v one screen,
 * TEXT_SCREEN lines at most. A section that would be longer gives detail up in this order,
 * the least telling first, until it fits (text_section): the outliers after the slowest, the
 * host lines after each category's first, the evidence and fix of the findings after the
 * first (their title and saving stay), the first one's evidence (its fix stays). -v shows it
 * all. */
#define TEXT_SCREEN 60
enum text_detail {
    TEXT_VERBOSE,       /* -v */
    TEXT_SHORT,         /* the first 3 outliers and host lines a category, 2 findings */
    TEXT_ONE_OUTLIER,   /* ... the slowest outlier only */
    TEXT_ONE_HOST,      /* ... and one host line a category */
    TEXT_FIRST_FINDING, /* ... and the second finding by its title and saving */
    TEXT_FIRST_FIX,     /* ... and the first finding without its evidence (saving, fix stay) */
    TEXT_DETAILS
};

/* The width of the report being written (report_opts.width): set by each text entry point
 * before it prints, read by every line that wraps or fits a name. */
static int text_cols = REPORT_TEXT_MIN_COLS;

static void text_set_cols(const struct report_opts *o)
{
    text_cols = o->width >= REPORT_TEXT_MIN_COLS ? (int)o->width : REPORT_TEXT_MIN_COLS;
}

unsigned report_text_cols(int fd)
{
    const char *env = getenv("COLUMNS");
    uint64_t c = 0;
    struct winsize ws;
    if (!(env && cli_parse_u64(env, &c) == 0 && c > 0)) {
        if (fd >= 0 && isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col)
            c = ws.ws_col;
        else
            c = REPORT_TEXT_MIN_COLS;
    }
    if (c < REPORT_TEXT_MIN_COLS) c = REPORT_TEXT_MIN_COLS;
    return c > REPORT_TEXT_MAX_COLS ? REPORT_TEXT_MAX_COLS : (unsigned)c;
}

static void text_identity(FILE *out, const struct report_view *v)
{
    const struct report_trace *t = &v->trace;
    char shown[1024];
    fprintf(out, "stepscope report: %s\n",
            text_elide_path(shown, sizeof shown, t->path, (size_t)text_cols - 18));
    if (v->damaged) { /* first: a report of part of a trace must not read as a whole one */
        char label[16];
        snprintf(label, sizeof label, "  %-11s", v->damage_label);
        text_wrapped(out, label, v->damage);
    }
    fprintf(out, "  process    %s", v->process_terse);
    if (t->device) {
        fprintf(out, ", first ");
        text_escaped(out, t->device);
    }
    if (t->cmdline)
        fprintf(out, "\n  command    \"%s\"",
                text_short_command(shown, sizeof shown, t->cmdline,
                                   (size_t)text_cols - TEXT_LABEL - 2));
    else
        fprintf(out, "\n  command    -");
    fprintf(out, "\n");
    text_wrapped(out, "  trace      ", v->trace_said);
    if (v->has_program) text_wrapped(out, "  program    ", v->program);
    if (v->has_problems) text_wrapped(out, "  damage     ", v->problems);
    if (v->has_lost) text_wrapped(out, "  lost       ", v->lost);
}

/* The throughput: one line when the program marked its batch (without -v: one screen);
 * with -v always, and the device's peaks. */
static void text_throughput(FILE *out, const struct report_view *v, int verbose)
{
    if (!v->has_throughput) return;
    if (verbose) text_wrapped(out, "  throughput ", v->throughput);
    if (verbose && v->peak[0]) text_wrapped(out, "  peak       ", v->peak);
    if (!verbose && (v->batch.marks || v->batch.from_loader))
        text_wrapped(out, "  throughput ", v->throughput_line);
}

static void text_notes(FILE *out, const char (*lines)[REPORT_NOTE], size_t n)
{
    for (size_t i = 0; i < n; i++)
        text_wrapped(out, "             ", lines[i]);
}

static void text_steps_line(FILE *out, const struct report_view *v, int detail)
{
    const struct ssa_summary *s = &v->s;
    fprintf(out, "  steps      %s\n", v->steps_head);
    if (!v->per_step) return;
    text_notes(out, v->steps_before, v->n_steps_before);
    text_notes(out, v->step_notes, v->n_step_notes);
    text_notes(out, v->steps_after, v->n_steps_after);
    if (!s->steps) return;
    fprintf(out, "  step time  median %.2f ms  p10 %.2f  p90 %.2f  mean %.2f  %.2f steps/s\n",
            ms(s->median_ns), ms(s->p10_ns), ms(s->p90_ns), ms(s->mean_ns), s->steps_per_s);
    if (v->has_rec_cost) text_wrapped(out, "  recording  ", v->rec_cost);
    if (v->caution_long[0]) text_wrapped(out, "  caution    ", v->caution_long);
    if (v->n_outliers)
        text_wrapped(out, "  outliers   ",
                     detail >= TEXT_ONE_OUTLIER ? v->outlier_said : v->outliers_said);
}

/* Largest-remainder rounding of the percentages to BAR_WIDTH cells. */
static void bar_cells(const struct ssa_summary *s, int cells[SSA_CAT_COUNT])
{
    double rem[SSA_CAT_COUNT];
    int used = 0;
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        double exact = s->cat_pct[c] * BAR_WIDTH / 100.0;
        cells[c] = (int)exact;
        rem[c] = exact - cells[c];
        used += cells[c];
    }
    while (used < BAR_WIDTH && s->total_ns) {
        int best = 0;
        for (int c = 1; c < SSA_CAT_COUNT; c++)
            if (rem[c] > rem[best]) best = c;
        cells[best]++, rem[best] = -1, used++;
    }
}

static void text_bar(FILE *out, const struct ssa_summary *s, int color)
{
    int cells[SSA_CAT_COUNT];
    bar_cells(s, cells);
    fprintf(out, "\n  [");
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        if (!cells[c]) continue;
        if (color) fprintf(out, "\033[%d;30m", cat_color[c]);
        for (int i = 0; i < cells[c]; i++)
            fputc(cat_glyph[c], out);
        if (color) fprintf(out, "\033[0m");
    }
    fprintf(out, "]\n  ");
    int col = 2;
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        if (!cells[c]) continue;
        int w = 3 + (int)strlen(ssa_cat_name(c));
        if (col + w > text_cols - 2) fprintf(out, "\n  "), col = 2;
        fprintf(out, " %c=%s", cat_glyph[c], ssa_cat_name(c));
        col += w;
    }
    fprintf(out, "\n");
}

static void text_categories(FILE *out, const struct ssa_summary *s, int per_step, int verbose)
{
    int order[SSA_CAT_COUNT];
    for (int c = 0; c < SSA_CAT_COUNT; c++)
        order[c] = c;
    for (int i = 1; i < SSA_CAT_COUNT; i++) /* by time, largest first (insertion sort) */
        for (int j = i; j > 0 && s->cat_pct[order[j]] > s->cat_pct[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1], order[j - 1] = t;
        }
    fprintf(out, "\n  %-20s %10s %7s\n", "category", per_step ? "ms/step" : "ms", "%");
    int small = 0;
    double small_pct = 0;
    for (int i = 0; i < SSA_CAT_COUNT; i++) {
        int c = order[i];
        if (s->cat_pct[c] <= 0) continue;
        if (!verbose && s->cat_pct[c] < SMALL_CAT_PCT) { /* one screen: -v shows them */
            small++, small_pct += s->cat_pct[c];
            continue;
        }
        double v = per_step ? s->cat_ms[c] : s->cat_ms[c] * (double)s->steps;
        char row[64];
        snprintf(row, sizeof row, "  %-20s %10.3f %7.1f%s", ssa_cat_name(c), v, s->cat_pct[c],
                 verbose ? "  " : "");
        if (verbose)
            text_wrapped(out, row, ssa_cat_description(c));
        else
            fprintf(out, "%s\n", row);
    }
    if (small)
        fprintf(out, "  %-20s %10s %7.2f  (%d categories under %.1f %%: -v)\n", "(others)", "",
                small_pct, small, SMALL_CAT_PCT);
    fprintf(out, "  %-20s %10.3f %7.1f  GPU busy %.1f %%\n", "total",
            per_step ? ms(s->mean_ns) : ms(s->total_ns), 100.0, s->gpu_busy_pct);
}

#define HOST_PREFIX 28  /* "  category   ms/step samples  " */

/* A hotspot in at most width columns: "function (file:line)", then "-> library frame" when
 * the time was inside a library called from that line. Escaped. */
static const char *hotspot_text(char *buf, size_t cap, const struct report_hotspot *h,
                                size_t width)
{
    char raw[512];
    if (h->h.lib)
        snprintf(raw, sizeof raw, "%s -> %s", h->where, h->h.lib->function);
    else
        snprintf(raw, sizeof raw, "%s", h->where);
    return text_escape_to(buf, cap < width + 1 ? cap : width + 1, raw);
}

/* Where the GPU-idle host time went, per category: the user's lines the Python stack
 * samples of the training thread fell on (ms/step without stepscope's own launch cost). */
static void text_host(FILE *out, const struct report_view *v, int detail)
{
    size_t most = detail == TEXT_VERBOSE ? REPORT_HOTSPOTS
                  : detail >= TEXT_ONE_HOST ? 1 : REPORT_HOST_SHORT;
    if (!v->n_hostcats) return;
    fprintf(out, "\n  %-10s %7s %5s  %s\n", "host time", "ms/step", "smpl",
            "where, from Python stack samples");
    for (size_t c = 0; c < v->n_hostcats; c++) {
        const struct report_hostcat *h = &v->hostcats[c];
        size_t shown = h->n < most ? h->n : most;
        for (size_t i = 0; i < shown; i++) {
            char where[256];
            fprintf(out, "  %-10s %7.2f %5" PRIu64 "  %s\n", i ? "" : ssa_cat_name(h->cat),
                    h->v[i].h.ms_per_step, h->v[i].h.samples,
                    hotspot_text(where, sizeof where, &h->v[i], (size_t)text_cols - HOST_PREFIX));
        }
    }
    if (v->site_cats)
        fprintf(out, "  %-10s (%s: lines of the calls; smpl = calls)\n", "", v->site_cats);
}

/* Kernel time by class (-v only: the breakdown above already splits compute by class). */
static void text_kernels(FILE *out, const struct ssa_summary *s, int per_step)
{
    const char *unit = per_step ? "ms/step" : "ms";
    double k = per_step ? 1.0 : (double)s->steps;
    fprintf(out, "\n  kernel time by class (%s, overlaps not removed):\n   ", unit);
    int any = 0, col = 3;
    for (int c = 0; c < SSA_KC_COUNT; c++) {
        if (s->kclass_ms[c] <= 0) continue;
        char item[64];
        int w = snprintf(item, sizeof item, " %s %.3f", ssa_kclass_name(c), s->kclass_ms[c] * k);
        if (col + w > text_cols - 2) fprintf(out, "\n   "), col = 3;
        fputs(item, out);
        col += w;
        any = 1;
    }
    fprintf(out, "%s\n", any ? "" : " none");
}

static void text_counts(FILE *out, const struct ssa_summary *s, int per_step, int verbose)
{
    if (!per_step) return;
    fprintf(out,
            "%s  per step: %.1f kernels, %.1f launches, %.1f syncs;\n"
            "            %.1f H2D copies, %.2f MiB (%.2f MiB pageable)\n",
            verbose ? "" : "\n", s->kernels_per_step, s->launches_per_step, s->syncs_per_step, s->h2d_copies_per_step,
            s->h2d_mib_per_step, s->pageable_h2d_mib_per_step);
}

/* Room for any name escaped (at most 10 bytes per code point, \u{XXXXX}, or 4 per byte). */
static size_t escaped_cap(const char *name)
{
    return 5 * strlen(name) + 16;
}

/* The least shortened form of name (ss_cxxname.h levels) whose escaped text fits cols
 * columns, escaped into buf (escaped_cap(name) bytes); NULL when even the shortest does not. */
static const char *fit_name(const char *name, int cols, char *buf)
{
    size_t n = strlen(name) + 1;
    char *form = malloc(n);
    const char *fit = NULL;
    for (int level = 0; form && level < SS_NAME_LEVELS && !fit; level++) {
        ss_name_shorten(name, level, form, n);
        text_escape_to(buf, escaped_cap(name), form);
        if (text_columns(buf, strlen(buf)) <= (size_t)cols) fit = buf;
    }
    free(form);
    return fit;
}

/* A kernel's class and name after its numbers (which end at column col): the name demangled,
 * on the same line when a form of it fits there, else on the next line, indented; a name
 * that fits nowhere is wrapped over lines (never cut). */
static void text_kernel_name(FILE *out, const char *raw, int col, const char *kclass)
{
    char *dem = ss_demangle(raw, strlen(raw));
    const char *name = dem ? dem : raw;
    char *buf = malloc(escaped_cap(name));
    const int indent = 6, kl = (int)strlen(kclass), class_cols = kl < 12 ? 12 : kl + 1;
    if (!buf) {
        fprintf(out, "%s\n", kclass);
    } else if (fit_name(name, text_cols - col - class_cols, buf)) {
        fprintf(out, "%-*s%s\n", class_cols, kclass, buf);
    } else if (fit_name(name, text_cols - indent, buf)) {
        fprintf(out, "%s\n%*s%s\n", kclass, indent, "", buf);
    } else { /* buf holds the shortest form */
        fprintf(out, "%s\n", kclass);
        text_hard_wrapped(out, indent, buf);
    }
    free(buf);
    free(dem);
}

static void text_top_kernels(FILE *out, const struct report_view *v)
{
    fprintf(out, "\n  top kernels (whole trace)\n");
    for (size_t i = 0; i < v->n_knames && i < TOP_KERNELS; i++) {
        const struct ssa_kname *k = &v->knames[i];
        int col = fprintf(out, "  %10.3f ms %7" PRIu64 "x  ", ms(k->total_ns), k->count);
        /* Triton kernels are generated by torch.compile (Inductor), classed by their names */
        char cls[48];
        snprintf(cls, sizeof cls, "%s%s", ssa_kclass_name(k->kclass),
                 v->triton[i] ? ", Triton" : "");
        text_kernel_name(out, v->kname_text[i], col, cls);
    }
}

static int top_cat_of(const struct ssa_step *st)
{
    int best = 0;
    for (int c = 1; c < SSA_CAT_COUNT; c++)
        if (st->cat_ns[c] > st->cat_ns[best]) best = c;
    return best;
}

static void text_step_table(FILE *out, const struct report_view *v)
{
    if (!v->per_step || !v->step_list) return;
    fprintf(out, "\n  %8s %10s %7s %-20s %8s %8s\n", "step", "ms", "busy%", "largest", "kernels",
            "syncs");
    for (size_t i = 0; i < v->steps.total; i++) {
        const struct ssa_step *st = &v->step_list[i];
        uint64_t d = st->end_ns - st->begin_ns, busy = 0;
        for (int c = 0; c < SSA_CAT_FIRST_IDLE; c++)
            busy += st->cat_ns[c];
        fprintf(out, "  %8" PRIu64 " %10.3f %7.1f %-20s %8" PRIu32 " %8" PRIu32 "%s\n", st->number,
                ms(d), d ? 100.0 * (double)busy / (double)d : 0, ssa_cat_name(top_cat_of(st)),
                st->n.kernels, st->n.syncs, st->warmup ? "  warm-up" : "");
    }
}

#define TEXT_FINDINGS 2 /* shown without -v: the report fits one screen */

/* Prints s (escaped already) from column indent in pieces of the columns left, each on its
 * own line: for a word longer than any line, which is wrapped rather than cut. */
static void text_hard_wrapped(FILE *out, int indent, const char *s)
{
    size_t room = (size_t)(text_cols - indent);
    while (*s) {
        size_t n = text_bytes_for_columns(s, room);
        fprintf(out, "%*s%.*s\n", indent, "", (int)n, s);
        s += n;
    }
}

/* Prints label then text, word-wrapped 2 columns short of the width, with continuation
 * lines under the text. */
static void text_wrapped(FILE *out, const char *label, const char *text)
{
    int indent = (int)strlen(label), col = indent, wrap_col = text_cols - 2;
    fputs(label, out);
    for (const char *p = text; *p;) {
        while (*p == ' ')
            p++;
        size_t w = strcspn(p, " ");
        if (!w) break;
        if (col > indent && col + 1 + (int)w > wrap_col)
            fprintf(out, "\n%*s", indent, ""), col = indent;
        else if (col > indent)
            fputc(' ', out), col++;
        text_write_escaped(out, p, w, 0);
        col += (int)w;
        p += w;
    }
    fputc('\n', out);
}

/* One finding: title and saving, then (in full) its evidence (unless evidence is 0) and fix. */
static void text_finding(FILE *out, const struct report_view *v, size_t i, int full, int verbose,
                         int evidence)
{
    const struct ssa_finding *x = &v->f.v[i];
    fprintf(out, "  %zu. [%s] %s\n", i + 1, ssa_level_name(x->severity), x->title);
    if (!full) {
        fprintf(out, "     %s\n", v->saves[i]);
        if (v->alt_of[i]) fprintf(out, "     %s\n", v->alt_said[i]);
        return;
    }
    char saves[sizeof v->saves[i] + sizeof v->held_out[i] + 2];
    snprintf(saves, sizeof saves, "%s: %s", v->saves[i], v->held_out[i]);
    text_wrapped(out, "     ", saves);
    if (v->alt_of[i]) fprintf(out, "     %s\n", v->alt_said[i]);
    if (evidence) text_wrapped(out, "     evidence: ", x->evidence);
    if (verbose) text_wrapped(out, "     estimate: ", x->estimate);
    text_wrapped(out, "     fix:      ", x->fix);
}

/* Ranked findings: title, saving, evidence, the fix (src/analysis/ssa_findings.c). */
static void text_findings(FILE *out, const struct report_view *v, int detail)
{
    const struct ssa_findings *f = &v->f;
    if (!f->n) {
        fprintf(out, "\n  findings   %s\n", v->no_findings);
        if (v->light) text_wrapped(out, "             ", v->light_note);
        return;
    }
    fprintf(out, "\n  findings, ranked by estimated saving\n");
    int verbose = detail == TEXT_VERBOSE, first_only = detail >= TEXT_FIRST_FINDING;
    size_t shown = verbose || f->n <= TEXT_FINDINGS ? f->n : TEXT_FINDINGS;
    int first_bare = detail >= TEXT_FIRST_FIX;
    for (size_t i = 0; i < shown; i++)
        text_finding(out, v, i, i == 0 || !first_only, verbose, !first_bare);
    const char *of1 = first_bare ? "the evidence of 1., " : "";
    if (first_only && shown > 1 && shown < f->n)
        fprintf(out, "  (%sthe evidence and fix of 2., and %zu more, with -v)\n", of1,
                f->n - shown);
    else if (first_only && shown > 1)
        fprintf(out, "  (%sthe evidence and fix of 2. with -v)\n", of1);
    else if (first_bare)
        fprintf(out, "  (the evidence of 1. with -v)\n");
    else if (shown < f->n)
        fprintf(out, "  (%zu more with -v)\n", f->n - shown);
    if (v->has_all_fixed) text_wrapped(out, "  together   ", v->all_fixed);
}

/* ---- the environment checks (doctor's, judged on the trace's record: report_view.c) ---- */

/* The warn and fail lines (every check with verbose); values quote the trace: escaped. */
static void text_env(FILE *f, const struct report_env *b, int verbose)
{
    char label[32], line[SSA_ENV_VALUE_MAX + 64];
    fputs("  env        ", f);
    if (!b->recorded) {
        fputs("no environment record in the trace\n", f);
        return;
    }
    fputs(b->counts_said, f);
    fputs(verbose ? " (doctor's checks on\n             the trace's record)\n"
                  : " (-v lists every check)\n",
          f);
    for (size_t i = 0; i < b->n; i++) {
        const struct ssa_env_verdict *v = &b->v[i];
        if (!verbose && !report_env_notable(v)) continue;
        snprintf(label, sizeof label, "    [%s] ", ssa_env_status_name(v->status));
        snprintf(line, sizeof line, "%s: %s", ssa_env_checks[i].id, v->value);
        text_wrapped(f, label, line);
        if (v->fix[0]) text_wrapped(f, "           fix: ", v->fix);
    }
}

/* What stands before the breakdown: whose GPU activity this is. */
static void text_gpu_note(FILE *out, const struct report_view *v)
{
    char esc[640];
    if (v->gpu_note[0]) fprintf(out, "  %s\n", text_escape_to(esc, sizeof esc, v->gpu_note));
}

/* The section at one level of detail (enum text_detail). */
/* The whole run: its head, the sparkline with the GPU windows under it, stalls and drift.
 * Without -v a line gives up its fix (after "; fix: ") from TEXT_ONE_OUTLIER on; from
 * TEXT_FIRST_FINDING only the first line is shown, to its share of the run, and the windows'
 * marks go: the largest cost and its size stay. */
static void text_run_line(FILE *out, const char *line, int detail, size_t more)
{
    char cut[sizeof ((struct report_run *)0)->lines[0]];
    const char *end = detail >= TEXT_ONE_OUTLIER ? strstr(line, "; fix: ") : NULL;
    const char *share = detail >= TEXT_FIRST_FINDING ? strstr(line, " of the run") : NULL;
    if (share) end = share + strlen(" of the run");
    if (!end) {
        text_wrapped(out, "             ", line);
        return;
    }
    int n = snprintf(cut, sizeof cut, "%.*s", (int)(end - line), line);
    if (share && n > 0 && (size_t)n < sizeof cut)
        snprintf(cut + n, sizeof cut - (size_t)n, more ? " (-v: where, %zu more)" : " (-v: where)",
                 more);
    text_wrapped(out, "             ", cut);
}

static void text_run(FILE *out, const struct report_run *w, int detail)
{
    if (w->why_none[0]) text_wrapped(out, "  whole run  ", w->why_none);
    if (!w->shown) return;
    size_t all = w->n_lines + w->n_compares;
    text_wrapped(out, "  whole run  ", w->head);
    fprintf(out, "%*s%s\n", TEXT_LABEL, "", w->spark);
    if (strchr(w->marks, '^') && detail < TEXT_FIRST_FINDING)
        fprintf(out, "%*s%s\n", TEXT_LABEL, "", w->marks);
    if (detail == TEXT_VERBOSE) text_wrapped(out, "             ", w->scale);
    if (detail >= TEXT_FIRST_FINDING && w->n_lines) {
        text_run_line(out, w->lines[0], detail, all - 1);
        return;
    }
    for (size_t i = 0; i < w->n_lines; i++) text_run_line(out, w->lines[i], detail, 0);
    for (size_t i = 0; i < w->n_compares; i++) text_run_line(out, w->compares[i], detail, 0);
    if (w->none[0]) text_wrapped(out, "             ", w->none);
}

static void text_layout(FILE *out, const struct report_view *v, const struct report_opts *o,
                        int detail)
{
    const struct ssa_summary *s = &v->s;
    int verbose = detail == TEXT_VERBOSE;
    text_identity(out, v);
    text_env(out, &v->env, verbose);
    text_steps_line(out, v, detail);
    text_throughput(out, v, verbose);
    if (!s->steps) {
        fprintf(out, "  nothing to attribute: the trace has no timed records inside a step\n");
        return;
    }
    text_gpu_note(out, v);
    text_bar(out, s, o->color);
    text_categories(out, s, v->per_step, verbose);
    if (v->per_step) text_host(out, v, detail);
    if (verbose) text_kernels(out, s, v->per_step);
    text_counts(out, s, v->per_step, verbose);
    if (v->has_graphs) text_wrapped(out, "  graphs    ", v->graphs);
    if (v->per_step) text_findings(out, v, detail);
    text_run(out, &v->run, detail);
    if (!verbose) return;
    text_top_kernels(out, v);
    text_step_table(out, v);
}

static size_t count_lines(const char *s, size_t n)
{
    size_t lines = 0;
    for (const char *p = s; (p = memchr(p, '\n', n - (size_t)(p - s))) != NULL; p++)
        lines++;
    return lines;
}

/* Without -v: the most detail that fits TEXT_SCREEN lines, else the least (each level laid
 * out in memory and counted). */
static void text_section(FILE *out, const struct report_view *v, const struct report_opts *o)
{
    text_set_cols(o);
    if (o->verbose) {
        text_layout(out, v, o, TEXT_VERBOSE);
        return;
    }
    for (int detail = TEXT_SHORT; detail < TEXT_DETAILS; detail++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (!m) break; /* out of memory: the shortest, written directly */
        text_layout(m, v, o, detail);
        int done = fclose(m) == 0 &&
                   (count_lines(buf, len) <= TEXT_SCREEN || detail + 1 == TEXT_DETAILS);
        if (done) fwrite(buf, 1, len, out);
        free(buf);
        if (done) return;
    }
    text_layout(out, v, o, TEXT_DETAILS - 1);
}

/* ---- the ranks of a multi-GPU job (report_view.c says what; here how) ---- */

static void text_rank_row(FILE *f, const struct ssa_rank *k, char mark)
{
    if (!k->usable) {
        fprintf(f, "     %4d  no steady steps from step markers: not compared\n", (int)k->rank);
        return;
    }
    fprintf(f, "  %c  %4d %8.2f %6.1f %8.2f %8.2f %6.0f%%  %s %.2f\n", mark, (int)k->rank,
            k->step_ms, k->busy_pct, k->nccl_ms, k->comm_ms, k->overlap_pct,
            ssa_cat_name(k->top_cat), k->top_ms);
}

static void text_quantiles(FILE *f, const struct ssa_job *j)
{
    char head[40];
    snprintf(head, sizeof head, "over %zu ranks", j->n_usable);
    fprintf(f, "\n  %-19s %8s %8s %8s\n", head, "p10", "median", "p90");
    const struct ssa_spread *v[] = {&j->step_ms, &j->noncomm_ms, &j->comm_ms, &j->wait_ms};
    const char *name[] = {"step ms", "non-comm ms", "exposed comm ms", "  of it waiting"};
    for (int i = 0; i < 4; i++)
        fprintf(f, "  %-19s %8.2f %8.2f %8.2f\n", name[i], v[i]->p10, v[i]->p50, v[i]->p90);
}

static void text_rank_table(FILE *f, const struct report_ranks_view *t)
{
    fprintf(f, "\n     %4s %8s %6s %8s %8s %7s  %s\n", "rank", "step ms", "busy %", "nccl ms",
            "exp.comm", "overlap", "largest non-comm, ms");
    for (size_t i = 0; i < t->n_rows; i++)
        if (t->rows[i] == REPORT_RANK_BETWEEN)
            fprintf(f, "     ...  (ranks between, by non-comm time: --format json lists all)\n");
        else
            text_rank_row(f, &t->job->ranks[t->rows[i]], t->mark[i]);
    fprintf(f, "  ms per step. S: straggler, m: median rank. exp.comm: NCCL not under compute\n");
}

static void text_ranks(struct report_sink *k, const struct report_ranks_view *t)
{
    FILE *f = k->f;
    text_set_cols(k->o);
    fprintf(f, "stepscope ranks: %s\n", t->head);
    if (t->notes[0]) text_wrapped(f, "  note       ", t->notes);
    text_rank_table(f, t);
    if (t->job->n > REPORT_RANKS_ALL) text_quantiles(f, t->job);
    fputc('\n', f);
    text_wrapped(f, "  straggler  ", t->straggler);
    if (t->waiting[0]) text_wrapped(f, "  waiting    ", t->waiting);
    if (t->clocks[0]) text_wrapped(f, "  clocks     ", t->clocks);
    if (t->arrivals[0]) text_wrapped(f, "  arrivals   ", t->arrivals);
    if (t->omitted) {
        char note[120];
        snprintf(note, sizeof note, "%s; the straggler's and the median rank's follow",
                 t->omitted_said);
        text_wrapped(f, "  sections   ", note);
    }
    fputc('\n', f);
}

/* ---- stepscope diff ---- */

static void diff_side_note(FILE *f, const struct diff_side *x)
{
    if (x->note[0]) fprintf(f, "  note: %s\n", x->note);
}

static void diff_headline(FILE *f, const struct diff_view *d)
{
    const struct diff_side *b = &d->b, *a = &d->a;
    char shown[2][512];
    text_escape_to(shown[0], sizeof shown[0], b->path);
    text_escape_to(shown[1], sizeof shown[1], a->path);
    fprintf(f, "stepscope diff: %s -> %s\n", shown[0], shown[1]);
    diff_side_note(f, b);
    diff_side_note(f, a);
    fprintf(f, "  steps      %zu -> %zu analysed\n", b->v.s.steps, a->v.s.steps);
    fprintf(f, "  step time  median %.2f -> %.2f ms  (%.2fx, %s: noise +-%.2f ms)\n",
            ms(b->v.s.median_ns), ms(a->v.s.median_ns), d->speedup_median,
            d->verdict, d->noise_ms);
    fprintf(f, "             mean   %.2f -> %.2f ms  (%.2fx), %.2f -> %.2f steps/s\n",
            ms(b->v.s.mean_ns), ms(a->v.s.mean_ns), d->speedup_mean,
            b->v.s.steps_per_s, a->v.s.steps_per_s);
    fprintf(f, "  GPU busy   %.1f -> %.1f %%\n", b->v.s.gpu_busy_pct, a->v.s.gpu_busy_pct);
}

static void diff_categories(FILE *f, const struct diff_view *d)
{
    const struct diff_side *b = &d->b, *a = &d->a;
    fprintf(f, "\n  %-20s %10s %10s %10s   (ms/step)\n", "category", "before", "after", "change");
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        double x = b->v.s.cat_ms[c], y = a->v.s.cat_ms[c];
        if (!d->cat_shown[c]) continue;
        fprintf(f, "  %-20s %10.3f %10.3f %+10.3f\n", ssa_cat_name(c), x, y, y - x);
    }
    fprintf(f, "  %-20s %10.3f %10.3f %+10.3f\n", "total", ms(b->v.s.mean_ns), ms(a->v.s.mean_ns),
            ms(a->v.s.mean_ns) - ms(b->v.s.mean_ns));
}

static void diff_one_finding(FILE *f, const struct diff_pair *p)
{
    fprintf(f, "  %-20s %10s %10s  %-9s %s\n", p->x->id, p->before, p->after, p->status,
            p->x->title);
}

static void diff_findings(FILE *f, const struct diff_view *d)
{
    if (!d->n_pairs) {
        fprintf(f, "\n  findings   none in either trace\n");
        return;
    }
    fprintf(f, "\n  %-20s %10s %10s  %-9s (estimated saving, ms/step)\n", "finding", "before",
            "after", "status");
    for (size_t i = 0; i < d->n_pairs; i++) diff_one_finding(f, &d->pairs[i]);
}

static void text_diff(FILE *f, const struct diff_view *d)
{
    diff_headline(f, d);
    diff_categories(f, d);
    diff_findings(f, d);
}


/* ---- the writer ---- */

static void text_process(struct report_sink *k, const struct report_view *v)
{
    if (k->index) fputc('\n', k->f);
    text_section(k->f, v, k->o);
}

/* The traces that could not be read, in the report itself: output that looks complete must
 * not hide a missing rank. The reasons went to stderr. */
static void text_unreadable(struct report_sink *k, const char *const *paths, size_t n)
{
    fprintf(k->f, "\n  unreadable %zu of %zu traces could not be read (why: on stderr):\n", n,
            k->d->n_inputs);
    for (size_t i = 0; i < n; i++) {
        fputs("             ", k->f);
        text_write_escaped(k->f, paths[i], strlen(paths[i]), 0);
        fputc('\n', k->f);
    }
}


const struct report_writer report_writer_text = {
    .ranks = text_ranks,
    .process = text_process,
    .unreadable = text_unreadable,
    .diff = text_diff,
};
