/*
 * test_host.c — Python stack samples in the analysis (issue #20) on a synthetic trace whose
 * answer is known: 20 steps of 10 ms, the first 60 ms long (warm-up). Each steady step: a data
 * range [0, 4) ms, a kernel [4, 6), a cudaStreamSynchronize [6, 8), host work [8, 10) with 200
 * launch calls of 1 ns each (every 10 us from 8.005 ms). The sampler runs at 1 kHz: samples at
 * 0.5, 1.5, ... 9.5 ms of each step on the training thread, none late, so each stands for
 * 1 ms: in data the stack collate <- train <- <module> (all user code), while the kernel runs
 * and in the sync Tensor.item (torch, library) <- train:20, in the host work train:25; the
 * autograd thread is sampled too, in a user hook once per step (in the sync), else without a
 * Python frame; a pin-memory thread once in the data (not counted); the warm-up step only a
 * "warm" frame. GPU records are written
 * 3 steps late, as CUPTI's buffers come.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/ssa.h"
#include "analysis/ssa_host.h"
#include "synth.h"

#define TID 100
#define AUTOGRAD 101
#define PIN 300
#define N_STEPS 20
#define WARM_NS (60 * MS)
#define STEP_NS (10 * MS)
#define LATE 3

enum { F_MODULE = 1, F_TRAIN20, F_TRAIN25, F_COLLATE, F_ITEM, F_HOOK, F_PIN, F_WARM };
enum { S_COLLATE = 1, S_ITEM, S_HOST, S_HOOK, S_PIN, S_WARM };

static void tables(struct synth *s)
{
    synth_env(s, "pyshim.host_samples_hz", "1000");
    synth_thread(s, AUTOGRAD, "pt_autograd_0");
    synth_thread(s, PIN, "pin_memory");
    synth_pyframe(s, F_MODULE, "<module>", "/home/u/train.py", 40);
    synth_pyframe(s, F_TRAIN20, "train", "/home/u/train.py", 20);
    synth_pyframe(s, F_TRAIN25, "train", "/home/u/train.py", 25);
    synth_pyframe(s, F_COLLATE, "collate", "/home/u/train.py", 5);
    synth_pyframe(s, F_ITEM, "Tensor.item", "/v/lib/python3.12/site-packages/torch/_tensor.py", 100);
    synth_pyframe(s, F_HOOK, "hook", "/home/u/train.py", 33);
    synth_pyframe(s, F_PIN, "pin", "/home/u/train.py", 60);
    synth_pyframe(s, F_WARM, "warm", "/home/u/train.py", 70);
    static const uint32_t collate[] = {F_COLLATE, F_TRAIN20, F_MODULE},
                          item[] = {F_ITEM, F_TRAIN20, F_MODULE}, host[] = {F_TRAIN25, F_MODULE},
                          hook[] = {F_HOOK}, pin[] = {F_PIN}, warm[] = {F_WARM, F_MODULE};
    synth_pystack(s, S_COLLATE, collate, 3);
    synth_pystack(s, S_ITEM, item, 3);
    synth_pystack(s, S_HOST, host, 2);
    synth_pystack(s, S_HOOK, hook, 1);
    synth_pystack(s, S_PIN, pin, 1);
    synth_pystack(s, S_WARM, warm, 2);
}

static uint64_t step_begin(uint64_t k)
{
    return k ? T0 + WARM_NS + (k - 1) * STEP_NS : T0;
}

static void host_step(struct synth *s, uint64_t k)
{
    uint64_t o = step_begin(k), end = k ? o + STEP_NS : o + WARM_NS;
    synth_step(s, SST_STEP_BEGIN, o, k, TID);
    synth_nvtx(s, SST_REC_NVTX_PUSH, o, TID, s->domain, s->data_msg, 0, 0);
    synth_nvtx(s, SST_REC_NVTX_POP, o + 4 * MS, TID, s->domain, 0, 0, 0);
    synth_api(s, SST_API_RUNTIME, 131, o + 6 * MS, o + 8 * MS, TID);
    for (uint64_t i = 0; k && i < 200; i++) {
        uint64_t t = o + 8 * MS + 5 * US + i * 10 * US;
        synth_api(s, SST_API_RUNTIME, 211, t, t + 1, TID);
    }
    for (uint64_t j = 0; j < (end - o) / MS; j++) {
        uint64_t t = o + j * MS + 500 * US;
        synth_pysample(s, TID, t, !k ? S_WARM : j < 4 ? S_COLLATE : j < 8 ? S_ITEM : S_HOST);
        if (k && j == 1) synth_pysample(s, PIN, t, S_PIN);
        if (k) synth_pysample(s, AUTOGRAD, t, j == 7 ? S_HOOK : 0); /* no Python frame but in a hook */
    }
    synth_step(s, SST_STEP_END, end, k, TID);
}

static void write_trace(const char *path)
{
    struct synth s;
    synth_open(&s, path);
    tables(&s);
    for (uint64_t k = 0; k < N_STEPS + LATE; k++) {
        if (k < N_STEPS) host_step(&s, k);
        if (k >= LATE && k - LATE > 0)
            synth_kernel(&s, "elementwise_kernel", step_begin(k - LATE) + 4 * MS,
                         step_begin(k - LATE) + 6 * MS);
    }
    synth_close(&s);
}

static struct ssa_result *analyze(const char *path, unsigned flags, double rec_us)
{
    struct ssa_opts o = {.rec_cost_given = rec_us > 0, .rec_cost_us = rec_us};
    struct ssa_result *r = NULL;
    CHECK_EQ(ssa_analyze_file_ex(path, &o, flags, &r), 0);
    REQUIRE(r != NULL);
    return r;
}

static void check_near(double got, double want)
{
    if (fabs(got - want) > 1e-6) SS_FAIL_AT("got %.9f, want %.9f", got, want);
}

/* The hotspots of one category: their count, and the first one's function, line, library
 * frame (NULL: none) and ms/step. */
static void check_top(const struct ssa_result *r, const struct ssa_summary *s, int cat, size_t n,
                      const char *fn, uint32_t line, const char *lib, double ms)
{
    struct ssa_hotspot h[4];
    size_t got = ssa_host_hotspots(r, s, SSA_CAT_BIT(cat), h, 4);
    CHECK_EQ(got, n);
    if (!got) return;
    CHECK_STR(h[0].frame->function, fn);
    CHECK_EQ(h[0].frame->line, line);
    CHECK_STR(h[0].lib ? h[0].lib->function : "-", lib ? lib : "-");
    check_near(h[0].ms_per_step, ms);
}

static void check_result(const struct ssa_result *r, double rec_us)
{
    struct ssa_summary s;
    ssa_summarize(r, &s);
    CHECK_EQ(s.steps, N_STEPS - 1); /* the 60 ms step is warm-up */
    CHECK_EQ_U64(r->host.samples, 21 * (N_STEPS - 1) + 60);
    /* counted: the training thread's 10 and the autograd thread's 1, per steady step */
    CHECK_EQ_U64(r->host.counted, 11 * (N_STEPS - 1));
    check_top(r, &s, SSA_CAT_DATA, 1, "collate", 5, NULL, 4.0);
    check_top(r, &s, SSA_CAT_SYNC, 2, "train", 20, "Tensor.item", 2.0);
    /* the kernel's 2 ms: GPU busy, in no idle category */
    check_top(r, &s, SSA_CAT_ELEMENTWISE, 1, "train", 20, "Tensor.item", 2.0);
    /* host: 200 launches in 2 ms, each priced at rec_us */
    check_top(r, &s, SSA_CAT_HOST, 1, "train", 25, NULL, 2.0 - 200 * rec_us / 1e3);
    struct ssa_hotspot h[4];
    CHECK_EQ(ssa_host_hotspots(r, &s, SSA_IDLE_CATS, h, 4), 4);
    for (size_t i = 0; i < 4; i++)
        CHECK(strcmp(h[i].frame->function, "warm") != 0 && strcmp(h[i].frame->function, "pin"));
}

/* The flame graph: the root holds every GPU-idle sample's time, each node its subtree's. */
static void check_flame(const struct ssa_result *r)
{
    const struct ssa_host *h = &r->host;
    REQUIRE(h->n_flame > 0);
    CHECK_EQ_U64(h->flame[0].ns, (uint64_t)(N_STEPS - 1) * 9 * MS); /* data 4, sync 3, host 2 */
    CHECK_EQ(h->flame[0].subtree, h->n_flame);
    CHECK_EQ(h->flame[1].cat, SSA_CAT_DATA); /* the largest category first */
    CHECK_EQ_U64(h->flame[1].ns, (uint64_t)(N_STEPS - 1) * 4 * MS);
    for (size_t i = 1; i < h->n_flame; i++)
        CHECK(h->flame[i].depth >= 1 && h->flame[i].ns <= h->flame[0].ns);
}

static void test_attribution(void)
{
    const char *path = ss_test_path("host.sstrace");
    write_trace(path);
    for (unsigned flags = 0; flags <= SSA_COMPACT; flags += SSA_COMPACT) {
        struct ssa_result *r = analyze(path, flags, 0);
        check_result(r, 0);
        check_flame(r);
        ssa_result_free(r);
        r = analyze(path, flags, 5.0); /* 200 launches x 5 us: 1 ms/step of host */
        check_result(r, 5.0);
        ssa_result_free(r);
    }

}

/* Which files are the user's. */
static void test_kinds(void)
{
    CHECK_EQ(ssa_pyframe_kind_of("/home/u/train.py"), SSA_PYF_USER);
    CHECK_EQ(ssa_pyframe_kind_of("/v/lib/python3.12/site-packages/timm/x.py"), SSA_PYF_LIBRARY);
    CHECK_EQ(ssa_pyframe_kind_of("/src/transformers/src/transformers/trainer.py"),
             SSA_PYF_LIBRARY);
    CHECK_EQ(ssa_pyframe_kind_of("/usr/lib/python3.12/threading.py"), SSA_PYF_STDLIB);
    CHECK_EQ(ssa_pyframe_kind_of("<frozen importlib._bootstrap>"), SSA_PYF_STDLIB);
    CHECK_EQ(ssa_pyframe_kind_of("/tmp/torchinductor_root/ab/cab.py"), SSA_PYF_LIBRARY);
    CHECK_EQ(ssa_pyframe_kind_of("/home/u/python3.12/train.py"), SSA_PYF_USER);
}

/* A trace without samples keeps an empty host part. */
static void test_no_samples(void)
{
    const char *path = ss_test_path("host_none.sstrace");
    struct synth s;
    synth_open(&s, path);
    for (uint64_t k = 0; k < 5; k++) {
        synth_step(&s, SST_STEP_BEGIN, T0 + k * STEP_NS, k, TID);
        synth_kernel(&s, "k", T0 + k * STEP_NS, T0 + k * STEP_NS + MS);
        synth_step(&s, SST_STEP_END, T0 + (k + 1) * STEP_NS, k, TID);
    }
    synth_close(&s);
    struct ssa_result *r = analyze(path, 0, 0);
    struct ssa_summary sm;
    struct ssa_hotspot h[2];
    ssa_summarize(r, &sm);
    CHECK_EQ_U64(r->host.samples, 0);
    CHECK_EQ(r->host.n_cells, 0);
    CHECK_EQ(ssa_host_hotspots(r, &sm, SSA_IDLE_CATS, h, 2), 0);
    ssa_result_free(r);

}

/* More distinct frames than SSA_PY_MAX_FRAMES: the ones past the cap become the one "?" frame
 * and the trace still analyses (it once failed as out of memory: the "?" frame was capped too). */
static void test_frame_cap(void)
{
    const char *path = ss_test_path("host_frames.sstrace");
    struct synth s;
    synth_open(&s, path);
    synth_env(&s, "pyshim.host_samples_hz", "1000");
    for (uint32_t i = 1; i <= SSA_PY_MAX_FRAMES + 2; i++)
        synth_pyframe(&s, i, "f", "/home/u/train.py", i + 1);
    const uint32_t last[] = {SSA_PY_MAX_FRAMES + 2, 1};
    synth_pystack(&s, 1, last, 2);
    for (uint64_t k = 0; k < 4; k++) {
        synth_step(&s, SST_STEP_BEGIN, T0 + k * STEP_NS, k, TID);
        synth_pysample(&s, TID, T0 + k * STEP_NS + MS, 1);
        synth_kernel(&s, "k", T0 + k * STEP_NS + 5 * MS, T0 + k * STEP_NS + 6 * MS);
        synth_step(&s, SST_STEP_END, T0 + (k + 1) * STEP_NS, k, TID);
    }
    synth_close(&s);
    struct ssa_result *r = analyze(path, 0, 0);
    CHECK(r->host.samples > 0);
    ssa_result_free(r);
}

/* The sampling rate from ENV pyshim.host_samples_hz: a hostile one (1e-300 would make an
 * interval beyond what u64 ns hold, a conversion UBSan stops at) reads as none. */
static void test_rate_bounds(void)
{
    static const struct {
        const char *v;
        double hz;
    } rows[] = {{"100", 100}, {"0.5", 0.5}, {"1e-300", 0}, {"0", 0}, {"-5", 0}, {"2e6", 0},
                {"x", 0}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct ssa_env_record e = {0};
        const char *k = "pyshim.host_samples_hz";
        CHECK_EQ(ssa_env_record_add(&e, k, strlen(k), rows[i].v, strlen(rows[i].v)), 0);
        CHECK(ssa_py_rate_hz(&e) == rows[i].hz);
        ssa_env_record_free(&e);
    }
}

/* The native sampler ticks at a fifth of its rate between GPU windows (issue #43) and says each
 * change in a CAPTURE record before the samples it covers. A sample stands for the time to the
 * thread's next one, capped at two mean intervals of the slower rate of its own and the next
 * one's: at 20 Hz a 50 ms gap counts whole (under the 100 Hz cap it counted 20 ms), also the
 * gap that ends at the full rate's first sample; at 100 Hz a 60 ms gap (the thread was out of
 * Python) still counts 20 ms. */
struct weighed {
    uint64_t ns[8]; /* by the sample's order */
    size_t n;
};

static void weigh(void *ctx, const struct ssa_pysample *ps)
{
    struct weighed *w = ctx;
    if (w->n < 8) w->ns[w->n++] = ps->weight_ns;
}

static void synth_rate(struct synth *s, uint64_t ts, uint8_t reason)
{
    struct sst_rec_capture *c = sst_writer_reserve(s->w, SST_REC_CAPTURE, sizeof *c);
    REQUIRE(c);
    c->on = 1, c->reason = reason, c->what = SST_CAPTURE_PY_STACKS, c->ts_ns = ts;
}

static void weigh_trace(const char *path, const char *outside_hz, struct weighed *w)
{
    struct synth s;
    synth_open(&s, path);
    synth_env(&s, "pyshim.host_samples_hz", "100");
    if (outside_hz) synth_env(&s, "pyshim.host_samples_outside_hz", outside_hz);
    synth_pyframe(&s, 1, "train", "/home/u/train.py", 20);
    const uint32_t one[] = {1};
    synth_pystack(&s, 1, one, 1);
    static const uint64_t at_ms[] = {0, 50, 100, 110, 170, 180};
    synth_rate(&s, T0, SST_CAP_SLOW);
    for (size_t i = 0; i < 6; i++) {
        if (at_ms[i] == 100) synth_rate(&s, T0 + 100 * MS, SST_CAP_FULL);
        synth_pysample(&s, TID, T0 + at_ms[i] * MS, 1);
    }
    synth_close(&s);
    struct sst_reader *r;
    struct ssa_env_record env = {0};
    const char *k = "pyshim.host_samples_outside_hz";
    if (outside_hz)
        CHECK_EQ(ssa_env_record_add(&env, k, strlen(k), outside_hz, strlen(outside_hz)), 0);
    struct ssa_pyrate rate = ssa_py_rate(&env);
    rate.hz = 100;
    struct ssa_pystream *p;
    REQUIRE(ssa_pystream_new(rate, &p) == 0);
    REQUIRE(sst_reader_open(path, NULL, &r) == 0);
    const struct sst_rec_header *h;
    memset(w, 0, sizeof *w);
    while (sst_reader_next(r, &h) == 1)
        CHECK_EQ(ssa_pystream_feed(p, r, h, weigh, w), 0);
    ssa_pystream_flush(p, weigh, w);
    sst_reader_close(r);
    ssa_pystream_free(p);
    ssa_env_record_free(&env);
}

static void test_outside_rate(void)
{
    struct weighed w;
    weigh_trace(ss_test_path("host_rate.sstrace"), "20", &w);
    REQUIRE(w.n == 6);
    CHECK_EQ_U64(w.ns[0], 50 * MS); /* 20 Hz: a 50 ms gap counts whole */
    CHECK_EQ_U64(w.ns[1], 50 * MS); /* the gap that ends at the full rate's first sample */
    CHECK_EQ_U64(w.ns[2], 10 * MS);
    CHECK_EQ_U64(w.ns[3], 20 * MS); /* 60 ms at 100 Hz: capped at two 10 ms intervals */
    CHECK_EQ_U64(w.ns[4], 10 * MS);
    CHECK_EQ_U64(w.ns[5], 10 * MS); /* the last: one mean interval of the rate in effect */
    weigh_trace(ss_test_path("host_rate_old.sstrace"), NULL, &w); /* no outside rate said */
    REQUIRE(w.n == 6);
    CHECK_EQ_U64(w.ns[0], 20 * MS); /* one rate, as every trace before: the 100 Hz cap */
    CHECK_EQ_U64(w.ns[1], 20 * MS);
}

int main(void)
{
    test_rate_bounds();
    test_outside_rate();
    test_attribution();
    test_kinds();
    test_no_samples();
    test_frame_cap();
    return ss_test_result();
}
