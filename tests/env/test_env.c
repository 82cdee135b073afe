/*
 * test_env.c — the environment checks (src/analysis/ssa_env.h): each judge at the edges of
 * pass, warn and fail; missing facts are a skip and never a failure; the record pass 1
 * keeps (replacing repeated keys, bounded); and the facts of an analysed synthetic trace.
 */
#include "analysis/ssa.h"
#include "analysis/ssa_env.h"
#include "env_trace.h"
#include "ss_test.h"

struct tf {
    struct ssa_env_facts f;
    struct ssa_env_kv kv[32];
};
static struct ssa_env_verdict g_v;

/* Facts that say nothing: no key, variables not captured, every number unknown. */
static void tf_init(struct tf *t, int variables)
{
    memset(t, 0, sizeof *t);
    t->f.kv = t->kv;
    t->f.variables = variables;
    t->f.children = t->f.native_conv = t->f.nccl_kernels = -1;
    t->f.multi_node = -1;
}

static void tf_set(struct tf *t, const char *key, const char *value)
{
    REQUIRE(t->f.n < 32);
    t->kv[t->f.n++] = (struct ssa_env_kv){(char *)key, (char *)value};
}

/* The status of check id on t; the verdict stays in g_v. */
static int judge(const struct tf *t, const char *id)
{
    const struct ssa_env_check *c = ssa_env_check_find(id);
    REQUIRE(c);
    memset(&g_v, 0x5a, sizeof g_v);
    c->judge(&t->f, &g_v);
    REQUIRE(memchr(g_v.value, 0, sizeof g_v.value) && memchr(g_v.fix, 0, sizeof g_v.fix));
    /* warn and fail carry a fix, pass and skip none */
    CHECK((g_v.fix[0] != 0) == (g_v.status == SSA_ENV_WARN || g_v.status == SSA_ENV_FAIL));
    CHECK(g_v.value[0] != 0);
    return g_v.status;
}

/* One fact on otherwise empty facts (variables captured). */
static int judge1(const char *id, const char *key, const char *value)
{
    struct tf t;
    tf_init(&t, 1);
    tf_set(&t, key, value);
    return judge(&t, id);
}

static void test_missing_facts_never_fail(void)
{
    struct tf t;
    for (size_t i = 0; i < ssa_env_n_checks; i++) {
        tf_init(&t, 0);
        CHECK_EQ(judge(&t, ssa_env_checks[i].id), SSA_ENV_SKIP);
        CHECK(strstr(g_v.value, "not recorded") != NULL);
        t.f.missing = "not readable here"; /* doctor's words for the live machine's facts */
        CHECK_EQ(judge(&t, ssa_env_checks[i].id), SSA_ENV_SKIP);
        CHECK(strncmp(g_v.value, "not readable here (", 19) == 0);
        tf_init(&t, 1); /* variables captured, nothing else known */
        CHECK(judge(&t, ssa_env_checks[i].id) != SSA_ENV_FAIL);
    }
    CHECK(ssa_env_n_checks <= SSA_ENV_MAX_CHECKS);
    CHECK(ssa_env_check_find("no_such_check") == NULL);
    CHECK_STR(ssa_env_status_name(SSA_ENV_SKIP), "skip");
    CHECK_STR(ssa_env_status_name(99), "fail");
}

static void test_launch_blocking(void)
{
    CHECK_EQ(ssa_env_launch_blocking(NULL), SSA_ENV_PASS);
    CHECK_EQ(ssa_env_launch_blocking(""), SSA_ENV_PASS);
    CHECK_EQ(ssa_env_launch_blocking("0"), SSA_ENV_PASS);
    CHECK_EQ(ssa_env_launch_blocking("00"), SSA_ENV_PASS);
    CHECK_EQ(ssa_env_launch_blocking("1"), SSA_ENV_FAIL);
    CHECK_EQ(ssa_env_launch_blocking(" 1 "), SSA_ENV_FAIL);
    CHECK_EQ(ssa_env_launch_blocking("2"), SSA_ENV_FAIL);
    CHECK_EQ(ssa_env_launch_blocking("yes"), SSA_ENV_WARN);
    CHECK_EQ(ssa_env_launch_blocking("-1"), SSA_ENV_WARN);
    struct tf t;
    tf_init(&t, 1);
    CHECK_EQ(judge(&t, "launch_blocking"), SSA_ENV_PASS);
    CHECK_STR(g_v.value, "not set");
    CHECK_EQ(judge1("launch_blocking", "env.CUDA_LAUNCH_BLOCKING", "1"), SSA_ENV_FAIL);
    CHECK_STR(g_v.fix, "unset CUDA_LAUNCH_BLOCKING (a debugging switch)");
    CHECK_EQ(judge1("launch_blocking", "env.CUDA_LAUNCH_BLOCKING", "0"), SSA_ENV_PASS);
    CHECK_EQ(judge1("launch_blocking", "env.CUDA_LAUNCH_BLOCKING", "true"), SSA_ENV_WARN);
}

static int versions(const char *driver, const char *runtime)
{
    struct tf t;
    tf_init(&t, 1);
    if (driver) tf_set(&t, "driver_version", driver);
    if (runtime) tf_set(&t, "runtime_version", runtime);
    return judge(&t, "driver_runtime");
}

static void test_driver_runtime(void)
{
    CHECK_EQ(versions("12040", "12040"), SSA_ENV_PASS);
    CHECK_STR(g_v.value, "driver supports CUDA 12.4, runtime 12.4");
    CHECK_EQ(versions("13000", "12040"), SSA_ENV_PASS);
    CHECK_EQ(versions("12020", "12040"), SSA_ENV_WARN); /* minor version compatibility */
    CHECK(strstr(g_v.fix, "supports CUDA 12.4") != NULL);
    CHECK_EQ(versions("12080", "13000"), SSA_ENV_FAIL); /* a newer major version */
    CHECK_EQ(versions("13000", NULL), SSA_ENV_SKIP);
    CHECK(strstr(g_v.value, "runtime_version") != NULL);
    CHECK_EQ(versions("580.65.06", "13.0"), SSA_ENV_SKIP); /* not CUDA's numbering */
    CHECK_EQ(versions("999", "12040"), SSA_ENV_SKIP);
}

static int cudnn(const char *version, long native_conv)
{
    struct tf t;
    tf_init(&t, 1);
    t.f.native_conv = native_conv;
    if (version) tf_set(&t, "cudnn_version", version);
    return judge(&t, "cudnn");
}

static void test_cudnn(void)
{
    char buf[48];
    ssa_env_cudnn_text(91900, buf, sizeof buf);
    CHECK_STR(buf, "9.19.0");
    ssa_env_cudnn_text(8902, buf, sizeof buf);
    CHECK_STR(buf, "8.9.2");
    CHECK_EQ(cudnn("91900", 0), SSA_ENV_PASS);
    CHECK_STR(g_v.value, "cuDNN 9.19.0; no convolution ran without it");
    CHECK_EQ(cudnn("91900", -1), SSA_ENV_PASS);
    CHECK_STR(g_v.value, "cuDNN 9.19.0");
    CHECK_EQ(cudnn("91900", 24), SSA_ENV_WARN); /* loaded but not used */
    CHECK(strstr(g_v.fix, "cudnn.enabled = True") != NULL);
    CHECK_EQ(cudnn(NULL, 1), SSA_ENV_WARN); /* not loaded, convolutions without it */
    CHECK(strstr(g_v.value, "no cuDNN was loaded") != NULL);
    CHECK_EQ(cudnn(NULL, 0), SSA_ENV_SKIP);
    CHECK_EQ(cudnn("9.1", 0), SSA_ENV_SKIP);
    CHECK_EQ(cudnn("9.1", 5), SSA_ENV_SKIP); /* a damaged record tells nothing */
    CHECK(ssa_env_native_conv_kernel("_ZN2at6native12_GLOBAL__N_112im2col_kernelIfEEvl"));
    CHECK(ssa_env_native_conv_kernel("void at::native::col2im_kernel<float>(...)"));
    CHECK(ssa_env_native_conv_kernel("vol2col_kernel"));
    CHECK(!ssa_env_native_conv_kernel("cudnn::detail::im2col4d_kernel"));
    CHECK(!ssa_env_native_conv_kernel("sm90_xmma_fprop_implicit_gemm_bf16"));
    CHECK(!ssa_env_native_conv_kernel(NULL));
}

static int nofile(const char *soft, long children)
{
    struct tf t;
    tf_init(&t, 1);
    t.f.children = children;
    tf_set(&t, "rlimit_nofile", soft);
    tf_set(&t, "rlimit_nofile_max", "1048576");
    return judge(&t, "open_files");
}

static void test_open_files(void)
{
    CHECK_EQ(nofile("4095", -1), SSA_ENV_WARN);
    CHECK_STR(g_v.fix, "ulimit -n 65536 (raise the hard limit in /etc/security/limits.conf if "
                       "needed)");
    CHECK_EQ(nofile("4096", -1), SSA_ENV_PASS);
    CHECK_EQ(nofile("1024", 3), SSA_ENV_WARN);
    CHECK_EQ(nofile("1024", 0), SSA_ENV_PASS); /* no worker: the limit does not bite */
    CHECK(strstr(g_v.value, "no DataLoader worker") != NULL);
    CHECK_EQ(nofile("18446744073709551615", 8), SSA_ENV_PASS); /* RLIM_INFINITY */
    CHECK_EQ(nofile("unlimited", 8), SSA_ENV_SKIP);
    CHECK_EQ(judge1("open_files", "rlimit_nofile_max", "4096"), SSA_ENV_SKIP);
}

static int cpus(const char *online, const char *usable, long children, const char *id)
{
    struct tf t;
    tf_init(&t, 1);
    t.f.children = children;
    if (online) tf_set(&t, "cpu_count", online);
    if (usable) tf_set(&t, "cpu_affinity_count", usable);
    return judge(&t, id);
}

static void test_cpus_and_workers(void)
{
    CHECK_EQ(cpus("64", "3", -1, "cpu_cores"), SSA_ENV_WARN); /* the affinity mask counts */
    CHECK_EQ(cpus("64", "4", -1, "cpu_cores"), SSA_ENV_PASS);
    CHECK_EQ(cpus("2", NULL, -1, "cpu_cores"), SSA_ENV_WARN);
    CHECK_EQ(cpus("8", "0", -1, "cpu_cores"), SSA_ENV_PASS); /* an unreadable mask: online */
    CHECK_EQ(cpus(NULL, NULL, -1, "cpu_cores"), SSA_ENV_SKIP);
    CHECK_EQ(cpus("18446744073709551615", NULL, -1, "cpu_cores"), SSA_ENV_SKIP); /* not real */
    CHECK_EQ(cpus("16", "8", -1, "dataloader_workers"), SSA_ENV_SKIP); /* no host sample */
    CHECK_EQ(cpus(NULL, NULL, 4, "dataloader_workers"), SSA_ENV_SKIP);
    CHECK_EQ(cpus("16", "8", 0, "dataloader_workers"), SSA_ENV_PASS);
    CHECK_EQ(cpus("16", "8", 7, "dataloader_workers"), SSA_ENV_PASS); /* 7 + 1 on 8 */
    CHECK_EQ(cpus("16", "8", 8, "dataloader_workers"), SSA_ENV_WARN);
    CHECK(strstr(g_v.fix, "num_workers=7") != NULL);
}

static int omp(const char *value, const char *usable)
{
    struct tf t;
    tf_init(&t, 1);
    if (value) tf_set(&t, "env.OMP_NUM_THREADS", value);
    if (usable) tf_set(&t, "cpu_affinity_count", usable);
    return judge(&t, "omp_threads");
}

static void test_omp_threads(void)
{
    CHECK_EQ(omp(NULL, "8"), SSA_ENV_PASS);
    CHECK_EQ(omp("1", "8"), SSA_ENV_PASS); /* torchrun's default */
    CHECK_EQ(omp("8", "8"), SSA_ENV_PASS);
    CHECK_EQ(omp("9", "8"), SSA_ENV_WARN);
    CHECK(strstr(g_v.fix, "OMP_NUM_THREADS=8 or less") != NULL);
    CHECK_EQ(omp("4,2", "8"), SSA_ENV_PASS); /* nested levels: the first counts */
    CHECK_EQ(omp("0", "8"), SSA_ENV_WARN);
    CHECK_EQ(omp("many", "8"), SSA_ENV_WARN);
    CHECK_EQ(omp("64", NULL), SSA_ENV_PASS); /* no CPU count: nothing to compare */
    struct tf t;
    tf_init(&t, 0);
    CHECK_EQ(judge(&t, "omp_threads"), SSA_ENV_SKIP);
}

static void test_visible_devices(void)
{
    const char *k = "env.CUDA_VISIBLE_DEVICES";
    struct tf t;
    tf_init(&t, 1);
    CHECK_EQ(judge(&t, "visible_devices"), SSA_ENV_PASS);
    CHECK_EQ(judge1("visible_devices", k, ""), SSA_ENV_FAIL);
    CHECK_EQ(judge1("visible_devices", k, "-1"), SSA_ENV_FAIL);
    CHECK_EQ(judge1("visible_devices", k, "0,1"), SSA_ENV_PASS);
    CHECK(strstr(g_v.value, "2 GPUs visible") != NULL);
    CHECK_EQ(judge1("visible_devices", k, " 0 , 1,"), SSA_ENV_PASS);
    CHECK_EQ(judge1("visible_devices", k, "GPU-8c5e0a3f-1b2c"), SSA_ENV_PASS);
    CHECK_EQ(judge1("visible_devices", k, "0,x,1"), SSA_ENV_WARN);
    CHECK(strstr(g_v.value, "only 1 GPU visible") != NULL);
}

static int nccl(long nccl_kernels, int multi_node, const char *k1, const char *v1, const char *k2,
                const char *v2)
{
    struct tf t;
    tf_init(&t, 1);
    t.f.nccl_kernels = nccl_kernels, t.f.multi_node = multi_node;
    tf_set(&t, "env.NCCL_VERSION", "2.28.3-1");
    if (k1) tf_set(&t, k1, v1);
    if (k2) tf_set(&t, k2, v2);
    return judge(&t, "nccl_env");
}

static void test_nccl(void)
{
    CHECK_EQ(nccl(-1, -1, NULL, NULL, NULL, NULL), SSA_ENV_PASS);
    CHECK_STR(g_v.value, "NCCL_VERSION=2.28.3-1: none known to slow communication");
    CHECK_EQ(nccl(-1, -1, "env.NCCL_NVLS_ENABLE", "0", NULL, NULL), SSA_ENV_PASS);
    CHECK_EQ(nccl(-1, -1, "env.NCCL_DEBUG", "INFO", NULL, NULL), SSA_ENV_PASS);
    CHECK_EQ(nccl(-1, -1, "env.NCCL_DEBUG", "trace", NULL, NULL), SSA_ENV_WARN);
    CHECK_EQ(nccl(-1, -1, "env.NCCL_P2P_DISABLE", "1", NULL, NULL), SSA_ENV_WARN);
    CHECK_EQ(nccl(0, -1, "env.NCCL_P2P_DISABLE", "1", NULL, NULL), SSA_ENV_PASS); /* no NCCL */
    CHECK_EQ(nccl(50, -1, "env.NCCL_P2P_DISABLE", "0", NULL, NULL), SSA_ENV_PASS);
    CHECK_EQ(nccl(50, 1, "env.NCCL_IB_DISABLE", "1", NULL, NULL), SSA_ENV_WARN);
    CHECK_EQ(nccl(50, -1, "env.NCCL_IB_DISABLE", "1", NULL, NULL), SSA_ENV_PASS); /* one node? */
    CHECK_EQ(nccl(50, 0, "env.NCCL_IB_DISABLE", "1", NULL, NULL), SSA_ENV_PASS);
    CHECK_EQ(nccl(50, -1, "env.NCCL_DEBUG", "TRACE", "env.NCCL_P2P_DISABLE", "1"), SSA_ENV_WARN);
    CHECK(strstr(g_v.value, "NCCL_DEBUG=TRACE") && strstr(g_v.value, "NCCL_P2P_DISABLE=1"));
    CHECK(strstr(g_v.fix, "NCCL_DEBUG=WARN") && strstr(g_v.fix, "unset NCCL_P2P_DISABLE"));
    CHECK(!strstr(g_v.value, "NCCL_VERSION")); /* the list of harmless ones gave way */
    struct tf t;
    tf_init(&t, 1);
    CHECK_EQ(judge(&t, "nccl_env"), SSA_ENV_PASS);
    CHECK_STR(g_v.value, "no NCCL_* variable set");
}

static void test_alloc_conf(void)
{
    const char *k = "env.PYTORCH_CUDA_ALLOC_CONF";
    struct tf t;
    tf_init(&t, 1);
    CHECK_EQ(judge(&t, "alloc_conf"), SSA_ENV_PASS);
    CHECK_EQ(judge1("alloc_conf", k, "expandable_segments:True"), SSA_ENV_PASS);
    CHECK_EQ(judge1("alloc_conf", k, "expandable_segments:True,max_split_size_mb:128"),
             SSA_ENV_WARN);
    CHECK_EQ(judge1("alloc_conf", "env.PYTORCH_NO_CUDA_MEMORY_CACHING", "0"), SSA_ENV_WARN);
    tf_init(&t, 0);
    CHECK_EQ(judge(&t, "alloc_conf"), SSA_ENV_SKIP);
}

static void test_record(void)
{
    struct ssa_env_record e = {0};
    char key[32], big[SSA_ENV_MAX_TEXT + 100];
    CHECK_EQ(ssa_env_record_add(&e, "driver_version", 14, "12040", 5), 0);
    CHECK_EQ(ssa_env_record_add(&e, "driver_version", 14, "13000", 5), 0); /* again at exit */
    CHECK_EQ(e.n, 1);
    CHECK_STR(e.kv[0].value, "13000");
    memset(big, 'x', sizeof big);
    CHECK_EQ(ssa_env_record_add(&e, "k\0hidden", 8, big, sizeof big), 0); /* any bytes, cut */
    CHECK_EQ(strlen(e.kv[1].value), SSA_ENV_MAX_TEXT);
    for (int i = 0; i < SSA_ENV_MAX_KEYS + 10; i++) {
        int n = snprintf(key, sizeof key, "env.V%d", i);
        CHECK_EQ(ssa_env_record_add(&e, key, (size_t)n, "1", 1), 0);
    }
    CHECK_EQ(e.n, SSA_ENV_MAX_KEYS);
    CHECK_EQ(e.dropped, 12);
    struct ssa_env_facts f = {.kv = e.kv, .n = e.n};
    CHECK_STR(ssa_env_get(&f, "driver_version"), "13000");
    CHECK(ssa_env_get(&f, "env.V300") == NULL);
    ssa_env_record_free(&e);
    CHECK_EQ(e.n, 0);
    ssa_env_record_free(&e); /* twice is harmless */
}

/* An analysed trace: its ENV records, host samples and kernel names become the facts. */
static void test_trace_facts(void)
{
    static const char *const env[][2] = {{"collector.mode", "full"},
                                         {"env.CUDA_LAUNCH_BLOCKING", "1"},
                                         {"cpu_affinity_count", "4"},
                                         {"cudnn_version", "8902"},
                                         {"cudnn_version", "91900"}};
    static const uint32_t children[] = {0, 6, 5};
    static const char *const kernels[] = {"im2col_kernel", "ncclDevKernel_AllReduce", NULL};
    struct env_trace t = {env, 5, children, 3, kernels};
    char dir[] = "/tmp/ss_test_env_XXXXXX", path[64];
    REQUIRE(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.sstrace", dir);
    REQUIRE(env_trace_write(path, &t) == 0);
    struct ssa_result *r = NULL;
    struct ssa_opts o = {0};
    REQUIRE(ssa_analyze_file(path, &o, &r) == 0);
    struct ssa_env_facts f;
    ssa_env_facts_of(r, &f);
    CHECK_EQ(f.n, 4);
    CHECK_STR(ssa_env_get(&f, "cudnn_version"), "91900"); /* the later lookup */
    CHECK_EQ(f.variables, 1);
    CHECK_EQ(f.children, 6);
    CHECK_EQ(f.native_conv, ENVT_STEPS);
    CHECK_EQ(f.nccl_kernels, ENVT_STEPS);
    CHECK_EQ(f.multi_node, -1);
    CHECK_EQ(r->launch_blocking, 1); /* the finding and the check agree */
    ssa_result_free(r);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    test_missing_facts_never_fail();
    test_launch_blocking();
    test_driver_runtime();
    test_cudnn();
    test_open_files();
    test_cpus_and_workers();
    test_omp_threads();
    test_visible_devices();
    test_nccl();
    test_alloc_conf();
    test_record();
    test_trace_facts();
    return ss_test_result();
}
