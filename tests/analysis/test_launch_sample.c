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
 * Usage: test_launch_sample FIXTURE_DIR (unused)
 */
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

int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    test_paced_gaps();
    return ss_test_result();
}
