/*
 * ssa_attr.c — pass 2: stream the records again and attribute every instant of each step.
 *
 * Each record becomes at most one interval with a category: a kernel its class's, a copy
 * its direction's, a memset MEMSET; on any host thread of the process an API call
 * LAUNCH/SYNC/ALLOC by the one table (ssa_api_class.c) and a "data" range DATA. The interval is
 * clipped to every step it overlaps and kept in one of that step's two buffers (the host's, the
 * GPU's) as two edges (+1 at its start, -1 at its end). Records arrive in file order, which is not
 * time order (CUPTI delivers its buffers late), so a step stays open until pass 1's block minima
 * prove that no later record can start before the step's end; then the step is swept and its
 * buffers go back to a small pool.
 * Memory: the edges of the steps still open, never the trace.
 *
 * The sweep walks the sorted edges keeping a count of open intervals per category; each
 * stretch between two edges goes to the first category (enum order = priority) with an
 * open interval, else to HOST. The stretches partition [begin, end), so the categories sum
 * exactly to the step's wall time.
 */
#include <stdlib.h>
#include <string.h>

#include "ssa_internal.h"
#include "ssa_pipe.h"
#include "util/ss_error.h"

/* An edge packed in one word, so that sorting is a sort of integers: the time relative to
 * the step's begin (clipped intervals never leave the step), then the category, then 1 for
 * an interval's end. Steps shorter than 2^58 ns (9 years) fit. The order among edges of
 * equal time does not matter: the sweep applies them all before the next stretch. */
typedef uint64_t edge_t;
_Static_assert(SSA_EDGE_COUNT <= 32, "edge categories fit EDGE_CAT's 5 bits");
/* The public category of each edge category past SSA_CAT_COUNT. */
static const uint8_t edge_public[SSA_EDGE_COUNT - SSA_CAT_COUNT] = {
    [SSA_EDGE_H2D_PAGEABLE - SSA_CAT_COUNT] = SSA_CAT_COPY_H2D,
    [SSA_EDGE_OWN_PASS - SSA_CAT_COUNT] = SSA_CAT_REDUCTION,
    [SSA_EDGE_COMPILED_EW - SSA_CAT_COUNT] = SSA_CAT_ELEMENTWISE,
    [SSA_EDGE_COMPILED_RED - SSA_CAT_COUNT] = SSA_CAT_REDUCTION,
};
#define EDGE_SHIFT 6
#define EDGE_KEY(rel, cat, end) (((rel) << EDGE_SHIFT) | ((uint64_t)(cat) << 1) | (end))
#define EDGE_REL(e) ((e) >> EDGE_SHIFT)
#define EDGE_CAT(e) ((uint32_t)((e) >> 1) & 31u)
#define EDGE_IS_END(e) ((e)&1u)
_Static_assert(SSA_CAT_COUNT <= 32, "a category fits in 5 bits of an edge");

struct stepbuf {
    edge_t *v;
    size_t n, cap;
};

#define SSA_POOL 16 /* spare buffers kept for reuse */
#define SSA_SWEEP_AHEAD 64 /* steps handed to the sweep thread and not finished, at most */

/* A step's edges arrive on two sides, each nearly in time order: the host's (API calls, data
 * ranges: one thread's calls follow each other) and the GPU's (kernels, copies, memsets: one
 * stream's work too), the GPU's lagging the host's by up to a queue's length. Each side has
 * its own buffer, sorted apart (sort_side) and merged by the sweep as it goes. */
struct step_edges {
    struct stepbuf host, gpu;
    struct ssa_smpbuf smp; /* Python stack samples in the step (ssa_host.c) */
};
struct open_step {
    struct step_edges e;
    struct ssa_step st; /* compact mode only: the step's full result while it is open */
};

/* What the sweep of one step takes from the step before: whether the last step swept ended
 * GPU-idle after a sync that drained the queue (a loss read at the end of a step): the next
 * step's first idle run follows that sync too, when the next step begins where this one
 * ended. */
struct sweeper {
    int ended_after_sync;
    uint64_t last_swept_end;
};

struct attr {
    struct ssa_scan *sc;
    struct ssa_result *res;
    struct sst_reader *r;
    /* The steps still open, a ring indexed by step index: [fin_next, fin_next + ring_cap).
     * Each has its edge buffer and, in compact mode, its full result until it is final. */
    struct open_step *ring;
    size_t ring_cap; /* a power of two */
    int compact;
    struct stepbuf pool[SSA_POOL];
    size_t n_pool;
    size_t fin_next;          /* steps before this one are final */
    size_t cursor;            /* last step found: records come mostly in time order */
    struct ssa_stacks stacks; /* NVTX push/pop per host thread: "data" ranges on any thread */
    int use_sync_records;
    uint64_t *sufmin; /* sufmin[b]: earliest contribution time of blocks b, b+1, ... */
    uint64_t n_records;
    size_t buffered, peak;
    uint64_t late; /* intervals that reached an already final step (should stay 0) */
    /* the sweep thread's own while it runs (piped), written at every step: on a cache line of
     * its own, not on one with the counters this thread writes at every record */
    _Alignas(64) struct sweeper sw;
    _Alignas(64) int piped; /* steps are swept on the sweep thread (pipe) */
    struct ssa_pipe pipe;
    struct ssa_step *flight; /* piped: the results of the steps in the pipe, by index % 64 */
    uint64_t *launch_rel; /* a swept step's launch call starts, for its samples */
    uint64_t rate_span;   /* around a sample, where its launch rate is measured (ns) */
    size_t cap_launch;
    int tl_on;                            /* some step is drawn on the timeline */
    uint32_t range_ids[SSA_TL_NAMES];     /* the message ids of res->tl_names */
    int err;
    struct ssa_qlat qlat; /* launch-to-kernel latency (ssa_qlat.c) */
};

/* Grows the ring until it holds step i; 0 or -1 when out of memory. */
static __attribute__((noinline)) int ring_grow(struct attr *a, size_t i)
{
    size_t base = a->fin_next, cap = a->ring_cap, ncap = cap ? cap : 16;
    while (i - base >= ncap)
        ncap *= 2;
    struct open_step *v = calloc(ncap, sizeof *v);
    if (!v) return -1;
    for (size_t k = base; k < base + cap; k++)
        v[k & (ncap - 1)] = a->ring[k & (cap - 1)];
    free(a->ring);
    a->ring = v, a->ring_cap = ncap;
    return 0;
}

/* The open step i (i >= fin_next), the ring grown to hold it; NULL when out of memory. */
static inline struct open_step *open_of(struct attr *a, size_t i)
{
    if (i - a->fin_next >= a->ring_cap && ring_grow(a, i) != 0) return NULL;
    struct open_step *o = &a->ring[i & (a->ring_cap - 1)];
    if (a->compact && o->st.end_ns == 0) { /* first touch: the step's identity */
        const struct ssa_step_brief *b = &a->res->briefs[i];
        o->st.number = b->number, o->st.begin_ns = b->begin_ns, o->st.end_ns = b->end_ns;
    }
    return o;
}

/* The full result of step i: in compact mode only while it is open (else NULL). */
static struct ssa_step *full_step(struct attr *a, size_t i)
{
    if (!a->compact) return &a->res->steps[i];
    if (i < a->fin_next) return NULL;
    struct open_step *o = open_of(a, i);
    if (!o) a->err = SS_ENOMEM;
    return o ? &o->st : NULL;
}

/* step_after when the last answer is not the answer: searched from it outwards (galloping,
 * then binary search): host records come in time order and the GPU's lag them by a step or so,
 * so the answer is near the last one. */
static __attribute__((noinline)) size_t step_search(struct attr *a, uint64_t t)
{
    const struct ssa_step_brief *s = a->res->briefs;
    size_t n = a->res->n_steps;
    if (n == 0) return 0;
    size_t c = a->cursor < n ? a->cursor : n - 1;
    size_t lo, hi, d = 1; /* the answer is in [lo, hi]: s[lo - 1] ends by t, s[hi] after it */
    if (s[c].end_ns > t) {
        if (c == 0 || s[c - 1].end_ns <= t) return c;
        for (hi = c - 1;; hi -= d, d *= 2) {
            if (d > hi) {
                lo = 0;
                break;
            }
            if (s[hi - d].end_ns <= t) {
                lo = hi - d + 1;
                break;
            }
        }
    } else {
        for (lo = c + 1;; lo += d, d *= 2) {
            if (lo + d - 1 >= n) {
                hi = n;
                break;
            }
            if (s[lo + d - 1].end_ns > t) {
                hi = lo + d - 1;
                break;
            }
        }
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].end_ns > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    a->cursor = lo;
    return lo;
}

/* The first step whose end is after t (steps are sorted and do not overlap), or n_steps. */
static inline size_t step_after(struct attr *a, uint64_t t)
{
    const struct ssa_step_brief *s = a->res->briefs;
    size_t c = a->cursor;
    if (c < a->res->n_steps && s[c].end_ns > t && (c == 0 || s[c - 1].end_ns <= t)) return c;
    return step_search(a, t);
}

/* The step that contains t, or NULL (before the first, after the last, in a gap), given
 * i = step_after(a, t). */
static struct ssa_step *step_in(struct attr *a, size_t i, uint64_t t, size_t *index)
{
    if (i >= a->res->n_steps || a->res->briefs[i].begin_ns > t) return NULL;
    *index = i;
    struct ssa_step *st = full_step(a, i);
    if (!st) a->late++; /* compact mode: a count for a step already summed (clock disorder) */
    return st;
}

/* Room in a buffer of n edges: as many again (the radix sort's second array) and a sentinel. */
#define BUF_ROOM(n) (2 * (n) + 1)

/* Room for two more edges in b. */
static __attribute__((noinline)) int buf_grow(struct attr *a, struct stepbuf *b)
{
    if (b->cap == 0 && a->n_pool > 0) {
        *b = a->pool[--a->n_pool];
        b->n = 0;
    }
    if (BUF_ROOM(b->n + 2) > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        edge_t *v = realloc(b->v, cap * sizeof *v);
        if (!v) return SS_ENOMEM;
        b->v = v;
        b->cap = cap;
    }
    return 0;
}

static inline int buf_push(struct attr *a, struct stepbuf *b, uint64_t s, uint64_t e, uint32_t cat)
{ /* s, e: relative to the step's begin */
    if (BUF_ROOM(b->n + 2) > b->cap && buf_grow(a, b) != 0) return SS_ENOMEM;
    b->v[b->n] = EDGE_KEY(s, cat, 0);
    b->v[b->n + 1] = EDGE_KEY(e, cat, 1);
    b->n += 2;
    a->buffered += 2; /* its peak is taken before each drop, in finalize_next */
    return 0;
}

/* Which side's buffer an edge of category cat goes to: the host's states; pageable H2D copies,
 * GPU work, go with the GPU's. Only speed depends on it: the merge restores one order. */
static inline int is_host_edge(uint32_t cat)
{
    return cat >= SSA_CAT_FIRST_IDLE && cat < SSA_CAT_COUNT;
}

uint8_t ssa_kernel_edge_cat(int kcat, const char *name)
{
    if (kcat != SSA_CAT_ELEMENTWISE && kcat != SSA_CAT_REDUCTION) return (uint8_t)kcat;
    switch (ssa_kernel_fusion(name)) {
    case SSA_FUSE_DONE:
        return kcat == SSA_CAT_REDUCTION ? SSA_EDGE_COMPILED_RED : SSA_EDGE_COMPILED_EW;
    case SSA_FUSE_OWN_PASS: return kcat == SSA_CAT_REDUCTION ? SSA_EDGE_OWN_PASS : (uint8_t)kcat;
    default: return (uint8_t)kcat;
    }
}

/* Clips [s, e) to each step it overlaps and buffers it there. Returns step_after(a, s) for
 * the record's own s (the step its counts go to: see step_in). */
static __attribute__((noinline)) size_t add_interval(struct attr *a, uint64_t s, uint64_t e,
                                                     uint32_t cat)
{
    size_t first = step_after(a, s), i = first;
    if (e < s) { /* a reversed record: the interval it covers, counted at its own s */
        uint64_t t = s;
        s = e, e = t;
        i = step_after(a, s);
    }
    if (e == s) return first;
    for (; i < a->res->n_steps; i++) {
        const struct ssa_step_brief *br = &a->res->briefs[i];
        if (br->begin_ns >= e) break;
        uint64_t cs = s > br->begin_ns ? s : br->begin_ns, ce = e < br->end_ns ? e : br->end_ns;
        if (ce <= cs) continue;
        if (i < a->fin_next) {
            a->late++;
            continue;
        }
        struct open_step *o = open_of(a, i);
        struct ssa_step *st = !o ? NULL : a->compact ? &o->st : &a->res->steps[i];
        struct stepbuf *b = !o ? NULL : is_host_edge(cat) ? &o->e.host : &o->e.gpu;
        if (!st || buf_push(a, b, cs - br->begin_ns, ce - br->begin_ns, cat)) {
            a->err = SS_ENOMEM;
            return first;
        }
        if (cat == SSA_CAT_DATA) st->n.data_ns += ce - cs; /* GPU busy or not */
    }
    return first;
}

/* A record's interval [s, e) of category cat: add_interval, then step_in for s: the step
 * that takes the record's counts (its index in *index), or NULL. The common case, an interval
 * inside one open step, is taken here with the same result. */
SSA_HOT struct ssa_step *add_record(struct attr *a, uint64_t s, uint64_t e, uint32_t cat,
                                    size_t *index)
{
    size_t i = step_after(a, s);
    const struct ssa_step_brief *br = i < a->res->n_steps ? &a->res->briefs[i] : NULL;
    if (br && i >= a->fin_next && br->begin_ns <= s && s < e && e <= br->end_ns) {
        struct open_step *o = open_of(a, i);
        struct ssa_step *st = !o ? NULL : a->compact ? &o->st : &a->res->steps[i];
        if (!st || buf_push(a, is_host_edge(cat) ? &o->e.host : &o->e.gpu, s - br->begin_ns,
                            e - br->begin_ns, cat)) {
            a->err = SS_ENOMEM;
            return NULL;
        }
        if (cat == SSA_CAT_DATA) st->n.data_ns += e - s;
        *index = i;
        return st;
    }
    return step_in(a, add_interval(a, s, e, cat), s, index);
}

/* ---- the sweep ---- */

/* Sorts n edges with an LSD radix sort, one byte per pass, skipping the bytes all keys
 * share (a step of 8 ms needs 4 passes). tmp holds n edges. Returns the sorted array (v or
 * tmp). Buffers are a few hundred edges per step: qsort's comparator calls were half of the
 * analysis's time. */
static edge_t *radix_sort(edge_t *v, edge_t *tmp, size_t n)
{
    uint64_t all_or = 0, all_and = ~(uint64_t)0;
    for (size_t i = 0; i < n; i++)
        all_or |= v[i], all_and &= v[i];
    uint64_t differ = all_or ^ all_and;
    for (unsigned shift = 0; shift < 64; shift += 8) {
        if (!((differ >> shift) & 0xff)) continue;
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++)
            count[((v[i] >> shift) & 0xff) + 1]++;
        for (size_t d = 1; d < 257; d++)
            count[d] += count[d - 1];
        for (size_t i = 0; i < n; i++)
            tmp[count[(v[i] >> shift) & 0xff]++] = v[i];
        edge_t *t = v;
        v = tmp, tmp = t;
    }
    return v;
}

/* Insertion sort of v, whose first `from` edges are in order, that gives up after `budget`
 * moves (returns 0; v is then still a permutation of its input). Returns 1 when v is sorted. */
static int insertion_sort(edge_t *v, size_t n, size_t from, size_t budget)
{
    for (size_t i = from ? from : 1; i < n; i++) {
        edge_t x = v[i];
        size_t j = i;
        while (j > 0 && v[j - 1] > x) {
            if (budget-- == 0) {
                v[j] = x;
                return 0;
            }
            v[j] = v[j - 1], j--;
        }
        v[j] = x;
    }
    return 1;
}

/* Sorts one side's n edges (v has room for n + 1 more: see buf_push) and puts a sentinel
 * (UINT64_MAX, above any edge: a category is below 31) after them. Returns v or v + n.
 * A side is mostly in order already (one thread's calls, one stream's work): checked first,
 * then insertion-sorted from the first edge out of order; past 4n moves (many threads or
 * streams) the radix sort takes over. */
static edge_t *sort_side(edge_t *v, size_t n)
{
    size_t from = 1;
    while (from < n && v[from - 1] <= v[from])
        from++;
    if (from < n && !insertion_sort(v, n, from, n <= 32 ? SIZE_MAX : 4 * n + 64))
        v = radix_sort(v, v + n, n);
    v[n] = UINT64_MAX;
    return v;
}

/* The highest-priority category with an open interval (bit c of mask: open[c] > 0). */
static uint32_t top_cat(uint32_t mask)
{
    mask &= (1u << SSA_CAT_HOST) - 1; /* HOST is what is left when nothing else is open */
    return mask ? (uint32_t)__builtin_ctz(mask) : SSA_CAT_HOST;
}

/* A run of GPU-idle stretches between two busy ones: short runs spent launching or in
 * other host work are the per-kernel host overhead of a launch-bound step. Runs that touch
 * the step's edges are not "between kernels" and are left out. */
static int run_len_short(uint64_t t0, uint64_t t1)
{
    return t1 - t0 < SSA_SHORT_GAP_NS;
}

/* What a GPU-idle run follows: the GPU drained because the host waited for it. */
enum run_after { AFTER_OTHER = 0, AFTER_SYNC };

struct idle_run {
    uint64_t start, lh_ns; /* lh: launch + host time in the run */
    int open, at_edge;
    enum run_after after;
    int had_data;      /* a data range in the run: what is copied next came from the loader */
    uint64_t alloc_ns; /* time in allocation calls in the run: the host lost that lead */
    uint64_t data_ns;  /* data-attributed time in the run */
    int drained;       /* it follows a sync that waited for queued GPU work (or a carried one) */
};

/* Where the sweep stands on synchronising calls (one open now, or when the last one ended,
 * and how long it waited for the GPU) and on the GPU's last busy category: a run right after
 * a D2H copy follows a sync (.cpu(), .item(): the host waits for the copy). */
struct sync_watch {
    uint64_t last_end;
    uint64_t wait_ns; /* GPU-busy time while the current (or last) sync was open */
    int seen;
    uint32_t last_busy;
    int carried; /* the step before ended idle after a sync: a run from t = 0 follows it */
};

/* What the sweep of a step finds: the time of each category and the counters of its idle runs
 * and GPU runs (struct ssa_step_counts' fields of the same names). Apart from the step's result
 * so that the sweep thread writes these few cache lines only, not the step's kilobyte, which
 * then stays on the analysis's thread; that thread adds them to the step (sweep_out_add). */
struct sweep_out {
    uint64_t cat_ns[SSA_CAT_COUNT];
    uint64_t post_alloc_ns, short_gap_ns, pre_h2d_ns, post_sync_ns, post_sync_data_ns;
    uint32_t post_alloc_runs, short_gaps, pre_h2d_runs, post_sync_runs;
    uint64_t fusable_busy_ns, fusable_ns, opt_span_ns, opt_span_busy_ns;
    uint32_t fusable_runs, fusable_kernels, opt_span_ops;
};

/* Only a sync that actually waited for queued GPU work drained the queue: after a sync that
 * returned at once (a host-bound loop) the GPU idles for the host's own reasons. */
#define SSA_POST_SYNC_MIN_WAIT_NS 100000ull

static enum run_after run_follows(const struct sync_watch *w, int sync_open, uint64_t t)
{
    if (w->last_busy == SSA_CAT_COPY_D2H || (w->carried && t == 0)) return AFTER_SYNC;
    int at_sync = sync_open || (w->seen && t >= w->last_end && t - w->last_end <= SSA_POST_SYNC_NS);
    return at_sync && w->wait_ns >= SSA_POST_SYNC_MIN_WAIT_NS ? AFTER_SYNC : AFTER_OTHER;
}

/* Closes the idle run at t. at_end: it reaches the step's end (so it is not a gap between
 * kernels, but its time after a sync still counts). pageable: what ends it is an H2D copy
 * from pageable memory — the host was making on the CPU the tensor it then copies (what it
 * does right after a sync is then that, too: the more specific cause wins) — unless the run
 * loaded data: then the copy is the loader's batch, pageable_h2d's case. */
static void close_run(struct sweep_out *so, struct idle_run *run, uint64_t t, int at_end,
                      int pageable)
{
    if (!run->open) return;
    if (run->alloc_ns && run->lh_ns) {
        /* A host delayed by d in an allocation has d less lead over the GPU: at most d of the
         * run's launch + host idle would have been hidden without it; the rest is the host's. */
        uint64_t lost = run->lh_ns < run->alloc_ns ? run->lh_ns : run->alloc_ns;
        so->post_alloc_ns += lost;
        so->post_alloc_runs++;
        run->lh_ns -= lost;
    }
    if (!run->at_edge && !at_end && run_len_short(run->start, t) && run->lh_ns) {
        so->short_gap_ns += run->lh_ns; /* the launch-bound rule's: not counted twice */
        so->short_gaps++;
    } else if (pageable && !run->had_data && run->lh_ns) {
        so->pre_h2d_ns += run->lh_ns;
        so->pre_h2d_runs++;
    } else if (run->after == AFTER_SYNC && run->lh_ns) {
        so->post_sync_ns += run->lh_ns;
        so->post_sync_runs++;
    }
    /* loading after a sync that drained the queue: without the sync it would have run while
     * the GPU worked on the step before (what sync_points adds; data_loading prices it too) */
    if (run->after == AFTER_SYNC && run->drained) so->post_sync_data_ns += run->data_ns;
    run->open = 0;
}

/* One stretch [t0, t1) of category c (times relative to the step's begin). Busy: it closes the
 * idle run (pageable: it is (also) a pageable H2D copy) and tells the sync watch the GPU's last
 * busy category and, while a sync is open, how long it waited. Idle: it opens a run (what the
 * run follows is only asked then) or extends it. */
static inline void stretch(struct sweep_out *so, struct idle_run *run, struct sync_watch *sw,
                           uint32_t c, uint64_t t0, uint64_t t1, int sync_open, int pageable)
{
    if (c < SSA_CAT_FIRST_IDLE) {
        close_run(so, run, t0, 0, pageable && c == SSA_CAT_COPY_H2D);
        sw->last_busy = c;
        if (sync_open) sw->wait_ns += t1 - t0;
        return;
    }
    if (!run->open)
        *run = (struct idle_run){t0, 0, 1, t0 == 0, run_follows(sw, sync_open, t0), 0, 0, 0,
                                 sw->wait_ns >= SSA_POST_SYNC_MIN_WAIT_NS || (sw->carried && !t0)};
    if (c == SSA_CAT_LAUNCH || c == SSA_CAT_HOST) run->lh_ns += t1 - t0;
    if (c == SSA_CAT_DATA) run->had_data = 1, run->data_ns += t1 - t0;
    if (c == SSA_CAT_ALLOC) run->alloc_ns += t1 - t0;
}

/* A run of GPU stretches the sweep follows (struct gpu_watch): how long it is, the busy time
 * of its kinds of kernels in it, the GPU operations that started in it. */
struct gpu_run {
    int open;
    uint64_t span, busy;
    uint32_t ops;
    /* the elementwise run: its last two kernels' starts (at equal times a start edge comes
     * before the end edge of the kernel before it), the longest kernel of its part since the
     * last batch reduction, and the time the parts before it keep when fused (kept) */
    uint64_t began, began_before, longest, kept;
};

/* What the sweep measures for the GPU-side findings (struct ssa_gpu_detail): the run of
 * elementwise/reduction kernels in progress, and the optimizer's phase in progress — from an
 * optimizer kernel's start through optimizer and elementwise kernels (an Adam step per
 * parameter is lerp, addcmul, addcdiv and plain elementwise ops) and the short gaps between
 * them, kept up to its last optimizer kernel (opt_kept). */
struct gpu_watch {
    struct gpu_run pw, opt, opt_kept;
};

/* Whether edge category c is a kernel a compiler would fuse with its neighbours (a batch
 * reduction's own pass is one: what comes before it fuses into it). */
static int is_pointwise(uint32_t c)
{
    return c == SSA_CAT_ELEMENTWISE || c == SSA_CAT_REDUCTION || c == SSA_EDGE_OWN_PASS;
}

/* Ends the elementwise run: k >= 2 kernels back to back would be one fused kernel, which
 * passes over the data once: as long as the run's longest kernel (the largest tensor's pass),
 * the rest of its busy time goes. A batch reduction cuts the run in parts, fused each. */
static void pointwise_close(struct sweep_out *so, struct gpu_run *r)
{
    uint64_t fused = r->kept + r->longest;
    if (r->open && r->ops >= 2 && r->busy > fused) {
        so->fusable_runs++;
        so->fusable_kernels += r->ops;
        so->fusable_busy_ns += r->busy;
        so->fusable_ns += r->busy - fused;
    }
    *r = (struct gpu_run){0};
}

static void optimizer_close(struct sweep_out *so, struct gpu_watch *g)
{
    so->opt_span_ns += g->opt_kept.span;
    so->opt_span_busy_ns += g->opt_kept.busy;
    so->opt_span_ops += g->opt_kept.ops;
    g->opt = g->opt_kept = (struct gpu_run){0};
}

/* Whether a stretch of category c, len ns long, ends a run whose own kernels are `own`: other
 * GPU work does, and so does a long idle gap (the host doing something else). */
static int run_ends(uint32_t c, uint64_t len, int own)
{
    return own ? 0 : c < SSA_CAT_FIRST_IDLE || len >= SSA_SHORT_GAP_NS;
}

/* A stretch [t0, t1) of category c, for the elementwise run and the optimizer's phase;
 * compiled: a kernel compiled already runs in it (other GPU work to the elementwise run). */
SSA_HOT void gpu_stretch(struct sweep_out *so, struct gpu_watch *g, uint32_t c, uint64_t t0,
                        uint64_t t1, int compiled)
{
    uint64_t len = t1 - t0;
    if (run_ends(c, len, is_pointwise(c) && !compiled))
        pointwise_close(so, &g->pw);
    else if (c < SSA_CAT_FIRST_IDLE)
        g->pw.busy += len;
    if (!g->opt.open) return;
    if (run_ends(c, len, c == SSA_CAT_OPTIMIZER || c == SSA_CAT_ELEMENTWISE)) {
        optimizer_close(so, g);
        return;
    }
    g->opt.span += len;
    if (c < SSA_CAT_FIRST_IDLE) g->opt.busy += len;
    if (c == SSA_CAT_OPTIMIZER) g->opt_kept = g->opt;
}

/* A GPU interval of category c starting at t: an operation of the runs in progress; an
 * elementwise or reduction kernel opens the elementwise run, an optimizer kernel the
 * optimizer's phase. */
static void gpu_start(struct gpu_watch *g, uint32_t c, uint64_t t)
{
    if (is_pointwise(c)) g->pw.open = 1, g->pw.began_before = g->pw.began, g->pw.began = t;
    g->pw.ops += is_pointwise(c);
    if (c == SSA_CAT_OPTIMIZER) g->opt.open = 1;
    g->opt.ops += g->opt.open;
}

/* An elementwise or reduction kernel ending at t: the longest kernel so far of the run's part
 * (kernels of one stream follow each other: from the last start to this end is one kernel).
 * A batch reduction ends the part: fused, the part takes as long as its longest kernel. */
static void gpu_end(struct gpu_watch *g, uint32_t c, uint64_t t)
{
    uint64_t began = g->pw.began == t ? g->pw.began_before : g->pw.began;
    if (!g->pw.open || !is_pointwise(c)) return;
    if (t - began > g->pw.longest) g->pw.longest = t - began;
    if (c == SSA_EDGE_OWN_PASS) g->pw.kept += g->pw.longest, g->pw.longest = 0;
}

/* Where the sweep stands: the open intervals per category (mask bit c: some of category c
 * are open) and, kept apart because the stretches ask about them, the open syncs and pageable
 * H2D copies (edge category SSA_EDGE_H2D_PAGEABLE, which are copy.h2d besides). */
struct sweep_state {
    uint32_t open[SSA_CAT_COUNT];
    uint32_t mask, syncs, pageable, compiled;
};

/* Applies one edge of category c at t (step: +1 for a start, -1 as uint32_t for an end, so
 * counts stay exact), and what a sync's edges tell the sync watch. */
static inline void apply_edge(struct sweep_state *s, struct sync_watch *sw, uint32_t c,
                              uint32_t step, uint64_t t)
{
    uint32_t open;
    if (c == SSA_CAT_SYNC) {
        if (!s->syncs && step == 1u) sw->wait_ns = 0; /* a new sync */
        open = s->syncs += step;
        if (!open) sw->last_end = t, sw->seen = 1;
    } else {
        if (c == SSA_EDGE_H2D_PAGEABLE) s->pageable += step;
        if (c == SSA_EDGE_COMPILED_EW || c == SSA_EDGE_COMPILED_RED) s->compiled += step;
        if (c >= SSA_CAT_COUNT) c = edge_public[c - SSA_CAT_COUNT];
        open = s->open[c] += step;
    }
    /* a start sets the bit without waiting for the count; an end clears it at zero */
    s->mask = step == 1u ? s->mask | (1u << c) : open ? s->mask : s->mask & ~(1u << c);
}

/* ---- the report's timeline (SSA_TIMELINE) and per-step bins (SSA_STEP_BINS) ---- */

/* Room for one more item in t, grown by doubling; 0 when it cannot grow. */
static int tl_room(struct ssa_timeline *t)
{
    if (t->n < t->cap) return 1;
    size_t cap = t->cap ? 2 * t->cap : 256;
    if (cap > 2 * t->max) cap = 2 * t->max;
    struct ssa_tl_item *v = cap > t->n ? realloc(t->items, cap * sizeof *v) : NULL;
    if (!v) return 0; /* a shorter timeline rather than no report */
    t->items = v, t->cap = cap;
    return 1;
}

/* Appends the sweep's stretch [s, e) of category c to t's attribution lane, merged into the
 * run before it when that has the same category. */
static void tl_attr(struct ssa_timeline *t, uint64_t s, uint64_t e, uint32_t c)
{
    struct ssa_tl_item *last = t->n_attr ? &t->items[t->n - 1] : NULL;
    if (last && last->cat == c && last->end_ns == s) {
        last->end_ns = e;
        return;
    }
    if (t->n_attr >= t->max || !tl_room(t)) {
        t->dropped++;
        return;
    }
    t->items[t->n++] = (struct ssa_tl_item){s, e, 0, SSA_TL_ATTR, (uint8_t)c, SSA_TLN_NONE, 0};
    t->n_attr++;
}

/* The timeline that draws step i, or NULL. */
static struct ssa_timeline *tl_of(struct ssa_result *res, size_t i)
{
    return res->tl_index && res->tl_index[i] ? &res->tl[res->tl_index[i] - 1] : NULL;
}

static void bin_add(struct ssa_step_bins *b, size_t i, const struct ssa_step *st)
{
    for (int c = 0; c < SSA_CAT_COUNT; c++)
        b->cat_ns[i / b->width][c] += st->cat_ns[c];
}

/* Sweeps the n edges of the two sorted sides hs and gs (each ends with a sentinel) of the step
 * [begin, end), merging them as it goes, into so (zeroed). Times are relative to begin, as in
 * the edges. Each sample of sp (sorted, ending with a sentinel) gets the category of the
 * stretch its instant is in. Returns whether the step ended GPU-idle after a sync that drained
 * the queue (after_sync: the step before did, and this one follows it). */
static int sweep(struct sweep_out *so, uint64_t begin, uint64_t end, const edge_t *hs,
                 const edge_t *gs, size_t n, struct ssa_smp *sp, int after_sync,
                 struct ssa_timeline *tl)
{
    struct gpu_watch gw = {{0}, {0}, {0}}, *g = &gw;
    struct sweep_state s = {{0}, 0, 0, 0, 0};
    uint64_t cat_ns[SSA_CAT_COUNT] = {0}; /* summed here, then into so: no aliasing with it */
    uint64_t prev = 0, span = end - begin;
    struct idle_run run = {0};
    struct sync_watch sw = {.last_busy = SSA_CAT_COUNT, .carried = after_sync};
    for (size_t i = 0; i < n; i++) {
        int from_host = *hs <= *gs;
        edge_t x = from_host ? *hs : *gs;
        hs += from_host, gs += !from_host;
        uint64_t t = EDGE_REL(x);
        if (t > prev) {
            uint32_t c = top_cat(s.mask);
            cat_ns[c] += t - prev;
            stretch(so, &run, &sw, c, prev, t, s.syncs > 0, s.pageable > 0);
            gpu_stretch(so, g, c, prev, t, s.compiled > 0);
            if (tl) tl_attr(tl, begin + prev, begin + t, c);
            for (; sp->rel < t; sp++)
                sp->cat = (uint8_t)c;
            prev = t;
        }
        if (!from_host && !EDGE_IS_END(x)) gpu_start(g, EDGE_CAT(x), t);
        if (!from_host && EDGE_IS_END(x)) gpu_end(g, EDGE_CAT(x), t);
        apply_edge(&s, &sw, EDGE_CAT(x), EDGE_IS_END(x) ? (uint32_t)-1 : 1u, t);
    }
    uint32_t c = top_cat(s.mask);
    cat_ns[c] += span - prev;
    if (span > prev) stretch(so, &run, &sw, c, prev, span, s.syncs > 0, 0);
    if (span > prev) gpu_stretch(so, g, c, prev, span, s.compiled > 0);
    pointwise_close(so, &g->pw);
    optimizer_close(so, g);
    if (tl && span > prev) tl_attr(tl, begin + prev, end, c);
    int ends_after_sync = run.open && run.after == AFTER_SYNC && run.drained;
    for (; sp->rel != UINT64_MAX; sp++)
        sp->cat = (uint8_t)c;
    close_run(so, &run, span, 1, 0);
    memcpy(so->cat_ns, cat_ns, sizeof cat_ns);
    return ends_after_sync;
}

/* Sorts a step's edges, each side apart (into *hs and *gs, each ending with a sentinel), and
 * its samples. */
static void sort_edges(struct step_edges *e, const edge_t **hs, const edge_t **gs)
{
    static const edge_t none = UINT64_MAX; /* a side without edges: its sentinel alone */
    *hs = e->host.n ? sort_side(e->host.v, e->host.n) : &none;
    *gs = e->gpu.n ? sort_side(e->gpu.v, e->gpu.n) : &none;
    if (e->smp.n) ssa_smp_sort(&e->smp);
}

/* Adds a step's sweep to its result st. */
static void sweep_out_add(struct ssa_step *st, const struct sweep_out *so)
{
    for (int c = 0; c < SSA_CAT_COUNT; c++)
        st->cat_ns[c] += so->cat_ns[c];
    struct ssa_step_counts *n = &st->n;
    n->post_alloc_ns += so->post_alloc_ns, n->post_alloc_runs += so->post_alloc_runs;
    n->short_gap_ns += so->short_gap_ns, n->short_gaps += so->short_gaps;
    n->pre_h2d_ns += so->pre_h2d_ns, n->pre_h2d_runs += so->pre_h2d_runs;
    n->post_sync_ns += so->post_sync_ns, n->post_sync_runs += so->post_sync_runs;
    n->post_sync_data_ns += so->post_sync_data_ns;
    n->gpu.fusable_runs += so->fusable_runs, n->gpu.fusable_kernels += so->fusable_kernels;
    n->gpu.fusable_busy_ns += so->fusable_busy_ns, n->gpu.fusable_ns += so->fusable_ns;
    n->gpu.opt_span_ns += so->opt_span_ns, n->gpu.opt_span_busy_ns += so->opt_span_busy_ns;
    n->gpu.opt_span_ops += so->opt_span_ops;
}

/* The number of the n sorted times v below t. */
static size_t count_below(const uint64_t *v, size_t n, uint64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Each sample's launches: its weight times the rate of launch calls (any thread) within
 * half of `span` ns of its instant, inside the step (span_step ns long), from the step's
 * sorted host edges hs (n of them). What the recording adds per launch is then priced out of
 * the sample's stack (ssa_host_hotspots). */
static int count_sample_launches(struct attr *a, const edge_t *hs, size_t n, uint64_t span,
                                 uint64_t span_step, struct ssa_smpbuf *b)
{
    if (n > a->cap_launch) {
        uint64_t *v = realloc(a->launch_rel, n * sizeof *v);
        if (!v) return SS_ENOMEM;
        a->launch_rel = v, a->cap_launch = n;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (EDGE_CAT(hs[i]) == SSA_CAT_LAUNCH && !EDGE_IS_END(hs[i]))
            a->launch_rel[m++] = EDGE_REL(hs[i]);
    for (size_t k = 0; k < b->n; k++) {
        struct ssa_smp *x = &b->v[k];
        uint64_t lo = x->rel > span / 2 ? x->rel - span / 2 : 0;
        uint64_t hi = span_step - x->rel > span / 2 ? x->rel + span / 2 : span_step;
        size_t in = count_below(a->launch_rel, m, hi) - count_below(a->launch_rel, m, lo);
        x->launches = hi > lo ? (double)in * (double)x->w / (double)(hi - lo) : 0;
    }
    return 0;
}

/* A counted thread's sample, completed by the stream: into its step's buffer (the step is
 * still open: pass 1's block minima wait for the sample that completes it). */
static void place_sample(void *ctx, const struct ssa_pysample *s)
{
    struct attr *a = ctx;
    if (!s->stack || !s->weight_ns || !ssa_host_counts(&a->sc->host, a->res, s->tid)) return;
    if (ssa_run_sample(&a->sc->run, &a->res->run, s->stack, s->ts_ns, s->weight_ns)) {
        a->err = SS_ENOMEM;
        return;
    }
    size_t i = step_after(a, s->ts_ns);
    if (i >= a->res->n_steps || a->res->briefs[i].begin_ns > s->ts_ns) return; /* not in a step */
    if (i < a->fin_next) {
        a->sc->host.late++;
        return;
    }
    struct open_step *o = open_of(a, i);
    if (!o || ssa_smp_room(&o->e.smp)) {
        a->err = SS_ENOMEM;
        return;
    }
    o->e.smp.v[o->e.smp.n++] = (struct ssa_smp){s->ts_ns - a->res->briefs[i].begin_ns,
                                                s->weight_ns, 0, s->stack - 1, 0};
}

/* Gives a finalised step's buffer back to the pool (or frees it). */
static void buf_release(struct attr *a, struct stepbuf *b)
{
    if (b->cap && a->n_pool < SSA_POOL)
        a->pool[a->n_pool++] = *b;
    else
        free(b->v);
}

/* A step leaves the open ones: its edges no longer count as buffered (the peak is taken
 * first: buffered only drops here). */
static void note_closed(struct attr *a, const struct open_step *o)
{
    if (a->buffered > a->peak) a->peak = a->buffered;
    a->buffered -= o->e.host.n + o->e.gpu.n;
}

/* The brief's GPU-busy time and top category. */
static void brief_from(struct ssa_step_brief *b, const struct ssa_step *st)
{
    b->busy_ns = 0;
    b->top_cat = 0;
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        if (c < SSA_CAT_FIRST_IDLE) b->busy_ns += st->cat_ns[c];
        if (st->cat_ns[c] > st->cat_ns[b->top_cat]) b->top_cat = (uint8_t)c;
    }
}

/* The step's host waits (struct ssa_gpu_detail), once its calls are all in. */
static void note_host_wait(struct ssa_step *st)
{
    uint64_t alloc_idle = st->cat_ns[SSA_CAT_ALLOC], frees = st->n.gpu.long_free_ns;
    uint64_t w = st->n.sync_api_ns + st->n.gpu.launch_wait_ns;
    w += frees > alloc_idle ? frees - alloc_idle : 0;
    uint64_t span = st->end_ns - st->begin_ns;
    st->n.gpu.host_wait_ns = w < span ? w : span;
}

/* Whether step i's samples and call sites count (ssa_opts.host_from_ns). */
static int host_counts(const struct attr *a, size_t i)
{
    const struct ssa_scan *sc = a->sc;
    const struct ssa_step_brief *b = &a->res->briefs[i];
    if (!sc->host_from_ns && !sc->host_to_ns) return 1;
    return b->begin_ns <= sc->host_to_ns && b->end_ns >= sc->host_from_ns;
}

/* Sweeps step i, [begin, end) (e: its buffers and samples, sorted by sort_edges into hs and
 * gs) into so (tl: the timeline drawing it, or NULL). Besides its own buffers a sweep needs
 * only whether the step before ended idle after a sync (w): steps are swept in order, here or
 * on the sweep thread. */
static void sweep_step(struct sweeper *w, size_t i, uint64_t begin, uint64_t end,
                       const struct step_edges *e, const edge_t *hs, const edge_t *gs,
                       struct sweep_out *so, struct ssa_timeline *tl)
{
    struct ssa_smp no_samples = {.rel = UINT64_MAX};
    int carried = w->ended_after_sync && i > 0 && begin == w->last_swept_end;
    memset(so, 0, sizeof *so);
    w->ended_after_sync = sweep(so, begin, end, hs, gs, e->host.n + e->gpu.n,
                                e->smp.n ? e->smp.v : &no_samples, carried, tl);
    w->last_swept_end = end;
}

/* What follows step i's sweep (its result st, the sweep added), on the analysis's thread in
 * step order: its host waits and samples, brief, folds; its buffers back to the pool (e: them;
 * hs: its host side, sorted). */
static void finish_step(struct attr *a, size_t i, struct step_edges *e, struct ssa_step *st,
                        const edge_t *hs, struct ssa_timeline *tl)
{
    note_host_wait(st);
    if (tl) tl->whole = *st;
    if (a->res->bins.cat_ns) bin_add(&a->res->bins, i, st);
    if (e->smp.n && host_counts(a, i) && (count_sample_launches(a, hs, e->host.n, a->rate_span,
                                           st->end_ns - st->begin_ns, &e->smp) ||
                     ssa_host_add(&a->sc->host, ssa_steps_group(a->sc, i), i, &e->smp)))
        a->err = SS_ENOMEM;
    free(e->smp.v);
    brief_from(&a->res->briefs[i], st);
    if (a->compact) ssa_steps_fold(a->sc, a->res, i, st);
    ssa_run_fold(&a->res->run, st);
    buf_release(a, &e->host);
    buf_release(a, &e->gpu);
}

/* The sweep thread's job: step i's edges, moved out of the ring, and what the sweep thread
 * writes (its sorted sides, the sweep's answer) on cache lines of their own. The step's result
 * waits on the analysis's thread (attr.flight). */
struct sweep_job {
    size_t i;
    uint64_t begin_ns, end_ns;
    struct step_edges e;
    _Alignas(64) struct sweep_out so;
    const edge_t *hs, *gs;
};

static void sweep_job_run(void *ctx, void *job)
{
    struct sweep_job *j = job;
    sort_edges(&j->e, &j->hs, &j->gs);
    sweep_step(ctx, j->i, j->begin_ns, j->end_ns, &j->e, j->hs, j->gs, &j->so, NULL);
}

/* Finishes the oldest step the sweep thread has swept (wait: also one not swept yet);
 * 0 when there is none. */
static int retire_one(struct attr *a, int wait)
{
    struct sweep_job *j = ssa_pipe_done(&a->pipe, wait);
    if (!j) return 0;
    struct ssa_step *st = &a->flight[j->i % SSA_SWEEP_AHEAD];
    sweep_out_add(st, &j->so);
    finish_step(a, j->i, &j->e, st, j->hs, NULL);
    ssa_pipe_retire(&a->pipe);
    return 1;
}

/* Moves open step i (o) to the sweep thread's ring, waiting for room when it is full; the
 * thread gets it at the next ssa_pipe_push (finalize_until: once for the steps a block closes). */
static void hand_off(struct attr *a, size_t i, struct open_step *o)
{
    struct sweep_job *j;
    while (!(j = ssa_pipe_slot(&a->pipe))) {
        ssa_pipe_push(&a->pipe);
        retire_one(a, 1);
    }
    j->i = i, j->begin_ns = o->st.begin_ns, j->end_ns = o->st.end_ns, j->e = o->e;
    a->flight[i % SSA_SWEEP_AHEAD] = o->st; /* steps are handed off in order, 64 at most */
    note_closed(a, o);
    memset(o, 0, sizeof *o);
    ssa_pipe_fill(&a->pipe);
}

/* Sweeps step fin_next (or hands it to the sweep thread), records its brief, and (compact
 * mode) sums or keeps it aside. */
static void finalize_next(struct attr *a)
{
    size_t i = a->fin_next;
    struct open_step *o = open_of(a, i);
    if (!o) {
        a->err = SS_ENOMEM;
        return;
    }
    a->fin_next++;
    if (a->piped) {
        hand_off(a, i, o);
        return;
    }
    struct ssa_step *st = a->compact ? &o->st : &a->res->steps[i];
    struct ssa_timeline *tl = a->tl_on ? tl_of(a->res, i) : NULL;
    struct sweep_out so;
    const edge_t *hs, *gs;
    sort_edges(&o->e, &hs, &gs);
    sweep_step(&a->sw, i, st->begin_ns, st->end_ns, &o->e, hs, gs, &so, tl);
    sweep_out_add(st, &so);
    finish_step(a, i, &o->e, st, hs, tl);
    note_closed(a, o);
    memset(o, 0, sizeof *o);
}

static void finalize_until(struct attr *a, uint64_t limit)
{
    while (!a->err && a->fin_next < a->res->n_steps && a->res->briefs[a->fin_next].end_ns <= limit)
        finalize_next(a);
    if (a->piped) ssa_pipe_push(&a->pipe);
    while (a->piped && retire_one(a, 0)) /* what the sweep thread has done meanwhile */
        ;
}

/* ---- records ---- */

/* The index in res->tl_names of the text of string `message`, kept on first use; UINT32_MAX
 * past SSA_TL_NAMES names or when it cannot be read. */
static uint32_t tl_range_name(struct attr *a, uint32_t message)
{
    struct ssa_result *res = a->res;
    for (size_t i = 0; i < res->n_tl_names; i++)
        if (a->range_ids[i] == message) return (uint32_t)i;
    uint32_t len;
    const char *s = sst_reader_string(a->r, message, &len);
    char *text = s && res->n_tl_names < SSA_TL_NAMES ? malloc((size_t)len + 1) : NULL;
    if (!text) return UINT32_MAX;
    memcpy(text, s, len);
    text[len] = 0;
    a->range_ids[res->n_tl_names] = message;
    res->tl_names[res->n_tl_names] = text;
    return (uint32_t)res->n_tl_names++;
}

/* Keeps *it on each timeline whose step it overlaps, clipped to the step, while that step is
 * open (what reaches a swept step is late: the attribution did not count it either). A range's
 * name (its message id) becomes its index in res->tl_names. */
static __attribute__((noinline)) void tl_item(struct attr *a, const struct ssa_tl_item *it)
{
    if (it->end_ns < it->start_ns) return;
    /* the steps it overlaps: an instant (a MEMORY record) the one it falls in */
    for (size_t i = step_after(a, it->start_ns); i < a->res->n_steps; i++) {
        const struct ssa_step_brief *b = &a->res->briefs[i];
        int instant = it->end_ns == it->start_ns;
        if (!(it->end_ns > b->begin_ns || (instant && it->start_ns >= b->begin_ns))) break;
        struct ssa_timeline *t = tl_of(a->res, i);
        if (!t || i < a->fin_next) continue;
        if (t->n - t->n_attr >= t->max || !tl_room(t)) {
            t->dropped++;
            continue;
        }
        struct ssa_tl_item *x = &t->items[t->n++];
        *x = *it;
        x->start_ns = x->start_ns < b->begin_ns ? b->begin_ns : x->start_ns;
        x->end_ns = x->end_ns > b->end_ns ? b->end_ns : x->end_ns;
        if (x->name_kind == SSA_TLN_RANGE) x->name = tl_range_name(a, it->name);
        if (x->name == UINT32_MAX && x->name_kind == SSA_TLN_RANGE) x->name_kind = SSA_TLN_NONE;
    }
}

static inline void tl_add(struct attr *a, const struct ssa_tl_item *it)
{
    if (a->tl_on) tl_item(a, it);
}

static uint64_t gpu_lane(uint16_t device, uint32_t stream)
{
    return (uint64_t)device << 32 | stream;
}

/* A GEMM/conv kernel with fewer thread blocks than its device has SMs leaves the others idle
 * for its whole duration d (one block per SM at most: the rest have none). */
static void note_gemm_blocks(const struct ssa_result *res, struct ssa_step *st,
                             const struct sst_rec_kernel *k, uint64_t d)
{
    uint64_t sms = res->device_sms[k->device & 63];
    uint64_t blocks = (uint64_t)k->grid[0] * k->grid[1] * k->grid[2];
    if (!sms || !blocks || blocks >= sms) return;
    st->n.gpu.small_gemms++;
    st->n.gpu.small_gemm_ns += d;
    st->n.gpu.gemm_idle_sm_ns += d * (sms - blocks) / sms;
}

static void on_kernel(struct attr *a, const struct sst_rec_kernel *k)
{
    struct ssa_knstat *kn = ssa_kn_find(a->sc, k->name);
    int kc = kn ? kn->kclass : SSA_KC_OTHER;
    uint32_t cat = kn ? kn->kcat : (uint32_t)ssa_kclass_cat(kc);
    size_t i;
    struct ssa_step *st = add_record(a, k->start_ns, k->end_ns, kn ? kn->edge_cat : cat, &i);
    tl_add(a, &(struct ssa_tl_item){k->start_ns, k->end_ns, gpu_lane(k->device, k->stream),
                                    SSA_TL_GPU, (uint8_t)cat, kn ? SSA_TLN_KERNEL : SSA_TLN_NONE,
                                    kn ? kn->rank : 0});
    if (!st) return;
    uint64_t d = k->end_ns > k->start_ns ? k->end_ns - k->start_ns : 0;
    st->n.kernels++;
    st->n.kernels_by_class[kc]++;
    st->n.kernel_ns_by_class[kc] += d;
    if (kn && kn->opt_kind != SSA_OPT_NONE) {
        st->n.gpu.opt_kernels[kn->opt_kind]++;
        st->n.gpu.opt_adam += kn->opt_adam;
    }
    if (kc == SSA_KC_GEMM_TC || kc == SSA_KC_GEMM_FP32) note_gemm_blocks(a->res, st, k, d);
    if (!(k->flags & SST_KF_GRAPH) && ssa_qlat_note(&a->qlat, 1, k->correlation, k->start_ns))
        a->err = SS_ENOMEM;
    if (k->flags & SST_KF_GRAPH) {
        st->n.graph_kernels++;
        st->n.graph_kernel_ns += k->end_ns > k->start_ns ? k->end_ns - k->start_ns : 0;
    }
    if (kn) {
        if (!kn->first_step) kn->first_step = (uint32_t)(i + 1);
        kn->last_step = (uint32_t)(i + 1);
    }
}

static int host_side_pageable(const struct sst_rec_memcpy *m)
{
    if (m->copy_kind == SST_COPY_H2D) return m->src_kind == SST_MEM_PAGEABLE;
    if (m->copy_kind == SST_COPY_D2H) return m->dst_kind == SST_MEM_PAGEABLE;
    return m->src_kind == SST_MEM_PAGEABLE || m->dst_kind == SST_MEM_PAGEABLE;
}

static void on_memcpy(struct attr *a, const struct sst_rec_memcpy *m)
{
    /* pageable H2D copies carry their own edge category (counted as copy.h2d by the sweep)
     * so the sweep can tell a blocking copy of a CPU-made tensor from a pinned async one */
    int pageable_h2d = m->copy_kind == SST_COPY_H2D && host_side_pageable(m);
    uint32_t cat = (uint32_t)ssa_copy_cat(m->copy_kind);
    size_t i;
    struct ssa_step *st =
        add_record(a, m->start_ns, m->end_ns, pageable_h2d ? SSA_EDGE_H2D_PAGEABLE : cat, &i);
    tl_add(a, &(struct ssa_tl_item){m->start_ns, m->end_ns, gpu_lane(m->device, m->stream),
                                    SSA_TL_GPU, (uint8_t)cat,
                                    host_side_pageable(m) ? SSA_TLN_COPY_PAGEABLE : SSA_TLN_COPY,
                                    m->bytes < UINT32_MAX ? (uint32_t)m->bytes : UINT32_MAX});
    if (!st) return;
    unsigned k = m->copy_kind < SSA_COPY_KINDS ? m->copy_kind : SST_COPY_OTHER;
    st->n.copies[k]++;
    st->n.copy_bytes[k] += m->bytes;
    st->n.copy_ns[k] += m->end_ns > m->start_ns ? m->end_ns - m->start_ns : 0;
    uint64_t d = m->end_ns > m->start_ns ? m->end_ns - m->start_ns : 0;
    int pageable = host_side_pageable(m), blocking = !(m->flags & SST_CF_ASYNC);
    if (pageable) {
        st->n.pageable_copies[k]++;
        st->n.pageable_bytes[k] += m->bytes;
        st->n.pageable_ns[k] += d;
    }
    if (blocking) st->n.blocking_copies++;
    if (blocking && pageable && k == SST_COPY_H2D) st->n.blocking_pageable_h2d_ns += d;
}

static void on_memset(struct attr *a, const struct sst_rec_memset *m)
{
    size_t i;
    struct ssa_step *st = add_record(a, m->start_ns, m->end_ns, SSA_CAT_MEMSET, &i);
    tl_add(a, &(struct ssa_tl_item){m->start_ns, m->end_ns, gpu_lane(m->device, m->stream),
                                    SSA_TL_GPU, SSA_CAT_MEMSET, SSA_TLN_NONE, 0});
    if (!st) return;
    st->n.memsets++;
    st->n.memset_ns += m->end_ns > m->start_ns ? m->end_ns - m->start_ns : 0;
}

/* GRAPH (graph mode: one record per graph launch, no records of its nodes): GPU busy for its
 * whole interval; what ran inside is not known, so it counts as compute.other. */
static void on_graph(struct attr *a, const struct sst_rec_graph *g)
{
    size_t i;
    struct ssa_step *st = add_record(a, g->start_ns, g->end_ns, SSA_CAT_COMPUTE_OTHER, &i);
    uint16_t dev = g->device == 0xffff ? 0 : g->device;
    tl_add(a, &(struct ssa_tl_item){g->start_ns, g->end_ns, gpu_lane(dev, g->stream), SSA_TL_GPU,
                                    SSA_CAT_COMPUTE_OTHER, SSA_TLN_GRAPH, g->graph_id});
    if (!st) return;
    st->n.graph_records++;
    st->n.graph_record_ns += g->end_ns > g->start_ns ? g->end_ns - g->start_ns : 0;
}

/* Every host thread of the process counts: PyTorch's backward() launches from the autograd
 * engine's thread while the main thread waits, so the host's state at an instant is the
 * highest-priority state of any thread (data > sync > alloc > launch > host, the sweep's). */
/* An API call on the timeline: on its thread's lane; an allocation on the memory lane too.
 * Made only when a timeline is drawn: built for every call, its copy of the times (a 16-byte
 * load across the two stores of the record's copy, which cannot be forwarded) cost a quarter of
 * pass 2's record loop (perf, 10 M records). */
static __attribute__((noinline)) void tl_api(struct attr *a, const struct sst_rec_api *api,
                                             enum ssa_api_class cls, uint32_t cat)
{
    struct ssa_tl_item it = {api->start_ns, api->end_ns, api->tid, SSA_TL_HOST,
                             (uint8_t)cat,
                             api->cbid <= 0xffffffu ? SSA_TLN_API : SSA_TLN_NONE, /* 24 bits */
                             (uint32_t)api->domain << 24 | (api->cbid & 0xffffffu)};
    tl_item(a, &it);
    if (cls == SSA_API_ALLOC) tl_item(a, &(struct ssa_tl_item){it.start_ns, it.end_ns, 0, SSA_TL_MEM,
                                                               it.cat, it.name_kind, it.name});
}

static void on_api(struct attr *a, const struct sst_rec_api *api)
{
    enum ssa_api_class cls = ssa_api_lut_get(&a->sc->api, api->domain, api->cbid);
    uint32_t cat = ssa_api_lut_cat(&a->sc->api, api->domain, api->cbid);
    size_t i;
    struct ssa_step *st;
    if (a->tl_on) tl_api(a, api, cls, cat);
    if (cls != SSA_API_OTHER)
        st = add_record(a, api->start_ns, api->end_ns, cat, &i);
    else
        st = step_in(a, step_after(a, api->start_ns), api->start_ns, &i);
    if (!st) return;
    uint64_t d = api->end_ns > api->start_ns ? api->end_ns - api->start_ns : 0;
    unsigned launch;
    switch (cls) {
    case SSA_API_LAUNCH:
        st->n.launches++, st->n.launch_api_ns += d;
        /* the per-launch estimate scales with kernel launches' calls only: a graph launch
         * blocks for its whole graph, a copy for its transfer */
        launch = ssa_api_lut_launch(&a->sc->api, api->domain, api->cbid);
        if (launch & SSA_LUT_KERNEL) a->res->launch_call_bins[ssa_call_bin(d)]++;
        if ((launch & SSA_LUT_KERNEL) &&
            ssa_qlat_note(&a->qlat, 0, api->correlation, api->start_ns))
            a->err = SS_ENOMEM;
        if (d >= SSA_LAUNCH_WAIT_NS) st->n.gpu.launch_wait_ns += d - SSA_LAUNCH_CALL_NS;
        st->n.graph_launches += (launch & SSA_LUT_GRAPH) != 0;
        break;
    case SSA_API_SYNC:
        st->n.syncs++, st->n.sync_api_ns += d;
        if (host_counts(a, i) && ssa_host_call_api(&a->sc->host, a->res, api, ssa_steps_group(a->sc, i), SSA_CAT_SYNC))
            a->err = SS_ENOMEM;
        break;
    case SSA_API_ALLOC:
        st->n.allocs++, st->n.alloc_api_ns += d;
        if (d >= SSA_LAUNCH_WAIT_NS && ssa_api_frees(api->domain, api->cbid))
            st->n.gpu.long_free_ns += d;
        if (host_counts(a, i) && ssa_host_call_api(&a->sc->host, a->res, api, ssa_steps_group(a->sc, i), SSA_CAT_ALLOC))
            a->err = SS_ENOMEM;
        break;
    default:
        st->n.other_api++;
        break;
    }
}

/* A device allocation or free (CUPTI MEMORY2, opt-in): an instant on the memory lane. */
static void on_memory(struct attr *a, const struct sst_rec_memory *m)
{
    uint32_t bytes = m->bytes < UINT32_MAX ? (uint32_t)m->bytes : UINT32_MAX;
    tl_add(a, &(struct ssa_tl_item){m->ts_ns, m->ts_ns, 0, SSA_TL_MEM, SSA_CAT_ALLOC,
                                    m->op == SST_MEMOP_FREE ? SSA_TLN_MEM_FREE : SSA_TLN_MEM_ALLOC,
                                    bytes});
}

/* SYNCHRONIZATION records carry no thread: they stand for the host's state only when the
 * trace has no API records (which do, and cover the same waits). */
static void on_sync(struct attr *a, const struct sst_rec_sync *s)
{
    size_t i;
    struct ssa_step *st = a->use_sync_records
                              ? add_record(a, s->start_ns, s->end_ns, SSA_CAT_SYNC, &i)
                              : step_in(a, step_after(a, s->start_ns), s->start_ns, &i);
    if (!st) return;
    st->n.sync_records++;
    st->n.sync_record_ns += s->end_ns > s->start_ns ? s->end_ns - s->start_ns : 0;
}

/* A torch.compile range [t0, t1): counted in the step it began in, clipped to that step
 * (the time is host work; the categories already hold it). */
static void on_compile(struct attr *a, uint64_t t0, uint64_t t1)
{
    size_t i;
    struct ssa_step *st = step_in(a, step_after(a, t0), t0, &i);
    if (!st || t1 < t0) return;
    uint64_t end = t1 < a->res->briefs[i].end_ns ? t1 : a->res->briefs[i].end_ns;
    st->n.compiles++;
    st->n.compile_ns += end - t0;
}

/* A recompile mark: dynamo is about to compile a frame again (a guard failed). */
static void on_nvtx_mark(struct attr *a, const struct sst_rec_nvtx *n)
{
    if (ssa_msg_base(ssa_msg_kind(&a->sc->msgs, a->r, n->domain, n->message)) != SSA_MSG_RECOMPILE)
        return;
    size_t i;
    struct ssa_step *st = step_in(a, step_after(a, n->ts_ns), n->ts_ns, &i);
    if (st) st->n.recompiles++;
}

static void on_nvtx(struct attr *a, const struct sst_rec_nvtx *n)
{
    struct ssa_stack *stack = ssa_stack_of(&a->stacks, n->tid);
    if (!stack) return; /* past SSA_NVTX_THREADS threads with ranges: ignored */
    if (n->h.type == SST_REC_NVTX_PUSH) {
        struct ssa_open_range o = {n->ts_ns, 0, n->message,
                                   (uint8_t)ssa_msg_kind(&a->sc->msgs, a->r, n->domain, n->message),
                                   0};
        ssa_stack_push(stack, &o);
        return;
    }
    struct ssa_open_range o;
    if (!ssa_stack_pop(stack, &o)) return;
    if (ssa_msg_base(o.kind) == SSA_MSG_COMPILE) {
        on_compile(a, o.ts, n->ts_ns);
        return;
    }
    if (ssa_msg_base(o.kind) != SSA_MSG_DATA) return;
    size_t i;
    struct ssa_step *st = add_record(a, o.ts, n->ts_ns, SSA_CAT_DATA, &i);
    tl_add(a, &(struct ssa_tl_item){o.ts, n->ts_ns, n->tid, SSA_TL_HOST, SSA_CAT_DATA, SSA_TLN_RANGE,
                                    o.message});
    if (st) st->n.data_ranges++;
}

/* The Python stack records (and the capture window) go to the sample stream, which places
 * each completed sample in its step (place_sample). */
static void attr_python(struct attr *a, const struct sst_rec_header *h)
{
    if (a->sc->host.py && ssa_pystream_feed(a->sc->host.py, a->r, h, place_sample, a))
        a->err = SS_ENOMEM;
}

/* Where a thread blocked in a CUDA call was (ssa_syncsite.c). */
static void attr_call(struct attr *a, const struct sst_rec_header *h)
{
    struct sst_rec_py_call c;
    if (!a->sc->host.py) return;
    sst_rec_load(h, &c, sizeof c);
    uint32_t stack = ssa_pystream_stack(a->sc->host.py, c.stack);
    if (stack && ssa_host_call_stack(&a->sc->host, a->res, &c, stack)) a->err = SS_ENOMEM;
}

/* An end CUPTI wrote when the capture closed (ssa_capture_end_trusted) becomes the start: the
 * record keeps its place and count, not a duration nobody measured. Returns the time cut. */
static uint64_t cut_end_at_close(struct attr *a, uint64_t start_ns, uint64_t *end_ns)
{
    if (ssa_capture_end_trusted(a->sc, start_ns, *end_ns)) return 0;
    uint64_t cut = *end_ns - start_ns;
    *end_ns = start_ns;
    a->res->gpu_ends_at_close++;
    return cut;
}

/* Pass 1 summed the kernel's whole duration into its name's total, which the report reads
 * from res->knames (copied before pass 2): take the cut back out there (the names are sorted
 * again after pass 2, ssa.c). */
static void kernel_cut(struct attr *a, struct sst_rec_kernel *k)
{
    uint64_t cut = cut_end_at_close(a, k->start_ns, &k->end_ns);
    struct ssa_knstat *kn = cut ? ssa_kn_find(a->sc, k->name) : NULL;
    if (!kn) return;
    struct ssa_kname *kk = &a->res->knames[kn->rank];
    kk->total_ns -= cut < kk->total_ns ? cut : kk->total_ns;
}

/* Kernels, copies, memsets and graph launches: 1 when h was one of them. */
static int attr_gpu_record(struct attr *a, const struct sst_rec_header *h)
{
    switch (h->type) {
    case SST_REC_KERNEL: {
        struct sst_rec_kernel k;
        SSA_LOAD(h, k);
        kernel_cut(a, &k);
        on_kernel(a, &k);
        break;
    }
    case SST_REC_MEMCPY: {
        struct sst_rec_memcpy m;
        SSA_LOAD(h, m);
        cut_end_at_close(a, m.start_ns, &m.end_ns);
        on_memcpy(a, &m);
        break;
    }
    case SST_REC_MEMSET: {
        struct sst_rec_memset m;
        SSA_LOAD(h, m);
        cut_end_at_close(a, m.start_ns, &m.end_ns);
        on_memset(a, &m);
        break;
    }
    case SST_REC_GRAPH: {
        struct sst_rec_graph g;
        SSA_LOAD(h, g);
        cut_end_at_close(a, g.start_ns, &g.end_ns);
        on_graph(a, &g);
        break;
    }
    default:
        return 0;
    }
    return 1;
}

static void attr_record(struct attr *a, const struct sst_rec_header *h)
{
    if (attr_gpu_record(a, h)) return;
    switch (h->type) {
    case SST_REC_API: {
        struct sst_rec_api api;
        SSA_LOAD(h, api);
        on_api(a, &api);
        break;
    }
    case SST_REC_SYNC: {
        struct sst_rec_sync s;
        SSA_LOAD(h, s);
        on_sync(a, &s);
        break;
    }
    case SST_REC_MEMORY: {
        struct sst_rec_memory m;
        SSA_LOAD(h, m);
        if (a->tl_on) on_memory(a, &m);
        break;
    }
    case SST_REC_NVTX_PUSH:
    case SST_REC_NVTX_POP:
    case SST_REC_NVTX_MARK: {
        struct sst_rec_nvtx n;
        SSA_LOAD(h, n);
        if (h->type == SST_REC_NVTX_MARK)
            on_nvtx_mark(a, &n);
        else
            on_nvtx(a, &n);
        break;
    }
    case SST_REC_PY_FRAME:
    case SST_REC_PY_STACK:
    case SST_REC_PY_SAMPLE:
    case SST_REC_CAPTURE:
        attr_python(a, h);
        break;
    case SST_REC_PY_CALL:
        attr_call(a, h);
        break;
    default:
        break;
    }
}

/* After the last record of a block: every step that ends before anything later can start
 * is complete. */
static void after_record(struct attr *a)
{
    const struct ssa_scan *sc = a->sc;
    a->n_records++;
    if (a->n_records & (sc->block_size - 1)) return; /* a power of two */
    uint64_t next = a->n_records >> sc->block_shift; /* the next block */
    finalize_until(a, next < sc->n_blocks ? a->sufmin[next] : UINT64_MAX);
}

static int attr_setup(struct attr *a)
{
    const struct ssa_scan *sc = a->sc;
    a->compact = a->res->compact;
    a->sufmin = malloc((sc->n_blocks ? sc->n_blocks : 1) * sizeof *a->sufmin);
    if (!a->sufmin) return SS_ENOMEM;
    uint64_t m = UINT64_MAX;
    for (size_t b = sc->n_blocks; b-- > 0;) {
        if (sc->block_min[b] < m) m = sc->block_min[b];
        a->sufmin[b] = m;
    }
    a->use_sync_records = a->res->api_calls == 0;
    a->tl_on = a->res->n_tl > 0;
    uint64_t kernels = 0;
    for (size_t i = 0; i < sc->n_kn; i++)
        kernels += sc->kn[i].count;
    ssa_qlat_init(&a->qlat, kernels);
    double hz = ssa_py_rate_hz(&a->res->env);
    a->rate_span = (uint64_t)(SSA_PY_RATE_SPAN * 1e9 / (hz > 0 ? hz : SSA_PY_DEFAULT_HZ));
    return ssa_host_begin(&a->sc->host, a->res);
}

/* Steps swept on a thread of their own (ssa_scan.sweep_thread): only in compact mode without
 * a timeline, where nothing of a closed step is touched again until it is finished (a full
 * result's step still counts late records; a timeline is drawn by the sweep and the records
 * alike). Without the thread the sweep runs here, the same. */
static void pipe_start(struct attr *a)
{
    if (!a->sc->sweep_thread || !a->compact || a->tl_on) return;
    a->flight = malloc(SSA_SWEEP_AHEAD * sizeof *a->flight);
    a->piped = a->flight && ssa_pipe_start(&a->pipe, sizeof(struct sweep_job), SSA_SWEEP_AHEAD,
                                           sweep_job_run, &a->sw) == 0;
}

/* Finishes every step handed to the sweep thread, and stops it. */
static void pipe_stop(struct attr *a)
{
    if (!a->piped) return;
    ssa_pipe_push(&a->pipe); /* steps handed off before an error */
    while (retire_one(a, 1))
        ;
    ssa_pipe_stop(&a->pipe);
    a->piped = 0;
}

static void attr_free(struct attr *a)
{
    pipe_stop(a);
    for (size_t k = 0; k < a->ring_cap; k++)
        free(a->ring[k].e.host.v), free(a->ring[k].e.gpu.v), free(a->ring[k].e.smp.v);
    free(a->launch_rel);
    free(a->flight);
    free(a->qlat.launch.v), free(a->qlat.kernel.v);
    for (size_t i = 0; i < a->n_pool; i++)
        free(a->pool[i].v);
    free(a->ring);
    free(a->sufmin);
    ssa_stacks_free(&a->stacks);
}

int ssa_attr_run(struct sst_reader *r, struct ssa_scan *sc, struct ssa_result *res)
{
    struct attr a;
    memset(&a, 0, sizeof a);
    a.sc = sc, a.res = res, a.r = r;
    int rc = attr_setup(&a);
    if (rc == 0) pipe_start(&a);
    const struct sst_rec_header *h;
    while (rc == 0 && (rc = sst_reader_next(r, &h)) == 1) {
        /* pass 2 meets the file's bytes first (no checksum now): ask for them ~70 records
         * ahead. A prefetch never faults, past the chunk or the mapping too. */
        __builtin_prefetch((const void *)((uintptr_t)h + 4096));
        attr_record(&a, h);
        after_record(&a);
        rc = a.err;
    }
    if (rc == 0 && sc->host.py) ssa_pystream_flush(sc->host.py, place_sample, &a);
    if (rc == 0) rc = a.err;
    if (rc == 0) finalize_until(&a, UINT64_MAX); /* the end: every step is complete */
    if (rc == 0) ssa_qlat_finish(&a.qlat, &res->qlat_matched, &res->qlat_prompt);
    pipe_stop(&a);
    if (rc == 0) rc = a.err;
    if (a.buffered > a.peak) a.peak = a.buffered; /* on an error, steps left open */
    res->peak_buffered_intervals = a.peak / 2;
    res->late_intervals = a.late;
    attr_free(&a);
    return rc < 0 ? rc : 0;
}
