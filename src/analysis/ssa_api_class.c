/*
 * ssa_api_class.c — the one table of CUDA API calls the attribution cares about.
 *
 * Keyed by CUPTI callback id, named as the trace module's callback-id table names them
 * (src/trace/sst_cbid_table.h, generated from CUPTI's headers): a name here that is not a
 * CUPTI callback does not build, and the names themselves are that table's (sst_cbid_name).
 *
 * Classes: launch = queues GPU work and returns (kernels, graphs, async copies and memsets);
 * sync = blocks the host until the GPU catches up (stream/device/event synchronize, and the
 * non-async copies and memsets, which synchronise); alloc = device, host-pinned and managed
 * allocation and free (cudaFree also synchronises the device, but the fix is the
 * allocator's, so it is alloc). Anything not listed is "other" host work.
 */
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "ssa.h"
#include "trace/sst_cbid.h"
#include "trace/sst_format.h"

/* R(runtime call, class), D(driver call, class): the names of sst_cbid_table.h */
#define SSA_API_TABLE(R, D)                                                                        \
    R(cudaLaunch_v3020, LAUNCH)                                                                    \
    R(cudaLaunchKernel_v7000, LAUNCH)                                                              \
    R(cudaLaunch_ptsz_v7000, LAUNCH)                                                               \
    R(cudaLaunchKernel_ptsz_v7000, LAUNCH)                                                         \
    R(cudaLaunchCooperativeKernel_v9000, LAUNCH)                                                   \
    R(cudaLaunchCooperativeKernel_ptsz_v9000, LAUNCH)                                              \
    R(cudaLaunchCooperativeKernelMultiDevice_v9000, LAUNCH)                                        \
    R(cudaLaunchHostFunc_v10000, LAUNCH)                                                           \
    R(cudaLaunchHostFunc_ptsz_v10000, LAUNCH)                                                      \
    R(cudaGraphLaunch_v10000, LAUNCH)                                                              \
    R(cudaGraphLaunch_ptsz_v10000, LAUNCH)                                                         \
    R(cudaLaunchKernelExC_v11060, LAUNCH)                                                          \
    R(cudaLaunchKernelExC_ptsz_v11060, LAUNCH)                                                     \
    R(__cudaLaunchKernel_v13000, LAUNCH)                                                           \
    R(__cudaLaunchKernel_ptsz_v13000, LAUNCH)                                                      \
    R(cudaMemcpyAsync_v3020, LAUNCH)                                                               \
    R(cudaMemcpyToArrayAsync_v3020, LAUNCH)                                                        \
    R(cudaMemcpyFromArrayAsync_v3020, LAUNCH)                                                      \
    R(cudaMemcpy2DAsync_v3020, LAUNCH)                                                             \
    R(cudaMemcpyToSymbolAsync_v3020, LAUNCH)                                                       \
    R(cudaMemcpyFromSymbolAsync_v3020, LAUNCH)                                                     \
    R(cudaMemsetAsync_v3020, LAUNCH)                                                               \
    R(cudaMemset2DAsync_v3020, LAUNCH)                                                             \
    R(cudaMemset3DAsync_v3020, LAUNCH)                                                             \
    R(cudaMemcpy3DAsync_v3020, LAUNCH)                                                             \
    R(cudaMemcpyPeerAsync_v4000, LAUNCH)                                                           \
    R(cudaMemcpy3DPeerAsync_v4000, LAUNCH)                                                         \
    R(cudaMemcpyAsync_ptsz_v7000, LAUNCH)                                                          \
    R(cudaMemcpy2DAsync_ptsz_v7000, LAUNCH)                                                        \
    R(cudaMemsetAsync_ptsz_v7000, LAUNCH)                                                          \
    R(cudaMemcpyBatchAsync_v12080, LAUNCH)                                                         \
    R(cudaMemcpyBatchAsync_v13000, LAUNCH)                                                         \
    R(cudaMemcpy_v3020, SYNC)                                                                      \
    R(cudaMemcpy2D_v3020, SYNC)                                                                    \
    R(cudaMemcpyToSymbol_v3020, SYNC)                                                              \
    R(cudaMemcpyFromSymbol_v3020, SYNC)                                                            \
    R(cudaMemset_v3020, SYNC)                                                                      \
    R(cudaMemset2D_v3020, SYNC)                                                                    \
    R(cudaThreadSynchronize_v3020, SYNC)                                                           \
    R(cudaStreamSynchronize_v3020, SYNC)                                                           \
    R(cudaEventSynchronize_v3020, SYNC)                                                            \
    R(cudaMemcpy3D_v3020, SYNC)                                                                    \
    R(cudaMemcpyPeer_v4000, SYNC)                                                                  \
    R(cudaDeviceSynchronize_v3020, SYNC)                                                           \
    R(cudaMemcpy_ptds_v7000, SYNC)                                                                 \
    R(cudaMemset_ptds_v7000, SYNC)                                                                 \
    R(cudaStreamSynchronize_ptsz_v7000, SYNC)                                                      \
    R(cudaMalloc_v3020, ALLOC)                                                                     \
    R(cudaMallocPitch_v3020, ALLOC)                                                                \
    R(cudaFree_v3020, ALLOC)                                                                       \
    R(cudaMallocHost_v3020, ALLOC)                                                                 \
    R(cudaFreeHost_v3020, ALLOC)                                                                   \
    R(cudaHostAlloc_v3020, ALLOC)                                                                  \
    R(cudaMalloc3D_v3020, ALLOC)                                                                   \
    R(cudaHostRegister_v4000, ALLOC)                                                               \
    R(cudaHostUnregister_v4000, ALLOC)                                                             \
    R(cudaMallocManaged_v6000, ALLOC)                                                              \
    R(cudaMallocAsync_v11020, ALLOC)                                                               \
    R(cudaMallocAsync_ptsz_v11020, ALLOC)                                                          \
    R(cudaFreeAsync_v11020, ALLOC)                                                                 \
    R(cudaFreeAsync_ptsz_v11020, ALLOC)                                                            \
    D(cuLaunchKernel, LAUNCH)                                                                      \
    D(cuLaunchKernel_ptsz, LAUNCH)                                                                 \
    D(cuLaunchCooperativeKernel, LAUNCH)                                                           \
    D(cuLaunchCooperativeKernel_ptsz, LAUNCH)                                                      \
    D(cuGraphLaunch, LAUNCH)                                                                       \
    D(cuGraphLaunch_ptsz, LAUNCH)                                                                  \
    D(cuLaunchKernelEx, LAUNCH)                                                                    \
    D(cuLaunchKernelEx_ptsz, LAUNCH)                                                               \
    D(cuMemsetD8Async, LAUNCH)                                                                     \
    D(cuMemsetD16Async, LAUNCH)                                                                    \
    D(cuMemsetD32Async, LAUNCH)                                                                    \
    D(cuMemcpyHtoDAsync_v2, LAUNCH)                                                                \
    D(cuMemcpyDtoHAsync_v2, LAUNCH)                                                                \
    D(cuMemcpyDtoDAsync_v2, LAUNCH)                                                                \
    D(cuMemcpyAsync, LAUNCH)                                                                       \
    D(cuMemcpyPeerAsync, LAUNCH)                                                                   \
    D(cuMemcpyAsync_ptsz, LAUNCH)                                                                  \
    D(cuMemcpyHtoDAsync_v2_ptsz, LAUNCH)                                                           \
    D(cuMemcpyDtoHAsync_v2_ptsz, LAUNCH)                                                           \
    D(cuMemcpyDtoDAsync_v2_ptsz, LAUNCH)                                                           \
    D(cuMemsetD8Async_ptsz, LAUNCH)                                                                \
    D(cuMemsetD32Async_ptsz, LAUNCH)                                                               \
    D(cuCtxSynchronize, SYNC)                                                                      \
    D(cuEventSynchronize, SYNC)                                                                    \
    D(cuStreamSynchronize, SYNC)                                                                   \
    D(cuMemsetD8_v2, SYNC)                                                                         \
    D(cuMemsetD32_v2, SYNC)                                                                        \
    D(cuMemcpyHtoD_v2, SYNC)                                                                       \
    D(cuMemcpyDtoH_v2, SYNC)                                                                       \
    D(cuMemcpyDtoD_v2, SYNC)                                                                       \
    D(cuMemcpy, SYNC)                                                                              \
    D(cuMemcpyPeer, SYNC)                                                                          \
    D(cuMemcpyHtoD_v2_ptds, SYNC)                                                                  \
    D(cuMemcpyDtoH_v2_ptds, SYNC)                                                                  \
    D(cuStreamSynchronize_ptsz, SYNC)                                                              \
    D(cuCtxSynchronize_v2, SYNC)                                                                   \
    D(cuMemFreeHost, ALLOC)                                                                        \
    D(cuMemHostAlloc, ALLOC)                                                                       \
    D(cuMemAlloc_v2, ALLOC)                                                                        \
    D(cuMemAllocPitch_v2, ALLOC)                                                                   \
    D(cuMemFree_v2, ALLOC)                                                                         \
    D(cuMemHostAlloc_v2, ALLOC)                                                                    \
    D(cuMemAllocHost_v2, ALLOC)                                                                    \
    D(cuMemHostUnregister, ALLOC)                                                                  \
    D(cuMemAllocManaged, ALLOC)                                                                    \
    D(cuMemHostRegister_v2, ALLOC)                                                                 \
    D(cuMemCreate, ALLOC)                                                                          \
    D(cuMemRelease, ALLOC)                                                                         \
    D(cuMemMap, ALLOC)                                                                             \
    D(cuMemUnmap, ALLOC)                                                                           \
    D(cuMemAllocAsync, ALLOC)                                                                      \
    D(cuMemAllocAsync_ptsz, ALLOC)                                                                 \
    D(cuMemFreeAsync, ALLOC)                                                                       \
    D(cuMemFreeAsync_ptsz, ALLOC)

struct api_row {
    uint8_t domain;
    uint8_t cls;
    uint16_t cbid;
};

#define SSA_ROW_R(name, cls) {SST_API_RUNTIME, SSA_API_##cls, SST_CBID_RT_##name},
#define SSA_ROW_D(name, cls) {SST_API_DRIVER, SSA_API_##cls, SST_CBID_DRV_##name},
static const struct api_row api_rows[] = {SSA_API_TABLE(SSA_ROW_R, SSA_ROW_D)};
#undef SSA_ROW_R
#undef SSA_ROW_D

#define API_LOOKUP_MAX 1024 /* every cbid of the table is looked up directly */
_Static_assert(SST_CBID_RUNTIME_SIZE <= API_LOOKUP_MAX && SST_CBID_DRIVER_SIZE <= API_LOOKUP_MAX,
               "room for every callback id");

/* The direct lookup table, built once on first use from the rows. `stepscope report` analyses
 * several traces on parallel threads: a second build while another thread reads would show it
 * a half-filled table, hence pthread_once. */
static uint8_t api_class_of[2][API_LOOKUP_MAX];
static uint8_t api_kernel_of[2][API_LOOKUP_MAX]; /* 1: launches one kernel (ssa_is_kernel_launch) */
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

/* A launch call that launches a kernel, by its CUPTI name: "Launch" but no graph or host
 * function (copies and memsets are "Memcpy"/"Memset"). */
static int names_kernel_launch(uint8_t domain, uint32_t cbid)
{
    const char *name = sst_cbid_name(domain, cbid);
    return name && strstr(name, "Launch") && !strstr(name, "Graph") && !strstr(name, "HostFunc");
}

static void api_build(void)
{
    for (size_t i = 0; i < sizeof api_rows / sizeof api_rows[0]; i++) {
        const struct api_row *row = &api_rows[i];
        int drv = row->domain == SST_API_DRIVER;
        api_class_of[drv][row->cbid] = row->cls;
        api_kernel_of[drv][row->cbid] =
            row->cls == SSA_API_LAUNCH && names_kernel_launch(row->domain, row->cbid);
    }
}

enum ssa_api_class ssa_api_class(uint8_t domain, uint32_t cbid)
{
    pthread_once(&api_once, api_build);
    if (cbid >= API_LOOKUP_MAX || (domain != SST_API_RUNTIME && domain != SST_API_DRIVER))
        return SSA_API_OTHER;
    return (enum ssa_api_class)api_class_of[domain == SST_API_DRIVER][cbid];
}

const char *ssa_api_name(uint8_t domain, uint32_t cbid)
{
    return ssa_api_class(domain, cbid) != SSA_API_OTHER ? sst_cbid_name(domain, cbid) : NULL;
}

int ssa_api_frees(uint8_t domain, uint32_t cbid)
{
    /* the allocation class's calls that give memory back, by their CUPTI names */
    static const char *const verbs[] = {"Free", "Unregister", "Release", "Unmap"};
    const char *name = ssa_api_class(domain, cbid) == SSA_API_ALLOC ? sst_cbid_name(domain, cbid)
                                                                     : NULL;
    for (size_t i = 0; name && i < sizeof verbs / sizeof verbs[0]; i++)
        if (strstr(name, verbs[i])) return 1;
    return 0;
}

int ssa_is_kernel_launch(uint8_t domain, uint32_t cbid)
{
    pthread_once(&api_once, api_build);
    if (cbid >= API_LOOKUP_MAX || (domain != SST_API_RUNTIME && domain != SST_API_DRIVER)) return 0;
    return api_kernel_of[domain == SST_API_DRIVER][cbid];
}

int ssa_is_graph_launch(uint8_t domain, uint32_t cbid)
{
    if (domain == SST_API_RUNTIME)
        return cbid == SST_CBID_RT_cudaGraphLaunch_v10000 ||
               cbid == SST_CBID_RT_cudaGraphLaunch_ptsz_v10000;
    return domain == SST_API_DRIVER &&
           (cbid == SST_CBID_DRV_cuGraphLaunch || cbid == SST_CBID_DRV_cuGraphLaunch_ptsz);
}
