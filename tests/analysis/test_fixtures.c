/*
 * test_fixtures.c — the attribution on the real H200 fixtures (tests/fixtures/README.md).
 *
 * The planted cases: h200-dataloader-w0 (resnet18 fed by DataLoader(num_workers=0),
 * 101.9 ms/step measured) must be dominated by "data" (> 60 % of step time); its fixed twin
 * w8 (8 workers, 16.5 ms/step) must show little data time; the bf16 MLP must keep the GPU
 * > 90 % busy with tensor-core GEMM the largest category; the small CNN is launch-bound: the
 * GPU is mostly idle while the host launches. The numbers are printed for the notes.
 * Usage: test_fixtures FIXTURE_DIR
 */
#include "analysis/ssa.h"
#include "ss_test.h"

static int largest_cat(const struct ssa_summary *s)
{
    int best = 0;
    for (int c = 1; c < SSA_CAT_COUNT; c++)
        if (s->cat_pct[c] > s->cat_pct[best]) best = c;
    return best;
}

static struct ssa_result *load(const char *dir, const char *name, struct ssa_summary *s)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.sstrace", dir, name);
    struct ssa_result *r = NULL;
    int rc = ssa_analyze_file(path, NULL, &r);
    CHECK_EQ(rc, 0);
    REQUIRE(r != NULL);
    ssa_summarize(r, s);
    for (size_t i = 0; i < r->n_steps; i++) { /* every step sums exactly to its wall time */
        uint64_t sum = 0;
        for (int c = 0; c < SSA_CAT_COUNT; c++) sum += r->steps[i].cat_ns[c];
        CHECK_EQ_U64(sum, r->steps[i].end_ns - r->steps[i].begin_ns);
    }
    CHECK_EQ_U64(r->late_intervals, 0);
    printf("%-22s steps %zu/%zu (warm-up %zu), median %.2f ms, mean %.2f ms, GPU busy %.1f%%,"
           " data %.1f%%, host %.1f%%, launch %.1f%%, sync %.1f%%, gemm_tc %.1f%%, "
           "gemm_fp32 %.1f%%, largest %s\n",
           name, s->steps, r->n_steps, r->n_warmup, s->median_ns / 1e6, s->mean_ns / 1e6,
           s->gpu_busy_pct, s->cat_pct[SSA_CAT_DATA], s->cat_pct[SSA_CAT_HOST],
           s->cat_pct[SSA_CAT_LAUNCH], s->cat_pct[SSA_CAT_SYNC], s->cat_pct[SSA_CAT_GEMM_TC],
           s->cat_pct[SSA_CAT_GEMM_FP32], ssa_cat_name(largest_cat(s)));
    return r;
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 2);
    struct ssa_summary s;
    struct ssa_result *r = load(argv[1], "h200-dataloader-w0", &s);
    CHECK_EQ(r->step_source, SSA_STEPS_RECORDS);
    CHECK(s.steps >= 6);
    CHECK(s.cat_pct[SSA_CAT_DATA] > 60.0);
    CHECK_EQ(largest_cat(&s), SSA_CAT_DATA);
    CHECK(s.median_ns > 80000000 && s.median_ns < 130000000); /* 101.9 ms/step measured */
    double w0_data_ms = s.cat_ms[SSA_CAT_DATA];
    ssa_result_free(r);

    r = load(argv[1], "h200-dataloader-w8", &s);
    CHECK(s.steps >= 6);
    CHECK(s.cat_pct[SSA_CAT_DATA] < 5.0);
    CHECK(s.median_ns > 10000000 && s.median_ns < 25000000); /* 16.5 ms/step measured */
    CHECK(s.cat_ms[SSA_CAT_DATA] < w0_data_ms / 20);
    ssa_result_free(r);

    r = load(argv[1], "h200-gpubound-bf16", &s);
    CHECK(s.gpu_busy_pct > 90.0);
    CHECK_EQ(largest_cat(&s), SSA_CAT_GEMM_TC);
    CHECK(s.kclass_ms[SSA_KC_GEMM_TC] > s.kclass_ms[SSA_KC_GEMM_FP32] * 10);
    ssa_result_free(r);

    r = load(argv[1], "h200-cnn-launchbound", &s);
    CHECK(s.steps >= 29);
    CHECK(s.gpu_busy_pct < 30.0);
    CHECK(s.cat_pct[SSA_CAT_HOST] + s.cat_pct[SSA_CAT_LAUNCH] > 60.0);
    CHECK(s.kernels_per_step > 50 && s.kernels_per_step < 70); /* ~56-61 kernels per step */
    /* backward() launches from the autograd thread: launches of every thread are counted */
    CHECK(s.launches_per_step >= s.kernels_per_step);
    CHECK(s.cat_pct[SSA_CAT_GEMM_FP32] > s.cat_pct[SSA_CAT_GEMM_TC]); /* an fp32 model */
    ssa_result_free(r);
    return ss_test_result();
}
