#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
__global__ void empty(int *p) { if (p && threadIdx.x == 1000000) *p = 1; }
static unsigned long long mono(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000ull + t.tv_nsec; }
int main(void) {
    cudaFree(0);                                     /* context */
    unsigned long long t0 = mono();
    int *d; cudaMalloc(&d, 1 << 24);
    char *pageable = (char *)malloc(1 << 24), *pinned; cudaMallocHost(&pinned, 1 << 24);
    cudaStream_t s; cudaStreamCreate(&s);
    cudaEvent_t e; cudaEventCreate(&e);
    for (int i = 0; i < 1000; i++) empty<<<1, 32, 0, s>>>(nullptr);
    cudaFunction_t f; cudaGetFuncBySymbol(&f, (const void *)empty);
    void *noarg = nullptr; void *args[] = {&noarg};
    for (int i = 0; i < 100; i++) cuLaunchKernel((CUfunction)f, 1, 1, 1, 32, 1, 1, 0, s, args, 0);
    for (int i = 0; i < 10; i++) cudaMemcpy(d, pageable, 1 << 20, cudaMemcpyHostToDevice);
    for (int i = 0; i < 10; i++) cudaMemcpyAsync(d, pinned, 1 << 20, cudaMemcpyHostToDevice, s);
    for (int i = 0; i < 10; i++) cudaMemcpy(pageable, d, 1 << 20, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 5; i++) cudaMemsetAsync(d, 0, 1 << 20, s);
    int dev, n; for (int i = 0; i < 100; i++) { cudaGetDevice(&dev); cudaGetLastError(); cudaGetDeviceCount(&n); }
    cudaEventRecord(e, s); cudaEventSynchronize(e);
    cudaStreamSynchronize(s);
    cudaDeviceSynchronize();
    cudaFree(d); cudaFreeHost(pinned);
    unsigned long long t1 = mono();
    printf("T0=%llu T1=%llu err=%s\n", t0, t1, cudaGetErrorString(cudaGetLastError()));
    return 0;
}
