/*
 * ssa_attr.c — pass 2: stream the records again and attribute every instant of each step.
 *
 * Each record becomes at most one interval with a category: a kernel its class's, a copy
 * its direction's, a memset MEMSET; on any host thread of the process an API call
 * LAUNCH/SYNC/ALLOC by the one table (ssa_api_class.c) and a "data" range DATA. The interval is clipped to
 * every step it overlaps and kept in that step's buffer as two edges (+1 at its start, -1
 * at its end). Records arrive in file order, which is not time order (CUPTI delivers its
 * buffers late), so a step's buffer stays open until pass 1's block minima prove that no
 * later record can start before the step's end; then the step is swept and the buffer
 * goes back to a small pool. Memory: the edges of the steps still open, never the trace.
 *
 * The sweep walks the sorted edges keeping a count of open intervals per category; each
 * stretch between two edges goes to the first category (enum order = priority) with an
 * open interval, else to HOST. The stretches partition [begin, end), so the categories sum
 * exactly to the step's wall time.
 */
#include <stdlib.h>
#include <string.h>

#include "ssa_internal.h"
#include "util/ss_error.h"

struct edge {
    uint64_t t;
    uint32_t cat;
    int32_t delta;
};

struct stepbuf {
    struct edge *v;
    size_t n, cap;
};

#define SSA_POOL 16 /* spare buffers kept for reuse */

struct attr {
    struct ssa_scan *sc;
    struct ssa_result *res;
    struct sst_reader *r;
    struct stepbuf *bufs; /* one per step; empty once the step is finalised */
    struct stepbuf pool[SSA_POOL];
    size_t n_pool;
    size_t fin_next; /* steps before this one are final */
    size_t cursor;   /* last step found: records come mostly in time order */
    struct ssa_stacks stacks; /* NVTX push/pop per host thread: "data" ranges on any thread */
    int use_sync_records;
    uint64_t *sufmin; /* sufmin[b]: earliest contribution time of blocks b, b+1, ... */
    uint64_t n_records;
    size_t buffered, peak;
    uint64_t late; /* intervals that reached an already final step (should stay 0) */
    int err;
};

/* The first step whose end is after t (steps are sorted and do not overlap), or n_steps. */
static size_t step_after(struct attr *a, uint64_t t)
{
    const struct ssa_step *s = a->res->steps;
    size_t n = a->res->n_steps, c = a->cursor;
    if (c < n && s[c].end_ns > t && (c == 0 || s[c - 1].end_ns <= t)) return c;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].end_ns > t) hi = mid;
        else lo = mid + 1;
    }
    a->cursor = lo;
    return lo;
}

/* The step that contains t, or NULL (before the first, after the last, in a gap). */
static struct ssa_step *step_at(struct attr *a, uint64_t t, size_t *index)
{
    size_t i = step_after(a, t);
    if (i >= a->res->n_steps || a->res->steps[i].begin_ns > t) return NULL;
    *index = i;
    return &a->res->steps[i];
}

static int buf_push(struct attr *a, struct stepbuf *b, uint64_t s, uint64_t e, uint32_t cat)
{
    if (b->n + 2 > b->cap) {
        if (b->cap == 0 && a->n_pool > 0) {
            *b = a->pool[--a->n_pool];
            b->n = 0;
        }
        if (b->n + 2 > b->cap) {
            size_t cap = b->cap ? b->cap * 2 : 256;
            struct edge *v = realloc(b->v, cap * sizeof *v);
            if (!v) return SS_ENOMEM;
            b->v = v;
            b->cap = cap;
        }
    }
    b->v[b->n++] = (struct edge){s, cat, 1};
    b->v[b->n++] = (struct edge){e, cat, -1};
    a->buffered += 2;
    if (a->buffered > a->peak) a->peak = a->buffered;
    return 0;
}

/* Clips [s, e) to each step it overlaps and buffers it there. */
static void add_interval(struct attr *a, uint64_t s, uint64_t e, uint32_t cat)
{
    if (e < s) {
        uint64_t t = s;
        s = e, e = t;
    }
    if (e == s) return;
    for (size_t i = step_after(a, s); i < a->res->n_steps; i++) {
        struct ssa_step *st = &a->res->steps[i];
        if (st->begin_ns >= e) break;
        uint64_t cs = s > st->begin_ns ? s : st->begin_ns, ce = e < st->end_ns ? e : st->end_ns;
        if (ce <= cs) continue;
        if (i < a->fin_next) {
            a->late++;
            continue;
        }
        if (buf_push(a, &a->bufs[i], cs, ce, cat)) {
            a->err = SS_ENOMEM;
            return;
        }
        if (cat == SSA_CAT_DATA) st->n.data_ns += ce - cs; /* GPU busy or not */
    }
}

/* ---- the sweep ---- */

static int cmp_edge(const void *x, const void *y)
{
    const struct edge *p = x, *q = y;
    return p->t < q->t ? -1 : p->t > q->t;
}

static uint32_t top_cat(const uint32_t *open)
{
    for (uint32_t c = 0; c < SSA_CAT_HOST; c++)
        if (open[c]) return c;
    return SSA_CAT_HOST;
}

/* A run of GPU-idle stretches between two busy ones: short runs spent launching or in
 * other host work are the per-kernel host overhead of a launch-bound step. Runs that touch
 * the step's edges are not "between kernels" and are left out. */
static int run_len_short(uint64_t t0, uint64_t t1)
{
    return t1 - t0 < SSA_SHORT_GAP_NS;
}

struct idle_run {
    uint64_t start, lh_ns; /* lh: launch + host time in the run */
    int open, at_edge;
};

static void idle_stretch(struct ssa_step *st, struct idle_run *run, uint32_t cat, uint64_t t0,
                         uint64_t t1)
{
    if (cat < SSA_CAT_FIRST_IDLE) { /* busy: closes the run */
        if (run->open && !run->at_edge && run_len_short(run->start, t0) && run->lh_ns) {
            st->n.short_gap_ns += run->lh_ns;
            st->n.short_gaps++;
        }
        run->open = 0;
        return;
    }
    if (!run->open) *run = (struct idle_run){t0, 0, 1, t0 == st->begin_ns};
    if (cat == SSA_CAT_LAUNCH || cat == SSA_CAT_HOST) run->lh_ns += t1 - t0;
}

static void sweep(struct ssa_step *st, struct edge *e, size_t n)
{
    uint32_t open[SSA_CAT_COUNT] = {0};
    uint64_t prev = st->begin_ns;
    struct idle_run run = {0};
    if (n > 1) qsort(e, n, sizeof *e, cmp_edge);
    for (size_t i = 0; i < n; i++) {
        if (e[i].t > prev) {
            uint32_t c = top_cat(open);
            st->cat_ns[c] += e[i].t - prev;
            idle_stretch(st, &run, c, prev, e[i].t);
            prev = e[i].t;
        }
        open[e[i].cat] += (uint32_t)e[i].delta; /* -1 wraps back: counts stay exact */
    }
    st->cat_ns[top_cat(open)] += st->end_ns - prev;
}

static void finalize_step(struct attr *a, size_t i)
{
    struct stepbuf *b = &a->bufs[i];
    sweep(&a->res->steps[i], b->v, b->n);
    a->buffered -= b->n;
    if (b->cap && a->n_pool < SSA_POOL) a->pool[a->n_pool++] = *b;
    else free(b->v);
    memset(b, 0, sizeof *b);
}

static void finalize_until(struct attr *a, uint64_t limit)
{
    while (a->fin_next < a->res->n_steps && a->res->steps[a->fin_next].end_ns <= limit)
        finalize_step(a, a->fin_next++);
}

/* ---- records ---- */

static void on_kernel(struct attr *a, const struct sst_rec_kernel *k)
{
    uint32_t *ix = ssa_idmap_get(&a->sc->kname_index, k->name);
    struct ssa_knstat *kn = ix ? &a->sc->kn[*ix] : NULL;
    int kc = kn ? kn->kclass : SSA_KC_OTHER;
    add_interval(a, k->start_ns, k->end_ns, (uint32_t)ssa_kclass_cat(kc));
    size_t i;
    struct ssa_step *st = step_at(a, k->start_ns, &i);
    if (!st) return;
    st->n.kernels++;
    st->n.kernels_by_class[kc]++;
    st->n.kernel_ns_by_class[kc] += k->end_ns > k->start_ns ? k->end_ns - k->start_ns : 0;
    if (kn) {
        if (!kn->first_step) kn->first_step = (uint32_t)(i + 1);
        kn->last_step = (uint32_t)(i + 1);
    }
}

static uint32_t copy_cat(uint8_t kind)
{
    switch (kind) {
    case SST_COPY_H2D: return SSA_CAT_COPY_H2D;
    case SST_COPY_D2H: return SSA_CAT_COPY_D2H;
    case SST_COPY_D2D: return SSA_CAT_COPY_D2D;
    case SST_COPY_P2P: return SSA_CAT_COPY_P2P;
    default: return SSA_CAT_COPY_OTHER;
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
    add_interval(a, m->start_ns, m->end_ns, copy_cat(m->copy_kind));
    size_t i;
    struct ssa_step *st = step_at(a, m->start_ns, &i);
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
    add_interval(a, m->start_ns, m->end_ns, SSA_CAT_MEMSET);
    size_t i;
    struct ssa_step *st = step_at(a, m->start_ns, &i);
    if (!st) return;
    st->n.memsets++;
    st->n.memset_ns += m->end_ns > m->start_ns ? m->end_ns - m->start_ns : 0;
}

/* Every host thread of the process counts: PyTorch's backward() launches from the autograd
 * engine's thread while the main thread waits, so the host's state at an instant is the
 * highest-priority state of any thread (data > sync > alloc > launch > host, the sweep's). */
static void on_api(struct attr *a, const struct sst_rec_api *api)
{
    enum ssa_api_class cls = ssa_api_class(api->domain, api->cbid);
    static const uint32_t cat_of[] = {SSA_CAT_HOST, SSA_CAT_LAUNCH, SSA_CAT_SYNC, SSA_CAT_ALLOC};
    if (cls != SSA_API_OTHER) add_interval(a, api->start_ns, api->end_ns, cat_of[cls]);
    size_t i;
    struct ssa_step *st = step_at(a, api->start_ns, &i);
    if (!st) return;
    uint64_t d = api->end_ns > api->start_ns ? api->end_ns - api->start_ns : 0;
    switch (cls) {
    case SSA_API_LAUNCH: st->n.launches++, st->n.launch_api_ns += d; break;
    case SSA_API_SYNC: st->n.syncs++, st->n.sync_api_ns += d; break;
    case SSA_API_ALLOC: st->n.allocs++, st->n.alloc_api_ns += d; break;
    default: st->n.other_api++; break;
    }
}

/* SYNCHRONIZATION records carry no thread: they stand for the host's state only when the
 * trace has no API records (which do, and cover the same waits). */
static void on_sync(struct attr *a, const struct sst_rec_sync *s)
{
    if (a->use_sync_records) add_interval(a, s->start_ns, s->end_ns, SSA_CAT_SYNC);
    size_t i;
    struct ssa_step *st = step_at(a, s->start_ns, &i);
    if (!st) return;
    st->n.sync_records++;
    st->n.sync_record_ns += s->end_ns > s->start_ns ? s->end_ns - s->start_ns : 0;
}

static void on_nvtx(struct attr *a, const struct sst_rec_nvtx *n)
{
    struct ssa_stack *stack = ssa_stack_of(&a->stacks, n->tid);
    if (!stack) return; /* past SSA_NVTX_THREADS threads with ranges: ignored */
    if (n->h.type == SST_REC_NVTX_PUSH) {
        struct ssa_open_range o = {n->ts_ns, 0, n->message,
                                   (uint8_t)ssa_msg_kind(&a->sc->msgs, a->r, n->domain,
                                                         n->message),
                                   0};
        ssa_stack_push(stack, &o);
        return;
    }
    struct ssa_open_range o;
    if (!ssa_stack_pop(stack, &o) || o.kind != SSA_MSG_DATA) return;
    add_interval(a, o.ts, n->ts_ns, SSA_CAT_DATA);
    size_t i;
    struct ssa_step *st = step_at(a, o.ts, &i);
    if (st) st->n.data_ranges++;
}

static void attr_record(struct attr *a, const struct sst_rec_header *h)
{
    switch (h->type) {
    case SST_REC_KERNEL: {
        struct sst_rec_kernel k;
        SSA_LOAD(h, k);
        on_kernel(a, &k);
        break;
    }
    case SST_REC_MEMCPY: {
        struct sst_rec_memcpy m;
        SSA_LOAD(h, m);
        on_memcpy(a, &m);
        break;
    }
    case SST_REC_MEMSET: {
        struct sst_rec_memset m;
        SSA_LOAD(h, m);
        on_memset(a, &m);
        break;
    }
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
    case SST_REC_NVTX_PUSH:
    case SST_REC_NVTX_POP: {
        struct sst_rec_nvtx n;
        SSA_LOAD(h, n);
        on_nvtx(a, &n);
        break;
    }
    default: break;
    }
}

/* After the last record of a block: every step that ends before anything later can start
 * is complete. */
static void after_record(struct attr *a)
{
    const struct ssa_scan *sc = a->sc;
    a->n_records++;
    if (a->n_records % sc->block_size) return;
    uint64_t next = a->n_records / sc->block_size; /* the next block */
    finalize_until(a, next < sc->n_blocks ? a->sufmin[next] : UINT64_MAX);
}

static int attr_setup(struct attr *a)
{
    const struct ssa_scan *sc = a->sc;
    a->bufs = calloc(a->res->n_steps ? a->res->n_steps : 1, sizeof *a->bufs);
    a->sufmin = malloc((sc->n_blocks ? sc->n_blocks : 1) * sizeof *a->sufmin);
    if (!a->bufs || !a->sufmin) return SS_ENOMEM;
    uint64_t m = UINT64_MAX;
    for (size_t b = sc->n_blocks; b-- > 0;) {
        if (sc->block_min[b] < m) m = sc->block_min[b];
        a->sufmin[b] = m;
    }
    a->use_sync_records = a->res->api_calls == 0;
    return 0;
}

static void attr_free(struct attr *a)
{
    if (a->bufs)
        for (size_t i = 0; i < a->res->n_steps; i++) free(a->bufs[i].v);
    for (size_t i = 0; i < a->n_pool; i++) free(a->pool[i].v);
    free(a->bufs);
    free(a->sufmin);
    ssa_stacks_free(&a->stacks);
}

int ssa_attr_run(struct sst_reader *r, struct ssa_scan *sc, struct ssa_result *res)
{
    struct attr a;
    memset(&a, 0, sizeof a);
    a.sc = sc, a.res = res, a.r = r;
    int rc = attr_setup(&a);
    const struct sst_rec_header *h;
    while (rc == 0 && (rc = sst_reader_next(r, &h)) == 1) {
        attr_record(&a, h);
        after_record(&a);
        rc = a.err;
    }
    if (rc == 0) finalize_until(&a, UINT64_MAX); /* the end: every step is complete */
    res->peak_buffered_intervals = a.peak / 2;
    res->late_intervals = a.late;
    attr_free(&a);
    return rc < 0 ? rc : 0;
}
