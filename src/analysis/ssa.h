/*
 * ssa.h — the analysis library: one trace in, steps and their time attribution out.
 *
 * ssa_analyze_file() reads a trace twice through sst_reader, in bounded memory (see
 * src/analysis/README.md): pass 1 finds the step boundaries, the training thread, the
 * kernel names and, per block of records, the earliest timestamp; pass 2 streams the
 * records again, buffers each step's intervals only until no later record can touch the
 * step, then classifies every instant of the step once (the attribution model of the
 * brief) and frees the buffer. What stays is per name and per step, never per event.
 *
 * The result keeps, per step, the exclusive time of each category (summing exactly to the
 * step's wall time) and the counts that rules need later (kernels, launches, syncs,
 * copies by kind with pageable bytes, allocations...). Warm-up steps are flagged, not
 * removed. ssa_summarize() turns the steady steps into the report's numbers.
 */
#ifndef SSA_H
#define SSA_H

#include <stddef.h>
#include <stdint.h>

#include "ssa_env.h"
#include "ssa_host.h"
#include "trace/sst_reader.h"

/* Exclusive categories, in priority order: at an instant where several apply, the first
 * wins. GPU-busy categories come first (compute before comm before copies, so copies and
 * NCCL count only where nothing computes), then the host's state for GPU-idle time: the
 * highest-priority state of any host thread of the process at that instant. The names are part of
 * the JSON schema (docs/report-json.md).
 *
 * One row per category holds everything per category, so a row that lacks one does not
 * build: X(ID, "name", glyph, ansi, "fill", argb, "description") — the name (JSON, text), the
 * text report's bar character and its ANSI background colour (on a terminal), the HTML
 * report's fill colour, the NVTXT export's ARGB colour, one phrase for people. The writers
 * expand this macro into their own tables (tools/report/, src/interop/ssi_nvtxt.c); the
 * analysis reads only the names and descriptions. */
#define SSA_CATS(X)                                                                                \
    X(GEMM_TC, "compute.gemm_tc", 'G', 42, "#2e7d32", 0xFF6AA84Fu,                                 \
      "GEMM/conv, tensor cores (bf16/fp16/fp8)")                                                   \
    X(GEMM_FP32, "compute.gemm_fp32", 'F', 43, "#9e9d24", 0xFF6AA84Fu,                             \
      "GEMM/conv in fp32/tf32 or on CUDA cores")                                                   \
    X(ATTENTION, "compute.attention", 'A', 46, "#00838f", 0xFF6AA84Fu,                             \
      "attention kernels")                                                                         \
    X(OPTIMIZER, "compute.optimizer", 'O', 45, "#6a1b9a", 0xFF6AA84Fu,                             \
      "optimizer kernels")                                                                         \
    X(REDUCTION, "compute.reduction", 'R', 44, "#1565c0", 0xFF6AA84Fu,                             \
      "reductions, norms, softmax, pooling")                                                       \
    X(ELEMENTWISE, "compute.elementwise", 'E', 44, "#42a5f5", 0xFF6AA84Fu,                         \
      "elementwise, copies and fills as kernels")                                                  \
    X(COMPUTE_OTHER, "compute.other", 'K', 47, "#78909c", 0xFF6AA84Fu,                             \
      "other kernels")                                                                             \
    X(COMM, "comm", 'N', 45, "#ad1457", 0xFF8E7CC3u,                                               \
      "NCCL communication not hidden under compute")                                               \
    X(COPY_H2D, "copy.h2d", 'h', 41, "#e65100", 0xFFE69138u,                                       \
      "host-to-device copies not hidden under kernels")                                            \
    X(COPY_D2H, "copy.d2h", 'd', 41, "#ef6c00", 0xFFE69138u,                                       \
      "device-to-host copies not hidden under kernels")                                            \
    X(COPY_D2D, "copy.d2d", 'x', 41, "#f9a825", 0xFFE69138u,                                       \
      "device-to-device copies not hidden under kernels")                                          \
    X(COPY_P2P, "copy.p2p", 'p', 41, "#ff7043", 0xFFE69138u,                                       \
      "peer copies not hidden under kernels")                                                      \
    X(COPY_OTHER, "copy.other", 'y', 41, "#d84315", 0xFFE69138u,                                   \
      "other copies not hidden under kernels")                                                     \
    X(MEMSET, "memset", 'm', 47, "#8d6e63", 0xFF996633u,                                           \
      "memsets not hidden under kernels or copies")                                                \
    X(DATA, "data", 'D', 101, "#c62828", 0xFFCC0000u,                                              \
      "GPU idle, a host thread in data loading")                                                   \
    X(SYNC, "sync", 'S', 103, "#f06292", 0xFFF1C232u,                                              \
      "GPU idle, a host thread blocked in a synchronising call")                                   \
    X(ALLOC, "alloc", 'M', 105, "#ba68c8", 0xFFC27BA0u,                                            \
      "GPU idle, a host thread in cudaMalloc/cudaFree/host alloc")                                 \
    X(LAUNCH, "launch", 'L', 106, "#4dd0e1", 0xFF3D85C6u,                                          \
      "GPU idle, a host thread in a kernel/copy launch API")                                       \
    X(HOST, "host", '.', 100, "#bdbdbd", 0xFF999999u,                                              \
      "GPU idle, host threads doing other CPU work")

enum ssa_cat {
#define SSA_X_ENUM(id, name, glyph, ansi, fill, argb, text) SSA_CAT_##id,
    SSA_CATS(SSA_X_ENUM)
#undef SSA_X_ENUM
        SSA_CAT_COUNT
};
#define SSA_CAT_FIRST_IDLE SSA_CAT_DATA /* categories from here on mean "GPU idle" */

const char *ssa_cat_name(int cat);        /* "compute.gemm_tc", ... ; NULL out of range */
const char *ssa_cat_description(int cat); /* one phrase for people */

/* What each kind of GPU work and host call counts as: one row per kernel class, copy kind and
 * API class, with the category of SSA_CATS its time falls in. A source that is not CUDA's
 * (another vendor's kernels, copies, calls) maps its records onto these rows, or adds one
 * with its category, instead of filling arrays kept beside SSA_CATS:
 *   K(ID, "name", CAT)  a kernel class: enum ssa_kclass (SSA_KC_<ID>), ssa_kclass_name (JSON's
 *                       kernel_classes, in this order), ssa_kclass_cat. The name patterns
 *                       that give a kernel its class: ssa_kernel_class.c
 *   C(ID, CAT)          a copy kind of the trace format (SST_COPY_<ID>, src/trace/sst_format.h:
 *                       SST_COPY_KINDS, in its order: a kind without its row does not build):
 *                       ssa_copy_cat; the per-step copy counts are indexed by it
 *   A(ID, CAT)          an API class: enum ssa_api_class (SSA_API_<ID>), ssa_api_cat. Which
 *                       calls are in each: ssa_api_class.c, by CUPTI callback id. OTHER is
 *                       host work of no class, so its time is the host's
 * Each category of GPU work is reached by a row; the idle causes data and host (and memset,
 * a record of its own) are the sweep's (ssa_attr.c). docs/report-json.md names the kernel
 * classes and copy kinds (analysis.test_tables). */
#define SSA_CLASSES(K, C, A)                                                                       \
    K(GEMM_TC, "gemm_tc", GEMM_TC)                                                                 \
    K(GEMM_FP32, "gemm_fp32", GEMM_FP32)                                                           \
    K(ATTENTION, "attention", ATTENTION)                                                           \
    K(OPTIMIZER, "optimizer", OPTIMIZER)                                                           \
    K(REDUCTION, "reduction", REDUCTION)                                                           \
    K(ELEMENTWISE, "elementwise", ELEMENTWISE)                                                     \
    K(OTHER, "other", COMPUTE_OTHER)                                                               \
    K(NCCL, "nccl", COMM)                                                                          \
    C(UNKNOWN, COPY_OTHER)                                                                         \
    C(H2D, COPY_H2D)                                                                               \
    C(D2H, COPY_D2H)                                                                               \
    C(D2D, COPY_D2D)                                                                               \
    C(H2H, COPY_OTHER)                                                                             \
    C(P2P, COPY_P2P)                                                                               \
    C(H2A, COPY_OTHER)                                                                             \
    C(A2H, COPY_OTHER)                                                                             \
    C(OTHER, COPY_OTHER)                                                                           \
    A(OTHER, HOST)    /* not classed: host work */                                                 \
    A(LAUNCH, LAUNCH) /* kernel, graph, async copy or memset launch */                             \
    A(SYNC, SYNC)     /* blocks the host until the GPU catches up (incl. non-async copies) */      \
    A(ALLOC, ALLOC)   /* device/host/managed allocation or free */

#define SSA_X_NONE2(id, cat)
#define SSA_X_NONE3(id, name, cat)
#define SSA_X_KC_ENUM(id, name, cat) SSA_KC_##id,
#define SSA_X_API_ENUM(id, cat) SSA_API_##id,
#define SSA_X_COPY_ONE(id, cat) +1
enum ssa_kclass { SSA_CLASSES(SSA_X_KC_ENUM, SSA_X_NONE2, SSA_X_NONE2) SSA_KC_COUNT };
enum ssa_api_class { SSA_CLASSES(SSA_X_NONE3, SSA_X_NONE2, SSA_X_API_ENUM) SSA_API_COUNT };
/* Copy kinds counted per step (index = enum sst_copy_kind): one per row. */
enum { SSA_COPY_KINDS = 0 SSA_CLASSES(SSA_X_NONE3, SSA_X_COPY_ONE, SSA_X_NONE2) };
#undef SSA_X_KC_ENUM
#undef SSA_X_API_ENUM
#undef SSA_X_COPY_ONE
_Static_assert(SSA_API_OTHER == 0, "a call of no class is 0: the lookup tables' zero");

/* The class of a kernel from its (mangled) name; NULL or "" gives SSA_KC_OTHER. */
enum ssa_kclass ssa_kernel_class(const char *name);
const char *ssa_kclass_name(int kc); /* "gemm_tc", ..., "nccl"; NULL out of range */
int ssa_kclass_cat(int kc);          /* the category its busy time falls in */
/* What a compiler can do with an elementwise/reduction kernel when it fuses a chain of them
 * (the unfused_elementwise what-if): fuse it with its neighbours (OPEN); keep it as its own
 * pass over memory, as a reduction over the whole batch must finish before its results can be
 * applied (OWN_PASS: BatchNorm's and GroupNorm's statistics in training); nothing more, as it
 * was compiled already (DONE: Triton kernels). */
enum ssa_fusion { SSA_FUSE_OPEN, SSA_FUSE_OWN_PASS, SSA_FUSE_DONE };
enum ssa_fusion ssa_kernel_fusion(const char *name);
/* What a kernel says of its tensors' memory layout (the nchw_layout what-if), from its name:
 * cuDNN's transposes around a convolution it runs in NHWC on NCHW tensors (TRANSPOSE);
 * PyTorch's BatchNorm kernels for NCHW tensors (NCHW_NORM: their channels_last versions are
 * other kernels); the native depthwise convolutions, which exist for NCHW only (DEPTHWISE:
 * under channels_last cuDNN runs them, at a speed nothing in the trace tells). */
enum ssa_layout { SSA_LAYOUT_NONE, SSA_LAYOUT_TRANSPOSE, SSA_LAYOUT_NCHW_NORM, SSA_LAYOUT_DEPTHWISE,
                  SSA_LAYOUT_COUNT };
enum ssa_layout ssa_kernel_layout(const char *name);
/* The category of a copy's busy time by its enum sst_copy_kind (past the rows: COPY_OTHER). */
int ssa_copy_cat(int kind);
/* The category of a call's time by its class (the sweep's host state). */
int ssa_api_cat(int cls);

/* CUDA API calls as the attribution sees them (src/analysis/ssa_api_class.c: the calls it
 * classes, by their names in the trace module's callback-id table, src/trace/sst_cbid.h).
 * domain is enum sst_api_domain. */
enum ssa_api_class ssa_api_class(uint8_t domain, uint32_t cbid);
/* The name (sst_cbid_name) of a call the analysis classes; NULL for every other call. */
const char *ssa_api_name(uint8_t domain, uint32_t cbid);
/* 1 for the allocation calls that give memory back (cudaFree, cuMemFree, cuMemRelease, ...). */
int ssa_api_frees(uint8_t domain, uint32_t cbid);
/* 1 for cudaGraphLaunch / cuGraphLaunch (and their _ptsz forms). */
int ssa_is_graph_launch(uint8_t domain, uint32_t cbid);
/* 1 for a call that launches one kernel (cudaLaunchKernel and its kin, cuLaunchKernel(Ex)): not
 * a graph launch, a host function, a copy or a memset. */
int ssa_is_kernel_launch(uint8_t domain, uint32_t cbid);
/* ssa_result.step_graph_id when the launches' graphs were not told apart (a light recording:
 * no kernel or GRAPH record names them): all of them are the steps. */
#define SSA_GRAPH_UNTOLD UINT32_MAX

/* A kernel that starts this soon after its launch call began found the launch queue empty
 * (the call's own time and the GPU's pickup: 5-10 us; queued kernels wait milliseconds). */
#define SSA_QLAT_PROMPT_NS 20000ull
#define SSA_SHORT_GAP_NS 100000ull /* 100 us: longer idle gaps are host work, not launching */
/* A GPU-idle run that starts within this of a synchronising call's return (or while one is
 * open) follows that sync: the GPU drained because the host waited, and the host work done
 * before the next launch (reading back and processing results) is exposed. */
#define SSA_POST_SYNC_NS 20000ull

/* How an optimizer's kernels were launched (ssa_optimizer_kind, from the kernel's name):
 * the unfused_optimizer finding prices the difference. */
enum ssa_opt_kind {
    SSA_OPT_NONE = 0, /* not the optimizer's update (gradient clipping's norms, other kernels) */
    SSA_OPT_SINGLE,   /* one elementwise kernel per parameter tensor and op (foreach=False) */
    SSA_OPT_FOREACH,  /* multi_tensor_apply: one kernel per op over chunks of every tensor */
    SSA_OPT_FUSED,    /* the whole update in one multi-tensor kernel (fused=True, apex) */
    SSA_OPT_KINDS
};
/* The kind of an optimizer kernel; *adam: 1 when the op is one of the Adam family's (lerp,
 * addcmul, addcdiv, sqrt: an SGD step has none). Any name: SSA_OPT_NONE for the rest. */
enum ssa_opt_kind ssa_optimizer_kind(const char *name, int *adam);

/* What the GPU-side findings read per step, besides the categories (ssa_attr.c):
 * - the optimizer's kernels by enum ssa_opt_kind, and the GPU span from the start of the
 *   first unfused one to the end of the last: its busy time and the GPU operations in it;
 * - runs of back-to-back elementwise/reduction kernels (idle gaps < SSA_SHORT_GAP_NS inside
 *   allowed) of two kernels or more, which a compiler fuses into one: their busy time, the
 *   kernels in them, and of their time what fusion would save: all but the run's longest
 *   kernel (one pass over the largest tensor);
 * - GEMM/conv kernels launched with fewer thread blocks than the device has SMs, and the
 *   SM time they leave idle: duration x (SMs - blocks) / SMs. */
struct ssa_gpu_detail {
    uint32_t opt_kernels[SSA_OPT_KINDS];
    uint32_t opt_adam;
    uint32_t opt_span_ops;
    uint64_t opt_span_ns, opt_span_busy_ns;
    uint32_t fusable_runs, fusable_kernels;
    uint64_t fusable_busy_ns, fusable_ns;
    uint32_t small_gemms;
    uint64_t small_gemm_ns, gemm_idle_sm_ns;
    /* the host's time waiting for the GPU: in launch calls that blocked (a full launch queue
     * blocks the caller: SSA_LAUNCH_WAIT_NS or longer, less SSA_LAUNCH_CALL_NS each), and,
     * at most the step in all, in synchronising calls and in the frees that waited (cudaFree
     * waits for the device: a free of SSA_LAUNCH_WAIT_NS or more, less the GPU's idle time in
     * allocation calls, which is the driver's own work) */
    uint64_t launch_wait_ns, host_wait_ns, long_free_ns;
};
/* A launch call's own time when the launch queue has room, recorded in full mode (the
 * collector's callbacks inside): the mean launch call of host-bound steps, whose queue is never
 * full, in the committed fixtures (mlp-none, mlp-launch, cnn_jpeg-none, eager_mlp-bad,
 * hf_trainer_gpt2-fixed, timm_vit-fixed, cabi_data-bad: 6.3-7.4 us each). A call of
 * SSA_LAUNCH_WAIT_NS or more waited for room in the queue (those of GPU-bound steps take
 * milliseconds: a kernel's time). */
#define SSA_LAUNCH_CALL_NS 7000u
#define SSA_LAUNCH_WAIT_NS 100000u

/* What rules need per step besides the exclusive times. Counts go to the step where the
 * event starts; durations are the events' own (not exclusive) durations. */
struct ssa_step_counts {
    uint32_t kernels;
    uint32_t kernels_by_class[SSA_KC_COUNT];
    uint64_t kernel_ns_by_class[SSA_KC_COUNT];
    uint32_t launches, syncs, allocs, other_api; /* API calls of all host threads, by class */
    uint64_t launch_api_ns, sync_api_ns, alloc_api_ns;
    uint32_t copies[SSA_COPY_KINDS];
    uint64_t copy_bytes[SSA_COPY_KINDS];
    uint64_t copy_ns[SSA_COPY_KINDS];
    uint32_t pageable_copies[SSA_COPY_KINDS]; /* host side pageable */
    uint64_t pageable_bytes[SSA_COPY_KINDS];
    uint64_t pageable_ns[SSA_COPY_KINDS];
    uint32_t blocking_copies;          /* issued through a non-async API */
    uint64_t blocking_pageable_h2d_ns; /* GPU time of pageable H2D copies with a blocking API */
    uint32_t memsets;
    uint64_t memset_ns;
    uint32_t sync_records; /* CUPTI SYNCHRONIZATION records */
    uint64_t sync_record_ns;
    uint32_t data_ranges; /* "data" ranges of any host thread */
    uint64_t data_ns;     /* their time inside the step, GPU busy or not */
    /* torch.compile (the shim's marks): compile ranges that began in the step and their time
     * in it, recompile marks */
    uint32_t compiles, recompiles;
    uint64_t compile_ns;
    /* data-attributed GPU-idle time in runs that began at a sync that drained the GPU queue:
     * loading that would overlap the GPU's work if the sync went (sync_points' hidden part) */
    uint64_t post_sync_data_ns;
    /* GPU-idle gaps shorter than SSA_SHORT_GAP_NS whose time went to launch or host: the
     * host's per-kernel overhead between back-to-back kernels (launch-bound steps) */
    uint64_t short_gap_ns;
    uint32_t short_gaps;
    /* GPU-idle runs that begin at a sync (SSA_POST_SYNC_NS): their launch + host time, the
     * work the host does on synced results while the GPU has nothing queued */
    uint64_t post_sync_ns;
    uint32_t post_sync_runs;
    /* the same for runs that begin right after an H2D copy: the host was blocked in a copy of
     * pageable memory and then prepares the next tensor on the CPU */
    uint64_t pre_h2d_ns;
    uint32_t pre_h2d_runs;
    /* GPU-idle runs with an allocation call (cudaMalloc/cudaFree...) in them: of their launch
     * + host time, at most the calls' own time — the lead the host lost in them, which it
     * would otherwise have kept over the GPU (the rest of the run is counted as usual) */
    uint64_t post_alloc_ns;
    uint32_t post_alloc_runs;
    /* CUDA graphs: launches of a graph (cudaGraphLaunch/cuGraphLaunch calls), the kernels that
     * ran as graph nodes and their GPU time, and GRAPH records (graph mode: one per launch,
     * no node records) with their GPU time */
    uint32_t graph_launches, graph_kernels, graph_records;
    uint64_t graph_kernel_ns, graph_record_ns;
    struct ssa_gpu_detail gpu;
};

struct ssa_step {
    uint64_t number; /* as the program counts it (marker payload), else the sequence */
    uint64_t begin_ns, end_ns;
    int warmup; /* excluded from the summary: 1 warm-up, SSA_STEP_OUTLIER a price outlier */
    uint64_t cat_ns[SSA_CAT_COUNT]; /* sums exactly to end_ns - begin_ns */
    struct ssa_step_counts n;
};

/* What stays of every step in every mode (ssa_result.briefs): enough for step statistics
 * and a per-step table. In compact mode (SSA_COMPACT) it is all that stays per step. */
struct ssa_step_brief {
    uint64_t number, begin_ns, end_ns; /* as in struct ssa_step */
    uint64_t busy_ns;                  /* GPU-busy time: categories before SSA_CAT_FIRST_IDLE */
    uint8_t warmup;                    /* as in struct ssa_step */
    uint8_t top_cat;                   /* the category with the most time (lowest on ties) */
};

enum ssa_step_source {
    SSA_STEPS_NONE = 0, /* no markers: the whole trace as one interval */
    SSA_STEPS_RECORDS,  /* STEP records written by the collector */
    SSA_STEPS_NVTX,     /* NVTX "step" ranges in the "stepscope" domain */
    SSA_STEPS_PROFILER, /* ProfilerStep#N ranges */
    SSA_STEPS_DETECTED, /* no markers: detected from the kernel sequence's period */
    SSA_STEPS_MARKER,   /* NVTX ranges named by the user (ssa_opts.step_marker) */
    SSA_STEPS_GRAPHS,   /* the launches of the CUDA graph replayed most often (ssa_pace.c) */
};
/* "none", "step_records", "nvtx", "profiler", "detected", "marker", "graph_launches" */
const char *ssa_step_source_name(int src);

/* What opened a late --capture auto window (ENV collector.window_opened, src/collect/ssc_core.c):
 * its step (the default), or, when the step marks stopped or never came, the shim's loop ticks
 * (CUDA graph replays, backward() calls with no optimizer step between) or the time without a
 * step. One row each: token in the trace, the words the reports use. */
#define SSA_WINDOW_OPENERS(X)                                                                    \
    X(SSA_WINDOW_AT_STEP, "", "")                                                                \
    X(SSA_WINDOW_GRAPH_REPLAYS, "graph_replays",                                                 \
      "at the 8th CUDA graph replay with no optimizer step between replays (the step marks "      \
      "stopped)")                                                                                \
    X(SSA_WINDOW_BACKWARD_CALLS, "backward_calls",                                               \
      "at the 32nd backward() with no optimizer step between (the step marks stopped)")          \
    X(SSA_WINDOW_STALLED, "stalled", "when no step had been marked for 8 times the longest step") \
    X(SSA_WINDOW_NO_STEP, "no_step", "30 s after the start, no step having been marked")
#define SSA_WINDOW_ENUM(id, token, words) id,
enum ssa_window_opener { SSA_WINDOW_OPENERS(SSA_WINDOW_ENUM) SSA_WINDOW_OPENER_COUNT };
#undef SSA_WINDOW_ENUM
/* The token ("" for the step) and the words ("" for the step) of an opener; static strings. */
const char *ssa_window_opener_token(int opener);
const char *ssa_window_opener_words(int opener);
/* GPU activity records of r: kernels, copies, memsets and GRAPH records (0: none recorded). */
uint64_t ssa_gpu_records(const struct ssa_result *r);

/* The report's timeline (SSA_TIMELINE): every step, or as many as SSA_TL_BUDGET allows,
 * each with its intervals clipped to it — one lane per GPU stream, per host thread (its CUDA
 * API calls) and one of memory, and one lane of the step's attribution: what each instant
 * counted as (the sweep's stretches, merged), the time the findings price. */
enum ssa_tl_lane {
    SSA_TL_GPU = 0, /* lane: device << 32 | stream; kernels by class, copies, memsets */
    SSA_TL_HOST,    /* lane: thread id; its CUDA API calls (launch, sync, alloc by their
                     * category, the others as host), data ranges */
    SSA_TL_ATTR,    /* lane 0: the category each instant of the step went to */
    SSA_TL_MEM,     /* lane 0: memory: allocation and free calls (any thread), and the
                     * device's allocations and frees when MEMORY records were taken */
};
/* What an item's name holds (the report shows it on hover). */
enum ssa_tl_name {
    SSA_TLN_NONE = 0,
    SSA_TLN_KERNEL,        /* index into knames / kname_text */
    SSA_TLN_API,           /* domain << 24 | cbid (ssa_api_name) */
    SSA_TLN_RANGE,         /* index into tl_names: an NVTX range's message */
    SSA_TLN_COPY,          /* bytes copied (UINT32_MAX: that many or more) */
    SSA_TLN_COPY_PAGEABLE, /* the same, from or to pageable host memory */
    SSA_TLN_GRAPH,         /* a CUDA graph's id (graph mode: one record per launch) */
    SSA_TLN_MEM_ALLOC,     /* bytes allocated (MEMORY record; UINT32_MAX: that many or more) */
    SSA_TLN_MEM_FREE,      /* bytes freed */
};
struct ssa_tl_item {
    uint64_t start_ns, end_ns;
    uint64_t lane;
    uint8_t kind; /* enum ssa_tl_lane */
    uint8_t cat;  /* enum ssa_cat */
    uint8_t name_kind; /* enum ssa_tl_name */
    uint32_t name;
};
/* Why a step is drawn: the steady step of median length, the slowest steady step, or one
 * more step (every one while SSA_TL_BUDGET allows, else evenly spaced). */
enum ssa_tl_which { SSA_TL_MEDIAN = 0, SSA_TL_SLOWEST, SSA_TL_STEP, SSA_TL_WHICH };
struct ssa_timeline {
    size_t step;           /* index + 1 of the step drawn; 0: none */
    int which;             /* enum ssa_tl_which */
    struct ssa_step whole; /* that step's full result (either mode) */
    /* the GPU and host intervals in record order (at most max), then the attribution's runs
     * in time order (at most max); dropped: past those */
    struct ssa_tl_item *items;
    size_t n, cap, n_attr, dropped, max;
};
/* Steps drawn, and the intervals and runs the timelines may hold in all (estimated before
 * pass 2 from the records per step: the HTML page stays near 2 MB). The median and slowest
 * steps take up to SSA_TIMELINE_MAX each whatever the budget. */
#define SSA_TL_STEPS_MAX 512
#define SSA_TL_BUDGET 60000
#define SSA_TL_NAMES 64 /* distinct range names kept for the timelines; more go unnamed */

/* Per-step category times for the report's chart (SSA_STEP_BINS): the steps in bins of
 * `width` consecutive steps (1 up to SSA_STEP_BINS_MAX steps), cat_ns summed per bin. */
#define SSA_STEP_BINS_MAX 1000
struct ssa_step_bins {
    size_t width, n;
    uint64_t (*cat_ns)[SSA_CAT_COUNT];
};

/* Per distinct kernel name over the whole trace (for "top kernels"). */
struct ssa_kname {
    uint32_t name_id;
    uint8_t kclass;
    uint64_t count, total_ns;
};

/* Where a rank stands among the ranks of its job (ssa_ranks_peer): the comm_not_overlapped
 * rule then tells waiting from transfer. A trace reported alone has known = 0. */
struct ssa_peer {
    int known;         /* this result is a compared rank of a multi-rank job */
    int32_t straggler; /* the job's straggler rank; -1: none (ranks balanced) */
    double wait_ms;    /* of this rank's exposed comm per step, the part spent waiting for the
                        * straggler (0 on the straggler itself) */
};

/* What kind of program ran (the fix texts speak its language): recorded by the collector
 * (ENV program.kind) or, for older traces and imports, inferred (ssa_program.c). */
enum ssa_program_kind {
    SSA_PROG_UNKNOWN = 0, /* nothing tells (an nsys import of a non-Python program) */
    SSA_PROG_PYTHON,      /* Python (with torch: the shim, libtorch_python; Kineto imports) */
    SSA_PROG_CXX,         /* C++ over libtorch's C++ API */
    SSA_PROG_C,           /* C over libtorch's C ABI (aoti_torch_*, torch_call_dispatcher) */
    SSA_PROG_NATIVE,      /* C or C++ over libtorch, which API not recorded (older traces) */
    SSA_PROG_CUDA,        /* a CUDA program without libtorch */
    SSA_PROG_COUNT
};
/* "unknown", "python", "cxx", "c", "native", "cuda" */
const char *ssa_program_kind_name(int kind);

/* Facts about the program that change what a finding should advise. */
/* The training framework a Python program runs under, from its Python stack samples (the
 * frames of its trainer): its fixes then name the framework's own settings (issue #40). */
enum ssa_framework { SSA_FW_NONE, SSA_FW_HF_TRAINER, SSA_FW_LIGHTNING };
/* The framework whose trainer's frames the trace's samples hold (SSA_FW_NONE: none, or no
 * samples). (ssa_program.c) */
int ssa_program_framework(const struct ssa_result *r);

struct ssa_program {
    int kind;          /* enum ssa_program_kind */
    int kind_recorded; /* from the collector's ENV program.kind (else inferred) */
    /* torch.compile, from the shim's marks (whole trace): compile ranges and their time,
     * recompile and graph-break marks, the first reason of each ("" when none) */
    uint64_t compiles, recompiles, graph_breaks, compile_ns;
    char recompile_reason[160], graph_break_reason[160];
    double triton_pct; /* of all kernel time: Triton kernels (torch.compile's Inductor) */
    int compiled;      /* compile ranges, or Triton kernels (>= 10 % of kernel time) */
};

/* What the program said of its batch (a mark "batch: samples=N tokens=N flops=N" in the
 * stepscope domain, docs/markers.md): per step, the last mark's values; 0 unknown. */
struct ssa_batch {
    double samples, tokens, flops;
    uint64_t marks;
    int from_loader; /* no batch marks: samples and tokens are the DataLoader's (ssa_loader) */
    double params;   /* from_loader with tokens: flops estimated as 6 x params x tokens */
};

/* What the Python shim's "dataloader: ..." mark says of the main thread's DataLoader
 * (docs/markers.md): the last mark's values; marks 0 when there is none. samples and tokens
 * are per optimizer step. */
struct ssa_loader {
    double workers, batch_size, pin_memory, persistent, samples, tokens, per_step;
    double params; /* trainable parameters the stepping optimizer updates; 0 unknown */
    uint64_t marks;
};

/* ---- the whole run (ssa_run.c, issue #43) ---- */
/* What a stall's samples say the program was doing, with the words the report says and the
 * fix that fits it. */
#define SSA_RUN_CAUSES(X)                                                                        \
    X(SSA_RUNC_UNKNOWN, "unknown", "no host samples in those steps", "")                         \
    X(SSA_RUNC_CHECKPOINT, "checkpoint", "a checkpoint save (torch.save)",                       \
      "save less often, or in the background (torch.distributed.checkpoint.async_save, or a "    \
      "thread that writes a CPU copy of the state_dict)")                                        \
    X(SSA_RUNC_EPOCH, "epoch", "DataLoader workers started anew at an epoch's start",            \
      "DataLoader(..., persistent_workers=True) keeps the workers from one epoch to the next")   \
    X(SSA_RUNC_DATA, "data", "waiting for the DataLoader's next batch",                          \
      "more DataLoader workers, or a larger prefetch_factor")                                    \
    X(SSA_RUNC_COMPILE, "compile", "torch.compile compiling again (a recompile)",                \
      "keep the shapes it sees few: torch._dynamo.mark_dynamic(x, dim), compile(dynamic=True), "  \
      "or pad to a few buckets")                                                                 \
    X(SSA_RUNC_EVAL, "evaluation", "evaluation", "evaluate less often or on fewer batches")      \
    X(SSA_RUNC_LOGGING, "logging", "logging",                                                    \
      "log less often, or hand the writes to a background thread")                               \
    X(SSA_RUNC_CODE, "code", "the program's own code",                                           \
      "see why that line takes longer in those steps")                                           \
    X(SSA_RUNC_GROWTH, "growth", "a line whose time grows with the run",                         \
      "something it walks grows every step: keep a bounded window (collections.deque(maxlen=N)) " \
      "or a running sum instead of the whole history")
#define SSA_RUNC_ENUM(id, name, words, fix) id,
enum ssa_run_cause { SSA_RUN_CAUSES(SSA_RUNC_ENUM) SSA_RUNC_COUNT };
#undef SSA_RUNC_ENUM
struct ssa_run_cause_info {
    const char *name, *words, *fix; /* name: json's */
};
const struct ssa_run_cause_info *ssa_run_cause(int cause);

#define SSA_RUN_MAX_WINDOWS 64  /* GPU windows kept (n_windows counts them all) */
#define SSA_RUN_MAX_STALLS 4    /* stall sets: the periodic ones, then the rest as one */
#define SSA_RUN_MIN_STEPS 50    /* fewer steps after the first ones: no stalls or drift */
#define SSA_RUN_MIN_PERIODIC 3  /* stalls on one period before it counts as one */
#define SSA_RUN_MIN_SHARE 0.005 /* a periodic set's share of the run said (others: 4 times) */
#define SSA_RUN_ONE_SHARE 0.03  /* a stall alone: its share of the run */
#define SSA_RUN_STRETCHES 10    /* drift: the run cut into this many stretches */
#define SSA_RUN_MIN_DRIFT_STEPS 200
#define SSA_RUN_DRIFT_MIN 0.10  /* drift: the last stretch's usual step this much slower */
#define SSA_RUN_TREND_MIN 0.6   /* ... and the stretches rising (Goodman-Kruskal gamma) */

/* A Python line (index + 1 into host.tab.frames; 0 none) and its library frame. */
struct ssa_run_where {
    uint32_t frame, lib;
    int cause; /* enum ssa_run_cause */
    double ns; /* the samples' time there */
};

/* Stalls that come back at one period (every > 0, in steps), or the rest (every 0). */
struct ssa_run_stalls {
    size_t count;
    uint64_t every;
    uint64_t first_step, last_step; /* step numbers */
    size_t first_index;             /* the first one's index in the series */
    double each_ms;                 /* the median stall's time over the usual step */
    double extra_ms;                /* all of them over the usual step */
    double share;                   /* of the run's time */
    struct ssa_run_where where;
    double where_ms; /* sampled time at that line per stall */
    double cause_ms; /* sampled time in the cause's frames (any line) per stall */
};

struct ssa_run_drift {
    int found;
    uint64_t a_from, a_to, b_from, b_to; /* the first and last stretch (step numbers) */
    size_t a_steps, b_steps;
    double a_ms, b_ms, change, trend; /* their usual steps, b / a - 1, gamma (ssa_run.c) */
    double extra_ms, share;           /* the steps over the first stretch's usual one */
    struct ssa_run_where where;       /* the line whose time a step grew the most */
    double where_a_ms, where_b_ms;    /* its sampled time a step in each stretch */
};

struct ssa_run_window {
    size_t from, to; /* steps from..to-1 of the series */
    /* the window's steps as pass 2 attributed them, its first SSA_RUN_WINDOW_SKIP left out
     * (CUPTI attaching, the first kernels' loads): what `report` compares windows by */
    size_t steps;
    uint64_t ns, cat_ns[SSA_CAT_COUNT];
};
#define SSA_RUN_WINDOW_SKIP 2

/* Every marked step of the run (n 0: no step marks), GPU window or not. */
struct ssa_run {
    size_t n;
    uint64_t *number, *begin_ns; /* owned; a step's time runs to the next one's begin */
    uint64_t end_ns;             /* the last step's end */
    uint8_t *flag;               /* SSA_RUN_STALL and the stretch classes' bits */
    struct ssa_run_window windows[SSA_RUN_MAX_WINDOWS];
    size_t n_windows;
    size_t analysed_from; /* steps before it left out (start-up) */
    uint64_t usual_ns;    /* the median step that is not a stall */
    struct ssa_run_stalls stalls[SSA_RUN_MAX_STALLS];
    size_t n_stalls;
    struct ssa_run_drift drift;
};
/* Step i's time (to the next step's begin), and the series' span. */
uint64_t ssa_run_step_ns(const struct ssa_run *run, size_t i);
uint64_t ssa_run_span_ns(const struct ssa_run *run);

#define SSA_CALL_BINS 192 /* 8 per octave: up to 2^26 ns, longer calls share the last bin */
struct ssa_align_rank; /* ssa_align.h */

struct ssa_result {
    /* the trace */
    char *path;
    uint32_t pid;
    int32_t rank, world_size;
    char *cmdline;     /* NULL when the trace has no PROCESS record */
    char *device_name; /* first device, NULL when none */
    uint32_t n_devices;
    int truncated, closed;
    uint32_t bad_chunks;
    struct sst_damage damage; /* records and chunks read against what the file says it held */
    char state_line[256];
    uint64_t records;
    uint64_t kernels, memcpys, memsets, api_calls, dropped;
    uint64_t graphs;             /* GRAPH records (graph-level tracing: one per graph launch) */
    /* The collector's own time on the program's threads, as its COST records counted it (its
     * API and NVTX callbacks, the stack reads at blocking calls, CUPTI switches; sampled
     * counters scaled to all events): measured in every run, the part of the recording's cost
     * that is not CUPTI's. 0: no COST records (imports, older traces) */
    uint64_t collector_inline_ns;
    /* Launch calls inside steps by duration, 8 bins an octave (ssa_call_bin): their median
     * scales full mode's per-launch cost to this host's speed (rec_calibration) */
    uint32_t launch_call_bins[SSA_CALL_BINS];
    /* Kernels inside steps whose launch call was found by correlation id (a sample of them
     * in a large trace: ssa_qlat.c), and how many of those started within SSA_QLAT_PROMPT_NS
     * of their call's start: the launch queue was empty, the GPU waited for the host */
    uint64_t qlat_matched, qlat_prompt;
    uint64_t first_ns, last_ns;  /* span of timestamped records; 0/0 when none */
    uint32_t env_records;        /* ENV key/values read */
    uint32_t cpu_count;          /* "cpu_count" env record; 0 unknown */
    uint32_t cpu_affinity_count; /* CPUs the process may run on; 0 unknown */
    int launch_blocking;         /* env.CUDA_LAUNCH_BLOCKING blocks: ssa_env_launch_blocking */
    struct ssa_env_record env;   /* every ENV key/value, host samples' children (ssa_env.h) */
    uint64_t kernel_devices;     /* bit d: this process ran kernels on device d (mod 64) */
    uint32_t device_sms[64];     /* SMs of device d (mod 64) by its DEVICE record; 0 unknown */
    struct ssa_batch batch;      /* the program's batch marks (samples, tokens, FLOPs a step) */
    struct ssa_loader loader;    /* the shim's dataloader mark */

    /* steps */
    int step_source;    /* enum ssa_step_source */
    uint32_t train_tid; /* 0 when no thread could be told apart */
    int train_tid_from_markers;
    size_t n_steps;
    struct ssa_step *steps; /* sorted, non-overlapping; for SSA_STEPS_NONE: windows */
    size_t n_warmup;        /* flagged warm-up steps (the first ones) */
    /* a one-off steady step over SSA_PRICE_OUTLIER_FACTOR x the median (the only one, among 10
     * or more): left out of the breakdown and the prices like warm-up (its `warmup` is
     * SSA_STEP_OUTLIER), said on its own line (issue #41: one 120 ms autotuning step made a
     * catch-all the top finding); several are the program's own (recompiles), kept */
    size_t n_price_outliers;
    size_t warmup_asked;    /* --warmup N (ssa_opts.warmup_fixed): N; the report says when
                             * n_warmup is fewer (one step is always kept to analyse) */
    int warmup_autotune;    /* step 0 excluded for extra kernels (autotuning, compile) */
    size_t warmup_fill;     /* of n_warmup: fast leading steps (host ran ahead, queue fill) */
    int marker_unmatched;   /* ssa_opts.step_marker matched no complete range */
    /* Steps from graph launches (SSA_STEPS_GRAPHS): the graph, its launches, and the marked
     * steps set aside because they held fewer than half of those launches */
    uint32_t step_graph_id;
    uint64_t step_graph_launches;
    size_t markers_set_aside;
    /* GPU-paced steps (ssa_pace.c): the host ran ahead of the GPU, so each step was measured
     * on the GPU timeline (its first GPU operation to the next step's first); host_pace_ns is
     * the median step on the host's clock, kept for the report */
    int gpu_paced;
    uint64_t host_pace_ns;
    /* SSA_TIMELINE: the steps drawn (chosen by step duration before pass 2: tl[0] the
     * steady step of median length, tl[1] the slowest one when it is another, then the others
     * in step order), tl_index[i]: 1 + the timeline of step i (0: not drawn), and the names of
     * their ranges */
    struct ssa_timeline *tl;
    size_t n_tl;
    uint32_t *tl_index;
    char *tl_names[SSA_TL_NAMES];
    size_t n_tl_names;
    struct ssa_step_bins bins; /* SSA_STEP_BINS */
    uint64_t dropped_step_ranges; /* step ranges that never ended (program killed, shim) */
    /* the trace records GPU activity only in a --capture window (or not while torch.profiler
     * held CUPTI): steps outside it are not counted (ssa_capture.c) */
    int capture_window;
    int capture_late; /* that window opened mid-run (ENV collector.window or .capture from A > 0) */
    int capture_never_opened; /* ... or was to, and the run ended first */
    int window_opened; /* what opened a late --capture auto window (enum ssa_window_opener) */
    size_t outside_capture;
    /* windows whose GPU still ran work queued before they opened: their steps count from when
     * it drained, the ones before among outside_capture (ssa_capture.c) */
    size_t queued_at_open;
    /* launch sampling (ENV collector.launch_sample N > 1): kernel launch calls were recorded
     * in one step of N; the steps without them are not counted (ssa_capture.c) */
    uint32_t launch_sample;
    size_t launch_unsampled;
    /* ... and what recording launch calls cost, measured in this trace: each sampled step's
     * host-marked time less the mean of the unsampled steps on either side of it, quartiles in
     * ns; n_launch_pairs 0 when fewer than SSA_BASELINE_MIN such steps */
    size_t n_launch_pairs;
    int64_t launch_pair_q[3];
    /* GPU records that started in a recorded stretch and ended, by CUPTI's word, after it
     * closed: the close's time, not theirs (ssa_capture_end_trusted); counted without duration */
    uint64_t gpu_ends_at_close;
    /* The recording's cost measured in this trace (ssa_capture.c): the host-marked steps the
     * window recorded against those it left unrecorded (before it opened, after CUPTI was
     * detached), quartiles of each in ns; n_baseline 0 when there were too few of either */
    size_t n_baseline, n_recorded;
    uint64_t base_q[3], rec_q[3];
    /* ... the unrecorded steps left out as not steady (slower than the recorded steps' spread
     * allows: warm-up, a stall), and, when too few were left or the recorded steps ran faster
     * than them beyond noise, why no baseline was usable (enum ssa_baseline_verdict) with the
     * unrecorded steps' count and median (ns) */
    size_t n_baseline_unsteady;
    int baseline_verdict;
    size_t n_unrecorded;
    uint64_t unrecorded_median_ns;

    /* names */
    size_t n_knames;
    struct ssa_kname *knames; /* sorted by total_ns, descending */
    char **kname_text;        /* kname_text[i] is the name of knames[i] */

    /* memory the analysis held at its peak, for the benchmarks */
    size_t peak_buffered_intervals;
    uint64_t late_intervals; /* reached a step already swept (clock disorder); not counted */
    uint64_t problems;       /* damaged chunks and other reader problems */
    char first_problem[160];

    /* every mode: n_steps briefs, one per step, in the order of steps */
    struct ssa_step_brief *briefs;
    /* compact mode (SSA_COMPACT): steps is NULL and `steady` holds the sums over the
     * steady (non-warm-up) steps of cat_ns and of every count of struct ssa_step_counts
     * (number, begin_ns, end_ns, warmup are 0). ssa_summarize and ssa_find read it. */
    int compact;
    struct ssa_step steady;

    struct ssa_program program;

    /* ssa_opts.rec_cost_given / rec_cost_us, kept for ssa_summarize */
    int rec_cost_given;
    double rec_cost_us;

    /* Python stack samples over the steady steps, by stack and category (ssa_host.h); all
     * zero when the trace has none */
    struct ssa_host host;

    /* The steady steps' numbers (ssa_summarize), summed once at the end of the analysis so
     * that whoever reads the result (the report's view, diff, record's report) reads the same
     * ones and none sums them again; owned */
    struct ssa_summary *summary;

    /* the whole run's step series, its stalls and drift (ssa_run.c) */
    struct ssa_run run;

    /* SSA_ALIGN_KEEP: what aligning this rank with the others needs (ssa_align.h), owned
     * until ssa_align_job takes it; NULL otherwise */
    struct ssa_align_rank *align_rank;
};

struct ssa_opts {
    uint64_t window_ns; /* no markers: pseudo-step width used to stream (0: 100 ms) */
    int no_warmup;      /* keep every step */
    int ignore_markers; /* detect steps from kernel periodicity even when markers exist */
    /* Steps are the NVTX push/pop ranges of any domain named this, or matching the POSIX
     * extended regex after "re:" (then no other marker counts). NULL: the usual sources. */
    const char *step_marker;
    int warmup_fixed; /* exclude exactly warmup_steps first steps instead of detecting */
    size_t warmup_steps;
    /* The recording's own cost per launch to price out of the findings, in us: given (1) or
     * calibrated for the trace's collector mode (0: SSA_REC_US_FULL/LIGHT; none for traces
     * stepscope did not record). Given 0 turns the discount off. */
    int rec_cost_given;
    double rec_cost_us;
    /* Python samples and call sites of the steps that overlap [host_from_ns, host_to_ns]
     * only (`export --format folded --steps/--time`); both 0: of every step */
    uint64_t host_from_ns, host_to_ns;
    /* threads that decode the trace's chunks ahead of the analysis (sst_ahead.h; one for a
     * raw trace, whose chunks are only summed), which reads them in file order, and, when not
     * 0, one more that sweeps pass 2's closed steps (compact mode without a timeline): the
     * result is the same for any count; 0: none */
    unsigned decode_threads;
};

/* Analyses the trace at path. On success *out owns the result (ssa_result_free).
 * Errors: what sst_reader_open returns, SS_ENOMEM, or a reading error (strict reader
 * only). A truncated or damaged trace still succeeds: the result says what was read. */
int ssa_analyze_file(const char *path, const struct ssa_opts *opts, struct ssa_result **out);
void ssa_result_free(struct ssa_result *r);

/* As ssa_analyze_file, with flags. SSA_COMPACT, for traces of millions of steps: keep per
 * step only its brief (40 bytes instead of ~750) and sum the rest over the steady steps as
 * the steps complete. result->steps is then NULL (n_steps still counts the steps): read
 * result->briefs and result->steady; ssa_summarize and ssa_find work on either. Means may
 * differ from the full mode's in the last digits (summed, then divided). */
#define SSA_COMPACT 1u
/* SSA_TIMELINE: also keep the intervals of two steady steps, the one of median length and
 * the slowest (chosen by step duration before pass 2): kernels, copies and memsets per GPU
 * stream, API calls by class and data ranges per host thread, and the attribution's runs
 * (result->tl, each at most SSA_TIMELINE_MAX intervals and as many runs). */
#define SSA_TIMELINE 2u
#define SSA_TIMELINE_MAX 20000
/* SSA_STEP_BINS: also keep every step's category times, binned (result->bins). */
#define SSA_STEP_BINS 4u
/* SSA_ALIGN_KEEP: also keep what aligning the ranks of a job needs (result->align_rank:
 * hostname, clock pairs' offset, collective kernels; ssa_align.h), collected in pass 1 so
 * that ssa_align_job reads no trace again. Only for a trace read from its own path: a caller
 * that analyses an import or a stream's copy leaves it off (those ranks are not aligned). */
#define SSA_ALIGN_KEEP 8u
int ssa_analyze_file_ex(const char *path, const struct ssa_opts *opts, unsigned flags,
                        struct ssa_result **out);

/* As ssa_analyze_file_ex on a reader the caller opened (once per command: the CLI opens each
 * input one time, mapped with SST_READ_MAP, and may read it again afterwards). The analysis
 * reads r from its first chunk, takes its problems meanwhile (sst_reader_set_problem) and
 * leaves it rewound. name becomes result->path (the input as the user named it). */
int ssa_analyze_reader(struct sst_reader *r, const char *name, const struct ssa_opts *opts,
                       unsigned flags, struct ssa_result **out);

/* The numbers of the report over the steady (non-warm-up) steps. */
struct ssa_summary {
    size_t steps; /* analysed (steady) steps */
    uint64_t median_ns, p10_ns, p90_ns, mean_ns;
    double steps_per_s;            /* 1 / mean step time */
    double cat_ms[SSA_CAT_COUNT];  /* mean ms per step */
    double cat_pct[SSA_CAT_COUNT]; /* share of the summed step time */
    double gpu_busy_pct;
    double kclass_ms[SSA_KC_COUNT]; /* mean kernel time per step by class (not exclusive) */
    double kernels_per_step, launches_per_step, syncs_per_step;
    double gpu_ops_per_step; /* kernels, copies and memsets that ran inside the steps */
    double h2d_copies_per_step, h2d_mib_per_step, pageable_h2d_mib_per_step;
    uint64_t total_ns; /* summed step time */
    /* The GPU ran behind the host: the steps launched more GPU work than ran inside them (a
     * short recording of a program whose host waits for nothing). Their times then show the
     * host's enqueue pace, not the training step's, and the report says so. GPU operations per
     * launch in the committed fixtures: 0.94-1.0 where step times matched the program's own
     * timing, 0.81 where they understated it by 21 %, 0.03-0.7 far worse (SSA_AHEAD_RATIO). */
    int host_ahead;
    /* CUDA graphs, per steady step: launches of graphs, kernels that ran as graph nodes, GPU
     * time inside graphs (node kernels, or GRAPH records in graph mode) */
    double graph_launches_per_step, graph_kernels_per_step, graph_gpu_ms;
    double kernel_ms_per_step; /* summed kernel durations, graph nodes included (so the GPU
                                * time outside graphs is this less graph_gpu_ms, node mode) */
    /* The recording's own cost: CUPTI's work on every launch lengthens the
     * host's gaps between launches; where the GPU waits on those gaps it lengthens the step.
     * rec_cost_ms = launches/step x rec_us_per_launch, at most the idle time in short gaps
     * between kernels (a GPU-bound step hides it: measured 1.00x there). The findings that
     * price host gaps (launch_bound) are priced without it. */
    int rec_basis;            /* enum ssa_rec_basis */
    double rec_us_per_launch; /* the cost per launch used (0 with SSA_REC_NONE) */
    double rec_cost_ms;       /* per step, included in the step times above */
    /* the recording's own time on the host per step: its calibrated cost per launch (the
     * collector's mode, uncapped) or what it measured, the larger; in a GPU-bound step it does
     * not lengthen the step, but the host's own time (the findings' host floor) holds it */
    double rec_host_ms;
    double short_gap_ms;      /* mean idle per step in gaps < SSA_SHORT_GAP_NS between kernels */
    double gpu_busy_pct_unrecorded; /* GPU busy share of the step without rec_cost_ms */
    /* SSA_REC_MEASURED: the spread of rec_cost_ms (quartiles of the two step sets against
     * each other), and the unrecorded steps' median it was measured against */
    double rec_cost_lo_ms, rec_cost_hi_ms, rec_baseline_ms; /* lo/hi: measured, or full's range */
    double rec_inline_ms; /* per recorded step, collector_inline_ns: measured, inside rec_cost_ms */
    /* launch sampling: what recording launch calls added to a step, measured in this trace
     * (ssa_result.launch_pair_q), its ~95 % range and the sampled steps it rests on (0: not
     * measured); an estimate of the whole is never below it */
    double rec_launch_ms, rec_launch_lo_ms, rec_launch_hi_ms;
    size_t rec_launch_pairs;
    /* the median launch call (us) rec_us_per_launch was scaled from; 0: a constant was used */
    double rec_launch_call_us;
    size_t rec_baseline_steps;
    /* no measured basis although steps ran unrecorded: why (enum ssa_baseline_verdict,
     * UNSTEADY or SLOWER), their count and median; SSA_BASELINE_NONE otherwise */
    int rec_baseline_verdict;
    size_t rec_unrecorded_steps;
    double rec_unrecorded_ms, rec_recorded_ms; /* medians of the two sets */
    double rec_measured_ms, rec_measured_half_ms; /* SSA_BASELINE_IMPRECISE: what they said */
};
/* Whether the steps a window left unrecorded measure the recording's cost (ssa_capture.c). */
enum ssa_baseline_verdict {
    SSA_BASELINE_NONE,     /* no unrecorded steps to judge (or fewer than SSA_BASELINE_MIN) */
    SSA_BASELINE_USED,     /* steady: the cost is measured against them */
    SSA_BASELINE_UNSTEADY, /* too few left once the unsteady ones were out (warm-up, stalls) */
    SSA_BASELINE_SLOWER,   /* the recorded steps ran faster than them beyond noise (drift) */
    /* their measure's 95 % range (the medians' notches) is over twice as wide as the spread
     * of the calibration over other programs: too few or too noisy steps to tell the cost
     * better than the calibration does, and over 2 % of a step (rec_measured_ms,
     * rec_measured_half_ms) */
    SSA_BASELINE_IMPRECISE,
    SSA_BASELINE_COUNT
};
/* Why unrecorded steps were no baseline, as the JSON says it ("unsteady", "slower",
 * "imprecise"), or NULL where they were one or there were none to judge. */
const char *ssa_baseline_unusable(int verdict);
enum ssa_rec_basis {
    SSA_REC_NONE,  /* not a stepscope recording (an import, a synthetic trace) or turned off */
    SSA_REC_FULL,  /* calibrated: --mode full */
    SSA_REC_LIGHT, /* calibrated: --mode light */
    SSA_REC_GIVEN, /* --recording-cost-us */
    SSA_REC_FULL_WINDOW,  /* calibrated: --mode full, a --capture window opened mid-run */
    SSA_REC_LIGHT_WINDOW, /* calibrated: --mode light, a --capture window opened mid-run */
    SSA_REC_MEASURED,     /* measured in this trace: recorded steps against unrecorded ones */
    SSA_REC_KINETO,       /* an import of torch.profiler's capture: its own per-launch cost */
    SSA_REC_NSYS,         /* an import of an Nsight Systems export: nsys's per-launch cost */
};
/* Whether a basis carries ms_per_step_low/high (rec_cost_lo_ms/hi_ms): measured, or full
 * mode's calibration with the range measured on other programs (SSA_REC_US_FULL_LO/HI). */
static inline int ssa_rec_has_range(int basis)
{
    return basis == SSA_REC_MEASURED || basis == SSA_REC_FULL || basis == SSA_REC_FULL_WINDOW;
}
/* "none", "full", "light", "given", "full-window", "light-window", "measured", "kineto",
 * "nsys" */
const char *ssa_rec_basis_name(int basis);
/* Whose cost the basis prices: "stepscope's", "torch.profiler's", "Nsight Systems'". */
const char *ssa_rec_recorder(int basis);
/* The collector's cost per launch when the trace measures none itself (no steps left
 * unrecorded), by mode: the report's calibration, a guess for any one program, so it is said as
 * an estimate with a range. Each constant below is a median of runs measured inside one
 * process, where the cost is not lost in the 10-40 % that separate processes move; the figures,
 * their spread, programs, hosts and dates are in docs/performance.md, "Recording cost" (the
 * table "Inside one process" and the paragraphs that name each constant).
 *
 * Full and light mode from the start: a launch-bound CNN step (cuDNN convolutions, batch norm,
 * SGD), the capture window's steps against the steps before it. One tiny kernel per launch
 * costs less; a CNN is the more common case. */
#define SSA_REC_US_FULL 6.7
#define SSA_REC_US_LIGHT 2.0
/* How far full mode's cost per launch ranges over other programs where traces measured it
 * (the framework programs of the window fixtures, auto runs, a torch.compile program): the
 * range a calibrated estimate carries (ms_per_step_low/high). */
#define SSA_REC_US_FULL_LO 2.5
#define SSA_REC_US_FULL_HI 19.0
/* Full mode as it records since trace v3 (ENV collector.cupti_extra "none": no
 * SYNCHRONIZATION, MEMORY2 or OVERHEAD records, API calls through callbacks) costs less than
 * the constants above, which overpriced the eager MLP several-fold: the median of its full and
 * auto runs against plain, per launch, and their spread as the range. Plain runs alone move by
 * about 8 % between processes: a guess for any one run. */
#define SSA_REC_US_FULL_LEAN 3.4
#define SSA_REC_US_FULL_LEAN_LO 0.2
#define SSA_REC_US_FULL_LEAN_HI 6.7
/* The same cost scales with the host's speed, as the launch call's own time does (a quick and a
 * slow host differed 2x in both): a trace that holds launch calls prices each at this share of
 * its own median call (cudaLaunchKernel in full mode's trace), the median of the measured
 * shares, with their spread as the range. */
#define SSA_REC_FULL_LEAN_PER_CALL 0.40
#define SSA_REC_FULL_LEAN_PER_CALL_LO 0.30
#define SSA_REC_FULL_LEAN_PER_CALL_HI 0.60
/* A window that opens mid-run records API calls by whole domain (CUPTI takes per-call settings
 * only before CUDA starts; src/collect/README.md), which costs more: the same CNN through such a
 * window. */
#define SSA_REC_US_FULL_WINDOW 10.4
#define SSA_REC_US_LIGHT_WINDOW 12.9
/* Other recorders' cost per launch, for their imports: torch.profiler (CPU + CUDA
 * activities) and `nsys profile -t cuda,nvtx`, from the committed Kineto and nsys fixtures
 * against plain runs of the same programs (tests/fixtures/workloads/truth.json). torch.profiler's
 * is a lower bound: a program with denser host operations paid twice as much. */
/* A kernel inside a CUDA graph has no launch call to price, but CUPTI records each node all the
 * same: per graph kernel, the middle of the whole-step graph program's two measurements and their
 * spread as the range. */
#define SSA_REC_US_GRAPH_KERNEL 0.2
#define SSA_REC_US_GRAPH_KERNEL_LO 0.1
#define SSA_REC_US_GRAPH_KERNEL_HI 0.4
#define SSA_REC_US_KINETO 16.0
#define SSA_REC_US_NSYS 15.0
#define SSA_AHEAD_MIN_LAUNCHES 4.0 /* per step, to judge at all */
#define SSA_AHEAD_RATIO 0.85       /* GPU operations per launch below this: host ahead */
void ssa_summarize(const struct ssa_result *r, struct ssa_summary *s);

/* ---- where the host time goes (ssa_hotspot.c): the Python stack samples of the training and
 * autograd threads, placed on the timeline (ssa_host.h), collapsed to the user's lines ---- */
struct ssa_hotspot {
    /* the first user frame of the stacks (function, file, line); when a stack has none, its
     * leaf (library code only: a thread inside the framework) */
    const struct ssa_pyframe *frame;
    /* the library frame beside it, of the stacks with the most time; NULL: the line itself */
    const struct ssa_pyframe *lib;
    double ms_per_step;     /* sampled time per steady step, less the recording's own cost of
                             * the launches the samples stand for (GPU-idle ones) */
    double raw_ms_per_step; /* as sampled */
    uint64_t samples;       /* samples behind it; for call sites, the calls */
    uint64_t sync_calls;    /* blocking CUDA calls caught at this line (PY_CALL records: syncs,
                             * allocations, frees): its `sync`/`alloc` time is the category's,
                             * shared out by the time they blocked; 0 for sampled lines */
};
#define SSA_CAT_BIT(c) (1u << (c))
#define SSA_IDLE_CATS (((1u << SSA_CAT_COUNT) - 1u) & ~((1u << SSA_CAT_FIRST_IDLE) - 1u))
_Static_assert(SSA_CAT_COUNT < 32, "a category mask fits 32 bits");
/* The user's lines where the samples of the categories in mask `cats` (SSA_CAT_BIT) were, the
 * most time per steady step first: fills up to max into out and returns how many it filled.
 * None without samples (or out of memory). */
size_t ssa_host_hotspots(const struct ssa_result *r, const struct ssa_summary *s, uint32_t cats,
                         struct ssa_hotspot *out, size_t max);
/* "function (file:line)": the hotspot with its file by name (raw bytes of the trace: escape
 * them). Returns buf. */
char *ssa_hotspot_label(const struct ssa_hotspot *h, char *buf, size_t cap);

/* What the host does on a hotspot's line (ssa_hostwork.c), for the catch-all finding: one row
 * per kind, the words the report says and the fix that fits (Python programs: C and C++ ones
 * have no samples to name a line). */
#define SSA_HOST_WORKS(X)                                                                        \
    X(SSA_WORK_UNKNOWN, "", "")                                                                  \
    X(SSA_WORK_MODEL, "the model's forward and backward, run op by op from Python (eager "       \
      "PyTorch's per-op dispatch)",                                                              \
      "torch.compile(model) runs them as fused kernels with far less Python; CUDA graphs "       \
      "(torch.compile(mode=\"reduce-overhead\")) take the launches away too")                     \
    X(SSA_WORK_COMPILE, "torch.compile at work inside the steps (tracing, guards, recompiles)",  \
      "keep the shapes it sees stable: torch.compile(dynamic=True), "                            \
      "torch._dynamo.mark_dynamic(x, dim) on the dimension that changes, or pad inputs to a few " \
      "bucket sizes")                                                                            \
    X(SSA_WORK_OPTIMIZER, "the optimizer's Python loop over the parameters",                     \
      "torch.optim.AdamW(params, fused=True) (or foreach=True); zero_grad(set_to_none=True)")    \
    X(SSA_WORK_ALLOCATOR, "CUDA allocator calls (torch.cuda.empty_cache() gives memory back)",   \
      "remove torch.cuda.empty_cache() from the loop")                                           \
    X(SSA_WORK_DATA, "data preparation on the training thread (decoding, augmentation, "         \
      "collation, tokenisation)",                                                                \
      "move it into the Dataset or collate_fn and load with DataLoader(num_workers=N), or "      \
      "prepare it once before training")                                                        \
    X(SSA_WORK_LOGGING, "logging and progress output", "log and print every N steps, not every " \
      "step (a logging interval; tqdm(mininterval=1))")                                          \
    X(SSA_WORK_TORCH, "PyTorch's own Python", "find why that call runs every step, and take it " \
      "out of the loop")                                                                         \
    X(SSA_WORK_LIBRARY, "a library's Python", "take that call out of the training loop, or "     \
      "make it every N steps")                                                                   \
    X(SSA_WORK_USER, "the program's own Python", "vectorise it (one tensor operation for a "      \
      "Python loop), do it every N steps, or take it out of the training loop")
#define SSA_WORK_ENUM(id, words, fix) id,
enum ssa_host_work_kind { SSA_HOST_WORKS(SSA_WORK_ENUM) SSA_WORK_COUNT };
#undef SSA_WORK_ENUM
struct ssa_host_work {
    const char *words, *fix;
};
/* The kind of a hotspot's host work; compiled: the program uses torch.compile. */
int ssa_host_work_kind(const struct ssa_hotspot *h, int compiled);
/* A kind's row (the UNKNOWN row for a kind out of range); static storage. */
const struct ssa_host_work *ssa_host_work(int kind);

/* Outlier steps: steady steps longer than SSA_OUTLIER_FACTOR x the median, slowest first, and
 * what made each slow — in full mode the category with the most time above the steady mean
 * (excess 1), in compact mode only the step's largest category (excess 0). */
#define SSA_OUTLIER_FACTOR 1.5
#define SSA_STEP_OUTLIER 2           /* ssa_step(_brief).warmup of a price outlier */
#define SSA_PRICE_OUTLIER_FACTOR 3.0 /* a steady step this many medians long: left out */
#define SSA_PRICE_OUTLIER_SHARE 20   /* among at least half this many steady steps */
struct ssa_outlier {
    uint64_t number, dur_ns, over_median_ns;
    int cat;    /* enum ssa_cat */
    int excess; /* cat is the largest excess over the mean, not just the largest */
    uint64_t cat_excess_ns;
};
/* Fills up to max outliers into out (slowest first); returns how many steps are outliers
 * (may exceed max). */
size_t ssa_outliers(const struct ssa_result *r, const struct ssa_summary *s,
                    struct ssa_outlier *out, size_t max);

/* ---- throughput (ssa_device.c): the step's rate, and the device's peaks from one table
 * keyed by its name (vendor datasheets, dense math) ---- */
struct ssa_device_peak {
    const char *name; /* the row: "H200 SXM", "A100 PCIe" ... */
    double bf16_tflops, tf32_tflops, fp32_tflops; /* dense tensor-core bf16/fp16 and tf32,
                                                   * fp32 on CUDA cores */
    double hbm_gbps;
};
/* The peaks of the device CUDA named so, NULL when the table has no row for it. */
const struct ssa_device_peak *ssa_device_peak(const char *device_name);
struct ssa_throughput {
    const struct ssa_device_peak *peak; /* of the first device; NULL unknown */
    double steps_per_s;
    /* from the program's batch marks (0 without them): per second of mean step */
    double samples_per_s, tokens_per_s, flops_per_s;
    /* the marked FLOPs over the GEMM/conv/attention kernels' time per step: how fast those
     * kernels went (the marked FLOPs are the model's matmuls: 6 x parameters x tokens) */
    double gemm_flops_per_s;
    /* with a peak and marked FLOPs: the model FLOP/s and the GEMM kernels' FLOP/s as a share
     * of the peak of the math most GEMM time ran in (peak_basis "bf16", "tf32", "fp32") */
    const char *peak_basis;
    double mfu_pct, gemm_peak_pct;
};
void ssa_throughput(const struct ssa_result *r, const struct ssa_summary *s,
                    struct ssa_throughput *t);

/* ---- findings (ssa_findings.c: one table of rules, each a detector, a what-if estimate of
 * the saving measured on this trace's timeline, and the fix in the user's terms) ---- */
enum ssa_level { SSA_LOW = 0, SSA_MEDIUM, SSA_HIGH };
#define SSA_FINDING_HOTSPOTS 3
/* A line is named in a finding's evidence and fix only with this many samples behind it: one
 * sample is an anecdote. */
#define SSA_HOTSPOT_MIN_SAMPLES 2
const char *ssa_level_name(int level); /* "low", "medium", "high" */

/* One rule's prices judged on the fix-truth zoo's held-out programs (bench/zoo/judge.py): the
 * programs whose measured saving judged its price, the worst and median |price error| over
 * them, the findings whose fix saved nothing measurable or slowed the step, those still to
 * re-measure. */
struct ssa_held_out {
    const char *id;
    int judged, worst_pct, median_pct, nothing, remeasure;
};

struct ssa_finding {
    const char *id; /* stable key: "data_loading", "pageable_h2d", ... */
    const char *title;
    uint32_t cats;      /* the categories whose time it prices (SSA_CAT_BIT) */
    double saving_ms;   /* estimated saving per step */
    double saving_pct;  /* of the mean step */
    double speedup;     /* mean step / (mean step - saving) */
    int severity;       /* high: saving >= 10 % of the step, medium >= 3 %, else low */
    int confidence;     /* enum ssa_level: own_confidence, at most what held_out supports */
    int own_confidence; /* the rule's own (a constant instead of a measurement lowers it) */
    char evidence[640]; /* numbers from this trace */
    char estimate[320]; /* how the saving was estimated */
    char fix[400];      /* in the program's terms (struct ssa_program) */
    /* The id of a finding ranked above whose fix removes the same time (a sync that
     * exposes data loading: read less often, or load ahead); NULL when additive. Its
     * saving is what it saves alone and is not added to the other's. */
    const char *alternative_to;
    /* what the zoo's held-out half measured of the rule's prices (ssa_evidence.h, written by
     * bench/zoo/judge.py); judged 0: no held-out evidence. The confidence is at most what
     * it supports (ssa_findings.c, held_out_level). */
    struct ssa_held_out held_out;
    /* a note without a price: what it says is real, but no model stands behind a saving
     * (saving_ms 0); the reports say "not priced" instead of a saving */
    int note;
    /* where in the user's code the finding's time is (Python stack samples of the categories
     * it prices: data, sync, launch, alloc or host), the most first; none without samples */
    size_t n_hot;
    struct ssa_hotspot hot[SSA_FINDING_HOTSPOTS];
};
/* The held-out evidence of rule `id` (judged 0 where it has none), and the i-th row of the
 * evidence table (NULL past its end): static data, not to be freed. */
struct ssa_held_out ssa_held_out_of(const char *id);
const struct ssa_held_out *ssa_held_out_row(size_t i);
#define SSA_MAX_FINDINGS 24 /* room for every rule of ssa_findings.c (asserted there), and more */
#define SSA_FINDING_MIN_PCT 1.0 /* rules whose saving is below this share of the step are quiet */

struct ssa_findings {
    size_t n;
    struct ssa_finding v[SSA_MAX_FINDINGS]; /* ranked by saving_ms, largest first */
    /* every finding fixed at once (issue #41): sum_ms adds the savings (notes and alternatives
     * left out); all_ms is that, at most what takes the step down to floor_ms, the GPU's busy
     * time once the GPU-side findings are fixed: savings that overlap make all_ms smaller than
     * sum_ms (overlap set) */
    double sum_ms, all_ms, floor_ms;
    int overlap;
};
/* Runs every rule over the steady steps of r (s from ssa_summarize). */
/* peer: where r stands in its job (ssa_ranks_peer), NULL when reported alone. */
void ssa_find(const struct ssa_result *r, const struct ssa_summary *s, const struct ssa_peer *peer,
              struct ssa_findings *out);
/* The id of the i-th rule of the table (ssa_findings.c), NULL past the last: the tests check
 * that every rule is documented and tested (tests/analysis/test_tables.c). */
const char *ssa_finding_rule_id(size_t i);

/* ---- ranks of a multi-GPU job (ssa_ranks.c): the per-rank results compared ----
 *
 * In synchronous data parallel training (DDP) every rank takes about the same step time: a
 * fast rank waits inside the collective (its NCCL kernel runs, so the wait shows as exposed
 * `comm`) for the slowest rank. The slowest rank is therefore the one with the LEAST exposed
 * comm, i.e. the MOST non-comm time (step - exposed comm). That rank is the straggler; why:
 * the category where it exceeds the reference rank (the median of the others by non-comm
 * time) most; price: its non-comm time minus the reference's, per step, which is about what
 * every other rank waits. */
struct ssa_rank {
    size_t input; /* index of the result in the array given to ssa_ranks_analyze */
    int32_t rank;
    int usable;         /* steady steps from step markers: compared; else only listed */
    double step_ms;     /* mean steady step */
    double median_ms;   /* median steady step */
    double busy_pct;    /* GPU busy share */
    double nccl_ms;     /* NCCL kernel time per step (overlaps not removed) */
    double comm_ms;     /* exposed comm per step: NCCL with no compute under it */
    double overlap_pct; /* 100 (1 - comm / nccl), clamped to 0..100; 0 without NCCL */
    double noncomm_ms;  /* step_ms - comm_ms: the rank's own work */
    int top_cat;        /* its largest non-comm category */
    double top_ms;
    double wait_ms; /* of comm_ms, the part that waits for the straggler */
    double cat_ms[SSA_CAT_COUNT];
};

/* p10, median, p90 over the compared ranks */
struct ssa_spread {
    double p10, p50, p90;
};

#define SSA_STRAGGLER_MIN_PCT 5.0 /* straggler: its price is at least this share of the step */

struct ssa_align; /* ssa_align.h */

struct ssa_job {
    int32_t world_size;
    size_t n;               /* ranks of the job among the results (one per rank number) */
    size_t n_usable;        /* of them, compared */
    size_t duplicates;      /* results whose rank number was already taken (left out) */
    size_t missing;         /* rank numbers 0..world_size-1 with no result */
    size_t other_jobs;      /* rank results of another world size (left out) */
    struct ssa_rank *ranks; /* n, by rank number */
    size_t *order;          /* n_usable indices into ranks, most non-comm time first */
    struct ssa_spread step_ms, noncomm_ms, comm_ms, wait_ms;
    int has_straggler; /* the price reaches SSA_STRAGGLER_MIN_PCT of the median step */
    size_t straggler;  /* indices into ranks: the rank with the most non-comm time, */
    size_t reference;  /* and the median of the others */
    int why_cat;       /* the category where the straggler exceeds the reference most */
    double why_ms;     /* by how much, per step */
    double price_ms;   /* straggler non-comm - reference non-comm, per step */
    struct ssa_align *align; /* owned: the ranks on one timeline and their waits per
                              * collective (ssa_align_job; NULL: not aligned) */
};

/* Compares the ranks among n results (NULL entries skipped): those with world_size > 1 and
 * 0 <= rank < world_size (a torchrun launcher has rank -1: not a rank), of the world size
 * that most results share. Returns 0 with *job filled (job->n < 2: not a multi-rank job;
 * call ssa_job_free either way), or SS_ENOMEM. */
int ssa_ranks_analyze(const struct ssa_result *const *rs, size_t n, struct ssa_job *job);
void ssa_job_free(struct ssa_job *job);

/* The peer of the input-th result given to ssa_ranks_analyze (known = 0 when it is not a
 * compared rank). The results themselves are not changed. */
struct ssa_peer ssa_ranks_peer(const struct ssa_job *job, size_t input);

/* Lays the ranks of job (job->n >= 2) on one timeline and matches their collectives
 * (ssa_align.h) from what each rank's analysis kept with SSA_ALIGN_KEEP (rs as given to
 * ssa_ranks_analyze; the ranks' result->align_rank are taken over and set to NULL; a rank
 * without one, not a stepscope trace read from its path, is left out). No trace is read
 * again. Sets job->align (owned by the job, freed by ssa_job_free; NULL when fewer than 2
 * ranks are left). 0 or SS_ENOMEM. */
int ssa_align_job(struct ssa_job *job, struct ssa_result *const *rs);

#endif
