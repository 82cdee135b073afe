/*
 * ssa_findings.c — the ONE table of rules that turns a step breakdown into ranked findings.
 *
 * Each rule is a detector plus a what-if estimate read off this trace's measured timeline
 * (the exclusive per-category times of the sweep, the copies, the short idle gaps), plus the
 * fix in the user's terms. Where a rule must fall back on a constant instead of a number
 * from the trace, the constant is named and documented here, the estimate says so and the
 * confidence is lowered. The generic part sets severity (by saving share of the step) and
 * speed-up, drops rules whose saving is below SSA_FINDING_MIN_PCT of the step (except the
 * environment rules, which always speak), and ranks by saving.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ssa_host.h"
#include "ssa_internal.h"

/* A library call that syncs inside the model's forward, found by its frame in the syncs'
 * stacks: what removes the sync, and what it does to torch.compile. Under compile a sync is a
 * graph break, and one inside a library module's call leaves the whole call eager (dynamo does
 * not resume inside torch.nn's frames): the zoo's plain_lm_bf16 with torch.compile ran the same
 * eager encoder kernels, 0.31 of 24.85 ms/step saved. */
struct lib_sync {
    const char *function, *file; /* the frame: function name, a part of its file's path */
    const char *fix;             /* sync_points' fix */
    const char *before_compile;  /* what the compile fixes say to do first */
};
static const struct lib_sync lib_syncs[] = {
    /* torch/nn/modules/transformer.py: with a mask and is_causal left None, every call of
     * TransformerEncoder.forward compares the mask with a causal one (bool(tensor.all())) */
    {"_detect_is_causal_mask", "torch/nn/modules/transformer.py",
     "nn.TransformerEncoder compares the mask with a causal one on the host at every call "
     "(_detect_is_causal_mask): pass is_causal=True with the causal mask, "
     "encoder(x, mask=mask, is_causal=True)",
     "pass is_causal=True with the mask to nn.TransformerEncoder first (its mask check syncs: "
     "a graph break that leaves the encoder eager), then "},
};

/* What bf16 does to the trace's fp32/tf32 GEMM kernels (their whole time as the unit). */
struct bf16_model {
    double factor;     /* the kernels' bf16 time: each at its ratio, none under the minimum */
    double casts;      /* the casts autocast adds, per GEMM kernel launched */
    double cast_us;    /* one cast's time */
    double cast_share; /* the casts' time */
    double simt_share; /* the fp32 GEMM time on CUDA cores (TF32 off) */
};
static void bf16_model(const struct ssa_result *r, size_t steps, struct bf16_model *m);

/* What the rules read: means per steady step, in ms unless named otherwise. */
struct fctx {
    const struct ssa_result *r;
    const struct ssa_summary *s;
    struct ssa_peer peer; /* where r stands in its job (known 0: reported alone) */
    double step_ms, busy_ms, idle_ms;
    double data_ranges, data_ms, data_range_ms; /* data_ms: idle; range: wall */
    double h2d_copies, h2d_bytes, h2d_ms, pageable_bytes, pageable_ms, pageable_copies;
    double blocking_pageable_ms;
    double d2h_copies, syncs, sync_api_ms;
    double allocs, alloc_api_ms;
    double short_gap_ms, short_gaps; /* short_gap_ms: the summary's */
    double post_sync_ms, post_sync_runs, pre_h2d_ms, pre_h2d_runs, post_alloc_ms, post_alloc_runs;
    double median_kernel_us;
    double post_sync_data_ms;          /* loading exposed by a sync that drained the queue */
    double compile_ms, compiles, recompiles; /* torch.compile in the steady steps */
    int lang;     /* enum ssa_program_kind the fixes are written for (unknown: python) */
    int framework; /* enum ssa_framework: a Python program's trainer (its own settings) */
    int compiled; /* torch.compile in use (ssa_program) */
    int graphed;  /* the steady steps replay CUDA graphs */
    const struct lib_sync *lib_sync; /* the steps' syncs are this library's (NULL: unknown) */
    struct bf16_model bf16;          /* what bf16 does to the fp32 GEMM kernels */
    double idle_claimed_ms; /* the savings of the findings so far that price GPU idle time
                             * (rules[].prices_idle), alternatives to another not counted */
    double host_wait_ms;    /* ssa_gpu_detail.host_wait_ns per step */
    double host_floor_ms;   /* the host's own time per step (host_floor): 0 unknown */
    /* struct ssa_gpu_detail per step, ms for its times */
    double opt_kernels[SSA_OPT_KINDS], opt_adam, opt_span_ms, opt_span_busy_ms, opt_span_ops;
    double fusable_runs, fusable_kernels, fusable_busy_ms, fusable_ms;
    double layout_ms[SSA_LAYOUT_COUNT], layout_kernels[SSA_LAYOUT_COUNT]; /* enum ssa_layout */
    double small_gemms, small_gemm_ms, gemm_idle_sm_ms;
    double d2d_copies, d2d_bytes, memsets;
    uint64_t fired; /* bit i: rules[i] fired (the rules judged before the one reading it) */
};

/* Pinned H2D bandwidth when the trace has no pinned copy to measure it on: measured on the
 * H200 fixture tests/fixtures/workloads/traces/wide-none (128 MiB copies from pinned memory in
 * 2.418 ms over PCIe Gen5: 55.5 GB/s; a 9.2 MiB copy of h200-dataloader-w0 reached only
 * 35.6 GB/s, so the saving on small copies comes out a little high). Used for any GPU, low
 * confidence. */
#define SSA_PINNED_H2D_BPS 55.5e9
/* bf16 tensor-core GEMM/conv over tf32 tensor cores: 2x, the ratio of their dense peaks on
 * Hopper (989 vs 494 TFLOP/s). */
#define SSA_BF16_OVER_TF32 2.0
/* bf16 tensor-core GEMM over fp32 on CUDA cores (ffma/SIMT sgemm kernels, TF32 off): 15.7x,
 * measured on the H200 fixture pair tests/fixtures/workloads/traces/mlp_big-fp32 and
 * mlp_big-none (the same 2048/8192-wide GEMMs: 899 ms of fp32 GEMM kernels against 57.1 ms in
 * bf16 over the same steps). */
#define SSA_BF16_OVER_FP32_SIMT 15.7

static void ctx_add_gpu(struct fctx *c, const struct ssa_gpu_detail *g, double n)
{
    for (int k = 0; k < SSA_OPT_KINDS; k++)
        c->opt_kernels[k] += g->opt_kernels[k] / n;
    c->opt_adam += g->opt_adam / n, c->opt_span_ops += g->opt_span_ops / n;
    c->opt_span_ms += (double)g->opt_span_ns / 1e6 / n;
    c->opt_span_busy_ms += (double)g->opt_span_busy_ns / 1e6 / n;
    c->fusable_runs += g->fusable_runs / n, c->fusable_kernels += g->fusable_kernels / n;
    c->fusable_busy_ms += (double)g->fusable_busy_ns / 1e6 / n;
    c->fusable_ms += (double)g->fusable_ns / 1e6 / n;
    c->small_gemms += g->small_gemms / n;
    c->small_gemm_ms += (double)g->small_gemm_ns / 1e6 / n;
    c->gemm_idle_sm_ms += (double)g->gemm_idle_sm_ns / 1e6 / n;
}

/* Adds one step's counts (or, in compact mode, the steady steps' sums) divided by n. */
static void ctx_add(struct fctx *c, const struct ssa_step_counts *k, double n)
{
    ctx_add_gpu(c, &k->gpu, n);
    c->host_wait_ms += (double)k->gpu.host_wait_ns / 1e6 / n;
    c->d2d_copies += k->copies[SST_COPY_D2D] / n;
    c->d2d_bytes += (double)k->copy_bytes[SST_COPY_D2D] / n;
    c->memsets += k->memsets / n;
    c->data_ranges += k->data_ranges / n;
    c->data_range_ms += (double)k->data_ns / 1e6 / n;
    c->h2d_copies += k->copies[SST_COPY_H2D] / n;
    c->h2d_bytes += (double)k->copy_bytes[SST_COPY_H2D] / n;
    c->h2d_ms += (double)k->copy_ns[SST_COPY_H2D] / 1e6 / n;
    c->pageable_bytes += (double)k->pageable_bytes[SST_COPY_H2D] / n;
    c->pageable_ms += (double)k->pageable_ns[SST_COPY_H2D] / 1e6 / n;
    c->pageable_copies += k->pageable_copies[SST_COPY_H2D] / n;
    c->blocking_pageable_ms += (double)k->blocking_pageable_h2d_ns / 1e6 / n;
    c->d2h_copies += k->copies[SST_COPY_D2H] / n;
    c->syncs += k->syncs / n;
    c->sync_api_ms += (double)k->sync_api_ns / 1e6 / n;
    c->allocs += k->allocs / n;
    c->alloc_api_ms += (double)k->alloc_api_ns / 1e6 / n;
    c->short_gaps += k->short_gaps / n;
    c->post_sync_ms += (double)k->post_sync_ns / 1e6 / n;
    c->post_sync_runs += k->post_sync_runs / n;
    c->pre_h2d_ms += (double)k->pre_h2d_ns / 1e6 / n;
    c->pre_h2d_runs += k->pre_h2d_runs / n;
    c->post_alloc_ms += (double)k->post_alloc_ns / 1e6 / n;
    c->post_alloc_runs += k->post_alloc_runs / n;
    c->post_sync_data_ms += (double)k->post_sync_data_ns / 1e6 / n;
    c->compile_ms += (double)k->compile_ns / 1e6 / n;
    c->compiles += k->compiles / n, c->recompiles += k->recompiles / n;
}

static void ctx_means(struct fctx *c)
{
    const struct ssa_result *r = c->r;
    double n = (double)c->s->steps;
    if (r->compact) {
        ctx_add(c, &r->steady.n, n);
        return;
    }
    for (size_t i = 0; i < r->n_steps; i++)
        if (!r->steps[i].warmup) ctx_add(c, &r->steps[i].n, n);
}

/* Median kernel duration, each name weighted by its count at its mean duration. */
struct kmean {
    double ns;
    uint64_t count;
};

static int cmp_kmean(const void *x, const void *y)
{
    const struct kmean *p = x, *q = y;
    return p->ns < q->ns ? -1 : p->ns > q->ns;
}

static double median_kernel_us(const struct ssa_result *r)
{
    if (!r->n_knames) return 0;
    struct kmean *v = malloc(r->n_knames * sizeof *v);
    if (!v) return 0;
    uint64_t total = 0, seen = 0;
    for (size_t i = 0; i < r->n_knames; i++) {
        const struct ssa_kname *k = &r->knames[i];
        v[i] = (struct kmean){k->count ? (double)k->total_ns / (double)k->count : 0, k->count};
        total += k->count;
    }
    qsort(v, r->n_knames, sizeof *v, cmp_kmean);
    double med = 0;
    for (size_t i = 0; i < r->n_knames; i++) {
        seen += v[i].count;
        med = v[i].ns;
        if (seen * 2 >= total) break;
    }
    free(v);
    return med / 1e3;
}

/* The host's own time per step, net of the recording's cost: the step less the time the host
 * waited for the GPU (ssa_gpu_detail.host_wait_ns). No fix on the GPU's side shortens the step
 * below it. Unknown (0) without API records, and when the steps were measured on the GPU's
 * timeline (ssa_pace.c): the host ran ahead, and its calls fall in other steps than the GPU
 * work they launched. */
static double host_floor(const struct fctx *c)
{
    const struct ssa_summary *s = c->s;
    if (s->launches_per_step <= 0 || c->r->gpu_paced) return 0;
    /* the recording's host time that did not lengthen the step was taken from the host's
     * waits: it is no part of the plain run's own time (a host-bound step waited for nothing,
     * and its recording's cost is all in rec_cost_ms) */
    double hidden = fmin(fmax(s->rec_host_ms - s->rec_cost_ms, 0), c->host_wait_ms);
    double floor = c->step_ms - s->rec_cost_ms - c->host_wait_ms - hidden;
    return floor > 0 ? floor : 0;
}

#define SSA_LAUNCHBOUND_BUSY_PCT 50.0

/* The GPU-side rules speak of GPU-bound steps only: in a host-bound one the GPU's time is not
 * what the step waits for (launch_bound, low_utilisation and the idle rules are its). */
static int gpu_bound(const struct fctx *c)
{
    return c->s->gpu_busy_pct_unrecorded >= SSA_LAUNCHBOUND_BUSY_PCT;
}

/* What a saving of gpu_ms of GPU busy time gives the step: at most down to the larger of the
 * GPU's busy time after it and host_floor_ms, the host's own time after the fix (a
 * launch-bound step gains nothing). */
static double gpu_saving_to(const struct fctx *c, double gpu_ms, double host_floor_ms)
{
    double after = c->busy_ms - gpu_ms;
    double bound = after > host_floor_ms ? after : host_floor_ms;
    double most = c->step_ms - c->s->rec_cost_ms - bound;
    if (most < 0) most = 0;
    return gpu_ms < most ? gpu_ms : most;
}

static double gpu_saving(const struct fctx *c, double gpu_ms)
{
    return gpu_saving_to(c, gpu_ms, c->host_floor_ms);
}

/* Kernel time per steady step by enum ssa_layout: each name's share of the trace's kernel
 * time (its totals cover every step, warm-up included) of the steady steps' kernel time. */
static void layout_times(struct fctx *c)
{
    const struct ssa_result *r = c->r;
    double all = 0, by[SSA_LAYOUT_COUNT] = {0}, kernel_ms = 0, n = 0, n_by[SSA_LAYOUT_COUNT] = {0};
    for (size_t i = 0; r->kname_text && i < r->n_knames; i++) {
        enum ssa_layout l = ssa_kernel_layout(r->kname_text[i]);
        all += (double)r->knames[i].total_ns, by[l] += (double)r->knames[i].total_ns;
        n += (double)r->knames[i].count, n_by[l] += (double)r->knames[i].count;
    }
    for (int k = 0; k < SSA_KC_COUNT; k++)
        kernel_ms += c->s->kclass_ms[k];
    for (int l = 0; all > 0 && l < SSA_LAYOUT_COUNT; l++) {
        c->layout_ms[l] = kernel_ms * by[l] / all;
        c->layout_kernels[l] = c->s->kernels_per_step * n_by[l] / n;
    }
}

/* gpu_saving of a fix that also takes `launches` launches per step off the host: the host's
 * own time shrinks by their share of its launches. */
static double gpu_saving_fewer(const struct fctx *c, double gpu_ms, double launches)
{
    double all = c->s->launches_per_step, left = 1;
    if (all > 0 && launches > 0) left = launches < all ? 1 - launches / all : 0;
    return gpu_saving_to(c, gpu_ms, c->host_floor_ms * left);
}

/* The row of lib_syncs whose frame is beside the line where the steps' syncs block most. */
static const struct lib_sync *syncing_library(const struct fctx *c)
{
    struct ssa_hotspot h;
    if (c->lang != SSA_PROG_PYTHON) return NULL;
    if (ssa_host_hotspots(c->r, c->s, SSA_CAT_BIT(SSA_CAT_SYNC), &h, 1) != 1 || !h.lib) return NULL;
    if (!h.lib->function || !h.lib->file) return NULL;
    for (size_t i = 0; i < sizeof lib_syncs / sizeof lib_syncs[0]; i++)
        if (strcmp(h.lib->function, lib_syncs[i].function) == 0 &&
            strstr(h.lib->file, lib_syncs[i].file))
            return &lib_syncs[i];
    return NULL;
}

/* What a fix that compiles the model says first: "" unless a library's sync would break it. */
static const char *before_compile(const struct fctx *c)
{
    return c->lib_sync && !c->compiled ? c->lib_sync->before_compile : "";
}

static void ctx_init(struct fctx *c, const struct ssa_result *r, const struct ssa_summary *s)
{
    memset(c, 0, sizeof *c);
    c->r = r, c->s = s;
    c->step_ms = (double)s->mean_ns / 1e6;
    for (int k = 0; k < SSA_CAT_COUNT; k++) {
        if (k < SSA_CAT_FIRST_IDLE)
            c->busy_ms += s->cat_ms[k];
        else
            c->idle_ms += s->cat_ms[k];
    }
    c->data_ms = s->cat_ms[SSA_CAT_DATA];
    c->short_gap_ms = s->short_gap_ms;
    ctx_means(c);
    c->median_kernel_us = median_kernel_us(r);
    layout_times(c);
    c->lang = r->program.kind == SSA_PROG_UNKNOWN ? SSA_PROG_PYTHON : r->program.kind;
    c->compiled = r->program.compiled;
    c->framework = c->lang == SSA_PROG_PYTHON ? ssa_program_framework(r) : SSA_FW_NONE;
    c->graphed = s->graph_launches_per_step >= 0.5;
    c->host_floor_ms = host_floor(c);
    c->lib_sync = syncing_library(c);
    bf16_model(r, s->steps, &c->bf16);
}

/* The fix in the program's language: Python (and programs of unknown kind: most are), C++
 * over libtorch's C++ API, C over its C ABI, a CUDA program without libtorch. A C or C++
 * program whose API was not recorded (SSA_PROG_NATIVE) gets the C text: it names calls
 * that both can make. */
static const char *in_lang(const struct fctx *c, const char *py, const char *cxx,
                           const char *cc, const char *cuda)
{
    switch (c->lang) {
    case SSA_PROG_CXX: return cxx;
    case SSA_PROG_C:
    case SSA_PROG_NATIVE: return cc;
    case SSA_PROG_CUDA: return cuda;
    default: return py;
    }
}

#define SAY(buf, ...) snprintf((buf), sizeof(buf), __VA_ARGS__)

static int fired(const struct fctx *c, const char *id); /* rules[] below */

/* ---- the rules: each returns 1 when it fires, with saving, evidence, estimate, fix ---- */

#define SSA_PER_STEP 0.9 /* "every step", allowing a step that missed it */
/* Syncs rarer than one in this many steps are not the per-step read-back sync_points' fix
 * names ("every N steps" is what the program does already): a timer's or a log's sync every
 * 50 steps, a window's first or last. Their wait was the GPU working through what the host had
 * queued ahead (a CUDA graph program's one sync in 36 steps priced 0.17 ms/step, and fixed
 * twins' harness syncs 0.13, medium, where nothing was there to remove). */
#define SSA_SYNC_RARE_STEPS 4.0

/* Workers needed so that loading keeps up with the rest of the step (S - D ms, D the wait
 * for data): with none (the main process loads), a batch takes D ms to load, so
 * ceil(D / (S - D)); with W workers already (the shim's dataloader mark) the W of them
 * deliver a batch every S ms, one takes W x S, so ceil(W x S / (S - D)). Plus 1 spare, at
 * least 2 and more than W, at most the usable CPUs - 1. */
static unsigned suggest_workers(const struct fctx *c, int *capped)
{
    double rest = c->step_ms - c->data_ms, w = c->r->loader.marks ? c->r->loader.workers : 0;
    double load_ms = w > 0 ? w * c->step_ms : c->data_ms;
    double q = rest > 0.05 ? load_ms / rest : 63;
    if (q > 63) q = 63;
    unsigned n = (unsigned)q + (q > (unsigned)q) + 1; /* ceil + 1 spare */
    if (n < 2) n = 2;
    if (w > 0 && n <= (unsigned)w) n = (unsigned)w + 1;
    uint32_t cpus = c->r->cpu_affinity_count ? c->r->cpu_affinity_count : c->r->cpu_count;
    *capped = 0;
    if (cpus > 1 && n > cpus - 1) n = cpus - 1, *capped = 1;
    return n;
}

/* Loading that a per-step sync exposes: after the sync drained the queue, the host prepares
 * the next batch while the GPU has nothing to do; without the sync that preparation runs
 * while the GPU works on the step before (at most the GPU's busy time). */
static double sync_hidden_data_ms(const struct fctx *c)
{
    if (c->syncs < SSA_PER_STEP) return 0;
    return c->post_sync_data_ms < c->busy_ms ? c->post_sync_data_ms : c->busy_ms;
}

static int rule_data(const struct fctx *c, struct ssa_finding *f)
{
    if (c->data_ms <= 0) return 0;
    int capped;
    unsigned n = suggest_workers(c, &capped);
    f->saving_ms = c->data_ms;
    f->confidence = c->data_ranges >= 0.9 ? SSA_HIGH : SSA_MEDIUM; /* ranges seen, not guessed */
    uint32_t cpus = c->r->cpu_affinity_count ? c->r->cpu_affinity_count : c->r->cpu_count;
    char cpu_text[64] = "";
    if (cpus) SAY(cpu_text, ", %u CPUs usable", cpus);
    if (c->r->loader.marks) {
        size_t len = strlen(cpu_text);
        snprintf(cpu_text + len, sizeof cpu_text - len, ", num_workers=%.0f now",
                 c->r->loader.workers);
    }
    SAY(f->evidence,
        "GPU idle %.2f ms/step (%.0f %%) while the host loads data (%.1f data "
        "ranges/step, %.1f ms each%s)",
        c->data_ms, 100 * c->data_ms / c->step_ms, c->data_ranges,
        c->data_ranges > 0 ? c->data_range_ms / c->data_ranges : 0, cpu_text);
    SAY(f->estimate, "data-attributed GPU idle time: loading fully overlapped by workers");
    const char *cap = capped ? " (capped by the CPU count: also make decoding cheaper)" : "";
    if (c->framework == SSA_FW_HF_TRAINER)
        SAY(f->fix, "TrainingArguments(dataloader_num_workers=%u, dataloader_pin_memory=True, "
                    "dataloader_persistent_workers=True)%s", n, cap);
    else if (c->framework == SSA_FW_LIGHTNING)
        SAY(f->fix, "DataLoader(num_workers=%u, pin_memory=True, persistent_workers=True) in "
                    "the LightningModule's or LightningDataModule's train_dataloader()%s", n, cap);
    else if (c->lang == SSA_PROG_PYTHON)
        SAY(f->fix, "DataLoader(num_workers=%u, pin_memory=True, persistent_workers=True)%s", n,
            cap);
    else
        SAY(f->fix, "prepare batches ahead on %u producer threads into a queue 2-3 batches deep "
                    "of pinned host buffers (%s), copied with non-blocking copies on a side "
                    "stream%s",
            n, in_lang(c, "", "torch::empty(..., torch::TensorOptions().pinned_memory(true))",
                       "cudaHostAlloc, or pinned aoti_torch_* tensors", "cudaHostAlloc"),
            cap);
    /* most of the loading waits behind a sync every step: reading back less often lets it
     * overlap the GPU's work too, and is the cheaper change (sync_points prices it) */
    if (sync_hidden_data_ms(c) >= 0.5 * c->data_ms) {
        f->alternative_to = "sync_points";
        size_t len = strlen(f->fix);
        snprintf(f->fix + len, sizeof f->fix - len,
                 "; or read results back less often (sync_points): the loading then overlaps "
                 "the GPU's work without workers");
    }
    return 1;
}

static int rule_pageable(const struct fctx *c, struct ssa_finding *f)
{
    if (c->pageable_bytes <= 0) return 0;
    double pinned_bytes = c->h2d_bytes - c->pageable_bytes;
    double pinned_ms = c->h2d_ms - c->pageable_ms;
    int measured = pinned_bytes > 0 && pinned_ms > 0;
    double bps = measured ? pinned_bytes / (pinned_ms / 1e3) : SSA_PINNED_H2D_BPS;
    double at_pinned_ms = c->pageable_bytes / bps * 1e3;
    double save = c->pageable_ms > at_pinned_ms ? c->pageable_ms - at_pinned_ms : 0;
    if (c->blocking_pageable_ms > 0) /* non_blocking: the rest overlaps with compute */
        save += at_pinned_ms * c->blocking_pageable_ms / c->pageable_ms;
    double cap = c->s->cat_ms[SSA_CAT_COPY_H2D] + c->s->cat_ms[SSA_CAT_SYNC];
    f->saving_ms = save < cap ? save : cap; /* only exposed copy and wait time can go */
    f->confidence = measured ? SSA_MEDIUM : SSA_LOW;
    SAY(f->evidence,
        "%.1f pageable H2D copies/step, %.2f MiB in %.3f ms (%.1f GB/s; pinned "
        "%.1f GB/s %s)%s",
        c->pageable_copies, c->pageable_bytes / 1048576.0, c->pageable_ms,
        c->pageable_ms > 0 ? c->pageable_bytes / c->pageable_ms / 1e6 : 0, bps / 1e9,
        measured ? "measured in this trace" : "assumed: measured on an H200, none here",
        c->blocking_pageable_ms > 0 ? ", host blocked" : "");
    SAY(f->estimate, "pageable copies at the pinned bandwidth, blocking copies overlapped; "
                     "at most the exposed copy + sync time");
    SAY(f->fix, "%s",
        in_lang(c, "DataLoader(pin_memory=True) or tensor.pin_memory(), then "
                   ".to(device, non_blocking=True)",
                "copy from pinned host memory (torch::empty(..., torch::TensorOptions()"
                ".pinned_memory(true)), or tensor.pin_memory()), then "
                "tensor.to(device, /*non_blocking=*/true)",
                "copy from pinned host memory (cudaHostAlloc or cudaHostRegister, or a pinned "
                "aoti_torch_* tensor) with cudaMemcpyAsync on a side stream",
                "copy from pinned host memory (cudaHostAlloc or cudaHostRegister) with "
                "cudaMemcpyAsync on a side stream"));
    return 1;
}

/* What-if "syncs removed, the host runs ahead": the GPU no longer drains at each sync, so
 * both the wait and the host work done on the synced results before the next launch (a
 * .cpu() then a CPU metric, print(loss.item())) stop being GPU idle time — once logged every
 * N steps that work leaves the step. Short runs are the launch-bound rule's (no double count). */


/* Many small pinned H2D copies per step (per-sample tensors, labels, masks moved one by one):
 * each pays a fixed cost — the API call and the DMA's setup, seen here as the copies' mean
 * duration — that one copy of the same bytes would pay once. Pageable copies are left to
 * pageable_h2d, which prices them already. */
#define SSA_SMALL_H2D_MIN_COPIES 8.0
#define SSA_SMALL_H2D_MAX_BYTES (256.0 * 1024)
static int rule_small_h2d(const struct fctx *c, struct ssa_finding *f)
{
    double n = c->h2d_copies - c->pageable_copies;
    double bytes = c->h2d_bytes - c->pageable_bytes, ms = c->h2d_ms - c->pageable_ms;
    double exposed = c->s->cat_ms[SSA_CAT_COPY_H2D];
    if (n < SSA_SMALL_H2D_MIN_COPIES || bytes / n > SSA_SMALL_H2D_MAX_BYTES || ms <= 0 ||
        exposed <= 0)
        return 0;
    double one_ms = ms / n + bytes / SSA_PINNED_H2D_BPS * 1e3; /* one fixed cost + the bytes */
    double save = ms > one_ms ? ms - one_ms : 0;
    double cap = exposed * (c->h2d_ms > 0 ? ms / c->h2d_ms : 1); /* their exposed share */
    f->saving_ms = save < cap ? save : cap;
    f->confidence = SSA_LOW; /* the merged copy's bandwidth is the H200 constant */
    SAY(f->evidence,
        "%.1f pinned H2D copies/step of %.1f KiB on average, %.3f ms/step of copy "
        "time (%.3f ms exposed, all H2D)",
        n, bytes / n / 1024, ms, exposed);
    SAY(f->estimate, "the copies merged into one: one copy's fixed cost plus the bytes at the "
                     "pinned bandwidth; at most their exposed time");
    SAY(f->fix, "%s",
        in_lang(c, "collate the small tensors into one pinned buffer per step (a collate_fn or "
                   "torch.cat), copy it once with non_blocking=True; make constants on the device",
                "pack the small per-step tensors into one pinned buffer (torch::cat), copy it "
                "once with non_blocking; make constants on the device once",
                "pack the small per-step buffers into one pinned host buffer and copy it once "
                "(cudaMemcpyAsync); make constants on the device once",
                "pack the small per-step buffers into one pinned host buffer and copy it once "
                "(cudaMemcpyAsync); make constants on the device once"));
    return 1;
}

/* Whether the step's syncs are Lightning reading its progress-bar values back: it turns every
 * value logged with self.log(..., prog_bar=True) into a Python number at each batch's end
 * (_ResultCollection.metrics -> convert_tensors_to_scalars, lightning 2.x), whatever the bar's
 * refresh_rate, so a loop with no .item() of its own syncs every step. */
static int syncs_in_lightning_bar(const struct fctx *c)
{
    struct ssa_hotspot h;
    if (c->framework != SSA_FW_LIGHTNING) return 0;
    if (ssa_host_hotspots(c->r, c->s, SSA_CAT_BIT(SSA_CAT_SYNC), &h, 1) != 1 || !h.lib) return 0;
    return h.lib->function && strstr(h.lib->function, "convert_tensors_to_scalars") &&
           h.lib->file && strstr(h.lib->file, "fabric/utilities/apply_func.py");
}

static const char *sync_fix(const struct fctx *c)
{
    if (c->lib_sync) return c->lib_sync->fix;
    if (syncs_in_lightning_bar(c))
        return "self.log(..., prog_bar=True) makes Lightning read the value back every step "
               "(whatever the bar's refresh_rate): log step values with prog_bar=False or "
               "on_step=False, on_epoch=True";
    return in_lang(c, "avoid .item(), .cpu(), print(tensor) and torch.cuda.synchronize() every "
                      "step: accumulate on the GPU and log every N steps",
                   "read scalars back (loss.item<float>(), tensor.cpu(), "
                   "torch::cuda::synchronize()) every N steps, not every step: accumulate on "
                   "the device",
                   "read scalars back (a D2H copy, cudaStreamSynchronize, aoti_torch_item_* or a "
                   "copy to the CPU) every N steps, not every step: accumulate on the device",
                   "read results back (cudaMemcpy D2H, cudaStreamSynchronize) every N steps, not "
                   "every step: accumulate on the device");
}

static int rule_sync(const struct fctx *c, struct ssa_finding *f)
{
    double idle = c->s->cat_ms[SSA_CAT_SYNC], hidden = sync_hidden_data_ms(c);
    if (c->syncs * SSA_SYNC_RARE_STEPS < 1 || idle + c->post_sync_ms + hidden <= 0) return 0;
    /* D2H copies every step are what .item()/.cpu() wait for: logging every N steps takes
     * their exposed time out of the step too. */
    double d2h = c->d2h_copies >= SSA_PER_STEP ? c->s->cat_ms[SSA_CAT_COPY_D2H] : 0;
    f->saving_ms = idle + c->post_sync_ms + d2h + hidden;
    f->confidence = SSA_MEDIUM;
    char exposed[112] = "";
    if (hidden > 0)
        SAY(exposed, "; data loading right after them %.2f ms/step, which would overlap the "
                     "GPU's work without them", c->post_sync_data_ms);
    SAY(f->evidence,
        "%.1f synchronising calls/step (%.3f ms blocked), %.1f D2H copies/step; GPU idle "
        "%.2f ms/step in the waits and %.2f ms/step in host work right after them "
        "(%.1f times/step) before the next launch; D2H copies exposed %.2f ms/step%s",
        c->syncs, c->sync_api_ms, c->d2h_copies, idle, c->post_sync_ms, c->post_sync_runs,
        c->s->cat_ms[SSA_CAT_COPY_D2H], exposed);
    SAY(f->estimate, "sync-attributed GPU idle time plus the host work (and data loading, at "
                     "most the GPU's busy time) that follows each sync while the GPU has nothing "
                     "queued, plus the exposed time of D2H copies made every step: syncs "
                     "removed, the host runs ahead");
    SAY(f->fix, "%s", sync_fix(c));
    return 1;
}

/* Tensors made on the CPU inside the step (targets, masks, noise, constants) and copied with
 * .to(device): the host builds each on the CPU while the GPU has nothing queued (the copy
 * before it blocked, being from pageable memory), then copies it. What-if "created on the
 * device": that host work becomes a few small kernels, so the GPU-idle host time that ends
 * in a pageable H2D copy goes. */
static int rule_cpu_tensors(const struct fctx *c, struct ssa_finding *f)
{
    /* once per step at least: a pattern of the loop, not a stray copy */
    if (c->pageable_copies <= 0 || c->pre_h2d_runs < SSA_PER_STEP || c->pre_h2d_ms <= 0) return 0;
    f->saving_ms = c->pre_h2d_ms;
    f->confidence = SSA_MEDIUM;
    SAY(f->evidence,
        "%.1f H2D copies/step from pageable memory (%.2f MiB); before %.1f of them per step the "
        "GPU waits %.2f ms/step while the host makes the data on the CPU",
        c->pageable_copies, c->pageable_bytes / 1048576.0, c->pre_h2d_runs, c->pre_h2d_ms);
    SAY(f->estimate, "GPU-idle host time that ends in a pageable H2D copy: the tensors made "
                     "on the device instead, that host work and its waits leave the step");
    SAY(f->fix, "%s",
        in_lang(c, "create per-step tensors on the GPU (torch.full/zeros/randn(..., "
                   "device=\"cuda\"), tensor.to(device) once outside the loop for constants); "
                   "batches from a DataLoader: pin_memory=True + non_blocking=True",
                "create per-step tensors on the device (torch::zeros(..., "
                "torch::device(torch::kCUDA))); constants once, outside the loop",
                "create per-step tensors on the device (aoti_torch_empty_strided on the CUDA "
                "device, cudaMemsetAsync, a kernel) instead of filling host memory and copying; "
                "constants once, outside the loop",
                "create per-step data on the device (cudaMemsetAsync, a kernel) instead of "
                "filling host memory and copying; constants once, outside the loop"));
    return 1;
}

/* One process drives several GPUs: torch.nn.DataParallel (one replica thread per GPU under
 * one GIL, the model replicated and the batch scattered every step). What-if "DDP, one
 * process per GPU": the replicas' host work, serialised today, runs in parallel, so at least
 * (n - 1)/n of the GPU-idle host and launch time goes; replicate/scatter/gather go too, which
 * this lower bound leaves out. Counts NCCL-free multi-GPU programs (model parallel) too: the
 * evidence names the devices so the user can tell. */
static int rule_data_parallel(const struct fctx *c, struct ssa_finding *f)
{
    int n = __builtin_popcountll(c->r->kernel_devices);
    /* a rank of a multi-process job (DDP: WORLD_SIZE set) that touched a second GPU is not
     * DataParallel (which uses NCCL too, to broadcast the replicas: no help there) */
    if (n < 2 || c->r->world_size > 1) return 0;
    double host = c->s->cat_ms[SSA_CAT_HOST] + c->s->cat_ms[SSA_CAT_LAUNCH];
    f->saving_ms = host * (n - 1) / n;
    f->confidence = SSA_LOW;
    SAY(f->evidence,
        "one process runs kernels on %d GPUs; GPU idle %.2f ms/step while its host threads "
        "launch or run Python (%.0f %% of the step)",
        n, host, 100 * host / c->step_ms);
    SAY(f->estimate, "host + launch idle time x (n-1)/n: one process per GPU runs the replicas' "
                     "host work in parallel instead of under one GIL (replicate and scatter, "
                     "also gone, not counted)");
    if (c->lang == SSA_PROG_PYTHON)
        SAY(f->fix,
            "torch.nn.parallel.DistributedDataParallel, one process per GPU: "
            "torchrun --nproc_per_node=%d train.py",
            n);
    else
        SAY(f->fix, "one process per GPU (%d processes), each on its own device, with NCCL "
                    "all-reduce between them, instead of one host driving every GPU",
            n);
    return 1;
}

/* NCCL time with no compute under it (DDP's gradient all-reduce not hidden in backward). What-if
 * "overlapped": exposed comm runs under compute that is not already covering NCCL, so the
 * saving is the exposed comm, bounded by that spare compute (kernel time of compute minus the
 * NCCL time already overlapped). In a multi-rank report (ssa_ranks_peer) the part of the
 * exposed comm that waits for a slower rank is taken out first: there the straggler, not the
 * network, is the fix, and the ranks section prices it once. Reported alone, a rank cannot
 * tell waiting from transfer: confidence low, and the evidence says so. */
static void comm_peer_text(const struct fctx *c, double wait, char *buf, size_t cap)
{
    const struct ssa_peer *p = &c->peer;
    if (!p->known)
        snprintf(buf, cap, "reported alone: part of it may be waiting for a slower rank");
    else if (p->straggler < 0)
        snprintf(buf, cap, "ranks balanced: none waits for another");
    else if (p->straggler == c->r->rank)
        snprintf(buf, cap, "this rank is the straggler: the others wait for it");
    else
        snprintf(buf, cap, "%.2f of it waits for rank %d", wait, (int)p->straggler);
}

static int rule_comm(const struct fctx *c, struct ssa_finding *f)
{
    double exposed = c->s->cat_ms[SSA_CAT_COMM], nccl = c->s->kclass_ms[SSA_KC_NCCL];
    if (exposed <= 0 || nccl <= 0) return 0;
    const struct ssa_peer *p = &c->peer;
    double wait = !p->known ? 0 : p->wait_ms < exposed ? p->wait_ms : exposed;
    double compute = 0, overlapped = nccl > exposed ? nccl - exposed : 0;
    for (int k = SSA_CAT_GEMM_TC; k <= SSA_CAT_COMPUTE_OTHER; k++)
        compute += c->s->cat_ms[k];
    double spare = compute > overlapped ? compute - overlapped : 0, transfer = exposed - wait;
    f->saving_ms = transfer < spare ? transfer : spare;
    f->confidence = p->known ? SSA_MEDIUM : SSA_LOW;
    char who[96];
    comm_peer_text(c, wait, who, sizeof who);
    SAY(f->evidence,
        "NCCL kernels %.2f ms/step, %.2f ms/step (%.0f %%) with no compute under it (%s); "
        "compute %.2f ms/step, %.2f of it already under NCCL",
        nccl, exposed, 100 * exposed / c->step_ms, who, compute, overlapped);
    SAY(f->estimate,
        "exposed comm%s, at most the compute not yet under NCCL "
        "(overlapped with backward); the last bucket's all-reduce may stay exposed",
        p->known ? " minus its wait for a slower rank" : "");
    if (p->known && wait > 0.5 * exposed)
        SAY(f->fix,
            "mostly waiting for rank %d: speed up that rank (its findings), not the "
            "network; then DDP(bucket_cap_mb=, static_graph=True)",
            (int)p->straggler);
    else
        SAY(f->fix, "%s",
            in_lang(c, "DDP(model, bucket_cap_mb=10..25, gradient_as_bucket_view=True, "
                       "static_graph=True): all-reduce starts earlier in backward; gradient "
                       "accumulation with model.no_sync() syncs every k micro-batches",
                    "start each gradient bucket's all-reduce as soon as backward produced it, "
                    "on a side stream (overlapped with the rest of backward); all-reduce every "
                    "k micro-batches",
                    "start each gradient bucket's ncclAllReduce as soon as backward produced "
                    "it, on a side stream (overlapped with the rest of backward); all-reduce "
                    "every k micro-batches",
                    "start each gradient bucket's ncclAllReduce as soon as it is ready, on a "
                    "side stream (overlapped with the rest of backward)"));
    return 1;
}

#define SSA_SMALL_KERNEL_US 50.0
#define SSA_MANY_KERNELS 20.0

/* What to do about launches, given what the program already does: never torch.compile to a
 * compiled program, nor CUDA graphs to one that replays them. */
/* torch.compile in the program's framework: a Trainer takes it as a setting. */
static const char *compile_words(const struct fctx *c)
{
    return c->framework == SSA_FW_HF_TRAINER
               ? "TrainingArguments(torch_compile=True)"
           : c->framework == SSA_FW_LIGHTNING ? "model = torch.compile(model) before trainer.fit(model)"
                                              : "torch.compile(model)";
}

static const char *launch_fix(const struct fctx *c)
{
    if (c->lang == SSA_PROG_PYTHON && c->graphed)
        return "the step already replays CUDA graphs: capture what is still launched outside "
               "them too (the optimizer step with capturable=True, the loss); larger batch";
    if (c->lang == SSA_PROG_PYTHON && c->compiled)
        return "already compiled: torch.compile(model, mode=\"reduce-overhead\") (CUDA "
               "graphs) or mode=\"max-autotune\"; fewer graph breaks; larger batch";
    if (c->graphed)
        return "the step already replays CUDA graphs: capture what is still launched outside "
               "them too; larger batch";
    if (c->framework == SSA_FW_HF_TRAINER)
        return "TrainingArguments(torch_compile=True, torch_compile_mode=\"reduce-overhead\") "
               "(CUDA graphs); larger per_device_train_batch_size";
    if (c->framework == SSA_FW_LIGHTNING)
        return "CUDA graphs: model = torch.compile(model, mode=\"reduce-overhead\") before "
               "trainer.fit(model) (plain torch.compile fuses ops but still launches each "
               "kernel from the host); a larger batch_size in train_dataloader()";
    return in_lang(c, "CUDA graphs: torch.compile(model, mode=\"reduce-overhead\") (plain "
                      "torch.compile(model) fuses ops but still launches each kernel from the "
                      "host); the whole step, optimizer included, in one torch.cuda.graph; fuse "
                      "small ops; larger batch",
                   "capture the step in a CUDA graph (at::cuda::CUDAGraph: capture_begin, "
                   "capture_end, replay() each step); fuse small ops; larger batch",
                   "capture the step in a CUDA graph through the runtime API "
                   "(cudaStreamBeginCapture, cudaGraphInstantiate, cudaGraphLaunch each step); "
                   "fuse small ops; larger batch",
                   "capture the step in a CUDA graph (cudaStreamBeginCapture, "
                   "cudaGraphInstantiate, cudaGraphLaunch each step); fuse small kernels; "
                   "larger batch");
}

/* Kernels that start within SSA_QLAT_PROMPT_NS of their launch call found the launch queue
 * empty: the GPU waited for each launch. Where most do (SSA_LAUNCHBOUND_PROMPT_PCT of those
 * joined to their call, SSA_QLAT_MIN_KERNELS at least), the step is launch-bound up to a busier
 * GPU (SSA_LAUNCHBOUND_PROMPT_BUSY_PCT): small kernels run back to back as launched keep it
 * busier than half the time and still wait. Set on the accuracy fixtures (tune material): the
 * H100 launch plant (SiLU over 32 chunks) 78 % prompt at 57 % busy; every other recording at
 * 50-65 % busy 67 % prompt at most (wide-cpu_tensors-pageable; the clean CNN 66 %), GPU-bound
 * ones 39-52 %. */
#define SSA_LAUNCHBOUND_PROMPT_PCT 75.0
#define SSA_LAUNCHBOUND_PROMPT_BUSY_PCT 65.0
#define SSA_QLAT_MIN_KERNELS 200

static double prompt_pct(const struct ssa_result *r)
{
    if (r->qlat_matched < SSA_QLAT_MIN_KERNELS) return -1;
    return 100.0 * (double)r->qlat_prompt / (double)r->qlat_matched;
}

static double rec_us_per_op(const struct fctx *c);

/* The optimizer phase's idle gaps, less the recording's cost of the launches in it. */
static double optimizer_idle_ms(const struct fctx *c)
{
    double g = c->opt_span_ms - c->opt_span_busy_ms - c->opt_span_ops * rec_us_per_op(c) / 1e3;
    return g > 0 ? g : 0;
}

/* The optimizer step's idle gaps (less the recording's cost of its launches) where the fix is
 * torch.compile(model, mode="reduce-overhead"): that graphs the model's forward and backward,
 * and the optimizer step stays outside, launched one op at a time as before (unfused_optimizer
 * prices its gaps). On the zoo's tune program plain_mlp_per_param (per-parameter Adam, 300
 * kernels) reduce-overhead saved 3.00 ms/step of the 7.26 this rule priced with them, the
 * whole step in one CUDA graph 5.99. 0 where the fix captures the whole step: a program that
 * replays CUDA graphs already (its fix: capture the optimizer too), C, C++ and CUDA ones. */
static double optimizer_gaps_ms(const struct fctx *c)
{
    return c->lang != SSA_PROG_PYTHON || c->graphed ? 0 : optimizer_idle_ms(c);
}

/* The recording's own per-launch cost lands in the same short gaps this rule prices: without
 * the discount a CNN recorded in full mode looks launch-bound when, run plain, it is not
 * (tests/accuracy/README.md: the clean program at 48 % busy recorded, ~70 % plain). Busy share
 * and saving are judged on the step without it (ssa_summary.rec_cost_ms). */
static int rule_launch_bound(const struct fctx *c, struct ssa_finding *f)
{
    const struct ssa_summary *s = c->s;
    double lh = s->cat_ms[SSA_CAT_LAUNCH] + s->cat_ms[SSA_CAT_HOST] - s->rec_cost_ms;
    double idle = c->idle_ms - s->rec_cost_ms, opt = optimizer_gaps_ms(c);
    double gaps = c->short_gap_ms - s->rec_cost_ms - opt;
    /* busy share of the time the GPU either works or waits on host work and launches: the
     * idle that other rules price (data, syncs, allocation) does not make a step launch-bound */
    double busy_pct = lh > 0 ? 100 * c->busy_ms / (c->busy_ms + lh) : 100;
    /* with CUDA_LAUNCH_BLOCKING every launch waits for its kernel: that rule's finding */
    /* kernels that ran as nodes of a CUDA graph cost the host no launch each */
    double launched = s->kernels_per_step - s->graph_kernels_per_step;
    double prompt = prompt_pct(c->r);
    double busy_limit = prompt >= SSA_LAUNCHBOUND_PROMPT_PCT ? SSA_LAUNCHBOUND_PROMPT_BUSY_PCT
                                                             : SSA_LAUNCHBOUND_BUSY_PCT;
    if (c->r->launch_blocking || busy_pct >= busy_limit || lh * 2 < idle ||
        gaps <= 0 || launched < SSA_MANY_KERNELS || c->median_kernel_us > SSA_SMALL_KERNEL_US)
        return 0;
    f->saving_ms = gaps;
    f->confidence = SSA_MEDIUM;
    char rec[96] = "", graphs[64] = "", queue[96] = "", optim[64] = "";
    int say_opt = opt >= 0.05; /* what rounds to 0.0 is not worth the words */
    if (say_opt)
        SAY(optim, "; %.1f ms/step of them in the optimizer step, not counted", opt);
    if (s->rec_cost_ms > 0)
        SAY(rec, " (%.1f of them %s own recording cost, not counted)", s->rec_cost_ms,
            ssa_rec_recorder(s->rec_basis));
    if (s->graph_kernels_per_step > 0)
        SAY(graphs, " (%.0f more ran inside CUDA graphs)", s->graph_kernels_per_step);
    if (prompt >= 0)
        SAY(queue, "; %.0f %% of kernels started within %.0f us of their launch call (an empty "
                   "launch queue)", prompt, (double)SSA_QLAT_PROMPT_NS / 1e3);
    SAY(f->evidence,
        "GPU busy %.0f %% of the time it is not waiting on data, syncs or allocation; %.0f "
        "kernels/step%s, median %.1f us; %.1f ms/step idle in %.0f gaps < %.0f us between "
        "kernels while the host launches%s%s%s",
        busy_pct, launched, graphs, c->median_kernel_us, c->short_gap_ms, c->short_gaps,
        (double)SSA_SHORT_GAP_NS / 1e3, rec, queue, optim);
    SAY(f->estimate, "launch/host idle in short gaps between kernels, less the recording's "
                     "cost%s: per-kernel host cost below kernel time closes them; longer host "
                     "gaps stay", say_opt ? " and the optimizer step's gaps" : "");
    SAY(f->fix, "%s%s", c->graphed ? "" : before_compile(c), launch_fix(c));
    return 1;
}

/* fp32 GEMM kernels that run on CUDA cores (TF32 off), not on tf32 tensor cores. */
static int is_simt_fp32(const char *name)
{
    return !strstr(name, "tf32") && (strstr(name, "_ffma_") || strstr(name, "sgemm"));
}

/* A bf16 tensor-core GEMM kernel takes no less than this, however small: each committed
 * H100/H200 recording's shortest one (by its median) runs 2.4 us at least, 3.3 at the lower
 * quartile, 4.1 at the median of 82 (nvjet_sm90_tst_64x64..., cutlass_80_wmma_tensorop_bf16...;
 * bench/analysis/bf16_constants.py), so a 10 us fp32 GEMM does not become 0.6 us. */
#define SSA_BF16_GEMM_MIN_US 3.0
/* autocast casts a GEMM's fp32 operands to bf16 each step (weights, activations from fp32
 * ops, and the gradients back): bf16 copy kernels added per GEMM kernel, 2.2 beside linear
 * layers (the H200 pair mlp_big-fp32 / mlp_big-none: 0.06 and 2.24 copies per GEMM), 0.6
 * beside convolutions (the zoo's tune ResNet-18s: 0.60 copies per conv kernel in bf16, 0.01 in
 * fp32). Each costs what the trace's shortest elementwise kernel does: the weights' casts are
 * the small ones, and on large GEMMs the casts are a few % that bf16's halved elementwise
 * bytes win back. */
#define SSA_AUTOCAST_CASTS_PER_GEMM 2.2
#define SSA_AUTOCAST_CASTS_PER_CONV 0.6

static int is_conv_kernel(const char *name)
{
    return strstr(name, "conv") || strstr(name, "fprop") || strstr(name, "dgrad") ||
           strstr(name, "wgrad") || strstr(name, "implicit") || strstr(name, "cudnn");
}

/* The shortest mean duration of the elementwise kernels launched at least once a step. */
static double shortest_elementwise_us(const struct ssa_result *r, size_t steps)
{
    double best = 0;
    for (size_t i = 0; i < r->n_knames; i++) {
        const struct ssa_kname *k = &r->knames[i];
        if (k->kclass != SSA_KC_ELEMENTWISE || k->count < steps || !k->count) continue;
        double us = (double)k->total_ns / (double)k->count / 1e3;
        if (best == 0 || us < best) best = us;
    }
    return best;
}

static void bf16_kernel(struct bf16_model *m, const struct ssa_kname *k, const char *name,
                        double *bf16_ns)
{
    double ratio = is_simt_fp32(name) ? SSA_BF16_OVER_FP32_SIMT : SSA_BF16_OVER_TF32;
    double mean_ns = (double)k->total_ns / (double)k->count;
    double floor_ns = fmin(mean_ns, SSA_BF16_GEMM_MIN_US * 1e3);
    *bf16_ns += (double)k->count * fmax(mean_ns / ratio, floor_ns);
    if (ratio == SSA_BF16_OVER_FP32_SIMT) m->simt_share += (double)k->total_ns;
    double casts = is_conv_kernel(name) ? SSA_AUTOCAST_CASTS_PER_CONV : SSA_AUTOCAST_CASTS_PER_GEMM;
    if (!strstr(name, "splitKreduce")) /* cuBLAS's split-K epilogue: part of one GEMM */
        m->casts += (double)k->count * casts;
}

/* The model over the trace's fp32 GEMM kernels by name (without their names: the ratios of
 * the dense peaks alone, tf32's). */
static void bf16_model(const struct ssa_result *r, size_t steps, struct bf16_model *m)
{
    double all = 0, bf16_ns = 0;
    memset(m, 0, sizeof *m);
    for (size_t i = 0; i < r->n_knames; i++) {
        const struct ssa_kname *k = &r->knames[i];
        if (k->kclass != SSA_KC_GEMM_FP32 || !k->count) continue;
        all += (double)k->total_ns;
        const char *name = r->kname_text ? r->kname_text[i] : NULL;
        bf16_kernel(m, k, name ? name : "", &bf16_ns);
    }
    if (all <= 0) {
        m->factor = 1 / SSA_BF16_OVER_TF32;
        return;
    }
    m->cast_us = shortest_elementwise_us(r, steps);
    m->factor = bf16_ns / all;
    m->cast_share = m->casts * m->cast_us * 1e3 / all;
    m->simt_share /= all;
}

/* bf16 in the program's own API; tf32: most of the fp32 time runs with TF32 off, so turning
 * it on is the step before bf16. */
static void mixed_fix(const struct fctx *c, struct ssa_finding *f, int tf32)
{
    if (c->framework == SSA_FW_HF_TRAINER) {
        SAY(f->fix, "TrainingArguments(bf16=True)%s", tf32 ? "; at least tf32=True" : "");
        return;
    }
    if (c->framework == SSA_FW_LIGHTNING) {
        SAY(f->fix, "Trainer(precision=\"bf16-mixed\")%s",
            tf32 ? "; at least torch.set_float32_matmul_precision(\"high\")" : "");
        return;
    }
    const char *bf16 =
        in_lang(c, "with torch.autocast(\"cuda\", dtype=torch.bfloat16): around forward and loss",
                "run the GEMMs in bf16: at::autocast::set_autocast_enabled(at::kCUDA, true) "
                "around forward and loss, or model->to(torch::kBFloat16) with fp32 master "
                "weights",
                "run the GEMMs in bf16 through the dtype conversions the program already calls "
                "(aten::_to_copy through torch_call_dispatcher or the aoti_torch_* shims, "
                "bf16), fp32 master weights",
                "bf16 GEMMs on tensor cores (cublasGemmEx with CUDA_R_16BF inputs, "
                "CUBLAS_COMPUTE_32F)");
    const char *t =
        !tf32 ? ""
              : in_lang(c, "; at least torch.backends.cuda.matmul.allow_tf32 = True "
                           "(torch.set_float32_matmul_precision(\"high\"))",
                        "; at least at::globalContext().setAllowTF32CuBLAS(true)",
                        "; at least TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 in the environment",
                        "; at least TF32 (CUBLAS_COMPUTE_32F_FAST_TF32)");
    SAY(f->fix, "%s%s", bf16, t);
}

static int rule_mixed_precision(const struct fctx *c, struct ssa_finding *f)
{
    double fp32 = c->s->cat_ms[SSA_CAT_GEMM_FP32];
    if (fp32 <= 0) return 0;
    const struct bf16_model m = c->bf16;
    double gpu = fp32 * fmax(1 - m.factor - m.cast_share, 0);
    f->saving_ms = gpu_saving(c, gpu);
    f->confidence = SSA_LOW;
    SAY(f->evidence,
        "fp32/tf32 GEMM/conv %.2f ms/step exposed (%.0f %% of the step; kernels %.2f ms/step, "
        "%.0f %% of it on CUDA cores with TF32 off), tensor-core bf16/fp16 %.2f ms/step",
        fp32, c->s->cat_pct[SSA_CAT_GEMM_FP32], c->s->kclass_ms[SSA_KC_GEMM_FP32],
        100 * m.simt_share, c->s->kclass_ms[SSA_KC_GEMM_TC]);
    char floor[96] = "";
    if (f->saving_ms < gpu - 1e-9)
        SAY(floor, "; %.2f of it, the host's own %.2f ms/step bounding the step", f->saving_ms,
            c->host_floor_ms);
    SAY(f->estimate,
        "exposed fp32 GEMM time x (1 - %.3f - %.3f): bf16 at %.1fx CUDA-core fp32 (measured on "
        "an H200) and %.0fx tf32, no GEMM under %.0f us; autocast's casts %.1f per GEMM kernel "
        "(%.1f per convolution) of %.1f us = %.2f ms/step%s",
        m.factor, m.cast_share, SSA_BF16_OVER_FP32_SIMT, SSA_BF16_OVER_TF32, SSA_BF16_GEMM_MIN_US,
        SSA_AUTOCAST_CASTS_PER_GEMM, SSA_AUTOCAST_CASTS_PER_CONV, m.cast_us, gpu, floor);
    mixed_fix(c, f, m.simt_share > 0.5);
    return 1;
}

/* A fused optimizer step reads every tensor of the update once and writes the changed ones
 * once; PyTorch's foreach and per-parameter steps make one pass per op (torch/optim/adamw.py,
 * sgd.py: _multi_tensor_* and _single_tensor_*). Passes over the parameters' size, each op's
 * reads + writes: AdamW (weight decay mul 2, lerp 3, mul 2, addcmul 4, sqrt 2, div 2, add 2,
 * addcdiv 4) 21 against fused 7 (reads param, grad, exp_avg, exp_avg_sq; writes three); SGD
 * with momentum (mul 2, add 3, add 3) 8 against fused 5. Memory-bound kernels at one
 * bandwidth: the fused step takes that share of the unfused kernels' time. */
#define SSA_FUSED_SHARE_ADAM (7.0 / 21.0)
#define SSA_FUSED_SHARE_SGD (5.0 / 8.0)

static void optimizer_fix(const struct fctx *c, struct ssa_finding *f, int adam)
{
    const char *py = adam ? "torch.optim.AdamW(params, fused=True) (Adam, AdamW, SGD, Adagrad "
                            "take fused=True on CUDA; foreach=True at least)"
                          : "torch.optim.SGD(params, momentum=..., fused=True) (foreach=True at "
                            "least)";
    SAY(f->fix, "%s",
        in_lang(c, py,
                "step the optimizer over all parameters at once: the fused ATen op "
                "(at::_fused_adamw_ / at::_fused_sgd_ over the parameter, gradient and state "
                "lists) instead of torch::optim's per-tensor loop",
                "call the fused ATen op (aten::_fused_adamw_ / aten::_fused_sgd_ through "
                "torch_call_dispatcher) over all parameter tensors at once instead of one "
                "update per tensor",
                "update all parameters in one multi-tensor kernel (a list of pointers per "
                "launch, as PyTorch's multi_tensor_apply) instead of one kernel per tensor "
                "and op"));
}

/* An optimizer step that is not fused: per parameter tensor (many tiny kernels, each a
 * launch) or foreach (a few passes over all of them). What-if "fused": the span of the step's
 * optimizer on the GPU — from its first unfused kernel to its last — shrinks to one pass: its
 * busy time at the fused share (bounded by the host's own time, gpu_saving), and its idle gaps,
 * where the host launched the next op, less the recording's cost of the launches in it. */
/* The recording's cost per GPU operation: per launch call, for the share of the kernels the
 * host launched one by one (a CUDA graph's kernels cost it nothing each: its replay is one
 * launch; graph_mlp_healthy's optimizer, 223 operations in a graph, lost its 0.10 ms of gaps
 * to 223 launches' 0.78 ms of recording that never ran). */
static double rec_us_per_op(const struct fctx *c)
{
    const struct ssa_summary *s = c->s;
    double graphed = s->kernels_per_step > 0 ? s->graph_kernels_per_step / s->kernels_per_step : 0;
    return s->rec_us_per_launch * (graphed < 1 ? 1 - graphed : 0);
}

static int rule_unfused_optimizer(const struct fctx *c, struct ssa_finding *f)
{
    double single = c->opt_kernels[SSA_OPT_SINGLE], foreach = c->opt_kernels[SSA_OPT_FOREACH];
    /* per parameter: many launches, priced in any step; foreach: GPU time, in GPU-bound ones */
    int per_param = single >= SSA_MANY_KERNELS;
    if (c->opt_kernels[SSA_OPT_FUSED] > 0 || c->opt_span_ms <= 0 ||
        !(per_param || (foreach >= 1 && gpu_bound(c))))
        return 0;
    int adam = c->opt_adam > 0;
    double share = adam ? SSA_FUSED_SHARE_ADAM : SSA_FUSED_SHARE_SGD;
    double busy = c->opt_span_busy_ms;
    f->saving_ms = gpu_saving(c, busy * (1 - share)) + optimizer_idle_ms(c);
    f->confidence = SSA_MEDIUM; /* judged on one recorded twin (foreach -> fused) only */
    SAY(f->evidence,
        "%.0f optimizer kernels/step (%.0f one per parameter tensor, %.0f foreach), no fused "
        "one; from its first to its last the optimizer spans %.2f ms/step of the GPU's time: "
        "%.2f busy, %.0f GPU operations",
        single + foreach, single, foreach, c->opt_span_ms, busy, c->opt_span_ops);
    SAY(f->estimate,
        "one fused pass: the span's busy time x %.2f (a fused %s step moves %s of the tensor "
        "passes), and its idle gaps less the recording's cost of its launches",
        share, adam ? "Adam(W)" : "SGD-with-momentum", adam ? "7 of 21" : "5 of 8");
    optimizer_fix(c, f, adam);
    /* launch_bound's fix leaves the optimizer's launches (optimizer_gaps_ms) or takes them */
    if (per_param && optimizer_gaps_ms(c) <= 0) f->alternative_to = "launch_bound";
    return 1;
}

/* The Trainer's torch_compile=True also turns TF32 on when tf32 is left unset (transformers'
 * TrainingArguments.__post_init__: "Setting TF32 in CUDA backends to speedup torch compile"),
 * so that literal fix runs the CUDA-core fp32 GEMMs at the tf32 rate too: the GEMM time it
 * takes off, 0 for any other program. */
static double hf_compile_tf32_ms(const struct fctx *c)
{
    if (c->framework != SSA_FW_HF_TRAINER) return 0;
    return c->s->cat_ms[SSA_CAT_GEMM_FP32] * c->bf16.simt_share *
           (1 - SSA_BF16_OVER_TF32 / SSA_BF16_OVER_FP32_SIMT);
}

/* Of the NCHW BatchNorm kernels' time, the share channels_last takes off (the transposes go
 * whole): set on the zoo's tune program tv_resnet34_nchw (ResNet-34, bf16, H100: channels_last
 * saved 9.18 ms/step, 3.35 of it the transposes, the rest 0.66 of its 8.79 ms/step of NCHW
 * BatchNorm kernels). PyTorch's NCHW BatchNorm kernels run a block per channel over the whole
 * batch; its channels_last ones a grid over both. */
#define SSA_NCHW_NORM_SAVED 0.66

static const char *channels_last_fix(const struct fctx *c)
{
    if (c->framework == SSA_FW_LIGHTNING)
        return "self.to(memory_format=torch.channels_last) in the LightningModule's __init__, "
               "and x = x.to(memory_format=torch.channels_last) for each batch in "
               "training_step";
    return in_lang(c, "model = model.to(memory_format=torch.channels_last), and x = "
                      "x.to(memory_format=torch.channels_last) for each batch",
                   "keep the 4-D tensors channels_last: input.contiguous(torch::MemoryFormat::"
                   "ChannelsLast), and each conv weight p.set_data(p.contiguous(torch::"
                   "MemoryFormat::ChannelsLast))",
                   "keep the 4-D activations and conv weights in channels_last (NHWC) strides",
                   "keep the tensors in NHWC (CUDNN_TENSOR_NHWC descriptors)");
}

/* The GPU time channels_last takes off (the nchw_layout what-if): the transposes, and
 * SSA_NCHW_NORM_SAVED of the NCHW BatchNorm kernels. */
static double layout_what_if_ms(const struct fctx *c)
{
    return c->layout_ms[SSA_LAYOUT_TRANSPOSE] +
           SSA_NCHW_NORM_SAVED * c->layout_ms[SSA_LAYOUT_NCHW_NORM];
}

/* 4-D tensors in NCHW while cuDNN runs the convolutions in NHWC (bf16/fp16 tensor-core
 * kernels): it transposes each convolution's tensors there and back, and the BatchNorm kernels
 * PyTorch runs on NCHW are its slow ones. What-if "channels_last": layout_what_if_ms. Native
 * depthwise convolutions (NCHW only) move to cuDNN under channels_last: said, not priced (on
 * the zoo's MobileNet-V3 channels_last saved -0.7 in two rounds and ~8 ms/step in three). */
static int rule_nchw_layout(const struct fctx *c, struct ssa_finding *f)
{
    const double *l = c->layout_ms;
    if (!gpu_bound(c) || c->compiled || l[SSA_LAYOUT_TRANSPOSE] <= 0) return 0;
    f->saving_ms =
        gpu_saving_fewer(c, layout_what_if_ms(c), c->layout_kernels[SSA_LAYOUT_TRANSPOSE]);
    f->confidence = SSA_LOW; /* its constant comes from one tune program */
    f->alternative_to = "unfused_elementwise"; /* torch.compile converts the layout too */
    SAY(f->evidence,
        "cuDNN's NCHW<->NHWC transposes %.2f ms/step, BatchNorm's NCHW kernels %.2f ms/step",
        l[SSA_LAYOUT_TRANSPOSE], l[SSA_LAYOUT_NCHW_NORM]);
    if (l[SSA_LAYOUT_DEPTHWISE] > 0) {
        size_t n = strlen(f->evidence);
        snprintf(f->evidence + n, sizeof f->evidence - n,
                 "; native depthwise convolutions %.2f ms/step, which cuDNN runs instead under "
                 "channels_last (not priced)",
                 l[SSA_LAYOUT_DEPTHWISE]);
    }
    SAY(f->estimate, "the transposes go, and the NCHW BatchNorm kernels take %.0f %% less (their "
                     "channels_last kernels; set on one tune program)",
        100 * SSA_NCHW_NORM_SAVED);
    SAY(f->fix, "%s", channels_last_fix(c));
    return 1;
}

/* Chains of elementwise and normalisation kernels (activation, dropout, residual add, layer
 * norm) each read and write the whole tensor; a compiler fuses a chain into one kernel that
 * does it once. What-if "compiled": each run of two or more such kernels back to back (short
 * idle gaps allowed) takes the time of its longest kernel. What a compiler cannot remove
 * stays (ssa_kernel_fusion): a training BatchNorm's statistics are a pass over the batch of
 * their own, so a run is cut after them and each part takes its longest kernel; Triton
 * kernels are fused already and end a run; convolutions and GEMMs end runs too (no
 * elementwise op is assumed to move into their epilogues). Autograd keeps some of the
 * intermediates for backward, which fused kernels still write, so this was thought an upper
 * bound; on its recorded twin it came out under what torch.compile saved, since Inductor also
 * fuses into the GEMMs' epilogues (docs/performance.md, "What-if accuracy"). Inductor also lays
 * NCHW convolutions' tensors out channels_last (its layout optimisation, on by default): where
 * nchw_layout fired, its what-if is part of this one. */
static int rule_unfused_elementwise(const struct fctx *c, struct ssa_finding *f)
{
    if (!gpu_bound(c) || c->compiled || c->fusable_runs < SSA_PER_STEP || c->fusable_ms <= 0)
        return 0;
    double tf32 = hf_compile_tf32_ms(c);
    double layout = fired(c, "nchw_layout") ? layout_what_if_ms(c) : 0;
    /* one launch per run instead of one per kernel; the transposes go with the layout */
    double fewer = c->fusable_kernels - c->fusable_runs +
                   (layout > 0 ? c->layout_kernels[SSA_LAYOUT_TRANSPOSE] : 0);
    f->saving_ms = gpu_saving_fewer(c, c->fusable_ms + tf32 + layout, fewer);
    f->confidence = SSA_MEDIUM; /* judged on one twin: what Inductor fuses varies */
    SAY(f->evidence,
        "elementwise %.2f and reduction/normalisation %.2f ms/step of kernels; %.1f runs/step "
        "of back-to-back elementwise/normalisation kernels, %.1f kernels in them (%.2f ms/step "
        "busy)",
        c->s->kclass_ms[SSA_KC_ELEMENTWISE], c->s->kclass_ms[SSA_KC_REDUCTION], c->fusable_runs,
        c->fusable_kernels, c->fusable_busy_ms);
    if (tf32 > 0) /* the Trainer's literal fix does both */
        SAY(f->estimate, "each run fused into one kernel as long as its longest (BatchNorm "
            "statistics kept), and %.2f ms/step of CUDA-core fp32 GEMMs at the tf32 rate "
            "(%.1fx): the Trainer's torch_compile=True turns TF32 on when tf32 is left unset; "
            "at most down to the host's own time per step", tf32,
            SSA_BF16_OVER_FP32_SIMT / SSA_BF16_OVER_TF32);
    else if (layout > 0)
        SAY(f->estimate, "each run fused into one kernel as long as its longest (BatchNorm "
                         "statistics kept), plus %.2f ms/step of nchw_layout's what-if: Inductor "
                         "lays NCHW convolutions out channels_last; at most down to the host's "
                         "own time per step, less the launches fusing removes", layout);
    else
        SAY(f->estimate, "each run fused into one kernel as long as its longest (a BatchNorm's "
                         "batch statistics kept as a pass of their own): the rest of its busy "
                         "time, at most down to the host's own time per step (on the H200 twin, "
                         "13 %% under what torch.compile saved)");
    char plain[384];
    SAY(plain, "%s%s: Inductor fuses each chain of elementwise and normalisation ops into one "
               "kernel%s", before_compile(c), compile_words(c),
        tf32 > 0 ? "; it also turns TF32 on while tf32 is left unset" : "");
    const char *py = c->graphed ? "compile what the CUDA graph captures (torch.compile of the "
                                  "step's function, mode=\"reduce-overhead\" keeps it in CUDA "
                                  "graphs): Inductor fuses each chain of elementwise and "
                                  "normalisation ops into one kernel"
                                : plain;
    SAY(f->fix, "%s",
        in_lang(c, py,
                "compile the model ahead of time with AOTInductor (torch._inductor.aoti_compile_"
                "and_package in Python, torch::inductor::AOTIModelPackageLoader in C++), or "
                "fuse the chains into custom kernels",
                "run an AOTInductor-compiled model (aoti_torch_* runtime) or fuse the chains of "
                "elementwise ops into one kernel each",
                "fuse consecutive elementwise kernels into one (one read and one write of the "
                "tensor)"));
    return 1;
}

/* GEMMs and convolutions too small to fill the GPU: fewer thread blocks than SMs leave the
 * other SMs idle for the kernel's duration (persistent kernels launch one block per SM at
 * most, so they are judged the same way; several blocks on one SM do not happen below one
 * per SM). What-if "batched": the SM time they leave idle — an upper bound, reached when
 * independent small GEMMs run as one (a batched or grouped GEMM) or the batch grows. */
static int rule_small_gemms(const struct fctx *c, struct ssa_finding *f)
{
    if (!gpu_bound(c) || c->small_gemms < SSA_PER_STEP || c->gemm_idle_sm_ms <= 0) return 0;
    f->saving_ms = gpu_saving(c, c->gemm_idle_sm_ms);
    f->confidence = SSA_LOW;
    SAY(f->evidence,
        "%.1f GEMM/conv kernels/step launched with fewer thread blocks than the GPU has SMs "
        "(%.2f ms/step of kernel time, %.0f %% of it with SMs idle)",
        c->small_gemms, c->small_gemm_ms,
        c->small_gemm_ms > 0 ? 100 * c->gemm_idle_sm_ms / c->small_gemm_ms : 0);
    SAY(f->estimate, "the SM time these kernels leave idle (duration x idle SMs / SMs), at most "
                     "down to the host's own time per step: an upper bound");
    SAY(f->fix, "%s",
        in_lang(c, "batch the small matmuls into one (torch.bmm, one Linear over concatenated "
                   "weights, e.g. fused QKV), or a larger batch per step (gradient "
                   "accumulation keeps the optimizer's batch)",
                "batch the small matmuls (torch::bmm, one matmul over concatenated weights), "
                "or a larger batch per step",
                "batch the small matmuls (one batched GEMM, or one GEMM over concatenated "
                "weights), or a larger batch per step",
                "batch the small GEMMs (cublasGemmStridedBatchedEx, cublasLt grouped GEMM), or "
                "a larger batch per step"));
    return 1;
}

/* Device-to-device copies and memsets inside the step that no kernel hides (clone,
 * contiguous, torch.cat, gradients zeroed in place, staging copies into a CUDA graph's static
 * inputs). What-if "written in place": their exposed time goes. */
static int rule_device_copies(const struct fctx *c, struct ssa_finding *f)
{
    double d2d = c->s->cat_ms[SSA_CAT_COPY_D2D], ms = c->s->cat_ms[SSA_CAT_MEMSET];
    if (!gpu_bound(c) || (c->d2d_copies < SSA_PER_STEP && c->memsets < SSA_PER_STEP) ||
        d2d + ms <= 0)
        return 0;
    f->saving_ms = gpu_saving(c, d2d + ms);
    f->confidence = SSA_MEDIUM;
    SAY(f->evidence,
        "%.1f device-to-device copies/step (%.2f MiB, %.3f ms/step exposed) and %.1f "
        "memsets/step (%.3f ms/step exposed) inside the step",
        c->d2d_copies, c->d2d_bytes / 1048576.0, d2d, c->memsets, ms);
    SAY(f->estimate, "the exposed time of the device copies and memsets: written in place, "
                     "they go; at most down to the host's own time per step");
    SAY(f->fix, "%s",
        in_lang(c, "avoid copies inside the step: .clone(), .contiguous(), torch.cat of large "
                   "tensors, x.copy_(y) into staging buffers; write results in place (out=); "
                   "optimizer.zero_grad(set_to_none=True) instead of zeroing gradients",
                "avoid copies inside the step (clone(), contiguous(), torch::cat of large "
                "tensors, copy_ into staging buffers): write in place; zero_grad(true) sets "
                "gradients to none",
                "avoid device copies and memsets inside the step: write results in place, "
                "reuse buffers instead of clearing them",
                "avoid cudaMemcpyAsync device-to-device and cudaMemsetAsync inside the step: "
                "write results in place, reuse buffers"));
    return 1;
}

static int rule_alloc(const struct fctx *c, struct ssa_finding *f)
{
    double idle = c->s->cat_ms[SSA_CAT_ALLOC];
    if (c->allocs < 1 || idle <= 0) return 0;
    f->saving_ms = idle + c->post_alloc_ms;
    f->confidence = SSA_MEDIUM;
    SAY(f->evidence,
        "%.1f cudaMalloc/cudaFree calls per steady step (%.3f ms), GPU idle "
        "%.2f ms/step meanwhile and %.2f ms/step in host work and launches right around "
        "them (%.1f idle runs/step)",
        c->allocs, c->alloc_api_ms, idle, c->post_alloc_ms, c->post_alloc_runs);
    SAY(f->estimate, "alloc-attributed GPU idle time, plus the launch + host time of the idle "
                     "runs the calls are in (the GPU drained while the host allocated): the "
                     "caching allocator reuses blocks and the host stays ahead");
    SAY(f->fix, "%s",
        in_lang(c, "remove torch.cuda.empty_cache() from the loop; keep shapes stable; "
                   "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
                "reuse tensors across steps (keep shapes stable); no "
                "c10::cuda::CUDACachingAllocator::emptyCache() in the loop; "
                "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
                "allocate buffers once and reuse them (keep shapes stable); no cudaFree or "
                "emptyCache in the loop; PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
                "allocate once and reuse, or cudaMallocAsync from a memory pool; no "
                "cudaMalloc/cudaFree every step"));
    return 1;
}

static int rule_launch_blocking(const struct fctx *c, struct ssa_finding *f)
{
    if (!c->r->launch_blocking) return 0;
    /* every launch waits for its kernel: host and GPU run in series; overlapped, the step
     * would lose the shorter of the two */
    f->saving_ms = c->busy_ms < c->idle_ms ? c->busy_ms : c->idle_ms;
    f->confidence = SSA_MEDIUM;
    SAY(f->evidence,
        "CUDA_LAUNCH_BLOCKING is set: every launch waits for its kernel "
        "(GPU busy %.2f, idle %.2f ms/step)",
        c->busy_ms, c->idle_ms);
    SAY(f->estimate, "host and GPU overlapped: the shorter of GPU busy and GPU idle time");
    SAY(f->fix, "unset CUDA_LAUNCH_BLOCKING (a debugging switch)");
    f->severity = SSA_HIGH; /* a debug switch left on is always worth saying */
    return 1;
}

/* torch.compile compiling again in steady state: dynamo's guards failed (a shape, a Python
 * value, a graph break), so every such step stops for a compile. What-if "stable inputs":
 * the compile time inside the steady steps goes. The cause from dynamo's first reason. */
static const char *recompile_fix(const struct ssa_program *p)
{
    const char *why = p->recompile_reason;
    if (strstr(why, "size mismatch") || strstr(why, "stride mismatch"))
        return "mark the changing dimension dynamic before the call "
               "(torch._dynamo.mark_dynamic(x, 0)) or torch.compile(model, dynamic=True); or pad "
               "batches to a few fixed sizes";
    if (strstr(why, "___check_obj_id") || strstr(why, " == ") || strstr(why, "type("))
        return "pass Python values that change between steps (learning rate, step counters, "
               "flags) as tensors, or keep them constant; torch._logging.set_logs("
               "recompiles=True) shows each guard";
    if (p->graph_breaks)
        return "remove the graph breaks (torch._dynamo.explain(model)(*inputs) lists them), so "
               "that fewer frames are compiled and guarded";
    return "keep input shapes and Python values stable between steps; "
           "torch._logging.set_logs(recompiles=True) shows why each recompile happens";
}

static int rule_recompile(const struct fctx *c, struct ssa_finding *f)
{
    const struct ssa_program *p = &c->r->program;
    if (c->compile_ms <= 0 || (c->recompiles <= 0 && c->compiles <= 0)) return 0;
    f->saving_ms = c->compile_ms;
    f->confidence = p->recompile_reason[0] ? SSA_HIGH : SSA_MEDIUM;
    char why[200] = "";
    if (p->recompile_reason[0]) SAY(why, "; dynamo's reason: %.160s", p->recompile_reason);
    SAY(f->evidence,
        "%.1f compiles per 100 steady steps (%.1f recompiles), %.2f ms/step spent compiling "
        "after warm-up%s",
        100 * c->compiles, 100 * c->recompiles, c->compile_ms, why);
    SAY(f->estimate, "the compile time inside the steady steps: inputs stable, nothing "
                     "compiles again");
    SAY(f->fix, "%s", recompile_fix(p));
    return 1;
}

/* The findings that price GPU-idle time (the rest price busy time: copies, kernels, comm). */
#define SSA_LOW_UTIL_PCT 10.0 /* unexplained GPU idle, share of the step, to speak at all */

/* The catch-all, last in the table: a GPU mostly idle for reasons no rule above names (host
 * work on the training thread in long gaps: Python, the framework, CPU ops, logging). */
static void say_samples(struct ssa_finding *f, char *where0, size_t cap);

/* The catch-all without a line to name (no Python samples: C and C++ programs, the sampler
 * off) or with the eager model's own Python that launch_bound's fix already covers: a note,
 * no price (issue #40: a [high] price with advice that fits no line is worse than none). */
static int low_util_note(const struct fctx *c, struct ssa_finding *f, const char *where)
{
    f->note = 1;
    f->saving_ms = 0;
    if (where) {
        SAY(f->fix, "the launch-bound finding's fix covers it (the host work is in %s: the "
                    "model's forward and backward, run op by op)", where);
        return 1;
    }
    SAY(f->estimate, "not priced: no sample says what the host does there");
    SAY(f->fix, "%s",
        in_lang(c, "py-spy dump --pid PID shows the host work between launches: take it "
                   "out of the loop, or do it every N steps",
                "find the host work between launches (perf record -g -p PID; the markers of "
                "<stepscope/stepscope.h> around suspect code)",
                "find the host work between launches (perf record -g -p PID; the markers of "
                "<stepscope/stepscope.h> around suspect code)",
                "find the host work between launches (perf record -g -p PID; NVTX ranges "
                "around suspect code)"));
    return 1;
}

/* The catch-all priced where the samples name what the host does (ssa_hostwork.c): the line,
 * the kind of work, the fix that fits it. */
static int low_util_named(struct ssa_finding *f, double left, int kind, const char *where)
{
    const struct ssa_host_work *w = ssa_host_work(kind);
    f->saving_ms = left;
    SAY(f->estimate, "GPU idle not claimed by another finding nor by the recording's cost: "
                     "at most that much, if the host work were overlapped or removed");
    SAY(f->fix, "the host work is in %s, %s: %s", where, w->words, w->fix);
    return 1;
}

static int rule_low_utilisation(const struct fctx *c, struct ssa_finding *f)
{
    const struct ssa_summary *s = c->s;
    /* the optimizer step's gaps that launch_bound leaves out: unfused_optimizer's, or its fix's
     * whole-step CUDA graph's */
    int opt_named = fired(c, "unfused_optimizer") || fired(c, "launch_bound");
    double opt = opt_named ? optimizer_gaps_ms(c) : 0;
    double left = c->idle_ms - s->rec_cost_ms - c->idle_claimed_ms - opt;
    /* still mostly idle once the findings above are fixed: a step of busy + left */
    double after = c->busy_ms + left, busy_after = after > 0 ? 100 * c->busy_ms / after : 100;
    if (busy_after >= SSA_LAUNCHBOUND_BUSY_PCT || left < c->step_ms * SSA_LOW_UTIL_PCT / 100)
        return 0;
    f->confidence = SSA_LOW;
    SAY(f->evidence,
        "GPU busy %.0f %%, %.0f %% with the findings above fixed; %.1f ms/step "
        "of idle that no finding explains",
        s->gpu_busy_pct_unrecorded, busy_after, left);
    f->n_hot = ssa_host_hotspots(c->r, s, SSA_CAT_BIT(SSA_CAT_HOST), f->hot, SSA_FINDING_HOTSPOTS);
    if (!f->n_hot || f->hot[0].samples < SSA_HOTSPOT_MIN_SAMPLES) return low_util_note(c, f, NULL);
    char where[224];
    say_samples(f, where, sizeof where);
    int kind = ssa_host_work_kind(&f->hot[0], c->compiled);
    if (kind == SSA_WORK_MODEL && fired(c, "launch_bound")) return low_util_note(c, f, where);
    return low_util_named(f, left, kind, where);
}

/* Where a rule's time is in the user's code, from the Python stack samples (issue #20): the
 * GPU-idle categories it prices, and what its fix says of the hottest function (lead, its
 * name, file and lines, tail). replace: that is the whole fix (the rule's own text only says
 * where to look); else it is appended. */
struct rule_code {
    uint32_t cats;
    const char *lead, *tail;
    int replace;
};

struct rule {
    const char *id, *title;
    int (*detect)(const struct fctx *c, struct ssa_finding *f);
    int always;    /* speaks even below SSA_FINDING_MIN_PCT */
    int needs_gpu; /* prices GPU idle time: meaningless when no GPU activity was recorded */
    uint32_t cats; /* the categories whose time its saving comes out of (the report's
                    * timeline highlights them) */
    struct rule_code code;
    int prices_idle; /* its saving is GPU-idle time, which low_utilisation must not count
                      * again (fctx.idle_claimed_ms) */
    int upper_bound; /* its saving is an upper bound of a model no twin has measured yet:
                      * medium severity at most, however large */
};

/* Empty in the product: the test of docs/design.md's recipe "Add a finding rule" adds its own
 * rule here, as the recipe says to (tests/analysis/recipe_rule.c). */
#ifndef SSA_TEST_RULES
#define SSA_TEST_RULES
#endif

#define BIT SSA_CAT_BIT
static const struct rule rules[] = {
    {"data_loading", "GPU waits for data loading", rule_data, 0, 1, BIT(SSA_CAT_DATA),
     {BIT(SSA_CAT_DATA), "; the loading time is in ", "", 0}, 1, 0},
    {"pageable_h2d", "H2D copies from pageable memory", rule_pageable, 0, 0,
     BIT(SSA_CAT_COPY_H2D) | BIT(SSA_CAT_SYNC), {0, NULL, NULL, 0}, 0, 0},
    {"small_h2d", "many small host-to-device copies every step", rule_small_h2d, 0, 0,
     BIT(SSA_CAT_COPY_H2D), {0, NULL, NULL, 0}, 0, 0},
    {"sync_points", "hidden sync points stall the GPU", rule_sync, 0, 1,
     BIT(SSA_CAT_SYNC) | BIT(SSA_CAT_COPY_D2H),
     {BIT(SSA_CAT_SYNC), "; the host waits in ", "", 0}, 1, 0},
    {"cpu_tensors", "tensors created on the CPU every step, then copied to the GPU",
     rule_cpu_tensors, 0, 1, BIT(SSA_CAT_LAUNCH) | BIT(SSA_CAT_HOST), {0, NULL, NULL, 0}, 1, 0},
    {"launch_bound", "launch-bound: many small kernels, GPU waits for the host", rule_launch_bound,
     0, 1, BIT(SSA_CAT_LAUNCH) | BIT(SSA_CAT_HOST),
     {BIT(SSA_CAT_LAUNCH), "; most launch time is in ", "", 0}, 1, 0},
    {"no_mixed_precision", "GEMM/conv in fp32/tf32: no mixed precision", rule_mixed_precision, 0,
     0, BIT(SSA_CAT_GEMM_FP32), {0, NULL, NULL, 0}, 0, 0},
    {"unfused_optimizer", "optimizer step not fused: many small optimizer kernels",
     rule_unfused_optimizer, 0, 0,
     BIT(SSA_CAT_OPTIMIZER) | BIT(SSA_CAT_ELEMENTWISE) | BIT(SSA_CAT_LAUNCH) | BIT(SSA_CAT_HOST),
     {0, NULL, NULL, 0}, 0, 0},
    {"nchw_layout", "NCHW tensors: cuDNN transposes them for its NHWC convolutions",
     rule_nchw_layout, 0, 0, BIT(SSA_CAT_ELEMENTWISE) | BIT(SSA_CAT_REDUCTION) |
     BIT(SSA_CAT_COMPUTE_OTHER), {0, NULL, NULL, 0}, 0, 0},
    {"unfused_elementwise", "chains of elementwise/normalisation kernels a compiler would fuse",
     rule_unfused_elementwise, 0, 0, BIT(SSA_CAT_ELEMENTWISE) | BIT(SSA_CAT_REDUCTION),
     {0, NULL, NULL, 0}, 0, 0},
    {"small_gemms", "GEMMs/convolutions too small to fill the GPU", rule_small_gemms, 0, 0,
     BIT(SSA_CAT_GEMM_TC) | BIT(SSA_CAT_GEMM_FP32), {0, NULL, NULL, 0}, 0, 1},
    {"device_copies", "device-to-device copies and memsets inside the step", rule_device_copies,
     0, 0, BIT(SSA_CAT_COPY_D2D) | BIT(SSA_CAT_MEMSET), {0, NULL, NULL, 0}, 0, 0},
    {"allocator_churn", "cudaMalloc/cudaFree in steady state (allocator churn, empty_cache)",
     rule_alloc, 0, 1, BIT(SSA_CAT_ALLOC),
     {BIT(SSA_CAT_ALLOC), "; the calls come from ", "", 0}, 1, 0},
    {"data_parallel", "one process drives several GPUs (DataParallel): use DDP", rule_data_parallel,
     0, 1, BIT(SSA_CAT_LAUNCH) | BIT(SSA_CAT_HOST), {0, NULL, NULL, 0}, 1, 0},
    {"launch_blocking", "CUDA_LAUNCH_BLOCKING=1 serialises host and GPU", rule_launch_blocking, 1,
     0, SSA_IDLE_CATS, {0, NULL, NULL, 0}, 1, 0},
    {"comm_not_overlapped", "NCCL communication not overlapped with compute", rule_comm, 0, 1,
     BIT(SSA_CAT_COMM), {0, NULL, NULL, 0}, 0, 0},
    {"recompiles", "torch.compile recompiles in steady state", rule_recompile, 0, 0,
     BIT(SSA_CAT_HOST), {0, NULL, NULL, 0}, 1, 0},
    SSA_TEST_RULES /* a new rule goes above low_utilisation */
    {"low_utilisation", "GPU mostly idle for host work no other finding names",
     rule_low_utilisation, 0, 1, BIT(SSA_CAT_HOST), /* last: it reads the findings above */
     {0, NULL, NULL, 0}, 0, 0}, /* it names its lines itself: ssa_hostwork.c */
};
#undef BIT

const char *ssa_finding_rule_id(size_t i)
{
    return i < sizeof rules / sizeof rules[0] ? rules[i].id : NULL;
}

static int fired(const struct fctx *c, const char *id)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].id, id) == 0) return (int)(c->fired >> i & 1);
    return 0;
}

/* Appends text at the end of buf (cut to fit). */
static void append(char *buf, size_t cap, const char *text)
{
    size_t n = strlen(buf), k = strlen(text);
    if (n + 1 >= cap) return;
    if (k > cap - 1 - n) k = cap - 1 - n;
    memcpy(buf + n, text, k);
    buf[n + k] = '\0';
}

/* The finding's hottest functions from the samples of its categories: kept in f->hot, named in
 * its evidence (the first two) and its fix (the first), when enough samples stand behind the
 * first (SSA_HOTSPOT_MIN_SAMPLES); the text stays as it was otherwise (no samples: C programs,
 * older traces). */
static void name_code(const struct fctx *c, const struct rule_code *code, struct ssa_finding *f)
{
    if (!code->cats) return;
    f->n_hot = ssa_host_hotspots(c->r, c->s, code->cats, f->hot, SSA_FINDING_HOTSPOTS);
    if (!f->n_hot || f->hot[0].samples < SSA_HOTSPOT_MIN_SAMPLES) return;
    char where[224];
    say_samples(f, where, sizeof where);
    if (code->replace) f->fix[0] = '\0';
    append(f->fix, sizeof f->fix, code->lead);
    append(f->fix, sizeof f->fix, where);
    append(f->fix, sizeof f->fix, code->tail);
}

/* Appends the finding's first two hotspots (f->hot, enough samples behind the first) to its
 * evidence; the first one's label in where. */
static void say_samples(struct ssa_finding *f, char *where0, size_t cap)
{
    char where[2][224], list[512];
    size_t n = f->n_hot > 1 && f->hot[1].samples >= SSA_HOTSPOT_MIN_SAMPLES ? 2 : 1;
    for (size_t i = 0; i < n; i++)
        ssa_hotspot_label(&f->hot[i], where[i], sizeof where[i]);
    if (n == 2)
        snprintf(list, sizeof list, "%s %.2f ms/step, %s %.2f", where[0], f->hot[0].ms_per_step,
                 where[1], f->hot[1].ms_per_step);
    else
        snprintf(list, sizeof list, "%s %.2f ms/step", where[0], f->hot[0].ms_per_step);
    /* lines named from the blocking calls themselves are not samples */
    append(f->evidence, sizeof f->evidence,
           f->hot[0].sync_calls ? "; Python lines of the calls: " : "; Python samples: ");
    append(f->evidence, sizeof f->evidence, list);
    snprintf(where0, cap, "%s", where[0]);
}
/* The rules' held-out evidence, one row each (generated: ssa_evidence.h says how). */
static const struct ssa_held_out held_out_rows[] = {
#define SSA_EVIDENCE_ROW(id, judged, worst, median, nothing, remeasure) \
    {id, judged, worst, median, nothing, remeasure},
#include "ssa_evidence.h"
#undef SSA_EVIDENCE_ROW
};

const struct ssa_held_out *ssa_held_out_row(size_t i)
{
    return i < sizeof held_out_rows / sizeof held_out_rows[0] ? &held_out_rows[i] : NULL;
}

struct ssa_held_out ssa_held_out_of(const char *id)
{
    for (size_t i = 0; i < sizeof held_out_rows / sizeof held_out_rows[0]; i++)
        if (strcmp(held_out_rows[i].id, id) == 0) return held_out_rows[i];
    return (struct ssa_held_out){id, 0, 0, 0, 0, 0};
}

/* The confidence the held-out programs support: high takes three judged within 20 %, medium
 * two within 40 %, and neither a fix that saved nothing; no evidence is low. A rule's own
 * reasons (a constant instead of a measurement) may lower it further, never raise it. */
static int held_out_level(const struct ssa_held_out *h)
{
    if (h->nothing) return SSA_LOW;
    if (h->judged >= 3 && h->worst_pct <= 20) return SSA_HIGH;
    if (h->judged >= 2 && h->worst_pct <= 40) return SSA_MEDIUM;
    return SSA_LOW;
}

static void judge_by_held_out(struct ssa_finding *f)
{
    f->own_confidence = f->confidence;
    f->held_out = ssa_held_out_of(f->id);
    int level = held_out_level(&f->held_out);
    if (f->confidence > level) f->confidence = level;
}

_Static_assert(sizeof rules / sizeof rules[0] <= SSA_MAX_FINDINGS, "room for every rule");
_Static_assert(sizeof rules / sizeof rules[0] <= 64, "a bit each in fctx.fired");

const char *ssa_level_name(int level)
{
    static const char *const names[] = {"low", "medium", "high"};
    return level >= 0 && level <= SSA_HIGH ? names[level] : "low";
}

static void rate(const struct fctx *c, struct ssa_finding *f, int upper_bound)
{
    double cap = c->step_ms * 0.99; /* a step never goes to zero */
    if (f->saving_ms > cap) f->saving_ms = cap;
    if (f->saving_ms < 0) f->saving_ms = 0;
    f->saving_pct = c->step_ms > 0 ? 100 * f->saving_ms / c->step_ms : 0;
    f->speedup = c->step_ms > 0 ? c->step_ms / (c->step_ms - f->saving_ms) : 1;
    int sev = f->saving_pct >= 10 ? SSA_HIGH : f->saving_pct >= 3 ? SSA_MEDIUM : SSA_LOW;
    if (upper_bound && sev > SSA_MEDIUM) sev = SSA_MEDIUM;
    if (sev > f->severity) f->severity = sev;
}

static size_t find_index(const struct ssa_findings *out, const char *id)
{
    for (size_t i = 0; i < out->n; i++)
        if (strcmp(out->v[i].id, id) == 0) return i;
    return SIZE_MAX;
}

/* A finding that is an alternative to another one goes right after it (the one to apply
 * first ranks, the other is its alternative, not a second saving); one whose other finding
 * did not fire stands alone. */
static void place_alternatives(struct ssa_findings *out)
{
    for (size_t i = 0; i < out->n; i++) {
        if (!out->v[i].alternative_to) continue;
        size_t p = find_index(out, out->v[i].alternative_to);
        if (p == SIZE_MAX) {
            out->v[i].alternative_to = NULL;
            continue;
        }
        struct ssa_finding f = out->v[i];
        if (i < p) { /* ranked above its primary: move it down to just after it, and look at
                      * what moved up into place i */
            memmove(&out->v[i], &out->v[i + 1], (p - i) * sizeof f);
            out->v[p] = f;
            i--;
        } else if (i > p + 1) {
            memmove(&out->v[p + 2], &out->v[p + 1], (i - p - 1) * sizeof f);
            out->v[p + 1] = f;
        }
    }
}

/* The rule that made a finding (NULL for none). */
static const struct rule *rule_of(const char *id)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].id, id) == 0) return &rules[i];
    return NULL;
}

/* Every finding fixed at once: their savings added, the GPU-side ones taken off the GPU's busy
 * time, the step no shorter than what stays busy. */
static void all_fixed(const struct fctx *c, struct ssa_findings *out)
{
    double gpu_side = 0;
    for (size_t i = 0; i < out->n; i++) {
        const struct ssa_finding *f = &out->v[i];
        if (f->note || f->alternative_to) continue;
        out->sum_ms += f->saving_ms;
        const struct rule *r = rule_of(f->id);
        if (r && !r->prices_idle) gpu_side += f->saving_ms;
    }
    /* not the host's own time: the idle findings' fixes take host work away too */
    out->floor_ms = c->busy_ms > gpu_side ? c->busy_ms - gpu_side : 0;
    double room = c->step_ms - out->floor_ms;
    out->all_ms = out->sum_ms < room ? out->sum_ms : room > 0 ? room : 0;
    out->overlap = out->sum_ms - out->all_ms > 0.005 * c->step_ms;
}

void ssa_find(const struct ssa_result *r, const struct ssa_summary *s, const struct ssa_peer *peer,
              struct ssa_findings *out)
{
    memset(out, 0, sizeof *out);
    if (!s->steps || !s->mean_ns) return;
    struct fctx c;
    ctx_init(&c, r, s);
    if (peer) c.peer = *peer;
    /* Without GPU records (CUPTI held by another tool, an NVTX-only program) every instant
     * looks idle: the rules that price idle time would blame the host for nothing. Nor in a
     * light recording, which keeps copies but no kernel: its GPU is busy where nothing shows
     * (a CUDA graph's replays looked mostly idle: docs/performance.md, "CUDA-graph replay"). */
    int gpu_seen = c.busy_ms > 0 && !ssa_env_light(&r->env);
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        if (rules[i].needs_gpu && !gpu_seen) continue;
        struct ssa_finding f;
        memset(&f, 0, sizeof f);
        f.id = rules[i].id, f.title = rules[i].title, f.cats = rules[i].cats;
        if (!rules[i].detect(&c, &f)) continue;
        rate(&c, &f, rules[i].upper_bound);
        judge_by_held_out(&f);
        if (f.saving_pct < SSA_FINDING_MIN_PCT && !rules[i].always && !f.note) continue;
        c.fired |= UINT64_C(1) << i;
        name_code(&c, &rules[i].code, &f);
        if (rules[i].prices_idle && !f.alternative_to) c.idle_claimed_ms += f.saving_ms;
        size_t at = out->n++; /* insertion by saving, largest first */
        while (at > 0 && out->v[at - 1].saving_ms < f.saving_ms) {
            out->v[at] = out->v[at - 1];
            at--;
        }
        out->v[at] = f;
    }
    place_alternatives(out);
    all_fixed(&c, out);
}
