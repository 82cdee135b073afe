/*
 * report_run.c — the whole run in the report's view (struct report_run): the sparkline and
 * chart of every marked step's time, GPU windows marked, and the stalls and drift of
 * src/analysis/ssa_run.c in words, each with the line the host samples give and its fix.
 */
#include <stdio.h>
#include <string.h>

#include "report_view.h"

/* ASCII, as the rest of the text report: any terminal and locale draws it */
static const char *const k_glyphs[8] = {"_", ".", ":", "-", "=", "+", "*", "#"};

/* Steps from..to-1 of the series that are inside a GPU window: any. */
static int in_window(const struct ssa_run *run, size_t from, size_t to)
{
    for (size_t k = 0; k < run->n_windows && k < SSA_RUN_MAX_WINDOWS; k++)
        if (run->windows[k].from < to && run->windows[k].to > from) return 1;
    return 0;
}

static size_t window_steps(const struct ssa_run *run)
{
    size_t n = 0;
    for (size_t k = 0; k < run->n_windows && k < SSA_RUN_MAX_WINDOWS; k++)
        n += run->windows[k].to - run->windows[k].from;
    return n;
}

/* The mean time (ms) of the steps of column c of cols. */
static double column_ms(const struct ssa_run *run, size_t c, size_t cols, size_t *from, size_t *to)
{
    *from = c * run->n / cols, *to = (c + 1) * run->n / cols;
    double sum = 0;
    for (size_t i = *from; i < *to; i++)
        sum += (double)ssa_run_step_ns(run, i);
    return *to > *from ? sum / 1e6 / (double)(*to - *from) : 0;
}

static void spark_text(struct report_run *w, const struct ssa_run *run)
{
    size_t cols = run->n < REPORT_RUN_COLS ? run->n : REPORT_RUN_COLS, a, b;
    double ms[REPORT_RUN_COLS], lo = 0, hi = 0;
    int scaled = 0; /* the scale is the analysed steps' (start-up would flatten the rest) */
    for (size_t c = 0; c < cols; c++) {
        ms[c] = column_ms(run, c, cols, &a, &b);
        w->marks[c] = in_window(run, a, b) ? '^' : ' ';
        if (a < run->analysed_from) continue;
        if (!scaled || ms[c] < lo) lo = ms[c];
        if (!scaled || ms[c] > hi) hi = ms[c];
        scaled = 1;
    }
    int flat = hi - lo < 0.05 * lo; /* a flat run draws flat, not its noise blown up */
    for (size_t c = 0; c < cols; c++) {
        int g = flat ? (ms[c] > 1.05 * hi ? 7 : 0) : (int)((ms[c] - lo) / (hi - lo) * 7.0 + 0.5);
        strcat(w->spark, k_glyphs[g < 0 ? 0 : g > 7 ? 7 : g]);
    }
    snprintf(w->scale, sizeof w->scale,
             "a column is the mean time of %zu step%s: %s %.1f ms to %s %.1f ms (the "
             "start-up's columns above it drawn %s); ^ under the GPU window%s",
             run->n / cols, run->n / cols == 1 ? "" : "s", k_glyphs[0], lo, k_glyphs[flat ? 0 : 7],
             flat ? lo : hi, k_glyphs[7], run->n_windows == 1 ? "" : "s");
}

static void chart_points(struct report_run *w, const struct ssa_run *run)
{
    size_t n = run->n < REPORT_RUN_POINTS ? run->n : REPORT_RUN_POINTS, a, b;
    for (size_t p = 0; p < n; p++) {
        w->point_ms[p] = column_ms(run, p, n, &a, &b);
        w->point_step[p] = run->number[a];
        w->point_window[p] = (unsigned char)in_window(run, a, b);
    }
    w->n_points = n, w->steps_per_point = run->n / n;
}

/* "steps 8-107" for each window, the first 3. */
static void windows_text(const struct ssa_run *run, char *buf, size_t cap)
{
    size_t len = 0, shown = run->n_windows < 3 ? run->n_windows : 3;
    buf[0] = 0;
    for (size_t k = 0; k < shown && len < cap; k++) {
        const struct ssa_run_window *x = &run->windows[k];
        len += (size_t)snprintf(buf + len, cap - len, "%s%llu-%llu", k ? ", " : "",
                                (unsigned long long)run->number[x->from],
                                (unsigned long long)run->number[x->to - 1]);
    }
    if (run->n_windows > shown && len < cap)
        snprintf(buf + len, cap - len, " and %zu more", run->n_windows - shown);
}

static void head_text(struct report_run *w, const struct ssa_result *r)
{
    const struct ssa_run *run = &r->run;
    char wins[120];
    windows_text(run, wins, sizeof wins);
    int cut = report_incomplete(r);
    snprintf(w->head, sizeof w->head, "%zu steps, %.1f s, usual step %.2f ms; GPU windows: %s%s%s",
             run->n, (double)ssa_run_span_ns(run) / 1e9, (double)run->usual_ns / 1e6,
             run->n_windows ? "steps " : "", run->n_windows ? wins : "none",
             cut ? "; INCOMPLETE: the series stops where the trace ends (killed?)" : "");
}

/* "function (file:line) in torch.save" for a where, "" when the samples gave none. */
static void where_text(const struct ssa_result *r, const struct ssa_run_where *x, char *buf,
                       size_t cap)
{
    const struct ssa_pytab *t = &r->host.tab;
    buf[0] = 0;
    if (!x->frame || x->frame > t->n_frames) return;
    ssa_pyframe_label(&t->frames[x->frame - 1], 1, buf, cap);
    const struct ssa_pyframe *lib = x->lib && x->lib <= t->n_frames ? &t->frames[x->lib - 1] : NULL;
    size_t len = strlen(buf);
    if (lib && lib->function && len < cap) snprintf(buf + len, cap - len, " in %s", lib->function);
}

static void seconds_text(double ms, char *buf, size_t cap)
{
    if (ms >= 1000)
        snprintf(buf, cap, "%.2f s", ms / 1000);
    else
        snprintf(buf, cap, "%.1f ms", ms);
}

static void stall_line(char *out, size_t cap, const struct ssa_result *r,
                       const struct ssa_run_stalls *s)
{
    char each[32], all[32], at[256], when[96];
    seconds_text(s->each_ms, each, sizeof each);
    seconds_text(s->extra_ms, all, sizeof all);
    where_text(r, &s->where, at, sizeof at);
    if (s->every)
        snprintf(when, sizeof when, "every %llu steps +%s", (unsigned long long)s->every, each);
    else
        snprintf(when, sizeof when, "irregular stalls +%s (median)", each);
    const struct ssa_run_cause_info *c = ssa_run_cause(s->where.cause);
    int n = snprintf(out, cap, "%s (x%zu, steps %llu-%llu): %s, %.1f %% of the run; %s", when,
                     s->count, (unsigned long long)s->first_step, (unsigned long long)s->last_step,
                     all, 100 * s->share, c->words);
    if (n > 0 && (size_t)n < cap && at[0]) n += snprintf(out + n, cap - (size_t)n, " at %s", at);
    if (n > 0 && (size_t)n < cap && c->fix[0])
        snprintf(out + n, cap - (size_t)n, "; fix: %s", c->fix);
}

static void drift_line(char *out, size_t cap, const struct ssa_result *r,
                       const struct ssa_run_drift *d)
{
    char all[32], at[256];
    seconds_text(d->extra_ms, all, sizeof all);
    where_text(r, &d->where, at, sizeof at);
    int n = snprintf(out, cap,
                     "drift: steps %llu-%llu usual %.2f ms, steps %llu-%llu %.2f ms (%+.0f %%): "
                     "+%s, %.1f %% of the run (against the first stretch's pace)",
                     (unsigned long long)d->a_from, (unsigned long long)d->a_to, d->a_ms,
                     (unsigned long long)d->b_from, (unsigned long long)d->b_to, d->b_ms,
                     100 * d->change, all, 100 * d->share);
    /* a line explains the drift when its own growth is a good part of the step's */
    double grew = d->where_b_ms - d->where_a_ms, step = d->b_ms - d->a_ms;
    if (n <= 0 || (size_t)n >= cap) return;
    if (at[0] && grew >= 0.3 * step)
        snprintf(out + n, cap - (size_t)n, "; %s %.2f -> %.2f ms a step; fix: %s", at,
                 d->where_a_ms, d->where_b_ms, ssa_run_cause(SSA_RUNC_GROWTH)->fix);
    else
        snprintf(out + n, cap - (size_t)n,
                 "; no Python line grew with it (GPU clocks, another process on the GPU or "
                 "memory show in a GPU window: record --capture every:N)");
}

static double window_ms(const struct ssa_run_window *w)
{
    return w->steps ? (double)w->ns / 1e6 / (double)w->steps : 0;
}

static double window_cat_ms(const struct ssa_run_window *w, int c)
{
    return w->steps ? (double)w->cat_ns[c] / 1e6 / (double)w->steps : 0;
}

/* "data +3.10 ms, host +0.62 ms": the categories that changed the most, 3 at most. */
static void changed_cats(const struct ssa_run_window *a, const struct ssa_run_window *b, char *buf,
                         size_t cap)
{
    int used[SSA_CAT_COUNT] = {0};
    size_t len = 0;
    buf[0] = 0;
    for (int n = 0; n < 3 && len < cap; n++) {
        int best = -1;
        double d = 0;
        for (int c = 0; c < SSA_CAT_COUNT; c++) {
            double x = window_cat_ms(b, c) - window_cat_ms(a, c);
            if (!used[c] && (best < 0 || (x < 0 ? -x : x) > (d < 0 ? -d : d))) best = c, d = x;
        }
        if (best < 0 || (d < 0 ? -d : d) < 0.01) break;
        used[best] = 1;
        len += (size_t)snprintf(buf + len, cap - len, "%s%s %+.2f ms", n ? ", " : "",
                                ssa_cat_name(best), d);
    }
}

/* The windows whose step departs from the first's, the most first. */
static void window_compares(struct report_run *w, const struct ssa_run *run)
{
    const struct ssa_run_window *first = &run->windows[0];
    size_t n = run->n_windows < SSA_RUN_MAX_WINDOWS ? run->n_windows : SSA_RUN_MAX_WINDOWS;
    double base = window_ms(first);
    for (size_t k = 1; k < n && w->n_compares < REPORT_RUN_COMPARES && first->steps >= 3; k++) {
        const struct ssa_run_window *x = &run->windows[k];
        double ms = window_ms(x), change = base > 0 ? ms / base - 1 : 0;
        if (x->steps < 3 || (change < 0 ? -change : change) < REPORT_RUN_WINDOW_CHANGE) continue;
        char cats[200];
        changed_cats(first, x, cats, sizeof cats);
        snprintf(w->compares[w->n_compares++], sizeof w->compares[0],
                 "GPU window %zu (steps %llu-%llu) against the first (%llu-%llu): step %.2f -> "
                 "%.2f ms (%+.0f %%): %s",
                 k + 1, (unsigned long long)run->number[x->from],
                 (unsigned long long)run->number[x->to - 1],
                 (unsigned long long)run->number[first->from],
                 (unsigned long long)run->number[first->to - 1], base, ms, 100 * change, cats);
    }
}

/* The share of the run of line i of run_lines' order: the stall sets, then the drift. */
static double line_share(const struct ssa_run *run, size_t i)
{
    return i < run->n_stalls ? run->stalls[i].share : run->drift.share;
}

/* The stall sets and the drift, the most of the run first. */
static void run_lines(struct report_run *w, const struct ssa_result *r)
{
    const struct ssa_run *run = &r->run;
    size_t order[SSA_RUN_MAX_STALLS + 1],
        n = run->n_stalls < SSA_RUN_MAX_STALLS ? run->n_stalls : SSA_RUN_MAX_STALLS;
    n += run->drift.found; /* the drift is line n_stalls */
    for (size_t i = 0; i < n; i++) {
        size_t at = i;
        for (; at > 0 && line_share(run, order[at - 1]) < line_share(run, i); at--)
            order[at] = order[at - 1];
        order[at] = i;
    }
    for (size_t i = 0; i < n; i++) {
        char *out = w->lines[w->n_lines++];
        if (order[i] < run->n_stalls)
            stall_line(out, sizeof w->lines[0], r, &run->stalls[order[i]]);
        else
            drift_line(out, sizeof w->lines[0], r, &run->drift);
    }
    if (!w->n_lines)
        snprintf(w->none, sizeof w->none,
                 run->analysed_from ? "no stall or drift over the run"
                                    : "too few steps to look for stalls or drift (%d needed)",
                 SSA_RUN_MIN_STEPS);
}

void report_run_build(struct report_run *w, const struct ssa_result *r)
{
    const struct ssa_run *run = &r->run;
    memset(w, 0, sizeof *w);
    w->run = run;
    int marked = r->step_source == SSA_STEPS_RECORDS || r->step_source == SSA_STEPS_NVTX ||
                 r->step_source == SSA_STEPS_PROFILER || r->step_source == SSA_STEPS_MARKER ||
                 r->step_source == SSA_STEPS_GRAPHS;
    if (!marked && r->capture_window)
        snprintf(w->why_none, sizeof w->why_none,
                 "no series: the program marked no steps, so only the GPU window's steps are "
                 "known (the Python shim marks optimizer.step(); a loop without one: `with "
                 "stepscope.step():` around each iteration; C and C++: stepscope_step_begin/end; "
                 "docs/markers.md)");
    if (run->n < 2) return;
    /* a short run recorded almost whole says nothing the window did not */
    w->shown = run->analysed_from && (run->n - window_steps(run) >= REPORT_RUN_UNRECORDED ||
                                      run->n_stalls || run->drift.found);
    if (!w->shown) return;
    head_text(w, r);
    spark_text(w, run);
    chart_points(w, run);
    run_lines(w, r);
    window_compares(w, run);
}
