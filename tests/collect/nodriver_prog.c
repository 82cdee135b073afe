/*
 * nodriver_prog.c — a CUDA program that succeeds without a GPU (issue #41): asks the CUDA
 * runtime how many devices there are, prints its answer ("cudaGetDeviceCount: 35" without a
 * driver) and exits 0, as a PyTorch program falls back to the CPU. With `nvtx` it marks an
 * NVTX range around the call first, so NVTX loads the collector and a trace is written (with
 * ENV runtime_version: the CUDA runtime was loaded) although CUDA never starts.
 * usage: nodriver_prog [nvtx]
 */
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int nvtx = argc > 1 && strcmp(argv[1], "nvtx") == 0;
    if (nvtx) nvtxRangePushA("step");
    int n = -1;
    cudaError_t e = cudaGetDeviceCount(&n);
    printf("cudaGetDeviceCount: %d\n", (int)e);
    if (nvtx) nvtxRangePop();
    return 0;
}
