/*
 * test_attr_synth.c — attribution on synthetic traces whose breakdown is known exactly.
 *
 * The main trace has 3000 identical 10 ms steps. In each: a "data" range for 3 ms (a
 * launch call inside it: data wins), a 4 ms tensor-core GEMM (an NCCL kernel hidden under
 * it: no comm time), a 2 ms pageable H2D copy half hidden under the GEMM, a 2 ms
 * cudaStreamSynchronize half covered by that copy, a memset, a cudaMalloc on the training
 * thread and one on another thread (every host thread counts). Expected, in ns: data 3 ms,
 * gemm_tc 4 ms, copy.h2d 1 ms, sync 1 ms, memset 0.1 ms, alloc 0.3 ms, host 0.6 ms — summing
 * to 10 ms.
 * The GPU records of step k are written after the host records of step k+7, as CUPTI's
 * late buffers do, and the test checks that the analysis still gets every step exact while
 * buffering only a few steps at a time.
 */
#include <string.h>

#include "analysis/ssa.h"
#include "synth.h"
#include "util/ss_error.h"

#define TID 100
#define STEP_NS (10 * MS)
#define N_STEPS 3000
#define DELAY 7

static void host_records(struct synth *s, uint64_t k)
{
    uint64_t o = T0 + k * STEP_NS;
    synth_step(s, SST_STEP_BEGIN, o, k, TID);
    synth_nvtx(s, SST_REC_NVTX_PUSH, o, TID, s->domain, s->step_msg, 1, k);
    synth_nvtx(s, SST_REC_NVTX_PUSH, o, TID, s->domain, s->data_msg, 0, 0);
    synth_api(s, SST_API_RUNTIME, 211, o + 2500 * US, o + 2600 * US, TID); /* in data */
    synth_nvtx(s, SST_REC_NVTX_POP, o + 3 * MS, TID, s->domain, 0, 0, 0);
    synth_api(s, SST_API_RUNTIME, 211, o + 3000 * US, o + 3100 * US, TID); /* GPU busy */
    synth_api(s, SST_API_RUNTIME, 131, o + 7 * MS, o + 9 * MS, TID);       /* sync */
    synth_api(s, SST_API_RUNTIME, 20, o + 9200 * US, o + 9400 * US, 200); /* other thread: counts */
    synth_api(s, SST_API_RUNTIME, 20, o + 9600 * US, o + 9700 * US, TID); /* alloc */
    synth_nvtx(s, SST_REC_NVTX_POP, o + STEP_NS, TID, s->domain, 0, 0, 0);
    synth_step(s, SST_STEP_END, o + STEP_NS, k, TID);
}

static void gpu_records(struct synth *s, uint64_t k)
{
    uint64_t o = T0 + k * STEP_NS;
    synth_kernel(s, "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", o + 3 * MS, o + 7 * MS);
    synth_kernel(s, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", o + 4 * MS, o + 5 * MS);
    synth_memcpy(s, SST_COPY_H2D, SST_MEM_PAGEABLE, o + 6 * MS, o + 8 * MS, 1 << 20);
    synth_memset(s, o + 9400 * US, o + 9500 * US);
}

static struct ssa_result *analyze(const char *path, int no_warmup)
{
    struct ssa_opts o = {.window_ns = 0, .no_warmup = no_warmup};
    struct ssa_result *r = NULL;
    int rc = ssa_analyze_file(path, &o, &r);
    CHECK_EQ(rc, 0);
    REQUIRE(r != NULL);
    return r;
}

static void check_sum(const struct ssa_step *st)
{
    uint64_t sum = 0;
    for (int c = 0; c < SSA_CAT_COUNT; c++)
        sum += st->cat_ns[c];
    CHECK_EQ_U64(sum, st->end_ns - st->begin_ns);
}

static void check_main_step(const struct ssa_step *st, uint64_t k)
{
    static const struct {
        int cat;
        uint64_t ns;
    } want[] = {{SSA_CAT_DATA, 3 * MS},   {SSA_CAT_GEMM_TC, 4 * MS},  {SSA_CAT_COPY_H2D, 1 * MS},
                {SSA_CAT_SYNC, 1 * MS},   {SSA_CAT_MEMSET, 100 * US}, {SSA_CAT_ALLOC, 300 * US},
                {SSA_CAT_HOST, 600 * US}, {SSA_CAT_COMM, 0},          {SSA_CAT_LAUNCH, 0}};
    CHECK_EQ_U64(st->number, k);
    CHECK_EQ_U64(st->end_ns - st->begin_ns, STEP_NS);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (st->cat_ns[want[i].cat] != want[i].ns)
            SS_FAIL_AT("step %" PRIu64 " %s: %" PRIu64 " ns, want %" PRIu64, k,
                       ssa_cat_name(want[i].cat), st->cat_ns[want[i].cat], want[i].ns);
    check_sum(st);
    CHECK_EQ(st->n.kernels, 2);
    CHECK_EQ(st->n.kernels_by_class[SSA_KC_GEMM_TC], 1);
    CHECK_EQ(st->n.kernels_by_class[SSA_KC_NCCL], 1);
    CHECK_EQ(st->n.launches, 2);
    CHECK_EQ(st->n.syncs, 1);
    CHECK_EQ(st->n.allocs, 2);
    CHECK_EQ(st->n.copies[SST_COPY_H2D], 1);
    CHECK_EQ(st->n.pageable_copies[SST_COPY_H2D], 1);
    CHECK_EQ_U64(st->n.copy_bytes[SST_COPY_H2D], 1 << 20);
    CHECK_EQ(st->n.memsets, 1);
    CHECK_EQ(st->n.data_ranges, 1);
    CHECK_EQ_U64(st->n.data_ns, 3 * MS);
}

static void test_exact_breakdown(void)
{
    const char *path = ss_test_path("main.sstrace");
    struct synth s;
    synth_open(&s, path);
    for (uint64_t k = 0; k < N_STEPS; k++) {
        host_records(&s, k);
        if (k >= DELAY) gpu_records(&s, k - DELAY); /* CUPTI's buffers arrive late */
    }
    for (uint64_t k = N_STEPS - DELAY; k < N_STEPS; k++)
        gpu_records(&s, k);
    synth_close(&s);

    struct ssa_result *r = analyze(path, 0);
    CHECK_EQ(r->step_source, SSA_STEPS_RECORDS);
    CHECK_EQ(r->train_tid, TID);
    CHECK_EQ_U64(r->n_steps, N_STEPS);
    CHECK_EQ_U64(r->n_warmup, 0);
    CHECK_EQ_U64(r->late_intervals, 0);
    for (size_t i = 0; i < r->n_steps && i < N_STEPS; i++)
        check_main_step(&r->steps[i], i);
    /* bounded: only the steps still waiting for their GPU records are buffered */
    printf("peak buffered intervals: %zu of %d\n", r->peak_buffered_intervals, N_STEPS * 10);
    CHECK(r->peak_buffered_intervals < 3000);
    struct ssa_summary sum;
    ssa_summarize(r, &sum);
    CHECK_EQ_U64(sum.steps, N_STEPS);
    CHECK_EQ_U64(sum.median_ns, STEP_NS);
    CHECK(sum.gpu_busy_pct > 50.99 && sum.gpu_busy_pct < 51.01); /* 4 + 1 + 0.1 of 10 ms */
    CHECK(sum.cat_pct[SSA_CAT_DATA] > 29.99 && sum.cat_pct[SSA_CAT_DATA] < 30.01);
    CHECK(sum.steps_per_s > 99.99 && sum.steps_per_s < 100.01);
    ssa_result_free(r);
}

/* A first step three times slower than the rest is warm-up; --no-warmup keeps it. */
static void test_warmup(void)
{
    const char *path = ss_test_path("warmup.sstrace");
    struct synth s;
    synth_open(&s, path);
    uint64_t t = T0;
    for (uint64_t k = 0; k < 5; k++) {
        uint64_t d = k == 0 ? 3 * STEP_NS : STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, t, k, TID);
        synth_kernel(&s, "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32", t, t + MS);
        synth_step(&s, SST_STEP_END, t + d, k, TID);
        t += d;
    }
    synth_close(&s);
    struct ssa_result *r = analyze(path, 0);
    CHECK_EQ_U64(r->n_steps, 5);
    CHECK_EQ_U64(r->n_warmup, 1);
    CHECK(r->steps[0].warmup && !r->steps[1].warmup);
    struct ssa_summary sum;
    ssa_summarize(r, &sum);
    CHECK_EQ_U64(sum.steps, 4);
    CHECK_EQ_U64(sum.median_ns, STEP_NS);
    ssa_result_free(r);
    r = analyze(path, 1);
    CHECK_EQ_U64(r->n_warmup, 0);
    ssa_result_free(r);
}

/* 12 steps: 6 fast ones (2 ms) after step 0, then 6 at 10 ms. busy: the fast steps keep
 * the GPU busy (host ahead, queue filling: excluded as warm-up, in both modes) or leave it
 * idle (merely faster steps: kept). */
static void write_fill(const char *path, int busy)
{
    struct synth s;
    synth_open(&s, path);
    uint64_t t = T0;
    for (uint64_t k = 0; k < 12; k++) {
        uint64_t d = k >= 1 && k <= 6 ? 2 * MS : STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, t, k, TID);
        synth_kernel(&s, "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32", t,
                     t + (busy || d == STEP_NS ? d : d / 4));
        synth_step(&s, SST_STEP_END, t + d, k, TID);
        t += d;
    }
    synth_close(&s);
}

static void check_fill(const char *path, int busy, int flags)
{
    struct ssa_opts o = {.window_ns = 0};
    struct ssa_result *r = NULL;
    CHECK_EQ(ssa_analyze_file_ex(path, &o, flags, &r), 0);
    REQUIRE(r != NULL);
    struct ssa_summary sum;
    ssa_summarize(r, &sum);
    /* not busy: step 0 (10 ms) is slower than the median of the rest (2 ms): warm-up alone */
    CHECK_EQ_U64(r->n_warmup, (busy ? 7 : 1));
    CHECK_EQ_U64(r->warmup_fill, (busy ? 6 : 0));
    CHECK_EQ_U64(sum.steps, (busy ? 5 : 11));
    if (busy) CHECK_EQ_U64(sum.mean_ns, STEP_NS);
    ssa_result_free(r);
}

/* Steps of the given durations (ms), the GPU busy throughout each. */
static void write_busy_steps(const char *path, const uint64_t *ms_each, size_t n)
{
    struct synth s;
    synth_open(&s, path);
    uint64_t t = T0;
    for (uint64_t k = 0; k < n; k++) {
        uint64_t d = ms_each[k] * MS;
        synth_step(&s, SST_STEP_BEGIN, t, k, TID);
        synth_kernel(&s, "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32", t, t + d);
        synth_step(&s, SST_STEP_END, t + d, k, TID);
        t += d;
    }
    synth_close(&s);
}

/* Not a fill: a GPU-bound run that slows down later (30 x 10 ms, then 10 x 25 ms), and steps
 * that alternate 8 and 30 ms. Nothing is excluded. */
static void test_not_a_fill(void)
{
    uint64_t slow_tail[40], alternating[40];
    for (size_t i = 0; i < 40; i++)
        slow_tail[i] = i < 30 ? 10 : 25, alternating[i] = i % 2 ? 30 : 8;
    const uint64_t *cases[] = {slow_tail, alternating};
    for (int c = 0; c < 2; c++) {
        const char *path = ss_test_path(c ? "alternating.sstrace" : "slowtail.sstrace");
        write_busy_steps(path, cases[c], 40);
        struct ssa_opts o = {.window_ns = 0};
        struct ssa_result *r = NULL;
        CHECK_EQ(ssa_analyze_file(path, &o, &r), 0);
        REQUIRE(r != NULL);
        CHECK_EQ_U64(r->warmup_fill, 0);
        CHECK(r->n_warmup <= 1);
        ssa_result_free(r);
    }
}

static void test_queue_fill(void)
{
    for (int busy = 0; busy <= 1; busy++) {
        const char *path = ss_test_path(busy ? "fill1.sstrace" : "fill0.sstrace");
        write_fill(path, busy);
        check_fill(path, busy, 0);
        check_fill(path, busy, SSA_COMPACT);
    }
}

/* The user's marker: 6 NVTX ranges "train_step" (another domain) of 10 ms each and, inside
 * every second one, a range "fwd". Shim STEP records every 5 ms would win without the
 * option. Exact name, regex, a name that matches nothing (steps from the kernels, said so),
 * and --warmup 2. */
static void write_user_marker(const char *path)
{
    struct synth s;
    synth_open(&s, path);
    uint32_t dom = sst_writer_intern_cstr(s.w, "mylib");
    uint32_t msg = sst_writer_intern_cstr(s.w, "train_step");
    uint32_t fwd = sst_writer_intern_cstr(s.w, "fwd");
    for (uint64_t k = 0; k < 12; k++) {
        uint64_t t = T0 + k * STEP_NS / 2;
        synth_step(&s, SST_STEP_BEGIN, t, k, TID);
        synth_step(&s, SST_STEP_END, t + STEP_NS / 2, k, TID);
    }
    for (uint64_t k = 0; k < 6; k++) {
        uint64_t t = T0 + k * STEP_NS;
        synth_nvtx(&s, SST_REC_NVTX_PUSH, t, TID, dom, msg, 0, 0);
        if (k % 2 == 0) synth_nvtx(&s, SST_REC_NVTX_PUSH, t + MS, TID, dom, fwd, 0, 0);
        synth_kernel(&s, "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32", t + MS, t + 3 * MS);
        if (k % 2 == 0) synth_nvtx(&s, SST_REC_NVTX_POP, t + 3 * MS, TID, dom, 0, 0, 0);
        synth_nvtx(&s, SST_REC_NVTX_POP, t + STEP_NS, TID, dom, 0, 0, 0);
    }
    synth_close(&s);
}

static struct ssa_result *analyze_marker(const char *path, const char *marker, int warmup)
{
    struct ssa_opts o = {.step_marker = marker,
                         .warmup_fixed = warmup >= 0,
                         .warmup_steps = warmup >= 0 ? (size_t)warmup : 0};
    struct ssa_result *r = NULL;
    CHECK_EQ(ssa_analyze_file(path, &o, &r), 0);
    REQUIRE(r != NULL);
    return r;
}

static void test_step_marker(void)
{
    const char *path = ss_test_path("marker.sstrace");
    write_user_marker(path);
    struct ssa_result *r = analyze_marker(path, NULL, -1);
    CHECK_EQ(r->step_source, SSA_STEPS_RECORDS);
    CHECK_EQ_U64(r->n_steps, 12);
    ssa_result_free(r);
    r = analyze_marker(path, "train_step", -1);
    CHECK_EQ(r->step_source, SSA_STEPS_MARKER);
    CHECK_EQ_U64(r->n_steps, 6);
    CHECK(!r->marker_unmatched);
    CHECK_EQ_U64(r->briefs[1].end_ns - r->briefs[1].begin_ns, STEP_NS);
    ssa_result_free(r);
    r = analyze_marker(path, "re:^(train_)?step$", 2);
    CHECK_EQ(r->step_source, SSA_STEPS_MARKER);
    CHECK_EQ_U64(r->n_steps, 6);
    CHECK_EQ_U64(r->n_warmup, 2);
    ssa_result_free(r);
    r = analyze_marker(path, "re:^fw", -1); /* every second step: ranges 20 ms apart */
    CHECK_EQ_U64(r->n_steps, 3);
    ssa_result_free(r);
    r = analyze_marker(path, "re:^(train_step|fwd)$", -1); /* nested matches: outermost only */
    CHECK_EQ_U64(r->n_steps, 6);
    ssa_result_free(r);
    r = analyze_marker(path, "no_such_range", -1);
    CHECK(r->marker_unmatched);
    CHECK(r->step_source != SSA_STEPS_MARKER && r->step_source != SSA_STEPS_RECORDS);
    ssa_result_free(r);
    const char *bad_specs[] = {"re:(", "re:", ""};
    for (int i = 0; i < 3; i++) {
        struct ssa_opts bad = {.step_marker = bad_specs[i]};
        r = NULL;
        CHECK_EQ(ssa_analyze_file(path, &bad, &r), SS_EINVAL);
        CHECK(r == NULL);
    }
}

/* The timelines of test_outliers' trace: a 10 ms (median) step with its one kernel on stream 7
 * and the attribution's two runs, and the slowest step (5) with its sync call too and four
 * runs; its bin holds the 20 ms of sync. */
static void check_median_timeline(const struct ssa_result *r)
{
    const struct ssa_timeline *m = &r->tl[SSA_TL_MEDIAN];
    REQUIRE(m->step >= 1 && m->step <= 8);
    CHECK(m->step != 6);
    REQUIRE(m->n == 3 && m->n_attr == 2);
    const struct ssa_step_brief *b = &r->briefs[m->step - 1];
    CHECK_EQ_U64(m->items[0].start_ns, b->begin_ns);
    CHECK_EQ_U64(m->items[0].end_ns - m->items[0].start_ns, 4 * MS);
    CHECK_EQ_U64(m->items[0].lane, 7);
    CHECK_EQ(m->items[0].kind, SSA_TL_GPU);
    CHECK_EQ(m->items[0].cat, SSA_CAT_GEMM_TC);
    CHECK_EQ(m->items[0].name_kind, SSA_TLN_KERNEL);
    CHECK(strstr(r->kname_text[m->items[0].name], "xmma_fprop") != NULL);
    CHECK_EQ(m->items[1].kind, SSA_TL_ATTR);
    CHECK_EQ(m->items[1].cat, SSA_CAT_GEMM_TC);
    CHECK_EQ(m->items[2].cat, SSA_CAT_HOST);
    CHECK_EQ_U64(m->items[2].end_ns - m->items[2].start_ns, 6 * MS);
    CHECK_EQ_U64(m->whole.end_ns - m->whole.begin_ns, STEP_NS);
}

static void check_timelines(const char *path, unsigned flags)
{
    struct ssa_opts o = {.window_ns = 0};
    struct ssa_result *r = NULL;
    CHECK_EQ(ssa_analyze_file_ex(path, &o, flags | SSA_TIMELINE | SSA_STEP_BINS, &r), 0);
    REQUIRE(r != NULL);
    check_median_timeline(r);
    const struct ssa_timeline *s = &r->tl[SSA_TL_SLOWEST];
    REQUIRE(s->step == 6 && s->n == 6 && s->n_attr == 4);
    CHECK_EQ(s->items[1].kind, SSA_TL_HOST);
    CHECK_EQ(s->items[1].cat, SSA_CAT_SYNC);
    CHECK_EQ(s->items[1].name_kind, SSA_TLN_API);
    CHECK_EQ_U64(s->items[1].name, (uint32_t)SST_API_RUNTIME << 24 | 131);
    static const int runs[4] = {SSA_CAT_GEMM_TC, SSA_CAT_HOST, SSA_CAT_SYNC, SSA_CAT_HOST};
    for (int i = 0; i < 4; i++)
        CHECK_EQ(s->items[2 + i].cat, runs[i]);
    CHECK_EQ_U64(s->items[4].end_ns - s->items[4].start_ns, 20 * MS);
    CHECK_EQ_U64(s->whole.cat_ns[SSA_CAT_SYNC], 20 * MS);
    CHECK_EQ_U64(r->bins.width, 1);
    REQUIRE(r->bins.n == 8);
    CHECK_EQ_U64(r->bins.cat_ns[5][SSA_CAT_SYNC], 20 * MS);
    CHECK_EQ_U64(r->bins.cat_ns[4][SSA_CAT_SYNC], 0);
    CHECK_EQ(r->steps != NULL, flags == 0);
    ssa_result_free(r);
}

/* 8 steps of 10 ms; step 5 lasts 30 ms, 20 of them in a cudaStreamSynchronize: the one
 * outlier, +20 ms, made slow by sync (full mode) — compact mode names its largest category. */
static void test_outliers(void)
{
    const char *path = ss_test_path("outliers.sstrace");
    struct synth s;
    synth_open(&s, path);
    uint64_t t = T0;
    for (uint64_t k = 0; k < 8; k++) {
        uint64_t d = k == 5 ? 3 * STEP_NS : STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, t, k, TID);
        synth_kernel(&s, "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32", t, t + 4 * MS);
        if (k == 5) synth_api(&s, SST_API_RUNTIME, 131, t + 5 * MS, t + 25 * MS, TID);
        synth_step(&s, SST_STEP_END, t + d, k, TID);
        t += d;
    }
    synth_close(&s);
    for (unsigned flags = 0; flags <= SSA_COMPACT; flags += SSA_COMPACT) {
        struct ssa_opts o = {.window_ns = 0};
        struct ssa_result *r = NULL;
        CHECK_EQ(ssa_analyze_file_ex(path, &o, flags, &r), 0);
        REQUIRE(r != NULL);
        struct ssa_summary sum;
        ssa_summarize(r, &sum);
        struct ssa_outlier out[2];
        CHECK_EQ_U64(ssa_outliers(r, &sum, out, 2), 1);
        CHECK_EQ_U64(out[0].number, 5);
        CHECK_EQ_U64(out[0].over_median_ns, 2 * STEP_NS);
        CHECK_EQ(out[0].cat, SSA_CAT_SYNC);
        CHECK_EQ(out[0].excess, flags == 0);
        ssa_result_free(r);
    }
    for (unsigned flags = 0; flags <= SSA_COMPACT; flags += SSA_COMPACT)
        check_timelines(path, flags);
}

/* A kernel across a step boundary is split between the two steps; steps tile time. */
static void test_boundary_and_tiling(void)
{
    const char *path = ss_test_path("tile.sstrace");
    struct synth s;
    synth_open(&s, path);
    /* step ranges [0, 8) and [10, 18): the 2 ms gap belongs to step 0 (tiling) */
    synth_step(&s, SST_STEP_BEGIN, T0, 0, TID);
    synth_step(&s, SST_STEP_END, T0 + 8 * MS, 0, TID);
    synth_step(&s, SST_STEP_BEGIN, T0 + 10 * MS, 1, TID);
    synth_step(&s, SST_STEP_END, T0 + 18 * MS, 1, TID);
    synth_kernel(&s, "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEE",
                 T0 + 8 * MS, T0 + 12 * MS);
    synth_sync(&s, T0 + 12 * MS, T0 + 15 * MS);           /* no API records: SYNC records count */
    synth_step(&s, SST_STEP_BEGIN, T0 + 20 * MS, 2, TID); /* never ends: dropped */
    synth_close(&s);
    struct ssa_result *r = analyze(path, 1);
    REQUIRE(r->n_steps == 2);
    CHECK_EQ_U64(r->dropped_step_ranges, 1);
    CHECK_EQ_U64(r->steps[0].end_ns - r->steps[0].begin_ns, 10 * MS);
    CHECK_EQ_U64(r->steps[0].cat_ns[SSA_CAT_ELEMENTWISE], 2 * MS);
    CHECK_EQ_U64(r->steps[0].cat_ns[SSA_CAT_HOST], 8 * MS);
    CHECK_EQ_U64(r->steps[1].cat_ns[SSA_CAT_ELEMENTWISE], 2 * MS);
    CHECK_EQ_U64(r->steps[1].cat_ns[SSA_CAT_SYNC], 3 * MS);
    CHECK_EQ_U64(r->steps[1].cat_ns[SSA_CAT_HOST], 3 * MS);
    check_sum(&r->steps[0]);
    check_sum(&r->steps[1]);
    CHECK_EQ(r->steps[0].n.kernels, 1); /* counted once, where it started */
    CHECK_EQ(r->steps[1].n.kernels, 0);
    ssa_result_free(r);
}

/* Without STEP records: NVTX "step" ranges, then ProfilerStep#N, then nothing. */
static void test_step_sources(void)
{
    const char *path = ss_test_path("nvtx.sstrace");
    struct synth s;
    synth_open(&s, path);
    uint32_t other = sst_writer_intern_cstr(s.w, "other-domain");
    for (uint64_t k = 0; k < 3; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_nvtx(&s, SST_REC_NVTX_PUSH, o, TID, s.domain, s.step_msg, 1, 40 + k);
        /* "data" in a foreign domain is not stepscope's data range */
        synth_nvtx(&s, SST_REC_NVTX_PUSH, o, TID, other, s.data_msg, 0, 0);
        synth_nvtx(&s, SST_REC_NVTX_POP, o + MS, TID, other, 0, 0, 0);
        synth_nvtx(&s, SST_REC_NVTX_POP, o + STEP_NS, TID, s.domain, 0, 0, 0);
    }
    synth_close(&s);
    struct ssa_result *r = analyze(path, 1);
    CHECK_EQ(r->step_source, SSA_STEPS_NVTX);
    REQUIRE(r->n_steps == 3);
    CHECK_EQ_U64(r->steps[2].number, 42);
    CHECK_EQ_U64(r->steps[0].cat_ns[SSA_CAT_DATA], 0);
    CHECK_EQ_U64(r->steps[0].cat_ns[SSA_CAT_HOST], STEP_NS);
    ssa_result_free(r);

    path = ss_test_path("prof.sstrace");
    synth_open(&s, path);
    for (uint64_t k = 0; k < 3; k++) {
        char name[32];
        snprintf(name, sizeof name, "ProfilerStep#%" PRIu64, 7 + k);
        uint32_t msg = sst_writer_intern_cstr(s.w, name);
        synth_nvtx(&s, SST_REC_NVTX_PUSH, T0 + k * STEP_NS, TID, 0, msg, 0, 0);
        synth_nvtx(&s, SST_REC_NVTX_POP, T0 + (k + 1) * STEP_NS, TID, 0, 0, 0, 0);
    }
    synth_close(&s);
    r = analyze(path, 1);
    CHECK_EQ(r->step_source, SSA_STEPS_PROFILER);
    REQUIRE(r->n_steps == 3);
    CHECK_EQ_U64(r->steps[0].number, 7);
    ssa_result_free(r);

    path = ss_test_path("none.sstrace");
    synth_open(&s, path);
    for (uint64_t k = 0; k < 50; k++) { /* thread 300 launches most: the training thread */
        uint64_t o = T0 + k * 20 * MS;
        synth_api(&s, SST_API_RUNTIME, 211, o, o + 1 * MS, 300);
        synth_kernel(&s, "sm90_xmma_dgrad_implicit_gemm_bf16bf16", o + MS, o + 5 * MS);
        if (k % 10 == 0) synth_api(&s, SST_API_DRIVER, 307, o + 6 * MS, o + 7 * MS, 301);
    }
    synth_close(&s);
    r = analyze(path, 0);
    /* one kernel every 20 ms: detected from its period (test_period covers the aperiodic
     * whole-trace case); the last, partial period is not a step */
    CHECK_EQ(r->step_source, SSA_STEPS_DETECTED);
    CHECK_EQ(r->train_tid, 300);
    uint64_t total = 0, busy = 0;
    for (size_t i = 0; i < r->n_steps; i++) {
        check_sum(&r->steps[i]);
        total += r->steps[i].end_ns - r->steps[i].begin_ns;
        busy += r->steps[i].cat_ns[SSA_CAT_GEMM_TC];
    }
    CHECK_EQ((int)r->n_steps, 49);
    CHECK_EQ_U64(total, 49 * 20 * MS);
    CHECK_EQ_U64(busy, 49 * 4 * MS);
    ssa_result_free(r);
}

/* PyTorch's backward() launches from the autograd engine's thread while the main thread
 * waits (in no CUDA call): the GPU idle time is blamed on the state of every host thread.
 * Per 10 ms step, main thread 100, autograd thread 101, pin-memory thread 102:
 *   [0, 2)  data range on thread 102, thread 101 launching at [1, 1.5)   -> data 2 ms
 *   [2, 3)  thread 101 in cudaLaunchKernel                               -> launch 1 ms
 *   [3, 4)  kernel                                                       -> elementwise 1 ms
 *   [4, 6)  thread 101 launching [4, 6), thread 100 in a sync [5, 6)     -> launch 1, sync 1
 *   [6, 7)  thread 101 in cudaFree, thread 100 launching                 -> alloc 1 ms
 *   [7, 10) nothing                                                      -> host 3 ms */
static void test_threads(void)
{
    const char *path = ss_test_path("threads.sstrace");
    struct synth s;
    synth_open(&s, path);
    for (uint64_t k = 0; k < 4; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, 100);
        synth_nvtx(&s, SST_REC_NVTX_PUSH, o, 102, s.domain, s.data_msg, 0, 0);
        synth_api(&s, SST_API_RUNTIME, 211, o + 1000 * US, o + 1500 * US, 101);
        synth_nvtx(&s, SST_REC_NVTX_POP, o + 2 * MS, 102, s.domain, 0, 0, 0);
        synth_api(&s, SST_API_RUNTIME, 211, o + 2 * MS, o + 3 * MS, 101);
        synth_kernel(&s, "_ZN2at6native29vectorized_elementwise_kernelILi4E", o + 3 * MS,
                     o + 4 * MS);
        synth_api(&s, SST_API_RUNTIME, 211, o + 4 * MS, o + 6 * MS, 101);
        synth_api(&s, SST_API_RUNTIME, 131, o + 5 * MS, o + 6 * MS, 100);
        synth_api(&s, SST_API_RUNTIME, 22, o + 6 * MS, o + 7 * MS, 101);
        synth_api(&s, SST_API_RUNTIME, 211, o + 6 * MS, o + 7 * MS, 100);
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, 100);
    }
    synth_close(&s);
    struct ssa_result *r = analyze(path, 1);
    CHECK_EQ(r->train_tid, 100);
    REQUIRE(r->n_steps == 4);
    for (size_t i = 0; i < r->n_steps; i++) {
        const struct ssa_step *st = &r->steps[i];
        check_sum(st);
        CHECK_EQ_U64(st->cat_ns[SSA_CAT_DATA], 2 * MS);
        CHECK_EQ_U64(st->cat_ns[SSA_CAT_LAUNCH], 2 * MS);
        CHECK_EQ_U64(st->cat_ns[SSA_CAT_ELEMENTWISE], 1 * MS);
        CHECK_EQ_U64(st->cat_ns[SSA_CAT_SYNC], 1 * MS);
        CHECK_EQ_U64(st->cat_ns[SSA_CAT_ALLOC], 1 * MS);
        CHECK_EQ_U64(st->cat_ns[SSA_CAT_HOST], 3 * MS);
        CHECK_EQ(st->n.launches, 4); /* from both threads */
        CHECK_EQ(st->n.syncs, 1);
        CHECK_EQ(st->n.allocs, 1);
        CHECK_EQ(st->n.data_ranges, 1);
    }
    ssa_result_free(r);
}

int main(void)
{
    test_exact_breakdown();
    test_threads();
    test_warmup();
    test_queue_fill();
    test_not_a_fill();
    test_step_marker();
    test_outliers();
    test_boundary_and_tiling();
    test_step_sources();
    return ss_test_result();
}
