/*
 * test_outliers.c — prices on a robust step (issue #41): a one-off steady step over 3x the
 * median (cuDNN autotuning a new shape) is left out of the breakdown and the prices and said on
 * its own line; two such steps are the program's own pattern (recompiles every 20 steps) and
 * stay priced.
 *
 * 30 steps of 10 ms, each a 4 ms kernel and 6 ms of host work; step 15 (and, in the second
 * trace, step 25 too) runs 120 ms of host work instead.
 * Usage: test_outliers FIXTURE_DIR (unused)
 */
#include <math.h>
#include <stdio.h>

#include "analysis/ssa.h"
#include "synth.h"

#define TID 3
#define STEPS 30

static void write_trace(const char *path, int slow_a, int slow_b)
{
    struct synth s;
    synth_open(&s, path);
    uint64_t b = T0;
    for (int st = 0; st < STEPS; st++) {
        uint64_t d = st == slow_a || st == slow_b ? 120 * MS : 10 * MS;
        synth_step(&s, SST_STEP_BEGIN, b, (uint64_t)st, TID);
        synth_kernel(&s, "gemm_like", b + 100 * US, b + 4100 * US);
        synth_step(&s, SST_STEP_END, b + d, (uint64_t)st, TID);
        b += d;
    }
    synth_close(&s);
}

static void analyse(const char *path, struct ssa_result **r, struct ssa_summary *s)
{
    CHECK_EQ(ssa_analyze_file(path, NULL, r), 0);
    REQUIRE(*r);
    ssa_summarize(*r, s);
    remove(path);
}

static void test_one_off(void)
{
    struct ssa_result *r;
    struct ssa_summary s;
    write_trace("outlier_one.sstrace", 15, -1);
    analyse("outlier_one.sstrace", &r, &s);
    CHECK_EQ((int)r->n_price_outliers, 1);
    CHECK_EQ((int)s.steps, STEPS - 1 - (int)r->n_warmup);
    CHECK(fabs((double)s.mean_ns / 1e6 - 10.0) < 0.01); /* the stall is out of the mean */
    struct ssa_outlier o[2];
    CHECK_EQ((int)ssa_outliers(r, &s, o, 2), 1); /* and on its own line */
    CHECK_EQ_U64(o[0].number, 15);
    printf("one-off: %zu steps, mean %.2f ms, outlier step %llu %.1f ms\n", s.steps,
           s.mean_ns / 1e6, (unsigned long long)o[0].number, o[0].dur_ns / 1e6);
    ssa_result_free(r);
}

static void test_pattern(void)
{
    struct ssa_result *r;
    struct ssa_summary s;
    write_trace("outlier_two.sstrace", 15, 25);
    analyse("outlier_two.sstrace", &r, &s);
    CHECK_EQ((int)r->n_price_outliers, 0);
    CHECK_EQ((int)s.steps, STEPS - (int)r->n_warmup);
    CHECK((double)s.mean_ns / 1e6 > 17); /* both stalls priced: (28 x 10 + 2 x 120) / 30 */
    printf("pattern: %zu steps, mean %.2f ms\n", s.steps, s.mean_ns / 1e6);
    ssa_result_free(r);
}

int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    test_one_off();
    test_pattern();
    return ss_test_result();
}
