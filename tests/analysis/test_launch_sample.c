/*
 * test_launch_sample.c — launch sampling (ssa_capture.c, ssa_pace.c): kernel launch calls
 * recorded in one step of 4 (ENV collector.launch_sample 4, CAPTURE launches/sampled at the
 * switching steps' begins), in a C loop whose host runs far ahead of its GPU: 64 host steps of
 * 0.3 ms, each launching 3 kernels of 4 ms that run back to back.
 *
 * Only the 16 sampled steps are analysed (48 left out), and they are measured on the GPU's
 * timeline: from a sampled step's first kernel to the first kernel of the step after it, which
 * was left out (its launches unrecorded, its kernels' correlation ids in the gap before the next
 * sampled step's): 12 ms, not the 48 ms to the next sampled step.
 *
 * And what recording the launch calls costs, measured in the trace: a light recording of a
 * host-bound loop whose steps slow from 10 to 25.8 ms over the run, the sampled ones 1 ms more
 * than their neighbours: each against the mean of the two beside it says 1 ms, and the
 * estimate (2 us for each of 3 launches) is raised to it.
 * Usage: test_launch_sample FIXTURE_DIR (unused)
 */
#include <math.h>
#include <stdio.h>

#include "analysis/ssa.h"
#include "synth.h"

#define TID 9
#define EVERY 4
#define STEPS 64
#define HOST_STEP (300 * US)
#define KERNEL (4 * MS)

static void launch_switch(struct synth *s, uint64_t ts, int on)
{
    struct sst_rec_capture *c = sst_writer_reserve(s->w, SST_REC_CAPTURE, sizeof *c);
    REQUIRE(c);
    c->on = (uint8_t)on, c->reason = SST_CAP_SAMPLED, c->what = SST_CAPTURE_LAUNCHES;
    c->ts_ns = ts;
}

static void launch(struct synth *s, uint32_t corr, uint64_t host_t, uint64_t gpu_t, int recorded)
{
    if (recorded) {
        struct sst_rec_api *a = sst_writer_reserve(s->w, SST_REC_API, sizeof *a);
        REQUIRE(a);
        a->domain = SST_API_RUNTIME, a->cbid = 211, a->tid = TID, a->correlation = corr;
        a->start_ns = host_t, a->end_ns = host_t + 20 * US;
    }
    struct sst_rec_kernel *k = sst_writer_reserve(s->w, SST_REC_KERNEL, sizeof *k);
    REQUIRE(k);
    k->name = sst_writer_intern_cstr(s->w, "gemm_like"), k->start_ns = gpu_t;
    k->end_ns = gpu_t + KERNEL, k->correlation = corr, k->stream = 7;
}

static void write_trace(const char *path)
{
    struct synth s;
    synth_open(&s, path);
    synth_env(&s, "collector.launch_sample", "4");
    uint32_t corr = 1;
    uint64_t gpu = T0 + 1 * MS;
    for (uint64_t st = 0; st < STEPS; st++) {
        uint64_t b = T0 + st * HOST_STEP;
        int sampled = st % EVERY == 0;
        synth_step(&s, SST_STEP_BEGIN, b, st, TID);
        if (st > 0 && (sampled || st % EVERY == 1)) launch_switch(&s, b + 2 * US, sampled);
        for (int i = 0; i < 3; i++, corr++, gpu += KERNEL)
            launch(&s, corr, b + 10 * US + (uint64_t)i * 50 * US, gpu, sampled);
        synth_step(&s, SST_STEP_END, b + HOST_STEP, st, TID);
    }
    synth_close(&s);
}

static void test_paced_gaps(void)
{
    const char *path = "launch_sample_paced.sstrace";
    write_trace(path);
    struct ssa_result *r = NULL;
    CHECK_EQ(ssa_analyze_file(path, NULL, &r), 0);
    REQUIRE(r);
    CHECK_EQ((int)r->launch_sample, EVERY);
    CHECK_EQ((int)r->launch_unsampled, STEPS - STEPS / EVERY);
    CHECK(r->gpu_paced);
    struct ssa_summary s;
    ssa_summarize(r, &s);
    CHECK_EQ_U64(s.median_ns, 3 * KERNEL);
    for (size_t i = 0; i + 1 < r->n_steps; i++) /* sampled step 4i: its kernels 12i..12i+2 */
        CHECK_EQ_U64(r->briefs[i].end_ns - r->briefs[i].begin_ns, 3 * KERNEL);
    printf("paced with gaps: %zu steps (%zu left out), median %.3f ms\n", r->n_steps,
           r->launch_unsampled, s.median_ns / 1e6);
    ssa_result_free(r);
    remove(path);
}

#define DRIFT_STEPS 80
#define CALLBACKS (1 * MS)

/* Step st of the drifting loop: 10 ms + 0.2 ms per step, 1 ms more when sampled. */
static uint64_t drift_step_ns(uint64_t st)
{
    return 10 * MS + st * 200 * US + (st % EVERY == 0 ? CALLBACKS : 0);
}

static void write_drift_trace(const char *path)
{
    struct synth s;
    synth_open(&s, path);
    synth_env(&s, "collector.launch_sample", "4");
    synth_env(&s, "collector.mode", "light");
    uint64_t b = T0;
    uint32_t corr = 1;
    for (uint64_t st = 0; st < DRIFT_STEPS; b += drift_step_ns(st), st++) {
        int sampled = st % EVERY == 0;
        synth_step(&s, SST_STEP_BEGIN, b, st, TID);
        if (st > 0 && (sampled || st % EVERY == 1)) launch_switch(&s, b + 2 * US, sampled);
        for (int i = 0; sampled && i < 3; i++, corr++) {
            struct sst_rec_api *a = sst_writer_reserve(s.w, SST_REC_API, sizeof *a);
            REQUIRE(a);
            a->domain = SST_API_RUNTIME, a->cbid = 211, a->tid = TID, a->correlation = corr;
            a->start_ns = b + 100 * US * (uint64_t)(i + 1), a->end_ns = a->start_ns + 20 * US;
        }
        synth_step(&s, SST_STEP_END, b + drift_step_ns(st), st, TID);
    }
    synth_close(&s);
}

static void test_measured_in_pairs(void)
{
    const char *path = "launch_sample_pairs.sstrace";
    write_drift_trace(path);
    struct ssa_result *r = NULL;
    CHECK_EQ(ssa_analyze_file(path, NULL, &r), 0);
    REQUIRE(r);
    struct ssa_summary s;
    ssa_summarize(r, &s);
    /* sampled steps 4, 8, ..., 76 (step 0 is warm-up, before the 4th step) */
    CHECK_EQ((int)s.rec_launch_pairs, DRIFT_STEPS / EVERY - 1);
    CHECK(fabs(s.rec_launch_ms - 1.0) < 1e-3);
    CHECK(s.rec_launch_lo_ms <= s.rec_launch_ms && s.rec_launch_ms <= s.rec_launch_hi_ms);
    CHECK_EQ(s.rec_basis, SSA_REC_LIGHT);
    CHECK(fabs(s.rec_cost_ms - 1.0) < 1e-3); /* not 3 x 2 us: what the run measured */
    printf("measured in pairs: %zu sampled steps, %+.3f ms (%+.3f to %+.3f); cost line %.3f ms\n",
           s.rec_launch_pairs, s.rec_launch_ms, s.rec_launch_lo_ms, s.rec_launch_hi_ms,
           s.rec_cost_ms);
    ssa_result_free(r);
    remove(path);
}

int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    test_paced_gaps();
    test_measured_in_pairs();
    return ss_test_result();
}
