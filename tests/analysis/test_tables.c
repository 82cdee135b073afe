/*
 * test_tables.c — the analysis's tables are whole where the compiler cannot tell: what a
 * recipe of docs/design.md asks beside the table's row, which builds clean when forgotten.
 *
 *   category (SSA_CATS)        its name in docs/report-json.md's category table
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

#include <dirent.h>

#include "analysis/ssa.h"
#include "analysis/ssa_env.h"
#include "analysis/ssa_host.h"
#include "trace/sst_cbid.h"

#define FILE_MAX (1u << 22)

/* path's text (NUL-terminated, malloc'ed: the caller frees), or NULL. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = f ? malloc(FILE_MAX + 1) : NULL;
    size_t n = buf ? fread(buf, 1, FILE_MAX, f) : 0;
    if (f) fclose(f);
    if (buf) buf[n] = '\0';
    return buf;
}

/* 1 when text holds before + word + after. */
static int holds(const char *text, const char *before, const char *word, const char *after)
{
    char needle[256];
    snprintf(needle, sizeof needle, "%s%s%s", before, word, after);
    return text && strstr(text, needle) != NULL;
}

/* Every .c file of tests/analysis/, one after the other in one buffer (the caller frees). */
static char *analysis_tests(const char *root)
{
    char dir[1100], path[2048];
    snprintf(dir, sizeof dir, "%.1000s/tests/analysis", root);
    DIR *d = opendir(dir);
    char *all = calloc(1, 1);
    size_t len = 0;
    for (struct dirent *e; d && all && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 3 || strcmp(e->d_name + n - 2, ".c") != 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        char *one = slurp(path);
        size_t k = one ? strlen(one) : 0;
        char *grown = realloc(all, len + k + 1);
        if (grown) memcpy(grown + len, one ? one : "", k + 1), all = grown, len += k;
        free(one);
    }
    if (d) closedir(d);
    return all;
}

static void check_categories(const char *report_json)
{
    for (int c = 0; c < SSA_CAT_COUNT; c++)
        if (!holds(report_json, "`", ssa_cat_name(c), "`"))
            SS_FAIL_AT("category %s is not in docs/report-json.md", ssa_cat_name(c));
}

static void check_rules(const char *report_json, const char *tests)
{
    size_t n = 0;
    for (const char *id; (id = ssa_finding_rule_id(n)) != NULL; n++) {
        if (!holds(report_json, "| `", id, "` |"))
            SS_FAIL_AT("finding %s has no row in docs/report-json.md's what-if table", id);
        if (!holds(tests, "\"", id, "\""))
            SS_FAIL_AT("finding %s is named by no test in tests/analysis/", id);
    }
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
