/*
 * ssa_pace.c — steps from what the program repeats when its markers miss the work (CUDA graph
 * replays), and steps measured on the GPU's timeline when the host runs ahead of it.
 *
 * Graph steps (issue #19): a program that captured its whole step in a CUDA graph calls
 * optimizer.step() no more (g.replay() runs it), so the shim marks only the warm-up. One pass
 * collects every graph launch (cudaGraphLaunch / cuGraphLaunch API records) and the graph each
 * launched (the graph id of the node kernels, or of the GRAPH record, with the launch's
 * correlation id); when the graph replayed most often was launched at least SSA_GRAPH_MIN_STEPS
 * times and fewer than half of its launches lie inside marked steps, the markers are set aside
 * (and counted) and each launch of that graph begins a step.
 *
 * GPU pacing (issue #21): when the host enqueues faster than the GPU runs, host-side step
 * marks show the enqueue pace (a C loop that syncs every 50 steps: 0.27 ms steps of a 12.6 ms
 * training step). Correlation ids grow with the API calls that make them, so the launches of
 * step k own the ids from the smallest launched inside it to the next step's: one pass finds
 * that smallest id per step, a second the first GPU operation (and the last end) of each
 * step's ids. When most GPU operations started after their step had ended on the host, each
 * step becomes [its first GPU op, the next step's first GPU op): the GPU-paced step, which the
 * attribution then works on. The host's pace is kept for the report.
 *
 * Both read the trace again through the reader (ssa_pass), bounded memory: one entry per
 * graph launch (at most SSA_PACE_MAX_LAUNCHES) and a few words per step.
 */
#include <stdlib.h>
#include <string.h>

#include "ssa_internal.h"
#include "util/ss_error.h"

#define SSA_GRAPH_MIN_STEPS 4
#define SSA_PACE_MAX_LAUNCHES (1u << 24)
#define SSA_PACE_LATE_SHARE 0.15 /* of GPU ops after their step ended on the host: the caution's 0.85 */
#define SSA_PACE_MIN_COVER 0.9   /* of steps with a GPU op of their own, for pacing */
#define SSA_PACE_AHEAD 0.95      /* host pace under this share of the GPU's: paced */
#define SSA_PACE_MIN_BUSY 0.5    /* GPU time over the host steps' time, to look at all */
/* The probe: SSA_PACE_PROBE steps from SSA_PACE_PROBE_FROM, their GPU work looked for until
 * SSA_PACE_LOOKAHEAD_NS after them (a host 40x ahead queues 50 steps of 12 ms: 0.6 s) */
#define SSA_PACE_PROBE 64
#define SSA_PACE_PROBE_FROM 8
#define SSA_PACE_LOOKAHEAD_NS 10000000000ull
#define SSA_PACE_ORDER_SLACK_NS 5000000000ull /* how far out of time order a record can come */

/* ---- graph launches ---- */

struct glaunch {
    uint64_t t;
    uint32_t corr, tid, graph;
};

struct graphs {
    struct glaunch *v;
    size_t n, cap;
    struct ssa_idmap corr_graph; /* launch correlation -> graph id (from its nodes) */
    int overflow;
};

static void graphs_free(struct graphs *g)
{
    free(g->v);
    ssa_idmap_free(&g->corr_graph);
}

static int add_launch(struct graphs *g, const struct sst_rec_api *a)
{
    if (g->n == SSA_PACE_MAX_LAUNCHES) return g->overflow = 1, 0;
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 1024;
        struct glaunch *v = realloc(g->v, cap * sizeof *v);
        if (!v) return SS_ENOMEM;
        g->v = v, g->cap = cap;
    }
    g->v[g->n++] = (struct glaunch){a->start_ns, a->correlation, a->tid, 0};
    return 0;
}

static int note_graph_of(struct graphs *g, uint32_t corr, uint32_t graph)
{
    if (!corr || !graph) return 0;
    return ssa_idmap_put(&g->corr_graph, corr, graph) ? 0 : SS_ENOMEM;
}

static int graph_record(struct graphs *g, const struct sst_rec_header *h)
{
    if (h->type == SST_REC_API) {
        struct sst_rec_api a;
        SSA_LOAD(h, a);
        return ssa_is_graph_launch(a.domain, a.cbid) ? add_launch(g, &a) : 0;
    }
    if (h->type == SST_REC_KERNEL) {
        struct sst_rec_kernel k;
        SSA_LOAD(h, k);
        return k.flags & SST_KF_GRAPH ? note_graph_of(g, k.correlation, k.graph_id) : 0;
    }
    if (h->type == SST_REC_GRAPH) {
        struct sst_rec_graph r;
        SSA_LOAD(h, r);
        return note_graph_of(g, r.correlation, r.graph_id);
    }
    return 0;
}

/* No launch's graph is known: a light recording keeps neither the graphs' kernels nor GRAPH
 * records. Its launches then count as one graph (SSA_GRAPH_UNTOLD), which is right for the
 * program these steps are for — one graph per step, replayed with no optimizer step between —
 * and is used only where the markers hold fewer than half of the launches, as for told ones. */
static void untold_graphs(struct graphs *g)
{
    for (size_t i = 0; i < g->n; i++)
        g->v[i].graph = SSA_GRAPH_UNTOLD;
}

static int collect_graphs(struct sst_reader *r, struct graphs *g)
{
    struct ssa_pass ps;
    int rc = ssa_pass_begin(r, &ps);
    const struct sst_rec_header *h;
    while (rc == 0 && (rc = sst_reader_next(r, &h)) == 1)
        rc = graph_record(g, h);
    ssa_pass_end(&ps);
    int told = 0;
    for (size_t i = 0; rc >= 0 && i < g->n; i++) {
        uint32_t *gid = ssa_idmap_get(&g->corr_graph, g->v[i].corr);
        g->v[i].graph = gid ? *gid : 0;
        told |= g->v[i].graph != 0;
    }
    if (!told) untold_graphs(g);
    return rc < 0 ? rc : 0;
}

/* The graph launched most often (ties: the one launched first) and its launch count. */
static uint32_t top_graph(const struct graphs *g, uint64_t *count)
{
    struct ssa_idmap n = {0};
    uint32_t best = 0, best_n = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (!g->v[i].graph) continue;
        uint32_t *c = ssa_idmap_put(&n, g->v[i].graph, 0);
        if (!c) break;
        if (++*c > best_n) best = g->v[i].graph, best_n = *c;
    }
    ssa_idmap_free(&n);
    *count = best_n;
    return best;
}

/* The index of the step holding t (briefs sorted), or SIZE_MAX. */
static size_t step_holding(const struct ssa_result *res, uint64_t t)
{
    size_t lo = 0, hi = res->n_steps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (res->briefs[mid].end_ns <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < res->n_steps && res->briefs[lo].begin_ns <= t ? lo : SIZE_MAX;
}

static uint64_t launches_inside_steps(const struct ssa_result *res, const struct graphs *g,
                                      uint32_t graph)
{
    uint64_t n = 0;
    for (size_t i = 0; i < g->n; i++)
        n += g->v[i].graph == graph && step_holding(res, g->v[i].t) != SIZE_MAX;
    return n;
}

/* The thread that launched graph most often (the training loop's). */
static uint32_t graph_tid(const struct graphs *g, uint32_t graph)
{
    struct ssa_idmap n = {0};
    uint32_t best = 0, best_n = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (g->v[i].graph != graph) continue;
        uint32_t *c = ssa_idmap_put(&n, g->v[i].tid, 0);
        if (c && ++*c > best_n) best = g->v[i].tid, best_n = *c;
    }
    ssa_idmap_free(&n);
    return best;
}

/* Step k begins at the k-th launch of graph on tid and ends at the next one. */
static int briefs_from_launches(struct ssa_result *res, const struct graphs *g, uint32_t graph,
                                uint32_t tid)
{
    struct ssa_step_brief *b = calloc(g->n ? g->n : 1, sizeof *b);
    if (!b) return SS_ENOMEM;
    size_t n = 0;
    uint64_t prev = 0;
    int have_prev = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (g->v[i].graph != graph || g->v[i].tid != tid) continue;
        if (have_prev && g->v[i].t > prev)
            b[n] = (struct ssa_step_brief){.number = n, .begin_ns = prev, .end_ns = g->v[i].t},
            n++;
        prev = g->v[i].t, have_prev = 1;
    }
    free(res->briefs);
    res->briefs = b;
    res->n_steps = n;
    return 0;
}

int ssa_graph_steps(struct ssa_scan *sc, struct ssa_result *res)
{
    if (!sc->graph_launch_calls) return 0; /* pass 1 saw none: no pass to make */
    struct graphs g = {0};
    int rc = collect_graphs(sc->reader, &g);
    uint64_t count = 0;
    uint32_t top = rc ? 0 : top_graph(&g, &count);
    int use = top && count >= SSA_GRAPH_MIN_STEPS &&
              (res->step_source == SSA_STEPS_NONE || res->step_source == SSA_STEPS_DETECTED ||
               2 * launches_inside_steps(res, &g, top) < count);
    if (use) {
        size_t marked = res->step_source == SSA_STEPS_NONE || res->step_source == SSA_STEPS_DETECTED
                            ? 0
                            : res->n_steps;
        uint32_t tid = graph_tid(&g, top);
        rc = briefs_from_launches(res, &g, top, tid);
        res->markers_set_aside = marked;
        res->step_source = SSA_STEPS_GRAPHS;
        res->step_graph_id = top;
        res->step_graph_launches = count;
        res->train_tid = tid;
        res->train_tid_from_markers = 0;
        res->dropped_step_ranges = 0; /* the markers' ranges are not the steps any more */
    }
    graphs_free(&g);
    return rc;
}

/* ---- GPU pacing ---- */

/* Launch sampling (ssa_capture.c) leaves the steps between the sampled ones out, their
 * launches unrecorded: a kept step's ids then end at its own largest launched id (kmax), and
 * the GPU work of the ids after it, up to the next kept step's, is the steps left out (the
 * gap): its first start ends the kept step on the GPU's timeline. */
struct pace {
    uint32_t *cmin;           /* per step: the smallest correlation id launched inside it */
    uint32_t *kmax;           /* per step: the largest (read with gaps only) */
    uint64_t *first, *last;   /* per step: its GPU operations' first start and last end */
    uint64_t *gap_first;      /* per step: the first GPU start of the gap after it (gaps) */
    int gaps;                 /* steps were left out between the kept ones */
    uint32_t cmax;            /* the largest id launched inside any step */
    uint64_t ops, late;       /* GPU operations of the steps, those after their step's end */
};

static void pace_free(struct pace *p)
{
    free(p->cmin);
    free(p->kmax);
    free(p->first);
    free(p->last);
    free(p->gap_first);
}

static int pace_alloc(struct pace *p, size_t n, int gaps)
{
    memset(p, 0, sizeof *p);
    p->gaps = gaps;
    p->cmin = malloc(n * sizeof *p->cmin);
    p->kmax = calloc(n, sizeof *p->kmax);
    p->first = malloc(n * sizeof *p->first);
    p->gap_first = malloc(n * sizeof *p->gap_first);
    p->last = calloc(n, sizeof *p->last);
    if (!p->cmin || !p->kmax || !p->first || !p->gap_first || !p->last) return SS_ENOMEM;
    for (size_t i = 0; i < n; i++)
        p->cmin[i] = UINT32_MAX, p->first[i] = p->gap_first[i] = UINT64_MAX;
    return 0;
}

/* Pass A: the smallest correlation id launched in each step; launches after limit are left
 * out, and the pass stops at one SSA_PACE_ORDER_SLACK_NS past it (records reach the file a
 * buffer at a time, in an order only roughly that of their times). */
static int pass_launches(struct ssa_scan *sc, const struct ssa_result *res, struct pace *p,
                         uint64_t limit)
{
    struct ssa_pass ps;
    int rc = ssa_pass_begin(sc->reader, &ps);
    const struct sst_rec_header *h;
    while (rc >= 0 && (rc = sst_reader_next(sc->reader, &h)) == 1) {
        if (h->type != SST_REC_API) continue;
        struct sst_rec_api a;
        SSA_LOAD(h, a);
        if (!a.correlation || ssa_api_lut_get(&sc->api, a.domain, a.cbid) != SSA_API_LAUNCH)
            continue;
        if (a.start_ns > limit) {
            if (a.start_ns - limit > SSA_PACE_ORDER_SLACK_NS) break;
            continue;
        }
        size_t k = step_holding(res, a.start_ns);
        if (k == SIZE_MAX) continue;
        if (a.correlation < p->cmin[k]) p->cmin[k] = a.correlation;
        if (a.correlation > p->kmax[k]) p->kmax[k] = a.correlation;
        if (a.correlation > p->cmax) p->cmax = a.correlation;
    }
    ssa_pass_end(&ps);
    return rc < 0 ? rc : 0;
}

/* Steps that launched nothing take the next step's id, so the ids never decrease. */
static void fill_cmin(struct pace *p, size_t n)
{
    for (size_t k = n; k-- > 0;) {
        if (p->cmin[k] == UINT32_MAX && k + 1 < n) p->cmin[k] = p->cmin[k + 1];
        if (k + 1 < n && p->cmin[k] > p->cmin[k + 1]) p->cmin[k] = p->cmin[k + 1];
    }
}

/* The step whose launches own correlation id corr: the last k with cmin[k] <= corr. */
static size_t step_of_corr(const struct pace *p, size_t n, uint32_t corr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->cmin[mid] <= corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : SIZE_MAX;
}

static int gpu_op(const struct sst_rec_header *h, uint64_t *s, uint64_t *e, uint32_t *corr)
{
    if (h->type == SST_REC_KERNEL) {
        struct sst_rec_kernel k;
        SSA_LOAD(h, k);
        *s = k.start_ns, *e = k.end_ns, *corr = k.correlation;
        return 1;
    }
    if (h->type == SST_REC_MEMCPY || h->type == SST_REC_MEMSET) { /* same layout of times */
        struct sst_rec_memcpy m;
        SSA_LOAD(h, m);
        *s = m.start_ns, *e = m.end_ns, *corr = m.correlation;
        return 1;
    }
    if (h->type == SST_REC_GRAPH) {
        struct sst_rec_graph g;
        SSA_LOAD(h, g);
        *s = g.start_ns, *e = g.end_ns, *corr = g.correlation;
        return 1;
    }
    return 0;
}

/* Pass B: each step's first and last GPU time, and how much of its work ran after it; GPU
 * work after limit is left out, as pass A's launches. */
static int pass_gpu(struct ssa_scan *sc, const struct ssa_result *res, struct pace *p,
                    uint64_t limit)
{
    struct ssa_pass ps;
    int rc = ssa_pass_begin(sc->reader, &ps);
    const struct sst_rec_header *h;
    while (rc >= 0 && (rc = sst_reader_next(sc->reader, &h)) == 1) {
        uint64_t s, e;
        uint32_t corr;
        if (!gpu_op(h, &s, &e, &corr) || !corr || e < s) continue;
        if (!ssa_capture_end_trusted(sc, s, e)) e = s; /* an end CUPTI wrote at the detach */
        if (s > limit) {
            if (s - limit > SSA_PACE_ORDER_SLACK_NS) break;
            continue;
        }
        size_t k = corr > p->cmax ? SIZE_MAX : step_of_corr(p, res->n_steps, corr);
        if (k == SIZE_MAX) continue; /* launched before the first step or after the last */
        if (p->gaps && corr > p->kmax[k]) { /* a step left out after k launched it */
            if (s < p->gap_first[k]) p->gap_first[k] = s;
            continue;
        }
        p->ops++;
        p->late += s >= res->briefs[k].end_ns;
        if (s < p->first[k]) p->first[k] = s;
        if (e > p->last[k]) p->last[k] = e;
    }
    ssa_pass_end(&ps);
    return rc < 0 ? rc : 0;
}

static uint64_t median_step(const struct ssa_step_brief *b, size_t n)
{
    uint64_t *d = malloc((n ? n : 1) * sizeof *d);
    if (!d) return 0;
    for (size_t i = 0; i < n; i++)
        d[i] = b[i].end_ns - b[i].begin_ns;
    uint64_t m = ssa_quantile_u64(d, n, 0.5);
    free(d);
    return m;
}

/* Each step from its first GPU op to the next step's; steps with no GPU op of their own go
 * (on the GPU's timeline they have no place). Into out (res->n_steps entries); the count. */
static size_t paced_briefs(const struct ssa_result *res, const struct pace *p,
                           struct ssa_step_brief *out)
{
    size_t n = 0;
    for (size_t k = 0; k < res->n_steps; k++) {
        if (p->first[k] == UINT64_MAX) continue;
        struct ssa_step_brief b = res->briefs[k];
        b.begin_ns = p->first[k];
        size_t next = k + 1;
        while (next < res->n_steps && p->first[next] == UINT64_MAX)
            next++;
        b.end_ns = next < res->n_steps ? p->first[next] : p->last[k];
        if (p->gaps && p->gap_first[k] != UINT64_MAX && p->gap_first[k] < b.end_ns)
            b.end_ns = p->gap_first[k];
        if (n && b.begin_ns < out[n - 1].end_ns) b.begin_ns = out[n - 1].end_ns;
        if (b.end_ns > b.begin_ns) out[n++] = b;
    }
    return n;
}

/* Most GPU operations ran after their step had ended on the host, and nearly every step has
 * GPU work of its own to place it by. */
static int host_ran_ahead(const struct ssa_result *res, const struct pace *p)
{
    size_t with_ops = 0;
    for (size_t k = 0; k < res->n_steps; k++)
        with_ops += p->first[k] != UINT64_MAX;
    if ((double)with_ops < SSA_PACE_MIN_COVER * (double)res->n_steps || !p->ops) return 0;
    return res->step_source == SSA_STEPS_GRAPHS ||
           (double)p->late > SSA_PACE_LATE_SHARE * (double)p->ops;
}

/* The GPU-paced steps replace the host's when the host's pace is clearly faster than the
 * GPU's (a queue that fills); a host a step behind its GPU work at the same pace (DDP's ranks
 * waiting in all-reduce) keeps its marked steps. Graph replays are always paced: launching a
 * graph takes the host microseconds. */
static int apply_pace(struct ssa_result *res, const struct pace *p)
{
    struct ssa_step_brief *b = malloc(res->n_steps * sizeof *b);
    if (!b) return SS_ENOMEM;
    size_t n = paced_briefs(res, p, b);
    uint64_t host = median_step(res->briefs, res->n_steps);
    uint64_t gpu = n >= 2 ? median_step(b, n) : 0;
    if (gpu && (res->step_source == SSA_STEPS_GRAPHS || (double)host < SSA_PACE_AHEAD * (double)gpu)) {
        memcpy(res->briefs, b, n * sizeof *b);
        res->n_steps = n;
        res->gpu_paced = 1;
        res->host_pace_ns = host;
    }
    free(b);
    return 0;
}

/* Whether the GPU could have run behind the host at all: a queue only fills when the GPU's
 * work per step is at least about the host's median step (SSA_PACE_MIN_BUSY of it; the median,
 * not the mean: a first step of start-up would hide a GPU behind); a host-bound trace (a GPU
 * mostly idle) is not read again for nothing. */
static int gpu_could_lag(const struct ssa_scan *sc, const struct ssa_result *res)
{
    if (res->step_source == SSA_STEPS_GRAPHS) return 1;
    uint64_t gpu = sc->other_gpu_ns;
    for (size_t i = 0; i < sc->n_kn; i++)
        gpu += sc->kn[i].total_ns;
    double per_step = (double)gpu / (double)res->n_steps;
    return per_step >= SSA_PACE_MIN_BUSY * (double)median_step(res->briefs, res->n_steps);
}

/* The two passes over the steps of res, the launches until launch_limit, the GPU work until
 * gpu_limit. *ahead: whether the host ran ahead in them. p is the caller's to free. */
static int pace_steps(struct ssa_scan *sc, const struct ssa_result *res, uint64_t launch_limit,
                      uint64_t gpu_limit, struct pace *p, int *ahead)
{
    int rc = pace_alloc(p, res->n_steps, res->launch_unsampled > 0);
    if (rc == 0) rc = pass_launches(sc, res, p, launch_limit);
    if (rc == 0) fill_cmin(p, res->n_steps);
    if (rc == 0) rc = pass_gpu(sc, res, p, gpu_limit);
    *ahead = rc == 0 && host_ran_ahead(res, p);
    return rc;
}

/* A look at a few steps first (past the first ones, which warm up): the passes stop soon
 * after them, so a trace whose host did not run ahead is read only at its start again. */
static int probe_ahead(struct ssa_scan *sc, const struct ssa_result *res, int *ahead)
{
    size_t from = res->n_steps >= SSA_PACE_PROBE_FROM + SSA_PACE_PROBE ? SSA_PACE_PROBE_FROM : 0;
    size_t n = res->n_steps - from < SSA_PACE_PROBE ? res->n_steps - from : SSA_PACE_PROBE;
    struct ssa_result win = *res; /* the same steps, fewer of them: only briefs and counts */
    win.briefs += from, win.n_steps = n;
    uint64_t end = win.briefs[n - 1].end_ns;
    struct pace p;
    int rc = pace_steps(sc, &win, end, end + SSA_PACE_LOOKAHEAD_NS, &p, ahead);
    pace_free(&p);
    return rc;
}

int ssa_gpu_pace(struct ssa_scan *sc, struct ssa_result *res)
{
    if (res->n_steps < 2 || res->step_source == SSA_STEPS_NONE || !gpu_could_lag(sc, res))
        return 0;
    int ahead = 0, rc = probe_ahead(sc, res, &ahead);
    if (rc || !ahead) return rc;
    struct pace p;
    rc = pace_steps(sc, res, UINT64_MAX, UINT64_MAX, &p, &ahead);
    if (rc == 0 && ahead) rc = apply_pace(res, &p);
    pace_free(&p);
    return rc;
}
