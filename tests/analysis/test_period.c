/*
 * test_period.c — steps detected from the periodicity of the kernel sequence (no markers).
 *
 * 1. 20 steps of the same 12 kernels (10 ms apart, 2 ms of host work before the first
 *    kernel), step 0 with 4 extra warm-up kernels; records written out of time order: 20
 *    steps detected, each beginning at the launch of the step's first kernel, step 0
 *    excluded as warm-up.
 * 2. Random kernel names: no period, the whole trace stays one interval.
 * 3. The real bf16 fixture with its STEP records ignored: about as many steps as the
 *    markers (±1) and a median step within 10 % of the markers' median.
 * Usage: test_period FIXTURE_DIR
 */
#include <stdlib.h>

#include "analysis/ssa.h"
#include "synth.h"

#define TID 5
#define PERIOD (10 * MS)

static void write_periodic(const char *path)
{
    struct synth s;
    synth_open(&s, path);
    uint32_t corr = 1;
    for (int st = 19; st >= 0; st--) { /* steps in reverse: the reader must not rely on order */
        uint64_t t = T0 + (uint64_t)st * PERIOD + 2 * MS;
        for (int k = 0; k < 12; k++, corr++) {
            char name[32];
            snprintf(name, sizeof name, "kernel_%02d", k);
            struct sst_rec_api *a = sst_writer_reserve(s.w, SST_REC_API, sizeof *a);
            REQUIRE(a);
            a->domain = SST_API_RUNTIME, a->cbid = 211, a->tid = TID, a->correlation = corr;
            a->start_ns = t - 20 * US, a->end_ns = t - 15 * US;
            struct sst_rec_kernel *kr = sst_writer_reserve(s.w, SST_REC_KERNEL, sizeof *kr);
            REQUIRE(kr);
            kr->name = sst_writer_intern_cstr(s.w, name), kr->start_ns = t;
            kr->end_ns = t + 500 * US, kr->correlation = corr, kr->stream = 7;
            t += 500 * US;
            if (st == 0 && k == 5)
                for (int x = 0; x < 4; x++, t += 300 * US) { /* autotuning tries */
                    snprintf(name, sizeof name, "autotune_try_%d", x);
                    synth_kernel(&s, name, t, t + 300 * US);
                }
        }
    }
    synth_close(&s);
}

static void test_periodic(void)
{
    const char *path = "period_synth.sstrace";
    write_periodic(path);
    struct ssa_result *r = NULL;
    CHECK_EQ(ssa_analyze_file(path, NULL, &r), 0);
    REQUIRE(r);
    CHECK_EQ(r->step_source, SSA_STEPS_DETECTED);
    CHECK_STR(ssa_step_source_name(r->step_source), "detected");
    CHECK_EQ((int)r->n_steps, 20);
    for (size_t i = 0; i + 1 < r->n_steps; i++) { /* launch of kernel_00 of each step */
        CHECK_EQ_U64(r->steps[i].begin_ns, T0 + i * PERIOD + 2 * MS - 20 * US);
        CHECK_EQ_U64(r->steps[i].end_ns, T0 + (i + 1) * PERIOD + 2 * MS - 20 * US);
    }
    CHECK_EQ((int)r->n_warmup, 1);
    struct ssa_summary s;
    ssa_summarize(r, &s);
    CHECK_EQ((int)s.steps, 19);
    CHECK_EQ_U64(s.median_ns, PERIOD);
    CHECK(s.kernels_per_step > 11.9 && s.kernels_per_step < 12.1);
    printf("periodic: %zu steps (%zu warm-up), median %.3f ms\n", r->n_steps, r->n_warmup,
           s.median_ns / 1e6);
    ssa_result_free(r);
    remove(path);
}

static void test_random(void)
{
    const char *path = "period_random.sstrace";
    struct synth s;
    synth_open(&s, path);
    srand(12345);
    uint64_t t = T0;
    for (int i = 0; i < 240; i++, t += 400 * US) {
        char name[32];
        snprintf(name, sizeof name, "rand_%02d", rand() % 30);
        synth_kernel(&s, name, t, t + 300 * US);
    }
    synth_close(&s);
    struct ssa_result *r = NULL;
    CHECK_EQ(ssa_analyze_file(path, NULL, &r), 0);
    REQUIRE(r);
    CHECK_EQ(r->step_source, SSA_STEPS_NONE);
    CHECK_STR(ssa_step_source_name(r->step_source), "none");
    printf("random: no period, source %s, %zu streaming windows\n",
           ssa_step_source_name(r->step_source), r->n_steps);
    ssa_result_free(r);
    remove(path);
}

static void test_fixture(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/h200-gpubound-bf16.sstrace", dir);
    struct ssa_result *m = NULL, *d = NULL;
    struct ssa_opts detect = {.ignore_markers = 1};
    CHECK_EQ(ssa_analyze_file(path, NULL, &m), 0);
    CHECK_EQ(ssa_analyze_file(path, &detect, &d), 0);
    REQUIRE(m && d);
    CHECK_EQ(m->step_source, SSA_STEPS_RECORDS);
    CHECK_EQ(d->step_source, SSA_STEPS_DETECTED);
    struct ssa_summary sm, sd;
    ssa_summarize(m, &sm);
    ssa_summarize(d, &sd);
    printf("bf16 fixture: markers %zu steps, median %.3f ms; detected %zu steps, median %.3f ms"
           " (warm-up %zu / %zu)\n",
           m->n_steps, sm.median_ns / 1e6, d->n_steps, sd.median_ns / 1e6, m->n_warmup,
           d->n_warmup);
    CHECK(d->n_steps + 1 >= m->n_steps && d->n_steps <= m->n_steps + 1);
    double ratio = (double)sd.median_ns / (double)sm.median_ns;
    CHECK(ratio > 0.9 && ratio < 1.1);
    ssa_result_free(m);
    ssa_result_free(d);
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 2);
    test_periodic();
    test_random();
    test_fixture(argv[1]);
    return ss_test_result();
}
