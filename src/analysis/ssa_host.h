/*
 * ssa_host.h — Python stack samples (PY_FRAME, PY_STACK, PY_SAMPLE records: the shim's
 * sampler, docs/trace-format.md) as the analysis and the exporters read them (issue #20).
 *
 * A stream (ssa_pystream) reads the records in file order: it interns frames and stacks by
 * their content (the producer's ids can be redefined and its tables cleared, the text stays),
 * marks each frame user code or library (ssa_pyframe_kind), and completes each sample once its
 * weight is known, which is when the thread's next sample (or the end of sampling) arrives:
 * a sample stands for the time from when it was due to when the next one was due (its own lag
 * included: a tick is late because a thread held the GIL, and the late snapshot shows where it
 * was), the planned part capped at SSA_PY_CAP_TICKS mean intervals.
 *
 * The analysis (ssa_attr.c) places each sample of the training thread and of PyTorch's
 * autograd threads at its instant of the step's timeline and keeps its weight per stack and
 * category over the steady steps (struct ssa_host in the result); ssa_host_hotspots (ssa.h)
 * turns that into the user's lines. Memory: the distinct frames and stacks, and one cell per
 * stack and category, never per sample.
 */
#ifndef SSA_HOST_H
#define SSA_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "trace/sst_reader.h"

#define SSA_PY_DEFAULT_HZ 100.0 /* the shim's default rate when the trace does not say */
#define SSA_PY_CAP_TICKS 2.0    /* a sample's planned interval counts at most this many means */
#define SSA_PY_MAX_LAG_NS 1000000000ull /* a tick's own lag counts at most 1 s */
#define SSA_PY_MAX_FRAMES (1u << 20)    /* distinct frames kept; more map to one "?" frame */
#define SSA_PY_MAX_STACKS (1u << 20)    /* distinct stacks kept; samples of more are dropped */
/* The launch rate a sample's stack is priced at is measured this share of the mean sampling
 * interval around the sample's instant (1 ms at 100 Hz: many launches of a launch-bound loop,
 * little of the code before or after it). Over the sample's whole interval the rate would
 * mix in the neighbouring code's. */
#define SSA_PY_RATE_SPAN 0.1

/* Who wrote a frame's code. Library: torch, lightning, transformers, accelerate, timm,
 * torchvision (a folder of that name anywhere in the path: source installs too), anything
 * under site-packages or dist-packages, and stepscope's own shim; stdlib: the Python
 * standard library (lib/pythonX.Y/, frozen modules). The rest is the user's code. */
enum ssa_pyframe_kind { SSA_PYF_USER = 0, SSA_PYF_LIBRARY, SSA_PYF_STDLIB };

/* The kind of code a file holds (enum ssa_pyframe_kind), from its path. */
int ssa_pyframe_kind_of(const char *file);

struct ssa_pyframe {
    char *function, *file; /* owned by the table: the trace's bytes (escape them to print) */
    uint32_t line, first_line;
    uint8_t kind; /* enum ssa_pyframe_kind */
};

struct ssa_pystack {
    uint32_t off, depth; /* frame indexes: ssa_pytab.stack_frames[off .. off + depth), leaf first */
    uint32_t user;       /* index + 1 of the first user frame from the leaf; 0: none */
    /* index + 1 of the library frame shown beside it: the innermost (leaf-most) library frame
     * called from that user frame; 0: the user frame is the leaf. Without a user frame, the
     * leaf. */
    uint32_t lib;
};

struct ssa_pytab {
    struct ssa_pyframe *frames;
    size_t n_frames;
    struct ssa_pystack *stacks;
    size_t n_stacks;
    uint32_t *stack_frames;
    size_t n_stack_frames;
};
void ssa_pytab_free(struct ssa_pytab *t);

/* One sample, completed: its stack (index + 1 into the table's stacks; 0: the thread ran no
 * Python frame, or the stack was unknown) and the time it stands for. */
struct ssa_pysample {
    uint32_t tid;
    uint32_t stack;
    uint64_t ts_ns;     /* the snapshot */
    uint64_t from_ns;   /* where the time it stands for begins: when its tick was due */
    uint64_t weight_ns; /* from from_ns on: a thread's samples tile its time */
};
typedef void (*ssa_pysample_fn)(void *ctx, const struct ssa_pysample *s);

struct ssa_pystream; /* opaque */

/* The rates a trace's stacks were sampled at: hz inside GPU windows (ENV pyshim.host_samples_hz;
 * <= 0: SSA_PY_DEFAULT_HZ), outside_hz between them (ENV pyshim.host_samples_outside_hz, the
 * native sampler's; <= 0: hz, as every trace before it). CAPTURE records of PY_STACKS with
 * reason SST_CAP_SLOW / SST_CAP_FULL say which one the sampler's thread ticks at from there on. */
struct ssa_pyrate {
    double hz, outside_hz;
};

/* A stream for a trace sampled at rate. 0 or SS_ENOMEM. */
int ssa_pystream_new(struct ssa_pyrate rate, struct ssa_pystream **out);
void ssa_pystream_free(struct ssa_pystream *p);
/* Reads one record of r (others are ignored): frames and stacks are interned; a sample
 * completes the thread's previous one, a CAPTURE off of Python stacks every pending one —
 * each completed sample is handed to fn. 0 or SS_ENOMEM. */
int ssa_pystream_feed(struct ssa_pystream *p, struct sst_reader *r, const struct sst_rec_header *h,
                      ssa_pysample_fn fn, void *ctx);
/* The end of the trace: every pending sample completes with one mean interval. */
void ssa_pystream_flush(struct ssa_pystream *p, ssa_pysample_fn fn, void *ctx);
/* The frames and stacks interned so far (valid until the next feed or free). */
const struct ssa_pytab *ssa_pystream_table(const struct ssa_pystream *p);
/* Moves the tables into *out (the caller frees them: ssa_pytab_free); p keeps none. */
void ssa_pystream_take(struct ssa_pystream *p, struct ssa_pytab *out);
/* Samples read, and of them those whose stack id was never defined (damaged chunks). */
uint64_t ssa_pystream_samples(const struct ssa_pystream *p);
/* The index + 1 of the stack the producer's id `id` names now (0: not defined). */
uint32_t ssa_pystream_stack(const struct ssa_pystream *p, uint32_t id);

/* The mean sampling rate a trace says it used (ENV pyshim.host_samples_hz), else 0. */
struct ssa_env_record;
double ssa_py_rate_hz(const struct ssa_env_record *env);
/* Both rates the trace says (0 for one it does not say). */
struct ssa_pyrate ssa_py_rate(const struct ssa_env_record *env);
/* Whether record h says something of Python sampling to come (a CAPTURE of PY_STACKS that is
 * on: a start, or a change of rate), so that a stream made only at the first sample would miss
 * it. */
int ssa_py_capture_on(const struct sst_rec_header *h);

/* One frame as people read it, "function (file:line)"; file is shortened to its name with
 * short != 0, to the path inside site-packages for library code otherwise. Raw bytes of the
 * trace (escape them). Returns buf. */
char *ssa_pyframe_label(const struct ssa_pyframe *f, int short_file, char *buf, size_t cap);

/* ---- what the analysis keeps (ssa_result.host) ---- */

/* GPU-idle or busy time of one stack in one category over the steady steps. */
struct ssa_host_cell {
    uint32_t stack; /* index into tab.stacks */
    uint8_t cat;    /* enum ssa_cat: the timeline's category at the sample's instant */
    uint32_t calls; /* > 0: a call site's cell (ssa_host_sites_apply), samples = calls */
    uint32_t samples;
    uint64_t ns;       /* summed weights */
    double launches; /* launch calls (any thread) the samples stand for: what the recording's
                      * per-launch cost adds to this stack's time (ssa_attr.c) */
};

/* The flame graph of GPU-idle host time (html): nodes in pre-order; node 0 is the root (all
 * GPU-idle samples), its children the categories (frame 0), theirs the frames from the
 * outermost call inwards. Children are ordered by time, largest first. */
struct ssa_flame_node {
    uint32_t frame;   /* index + 1 into tab.frames; 0: the root or a category node */
    uint8_t cat;      /* enum ssa_cat of the subtree (root: SSA_CAT_COUNT) */
    uint16_t depth;   /* root 0, categories 1, frames from 2 */
    uint32_t subtree; /* nodes in this node's subtree, itself included */
    uint64_t ns;
};
#define SSA_FLAME_MAX_NODES 20000 /* the rest of a larger graph is left out (said in n_cut) */

/* Where the blocking CUDA calls were issued (PY_CALL records joined to their API records by
 * correlation id, ssa_syncsite.c): one per stack and kind, over the steady steps. */
struct ssa_host_site {
    uint32_t stack;      /* index into tab.stacks */
    uint8_t cat;         /* SSA_CAT_SYNC or SSA_CAT_ALLOC: the call's class */
    uint8_t free;        /* the calls free memory (cudaFree, cuMemFree, ...) */
    uint32_t calls;      /* calls caught there */
    uint64_t blocked_ns; /* the time those calls blocked the host (their API records) */
};

struct ssa_host {
    struct ssa_pytab tab;
    struct ssa_host_site *sites; /* by stack index */
    size_t n_sites;
    uint64_t sync_calls;      /* PY_CALL records read (the whole trace) */
    uint64_t sync_calls_used; /* of them, in sites: inside their call, counted thread, steady */
    struct ssa_host_cell *cells; /* the steady steps, one per stack and category seen */
    size_t n_cells;
    struct ssa_flame_node *flame;
    size_t n_flame;
    uint64_t flame_cut_ns; /* GPU-idle sample time the node cap left out of the graph */
    uint64_t samples;      /* PY_SAMPLE records read (every thread, the whole trace) */
    uint64_t counted;      /* of them, in cells: training and autograd threads, steady steps */
    uint64_t late;         /* of them, not placed: their step was complete before their weight
                            * was known (the last sample of a thread) */
    double interval_ms;    /* the mean sampling interval */
};
void ssa_host_free(struct ssa_host *h);

#endif
