/*
 * test_cupti_convert.c — the CUPTI half of the collector without a GPU: CUPTI activity
 * records built in memory go through ssc_cupti_convert into a sink that keeps them, and
 * every field of the resulting trace records is checked. Also the API keep-lists and the
 * takeover watch. One case per process: `test_cupti_convert CASE` (ctest runs each).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/ssc_cupti.h"
#include "trace/sst_crc32c.h"

static int g_failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            g_failures++;                                                                          \
        }                                                                                          \
    } while (0)
#define CHECK_EQ(a, b)                                                                             \
    do {                                                                                           \
        unsigned long long va_ = (unsigned long long)(a), vb_ = (unsigned long long)(b);           \
        if (va_ != vb_) {                                                                          \
            fprintf(stderr, "%s:%d: %s == %llu, expected %s == %llu\n", __FILE__, __LINE__, #a,    \
                    va_, #b, vb_);                                                                 \
            g_failures++;                                                                          \
        }                                                                                          \
    } while (0)

/* ---- a sink that keeps what it is given ------------------------------------------- */

#define MAX_RECS 16
#define MAX_STRS 16
struct test_sink {
    void *recs[MAX_RECS];
    int committed[MAX_RECS];
    int nrecs;
    char *strs[MAX_STRS];
    int nstrs;
    int refuse; /* reserve returns NULL */
};

static void *t_reserve(void *ctx, uint16_t type, size_t size)
{
    struct test_sink *t = ctx;
    if (t->refuse || t->nrecs == MAX_RECS) return NULL;
    size_t rounded = (size + 7) & ~(size_t)7;
    struct sst_rec_header *h = calloc(1, rounded);
    if (!h) return NULL;
    h->type = type;
    h->size = (uint16_t)rounded;
    t->recs[t->nrecs++] = h;
    return h;
}

static void t_commit(void *ctx, void *rec)
{
    struct test_sink *t = ctx;
    for (int i = 0; i < t->nrecs; i++)
        if (t->recs[i] == rec) t->committed[i]++;
}

/* Ids are 1 + index; the same string gets the same id. */
static uint32_t t_intern(void *ctx, const char *s, size_t len)
{
    struct test_sink *t = ctx;
    for (int i = 0; i < t->nstrs; i++)
        if (strlen(t->strs[i]) == len && memcmp(t->strs[i], s, len) == 0) return (uint32_t)i + 1;
    if (t->nstrs == MAX_STRS) return SST_NO_STRING;
    t->strs[t->nstrs] = strndup(s, len);
    return (uint32_t)++t->nstrs;
}

static struct test_sink g_t;
static struct ssc_ctx_map g_ctxmap;
static const struct ssc_cupti_sink g_sink = {t_reserve, t_commit, t_intern, &g_t, &g_ctxmap};

static void sink_reset(void)
{
    for (int i = 0; i < g_t.nrecs; i++)
        free(g_t.recs[i]);
    for (int i = 0; i < g_t.nstrs; i++)
        free(g_t.strs[i]);
    memset(&g_t, 0, sizeof(g_t));
}

/* Converts a, expects exactly one committed record of type and size; returns it. */
static void *convert_one(const void *a, uint16_t type, size_t size)
{
    sink_reset();
    enum ssc_conv_result r = ssc_cupti_convert(a, &g_sink);
    CHECK_EQ(r, SSC_CONV_RECORD);
    CHECK_EQ(g_t.nrecs, 1);
    if (g_t.nrecs != 1) return NULL;
    struct sst_rec_header *h = g_t.recs[0];
    CHECK_EQ(g_t.committed[0], 1);
    CHECK_EQ(h->type, type);
    CHECK_EQ(h->size, size);
    return h;
}

static void expect_result(const void *a, enum ssc_conv_result want)
{
    sink_reset();
    CHECK_EQ(ssc_cupti_convert(a, &g_sink), want);
    CHECK_EQ(g_t.nrecs, 0);
}

/* ---- kernels ------------------------------------------------------------------------ */

static CUpti_ActivityKernel10 make_kernel(void)
{
    CUpti_ActivityKernel10 k;
    memset(&k, 0, sizeof(k));
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = 1000000;
    k.end = 1006000;
    k.deviceId = 1;
    k.streamId = 7;
    k.gridX = 128, k.gridY = 2, k.gridZ = 1;
    k.blockX = 256, k.blockY = 1, k.blockZ = 1;
    k.registersPerThread = 40;
    k.staticSharedMemory = 4096;
    k.dynamicSharedMemory = 49152;
    k.correlationId = 4242;
    k.name = "ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_tn";
    return k;
}

static void case_kernel(void)
{
    CUpti_ActivityKernel10 k = make_kernel();
    struct sst_rec_kernel *r = convert_one(&k, SST_REC_KERNEL, sizeof(*r));
    if (!r) return;
    CHECK_EQ(r->name, 1);
    CHECK(g_t.nstrs == 1 && strcmp(g_t.strs[0], k.name) == 0);
    CHECK_EQ(r->start_ns, 1000000);
    CHECK_EQ(r->end_ns, 1006000);
    CHECK_EQ(r->correlation, 4242);
    CHECK_EQ(r->stream, 7);
    CHECK_EQ(r->grid[0], 128);
    CHECK_EQ(r->grid[1], 2);
    CHECK_EQ(r->grid[2], 1);
    CHECK_EQ(r->block[0], 256);
    CHECK_EQ(r->block[1], 1);
    CHECK_EQ(r->block[2], 1);
    CHECK_EQ(r->registers, 40);
    CHECK_EQ(r->shared_static, 4096);
    CHECK_EQ(r->shared_dynamic, 49152);
    CHECK_EQ(r->graph_id, 0);
    CHECK_EQ(r->device, 1);
    CHECK_EQ(r->flags, 0);

    /* In a graph, cooperative, and the legacy serialized KERNEL kind. */
    k.graphId = 9;
    k.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE;
    k.kind = CUPTI_ACTIVITY_KIND_KERNEL;
    r = convert_one(&k, SST_REC_KERNEL, sizeof(*r));
    if (!r) return;
    CHECK_EQ(r->graph_id, 9);
    CHECK_EQ(r->flags, SST_KF_GRAPH | SST_KF_COOPERATIVE);

    /* No name: no string. */
    k.name = NULL;
    r = convert_one(&k, SST_REC_KERNEL, sizeof(*r));
    if (r) CHECK_EQ(r->name, SST_NO_STRING);
}

static void case_untimed(void)
{
    CUpti_ActivityKernel10 k = make_kernel();
    k.start = 0, k.end = 0; /* CUPTI ran out of device memory for timestamps */
    expect_result(&k, SSC_CONV_UNTIMED);
    k.start = 2000, k.end = 1000;
    expect_result(&k, SSC_CONV_UNTIMED);
}

static void case_dropped(void)
{
    CUpti_ActivityKernel10 k = make_kernel();
    sink_reset();
    g_t.refuse = 1;
    CHECK_EQ(ssc_cupti_convert((const CUpti_Activity *)&k, &g_sink), SSC_CONV_DROPPED);
    CHECK_EQ(g_t.nrecs, 0);
}

/* ---- copies and memsets -------------------------------------------------------------- */

static CUpti_ActivityMemcpy6 make_memcpy(uint8_t copy, uint8_t src, uint8_t dst, uint8_t flags)
{
    CUpti_ActivityMemcpy6 m;
    memset(&m, 0, sizeof(m));
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = copy;
    m.srcKind = src;
    m.dstKind = dst;
    m.flags = flags;
    m.bytes = 1u << 20;
    m.start = 5000;
    m.end = 9000;
    m.deviceId = 0;
    m.streamId = 13;
    m.correlationId = 77;
    return m;
}

static void check_memcpy(const CUpti_ActivityMemcpy6 *m, uint8_t copy, uint8_t src, uint8_t dst,
                         uint8_t flags)
{
    struct sst_rec_memcpy *r = convert_one(m, SST_REC_MEMCPY, sizeof(*r));
    if (!r) return;
    CHECK_EQ(r->copy_kind, copy);
    CHECK_EQ(r->src_kind, src);
    CHECK_EQ(r->dst_kind, dst);
    CHECK_EQ(r->flags, flags);
    CHECK_EQ(r->start_ns, 5000);
    CHECK_EQ(r->end_ns, 9000);
    CHECK_EQ(r->bytes, 1u << 20);
    CHECK_EQ(r->correlation, 77);
    CHECK_EQ(r->stream, 13);
    CHECK_EQ(r->device, 0);
    CHECK_EQ(r->src_device, 0);
    CHECK_EQ(r->dst_device, 0);
}

static void case_memcpy(void)
{
    /* pageable H2D, synchronous: the `.cuda()` without pin_memory case */
    CUpti_ActivityMemcpy6 m =
        make_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
                    CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 0);
    check_memcpy(&m, SST_COPY_H2D, SST_MEM_PAGEABLE, SST_MEM_DEVICE, 0);
    /* pinned H2D, async: pin_memory=True, non_blocking=True */
    m = make_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                    CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC);
    check_memcpy(&m, SST_COPY_H2D, SST_MEM_PINNED, SST_MEM_DEVICE, SST_CF_ASYNC);
    /* D2H into pageable memory: loss.item() */
    m = make_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                    CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, 0);
    check_memcpy(&m, SST_COPY_D2H, SST_MEM_DEVICE, SST_MEM_PAGEABLE, 0);
    /* D2D, managed, arrays and an unknown memory kind */
    m = make_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, CUPTI_ACTIVITY_MEMORY_KIND_MANAGED,
                    CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC, 0);
    check_memcpy(&m, SST_COPY_D2D, SST_MEM_MANAGED, SST_MEM_DEVICE_STATIC, 0);
    m = make_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOA, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                    CUPTI_ACTIVITY_MEMORY_KIND_ARRAY, 0);
    check_memcpy(&m, SST_COPY_H2A, SST_MEM_PINNED, SST_MEM_ARRAY, 0);
    m = make_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_ATOD, 42, CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN, 0);
    check_memcpy(&m, SST_COPY_OTHER, SST_MEM_UNKNOWN, SST_MEM_UNKNOWN, 0);
    m = make_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOH, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
                    CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC, 0);
    check_memcpy(&m, SST_COPY_H2H, SST_MEM_PAGEABLE, SST_MEM_MANAGED_STATIC, 0);
}

static void case_memcpy_p2p(void)
{
    CUpti_ActivityMemcpyPtoP4 m;
    memset(&m, 0, sizeof(m));
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
    m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
    m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    m.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
    m.bytes = 64u << 20;
    m.start = 100;
    m.end = 350;
    m.deviceId = 2;
    m.srcDeviceId = 2;
    m.dstDeviceId = 5;
    m.streamId = 3;
    m.correlationId = 11;
    struct sst_rec_memcpy *r = convert_one(&m, SST_REC_MEMCPY, sizeof(*r));
    if (!r) return;
    CHECK_EQ(r->copy_kind, SST_COPY_P2P);
    CHECK_EQ(r->src_kind, SST_MEM_DEVICE);
    CHECK_EQ(r->dst_kind, SST_MEM_DEVICE);
    CHECK_EQ(r->flags, SST_CF_ASYNC);
    CHECK_EQ(r->bytes, 64u << 20);
    CHECK_EQ(r->start_ns, 100);
    CHECK_EQ(r->end_ns, 350);
    CHECK_EQ(r->device, 2);
    CHECK_EQ(r->src_device, 2);
    CHECK_EQ(r->dst_device, 5);
    CHECK_EQ(r->stream, 3);
    CHECK_EQ(r->correlation, 11);
}

static void case_memset(void)
{
    CUpti_ActivityMemset4 m;
    memset(&m, 0, sizeof(m));
    m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    m.value = 0xab;
    m.bytes = 4096;
    m.start = 10;
    m.end = 20;
    m.deviceId = 3;
    m.streamId = 8;
    m.correlationId = 99;
    m.flags = CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC;
    m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    struct sst_rec_memset *r = convert_one(&m, SST_REC_MEMSET, sizeof(*r));
    if (!r) return;
    CHECK_EQ(r->mem_kind, SST_MEM_DEVICE);
    CHECK_EQ(r->flags, SST_CF_ASYNC);
    CHECK_EQ(r->device, 3);
    CHECK_EQ(r->start_ns, 10);
    CHECK_EQ(r->end_ns, 20);
    CHECK_EQ(r->bytes, 4096);
    CHECK_EQ(r->correlation, 99);
    CHECK_EQ(r->stream, 8);
    CHECK_EQ(r->value, 0xab);
}

/* ---- synchronization ----------------------------------------------------------------- */

static void case_sync(void)
{
    /* The CONTEXT record maps context 5 to device 1; it produces no trace record. */
    CUpti_ActivityContext3 c;
    memset(&c, 0, sizeof(c));
    c.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
    c.contextId = 5;
    c.deviceId = 1;
    memset(&g_ctxmap, 0, sizeof(g_ctxmap));
    expect_result(&c, SSC_CONV_FILTERED);

    static const struct {
        uint32_t cupti;
        uint8_t sst;
        uint32_t stream, event;
    } cases[] = {
        {CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, SST_SYNC_EVENT, 4, 17},
        {CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, SST_SYNC_STREAM_WAIT_EVENT, 4, 18},
        {CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, SST_SYNC_STREAM, 4,
         CUPTI_SYNCHRONIZATION_INVALID_VALUE},
        {CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, SST_SYNC_CONTEXT,
         CUPTI_SYNCHRONIZATION_INVALID_VALUE, CUPTI_SYNCHRONIZATION_INVALID_VALUE},
        {CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN, SST_SYNC_UNKNOWN, 4, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CUpti_ActivitySynchronization2 s;
        memset(&s, 0, sizeof(s));
        s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
        s.type = cases[i].cupti;
        s.start = 300;
        s.end = 800;
        s.correlationId = 21;
        s.contextId = 5;
        s.streamId = cases[i].stream;
        s.cudaEventId = cases[i].event;
        struct sst_rec_sync *r = convert_one(&s, SST_REC_SYNC, sizeof(*r));
        if (!r) continue;
        CHECK_EQ(r->kind, cases[i].sst);
        CHECK_EQ(r->device, 1);
        CHECK_EQ(r->start_ns, 300);
        CHECK_EQ(r->end_ns, 800);
        CHECK_EQ(r->correlation, 21);
        CHECK_EQ(r->stream, cases[i].stream); /* 0xffffffff: not stream-specific */
        CHECK_EQ(r->event,
                 cases[i].event == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? 0 : cases[i].event);
    }

    /* A context never seen: device unknown. */
    CUpti_ActivitySynchronization2 s;
    memset(&s, 0, sizeof(s));
    s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
    s.start = 1, s.end = 2, s.contextId = 6;
    struct sst_rec_sync *r = convert_one(&s, SST_REC_SYNC, sizeof(*r));
    if (r) CHECK_EQ(r->device, SSC_DEVICE_UNKNOWN);
}

/* ---- API records --------------------------------------------------------------------- */

static CUpti_ActivityAPI make_api(CUpti_ActivityKind kind, uint32_t cbid)
{
    CUpti_ActivityAPI a;
    memset(&a, 0, sizeof(a));
    a.kind = kind;
    a.cbid = cbid;
    a.start = 7000;
    a.end = 7400;
    a.processId = 1234;
    a.threadId = 1240;
    a.correlationId = 4242;
    a.returnValue = 0;
    return a;
}

static void case_api(void)
{
    CUpti_ActivityAPI a =
        make_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
    struct sst_rec_api *r = convert_one(&a, SST_REC_API, sizeof(*r));
    if (r) {
        CHECK_EQ(r->domain, SST_API_RUNTIME);
        CHECK_EQ(r->start_ns, 7000);
        CHECK_EQ(r->end_ns, 7400);
        CHECK_EQ(r->tid, 1240);
        CHECK_EQ(r->cbid, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
        CHECK_EQ(r->correlation, 4242);
        CHECK_EQ(r->result, 0);
    }
    /* A failed cudaMalloc keeps its error code (cudaErrorMemoryAllocation = 2). */
    a = make_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020);
    a.returnValue = 2;
    r = convert_one(&a, SST_REC_API, sizeof(*r));
    if (r) CHECK_EQ(r->result, 2);
    /* Driver launch (Triton, torch.compile). */
    a = make_api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
    r = convert_one(&a, SST_REC_API, sizeof(*r));
    if (r) {
        CHECK_EQ(r->domain, SST_API_DRIVER);
        CHECK_EQ(r->cbid, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
    }
    /* Getters are filtered, in both domains. */
    a = make_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020);
    expect_result(&a, SSC_CONV_FILTERED);
    a = make_api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent);
    expect_result(&a, SSC_CONV_FILTERED);
    /* The same cbid number means different calls in the two domains: the domain decides. */
    a = make_api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
    CHECK_EQ(ssc_cupti_driver_kept(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
                 ? SSC_CONV_RECORD
                 : SSC_CONV_FILTERED,
             ssc_cupti_convert((const CUpti_Activity *)&a, &g_sink));
}

static void case_filter(void)
{
    static const uint32_t rt_keep[] = {
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
        CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020,
    };
    static const uint32_t rt_skip[] = {
        CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_v10000,
        CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetAttribute_v5000,
        CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020,
        CUPTI_RUNTIME_TRACE_CBID_INVALID,
    };
    static const uint32_t drv_keep[] = {
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
        CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
        CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
    };
    static const uint32_t drv_skip[] = {
        CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,
        CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress,
        CUPTI_DRIVER_TRACE_CBID_cuDeviceGetAttribute,
        CUPTI_DRIVER_TRACE_CBID_cuKernelGetAttribute,
        CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxGetState,
        CUPTI_DRIVER_TRACE_CBID_INVALID,
    };
    for (size_t i = 0; i < sizeof(rt_keep) / sizeof(rt_keep[0]); i++)
        CHECK(ssc_cupti_runtime_kept(rt_keep[i]));
    for (size_t i = 0; i < sizeof(rt_skip) / sizeof(rt_skip[0]); i++)
        CHECK(!ssc_cupti_runtime_kept(rt_skip[i]));
    for (size_t i = 0; i < sizeof(drv_keep) / sizeof(drv_keep[0]); i++)
        CHECK(ssc_cupti_driver_kept(drv_keep[i]));
    for (size_t i = 0; i < sizeof(drv_skip) / sizeof(drv_skip[0]); i++)
        CHECK(!ssc_cupti_driver_kept(drv_skip[i]));
    CHECK(ssc_cupti_runtime_launch(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
    CHECK(!ssc_cupti_runtime_launch(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020));
    CHECK(ssc_cupti_driver_launch(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx));
    CHECK(!ssc_cupti_driver_launch(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2));
}

/* The arrays (what CUPTI is told to record) and the predicates (what conversion keeps)
 * must be the same sets; every launch must be kept (the takeover probe relies on it). */
static void case_filter_lists(void)
{
    const uint32_t *ids;
    size_t n = ssc_cupti_runtime_keep_list(&ids);
    CHECK(n > 50);
    for (size_t i = 0; i < n; i++)
        CHECK(ssc_cupti_runtime_kept(ids[i]));
    size_t kept = 0;
    for (uint32_t c = 0; c < CUPTI_RUNTIME_TRACE_CBID_SIZE; c++)
        kept += ssc_cupti_runtime_kept(c);
    CHECK_EQ(kept, n);
    n = ssc_cupti_driver_keep_list(&ids);
    CHECK(n > 50);
    for (size_t i = 0; i < n; i++)
        CHECK(ssc_cupti_driver_kept(ids[i]));
    kept = 0;
    for (uint32_t c = 0; c < CUPTI_DRIVER_TRACE_CBID_SIZE; c++)
        kept += ssc_cupti_driver_kept(c);
    CHECK_EQ(kept, n);
    n = ssc_cupti_runtime_launch_list(&ids);
    for (size_t i = 0; i < n; i++)
        CHECK(ssc_cupti_runtime_kept(ids[i]));
    n = ssc_cupti_driver_launch_list(&ids);
    for (size_t i = 0; i < n; i++)
        CHECK(ssc_cupti_driver_kept(ids[i]));
}

/* ---- memory, overhead, device, unknown ------------------------------------------------- */

static void case_memory(void)
{
    CUpti_ActivityMemory4 m;
    memset(&m, 0, sizeof(m));
    m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
    m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
    m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    m.correlationId = 31;
    m.address = 0x7f0000000000ull;
    m.bytes = 2u << 20;
    m.timestamp = 123456;
    m.deviceId = 1;
    m.streamId = 2;
    struct sst_rec_memory *r = convert_one(&m, SST_REC_MEMORY, sizeof(*r));
    if (r) {
        CHECK_EQ(r->op, SST_MEMOP_ALLOC);
        CHECK_EQ(r->mem_kind, SST_MEM_DEVICE);
        CHECK_EQ(r->device, 1);
        CHECK_EQ(r->ts_ns, 123456);
        CHECK_EQ(r->address, 0x7f0000000000ull);
        CHECK_EQ(r->bytes, 2u << 20);
        CHECK_EQ(r->correlation, 31);
        CHECK_EQ(r->stream, 2);
    }
    m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
    m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
    r = convert_one(&m, SST_REC_MEMORY, sizeof(*r));
    if (r) {
        CHECK_EQ(r->op, SST_MEMOP_FREE);
        CHECK_EQ(r->mem_kind, SST_MEM_PINNED);
    }
    m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_INVALID;
    expect_result(&m, SSC_CONV_FILTERED);
}

static void case_overhead(void)
{
    CUpti_ActivityOverhead3 o;
    memset(&o, 0, sizeof(o));
    o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
    o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
    o.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    o.objectId.pt.processId = 1234;
    o.objectId.pt.threadId = 1250;
    o.start = 40;
    o.end = 90;
    struct sst_rec_overhead *r = convert_one(&o, SST_REC_OVERHEAD, sizeof(*r));
    if (r) {
        CHECK_EQ(r->kind, CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH);
        CHECK_EQ(r->start_ns, 40);
        CHECK_EQ(r->end_ns, 90);
        CHECK_EQ(r->tid, 1250);
    }
    o.objectKind = CUPTI_ACTIVITY_OBJECT_DEVICE; /* not a thread: no tid */
    o.objectId.dcs.deviceId = 3;
    r = convert_one(&o, SST_REC_OVERHEAD, sizeof(*r));
    if (r) CHECK_EQ(r->tid, 0);
}

static void case_device(void)
{
    CUpti_ActivityDevice5 d;
    memset(&d, 0, sizeof(d));
    d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
    d.id = 0;
    d.name = "NVIDIA H200";
    d.numMultiprocessors = 132;
    d.computeCapabilityMajor = 9;
    d.computeCapabilityMinor = 0;
    d.globalMemorySize = 150ull << 30;
    for (int i = 0; i < 16; i++)
        d.uuid.bytes[i] = (char)(i * 7 + 1);
    struct sst_rec_device *r = convert_one(&d, SST_REC_DEVICE, sizeof(*r));
    if (!r) return;
    CHECK_EQ(r->device, 0);
    CHECK(r->name == 1 && strcmp(g_t.strs[0], "NVIDIA H200") == 0);
    CHECK_EQ(r->sm_count, 132);
    CHECK_EQ(r->cc_major, 9);
    CHECK_EQ(r->cc_minor, 0);
    CHECK_EQ(r->global_mem, 150ull << 30);
    CHECK_EQ(r->uuid_hi_crc, sst_crc32c(0, d.uuid.bytes, 16));
    CHECK(r->uuid_hi_crc != 0);
}

static void case_unknown(void)
{
    CUpti_ActivityKernel10 k = make_kernel(); /* large enough for any kind's header */
    k.kind = CUPTI_ACTIVITY_KIND_PC_SAMPLING;
    expect_result(&k, SSC_CONV_UNKNOWN);
    k.kind = (CUpti_ActivityKind)999;
    expect_result(&k, SSC_CONV_UNKNOWN);
}

/* ---- takeover watch ------------------------------------------------------------------ */

#define S 1000000000ull
static void case_watch(void)
{
    struct ssc_watch w;
    uint64_t d = 0, l = 0, t = 100 * S;
    ssc_watch_init(&w, t, 3 * S, 1 * S);

    /* Deliveries every second: nothing happens. */
    for (int i = 0; i < 10; i++)
        CHECK_EQ(ssc_watch_tick(&w, t += S, 1, ++d, l), SSC_WATCH_NONE);
    /* Outside the capture window silence is expected. */
    for (int i = 0; i < 10; i++)
        CHECK_EQ(ssc_watch_tick(&w, t += S, 0, d, l), SSC_WATCH_NONE);

    /* Quiet for 3 s while capturing -> a forced flush first; ours comes back (records were
     * waiting in a partly filled buffer) -> healthy, no subscription, backed off to 6 s. */
    CHECK_EQ(ssc_watch_tick(&w, t += S, 1, d, l), SSC_WATCH_NONE);
    CHECK_EQ(ssc_watch_tick(&w, t += S, 1, d, l), SSC_WATCH_NONE);
    CHECK_EQ(ssc_watch_tick(&w, t += S, 1, d, l), SSC_WATCH_CONFIRM);
    CHECK_EQ(w.state, SSC_WATCH_PRECHECK);
    CHECK_EQ(ssc_watch_tick(&w, t, 1, d, l), SSC_WATCH_NONE); /* waits for the confirm */
    CHECK_EQ(ssc_watch_confirm(&w, t, ++d, l), SSC_WATCH_PROBE_OFF);
    CHECK_EQ(w.state, SSC_WATCH_QUIET);
    for (int i = 0; i < 5; i++)
        CHECK_EQ(ssc_watch_tick(&w, t += S, 1, d, l), SSC_WATCH_NONE);
    /* 6 s quiet, the flush brings nothing -> probe; no launch during it -> idle, 12 s next. */
    CHECK_EQ(ssc_watch_tick(&w, t += S, 1, d, l), SSC_WATCH_CONFIRM);
    CHECK_EQ(ssc_watch_confirm(&w, t, d, l), SSC_WATCH_PROBE_ON);
    CHECK_EQ(w.state, SSC_WATCH_PROBING);
    CHECK_EQ(ssc_watch_tick(&w, t += S, 1, d, l), SSC_WATCH_PROBE_OFF);
    for (int i = 0; i < 11; i++)
        CHECK_EQ(ssc_watch_tick(&w, t += S, 1, d, l), SSC_WATCH_NONE);
    CHECK_EQ(ssc_watch_tick(&w, t += S, 1, d, l), SSC_WATCH_CONFIRM);
    CHECK_EQ(ssc_watch_confirm(&w, t, d, l), SSC_WATCH_PROBE_ON);
    /* A delivery during the probe ends it and resets the backoff to 3 s. */
    CHECK_EQ(ssc_watch_tick(&w, t += S / 2, 1, ++d, l), SSC_WATCH_PROBE_OFF);

    /* Launches during the probe but nothing delivered -> confirm; the forced flush
     * reaches us -> healthy. */
    CHECK_EQ(ssc_watch_tick(&w, t += S, 1, d, l), SSC_WATCH_NONE);
    CHECK_EQ(ssc_watch_tick(&w, t += S, 1, d, l), SSC_WATCH_NONE);
    CHECK_EQ(ssc_watch_tick(&w, t += S, 1, d, l), SSC_WATCH_CONFIRM);
    CHECK_EQ(ssc_watch_confirm(&w, t, d, l), SSC_WATCH_PROBE_ON);
    l += 50;
    CHECK_EQ(ssc_watch_tick(&w, t += S, 1, d, l), SSC_WATCH_CONFIRM);
    CHECK_EQ(ssc_watch_confirm(&w, t, ++d, l), SSC_WATCH_PROBE_OFF);
    CHECK_EQ(w.state, SSC_WATCH_QUIET);

    /* Same, but the forced flushes deliver nothing: taken over, for good. */
    for (int i = 0; i < 5; i++)
        CHECK_EQ(ssc_watch_tick(&w, t += S, 1, d, l), SSC_WATCH_NONE);
    CHECK_EQ(ssc_watch_tick(&w, t += S, 1, d, l), SSC_WATCH_CONFIRM);
    CHECK_EQ(ssc_watch_confirm(&w, t, d, l), SSC_WATCH_PROBE_ON);
    l += 50;
    CHECK_EQ(ssc_watch_tick(&w, t += S, 1, d, l), SSC_WATCH_CONFIRM);
    CHECK_EQ(ssc_watch_confirm(&w, t, d, l), SSC_WATCH_TAKEN_OVER);
    CHECK_EQ(w.state, SSC_WATCH_TAKEN);
    CHECK_EQ(ssc_watch_tick(&w, t += S, 1, ++d, l += 5), SSC_WATCH_NONE);
    CHECK_EQ(ssc_watch_confirm(&w, t, d, l), SSC_WATCH_NONE);
}

static void case_watch_backoff_cap(void)
{
    struct ssc_watch w;
    uint64_t t = 0;
    ssc_watch_init(&w, t, 3 * S, 1 * S);
    /* An idle program: probes get rarer, down to one every 96 s, never rarer. */
    uint64_t last_probe = 0, gap = 0;
    for (int i = 0; i < 2000; i++) {
        enum ssc_watch_action a = ssc_watch_tick(&w, t += S, 1, 0, 0);
        if (a == SSC_WATCH_CONFIRM) a = ssc_watch_confirm(&w, t, 0, 0); /* nothing comes back */
        if (a == SSC_WATCH_PROBE_ON) {
            gap = t - last_probe;
            last_probe = t;
        }
        CHECK(a != SSC_WATCH_CONFIRM && a != SSC_WATCH_TAKEN_OVER);
    }
    CHECK_EQ(gap, 97 * S); /* 96 s quiet + 1 s probe */
}

/* ---- graph launches (GRAPH_TRACE) --------------------------------------------------- */

static void case_graph(void)
{
    CUpti_ActivityGraphTrace2 g;
    memset(&g, 0, sizeof g);
    g.kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
    g.correlationId = 901;
    g.start = 5000;
    g.end = 9000;
    g.deviceId = 1;
    g.endDeviceId = 2;
    g.graphId = 17;
    g.contextId = 3;
    g.streamId = 13;
    struct sst_rec_graph *r = convert_one(&g, SST_REC_GRAPH, sizeof *r);
    if (r) {
        CHECK_EQ(r->start_ns, 5000);
        CHECK_EQ(r->end_ns, 9000);
        CHECK_EQ(r->correlation, 901);
        CHECK_EQ(r->graph_id, 17);
        CHECK_EQ(r->stream, 13);
        CHECK_EQ(r->device, 1);
        CHECK_EQ(r->end_device, 2);
    }
    g.deviceId = 0x7fffffff; /* INT_MAX: the graph starts on the host */
    r = convert_one(&g, SST_REC_GRAPH, sizeof *r);
    if (r) CHECK_EQ(r->device, SSC_DEVICE_UNKNOWN);
    g.start = 0, g.end = 0; /* CUPTI could not time it */
    expect_result(&g, SSC_CONV_UNTIMED);
}

/* ---- API calls from callbacks (ssc_cupti_api.c) ------------------------------------- */

/* One callback of thread t: domain (SST_API_*), entry (0) or exit (1), at time now. */
static enum ssc_api_outcome cb(struct ssc_api_thread *t, uint8_t domain, uint8_t exit,
                               uint32_t cbid, uint32_t corr, uint64_t now, uint32_t gen)
{
    struct ssc_api_event ev = {domain, exit, cbid, corr, exit ? 3 : 0, now};
    return ssc_api_event(t, &ev, gen, &g_sink);
}

/* Entry then exit: one record with the entry's start, the exit's end, the call's ids. */
static void case_api_cb_pair(void)
{
    struct ssc_api_thread t = {.tid = 777};
    sink_reset();
    uint32_t launch = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
    CHECK_EQ(cb(&t, SST_API_RUNTIME, 0, launch, 41, 1000, 1), SSC_API_OPENED);
    CHECK_EQ(g_t.nrecs, 0);
    CHECK_EQ(cb(&t, SST_API_RUNTIME, 1, launch, 41, 1500, 1), SSC_API_RECORDED);
    CHECK_EQ(g_t.nrecs, 1);
    struct sst_rec_api *r = g_t.nrecs == 1 ? g_t.recs[0] : NULL;
    if (r) {
        CHECK_EQ(g_t.committed[0], 1);
        CHECK_EQ(r->h.type, SST_REC_API);
        CHECK_EQ(r->h.size, sizeof *r);
        CHECK_EQ(r->domain, SST_API_RUNTIME);
        CHECK_EQ(r->start_ns, 1000);
        CHECK_EQ(r->end_ns, 1500);
        CHECK_EQ(r->tid, 777);
        CHECK_EQ(r->cbid, launch);
        CHECK_EQ(r->correlation, 41);
        CHECK_EQ(r->result, 3);
    }
    /* The slot is closed: a second exit of the same call is not recorded again. */
    CHECK_EQ(cb(&t, SST_API_RUNTIME, 1, launch, 41, 1600, 1), SSC_API_UNPAIRED);
    CHECK_EQ(g_t.nrecs, 1);
}

/* A driver call inside a runtime call is the runtime's work: only the runtime call is
 * recorded. A driver call on its own (Triton's cuLaunchKernel) is recorded. */
static void case_api_cb_nested(void)
{
    struct ssc_api_thread t = {.tid = 5};
    sink_reset();
    uint32_t memcpy_rt = CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020;
    uint32_t memcpy_drv = CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2;
    uint32_t launch_drv = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
    CHECK_EQ(cb(&t, SST_API_RUNTIME, 0, memcpy_rt, 10, 100, 7), SSC_API_OPENED);
    CHECK_EQ(cb(&t, SST_API_DRIVER, 0, memcpy_drv, 11, 110, 7), SSC_API_NESTED);
    CHECK_EQ(cb(&t, SST_API_DRIVER, 1, memcpy_drv, 11, 190, 7), SSC_API_NESTED);
    CHECK_EQ(cb(&t, SST_API_RUNTIME, 1, memcpy_rt, 10, 200, 7), SSC_API_RECORDED);
    CHECK_EQ(cb(&t, SST_API_DRIVER, 0, launch_drv, 12, 300, 7), SSC_API_OPENED);
    CHECK_EQ(cb(&t, SST_API_DRIVER, 1, launch_drv, 12, 350, 7), SSC_API_RECORDED);
    CHECK_EQ(g_t.nrecs, 2);
    if (g_t.nrecs == 2) {
        struct sst_rec_api *a = g_t.recs[0], *b = g_t.recs[1];
        CHECK_EQ(a->domain, SST_API_RUNTIME);
        CHECK_EQ(a->cbid, memcpy_rt);
        CHECK_EQ(a->start_ns, 100);
        CHECK_EQ(a->end_ns, 200);
        CHECK_EQ(b->domain, SST_API_DRIVER);
        CHECK_EQ(b->cbid, launch_drv);
        CHECK_EQ(b->correlation, 12);
        CHECK_EQ(b->start_ns, 300);
    }
    /* Threads are independent: another thread's driver call is not nested in this one's. */
    struct ssc_api_thread u = {.tid = 6};
    CHECK_EQ(cb(&t, SST_API_RUNTIME, 0, memcpy_rt, 20, 400, 7), SSC_API_OPENED);
    CHECK_EQ(cb(&u, SST_API_DRIVER, 0, launch_drv, 21, 410, 7), SSC_API_OPENED);
    CHECK_EQ(cb(&u, SST_API_DRIVER, 1, launch_drv, 21, 420, 7), SSC_API_RECORDED);
    CHECK_EQ(g_t.nrecs, 3);
}

/* Switched on mid-call (the exit's entry came before, or under an earlier generation):
 * dropped, never paired with another call's start. A stale open runtime call does not make
 * later driver calls look nested. */
static void case_api_cb_unpaired(void)
{
    struct ssc_api_thread t = {.tid = 9};
    sink_reset();
    uint32_t sync = CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020;
    uint32_t launch_drv = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
    CHECK_EQ(cb(&t, SST_API_RUNTIME, 1, sync, 1, 50, 1), SSC_API_UNPAIRED); /* no entry */
    CHECK_EQ(cb(&t, SST_API_RUNTIME, 0, sync, 2, 60, 1), SSC_API_OPENED);
    /* switched off and on again (generation 2) before the exit came */
    CHECK_EQ(cb(&t, SST_API_RUNTIME, 1, sync, 2, 70, 2), SSC_API_UNPAIRED);
    CHECK_EQ(cb(&t, SST_API_RUNTIME, 0, sync, 3, 80, 1), SSC_API_OPENED);
    CHECK_EQ(cb(&t, SST_API_DRIVER, 0, launch_drv, 4, 90, 2), SSC_API_OPENED); /* not nested */
    CHECK_EQ(cb(&t, SST_API_DRIVER, 1, launch_drv, 4, 95, 2), SSC_API_RECORDED);
    /* an exit with another call's correlation id leaves the open call alone */
    CHECK_EQ(cb(&t, SST_API_RUNTIME, 0, sync, 5, 100, 2), SSC_API_OPENED);
    CHECK_EQ(cb(&t, SST_API_RUNTIME, 1, sync, 6, 110, 2), SSC_API_UNPAIRED);
    CHECK_EQ(cb(&t, SST_API_RUNTIME, 1, sync, 5, 120, 2), SSC_API_RECORDED);
    CHECK_EQ(g_t.nrecs, 2);
    if (g_t.nrecs == 2) CHECK_EQ(((struct sst_rec_api *)g_t.recs[1])->start_ns, 100);
    /* a full sink: the call is dropped, and the slot is free for the next one */
    g_t.refuse = 1;
    CHECK_EQ(cb(&t, SST_API_RUNTIME, 0, sync, 7, 130, 2), SSC_API_OPENED);
    CHECK_EQ(cb(&t, SST_API_RUNTIME, 1, sync, 7, 140, 2), SSC_API_DROPPED);
    g_t.refuse = 0;
    CHECK_EQ(cb(&t, SST_API_DRIVER, 0, launch_drv, 8, 150, 2), SSC_API_OPENED);
}

/* ---- main ---------------------------------------------------------------------------- */

static const struct {
    const char *name;
    void (*fn)(void);
} g_cases[] = {
    {"kernel", case_kernel},
    {"untimed", case_untimed},
    {"dropped", case_dropped},
    {"memcpy", case_memcpy},
    {"memcpy_p2p", case_memcpy_p2p},
    {"memset", case_memset},
    {"sync", case_sync},
    {"api", case_api},
    {"filter", case_filter},
    {"filter_lists", case_filter_lists},
    {"memory", case_memory},
    {"overhead", case_overhead},
    {"device", case_device},
    {"unknown", case_unknown},
    {"watch", case_watch},
    {"watch_backoff", case_watch_backoff_cap},
    {"graph", case_graph},
    {"api_cb_pair", case_api_cb_pair},
    {"api_cb_nested", case_api_cb_nested},
    {"api_cb_unpaired", case_api_cb_unpaired},
};

int main(int argc, char **argv)
{
    size_t n = sizeof(g_cases) / sizeof(g_cases[0]);
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < n; i++)
            printf("%s\n", g_cases[i].name);
        return 0;
    }
    int ran = 0;
    for (size_t i = 0; i < n; i++) {
        if (argc >= 2 && strcmp(argv[1], g_cases[i].name) != 0) continue;
        g_cases[i].fn();
        ran++;
    }
    sink_reset();
    if (!ran) {
        fprintf(stderr, "unknown case %s (see --list)\n", argc >= 2 ? argv[1] : "");
        return 2;
    }
    if (g_failures) fprintf(stderr, "%d check(s) failed\n", g_failures);
    return g_failures ? 1 : 0;
}
