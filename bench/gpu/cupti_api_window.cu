/*
 * cupti_api_window.cu — what CUPTI's API records and callbacks do when switched on mid-run,
 * and what each costs per launch, inside one process. One mode per process.
 *
 * Activity records (the first question: on the H200 a `--capture steps:A-B` trace had kernels
 * inside its window but no API record, while a trace captured from the start has them):
 *
 *   percall-start  per-call cudaLaunchKernel records enabled before CUDA starts
 *   percall-late   enabled between phase A and phase B (what the capture window did)
 *   kind-late      CUPTI_ACTIVITY_KIND_RUNTIME enabled between A and B
 *   prime          KIND_RUNTIME enabled and disabled before CUDA starts, per-call late
 *   percall-prime  per-call enabled and disabled before CUDA starts, enabled again late
 *   percall-off    per-call enabled before CUDA starts, DISabled between A and B
 *   Prints: MODE api_A api_B us_per_launch_A us_per_launch_B (API records seen after each
 *   phase's forced flush; host time per launch).
 *
 * Callbacks (STEPSCOPE_API=callbacks; CONCURRENT_KERNEL on throughout, as in full mode):
 *
 *   cb-late   the launch callbacks (cudaLaunchKernel, __cudaLaunchKernel, cuLaunchKernel(Ex))
 *             subscribed and enabled between A and B: does every launch of B call back, and
 *             does CUpti_CallbackData.correlationId equal the kernel records' correlationId?
 *             Prints: cb-late cb_A cb_B us_A us_B kernels_B matched_B zero_corr_B
 *   cb-nest   every runtime and driver callback (whole domains) around a mix of calls
 *             (launches, cuLaunchKernel, cudaMemcpy(Async), cudaMemset, cudaMalloc/Free,
 *             stream/event/device synchronize): for each runtime call, which driver callbacks
 *             come while it is open, and with which correlation id. Prints one line per
 *             runtime cbid seen: nest NAME calls=N with_driver=M driver=[NAME...] same_corr=K
 *
 * Cost per launch, in-process (6 phases of 20000 launches each; one line "seq MODE us1..us6
 * | counts"): the phases alternate so each on-phase has off-phases around it in the same
 * process (this VM moves a process's launch rate by 10-20 % from one process to the next):
 *
 *   seq-none      nothing switched in any phase (the drift between phases)
 *   seq-cb        off, cb, off, cb, off, cb: cb = the launch callbacks, each reading the clock
 *                 and writing a 48-byte record into a per-thread ring (what the collector's
 *                 callbacks do); off = the same callbacks disabled (cuptiEnableCallback 0)
 *   seq-cb-unsub  the same, but off = unsubscribed (does the subscription itself cost?)
 *   seq-cb-empty  the same as seq-cb with callbacks that return at once (CUPTI's dispatch)
 *   seq-percall   per-call launch records (the collector's activity mode from the start) on
 *                 in phases 1-3, disabled from phase 4 (disabling them works; whether it gives
 *                 their cost back is what phases 4-6 against 1-3 and seq-none tell)
 *   seq-kind      off, RUNTIME+DRIVER kinds (whole domains), off, kinds, off, kinds
 *
 * Build: nvcc -O2 -o w cupti_api_window.cu -lcupti -lcuda
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PHASE_LAUNCHES 20000
#define MAX_CORR (1u << 22)

static unsigned long long g_api, g_kernels, g_matched, g_zero_corr;
static unsigned char *g_seen_corr; /* correlation ids our callbacks saw (cb-late) */

static void CUPTIAPI req(uint8_t **b, size_t *s, size_t *m)
{
    *b = (uint8_t *)aligned_alloc(8, 8u << 20), *s = 8u << 20, *m = 0;
}

static void count_record(const CUpti_Activity *r)
{
    if (r->kind == CUPTI_ACTIVITY_KIND_RUNTIME || r->kind == CUPTI_ACTIVITY_KIND_DRIVER) g_api++;
    if (r->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) return;
    uint32_t c = ((const CUpti_ActivityKernel10 *)r)->correlationId;
    g_kernels++;
    if (g_seen_corr && c < MAX_CORR && g_seen_corr[c]) g_matched++;
}

static void CUPTIAPI done(CUcontext c, uint32_t st, uint8_t *b, size_t s, size_t v)
{
    CUpti_Activity *r = NULL;
    (void)c, (void)st, (void)s;
    while (cuptiActivityGetNextRecord(b, v, &r) == CUPTI_SUCCESS) count_record(r);
    free(b);
}

__global__ void k(float *x) { x[threadIdx.x] += 1.f; }

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static double phase(float *x, int n)
{
    cudaDeviceSynchronize();
    double a = now_us();
    for (int i = 0; i < n; i++) k<<<1, 32>>>(x);
    cudaDeviceSynchronize();
    return (now_us() - a) / n;
}

static unsigned long long take(unsigned long long *counter)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    unsigned long long n = *counter;
    *counter = 0;
    return n;
}

static void percall(int on)
{
    cuptiActivityEnableRuntimeApi(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, on);
}

/* Both launch cbids, as the collector's keep-list has them. */
static void percall_keep(int on)
{
    percall(on);
    cuptiActivityEnableRuntimeApi(CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, on);
}

/* ---- callbacks -------------------------------------------------------------------- */

struct fake_rec { /* the size of the collector's API record */
    uint64_t start, end;
    uint32_t tid, cbid, corr;
    int32_t result;
    uint64_t pad[2];
};
static __thread struct fake_rec t_ring[256];
static __thread unsigned t_pos;
static __thread uint64_t t_start;
static unsigned long long g_callbacks; /* exits seen (one launching thread) */
static int g_cb_empty;
static CUpti_SubscriberHandle g_sub;

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void CUPTIAPI on_cb(void *ud, CUpti_CallbackDomain d, CUpti_CallbackId id, const void *p)
{
    const CUpti_CallbackData *cd = (const CUpti_CallbackData *)p;
    (void)ud, (void)d;
    if (g_cb_empty) return;
    if (cd->callbackSite == CUPTI_API_ENTER) {
        t_start = now_ns();
        return;
    }
    struct fake_rec *r = &t_ring[t_pos++ % 256];
    r->start = t_start, r->end = now_ns(), r->cbid = id, r->corr = cd->correlationId;
    g_callbacks++;
    if (cd->correlationId == 0) g_zero_corr++;
    if (g_seen_corr && cd->correlationId < MAX_CORR) g_seen_corr[cd->correlationId] = 1;
}

static const uint32_t k_rt_launch[] = {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                       CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
                                       CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000};
static const uint32_t k_drv_launch[] = {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
                                        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx};

static void launch_callbacks(uint32_t on)
{
    for (unsigned i = 0; i < sizeof k_rt_launch / sizeof *k_rt_launch; i++)
        cuptiEnableCallback(on, g_sub, CUPTI_CB_DOMAIN_RUNTIME_API, k_rt_launch[i]);
    for (unsigned i = 0; i < sizeof k_drv_launch / sizeof *k_drv_launch; i++)
        cuptiEnableCallback(on, g_sub, CUPTI_CB_DOMAIN_DRIVER_API, k_drv_launch[i]);
}

static int subscribe(CUpti_CallbackFunc fn)
{
    CUptiResult r = cuptiSubscribe(&g_sub, fn, NULL);
    if (r != CUPTI_SUCCESS) printf("cuptiSubscribe failed: %d\n", (int)r);
    return r == CUPTI_SUCCESS;
}

static int cb_late(float *x)
{
    g_seen_corr = (unsigned char *)calloc(MAX_CORR, 1);
    double ta = phase(x, PHASE_LAUNCHES);
    unsigned long long ca = g_callbacks;
    take(&g_kernels);
    g_matched = 0;
    if (!subscribe(on_cb)) return 1;
    launch_callbacks(1);
    double tb = phase(x, PHASE_LAUNCHES);
    unsigned long long cb = g_callbacks - ca, kb = take(&g_kernels);
    printf("cb-late %llu %llu %.3f %.3f %llu %llu %llu\n", ca, cb, ta, tb, kb, g_matched,
           g_zero_corr);
    return 0;
}

/* ---- nesting: driver callbacks inside runtime calls --------------------------------- */

#define NEST_MAX 1024
static struct {
    unsigned long long calls, with_driver, same_corr;
    uint32_t driver[4];
    int ndriver;
} g_nest[NEST_MAX];
static __thread uint32_t t_rt_cbid, t_rt_corr;
static __thread int t_rt_open, t_rt_nested;

static void nest_driver(CUpti_CallbackId id, const CUpti_CallbackData *cd)
{
    if (!t_rt_open || cd->callbackSite != CUPTI_API_ENTER || t_rt_cbid >= NEST_MAX) return;
    t_rt_nested = 1;
    if (cd->correlationId == t_rt_corr) g_nest[t_rt_cbid].same_corr++;
    for (int i = 0; i < g_nest[t_rt_cbid].ndriver; i++)
        if (g_nest[t_rt_cbid].driver[i] == id) return;
    if (g_nest[t_rt_cbid].ndriver < 4) g_nest[t_rt_cbid].driver[g_nest[t_rt_cbid].ndriver++] = id;
}

static void CUPTIAPI on_nest(void *ud, CUpti_CallbackDomain d, CUpti_CallbackId id, const void *p)
{
    const CUpti_CallbackData *cd = (const CUpti_CallbackData *)p;
    (void)ud;
    if (d == CUPTI_CB_DOMAIN_DRIVER_API) {
        nest_driver(id, cd);
        return;
    }
    if (d != CUPTI_CB_DOMAIN_RUNTIME_API || id >= NEST_MAX) return;
    if (cd->callbackSite == CUPTI_API_ENTER) {
        t_rt_open = 1, t_rt_nested = 0, t_rt_cbid = id, t_rt_corr = cd->correlationId;
        return;
    }
    g_nest[id].calls++;
    g_nest[id].with_driver += t_rt_nested;
    t_rt_open = 0;
}

static void print_nest(void)
{
    for (int id = 0; id < NEST_MAX; id++) {
        if (!g_nest[id].calls) continue;
        const char *name = "?";
        cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, id, &name);
        printf("nest %s calls=%llu with_driver=%llu same_corr=%llu driver=[", name,
               g_nest[id].calls, g_nest[id].with_driver, g_nest[id].same_corr);
        for (int i = 0; i < g_nest[id].ndriver; i++) {
            const char *dn = "?";
            cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, g_nest[id].driver[i], &dn);
            printf("%s%s", i ? " " : "", dn);
        }
        printf("]\n");
    }
}

static int cb_nest(float *x)
{
    if (!subscribe(on_nest)) return 1;
    cuptiEnableDomain(1, g_sub, CUPTI_CB_DOMAIN_RUNTIME_API);
    cuptiEnableDomain(1, g_sub, CUPTI_CB_DOMAIN_DRIVER_API);
    cudaStream_t s;
    cudaEvent_t e;
    cudaStreamCreate(&s);
    cudaEventCreate(&e);
    float host[32] = {0}, *pinned, *d;
    cudaMallocHost((void **)&pinned, 128);
    for (int i = 0; i < 100; i++) {
        k<<<1, 32, 0, s>>>(x);
        cudaMemcpy(x, host, 128, cudaMemcpyHostToDevice);
        cudaMemcpyAsync(x, pinned, 128, cudaMemcpyHostToDevice, s);
        cudaMemsetAsync(x, 0, 128, s);
        cudaMalloc((void **)&d, 1 << 20);
        cudaFree(d);
        cudaEventRecord(e, s);
        cudaEventSynchronize(e);
        cudaStreamSynchronize(s);
        cudaDeviceSynchronize();
    }
    cudaFreeHost(pinned);
    cuptiUnsubscribe(g_sub);
    print_nest();
    return 0;
}

/* ---- cost per launch, in-process -------------------------------------------------- */

enum seq_kind { SEQ_NONE, SEQ_CB, SEQ_CB_UNSUB, SEQ_CB_EMPTY, SEQ_PERCALL, SEQ_KIND };

/* Before phase p (0-based) of sequence q: switch on or off. */
static void seq_switch(enum seq_kind q, int p)
{
    int on = p % 2 == 1;
    if (q == SEQ_CB || q == SEQ_CB_EMPTY) launch_callbacks(on);
    if (q == SEQ_CB_UNSUB && on && subscribe(on_cb)) launch_callbacks(1);
    if (q == SEQ_CB_UNSUB && !on && p > 0) cuptiUnsubscribe(g_sub);
    if (q == SEQ_PERCALL && p == 3) percall_keep(0);
    if (q == SEQ_KIND && on) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
    if (q == SEQ_KIND && on) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
    if (q == SEQ_KIND && !on && p > 0) cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
    if (q == SEQ_KIND && !on && p > 0) cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
}

static int seq(enum seq_kind q, const char *name, float *x)
{
    double us[6];
    unsigned long long api[6], cbs[6];
    g_cb_empty = q == SEQ_CB_EMPTY;
    if ((q == SEQ_CB || q == SEQ_CB_EMPTY) && !subscribe(on_cb)) return 1;
    for (int p = 0; p < 6; p++) {
        seq_switch(q, p);
        unsigned long long c0 = g_callbacks;
        us[p] = phase(x, PHASE_LAUNCHES);
        cbs[p] = g_callbacks - c0;
        api[p] = take(&g_api);
    }
    printf("seq %s", name);
    for (int p = 0; p < 6; p++) printf(" %.3f", us[p]);
    printf(" | api");
    for (int p = 0; p < 6; p++) printf(" %llu", api[p]);
    printf(" | callbacks");
    for (int p = 0; p < 6; p++) printf(" %llu", cbs[p]);
    printf("\n");
    return 0;
}

static int run_seq(const char *m, float *x)
{
    static const struct {
        const char *name;
        enum seq_kind q;
    } seqs[] = {{"seq-none", SEQ_NONE},         {"seq-cb", SEQ_CB},
                {"seq-cb-unsub", SEQ_CB_UNSUB}, {"seq-cb-empty", SEQ_CB_EMPTY},
                {"seq-percall", SEQ_PERCALL},   {"seq-kind", SEQ_KIND}};
    for (unsigned i = 0; i < sizeof seqs / sizeof *seqs; i++)
        if (!strcmp(m, seqs[i].name)) return seq(seqs[i].q, m, x);
    printf("unknown mode %s\n", m);
    return 2;
}

/* ---- the activity-record modes (unchanged) ----------------------------------------- */

static int activity_modes(const char *m, float *x)
{
    double ta = phase(x, PHASE_LAUNCHES);
    unsigned long long a = take(&g_api);
    if (!strcmp(m, "kind-late"))
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
    else
        percall(strcmp(m, "percall-off") != 0);
    double tb = phase(x, PHASE_LAUNCHES);
    unsigned long long b = take(&g_api);
    printf("%s %llu %llu %.3f %.3f\n", m, a, b, ta, tb);
    return 0;
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "percall-late";
    cuptiActivityRegisterCallbacks(req, done);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (!strcmp(m, "percall-start") || !strcmp(m, "percall-off")) percall(1);
    if (!strcmp(m, "seq-percall")) percall_keep(1);
    if (!strcmp(m, "prime")) {
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
        cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
    }
    if (!strcmp(m, "percall-prime")) percall(1), percall(0);
    float *x;
    cudaMalloc(&x, 128);
    phase(x, 2000); /* warm-up */
    take(&g_api);
    take(&g_kernels);
    if (!strcmp(m, "cb-late")) return cb_late(x);
    if (!strcmp(m, "cb-nest")) return cb_nest(x);
    if (!strncmp(m, "seq-", 4)) return run_seq(m, x);
    return activity_modes(m, x);
}
