/*
 * test_robust.c — the analysis on inputs that are not a clean trace: empty and foreign
 * files, a real trace cut at many points or with bytes flipped, a trace with no records,
 * no GPU records, a single step. Each gives an error code or a result whose steps still
 * sum to their wall time; none crashes (run under -DSTEPSCOPE_SANITIZE=ON in CI).
 * Usage: test_robust FIXTURE_DIR
 */
#include "analysis/ssa.h"
#include "synth.h"
#include "util/ss_error.h"

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    REQUIRE(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n + 1);
    REQUIRE(b && fread(b, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void spit(const char *path, const uint8_t *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    REQUIRE(f && fwrite(b, 1, len, f) == len && fclose(f) == 0);
}

static void check_consistent(const struct ssa_result *r)
{
    for (size_t i = 0; i < r->n_steps; i++) {
        uint64_t sum = 0;
        for (int c = 0; c < SSA_CAT_COUNT; c++) sum += r->steps[i].cat_ns[c];
        CHECK_EQ_U64(sum, r->steps[i].end_ns - r->steps[i].begin_ns);
        if (i) CHECK(r->steps[i].begin_ns >= r->steps[i - 1].end_ns);
    }
    struct ssa_summary s;
    ssa_summarize(r, &s);
    CHECK(s.steps <= r->n_steps);
}

static void test_not_traces(void)
{
    struct ssa_result *r = (struct ssa_result *)1;
    const char *p = ss_test_path("empty");
    spit(p, (const uint8_t *)"", 0);
    CHECK_EQ(ssa_analyze_file(p, NULL, &r), SS_EEMPTY);
    CHECK(r == NULL);
    p = ss_test_path("text");
    spit(p, (const uint8_t *)"hello, this is not a trace at all\n", 34);
    CHECK_EQ(ssa_analyze_file(p, NULL, &r), SS_ENOTTRACE);
    CHECK_EQ(ssa_analyze_file(ss_test_path("missing"), NULL, &r), SS_ENOENT);
}

/* A real trace cut at 40 points: each prefix reads up to its last whole chunk. */
static void test_truncated(const char *fixture)
{
    size_t len;
    uint8_t *b = slurp(fixture, &len);
    const char *p = ss_test_path("cut.sstrace");
    for (int i = 1; i <= 40; i++) {
        size_t cut = len * (size_t)i / 41;
        spit(p, b, cut);
        struct ssa_result *r = NULL;
        int rc = ssa_analyze_file(p, NULL, &r);
        if (cut < 64) {
            CHECK(rc < 0);
            continue;
        }
        CHECK_EQ(rc, 0);
        if (!r) continue;
        CHECK(r->truncated);
        check_consistent(r);
        ssa_result_free(r);
    }
    free(b);
}

/* Bytes flipped inside chunks: damaged chunks are skipped, the rest is analysed. */
static void test_corrupted(const char *fixture)
{
    size_t len;
    uint8_t *b = slurp(fixture, &len);
    const char *p = ss_test_path("bad.sstrace");
    for (int i = 1; i <= 12; i++) {
        uint8_t *c = malloc(len);
        REQUIRE(c);
        memcpy(c, b, len);
        for (size_t k = 0; k < 16; k++) c[64 + (len - 64) * (size_t)i / 13 + k] ^= 0x5a;
        spit(p, c, len);
        struct ssa_result *r = NULL;
        CHECK_EQ(ssa_analyze_file(p, NULL, &r), 0);
        if (r) {
            CHECK(r->problems > 0);
            check_consistent(r);
            ssa_result_free(r);
        }
        free(c);
    }
    free(b);
}

static void test_small_synthetic(void)
{
    struct synth s;
    const char *p = ss_test_path("norecords.sstrace");
    synth_open(&s, p); /* only the three strings */
    synth_close(&s);
    struct ssa_result *r = NULL;
    CHECK_EQ(ssa_analyze_file(p, NULL, &r), 0);
    REQUIRE(r);
    CHECK_EQ_U64(r->n_steps, 0);
    CHECK_EQ(r->step_source, SSA_STEPS_NONE);
    ssa_result_free(r);

    p = ss_test_path("onestep-nogpu.sstrace"); /* one step, host records only */
    synth_open(&s, p);
    synth_step(&s, SST_STEP_BEGIN, T0, 0, 5);
    synth_api(&s, SST_API_RUNTIME, 131, T0 + MS, T0 + 2 * MS, 5);
    synth_step(&s, SST_STEP_END, T0 + 4 * MS, 0, 5);
    synth_close(&s);
    CHECK_EQ(ssa_analyze_file(p, NULL, &r), 0);
    REQUIRE(r && r->n_steps == 1);
    CHECK_EQ_U64(r->n_warmup, 0);
    CHECK_EQ_U64(r->steps[0].cat_ns[SSA_CAT_SYNC], MS);
    CHECK_EQ_U64(r->steps[0].cat_ns[SSA_CAT_HOST], 3 * MS);
    check_consistent(r);
    ssa_result_free(r);

    p = ss_test_path("hostile.sstrace"); /* end before start, zero-length, huge times */
    synth_open(&s, p);
    synth_step(&s, SST_STEP_END, T0, 9, 5);
    synth_step(&s, SST_STEP_BEGIN, T0, 1, 5);
    synth_kernel(&s, "k", T0 + 5 * MS, T0 + MS);
    synth_kernel(&s, "k", T0 + MS, T0 + MS);
    synth_kernel(&s, "k", 0, UINT64_MAX);
    synth_nvtx(&s, SST_REC_NVTX_POP, T0, 5, s.domain, 0, 0, 0);
    synth_step(&s, SST_STEP_END, T0 + 10 * MS, 1, 5);
    synth_step(&s, SST_STEP_BEGIN, T0 + 5 * MS, 2, 5); /* overlaps the previous one */
    synth_step(&s, SST_STEP_END, T0 + 20 * MS, 2, 5);
    synth_close(&s);
    CHECK_EQ(ssa_analyze_file(p, NULL, &r), 0);
    REQUIRE(r);
    CHECK_EQ_U64(r->n_steps, 2);
    check_consistent(r);
    ssa_result_free(r);
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 2);
    char fixture[1024];
    snprintf(fixture, sizeof fixture, "%s/h200-dataloader-w0.sstrace", argv[1]);
    test_not_traces();
    test_truncated(fixture);
    test_corrupted(fixture);
    test_small_synthetic();
    return ss_test_result();
}
