/*
 * test_findings.c — the rules of src/analysis/ssa_findings.c on synthetic traces whose
 * savings are known exactly, and the accuracy gate on the real planted H200 case.
 *
 * Gate (issue #5): on h200-dataloader-w0 (DataLoader num_workers=0, 101.9 ms/step measured)
 * the top finding must be data loading and its estimated saving within +-20 % of the
 * measured saving against the fixed twin h200-dataloader-w8 (8 workers + pinned, 16.5
 * ms/step measured): 101.9 - 16.5 = 85.4 ms/step. The other gates of the issue (two causes in
 * order, share within 5 points, the other planted cases) need fixtures that do not exist
 * yet (issue #4's workloads) and are not tested here.
 * Usage: test_findings FIXTURE_DIR
 */
#include <string.h>

#include "analysis/ssa.h"
#include "trace/sst_cbid.h"
#include "synth.h"

#define TID 100
#define STEP_NS (10 * MS)

static double absd(double x)
{
    return x < 0 ? -x : x;
}

static const struct ssa_finding *find_id(const struct ssa_findings *f, const char *id)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->v[i].id, id) == 0) return &f->v[i];
    return NULL;
}

/* Synthetic traces keep every step (keep_all); the fixtures get the report's defaults. */
static void analyse_opts(const char *path, int keep_all, struct ssa_result **r,
                         struct ssa_summary *s, struct ssa_findings *f)
{
    struct ssa_opts o = {.window_ns = 0, .no_warmup = keep_all};
    CHECK_EQ(ssa_analyze_file(path, &o, r), 0);
    REQUIRE(*r != NULL);
    ssa_summarize(*r, s);
    ssa_find(*r, s, NULL, f);
    for (size_t i = 0; i < f->n; i++)
        printf("  %s: %-20s %8.3f ms/step %5.1f %% %.3fx sev %s conf %s | %s\n", (*r)->path,
               f->v[i].id, f->v[i].saving_ms, f->v[i].saving_pct, f->v[i].speedup,
               ssa_level_name(f->v[i].severity), ssa_level_name(f->v[i].confidence),
               f->v[i].evidence);
    /* a text that fills its buffer was cut short (it once lost its closing parenthesis) */
    for (size_t i = 0; i < f->n; i++) {
        CHECK(strlen(f->v[i].evidence) + 1 < sizeof f->v[i].evidence);
        CHECK(strlen(f->v[i].estimate) + 1 < sizeof f->v[i].estimate);
        CHECK(strlen(f->v[i].fix) + 1 < sizeof f->v[i].fix);
    }
}

static void analyse(const char *path, struct ssa_result **r, struct ssa_summary *s,
                    struct ssa_findings *f)
{
    analyse_opts(path, 1, r, s, f);
}

/* Per 10 ms step (thread 100 main, 101 a second thread):
 *   [0, 0.8)   fp32 sgemm                  exclusive 0.8 ms
 *   [1, 2)     pinned H2D, 10 MB           -> pinned bandwidth 10 GB/s measured here
 *   [3, 6)     pageable H2D, 10 MB         -> 3 ms; at 10 GB/s 1 ms: saving 2 ms (20 %)
 *   [7, 7.5)   cudaStreamSynchronize (100) -> sync idle 0.5 ms (5 %)
 *   [8, 8.3)   cudaFree on thread 101      -> alloc idle 0.3 ms (3 %)
 * GPU busy 4.8 ms = 48 % < 50 %: the fp32 saving 0.8 x (1 - 1/15.7) (sgemm: CUDA cores) is
 * scaled by 0.48. */
static void test_rules_synthetic(void)
{
    const char *path = ss_test_path("rules.sstrace");
    struct synth s;
    synth_open(&s, path);
    synth_env(&s, "cpu_count", "12");
    for (uint64_t k = 0; k < 5; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        synth_kernel(&s, "_Z18sgemm_largek_lds64ILb1ELb0ELi5ELi5ELi4ELi4ELi4ELi34EEvPfPKfS2_", o,
                     o + 800 * US);
        synth_memcpy(&s, SST_COPY_H2D, SST_MEM_PINNED, o + 1 * MS, o + 2 * MS, 10000000);
        synth_memcpy(&s, SST_COPY_H2D, SST_MEM_PAGEABLE, o + 3 * MS, o + 6 * MS, 10000000);
        synth_api(&s, SST_API_RUNTIME, 131, o + 7 * MS, o + 7500 * US, TID);
        synth_api(&s, SST_API_RUNTIME, 22, o + 8 * MS, o + 8300 * US, 101);
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
    struct ssa_result *r;
    struct ssa_summary sum;
    struct ssa_findings f;
    analyse(path, &r, &sum, &f);
    CHECK_EQ(r->cpu_count, 12);
    /* The host works [2, 3) with the GPU idle, then copies pageable memory: 1 ms of
     * cpu_tensors (host work before a pageable copy, no data range in between). */
    REQUIRE(f.n == 5);
    CHECK_STR(f.v[0].id, "pageable_h2d");
    CHECK_STR(f.v[1].id, "cpu_tensors");
    CHECK_STR(f.v[2].id, "no_mixed_precision");
    CHECK_STR(f.v[3].id, "allocator_churn");
    CHECK_STR(f.v[4].id, "sync_points");
    CHECK(absd(f.v[1].saving_ms - 1.0) < 1e-6);
    CHECK(absd(f.v[0].saving_ms - 2.0) < 1e-6);
    CHECK(absd(f.v[0].speedup - 1.25) < 1e-6);
    CHECK_EQ(f.v[0].severity, SSA_HIGH);
    CHECK_EQ(f.v[0].own_confidence, SSA_MEDIUM); /* bandwidth measured in this trace */
    CHECK(absd(f.v[4].saving_ms - 0.5) < 1e-6);
    CHECK_EQ(f.v[4].severity, SSA_MEDIUM);
    /* no launch calls recorded: the host's own time is unknown, nothing bounds the saving */
    CHECK(absd(f.v[2].saving_ms - 0.8 * (1 - 1 / 15.7)) < 1e-6);
    CHECK_EQ(f.v[2].severity, SSA_MEDIUM);
    /* the 0.3 ms cudaMalloc at [8, 8.3) idles the GPU, and the host work after it in the same
     * idle run (to the next kernel) is 0.3 ms more: the lead the host lost in the call */
    CHECK(absd(f.v[3].saving_ms - 0.6) < 1e-6);
    CHECK_EQ(f.v[3].severity, SSA_MEDIUM);
    CHECK(find_id(&f, "low_utilisation") == NULL); /* the findings above explain the idle */
    CHECK(find_id(&f, "data_loading") == NULL);
    CHECK(find_id(&f, "launch_blocking") == NULL);
    ssa_result_free(r);
}

/* CUDA_LAUNCH_BLOCKING=1 in the environment record is always a high-severity finding;
 * "0" is not. Data ranges on a second thread size the DataLoader workers. */
static void test_env_and_data(void)
{
    for (int blocking = 0; blocking < 2; blocking++) {
        const char *path = ss_test_path(blocking ? "env1.sstrace" : "env0.sstrace");
        struct synth s;
        synth_open(&s, path);
        synth_env(&s, "env.CUDA_LAUNCH_BLOCKING", blocking ? "1" : "0");
        synth_env(&s, "cpu_affinity_count", "4");
        for (uint64_t k = 0; k < 4; k++) {
            uint64_t o = T0 + k * STEP_NS;
            synth_step(&s, SST_STEP_BEGIN, o, k, TID);
            synth_nvtx(&s, SST_REC_NVTX_PUSH, o, 102, s.domain, s.data_msg, 0, 0);
            synth_nvtx(&s, SST_REC_NVTX_POP, o + 8 * MS, 102, s.domain, 0, 0, 0);
            synth_kernel(&s, "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", o + 8 * MS,
                         o + 9 * MS);
            synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
        }
        synth_close(&s);
        struct ssa_result *r;
        struct ssa_summary sum;
        struct ssa_findings f;
        analyse(path, &r, &sum, &f);
        const struct ssa_finding *lb = find_id(&f, "launch_blocking");
        CHECK(blocking ? lb != NULL : lb == NULL);
        if (lb) CHECK_EQ(lb->severity, SSA_HIGH);
        REQUIRE(f.n >= 1);
        CHECK_STR(f.v[0].id, "data_loading"); /* 8 ms of 10 */
        CHECK(absd(f.v[0].saving_ms - 8.0) < 1e-6);
        CHECK_EQ(f.v[0].cats, SSA_CAT_BIT(SSA_CAT_DATA)); /* the time it prices */
        if (lb) CHECK_EQ(lb->cats, SSA_IDLE_CATS);
        /* loading 8 ms per batch, the rest 2 ms: 4 + 1 workers, capped at 4 - 1 CPUs */
        CHECK_CONTAINS(f.v[0].fix, "num_workers=3");
        ssa_result_free(r);
    }
}

/* The data-loading fix's worker count when the shim's DataLoader mark says how many workers
 * there are: with W = 2 a batch takes W x the step (2 x 10 ms) to load against the 2 ms the
 * rest of the step leaves, so ceil(20 / 2) + 1 spare = 11 of 16 CPUs; never the count it has
 * (the mark-less formula reads the wait as one batch's load: ceil(8 / 2) + 1 = 5). */
static void test_workers_from_loader(void)
{
    for (int marked = 0; marked < 2; marked++) {
        const char *path = ss_test_path(marked ? "loader2.sstrace" : "loader_none.sstrace");
        struct synth s;
        synth_open(&s, path);
        synth_env(&s, "cpu_affinity_count", "16");
        if (marked)
            synth_nvtx(&s, SST_REC_NVTX_MARK, T0, 100, s.domain,
                       sst_writer_intern_cstr(s.w, "dataloader: workers=2 batch_size=64 "
                                                   "pin_memory=1 persistent_workers=1 samples=64 "
                                                   "tokens=0 batches_per_step=1"), 0, 0);
        for (uint64_t k = 0; k < 4; k++) {
            uint64_t o = T0 + k * STEP_NS;
            synth_step(&s, SST_STEP_BEGIN, o, k, 100);
            synth_nvtx(&s, SST_REC_NVTX_PUSH, o, 100, s.domain, s.data_msg, 0, 0);
            synth_nvtx(&s, SST_REC_NVTX_POP, o + 8 * MS, 100, s.domain, 0, 0, 0);
            synth_kernel(&s, "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", o + 8 * MS,
                         o + 9 * MS);
            synth_step(&s, SST_STEP_END, o + STEP_NS, k, 100);
        }
        synth_close(&s);
        struct ssa_result *r;
        struct ssa_summary sum;
        struct ssa_findings f;
        analyse(path, &r, &sum, &f);
        const struct ssa_finding *d = find_id(&f, "data_loading");
        REQUIRE(d != NULL);
        CHECK_CONTAINS(d->fix, marked ? "num_workers=11," : "num_workers=5,");
        if (marked) CHECK_CONTAINS(d->evidence, "num_workers=2 now");
        ssa_result_free(r);
    }
}

static void test_fixture_gate(const char *dir)
{
    char path[1024];
    struct ssa_result *r;
    struct ssa_summary sum;
    struct ssa_findings f;
    snprintf(path, sizeof path, "%s/h200-dataloader-w0.sstrace", dir);
    analyse_opts(path, 0, &r, &sum, &f);
    REQUIRE(f.n >= 1);
    const double measured = 101.9 - 16.5; /* ms/step, bad -> fixed on the H200 */
    printf("gate w0: top %s, estimated %.2f ms/step, measured %.2f ms/step, error %+.1f %%\n",
           f.v[0].id, f.v[0].saving_ms, measured, 100 * (f.v[0].saving_ms - measured) / measured);
    CHECK_STR(f.v[0].id, "data_loading");
    CHECK(absd(f.v[0].saving_ms - measured) <= 0.20 * measured);
    CHECK_EQ(f.v[0].severity, SSA_HIGH);
    ssa_result_free(r);

    /* the fixed twin: data loading is gone (nothing above low). It is still launch-bound
     * (GPU busy 40 %, 390 kernels of median 7.9 us per step): that high finding is true of
     * this trace (the next bottleneck after the data fix), so it is printed, not hidden. */
    snprintf(path, sizeof path, "%s/h200-dataloader-w8.sstrace", dir);
    analyse_opts(path, 0, &r, &sum, &f);
    const struct ssa_finding *d = find_id(&f, "data_loading");
    CHECK(d == NULL || d->severity == SSA_LOW);
    ssa_result_free(r);

    /* the GPU-bound bf16 MLP (issue #31): its idle is under 2 %, its fixes are on the GPU's
     * side — chains of elementwise kernels (GELU, autocast's casts) a compiler would fuse,
     * and SGD's foreach step (78 kernels, 4.5 ms/step) at 5 of 8 passes fused; nothing high */
    snprintf(path, sizeof path, "%s/h200-gpubound-bf16.sstrace", dir);
    analyse_opts(path, 0, &r, &sum, &f);
    REQUIRE(f.n == 2);
    CHECK_STR(f.v[0].id, "unfused_elementwise");
    CHECK_STR(f.v[1].id, "unfused_optimizer");
    CHECK_CONTAINS(f.v[1].fix, "SGD(params, momentum=..., fused=True)");
    for (size_t i = 0; i < f.n; i++)
        CHECK_EQ(f.v[i].severity, SSA_MEDIUM);
    ssa_result_free(r);

    /* the small fp32 CNN is launch-bound */
    snprintf(path, sizeof path, "%s/h200-cnn-launchbound.sstrace", dir);
    analyse_opts(path, 0, &r, &sum, &f);
    REQUIRE(f.n >= 1);
    CHECK_STR(f.v[0].id, "launch_bound");
    CHECK_EQ(f.v[0].cats, SSA_CAT_BIT(SSA_CAT_LAUNCH) | SSA_CAT_BIT(SSA_CAT_HOST));
    ssa_result_free(r);
}

/* Data ranges but no GPU record at all (CUPTI unavailable, NVTX-only program): nothing can
 * be said about GPU idle time, so no idle-priced finding. */
static void test_no_gpu_records(void)
{
    const char *path = ss_test_path("nogpu.sstrace");
    struct synth s;
    synth_open(&s, path);
    for (uint64_t k = 0; k < 4; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        synth_nvtx(&s, SST_REC_NVTX_PUSH, o, 102, s.domain, s.data_msg, 0, 0);
        synth_nvtx(&s, SST_REC_NVTX_POP, o + 8 * MS, 102, s.domain, 0, 0, 0);
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
    struct ssa_result *r;
    struct ssa_summary sum;
    struct ssa_findings f;
    analyse(path, &r, &sum, &f);
    CHECK(sum.steps > 0);
    CHECK(find_id(&f, "data_loading") == NULL);
    CHECK(find_id(&f, "launch_bound") == NULL);
    CHECK_EQ(f.n, 0);
    ssa_result_free(r);
}

static void synth_capture(struct synth *s, uint64_t ts, int on, uint8_t reason)
{
    struct sst_rec_capture *r = sst_writer_reserve(s->w, SST_REC_CAPTURE, sizeof *r);
    REQUIRE(r);
    r->ts_ns = ts, r->on = (uint8_t)on, r->reason = reason, r->what = SST_CAPTURE_GPU;
}

/* 10 steps of 10 ms; a kernel [0, 8) ms in each step the GPU was recorded (an edge 5 us after
 * the step marker that caused it, as the collector writes them). capture: the collector's
 * ENV collector.capture (NULL: none); edges: pairs (step index, on) of CAPTURE records with
 * reason `why` (the START record comes first unless `no_start`). */
static void write_windowed(const char *path, const char *capture, const int (*edges)[2],
                           int n_edges, uint8_t why, int no_start)
{
    struct synth s;
    synth_open(&s, path);
    if (capture) synth_env(&s, "collector.capture", capture);
    synth_env(&s, "collector.mode", "full");
    if (!no_start) synth_capture(&s, T0 - MS, 1, SST_CAP_START);
    int rec = !capture || strcmp(capture, "all") == 0 || strncmp(capture, "steps:0-", 8) == 0;
    for (int k = 0; k < 10; k++) {
        uint64_t o = T0 + (uint64_t)k * STEP_NS;
        for (int e = 0; e < n_edges; e++)
            if (edges[e][0] == k) synth_capture(&s, o + 5 * US, edges[e][1], why), rec = edges[e][1];
        synth_step(&s, SST_STEP_BEGIN, o, (uint64_t)k, TID);
        if (rec) synth_kernel(&s, "sgemm", o + 10 * US, o + 8 * MS);
        synth_step(&s, SST_STEP_END, o + STEP_NS, (uint64_t)k, TID);
    }
    synth_capture(&s, T0 + 11 * STEP_NS, 0, SST_CAP_EXIT);
    synth_close(&s);
}

static void check_steps(const char *path, size_t steps, size_t outside, int late)
{
    struct ssa_result *r;
    struct ssa_summary sum;
    struct ssa_findings f;
    analyse(path, &r, &sum, &f);
    printf("  %s: %zu steps, %zu outside, late %d, GPU busy %.1f %%\n", path, r->n_steps,
           r->outside_capture, r->capture_late, sum.gpu_busy_pct);
    CHECK_EQ(r->n_steps, steps);
    CHECK_EQ(r->outside_capture, outside);
    CHECK_EQ(r->capture_late, late);
    if (steps) CHECK(absd(sum.gpu_busy_pct - 79.9) < 0.5); /* never "GPU idle" outside */
    CHECK(find_id(&f, "low_utilisation") == NULL);
    ssa_result_free(r);
}

/* `record --capture`: the steps outside the window (no GPU records) are not counted. */
static void test_capture_window(void)
{
    static const int window[][2] = {{3, 1}, {7, 0}}; /* steps 3-6 */
    static const int profiler[][2] = {{2, 0}, {4, 1}}; /* torch.profiler over steps 2-3 */
    const char *p;
    p = ss_test_path("window1.sstrace");
    write_windowed(p, "steps:3-6", window, 2, SST_CAP_WINDOW, 0);
    check_steps(p, 4, 6, 1);
    p = ss_test_path("window2.sstrace");
    write_windowed(p, "steps:0-6", (const int[][2]){{7, 0}}, 1, SST_CAP_WINDOW, 0);
    check_steps(p, 7, 3, 0); /* open from the start: no WINDOW on record */
    p = ss_test_path("window3.sstrace");
    write_windowed(p, "steps:50-60", NULL, 0, SST_CAP_WINDOW, 0);
    check_steps(p, 0, 10, 1); /* the window never opened */
    p = ss_test_path("window4.sstrace");
    write_windowed(p, "all", profiler, 2, SST_CAP_TAKEN_OVER, 0);
    check_steps(p, 8, 2, 0);
    p = ss_test_path("window5.sstrace");
    write_windowed(p, "all", profiler, 2, SST_CAP_TAKEN_OVER, 1);
    check_steps(p, 8, 2, 0); /* an older collector: no START record for the GPU */
    p = ss_test_path("window6.sstrace");
    write_windowed(p, NULL, NULL, 0, SST_CAP_WINDOW, 0);
    check_steps(p, 10, 0, 0); /* a whole-run capture: nothing changes */
}

/* A window over steps 3-6 opening at step 3's begin. queued: the GPU still runs 4 ms of work
 * the host queued before the window (unrecorded), so step 3's first kernel, launched 10 us into
 * the step, starts 4 ms later: step 3 is left out (3 steps count, busy 80 %). Not queued: the
 * first kernel starts 1.26 ms into the step, right after its own launch call (CUPTI's
 * re-enable and host work), and step 3 counts. */
static void test_queued_at_open(int queued)
{
    const char *path = ss_test_path(queued ? "queued_open1.sstrace" : "queued_open0.sstrace");
    struct synth s;
    synth_open(&s, path);
    synth_env(&s, "collector.capture", "steps:3-6");
    synth_capture(&s, T0 - MS, 1, SST_CAP_START);
    for (int k = 0; k < 10; k++) {
        uint64_t o = T0 + (uint64_t)k * STEP_NS, launch = o + (k == 3 && !queued ? 1250 : 10) * US;
        uint64_t start = k == 3 ? o + (queued ? 4 * MS : 1260 * US) : o + 20 * US;
        if (k == 3 || k == 7) synth_capture(&s, o + 5 * US, k == 3, SST_CAP_WINDOW);
        synth_step(&s, SST_STEP_BEGIN, o, (uint64_t)k, TID);
        if (k >= 3 && k < 7) {
            synth_api(&s, SST_API_RUNTIME, SST_CBID_RT_cudaLaunchKernel_v7000, launch,
                      launch + 5 * US, TID)->correlation = 100 + (uint32_t)k;
            synth_kernel(&s, "sgemm", start, o + 8 * MS)->correlation = 100 + (uint32_t)k;
        }
        synth_step(&s, SST_STEP_END, o + STEP_NS, (uint64_t)k, TID);
    }
    synth_capture(&s, T0 + 11 * STEP_NS, 0, SST_CAP_EXIT);
    synth_close(&s);
    struct ssa_result *r;
    struct ssa_summary sum;
    struct ssa_findings f;
    analyse(path, &r, &sum, &f);
    printf("  queued %d: %zu steps, %zu outside, queued_at_open %zu\n", queued, r->n_steps,
           r->outside_capture, r->queued_at_open);
    CHECK_EQ(r->n_steps, queued ? 3u : 4u);
    CHECK_EQ(r->queued_at_open, queued ? 1u : 0u);
    ssa_result_free(r);
}

/* Per 10 ms step, 125 launches 80 us apart (a 10 us call each) and their 45 us kernels, the
 * GPU 56 % busy: over the 50 % that makes a step GPU-bound. A kernel starting 15 us after its
 * call's start found the queue empty (each waits for its launch): launch-bound all the same,
 * priced at the short gaps, 35 us a kernel. Started 25 us after it: not prompt, quiet. The
 * kernels' records come before the calls', as CUPTI's buffers may deliver them. */
static void test_launch_queue(int prompt)
{
    const char *path = ss_test_path(prompt ? "qlat-prompt.sstrace" : "qlat-late.sstrace");
    struct synth s;
    synth_open(&s, path);
    uint32_t corr = 1;
    for (uint64_t k = 0; k < 4; k++) {
        uint64_t o = T0 + k * STEP_NS, lag = (prompt ? 15 : 25) * US;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        for (uint64_t i = 0; i < 125; i++) {
            uint64_t p = o + i * 80 * US;
            synth_kernel(&s, "vectorized_elementwise_kernel", p + lag, p + lag + 45 * US)
                ->correlation = corr + (uint32_t)i;
        }
        for (uint64_t i = 0; i < 125; i++) {
            uint64_t p = o + i * 80 * US;
            synth_api(&s, SST_API_RUNTIME, SST_CBID_RT_cudaLaunchKernel_v7000, p, p + 10 * US,
                      TID)->correlation = corr++;
        }
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
    struct ssa_result *r;
    struct ssa_summary sum;
    struct ssa_findings f;
    analyse(path, &r, &sum, &f);
    CHECK_EQ(r->qlat_matched, 500u);
    CHECK_EQ(r->qlat_prompt, prompt ? 500u : 0u);
    const struct ssa_finding *x = find_id(&f, "launch_bound");
    if (prompt) {
        REQUIRE(x != NULL);
        CHECK_CONTAINS(x->evidence, "100 % of kernels started within 20 us");
    } else {
        CHECK(x == NULL);
    }
    ssa_result_free(r);
}

/* The window closes at step 7 (a detach); the kernel records flushed then can carry the
 * close's time as their end (seen on the H200: graph kernels of ~10 us with 90 ms ends). Step
 * 6 holds a second kernel [9, 9.01) ms whose end CUPTI wrote at 20 ms past the close: it counts
 * without duration, its name's total keeps only the real kernel time, GPU busy stays 80 %. */
static void test_ends_at_close(void)
{
    const char *path = ss_test_path("ends_at_close.sstrace");
    struct synth s;
    synth_open(&s, path);
    synth_env(&s, "collector.capture", "steps:3-6");
    synth_capture(&s, T0 - MS, 1, SST_CAP_START);
    for (int k = 0; k < 10; k++) {
        uint64_t o = T0 + (uint64_t)k * STEP_NS;
        if (k == 3 || k == 7) synth_capture(&s, o + 5 * US, k == 3, SST_CAP_WINDOW);
        synth_step(&s, SST_STEP_BEGIN, o, (uint64_t)k, TID);
        if (k >= 3 && k < 7) synth_kernel(&s, "sgemm", o + 10 * US, o + 8 * MS);
        if (k == 6) synth_kernel(&s, "late_node", o + 9 * MS, o + STEP_NS + 20 * MS);
        synth_step(&s, SST_STEP_END, o + STEP_NS, (uint64_t)k, TID);
    }
    synth_capture(&s, T0 + 11 * STEP_NS, 0, SST_CAP_EXIT);
    synth_close(&s);
    struct ssa_result *r;
    struct ssa_summary sum;
    struct ssa_findings f;
    analyse(path, &r, &sum, &f);
    printf("  ends at close %" PRIu64 ", GPU busy %.1f %%, kernels %.3f ms/step\n",
           r->gpu_ends_at_close, sum.gpu_busy_pct, sum.kernel_ms_per_step);
    CHECK_EQ(r->gpu_ends_at_close, 1);
    CHECK_EQ(r->n_steps, 4);
    CHECK(absd(sum.gpu_busy_pct - 79.9) < 0.5);
    CHECK(absd(sum.kernel_ms_per_step - 7.99) < 0.01);
    CHECK_EQ(r->knames[r->n_knames - 1].total_ns, 0); /* late_node: its time was the close's */
    ssa_result_free(r);
}

/* Per 10 ms step: a kernel [0, 1), a D2H copy [1, 1.5) (.cpu() of the logits), host work on
 * the copied data until a kernel at [4.5, 6): 3 ms GPU idle right after the copy. A sync
 * [5.9, 6.2) outlasts that kernel: 0.2 ms sync idle, then 50 us of host work before a kernel
 * at 6.25 (the idle run [6, 6.25) began in the sync and is over 100 us: it counts). The 2 ms
 * host gap [6.3, 8.3) follows a kernel, not a sync: it stays out. Saving 0.2 + 3 + 0.05, plus
 * the D2H copy's 0.5 ms exposed (made every step: logging every N steps removes it too). */
static void test_post_sync_host_work(void)
{
    const char *path = ss_test_path("postsync.sstrace");
    struct synth s;
    synth_open(&s, path);
    for (uint64_t k = 0; k < 5; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        synth_kernel(&s, "elementwise_kernel", o, o + 1 * MS);
        synth_memcpy(&s, SST_COPY_D2H, SST_MEM_PAGEABLE, o + 1 * MS, o + 1500 * US, 1000000);
        synth_kernel(&s, "elementwise_kernel", o + 4500 * US, o + 6000 * US);
        synth_api(&s, SST_API_RUNTIME, 131, o + 5900 * US, o + 6200 * US, TID);
        synth_kernel(&s, "elementwise_kernel", o + 6250 * US, o + 6300 * US);
        synth_kernel(&s, "elementwise_kernel", o + 8300 * US, o + 8400 * US);
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
    struct ssa_result *r;
    struct ssa_summary sum;
    struct ssa_findings f;
    analyse(path, &r, &sum, &f);
    const struct ssa_finding *sync = find_id(&f, "sync_points");
    REQUIRE(sync != NULL);
    CHECK(absd(sync->saving_ms - 3.75) < 1e-6);
    CHECK_STR(f.v[0].id, "sync_points");
    ssa_result_free(r);
}

/* Per 10 ms step: a kernel [0, 2), a pageable H2D copy [2, 3) (a target tensor made on the
 * CPU), 4 ms of host work building the next tensor, a second pageable copy [7, 7.5), 0.05 ms
 * to the next kernel [7.55, 9.5) (too short to count). cpu_tensors: the 4 ms before the
 * second copy. The same with pinned copies: no finding (pinned memory is not made per step
 * on the CPU; the rule needs a pageable copy at the end of the host work). */
static void write_cpu_tensors(const char *path, uint8_t mem)
{
    struct synth s;
    synth_open(&s, path);
    for (uint64_t k = 0; k < 5; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        synth_kernel(&s, "elementwise_kernel", o, o + 2 * MS);
        synth_memcpy(&s, SST_COPY_H2D, mem, o + 2 * MS, o + 3 * MS, 16000000);
        synth_memcpy(&s, SST_COPY_H2D, mem, o + 7 * MS, o + 7500 * US, 8000000);
        synth_kernel(&s, "elementwise_kernel", o + 7550 * US, o + 9500 * US);
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
}

/* A host-bound loop: a sync that waits only 10 us for the GPU, then 5 ms of host work. The
 * sync did not drain a queue (there was none): no post-sync time, no sync finding. */
static void test_sync_that_did_not_wait(void)
{
    const char *path = ss_test_path("nowait.sstrace");
    struct synth s;
    synth_open(&s, path);
    for (uint64_t k = 0; k < 5; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        synth_kernel(&s, "elementwise_kernel", o, o + 2 * MS);
        synth_api(&s, SST_API_RUNTIME, 131, o + 1990 * US, o + 2005 * US, TID);
        synth_kernel(&s, "elementwise_kernel", o + 7005 * US, o + 8 * MS);
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
    struct ssa_result *r;
    struct ssa_summary sum;
    struct ssa_findings f;
    analyse(path, &r, &sum, &f);
    CHECK(find_id(&f, "sync_points") == NULL);
    /* 3 ms of kernels in a 10 ms step and 7 ms of host work no rule names, and no Python
     * sample to say what it is: the catch-all is a note without a price (a synthetic trace
     * has no collector mode: no recording cost) */
    CHECK_EQ(sum.rec_basis, SSA_REC_NONE);
    CHECK(sum.rec_cost_ms == 0);
    const struct ssa_finding *lu = find_id(&f, "low_utilisation");
    REQUIRE(lu != NULL);
    CHECK(lu->note && lu->saving_ms == 0 && lu->severity == SSA_LOW);
    CHECK(strstr(lu->evidence, "7.0 ms/step of idle") != NULL);
    CHECK(strstr(lu->fix, "DataLoader") == NULL);
    CHECK_EQ(lu->confidence, SSA_LOW);
    ssa_result_free(r);
}

static void test_cpu_tensors(void)
{
    const char *path = ss_test_path("cputensors.sstrace");
    struct ssa_result *r;
    struct ssa_summary sum;
    struct ssa_findings f;
    write_cpu_tensors(path, SST_MEM_PAGEABLE);
    analyse(path, &r, &sum, &f);
    const struct ssa_finding *ct = find_id(&f, "cpu_tensors");
    REQUIRE(ct != NULL);
    CHECK(absd(ct->saving_ms - 4.0) < 1e-6);
    CHECK_STR(f.v[0].id, "cpu_tensors");
    CHECK(find_id(&f, "sync_points") == NULL);
    ssa_result_free(r);
    path = ss_test_path("cputensors-pinned.sstrace");
    write_cpu_tensors(path, SST_MEM_PINNED);
    analyse(path, &r, &sum, &f);
    CHECK(find_id(&f, "cpu_tensors") == NULL);
    ssa_result_free(r);
}

/* One process with kernels on GPUs 0 and 1 and 8 ms of host time per 10 ms step:
 * data_parallel saves 8 x (2 - 1) / 2 = 4 ms. The same on one GPU: no finding. */
static void write_two_gpus(const char *path, uint16_t second)
{
    struct synth s;
    synth_open(&s, path);
    for (uint64_t k = 0; k < 5; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        synth_kernel_on(&s, "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32", o, o + MS, 0);
        synth_kernel_on(&s, "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32", o + MS,
                        o + 2 * MS, second);
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
}

static void test_data_parallel(void)
{
    struct ssa_result *r;
    struct ssa_summary sum;
    struct ssa_findings f;
    const char *path = ss_test_path("dp2.sstrace");
    write_two_gpus(path, 1);
    analyse(path, &r, &sum, &f);
    const struct ssa_finding *dp = find_id(&f, "data_parallel");
    REQUIRE(dp != NULL);
    CHECK(absd(dp->saving_ms - 4.0) < 1e-6);
    CHECK_EQ(dp->confidence, SSA_LOW);
    ssa_result_free(r);
    path = ss_test_path("dp1.sstrace");
    write_two_gpus(path, 0);
    analyse(path, &r, &sum, &f);
    CHECK(find_id(&f, "data_parallel") == NULL);
    ssa_result_free(r);
}

/* small_h2d: n pinned 64 KiB copies of 20 us each per 10 ms step, exposed (no kernel under
 * them). Merged: one 20 us fixed cost + 640 KiB at the pinned constant; 4 copies: quiet. */
static void small_h2d_case(int copies, double want_ms)
{
    const char *path =
        ss_test_path(copies > 4 ? "small-h2d-many.sstrace" : "small-h2d-few.sstrace");
    struct synth s;
    synth_open(&s, path);
    for (uint64_t k = 0; k < 4; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        synth_kernel(&s, "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", o, o + 5 * MS);
        for (int i = 0; i < copies; i++) {
            uint64_t t = o + 6 * MS + (uint64_t)i * 100 * US;
            synth_memcpy(&s, SST_COPY_H2D, SST_MEM_PINNED, t, t + 20 * US, 65536);
        }
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
    struct ssa_result *r;
    struct ssa_summary sum;
    struct ssa_findings f;
    analyse(path, &r, &sum, &f);
    const struct ssa_finding *x = find_id(&f, "small_h2d");
    if (want_ms <= 0) {
        CHECK(x == NULL);
    } else {
        REQUIRE(x != NULL);
        CHECK(absd(x->saving_ms - want_ms) < 1e-6);
        CHECK_EQ(x->confidence, SSA_LOW);
        CHECK(find_id(&f, "pageable_h2d") == NULL);
    }
    ssa_result_free(r);
}

static void test_small_h2d(void)
{
    small_h2d_case(10, 0.2 - (0.02 + 10 * 65536 / 55.5e9 * 1e3));
    small_h2d_case(4, 0);
}

/* A C loop (issue #21): per 10 ms step, data prepared inline [0, 4), an H2D copy, kernels
 * [4.1, 9.5), the loss read back [9.5, 9.6) with the host blocked in a sync from 4.2 until
 * the GPU drains: the data of step k+1 waits behind step k's sync. Removing the sync lets
 * the 4 ms of loading overlap the 5.4 ms of GPU work: sync_points prices it (4 ms + the
 * sync's own idle), data_loading prices the same 4 ms and is its alternative, ranked right
 * after it. Written as a C program (ENV program.kind c): no Python API in any fix. */
static void write_sync_exposes_data(const char *path, const char *kind)
{
    struct synth s;
    synth_open(&s, path);
    if (kind) synth_env(&s, "program.kind", kind);
    for (uint64_t k = 0; k < 8; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        synth_nvtx(&s, SST_REC_NVTX_PUSH, o, TID, s.domain, s.data_msg, 0, 0);
        synth_nvtx(&s, SST_REC_NVTX_POP, o + 4 * MS, TID, s.domain, 0, 0, 0);
        synth_memcpy(&s, SST_COPY_H2D, SST_MEM_PINNED, o + 4 * MS, o + 4100 * US, 100000);
        synth_kernel(&s, "sm90_xmma_gemm_bf16bf16_bf16f32", o + 4100 * US, o + 9500 * US);
        synth_api(&s, SST_API_RUNTIME, 131, o + 4200 * US, o + 9600 * US, TID);
        synth_memcpy(&s, SST_COPY_D2H, SST_MEM_PAGEABLE, o + 9500 * US, o + 9600 * US, 4);
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
}

/* Syncs every `every` steps of a 10 ms loop: two kernels [0.1, 3) and [7, 9.9), the host
 * blocked in a sync from 0.2 to 9.95 in the steps that have one; the GPU idles 4 ms between
 * the kernels while the host waits there (1.3 % of the time with one in 12 steps). */
static void write_syncs_every(const char *path, uint64_t every)
{
    struct synth s;
    synth_open(&s, path);
    for (uint64_t k = 0; k < 24; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        synth_kernel(&s, "sm90_xmma_gemm_bf16bf16_bf16f32", o + 100 * US, o + 3 * MS);
        synth_kernel(&s, "sm90_xmma_gemm_bf16bf16_bf16f32", o + 7 * MS, o + 9900 * US);
        if (k % every == 0) synth_api(&s, SST_API_RUNTIME, 131, o + 200 * US, o + 9950 * US, TID);
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
}

/* sync_points names read-backs made every step or so: syncs in every other step are priced,
 * one in 12 steps (a timer's, a log's every N steps: what its fix asks for already) is not. */
static void test_rare_syncs(void)
{
    static const struct {
        uint64_t every;
        int fires;
        const char *file;
    } cases[] = {{2, 1, "syncs_every2.sstrace"}, {12, 0, "syncs_every12.sstrace"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *path = ss_test_path(cases[i].file);
        write_syncs_every(path, cases[i].every);
        struct ssa_result *r;
        struct ssa_summary sum;
        struct ssa_findings f;
        analyse(path, &r, &sum, &f);
        CHECK(sum.cat_ms[SSA_CAT_SYNC] > 0);
        CHECK_EQ(find_id(&f, "sync_points") != NULL, cases[i].fires);
        ssa_result_free(r);
    }
}

static int names_python(const char *fix)
{
    return strstr(fix, "DataLoader") || strstr(fix, ".item()") || strstr(fix, "torch.");
}

static void test_sync_exposes_data(void)
{
    const char *path = ss_test_path("sync_data.sstrace");
    write_sync_exposes_data(path, "c");
    struct ssa_result *r;
    struct ssa_summary sum;
    struct ssa_findings f;
    analyse(path, &r, &sum, &f);
    CHECK_EQ(r->program.kind, SSA_PROG_C);
    const struct ssa_finding *sync = find_id(&f, "sync_points"), *data = find_id(&f, "data_loading");
    REQUIRE(sync && data);
    CHECK(absd(sync->saving_ms - 4.0) < 0.2); /* the 4 ms of loading it exposes */
    CHECK_STR(f.v[0].id, "sync_points");
    CHECK_STR(f.v[1].id, "data_loading");
    REQUIRE(data->alternative_to != NULL);
    CHECK_STR(data->alternative_to, "sync_points");
    for (size_t i = 0; i < f.n; i++)
        CHECK(!names_python(f.v[i].fix));
    CHECK_CONTAINS(data->fix, "producer threads");
    ssa_result_free(r);
    path = ss_test_path("sync_data_py.sstrace");
    write_sync_exposes_data(path, NULL); /* no kind recorded, no command: Python's words */
    analyse(path, &r, &sum, &f);
    CHECK_CONTAINS(find_id(&f, "data_loading")->fix, "DataLoader(num_workers=");
    ssa_result_free(r);
}

/* torch.compile recompiling in steady state: a 30 ms compile range (with its recompile mark)
 * in steps 4 and 7 of 10, after the warm-up compiles of steps 0 (30 ms) and 1 (a 3 ms lazy
 * backward compile: not slow, but compiling: warm-up too); 60 ms over the 8 analysed steps. */
static void test_recompiles(void)
{
    const char *path = ss_test_path("recompile.sstrace");
    struct synth s;
    synth_open(&s, path);
    uint32_t c0 = sst_writer_intern_cstr(s.w, "compile: f (train.py:12) [0/0]");
    uint32_t c1 = sst_writer_intern_cstr(s.w, "compile: f (train.py:12) [0/1]");
    uint32_t why = sst_writer_intern_cstr(
        s.w, "recompile: tensor 'x' size mismatch at index 0. expected 8, actual 9");
    uint64_t o = T0;
    for (uint64_t k = 0; k < 10; k++) {
        int compiles = k == 0 || k == 4 || k == 7;
        uint64_t len = compiles ? 40 * MS : k == 1 ? 13 * MS : STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        if (compiles && k) synth_nvtx(&s, SST_REC_NVTX_MARK, o + 1 * US, TID, s.domain, why, 0, 0);
        if (compiles) {
            synth_nvtx(&s, SST_REC_NVTX_PUSH, o + 2 * US, TID, s.domain, k ? c1 : c0, 0, 0);
            synth_nvtx(&s, SST_REC_NVTX_POP, o + 30 * MS + 2 * US, TID, s.domain, 0, 0, 0);
        }
        if (k == 1) {
            synth_nvtx(&s, SST_REC_NVTX_PUSH, o + 2 * US, TID, s.domain, c0, 0, 0);
            synth_nvtx(&s, SST_REC_NVTX_POP, o + 3 * MS + 2 * US, TID, s.domain, 0, 0, 0);
        }
        synth_kernel(&s, "triton_poi_fused_add_0", o + len - 8 * MS, o + len - 1 * MS);
        synth_step(&s, SST_STEP_END, o + len, k, TID);
        o += len;
    }
    synth_close(&s);
    struct ssa_result *r;
    struct ssa_summary sum;
    struct ssa_findings f;
    analyse_opts(path, 0, &r, &sum, &f); /* warm-up detected, as in a report */
    CHECK_EQ(r->n_warmup, 2);
    CHECK_EQ(r->program.compiles, 4);
    CHECK_EQ(r->program.recompiles, 2);
    CHECK(r->program.compiled);
    CHECK_CONTAINS(r->program.recompile_reason, "size mismatch");
    const struct ssa_finding *rc = find_id(&f, "recompiles");
    REQUIRE(rc != NULL);
    CHECK_EQ(sum.steps, 8);
    CHECK(absd(rc->saving_ms - 60.0 / 8) < 0.1);
    CHECK_CONTAINS(rc->fix, "mark_dynamic");
    CHECK_EQ(rc->own_confidence, SSA_HIGH);
    ssa_result_free(r);
}

/* ---- the GPU-side rules (issue #31), on 10 ms steps whose GPU is busy from 0 to 9.5 ---- */

#define NVJET "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"
#define SGD_FOREACH                                                                              \
    "_ZN2at6native55_GLOBAL__N__d25d856e_22_ForeachBinaryOpList_cu_a911ec4325multi_tensor_"      \
    "apply_kernelINS1_18TensorListMetadataILi2EEENS1_24BinaryOpListAlphaFunctorIfLi2ELi2ELi0EEE"
#define SGD_FUSED                                                                                \
    "_ZN2at6native50_GLOBAL__N__fused_sgd_kernel_cu25multi_tensor_apply_kernelINS1_32FusedOptimi" \
    "zerTensorListMetadataILi3EEENS1_19FusedSgdMathFunctorIfLi3EEE"
#define LERP                                                                                     \
    "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_45_GLOBAL__N__d296b789_7_Lerp_cu_7"  \
    "51192d7_2018418lerp_scalar_kernelERNS_18TensorIteratorBaseERKN3c106ScalarEE"
#define GELU "_ZN2at6native29vectorized_elementwise_kernelILi8EZZZNS0_18GeluCUDAKernelImplE"
#define ADD "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEE"

/* The finding id of the trace at path: quiet when want < 0, else its saving want ms/step and
 * fix_has (NULL: any) in its fix. Returns its alternative_to ("" when none or quiet). */
static const char *expect_finding(const char *path, const char *id, double want,
                                  const char *fix_has)
{
    struct ssa_result *r;
    struct ssa_summary sum;
    struct ssa_findings f;
    analyse(path, &r, &sum, &f);
    const struct ssa_finding *x = find_id(&f, id);
    const char *alt = x && x->alternative_to ? x->alternative_to : "";
    if (want < 0) {
        CHECK(x == NULL);
    } else {
        REQUIRE(x != NULL);
        CHECK(absd(x->saving_ms - want) < 1e-6);
        if (fix_has) CHECK_CONTAINS(x->fix, fix_has);
    }
    ssa_result_free(r);
    return alt;
}

/* A GEMM [0, 6) and an SGD step [6, 9) of three foreach kernels back to back (or one fused
 * kernel: quiet). Fused, its 3 ms of passes take 5 of 8: saving 1.125 ms. */
static void test_unfused_optimizer_foreach(int fused)
{
    const char *path = ss_test_path(fused ? "opt-fused.sstrace" : "opt-foreach.sstrace");
    struct synth s;
    synth_open(&s, path);
    for (uint64_t k = 0; k < 4; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        synth_kernel(&s, NVJET, o, o + 6 * MS);
        for (uint64_t i = 0; i < 3; i++)
            synth_kernel(&s, fused ? SGD_FUSED : SGD_FOREACH, o + (6 + i) * MS, o + (7 + i) * MS);
        synth_kernel(&s, NVJET, o + 9 * MS, o + 9500 * US);
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
    const char *alt = expect_finding(path, "unfused_optimizer", fused ? -1 : 3.0 * (1 - 5.0 / 8),
                                     fused ? NULL : "SGD(");
    CHECK_STR(alt, "");
}


/* An Adam step per parameter tensor: after a GEMM [0, 2), 30 lerp kernels of 10 us, 20 us
 * apart (the host launching each). Fused: the span's 0.3 ms busy at 7 of 21 passes and its
 * 0.58 ms of gaps (no recording cost: a synthetic trace) go, 0.78 ms. Its gaps are all the
 * step's launch gaps, and launch_bound's fix (torch.compile(mode="reduce-overhead") of the
 * model) leaves the optimizer step's: no launch_bound finding, and this one stands alone. */
static void test_unfused_optimizer_per_parameter(void)
{
    const char *path = ss_test_path("opt-single.sstrace");
    struct synth s;
    synth_open(&s, path);
    for (uint64_t k = 0; k < 4; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        synth_kernel(&s, NVJET, o, o + 2 * MS);
        for (uint64_t i = 0; i < 30; i++)
            synth_kernel(&s, LERP, o + 2 * MS + i * 30 * US, o + 2 * MS + i * 30 * US + 10 * US);
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
    const char *alt = expect_finding(path, "unfused_optimizer", 0.3 * (1 - 7.0 / 21) + 0.58,
                                     "AdamW(params, fused=True)");
    CHECK_STR(alt, "");
    expect_finding(path, "launch_bound", -1, NULL);
}


/* 40 model kernels of 10 us, 20 us apart, then the same per-parameter Adam step of 30 lerp
 * kernels: 69 short gaps, 1.38 ms. launch_bound's fix, torch.compile(mode="reduce-overhead")
 * of the model, closes the model's 40 gaps (0.80 ms, the one before the optimizer's first
 * kernel with them) and leaves the optimizer's 29 (0.58 ms: unfused_optimizer's, additive). */
static void test_launch_bound_leaves_optimizer(void)
{
    const char *path = ss_test_path("launch-opt.sstrace");
    struct synth s;
    synth_open(&s, path);
    for (uint64_t k = 0; k < 4; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        for (uint64_t i = 0; i < 40; i++)
            synth_kernel(&s, ADD, o + i * 30 * US, o + i * 30 * US + 10 * US);
        for (uint64_t i = 0; i < 30; i++)
            synth_kernel(&s, LERP, o + 1200 * US + i * 30 * US, o + 1210 * US + i * 30 * US);
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
    const char *alt =
        expect_finding(path, "launch_bound", 0.80, "mode=\"reduce-overhead\") (plain");
    CHECK_STR(alt, "");
    alt = expect_finding(path, "unfused_optimizer", 0.3 * (1 - 7.0 / 21) + 0.58, NULL);
    CHECK_STR(alt, "");
}

/* GEMM [0, 5); elementwise kernels [5, 6), [6, 6.5), [6.5, 7) (with `compiled`: Triton's, a
 * torch.compile'd program); GEMM [7, 9.5). Fused, the run takes its longest kernel's 1 ms:
 * 1 ms/step saved. A single elementwise kernel between the GEMMs: nothing to fuse. */
static void test_unfused_elementwise(int run, int compiled)
{
    const char *path = ss_test_path(!run ? "ew-single.sstrace" : compiled ? "ew-compiled.sstrace"
                                                                          : "ew-run.sstrace");
    struct synth s;
    synth_open(&s, path);
    const char *gelu = compiled ? "triton_poi_fused_gelu_0" : GELU;
    const char *add = compiled ? "triton_poi_fused_add_1" : ADD; /* Triton's: compiled */
    for (uint64_t k = 0; k < 4; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        synth_kernel(&s, NVJET, o, o + 5 * MS);
        synth_kernel(&s, gelu, o + 5 * MS, o + 6 * MS);
        if (run) synth_kernel(&s, add, o + 6 * MS, o + 6500 * US);
        if (run) synth_kernel(&s, add, o + 6500 * US, o + 7 * MS);
        synth_kernel(&s, NVJET, o + 7 * MS, o + 9500 * US);
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
    /* a compiled program is told nothing about compiling */
    expect_finding(path, "unfused_elementwise", run && !compiled ? 1.0 : -1,
                   "torch.compile(model)");
}


#define BN_STATS "_ZN2at6native50batch_norm_collect_statistics_channels_last_kernelINS0_3VarEN3c108BFloat16EfLi4EEEvPKT0_PT1_S9_PVS8_PiiiS8_"
#define BN_APPLY "_ZN2at6native47batch_norm_transform_input_channels_last_kernelIN3c108BFloat16EffLi4EEEvPKT_S6_PKT0_S9_PKT1_SC_PS4_iib"

/* One kernel of a step's chain: its name and its span in us from the step's begin. */
struct chain_kernel {
    const char *name;
    uint64_t from_us, to_us;
};

/* Four 10 ms steps, each running the n kernels of chain at their spans; with loop_file, one
 * Python sample a step in a training loop of that file (the framework's). */
static void write_chain_in(const char *path, const struct chain_kernel *chain, size_t n,
                           const char *loop_file)
{
    struct synth s;
    synth_open(&s, path);
    if (loop_file) {
        synth_pyframe(&s, 1, "_inner_training_loop", loop_file, 2480);
        synth_pystack(&s, 1, (const uint32_t[]){1}, 1);
    }
    for (uint64_t k = 0; k < 4; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        if (loop_file) synth_pysample(&s, TID, o + 100 * US, 1);
        for (size_t i = 0; i < n; i++)
            synth_kernel(&s, chain[i].name, o + chain[i].from_us * US, o + chain[i].to_us * US);
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
}

static void write_chain(const char *path, const struct chain_kernel *chain, size_t n)
{
    write_chain_in(path, chain, n, NULL);
}

/* 40 small kernels of 10 us, 20 us apart, in a Lightning program (its trainer's frame in
 * the samples): launch-bound by the 39 gaps (0.78 ms/step), and told in Lightning's terms. */
static void test_launch_fix_lightning(void)
{
    struct chain_kernel chain[40];
    for (uint64_t i = 0; i < 40; i++)
        chain[i] = (struct chain_kernel){ADD, i * 30, i * 30 + 10};
    const char *path = ss_test_path("launch-lightning.sstrace");
    write_chain_in(path, chain, 40, "/v/lib/python3.12/site-packages/lightning/pytorch/trainer/"
                                    "trainer.py");
    expect_finding(path, "launch_bound", 0.78,
                   "model = torch.compile(model, mode=\"reduce-overhead\") before "
                   "trainer.fit(model)");
}

/* A training BatchNorm and its ReLU after a convolution [0, 5): a tiny add [5, 5.1), the
 * batch statistics [5.1, 6.1), the normalisation [6.1, 6.7), the ReLU [6.7, 7); a GEMM
 * [7, 9.5). The statistics are a reduction over the batch that must end before the
 * normalisation: compiled, the add goes into it (1 ms) and the ReLU into the normalisation
 * (0.6 ms), so 2 ms of kernels take 1.6: 0.4 ms/step (a run as long as its longest kernel
 * would say 1.0). */
static void test_fusion_batch_norm(void)
{
    static const struct chain_kernel chain[] = {
        {NVJET, 0, 5000},       {ADD, 5000, 5100},  {BN_STATS, 5100, 6100},
        {BN_APPLY, 6100, 6700}, {GELU, 6700, 7000}, {NVJET, 7000, 9500},
    };
    const char *path = ss_test_path("ew-batchnorm.sstrace");
    write_chain(path, chain, sizeof chain / sizeof chain[0]);
    expect_finding(path, "unfused_elementwise", 0.4, "torch.compile(model)");
}

/* An eager program with one compiled region (Triton: 0.5 of 9.5 ms, under the share that
 * makes it a compiled program): GEMM [0, 5), GELU [5, 6), add [6, 6.5), a Triton kernel
 * [6.5, 7), adds [7, 7.5) and [7.5, 7.75), GEMM [7.75, 9.5). The Triton kernel is fused
 * already and splits the chain: 0.5 + 0.25 ms/step (through it: 1.75). */
static void test_fusion_compiled_kernel(void)
{
    static const struct chain_kernel chain[] = {
        {NVJET, 0, 5000},    {GELU, 5000, 6000},
        {ADD, 6000, 6500},   {"triton_poi_fused_add_mul_0", 6500, 7000},
        {ADD, 7000, 7500},   {ADD, 7500, 7750},
        {NVJET, 7750, 9500},
    };
    const char *path = ss_test_path("ew-part-compiled.sstrace");
    write_chain(path, chain, sizeof chain / sizeof chain[0]);
    expect_finding(path, "unfused_elementwise", 0.75, "torch.compile(model)");
}

/* fp32 GEMMs on CUDA cores (TF32 off) [0, 5) and [6.5, 9.5) around a GELU [5, 6) and an add
 * [6, 6.5): fused, 0.5 ms/step. Under the HF Trainer, whose torch_compile=True also turns TF32
 * on while tf32 is unset, the 8 ms of GEMMs go at the tf32 rate too: 8 x (1 - 2 / 15.7) more,
 * and the fix says so. */
static void test_fusion_hf_tf32(int trainer)
{
    static const struct chain_kernel chain[] = {
        {"sgemm", 0, 5000}, {GELU, 5000, 6000}, {ADD, 6000, 6500}, {"sgemm", 6500, 9500},
    };
    const char *path = ss_test_path(trainer ? "ew-hf-fp32.sstrace" : "ew-fp32.sstrace");
    write_chain_in(path, chain, sizeof chain / sizeof chain[0],
                   trainer ? "/venv/lib/python3.12/site-packages/transformers/trainer.py"
                           : NULL);
    expect_finding(path, "unfused_elementwise", 0.5 + (trainer ? 8 * (1 - 2 / 15.7) : 0),
                   trainer ? "TrainingArguments(torch_compile=True): Inductor fuses each chain "
                             "of elementwise and normalisation ops into one kernel; it also "
                             "turns TF32 on"
                           : "torch.compile(model): Inductor");
}

#define NCHW2NHWC "_ZN5cudnn19engines_precompiled16nchwToNhwcKernelI13__nv_bfloat16S2_fLb0ELb1E"
#define BN_NCHW_BWD "_ZN2at6native26batch_norm_backward_kernelIN3c108BFloat16EffiEEvN5torch27"
#define BN_NCHW_APPLY "_ZN2at6native33batch_norm_transform_input_kernelIN3c108BFloat16EffLb1EiEEv"
#define DEPTHWISE "_ZN2at6native32conv_depthwise2d_forward_kernelILi3EN3c108BFloat16EiEEv"

/* A bf16 CNN on NCHW tensors: a convolution [0, 4), cuDNN's transpose of its input [4, 5), the
 * NCHW BatchNorm's normalisation [5, 5.5), an activation [5.5, 6), the BatchNorm's backward
 * [6, 8), a GEMM [8, 9.5). What-if channels_last: the transpose goes (1 ms) and the BatchNorm
 * kernels take 0.66 of their 2.5 ms less: 2.65 ms/step, an alternative to compiling, which
 * converts the layout too: fusion's 0.5 ms (the activation into the normalisation; the
 * transpose ends the chain) plus those 2.65.
 * With a native depthwise convolution [4, 4.5) in place of half the transpose: 0.5 + 1.65 and
 * fusion's 0.5 on top, the depthwise convolution said (cuDNN runs it under channels_last), not
 * priced. A compiled program is told nothing. */
static void test_nchw_layout(int depthwise, int compiled)
{
    static const struct chain_kernel plain[] = {
        {NVJET, 0, 4000},         {NCHW2NHWC, 4000, 5000},   {BN_NCHW_APPLY, 5000, 5500},
        {GELU, 5500, 6000},       {BN_NCHW_BWD, 6000, 8000}, {NVJET, 8000, 9500},
    };
    static const struct chain_kernel dw[] = {
        {NVJET, 0, 4000},         {DEPTHWISE, 4000, 4500},   {NCHW2NHWC, 4500, 5000},
        {BN_NCHW_APPLY, 5000, 5500}, {GELU, 5500, 6000},     {BN_NCHW_BWD, 6000, 8000},
        {NVJET, 8000, 9500},
    };
    static const struct chain_kernel triton[] = {
        {NVJET, 0, 4000},         {NCHW2NHWC, 4000, 5000},   {"triton_poi_fused_0", 5000, 6000},
        {BN_NCHW_BWD, 6000, 8000}, {"triton_red_fused_1", 8000, 9500},
    };
    const char *path = ss_test_path(depthwise  ? "nchw-dw.sstrace"
                                    : compiled ? "nchw-compiled.sstrace"
                                               : "nchw.sstrace");
    if (depthwise) write_chain(path, dw, sizeof dw / sizeof dw[0]);
    else if (compiled) write_chain(path, triton, sizeof triton / sizeof triton[0]);
    else write_chain(path, plain, sizeof plain / sizeof plain[0]);
    const char *alt = expect_finding(path, "nchw_layout", compiled ? -1 : depthwise ? 2.15 : 2.65,
                                     "memory_format=torch.channels_last");
    CHECK_STR(alt, compiled ? "" : "unfused_elementwise");
    expect_finding(path, "unfused_elementwise", compiled ? -1 : depthwise ? 2.65 : 3.15,
                   "torch.compile(model)");
    if (depthwise) {
        struct ssa_result *r;
        struct ssa_summary sum;
        struct ssa_findings f;
        analyse(path, &r, &sum, &f);
        const struct ssa_finding *x = find_id(&f, "nchw_layout");
        REQUIRE(x != NULL);
        CHECK(!x->note);
        CHECK_CONTAINS(x->evidence, "depthwise");
        ssa_result_free(r);
    }
}

/* On a 100-SM GPU: per step a GEMM [0, 4) of 200 blocks and four GEMMs of 25 blocks, 1 ms
 * each: 75 SMs idle in each, 3 ms/step. With 100 blocks each: quiet. */
static void test_small_gemms(uint32_t blocks)
{
    const char *path = ss_test_path(blocks < 100 ? "gemm-small.sstrace" : "gemm-full.sstrace");
    struct synth s;
    synth_open(&s, path);
    synth_device(&s, 0, "NVIDIA H200", 100);
    for (uint64_t k = 0; k < 4; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        synth_kernel_blocks(&s, NVJET, o, o + 4 * MS, 200);
        for (uint64_t i = 0; i < 4; i++)
            synth_kernel_blocks(&s, NVJET, o + (4 + i) * MS, o + (5 + i) * MS, blocks);
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
    expect_finding(path, "small_gemms", blocks >= 100 ? -1 : 4.0 * (100 - blocks) / 100, NULL);
}


/* A GEMM [0, 8), a D2D copy [8, 8.5) and a memset [8.5, 8.6) with nothing under them: 0.6 ms
 * of exposed device copies; the copy under the GEMM instead: hidden, quiet. */
static void test_device_copies(int exposed)
{
    const char *path = ss_test_path(exposed ? "d2d-exposed.sstrace" : "d2d-hidden.sstrace");
    struct synth s;
    synth_open(&s, path);
    for (uint64_t k = 0; k < 4; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        synth_kernel(&s, NVJET, o, o + 8 * MS);
        uint64_t c = exposed ? o + 8 * MS : o + 1 * MS;
        synth_memcpy(&s, SST_COPY_D2D, SST_MEM_DEVICE, c, c + 500 * US, 1 << 20);
        synth_memset(&s, c + 500 * US, c + 600 * US);
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
    expect_finding(path, "device_copies", exposed ? 0.6 : -1, NULL);
}

/* A light-mode trace (API calls, no kernels) of `steps` 10 ms steps with `launches` launches
 * each; left open for more records. */
static void write_light_steps(struct synth *s, const char *path, uint64_t steps,
                              uint64_t launches)
{
    synth_open(s, path);
    synth_env(s, "collector.mode", "light");
    for (uint64_t k = 0; k < steps; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(s, SST_STEP_BEGIN, o, k, TID);
        for (uint64_t l = 0; l < launches; l++)
            synth_api(s, SST_API_RUNTIME, 211, o + l * 50 * US, o + l * 50 * US + 5 * US, TID);
        synth_step(s, SST_STEP_END, o + STEP_NS, k, TID);
    }
}

/* The summary of the trace at path, freed; its recording cost printed. */
static struct ssa_summary summary_of(const char *path, uint64_t *inline_ns)
{
    struct ssa_result *r;
    struct ssa_summary sum;
    struct ssa_findings f;
    analyse(path, &r, &sum, &f);
    *inline_ns = r->collector_inline_ns;
    printf("  %s: %.1f launches/step, recording %.3f ms/step (%s), inline %.3f\n", path,
           sum.launches_per_step, sum.rec_cost_ms, ssa_rec_basis_name(sum.rec_basis),
           sum.rec_inline_ms);
    ssa_result_free(r);
    return sum;
}

/* Light mode records API calls, not kernels: its per-launch cost (SSA_REC_US_LIGHT) is priced
 * on the launches, with no kernel gaps to cap it (it once read 0 on every light run). */
static void test_light_recording_cost(void)
{
    const char *path = ss_test_path("light-cost.sstrace");
    struct synth s;
    write_light_steps(&s, path, 6, 100);
    synth_close(&s);
    uint64_t inline_ns;
    struct ssa_summary sum = summary_of(path, &inline_ns);
    CHECK_EQ(sum.rec_basis, SSA_REC_LIGHT);
    CHECK(absd(sum.rec_cost_ms - 100 * SSA_REC_US_LIGHT / 1e3) < 1e-6);
}

/* Full mode as it records since 2026-12-04 (ENV collector.cupti_extra "none") prices a launch
 * at SSA_REC_FULL_LEAN_PER_CALL of the trace's median launch call: a host whose calls take
 * twice as long is charged twice as much (one H200 host ran the eager MLP at 14 ms/step with
 * 3.5 us calls, another at 30-34 ms with 7.3 us). 20 launches a step, 50 us apart, each
 * followed by a 10 us kernel: 0.8 ms of short gaps a step, more than either cost. */
static double full_lean_us_per_launch(const char *name, uint64_t call_ns, double *call_us)
{
    const char *path = ss_test_path(name);
    struct synth s;
    synth_open(&s, path);
    synth_env(&s, "collector.mode", "full");
    synth_env(&s, "collector.cupti_extra", "none");
    for (uint64_t k = 0; k < 6; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        for (uint64_t l = 0; l < 20; l++) {
            uint64_t t = o + l * 50 * US;
            synth_api(&s, SST_API_RUNTIME, 211, t, t + call_ns, TID);
            synth_kernel(&s, "vectorized_elementwise_kernel", t + call_ns, t + call_ns + 10 * US);
        }
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
    uint64_t inline_ns;
    struct ssa_summary sum = summary_of(path, &inline_ns);
    CHECK_EQ(sum.rec_basis, SSA_REC_FULL);
    CHECK(absd(sum.rec_cost_ms - 20 * sum.rec_us_per_launch / 1e3) < 1e-9);
    *call_us = sum.rec_launch_call_us;
    return sum.rec_us_per_launch;
}

static void test_full_lean_cost_follows_host(void)
{
    double quick_call, slow_call;
    double quick = full_lean_us_per_launch("full-lean-quick.sstrace", 3500, &quick_call);
    double slow = full_lean_us_per_launch("full-lean-slow.sstrace", 7000, &slow_call);
    CHECK(absd(quick_call - 3.5) < 0.25 && absd(slow_call - 7.0) < 0.5); /* 1/8-octave bins */
    CHECK(absd(quick - SSA_REC_FULL_LEAN_PER_CALL * quick_call) < 1e-9);
    CHECK(absd(slow / quick - 2.0) < 1e-9);
}

/* The collector's own time, from its COST running totals: the latest reading of each kind and
 * thread; callbacks and CUPTI switches count, stack reads on a thread where callbacks ran
 * (the program's) count, the stack reader's and the writer's own threads do not. A light
 * trace (no kernels, so nothing caps it) states at least that measured time. */
static void test_inline_cost(void)
{
    const char *path = ss_test_path("inline-cost.sstrace");
    struct synth s;
    write_light_steps(&s, path, 4, 1);
    uint64_t t = T0 + 5 * STEP_NS;
    synth_cost(&s, SST_COST_API_CALLBACK, TID, t, 1600, 100, 200 * US); /* 3.2 ms in all */
    synth_cost(&s, SST_COST_API_CALLBACK, TID, t - 1, 16, 1, 1 * MS);   /* an older reading */
    synth_cost(&s, SST_COST_PY_STACK, TID, t, 40, 40, 800 * US);        /* at blocking calls */
    synth_cost(&s, SST_COST_CUPTI_CONTROL, TID, t, 1, 1, 0);
    synth_cost(&s, SST_COST_PY_STACK, TID + 7, t, 900, 900, 90 * MS); /* the stack reader */
    synth_cost(&s, SST_COST_WRITER, TID + 8, t, 50, 50, 70 * MS);
    synth_close(&s);
    uint64_t inline_ns;
    struct ssa_summary sum = summary_of(path, &inline_ns);
    CHECK_EQ(inline_ns, 4000 * US);
    CHECK(absd(sum.rec_inline_ms - 1.0) < 1e-9); /* 4 ms over 4 steps */
    CHECK(absd(sum.rec_cost_ms - 1.0) < 1e-9);   /* above 1 launch x 2 us */
}

/* README: `--capture steps:8-107` (by hand) and `auto` in a PyTorch program (ENV
 * collector.window: what auto came to, its last value counting — the collector writes steps:0-99
 * at its start and steps:8-107 when CUDA starts after the shim spoke) have the cost measured on
 * a short run. Steps 0-7 before the window (no GPU records, 10 ms), steps 8-15 inside it
 * (12 ms, a kernel each): steps 3-7 are the baseline (the first 3 are left out as warm-up),
 * 2 ms measured. */
static void test_cost_measured_before_late_window(int is_auto)
{
    const char *path = ss_test_path(is_auto ? "late-auto-cost.sstrace" : "late-window-cost.sstrace");
    struct synth s;
    synth_open(&s, path);
    synth_env(&s, "collector.capture", is_auto ? "auto" : "steps:8-107");
    if (is_auto) {
        synth_env(&s, "collector.window", "steps:0-99");
        synth_env(&s, "collector.window", "steps:8-107");
    }
    synth_env(&s, "collector.mode", "full");
    synth_capture(&s, T0 - MS, 1, SST_CAP_START);
    uint64_t o = T0;
    for (uint64_t k = 0; k < 16; k++) {
        uint64_t d = k < 8 ? STEP_NS : 12 * MS;
        if (k == 8) synth_capture(&s, o + 5 * US, 1, SST_CAP_WINDOW);
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        if (k >= 8) synth_kernel(&s, "sgemm", o + 10 * US, o + 8 * MS);
        synth_step(&s, SST_STEP_END, o + d, k, TID);
        o += d;
    }
    synth_capture(&s, o + MS, 0, SST_CAP_EXIT);
    synth_close(&s);
    uint64_t inline_ns;
    struct ssa_summary sum = summary_of(path, &inline_ns);
    CHECK_EQ(sum.rec_basis, SSA_REC_MEASURED);
    CHECK_EQ(sum.rec_baseline_steps, 5);
    CHECK(absd(sum.rec_cost_ms - 2.0) < 1e-6);
}

/* A light recording of a CUDA-graph program: 3 marked warm-up steps (the optimizer steps before
 * and during capture), then 30 graph launches 3.6 ms apart with a copy each and no kernel record
 * (light mode keeps none, so no launch's graph is known). The launches are the steps — not the
 * 3 warm-up ones (2026-12-04: their 15-18 ms was read as the step) — and no rule prices GPU
 * idle: the graph's kernels are busy where the trace shows nothing. */
static void test_light_graph_steps(void)
{
    const char *path = ss_test_path("light-graph.sstrace");
    struct synth s;
    write_light_steps(&s, path, 3, 20);
    uint64_t o = T0 + 3 * STEP_NS;
    for (uint64_t k = 0; k < 30; k++, o += 3600 * US) {
        synth_api(&s, SST_API_RUNTIME, SST_CBID_RT_cudaGraphLaunch_v10000, o, o + 20 * US, TID);
        synth_memcpy(&s, SST_COPY_D2D, SST_MEM_DEVICE, o + 30 * US, o + 60 * US, 1 << 20);
    }
    synth_close(&s);
    struct ssa_result *r;
    struct ssa_summary sum;
    struct ssa_findings f;
    analyse(path, &r, &sum, &f);
    CHECK_EQ(r->step_source, SSA_STEPS_GRAPHS);
    CHECK_EQ(r->step_graph_id, SSA_GRAPH_UNTOLD);
    CHECK_EQ(r->markers_set_aside, 3);
    CHECK(absd((double)sum.median_ns / 1e6 - 3.6) < 0.01);
    CHECK_EQ(f.n, 0);
    ssa_result_free(r);
}

/* Small fp32 GEMMs per 10 ms step: 50 on CUDA cores of 20 us [0, 1), 10 convolutions of
 * 50 us [1, 1.5) (implicit_convolve_sgemm: CUDA cores too), 20 activations of 2 us. In bf16 a
 * 20 us sgemm would take 1.27 us but no GEMM kernel runs under 3: 17 us saved each (850 us);
 * the convolutions 50 - 50/15.7 each (468.15 us); autocast adds 2.2 casts per GEMM and 0.6
 * per convolution (116), each as long as the shortest elementwise kernel (2 us): 232 us.
 * Saving 1.0862 ms/step (one ratio for all said 1.5 x (1 - 1/15.7) = 1.404). */
static void test_mixed_precision_small_gemms(void)
{
    const char *path = ss_test_path("mp-small.sstrace");
    struct synth s;
    synth_open(&s, path);
    for (uint64_t k = 0; k < 4; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        for (uint64_t i = 0; i < 50; i++)
            synth_kernel(&s, "sgemm", o + i * 20 * US, o + (i + 1) * 20 * US);
        for (uint64_t i = 0; i < 10; i++)
            synth_kernel(&s, "implicit_convolve_sgemm", o + (1000 + i * 50) * US,
                         o + (1050 + i * 50) * US);
        for (uint64_t i = 0; i < 20; i++)
            synth_kernel(&s, GELU, o + (1500 + i * 10) * US, o + (1502 + i * 10) * US);
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
    expect_finding(path, "no_mixed_precision",
                   (50 * (20 - 3.0) + 10 * (50 - 50 / 15.7) - 116 * 2.0) / 1e3, "torch.autocast");
}

/* The held-out evidence table (ssa_evidence.h): every row names a rule that exists, and a
 * finding's confidence is at most what its rule's row supports: no_mixed_precision judged
 * within +-151 % stays low whatever its own reasons; a rule with no row says none. */
static void test_held_out_evidence(void)
{
    size_t rows = 0;
    for (const struct ssa_held_out *h; (h = ssa_held_out_row(rows)) != NULL; rows++) {
        int known = 0;
        for (size_t i = 0; ssa_finding_rule_id(i); i++)
            known |= strcmp(ssa_finding_rule_id(i), h->id) == 0;
        CHECK(known);
        CHECK(h->judged == 0 || h->worst_pct >= h->median_pct);
    }
    CHECK(rows > 0);
    CHECK_EQ(ssa_held_out_of("no_such_rule").judged, 0);
    const char *path = ss_test_path("held_out.sstrace");
    struct synth s;
    synth_open(&s, path);
    for (uint64_t k = 0; k < 5; k++) { /* 10 ms steps, 8 ms of fp32 GEMM on CUDA cores */
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        synth_kernel(&s, "_Z18sgemm_largek_lds64ILb1ELb0ELi5ELi5ELi4ELi4ELi4ELi34EEvPfPKfS2_",
                     o + 1 * MS, o + 9 * MS);
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
    struct ssa_result *r;
    struct ssa_summary sum;
    struct ssa_findings f;
    analyse(path, &r, &sum, &f);
    const struct ssa_finding *mp = find_id(&f, "no_mixed_precision");
    REQUIRE(mp != NULL);
    struct ssa_held_out h = ssa_held_out_of("no_mixed_precision");
    CHECK_EQ(mp->held_out.judged, h.judged);
    CHECK(mp->confidence <= mp->own_confidence);
    if (h.judged < 2 || h.worst_pct > 40) CHECK_EQ(mp->confidence, SSA_LOW);
    ssa_result_free(r);
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 2);
    test_rules_synthetic();
    test_env_and_data();
    test_workers_from_loader();
    test_no_gpu_records();
    test_capture_window();
    test_ends_at_close();
    test_queued_at_open(1);
    test_queued_at_open(0);
    test_launch_queue(1);
    test_launch_queue(0);
    test_post_sync_host_work();
    test_cpu_tensors();
    test_sync_that_did_not_wait();
    test_data_parallel();
    test_small_h2d();
    test_sync_exposes_data();
    test_rare_syncs();
    test_recompiles();
    test_unfused_optimizer_foreach(0);
    test_unfused_optimizer_foreach(1);
    test_unfused_optimizer_per_parameter();
    test_launch_bound_leaves_optimizer();
    test_launch_fix_lightning();
    test_unfused_elementwise(1, 0);
    test_unfused_elementwise(1, 1);
    test_unfused_elementwise(0, 0);
    test_fusion_batch_norm();
    test_fusion_compiled_kernel();
    test_fusion_hf_tf32(0);
    test_fusion_hf_tf32(1);
    test_nchw_layout(0, 0);
    test_nchw_layout(1, 0);
    test_nchw_layout(0, 1);
    test_small_gemms(25);
    test_small_gemms(100);
    test_device_copies(1);
    test_device_copies(0);
    test_light_recording_cost();
    test_full_lean_cost_follows_host();
    test_inline_cost();
    test_cost_measured_before_late_window(0);
    test_cost_measured_before_late_window(1);
    test_light_graph_steps();
    test_mixed_precision_small_gemms();
    test_held_out_evidence();
    test_fixture_gate(argv[1]);
    return ss_test_result();
}
