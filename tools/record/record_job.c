/*
 * record_job.c — the program under `stepscope record` runs as a job of its own.
 *
 * Why not simply share record's process group: a signal sent to the whole group (Ctrl-C,
 * `kill -INT -PGID`, a scheduler signalling the job) then reaches the program twice, from the
 * sender and forwarded by record, and record cannot tell such a signal from one sent to it
 * alone (si_code is SI_USER both times; whether the program has it pending is a race). So the
 * program gets a process group of its own, as a shell gives one to a job (util-linux
 * `setpgid --foreground` and tini do the same):
 *  - whatever is sent to record, alone or with its group, reaches record only, and record
 *    forwards one copy to the program, as `kill PID` of the program would have sent it;
 *  - when record holds the terminal's foreground, it hands it to the program's group before
 *    the program runs: Ctrl-C, Ctrl-\ and Ctrl-Z reach the program (and its children)
 *    straight from the terminal, and a program reading the terminal (pdb) is not stopped;
 *  - when the program stops on a job-control signal (Ctrl-Z, reading the terminal from the
 *    background), record stops too (with its whole group, as the terminal would have
 *    stopped the whole job), so the shell sees the job stop; when record is continued (fg,
 *    bg), it hands the foreground back to the program's group if record was given it, and
 *    continues that group (stop_with() says who stops when);
 *  - when the program has ended, the foreground comes back to record's group.
 * Record waits for signals synchronously (sigwaitinfo on a blocked set): no handler, and no
 * window between a signal and waitpid.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "record_job.h"

#define VERB "record"
#define STILL_RUNNING (-2)

/* What a user or a scheduler sends to stop, suspend or warn a job (SIGUSR1/2: Slurm's
 * --signal, checkpoint requests); record passes them on. Left to their default action they
 * would end record and leave the program running without it. */
static const int k_forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGUSR1, SIGUSR2};
#define N_FORWARDED (sizeof k_forwarded / sizeof k_forwarded[0])

struct job {
    pid_t child;               /* the program, 0 before it starts */
    pid_t pgid;                /* its process group: its own, or record's when shared */
    int shared;                /* the terminal refused the hand-over: program in our group */
    int asked_to_stop;         /* record received SIGTSTP (and passed it on) */
    int tty;                   /* record's controlling terminal, -1 without one */
    sigset_t waitset;          /* what record waits for, blocked while the program runs */
    sigset_t old_mask;         /* record's mask before: the program's at exec */
    struct sigaction old_chld; /* SIGCHLD's disposition before: the program's at exec */
    /* a SIGINT/SIGTERM was passed on: if the program is still running a second later, record
     * says so, and a second one within KILL_WINDOW_S of that sends SIGKILL (docker's way) */
    int ended_asked;        /* the program was asked to end (at ended_asked_at) */
    int told;               /* record said it still runs (at told_at) */
    struct timespec ended_asked_at, told_at;
};

#define STILL_RUNNING_NOTE_S 1 /* after this long, "it is still running" */
#define KILL_WINDOW_S 3        /* a second SIGINT/SIGTERM this soon after the note: SIGKILL */

/* ---- signals ----------------------------------------------------------------------------- */

/* Ignored when record started (nohup, an async command of a script): stays ignored, for
 * record and (exec keeps SIG_IGN) for the program, so it is not waited for. */
static int ignored_at_start(int sig)
{
    struct sigaction sa;
    return sigaction(sig, NULL, &sa) == 0 && !(sa.sa_flags & SA_SIGINFO) &&
           sa.sa_handler == SIG_IGN;
}

static void block_signals(struct job *j)
{
    sigemptyset(&j->waitset);
    sigaddset(&j->waitset, SIGCHLD);
    sigaddset(&j->waitset, SIGCONT);
    for (size_t i = 0; i < N_FORWARDED; i++)
        if (!ignored_at_start(k_forwarded[i])) sigaddset(&j->waitset, k_forwarded[i]);
    sigprocmask(SIG_BLOCK, &j->waitset, &j->old_mask);
    /* an inherited SIG_IGN would let the kernel reap the program before waitpid sees it */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGCHLD, &dfl, &j->old_chld);
}

/* Drops what is pending in set (signals meant for a program that has ended). */
static void drain(const sigset_t *set)
{
    struct timespec zero = {0, 0};
    while (sigtimedwait(set, NULL, &zero) > 0) {
    }
}

/* ---- terminal ---------------------------------------------------------------------------- */

/* The controlling terminal, even when stdin/stdout are redirected (Ctrl-C still comes from
 * it); else a copy of a standard descriptor that is it (after su, /dev/tty may belong to
 * someone else). Close-on-exec: the program must not inherit a descriptor it never opened. */
static int open_ctty(void)
{
    int fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);
    if (fd >= 0 && tcgetpgrp(fd) < 0) {
        close(fd);
        fd = -1;
    }
    for (int std = 0; fd < 0 && std <= 2; std++)
        if (tcgetpgrp(std) >= 0) fd = fcntl(std, F_DUPFD_CLOEXEC, 3);
    return fd;
}

static int foreground_is(const struct job *j, pid_t pgid)
{
    return j->tty >= 0 && tcgetpgrp(j->tty) == pgid;
}

/* tcsetpgrp from a background group raises SIGTTOU (which would stop record) unless the
 * signal is blocked; record is in the background whenever it takes the terminal back. */
static int set_foreground(const struct job *j, pid_t pgid)
{
    sigset_t ttou, old;
    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    sigprocmask(SIG_BLOCK, &ttou, &old);
    int rc = tcsetpgrp(j->tty, pgid);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}

/* The program's group is the foreground one: back to record's, as a shell takes the
 * terminal back from a job that stopped or ended. */
static void take_terminal_back(const struct job *j)
{
    if (!j->shared && j->child > 0 && foreground_is(j, j->pgid)) set_foreground(j, getpgrp());
}

/* ---- the program ------------------------------------------------------------------------- */

/* Its own group, plus the foreground when record holds it. Should the terminal refuse, the
 * program goes back to our group rather than run in the background of a terminal it may
 * read (forward() then leaves the terminal's signals alone: they reach it directly). */
static void place_program(struct job *j)
{
    pid_t ours = getpgrp();
    j->pgid = j->child;
    if (setpgid(j->child, j->child) != 0) {
        j->pgid = ours;
        j->shared = 1;
    } else if (foreground_is(j, ours) && set_foreground(j, j->child) != 0 &&
               setpgid(j->child, ours) == 0) {
        j->pgid = ours;
        j->shared = 1;
    }
}

/* Child side: waits until record has placed it (so the program never runs outside its group
 * or behind the terminal), takes record's original mask and SIGCHLD disposition, execs. */
static void exec_program(char **argv, const struct job *j, int go_fd)
{
    char go;
    ssize_t n;
    while ((n = read(go_fd, &go, 1)) < 0 && errno == EINTR) {
    }
    if (n != 1) _exit(CLI_EXIT_FAIL); /* record died first: nobody to record for */
    close(go_fd);
    sigaction(SIGCHLD, &j->old_chld, NULL);
    sigprocmask(SIG_SETMASK, &j->old_mask, NULL);
    /* the process record started (its pid survives exec): the Python shim samples it even
     * when it never calls CUDA or NVTX, which are what otherwise load the collector */
    char pid[24];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    setenv(sst_settings[SST_SET_ROOT_PID].env, pid, 1);
    execvp(argv[0], argv);
    int e = errno;
    cli_error(VERB, argv[0], "%s", e == ENOENT ? "command not found" : strerror(e));
    _exit(e == ENOENT ? 127 : 126);
}

/* fork, place, let it exec. A socket pair, not a pipe: MSG_NOSIGNAL spares record a SIGPIPE
 * should the child be killed before it reads. */
static int start_program(char **argv, struct job *j)
{
    int go[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) != 0) {
        cli_error(VERB, NULL, "cannot start the program: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        cli_error(VERB, NULL, "cannot start the program: %s", strerror(errno));
        close(go[0]);
        close(go[1]);
        return -1;
    }
    if (pid == 0) {
        close(go[1]);
        exec_program(argv, j, go[0]);
    }
    close(go[0]);
    j->child = pid;
    place_program(j);
    while (send(go[1], "g", 1, MSG_NOSIGNAL) < 0 && errno == EINTR) {
    }
    close(go[1]);
    return 0;
}

/* ---- while it runs ----------------------------------------------------------------------- */

/* Nothing sent to record reached the program (its own group): one copy goes to the program
 * alone, as `kill PID` would. The terminal's signals (SI_KERNEL: Ctrl-C while record held the
 * foreground, a hangup) go to the program's whole group, as the terminal sends them to the
 * foreground job; when the program shares our group they already reached it. What the
 * program sends to record is not sent back to it. */
static void forward(const struct job *j, int sig, const siginfo_t *si)
{
    int from_terminal = si->si_code == SI_KERNEL;
    if (!from_terminal && si->si_pid == j->child) return;
    if (!j->shared)
        kill(from_terminal ? -j->pgid : j->child, sig);
    else if (!from_terminal)
        kill(j->child, sig);
}

/* record was continued (fg, bg, kill -CONT): the program follows, with the foreground when
 * the shell gave it to record (fg). Shared group: the program alone, not us again. */
static void resume(const struct job *j)
{
    if (!j->shared && foreground_is(j, getpgrp())) set_foreground(j, j->pgid);
    kill(j->shared ? j->child : -j->pgid, SIGCONT);
}

/* Who stops with the program, so that whoever started the job sees it stopped:
 *  - record alone when SIGTSTP was sent to record (its sender stops the others it meant);
 *  - record's whole group for the terminal's job control (Ctrl-Z while the program held the
 *    foreground, reading or writing it from the background): without stepscope the terminal
 *    would have stopped the whole foreground job, a pipeline's other commands too;
 *  - nobody when a process stopped the program alone (kill -STOP, a debugger): it will
 *    continue the program, not record, which must then still be waiting.
 * Returns 0 (our group), record's pid, or -1 for nobody. */
static pid_t stop_with(const struct job *j, int sig)
{
    if (j->asked_to_stop) return getpid();
    if (sig == SIGTTIN || sig == SIGTTOU) return 0;
    if (sig == SIGTSTP && foreground_is(j, j->pgid)) return 0;
    return -1;
}

/* The program stopped: record stops as stop_with() says, after taking the terminal back (a
 * shell does so for a stopped job), and when record is continued, so is the program. If
 * record does not stop (an orphaned group, the signal ignored since start), the program
 * continues at once: the kernel would not have stopped it either. */
static void mirror_stop(struct job *j, int sig)
{
    pid_t whom = stop_with(j, sig);
    if (whom < 0) return;
    j->asked_to_stop = 0;
    take_terminal_back(j);
    kill(whom, sig);
    sigset_t one, before;
    sigemptyset(&one);
    sigaddset(&one, sig);
    sigprocmask(SIG_UNBLOCK, &one, &before); /* a blocked SIGTSTP stops record here */
    sigprocmask(SIG_SETMASK, &before, NULL);
    sigset_t cont;
    sigemptyset(&cont);
    sigaddset(&cont, SIGCONT);
    drain(&cont); /* the SIGCONT that woke record: resumed here, not twice */
    resume(j);
}

/* Collects state changes; the program's wait status once it ended, STILL_RUNNING, or -1.
 * Other children (orphans handed to record when it is a container's PID 1) are reaped. */
static int reap(struct job *j)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG | WUNTRACED)) != 0) {
        if (pid < 0 && errno == EINTR) continue;
        if (pid < 0) {
            cli_error(VERB, NULL, "lost the program: %s", strerror(errno));
            return -1;
        }
        if (pid != j->child) continue;
        if (!WIFSTOPPED(status)) return status;
        mirror_stop(j, WSTOPSIG(status));
    }
    return STILL_RUNNING;
}

static double seconds_since(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* A SIGINT or SIGTERM for the program: passed on; the second one soon after record said the
 * program ignores the first is SIGKILL for its whole group. */
static void ask_to_end(struct job *j, int sig, const siginfo_t *si)
{
    if (j->told && seconds_since(&j->told_at) <= KILL_WINDOW_S) {
        cli_error(VERB, NULL, "sending SIGKILL to the program (pid %d)", (int)j->child);
        kill(j->shared ? j->child : -j->pgid, SIGKILL);
        return;
    }
    forward(j, sig, si);
    if (si->si_pid == j->child && si->si_code != SI_KERNEL) return; /* its own, not a request */
    j->ended_asked = 1, j->told = 0;
    clock_gettime(CLOCK_MONOTONIC, &j->ended_asked_at);
}

/* The program did not end a second after being asked: say so, once. */
static void tell_still_running(struct job *j)
{
    j->ended_asked = 0, j->told = 1;
    clock_gettime(CLOCK_MONOTONIC, &j->told_at);
    cli_error(VERB, NULL,
              "the program (pid %d) is still running; a second Ctrl-C or SIGTERM within %d s "
              "sends SIGKILL",
              (int)j->child, KILL_WINDOW_S);
}

/* The next signal; sigtimedwait while the "still running" note is due (-1, EAGAIN: due). */
static int next_signal(struct job *j, siginfo_t *si)
{
    if (!j->ended_asked) return sigwaitinfo(&j->waitset, si);
    double left = STILL_RUNNING_NOTE_S - seconds_since(&j->ended_asked_at);
    if (left <= 0) return errno = EAGAIN, -1;
    struct timespec to = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
    return sigtimedwait(&j->waitset, si, &to);
}

static int wait_program(struct job *j)
{
    for (;;) {
        siginfo_t si;
        int sig = next_signal(j, &si);
        if (sig == SIGCHLD) {
            int status = reap(j);
            if (status != STILL_RUNNING) return status;
        } else if (sig == SIGCONT) {
            resume(j);
        } else if (sig == SIGINT || sig == SIGTERM) {
            ask_to_end(j, sig, &si);
        } else if (sig > 0) {
            j->asked_to_stop |= sig == SIGTSTP;
            forward(j, sig, &si);
        } else if (errno == EAGAIN) {
            tell_still_running(j);
        } else if (errno != EINTR) {
            cli_error(VERB, NULL, "cannot wait for the program: %s", strerror(errno));
            return -1;
        }
    }
}

/* Afterwards: the terminal back to record's group (a script that reads on must not be left
 * in the background), signals meant for the program dropped, record's mask and SIGCHLD
 * disposition restored (so a Ctrl-C during the report stops record). */
static void finish(struct job *j)
{
    take_terminal_back(j);
    drain(&j->waitset);
    sigaction(SIGCHLD, &j->old_chld, NULL);
    sigprocmask(SIG_SETMASK, &j->old_mask, NULL);
    if (j->tty >= 0) close(j->tty);
}

int record_job_run(char **argv, pid_t *child)
{
    struct job j;
    memset(&j, 0, sizeof j);
    block_signals(&j);
    j.tty = open_ctty();
    int status = start_program(argv, &j) == 0 ? wait_program(&j) : -1;
    *child = j.child;
    finish(&j);
    return status;
}
