/*
 * ssa_internal.h — what the analysis files share and nobody else sees: a small id map,
 * the per-thread NVTX push/pop stacks, the message classification, and the state that
 * passes from pass 1 (ssa_scan.c) to step building (ssa_steps.c) and pass 2 (ssa_attr.c).
 */
#ifndef SSA_INTERNAL_H
#define SSA_INTERNAL_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "ssa.h"
#include "ssa_align.h"
#include "trace/sst_reader.h"

/* ---- uint32 -> uint32 map (open addressing, grows by doubling; bounded by the number of
 * distinct keys: string ids, thread ids). ---- */
struct ssa_idmap {
    uint32_t *keys, *vals;
    uint8_t *used;
    size_t cap, n;
};
void ssa_idmap_free(struct ssa_idmap *m);
/* The value for key, or NULL. */
uint32_t *ssa_idmap_get(const struct ssa_idmap *m, uint32_t key);
/* The value slot for key, inserted with val when missing; NULL when out of memory. */
uint32_t *ssa_idmap_put(struct ssa_idmap *m, uint32_t key, uint32_t val);

/* ---- NVTX messages that mean something to the analysis ---- */
/* compile, recompile, graph break: the Python shim's torch.compile marks (docs/markers.md):
 * "compile: ..." ranges around each dynamo compile, "recompile: REASON" and
 * "graph break: REASON" marks, all in stepscope's domain */
enum ssa_msg {
    SSA_MSG_OTHER = 0,
    SSA_MSG_STEP,
    SSA_MSG_DATA,
    SSA_MSG_PROFILER,
    SSA_MSG_COMPILE,
    SSA_MSG_RECOMPILE,
    SSA_MSG_GRAPH_BREAK,
    SSA_MSG_BATCH,
    SSA_MSG_LOADER,
};
/* Or'ed into what ssa_msg_kind returns when the message also matches the user's step marker
 * (it stays "data" or "step" besides: ssa_msg_base strips the bit). */
#define SSA_MSG_USER_BIT 0x80u
static inline enum ssa_msg ssa_msg_base(unsigned kind)
{
    return (enum ssa_msg)(kind & ~SSA_MSG_USER_BIT);
}

/* The user's step marker (ssa_opts.step_marker): a name, or a compiled regex. */
struct ssa_marker {
    const char *name; /* not owned */
    size_t len;
    regex_t re;
    int is_re, active;
};
/* 0, or SS_EINVAL for a regex that does not compile. spec NULL: inactive. */
int ssa_marker_init(struct ssa_marker *m, const char *spec);
void ssa_marker_free(struct ssa_marker *m);

/* Classifies (domain, message) string ids once and caches the answer. */
#define SSA_MSG_DENSE 65536 /* message ids below this: looked up in an array, not the map */
struct ssa_msgcache {
    struct ssa_idmap domains;  /* domain id -> 1 when it is "stepscope" */
    struct ssa_idmap messages; /* message id -> enum ssa_msg (+ ProfilerStep number aside) */
    uint8_t *dense;            /* message id < SSA_MSG_DENSE -> its kind + 1 (0: not yet) */
    uint32_t last_domain;      /* the last domain asked about, when last_set */
    uint8_t last_set, last_ours;
    const struct ssa_marker *marker; /* not owned; NULL: none */
};
enum ssa_msg ssa_msg_kind(struct ssa_msgcache *c, struct sst_reader *r, uint32_t domain,
                          uint32_t message);
void ssa_msgcache_free(struct ssa_msgcache *c);
/* N of "ProfilerStep#N", or `fallback` when the text has no number. */
uint64_t ssa_profiler_step_number(struct sst_reader *r, uint32_t message, uint64_t fallback);

/* ---- push/pop stacks per thread ---- */
#define SSA_NVTX_DEPTH 64     /* deeper pushes are counted but not remembered */
#define SSA_NVTX_THREADS 1024 /* threads with a stack; more are ignored */

struct ssa_open_range {
    uint64_t ts;
    uint64_t payload;
    uint32_t message;
    uint8_t kind; /* enum ssa_msg */
    uint8_t has_payload;
};
struct ssa_stack {
    uint32_t tid;
    uint32_t depth;     /* may exceed SSA_NVTX_DEPTH */
    uint32_t user_open; /* open ranges matching the user's step marker (outermost counts) */
    struct ssa_open_range r[SSA_NVTX_DEPTH];
};
struct ssa_stacks {
    struct ssa_idmap by_tid; /* tid -> index into s */
    struct ssa_stack *s;
    size_t n, cap;
    uint32_t last_tid, last_ix; /* the last thread asked about: s[last_ix - 1] (0: none) */
};
/* The stack of tid, created on first use; NULL past SSA_NVTX_THREADS or out of memory. */
struct ssa_stack *ssa_stack_of(struct ssa_stacks *st, uint32_t tid);
void ssa_stacks_free(struct ssa_stacks *st);
/* Push and pop, inline: both passes call them for every NVTX range (a call copied the range
 * through memory the caller had just written field by field). */
static inline void ssa_stack_push(struct ssa_stack *s, const struct ssa_open_range *r)
{
    if (s->depth < SSA_NVTX_DEPTH) s->r[s->depth] = *r;
    if (s->depth < UINT32_MAX) s->depth++;
}
/* Pops: returns 1 and the range when the popped level was remembered, else 0. */
static inline int ssa_stack_pop(struct ssa_stack *s, struct ssa_open_range *out)
{
    if (s->depth == 0) return 0; /* a pop without a push (recording started mid-range) */
    s->depth--;
    if (s->depth >= SSA_NVTX_DEPTH) return 0;
    *out = s->r[s->depth];
    return 1;
}

/* ---- pass 1 results ---- */
struct ssa_cand {        /* a candidate step interval */
    uint64_t begin, end; /* end 0: never ended */
    uint64_t number;
    uint32_t tid;
    uint8_t mark; /* a STEP MARK: a boundary, not an interval */
};
struct ssa_candlist {
    struct ssa_cand *v;
    size_t n, cap;
};
int ssa_cand_add(struct ssa_candlist *l, const struct ssa_cand *c);

/* Edge categories of the attribution sweep beyond the public ones, each counted as its public
 * category (ssa_attr.c: EDGE_PUBLIC): pageable H2D copies (copy.h2d), whose blocking the sweep
 * tells apart, and elementwise/reduction kernels the fusion what-if treats apart
 * (ssa_kernel_fusion): a batch reduction's own pass, Triton kernels already compiled. */
enum {
    SSA_EDGE_H2D_PAGEABLE = SSA_CAT_COUNT,
    SSA_EDGE_OWN_PASS,
    SSA_EDGE_COMPILED_EW,
    SSA_EDGE_COMPILED_RED,
    SSA_EDGE_COUNT
};
/* The edge category of a kernel named `name` whose public category is kcat. */
uint8_t ssa_kernel_edge_cat(int kcat, const char *name);

struct ssa_knstat {
    uint32_t name_id;
    uint8_t kclass;
    uint8_t kcat; /* ssa_kclass_cat(kclass): the sweep's category of its kernels */
    uint8_t opt_kind, opt_adam; /* ssa_optimizer_kind of the name */
    uint8_t edge_cat; /* the sweep's edge category of its kernels (ssa_attr.c: ssa_edge_cat) */
    uint64_t count, total_ns;
    uint32_t first_step, last_step; /* pass 2: step indexes where the name ran (+1; 0 none) */
    uint32_t rank; /* its index in res->knames (set when they are kept, before pass 2) */
    uint32_t coll_hash; /* SSA_ALIGN_KEEP: ssa_align_name_hash of a collective's name */
    uint8_t coll;       /* SSA_ALIGN_KEEP: SSA_COLL_*, are its kernels kept for alignment */
};
enum { SSA_COLL_NO, SSA_COLL_YES, SSA_COLL_UNREAD /* its text not read yet */ };

#define SSA_MAX_BLOCKS 65536

/* ---- Python stack samples in the passes (ssa_host.c; ssa_host.h says what they mean) ---- */

/* A sample placed in its step, waiting for the sweep: its time relative to the step's begin,
 * its weight, its stack (index into the stream's table); the sweep sets cat (the timeline's
 * category at rel) and, from the step's launch edges, launches: the launch calls its weight
 * stands for, at the rate they were made around its instant (SSA_PY_RATE_SPAN). */
struct ssa_smp {
    uint64_t rel, w;
    double launches;
    uint32_t stack;
    uint8_t cat;
};
struct ssa_smpbuf {
    struct ssa_smp *v;
    size_t n, cap;
};
/* Room for one more sample (and a sentinel): 0 or SS_ENOMEM. */
int ssa_smp_room(struct ssa_smpbuf *b);
/* Sorts the samples by rel (they come nearly in order) and ends them with a sentinel (rel
 * UINT64_MAX); the buffer has room for it (ssa_smp_room). */
void ssa_smp_sort(struct ssa_smpbuf *b);

struct ssa_hcell; /* ssa_host.c */
enum ssa_step_group {
    SSA_GROUP_STEADY = 0, /* steady: counted */
    SSA_GROUP_FILL,       /* a fill candidate: counted unless pass 2 confirms the fill */
    SSA_GROUP_STEP0,      /* step 0 that autotuning may exclude */
    SSA_GROUP_WARMUP,     /* warm-up by duration: never counted */
    SSA_GROUPS
};
struct ssa_hostacc {
    /* pass 1 */
    uint64_t py_samples;       /* PY_SAMPLE records */
    struct ssa_idmap autograd; /* tids of PyTorch's autograd threads (THREAD "pt_autograd_N") */
    struct ssa_idmap last_ix;  /* tid -> index into last_ts: its last sample's time (0: none) */
    uint64_t *last_ts;
    size_t n_last, cap_last;
    /* pass 2 */
    struct ssa_pystream *py;
    struct ssa_hcell *cells; /* by stack, category and step group */
    size_t n_cells, cap_cells;
    uint32_t *slots; /* index + 1 into cells, by key */
    size_t cap_slots;
    size_t rep[SSA_GROUPS]; /* a step of each group seen (index + 1): its fate after pass 2 */
    uint64_t late;          /* samples whose step was already complete */
    /* PY_CALL records (ssa_syncsite.c): pass 1 numbers their correlation ids, pass 2 joins
     * each to its API record, whichever of the two comes first in the file */
    uint64_t py_calls;
    struct ssa_idmap call_ix; /* correlation id -> index into calls */
    struct ssa_hcall *calls;  /* pass 2: one per correlation id */
    struct ssa_hsite *sites;  /* pass 2: by (stack, group) */
    size_t n_sites, cap_sites;
};
/* Pass 1: a THREAD record (autograd threads by name). */
void ssa_host_note_thread(struct ssa_hostacc *h, struct sst_reader *r,
                          const struct sst_rec_thread *t);
/* Pass 1: the earliest time a PY_SAMPLE (resp. CAPTURE) record touches: the thread's previous
 * sample (resp. every thread's, for Python stacks switched off), whose weight it completes. */
uint64_t ssa_host_note_sample(struct ssa_hostacc *h, const struct sst_rec_py_sample *s);
uint64_t ssa_host_note_capture(struct ssa_hostacc *h, const struct sst_rec_capture *c);
/* Pass 2: starts the sample stream when pass 1 saw samples. 0 or SS_ENOMEM. */
int ssa_host_begin(struct ssa_hostacc *h, const struct ssa_result *res);
/* Whether tid's samples define GPU-idle categories: the training thread and the autograd
 * threads (every thread when the training thread is unknown). */
int ssa_host_counts(const struct ssa_hostacc *h, const struct ssa_result *res, uint32_t tid);
/* After the sweep of step i: its samples (cat and launches set) into the cells. 0 or
 * SS_ENOMEM. */
int ssa_host_add(struct ssa_hostacc *h, enum ssa_step_group g, size_t i,
                 const struct ssa_smpbuf *b);
/* After the warm-up is decided: the steady cells, the tables and the flame graph into
 * res->host. 0 or SS_ENOMEM. */
int ssa_host_finish(struct ssa_hostacc *h, struct ssa_result *res);
/* Whether the steps of group g turned out steady (ssa_steps_warmup has flagged them; a group
 * none of whose steps had samples has no known fate: no). */
int ssa_host_group_steady(const struct ssa_hostacc *h, const struct ssa_result *res, unsigned g);
void ssa_hostacc_free(struct ssa_hostacc *h);
/* Where blocking CUDA calls were issued (ssa_syncsite.c). Pass 1: a PY_CALL record. Pass 2:
 * the PY_CALL (its stack as the stream interned it, index + 1) and the API record of a
 * synchronising or allocating call (cat: SSA_CAT_SYNC / SSA_CAT_ALLOC) inside step i of group
 * g; the two with one correlation id make one call of that stack. After pass 2: the steady ones
 * into res->host.sites, and into the cells of their categories (ssa_host_sites_apply). 0 or
 * SS_ENOMEM. */
int ssa_host_note_call(struct ssa_hostacc *h, const struct sst_rec_py_call *c);
int ssa_host_call_stack(struct ssa_hostacc *h, const struct ssa_result *res,
                        const struct sst_rec_py_call *c, uint32_t stack);
int ssa_host_call_api(struct ssa_hostacc *h, const struct ssa_result *res,
                      const struct sst_rec_api *api, enum ssa_step_group g, int cat);
int ssa_host_sites_finish(struct ssa_hostacc *h, struct ssa_result *res);
/* The categories the sites name (sync, alloc) take their lines from the sites instead of the
 * samples: each category's steady time shared out by the time each site's calls blocked — for
 * alloc, only the frees' sites when the steady steps freed (a caching allocator allocates
 * again because something emptied it: the free is the cause, the allocation its victim).
 * Rewrites res->host.cells, which every view reads. 0 or SS_ENOMEM. */
int ssa_host_sites_apply(struct ssa_result *res);
void ssa_host_sites_free(struct ssa_hostacc *h); /* its memory; ssa_hostacc_free clears h */
/* The flame graph of the cells' GPU-idle time (ssa_hotspot.c). 0 or SS_ENOMEM. */
int ssa_host_flame_build(struct ssa_host *h);

/* ssa_api_class as a table built once per analysis: one load per API record in both passes,
 * without the call and its pthread_once. cbids past the table go to ssa_api_class. */
#define SSA_API_LUT_N 1024
#define SSA_LUT_KERNEL 1u /* launches one kernel (ssa_is_kernel_launch) */
#define SSA_LUT_GRAPH 2u  /* launches a graph (ssa_is_graph_launch) */
struct ssa_api_lut {
    uint8_t cls[2][SSA_API_LUT_N]; /* [domain is DRIVER][cbid] */
    uint8_t cat[2][SSA_API_LUT_N]; /* ssa_api_cat of the class */
    uint8_t launch[2][SSA_API_LUT_N]; /* SSA_LUT_* */
};
void ssa_api_lut_init(struct ssa_api_lut *t);
static inline int ssa_api_lut_in(uint8_t domain, uint32_t cbid)
{
    return cbid < SSA_API_LUT_N && (domain == SST_API_RUNTIME || domain == SST_API_DRIVER);
}
static inline enum ssa_api_class ssa_api_lut_get(const struct ssa_api_lut *t, uint8_t domain,
                                                 uint32_t cbid)
{
    if (ssa_api_lut_in(domain, cbid))
        return (enum ssa_api_class)t->cls[domain == SST_API_DRIVER][cbid];
    return ssa_api_class(domain, cbid);
}
/* The category of the call's class (ssa_api_cat), and what it launches (SSA_LUT_*). */
static inline uint32_t ssa_api_lut_cat(const struct ssa_api_lut *t, uint8_t domain, uint32_t cbid)
{
    if (ssa_api_lut_in(domain, cbid)) return t->cat[domain == SST_API_DRIVER][cbid];
    return (uint32_t)ssa_api_cat(ssa_api_class(domain, cbid));
}
/* What a call launches (SSA_LUT_*), from the API tables: what the lookup table holds. */
static inline unsigned ssa_api_launch_bits(uint8_t domain, uint32_t cbid)
{
    return (ssa_is_kernel_launch(domain, cbid) ? SSA_LUT_KERNEL : 0u) |
           (ssa_is_graph_launch(domain, cbid) ? SSA_LUT_GRAPH : 0u);
}
static inline unsigned ssa_api_lut_launch(const struct ssa_api_lut *t, uint8_t domain,
                                          uint32_t cbid)
{
    if (ssa_api_lut_in(domain, cbid)) return t->launch[domain == SST_API_DRIVER][cbid];
    return ssa_api_launch_bits(domain, cbid);
}

/* Kernel-name ids below this are indexed directly (kn_dense), the rest through kname_index:
 * ids are the writer's 1, 2, 3, ..., but come from the file, so the array is bounded. */
#define SSA_KN_DENSE 65536

/* The collector's COST records are running totals per (kind, thread): the last of each is its
 * whole run. Threads past SSA_COST_SLOTS are not counted. */
#define SSA_COST_SLOTS 128
struct ssa_cost_slot {
    uint32_t tid;
    uint8_t kind;
    uint64_t events, timed, ns;
};
struct ssa_costs {
    struct ssa_cost_slot v[SSA_COST_SLOTS];
    size_t n;
};
/* Keeps c's counters (the latest of its kind and thread). */
void ssa_cost_note(struct ssa_costs *t, const struct sst_rec_cost *c);
/* The time the collector spent on the program's own threads, in ns (ssa_result's
 * collector_inline_ns). */
uint64_t ssa_cost_inline_ns(const struct ssa_costs *t);

/* ---- the whole run (ssa_run.c) ---- */
#define SSA_RUN_STALL 1u /* flag: a stall step */
#define SSA_RUN_SET0 2u  /* flag: stall set k is SSA_RUN_SET0 << k; the stretches after them */
#define SSA_RUN_CLASS_EARLY SSA_RUN_MAX_STALLS
#define SSA_RUN_CLASS_LATE (SSA_RUN_MAX_STALLS + 1)
#define SSA_RUN_EARLY (SSA_RUN_SET0 << SSA_RUN_CLASS_EARLY)
#define SSA_RUN_LATE (SSA_RUN_SET0 << SSA_RUN_CLASS_LATE)
#define SSA_RUN_CLASSES (SSA_RUN_MAX_STALLS + 2)
/* flag: a step the GPU recorded, or next to a window's edge (CUPTI's attach and detach), in a
 * run with steps outside its windows: the recording's time is in it, so the run's usual step,
 * its stalls and drift are read from the other steps (the window has its own outliers) */
#define SSA_RUN_RECORDED 0x80u
_Static_assert(SSA_RUN_SET0 << (SSA_RUN_CLASSES - 1) < SSA_RUN_RECORDED, "the flags fit a byte");
struct ssa_runcell {
    uint32_t stack; /* index into the stream's stacks */
    uint32_t cls;   /* a stall set, SSA_RUN_CLASS_EARLY or _LATE */
    uint64_t ns;
};
/* Pass 2's samples of the flagged steps, by class and stack. */
struct ssa_runacc {
    struct ssa_idmap index; /* stack * SSA_RUN_CLASSES + class -> index into cells */
    struct ssa_runcell *cells;
    size_t n, cap;
};
/* Step building, before any filter: the series (res->run). 0 or SS_ENOMEM. */
int ssa_run_keep(struct ssa_result *res);
/* After the capture filter: the series' GPU windows. */
void ssa_run_mark_windows(struct ssa_result *res);
/* Pass 2: a final step, summed into the GPU window it lies in. */
void ssa_run_fold(struct ssa_run *run, const struct ssa_step *st);
/* Before pass 2: stalls and drift from the times; flags their steps. 0 or SS_ENOMEM. */
int ssa_run_plan(struct ssa_result *res);
/* Pass 2: a counted thread's completed sample. 0 or SS_ENOMEM. */
int ssa_run_sample(struct ssa_runacc *acc, const struct ssa_run *run, uint32_t stack,
                   uint64_t ts_ns, uint64_t weight_ns);
/* After ssa_host_finish: the stalls' and the drift's lines. 0 or SS_ENOMEM. */
int ssa_run_finish(struct ssa_runacc *acc, struct ssa_result *res);
void ssa_runacc_free(struct ssa_runacc *acc);
void ssa_run_free(struct ssa_run *run);
/* A stack's line (UINT32_MAX: an empty stack) and the library frame beside it (ssa_hotspot.c) */
uint32_t ssa_host_stack_line(const struct ssa_host *h, uint32_t stack, uint32_t *lib);


struct ssa_scan {
    struct sst_reader *reader; /* the trace being analysed (the period passes read it again) */
    struct ssa_align_collect *align; /* SSA_ALIGN_KEEP: what ssa_align_job needs, in pass 1 */
    struct ssa_candlist step_recs, nvtx_steps, prof_steps, user_steps;
    struct ssa_marker marker;            /* ssa_opts.step_marker, compiled */
    struct ssa_idmap step_open;          /* tid -> index+1 into step_recs of an open BEGIN */
    struct ssa_idmap launch_by_tid;      /* tid -> launch API calls (launch_pending not yet in) */
    uint32_t launch_tid, launch_pending; /* the current run of one thread's launches */
    struct ssa_idmap kname_index;        /* name id -> index into kn */
    uint32_t *kn_dense;                  /* name id < SSA_KN_DENSE -> index + 1 into kn (0: none) */
    struct ssa_api_lut api;              /* set at the start of pass 1 */
    struct ssa_knstat *kn;
    size_t n_kn, cap_kn;
    struct ssa_msgcache msgs;
    /* start times of the first SSA_COMPILE_STARTS torch.compile ranges: the leading steps
     * that compile are warm-up (ssa_steps_warmup_plan) */
    uint64_t *compile_starts;
    /* what ssa_pace.c needs to know before it reads the trace again: graph launch calls, and
     * the GPU time of copies, memsets and GRAPH records (kernels': the names' totals) */
    uint64_t graph_launch_calls, other_gpu_ns;
    size_t n_compile_starts;
    struct ssa_stacks stacks;
    /* earliest time each block of records can contribute (see README: finalising steps) */
    uint64_t *block_min;
    size_t n_blocks;
    uint64_t block_size;  /* records per block; doubles when SSA_MAX_BLOCKS is reached */
    unsigned block_shift; /* block_size == 1 << block_shift: no division per record */
    uint64_t n_records;
    int have_span;
    /* warm-up by duration, known once steps are built (ssa_steps_warmup_plan) */
    size_t warm_dur;
    int autotune_possible; /* step 0 may still be excluded after pass 2 */
    struct ssa_step step0; /* compact mode, autotune_possible: step 0, summed or not later */
    size_t fill_end;       /* steps [warm_dur, fill_end) may be a queue fill (after pass 2) */
    const struct ssa_step_brief *plan; /* the briefs the plan marked (price outliers) */
    struct ssa_step fill;  /* compact mode: their sum, summed or not later */
    /* CAPTURE records that switch GPU recording, and the stretches they recorded (ssa_capture.c) */
    struct ssa_cap_event {
        uint64_t t;
        uint8_t on, reason;
    } *cap;
    size_t n_cap, cap_cap;
    int cap_overflow; /* more than SSA_MAX_CAPTURES: not used */
    struct ssa_stretch {
        uint64_t from, to;
    } *rec;
    size_t n_rec;
    int rec_applies; /* the stretches decide which steps count (ssa_capture_filter) */
    /* each GPU window's first recorded operation and the calls made after it opened, to tell
     * when the GPU was still running work queued before the window (ssa_capture.c) */
    struct ssa_open_slot *open;
    size_t n_open;
    /* CAPTURE records of launch sampling (what LAUNCHES): kernel launch calls recorded or not
     * from each step's begin (STEPSCOPE_LAUNCH_SAMPLE), and the stretches they recorded */
    struct ssa_cap_event *lcap;
    size_t n_lcap, lcap_cap;
    int lcap_overflow; /* more than SSA_MAX_LAUNCH_CAPTURES: every step counts */
    struct ssa_stretch *lrec;
    size_t n_lrec;
    struct ssa_hostacc host; /* Python stack samples (both passes) */
    struct ssa_runacc run;   /* the whole run's flagged steps' samples (pass 2) */
    struct ssa_costs costs;  /* the collector's COST counters (ssa_cost.c) */
    uint64_t host_from_ns, host_to_ns; /* ssa_opts: the steps whose samples count (0, 0: all) */
    int sweep_thread; /* pass 2 sweeps its closed steps on a thread of its own (ssa_attr.c) */
};

/* Pass 1: a GPU operation (kernel, copy, memset) starting at start_ns launched by the call
 * `corr`, and an API call, for the window-open check of ssa_capture.c. */
void ssa_capture_gpu_op(struct ssa_scan *sc, uint64_t start_ns, uint32_t corr);
void ssa_capture_api(struct ssa_scan *sc, const struct sst_rec_api *a);

/* Which group step i is in, as ssa_steps_warmup_plan left it (before pass 2). */
enum ssa_step_group ssa_steps_group(const struct ssa_scan *sc, size_t i);

#define SSA_MAX_CAPTURES 65536
/* two per sampled step: 4 million steps at one in 8 */
#define SSA_MAX_LAUNCH_CAPTURES (1u << 20)

/* Pass 1: keeps a CAPTURE record that switches GPU recording or launch sampling. 0 or
 * SS_ENOMEM. */
int ssa_capture_note(struct ssa_scan *sc, const struct sst_rec_capture *c);
/* After the steps are built: keeps only those the trace recorded GPU activity for (inside
 * the --capture window, outside torch.profiler's hold on CUPTI), counting the others in
 * res->outside_capture. 0 or SS_ENOMEM. */
int ssa_capture_filter(struct ssa_scan *sc, struct ssa_result *res);
/* After graph steps, before GPU pacing: keeps only the steps whose kernel launch calls were
 * recorded (launch sampling), counting the others in res->launch_unsampled. */
int ssa_capture_drop_unsampled(const struct ssa_scan *sc, struct ssa_result *res);
/* Pass 2: 0 when a GPU record that started inside a recorded stretch ends over a millisecond
 * after it closed: CUPTI then wrote the detach's time, not the record's (ssa_capture.c). */
int ssa_capture_end_trusted(const struct ssa_scan *sc, uint64_t start_ns, uint64_t end_ns);

/* The name's entry in scan->kn, or NULL when pass 1 saw no kernel of that name. */
static inline struct ssa_knstat *ssa_kn_find(const struct ssa_scan *sc, uint32_t name)
{
    if (name < SSA_KN_DENSE && sc->kn_dense) {
        uint32_t v = sc->kn_dense[name];
        return v ? &sc->kn[v - 1] : NULL;
    }
    uint32_t *ix = ssa_idmap_get(&sc->kname_index, name);
    return ix ? &sc->kn[*ix] : NULL;
}

/* Another read of the trace being analysed, from its first chunk, its problems not counted
 * again (pass 1 counted them): the reader's handler is set aside until ssa_pass_end. */
struct ssa_pass {
    struct sst_reader *r;
    sst_problem_fn fn;
    void *ctx;
};
int ssa_pass_begin(struct sst_reader *r, struct ssa_pass *ps); /* 0 or a negative ss_error */
void ssa_pass_end(struct ssa_pass *ps);

/* Launch-to-kernel latency (ssa_qlat.c): the kernel launch calls and kernels inside steps,
 * joined by correlation id after pass 2. */
struct ssa_qpair {
    uint32_t corr;
    uint64_t t;
};
struct ssa_qside {
    struct ssa_qpair *v;
    size_t n, cap;
};
struct ssa_qlat {
    struct ssa_qside launch, kernel;
    uint32_t mask; /* ids kept: those whose hash has these bits 0 (a power-of-two stride) */
};
/* The stride for a trace of `kernels` kernels (pass 1's count). */
void ssa_qlat_init(struct ssa_qlat *q, uint64_t kernels);
static inline uint32_t ssa_qlat_hash(uint32_t x) /* Fibonacci hashing: its high bits */
{
    return (x * 0x9e3779b1u) >> 12;
}
int ssa_qlat_add(struct ssa_qlat *q, int kernel, uint32_t corr, uint64_t t); /* 0, SS_ENOMEM */
/* A launch call (call_start_ns) or a kernel (start_ns) of correlation id corr, if sampled. */
static inline int ssa_qlat_note(struct ssa_qlat *q, int kernel, uint32_t corr, uint64_t t)
{
    return corr && !(ssa_qlat_hash(corr) & q->mask) ? ssa_qlat_add(q, kernel, corr, t) : 0;
}
/* Joins the sides (kernels found, and of them started within SSA_QLAT_PROMPT_NS of the call's
 * start) and frees what q holds. */
void ssa_qlat_finish(struct ssa_qlat *q, uint64_t *matched, uint64_t *prompt);

/* Steps from CUDA graph replays when the markers miss them (ssa_pace.c): replaces the briefs
 * and the step source (SSA_STEPS_GRAPHS). 0 or a negative ss_error. */
int ssa_graph_steps(struct ssa_scan *scan, struct ssa_result *res);
/* GPU-paced steps when the host ran ahead (ssa_pace.c): rewrites the briefs, sets
 * res->gpu_paced and res->host_pace_ns. 0 or a negative ss_error. */
int ssa_gpu_pace(struct ssa_scan *scan, struct ssa_result *res);

#define SSA_COMPILE_STARTS 4096

/* The program's kind and what it already does (ssa_program.c), once the names are kept. */
void ssa_program_facts(struct ssa_result *res);

/* Pass 1 over r: fills scan and the trace facts of res. 0 or a negative ss_error. */
int ssa_scan_run(struct sst_reader *r, struct ssa_scan *scan, struct ssa_result *res);
void ssa_scan_free(struct ssa_scan *scan);

/* Chooses the step source, the training thread, and builds res->steps. 0 or SS_ENOMEM. */
int ssa_steps_build(struct ssa_scan *scan, struct ssa_result *res, const struct ssa_opts *o);
/* No markers: steps from the kernel sequence's period (ssa_period.c), two extra passes
 * over res->path. Fills res->briefs/n_steps (n_steps 0: no period). 0 or a negative ss_error. */
int ssa_period_detect(const struct ssa_scan *scan, struct ssa_result *res);
/* Before pass 2, for SSA_TIMELINE: among the steady steps (past warm-up and fill candidates),
 * the one whose duration is nearest their median and the slowest (not step 0 while it may
 * still be warm-up) become res->tl[0] and [1], then as many other steps as SSA_TL_BUDGET
 * allows (every one of a short run). 0 or SS_ENOMEM. */
int ssa_steps_pick_timeline(struct ssa_scan *sc, struct ssa_result *res);
/* Before pass 2, for SSA_STEP_BINS: room for res->bins. 0 or SS_ENOMEM. */
int ssa_steps_bins_alloc(struct ssa_result *res);

/* Before pass 2: the warm-up steps that duration alone decides (scan->warm_dur). */
int ssa_steps_warmup_plan(struct ssa_scan *scan, struct ssa_result *res, const struct ssa_opts *o);
/* Compact mode, pass 2: step i is final; sums it into res->steady when it is steady. */
void ssa_steps_fold(struct ssa_scan *scan, struct ssa_result *res, size_t i,
                    const struct ssa_step *st);
/* After pass 2: flags warm-up steps. */
void ssa_steps_warmup(struct ssa_scan *scan, struct ssa_result *res, const struct ssa_opts *o);

/* Pass 2 over a fresh reader of the same file. 0 or a negative ss_error. */
int ssa_attr_run(struct sst_reader *r, struct ssa_scan *scan, struct ssa_result *res);

/* Sorting helper: median etc. of a copy. */
uint64_t ssa_quantile_u64(uint64_t *v, size_t n, double q); /* sorts v in place */

/* Call durations in 8 bins an octave (ssa_result.launch_call_bins): below 8 ns one bin each,
 * then bin (e - 2) * 8 + the 3 bits after the leading one, e its position. */
static inline unsigned ssa_call_bin(uint64_t ns)
{
    if (ns < 8) return (unsigned)ns;
    unsigned e = 63u - (unsigned)__builtin_clzll(ns);
    unsigned b = (e - 2u) * 8u + (unsigned)((ns >> (e - 3u)) & 7u);
    return b < SSA_CALL_BINS ? b : SSA_CALL_BINS - 1;
}

/* The middle of bin b's durations (ns). */
static inline double ssa_call_bin_mid_ns(unsigned b)
{
    if (b < 8) return b;
    unsigned e = b / 8u + 2u;
    double width = (double)(1ull << (e - 3u));
    return (double)(8u + b % 8u) * width + width / 2;
}

/* The median of the durations counted in bins, in ns; 0 when none was counted. */
static inline double ssa_call_median_ns(const uint32_t bins[SSA_CALL_BINS])
{
    uint64_t total = 0, seen = 0;
    for (unsigned b = 0; b < SSA_CALL_BINS; b++)
        total += bins[b];
    for (unsigned b = 0; b < SSA_CALL_BINS && total; b++)
        if ((seen += bins[b]) * 2 >= total) return ssa_call_bin_mid_ns(b);
    return 0;
}

/* For the few helpers of the per-record paths that the compiler would otherwise call. */
#define SSA_HOT static inline __attribute__((always_inline))

/* Loads a record whose size the reader has checked (>= the struct) into a local copy. */
#define SSA_LOAD(h, dst) memcpy(&(dst), (h), sizeof(dst))


#endif
