/*
 * cmd_report.c — `stepscope report`: where the time of a training step goes.
 *
 * The analysis (src/analysis/) does the work in two streaming passes; this file prints
 * its result: a headline (steps, warm-up excluded, step time, steps/s, GPU busy), a
 * stacked bar of the categories, the category table in ms/step, and the kernel classes —
 * one screen. -v adds the top kernels and the per-step table. --format json writes the
 * schema of docs/report-json.md. After the breakdown come the ranked findings
 * (src/analysis/ssa_findings.c: rules with what-if savings and fixes).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/ssa.h"
#include "cmd.h"
#include "json_out.h"
#include "text_esc.h"
#include "util/ss_error.h"

static const char report_usage[] =
    "usage: stepscope report TRACE... [--format text|json] [-v]\n"
    "\n"
    "Splits every training step of each TRACE into where its time went: GPU busy by\n"
    "kernel class, exposed copies and communication, and GPU idle blamed on what the\n"
    "training thread was doing (data loading, sync, launch, alloc, other host work).\n"
    "Steps come from the step markers (public API, Python shim, ProfilerStep#N); warm-up\n"
    "steps are excluded and counted.\n"
    "\n"
    "  -f, --format FMT   text (default) or json (docs/report-json.md)\n"
    "  -v, --verbose      also the top kernels and a table of every step\n"
    "      --no-warmup    keep the first steps even when they look like warm-up\n"
    "  -h, --help         this text\n"
    "\n"
    "Exit status: 0 every trace was analysed (a truncated one too: the report says so),\n"
    "1 a trace could not be read, 2 usage error.\n";

struct report_opts {
    int json, verbose, color;
    struct ssa_opts ssa;
};

#define BAR_WIDTH 64
#define TOP_KERNELS 10
#define SMALL_CAT_PCT 0.1 /* without -v, rows below this share are summed in one */

/* One character and one ANSI background colour per category for the bar. */
static const char cat_glyph[SSA_CAT_COUNT] = {'G', 'F', 'A', 'O', 'R', 'E', 'K', 'N', 'h', 'd',
                                              'x', 'p', 'y', 'm', 'D', 'S', 'M', 'L', '.'};
static const int cat_color[SSA_CAT_COUNT] = {42, 43, 46, 45, 44, 44, 47, 45, 41, 41,
                                             41, 41, 41, 47, 101, 103, 105, 106, 100};

static double ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

/* ---- text ---- */

static void text_escaped(const char *s)
{
    if (s) text_write_escaped(stdout, s, strlen(s), 1);
    else fputs("-", stdout);
}

static void text_identity(const struct ssa_result *r)
{
    printf("stepscope report: ");
    text_write_escaped(stdout, r->path, strlen(r->path), 0);
    printf("\n  process    pid %" PRIu32, r->pid);
    if (r->rank >= 0) printf(" rank %" PRId32 "/%" PRId32, r->rank, r->world_size);
    printf(", %" PRIu32 " device%s", r->n_devices, r->n_devices == 1 ? "" : "s");
    if (r->device_name) {
        printf(", first ");
        text_escaped(r->device_name);
    }
    printf("\n  command    ");
    if (r->cmdline && strlen(r->cmdline) > 64) { /* one line: the start says what ran */
        text_write_escaped(stdout, r->cmdline, 60, 1);
        fputs("...", stdout);
    } else {
        text_escaped(r->cmdline);
    }
    printf("\n  trace      %s; %" PRIu64 " records, %" PRIu64 " kernels, %" PRIu64
           " copies\n",
           r->state_line, r->records, r->kernels, r->memcpys);
    if (r->problems) printf("  damage     %" PRIu64 " problems, first: %s\n", r->problems,
                            r->first_problem);
    if (r->dropped) printf("  dropped    %" PRIu64 " records lost while recording\n", r->dropped);
}

static void text_steps_line(const struct ssa_result *r, const struct ssa_summary *s)
{
    if (r->step_source == SSA_STEPS_NONE) {
        printf("  steps      no step markers: whole trace as one interval (%.1f ms)\n",
               ms(s->total_ns));
        return;
    }
    printf("  steps      %zu of %zu (%s, thread %" PRIu32 ")", s->steps, r->n_steps,
           ssa_step_source_name(r->step_source), r->train_tid);
    if (r->n_warmup) printf(", %zu warm-up excluded", r->n_warmup);
    printf("\n");
    if (r->warmup_autotune)
        printf("             step 0 ran kernels never seen again (autotuning, compilation)\n");
    if (r->dropped_step_ranges)
        printf("             %" PRIu64 " step range(s) never ended: not counted\n",
               r->dropped_step_ranges);
    if (!s->steps) return;
    printf("  step time  median %.2f ms  p10 %.2f  p90 %.2f  mean %.2f  %.2f steps/s\n",
           ms(s->median_ns), ms(s->p10_ns), ms(s->p90_ns), ms(s->mean_ns), s->steps_per_s);
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

static void text_bar(const struct ssa_summary *s, int color)
{
    int cells[SSA_CAT_COUNT];
    bar_cells(s, cells);
    printf("\n  [");
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        if (!cells[c]) continue;
        if (color) printf("\033[%d;30m", cat_color[c]);
        for (int i = 0; i < cells[c]; i++) putchar(cat_glyph[c]);
        if (color) printf("\033[0m");
    }
    printf("]\n  ");
    int col = 2;
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        if (!cells[c]) continue;
        int w = 3 + (int)strlen(ssa_cat_name(c));
        if (col + w > 78) printf("\n  "), col = 2;
        printf(" %c=%s", cat_glyph[c], ssa_cat_name(c));
        col += w;
    }
    printf("\n");
}

static void text_categories(const struct ssa_summary *s, int per_step, int verbose)
{
    int order[SSA_CAT_COUNT];
    for (int c = 0; c < SSA_CAT_COUNT; c++) order[c] = c;
    for (int i = 1; i < SSA_CAT_COUNT; i++) /* by time, largest first (insertion sort) */
        for (int j = i; j > 0 && s->cat_pct[order[j]] > s->cat_pct[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1], order[j - 1] = t;
        }
    printf("\n  %-20s %10s %7s\n", "category", per_step ? "ms/step" : "ms", "%");
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
        printf("  %-20s %10.3f %7.1f%s%s\n", ssa_cat_name(c), v, s->cat_pct[c],
               verbose ? "  " : "", verbose ? ssa_cat_description(c) : "");
    }
    if (small)
        printf("  %-20s %10s %7.2f  (%d categories under %.1f %%: -v)\n", "(others)", "",
               small_pct, small, SMALL_CAT_PCT);
    printf("  %-20s %10.3f %7.1f  GPU busy %.1f %%\n", "total",
           per_step ? ms(s->mean_ns) : ms(s->total_ns), 100.0, s->gpu_busy_pct);
}

static void text_kernels(const struct ssa_summary *s, int per_step)
{
    const char *unit = per_step ? "ms/step" : "ms";
    double k = per_step ? 1.0 : (double)s->steps;
    printf("\n  kernel time by class (%s, overlaps not removed):\n   ", unit);
    int any = 0, col = 3;
    for (int c = 0; c < SSA_KC_COUNT; c++) {
        if (s->kclass_ms[c] <= 0) continue;
        char item[64];
        int w = snprintf(item, sizeof item, " %s %.3f", ssa_kclass_name(c), s->kclass_ms[c] * k);
        if (col + w > 78) printf("\n   "), col = 3;
        fputs(item, stdout);
        col += w;
        any = 1;
    }
    printf("%s\n", any ? "" : " none");
    if (!per_step) return;
    printf("  per step: %.1f kernels, %.1f launches, %.1f syncs;\n"
           "            %.1f H2D copies, %.2f MiB (%.2f MiB pageable)\n",
           s->kernels_per_step, s->launches_per_step, s->syncs_per_step, s->h2d_copies_per_step,
           s->h2d_mib_per_step, s->pageable_h2d_mib_per_step);
}

static void text_top_kernels(const struct ssa_result *r)
{
    printf("\n  top kernels (whole trace)\n");
    for (size_t i = 0; i < r->n_knames && i < TOP_KERNELS; i++) {
        const struct ssa_kname *k = &r->knames[i];
        printf("  %10.3f ms %7" PRIu64 "x  %-11s ", ms(k->total_ns), k->count,
               ssa_kclass_name(k->kclass));
        const char *n = r->kname_text[i];
        text_write_escaped(stdout, n, strlen(n) > 90 ? 90 : strlen(n), 0);
        printf("\n");
    }
}

static int top_cat_of(const struct ssa_step *st)
{
    int best = 0;
    for (int c = 1; c < SSA_CAT_COUNT; c++)
        if (st->cat_ns[c] > st->cat_ns[best]) best = c;
    return best;
}

static void text_step_table(const struct ssa_result *r)
{
    if (r->step_source == SSA_STEPS_NONE) return;
    printf("\n  %8s %10s %7s %-20s %8s %8s\n", "step", "ms", "busy%", "largest", "kernels",
           "syncs");
    for (size_t i = 0; i < r->n_steps; i++) {
        const struct ssa_step *st = &r->steps[i];
        uint64_t d = st->end_ns - st->begin_ns, busy = 0;
        for (int c = 0; c < SSA_CAT_FIRST_IDLE; c++) busy += st->cat_ns[c];
        printf("  %8" PRIu64 " %10.3f %7.1f %-20s %8" PRIu32 " %8" PRIu32 "%s\n", st->number,
               ms(d), d ? 100.0 * (double)busy / (double)d : 0, ssa_cat_name(top_cat_of(st)),
               st->n.kernels, st->n.syncs, st->warmup ? "  warm-up" : "");
    }
}

#define TEXT_FINDINGS 2 /* shown without -v: the report fits one screen */
#define WRAP_COL 78

/* Prints label then text, word-wrapped at WRAP_COL with continuation lines under the text. */
static void text_wrapped(const char *label, const char *text)
{
    int indent = (int)strlen(label), col = indent;
    fputs(label, stdout);
    for (const char *p = text; *p;) {
        while (*p == ' ') p++;
        size_t w = strcspn(p, " ");
        if (!w) break;
        if (col > indent && col + 1 + (int)w > WRAP_COL) printf("\n%*s", indent, ""), col = indent;
        else if (col > indent) putchar(' '), col++;
        text_write_escaped(stdout, p, w, 0);
        col += (int)w;
        p += w;
    }
    putchar('\n');
}

/* Ranked findings: title, saving, evidence, the fix (src/analysis/ssa_findings.c). */
static void text_findings(const struct ssa_result *r, const struct ssa_summary *s, int verbose)
{
    struct ssa_findings f;
    ssa_find(r, s, &f);
    if (!f.n) {
        printf("\n  findings   none above %.0f %% of the step\n", SSA_FINDING_MIN_PCT);
        return;
    }
    printf("\n  findings, ranked by estimated saving\n");
    size_t shown = verbose || f.n <= TEXT_FINDINGS ? f.n : TEXT_FINDINGS;
    for (size_t i = 0; i < shown; i++) {
        const struct ssa_finding *x = &f.v[i];
        printf("  %zu. [%s] %s\n     saves ~%.2f ms/step (%.0f %%, %.2fx), confidence %s\n",
               i + 1, ssa_level_name(x->severity), x->title, x->saving_ms, x->saving_pct,
               x->speedup, ssa_level_name(x->confidence));
        text_wrapped("     evidence: ", x->evidence);
        if (verbose) text_wrapped("     estimate: ", x->estimate);
        text_wrapped("     fix:      ", x->fix);
    }
    if (shown < f.n) printf("  (%zu more with -v)\n", f.n - shown);
}

static void print_text(const struct ssa_result *r, const struct report_opts *o)
{
    struct ssa_summary s;
    ssa_summarize(r, &s);
    text_identity(r);
    text_steps_line(r, &s);
    if (!s.steps) {
        printf("  nothing to attribute: the trace has no timed records inside a step\n");
        return;
    }
    int per_step = r->step_source != SSA_STEPS_NONE;
    if (r->kernels == 0 && r->memcpys == 0 && r->memsets == 0)
        printf("  no GPU activity recorded: every instant counts as GPU idle\n");
    text_bar(&s, o->color);
    text_categories(&s, per_step, o->verbose);
    text_kernels(&s, per_step);
    if (per_step) text_findings(r, &s, o->verbose);
    if (!o->verbose) return;
    text_top_kernels(r);
    text_step_table(r);
}

/* ---- JSON (docs/report-json.md) ---- */

static void json_kv_double(struct json_out *j, const char *key, double v)
{
    json_key(j, key);
    json_double(j, v);
}

static void json_process(struct json_out *j, const struct ssa_result *r)
{
    json_key(j, "process");
    json_begin_object(j);
    json_kv_u64(j, "pid", r->pid);
    json_kv_i64(j, "rank", r->rank);
    json_kv_i64(j, "world_size", r->world_size);
    json_kv_string(j, "cmdline", r->cmdline);
    json_kv_string(j, "device", r->device_name);
    json_kv_u64(j, "devices", r->n_devices);
    json_end_object(j);
    json_key(j, "trace");
    json_begin_object(j);
    json_kv_string(j, "state", r->state_line);
    json_kv_bool(j, "closed", r->closed);
    json_kv_bool(j, "truncated", r->truncated);
    json_kv_u64(j, "bad_chunks", r->bad_chunks);
    json_kv_u64(j, "problems", r->problems);
    json_kv_u64(j, "records", r->records);
    json_kv_u64(j, "kernels", r->kernels);
    json_kv_u64(j, "memcpys", r->memcpys);
    json_kv_u64(j, "memsets", r->memsets);
    json_kv_u64(j, "api_calls", r->api_calls);
    json_kv_u64(j, "dropped", r->dropped);
    json_end_object(j);
}

static void json_steps(struct json_out *j, const struct ssa_result *r, const struct ssa_summary *s)
{
    json_key(j, "steps");
    json_begin_object(j);
    json_kv_string(j, "source", ssa_step_source_name(r->step_source));
    json_kv_u64(j, "training_tid", r->train_tid);
    json_kv_u64(j, "total", r->step_source == SSA_STEPS_NONE ? 0 : r->n_steps);
    json_kv_u64(j, "warmup_excluded", r->n_warmup);
    json_kv_bool(j, "warmup_autotune", r->warmup_autotune);
    json_kv_u64(j, "analysed", r->step_source == SSA_STEPS_NONE ? 0 : s->steps);
    json_kv_u64(j, "unended_ranges", r->dropped_step_ranges);
    json_kv_double(j, "interval_ms", ms(s->total_ns));
    json_kv_double(j, "median_ms", ms(s->median_ns));
    json_kv_double(j, "p10_ms", ms(s->p10_ns));
    json_kv_double(j, "p90_ms", ms(s->p90_ns));
    json_kv_double(j, "mean_ms", ms(s->mean_ns));
    json_kv_double(j, "steps_per_s", s->steps_per_s);
    json_end_object(j);
}

static void json_categories(struct json_out *j, const struct ssa_summary *s, int per_step)
{
    json_kv_double(j, "gpu_busy_pct", s->gpu_busy_pct);
    json_key(j, "categories");
    json_begin_array(j);
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        json_begin_object(j);
        json_kv_string(j, "name", ssa_cat_name(c));
        json_kv_bool(j, "gpu_busy", c < SSA_CAT_FIRST_IDLE);
        json_kv_double(j, "ms", s->cat_ms[c] * (double)s->steps);
        json_key(j, "ms_per_step");
        if (per_step) json_double(j, s->cat_ms[c]);
        else json_null(j);
        json_kv_double(j, "pct", s->cat_pct[c]);
        json_end_object(j);
    }
    json_end_array(j);
    json_key(j, "kernel_classes");
    json_begin_array(j);
    for (int k = 0; k < SSA_KC_COUNT; k++) {
        json_begin_object(j);
        json_kv_string(j, "name", ssa_kclass_name(k));
        json_kv_double(j, "kernel_ms_per_step", s->steps ? s->kclass_ms[k] : 0);
        json_end_object(j);
    }
    json_end_array(j);
}

static void json_per_step_means(struct json_out *j, const struct ssa_summary *s)
{
    json_key(j, "per_step");
    json_begin_object(j);
    json_kv_double(j, "kernels", s->kernels_per_step);
    json_kv_double(j, "launches", s->launches_per_step);
    json_kv_double(j, "syncs", s->syncs_per_step);
    json_kv_double(j, "h2d_copies", s->h2d_copies_per_step);
    json_kv_double(j, "h2d_mib", s->h2d_mib_per_step);
    json_kv_double(j, "pageable_h2d_mib", s->pageable_h2d_mib_per_step);
    json_end_object(j);
}

static void json_findings(struct json_out *j, const struct ssa_result *r,
                          const struct ssa_summary *s, int per_step)
{
    struct ssa_findings f;
    if (per_step) ssa_find(r, s, &f);
    else f.n = 0; /* no steps, no per-step saving */
    json_key(j, "findings");
    json_begin_array(j);
    for (size_t i = 0; i < f.n; i++) {
        const struct ssa_finding *x = &f.v[i];
        json_begin_object(j);
        json_kv_string(j, "id", x->id);
        json_kv_string(j, "title", x->title);
        json_kv_string(j, "severity", ssa_level_name(x->severity));
        json_kv_string(j, "confidence", ssa_level_name(x->confidence));
        json_kv_double(j, "saving_ms_per_step", x->saving_ms);
        json_kv_double(j, "saving_pct", x->saving_pct);
        json_kv_double(j, "speedup", x->speedup);
        json_kv_string(j, "evidence", x->evidence);
        json_kv_string(j, "estimate", x->estimate);
        json_kv_string(j, "fix", x->fix);
        json_end_object(j);
    }
    json_end_array(j);
}

static void json_top_kernels(struct json_out *j, const struct ssa_result *r)
{
    json_key(j, "top_kernels");
    json_begin_array(j);
    for (size_t i = 0; i < r->n_knames && i < TOP_KERNELS; i++) {
        json_begin_object(j);
        json_kv_string(j, "name", r->kname_text[i]);
        json_kv_string(j, "class", ssa_kclass_name(r->knames[i].kclass));
        json_kv_u64(j, "count", r->knames[i].count);
        json_kv_double(j, "total_ms", ms(r->knames[i].total_ns));
        json_end_object(j);
    }
    json_end_array(j);
}

static void json_u64_array(struct json_out *j, const char *key, const void *v, size_t n,
                           int is32)
{
    json_key(j, key);
    json_begin_array(j);
    for (size_t i = 0; i < n; i++)
        json_u64(j, is32 ? ((const uint32_t *)v)[i] : ((const uint64_t *)v)[i]);
    json_end_array(j);
}

static void json_step_counts(struct json_out *j, const struct ssa_step_counts *n)
{
    json_key(j, "counts");
    json_begin_object(j);
    json_kv_u64(j, "kernels", n->kernels);
    json_u64_array(j, "kernels_by_class", n->kernels_by_class, SSA_KC_COUNT, 1);
    json_u64_array(j, "kernel_ns_by_class", n->kernel_ns_by_class, SSA_KC_COUNT, 0);
    json_kv_u64(j, "launches", n->launches);
    json_kv_u64(j, "launch_api_ns", n->launch_api_ns);
    json_kv_u64(j, "syncs", n->syncs);
    json_kv_u64(j, "sync_api_ns", n->sync_api_ns);
    json_kv_u64(j, "allocs", n->allocs);
    json_kv_u64(j, "alloc_api_ns", n->alloc_api_ns);
    json_u64_array(j, "copies", n->copies, SSA_COPY_KINDS, 1);
    json_u64_array(j, "copy_bytes", n->copy_bytes, SSA_COPY_KINDS, 0);
    json_u64_array(j, "copy_ns", n->copy_ns, SSA_COPY_KINDS, 0);
    json_u64_array(j, "pageable_copies", n->pageable_copies, SSA_COPY_KINDS, 1);
    json_u64_array(j, "pageable_bytes", n->pageable_bytes, SSA_COPY_KINDS, 0);
    json_u64_array(j, "pageable_ns", n->pageable_ns, SSA_COPY_KINDS, 0);
    json_kv_u64(j, "blocking_copies", n->blocking_copies);
    json_kv_u64(j, "blocking_pageable_h2d_ns", n->blocking_pageable_h2d_ns);
    json_kv_u64(j, "short_gaps", n->short_gaps);
    json_kv_u64(j, "short_gap_ns", n->short_gap_ns);
    json_kv_u64(j, "memsets", n->memsets);
    json_kv_u64(j, "sync_records", n->sync_records);
    json_kv_u64(j, "data_ranges", n->data_ranges);
    json_kv_u64(j, "data_ns", n->data_ns);
    json_end_object(j);
}

static void json_step_list(struct json_out *j, const struct ssa_result *r)
{
    json_key(j, "step_list");
    json_begin_array(j);
    for (size_t i = 0; i < r->n_steps; i++) {
        const struct ssa_step *st = &r->steps[i];
        json_begin_object(j);
        json_kv_u64(j, "number", st->number);
        json_kv_u64(j, "begin_ns", st->begin_ns);
        json_kv_u64(j, "end_ns", st->end_ns);
        json_kv_bool(j, "warmup", st->warmup);
        json_key(j, "cat_ns");
        json_begin_object(j);
        for (int c = 0; c < SSA_CAT_COUNT; c++) json_kv_u64(j, ssa_cat_name(c), st->cat_ns[c]);
        json_end_object(j);
        json_step_counts(j, &st->n);
        json_end_object(j);
    }
    json_end_array(j);
}

static void print_json(struct json_out *j, const struct ssa_result *r, const struct report_opts *o)
{
    struct ssa_summary s;
    ssa_summarize(r, &s);
    json_begin_object(j);
    json_kv_string(j, "schema", "stepscope.report");
    json_kv_u64(j, "version", 1);
    json_kv_string(j, "file", r->path);
    json_process(j, r);
    json_steps(j, r, &s);
    json_categories(j, &s, r->step_source != SSA_STEPS_NONE);
    json_per_step_means(j, &s);
    json_findings(j, r, &s, r->step_source != SSA_STEPS_NONE);
    json_top_kernels(j, r);
    if (o->verbose) json_step_list(j, r);
    json_end_object(j);
}

/* ---- the verb ---- */

static int report_one(const char *path, const struct report_opts *o, struct json_out *j,
                      int first)
{
    struct cli_trace t; /* opened first for the CLI's one-line errors (directories...) */
    if (cli_trace_open(&t, "report", path, NULL, NULL) != 0) {
        if (j && j->depth > 0) {
            json_begin_object(j);
            json_kv_string(j, "file", path);
            json_kv_string(j, "error", "cannot read this file as a trace (see stderr)");
            json_end_object(j);
        }
        return CLI_EXIT_FAIL;
    }
    cli_trace_close(&t);
    struct ssa_result *r;
    int rc = ssa_analyze_file(path, &o->ssa, &r);
    if (rc) {
        cli_error("report", path, "%s", ss_strerror(rc));
        return CLI_EXIT_FAIL;
    }
    if (j) print_json(j, r, o);
    else {
        if (!first) printf("\n");
        print_text(r, o);
    }
    ssa_result_free(r);
    return CLI_EXIT_OK;
}

static int use_color(void)
{
    const char *term = getenv("TERM");
    return isatty(STDOUT_FILENO) && !getenv("NO_COLOR") && term && strcmp(term, "dumb") != 0;
}

static int parse_report_args(int argc, char **argv, struct report_opts *o)
{
    static const struct option longopts[] = {{"format", required_argument, NULL, 'f'},
                                             {"verbose", no_argument, NULL, 'v'},
                                             {"no-warmup", no_argument, NULL, 'W'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    cli_opt_reset();
    for (int c; (c = cli_getopt("report", argc, argv, "f:vh", longopts)) != -1;) {
        if (c == 'h') {
            fputs(report_usage, stdout);
            return -1;
        }
        if (c == '?') return CLI_EXIT_USAGE;
        if (c == 'v') o->verbose = 1;
        if (c == 'W') o->ssa.no_warmup = 1;
        if (c == 'f' && strcmp(optarg, "json") == 0) o->json = 1;
        else if (c == 'f' && strcmp(optarg, "text") != 0)
            return cli_usage_error("report", "unknown format '%s' (text or json)", optarg);
    }
    if (optind >= argc) return cli_usage_error("report", "missing TRACE");
    o->color = !o->json && use_color();
    return 0;
}

int cmd_report(int argc, char **argv)
{
    struct report_opts o;
    int rc = parse_report_args(argc, argv, &o);
    if (rc == -1) return cli_finish_stdout("report");
    if (rc) return rc;
    struct json_out j;
    json_init(&j, stdout, 1);
    int several = argc - optind > 1;
    if (o.json && several) json_begin_array(&j);
    int status = CLI_EXIT_OK;
    for (int i = optind; i < argc; i++)
        if (report_one(argv[i], &o, o.json ? &j : NULL, i == optind) != CLI_EXIT_OK)
            status = CLI_EXIT_FAIL;
    if (o.json && several) json_end_array(&j);
    if (o.json && (several || status == CLI_EXIT_OK)) json_finish(&j);
    int out = cli_finish_stdout("report");
    return status != CLI_EXIT_OK ? status : out;
}
