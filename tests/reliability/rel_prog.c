/*
 * rel_prog.c — the program of the fault-matrix tests (run_fault.sh): emits NVTX at a high
 * rate and then meets one fault. Its stdout is deterministic (the same with and without
 * stepscope, which the tests compare) and every mode has its own exit status.
 *
 *   rel_prog sigint READY       own SIGINT handler installed before the first NVTX call (as
 *                               Python does); records until SIGINT; prints the number of
 *                               SIGINTs received; exits 5
 *   rel_prog sigterm READY      the same with SIGTERM: prints "sigterm handled: N"; exits 6
 *   rel_prog sigusr1 READY      the same with SIGUSR1: prints "sigusr1 handled: N"; exits 9
 *   rel_prog sigdfl READY       no handler: records until a signal kills it
 *   rel_prog readline READY     records, then reads one line from stdin (a terminal in the
 *                               pty tests: it must not be stopped by SIGTTIN), prints it as
 *                               "read: LINE"; exits 0 (7 at end of input, 8 on a read error)
 *   rel_prog abort TIMEFILE     records for 2 s, writes the CLOCK_REALTIME ns of the fault to
 *                               TIMEFILE, prints, abort()s
 *   rel_prog uexit TIMEFILE     the same, then _exit(3) (no atexit, no stdio flush: what it
 *                               printed it flushed itself)
 *   rel_prog big SECONDS        records ranges with 200-byte distinct messages for SECONDS
 *                               (a trace of many MB: the disk-full cases); exits 0
 *   rel_prog forkstorm          16 children at once, each 2000 ranges "child" (a DataLoader
 *                               with 16 workers), the parent records meanwhile; exits 0
 *   rel_prog threads64          64 threads x 5000 ranges "t"; exits 0
 *   rel_prog longrun SECS FILE [PAUSE_US]
 *                               4 threads recording for SECS, 64 ranges (128 events) then a
 *                               pause of PAUSE_US (0: none, as fast as they can); every 250 ms
 *                               the process's VmRSS (kB) is appended to FILE; exits 0
 *   rel_prog flood              200000 ranges as fast as possible; exits 0
 * READY: a file written (with the pid) once the collector runs, so the test can signal.
 */
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static void ranges(const char *name, int n)
{
    for (int i = 0; i < n; i++) {
        nvtxRangePushA(name);
        nvtxRangePop();
    }
}

static void write_ready(const char *path)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) exit(90);
    fprintf(f, "%d\n", (int)getpid());
    if (fclose(f) != 0 || rename(tmp, path) != 0) exit(90);
}

static volatile sig_atomic_t g_caught;
static void on_signal(int sig)
{
    (void)sig;
    g_caught++;
}

/* sigint / sigterm: a handler that counts; a duplicated signal shows as a count of 2. */
static int run_caught(int sig, const char *name, const char *ready, int exit_code)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(sig, &sa, NULL);
    ranges("before-ready", 1000);
    write_ready(ready);
    uint64_t t0 = now_ns();
    while (!g_caught && now_ns() - t0 < 20000000000ull)
        ranges("waiting", 100);
    sleep_ms(300); /* a second, duplicated signal would arrive by now */
    printf("%s handled: %d\n", name, (int)g_caught);
    return exit_code;
}

static int run_readline(const char *ready)
{
    char line[256];
    ranges("before-ready", 1000);
    write_ready(ready);
    if (!fgets(line, sizeof line, stdin)) return ferror(stdin) ? 8 : 7;
    line[strcspn(line, "\r\n")] = '\0';
    ranges("after-read", 100);
    printf("read: %s\n", line);
    return 0;
}

static int run_sigdfl(const char *ready)
{
    ranges("before-ready", 1000);
    write_ready(ready);
    uint64_t t0 = now_ns();
    while (now_ns() - t0 < 20000000000ull) {
        ranges("waiting", 100);
        sleep_ms(1);
    }
    printf("no signal came\n");
    return 91;
}

/* Two seconds of ranges at a moderate rate, then the time of the fault into file. */
static void before_fault(const char *name, const char *file)
{
    uint64_t t0 = now_ns();
    while (now_ns() - t0 < 2000000000ull) {
        ranges(name, 20);
        sleep_ms(1);
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    FILE *f = fopen(file, "w");
    if (!f) exit(90);
    fprintf(f, "%llu\n",
            (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec);
    if (fclose(f) != 0) exit(90);
}

static int run_abort(const char *file)
{
    before_fault("before-abort", file);
    printf("about to abort\n");
    fflush(stdout);
    abort();
}

static int run_uexit(const char *file)
{
    before_fault("before-exit", file);
    printf("about to _exit\n");
    fflush(stdout);
    _exit(3);
}

static int run_big(int seconds)
{
    char msg[208];
    uint64_t t0 = now_ns();
    unsigned long n = 0;
    while (now_ns() - t0 < (uint64_t)seconds * 1000000000ull) {
        /* distinct strings: each one is a STRING record of ~220 bytes in the trace */
        snprintf(msg, sizeof msg, "%0190lu-big", n++);
        nvtxRangePushA(msg);
        nvtxRangePop();
    }
    printf("big done\n");
    return 0;
}

static int run_forkstorm(void)
{
    enum { CHILDREN = 16 };
    pid_t pid[CHILDREN];
    ranges("parent-before", 1000);
    for (int i = 0; i < CHILDREN; i++) {
        pid[i] = fork();
        if (pid[i] < 0) return 92;
        if (pid[i] == 0) {
            ranges("child", 2000);
            exit(0); /* like a worker's normal end: atexit closes its trace */
        }
    }
    ranges("parent-during", 2000);
    int ok = 0;
    for (int i = 0; i < CHILDREN; i++) {
        int st;
        if (waitpid(pid[i], &st, 0) == pid[i] && WIFEXITED(st) && WEXITSTATUS(st) == 0) ok++;
    }
    printf("children ok: %d\n", ok);
    return ok == CHILDREN ? 0 : 93;
}

static pthread_barrier_t g_barrier;

static void *thread64(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&g_barrier);
    ranges("t", 5000);
    return NULL;
}

static int run_threads64(void)
{
    enum { THREADS = 64 };
    pthread_t th[THREADS];
    pthread_barrier_init(&g_barrier, NULL, THREADS);
    for (int i = 0; i < THREADS; i++)
        if (pthread_create(&th[i], NULL, thread64, NULL) != 0) return 94;
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    printf("threads ok: %d\n", THREADS);
    return 0;
}

static atomic_int g_stop;
static atomic_ullong g_emitted;
static long g_pause_us;

static void *spinner(void *arg)
{
    (void)arg;
    unsigned long long n = 0;
    struct timespec pause = {0, g_pause_us * 1000L};
    while (!atomic_load_explicit(&g_stop, memory_order_relaxed)) {
        ranges("spin", 64);
        n += 128;
        if (g_pause_us) nanosleep(&pause, NULL);
    }
    atomic_fetch_add(&g_emitted, n);
    return NULL;
}

static long vm_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) kb = strtol(line + 6, NULL, 10);
    if (f) fclose(f);
    return kb;
}

static int run_longrun(int seconds, const char *file, long pause_us)
{
    g_pause_us = pause_us > 0 && pause_us < 1000000 ? pause_us : 0;
    enum { THREADS = 4 };
    FILE *out = fopen(file, "w");
    if (!out) return 95;
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        if (pthread_create(&th[i], NULL, spinner, NULL) != 0) return 94;
    uint64_t t0 = now_ns();
    while (now_ns() - t0 < (uint64_t)seconds * 1000000000ull) {
        sleep_ms(250);
        fprintf(out, "%.2f %ld\n", (double)(now_ns() - t0) / 1e9, vm_rss_kb());
        fflush(out);
    }
    atomic_store(&g_stop, 1);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    fprintf(out, "# events %llu\n", (unsigned long long)atomic_load(&g_emitted));
    fclose(out);
    printf("longrun done\n");
    return 0;
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";
    if (!strcmp(m, "sigint") && argc > 2) return run_caught(SIGINT, "sigint", argv[2], 5);
    if (!strcmp(m, "sigterm") && argc > 2) return run_caught(SIGTERM, "sigterm", argv[2], 6);
    if (!strcmp(m, "sigusr1") && argc > 2) return run_caught(SIGUSR1, "sigusr1", argv[2], 9);
    if (!strcmp(m, "readline") && argc > 2) return run_readline(argv[2]);
    if (!strcmp(m, "sigdfl") && argc > 2) return run_sigdfl(argv[2]);
    if (!strcmp(m, "abort") && argc > 2) return run_abort(argv[2]);
    if (!strcmp(m, "uexit") && argc > 2) return run_uexit(argv[2]);
    if (!strcmp(m, "big") && argc > 2) return run_big(atoi(argv[2]));
    if (!strcmp(m, "forkstorm")) return run_forkstorm();
    if (!strcmp(m, "threads64")) return run_threads64();
    if (!strcmp(m, "longrun") && argc > 3)
        return run_longrun(atoi(argv[2]), argv[3], argc > 4 ? atol(argv[4]) : 0);
    if (!strcmp(m, "flood")) {
        ranges("flood", 200000);
        return 0;
    }
    fprintf(stderr, "rel_prog: unknown mode '%s'\n", m);
    return 2;
}
