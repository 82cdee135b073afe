/*
 * test_tables.c — the analysis's tables are whole where the compiler cannot tell: what a
 * recipe of docs/design.md asks beside the table's row, which builds clean when forgotten.
 *
 *   category (SSA_CATS)        its name in docs/report-json.md's category table
 *   class (SSA_CLASSES)        a kernel class's name and a copy kind's "N name" in
 *                              docs/report-json.md; every row's category on its side (GPU work
 *                              busy, a call's class idle), every busy category but memset
 *                              reached by a row
 *   finding rule (rules[])     its row in docs/report-json.md's what-if table ("| `id` |"),
 *                              and a test that names it (a .c file of tests/analysis/)
 *   environment check          its id in docs/doctor.md
 *     (SSA_ENV_CHECKS)
 *   window opener              its token in the collector that writes it (src/collect/
 *     (SSA_WINDOW_OPENERS)     ssc_window.c) and in docs/report-json.md
 * and which launch calls the per-launch estimate scales with (kernel launches only), and the
 * kind of host work the catch-all names for a line (ssa_hostwork.c).
 *
 * argv[1] is tests/fixtures (as for every analysis test); the tree is two folders up.
 */
#include "ss_test.h"

#include "table_checks.h"

#include "analysis/ssa.h"
#include "analysis/ssa_env.h"
#include "analysis/ssa_host.h"
#include "trace/sst_cbid.h"
#include "trace/sst_names.h"

static void check_categories(const char *report_json)
{
    for (int c = 0; c < SSA_CAT_COUNT; c++)
        if (!holds(report_json, "`", ssa_cat_name(c), "`"))
            SS_FAIL_AT("category %s is not in docs/report-json.md", ssa_cat_name(c));
}

/* GPU work (kernels, copies) is busy time, a host call's class idle time; a busy category no
 * row reaches would never show (memset has a record kind of its own). */
static void check_class_cats(void)
{
    int reached[SSA_CAT_COUNT] = {0};
    for (int k = 0; k < SSA_KC_COUNT; k++) reached[ssa_kclass_cat(k)] = 1;
    for (int k = 0; k < SSA_COPY_KINDS; k++) reached[ssa_copy_cat(k)] = 1;
    for (int c = 0; c < SSA_CAT_COUNT; c++)
        if (c < SSA_CAT_FIRST_IDLE && !reached[c] && c != SSA_CAT_MEMSET)
            SS_FAIL_AT("category %s is reached by no kernel class or copy kind", ssa_cat_name(c));
        else if (c >= SSA_CAT_FIRST_IDLE && reached[c])
            SS_FAIL_AT("GPU work falls in %s, an idle category", ssa_cat_name(c));
    for (int a = 0; a < SSA_API_COUNT; a++)
        if (ssa_api_cat(a) < SSA_CAT_FIRST_IDLE)
            SS_FAIL_AT("API class %d falls in %s, a busy category", a,
                       ssa_cat_name(ssa_api_cat(a)));
}

static void check_classes(const char *report_json)
{
    char kind[32];
    for (int k = 0; k < SSA_KC_COUNT; k++)
        if (!holds(report_json, "`", ssa_kclass_name(k), "`"))
            SS_FAIL_AT("kernel class %s is not in docs/report-json.md", ssa_kclass_name(k));
    for (int k = 0; k < SSA_COPY_KINDS; k++) {
        snprintf(kind, sizeof kind, "%d %s", k, sst_copy_kind_name((uint8_t)k));
        if (!holds(report_json, "", kind, ""))
            SS_FAIL_AT("copy kind \"%s\" is not in docs/report-json.md's copy arrays", kind);
    }
    snprintf(kind, sizeof kind, "arrays of %d", SSA_COPY_KINDS);
    if (!holds(report_json, "", kind, ""))
        SS_FAIL_AT("docs/report-json.md does not say the copy arrays hold %d", SSA_COPY_KINDS);
    check_class_cats();
}

static void check_rules(const char *report_json, const char *tests)
{
    size_t n = 0;
    for (const char *id; (id = ssa_finding_rule_id(n)) != NULL; n++)
        rule_gaps(id, report_json, tests, 1);
    CHECK(n > 0 && n <= SSA_MAX_FINDINGS);
}

static void check_env(const char *doctor_md)
{
    for (size_t i = 0; i < ssa_env_n_checks; i++)
        if (!holds(doctor_md, "`", ssa_env_checks[i].id, "`"))
            SS_FAIL_AT("environment check %s is not in docs/doctor.md", ssa_env_checks[i].id);
}

static void check_openers(const char *collector, const char *report_json)
{
    for (int i = SSA_WINDOW_AT_STEP + 1; i < SSA_WINDOW_OPENER_COUNT; i++) {
        const char *t = ssa_window_opener_token(i);
        if (!holds(collector, "\"", t, "\""))
            SS_FAIL_AT("window opener %s is not written by src/collect/ssc_window.c", t);
        if (!holds(report_json, "`", t, "`"))
            SS_FAIL_AT("window opener %s is not in docs/report-json.md", t);
    }
}

/* The kind of host work a hotspot's library frame (else its line) says (ssa_hostwork.c). */
static int work_of(const char *lib_file, const char *fn, int compiled)
{
    struct ssa_pyframe user = {"main", "/home/u/train.py", 10, 1, 0};
    struct ssa_pyframe lib = {(char *)(fn ? fn : "f"), (char *)lib_file, 5, 1, 0};
    if (!lib_file) user.function = (char *)fn;
    struct ssa_hotspot h = {&user, lib_file ? &lib : NULL, 1, 1, 3, 0};
    return ssa_host_work_kind(&h, compiled);
}

static void check_host_work(void)
{
    const char *sp = "/usr/lib/python3.12/site-packages";
    char path[256];
    snprintf(path, sizeof path, "%s/torch/nn/modules/conv.py", sp);
    CHECK_EQ(work_of(path, "Conv2d._conv_forward", 0), SSA_WORK_MODEL);
    snprintf(path, sizeof path, "%s/torch/autograd/graph.py", sp);
    CHECK_EQ(work_of(path, "_engine_run_backward", 0), SSA_WORK_MODEL);
    snprintf(path, sizeof path, "%s/torch/_ops.py", sp);
    CHECK_EQ(work_of(path, "OpOverload.__call__", 0), SSA_WORK_MODEL);
    CHECK_EQ(work_of(path, "OpOverload.__call__", 1), SSA_WORK_COMPILE);
    snprintf(path, sizeof path, "%s/torch/_dynamo/eval_frame.py", sp);
    CHECK_EQ(work_of(path, "_fn", 0), SSA_WORK_COMPILE);
    snprintf(path, sizeof path, "%s/torch/optim/adamw.py", sp);
    CHECK_EQ(work_of(path, "adamw", 0), SSA_WORK_OPTIMIZER);
    snprintf(path, sizeof path, "%s/torch/cuda/memory.py", sp);
    CHECK_EQ(work_of(path, "empty_cache", 0), SSA_WORK_ALLOCATOR);
    snprintf(path, sizeof path, "%s/tqdm/std.py", sp);
    CHECK_EQ(work_of(path, "tqdm.update", 0), SSA_WORK_LOGGING);
    CHECK_EQ(work_of("/usr/lib/python3.12/json/decoder.py", "loads", 0), SSA_WORK_LIBRARY);
    CHECK_EQ(work_of(NULL, "Tokens.__getitem__", 0), SSA_WORK_DATA);
    CHECK_EQ(work_of(NULL, "class_weights_slow", 0), SSA_WORK_USER);
    /* no kind's fix sends a model's or the program's own line to DataLoader workers */
    CHECK(!strstr(ssa_host_work(SSA_WORK_MODEL)->fix, "DataLoader"));
    CHECK(!strstr(ssa_host_work(SSA_WORK_USER)->fix, "DataLoader"));
    CHECK(!strstr(ssa_host_work(SSA_WORK_COMPILE)->fix, "DataLoader"));
    CHECK(strstr(ssa_host_work(SSA_WORK_DATA)->fix, "num_workers") != NULL);
}

static void check_launch_kinds(void)
{
    CHECK(ssa_is_kernel_launch(SST_API_RUNTIME, SST_CBID_RT_cudaLaunchKernel_v7000));
    CHECK(ssa_is_kernel_launch(SST_API_DRIVER, SST_CBID_DRV_cuLaunchKernel));
    CHECK(!ssa_is_kernel_launch(SST_API_RUNTIME, SST_CBID_RT_cudaGraphLaunch_v10000));
    CHECK(ssa_is_graph_launch(SST_API_RUNTIME, SST_CBID_RT_cudaGraphLaunch_v10000));
    CHECK(!ssa_is_kernel_launch(SST_API_RUNTIME, SST_CBID_RT_cudaMemcpyAsync_v3020));
    CHECK(!ssa_is_kernel_launch(SST_API_RUNTIME, SST_CBID_RT_cudaLaunchHostFunc_v10000));
    CHECK(!ssa_is_kernel_launch(SST_API_RUNTIME, SST_CBID_RT_cudaStreamSynchronize_v3020));
}

int main(int argc, char **argv)
{
    char root[1024], path[1100];
    REQUIRE(argc > 1);
    snprintf(root, sizeof root, "%.1000s/../..", argv[1]);
    snprintf(path, sizeof path, "%.1000s/docs/report-json.md", root);
    char *report_json = slurp(path);
    snprintf(path, sizeof path, "%.1000s/docs/doctor.md", root);
    char *doctor_md = slurp(path);
    char *tests = analysis_tests(root);
    REQUIRE(report_json && doctor_md && tests && strlen(tests) > 0);
    check_categories(report_json);
    check_classes(report_json);
    check_rules(report_json, tests);
    check_env(doctor_md);
    snprintf(path, sizeof path, "%.1000s/src/collect/ssc_window.c", root);
    char *collector = slurp(path);
    REQUIRE(collector);
    check_openers(collector, report_json);
    check_launch_kinds();
    check_host_work();
    free(collector);
    free(report_json);
    free(doctor_md);
    free(tests);
    return ss_test_result();
}
