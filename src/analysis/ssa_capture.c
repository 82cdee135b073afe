/*
 * ssa_capture.c — which steps the trace recorded GPU activity for.
 *
 * `stepscope record --capture steps:A-B | seconds:A-B` records GPU activity inside the window
 * only; NVTX, step markers and host samples cover the whole run. A step outside the window has
 * no kernel record, so counting it would call the GPU idle there. Likewise while torch.profiler
 * held CUPTI (CAPTURE off/on, reason taken_over). Pass 1 keeps the CAPTURE records that switch
 * GPU recording (at most SSA_MAX_CAPTURES); ssa_capture_filter then keeps only the steps that
 * lie within a recorded stretch. Traces without such records (imports, synthetic traces, a
 * collector that never started CUPTI) keep every step.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ssa_internal.h"
#include "trace/sst_window.h"
#include "util/ss_error.h"
#include "util/ss_num.h"

/* Appends one event to *v (*n events, room for *cap) unless it holds max already (then sets
 * *overflow). 0 or SS_ENOMEM. */
static int add_event(struct ssa_cap_event **v, size_t *n, size_t *cap, size_t max,
                     const struct sst_rec_capture *c, int *overflow)
{
    if (*n == max) {
        *overflow = 1;
        return 0;
    }
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        struct ssa_cap_event *nv = realloc(*v, ncap * sizeof *nv);
        if (!nv) return SS_ENOMEM;
        *v = nv, *cap = ncap;
    }
    (*v)[(*n)++] = (struct ssa_cap_event){c->ts_ns, c->on, c->reason};
    return 0;
}

/* ---- the GPU still busy with work queued before a window opened ----
 *
 * A window that opens while the GPU still runs work the host queued before it (a GPU-bound
 * program whose host runs a step ahead) records none of that work: the GPU looks idle until
 * the queue drains, and the first step reads as waiting (hf_gpt2_loop_item_fp32 in the zoo:
 * its first window step 33 % busy, its idle priced as sync; the first recorded copy started
 * 63 ms after its own launch call). A late first record alone does not tell it: after
 * CUPTI's re-enable a launch-bound window's first kernel starts 1.26 ms after the open with
 * the GPU idle (tests/fixtures/h200-1201/window). What does is the first recorded
 * operation's queue delay, its start against the end of the call that launched it: microseconds
 * on an idle GPU. Over SSA_QUEUED_OPEN_NS, the window's recorded stretch starts at that
 * operation's start, and the steps before it are left out like steps outside the window.
 * Pass 1 keeps, per window (at most SSA_OPEN_SLOTS), its first operation and the first
 * SSA_OPEN_CALLS calls after it opened. */
#define SSA_OPEN_SLOTS 16
#define SSA_OPEN_CALLS 256
#define SSA_QUEUED_OPEN_NS 1000000u
struct ssa_open_slot {
    uint64_t on_ns, first_start;
    uint32_t first_corr, n_calls;
    struct {
        uint32_t corr;
        uint64_t end_ns;
    } calls[SSA_OPEN_CALLS];
};

static int open_slot_add(struct ssa_scan *sc, uint64_t on_ns)
{
    if (!sc->open && !(sc->open = calloc(SSA_OPEN_SLOTS, sizeof *sc->open))) return SS_ENOMEM;
    if (sc->n_open == SSA_OPEN_SLOTS) return 0;
    sc->open[sc->n_open++] = (struct ssa_open_slot){.on_ns = on_ns, .first_start = UINT64_MAX};
    return 0;
}

/* The window open at t (the latest slot opened at or before t), or NULL. */
static struct ssa_open_slot *open_slot_at(struct ssa_scan *sc, uint64_t t)
{
    for (size_t i = sc->n_open; i-- > 0;)
        if (sc->open[i].on_ns <= t) return &sc->open[i];
    return NULL;
}

void ssa_capture_gpu_op(struct ssa_scan *sc, uint64_t start_ns, uint32_t corr)
{
    struct ssa_open_slot *o = open_slot_at(sc, start_ns);
    if (o && start_ns < o->first_start) o->first_start = start_ns, o->first_corr = corr;
}

void ssa_capture_api(struct ssa_scan *sc, const struct sst_rec_api *a)
{
    struct ssa_open_slot *o = open_slot_at(sc, a->start_ns);
    if (o && o->n_calls < SSA_OPEN_CALLS)
        o->calls[o->n_calls].corr = a->correlation, o->calls[o->n_calls++].end_ns = a->end_ns;
}

/* The time window o's GPU was still running earlier work until (0: it was not). */
static uint64_t queued_until(const struct ssa_open_slot *o)
{
    if (o->first_start == UINT64_MAX || !o->first_corr) return 0; /* CUPTI's ids start at 1 */
    for (uint32_t i = 0; i < o->n_calls; i++)
        if (o->calls[i].corr == o->first_corr && o->calls[i].end_ns < o->first_start &&
            o->first_start - o->calls[i].end_ns > SSA_QUEUED_OPEN_NS)
            return o->first_start;
    return 0;
}

/* Starts each recorded stretch where its GPU finished the work queued before it; returns
 * whether one moved. */
static int skip_queued_work(struct ssa_scan *sc)
{
    int moved = 0;
    for (size_t i = 0; i < sc->n_open; i++) {
        uint64_t until = queued_until(&sc->open[i]);
        for (size_t k = 0; until && k < sc->n_rec; k++)
            if (sc->rec[k].from <= sc->open[i].on_ns && sc->open[i].on_ns < sc->rec[k].to &&
                until > sc->rec[k].from && until < sc->rec[k].to)
                sc->rec[k].from = until, moved = 1;
    }
    return moved;
}

int ssa_capture_note(struct ssa_scan *sc, const struct sst_rec_capture *c)
{
    if ((c->what & SST_CAPTURE_GPU) && c->on) {
        int rc = open_slot_add(sc, c->ts_ns);
        if (rc) return rc;
    }
    if (c->what & SST_CAPTURE_LAUNCHES) {
        int rc = add_event(&sc->lcap, &sc->n_lcap, &sc->lcap_cap, SSA_MAX_LAUNCH_CAPTURES, c,
                           &sc->lcap_overflow);
        if (rc) return rc;
    }
    if (!(c->what & SST_CAPTURE_GPU)) return 0;
    return add_event(&sc->cap, &sc->n_cap, &sc->cap_cap, SSA_MAX_CAPTURES, c, &sc->cap_overflow);
}

/* 1 when the collector's window opened after the start (ENV collector.window, what "auto" came
 * to, else collector.capture: "steps:A-B" or "seconds:A-B" with A > 0, in the grammar the
 * collector read it with: src/trace/sst_window.h): its START record then says CUPTI started,
 * not that it recorded. */
static int window_opens_late(const struct ssa_result *r)
{
    const char *v = ssa_env_value(&r->env, "collector.window");
    if (!v) v = ssa_env_value(&r->env, "collector.capture");
    struct sst_window w;
    if (!v || sst_window_parse(v, &w) != 0) return 0;
    return (w.kind == SST_WINDOW_STEPS || w.kind == SST_WINDOW_SECONDS) && w.from > 0;
}

#define SSA_WINDOW_ROW(id, token, words) {token, words},
static const struct {
    const char *token, *words;
} k_openers[] = {SSA_WINDOW_OPENERS(SSA_WINDOW_ROW)};
#undef SSA_WINDOW_ROW

const char *ssa_window_opener_token(int opener)
{
    return opener >= 0 && opener < SSA_WINDOW_OPENER_COUNT ? k_openers[opener].token : "";
}

const char *ssa_window_opener_words(int opener)
{
    return opener >= 0 && opener < SSA_WINDOW_OPENER_COUNT ? k_openers[opener].words : "";
}

/* ENV collector.window_opened's token as an opener; the step for none or one unknown. */
static int window_opener(const struct ssa_result *r)
{
    const char *v = ssa_env_value(&r->env, "collector.window_opened");
    for (int i = 1; v && i < SSA_WINDOW_OPENER_COUNT; i++)
        if (strcmp(v, k_openers[i].token) == 0) return i;
    return SSA_WINDOW_AT_STEP;
}

static int cmp_event(const void *x, const void *y)
{
    const struct ssa_cap_event *a = x, *b = y;
    return a->t < b->t ? -1 : a->t > b->t;
}

/* Appends [from, to) to the recorded stretches (sc->rec, at most n_cap + 1 of them). */
static void add_stretch(struct ssa_scan *sc, uint64_t from, uint64_t to)
{
    if (to > from) sc->rec[sc->n_rec++] = (struct ssa_stretch){from, to};
}

/* Recording = CUPTI ours (START, TAKEN_OVER, CONFLICT, ERROR and EXIT switch it) and the
 * window open (WINDOW switches it; open from the start unless it opens late). */
static int build_stretches(struct ssa_scan *sc, int late)
{
    sc->rec = malloc((sc->n_cap + 1) * sizeof *sc->rec);
    if (!sc->rec) return SS_ENOMEM;
    qsort(sc->cap, sc->n_cap, sizeof *sc->cap, cmp_event);
    /* the first collectors wrote no START for the GPU: an "off" first means it was on */
    int ours = !sc->cap[0].on, open = !late;
    uint64_t since = 0;
    for (size_t i = 0; i < sc->n_cap; i++) {
        const struct ssa_cap_event *e = &sc->cap[i];
        int was = ours && open;
        if (e->reason == SST_CAP_WINDOW)
            open = e->on;
        else
            ours = e->on;
        int now = ours && open;
        if (now && !was) since = e->t;
        if (was && !now) add_stretch(sc, since, e->t);
    }
    if (ours && open) add_stretch(sc, since, UINT64_MAX);
    return 0;
}

/* Whether any of step b lies in a recorded stretch. */
static int step_touches_record(const struct ssa_scan *sc, const struct ssa_step_brief *b)
{
    for (size_t i = 0; i < sc->n_rec; i++)
        if (b->begin_ns < sc->rec[i].to && b->end_ns > sc->rec[i].from) return 1;
    return 0;
}

/* A step counts when at least 99 % of it lies in one recorded stretch: the window opens a few
 * microseconds after the step marker that opens it. */
static int step_in(const struct ssa_stretch *rec, size_t n_rec, const struct ssa_step_brief *b)
{
    uint64_t d = b->end_ns - b->begin_ns;
    for (size_t i = 0; i < n_rec; i++) {
        if (d == 0 && b->begin_ns >= rec[i].from && b->begin_ns < rec[i].to) return 1;
        uint64_t s = b->begin_ns > rec[i].from ? b->begin_ns : rec[i].from;
        uint64_t e = b->end_ns < rec[i].to ? b->end_ns : rec[i].to;
        if (e > s && (e - s) >= d - d / 100) return 1;
    }
    return 0;
}

static int step_recorded(const struct ssa_scan *sc, const struct ssa_step_brief *b)
{
    return step_in(sc->rec, sc->n_rec, b);
}

/* Whether the GPU's CAPTURE records say anything about steps: not when another tool held
 * CUPTI from the start (the report says so instead), nor when nothing was ever recorded
 * without a window to blame (CUPTI unavailable). */
static int capture_applies(const struct ssa_scan *sc, int late)
{
    int window = late;
    for (size_t i = 0; i < sc->n_cap; i++) {
        if (sc->cap[i].reason == SST_CAP_CONFLICT) return 0;
        window |= sc->cap[i].reason == SST_CAP_WINDOW;
    }
    return sc->n_rec > 0 || window;
}

/* The recording's own cost, measured in this trace (issue #18): the window's steps ran
 * recorded, those before it opened or after CUPTI was detached ran with the collector
 * loaded but CUPTI idle or gone (as fast as plain: docs/performance.md), both marked on the
 * host by the same markers. The first SSA_BASELINE_SKIP steps of the run (warm-up) and the
 * first step after the window (the GPU drains what the window queued) are left out, and so
 * is every step when another tool took CUPTI over (its own cost is in those steps). Steps after
 * the window do not count when CUPTI stayed attached (ENV cupti.detached "off":
 * STEPSCOPE_CUPTI_DETACH=0, or "failed"): with its kinds off it still costs most of what it did
 * inside, and such a baseline would price the recording at nearly nothing. */
#define SSA_BASELINE_SKIP 3
#define SSA_BASELINE_MIN 5

/* Unrecorded steps a baseline needs: 4, as a program that marks no step 0 (no DataLoader) has
 * only steps 4-7 between the warm-up it skips and the auto window at step 8. */
#define SSA_BASELINE_MIN_UNRECORDED 4

static int window_only(const struct ssa_scan *sc)
{
    for (size_t i = 0; i < sc->n_cap; i++)
        if (sc->cap[i].reason == SST_CAP_CONFLICT || sc->cap[i].reason == SST_CAP_TAKEN_OVER)
            return 0;
    return 1;
}

static void quartiles(uint64_t *v, size_t n, uint64_t q[3])
{
    q[0] = ssa_quantile_u64(v, n, 0.25), q[1] = ssa_quantile_u64(v, n, 0.5);
    q[2] = ssa_quantile_u64(v, n, 0.75);
}

/* ---- launch sampling --------------------------------------------------------------------
 * Kernel launch calls recorded in one step of N (STEPSCOPE_LAUNCH_SAMPLE): the collector
 * switches them at a step's begin and says so (CAPTURE, what LAUNCHES, reason SAMPLED). A step
 * without them looks as if its host never launched (its launch time would read as host work,
 * its launches as none), so only the sampled steps count; they are also the ones that carry
 * the callbacks' cost the report prices. The switch comes a few microseconds after the step's
 * marker, so a step is sampled when launches were on at its middle (short steps too). */

static uint32_t launch_sample_every(const struct ssa_result *r)
{
    const char *v = ssa_env_value(&r->env, "collector.launch_sample");
    unsigned long n = v ? strtoul(v, NULL, 10) : 0;
    return n > 1 && n <= 1000 ? (uint32_t)n : 0;
}

/* Launches recorded = on until the first event, then as the events say. */
static int build_launch_stretches(struct ssa_scan *sc)
{
    sc->lrec = malloc((sc->n_lcap + 1) * sizeof *sc->lrec);
    if (!sc->lrec) return SS_ENOMEM;
    qsort(sc->lcap, sc->n_lcap, sizeof *sc->lcap, cmp_event);
    int on = 1;
    uint64_t since = 0;
    for (size_t i = 0; i < sc->n_lcap; i++) {
        const struct ssa_cap_event *e = &sc->lcap[i];
        if (e->on && !on) since = e->t;
        if (!e->on && on && e->t > since)
            sc->lrec[sc->n_lrec++] = (struct ssa_stretch){since, e->t};
        on = e->on;
    }
    if (on) sc->lrec[sc->n_lrec++] = (struct ssa_stretch){since, UINT64_MAX};
    return 0;
}

/* Stretches in time order: how many start at or before t (the last of them is the one that
 * may hold t). A binary search: a long run with launch sampling has hundreds of thousands. */
static size_t stretches_from(const struct ssa_stretch *v, size_t n, uint64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].from <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int launches_sampled(const struct ssa_scan *sc, const struct ssa_step_brief *b)
{
    if (!sc->lrec) return 1;
    uint64_t mid = b->begin_ns + (b->end_ns - b->begin_ns) / 2;
    size_t k = stretches_from(sc->lrec, sc->n_lrec, mid);
    return k > 0 && mid < sc->lrec[k - 1].to;
}

/* Builds the stretches when the trace sampled launches; none (every step counts) without
 * launch records or past SSA_MAX_LAUNCH_CAPTURES of them. */
static int launch_sampling(struct ssa_scan *sc, struct ssa_result *res)
{
    res->launch_sample = launch_sample_every(res);
    if (!sc->n_lcap || sc->lcap_overflow) return 0;
    return build_launch_stretches(sc);
}

/* What recording launch calls costs, inside one process: each sampled step against the mean
 * of the unsampled steps right before and after it (host-marked, before GPU pacing). Its
 * neighbours cancel the drift that moves whole runs and the two ends of one run: on a noisy
 * host three runs agreed within a quarter of a millisecond this way, where the medians of the
 * two sets spread over 3 ms (docs/performance.md, "Launch sampling").
 * Signed differences go through the u64 quantiles offset by 2^63, which keeps their order. */
#define PAIR_BIAS (UINT64_C(1) << 63)

static void launch_pairs(struct ssa_result *res, const uint8_t *on, uint64_t *d)
{
    const struct ssa_step_brief *b = res->briefs;
    size_t n = 0;
    for (size_t i = SSA_BASELINE_SKIP; i + 1 < res->n_steps; i++) {
        if (!on[i] || on[i - 1] || on[i + 1] || b[i].warmup) continue;
        if (b[i - 1].number + 1 != b[i].number || b[i].number + 1 != b[i + 1].number) continue;
        double side = ((double)(b[i - 1].end_ns - b[i - 1].begin_ns) +
                       (double)(b[i + 1].end_ns - b[i + 1].begin_ns)) / 2;
        double excess = (double)(b[i].end_ns - b[i].begin_ns) - side;
        d[n++] = (uint64_t)ss_i64_clamped(excess) + PAIR_BIAS;
    }
    if (n < SSA_BASELINE_MIN) return;
    uint64_t q[3];
    quartiles(d, n, q);
    for (int k = 0; k < 3; k++)
        res->launch_pair_q[k] = (int64_t)(q[k] - PAIR_BIAS);
    res->n_launch_pairs = n;
}

/* Keeps the sampled steps, unless none is (then every step, rather than nothing), having
 * measured the launch calls' cost on them. Steps from graph replays are kept: their launches
 * (graph launches) are recorded in every step. 0 or SS_ENOMEM. */
int ssa_capture_drop_unsampled(const struct ssa_scan *sc, struct ssa_result *res)
{
    if (res->step_source == SSA_STEPS_GRAPHS || !sc->lrec || !res->n_steps) return 0;
    size_t n = res->n_steps, kept = 0;
    uint8_t *on = malloc(n);
    uint64_t *d = malloc(n * sizeof *d);
    if (!on || !d) return free(on), free(d), SS_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        on[i] = (uint8_t)launches_sampled(sc, &res->briefs[i]);
        kept += on[i];
    }
    if (kept) {
        launch_pairs(res, on, d);
        res->launch_unsampled = n - kept;
        res->n_steps = 0;
        for (size_t i = 0; i < n; i++)
            if (on[i]) res->briefs[res->n_steps++] = res->briefs[i];
    }
    free(on);
    free(d);
    return 0;
}

/* A baseline step is steady when it is no slower than the recorded steps' spread allows
 * (Tukey's far-out fence, q3 + 3 IQR, at least 1.5 q3: a host under load moves short steps by
 * tens of percent): recording only slows a step, so one beyond that is warm-up (allocator,
 * cuDNN/cuBLAS heuristics) or a stall, not a measure of the program's plain speed (issue #39:
 * steps 3-7 at 109 ms against 11.2 recorded). Keeps the steady ones at the front of out;
 * returns how many. */
static size_t keep_steady(uint64_t *out, size_t n_out, const uint64_t rec_q[3])
{
    double iqr = (double)rec_q[2] - (double)rec_q[0];
    double fence = (double)rec_q[2] + 3 * iqr, floor = 1.5 * (double)rec_q[2];
    if (fence < floor) fence = floor;
    size_t kept = 0;
    for (size_t i = 0; i < n_out; i++)
        if ((double)out[i] <= fence) out[kept++] = out[i];
    return kept;
}

/* in/out: the recorded and unrecorded steps' durations. Judges the unrecorded ones as a
 * baseline and keeps the quartiles of both when it is usable. */
static void judge_baseline(struct ssa_result *res, uint64_t *in, size_t n_in, uint64_t *out,
                           size_t n_out)
{
    if (n_in < SSA_BASELINE_MIN || n_out < SSA_BASELINE_MIN_UNRECORDED) return;
    quartiles(in, n_in, res->rec_q);
    res->n_unrecorded = n_out;
    res->unrecorded_median_ns = ssa_quantile_u64(out, n_out, 0.5);
    size_t steady = keep_steady(out, n_out, res->rec_q);
    res->n_baseline_unsteady = n_out - steady;
    if (steady < SSA_BASELINE_MIN_UNRECORDED) {
        res->baseline_verdict = SSA_BASELINE_UNSTEADY;
        return;
    }
    quartiles(out, steady, res->base_q);
    res->n_recorded = n_in, res->n_baseline = steady;
    res->baseline_verdict = SSA_BASELINE_USED;
}

/* Several windows (--capture every:..., auto's re-windows): a program whose pace changed
 * between them (the reason auto opens another) would read the change as the recording's cost
 * when the windows' steps are held to every unrecorded step (a loop that went from 6 to 14 ms
 * read 4.2 ms of cost). So each window is held to the unrecorded steps beside it (those within
 * its own length, at least SSA_NEAR_MIN steps, before it opened or after it closed; a step
 * between two windows goes to the nearer), both sets moved by what separates that
 * neighbourhood's median from the run's: the quartiles then measure each window's own excess.
 * One window keeps every unrecorded step: with auto's window at step 8 few come before it. */
#define SSA_NEAR_MIN 20

struct cost_split {
    uint8_t *rec;    /* the step ran recorded */
    uint32_t *owner; /* the window (1-based) a step belongs or is held to; 0: none */
    size_t windows;
};

/* Runs of recorded steps, numbered from 1; returns how many. */
static size_t number_windows(const uint8_t *rec, size_t n, uint32_t *owner)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        w += rec[i] && (i == 0 || !rec[i - 1]);
        owner[i] = rec[i] ? (uint32_t)w : 0;
    }
    return w;
}

/* Gives each unrecorded step within reach of a window (the nearer when two are) to it. */
static void hold_neighbours(const uint8_t *rec, size_t n, uint32_t *owner)
{
    size_t *dist = malloc(n * sizeof *dist);
    if (!dist) return; /* then only the window's own steps: no baseline, said as such */
    for (size_t i = 0; i < n; i++) dist[i] = SIZE_MAX;
    for (size_t i = 0; i < n;) {
        if (!rec[i]) { i++; continue; }
        size_t j = i;
        while (j < n && rec[j]) j++;
        size_t reach = j - i > SSA_NEAR_MIN ? j - i : SSA_NEAR_MIN;
        uint32_t w = owner[i];
        for (size_t k = i > reach ? i - reach : 0; k < i; k++)
            if (i - k < dist[k]) dist[k] = i - k, owner[k] = w;
        for (size_t k = j; k < n && k < j + reach; k++)
            if (k - j + 1 < dist[k]) dist[k] = k - j + 1, owner[k] = w;
        i = j;
    }
    free(dist);
}

static int cupti_detached(const struct ssa_result *res)
{
    const char *det = ssa_env_value(&res->env, "cupti.detached");
    return !det || (strcmp(det, "off") != 0 && strcmp(det, "failed") != 0);
}

/* in/out get the recorded and unrecorded steps that measure the cost; their windows in
 * in_w/out_w (1-based; 0 for every step when there is one window). */
static void split_steps(const struct ssa_scan *sc, struct ssa_result *res,
                        const struct cost_split *cs, uint64_t *in, uint32_t *in_w, size_t *n_in,
                        uint64_t *out, uint32_t *out_w, size_t *n_out)
{
    int prev_in = 0, seen_in = 0, detached = cupti_detached(res), one = cs->windows < 2;
    for (size_t i = 0; i < res->n_steps; i++) {
        const struct ssa_step_brief *b = &res->briefs[i];
        int clean = !seen_in || detached, rec = cs->rec[i];
        uint32_t w = one ? 0 : cs->owner[i];
        if (rec && i >= SSA_BASELINE_SKIP && launches_sampled(sc, b))
            in_w[*n_in] = w, in[(*n_in)++] = b->end_ns - b->begin_ns;
        /* the step whose middle the window opened in is neither: it is a bit of both */
        if (!rec && (one || w) && !prev_in && clean && i >= SSA_BASELINE_SKIP &&
            !step_touches_record(sc, b))
            out_w[*n_out] = w, out[(*n_out)++] = b->end_ns - b->begin_ns;
        prev_in = rec;
        seen_in |= rec;
    }
}

/* The median of the values of window w in v (0 when it has none); scratch holds n values. */
static uint64_t window_median(const uint64_t *v, const uint32_t *vw, size_t n, uint32_t w,
                              uint64_t *scratch)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (vw[i] == w) scratch[m++] = v[i];
    return m ? ssa_quantile_u64(scratch, m, 0.5) : 0;
}

/* Moves each window's steps (both sets) by the run's baseline median minus the window's
 * neighbourhood median. A window with no neighbours keeps its steps out of both sets.
 * scratch holds n_in + n_out values. 0 or SS_ENOMEM. */
static int align_windows(const struct cost_split *cs, uint64_t *in, const uint32_t *in_w,
                         size_t *n_in, uint64_t *out, const uint32_t *out_w, size_t *n_out,
                         uint64_t *scratch)
{
    double *shift = malloc((cs->windows + 1) * sizeof *shift);
    uint8_t *has = calloc(cs->windows + 1, 1);
    if (!shift || !has) return free(shift), free(has), SS_ENOMEM;
    memcpy(scratch, out, *n_out * sizeof *out);
    double ref = *n_out ? (double)ssa_quantile_u64(scratch, *n_out, 0.5) : 0;
    for (uint32_t w = 1; w <= cs->windows; w++) {
        uint64_t m = window_median(out, out_w, *n_out, w, scratch);
        has[w] = m > 0, shift[w] = ref - (double)m;
    }
    size_t ki = 0, ko = 0;
    for (size_t i = 0; i < *n_in; i++)
        if (has[in_w[i]]) in[ki++] = (uint64_t)fmax(0, (double)in[i] + shift[in_w[i]]);
    for (size_t i = 0; i < *n_out; i++)
        if (has[out_w[i]]) out[ko++] = (uint64_t)fmax(0, (double)out[i] + shift[out_w[i]]);
    *n_in = ki, *n_out = ko;
    free(shift), free(has);
    return 0;
}

static int measure_cost(const struct ssa_scan *sc, struct ssa_result *res)
{
    if (!window_only(sc)) return 0;
    size_t n = res->n_steps, n_in = 0, n_out = 0;
    uint64_t *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    uint64_t *scratch = malloc(n * sizeof *scratch);
    uint32_t *in_w = malloc(n * sizeof *in_w), *out_w = malloc(n * sizeof *out_w);
    struct cost_split cs = {malloc(n), malloc(n * sizeof *cs.owner), 0};
    int rc = in && out && scratch && in_w && out_w && cs.rec && cs.owner ? 0 : SS_ENOMEM;
    if (!rc) {
        for (size_t i = 0; i < n; i++) cs.rec[i] = (uint8_t)step_recorded(sc, &res->briefs[i]);
        cs.windows = number_windows(cs.rec, n, cs.owner);
        if (cs.windows >= 2) hold_neighbours(cs.rec, n, cs.owner);
        split_steps(sc, res, &cs, in, in_w, &n_in, out, out_w, &n_out);
        if (cs.windows >= 2) rc = align_windows(&cs, in, in_w, &n_in, out, out_w, &n_out, scratch);
        if (!rc) judge_baseline(res, in, n_in, out, n_out);
    }
    free(in), free(out), free(scratch), free(in_w), free(out_w), free(cs.rec), free(cs.owner);
    return rc;
}

static int gpu_capture_filter(struct ssa_scan *sc, struct ssa_result *res);
static int skip_queued_work_copy(struct ssa_scan *sc, struct ssa_stretch **as_recorded);

int ssa_capture_filter(struct ssa_scan *sc, struct ssa_result *res)
{
    if (!res->briefs) return 0;
    int rc = launch_sampling(sc, res);
    return rc ? rc : gpu_capture_filter(sc, res);
}

static int gpu_capture_filter(struct ssa_scan *sc, struct ssa_result *res)
{
    /* none (imports, synthetic traces) or too many CAPTURE records: every step counts */
    if (sc->n_cap == 0 || sc->cap_overflow) return 0;
    int late = window_opens_late(res);
    int rc = build_stretches(sc, late);
    if (rc || !capture_applies(sc, late)) return rc;
    res->capture_window = 1;
    res->capture_late = late;
    res->capture_never_opened = late && sc->n_rec == 0;
    res->window_opened = late ? window_opener(res) : SSA_WINDOW_AT_STEP;
    sc->rec_applies = 1;
    rc = measure_cost(sc, res); /* against the stretches as recorded: the steps the queued
                                 * work leaves out below were recorded, not a baseline */
    if (rc) return rc;
    struct ssa_stretch *as_recorded = NULL;
    if (skip_queued_work_copy(sc, &as_recorded)) return SS_ENOMEM;
    size_t kept = 0;
    for (size_t i = 0; i < res->n_steps; i++) {
        const struct ssa_step_brief *b = &res->briefs[i];
        if (step_recorded(sc, b)) {
            res->briefs[kept++] = *b;
            continue;
        }
        res->outside_capture++;
        res->queued_at_open += as_recorded && step_in(as_recorded, sc->n_rec, b);
    }
    free(as_recorded);
    res->n_steps = kept;
    return 0;
}

/* skip_queued_work, keeping a copy of the stretches as recorded in *as_recorded (NULL when
 * none moved). 1 when out of memory. */
static int skip_queued_work_copy(struct ssa_scan *sc, struct ssa_stretch **as_recorded)
{
    *as_recorded = malloc((sc->n_rec ? sc->n_rec : 1) * sizeof **as_recorded);
    if (!*as_recorded) return 1;
    memcpy(*as_recorded, sc->rec, sc->n_rec * sizeof **as_recorded);
    if (skip_queued_work(sc)) return 0;
    free(*as_recorded);
    *as_recorded = NULL;
    return 0;
}

/* Records flushed when the window closes (CUPTI detached or taken over) can carry the detach's
 * time as their end: seen in the last CUDA graph replays before an auto window's detach
 * (torch.compile mode="reduce-overhead"), kernels of ~10 us with ends a tenth of a second after
 * their starts, where kernels that ran after them on the same stream had ended long before.
 * Such an end is not a measurement. Kernels really running across the close end within
 * microseconds of it (15-166 us in the window fixtures, tests/fixtures/h200-1201/window/): an
 * end up to SSA_CLOSE_SLACK_NS past the close is kept. */
#define SSA_CLOSE_SLACK_NS 1000000u
int ssa_capture_end_trusted(const struct ssa_scan *sc, uint64_t start_ns, uint64_t end_ns)
{
    if (!sc->rec_applies || end_ns <= start_ns) return 1;
    size_t lo = stretches_from(sc->rec, sc->n_rec, start_ns);
    if (lo == 0) return 1;
    const struct ssa_stretch *s = &sc->rec[lo - 1];
    return start_ns >= s->to || end_ns <= s->to || end_ns - s->to <= SSA_CLOSE_SLACK_NS;
}
