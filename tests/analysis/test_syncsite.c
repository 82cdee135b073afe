/*
 * test_syncsite.c — where the synchronising calls were issued (PY_CALL records joined to their
 * API records, src/analysis/ssa_syncsite.c) on a synthetic trace whose answer is known.
 *
 * 20 steps of 10 ms on the training thread, the first 60 ms long (warm-up). Each steady step: a
 * kernel [0, 7) ms and one cudaStreamSynchronize, so the GPU idles [7, 10): 1 ms of `sync` (the
 * host still in the call until 8 ms), 2 ms of `host`. Even steps sync from log_loss:68 for 3 ms
 * ([5, 8)), odd ones from evaluate:90 for 1 ms ([7, 8)). The 1 kHz samples land at 0.5, 1.5 ...
 * ms, all in train:30 — also the one in the sync (a late tick would look so): by samples, the
 * sync's line is unknown. Each call has a PY_CALL 0.2 ms after it began, written before its API
 * record in odd steps and after it in even ones (the two come from different threads' buffers).
 * Planted to be left out: step 3's PY_CALL taken after its call returned, the warm-up step's,
 * one in a sync of another thread, one whose correlation id has no API record.
 * Expected, over the 19 steady steps: log_loss 9 calls (k = 2..18), 27 ms blocked; evaluate 9
 * (k = 1..19 but 3), 9 ms: the sync category's 1 ms/step shared 0.75 / 0.25.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/ssa.h"
#include "synth.h"

#define TID 100
#define OTHER 300
#define N_STEPS 20
#define WARM_NS (60 * MS)
#define STEP_NS (10 * MS)
#define CORR_ORPHAN 999999u

enum { F_MODULE = 1, F_TRAIN30, F_LOG, F_EVAL, F_SYNC };
enum { S_TRAIN = 1, S_LOG, S_EVAL };

static void tables(struct synth *s)
{
    synth_env(s, "pyshim.host_samples_hz", "1000");
    synth_pyframe(s, F_MODULE, "<module>", "/home/u/train.py", 100);
    synth_pyframe(s, F_TRAIN30, "train", "/home/u/train.py", 30);
    synth_pyframe(s, F_LOG, "log_loss", "/home/u/train.py", 68);
    synth_pyframe(s, F_EVAL, "evaluate", "/home/u/train.py", 90);
    synth_pyframe(s, F_SYNC, "Tensor.item", "/v/lib/python3.12/site-packages/torch/_tensor.py", 9);
    static const uint32_t train[] = {F_TRAIN30, F_MODULE}, log[] = {F_SYNC, F_LOG, F_MODULE},
                          eval[] = {F_EVAL, F_MODULE};
    synth_pystack(s, S_TRAIN, train, 2);
    synth_pystack(s, S_LOG, log, 3);
    synth_pystack(s, S_EVAL, eval, 2);
}

static void py_call(struct synth *s, uint32_t tid, uint64_t ts, uint32_t stack, uint32_t corr)
{
    struct sst_rec_py_call *r = sst_writer_reserve(s->w, SST_REC_PY_CALL, sizeof *r);
    REQUIRE(r);
    r->tid = tid, r->ts_ns = ts, r->stack = stack, r->correlation = corr;
}

static void sync_call(struct synth *s, uint64_t t0, uint64_t t1, uint32_t corr)
{
    struct sst_rec_api *r = sst_writer_reserve(s->w, SST_REC_API, sizeof *r);
    REQUIRE(r);
    r->domain = SST_API_RUNTIME, r->cbid = 131; /* cudaStreamSynchronize_v3020 */
    r->start_ns = t0, r->end_ns = t1, r->tid = TID, r->correlation = corr;
}

/* A sync on a thread whose samples do not count (not the training thread), caught in its
 * call: left out. During the kernel, so the categories do not change. */
static void other_sync(struct synth *s, uint64_t o)
{
    struct sst_rec_api *r = sst_writer_reserve(s->w, SST_REC_API, sizeof *r);
    REQUIRE(r);
    r->domain = SST_API_RUNTIME, r->cbid = 131;
    r->start_ns = o + 6 * MS, r->end_ns = o + 6 * MS + 900 * US, r->tid = OTHER;
    r->correlation = 4242;
    py_call(s, OTHER, o + 6 * MS + 300 * US, S_LOG, 4242);
}

static uint64_t step_begin(uint64_t k)
{
    return k ? T0 + WARM_NS + (k - 1) * STEP_NS : T0;
}

/* Step k's sync and its PY_CALL, in the order their threads' buffers would give. */
static void step_sync(struct synth *s, uint64_t k, uint64_t o)
{
    int even = k % 2 == 0;
    uint64_t t0 = o + (even ? 5 : 7) * MS, t1 = o + 8 * MS;
    uint32_t corr = (uint32_t)(10 * k + 1);
    uint64_t snap = k == 3 ? t1 + 500 * US : t0 + 200 * US; /* step 3: after it returned */
    if (even) sync_call(s, t0, t1, corr);
    py_call(s, TID, snap, even ? S_LOG : S_EVAL, corr);
    if (!even) sync_call(s, t0, t1, corr);
}

static void host_step(struct synth *s, uint64_t k)
{
    uint64_t o = step_begin(k), end = k ? o + STEP_NS : o + WARM_NS;
    /* as the public markers write a step: a STEP record and an NVTX "step" range */
    synth_step(s, SST_STEP_BEGIN, o, k, TID);
    synth_nvtx(s, SST_REC_NVTX_PUSH, o, TID, s->domain, s->step_msg, 1, k);
    synth_kernel(s, "elementwise_kernel", o, o + 7 * MS);
    step_sync(s, k, o);
    for (uint64_t j = 0; j < (end - o) / MS; j++)
        synth_pysample(s, TID, o + j * MS + 500 * US, S_TRAIN);
    if (k == 4) other_sync(s, o); /* another thread's: its samples do not count */
    synth_nvtx(s, SST_REC_NVTX_POP, end, TID, s->domain, 0, 0, 0);
    synth_step(s, SST_STEP_END, end, k, TID);
}

static void write_trace(const char *path)
{
    struct synth s;
    synth_open(&s, path);
    tables(&s);
    py_call(&s, TID, T0 + MS, S_LOG, CORR_ORPHAN); /* no API record has its id */
    for (uint64_t k = 0; k < N_STEPS; k++)
        host_step(&s, k);
    synth_close(&s);
}

static void check_near(double got, double want)
{
    if (fabs(got - want) > 1e-6) SS_FAIL_AT("got %.9f, want %.9f", got, want);
}

static void check_sites(const struct ssa_result *r)
{
    struct ssa_summary s;
    ssa_summarize(r, &s);
    CHECK_EQ(s.steps, N_STEPS - 1);
    check_near(s.cat_ms[SSA_CAT_SYNC], 1.0);
    CHECK_EQ_U64(r->host.sync_calls, N_STEPS + 2);
    CHECK_EQ_U64(r->host.sync_calls_used, 18);
    struct ssa_hotspot h[4];
    REQUIRE(ssa_host_hotspots(r, &s, SSA_CAT_BIT(SSA_CAT_SYNC), h, 4) == 2);
    CHECK_STR(h[0].frame->function, "log_loss");
    CHECK_EQ(h[0].frame->line, 68);
    CHECK_STR(h[0].lib ? h[0].lib->function : "-", "Tensor.item");
    check_near(h[0].ms_per_step, 0.75);
    CHECK_EQ_U64(h[0].sync_calls, 9);
    CHECK_EQ_U64(h[0].samples, 9);
    CHECK_STR(h[1].frame->function, "evaluate");
    check_near(h[1].ms_per_step, 0.25);
    CHECK_EQ_U64(h[1].sync_calls, 9);
    /* the other categories stay the samples': host is train:30, 2 ms */
    REQUIRE(ssa_host_hotspots(r, &s, SSA_CAT_BIT(SSA_CAT_HOST), h, 4) == 1);
    CHECK_STR(h[0].frame->function, "train");
    check_near(h[0].ms_per_step, 2.0);
    CHECK_EQ_U64(h[0].sync_calls, 0);
}

static void test_sites(const char *path)
{
    for (unsigned flags = 0; flags <= SSA_COMPACT; flags += SSA_COMPACT) {
        struct ssa_opts o = {0};
        struct ssa_result *r = NULL;
        CHECK_EQ(ssa_analyze_file_ex(path, &o, flags, &r), 0);
        REQUIRE(r != NULL);
        check_sites(r);
        ssa_result_free(r);
    }
}

/* ---- allocator churn (issue #28): the free is the cause, the allocation its victim ----
 *
 * 12 steps of 10 ms after a 60 ms warm-up. Each step: a kernel [0, 6) ms; cudaFree from the line
 * that empties the cache (step_fn:55, under torch.cuda.empty_cache) [6, 7); cudaMalloc from the
 * forward line (step_fn:50, under Module.__call__) [7, 8.5); a kernel [8.5, 10). Every call has
 * its PY_CALL; the samples all land on backward (step_fn:52), as a late GIL sampler's would.
 * Expected: alloc 2.5 ms/step, all of it named at the empty_cache line (the frees' site), none
 * at the forward line. Without the frees (growth: `frees` 0) the allocations are the cause. */

enum { F_STEP_FWD = 10, F_STEP_BWD, F_STEP_EMPTY, F_EMPTY_CACHE, F_CALL };
enum { S_FWD = 10, S_BWD, S_EMPTY };
#define ALLOC_STEPS 12

static void alloc_tables(struct synth *s)
{
    synth_env(s, "pyshim.host_samples_hz", "1000");
    synth_pyframe(s, F_MODULE, "<module>", "/home/u/train.py", 100);
    synth_pyframe(s, F_STEP_FWD, "step_fn", "/home/u/train.py", 50);
    synth_pyframe(s, F_STEP_BWD, "step_fn", "/home/u/train.py", 52);
    synth_pyframe(s, F_STEP_EMPTY, "step_fn", "/home/u/train.py", 55);
    synth_pyframe(s, F_EMPTY_CACHE, "empty_cache",
                  "/v/lib/python3.12/site-packages/torch/cuda/memory.py", 222);
    synth_pyframe(s, F_CALL, "Module._call_impl",
                  "/v/lib/python3.12/site-packages/torch/nn/modules/module.py", 1784);
    static const uint32_t fwd[] = {F_CALL, F_STEP_FWD, F_MODULE},
                          bwd[] = {F_STEP_BWD, F_MODULE},
                          empty[] = {F_EMPTY_CACHE, F_STEP_EMPTY, F_MODULE};
    synth_pystack(s, S_FWD, fwd, 3);
    synth_pystack(s, S_BWD, bwd, 2);
    synth_pystack(s, S_EMPTY, empty, 3);
}

static void api_call(struct synth *s, uint32_t cbid, uint64_t t0, uint64_t t1, uint32_t corr,
                     uint32_t stack)
{
    struct sst_rec_api *r = sst_writer_reserve(s->w, SST_REC_API, sizeof *r);
    REQUIRE(r);
    r->domain = SST_API_RUNTIME, r->cbid = cbid, r->start_ns = t0, r->end_ns = t1;
    r->tid = TID, r->correlation = corr;
    py_call(s, TID, t1, stack, corr); /* at the call's exit, as the native reader takes it */
}

static void alloc_step(struct synth *s, uint64_t k, int frees)
{
    uint64_t o = step_begin(k), end = k ? o + STEP_NS : o + WARM_NS;
    synth_step(s, SST_STEP_BEGIN, o, k, TID);
    synth_nvtx(s, SST_REC_NVTX_PUSH, o, TID, s->domain, s->step_msg, 1, k);
    synth_kernel(s, "elementwise_kernel", o, o + 6 * MS);
    if (frees) api_call(s, 22, o + 6 * MS, o + 7 * MS, (uint32_t)(10 * k + 1), S_EMPTY);
    api_call(s, 20, o + 7 * MS, o + 8500 * US, (uint32_t)(10 * k + 2), S_FWD);
    synth_kernel(s, "elementwise_kernel", o + 8500 * US, end);
    for (uint64_t j = 0; j < (end - o) / MS; j++)
        synth_pysample(s, TID, o + j * MS + 500 * US, S_BWD);
    synth_nvtx(s, SST_REC_NVTX_POP, end, TID, s->domain, 0, 0, 0);
    synth_step(s, SST_STEP_END, end, k, TID);
}

static void check_alloc(const char *path, int frees)
{
    struct synth s;
    synth_open(&s, path);
    alloc_tables(&s);
    for (uint64_t k = 0; k < ALLOC_STEPS; k++)
        alloc_step(&s, k, frees);
    synth_close(&s);
    struct ssa_opts o = {0};
    struct ssa_result *r = NULL;
    REQUIRE(ssa_analyze_file(path, &o, &r) == 0 && r);
    struct ssa_summary sm;
    ssa_summarize(r, &sm);
    check_near(sm.cat_ms[SSA_CAT_ALLOC], frees ? 2.5 : 1.5);
    struct ssa_hotspot h[4];
    size_t n = ssa_host_hotspots(r, &sm, SSA_CAT_BIT(SSA_CAT_ALLOC), h, 4);
    REQUIRE(n == 1); /* one line carries the category */
    CHECK_EQ(h[0].frame->line, frees ? 55 : 50);
    CHECK_STR(h[0].lib ? h[0].lib->function : "-", frees ? "empty_cache" : "Module._call_impl");
    check_near(h[0].ms_per_step, frees ? 2.5 : 1.5);
    CHECK_EQ_U64(h[0].sync_calls, ALLOC_STEPS - 1);
    /* the flame graph and the folded export read the same cells: alloc's tower is that line */
    uint64_t alloc_ns = 0;
    for (size_t i = 0; i < r->host.n_flame; i++)
        if (r->host.flame[i].depth == 1 && r->host.flame[i].cat == SSA_CAT_ALLOC)
            alloc_ns = r->host.flame[i].ns;
    check_near((double)alloc_ns / 1e6 / (double)sm.steps, frees ? 2.5 : 1.5);
    ssa_result_free(r);
}

/* ana_test_syncsite FIXTURES_DIR: the trace written now, and the committed copy the golden
 * outputs and the fuzzers' seeds come from (tests/fixtures/synthetic-syncsite.sstrace).
 * ana_test_syncsite --write PATH: writes that copy. */
int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0) {
        write_trace(argv[2]);
        return 0;
    }
    const char *path = ss_test_path("syncsite.sstrace");
    write_trace(path);
    test_sites(path);
    check_alloc(ss_test_path("alloc-churn.sstrace"), 1);
    check_alloc(ss_test_path("alloc-growth.sstrace"), 0);
    if (argc > 1) {
        char fixture[1024];
        snprintf(fixture, sizeof fixture, "%s/synthetic-syncsite.sstrace", argv[1]);
        test_sites(fixture);
    }
    return ss_test_result();
}
