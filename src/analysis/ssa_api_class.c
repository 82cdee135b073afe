/*
 * ssa_api_class.c — the one table of CUDA API calls the attribution cares about.
 *
 * Keyed by CUPTI callback id (cupti_runtime_cbid.h / cupti_driver_cbid.h). The numbers are
 * part of CUPTI's ABI and never change; they are written here so the CLI builds without the
 * CUDA toolkit. When the toolkit's CUPTI headers are on the include path (SSA_HAVE_CUPTI_CBID,
 * set by src/analysis/CMakeLists.txt), every row is checked against the header's enum at
 * compile time, so a typo cannot survive a build on a machine with CUDA.
 *
 * Classes: launch = queues GPU work and returns (kernels, graphs, async copies and memsets);
 * sync = blocks the host until the GPU catches up (stream/device/event synchronize, and the
 * non-async copies and memsets, which synchronise); alloc = device, host-pinned and managed
 * allocation and free (cudaFree also synchronises the device, but the fix is the
 * allocator's, so it is alloc). Anything not listed is "other" host work.
 */
#include <pthread.h>
#include <stddef.h>

#include "ssa.h"
#include "trace/sst_format.h"

#ifdef SSA_HAVE_CUPTI_CBID
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#endif

/* R(runtime name without the CUPTI_RUNTIME_TRACE_CBID_ prefix, number, class)
 * D(driver name without the CUPTI_DRIVER_TRACE_CBID_ prefix, number, class) */
#define SSA_API_TABLE(R, D)                                                                        \
    R(cudaLaunch_v3020, 13, LAUNCH)                                                                \
    R(cudaLaunchKernel_v7000, 211, LAUNCH)                                                         \
    R(cudaLaunch_ptsz_v7000, 213, LAUNCH)                                                          \
    R(cudaLaunchKernel_ptsz_v7000, 214, LAUNCH)                                                    \
    R(cudaLaunchCooperativeKernel_v9000, 269, LAUNCH)                                              \
    R(cudaLaunchCooperativeKernel_ptsz_v9000, 270, LAUNCH)                                         \
    R(cudaLaunchCooperativeKernelMultiDevice_v9000, 272, LAUNCH)                                   \
    R(cudaLaunchHostFunc_v10000, 284, LAUNCH)                                                      \
    R(cudaLaunchHostFunc_ptsz_v10000, 285, LAUNCH)                                                 \
    R(cudaGraphLaunch_v10000, 311, LAUNCH)                                                         \
    R(cudaGraphLaunch_ptsz_v10000, 312, LAUNCH)                                                    \
    R(cudaLaunchKernelExC_v11060, 430, LAUNCH)                                                     \
    R(cudaLaunchKernelExC_ptsz_v11060, 431, LAUNCH)                                                \
    R(__cudaLaunchKernel_v13000, 505, LAUNCH)                                                      \
    R(__cudaLaunchKernel_ptsz_v13000, 506, LAUNCH)                                                 \
    R(cudaMemcpyAsync_v3020, 41, LAUNCH)                                                           \
    R(cudaMemcpyToArrayAsync_v3020, 42, LAUNCH)                                                    \
    R(cudaMemcpyFromArrayAsync_v3020, 43, LAUNCH)                                                  \
    R(cudaMemcpy2DAsync_v3020, 44, LAUNCH)                                                         \
    R(cudaMemcpyToSymbolAsync_v3020, 47, LAUNCH)                                                   \
    R(cudaMemcpyFromSymbolAsync_v3020, 48, LAUNCH)                                                 \
    R(cudaMemsetAsync_v3020, 51, LAUNCH)                                                           \
    R(cudaMemset2DAsync_v3020, 52, LAUNCH)                                                         \
    R(cudaMemset3DAsync_v3020, 143, LAUNCH)                                                        \
    R(cudaMemcpy3DAsync_v3020, 145, LAUNCH)                                                        \
    R(cudaMemcpyPeerAsync_v4000, 161, LAUNCH)                                                      \
    R(cudaMemcpy3DPeerAsync_v4000, 163, LAUNCH)                                                    \
    R(cudaMemcpyAsync_ptsz_v7000, 225, LAUNCH)                                                     \
    R(cudaMemcpy2DAsync_ptsz_v7000, 228, LAUNCH)                                                   \
    R(cudaMemsetAsync_ptsz_v7000, 235, LAUNCH)                                                     \
    R(cudaMemcpyBatchAsync_v12080, 482, LAUNCH)                                                    \
    R(cudaMemcpyBatchAsync_v13000, 509, LAUNCH)                                                    \
    R(cudaMemcpy_v3020, 31, SYNC)                                                                  \
    R(cudaMemcpy2D_v3020, 32, SYNC)                                                                \
    R(cudaMemcpyToSymbol_v3020, 39, SYNC)                                                          \
    R(cudaMemcpyFromSymbol_v3020, 40, SYNC)                                                        \
    R(cudaMemset_v3020, 49, SYNC)                                                                  \
    R(cudaMemset2D_v3020, 50, SYNC)                                                                \
    R(cudaThreadSynchronize_v3020, 126, SYNC)                                                      \
    R(cudaStreamSynchronize_v3020, 131, SYNC)                                                      \
    R(cudaEventSynchronize_v3020, 137, SYNC)                                                       \
    R(cudaMemcpy3D_v3020, 144, SYNC)                                                               \
    R(cudaMemcpyPeer_v4000, 160, SYNC)                                                             \
    R(cudaDeviceSynchronize_v3020, 165, SYNC)                                                      \
    R(cudaMemcpy_ptds_v7000, 215, SYNC)                                                            \
    R(cudaMemset_ptds_v7000, 233, SYNC)                                                            \
    R(cudaStreamSynchronize_ptsz_v7000, 239, SYNC)                                                 \
    R(cudaMalloc_v3020, 20, ALLOC)                                                                 \
    R(cudaMallocPitch_v3020, 21, ALLOC)                                                            \
    R(cudaFree_v3020, 22, ALLOC)                                                                   \
    R(cudaMallocHost_v3020, 25, ALLOC)                                                             \
    R(cudaFreeHost_v3020, 26, ALLOC)                                                               \
    R(cudaHostAlloc_v3020, 27, ALLOC)                                                              \
    R(cudaMalloc3D_v3020, 140, ALLOC)                                                              \
    R(cudaHostRegister_v4000, 152, ALLOC)                                                          \
    R(cudaHostUnregister_v4000, 153, ALLOC)                                                        \
    R(cudaMallocManaged_v6000, 206, ALLOC)                                                         \
    R(cudaMallocAsync_v11020, 373, ALLOC)                                                          \
    R(cudaMallocAsync_ptsz_v11020, 374, ALLOC)                                                     \
    R(cudaFreeAsync_v11020, 375, ALLOC)                                                            \
    R(cudaFreeAsync_ptsz_v11020, 376, ALLOC)                                                       \
    D(cuLaunchKernel, 307, LAUNCH)                                                                 \
    D(cuLaunchKernel_ptsz, 442, LAUNCH)                                                            \
    D(cuLaunchCooperativeKernel, 477, LAUNCH)                                                      \
    D(cuLaunchCooperativeKernel_ptsz, 478, LAUNCH)                                                 \
    D(cuGraphLaunch, 514, LAUNCH)                                                                  \
    D(cuGraphLaunch_ptsz, 515, LAUNCH)                                                             \
    D(cuLaunchKernelEx, 652, LAUNCH)                                                               \
    D(cuLaunchKernelEx_ptsz, 653, LAUNCH)                                                          \
    D(cuMemsetD8Async, 216, LAUNCH)                                                                \
    D(cuMemsetD16Async, 218, LAUNCH)                                                               \
    D(cuMemsetD32Async, 220, LAUNCH)                                                               \
    D(cuMemcpyHtoDAsync_v2, 277, LAUNCH)                                                           \
    D(cuMemcpyDtoHAsync_v2, 279, LAUNCH)                                                           \
    D(cuMemcpyDtoDAsync_v2, 281, LAUNCH)                                                           \
    D(cuMemcpyAsync, 306, LAUNCH)                                                                  \
    D(cuMemcpyPeerAsync, 319, LAUNCH)                                                              \
    D(cuMemcpyAsync_ptsz, 418, LAUNCH)                                                             \
    D(cuMemcpyHtoDAsync_v2_ptsz, 421, LAUNCH)                                                      \
    D(cuMemcpyDtoHAsync_v2_ptsz, 422, LAUNCH)                                                      \
    D(cuMemcpyDtoDAsync_v2_ptsz, 423, LAUNCH)                                                      \
    D(cuMemsetD8Async_ptsz, 428, LAUNCH)                                                           \
    D(cuMemsetD32Async_ptsz, 430, LAUNCH)                                                          \
    D(cuCtxSynchronize, 17, SYNC)                                                                  \
    D(cuEventSynchronize, 121, SYNC)                                                               \
    D(cuStreamSynchronize, 126, SYNC)                                                              \
    D(cuMemsetD8_v2, 249, SYNC)                                                                    \
    D(cuMemsetD32_v2, 251, SYNC)                                                                   \
    D(cuMemcpyHtoD_v2, 276, SYNC)                                                                  \
    D(cuMemcpyDtoH_v2, 278, SYNC)                                                                  \
    D(cuMemcpyDtoD_v2, 280, SYNC)                                                                  \
    D(cuMemcpy, 305, SYNC)                                                                         \
    D(cuMemcpyPeer, 318, SYNC)                                                                     \
    D(cuMemcpyHtoD_v2_ptds, 397, SYNC)                                                             \
    D(cuMemcpyDtoH_v2_ptds, 398, SYNC)                                                             \
    D(cuStreamSynchronize_ptsz, 440, SYNC)                                                         \
    D(cuCtxSynchronize_v2, 800, SYNC)                                                              \
    D(cuMemFreeHost, 38, ALLOC)                                                                    \
    D(cuMemHostAlloc, 39, ALLOC)                                                                   \
    D(cuMemAlloc_v2, 243, ALLOC)                                                                   \
    D(cuMemAllocPitch_v2, 244, ALLOC)                                                              \
    D(cuMemFree_v2, 245, ALLOC)                                                                    \
    D(cuMemHostAlloc_v2, 271, ALLOC)                                                               \
    D(cuMemAllocHost_v2, 294, ALLOC)                                                               \
    D(cuMemHostUnregister, 302, ALLOC)                                                             \
    D(cuMemAllocManaged, 371, ALLOC)                                                               \
    D(cuMemHostRegister_v2, 379, ALLOC)                                                            \
    D(cuMemCreate, 549, ALLOC)                                                                     \
    D(cuMemRelease, 550, ALLOC)                                                                    \
    D(cuMemMap, 551, ALLOC)                                                                        \
    D(cuMemUnmap, 552, ALLOC)                                                                      \
    D(cuMemAllocAsync, 598, ALLOC)                                                                 \
    D(cuMemAllocAsync_ptsz, 599, ALLOC)                                                            \
    D(cuMemFreeAsync, 600, ALLOC)                                                                  \
    D(cuMemFreeAsync_ptsz, 601, ALLOC)

#ifdef SSA_HAVE_CUPTI_CBID
#define SSA_CHECK_R(name, num, cls)                                                                \
    _Static_assert(CUPTI_RUNTIME_TRACE_CBID_##name == num, #name " cbid");
#define SSA_CHECK_D(name, num, cls)                                                                \
    _Static_assert(CUPTI_DRIVER_TRACE_CBID_##name == num, #name " cbid");
SSA_API_TABLE(SSA_CHECK_R, SSA_CHECK_D)
#undef SSA_CHECK_R
#undef SSA_CHECK_D
#endif

struct api_row {
    uint8_t domain;
    uint8_t cls;
    uint16_t cbid;
    const char *name;
};

#define SSA_ROW_R(name, num, cls) {SST_API_RUNTIME, SSA_API_##cls, num, #name},
#define SSA_ROW_D(name, num, cls) {SST_API_DRIVER, SSA_API_##cls, num, #name},
static const struct api_row api_rows[] = {SSA_API_TABLE(SSA_ROW_R, SSA_ROW_D)};
#undef SSA_ROW_R
#undef SSA_ROW_D

#define API_LOOKUP_MAX 1024 /* cbids below this are looked up directly */

/* Direct lookup tables, built once on first use from the rows. `stepscope report` analyses
 * several traces on parallel threads: a second build while another thread reads would show it
 * the -1 of a half-filled table, hence pthread_once. */
static uint8_t api_class_of[2][API_LOOKUP_MAX];
static int16_t api_row_of[2][API_LOOKUP_MAX];
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

static void api_build(void)
{
    for (int d = 0; d < 2; d++)
        for (int i = 0; i < API_LOOKUP_MAX; i++)
            api_row_of[d][i] = -1;
    for (size_t i = 0; i < sizeof api_rows / sizeof api_rows[0]; i++) {
        int d = api_rows[i].domain == SST_API_DRIVER;
        api_class_of[d][api_rows[i].cbid] = api_rows[i].cls;
        api_row_of[d][api_rows[i].cbid] = (int16_t)i;
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
    pthread_once(&api_once, api_build);
    if (cbid >= API_LOOKUP_MAX || (domain != SST_API_RUNTIME && domain != SST_API_DRIVER))
        return NULL;
    int row = api_row_of[domain == SST_API_DRIVER][cbid];
    return row < 0 ? NULL : api_rows[row].name;
}

int ssa_is_graph_launch(uint8_t domain, uint32_t cbid)
{
    /* CUPTI's ids of cudaGraphLaunch(_ptsz) and cuGraphLaunch(_ptsz): checked against the
     * table above (SSA_API_TABLE lists them as launches) by test_kernel_class */
    if (domain == SST_API_RUNTIME) return cbid == 311 || cbid == 312;
    return domain == SST_API_DRIVER && (cbid == 514 || cbid == 515);
}
