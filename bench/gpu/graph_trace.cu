/*
 * graph_trace.cu — CUDA graphs under CUPTI: what CUPTI_ACTIVITY_KIND_GRAPH_TRACE records, whether
 * it suppresses the CONCURRENT_KERNEL records of a graph's nodes (not documented), and what node-
 * and graph-level tracing cost per graph launch. One mode per process:
 *
 *   none        CUPTI initialised, no kind (the baseline of the cost columns)
 *   node        CONCURRENT_KERNEL + MEMSET + MEMCPY (stepscope's default, STEPSCOPE_GRAPHS=node)
 *   graph       GRAPH_TRACE alone
 *   both        CONCURRENT_KERNEL + MEMSET + MEMCPY + GRAPH_TRACE (STEPSCOPE_GRAPHS=graph in full
 *               mode): are node records still delivered?
 *   late-node, late-graph, late-both   nothing in phase A, the kinds switched on before phase B:
 *               the same question and the cost in-process (phase B against phase A)
 *   replay      no CUPTI call at all: the program to run under `stepscope record` (with
 *               STEPSCOPE_GRAPHS=node or graph); prints "replay us_per_launch=.. launches=N"
 *
 * The graph: stream capture of 20 tiny kernels, a memset and a device-to-device copy;
 * instantiated once; each phase launches it 1000 times (a synchronize every 50 launches).
 * The launch callbacks of cudaGraphLaunch (runtime) and cuGraphLaunch (driver) are subscribed
 * in every mode, to compare their correlation id with the GRAPH records' one.
 *
 * Prints per phase: "graph MODE PHASE us_per_launch=.. kernels=.. memsets=.. memcpys=.. graphs=..
 * graph_corr_match=.. kernel_graph_ids=[..] graph_ids=[..]", then the ids CUPTI gives the
 * graph (cuptiGetGraphId) and its executable (cuptiGetGraphExecId), and the enable results.
 *
 * Build: nvcc -O2 -o g graph_trace.cu -lcupti
 */
#include <cuda_runtime.h>
#include <cupti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NODES 20
#define LAUNCHES 1000
#define MAX_CORR (1u << 22)

static unsigned long long g_kernels, g_memsets, g_memcpys, g_graphs, g_graph_matched;
static uint32_t g_kernel_graph_id, g_graph_id_seen;
static unsigned char *g_launch_corr; /* correlation ids of cudaGraphLaunch/cuGraphLaunch calls */
static unsigned long long g_rt_launch_cb, g_drv_launch_cb;

static void CUPTIAPI req(uint8_t **b, size_t *s, size_t *m)
{
    *b = (uint8_t *)aligned_alloc(8, 8u << 20), *s = 8u << 20, *m = 0;
}

static void count_graph(const CUpti_ActivityGraphTrace2 *g)
{
    g_graphs++;
    g_graph_id_seen = g->graphId;
    if (g->correlationId < MAX_CORR && g_launch_corr[g->correlationId]) g_graph_matched++;
}

static void count_record(const CUpti_Activity *r)
{
    switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        g_kernels++;
        g_kernel_graph_id = ((const CUpti_ActivityKernel10 *)r)->graphId;
        break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
        g_memsets++;
        break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        g_memcpys++;
        break;
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
        count_graph((const CUpti_ActivityGraphTrace2 *)r);
        break;
    default:
        break;
    }
}

static void CUPTIAPI done(CUcontext c, uint32_t st, uint8_t *b, size_t s, size_t v)
{
    CUpti_Activity *r = NULL;
    (void)c, (void)st, (void)s;
    while (cuptiActivityGetNextRecord(b, v, &r) == CUPTI_SUCCESS) count_record(r);
    free(b);
}

/* The graph launch callbacks: their correlation ids (exit site). */
static void CUPTIAPI on_cb(void *ud, CUpti_CallbackDomain d, CUpti_CallbackId id, const void *p)
{
    const CUpti_CallbackData *cd = (const CUpti_CallbackData *)p;
    (void)ud, (void)id;
    if (cd->callbackSite != CUPTI_API_EXIT) return;
    if (cd->correlationId < MAX_CORR) g_launch_corr[cd->correlationId] = 1;
    if (d == CUPTI_CB_DOMAIN_RUNTIME_API) g_rt_launch_cb++;
    if (d == CUPTI_CB_DOMAIN_DRIVER_API) g_drv_launch_cb++;
}

__global__ void tiny(float *x) { x[threadIdx.x] += 1.f; }

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static cudaGraphExec_t make_graph(cudaStream_t s, float *x, cudaGraph_t *g)
{
    cudaGraphExec_t exec;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    for (int i = 0; i < NODES; i++) tiny<<<1, 32, 0, s>>>(x);
    cudaMemsetAsync(x + 64, 0, 128, s);
    cudaMemcpyAsync(x + 128, x, 128, cudaMemcpyDeviceToDevice, s);
    cudaStreamEndCapture(s, g);
    cudaGraphInstantiate(&exec, *g, 0);
    return exec;
}

static double launches(cudaGraphExec_t exec, cudaStream_t s, int n)
{
    cudaStreamSynchronize(s);
    double a = now_us();
    for (int i = 0; i < n; i++) {
        cudaGraphLaunch(exec, s);
        if (i % 50 == 49) cudaStreamSynchronize(s);
    }
    cudaStreamSynchronize(s);
    return (now_us() - a) / n;
}

static void report(const char *mode, const char *ph, double us)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    printf("graph %s %s us_per_launch=%.3f kernels=%llu memsets=%llu memcpys=%llu graphs=%llu "
           "graph_corr_match=%llu kernel_graph_id=%u graph_id=%u rt_launch_cb=%llu "
           "drv_launch_cb=%llu\n",
           mode, ph, us, g_kernels, g_memsets, g_memcpys, g_graphs, g_graph_matched,
           g_kernel_graph_id, g_graph_id_seen, g_rt_launch_cb, g_drv_launch_cb);
    g_kernels = g_memsets = g_memcpys = g_graphs = g_graph_matched = 0;
    g_rt_launch_cb = g_drv_launch_cb = 0;
}

static void enable(CUpti_ActivityKind k, const char *name)
{
    CUptiResult r = cuptiActivityEnable(k);
    if (r != CUPTI_SUCCESS) {
        const char *why = "?";
        cuptiGetResultString(r, &why);
        printf("enable %s: %d %s\n", name, (int)r, why);
    }
}

static void enable_kinds(const char *m)
{
    int node = strstr(m, "node") || strstr(m, "both"), graph = strstr(m, "graph") || strstr(m, "both");
    if (node) {
        enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL");
        enable(CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET");
        enable(CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY");
    }
    if (graph) enable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE, "GRAPH_TRACE");
}

static void subscribe_launches(void)
{
    CUpti_SubscriberHandle sub;
    if (cuptiSubscribe(&sub, on_cb, NULL) != CUPTI_SUCCESS) {
        printf("cuptiSubscribe failed\n");
        return;
    }
    cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API,
                        CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000);
    cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API,
                        CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000);
    cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch);
    cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API,
                        CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz);
}

/* Under the collector: warm-up, then 2 x LAUNCHES graph launches. */
static int replay(void)
{
    float *x;
    cudaStream_t s;
    cudaGraph_t g;
    cudaMalloc(&x, 4096);
    cudaStreamCreate(&s);
    cudaGraphExec_t exec = make_graph(s, x, &g);
    launches(exec, s, 100);
    double us = launches(exec, s, 2 * LAUNCHES);
    printf("replay us_per_launch=%.3f launches=%d nodes=%d\n", us, 2 * LAUNCHES + 100, NODES + 2);
    return 0;
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "both";
    if (!strcmp(m, "replay")) return replay();
    int late = !strncmp(m, "late-", 5);
    g_launch_corr = (unsigned char *)calloc(MAX_CORR, 1);
    cuptiActivityRegisterCallbacks(req, done);
    subscribe_launches();
    if (!late) enable_kinds(m);
    float *x;
    cudaStream_t s;
    cudaGraph_t g;
    cudaMalloc(&x, 4096);
    cudaStreamCreate(&s);
    cudaGraphExec_t exec = make_graph(s, x, &g);
    uint32_t gid = 0, xid = 0;
    cuptiGetGraphId(g, &gid);
    cuptiGetGraphExecId(exec, &xid);
    launches(exec, s, 100); /* warm-up */
    report(m, "warmup", 0);
    double a = launches(exec, s, LAUNCHES);
    report(m, "A", a);
    if (late) enable_kinds(m);
    double b = launches(exec, s, LAUNCHES);
    report(m, "B", b);
    printf("graph %s ids cuptiGetGraphId=%u cuptiGetGraphExecId=%u nodes=%d launches=%d\n", m, gid,
           xid, NODES + 2, LAUNCHES);
    return 0;
}
