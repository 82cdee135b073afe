/*
 * ssa_run.c — the whole run (issue #43): every step's time from the first marked step to the
 * last, inside a GPU window or not (step marks and host samples are recorded for the whole run,
 * GPU activity only in windows), and what the window's per-step view cannot see:
 *
 *   stalls   steps far above the run's usual step, grouped by the period they come back at
 *            (a checkpoint every 200 steps, DataLoader workers started anew each epoch)
 *   drift    the usual step growing over the run (a list that grows, memory that fragments)
 *
 * each priced in the run's own time and placed on the Python line the host samples of those
 * steps give (ssa_run_sample, pass 2). Only times are read to find them (ssa_run_plan, before
 * pass 2), so the samples of exactly those steps can be kept. Memory: 16 bytes and a flag a
 * step, and one cell per distinct stack and stretch.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ssa_host.h"
#include "ssa_internal.h"
#include "util/ss_error.h"

#define NS_PER_MS 1e6

/* ---- the series --------------------------------------------------------------------- */

/* The steps as built, before any filter (capture window, graph steps) leaves some out. */
int ssa_run_keep(struct ssa_result *res)
{
    struct ssa_run *run = &res->run;
    if (res->step_source == SSA_STEPS_NONE || res->n_steps == 0) return 0;
    run->number = malloc(res->n_steps * sizeof *run->number);
    run->begin_ns = malloc(res->n_steps * sizeof *run->begin_ns);
    run->flag = calloc(res->n_steps, 1);
    if (!run->number || !run->begin_ns || !run->flag) return SS_ENOMEM;
    for (size_t i = 0; i < res->n_steps; i++) {
        run->number[i] = res->briefs[i].number;
        run->begin_ns[i] = res->briefs[i].begin_ns;
    }
    run->n = res->n_steps;
    run->end_ns = res->briefs[res->n_steps - 1].end_ns;
    return 0;
}

/* One window: the steps i..j-1 of the series. */
static void add_window(struct ssa_run *run, size_t i, size_t j)
{
    if (run->n_windows < SSA_RUN_MAX_WINDOWS)
        run->windows[run->n_windows] = (struct ssa_run_window){.from = i, .to = j};
    run->n_windows++;
}

/* After the capture filter: which steps of the series the GPU recorded (the kept briefs are
 * a subsequence of the series, in order), as stretches. A trace without a window recorded
 * every step. */
void ssa_run_mark_windows(struct ssa_result *res)
{
    struct ssa_run *run = &res->run;
    size_t k = 0, open = SIZE_MAX;
    for (size_t i = 0; i < run->n; i++) {
        int in = !res->capture_window ||
                 (k < res->n_steps && res->briefs[k].begin_ns == run->begin_ns[i]);
        if (in && res->capture_window) k++;
        if (in && open == SIZE_MAX) open = i;
        if (!in && open != SIZE_MAX) add_window(run, open, i), open = SIZE_MAX;
    }
    if (open != SIZE_MAX) add_window(run, open, run->n);
}

/* Step i's time: to the next step's begin (gaps between steps are the run's time too). */
uint64_t ssa_run_step_ns(const struct ssa_run *run, size_t i)
{
    uint64_t end = i + 1 < run->n ? run->begin_ns[i + 1] : run->end_ns;
    return end > run->begin_ns[i] ? end - run->begin_ns[i] : 0;
}

uint64_t ssa_run_span_ns(const struct ssa_run *run)
{
    return run->n && run->end_ns > run->begin_ns[0] ? run->end_ns - run->begin_ns[0] : 0;
}

/* The first steps left out of the usual step (start-up, compiles, the allocator filling). */
static size_t run_skip(size_t n)
{
    size_t s = n / 20;
    return s < 3 ? 3 : s > 20 ? 20 : s;
}

/* Quantile q of the times of steps from..to-1 that are neither stalls nor recorded (scratch:
 * n). */
static uint64_t usual_q(const struct ssa_run *run, size_t from, size_t to, double q, uint64_t *v)
{
    size_t m = 0;
    for (size_t i = from; i < to; i++)
        if (!(run->flag[i] & (SSA_RUN_STALL | SSA_RUN_RECORDED))) v[m++] = ssa_run_step_ns(run, i);
    return m ? ssa_quantile_u64(v, m, q) : 0;
}

/* ---- stalls ------------------------------------------------------------------------ */

/* A stall: a step over the usual one by 8 spreads (MAD), half a step and 1 ms. */
static uint64_t stall_threshold(const struct ssa_run *run, size_t from, uint64_t *v)
{
    uint64_t med = usual_q(run, from, run->n, 0.5, v);
    size_t m = 0;
    for (size_t i = from; i < run->n; i++) {
        uint64_t t = ssa_run_step_ns(run, i);
        if (!(run->flag[i] & SSA_RUN_RECORDED)) v[m++] = t > med ? t - med : med - t;
    }
    double mad = 1.4826 * (double)ssa_quantile_u64(v, m, 0.5);
    double over = fmax(fmax(8.0 * mad, 0.5 * (double)med), NS_PER_MS);
    return med + (uint64_t)over;
}

/* Stall number x is on the grid of `every` steps through `anchor` (exactly: what a program
 * does every N steps falls on every N-th step, and a step or two off would take a neighbouring
 * set's stalls). */
static int on_grid(uint64_t x, uint64_t anchor, uint64_t every)
{
    return (x > anchor ? x - anchor : anchor - x) % every == 0;
}

/* How many stalls sit on a grid, and how much of the grid they fill between the first and
 * the last of them (a period's half fills half of its grid). */
static size_t grid_members(const size_t *ix, size_t n, const struct ssa_run *run, uint64_t every,
                           uint64_t anchor, double *filled)
{
    size_t m = 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t a = 0; a < n; a++) {
        uint64_t x = run->number[ix[a]];
        if (!on_grid(x, anchor, every)) continue;
        m++, lo = x < lo ? x : lo, hi = x > hi ? x : hi;
    }
    *filled = m ? (double)m / (double)((hi - lo + every / 2) / every + 1) : 0;
    return m;
}

#define SSA_RUN_GRID_FILL 0.7 /* a period's grid this full, at least */
#define SSA_RUN_GRID_TRIES 8  /* anchors (stalls) and gaps to the next ones tried */

/* The period (steps) that puts the most stalls on one grid, filled; 0 when none holds
 * SSA_RUN_MIN_PERIODIC. Candidates: the gaps from each of the first stalls to the next few. */
static uint64_t best_grid(const size_t *ix, size_t n, const struct ssa_run *run, uint64_t *anchor)
{
    uint64_t best = 0;
    size_t best_m = SSA_RUN_MIN_PERIODIC - 1;
    for (size_t a = 0; a < n && a < SSA_RUN_GRID_TRIES; a++) {
        for (size_t b = a + 1; b < n && b <= a + SSA_RUN_GRID_TRIES; b++) {
            uint64_t every = run->number[ix[b]] - run->number[ix[a]];
            double filled;
            if (every < 4) continue; /* neighbours are one long stall, not a period */
            size_t m = grid_members(ix, n, run, every, run->number[ix[a]], &filled);
            if (filled < SSA_RUN_GRID_FILL || m < best_m || (m == best_m && every >= best))
                continue;
            best = every, best_m = m, *anchor = run->number[ix[a]];
        }
    }
    return best;
}

/* Moves the stalls on the grid into set; the rest stay in ix. Returns how many stay. */
static size_t take_periodic(size_t *ix, size_t n, uint64_t every, uint64_t anchor,
                            const struct ssa_run *run, size_t *set)
{
    size_t kept = 0, m = 0;
    for (size_t a = 0; a < n; a++) {
        if (on_grid(run->number[ix[a]], anchor, every))
            set[m++] = ix[a];
        else
            ix[kept++] = ix[a];
    }
    return kept;
}

/* A set's numbers: its extra time over the usual step, and its share of the run. */
static void price_set(struct ssa_run *run, struct ssa_run_stalls *s, const size_t *set,
                      uint64_t usual, uint64_t *v)
{
    double extra = 0;
    for (size_t a = 0; a < s->count; a++) {
        uint64_t t = ssa_run_step_ns(run, set[a]);
        v[a] = t > usual ? t - usual : 0;
        extra += (double)v[a];
        run->flag[set[a]] |= (uint8_t)(SSA_RUN_SET0 << (s - run->stalls));
    }
    s->first_index = set[0];
    s->first_step = run->number[set[0]];
    s->last_step = run->number[set[s->count - 1]];
    s->extra_ms = extra / NS_PER_MS;
    s->each_ms = (double)ssa_quantile_u64(v, s->count, 0.5) / NS_PER_MS;
    uint64_t span = ssa_run_span_ns(run);
    s->share = span ? extra / (double)span : 0;
}

/* Groups the stalls ix[0..n) into sets: the periodic ones first, the rest as one. */
/* Whether the stalls of set[0..m) on every k-th point of their grid (offset j) all stand
 * above twice the others' largest: two things on nested periods (a save every 200 steps on an
 * epoch's start every 100). */
static int sub_grid_stands_out(const struct ssa_run *run, const size_t *set, size_t m,
                               uint64_t every, uint64_t anchor, uint64_t k, uint64_t j)
{
    uint64_t in_min = UINT64_MAX, out_max = 0;
    size_t in = 0;
    for (size_t a = 0; a < m; a++) {
        uint64_t x = run->number[set[a]], t = ssa_run_step_ns(run, set[a]);
        uint64_t pos = (x > anchor ? x - anchor : anchor - x) / every;
        if (pos % k == j)
            in++, in_min = t < in_min ? t : in_min;
        else
            out_max = t > out_max ? t : out_max;
    }
    if (in < SSA_RUN_MIN_PERIODIC || m - in < SSA_RUN_MIN_PERIODIC) return 0;
    return in_min - run->usual_ns > 2 * (out_max - run->usual_ns);
}

/* The median time of the stalls of ix[0..n) (their steps' whole time). */
static uint64_t median_of(const struct ssa_run *run, const size_t *ix, size_t n, uint64_t *v)
{
    for (size_t a = 0; a < n; a++)
        v[a] = ssa_run_step_ns(run, ix[a]);
    return n ? ssa_quantile_u64(v, n, 0.5) : 0;
}

/* Splits a periodic set whose every k-th stall stands out (sub_grid_stands_out): those keep
 * the set (every k x every), the others go back to ix for a set of their own. Returns the
 * set's period; *base, what the set's steps would take without it: the others' median (its
 * stalls fall on theirs, which the fix of this one leaves). */
static uint64_t split_nested(const struct ssa_run *run, size_t *set, size_t *m, size_t *ix,
                             size_t *left, uint64_t every, uint64_t anchor, uint64_t *base,
                             uint64_t *v)
{
    for (uint64_t k = 2; k <= 6; k++) {
        for (uint64_t j = 0; j < k; j++) {
            if (!sub_grid_stands_out(run, set, *m, every, anchor, k, j)) continue;
            size_t kept = 0;
            for (size_t a = 0; a < *m; a++) {
                uint64_t x = run->number[set[a]];
                if (((x > anchor ? x - anchor : anchor - x) / every) % k == j)
                    set[kept++] = set[a];
                else
                    ix[(*left)++] = set[a];
            }
            *base = median_of(run, ix + *left - (*m - kept), *m - kept, v);
            *m = kept;
            return every * k;
        }
    }
    return every;
}

static int cmp_size(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return (a > b) - (a < b);
}

static void group_stalls(struct ssa_run *run, size_t *ix, size_t n, uint64_t usual, uint64_t *v)
{
    size_t *set = malloc(n * sizeof *set);
    if (!set) return;
    while (n && run->n_stalls < SSA_RUN_MAX_STALLS) {
        uint64_t anchor = 0, every = n >= SSA_RUN_MIN_PERIODIC ? best_grid(ix, n, run, &anchor) : 0;
        size_t left = every ? take_periodic(ix, n, every, anchor, run, set) : n, m = n - left;
        uint64_t base = usual;
        struct ssa_run_stalls *s = &run->stalls[run->n_stalls++];
        if (left == n || run->n_stalls == SSA_RUN_MAX_STALLS) { /* the rest, irregular */
            memcpy(set, ix, n * sizeof *ix);
            left = 0, every = 0, m = n;
        } else {
            every = split_nested(run, set, &m, ix, &left, every, anchor, &base, v);
            qsort(ix, left, sizeof *ix, cmp_size); /* the order best_grid reads them in */
        }
        s->count = m;
        s->every = every;
        price_set(run, s, set, base, v);
        n = left;
    }
    free(set);
}

/* A set worth saying: stalls that come back and cost SSA_RUN_MIN_SHARE of the run, others
 * 4 times that (a one-off step is the window's outlier, not the run's pattern), one alone
 * SSA_RUN_ONE_SHARE. Their steps keep their flags (their samples are not read). */
/* Whether step i is inside a GPU window. */
static int in_a_window(const struct ssa_run *run, size_t i)
{
    for (size_t k = 0; k < run->n_windows && k < SSA_RUN_MAX_WINDOWS; k++)
        if (i >= run->windows[k].from && i < run->windows[k].to) return 1;
    return 0;
}

static void drop_small_sets(struct ssa_run *run)
{
    uint8_t to[SSA_RUN_MAX_STALLS] = {0}; /* a set's bit after the drop (0: dropped) */
    size_t kept = 0;
    for (size_t k = 0; k < run->n_stalls; k++) {
        const struct ssa_run_stalls *s = &run->stalls[k];
        double need = s->every       ? SSA_RUN_MIN_SHARE
                      : s->count > 1 ? 4 * SSA_RUN_MIN_SHARE
                                     : SSA_RUN_ONE_SHARE;
        /* one stall inside a GPU window is that window's outlier (said there) */
        if (s->share < need || (s->count == 1 && in_a_window(run, s->first_index))) continue;
        to[k] = (uint8_t)(SSA_RUN_SET0 << kept);
        run->stalls[kept++] = *s;
    }
    run->n_stalls = kept;
    for (size_t i = 0; i < run->n; i++) {
        uint8_t f = run->flag[i] & (uint8_t) ~((SSA_RUN_SET0 << SSA_RUN_MAX_STALLS) - SSA_RUN_SET0);
        for (size_t k = 0; k < SSA_RUN_MAX_STALLS; k++)
            if (run->flag[i] & (SSA_RUN_SET0 << k)) f |= to[k];
        run->flag[i] = f;
    }
}

static int find_stalls(struct ssa_run *run, size_t from, uint64_t *v)
{
    uint64_t thr = stall_threshold(run, from, v);
    size_t *ix = malloc(run->n * sizeof *ix), n = 0;
    if (!ix) return SS_ENOMEM;
    for (size_t i = from; i < run->n; i++) {
        if (ssa_run_step_ns(run, i) <= thr || (run->flag[i] & SSA_RUN_RECORDED)) continue;
        run->flag[i] |= SSA_RUN_STALL;
        ix[n++] = i;
    }
    run->usual_ns = usual_q(run, from, run->n, 0.5, v);
    group_stalls(run, ix, n, run->usual_ns, v);
    free(ix);
    drop_small_sets(run);
    return 0;
}

/* ---- drift ------------------------------------------------------------------------- */

/* Goodman and Kruskal's gamma of the stretch medians against their order: +1 when no later
 * stretch is below an earlier one (ties left out, so a run that slows at once, a step up, is
 * as much a trend as a slope), 0 for noise. */
static double trend(const uint64_t *med, size_t k)
{
    double up = 0, down = 0;
    for (size_t a = 0; a < k; a++)
        for (size_t b = a + 1; b < k; b++)
            up += med[b] > med[a], down += med[b] < med[a];
    return up + down > 0 ? (up - down) / (up + down) : 0;
}

/* The steps from `from` on that the GPU did not record, in order (what drift is read from: a
 * default recording's window covers most of the run's first tenth). Returns how many. */
static size_t unrecorded(const struct ssa_run *run, size_t from, size_t *ix)
{
    size_t m = 0;
    for (size_t i = from; i < run->n; i++)
        if (!(run->flag[i] & SSA_RUN_RECORDED)) ix[m++] = i;
    return m;
}

/* Stretch k of SSA_RUN_STRETCHES equal ones of ix[0..m): ix[*a..*b). */
static void stretch(size_t m, size_t k, size_t *a, size_t *b)
{
    size_t len = m / SSA_RUN_STRETCHES;
    *a = k * len, *b = k + 1 == SSA_RUN_STRETCHES ? m : *a + len;
}

/* The usual step of each stretch (stalls left out). */
static void stretch_medians(const struct ssa_run *run, const size_t *ix, size_t m,
                            uint64_t *med, uint64_t *v)
{
    for (size_t k = 0; k < SSA_RUN_STRETCHES; k++) {
        size_t a, b, n = 0;
        stretch(m, k, &a, &b);
        for (size_t j = a; j < b; j++)
            if (!(run->flag[ix[j]] & SSA_RUN_STALL)) v[n++] = ssa_run_step_ns(run, ix[j]);
        med[k] = n ? ssa_quantile_u64(v, n, 0.5) : 0;
    }
}

/* The extra time of the unrecorded steps that are not stalls over the first stretch's usual
 * step. */
static double drift_extra(const struct ssa_run *run, const size_t *ix, size_t m, uint64_t base)
{
    double extra = 0;
    for (size_t j = 0; j < m; j++) {
        uint64_t t = ssa_run_step_ns(run, ix[j]);
        if (!(run->flag[ix[j]] & SSA_RUN_STALL) && t > base) extra += (double)(t - base);
    }
    return extra;
}

/* Flags stretch k's steps with bit and says its first and last step numbers. */
static size_t flag_stretch(struct ssa_run *run, const size_t *ix, size_t m, size_t k,
                           uint8_t bit, uint64_t *first, uint64_t *last)
{
    size_t a, b;
    stretch(m, k, &a, &b);
    for (size_t j = a; j < b; j++) run->flag[ix[j]] |= bit;
    *first = run->number[ix[a]], *last = run->number[ix[b - 1]];
    return b - a;
}

static void drift_of(struct ssa_run *run, const size_t *ix, size_t m, uint64_t *v)
{
    uint64_t med[SSA_RUN_STRETCHES];
    stretch_medians(run, ix, m, med, v);
    struct ssa_run_drift *d = &run->drift;
    d->a_ms = (double)med[0] / NS_PER_MS;
    d->b_ms = (double)med[SSA_RUN_STRETCHES - 1] / NS_PER_MS;
    d->change = d->a_ms > 0 ? d->b_ms / d->a_ms - 1 : 0;
    d->trend = trend(med, SSA_RUN_STRETCHES);
    d->found = d->change >= SSA_RUN_DRIFT_MIN && d->trend >= SSA_RUN_TREND_MIN;
    if (!d->found) return;
    uint64_t span = ssa_run_span_ns(run);
    d->extra_ms = drift_extra(run, ix, m, med[0]) / NS_PER_MS;
    d->share = span ? d->extra_ms * NS_PER_MS / (double)span : 0;
    d->a_steps = flag_stretch(run, ix, m, 0, SSA_RUN_EARLY, &d->a_from, &d->a_to);
    d->b_steps = flag_stretch(run, ix, m, SSA_RUN_STRETCHES - 1, SSA_RUN_LATE, &d->b_from,
                              &d->b_to);
}

static int find_drift(struct ssa_run *run, size_t from, uint64_t *v)
{
    size_t *ix = malloc(run->n * sizeof *ix);
    if (!ix) return SS_ENOMEM;
    size_t m = unrecorded(run, from, ix);
    if (m >= SSA_RUN_MIN_DRIFT_STEPS) drift_of(run, ix, m, v);
    free(ix);
    return 0;
}

/* The steps GPU windows recorded and their edges (the whole run recorded is no window). The
 * switch lands at a step's begin: its cost is in the step before or the step itself. */
static void flag_recorded(struct ssa_run *run)
{
    for (size_t k = 0; k < run->n_windows && k < SSA_RUN_MAX_WINDOWS; k++) {
        const struct ssa_run_window *w = &run->windows[k];
        if (w->from == 0 && w->to == run->n) continue;
        for (size_t i = w->from ? w->from - 1 : 0; i <= w->to + 1 && i < run->n; i++)
            run->flag[i] |= SSA_RUN_RECORDED;
    }
}

/* Before pass 2: the stalls and the drift, from the steps' times alone. */
int ssa_run_plan(struct ssa_result *res)
{
    struct ssa_run *run = &res->run;
    size_t from = run_skip(run->n);
    /* a host that ran ahead of the GPU marks steps at its own pace, waiting in bursts at
     * its syncs: those waits are the GPU's steps, not stalls (the window is paced on the GPU) */
    if (run->n < 2 || res->gpu_paced) return 0;
    uint64_t *v = malloc(run->n * sizeof *v);
    if (!v) return SS_ENOMEM;
    flag_recorded(run);
    run->usual_ns = usual_q(run, 0, run->n, 0.5, v);
    if (run->n < from + SSA_RUN_MIN_STEPS) {
        free(v);
        return 0;
    }
    run->analysed_from = from;
    int rc = find_stalls(run, from, v);
    if (rc == 0) rc = find_drift(run, from, v);
    free(v);
    return rc;
}

/* ---- where: the host samples of the flagged steps ------------------------------------- */

/* The step of the series a time falls in, or SIZE_MAX. */
static size_t step_at(const struct ssa_run *run, uint64_t ts)
{
    if (!run->n || ts < run->begin_ns[0] || ts >= run->end_ns) return SIZE_MAX;
    size_t lo = 0, hi = run->n; /* the last begin <= ts */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (run->begin_ns[mid] <= ts)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

void ssa_run_fold(struct ssa_run *run, const struct ssa_step *st)
{
    size_t i = step_at(run, st->begin_ns);
    if (i == SIZE_MAX) return;
    for (size_t k = 0; k < run->n_windows && k < SSA_RUN_MAX_WINDOWS; k++) {
        struct ssa_run_window *w = &run->windows[k];
        if (i < w->from + SSA_RUN_WINDOW_SKIP || i >= w->to) continue;
        w->steps++;
        w->ns += st->end_ns - st->begin_ns;
        for (int c = 0; c < SSA_CAT_COUNT; c++)
            w->cat_ns[c] += st->cat_ns[c];
        return;
    }
}

/* Adds ns to the cell of (stretch class, stack). */
static int tally(struct ssa_runacc *acc, unsigned cls, uint32_t stack, uint64_t ns)
{
    uint32_t key = stack * SSA_RUN_CLASSES + cls;
    uint32_t *slot = ssa_idmap_get(&acc->index, key);
    if (!slot) {
        if (acc->n == acc->cap) {
            size_t cap = acc->cap ? acc->cap * 2 : 64;
            struct ssa_runcell *c = realloc(acc->cells, cap * sizeof *c);
            if (!c) return SS_ENOMEM;
            acc->cells = c, acc->cap = cap;
        }
        acc->cells[acc->n] = (struct ssa_runcell){stack, cls, 0};
        slot = ssa_idmap_put(&acc->index, key, (uint32_t)acc->n++);
        if (!slot) return SS_ENOMEM;
    }
    acc->cells[*slot].ns += ns;
    return 0;
}

/* Pass 2: a counted thread's sample (stack: index + 1 into the stream's table). */
int ssa_run_sample(struct ssa_runacc *acc, const struct ssa_run *run, uint32_t stack,
                   uint64_t ts_ns, uint64_t weight_ns)
{
    size_t i = step_at(run, ts_ns);
    if (i == SIZE_MAX || !run->flag[i] || !stack || stack - 1 >= UINT32_MAX / SSA_RUN_CLASSES)
        return 0;
    int rc = 0;
    for (unsigned c = 0; c < SSA_RUN_CLASSES && rc == 0; c++)
        if (run->flag[i] & (SSA_RUN_SET0 << c)) rc = tally(acc, c, stack - 1, weight_ns);
    return rc;
}

void ssa_runacc_free(struct ssa_runacc *acc)
{
    ssa_idmap_free(&acc->index);
    free(acc->cells);
    memset(acc, 0, sizeof *acc);
}

/* ---- where: after pass 2 -------------------------------------------------------------- */

/* Where a stall's samples point: a part of a frame's file path and function ("" any). The
 * first row that matches a sample's stack names its cause (the set's cause is the one with
 * the most sampled time; an epoch's restart also waits for the first batch, so it wins from
 * SSA_RUN_EPOCH_SHARE of the time). */
static const struct run_pattern {
    const char *path, *fn;
    int cause;
} k_causes[] = {
    {"/torch/serialization.py", "", SSA_RUNC_CHECKPOINT},
    {"/torch/distributed/checkpoint/", "", SSA_RUNC_CHECKPOINT},
    {"/safetensors/", "", SSA_RUNC_CHECKPOINT},
    {"/torch/utils/data/dataloader.py", "__iter__", SSA_RUNC_EPOCH},
    {"/torch/utils/data/dataloader.py", "_get_iterator", SSA_RUNC_EPOCH},
    {"/torch/utils/data/dataloader.py", "__init__", SSA_RUNC_EPOCH},
    {"/torch/utils/data/dataloader.py", "_reset", SSA_RUNC_EPOCH},
    {"/torch/utils/data/", "", SSA_RUNC_DATA},
    {"/torch/_dynamo/", "", SSA_RUNC_COMPILE},
    {"/torch/_inductor/", "", SSA_RUNC_COMPILE},
    {"/logging/", "", SSA_RUNC_LOGGING},
    {"/tqdm/", "", SSA_RUNC_LOGGING},
    {"/wandb/", "", SSA_RUNC_LOGGING},
    {"/tensorboard", "", SSA_RUNC_LOGGING},
    {"", "evaluat", SSA_RUNC_EVAL},
    {"", "validat", SSA_RUNC_EVAL},
};
#define SSA_RUN_EPOCH_SHARE 0.15

static int frame_matches(const struct ssa_pyframe *f, const struct run_pattern *p)
{
    return f->file && strstr(f->file, p->path) &&
           (!*p->fn || (f->function && strstr(f->function, p->fn)));
}

/* The cause a stack's frames name (leaf first: the innermost match wins). */
static int stack_cause(const struct ssa_pytab *t, uint32_t stack)
{
    const struct ssa_pystack *st = &t->stacks[stack];
    for (uint32_t k = 0; k < st->depth; k++) {
        const struct ssa_pyframe *f = &t->frames[t->stack_frames[st->off + k]];
        for (size_t p = 0; p < sizeof k_causes / sizeof *k_causes; p++)
            if (frame_matches(f, &k_causes[p])) return k_causes[p].cause;
    }
    return SSA_RUNC_CODE;
}

/* A class's sampled time by cause; the winning cause, and its time in *ns. */
static int class_cause(const struct ssa_runacc *acc, const struct ssa_pytab *t, unsigned cls,
                       double *ns)
{
    double by[SSA_RUNC_COUNT] = {0}, all = 0;
    for (size_t i = 0; i < acc->n; i++) {
        if (acc->cells[i].cls != cls || acc->cells[i].stack >= t->n_stacks) continue;
        by[stack_cause(t, acc->cells[i].stack)] += (double)acc->cells[i].ns;
        all += (double)acc->cells[i].ns;
    }
    int best = SSA_RUNC_UNKNOWN;
    for (int c = 1; c < SSA_RUNC_COUNT; c++)
        if (by[c] > by[best]) best = c;
    if (all > 0 && by[SSA_RUNC_EPOCH] >= SSA_RUN_EPOCH_SHARE * all) best = SSA_RUNC_EPOCH;
    *ns = by[best];
    return best;
}

struct run_spot {
    uint32_t frame, lib;
    double ns;
};

static int cmp_run_spot(const void *x, const void *y)
{
    const struct run_spot *a = x, *b = y;
    if (a->frame != b->frame) return a->frame < b->frame ? -1 : 1;
    return (a->lib > b->lib) - (a->lib < b->lib);
}

/* A class's cells of `cause` (SSA_RUNC_UNKNOWN: any) as (line, library frame), sorted. */
static size_t class_spots(const struct ssa_runacc *acc, const struct ssa_host *h, unsigned cls,
                          int cause, struct run_spot *v)
{
    size_t n = 0;
    for (size_t i = 0; i < acc->n; i++) {
        const struct ssa_runcell *c = &acc->cells[i];
        if (c->cls != cls || c->stack >= h->tab.n_stacks) continue;
        if (cause != SSA_RUNC_UNKNOWN && stack_cause(&h->tab, c->stack) != cause) continue;
        uint32_t lib, frame = ssa_host_stack_line(h, c->stack, &lib);
        if (frame != UINT32_MAX) v[n++] = (struct run_spot){frame, lib, (double)c->ns};
    }
    qsort(v, n, sizeof *v, cmp_run_spot);
    return n;
}

/* The line (and library frame) with the most of a class's time among its stacks of `cause`
 * (SSA_RUNC_UNKNOWN: any), the time of the stacks that share a line summed. */
static struct ssa_run_where top_line(const struct ssa_runacc *acc, const struct ssa_host *h,
                                     unsigned cls, int cause, struct run_spot *v)
{
    struct ssa_run_where best = {0};
    size_t n = class_spots(acc, h, cls, cause, v);
    for (size_t a = 0, b; a < n; a = b) {
        double ns = 0;
        for (b = a; b < n && !cmp_run_spot(&v[a], &v[b]); b++)
            ns += v[b].ns;
        if (ns <= best.ns) continue;
        best = (struct ssa_run_where){v[a].frame + 1, v[a].lib == UINT32_MAX ? 0 : v[a].lib + 1,
                                      cause, ns};
    }
    return best;
}

/* Each stall set's cause and line: per stall, the sampled time there. */
static void stall_wheres(struct ssa_run *run, const struct ssa_runacc *acc,
                         const struct ssa_host *h, struct run_spot *v)
{
    for (size_t k = 0; k < run->n_stalls && k < SSA_RUN_MAX_STALLS; k++) {
        struct ssa_run_stalls *s = &run->stalls[k];
        double cause_ns;
        int cause = class_cause(acc, &h->tab, (unsigned)k, &cause_ns);
        s->cause_ms = s->count ? cause_ns / NS_PER_MS / (double)s->count : 0;
        s->where = top_line(acc, h, (unsigned)k, cause, v);
        s->where.cause = cause;
        s->where_ms = s->count ? s->where.ns / NS_PER_MS / (double)s->count : 0;
    }
}

/* The drift's line: the one whose sampled time a step grew the most from the first stretch
 * to the last (both summed per line; spots of the early stretch count negative). */
static void drift_where(struct ssa_run *run, const struct ssa_runacc *acc, const struct ssa_host *h,
                        struct run_spot *v)
{
    struct ssa_run_drift *d = &run->drift;
    size_t n = class_spots(acc, h, SSA_RUN_CLASS_EARLY, SSA_RUNC_UNKNOWN, v);
    for (size_t i = 0; i < n; i++)
        v[i].ns = -v[i].ns / (double)d->a_steps;
    n += class_spots(acc, h, SSA_RUN_CLASS_LATE, SSA_RUNC_UNKNOWN, v + n);
    for (size_t i = 0; i < n; i++)
        if (v[i].ns > 0) v[i].ns /= (double)d->b_steps;
    qsort(v, n, sizeof *v, cmp_run_spot);
    double best = 0;
    for (size_t a = 0, b; a < n; a = b) {
        double grew = 0, late = 0;
        for (b = a; b < n && !cmp_run_spot(&v[a], &v[b]); b++)
            grew += v[b].ns, late += v[b].ns > 0 ? v[b].ns : 0;
        if (grew <= best) continue;
        best = grew;
        d->where = (struct ssa_run_where){v[a].frame + 1, v[a].lib == UINT32_MAX ? 0 : v[a].lib + 1,
                                          SSA_RUNC_GROWTH, late};
        d->where_b_ms = late / NS_PER_MS, d->where_a_ms = (late - grew) / NS_PER_MS;
    }
}

/* After the host samples are final (ssa_host_finish): where the stalls and the drift went. */
int ssa_run_finish(struct ssa_runacc *acc, struct ssa_result *res)
{
    struct ssa_run *run = &res->run;
    if (!acc->n) return 0;
    struct run_spot *v = malloc(acc->n * sizeof *v);
    if (!v) return SS_ENOMEM;
    stall_wheres(run, acc, &res->host, v);
    if (run->drift.found) drift_where(run, acc, &res->host, v);
    free(v);
    return 0;
}

void ssa_run_free(struct ssa_run *run)
{
    free(run->number);
    free(run->begin_ns);
    free(run->flag);
    memset(run, 0, sizeof *run);
}

#define SSA_RUNC_ROW(id, name, words, fix) {name, words, fix},
static const struct ssa_run_cause_info k_cause_info[] = {SSA_RUN_CAUSES(SSA_RUNC_ROW)};
#undef SSA_RUNC_ROW

const struct ssa_run_cause_info *ssa_run_cause(int cause)
{
    return &k_cause_info[cause >= 0 && cause < SSA_RUNC_COUNT ? cause : SSA_RUNC_UNKNOWN];
}
