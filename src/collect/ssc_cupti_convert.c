/*
 * ssc_cupti_convert.c — turns CUPTI activity records into trace records (sst_format.h).
 *
 * Pure: every input comes from the record, every output goes through the sink, so the
 * tests can feed records built in memory on a machine without a GPU. The struct versions
 * are those of CUPTI 13 (cupti_activity.h): Kernel10, Memcpy6, MemcpyPtoP4, Memset4,
 * Synchronization2, API, Memory4, Overhead3, Device5, Context3, GraphTrace2.
 */
#include "collect/ssc_cupti.h"

#include <string.h>

#include "trace/sst_crc32c.h"

/* ---- API keep-lists ---------------------------------------------------------------------
 * A keep-list rather than a skip-list: CUDA adds getters with every release, and an unknown
 * call being left out costs less than a new getter flooding every trace. Each list is one
 * X-macro table used twice: as a switch (the predicate) and as an array (to enable exactly
 * these calls in CUPTI). A duplicate entry fails the build (duplicate case label). */

// clang-format off
/* Kernel launches: thousands a step in eager programs, the calls STEPSCOPE_LAUNCH_SAMPLE
 * records in one step of N (CUPTI's callback dispatch costs each about a microsecond:
 * docs/performance.md, "Recording cost"). */
#define SSC_RUNTIME_KERNEL_LAUNCH(X)                                                           \
    X(cudaLaunch_v3020) X(cudaLaunch_ptsz_v7000) X(cudaLaunchKernel_v7000)                     \
    X(cudaLaunchKernel_ptsz_v7000) X(__cudaLaunchKernel_v13000)                                \
    X(__cudaLaunchKernel_ptsz_v13000) X(cudaLaunchKernelExC_v11060)                            \
    X(cudaLaunchKernelExC_ptsz_v11060) X(cudaLaunchCooperativeKernel_v9000)                    \
    X(cudaLaunchCooperativeKernel_ptsz_v9000) X(cudaLaunchCooperativeKernelMultiDevice_v9000)

#define SSC_RUNTIME_LAUNCH(X)                                                                  \
    SSC_RUNTIME_KERNEL_LAUNCH(X) X(cudaLaunchHostFunc_v10000)                                  \
    X(cudaLaunchHostFunc_ptsz_v10000) X(cudaGraphLaunch_v10000) X(cudaGraphLaunch_ptsz_v10000)

#define SSC_RUNTIME_COPY(X)                                                                    \
    X(cudaMemcpy_v3020) X(cudaMemcpy_ptds_v7000) X(cudaMemcpyAsync_v3020)                      \
    X(cudaMemcpyAsync_ptsz_v7000) X(cudaMemcpy2D_v3020) X(cudaMemcpy2D_ptds_v7000)             \
    X(cudaMemcpy2DAsync_v3020) X(cudaMemcpy2DAsync_ptsz_v7000) X(cudaMemcpy3D_v3020)           \
    X(cudaMemcpy3D_ptds_v7000) X(cudaMemcpy3DAsync_v3020) X(cudaMemcpy3DAsync_ptsz_v7000)      \
    X(cudaMemcpyPeer_v4000) X(cudaMemcpyPeerAsync_v4000) X(cudaMemcpy3DPeer_v4000)             \
    X(cudaMemcpy3DPeerAsync_v4000) X(cudaMemcpyToSymbol_v3020) X(cudaMemcpyToSymbol_ptds_v7000)\
    X(cudaMemcpyFromSymbol_v3020) X(cudaMemcpyFromSymbol_ptds_v7000)                           \
    X(cudaMemcpyToSymbolAsync_v3020) X(cudaMemcpyToSymbolAsync_ptsz_v7000)                     \
    X(cudaMemcpyFromSymbolAsync_v3020) X(cudaMemcpyFromSymbolAsync_ptsz_v7000)                 \
    X(cudaMemcpyBatchAsync_v12080) X(cudaMemcpyBatchAsync_ptsz_v12080)                         \
    X(cudaMemcpyBatchAsync_v13000) X(cudaMemcpyBatchAsync_ptsz_v13000)                         \
    X(cudaMemPrefetchAsync_v8000) X(cudaMemPrefetchAsync_ptsz_v8000)                           \
    X(cudaMemPrefetchAsync_v12020) X(cudaMemPrefetchAsync_ptsz_v12020)                         \
    X(cudaMemset_v3020) X(cudaMemset_ptds_v7000) X(cudaMemsetAsync_v3020)                      \
    X(cudaMemsetAsync_ptsz_v7000) X(cudaMemset2D_v3020) X(cudaMemset2D_ptds_v7000)             \
    X(cudaMemset2DAsync_v3020) X(cudaMemset2DAsync_ptsz_v7000) X(cudaMemset3D_v3020)           \
    X(cudaMemset3D_ptds_v7000) X(cudaMemset3DAsync_v3020) X(cudaMemset3DAsync_ptsz_v7000)

/* The calls that block the host until the GPU catches up (PyTorch's .item(), .cpu() and
 * torch.cuda.synchronize() end in one): their entry wakes the sampler (ssc_syncsite.c). */
#define SSC_RUNTIME_SYNC(X)                                                                    \
    X(cudaDeviceSynchronize_v3020) X(cudaThreadSynchronize_v3020)                              \
    X(cudaStreamSynchronize_v3020) X(cudaStreamSynchronize_ptsz_v7000)                         \
    X(cudaEventSynchronize_v3020)

#define SSC_RUNTIME_OTHER(X)                                                                   \
    X(cudaStreamWaitEvent_v3020)                                                               \
    X(cudaStreamWaitEvent_ptsz_v7000) X(cudaMalloc_v3020) X(cudaFree_v3020)                    \
    X(cudaMallocPitch_v3020) X(cudaMalloc3D_v3020) X(cudaMallocManaged_v6000)                  \
    X(cudaMallocHost_v3020) X(cudaFreeHost_v3020) X(cudaHostAlloc_v3020)                       \
    X(cudaHostRegister_v4000) X(cudaHostUnregister_v4000) X(cudaMallocAsync_v11020)            \
    X(cudaMallocAsync_ptsz_v11020) X(cudaFreeAsync_v11020) X(cudaFreeAsync_ptsz_v11020)        \
    X(cudaMallocFromPoolAsync_v11020) X(cudaMallocFromPoolAsync_ptsz_v11020)                   \
    X(cudaEventCreate_v3020) X(cudaEventCreateWithFlags_v3020) X(cudaEventDestroy_v3020)       \
    X(cudaEventRecord_v3020) X(cudaEventRecord_ptsz_v7000) X(cudaEventRecordWithFlags_v11010)  \
    X(cudaEventRecordWithFlags_ptsz_v11010) X(cudaStreamCreate_v3020)                          \
    X(cudaStreamCreateWithFlags_v5000) X(cudaStreamCreateWithPriority_v5050)                   \
    X(cudaStreamDestroy_v3020) X(cudaStreamDestroy_v5050) X(cudaStreamBeginCapture_v10000)     \
    X(cudaStreamBeginCapture_ptsz_v10000) X(cudaStreamEndCapture_v10000)                       \
    X(cudaStreamEndCapture_ptsz_v10000) X(cudaGraphInstantiate_v10000)                         \
    X(cudaGraphInstantiate_v12000) X(cudaGraphInstantiateWithFlags_v11040)                     \
    X(cudaGraphUpload_v10000) X(cudaGraphUpload_ptsz_v10000) X(cudaDeviceReset_v3020)

#define SSC_RUNTIME_KEEP(X)                                                                    \
    SSC_RUNTIME_LAUNCH(X) SSC_RUNTIME_COPY(X) SSC_RUNTIME_SYNC(X) SSC_RUNTIME_OTHER(X)

/* Triton and torch.compile launch through the driver, so driver launches matter as much as
 * runtime ones. */
#define SSC_DRIVER_KERNEL_LAUNCH(X)                                                            \
    X(cuLaunch) X(cuLaunchGrid) X(cuLaunchGridAsync) X(cuLaunchKernel) X(cuLaunchKernel_ptsz)  \
    X(cuLaunchKernelEx) X(cuLaunchKernelEx_ptsz) X(cuLaunchCooperativeKernel)                  \
    X(cuLaunchCooperativeKernel_ptsz) X(cuLaunchCooperativeKernelMultiDevice)

#define SSC_DRIVER_LAUNCH(X)                                                                   \
    SSC_DRIVER_KERNEL_LAUNCH(X) X(cuLaunchHostFunc) X(cuLaunchHostFunc_ptsz) X(cuGraphLaunch)  \
    X(cuGraphLaunch_ptsz)

#define SSC_DRIVER_COPY(X)                                                                     \
    X(cuMemcpy) X(cuMemcpy_ptds) X(cuMemcpyAsync) X(cuMemcpyAsync_ptsz) X(cuMemcpyHtoD_v2)     \
    X(cuMemcpyHtoD_v2_ptds) X(cuMemcpyDtoH_v2) X(cuMemcpyDtoH_v2_ptds) X(cuMemcpyDtoD_v2)      \
    X(cuMemcpyDtoD_v2_ptds) X(cuMemcpyHtoDAsync_v2) X(cuMemcpyHtoDAsync_v2_ptsz)               \
    X(cuMemcpyDtoHAsync_v2) X(cuMemcpyDtoHAsync_v2_ptsz) X(cuMemcpyDtoDAsync_v2)               \
    X(cuMemcpyDtoDAsync_v2_ptsz) X(cuMemcpy2D_v2) X(cuMemcpy2D_v2_ptds) X(cuMemcpy2DAsync_v2)  \
    X(cuMemcpy2DAsync_v2_ptsz) X(cuMemcpy3D_v2) X(cuMemcpy3D_v2_ptds) X(cuMemcpy3DAsync_v2)    \
    X(cuMemcpy3DAsync_v2_ptsz) X(cuMemcpyPeer) X(cuMemcpyPeer_ptds) X(cuMemcpyPeerAsync)       \
    X(cuMemcpyPeerAsync_ptsz) X(cuMemcpyBatchAsync) X(cuMemcpyBatchAsync_ptsz)                 \
    X(cuMemcpyBatchAsync_v2) X(cuMemcpyBatchAsync_v2_ptsz) X(cuMemPrefetchAsync)               \
    X(cuMemPrefetchAsync_ptsz) X(cuMemPrefetchAsync_v2) X(cuMemPrefetchAsync_v2_ptsz)          \
    X(cuMemsetD8_v2) X(cuMemsetD8_v2_ptds) X(cuMemsetD16_v2) X(cuMemsetD16_v2_ptds)            \
    X(cuMemsetD32_v2) X(cuMemsetD32_v2_ptds) X(cuMemsetD8Async) X(cuMemsetD8Async_ptsz)        \
    X(cuMemsetD16Async) X(cuMemsetD16Async_ptsz) X(cuMemsetD32Async) X(cuMemsetD32Async_ptsz)  \
    X(cuMemsetD2D8_v2) X(cuMemsetD2D8Async) X(cuMemsetD2D32_v2) X(cuMemsetD2D32Async)

#define SSC_DRIVER_SYNC(X)                                                                     \
    X(cuCtxSynchronize) X(cuCtxSynchronize_v2) X(cuStreamSynchronize)                          \
    X(cuStreamSynchronize_ptsz) X(cuEventSynchronize)

/* cuMemCreate/cuMemMap/cuMemRelease are kept: PyTorch's expandable segments allocate so. */
#define SSC_DRIVER_OTHER(X)                                                                    \
    X(cuStreamWaitEvent)                                                                       \
    X(cuStreamWaitEvent_ptsz) X(cuMemAlloc_v2) X(cuMemFree_v2) X(cuMemAllocPitch_v2)           \
    X(cuMemAllocManaged) X(cuMemAllocHost_v2) X(cuMemFreeHost) X(cuMemHostAlloc)               \
    X(cuMemHostRegister_v2) X(cuMemHostUnregister) X(cuMemAllocAsync) X(cuMemAllocAsync_ptsz)  \
    X(cuMemFreeAsync) X(cuMemFreeAsync_ptsz) X(cuMemAllocFromPoolAsync)                        \
    X(cuMemAllocFromPoolAsync_ptsz) X(cuMemCreate) X(cuMemRelease) X(cuMemMap) X(cuMemUnmap)   \
    X(cuEventCreate) X(cuEventDestroy_v2) X(cuEventRecord) X(cuEventRecord_ptsz)               \
    X(cuEventRecordWithFlags) X(cuEventRecordWithFlags_ptsz) X(cuStreamCreate)                 \
    X(cuStreamCreateWithPriority) X(cuStreamDestroy_v2) X(cuStreamBeginCapture_v2)             \
    X(cuStreamBeginCapture_v2_ptsz) X(cuStreamEndCapture) X(cuStreamEndCapture_ptsz)           \
    X(cuGraphInstantiateWithFlags) X(cuGraphInstantiateWithParams)                             \
    X(cuGraphInstantiateWithParams_ptsz) X(cuGraphUpload) X(cuGraphUpload_ptsz)

#define SSC_DRIVER_KEEP(X)                                                                     \
    SSC_DRIVER_LAUNCH(X) SSC_DRIVER_COPY(X) SSC_DRIVER_SYNC(X) SSC_DRIVER_OTHER(X)

// clang-format on

#define SSC_RT_CASE(n) case CUPTI_RUNTIME_TRACE_CBID_##n:
#define SSC_DRV_CASE(n) case CUPTI_DRIVER_TRACE_CBID_##n:
#define SSC_RT_ELEM(n) CUPTI_RUNTIME_TRACE_CBID_##n,
#define SSC_DRV_ELEM(n) CUPTI_DRIVER_TRACE_CBID_##n,

int ssc_cupti_runtime_kept(uint32_t cbid)
{
    switch (cbid) {
        SSC_RUNTIME_KEEP(SSC_RT_CASE)
        return 1;
    default:
        return 0;
    }
}

int ssc_cupti_driver_kept(uint32_t cbid)
{
    switch (cbid) {
        SSC_DRIVER_KEEP(SSC_DRV_CASE)
        return 1;
    default:
        return 0;
    }
}

int ssc_cupti_runtime_launch(uint32_t cbid)
{
    switch (cbid) {
        SSC_RUNTIME_LAUNCH(SSC_RT_CASE)
        return 1;
    default:
        return 0;
    }
}

int ssc_cupti_driver_launch(uint32_t cbid)
{
    switch (cbid) {
        SSC_DRIVER_LAUNCH(SSC_DRV_CASE)
        return 1;
    default:
        return 0;
    }
}

int ssc_cupti_runtime_sync(uint32_t cbid)
{
    switch (cbid) {
        SSC_RUNTIME_SYNC(SSC_RT_CASE)
        return 1;
    default:
        return 0;
    }
}

int ssc_cupti_driver_sync(uint32_t cbid)
{
    switch (cbid) {
        SSC_DRIVER_SYNC(SSC_DRV_CASE)
        return 1;
    default:
        return 0;
    }
}

static const uint32_t runtime_keep[] = {SSC_RUNTIME_KEEP(SSC_RT_ELEM)};
static const uint32_t driver_keep[] = {SSC_DRIVER_KEEP(SSC_DRV_ELEM)};
static const uint32_t runtime_launch[] = {SSC_RUNTIME_LAUNCH(SSC_RT_ELEM)};
static const uint32_t driver_launch[] = {SSC_DRIVER_LAUNCH(SSC_DRV_ELEM)};
static const uint32_t runtime_kernel_launch[] = {SSC_RUNTIME_KERNEL_LAUNCH(SSC_RT_ELEM)};
static const uint32_t driver_kernel_launch[] = {SSC_DRIVER_KERNEL_LAUNCH(SSC_DRV_ELEM)};

#define SSC_LIST_FN(fn, arr)                                                                       \
    size_t fn(const uint32_t **out)                                                                \
    {                                                                                              \
        *out = arr;                                                                                \
        return sizeof(arr) / sizeof(arr[0]);                                                       \
    }
SSC_LIST_FN(ssc_cupti_runtime_keep_list, runtime_keep)
SSC_LIST_FN(ssc_cupti_driver_keep_list, driver_keep)
SSC_LIST_FN(ssc_cupti_runtime_launch_list, runtime_launch)
SSC_LIST_FN(ssc_cupti_driver_launch_list, driver_launch)
SSC_LIST_FN(ssc_cupti_runtime_kernel_launch_list, runtime_kernel_launch)
SSC_LIST_FN(ssc_cupti_driver_kernel_launch_list, driver_kernel_launch)

/* ---- enum mappings ------------------------------------------------------------------- */

static uint8_t map_mem_kind(uint32_t k)
{
    switch (k) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
        return SST_MEM_PAGEABLE;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
        return SST_MEM_PINNED;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
        return SST_MEM_DEVICE;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
        return SST_MEM_ARRAY;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
        return SST_MEM_MANAGED;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
        return SST_MEM_DEVICE_STATIC;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
        return SST_MEM_MANAGED_STATIC;
    default:
        return SST_MEM_UNKNOWN;
    }
}

static uint8_t map_copy_kind(uint32_t k)
{
    switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
        return SST_COPY_H2D;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
        return SST_COPY_D2H;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
        return SST_COPY_D2D;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
        return SST_COPY_H2H;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
        return SST_COPY_P2P;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
        return SST_COPY_H2A;
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
        return SST_COPY_A2H;
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
        return SST_COPY_OTHER;
    default:
        return SST_COPY_UNKNOWN;
    }
}

static uint8_t map_sync_kind(uint32_t t)
{
    switch (t) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
        return SST_SYNC_EVENT;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
        return SST_SYNC_STREAM_WAIT_EVENT;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
        return SST_SYNC_STREAM;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
        return SST_SYNC_CONTEXT;
    default:
        return SST_SYNC_UNKNOWN;
    }
}

/* Device ordinals fit in 16 bits in the trace; anything larger is not a real ordinal. */
static uint16_t dev16(uint32_t d)
{
    return d > 0xfffeu ? SSC_DEVICE_UNKNOWN : (uint16_t)d;
}

/* A GPU-timed record without a sane interval (CUPTI writes 0 when it ran out of device
 * memory for timestamps) would put work at the clock's origin: leave it out, counted. */
static int untimed(uint64_t start, uint64_t end)
{
    return start == 0 || end < start;
}

static uint32_t intern_cstr(const struct ssc_cupti_sink *s, const char *str)
{
    return str ? s->intern(s->ctx, str, strlen(str)) : SST_NO_STRING;
}

/* ---- context -> device ------------------------------------------------------------- */

static void ctx_map_put(struct ssc_ctx_map *m, uint32_t context, uint16_t device)
{
    for (uint32_t i = 0; i < m->used; i++) {
        if (m->context[i] == context) {
            m->device[i] = device;
            return;
        }
    }
    if (m->used < SSC_CTX_MAP_SIZE) {
        m->context[m->used] = context;
        m->device[m->used] = device;
        m->used++;
    }
}

static uint16_t ctx_map_get(const struct ssc_ctx_map *m, uint32_t context)
{
    for (uint32_t i = 0; m && i < m->used; i++)
        if (m->context[i] == context) return m->device[i];
    return SSC_DEVICE_UNKNOWN;
}

/* ---- one function per activity kind ------------------------------------------------ */

/* Reserves a record of struct type T into variable r, or returns DROPPED. */
#define SSC_RESERVE(r, T, type)                                                                    \
    T *r = sink->reserve(sink->ctx, (type), sizeof(T));                                            \
    if (!r) return SSC_CONV_DROPPED

static enum ssc_conv_result conv_kernel(const CUpti_ActivityKernel10 *k,
                                        const struct ssc_cupti_sink *sink)
{
    if (untimed(k->start, k->end)) return SSC_CONV_UNTIMED;
    uint32_t name = intern_cstr(sink, k->name); /* before reserve: interning may record */
    SSC_RESERVE(r, struct sst_rec_kernel, SST_REC_KERNEL);
    r->name = name;
    r->start_ns = k->start;
    r->end_ns = k->end;
    r->correlation = k->correlationId;
    r->stream = k->streamId;
    r->grid[0] = (uint32_t)k->gridX;
    r->grid[1] = (uint32_t)k->gridY;
    r->grid[2] = (uint32_t)k->gridZ;
    r->block[0] = (uint16_t)k->blockX;
    r->block[1] = (uint16_t)k->blockY;
    r->block[2] = (uint16_t)k->blockZ;
    r->registers = k->registersPerThread;
    r->shared_static = (uint32_t)k->staticSharedMemory;
    r->shared_dynamic = (uint32_t)k->dynamicSharedMemory;
    r->graph_id = k->graphId;
    r->device = dev16(k->deviceId);
    if (k->graphId != 0) r->flags |= SST_KF_GRAPH;
    if (k->launchType == CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE ||
        k->launchType == CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_MULTI_DEVICE)
        r->flags |= SST_KF_COOPERATIVE;
    /* SST_KF_DRIVER_LAUNCH is not in the kernel record: the analysis finds it through the
     * correlation id of the API record that launched the kernel. */
    sink->commit(sink->ctx, r);
    return SSC_CONV_RECORD;
}

/* The fields CUPTI's memcpy and peer-to-peer memcpy records share: two struct types, one way
 * of reading them. */
#define CONV_MEMCPY_COMMON(r, m)                                                       \
    do {                                                                               \
        (r)->copy_kind = map_copy_kind((m)->copyKind);                                 \
        (r)->src_kind = map_mem_kind((m)->srcKind);                                    \
        (r)->dst_kind = map_mem_kind((m)->dstKind);                                    \
        (r)->flags = ((m)->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) ? SST_CF_ASYNC : 0; \
        (r)->start_ns = (m)->start;                                                    \
        (r)->end_ns = (m)->end;                                                        \
        (r)->bytes = (m)->bytes;                                                       \
        (r)->correlation = (m)->correlationId;                                         \
        (r)->stream = (m)->streamId;                                                   \
        (r)->device = dev16((m)->deviceId);                                            \
    } while (0)

static enum ssc_conv_result conv_memcpy(const CUpti_ActivityMemcpy6 *m,
                                        const struct ssc_cupti_sink *sink)
{
    if (untimed(m->start, m->end)) return SSC_CONV_UNTIMED;
    SSC_RESERVE(r, struct sst_rec_memcpy, SST_REC_MEMCPY);
    CONV_MEMCPY_COMMON(r, m);
    r->src_device = r->device;
    r->dst_device = r->device;
    sink->commit(sink->ctx, r);
    return SSC_CONV_RECORD;
}

static enum ssc_conv_result conv_memcpy2(const CUpti_ActivityMemcpyPtoP4 *m,
                                         const struct ssc_cupti_sink *sink)
{
    if (untimed(m->start, m->end)) return SSC_CONV_UNTIMED;
    SSC_RESERVE(r, struct sst_rec_memcpy, SST_REC_MEMCPY);
    CONV_MEMCPY_COMMON(r, m);
    r->src_device = dev16(m->srcDeviceId);
    r->dst_device = dev16(m->dstDeviceId);
    sink->commit(sink->ctx, r);
    return SSC_CONV_RECORD;
}

static enum ssc_conv_result conv_memset(const CUpti_ActivityMemset4 *m,
                                        const struct ssc_cupti_sink *sink)
{
    if (untimed(m->start, m->end)) return SSC_CONV_UNTIMED;
    SSC_RESERVE(r, struct sst_rec_memset, SST_REC_MEMSET);
    r->mem_kind = map_mem_kind(m->memoryKind);
    r->flags = (m->flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) ? SST_CF_ASYNC : 0;
    r->device = dev16(m->deviceId);
    r->start_ns = m->start;
    r->end_ns = m->end;
    r->bytes = m->bytes;
    r->correlation = m->correlationId;
    r->stream = m->streamId;
    r->value = m->value;
    sink->commit(sink->ctx, r);
    return SSC_CONV_RECORD;
}

static enum ssc_conv_result conv_sync(const CUpti_ActivitySynchronization2 *s,
                                      const struct ssc_cupti_sink *sink)
{
    if (untimed(s->start, s->end)) return SSC_CONV_UNTIMED;
    SSC_RESERVE(r, struct sst_rec_sync, SST_REC_SYNC);
    r->kind = map_sync_kind(s->type);
    r->device = ctx_map_get(sink->contexts, s->contextId);
    r->start_ns = s->start;
    r->end_ns = s->end;
    r->correlation = s->correlationId;
    /* CUPTI's "not applicable" is 0xffffffff, which is also the trace's. */
    r->stream = s->streamId;
    r->event = s->cudaEventId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? 0 : s->cudaEventId;
    sink->commit(sink->ctx, r);
    return SSC_CONV_RECORD;
}

static enum ssc_conv_result conv_api(const CUpti_ActivityAPI *a, uint8_t domain,
                                     const struct ssc_cupti_sink *sink)
{
    int kept = domain == SST_API_RUNTIME ? ssc_cupti_runtime_kept(a->cbid)
                                         : ssc_cupti_driver_kept(a->cbid);
    /* Also enforced here, not only in CUPTI's per-call switches: another client enabling
     * all of RUNTIME/DRIVER, or an older CUPTI without per-call control, sends everything. */
    if (!kept) return SSC_CONV_FILTERED;
    SSC_RESERVE(r, struct sst_rec_api, SST_REC_API);
    r->domain = domain;
    r->start_ns = a->start;
    r->end_ns = a->end;
    r->tid = a->threadId;
    r->cbid = a->cbid;
    r->correlation = a->correlationId;
    r->result = (int32_t)a->returnValue;
    sink->commit(sink->ctx, r);
    return SSC_CONV_RECORD;
}

static enum ssc_conv_result conv_memory(const CUpti_ActivityMemory4 *m,
                                        const struct ssc_cupti_sink *sink)
{
    uint8_t op;
    if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION)
        op = SST_MEMOP_ALLOC;
    else if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
        op = SST_MEMOP_FREE;
    else
        return SSC_CONV_FILTERED;
    SSC_RESERVE(r, struct sst_rec_memory, SST_REC_MEMORY);
    r->op = op;
    r->mem_kind = map_mem_kind(m->memoryKind);
    r->device = dev16(m->deviceId);
    r->ts_ns = m->timestamp;
    r->address = m->address;
    r->bytes = m->bytes;
    r->correlation = m->correlationId;
    r->stream = m->streamId;
    sink->commit(sink->ctx, r);
    return SSC_CONV_RECORD;
}

static enum ssc_conv_result conv_overhead(const CUpti_ActivityOverhead3 *o,
                                          const struct ssc_cupti_sink *sink)
{
    if (untimed(o->start, o->end)) return SSC_CONV_UNTIMED;
    SSC_RESERVE(r, struct sst_rec_overhead, SST_REC_OVERHEAD);
    r->kind = (uint32_t)o->overheadKind;
    r->start_ns = o->start;
    r->end_ns = o->end;
    r->tid = o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? o->objectId.pt.threadId : 0;
    sink->commit(sink->ctx, r);
    return SSC_CONV_RECORD;
}

/* One graph launch (STEPSCOPE_GRAPHS=graph): device INT_MAX means "on the host". */
static enum ssc_conv_result conv_graph(const CUpti_ActivityGraphTrace2 *g,
                                       const struct ssc_cupti_sink *sink)
{
    if (untimed(g->start, g->end)) return SSC_CONV_UNTIMED;
    SSC_RESERVE(r, struct sst_rec_graph, SST_REC_GRAPH);
    r->device = dev16(g->deviceId);
    r->end_device = dev16(g->endDeviceId);
    r->start_ns = g->start;
    r->end_ns = g->end;
    r->correlation = g->correlationId;
    r->graph_id = g->graphId;
    r->stream = g->streamId;
    sink->commit(sink->ctx, r);
    return SSC_CONV_RECORD;
}

static enum ssc_conv_result conv_device(const CUpti_ActivityDevice5 *d,
                                        const struct ssc_cupti_sink *sink)
{
    uint32_t name = intern_cstr(sink, d->name);
    SSC_RESERVE(r, struct sst_rec_device, SST_REC_DEVICE);
    r->device = d->id;
    r->name = name;
    r->sm_count = d->numMultiprocessors;
    r->cc_major = (uint16_t)d->computeCapabilityMajor;
    r->cc_minor = (uint16_t)d->computeCapabilityMinor;
    r->uuid_hi_crc = sst_crc32c(0, d->uuid.bytes, sizeof(d->uuid.bytes));
    r->global_mem = d->globalMemorySize;
    /* Memory clock, bus width and PCI bus are not in CUPTI's device record; the core's
     * environment record reads them from the driver. */
    sink->commit(sink->ctx, r);
    return SSC_CONV_RECORD;
}

static enum ssc_conv_result conv_context(const CUpti_ActivityContext3 *c,
                                         const struct ssc_cupti_sink *sink)
{
    /* Bookkeeping only: remembered for the device of later SYNCHRONIZATION records. */
    if (sink->contexts) ctx_map_put(sink->contexts, c->contextId, dev16(c->deviceId));
    return SSC_CONV_FILTERED;
}

enum ssc_conv_result ssc_cupti_convert(const CUpti_Activity *a, const struct ssc_cupti_sink *sink)
{
    switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        return conv_kernel((const CUpti_ActivityKernel10 *)a, sink);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        return conv_memcpy((const CUpti_ActivityMemcpy6 *)a, sink);
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
        return conv_memcpy2((const CUpti_ActivityMemcpyPtoP4 *)a, sink);
    case CUPTI_ACTIVITY_KIND_MEMSET:
        return conv_memset((const CUpti_ActivityMemset4 *)a, sink);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        return conv_sync((const CUpti_ActivitySynchronization2 *)a, sink);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
        return conv_api((const CUpti_ActivityAPI *)a, SST_API_RUNTIME, sink);
    case CUPTI_ACTIVITY_KIND_DRIVER:
        return conv_api((const CUpti_ActivityAPI *)a, SST_API_DRIVER, sink);
    case CUPTI_ACTIVITY_KIND_MEMORY2:
        return conv_memory((const CUpti_ActivityMemory4 *)a, sink);
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
        return conv_overhead((const CUpti_ActivityOverhead3 *)a, sink);
    case CUPTI_ACTIVITY_KIND_DEVICE:
        return conv_device((const CUpti_ActivityDevice5 *)a, sink);
    case CUPTI_ACTIVITY_KIND_CONTEXT:
        return conv_context((const CUpti_ActivityContext3 *)a, sink);
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
        return conv_graph((const CUpti_ActivityGraphTrace2 *)a, sink);
    default:
        return SSC_CONV_UNKNOWN;
    }
}
