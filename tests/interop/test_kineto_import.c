/*
 * test_kineto_import.c — ssi_kineto_import on small hand-written Kineto documents: every
 * mapped event kind read back field by field (exact timestamps, async flags from the launching
 * call, copies that come before their call, stream -1, peer copies, ranges, threads, devices,
 * the environment); hostile documents (truncated, wrong types, absurd numbers, deep nesting,
 * huge strings, corrupted gzip, not Kineto) give one error line and leave no file behind;
 * ssi_open_any imports into $TMPDIR and cleans up after itself.
 */
#include <dirent.h>
#include <sys/stat.h>
#include <zlib.h>

#include "analysis/ssa.h"
#include "interop/ssi.h"
#include "ss_test.h"
#include "trace/sst_reader.h"
#include "util/ss_error.h"

#define BASE "1000000000000000000"
#define T(us_ns) (UINT64_C(1000000000000000000) + (us_ns))

static const char good_doc[] =
    "\xef\xbb\xbf{\"schemaVersion\": 1,\n"
    " \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU A\", \"totalGlobalMem\": 1000,"
    " \"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132, \"extra\": [1, {\"a\": 2}]},"
    " {\"id\": 1, \"name\": \"GPU B\"}],\n"
    " \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 1, \"world_size\": 2,"
    " \"pg_config\": [{\"x\": [1, 2]}]},\n"
    " \"cuda_driver_version\": 13000, \"cuda_runtime_version\": \"13000\","
    " \"cupti_version\": 130001, \"baseTimeNanoseconds\": " BASE ",\n"
    " \"traceEvents\": [\n"
    /* skipped host op, with args of types the importer would refuse on a kernel */
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 77, \"tid\": 78,"
    "   \"ts\": 1.5, \"dur\": 2, \"args\": {\"device\": \"cuda:0\", \"stream\": [1]}},\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#3\", \"pid\": 77,"
    "   \"tid\": 78, \"ts\": 10.000, \"dur\": 1000.5},\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\","
    "   \"name\": \"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__\","
    "   \"pid\": 77, \"tid\": 78, \"ts\": 11, \"dur\": 100},\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"my \\\"range\\\"\", \"pid\": 77,"
    "   \"tid\": \"78\", \"ts\": 200, \"dur\": 5},\n"
    "  {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"t.py(1): f\", \"pid\": 77,"
    "   \"tid\": 78, \"ts\": 1, \"dur\": 1},\n"
    /* the copy comes before its call: it waits for it, then is async */
    "  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\","
    "   \"pid\": 0, \"tid\": 7, \"ts\": 120.25, \"dur\": 50, \"args\": {\"device\": 0,"
    "   \"stream\": 7, \"correlation\": 6, \"bytes\": 4096}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMemcpyAsync\", \"pid\": 77,"
    "   \"tid\": 78, \"ts\": 115, \"dur\": 60, \"args\": {\"cbid\": 41, \"correlation\": 6}},\n"
    /* no cbid: from the name */
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 77,"
    "   \"tid\": 78, \"ts\": 300, \"dur\": 5, \"args\": {\"correlation\": 7}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k1\", \"pid\": 0, \"tid\": 7, \"ts\": 310,"
    "   \"dur\": 20, \"args\": {\"queued\": 0, \"device\": 0, \"stream\": 7, \"correlation\": 7,"
    "   \"registers per thread\": 32, \"shared memory\": 1024, \"grid\": [2, 3, 4],"
    "   \"block\": [128, 1, 1], \"est. achieved occupancy %\": 12}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMemcpy\", \"pid\": 77,"
    "   \"tid\": 78, \"ts\": 400, \"dur\": 30, \"args\": {\"cbid\": 31, \"correlation\": 8}},\n"
    "  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoH (Device -> Pinned)\","
    "   \"pid\": 0, \"tid\": 7, \"ts\": 405, \"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7,"
    "   \"correlation\": 8, \"bytes\": 8}},\n"
    /* its call is never seen: written at the end, as issued synchronously */
    "  {\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (Device)\", \"pid\": 0,"
    "   \"tid\": 7, \"ts\": 500, \"dur\": 1, \"args\": {\"device\": 0, \"stream\": 7,"
    "   \"correlation\": 9, \"bytes\": 4}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Context Sync\", \"pid\": 0,"
    "   \"tid\": -1, \"ts\": 600, \"dur\": 3, \"args\": {\"cuda_sync_kind\": \"Context Sync\","
    "   \"stream\": -1, \"correlation\": 10, \"device\": 0, \"context\": 1}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Event Sync\", \"pid\": 0, \"tid\": 7,"
    "   \"ts\": 610, \"dur\": 3, \"args\": {\"cuda_sync_kind\": \"Event Sync\","
    "   \"wait_on_stream\": 7, \"wait_on_cuda_event_id\": 5, \"stream\": 7,"
    "   \"correlation\": 11, \"device\": 0}},\n"
    "  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy PtoP (Device -> Device)\","
    "   \"pid\": 1, \"tid\": 9, \"ts\": 700, \"dur\": 10, \"args\": {\"fromDevice\": 0,"
    "   \"inDevice\": 1, \"toDevice\": 1, \"stream\": 9, \"correlation\": 0, \"bytes\": 16}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_driver\", \"name\": \"cuLaunchKernel\", \"pid\": 77,"
    "   \"tid\": 79, \"ts\": 800, \"dur\": 4, \"args\": {\"cbid\": 307, \"correlation\": 12}},\n"
    "  {\"ph\": \"s\", \"id\": 7, \"pid\": 77, \"tid\": 78, \"ts\": 300, \"cat\": \"ac2g\","
    "   \"name\": \"ac2g\"},\n"
    "  {\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"ProfilerStep#3\","
    "   \"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 5},\n"
    "  {\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": 77, \"tid\": 78,"
    "   \"args\": {\"name\": \"thread 78 (python3)\"}},\n"
    "  {\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": 0, \"tid\": 7,"
    "   \"args\": {\"name\": \"stream 7 \"}},\n"
    "  {\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": 77, \"tid\": 0,"
    "   \"args\": {\"name\": \"python3\"}},\n"
    "  {\"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"\","
    "   \"tid\": \"\", \"ts\": 1200}\n"
    " ],\n"
    " \"traceName\": \"x\"\n"
    "}\n";

/* ss_test_path's result is overwritten by its next call: each path gets its own copy. */
#define PATH(var, name)                                                                            \
    char var[512];                                                                                 \
    snprintf(var, sizeof var, "%s", ss_test_path(name))

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    REQUIRE(f != NULL);
    REQUIRE(fwrite(data, 1, n, f) == n);
    REQUIRE(fclose(f) == 0);
}

static void write_gz(const char *path, const void *data, size_t n)
{
    gzFile g = gzopen(path, "wb");
    REQUIRE(g != NULL);
    REQUIRE(gzwrite(g, data, (unsigned)n) == (int)n);
    REQUIRE(gzclose(g) == Z_OK);
}

static size_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (size_t)st.st_size : 0;
}

/* Files in the test folder, other than those named keep1/keep2. */
static int stray_files(const char *keep1, const char *keep2)
{
    DIR *d = opendir(ss_test_dir);
    REQUIRE(d != NULL);
    struct dirent *de;
    int n = 0;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        if ((keep1 && !strcmp(de->d_name, keep1)) || (keep2 && !strcmp(de->d_name, keep2)))
            continue;
        fprintf(stderr, "stray file: %s\n", de->d_name);
        n++;
    }
    closedir(d);
    return n;
}

/* ---- reading the import back ---- */

struct seen {
    int kernels, memcpys, memsets, syncs, apis, pushes, pops, threads, devices, domains;
    struct sst_rec_kernel k;
    struct sst_rec_memcpy mc[3];
    struct sst_rec_memset ms;
    struct sst_rec_sync sy[2];
    struct sst_rec_api api[4];
    struct sst_rec_nvtx push[4];
    struct sst_rec_process proc;
    struct sst_rec_thread thread;
    struct sst_rec_device dev[2];
    char push_msg[4][80], push_dom[4][16], env[16][2][64], thread_name[32], dev_name[2][16];
    int n_env;
};

static void text_of(struct sst_reader *r, uint32_t id, char *out, size_t cap)
{
    uint32_t len = 0;
    const char *s = sst_reader_string(r, id, &len);
    snprintf(out, cap, "%.*s", s ? (int)len : 0, s ? s : "");
}

static void note(struct seen *s, struct sst_reader *r, const struct sst_rec_header *h)
{
#define KEEP(arr, n, max)                                                                          \
    do {                                                                                           \
        if ((n) < (max)) memcpy(&(arr)[(n)], h, sizeof((arr)[0]));                                 \
        (n)++;                                                                                     \
    } while (0)
    switch (h->type) {
    case SST_REC_KERNEL:
        memcpy(&s->k, h, sizeof s->k), s->kernels++;
        break;
    case SST_REC_MEMCPY:
        KEEP(s->mc, s->memcpys, 3);
        break;
    case SST_REC_MEMSET:
        memcpy(&s->ms, h, sizeof s->ms), s->memsets++;
        break;
    case SST_REC_SYNC:
        KEEP(s->sy, s->syncs, 2);
        break;
    case SST_REC_API:
        KEEP(s->api, s->apis, 4);
        break;
    case SST_REC_NVTX_POP:
        s->pops++;
        break;
    case SST_REC_NVTX_DOMAIN:
        s->domains++;
        break;
    case SST_REC_PROCESS:
        memcpy(&s->proc, h, sizeof s->proc);
        break;
    case SST_REC_NVTX_PUSH:
        if (s->pushes < 4) {
            memcpy(&s->push[s->pushes], h, sizeof s->push[0]);
            text_of(r, s->push[s->pushes].message, s->push_msg[s->pushes], 80);
            text_of(r, s->push[s->pushes].domain, s->push_dom[s->pushes], 16);
        }
        s->pushes++;
        break;
    case SST_REC_THREAD:
        memcpy(&s->thread, h, sizeof s->thread), s->threads++;
        text_of(r, s->thread.name, s->thread_name, sizeof s->thread_name);
        break;
    case SST_REC_DEVICE:
        if (s->devices < 2) {
            memcpy(&s->dev[s->devices], h, sizeof s->dev[0]);
            text_of(r, s->dev[s->devices].name, s->dev_name[s->devices], 16);
        }
        s->devices++;
        break;
    case SST_REC_ENV:
        if (s->n_env < 16) {
            const struct sst_rec_env *e = (const void *)h;
            text_of(r, e->key, s->env[s->n_env][0], 64);
            text_of(r, e->value, s->env[s->n_env][1], 64);
            s->n_env++;
        }
        break;
    default:
        break;
    }
#undef KEEP
}

static void read_back(const char *path, struct seen *s)
{
    memset(s, 0, sizeof *s);
    struct sst_reader_opts o = {.strict = 1};
    struct sst_reader *r;
    REQUIRE(sst_reader_open(path, &o, &r) == 0);
    const struct sst_rec_header *h;
    int rc;
    while ((rc = sst_reader_next(r, &h)) == 1)
        note(s, r, h);
    CHECK_EQ(rc, 0);
    CHECK(sst_reader_status(r)->closed);
    CHECK_EQ(sst_reader_header(r)->pid, 77);
    CHECK_EQ(sst_reader_header(r)->clock, SST_CLOCK_SYNTHETIC);
    sst_reader_close(r);
}

static const char *env_of(const struct seen *s, const char *key)
{
    for (int i = 0; i < s->n_env; i++)
        if (!strcmp(s->env[i][0], key)) return s->env[i][1];
    return NULL;
}

static void check_gpu(const struct seen *s)
{
    CHECK_EQ(s->kernels, 1);
    CHECK_EQ_U64(s->k.start_ns, T(310000));
    CHECK_EQ_U64(s->k.end_ns, T(330000));
    CHECK_EQ(s->k.correlation, 7);
    CHECK(s->k.grid[0] == 2 && s->k.grid[1] == 3 && s->k.grid[2] == 4);
    CHECK(s->k.block[0] == 128 && s->k.block[1] == 1 && s->k.registers == 32);
    CHECK(s->k.shared_static == 1024 && s->k.device == 0 && s->k.stream == 7);
    REQUIRE(s->memcpys == 3);
    /* the HtoD waited for its call (right after it), the DtoH's call came first, the peer
     * copy has no correlation: all three written in that order */
    CHECK_EQ(s->mc[0].copy_kind, SST_COPY_H2D);
    CHECK_EQ(s->mc[0].src_kind, SST_MEM_PAGEABLE);
    CHECK_EQ(s->mc[0].flags, SST_CF_ASYNC);
    CHECK_EQ_U64(s->mc[0].start_ns, T(120250));
    CHECK_EQ_U64(s->mc[0].bytes, 4096);
    CHECK_EQ(s->mc[1].copy_kind, SST_COPY_D2H);
    CHECK_EQ(s->mc[1].dst_kind, SST_MEM_PINNED);
    CHECK_EQ(s->mc[1].flags, 0); /* cudaMemcpy: synchronous */
    CHECK_EQ(s->mc[2].copy_kind, SST_COPY_P2P);
    CHECK(s->mc[2].device == 1 && s->mc[2].src_device == 0 && s->mc[2].dst_device == 1);
    CHECK_EQ(s->memsets, 1);
    CHECK(s->ms.mem_kind == SST_MEM_DEVICE && s->ms.flags == 0 && s->ms.bytes == 4);
    REQUIRE(s->syncs == 2);
    CHECK(s->sy[0].kind == SST_SYNC_CONTEXT && s->sy[0].stream == 0xFFFFFFFFu);
    CHECK(s->sy[1].kind == SST_SYNC_EVENT && s->sy[1].stream == 7 && s->sy[1].event == 5);
}

static void check_host(const struct seen *s)
{
    REQUIRE(s->apis == 4);
    CHECK(s->api[0].cbid == 41 && s->api[0].domain == SST_API_RUNTIME && s->api[0].tid == 78);
    CHECK(s->api[1].cbid == 211 && s->api[1].correlation == 7); /* from the name */
    CHECK(s->api[2].cbid == 31);
    CHECK(s->api[3].cbid == 307 && s->api[3].domain == SST_API_DRIVER && s->api[3].tid == 79);
    CHECK_EQ_U64(s->api[0].end_ns - s->api[0].start_ns, 60000);
    CHECK_EQ(s->pushes, 4);
    CHECK_EQ(s->pops, 4);
    CHECK_STR(s->push_msg[0], "ProfilerStep#3");
    CHECK_EQ_U64(s->push[0].ts_ns, T(10000));
    CHECK_STR(s->push_msg[1], "data");
    CHECK_STR(s->push_dom[1], "stepscope");
    CHECK_STR(s->push_msg[2], "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
    CHECK_STR(s->push_dom[2], "");
    CHECK_STR(s->push_msg[3], "my \"range\"");
    CHECK_EQ(s->push[3].tid, 78); /* "tid": "78" */
    CHECK_EQ(s->domains, 1);
    CHECK_EQ(s->threads, 1);
    CHECK_STR(s->thread_name, "python3");
    CHECK_EQ(s->proc.pid, 77);
    CHECK(s->proc.rank == 1 && s->proc.world_size == 2);
    REQUIRE(s->devices == 2);
    CHECK_STR(s->dev_name[0], "GPU A");
    CHECK(s->dev[0].sm_count == 132 && s->dev[0].cc_major == 9 && s->dev[0].global_mem == 1000);
    CHECK_STR(s->dev_name[1], "GPU B");
    CHECK_STR(env_of(s, "driver_version"), "13000");
    CHECK_STR(env_of(s, "runtime_version"), "13000");
    CHECK_STR(env_of(s, "cupti.version"), "130001");
    CHECK_STR(env_of(s, "import.format"), "kineto-json");
    CHECK_STR(env_of(s, "import.skipped_host_ops"), "2");
}

static void test_good(void)
{
    char err[256] = "x";
    PATH(in, "good.json");
    write_file(in, good_doc, sizeof good_doc - 1);
    PATH(out, "good.sstrace");
    int rc = ssi_kineto_import(in, out, err, sizeof err);
    if (rc) fprintf(stderr, "import: %s\n", err);
    REQUIRE(rc == 0);
    CHECK_STR(err, "");
    struct seen s;
    read_back(out, &s);
    check_gpu(&s);
    check_host(&s);
    CHECK_EQ(stray_files("good.json", "good.sstrace"), 0);
    struct ssa_result *res;
    REQUIRE(ssa_analyze_file(out, NULL, &res) == 0);
    CHECK_EQ(res->step_source, SSA_STEPS_PROFILER);
    CHECK_EQ(res->n_steps, 1);
    CHECK_EQ(res->kernels, 1);
    ssa_result_free(res);
    unlink(in), unlink(out);
}

/* The same document gzip-compressed imports to the same records. */
static void test_gzip(void)
{
    char err[256];
    PATH(in, "good.json.gz");
    write_gz(in, good_doc, sizeof good_doc - 1);
    PATH(out, "gz.sstrace");
    REQUIRE(ssi_kineto_import(in, out, err, sizeof err) == 0);
    struct seen s;
    read_back(out, &s);
    check_gpu(&s);
    check_host(&s);
    unlink(out);
    /* cut short and corrupted: errors, nothing left */
    size_t n = file_size(in);
    char *buf = malloc(n);
    FILE *f = fopen(in, "rb");
    REQUIRE(buf && f && fread(buf, 1, n, f) == n);
    fclose(f);
    PATH(cut, "cut.json.gz");
    /* the gzip trailer cut off: every event is there, imported and marked truncated */
    write_file(cut, buf, n - 4);
    CHECK_EQ(ssi_kineto_import(cut, out, err, sizeof err), 0);
    read_back(out, &s);
    check_gpu(&s);
    CHECK(env_of(&s, "import.truncated_at") != NULL);
    unlink(out);
    write_file(cut, buf, 40); /* no event: still an error */
    CHECK_EQ(ssi_kineto_import(cut, out, err, sizeof err), SS_ETRUNC);
    CHECK_CONTAINS(err, "gzip");
    buf[n / 2] ^= 0x5a;
    write_file(cut, buf, n);
    CHECK(ssi_kineto_import(cut, out, err, sizeof err) < 0);
    CHECK(file_size(out) == 0 && access(out, F_OK) != 0);
    free(buf);
    unlink(cut), unlink(in);
    CHECK_EQ(stray_files(NULL, NULL), 0);
}

/* ---- hostile documents ---- */

struct bad_case {
    const char *doc;
    int code; /* expected ss_error; 0: any error */
    const char *says;
};

static const struct bad_case bad_cases[] = {
    {"", SS_EEMPTY, "empty"},
    {"[]", SS_EINVAL, "array"},
    {"[[[[[[[[[[", SS_EINVAL, "array"},
    {"\"text\"", SS_EINVAL, "string"},
    {"{}", SS_EINVAL, "traceEvents"},
    {"{\"traceEvents\": 5}", SS_EINVAL, "not an array"},
    {"{\"traceEvents\": {}}", SS_EINVAL, "not an array"},
    {"{\"traceEvents\": []}", SS_EINVAL, "empty"},
    {"{\"traceEvents\": [5]}", SS_EINVAL, "not an event object"},
    {"{\"traceEvents\": [[1]]}", SS_EINVAL, "not an event object"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1",
     SS_ETRUNC, "truncated"},
    {"{\"traceEvents\": [{,]}", SS_ECORRUPT, "not valid JSON"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1,"
     " \"dur\": 1}]} trailing",
     SS_ECORRUPT, "not valid JSON"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": \"1\","
     " \"dur\": 1}]}",
     SS_EINVAL, "\"ts\" is a string, not a number"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": 7, \"ts\": 1,"
     " \"dur\": 1}]}",
     SS_EINVAL, "\"name\" is a number"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1}]}",
     SS_EINVAL, "no \"dur\""},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1e300,"
     " \"dur\": 1}]}",
     SS_EINVAL, "out of range"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1,"
     " \"dur\": -1}]}",
     SS_EINVAL, "negative"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1,"
     " \"dur\": 1, \"args\": {\"device\": 70000}}]}",
     SS_EINVAL, "args.device"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1,"
     " \"dur\": 1, \"args\": {\"grid\": [1, \"2\", 3]}}]}",
     SS_EINVAL, "args.grid"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"x\", \"ts\": 1,"
     " \"dur\": 1, \"args\": {\"correlation\": -5}}]}",
     SS_EINVAL, "args.correlation"},
    {"{\"baseTimeNanoseconds\": \"soon\", \"traceEvents\": []}", SS_EINVAL, "baseTime"},
    /* base and ts each at the limit: their sum would overflow */
    {"{\"baseTimeNanoseconds\": 4611686018427387904, \"traceEvents\": [{\"ph\": \"X\","
     " \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 4611686018427387.904, \"dur\": 1}]}",
     SS_EINVAL, "\"ts\" is out of range"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"devtools.timeline\", \"name\": \"a\","
     " \"ts\": 1, \"dur\": 1}]}",
     SS_EINVAL, "Kineto"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\","
     " \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]}",
     SS_EINVAL, "nothing to import"},
};

/* One error line; no output file, no temporary. */
static void expect_failure(const char *in, int code, const char *says, const char *label)
{
    char err[512];
    memset(err, 'x', sizeof err);
    PATH(out, "bad.sstrace");
    int rc = ssi_kineto_import(in, out, err, sizeof err);
    if (rc >= 0 || (code && rc != code) || !memchr(err, 0, sizeof err) || !err[0] ||
        strchr(err, '\n') || (says && !strstr(err, says)))
        SS_FAIL_AT("%s: rc %d (want %d), err \"%.200s\" (want \"%s\")", label, rc, code,
                   memchr(err, 0, sizeof err) ? err : "(unterminated)", says ? says : "");
    CHECK(access(out, F_OK) != 0);
}

static void test_bad(void)
{
    PATH(in, "bad.json");
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        write_file(in, bad_cases[i].doc, strlen(bad_cases[i].doc));
        expect_failure(in, bad_cases[i].code, bad_cases[i].says, bad_cases[i].doc);
    }
    /* nested deeper than the importer follows, where it reads nothing */
    size_t depth = 100000;
    char *deep = malloc(2 * depth + 64);
    REQUIRE(deep != NULL);
    size_t n = (size_t)sprintf(deep, "{\"traceEvents\": [{\"args\": {\"x\": ");
    memset(deep + n, '[', depth);
    memset(deep + n + depth, ']', depth);
    n += 2 * depth;
    n += (size_t)sprintf(deep + n, "}}]}");
    write_file(in, deep, n);
    free(deep);
    expect_failure(in, SS_ETOOBIG, "nested deeper", "deep arrays");
    /* a name of 17 MiB: refused before the reader would buffer it (KI_TOKEN_MAX) */
    size_t big = 17u << 20;
    char *huge = malloc(big + 64);
    REQUIRE(huge != NULL);
    n = (size_t)sprintf(huge, "{\"traceEvents\": [{\"name\": \"");
    memset(huge + n, 'a', big);
    n += big;
    n += (size_t)sprintf(huge + n, "\"}]}");
    write_file(in, huge, n);
    expect_failure(in, SS_ETOOBIG, "longer than", "huge string");
    n = (size_t)sprintf(huge, "{\"traceEvents\": [{\"ts\": ");
    memset(huge + n, '7', big);
    n += big;
    n += (size_t)sprintf(huge + n, "}]}");
    write_file(in, huge, n);
    expect_failure(in, SS_ETOOBIG, "longer than", "huge number");
    free(huge);
    unlink(in);
    PATH(missing, "missing.json");
    expect_failure(missing, SS_ENOENT, "cannot open", "missing input");
    CHECK_EQ(stray_files(NULL, NULL), 0);
}

/* An output folder that does not exist: an error, nothing written. */
static void test_bad_output(void)
{
    char err[256];
    PATH(in, "good.json");
    write_file(in, good_doc, sizeof good_doc - 1);
    PATH(out, "no/such/dir/x.sstrace");
    CHECK_EQ(ssi_kineto_import(in, out, err, sizeof err), SS_ENOENT);
    CHECK(err[0] != '\0');
    unlink(in);
}

/* ssi_open_any: native traces as they are; Kineto imported into $TMPDIR; failures leave
 * nothing there. */
static void test_open_any(void)
{
    char err[256], *path = NULL;
    int is_temp = -1;
    PATH(in, "good.json");
    write_file(in, good_doc, sizeof good_doc - 1);
    setenv("TMPDIR", ss_test_dir, 1);
    REQUIRE(ssi_open_any(in, &path, &is_temp, err, sizeof err) == 0);
    CHECK_EQ(is_temp, 1);
    REQUIRE(path != NULL);
    CHECK(strncmp(path, ss_test_dir, strlen(ss_test_dir)) == 0);
    struct seen s;
    read_back(path, &s);
    check_gpu(&s);
    char *again = NULL;
    REQUIRE(ssi_open_any(path, &again, &is_temp, err, sizeof err) == 0);
    CHECK_EQ(is_temp, 0);
    CHECK_STR(again, path);
    free(again);
    unlink(path);
    free(path);
    write_file(in, "{\"traceEvents\": 5}", 18);
    path = NULL;
    CHECK(ssi_open_any(in, &path, &is_temp, err, sizeof err) < 0);
    CHECK(path == NULL);
    CHECK_CONTAINS(err, "not an array");
    unlink(in);
    CHECK_EQ(stray_files(NULL, NULL), 0);
}

int main(void)
{
    test_good();
    test_gzip();
    test_bad();
    test_bad_output();
    test_open_any();
    return ss_test_result();
}
