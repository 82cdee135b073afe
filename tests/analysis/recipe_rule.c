/*
 * recipe_rule.c — docs/design.md's recipe "Add a finding rule", followed by a test: a rule of
 * its own, recipe_probe, added to the table the way the recipe says, then every claim of the
 * recipe checked on it.
 *
 *   step 1  the detector and its row in rules[] (src/analysis/ssa_findings.c: this file
 *           includes it with the row in SSA_TEST_RULES, the product's empty slot above
 *           low_utilisation); severity, speed-up, the floor and the ranking are generic
 *   step 2  a synthetic case where it fires with its saving, one where it stays quiet (here)
 *   step 3  its row in docs/report-json.md's what-if table: analysis.test_tables' own check
 *           (table_checks.h) must fail on the docs as they are, which lack it, and pass once
 *           the row is there
 * and the recipe's heading and steps name no other file than these three.
 *
 * The probe prices half of the exposed time of kernels of no known class, when it is 30 % of
 * the step or more. Usage: recipe_rule FIXTURE_DIR (the tree is two folders up).
 */
#include "ss_test.h"

struct fctx;
struct ssa_finding;
static int rule_recipe_probe(const struct fctx *c, struct ssa_finding *f);
#define SSA_TEST_RULES                                                                             \
    {"recipe_probe", "kernels of no known class take much of the step", rule_recipe_probe, 0, 0,  \
     SSA_CAT_BIT(SSA_CAT_COMPUTE_OTHER), {0, NULL, NULL, 0}, 0, 0},
#define RECIPE_RULES_FILE "src/analysis/ssa_findings.c"
#include "analysis/ssa_findings.c"

#include "synth.h"
#include "table_checks.h"

static int rule_recipe_probe(const struct fctx *c, struct ssa_finding *f)
{
    double other = c->s->cat_ms[SSA_CAT_COMPUTE_OTHER];
    if (other < 0.3 * c->step_ms) return 0;
    f->saving_ms = other / 2;
    f->confidence = SSA_LOW;
    SAY(f->evidence, "kernels of no known class: %.1f ms/step", other);
    SAY(f->estimate, "half of them");
    SAY(f->fix, "nothing: a test's rule");
    return 1;
}

#define TID 100

/* 4 steps of 10 ms: a kernel of no known class [0, other_ms), a tensor-core GEMM after it. */
static void analyse_steps(double other_ms, struct ssa_findings *out, double *step_ms)
{
    const char *path = ss_test_path(other_ms > 5 ? "probe-fires.sstrace" : "probe-quiet.sstrace");
    struct synth s;
    synth_open(&s, path);
    uint64_t edge = (uint64_t)(other_ms * MS);
    for (uint64_t k = 0; k < 4; k++) {
        uint64_t o = T0 + k * 10 * MS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        synth_kernel(&s, "my_custom_op_kernel", o, o + edge);
        synth_kernel(&s, "nvjet_tst_128x256_64x4_2x1_v_bz_coopA_TNT", o + edge, o + 10 * MS);
        synth_step(&s, SST_STEP_END, o + 10 * MS, k, TID);
    }
    synth_close(&s);
    struct ssa_opts o = {.window_ns = 0, .no_warmup = 1};
    struct ssa_result *r = NULL;
    struct ssa_summary sum;
    REQUIRE(ssa_analyze_file(path, &o, &r) == 0);
    ssa_summarize(r, &sum);
    ssa_find(r, &sum, NULL, out);
    *step_ms = sum.mean_ns / 1e6;
    ssa_result_free(r);
}

static const struct ssa_finding *probe_of(const struct ssa_findings *f)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->v[i].id, "recipe_probe") == 0) return &f->v[i];
    return NULL;
}

/* Step 1: the row is in the table, above low_utilisation (which reads the findings above it);
 * what the row does not set is the generic part's. */
static void check_row(void)
{
    size_t n = 0;
    while (ssa_finding_rule_id(n)) n++;
    REQUIRE(n >= 2);
    CHECK_STR(ssa_finding_rule_id(n - 2), "recipe_probe");
    CHECK_STR(ssa_finding_rule_id(n - 1), "low_utilisation");
    CHECK(n <= SSA_MAX_FINDINGS);
}

/* Step 2: it fires with its saving (6 ms of the step's 10 in no known class: 3 ms, 30 %, high,
 * 1.43x), ranked by saving among the others; quiet at 2 ms. */
static void check_cases(void)
{
    struct ssa_findings f;
    double step_ms;
    analyse_steps(6, &f, &step_ms);
    const struct ssa_finding *p = probe_of(&f);
    REQUIRE(p != NULL);
    CHECK(step_ms > 9.999 && step_ms < 10.001);
    CHECK(p->saving_ms > 2.999 && p->saving_ms < 3.001);
    CHECK(p->saving_pct > 29.99 && p->saving_pct < 30.01);
    CHECK(p->speedup > 10 / 7.0 - 1e-6 && p->speedup < 10 / 7.0 + 1e-6);
    CHECK_EQ(p->severity, SSA_HIGH);
    for (size_t i = 1; i < f.n; i++)
        if (!f.v[i].alternative_to) CHECK(f.v[i - 1].saving_ms >= f.v[i].saving_ms);
    analyse_steps(2, &f, &step_ms);
    CHECK(probe_of(&f) == NULL);
}

/* Step 3: the table test catches the docs row that is missing, and nothing else. */
static void check_docs(const char *root)
{
    char path[1100];
    snprintf(path, sizeof path, "%.1000s/docs/report-json.md", root);
    char *doc = slurp(path), *tests = analysis_tests(root);
    REQUIRE(doc && tests);
    CHECK_EQ(rule_gaps("recipe_probe", doc, tests, 0), 1); /* the docs lack it: caught */
    char *with_row = malloc(strlen(doc) + 64);
    REQUIRE(with_row);
    sprintf(with_row, "%s\n| `recipe_probe` | ... |\n", doc);
    CHECK_EQ(rule_gaps("recipe_probe", with_row, tests, 0), 0);
    CHECK_EQ(rule_gaps("recipe_probe", with_row, "", 0), 1); /* no test names it: caught */
    free(with_row), free(doc), free(tests);
}

/* The text of the recipe's step that begins "\nN. `", up to its path's closing backquote:
 * the path in buf, or "" when there is no such step. */
static const char *step_path(const char *recipe, int n, char *buf, size_t cap)
{
    char head[16];
    snprintf(head, sizeof head, "\n%d. `", n);
    const char *p = strstr(recipe, head), *end = p ? strchr(p + strlen(head), '`') : NULL;
    buf[0] = '\0';
    if (end) snprintf(buf, cap, "%.*s", (int)(end - p - strlen(head)), p + strlen(head));
    return buf;
}

/* The recipe's heading says how many files, at most 3; its steps name them: the file this test
 * added the row to, a test of tests/analysis/ (where the table test looks), the docs file the
 * table test reads. */
static void check_recipe(const char *root)
{
    char path[1100], file[256];
    snprintf(path, sizeof path, "%.1000s/docs/design.md", root);
    char *design = slurp(path);
    const char *at = design ? strstr(design, "### Add a finding rule (") : NULL;
    REQUIRE(at);
    char *next = strstr(at + 4, "\n### ");
    if (next) *next = '\0';
    int files = atoi(at + strlen("### Add a finding rule ("));
    CHECK(files >= 1 && files <= 3);
    CHECK(strstr(at, " files)") != NULL);
    CHECK_STR(step_path(at, 1, file, sizeof file), RECIPE_RULES_FILE);
    CHECK(strncmp(step_path(at, 2, file, sizeof file), "tests/analysis/", 15) == 0);
    CHECK_STR(step_path(at, 3, file, sizeof file), "docs/report-json.md");
    CHECK_STR(step_path(at, files + 1, file, sizeof file), "");
    free(design);
}

int main(int argc, char **argv)
{
    char root[1024];
    REQUIRE(argc > 1);
    snprintf(root, sizeof root, "%.1000s/../..", argv[1]);
    check_row();
    check_cases();
    check_docs(root);
    check_recipe(root);
    return ss_test_result();
}
