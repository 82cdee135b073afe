/*
 * cupti_prog.c — plays the CUDA driver and a Python program using torch.profiler, against the
 * fake libcupti (fake_cupti.c): calls the collector's InitializeInjection as cuInit would,
 * then emits the shim's marks "torch.profiler.start"/"torch.profiler.stop" in domain
 * "stepscope", and in between acts as Kineto: cuptiSubscribe must succeed (the collector holds
 * no subscription), then it registers its own buffer callbacks and finalises CUPTI, as Kineto
 * does with TEARDOWN_CUPTI=1. Prints "kineto subscribe: ok|busy". Exit 0 unless the harness
 * failed. usage: cupti_prog [before]   (before: the profiler starts before CUDA does)
 *        cupti_prog thread   starts a thread named "launcher" and has the fake's next flush
 *                            carry a kernel launch made on it, then exits (the collector's
 *                            last flush converts it while the thread still lives)
 *        cupti_prog window   5 steps with one API call each (fake_cupti_api_call), then half a
 *                            second of API calls after them (run with --capture steps:1-2:
 *                            the collector detaches CUPTI at one of those calls' exit)
 *        cupti_prog window_idle  the same 5 steps, then exits at once (no call after them)
 *        cupti_prog window_cuda_late  the 5 steps before CUDA starts, then the calls
 * API calls through the collector's callbacks (fake_cupti_call; each call the collector must
 * record is printed "want DOMAIN CBID CORRELATION RESULT TID", DOMAIN 1 runtime, 2 driver):
 *        cupti_prog calls    a launch, a cudaMemcpy with the driver's copy inside it, Triton's
 *                            cuLaunchKernel, a failing cudaMalloc, a getter (not recorded)
 *        cupti_prog steps_calls  6 steps of 3 calls (run with --capture steps:2-3: the calls of
 *                            steps 2 and 3 are recorded); the window opens in the middle of a
 *                            call (its exit only is seen: not recorded), then calls for half a
 *                            second after the steps (the detach)
 *        cupti_prog auto_late N STALL_MS  says what the Python shim says (STEPSCOPE_AUTO_FROM=8:
 *                            its pid), then N 20-ms steps of 3 launches (the calls of steps
 *                            8-107 are wanted), then STALL_MS ms of launches without a step
 *                            (run with the default --capture auto)
 *        cupti_prog auto_ticks KIND N  the same shim word, 4 steps, then N loop ticks (the
 *                            shim's "stepscope.tick.KIND" marks, KIND graph or backward), each
 *                            followed by a launch (cudaGraphLaunch for graph), 1 ms apart, no
 *                            step between them: the launches from the tick that opens the
 *                            window (the 8th graph, 32nd backward tick) and the 99 after it are
 *                            wanted; then 0.5 s of launches (the detach). KIND mixed: 20 steps of 2 graph ticks each (a graph
 *                            per step: the steps open the window at step 8, not the ticks)
 *        cupti_prog steady N STEP_US SLOW_FROM SLOW_US  N steps of 3 launches, STEP_US long,
 *                            SLOW_US from step SLOW_FROM on (capture windows every:, auto's
 *                            re-window when the steps slow down, none when they do not)
 *        cupti_prog race [exit]  4 threads make calls without pause while the main thread runs
 *                            6 steps (run with --capture steps:1-3: the window closes and CUPTI
 *                            is detached under them), then sleeps 0.5 s; `exit`: main returns
 *                            while they still call (the collector stops under them)
 *        cupti_prog fork     5 calls, fork(): the child marks "child" and makes 5 calls (CUPTI
 *                            does not survive fork: nothing of them is recorded), then 5 more
 *        cupti_prog launches S  launches for S seconds, about 10 000 a second (the watch)
 *        cupti_prog bench N  ns per call: N calls before a steps:1-1 window (callbacks off),
 *                            N inside it, N NVTX push/pop pairs; prints "bench ..." lines
 */

#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>
#include <stepscope/stepscope.h>

CUptiResult cuptiFinalize(void);
void fake_cupti_api_record(uint32_t tid); /* fake_cupti.c */
void fake_cupti_api_call(void);
uint32_t fake_cupti_call(int domain, uint32_t cbid, uint32_t inner_cbid, int result);
uint32_t fake_cupti_call_mid(int domain, uint32_t cbid, uint32_t inner_cbid, int result,
                             void (*mid)(void));
void fake_cupti_note(const char *text);
static int cuda_init(void);

static int window_case(int idle, int cuda_late)
{
    if (!cuda_late && cuda_init() != 0) return 1;
    for (uint64_t i = 0; i < 5; i++) {
        stepscope_step_begin(i);
        fake_cupti_api_call();
        stepscope_step_end();
    }
    if (cuda_late && cuda_init() != 0) return 1;
    /* the writer arms the detach within a round or three (100 ms, flushes >= 250 ms apart) */
    for (int i = 0; !idle && i < 100; i++) {
        fake_cupti_api_call();
        usleep(10000);
    }
    printf("window done\n");
    return 0;
}

static _Atomic uint32_t g_launcher_tid;

static void *launcher(void *arg)
{
    (void)arg;
    atomic_store(&g_launcher_tid, (uint32_t)syscall(SYS_gettid));
    for (;;)
        pause(); /* alive until the process exits */
    return NULL;
}

static void mark(nvtxDomainHandle_t d, const char *text)
{
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = text;
    nvtxDomainMarkEx(d, &a);
}

static void CUPTIAPI kineto_req(uint8_t **b, size_t *s, size_t *m)
{
    *b = NULL, *s = 0, *m = 0;
}
static void CUPTIAPI kineto_cmp(CUcontext c, uint32_t s, uint8_t *b, size_t n, size_t v)
{
    (void)c, (void)s, (void)b, (void)n, (void)v;
}

static int cuda_init(void)
{
    const char *lib = getenv("CUDA_INJECTION64_PATH");
    void *h = lib ? dlopen(lib, RTLD_NOW | RTLD_GLOBAL) : NULL;
    int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
    if (!init) {
        fprintf(stderr, "cupti_prog: no InitializeInjection in %s\n", lib ? lib : "(unset)");
        return -1;
    }
    return init() == 1 ? 0 : -1;
}

/* The program changes its environment while the collector starts, as Python's
 * os.environ[k] = v does: each setenv of a new name may move environ, which the writer thread
 * must not be reading (ThreadSanitizer reports it; without it, a read of freed memory). */
static int environ_case(void)
{
    setenv("TORCH_STEPSCOPE_TEST_HEAP", "before", 1); /* environ now lives on the heap */
    nvtxDomainHandle_t d = nvtxDomainCreateA("stepscope"); /* starts the collector */
    char name[64];
    for (int i = 0; i < 400; i++) {
        snprintf(name, sizeof name, "TORCH_STEPSCOPE_TEST_%d", i);
        setenv(name, "after", 1);
    }
    mark(d, "step 0");
    return 0;
}

static int launcher_case(void)
{
    if (cuda_init() != 0) return 1;
    pthread_t t;
    if (pthread_create(&t, NULL, launcher, NULL) != 0) return 1;
    pthread_setname_np(t, "launcher");
    while (!atomic_load(&g_launcher_tid))
        usleep(1000);
    fake_cupti_api_record(atomic_load(&g_launcher_tid));
    printf("launcher tid %u\n", atomic_load(&g_launcher_tid));
    return 0;
}

/* ---- API calls through the collector's callbacks ---------------------------------------- */

#define RT CUPTI_CB_DOMAIN_RUNTIME_API
#define DRV CUPTI_CB_DOMAIN_DRIVER_API

static uint32_t gettid_(void)
{
    return (uint32_t)syscall(SYS_gettid);
}

/* A call the collector must record: printed for the test to compare with the trace. */
static void want(int domain, uint32_t cbid, uint32_t inner, int result)
{
    uint32_t corr = fake_cupti_call(domain, cbid, inner, result);
    printf("want %d %u %u %d %u\n", domain == RT ? 1 : 2, cbid, corr, result, gettid_());
}

static int calls_case(void)
{
    if (cuda_init() != 0) return 1;
    want(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0, 0);
    want(RT, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2,
         0);
    want(DRV, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 0, 0);
    want(RT, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, 0, 2); /* cudaErrorMemoryAllocation */
    fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, 0, 0); /* not kept */
    return 0;
}

/* ---- sync sites (ssc_syncsite.c) ---- */

/* The collector's table for the shim, as far as this test uses it (ssc_pyhost.c). */
struct host_api {
    uint32_t version, size;
    void *recording, *now_ns, *begin, *capture, *sampler, *thread_name, *notice;
    int (*sync_wait)(uint64_t timeout_ns, uint64_t min_block_ns, uint32_t *tid, uint32_t *corr);
};
static const struct host_api *g_host;
static _Atomic int g_waiter_ready;

static void *sync_waiter(void *arg)
{
    (void)arg;
    uint32_t tid = 0, corr = 0;
    atomic_store(&g_waiter_ready, 1);
    /* 20 ms: far beyond what a loaded machine can stretch a call that does not wait (a
     * preemption between its entry and exit callbacks) */
    int rc = g_host->sync_wait(2000000000ull, 20000000ull, &tid, &corr);
    printf("waited %d %u %u\n", rc, rc == 1 ? tid : 0, rc == 1 ? corr : 0);
    return NULL;
}

static void long_wait(void)
{
    usleep(60000);
}

/* A sampler waits for a synchronising call blocked 20 ms: one that does not wait goes
 * unreported, a long one (60 ms, with its driver twin inside) is reported by its thread and
 * runtime correlation id. A launch, however long, is no sync. Under activity records the wait
 * says at once that it cannot work. */
static int sync_site_case(void)
{
    if (cuda_init() != 0) return 1;
    const struct host_api *(*get)(void) =
        (const struct host_api *(*)(void))dlsym(RTLD_DEFAULT, "stepscope_host_api_v1");
    if (!get || (g_host = get())->version < 2) return 1;
    pthread_t t;
    if (pthread_create(&t, NULL, sync_waiter, NULL) != 0) return 1;
    while (!atomic_load(&g_waiter_ready))
        usleep(100);
    usleep(50000); /* inside sync_wait by now */
    fake_cupti_call_mid(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0, 0, long_wait);
    fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 0, 0);
    uint32_t corr =
        fake_cupti_call_mid(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
                            CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, 0, long_wait);
    pthread_join(t, NULL);
    printf("sync %u %u\n", gettid_(), corr);
    return 0;
}

static void open_window_step(void)
{
    stepscope_step_begin(2); /* the window opens inside the call that runs this */
}

static int steps_calls_case(void)
{
    if (cuda_init() != 0) return 1;
    for (uint64_t i = 0; i < 6; i++) {
        char note[32];
        snprintf(note, sizeof note, "step %u", (unsigned)i);
        fake_cupti_note(note);
        if (i == 2)
            fake_cupti_call_mid(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 0, 0,
                                open_window_step);
        else
            stepscope_step_begin(i);
        for (int k = 0; k < 3; k++) {
            uint32_t corr = fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                            0, 0);
            if (i == 2 || i == 3) printf("want 1 211 %u 0 %u\n", corr, gettid_());
        }
        stepscope_step_end();
    }
    fake_cupti_note("steps done");
    for (int i = 0; i < 50; i++) {
        fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0, 0);
        usleep(10000);
    }
    printf("window done\n");
    return 0;
}

#define STEP_US 20000

static int auto_late_case(unsigned steps, unsigned stall_ms)
{
    char v[64];
    snprintf(v, sizeof v, "8:%d", (int)getpid());
    setenv("STEPSCOPE_AUTO_FROM", v, 1);
    if (cuda_init() != 0) return 1;
    for (unsigned i = 0; i < steps; i++) {
        stepscope_step_begin(i);
        for (int k = 0; k < 3; k++) {
            uint32_t corr = fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                            0, 0);
            if (i >= 8 && i <= 107) printf("want 1 211 %u 0 %u\n", corr, gettid_());
        }
        usleep(STEP_US); /* long enough that a loaded host's jitter leaves steps steady */
        stepscope_step_end();
    }
    for (unsigned t = 0; t < stall_ms; t += 10) {
        fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0, 0);
        usleep(10000);
    }
    printf("auto done\n");
    return 0;
}

/* The shim's word that steps will be marked (STEPSCOPE_AUTO_FROM=8:PID), then CUDA. */
static int shim_says_steps(void)
{
    char v[64];
    snprintf(v, sizeof v, "8:%d", (int)getpid());
    setenv("STEPSCOPE_AUTO_FROM", v, 1);
    return cuda_init();
}

static void one_step(unsigned i, unsigned ticks)
{
    stepscope_step_begin(i);
    for (unsigned k = 0; k < ticks; k++) {
        stepscope_mark("stepscope.tick.graph");
        fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, 0, 0);
    }
    fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0, 0);
    usleep(2000);
    stepscope_step_end();
}

static int auto_ticks_case(const char *kind, unsigned n)
{
    int graph = strcmp(kind, "graph") == 0, mixed = strcmp(kind, "mixed") == 0;
    unsigned opens = graph ? 8 : 32, cbid = graph ? CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000
                                                   : CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
    char text[64];
    snprintf(text, sizeof text, "stepscope.tick.%s", kind);
    if (shim_says_steps() != 0) return 1;
    for (unsigned i = 0; i < (mixed ? 20u : 4u); i++)
        one_step(i, mixed ? 2 : 0);
    for (unsigned t = 1; t <= n && !mixed; t++) {
        stepscope_mark(text);
        uint32_t corr = fake_cupti_call(RT, cbid, 0, 0);
        if (t >= opens && t < opens + 100) printf("want 1 %u %u 0 %u\n", cbid, corr, gettid_());
        usleep(1000);
    }
    for (unsigned t = 0; t < 50 && !mixed; t++) { /* calls after the window: its detach */
        fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0, 0);
        usleep(10000);
    }
    printf("auto done\n");
    return 0;
}

/* N steps of 3 launches, STEP_US long, SLOW_US from step SLOW_FROM on (a run that slows
 * down); not the shim's word (auto's window starts at step 0). */
static int steady_case(unsigned n, unsigned step_us, unsigned slow_from, unsigned slow_us)
{
    if (cuda_init() != 0) return 1;
    for (unsigned i = 0; i < n; i++) {
        stepscope_step_begin(i);
        for (int k = 0; k < 3; k++)
            fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0, 0);
        usleep(i >= slow_from ? slow_us : step_us);
        stepscope_step_end();
    }
    printf("steady done\n");
    return 0;
}

static _Atomic int g_stop_calls;

static void *caller(void *arg)
{
    (void)arg;
    for (unsigned i = 0; !atomic_load(&g_stop_calls); i++) {
        fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
                        CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2, 0);
        fake_cupti_call(DRV, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 0, 0);
        if (i % 16 == 15) usleep(1); /* bursts: calls always in flight, not a flood */
    }
    return NULL;
}

static int race_case(int exit_under)
{
    pthread_t t[4];
    if (cuda_init() != 0) return 1;
    for (int i = 0; i < 4; i++)
        if (pthread_create(&t[i], NULL, caller, NULL) != 0) return 1;
    for (uint64_t i = 0; i < 6; i++) {
        stepscope_step_begin(i);
        usleep(30000);
        stepscope_step_end();
    }
    usleep(500000);
    printf("race done\n");
    fflush(stdout);
    if (exit_under) return 0; /* exit() while the threads are inside calls and callbacks */
    atomic_store(&g_stop_calls, 1);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    return 0;
}

static int fork_case(void)
{
    if (cuda_init() != 0) return 1;
    for (int i = 0; i < 5; i++)
        want(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0, 0);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
        nvtxMarkA("child");
        for (int i = 0; i < 5; i++)
            fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0, 0);
        printf("child %u\n", gettid_());
        exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    for (int i = 0; i < 5; i++)
        want(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double ns_per_call(long n)
{
    uint64_t t0 = mono_ns();
    for (long i = 0; i < n; i++)
        fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0, 0);
    return (double)(mono_ns() - t0) / (double)n;
}

static int launches_case(double secs)
{
    if (cuda_init() != 0) return 1;
    uint64_t end = mono_ns() + (uint64_t)(secs * 1e9);
    while (mono_ns() < end) {
        for (int i = 0; i < 10; i++)
            fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0, 0);
        usleep(1000);
    }
    printf("launches done\n");
    return 0;
}

static int bench_case(long n)
{
    if (cuda_init() != 0 || n <= 0) return 1;
    stepscope_step_begin(0);
    double off = ns_per_call(n);
    stepscope_step_end();
    stepscope_step_begin(1);
    double on = ns_per_call(n);
    stepscope_step_end();
    uint64_t t0 = mono_ns();
    for (long i = 0; i < n; i++) {
        nvtxRangePushA("bench");
        nvtxRangePop();
    }
    double nvtx = (double)(mono_ns() - t0) / (double)n;
    printf("bench api_call_off_ns %.1f api_call_on_ns %.1f nvtx_pair_ns %.1f\n", off, on, nvtx);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "calls") == 0) return calls_case();
    if (argc > 1 && strcmp(argv[1], "sync_site") == 0) return sync_site_case();
    if (argc > 1 && strcmp(argv[1], "steps_calls") == 0) return steps_calls_case();
    if (argc > 3 && strcmp(argv[1], "auto_late") == 0)
        return auto_late_case((unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]));
    if (argc > 3 && strcmp(argv[1], "auto_ticks") == 0)
        return auto_ticks_case(argv[2], (unsigned)atoi(argv[3]));
    if (argc > 5 && strcmp(argv[1], "steady") == 0)
        return steady_case((unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]),
                           (unsigned)atoi(argv[4]), (unsigned)atoi(argv[5]));
    if (argc > 1 && strcmp(argv[1], "race") == 0) return race_case(argc > 2);
    if (argc > 1 && strcmp(argv[1], "fork") == 0) return fork_case();
    if (argc > 2 && strcmp(argv[1], "bench") == 0) return bench_case(atol(argv[2]));
    if (argc > 2 && strcmp(argv[1], "launches") == 0) return launches_case(atof(argv[2]));
    if (argc > 1 && strcmp(argv[1], "thread") == 0) return launcher_case();
    if (argc > 1 && strcmp(argv[1], "environ") == 0) return environ_case();
    if (argc > 1 && strcmp(argv[1], "window") == 0) return window_case(0, 0);
    if (argc > 1 && strcmp(argv[1], "window_idle") == 0) return window_case(1, 0);
    if (argc > 1 && strcmp(argv[1], "window_cuda_late") == 0) return window_case(0, 1);
    int before = argc > 1 && strcmp(argv[1], "before") == 0;
    nvtxDomainHandle_t d = nvtxDomainCreateA("stepscope");
    if (!before && cuda_init() != 0) return 1;
    mark(d, "torch.profiler.start");
    if (before && cuda_init() != 0) return 1;
    CUpti_SubscriberHandle sub;
    CUptiResult res = cuptiSubscribe(&sub, NULL, NULL);
    printf("kineto subscribe: %s\n", res == CUPTI_SUCCESS ? "ok" : "busy");
    setenv("FAKE_CUPTI_KINETO", "1", 1);
    cuptiActivityRegisterCallbacks(kineto_req, kineto_cmp);
    unsetenv("FAKE_CUPTI_KINETO");
    if (res == CUPTI_SUCCESS) cuptiUnsubscribe(sub);
    cuptiFinalize();
    mark(d, "torch.profiler.stop");
    return 0;
}
