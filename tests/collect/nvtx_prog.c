/*
 * nvtx_prog.c — a program that exercises every NVTX path of the collector; run under
 * `stepscope record` by run_record_test.sh and checked by check_trace.c.
 *
 *   nvtx_prog normal          4 threads x 100 iterations of push/pop (default domain and
 *                             domain "dom-A" with registered strings, payloads, colours),
 *                             start/end, marks; thread names; a wide-string push; 5 steps
 *                             through the public header; a fork() while the threads run
 *                             whose child records "child-range" (the threads end only after
 *                             the fork: see g_forked). Exits with status 3.
 *   nvtx_prog kill FILE       records marks until SIGKILLing itself after ~2.5 s; writes the
 *                             CLOCK_MONOTONIC time of the kill to FILE first.
 *   nvtx_prog term            installs its own SIGTERM handler (prints "handler ran", exits 7
 *                             from main), records, then sends itself SIGTERM.
 *   nvtx_prog term_default    records, then sends itself SIGTERM with no handler installed.
 *   nvtx_prog flood           200000 push/pop pairs as fast as possible (memory-cap test).
 *   nvtx_prog steps           10 steps through the public header (capture-window test).
 *   nvtx_prog busy_exit       4 threads record without pause; main forks 20 children (each
 *                             records and exits) and then calls exit(0) while the threads are
 *                             still recording: no deadlock, no hang, a closed trace per process.
 *   nvtx_prog fork_at_start   the first record (the collector and its writer thread start),
 *                             then at once a fork() whose child allocates, records and exits:
 *                             the writer's start must not leave the child an allocator lock
 *                             held by nobody (AddressSanitizer's has no fork handler).
 *   nvtx_prog exec_hup        records (the collector starts), then execs
 *                             `sh -c 'kill -HUP $$; echo survived'`: run with SIGHUP ignored,
 *                             the exec'd shell must still ignore it (exit 0, "survived").
 * The counts are part of the contract with check_trace.c.
 */
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stepscope/stepscope.h"

#define THREADS 4
#define ITERS 100

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static nvtxDomainHandle_t g_dom;
static nvtxStringHandle_t g_reg;
static pthread_barrier_t g_start;
/* normal: the workers end only once main has forked. A thread that ends meanwhile (main late
 * on a loaded machine) hands its allocator cache back under the allocator's locks, and gcc 12's
 * AddressSanitizer takes none of them around fork(): the child then found a lock held by
 * nobody (its writer thread stuck in ASan's thread start, CI's 60-s hang of
 * collect_inject_foreign_cuda). glibc's malloc is fork-safe; the test is about the collector. */
static pthread_barrier_t g_forked;

static void one_iteration(int t, int i)
{
    nvtxRangePushA("work");
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.category = 5;
    a.colorType = NVTX_COLOR_ARGB;
    a.color = 0xFF00FF00u;
    a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    a.payload.llValue = i;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = g_reg;
    nvtxDomainRangePushEx(g_dom, &a);
    nvtxDomainRangePop(g_dom);
    nvtxRangePop();
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "range-x";
    nvtxRangeId_t id = nvtxRangeStartEx(&a);
    nvtxRangeEnd(id);
    char msg[32];
    snprintf(msg, sizeof msg, "mark-%d", t); /* a reused buffer with changing text */
    nvtxMarkA(msg);
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    char name[16];
    snprintf(name, sizeof name, "worker-%d", t);
    nvtxNameOsThreadA((uint32_t)syscall(SYS_gettid), name);
    pthread_barrier_wait(&g_start);
    for (int i = 0; i < ITERS; i++) {
        one_iteration(t, i);
        if (i % 10 == 0) sleep_ms(1); /* keep them running while main forks */
    }
    pthread_barrier_wait(&g_forked);
    return NULL;
}

/* The child of fork(): its records go to its own file. */
static void forked_child(void)
{
    nvtxRangePushA("child-range");
    nvtxRangePop();
    exit(0); /* atexit closes the child's trace */
}

static int run_normal(void)
{
    g_dom = nvtxDomainCreateA("dom-A");
    g_reg = nvtxDomainRegisterStringA(g_dom, "reg-msg");
    nvtxNameCategoryA(5, "five");
    pthread_barrier_init(&g_start, NULL, THREADS + 1);
    pthread_barrier_init(&g_forked, NULL, THREADS + 1);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    pthread_barrier_wait(&g_start);
    sleep_ms(3);
    pid_t pid = fork(); /* while the workers record: the child must not deadlock */
    if (pid == 0) forked_child();
    pthread_barrier_wait(&g_forked);
    nvtxRangePushW(L"wide-\u00fc");
    nvtxRangePop();
    for (uint64_t s = 0; s < 5; s++) {
        stepscope_step_begin(s);
        stepscope_data_begin();
        sleep_ms(2);
        stepscope_data_end();
        stepscope_step_end();
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return 99;
    sleep_ms(150); /* at least one host sample */
    return 3;
}

static int run_kill(const char *file)
{
    uint64_t t0 = now_ns();
    int64_t n = 0;
    while (now_ns() - t0 < 2500000000ull) {
        nvtxEventAttributes_t a;
        memset(&a, 0, sizeof a);
        a.version = NVTX_VERSION;
        a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
        a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
        a.payload.llValue = n++;
        a.messageType = NVTX_MESSAGE_TYPE_ASCII;
        a.message.ascii = "tick";
        nvtxMarkEx(&a);
        sleep_ms(1);
    }
    FILE *f = fopen(file, "w");
    if (!f) return 98;
    fprintf(f, "%llu\n", (unsigned long long)now_ns());
    fclose(f);
    raise(SIGKILL);
    return 97;
}

static volatile sig_atomic_t g_term;
static void on_term(int sig)
{
    (void)sig;
    g_term = 1;
    static const char msg[] = "handler ran\n";
    ssize_t rc = write(STDOUT_FILENO, msg, sizeof msg - 1);
    (void)rc;
}

static int run_term(int own_handler)
{
    if (own_handler) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_term;
        sigaction(SIGTERM, &sa, NULL);
    }
    for (int i = 0; i < 200 && !g_term; i++) {
        nvtxRangePushA("before-term");
        nvtxRangePop();
        if (i == 100) kill(getpid(), SIGTERM);
        sleep_ms(1);
    }
    return own_handler && g_term ? 7 : 96;
}

static int run_flood(void)
{
    for (int i = 0; i < 200000; i++) {
        nvtxRangePushA("flood");
        nvtxRangePop();
    }
    return 0;
}

static int run_steps(void)
{
    for (uint64_t s = 0; s < 10; s++) {
        stepscope_step_begin(s);
        sleep_ms(5);
        stepscope_step_end();
    }
    return 0;
}

/* Long enough for several CLOCK records at STEPSCOPE_CLOCK_MS=200 (the clock case). */
static int run_clock(void)
{
    for (uint64_t s = 0; s < 12; s++) {
        stepscope_step_begin(s);
        sleep_ms(100);
        stepscope_step_end();
    }
    return 0;
}

static void *spinner(void *arg)
{
    (void)arg;
    nvtxRangePushA("spin");
    nvtxRangePop();
    /* First records done (they allocate: thread buffer, TLS). ASan's allocator, unlike
     * glibc's, is not fork-safe, so fork only once every thread is past them. */
    pthread_barrier_wait(&g_start);
    for (;;) {
        nvtxRangePushA("spin");
        nvtxRangePop();
    }
    return NULL;
}

static int run_busy_exit(void)
{
    pthread_t th;
    pthread_barrier_init(&g_start, NULL, THREADS + 1);
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th, NULL, spinner, NULL);
    pthread_barrier_wait(&g_start);
    for (int i = 0; i < 20; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            nvtxMarkA("child");
            exit(0);
        }
        int st;
        waitpid(pid, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return 95;
    }
    sleep_ms(200);
    exit(0); /* the spinners are still recording */
}

static void *burner(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&g_start);
    for (volatile unsigned long n = 0;; n++) {
    }
    return NULL;
}

static int run_fork_at_start(void)
{
    /* Busy threads (started, past their own start) keep the cores full, so the writer thread
     * runs late, as in a training process; then a fork at a different moment of its start in
     * each run (0-4 ms after the first record). */
    pthread_t th;
    pthread_barrier_init(&g_start, NULL, 4);
    for (int t = 0; t < 3; t++)
        pthread_create(&th, NULL, burner, NULL);
    pthread_barrier_wait(&g_start);
    nvtxMarkA("first");
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long wait_ns = (long)(getpid() % 64) * 64000;
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < wait_ns);
    pid_t pid = fork();
    if (pid == 0) {
        free(calloc(152, 1)); /* the size of ASan's own allocation at a thread's start */
        nvtxMarkA("child");
        exit(0);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) return 96;
    exit(WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 95); /* the burners still run */
}

static int run_exec_hup(void)
{
    nvtxMarkA("before-exec");
    sleep_ms(50); /* the collector is running (writer thread, signal handlers) */
    execl("/bin/sh", "sh", "-c", "kill -HUP $$; echo survived", (char *)NULL);
    return 94;
}

#ifdef NVTX_PROG_CXX_API
/* A C++ API call (through its mangled name), as a program over libtorch's C++ API makes. */
int fake_torch_cxx_api(void) __asm__("_ZN5torch12fake_cxx_apiEv");
#endif

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "normal";
#ifdef NVTX_PROG_CXX_API
    if (fake_torch_cxx_api() != 2) return 3;
#endif
    if (strcmp(mode, "normal") == 0) return run_normal();
    if (strcmp(mode, "kill") == 0 && argc > 2) return run_kill(argv[2]);
    if (strcmp(mode, "term") == 0) return run_term(1);
    if (strcmp(mode, "term_default") == 0) return run_term(0);
    if (strcmp(mode, "flood") == 0) return run_flood();
    if (strcmp(mode, "steps") == 0) return run_steps();
    if (strcmp(mode, "clock") == 0) return run_clock();
    if (strcmp(mode, "busy_exit") == 0) return run_busy_exit();
    if (strcmp(mode, "fork_at_start") == 0) return run_fork_at_start();
    if (strcmp(mode, "exec_hup") == 0) return run_exec_hup();
    fprintf(stderr, "nvtx_prog: unknown mode %s\n", mode);
    return 2;
}
