/*
 * ssa_steps.c — steps from the candidates of pass 1, warm-up after pass 2, the summary.
 *
 * Source order: STEP records (the collector's conversion of the public API and the Python
 * shim's markers), else NVTX "step" ranges of the stepscope domain, else ProfilerStep#N
 * ranges (all three skipped with ssa_opts.ignore_markers), else steps detected from the periodicity
 * of the kernel sequence (ssa_period.c), else none: the trace is then cut into windows only so that
 * pass 2 can stream, and the report treats them as one interval ("no step markers").
 *
 * Steps tile time: a step runs from its begin to the next step's begin, so work between
 * a marker's end and the next begin (data loading outside the user's step range, logging)
 * is in a step and steps/s is the real throughput. A gap longer than 10 median steps
 * (evaluation, checkpointing) is not a step's: the step then ends at its marker's end.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ssa_internal.h"
#include "util/ss_error.h"

#define SSA_TILE_GAP_STEPS 10 /* gaps up to this many median steps are tiled */
#define SSA_WARMUP_FACTOR 1.5 /* a first step this much slower than the rest is warm-up */
#define SSA_FILL_FACTOR 4.0   /* a leading step this much faster than the tail: queue fill */
#define SSA_FILL_SHARE_PCT 80 /* share of such steps in the fill phase */
#define SSA_FILL_MIN_TAIL 3   /* steps in the last quarter needed to judge the tail */
#define SSA_FILL_BUSY 0.9     /* GPU busy share of a fill step (the queue is not empty) */
#define SSA_MAX_WINDOWS 4096  /* no markers: at most this many streaming windows */
#define SSA_DEFAULT_WINDOW_NS 100000000ull

static int cmp_cand(const void *a, const void *b)
{
    const struct ssa_cand *x = a, *y = b;
    return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* The thread with the most candidates: the loop that marks steps. */
static uint32_t main_tid(const struct ssa_candlist *l)
{
    struct ssa_idmap counts = {0};
    uint32_t best = 0, best_n = 0;
    for (size_t i = 0; i < l->n; i++) {
        uint32_t *n = ssa_idmap_put(&counts, l->v[i].tid, 0);
        if (!n) break;
        if (++*n > best_n) best_n = *n, best = l->v[i].tid;
    }
    ssa_idmap_free(&counts);
    return best;
}

static uint32_t busiest_launcher(const struct ssa_idmap *m)
{
    uint32_t best = 0, best_n = 0;
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i] && m->vals[i] > best_n) best_n = m->vals[i], best = m->keys[i];
    return best;
}

/* Whether the candidates are in order of begin already (markers mostly come in time order):
 * then the sort, glibc's stable merge sort, would leave them as they are. */
static int cands_sorted(const struct ssa_candlist *l)
{
    for (size_t i = 1; i < l->n; i++)
        if (l->v[i - 1].begin > l->v[i].begin) return 0;
    return 1;
}

/* Marks are boundaries: [mark_i, mark_i+1). Intervals keep their own ends. */
static size_t cand_to_intervals(struct ssa_candlist *l, uint32_t tid, struct ssa_result *res)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (l->v[i].tid != tid) continue;
        l->v[n++] = l->v[i];
    }
    l->n = n;
    if (!cands_sorted(l)) qsort(l->v, l->n, sizeof *l->v, cmp_cand);
    n = 0;
    for (size_t i = 0; i < l->n; i++) {
        struct ssa_cand c = l->v[i];
        if (c.mark) c.end = i + 1 < l->n ? l->v[i + 1].begin : 0;
        if (c.end <= c.begin) { /* never ended: a killed program, the shim's last range */
            res->dropped_step_ranges++;
            continue;
        }
        l->v[n++] = c;
    }
    l->n = n;
    return n;
}

static uint64_t median_duration(const struct ssa_candlist *l)
{
    uint64_t *d = malloc((l->n ? l->n : 1) * sizeof *d);
    if (!d) return 0;
    for (size_t i = 0; i < l->n; i++)
        d[i] = l->v[i].end - l->v[i].begin;
    uint64_t m = ssa_quantile_u64(d, l->n, 0.5);
    free(d);
    return m;
}

static int steps_from_cands(struct ssa_candlist *l, struct ssa_result *res)
{
    for (size_t i = 0; i + 1 < l->n; i++) /* overlapping markers: the later one wins */
        if (l->v[i].end > l->v[i + 1].begin) l->v[i].end = l->v[i + 1].begin;
    uint64_t med = median_duration(l);
    res->briefs = calloc(l->n ? l->n : 1, sizeof *res->briefs);
    if (!res->briefs) return SS_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++) {
        struct ssa_cand *c = &l->v[i];
        uint64_t end = c->end;
        if (i + 1 < l->n && l->v[i + 1].begin - end <= SSA_TILE_GAP_STEPS * med)
            end = l->v[i + 1].begin;
        if (end <= c->begin) continue;
        res->briefs[n].number = c->number;
        res->briefs[n].begin_ns = c->begin;
        res->briefs[n].end_ns = end;
        n++;
    }
    res->n_steps = n;
    return 0;
}

static int steps_as_windows(struct ssa_result *res, const struct ssa_opts *o)
{
    if (res->last_ns <= res->first_ns) return 0; /* nothing timed: no interval at all */
    uint64_t span = res->last_ns - res->first_ns;
    uint64_t w = o && o->window_ns ? o->window_ns : SSA_DEFAULT_WINDOW_NS;
    if (span / w >= SSA_MAX_WINDOWS) w = span / SSA_MAX_WINDOWS + 1;
    size_t n = (size_t)((span + w - 1) / w);
    res->briefs = calloc(n, sizeof *res->briefs);
    if (!res->briefs) return SS_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        res->briefs[i].number = i;
        res->briefs[i].begin_ns = res->first_ns + i * w;
        res->briefs[i].end_ns = i + 1 < n ? res->first_ns + (i + 1) * w : res->last_ns;
    }
    res->n_steps = n;
    return 0;
}

/* Full mode: the per-step results, identified from the briefs. */
static int full_steps(struct ssa_result *res)
{
    if (res->compact) return 0;
    res->steps = calloc(res->n_steps ? res->n_steps : 1, sizeof *res->steps);
    if (!res->steps) return SS_ENOMEM;
    for (size_t i = 0; i < res->n_steps; i++) {
        res->steps[i].number = res->briefs[i].number;
        res->steps[i].begin_ns = res->briefs[i].begin_ns;
        res->steps[i].end_ns = res->briefs[i].end_ns;
    }
    return 0;
}

/* The candidates are not needed once steps are built: their memory goes before pass 2, and
 * the sources not chosen go before the steps are allocated (a trace of a million steps
 * holds ~32 MB of candidates per source). */
static void free_cands_except(struct ssa_scan *sc, const struct ssa_candlist *keep)
{
    struct ssa_candlist *lists[] = {&sc->step_recs, &sc->nvtx_steps, &sc->prof_steps,
                                    &sc->user_steps};
    for (int i = 0; i < 4; i++) {
        if (lists[i] == keep) continue;
        free(lists[i]->v);
        memset(lists[i], 0, sizeof *lists[i]);
    }
}

static void free_cands(struct ssa_scan *sc)
{
    free_cands_except(sc, NULL);
}

static int build_briefs(struct ssa_scan *sc, struct ssa_result *res, const struct ssa_opts *o);

int ssa_steps_build(struct ssa_scan *sc, struct ssa_result *res, const struct ssa_opts *o)
{
    int rc = build_briefs(sc, res, o);
    free_cands(sc);
    if (rc == 0) rc = ssa_run_keep(res); /* every step, before the filters leave some out */
    int named = o && o->step_marker; /* the steps the user named stay theirs */
    /* the window first: its unrecorded steps measure the recording's cost, and they have
     * no GPU work to pace or graph launches to count */
    if (rc == 0) rc = ssa_capture_filter(sc, res);
    if (rc == 0) ssa_run_mark_windows(res);
    if (rc == 0 && !named) rc = ssa_graph_steps(sc, res);
    /* after graph steps (graph launches are in every step), before pacing (which then reads
     * the steps left out as gaps between the kept ones: ssa_pace.c) */
    if (rc == 0) rc = ssa_capture_drop_unsampled(sc, res);
    if (rc == 0 && !named) rc = ssa_gpu_pace(sc, res);
    if (rc == 0) rc = ssa_run_plan(res);
    return rc ? rc : full_steps(res);
}

/* Chooses the source and fills res->briefs. */
static int build_briefs(struct ssa_scan *sc, struct ssa_result *res, const struct ssa_opts *o)
{
    struct ssa_candlist *lists[] = {&sc->step_recs, &sc->nvtx_steps, &sc->prof_steps};
    const int sources[] = {SSA_STEPS_RECORDS, SSA_STEPS_NVTX, SSA_STEPS_PROFILER};
    int user = o && o->step_marker; /* the user's marker replaces the usual sources */
    if (user) lists[0] = &sc->user_steps;
    for (int i = 0; i < (user ? 1 : 3) && !(o && o->ignore_markers); i++) {
        struct ssa_candlist *l = lists[i];
        if (l->n == 0) continue;
        uint32_t tid = main_tid(l);
        uint64_t dropped_before = res->dropped_step_ranges;
        if (cand_to_intervals(l, tid, res) == 0) { /* no complete step: try the next source */
            res->dropped_step_ranges = dropped_before;
            continue;
        }
        res->step_source = user ? SSA_STEPS_MARKER : sources[i];
        res->train_tid = tid;
        res->train_tid_from_markers = 1;
        free_cands_except(sc, l);
        return steps_from_cands(l, res);
    }
    free_cands(sc);
    res->marker_unmatched = user;
    res->train_tid = busiest_launcher(&sc->launch_by_tid);
    int rc = ssa_period_detect(sc, res);
    if (rc) return rc;
    if (res->n_steps) {
        res->step_source = SSA_STEPS_DETECTED;
        return 0;
    }
    free(res->briefs); /* no period: the whole trace as one interval, said so */
    res->briefs = NULL;
    res->step_source = SSA_STEPS_NONE;
    return steps_as_windows(res, o);
}

/* ---- warm-up ---- */

/* Kernel names of step 0 that never run again: autotuning tries, compilation, cuDNN plans. */
static size_t names_only_in_first_step(const struct ssa_scan *sc)
{
    size_t n = 0;
    for (size_t i = 0; i < sc->n_kn; i++)
        if (sc->kn[i].first_step == 1 && sc->kn[i].last_step == 1) n++;
    return n;
}

#define SSA_AUTOTUNE_NAMES 3 /* distinct names seen only in step 0 that say "autotuning" */

static uint64_t brief_dur(const struct ssa_step_brief *b)
{
    return b->end_ns - b->begin_ns;
}

/* Leading steps slower than SSA_WARMUP_FACTOR x the median of the rest (never more than
 * half the steps). d: scratch room for n durations. */
static size_t slow_first_steps(const struct ssa_result *res, uint64_t *d)
{
    size_t n = res->n_steps, w = 0;
    while (w < n / 2) {
        size_t m = 0;
        for (size_t i = w + 1; i < n; i++)
            d[m++] = brief_dur(&res->briefs[i]);
        uint64_t med = ssa_quantile_u64(d, m, 0.5);
        if ((double)brief_dur(&res->briefs[w]) <= SSA_WARMUP_FACTOR * (double)med) break;
        w++;
    }
    return w;
}

/* A transient of fast steps after warm-up: the host runs ahead of the GPU until the launch
 * queue is full (then the GPU sets the pace), or drains batches a DataLoader prefetched.
 * Host-side step marks come faster than the work they stand for until then, so the steady
 * pace is the tail's: the last quarter's median. The fill phase starts at `from` with a step
 * faster than tail / SSA_FILL_FACTOR with the GPU busy all along (SSA_FILL_BUSY: it had work
 * queued; a step that is merely faster while the GPU idles is not a fill) and ends at the
 * last such step within the first 3/4 of the steps, when SSA_FILL_SHARE_PCT of the steps up
 * to it are such (a slowdown later in a run, or steps that alternate, are not a fill). Returns the
 * first steady step
 * (`from` when there is no fill). Before pass 2 (busy_known 0) it gives the candidates by
 * duration alone; after it, ssa_steps_warmup confirms them by GPU busy time. */
/* Step i is fast enough for a fill, and (once pass 2 told) its GPU was busy throughout. */
static int fill_step(const struct ssa_result *res, size_t i, double fast, int busy_known)
{
    const struct ssa_step_brief *b = &res->briefs[i];
    double dur = (double)brief_dur(b);
    return dur < fast && (!busy_known || (double)b->busy_ns >= SSA_FILL_BUSY * dur);
}

static size_t fill_phase_end(const struct ssa_result *res, size_t from, uint64_t *d, int busy_known)
{
    size_t n = res->n_steps, q = n / 4;
    if (q < SSA_FILL_MIN_TAIL || from >= n - q) return from;
    for (size_t i = 0; i < q; i++)
        d[i] = brief_dur(&res->briefs[n - q + i]);
    double fast = (double)ssa_quantile_u64(d, q, 0.5) / SSA_FILL_FACTOR;
    size_t last = from, nfast = 0, fast_upto = 0;
    for (size_t i = from; i < n - q; i++) {
        if (!fill_step(res, i, fast, busy_known)) continue;
        nfast++;
        last = i + 1, fast_upto = nfast;
    }
    /* a leading phase: it starts at `from`, and nearly all of it is fast */
    int leading = last > from && fill_step(res, from, fast, busy_known);
    return leading && fast_upto * 100 >= SSA_FILL_SHARE_PCT * (last - from) ? last : from;
}

/* Whether a torch.compile range began inside step i. */
static int step_compiles(const struct ssa_scan *sc, const struct ssa_result *res, size_t i)
{
    const struct ssa_step_brief *b = &res->briefs[i];
    for (size_t k = 0; k < sc->n_compile_starts; k++)
        if (sc->compile_starts[k] >= b->begin_ns && sc->compile_starts[k] < b->end_ns) return 1;
    return 0;
}

/* torch.compile's warm-up: the steps from the first that compile (the graph, then its
 * backward, a second frame...), slow or not; at most half the steps. */
static size_t compile_warmup(const struct ssa_scan *sc, const struct ssa_result *res, size_t w)
{
    while (w < res->n_steps / 2 && step_compiles(sc, res, w))
        w++;
    return w;
}

/* The one step of [first, n) over SSA_PRICE_OUTLIER_FACTOR x their median, among at least
 * SSA_PRICE_OUTLIER_SHARE / 2: flagged SSA_STEP_OUTLIER, out of the sums like warm-up. Only a
 * one-off (cuDNN autotuning a new shape, a late allocation): two or more are something the
 * program does again (recompiles every 20 steps, a checkpoint), which the prices must keep.
 * d: room for n durations. */
static void mark_price_outliers(struct ssa_result *res, size_t first, uint64_t *d)
{
    size_t m = res->n_steps > first ? res->n_steps - first : 0, out = 0;
    if (m < SSA_PRICE_OUTLIER_SHARE / 2) return;
    for (size_t i = 0; i < m; i++)
        d[i] = brief_dur(&res->briefs[first + i]);
    double limit = SSA_PRICE_OUTLIER_FACTOR * (double)ssa_quantile_u64(d, m, 0.5);
    /* steps already unalike (a host that runs ahead and then waits out the GPU's queue in one
     * step): that step holds the others' GPU work, not a one-off */
    if (ssa_quantile_u64(d, m, 0.9) > 10 * ssa_quantile_u64(d, m, 0.1) || res->gpu_paced) return;
    for (size_t i = first; i < res->n_steps; i++)
        out += (double)brief_dur(&res->briefs[i]) > limit;
    if (out != 1) return;
    for (size_t i = first; i < res->n_steps; i++)
        if ((double)brief_dur(&res->briefs[i]) > limit) res->briefs[i].warmup = SSA_STEP_OUTLIER;
    res->n_price_outliers = out;
}

int ssa_steps_warmup_plan(struct ssa_scan *sc, struct ssa_result *res, const struct ssa_opts *o)
{
    size_t n = res->n_steps;
    sc->warm_dur = 0;
    sc->autotune_possible = 0;
    res->warmup_fill = 0;
    res->warmup_asked = o && o->warmup_fixed ? o->warmup_steps : 0;
    if ((o && o->no_warmup) || res->step_source == SSA_STEPS_NONE || n < 2) return 0;
    if (o && o->warmup_fixed) { /* the user's count: no detection; one step is always kept */
        sc->warm_dur = o->warmup_steps < n ? o->warmup_steps : n - 1;
        sc->fill_end = 0;
        return 0;
    }
    uint64_t *d = malloc(n * sizeof *d);
    if (!d) return SS_ENOMEM;
    size_t w = compile_warmup(sc, res, slow_first_steps(res, d));
    sc->fill_end = fill_phase_end(res, w, d, 0);
    memset(&sc->fill, 0, sizeof sc->fill);
    sc->warm_dur = w;
    sc->autotune_possible = w == 0 && n >= 3;
    size_t first = w > sc->fill_end ? w : sc->fill_end;
    mark_price_outliers(res, first ? first : (size_t)sc->autotune_possible, d);
    sc->plan = res->briefs;
    free(d);
    return 0;
}

static void gpu_detail_add(struct ssa_gpu_detail *s, const struct ssa_gpu_detail *k)
{
    for (int c = 0; c < SSA_OPT_KINDS; c++)
        s->opt_kernels[c] += k->opt_kernels[c];
    s->opt_adam += k->opt_adam, s->opt_span_ops += k->opt_span_ops;
    s->opt_span_ns += k->opt_span_ns, s->opt_span_busy_ns += k->opt_span_busy_ns;
    s->fusable_runs += k->fusable_runs, s->fusable_kernels += k->fusable_kernels;
    s->fusable_busy_ns += k->fusable_busy_ns, s->fusable_ns += k->fusable_ns;
    s->small_gemms += k->small_gemms, s->small_gemm_ns += k->small_gemm_ns;
    s->gemm_idle_sm_ns += k->gemm_idle_sm_ns, s->host_wait_ns += k->host_wait_ns;
    s->launch_wait_ns += k->launch_wait_ns, s->long_free_ns += k->long_free_ns;
}

static void step_add(struct ssa_step *sum, const struct ssa_step *st)
{
    struct ssa_step_counts *s = &sum->n;
    const struct ssa_step_counts *k = &st->n;
    for (int c = 0; c < SSA_CAT_COUNT; c++)
        sum->cat_ns[c] += st->cat_ns[c];
    s->kernels += k->kernels;
    for (int c = 0; c < SSA_KC_COUNT; c++) {
        s->kernels_by_class[c] += k->kernels_by_class[c];
        s->kernel_ns_by_class[c] += k->kernel_ns_by_class[c];
    }
    s->launches += k->launches, s->syncs += k->syncs, s->allocs += k->allocs;
    s->other_api += k->other_api;
    s->launch_api_ns += k->launch_api_ns, s->sync_api_ns += k->sync_api_ns;
    s->alloc_api_ns += k->alloc_api_ns;
    for (int c = 0; c < SSA_COPY_KINDS; c++) {
        s->copies[c] += k->copies[c], s->copy_bytes[c] += k->copy_bytes[c];
        s->copy_ns[c] += k->copy_ns[c];
        s->pageable_copies[c] += k->pageable_copies[c];
        s->pageable_bytes[c] += k->pageable_bytes[c], s->pageable_ns[c] += k->pageable_ns[c];
    }
    s->blocking_copies += k->blocking_copies;
    s->blocking_pageable_h2d_ns += k->blocking_pageable_h2d_ns;
    s->memsets += k->memsets, s->memset_ns += k->memset_ns;
    s->sync_records += k->sync_records, s->sync_record_ns += k->sync_record_ns;
    s->data_ranges += k->data_ranges, s->data_ns += k->data_ns;
    s->compiles += k->compiles, s->recompiles += k->recompiles, s->compile_ns += k->compile_ns;
    s->post_sync_data_ns += k->post_sync_data_ns;
    s->short_gap_ns += k->short_gap_ns, s->short_gaps += k->short_gaps;
    s->post_sync_ns += k->post_sync_ns, s->post_sync_runs += k->post_sync_runs;
    s->pre_h2d_ns += k->pre_h2d_ns, s->pre_h2d_runs += k->pre_h2d_runs;
    s->post_alloc_ns += k->post_alloc_ns, s->post_alloc_runs += k->post_alloc_runs;
    s->graph_launches += k->graph_launches, s->graph_kernels += k->graph_kernels;
    s->graph_records += k->graph_records;
    s->graph_kernel_ns += k->graph_kernel_ns, s->graph_record_ns += k->graph_record_ns;
    gpu_detail_add(&s->gpu, &k->gpu);
}

enum ssa_step_group ssa_steps_group(const struct ssa_scan *sc, size_t i)
{
    if (i < sc->warm_dur) return SSA_GROUP_WARMUP;
    if (sc->plan && sc->plan[i].warmup == SSA_STEP_OUTLIER) return SSA_GROUP_WARMUP; /* never counted */
    if (i == 0 && sc->autotune_possible) return SSA_GROUP_STEP0;
    return i < sc->fill_end ? SSA_GROUP_FILL : SSA_GROUP_STEADY;
}

void ssa_steps_fold(struct ssa_scan *sc, struct ssa_result *res, size_t i,
                    const struct ssa_step *st)
{
    switch (ssa_steps_group(sc, i)) {
    case SSA_GROUP_WARMUP: /* excluded */
    case SSA_GROUPS:
        break;
    case SSA_GROUP_STEP0:
        sc->step0 = *st; /* decided after pass 2 */
        break;
    case SSA_GROUP_FILL:
        step_add(&sc->fill, st); /* likewise */
        break;
    case SSA_GROUP_STEADY:
        step_add(&res->steady, st);
        break;
    }
}

/* After pass 2: the fill candidates stand if their GPU was busy; the steps become warm-up.
 * Returns the first steady step. */
static size_t confirm_fill(struct ssa_scan *sc, struct ssa_result *res)
{
    size_t w = sc->warm_dur, f = sc->fill_end;
    if (f > w) {
        uint64_t *d = malloc(res->n_steps * sizeof *d);
        size_t confirmed = d ? fill_phase_end(res, w, d, 1) : w;
        free(d);
        if (confirmed == f) {
            res->warmup_fill = f - w;
            return f;
        }
    }
    if (f > w && res->compact) step_add(&res->steady, &sc->fill); /* steady after all */
    return w;
}

void ssa_steps_warmup(struct ssa_scan *sc, struct ssa_result *res, const struct ssa_opts *o)
{
    (void)o; /* decided by ssa_steps_warmup_plan */
    size_t w = confirm_fill(sc, res);
    /* a confirmed fill from step 0 already holds step 0 (then it is warm-up either way) */
    int step0_open = sc->autotune_possible && !res->warmup_fill;
    if (step0_open && names_only_in_first_step(sc) >= SSA_AUTOTUNE_NAMES) {
        w = w > 1 ? w : 1;
        res->warmup_autotune = 1;
    } else if (step0_open && res->compact) {
        step_add(&res->steady, &sc->step0); /* step 0 is steady after all */
    }
    for (size_t i = 0; i < w; i++) {
        res->briefs[i].warmup = 1;
        if (res->steps) res->steps[i].warmup = 1;
    }
    for (size_t i = w; res->steps && i < res->n_steps; i++) /* the plan's price outliers */
        if (res->briefs[i].warmup == SSA_STEP_OUTLIER) res->steps[i].warmup = SSA_STEP_OUTLIER;
    res->n_warmup = w;
}

/* The steady step nearest the median duration among steps [first, n) (index + 1). */
static size_t median_of(const struct ssa_result *res, size_t first, uint64_t *d)
{
    size_t m = res->n_steps - first, at = 0;
    for (size_t i = 0; i < m; i++)
        d[i] = brief_dur(&res->briefs[first + i]);
    uint64_t med = ssa_quantile_u64(d, m, 0.5), best = UINT64_MAX;
    for (size_t i = first; i < res->n_steps; i++) {
        uint64_t x = brief_dur(&res->briefs[i]), diff = x > med ? x - med : med - x;
        if (diff < best) best = diff, at = i + 1;
    }
    return at;
}

/* The intervals one step's timeline may hold: its timed records per step (kernels, copies,
 * memsets, graph launches and API calls, from pass 1) and as many attribution runs. */
static size_t items_per_step(const struct ssa_result *res)
{
    uint64_t records = res->kernels + res->memcpys + res->memsets + res->graphs + res->api_calls;
    size_t est = (size_t)(2 * records / (res->n_steps ? res->n_steps : 1)) + 8;
    return est < SSA_TIMELINE_MAX ? est : SSA_TIMELINE_MAX;
}

/* Adds step i (index + 1; 0: none) to the timelines, once. */
static void tl_take(struct ssa_result *res, size_t step, int which, size_t max)
{
    if (!step || res->tl_index[step - 1]) return;
    res->tl[res->n_tl] = (struct ssa_timeline){.step = step, .which = which, .max = max};
    res->tl_index[step - 1] = (uint32_t)++res->n_tl;
}

/* Up to room other steps, evenly spaced over the run (every one when room allows), each with
 * room for its share of the budget left. */
static void tl_take_others(struct ssa_result *res, size_t room, size_t left)
{
    size_t n = res->n_steps, want = room < n ? room : n;
    for (size_t k = 0; k < want; k++)
        tl_take(res, 1 + (want == n ? k : k * n / want), SSA_TL_STEP, left / want);
}

int ssa_steps_pick_timeline(struct ssa_scan *sc, struct ssa_result *res)
{
    size_t first = sc->fill_end > sc->warm_dur ? sc->fill_end : sc->warm_dur;
    if (res->step_source == SSA_STEPS_NONE || first >= res->n_steps) return 0;
    uint64_t *d = malloc((res->n_steps - first) * sizeof *d);
    res->tl = calloc(SSA_TL_STEPS_MAX, sizeof *res->tl);
    res->tl_index = calloc(res->n_steps, sizeof *res->tl_index);
    if (!d || !res->tl || !res->tl_index) {
        free(d);
        return SS_ENOMEM;
    }
    size_t med = median_of(res, first, d), slow = 0;
    free(d);
    /* step 0 may turn out warm-up (autotuning) after pass 2: not the slowest steady step */
    for (size_t i = first + (first == 0 && sc->autotune_possible); i < res->n_steps; i++)
        if (!slow || brief_dur(&res->briefs[i]) > brief_dur(&res->briefs[slow - 1])) slow = i + 1;
    tl_take(res, med, SSA_TL_MEDIAN, SSA_TIMELINE_MAX);
    tl_take(res, slow, SSA_TL_SLOWEST, SSA_TIMELINE_MAX);
    size_t est = items_per_step(res), left = SSA_TL_BUDGET > 2 * est ? SSA_TL_BUDGET - 2 * est : 0;
    size_t room = left / est < SSA_TL_STEPS_MAX - 2 ? left / est : SSA_TL_STEPS_MAX - 2;
    tl_take_others(res, room, left);
    return 0;
}

int ssa_steps_bins_alloc(struct ssa_result *res)
{
    struct ssa_step_bins *b = &res->bins;
    if (!res->n_steps) return 0;
    b->width = (res->n_steps + SSA_STEP_BINS_MAX - 1) / SSA_STEP_BINS_MAX;
    b->n = (res->n_steps + b->width - 1) / b->width;
    b->cat_ns = calloc(b->n, sizeof *b->cat_ns);
    return b->cat_ns ? 0 : SS_ENOMEM;
}

/* ---- summary ---- */

const char *ssa_rec_basis_name(int basis)
{
    static const char *const names[] = {"none",         "full",     "light",  "given", "full-window",
                                        "light-window", "measured", "kineto", "nsys"};
    return basis >= 0 && basis <= SSA_REC_NSYS ? names[basis] : "none";
}

const char *ssa_baseline_unusable(int verdict)
{
    static const char *const names[SSA_BASELINE_COUNT] = {
        [SSA_BASELINE_UNSTEADY] = "unsteady",
        [SSA_BASELINE_SLOWER] = "slower",
        [SSA_BASELINE_IMPRECISE] = "imprecise",
    };
    return verdict >= 0 && verdict < SSA_BASELINE_COUNT ? names[verdict] : NULL;
}

const char *ssa_rec_recorder(int basis)
{
    return basis == SSA_REC_KINETO ? "torch.profiler's"
           : basis == SSA_REC_NSYS ? "Nsight Systems'"
                                   : "stepscope's";
}

/* Whether r's full mode left out the kinds the older calibration paid for (ENV
 * collector.cupti_extra "none"; collectors before trace v3 wrote no such key). Its mid-run
 * windows take API calls through the same per-call callbacks: one constant for both. */
static int full_is_lean(const struct ssa_result *r)
{
    const char *extra = ssa_env_value(&r->env, "collector.cupti_extra");
    return extra && strcmp(extra, "none") == 0;
}

/* Whose cost r's step times carry and how it is known: given, else the collector's mode (its
 * ENV record "collector.mode") and window, else the recorder of an import; synthetic traces
 * have none. */
static int rec_basis_of(const struct ssa_result *r)
{
    if (r->rec_cost_given) return r->rec_cost_us > 0 ? SSA_REC_GIVEN : SSA_REC_NONE;
    const char *mode = ssa_env_value(&r->env, "collector.mode");
    if (mode && strcmp(mode, "full") == 0) return r->capture_late ? SSA_REC_FULL_WINDOW : SSA_REC_FULL;
    if (ssa_env_light(&r->env)) return r->capture_late ? SSA_REC_LIGHT_WINDOW : SSA_REC_LIGHT;
    const char *fmt = mode ? NULL : ssa_env_value(&r->env, "import.format");
    if (fmt && strcmp(fmt, "kineto-json") == 0) return SSA_REC_KINETO;
    if (fmt && strcmp(fmt, "nsys-sqlite") == 0) return SSA_REC_NSYS;
    return SSA_REC_NONE;
}

/* A calibration: the cost per launch, and the range other programs measured (0, 0: none);
 * call_us: the median launch call it was scaled from (0: a constant). */
struct rec_calib {
    double us, lo, hi, call_us;
};

/* Lean full mode's cost per launch as a share of this trace's median launch call, which
 * follows the host's speed (SSA_REC_FULL_LEAN_PER_CALL); the constant without launch calls. */
static struct rec_calib lean_scaled(const struct ssa_result *r, struct rec_calib constant)
{
    double call_us = ssa_call_median_ns(r->launch_call_bins) / 1e3;
    if (call_us <= 0) return constant;
    return (struct rec_calib){SSA_REC_FULL_LEAN_PER_CALL * call_us,
                              SSA_REC_FULL_LEAN_PER_CALL_LO * call_us,
                              SSA_REC_FULL_LEAN_PER_CALL_HI * call_us, call_us};
}

/* The calibration of basis for r: one row per basis; full mode as it records since trace v3
 * (full_is_lean) has its own, from or mid-run alike. */
static struct rec_calib rec_calibration(const struct ssa_result *r, int basis)
{
    static const struct rec_calib rows[] = {
        [SSA_REC_FULL] = {SSA_REC_US_FULL, SSA_REC_US_FULL_LO, SSA_REC_US_FULL_HI, 0},
        [SSA_REC_LIGHT] = {SSA_REC_US_LIGHT, 0, 0, 0},
        [SSA_REC_FULL_WINDOW] = {SSA_REC_US_FULL_WINDOW, SSA_REC_US_FULL_LO, SSA_REC_US_FULL_HI, 0},
        [SSA_REC_LIGHT_WINDOW] = {SSA_REC_US_LIGHT_WINDOW, 0, 0, 0},
        [SSA_REC_KINETO] = {SSA_REC_US_KINETO, 0, 0, 0},
        [SSA_REC_NSYS] = {SSA_REC_US_NSYS, 0, 0, 0},
    };
    static const struct rec_calib lean = {SSA_REC_US_FULL_LEAN, SSA_REC_US_FULL_LEAN_LO,
                                          SSA_REC_US_FULL_LEAN_HI, 0};
    if (basis == SSA_REC_GIVEN) return (struct rec_calib){r->rec_cost_us, 0, 0, 0};
    if ((basis == SSA_REC_FULL || basis == SSA_REC_FULL_WINDOW) && full_is_lean(r))
        return lean_scaled(r, lean);
    return rows[basis]; /* NONE, MEASURED: zeros */
}

/* About 95 % of a median's own uncertainty, in ms, from quartiles q1, q3 in ns of n values
 * (McGill's notches: 1.57 IQR / sqrt(n)). */
static double median_notch_ms(double q1, double q3, size_t n)
{
    return 1.57 * (q3 - q1) / 1e6 / sqrt((double)n);
}

/* 2 % of a step: the recorded steps may run faster than the baseline by this much before the
 * host's speed is said to have drifted (rec_measured), and a measure this close is precise
 * enough (rec_imprecise) */
#define SSA_BASELINE_DRIFT 0.02

/* Whether a measure of half-width half_ms (ms per step) is less precise than the calibration
 * of r's mode: its 95 % range over twice as wide as the calibration's spread over other
 * programs (SSA_REC_IMPRECISE), and over 2 % of a step. Five steps before auto's window are the whole baseline of a
 * default recording, and host-bound steps swing by 10-20 % from one to the next: the zoo's
 * EfficientNet read 18.9 ms/step (9.5 to 28.4) from a part of its recording cut to 7 recorded
 * steps, 7.0 (5.0 to 8.9) from another recording's 62, where plain runs put it near 5 and the
 * calibration at 4.6 (3.5 to 6.9). */
#define SSA_REC_IMPRECISE 2.0

static int rec_imprecise(const struct ssa_result *r, const struct ssa_summary *s, double half_ms)
{
    struct rec_calib cal = rec_calibration(r, rec_basis_of(r));
    double spread_ms = (cal.hi - cal.lo) / 2 * s->launches_per_step / 1e3;
    /* and loose against the step too (a measure within 2 % of a step is close enough,
     * whatever the calibration's range; no launches: no calibration to prefer) */
    double base_ms = (double)r->base_q[1] / 1e6;
    return spread_ms > 0 && half_ms > SSA_REC_IMPRECISE * spread_ms &&
           half_ms > SSA_BASELINE_DRIFT * base_ms;
}

/* Measured in the trace: the recorded steps' median against the unrecorded ones' (host-marked
 * both), its spread from their quartiles; the cost lands in the GPU-idle time the host
 * leaves, so it is at most that. */
static int rec_measured(const struct ssa_result *r, struct ssa_summary *s, double idle_ms)
{
    const uint64_t *b = r->base_q, *k = r->rec_q;
    double cost = ((double)k[1] - (double)b[1]) / 1e6;
    double nk = median_notch_ms((double)k[0], (double)k[2], r->n_recorded);
    double nb = median_notch_ms((double)b[0], (double)b[2], r->n_baseline);
    double half = sqrt(nk * nk + nb * nb);
    /* recorded steps faster beyond noise (the notch, and 2 % of a step: steps as regular as a
     * sleep have almost none) - the host's speed drifted: no baseline */
    double tolerance = fmax(half, SSA_BASELINE_DRIFT * (double)b[1] / 1e6);
    if (cost < -tolerance) {
        s->rec_baseline_verdict = SSA_BASELINE_SLOWER;
        return 0;
    }
    if (rec_imprecise(r, s, half)) {
        s->rec_baseline_verdict = SSA_BASELINE_IMPRECISE;
        s->rec_measured_ms = cost, s->rec_measured_half_ms = half;
        return 0;
    }
    s->rec_basis = SSA_REC_MEASURED;
    s->rec_baseline_ms = (double)b[1] / 1e6;
    s->rec_baseline_steps = r->n_baseline;
    s->rec_cost_ms = cost < 0 ? 0 : cost < idle_ms ? cost : idle_ms;
    /* the value shown stays inside its own range (a clamp may move it out) */
    s->rec_cost_lo_ms = fmin(cost - half, s->rec_cost_ms);
    s->rec_cost_hi_ms = fmax(cost + half, s->rec_cost_ms);
    s->rec_us_per_launch = s->launches_per_step > 0 ? s->rec_cost_ms * 1e3 / s->launches_per_step : 0;
    return 1;
}

/* Why steps that ran unrecorded gave no measured basis: said beside the estimate. */
static void rec_no_baseline(const struct ssa_result *r, struct ssa_summary *s)
{
    if (!s->rec_baseline_verdict) s->rec_baseline_verdict = r->baseline_verdict;
    if (!ssa_baseline_unusable(s->rec_baseline_verdict)) {
        s->rec_baseline_verdict = SSA_BASELINE_NONE;
        return;
    }
    s->rec_unrecorded_steps = r->n_unrecorded;
    s->rec_unrecorded_ms = (double)r->unrecorded_median_ns / 1e6;
    s->rec_recorded_ms = (double)r->rec_q[1] / 1e6;
}

/* us per launch as ms per step, at most the idle in short gaps (where the cost shows). A trace
 * without kernel records (light mode) shows no gaps: there the cost is capped by the step
 * alone (before, light runs always said 0: the eager MLP's measured 1.19x among them). */
static double rec_capped(const struct ssa_summary *s, double us_per_launch)
{
    double cost = s->launches_per_step * us_per_launch / 1e3;
    double room = s->kernels_per_step > 0 ? s->short_gap_ms : (double)s->mean_ns / 1e6;
    return cost < room ? cost : room;
}

/* The graph kernels a full recording records with no launch call of theirs (ms per step, at
 * us_per_kernel each): stepscope's full modes only; a light recording keeps no kernel. */
static double rec_graph_nodes(const struct ssa_summary *s, double us_per_kernel)
{
    if (s->rec_basis != SSA_REC_FULL && s->rec_basis != SSA_REC_FULL_WINDOW) return 0;
    return s->graph_kernels_per_step * us_per_kernel / 1e3;
}

/* Launch sampling's own measure (ssa_result.launch_pair_q): the median of the sampled steps'
 * excess over their neighbours and its notch. */
static void rec_launch_pairs(const struct ssa_result *r, struct ssa_summary *s)
{
    if (!r->n_launch_pairs) return;
    const int64_t *q = r->launch_pair_q;
    double half = median_notch_ms((double)q[0], (double)q[2], r->n_launch_pairs);
    s->rec_launch_ms = (double)q[1] / 1e6;
    s->rec_launch_lo_ms = s->rec_launch_ms - half;
    s->rec_launch_hi_ms = s->rec_launch_ms + half;
    s->rec_launch_pairs = r->n_launch_pairs;
}

/* An estimate is never below what the run measured of itself where that time can show: the
 * collector's own time on the program's threads (rec_inline_ms), or the launch calls' cost
 * (rec_launch_ms, the larger: it holds their callbacks' time). Host time lengthens the step
 * only while the GPU waits for the host (idle_ms: launch and host idle; a trace without
 * kernels, light mode, cannot tell). That part is known; only the rest of CUPTI's is guessed. */
static void rec_at_least_measured(struct ssa_summary *s, double idle_ms)
{
    if (s->rec_basis == SSA_REC_NONE || s->rec_basis == SSA_REC_GIVEN) return;
    double m = s->rec_inline_ms > s->rec_launch_ms ? s->rec_inline_ms : s->rec_launch_ms;
    if (s->kernels_per_step > 0 && m > idle_ms) m = idle_ms;
    if (s->rec_cost_ms < m) s->rec_cost_ms = m;
    if (ssa_rec_has_range(s->rec_basis) && s->rec_cost_lo_ms < m) s->rec_cost_lo_ms = m;
    if (ssa_rec_has_range(s->rec_basis) && s->rec_cost_hi_ms < m) s->rec_cost_hi_ms = m;
}

static void rec_host(const struct ssa_result *r, struct ssa_summary *s)
{
    double mode_us = r->rec_cost_given ? r->rec_cost_us : rec_calibration(r, rec_basis_of(r)).us;
    double m = s->launches_per_step * mode_us / 1e3 + rec_graph_nodes(s, SSA_REC_US_GRAPH_KERNEL);
    m = fmax(m, fmax(s->rec_inline_ms, s->rec_launch_ms));
    s->rec_host_ms = fmax(m, s->rec_cost_ms);
}

static void rec_cost(const struct ssa_result *r, struct ssa_summary *s)
{
    s->rec_inline_ms = r->n_steps ? (double)r->collector_inline_ns / 1e6 / (double)r->n_steps : 0;
    rec_launch_pairs(r, s);
    double idle_ms = s->cat_ms[SSA_CAT_LAUNCH] + s->cat_ms[SSA_CAT_HOST];
    if (!(r->n_baseline && !r->rec_cost_given && rec_measured(r, s, idle_ms))) {
        if (!r->rec_cost_given) rec_no_baseline(r, s);
        s->rec_basis = rec_basis_of(r);
        struct rec_calib k = rec_calibration(r, s->rec_basis);
        s->rec_us_per_launch = k.us;
        s->rec_launch_call_us = k.call_us;
        s->rec_cost_ms = rec_capped(s, k.us) + rec_graph_nodes(s, SSA_REC_US_GRAPH_KERNEL);
        int range = ssa_rec_has_range(s->rec_basis);
        s->rec_cost_lo_ms = range ? rec_capped(s, k.lo) + rec_graph_nodes(s, SSA_REC_US_GRAPH_KERNEL_LO) : 0;
        s->rec_cost_hi_ms = range ? rec_capped(s, k.hi) + rec_graph_nodes(s, SSA_REC_US_GRAPH_KERNEL_HI) : 0;
        rec_at_least_measured(s, idle_ms);
    }
    rec_host(r, s);
    double step_ms = (double)s->mean_ns / 1e6, busy_ms = step_ms * s->gpu_busy_pct / 100;
    double rest = step_ms - s->rec_cost_ms;
    s->gpu_busy_pct_unrecorded = rest > 0 ? 100 * busy_ms / rest : s->gpu_busy_pct;
}

/* Means per step of what summary_counts reads, from one step's numbers (divide by n). */
static void add_counts(struct ssa_summary *s, const struct ssa_step *st, double n)
{
    for (int c = 0; c < SSA_CAT_COUNT; c++)
        s->cat_ms[c] += (double)st->cat_ns[c] / 1e6 / n;
    uint64_t kernel_ns = 0;
    for (int k = 0; k < SSA_KC_COUNT; k++) {
        s->kclass_ms[k] += (double)st->n.kernel_ns_by_class[k] / 1e6 / n;
        kernel_ns += st->n.kernel_ns_by_class[k];
    }
    s->kernel_ms_per_step += (double)kernel_ns / 1e6 / n;
    s->kernels_per_step += st->n.kernels / n;
    s->launches_per_step += st->n.launches / n;
    s->syncs_per_step += st->n.syncs / n;
    s->short_gap_ms += (double)st->n.short_gap_ns / 1e6 / n;
    uint32_t ops = st->n.kernels + st->n.memsets;
    for (int k = 0; k < SSA_COPY_KINDS; k++)
        ops += st->n.copies[k];
    s->gpu_ops_per_step += ops / n;
    s->h2d_copies_per_step += st->n.copies[SST_COPY_H2D] / n;
    s->h2d_mib_per_step += (double)st->n.copy_bytes[SST_COPY_H2D] / 1048576.0 / n;
    s->pageable_h2d_mib_per_step += (double)st->n.pageable_bytes[SST_COPY_H2D] / 1048576.0 / n;
    s->graph_launches_per_step += st->n.graph_launches / n;
    s->graph_kernels_per_step += st->n.graph_kernels / n;
    s->graph_gpu_ms += (double)(st->n.graph_kernel_ns + st->n.graph_record_ns) / 1e6 / n;
}

static void summary_counts(const struct ssa_result *r, struct ssa_summary *s)
{
    double n = (double)s->steps;
    if (r->compact) { /* the sums over the steady steps */
        add_counts(s, &r->steady, n);
        return;
    }
    for (size_t i = 0; i < r->n_steps; i++)
        if (!r->steps[i].warmup) add_counts(s, &r->steps[i], n);
}

/* The category of step i with the most time above the steady mean (full mode). */
static int excess_cat(const struct ssa_result *r, const struct ssa_summary *s, size_t i,
                      uint64_t *excess)
{
    int best = SSA_CAT_HOST;
    double most = -1;
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        double over = (double)r->steps[i].cat_ns[c] - s->cat_ms[c] * 1e6;
        if (over > most) most = over, best = c;
    }
    *excess = most > 0 ? (uint64_t)most : 0;
    return best;
}

/* Inserts o into out[0..*n) (capacity max) keeping the slowest first. */
static void keep_slowest(struct ssa_outlier *out, size_t *n, size_t max,
                         const struct ssa_outlier *o)
{
    size_t at = *n < max ? (*n)++ : max;
    while (at > 0 && out[at - 1].dur_ns < o->dur_ns) {
        if (at < max) out[at] = out[at - 1];
        at--;
    }
    if (at < max) out[at] = *o;
}

size_t ssa_outliers(const struct ssa_result *r, const struct ssa_summary *s,
                    struct ssa_outlier *out, size_t max)
{
    size_t found = 0, kept = 0;
    double limit = SSA_OUTLIER_FACTOR * (double)s->median_ns;
    for (size_t i = 0; s->steps >= 3 && i < r->n_steps; i++) {
        const struct ssa_step_brief *b = &r->briefs[i];
        uint64_t d = b->end_ns - b->begin_ns;
        if ((b->warmup && b->warmup != SSA_STEP_OUTLIER) || (double)d <= limit) continue;
        found++;
        struct ssa_outlier o = {b->number, d, d - s->median_ns, b->top_cat, 0, 0};
        if (r->steps) o.cat = excess_cat(r, s, i, &o.cat_excess_ns), o.excess = 1;
        keep_slowest(out, &kept, max, &o);
    }
    return found;
}

void ssa_summarize(const struct ssa_result *r, struct ssa_summary *s)
{
    memset(s, 0, sizeof *s);
    uint64_t *d = malloc((r->n_steps ? r->n_steps : 1) * sizeof *d);
    if (!d) return;
    uint64_t cat_total[SSA_CAT_COUNT] = {0};
    for (size_t i = 0; i < r->n_steps; i++) {
        const struct ssa_step_brief *b = &r->briefs[i];
        if (b->warmup) continue;
        d[s->steps++] = b->end_ns - b->begin_ns;
        s->total_ns += b->end_ns - b->begin_ns;
        if (!r->compact)
            for (int c = 0; c < SSA_CAT_COUNT; c++)
                cat_total[c] += r->steps[i].cat_ns[c];
    }
    if (r->compact) memcpy(cat_total, r->steady.cat_ns, sizeof cat_total);
    if (s->steps) {
        s->mean_ns = s->total_ns / s->steps;
        s->median_ns = ssa_quantile_u64(d, s->steps, 0.5);
        s->p10_ns = ssa_quantile_u64(d, s->steps, 0.1);
        s->p90_ns = ssa_quantile_u64(d, s->steps, 0.9);
        s->steps_per_s = s->mean_ns ? 1e9 / (double)s->mean_ns : 0;
        for (int c = 0; c < SSA_CAT_COUNT; c++) {
            s->cat_pct[c] = s->total_ns ? 100.0 * (double)cat_total[c] / (double)s->total_ns : 0;
            if (c < SSA_CAT_FIRST_IDLE) s->gpu_busy_pct += s->cat_pct[c];
        }
        summary_counts(r, s);
        /* a light recording keeps no kernel: its launches have no GPU work to compare */
        s->host_ahead = !ssa_env_light(&r->env) &&
                        s->launches_per_step >= SSA_AHEAD_MIN_LAUNCHES &&
                        s->gpu_ops_per_step < SSA_AHEAD_RATIO * s->launches_per_step;
        rec_cost(r, s);
    }
    free(d);
}
