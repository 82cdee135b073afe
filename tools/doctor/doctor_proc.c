/* doctor_proc.c — running a helper program (python3, nvidia-smi) for `stepscope doctor`:
 * fork/exec without a shell, stdout collected through a pipe, a hard time limit. See doctor.h. */
#include "doctor.h"

#include "cmd.h" /* cli_setting */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void dr_set(struct ssa_env_verdict *r, int status, const char *fix, const char *fmt, ...)
{
    va_list ap;
    r->status = status;
    snprintf(r->fix, sizeof r->fix, "%s", fix ? fix : "");
    va_start(ap, fmt);
    vsnprintf(r->value, sizeof r->value, fmt, ap);
    va_end(ap);
}

int dr_which(const char *name, char *buf, size_t cap)
{
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        if (n > 0 && (size_t)snprintf(buf, cap, "%.*s/%s", (int)n, p, name) < cap &&
            access(buf, X_OK) == 0)
            return 0;
        p += n;
        if (*p == ':') p++;
    }
    return -1;
}

int dr_timeout_ms(int default_ms)
{
    struct sst_value s; /* the settings table's STEPSCOPE_DOCTOR_TIMEOUT_S */
    return cli_setting(SST_SET_DOCTOR_TIMEOUT_S, &s) > 0 ? (int)s.num * 1000 : default_ms;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* In the child: its own process group (so a timeout kills what it started too), stdin and
 * stderr on /dev/null, stdout to the pipe. Only async-signal-safe calls. */
static void child_exec(char *const argv[], int out_fd)
{
    setpgid(0, 0);
    int null_fd = open("/dev/null", O_RDWR);
    if (null_fd >= 0) {
        dup2(null_fd, STDIN_FILENO);
        dup2(null_fd, STDERR_FILENO);
    }
    dup2(out_fd, STDOUT_FILENO);
    execv(argv[0], argv);
    _exit(127);
}

/* Reads the child's stdout until EOF or the deadline. Returns 0 at EOF, -2 at the deadline. */
static int collect(int fd, int64_t deadline, char *out, size_t cap)
{
    size_t len = 0;
    char sink[4096];
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left <= 0) break;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int n = poll(&p, 1, (int)(left > INT_MAX ? INT_MAX : left));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        /* Past the cap the bytes are drained and dropped, so the child never blocks. */
        char *dst = len + 1 < cap ? out + len : sink;
        size_t room = len + 1 < cap ? cap - 1 - len : sizeof sink;
        ssize_t got = read(fd, dst, room);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            out[len] = '\0';
            return 0;
        }
        if (dst != sink) len += (size_t)got;
    }
    out[len] = '\0';
    return -2;
}

int dr_run_capture(char *const argv[], int timeout_ms, char *out, size_t cap)
{
    int fds[2];
    if (cap == 0 || pipe2(fds, O_CLOEXEC) != 0) return -1;
    out[0] = '\0';
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]), close(fds[1]);
        return -1;
    }
    if (pid == 0) child_exec(argv, fds[1]);
    close(fds[1]);
    int rc = collect(fds[0], now_ms() + timeout_ms, out, cap);
    close(fds[0]);
    if (rc == -2) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL); /* in case setpgid had not run yet */
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (rc == -2 || !WIFEXITED(st)) return -2;
    return WEXITSTATUS(st) == 127 ? -1 : WEXITSTATUS(st);
}
