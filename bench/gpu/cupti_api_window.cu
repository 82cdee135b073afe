/*
 * cupti_api_window.cu — does enabling CUPTI's per-call runtime API records
 * (cuptiActivityEnableRuntimeApi) in the middle of a run record anything? On the H200 a
 * `--capture steps:A-B` trace had kernels inside its window but no API record, while a trace
 * captured from the start has them. One mode per process:
 *
 *   percall-start  per-call cudaLaunchKernel records enabled before CUDA starts
 *   percall-late   enabled between phase A and phase B (what the capture window does)
 *   kind-late      CUPTI_ACTIVITY_KIND_RUNTIME enabled between A and B
 *   prime          KIND_RUNTIME enabled and disabled before CUDA starts, per-call late
 *   percall-prime  per-call enabled and disabled before CUDA starts, enabled again late
 *   percall-off    per-call enabled before CUDA starts, DISabled between A and B
 *
 * Prints: MODE api_A api_B us_per_launch_A us_per_launch_B (API records seen after each
 * phase's forced flush; host time per launch). Build: nvcc -O2 -o w cupti_api_window.cu -lcupti
 */
#include <cuda_runtime.h>
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned long long g_api;
static void CUPTIAPI req(uint8_t **b, size_t *s, size_t *m)
{
    *b = (uint8_t *)aligned_alloc(8, 8u << 20), *s = 8u << 20, *m = 0;
}
static void CUPTIAPI done(CUcontext c, uint32_t st, uint8_t *b, size_t s, size_t v)
{
    CUpti_Activity *r = NULL;
    while (cuptiActivityGetNextRecord(b, v, &r) == CUPTI_SUCCESS)
        if (r->kind == CUPTI_ACTIVITY_KIND_RUNTIME) g_api++;
    free(b);
}
__global__ void k(float *x) { x[threadIdx.x] += 1.f; }

static double phase(float *x, int n)
{
    struct timespec a, b;
    cudaDeviceSynchronize();
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < n; i++) k<<<1, 32>>>(x);
    cudaDeviceSynchronize();
    clock_gettime(CLOCK_MONOTONIC, &b);
    return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3 / n;
}
static unsigned long long take(void)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    unsigned long long n = g_api;
    g_api = 0;
    return n;
}
static void percall(int on)
{
    cuptiActivityEnableRuntimeApi(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, on);
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "percall-late";
    cuptiActivityRegisterCallbacks(req, done);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (!strcmp(m, "percall-start") || !strcmp(m, "percall-off")) percall(1);
    if (!strcmp(m, "prime")) {
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
        cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
    }
    if (!strcmp(m, "percall-prime")) percall(1), percall(0);
    float *x;
    cudaMalloc(&x, 128);
    phase(x, 2000); /* warm-up */
    take();
    double ta = phase(x, 20000);
    unsigned long long a = take();
    if (!strcmp(m, "kind-late"))
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
    else
        percall(strcmp(m, "percall-off") != 0);
    double tb = phase(x, 20000);
    unsigned long long b = take();
    printf("%s %llu %llu %.3f %.3f\n", m, a, b, ta, tb);
    return 0;
}
