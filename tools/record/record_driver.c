/*
 * record_driver.c — why CUDA never started in a `record` run (issue #41).
 *
 * The CUDA driver loads the collector (CUDA_INJECTION64_PATH) from cuInit. Without a driver
 * (no libcuda.so.1), with one too old for the program's CUDA runtime, or with one that cannot
 * initialise (no device, no kernel module), cuInit never succeeds: the collector is never
 * loaded for CUDA, the program's CUDA calls fail (cudaErrorInsufficientDriver, 35, for a
 * missing or old driver) and the program may still succeed on the CPU. Its trace, if NVTX
 * made one, has no sign of CUDA — and `record` said "the program made no CUDA or NVTX call".
 * So record asks the driver itself, as the program would have: in a child process (nothing
 * of libcuda stays in record), with the injection variables unset there (its cuInit must
 * load no collector), and bounded in time (a driver that hangs must not hang record).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record_job.h"

/* The collector links CUPTI 13, which needs a driver for CUDA 13 (R580 or newer). */
#define MIN_DRIVER_CUDA 13000
#define PROBE_TIMEOUT_MS 20000 /* cuInit of 8 GPUs takes seconds; a hung driver, forever */

struct driver_answer {
    int loaded;         /* libcuda.so.1 loaded */
    int version;        /* cuDriverGetVersion, 0 when it failed */
    int init_rc;        /* cuInit(0), when the version was new enough */
    char init_name[64]; /* cuGetErrorName of init_rc */
};

/* In the child: the driver as the program saw it. */
static void ask_driver(struct driver_answer *a)
{
    unsetenv("CUDA_INJECTION64_PATH"); /* record set it: cuInit would load the collector */
    unsetenv("NVTX_INJECTION64_PATH");
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    a->loaded = 1;
    int (*version)(int *) = (int (*)(int *))dlsym(h, "cuDriverGetVersion");
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
    int (*name)(int, const char **) = (int (*)(int, const char **))dlsym(h, "cuGetErrorName");
    if (!version || version(&a->version) != 0) a->version = 0;
    if (a->version < MIN_DRIVER_CUDA || !init) return;
    a->init_rc = init(0);
    const char *s = NULL;
    if (a->init_rc && name && name(a->init_rc, &s) == 0 && s)
        snprintf(a->init_name, sizeof a->init_name, "%s", s);
}

/* Reads the child's answer within the time limit: 0, or -1 (then the child is killed). */
static int read_answer(int fd, pid_t pid, struct driver_answer *a)
{
    struct pollfd p = {fd, POLLIN, 0};
    int ready;
    while ((ready = poll(&p, 1, PROBE_TIMEOUT_MS)) < 0 && errno == EINTR) {
    }
    ssize_t n = ready > 0 ? read(fd, a, sizeof *a) : -1;
    if (n != (ssize_t)sizeof *a) kill(pid, SIGKILL);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return n == (ssize_t)sizeof *a ? 0 : -1;
}

/* The driver's answer; -1 when none came (no fork, a driver that hangs or crashes). */
static int probe(struct driver_answer *a)
{
    int p[2];
    memset(a, 0, sizeof *a);
    if (pipe2(p, O_CLOEXEC) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        ask_driver(a);
        ssize_t w = write(p[1], a, sizeof *a);
        _exit(w == (ssize_t)sizeof *a ? 0 : 1);
    }
    close(p[1]);
    int rc = pid > 0 ? read_answer(p[0], pid, a) : -1;
    close(p[0]);
    return rc;
}

/* "12.4" from 12040. */
static void version_text(int v, char *buf, size_t cap)
{
    snprintf(buf, cap, "%d.%d", v / 1000, (v % 1000) / 10);
}

static void say_missing(char *out, size_t cap)
{
    int module = access("/proc/driver/nvidia/version", F_OK) == 0;
    snprintf(out, cap,
             "no NVIDIA driver (libcuda.so.1 not found, kernel module %s): CUDA "
             "calls fail with cudaErrorInsufficientDriver, 35",
             module ? "loaded" : "not loaded");
}

int record_driver_problem(char *out, size_t cap)
{
    struct driver_answer a;
    char v[16];
    out[0] = '\0';
    if (probe(&a) != 0) return 0; /* cannot tell: say nothing rather than guess */
    if (!a.loaded) {
        say_missing(out, cap);
    } else if (a.version < MIN_DRIVER_CUDA) {
        version_text(a.version, v, sizeof v);
        snprintf(out, cap,
                 "the NVIDIA driver %s%s, older than the CUDA 13 stepscope's CUPTI "
                 "needs (driver R580 or newer): a CUDA 13 program's calls fail with "
                 "cudaErrorInsufficientDriver, 35",
                 a.version ? "supports CUDA " : "does not say its version", a.version ? v : "");
    } else if (a.init_rc) {
        snprintf(out, cap, "the NVIDIA driver cannot start CUDA (cuInit: %s)",
                 a.init_name[0] ? a.init_name : "error");
    }
    return out[0] != '\0';
}
