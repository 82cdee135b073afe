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
 */

#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>
#include <stepscope/stepscope.h>

CUptiResult cuptiFinalize(void);
void fake_cupti_api_record(uint32_t tid); /* fake_cupti.c */
void fake_cupti_api_call(void);
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

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "thread") == 0) return launcher_case();
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
