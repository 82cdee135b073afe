/*
 * ssa_scan.c — pass 1: what must be known before any event can be attributed.
 *
 * One streaming pass keeps only what grows with names, threads and steps: the step
 * candidates of each source (STEP records, NVTX "step" ranges, ProfilerStep#N ranges), the
 * launch calls per thread (to find the training thread when there are no markers), the
 * kernel names with their class and totals, the trace's facts (process, devices, span,
 * state) and, per block of records, the earliest time a record of the block can touch.
 * That last array (at most SSA_MAX_BLOCKS entries: blocks double in size when it fills)
 * lets pass 2 know exactly when no later record can fall into a step (README.md).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ssa_internal.h"
#include "util/ss_error.h"

static char *dup_string(struct sst_reader *r, uint32_t id)
{
    uint32_t len;
    const char *s = sst_reader_string(r, id, &len);
    if (!s) return NULL;
    char *d = malloc((size_t)len + 1);
    if (!d) return NULL;
    memcpy(d, s, len);
    d[len] = 0;
    return d;
}

/* Folds pairs of blocks until block b fits: bounded memory. Returns the new b. */
static __attribute__((noinline)) uint64_t fold_blocks(struct ssa_scan *sc, uint64_t b)
{
    while (b >= SSA_MAX_BLOCKS) {
        for (size_t i = 0; i < SSA_MAX_BLOCKS / 2; i++) {
            uint64_t x = sc->block_min[2 * i], y = sc->block_min[2 * i + 1];
            sc->block_min[i] = x < y ? x : y;
        }
        for (size_t i = SSA_MAX_BLOCKS / 2; i < SSA_MAX_BLOCKS; i++)
            sc->block_min[i] = UINT64_MAX;
        sc->block_size *= 2;
        sc->block_shift++;
        b = sc->n_records >> sc->block_shift;
    }
    return b;
}

/* Records the earliest contribution time of the current record in its block. */
static inline int note_block_time(struct ssa_scan *sc, uint64_t t)
{
    uint64_t b = sc->n_records >> sc->block_shift;
    if (b >= SSA_MAX_BLOCKS) b = fold_blocks(sc, b);
    if (b >= sc->n_blocks) sc->n_blocks = b + 1;
    if (t < sc->block_min[b]) sc->block_min[b] = t;
    return 0;
}

static void note_span(struct ssa_scan *sc, struct ssa_result *res, uint64_t t0, uint64_t t1)
{
    if (!sc->have_span || t0 < res->first_ns) res->first_ns = t0;
    if (!sc->have_span || t1 > res->last_ns) res->last_ns = t1;
    sc->have_span = 1;
}

/* SSA_ALIGN_KEEP: whether a kernel name is a collective's (ssa_knstat.coll), decided once. */
static uint8_t coll_of(const char *text, uint32_t len, uint32_t *hash)
{
    if (!ssa_align_collective(text, len)) return SSA_COLL_NO;
    *hash = ssa_align_name_hash(text, len);
    return SSA_COLL_YES;
}

/* A collective kernel for the alignment. A name whose text was not there when it was first
 * seen (its STRING record later, a damaged trace) is looked at again for each of its kernels
 * until it is: what ssa_align_load, which looks at every kernel's name, would keep. */
static __attribute__((noinline)) int keep_collective(struct ssa_scan *sc, struct sst_reader *r,
                                                     struct ssa_knstat *n,
                                                     const struct sst_rec_kernel *k)
{
    uint32_t len;
    const char *text;
    if (n->coll == SSA_COLL_UNREAD && (text = sst_reader_string(r, k->name, &len)))
        n->coll = coll_of(text, len, &n->coll_hash);
    if (n->coll != SSA_COLL_YES) return 0;
    return ssa_align_collect_kernel(sc->align, k, n->coll_hash);
}

/* A new kernel name's entry (its class decided once, from its text). NULL: out of memory. */
static __attribute__((noinline)) struct ssa_knstat *add_kname(struct ssa_scan *sc,
                                                              struct sst_reader *r, uint32_t name)
{
    if (name < SSA_KN_DENSE && !sc->kn_dense &&
        !(sc->kn_dense = calloc(SSA_KN_DENSE, sizeof *sc->kn_dense)))
        return NULL;
    if (sc->n_kn == sc->cap_kn) {
        size_t cap = sc->cap_kn ? sc->cap_kn * 2 : 256;
        struct ssa_knstat *v = realloc(sc->kn, cap * sizeof *v);
        if (!v) return NULL;
        sc->kn = v;
        sc->cap_kn = cap;
    }
    uint32_t len;
    struct ssa_knstat *n = &sc->kn[sc->n_kn];
    memset(n, 0, sizeof *n);
    n->name_id = name;
    const char *text = sst_reader_string(r, name, &len);
    int adam;
    n->kclass = (uint8_t)ssa_kernel_class(text);
    n->kcat = (uint8_t)ssa_kclass_cat(n->kclass);
    n->edge_cat = ssa_kernel_edge_cat(n->kcat, text);
    n->opt_kind = (uint8_t)ssa_optimizer_kind(text, &adam);
    n->opt_adam = (uint8_t)adam;
    if (sc->align) n->coll = text ? coll_of(text, len, &n->coll_hash) : SSA_COLL_UNREAD;
    if (!ssa_idmap_put(&sc->kname_index, name, (uint32_t)sc->n_kn)) return NULL;
    sc->n_kn++;
    if (name < SSA_KN_DENSE) sc->kn_dense[name] = (uint32_t)sc->n_kn; /* index + 1 */
    return n;
}

SSA_HOT int note_kernel(struct ssa_scan *sc, struct sst_reader *r, struct ssa_result *res,
                        const struct sst_rec_kernel *k)
{
    res->kernel_devices |= 1ull << (k->device & 63);
    if (sc->n_open) ssa_capture_gpu_op(sc, k->start_ns, k->correlation);
    struct ssa_knstat *n = ssa_kn_find(sc, k->name);
    if (!n && !(n = add_kname(sc, r, k->name))) return SS_ENOMEM;
    n->count++;
    n->total_ns += k->end_ns > k->start_ns ? k->end_ns - k->start_ns : 0;
    res->kernels++;
    return n->coll ? keep_collective(sc, r, n, k) : 0;
}

static int note_step_record(struct ssa_scan *sc, const struct sst_rec_step *s)
{
    if (s->phase == SST_STEP_BEGIN || s->phase == SST_STEP_MARK) {
        struct ssa_cand c = {s->ts_ns, 0, s->step, s->tid, s->phase == SST_STEP_MARK};
        if (ssa_cand_add(&sc->step_recs, &c)) return SS_ENOMEM;
        if (s->phase == SST_STEP_MARK) return 0;
        uint32_t *open = ssa_idmap_put(&sc->step_open, s->tid, 0);
        if (!open) return SS_ENOMEM;
        *open = (uint32_t)sc->step_recs.n; /* index + 1 */
    } else if (s->phase == SST_STEP_END) {
        uint32_t *open = ssa_idmap_get(&sc->step_open, s->tid);
        if (open && *open) {
            struct ssa_cand *c = &sc->step_recs.v[*open - 1];
            if (s->ts_ns >= c->begin) c->end = s->ts_ns;
            *open = 0;
        }
    }
    return 0;
}

/* NVTX push/pop: returns the time the range began for a pop (its contribution time). */
/* The text of a compile mark after its prefix ("recompile: "), into out ("" kept when set). */
static void keep_reason(struct sst_reader *r, uint32_t message, size_t prefix, char *out,
                        size_t size)
{
    uint32_t len;
    const char *s = out[0] ? NULL : sst_reader_string(r, message, &len);
    if (s && len > prefix)
        snprintf(out, size, "%.*s", (int)(len - prefix), s + prefix);
}

/* The "key=N" values of mark message (" key=" as each keys[k] spells it) into *slot[k]: those
 * that read as numbers in [lo, 1e30) (lo > 0: a positive number); the others are left as
 * they were. 0 when the message has no text. */
static int read_keyed(struct sst_reader *r, uint32_t message, const char *const *keys,
                      double *const *slot, int n, double lo)
{
    uint32_t len;
    const char *s = sst_reader_string(r, message, &len);
    char text[320];
    if (!s) return 0;
    snprintf(text, sizeof text, "%.*s", (int)len, s);
    for (int k = 0; k < n; k++) {
        const char *at = strstr(text, keys[k]);
        char *end;
        double v = at ? strtod(at + strlen(keys[k]), &end) : 0;
        if (at && end != at + strlen(keys[k]) && v >= lo && v < 1e30) *slot[k] = v;
    }
    return 1;
}

/* "batch: samples=N tokens=N flops=N" (any of them, any order; docs/markers.md): the values
 * of the last mark stand for every step. A value that is no positive number is skipped. */
static void keep_batch(struct sst_reader *r, uint32_t message, struct ssa_batch *b)
{
    static const char *const keys[] = {" samples=", " tokens=", " flops="};
    double *const slot[] = {&b->samples, &b->tokens, &b->flops};
    b->marks += (uint64_t)read_keyed(r, message, keys, slot, 3, 1e-300);
}

/* "dataloader: workers=N batch_size=N pin_memory=0|1 persistent_workers=0|1 samples=N
 * tokens=N batches_per_step=N params=N" (the Python shim's, docs/markers.md): the last mark
 * stands whole; a value that is no number in range reads as 0 (unknown). */
static void keep_loader(struct sst_reader *r, uint32_t message, struct ssa_loader *l)
{
    static const char *const keys[] = {" workers=", " batch_size=", " pin_memory=",
                                       " persistent_workers=", " samples=", " tokens=",
                                       " batches_per_step=", " params="};
    struct ssa_loader fresh = {.marks = l->marks};
    double *const slot[] = {&fresh.workers, &fresh.batch_size, &fresh.pin_memory,
                            &fresh.persistent, &fresh.samples, &fresh.tokens, &fresh.per_step,
                            &fresh.params};
    if (!read_keyed(r, message, keys, slot, 8, 0)) return;
    *l = fresh;
    l->marks++;
}

/* The shim's torch.compile marks: recompiles and graph breaks, their first reasons. */
static void note_mark(struct ssa_scan *sc, struct sst_reader *r, struct ssa_result *res,
                      const struct sst_rec_nvtx *n)
{
    struct ssa_program *p = &res->program;
    enum ssa_msg kind = ssa_msg_base(ssa_msg_kind(&sc->msgs, r, n->domain, n->message));
    if (kind == SSA_MSG_RECOMPILE) {
        p->recompiles++;
        keep_reason(r, n->message, 11, p->recompile_reason, sizeof p->recompile_reason);
    } else if (kind == SSA_MSG_GRAPH_BREAK) {
        p->graph_breaks++;
        keep_reason(r, n->message, 13, p->graph_break_reason, sizeof p->graph_break_reason);
    } else if (kind == SSA_MSG_BATCH) {
        keep_batch(r, n->message, &res->batch);
    } else if (kind == SSA_MSG_LOADER) {
        keep_loader(r, n->message, &res->loader);
    }
}

/* Keeps where a compile range began (the first SSA_COMPILE_STARTS: warm-up is at the start). */
static int keep_compile_start(struct ssa_scan *sc, uint64_t t)
{
    if (sc->n_compile_starts == SSA_COMPILE_STARTS) return 0;
    if (!sc->compile_starts) {
        sc->compile_starts = malloc(SSA_COMPILE_STARTS * sizeof *sc->compile_starts);
        if (!sc->compile_starts) return SS_ENOMEM;
    }
    sc->compile_starts[sc->n_compile_starts++] = t;
    return 0;
}

static int note_nvtx(struct ssa_scan *sc, struct sst_reader *r, struct ssa_result *res,
                     const struct sst_rec_nvtx *n, uint64_t *contrib)
{
    struct ssa_stack *st = ssa_stack_of(&sc->stacks, n->tid);
    *contrib = n->ts_ns;
    if (!st) return 0;
    if (n->h.type == SST_REC_NVTX_PUSH) {
        struct ssa_open_range o = {n->ts_ns, n->payload, n->message,
                                   (uint8_t)ssa_msg_kind(&sc->msgs, r, n->domain, n->message),
                                   n->payload_type != SST_PAYLOAD_NONE};
        if (o.kind & SSA_MSG_USER_BIT) st->user_open++;
        ssa_stack_push(st, &o);
        return 0;
    }
    struct ssa_open_range o;
    if (!ssa_stack_pop(st, &o)) return 0;
    *contrib = o.ts < n->ts_ns ? o.ts : n->ts_ns;
    struct ssa_cand c = {o.ts, n->ts_ns >= o.ts ? n->ts_ns : o.ts, 0, n->tid, 0};
    if ((o.kind & SSA_MSG_USER_BIT) && st->user_open && --st->user_open == 0) {
        c.number = o.has_payload ? o.payload : sc->user_steps.n; /* the outermost match */
        if (ssa_cand_add(&sc->user_steps, &c)) return SS_ENOMEM;
    }
    o.kind = (uint8_t)ssa_msg_base(o.kind);
    if (o.kind == SSA_MSG_COMPILE) {
        res->program.compiles++;
        res->program.compile_ns += c.end - c.begin;
        return keep_compile_start(sc, c.begin);
    }
    if (o.kind == SSA_MSG_STEP) {
        c.number = o.has_payload ? o.payload : sc->nvtx_steps.n;
        return ssa_cand_add(&sc->nvtx_steps, &c) ? SS_ENOMEM : 0;
    }
    if (o.kind == SSA_MSG_PROFILER) {
        c.number = ssa_profiler_step_number(r, o.message, sc->prof_steps.n);
        return ssa_cand_add(&sc->prof_steps, &c) ? SS_ENOMEM : 0;
    }
    return 0;
}

/* Adds the current run of one thread's launches to launch_by_tid. Threads enter the map in
 * the order of their first launch, as when each launch went in on its own. */
static int flush_launches(struct ssa_scan *sc)
{
    if (!sc->launch_pending) return 0;
    uint32_t *n = ssa_idmap_put(&sc->launch_by_tid, sc->launch_tid, 0);
    if (!n) return SS_ENOMEM;
    *n += sc->launch_pending;
    sc->launch_pending = 0;
    return 0;
}

SSA_HOT int note_api(struct ssa_scan *sc, struct ssa_result *res, const struct sst_rec_api *a)
{
    res->api_calls++;
    if (sc->n_open) ssa_capture_api(sc, a);
    if (ssa_api_lut_get(&sc->api, a->domain, a->cbid) != SSA_API_LAUNCH) return 0;
    sc->graph_launch_calls += (ssa_api_lut_launch(&sc->api, a->domain, a->cbid) & SSA_LUT_GRAPH) != 0;
    if (sc->launch_pending && a->tid == sc->launch_tid) {
        sc->launch_pending++;
        return 0;
    }
    int rc = flush_launches(sc);
    sc->launch_tid = a->tid;
    sc->launch_pending = 1;
    return rc;
}

static void note_process(struct sst_reader *r, struct ssa_result *res,
                         const struct sst_rec_process *p)
{
    if (res->cmdline) return; /* one per file; keep the first */
    res->pid = p->pid;
    res->rank = p->rank;
    res->world_size = p->world_size;
    res->cmdline = dup_string(r, p->cmdline);
}

static void note_device(struct sst_reader *r, struct ssa_result *res,
                        const struct sst_rec_device *d)
{
    if (!res->device_name) res->device_name = dup_string(r, d->name);
    res->device_sms[d->device & 63] = d->sm_count;
    res->n_devices++;
}

/* The environment facts the findings read: CPU count (to size DataLoader workers) and
 * CUDA_LAUNCH_BLOCKING. Values are strings; unparseable ones are left unknown. */
static void note_env(struct sst_reader *r, struct ssa_result *res, const struct sst_rec_env *e)
{
    uint32_t klen = 0, vlen = 0;
    const char *k = sst_reader_string(r, e->key, &klen);
    const char *v = sst_reader_string(r, e->value, &vlen);
    if (!k || !v) return;
    res->env_records++;
    /* kept for the environment checks (ssa_env.h); out of memory, they skip what is missing */
    (void)ssa_env_record_add(&res->env, k, klen, v, vlen);
    if ((klen == 9 && memcmp(k, "cpu_count", 9) == 0) ||
        (klen == 18 && memcmp(k, "cpu_affinity_count", 18) == 0)) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < vlen && i < 6; i++) {
            if (v[i] < '0' || v[i] > '9') return;
            n = n * 10 + (uint32_t)(v[i] - '0');
        }
        if (k[3] == '_' && k[4] == 'a')
            res->cpu_affinity_count = n; /* the usable ones */
        else
            res->cpu_count = n;
    } else if (klen == 24 && memcmp(k, "env.CUDA_LAUNCH_BLOCKING", 24) == 0) {
        char val[SSA_ENV_MAX_TEXT + 1]; /* the judgement the environment check makes */
        memcpy(val, v, vlen < SSA_ENV_MAX_TEXT ? vlen : SSA_ENV_MAX_TEXT);
        val[vlen < SSA_ENV_MAX_TEXT ? vlen : SSA_ENV_MAX_TEXT] = '\0';
        res->launch_blocking = ssa_env_launch_blocking(val) == SSA_ENV_FAIL;
    }
}

/* The interval [t0, t1] a record covers (sst_rec_time_range, from the kinds' table) when it
 * is of a kind that spans the analysed timeline: GPU work, API calls, NVTX push/pop/mark and
 * step markers (not thread names, samples or NVTX start/end); 0 otherwise. */
static int rec_span(const struct sst_rec_header *h, uint64_t *t0, uint64_t *t1)
{
    static const uint32_t timeline_kinds =
        1u << SST_REC_KERNEL | 1u << SST_REC_MEMCPY | 1u << SST_REC_MEMSET | 1u << SST_REC_SYNC |
        1u << SST_REC_API | 1u << SST_REC_NVTX_PUSH | 1u << SST_REC_NVTX_POP |
        1u << SST_REC_NVTX_MARK | 1u << SST_REC_STEP | 1u << SST_REC_GRAPH;
    return h->type < 32 && (timeline_kinds >> h->type & 1u) && sst_rec_time_range(h, t0, t1);
}

/* What every timed record does in pass 1: the span, its block's earliest time, the count. */
static inline void note_timed(struct ssa_scan *sc, struct ssa_result *res, uint64_t a, uint64_t b)
{
    uint64_t t0 = a < b ? a : b, t1 = a < b ? b : a;
    note_span(sc, res, t0, t1);
    note_block_time(sc, t0);
    sc->n_records++;
}

/* The two record types that make most of a trace (kernels, API calls), on their own path. */
static inline int scan_hot(struct ssa_scan *sc, struct sst_reader *r, struct ssa_result *res,
                           const struct sst_rec_header *h)
{
    if (h->type == SST_REC_KERNEL) {
        struct sst_rec_kernel k;
        SSA_LOAD(h, k);
        note_timed(sc, res, k.start_ns, k.end_ns);
        return note_kernel(sc, r, res, &k);
    }
    struct sst_rec_api a;
    SSA_LOAD(h, a);
    note_timed(sc, res, a.start_ns, a.end_ns);
    return note_api(sc, res, &a);
}

/* The records that describe the process and its environment rather than its timeline. */
static void note_fact(struct sst_reader *r, struct ssa_result *res, const struct sst_rec_header *h)
{
    switch (h->type) {
    case SST_REC_PROCESS: {
        struct sst_rec_process p;
        SSA_LOAD(h, p);
        note_process(r, res, &p);
        break;
    }
    case SST_REC_DEVICE: {
        struct sst_rec_device d;
        SSA_LOAD(h, d);
        note_device(r, res, &d);
        break;
    }
    case SST_REC_ENV: {
        struct sst_rec_env e;
        SSA_LOAD(h, e);
        note_env(r, res, &e);
        break;
    }
    case SST_REC_HOST_SAMPLE: { /* DataLoader workers: the environment checks count them */
        struct sst_rec_host_sample hs;
        SSA_LOAD(h, hs);
        res->env.host_samples++;
        if (hs.children > res->env.children_max) res->env.children_max = hs.children;
        break;
    }
    case SST_REC_DROPPED: {
        struct sst_rec_dropped d;
        SSA_LOAD(h, d);
        res->dropped += d.count;
        break;
    }
    default:
        break;
    }
}

/* What the Python stack samples need of pass 1 (ssa_host.c): thread names, each sample (it
 * completes the thread's previous one: returns that one's time, UINT64_MAX for none), the
 * capture window. 1 when h was one of them. */
static int scan_host(struct ssa_scan *sc, struct sst_reader *r, const struct sst_rec_header *h,
                     uint64_t *contrib)
{
    if (h->type == SST_REC_THREAD) {
        struct sst_rec_thread t;
        SSA_LOAD(h, t);
        ssa_host_note_thread(&sc->host, r, &t);
        return 1;
    }
    if (h->type == SST_REC_PY_SAMPLE) {
        struct sst_rec_py_sample ps;
        SSA_LOAD(h, ps);
        *contrib = ssa_host_note_sample(&sc->host, &ps);
        return 1;
    }
    if (h->type == SST_REC_PY_CALL) {
        struct sst_rec_py_call pc;
        SSA_LOAD(h, pc);
        (void)ssa_host_note_call(&sc->host, &pc); /* out of memory: that call is not joined */
        return 1;
    }
    return 0;
}

/* The NVTX records the analysis reads: push/pop (steps, data and compile ranges) and marks
 * (the shim's recompile and graph-break marks). */
static int scan_nvtx(struct ssa_scan *sc, struct sst_reader *r, struct ssa_result *res,
                     const struct sst_rec_header *h, uint64_t *contrib)
{
    struct sst_rec_nvtx n;
    SSA_LOAD(h, n);
    if (h->type == SST_REC_NVTX_MARK) {
        note_mark(sc, r, res, &n);
        return 0;
    }
    return note_nvtx(sc, r, res, &n, contrib);
}

/* A copy or memset of dur ns: counted, and told to the window-open check (its launch). */
static void note_copy_or_set(struct ssa_scan *sc, struct ssa_result *res,
                             const struct sst_rec_header *h, uint64_t dur)
{
    sc->other_gpu_ns += dur;
    if (h->type == SST_REC_MEMCPY) {
        struct sst_rec_memcpy m;
        SSA_LOAD(h, m);
        res->memcpys++;
        if (sc->n_open) ssa_capture_gpu_op(sc, m.start_ns, m.correlation);
        return;
    }
    struct sst_rec_memset m;
    SSA_LOAD(h, m);
    res->memsets++;
    if (sc->n_open) ssa_capture_gpu_op(sc, m.start_ns, m.correlation);
}

/* Every record but kernels and API calls (scan_hot): its span, its block's earliest time. */
static int scan_record(struct ssa_scan *sc, struct sst_reader *r, struct ssa_result *res,
                       const struct sst_rec_header *h)
{
    uint64_t t0, t1, contrib = UINT64_MAX;
    int rc = 0;
    if (rec_span(h, &t0, &t1)) {
        note_span(sc, res, t0, t1);
        contrib = t0;
    }
    switch (h->type) {
    case SST_REC_MEMORY: /* the timeline's memory lane: its step must wait for it */
        if (sst_rec_time_range(h, &t0, &t1)) contrib = t0;
        break;
    case SST_REC_MEMCPY:
    case SST_REC_MEMSET:
        note_copy_or_set(sc, res, h, t1 - t0);
        break;
    case SST_REC_GRAPH:
        res->graphs++, sc->other_gpu_ns += t1 - t0;
        break;
    case SST_REC_STEP: {
        struct sst_rec_step s;
        SSA_LOAD(h, s);
        rc = note_step_record(sc, &s);
        break;
    }
    case SST_REC_NVTX_PUSH:
    case SST_REC_NVTX_POP:
    case SST_REC_NVTX_MARK:
        rc = scan_nvtx(sc, r, res, h, &contrib);
        break;
    case SST_REC_CAPTURE: {
        struct sst_rec_capture c;
        SSA_LOAD(h, c);
        rc = ssa_capture_note(sc, &c);
        if (sc->host.py_samples) contrib = ssa_host_note_capture(&sc->host, &c);
        break;
    }
    case SST_REC_COST: {
        struct sst_rec_cost c;
        SSA_LOAD(h, c);
        ssa_cost_note(&sc->costs, &c);
        break;
    }
    default:
        if (!scan_host(sc, r, h, &contrib)) note_fact(r, res, h);
        if (sc->align) ssa_align_collect_record(sc->align, r, h); /* PROCESS, CLOCK */
        break;
    }
    note_block_time(sc, contrib);
    sc->n_records++;
    return rc;
}

int ssa_scan_run(struct sst_reader *r, struct ssa_scan *sc, struct ssa_result *res)
{
    sc->block_size = 1024;
    sc->block_shift = 10;
    ssa_api_lut_init(&sc->api);
    sc->block_min = malloc(SSA_MAX_BLOCKS * sizeof *sc->block_min);
    if (!sc->block_min) return SS_ENOMEM;
    for (size_t i = 0; i < SSA_MAX_BLOCKS; i++)
        sc->block_min[i] = UINT64_MAX;
    const struct sst_rec_header *h;
    int rc;
    while ((rc = sst_reader_next(r, &h)) == 1) {
        /* a chunk summed on a pool's thread (sst_ahead.c) is not in this core's cache: ask for
         * its bytes ~70 records ahead, as pass 2 does (a prefetch never faults) */
        __builtin_prefetch((const void *)((uintptr_t)h + 4096));
        int hot = h->type == SST_REC_KERNEL || h->type == SST_REC_API;
        int e = hot ? scan_hot(sc, r, res, h) : scan_record(sc, r, res, h);
        if (e) return e;
    }
    res->collector_inline_ns = ssa_cost_inline_ns(&sc->costs);
    return rc < 0 ? rc : flush_launches(sc);
}

void ssa_scan_free(struct ssa_scan *sc)
{
    free(sc->compile_starts);
    free(sc->cap);
    free(sc->rec);
    free(sc->lcap);
    free(sc->lrec);
    free(sc->open);
    free(sc->step_recs.v);
    free(sc->nvtx_steps.v);
    free(sc->prof_steps.v);
    free(sc->user_steps.v);
    ssa_idmap_free(&sc->step_open);
    ssa_idmap_free(&sc->launch_by_tid);
    ssa_idmap_free(&sc->kname_index);
    free(sc->kn_dense);
    free(sc->kn);
    ssa_msgcache_free(&sc->msgs);
    ssa_marker_free(&sc->marker);
    ssa_stacks_free(&sc->stacks);
    ssa_hostacc_free(&sc->host);
    ssa_runacc_free(&sc->run);
    ssa_align_collect_free(sc->align);
    free(sc->block_min);
    memset(sc, 0, sizeof *sc);
}
