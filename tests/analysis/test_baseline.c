/*
 * test_baseline.c — the recording's own cost measured against the steps --capture auto left
 * unrecorded (ssa_capture.c judge_baseline, ssa_steps.c rec_measured), issue #39: only steady
 * steps are a baseline, and the value said is never outside its own range.
 *
 * A loop of 40 steps whose window (ENV collector.window steps:8-107, CAPTURE window on at step
 * 8's begin) records steps 8-39 at 10.5 ms; steps 0-7 run unrecorded at a chosen pace:
 *   steady    10.0 ms: measured, 0.5 ms, inside its range
 *   warm-up   100 ms (the allocator and cuDNN still settling): no baseline, the estimate says
 *             why ("unsteady", 5 steps at 100 ms against 10.5)
 *   faster    11.0 ms (the host's speed drifted: the recorded steps run faster): no baseline,
 *             "slower"
 *   one slow  10.0 ms but step 5 at 60 ms (a stall): that step is left out, measured on the
 *             other four
 *   noisy     6 and 14 ms in turn: a measure less precise than the calibration, not used
 * and a run of 200 steps with two windows (steps 8-27 and 120-139, as --capture every: or
 * auto's re-window leave them) whose pace changed in between: 6 ms unrecorded (6.5 recorded)
 * until step 100, 14 ms (14.5) after: each window is held to the steps beside it, 0.5 ms, not
 * to all of them (pooled: 10.5 against 6, a cost of ~4 ms).
 * Usage: test_baseline FIXTURE_DIR (unused)
 */
#include <math.h>
#include <stdio.h>

#include "analysis/ssa.h"
#include "synth.h"

#define TID 5
#define STEPS 40
#define WINDOW_FROM 8
#define RECORDED (10500 * US)
#define KERNEL (2 * MS)

struct pace {
    const char *name;
    uint64_t before; /* an unrecorded step */
    int slow_step;   /* this one runs 60 ms (-1: none) */
    uint64_t swing;  /* unrecorded steps alternate before - swing and before + swing */
};

static uint64_t step_ns(const struct pace *p, uint64_t st)
{
    if (st >= WINDOW_FROM) return RECORDED + (st % 3) * 20 * US; /* a little spread */
    if ((int)st == p->slow_step) return 60 * MS;
    return st % 2 ? p->before + p->swing : p->before - p->swing;
}

static void capture(struct synth *s, uint64_t ts, int on, uint8_t reason)
{
    struct sst_rec_capture *c = sst_writer_reserve(s->w, SST_REC_CAPTURE, sizeof *c);
    REQUIRE(c);
    c->on = (uint8_t)on, c->reason = reason, c->what = SST_CAPTURE_GPU, c->ts_ns = ts;
}

/* A recorded step: two launches and their kernels. */
static void recorded_work(struct synth *s, uint64_t b, uint32_t *corr)
{
    for (int i = 0; i < 2; i++, (*corr)++) {
        uint64_t t = b + 100 * US + (uint64_t)i * 4 * MS;
        struct sst_rec_api *a = sst_writer_reserve(s->w, SST_REC_API, sizeof *a);
        REQUIRE(a);
        a->domain = SST_API_RUNTIME, a->cbid = 211, a->tid = TID, a->correlation = *corr;
        a->start_ns = t, a->end_ns = t + 10 * US;
        struct sst_rec_kernel *k = sst_writer_reserve(s->w, SST_REC_KERNEL, sizeof *k);
        REQUIRE(k);
        k->name = sst_writer_intern_cstr(s->w, "gemm_like"), k->start_ns = t + 20 * US;
        k->end_ns = k->start_ns + KERNEL, k->correlation = *corr, k->stream = 7;
    }
}

static void write_trace(const char *path, const struct pace *p)
{
    struct synth s;
    synth_open(&s, path);
    synth_env(&s, "collector.mode", "full");
    synth_env(&s, "collector.capture", "auto");
    synth_env(&s, "collector.window", "steps:8-107");
    capture(&s, T0, 1, SST_CAP_START);
    uint64_t b = T0 + MS;
    uint32_t corr = 1;
    for (uint64_t st = 0; st < STEPS; b += step_ns(p, st), st++) {
        synth_step(&s, SST_STEP_BEGIN, b, st, TID);
        if (st == WINDOW_FROM) capture(&s, b + 2 * US, 1, SST_CAP_WINDOW);
        if (st >= WINDOW_FROM) recorded_work(&s, b, &corr);
        synth_step(&s, SST_STEP_END, b + step_ns(p, st), st, TID);
    }
    synth_close(&s);
}

static void summarize(const struct pace *p, struct ssa_result **r, struct ssa_summary *s)
{
    char path[64];
    snprintf(path, sizeof path, "baseline_%s.sstrace", p->name);
    write_trace(path, p);
    CHECK_EQ(ssa_analyze_file(path, NULL, r), 0);
    REQUIRE(*r);
    ssa_summarize(*r, s);
    printf("%-9s basis %-12s cost %.3f ms (%.3f to %.3f), baseline %zu steps, verdict %d, "
           "unsteady %zu\n", p->name, ssa_rec_basis_name(s->rec_basis), s->rec_cost_ms,
           s->rec_cost_lo_ms, s->rec_cost_hi_ms, s->rec_baseline_steps, s->rec_baseline_verdict,
           (*r)->n_baseline_unsteady);
    remove(path);
}

static void test_steady(void)
{
    struct pace p = {"steady", 10 * MS, -1, 0};
    struct ssa_result *r;
    struct ssa_summary s;
    summarize(&p, &r, &s);
    CHECK_EQ(s.rec_basis, SSA_REC_MEASURED);
    CHECK(fabs(s.rec_cost_ms - 0.52) < 0.03); /* 10.52 median against 10.0 */
    CHECK(s.rec_cost_lo_ms <= s.rec_cost_ms && s.rec_cost_ms <= s.rec_cost_hi_ms);
    CHECK_EQ((int)s.rec_baseline_steps, 5); /* steps 3-7 */
    ssa_result_free(r);
}

static void test_warmup(void)
{
    struct pace p = {"warmup", 100 * MS, -1, 0};
    struct ssa_result *r;
    struct ssa_summary s;
    summarize(&p, &r, &s);
    CHECK(s.rec_basis != SSA_REC_MEASURED);
    CHECK_EQ(s.rec_baseline_verdict, SSA_BASELINE_UNSTEADY);
    CHECK_EQ((int)s.rec_unrecorded_steps, 5);
    CHECK(fabs(s.rec_unrecorded_ms - 100) < 1e-6);
    CHECK(fabs(s.rec_recorded_ms - 10.52) < 0.03);
    CHECK(s.rec_cost_ms >= 0);
    ssa_result_free(r);
}

static void test_faster_recorded(void)
{
    struct pace p = {"faster", 11 * MS, -1, 0};
    struct ssa_result *r;
    struct ssa_summary s;
    summarize(&p, &r, &s);
    CHECK(s.rec_basis != SSA_REC_MEASURED);
    CHECK_EQ(s.rec_baseline_verdict, SSA_BASELINE_SLOWER);
    ssa_result_free(r);
}

/* Unrecorded steps swinging 6 / 14 ms (a host-bound loop on a busy host): steady (none is
 * beyond the recorded steps' fence) and not faster beyond noise, but their notch is wider than
 * twice the calibration's spread: "imprecise", the estimate used, what they said kept. */
static void test_noisy(void)
{
    struct pace p = {"noisy", 10 * MS, -1, 4 * MS};
    struct ssa_result *r;
    struct ssa_summary s;
    summarize(&p, &r, &s);
    CHECK(s.rec_basis != SSA_REC_MEASURED);
    CHECK_EQ(s.rec_baseline_verdict, SSA_BASELINE_IMPRECISE);
    CHECK_EQ((int)s.rec_unrecorded_steps, 5);
    CHECK(s.rec_measured_half_ms > 1);
    CHECK(fabs(s.rec_measured_ms - (10.52 - 14)) < 0.05); /* steps 3-7: 14, 6, 14, 6, 14 */
    ssa_result_free(r);
}

static void test_one_stall(void)
{
    struct pace p = {"one_slow", 10 * MS, 5, 0};
    struct ssa_result *r;
    struct ssa_summary s;
    summarize(&p, &r, &s);
    CHECK_EQ(s.rec_basis, SSA_REC_MEASURED);
    CHECK_EQ((int)s.rec_baseline_steps, 4);
    CHECK_EQ((int)r->n_baseline_unsteady, 1);
    CHECK(fabs(s.rec_cost_ms - 0.52) < 0.03);
    ssa_result_free(r);
}

/* The two-window run: pace by the step's number, recorded steps 0.5 ms slower. */
static int in_window2(uint64_t st) { return (st >= 8 && st < 28) || (st >= 120 && st < 140); }

static uint64_t paced_ns(uint64_t st)
{
    return (st < 100 ? 6 * MS : 14 * MS) + (in_window2(st) ? 500 * US : 0) + (st % 3) * 10 * US;
}

static void write_two_windows(const char *path)
{
    struct synth s;
    synth_open(&s, path);
    synth_env(&s, "collector.mode", "full");
    synth_env(&s, "collector.capture", "every:112,steps:20");
    synth_env(&s, "collector.window", "every:112,steps:20");
    uint64_t b = T0 + MS;
    uint32_t corr = 1;
    for (uint64_t st = 0; st < 200; b += paced_ns(st), st++) {
        synth_step(&s, SST_STEP_BEGIN, b, st, TID);
        /* as the collector writes them: the first window's GPU capture starts, later ones
         * are windows */
        if (st == 8 || st == 120) capture(&s, b + 2 * US, 1, st == 8 ? SST_CAP_START : SST_CAP_WINDOW);
        if (in_window2(st)) recorded_work(&s, b, &corr);
        synth_step(&s, SST_STEP_END, b + paced_ns(st), st, TID);
        if (st == 27 || st == 139) capture(&s, b + paced_ns(st) + 2 * US, 0, SST_CAP_WINDOW);
    }
    synth_close(&s);
}

static void test_two_windows(void)
{
    const char *path = "baseline_two_windows.sstrace";
    write_two_windows(path);
    struct ssa_result *r;
    struct ssa_summary s;
    CHECK_EQ(ssa_analyze_file(path, NULL, &r), 0);
    REQUIRE(r);
    ssa_summarize(r, &s);
    printf("two windows: basis %s cost %.3f ms (%.3f to %.3f), baseline %zu steps\n",
           ssa_rec_basis_name(s.rec_basis), s.rec_cost_ms, s.rec_cost_lo_ms, s.rec_cost_hi_ms,
           s.rec_baseline_steps);
    CHECK_EQ(s.rec_basis, SSA_REC_MEASURED);
    CHECK(fabs(s.rec_cost_ms - 0.5) < 0.1);
    /* 3-7 and 29-47 beside the first (28 drains it), 100-119 and 141-159 beside the second */
    CHECK_EQ((int)s.rec_baseline_steps, 63);
    ssa_result_free(r);
    remove(path);
}

int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    test_steady();
    test_warmup();
    test_faster_recorded();
    test_one_stall();
    test_noisy();
    test_two_windows();
    return ss_test_result();
}
