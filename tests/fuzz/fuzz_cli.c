/*
 * fuzz_cli.c — libFuzzer target: the CLI's argument handling, through the real entry point.
 *
 * tools/stepscope.c is compiled with main renamed (stepscope_cli_main, see CMakeLists.txt),
 * so every input goes through the verb table and the verb's own parser and then does
 * whatever those arguments ask: read a trace, analyse it, write a report or an export.
 * The input is the argument list, one argument per line (at most MAX_ARGS); argv[0] is
 * "stepscope". Two kinds of line are not arguments but the shell's redirections of stdin:
 *   <NAME  stdin is the sandbox file NAME itself (`stepscope report - < t.sstrace`)
 *   |NAME  stdin is a pipe holding that file's bytes (`cat t.sstrace | stepscope report -`),
 *          an empty pipe when NAME is no file of the sandbox
 * Without either, stdin is /dev/null: the fuzzer never waits on a terminal or a pipe.
 *
 * The verbs run in a sandbox folder (cwd) holding the fixtures of k_fixtures below: traces,
 * a Kineto JSON, an nsys SQLite export, and the things an output or input may meet (a
 * read-only file, another user's file, a default output name already taken, a FIFO with no
 * reader or writer, character devices, symbolic links: followed, dangling, a loop, one to an
 * input). A fixture a verb replaced, wrote or chmod-ed is made again before the next input,
 * so every input meets the same sandbox.
 * Safety of the fuzzing machine: '/' in an argument becomes '_', so every path an argument
 * names lies in the sandbox (cwd is two levels below a private mkdtemp folder, so ".." is
 * that folder and holds only bin/); links point inside the sandbox; files the verbs create
 * are deleted after each input; TMPDIR is the sandbox. PATH is the sandbox's bin/, which holds
 * one harmless script, `prog`: `record prog` gets past the program lookup, then fails because
 * STEPSCOPE_LIB names a missing library (before it creates anything), and `doctor` finds no
 * python3 or nvidia-smi to run (each run of those would cost the fuzzer seconds). stdout,
 * stderr (the FILE streams) and descriptor 1 (`-o -` writes there directly) point at
 * /dev/null while a verb runs; libFuzzer and the sanitizers write to descriptor 2 directly.
 * A verb that called exit() would end the fuzzer: none does (record's and doctor's forked
 * children call _exit; record never forks here).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "interop/ssi.h"

#ifndef FUZZ_SEED_DIR
#define FUZZ_SEED_DIR "."
#endif

#define MAX_ARGS 24
#define MAX_ARG_LEN 512

int stepscope_cli_main(int argc, char **argv);

/* A one-step Kineto capture: kernel, copy, memset, sync, data loading, process/thread names. */
static const char k_kineto[] =
    "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H200\", "
    "\"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132}], \"displayTimeUnit\": \"ms\", "
    "\"baseTimeNanoseconds\": 1790857026000000000, \"traceEvents\": ["
    "{\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 100.0, \"pid\": 7, \"tid\": 0, "
    "\"args\": {\"name\": \"python3 train.py\"}}, "
    "{\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 100.0, \"pid\": 7, \"tid\": 7, "
    "\"args\": {\"name\": \"main\"}}, "
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 7, "
    "\"tid\": 7, \"ts\": 1000.0, \"dur\": 500.0, \"args\": {\"External id\": 1}}, "
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 7, "
    "\"tid\": 7, \"ts\": 1010.5, \"dur\": 4.25, \"args\": {\"cbid\": 211, \"correlation\": 11}}, "
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ampere_sgemm_128x64_nn\", \"pid\": 0, "
    "\"tid\": 7, \"ts\": 1020.0, \"dur\": 300.0, \"args\": {\"device\": 0, \"stream\": 7, "
    "\"correlation\": 11, \"grid\": [1, 2, 3], \"block\": [128, 1, 1]}}, "
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMemcpyAsync\", \"pid\": 7, "
    "\"tid\": 7, \"ts\": 1330.0, \"dur\": 20.0, \"args\": {\"cbid\": 41, \"correlation\": 12}}, "
    "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", "
    "\"pid\": 0, \"tid\": 7, \"ts\": 1340.0, \"dur\": 50.0, \"args\": {\"device\": 0, "
    "\"stream\": 7, \"correlation\": 12, \"bytes\": 1048576}}, "
    "{\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (Device)\", \"pid\": 0, "
    "\"tid\": 7, \"ts\": 1395.0, \"dur\": 1.0, \"args\": {\"device\": 0, \"stream\": 7, "
    "\"correlation\": 13, \"bytes\": 4}}, "
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamSynchronize\", \"pid\": 7, "
    "\"tid\": 7, \"ts\": 1400.0, \"dur\": 60.0, \"args\": {\"cbid\": 131, \"correlation\": 14}}, "
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
    "\"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__\", \"pid\": 7, \"tid\": 7, "
    "\"ts\": 1460.0, \"dur\": 30.0, \"args\": {}}, "
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#2\", \"pid\": 7, "
    "\"tid\": 7, \"ts\": 1500.0, \"dur\": 500.0, \"args\": {\"External id\": 2}}, "
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ampere_sgemm_128x64_nn\", \"pid\": 0, "
    "\"tid\": 7, \"ts\": 1520.0, \"dur\": 400.0, \"args\": {\"device\": 0, \"stream\": 7, "
    "\"correlation\": 21}}]}\n";

enum fx_kind { FX_FILE, FX_LINK, FX_FIFO, FX_CHR };

/* src: a file of the seed folder, "=TEXT" (the bytes of TEXT), "0N" (N zero bytes), or
 * "nsys:NAME" (the nsys SQLite export of fixture NAME); for a link, its target; for a
 * character device, "MAJOR:MINOR". uid: the owner, when not 0 (made so only as root). */
struct fixture {
    const char *name;
    enum fx_kind kind;
    mode_t mode;
    const char *src;
    uid_t uid;
    unsigned char *data; /* FX_FILE: the bytes, kept to make it again */
    size_t size;
    struct stat st; /* as made: any other inode, mode, size or ctime means it was touched */
};

#define FX(n, k, m, s)                                                                             \
    {                                                                                              \
        .name = n, .kind = k, .mode = m, .src = s                                                  \
    }
#define FX_OWNED(n, m, s, u)                                                                       \
    {                                                                                              \
        .name = n, .kind = FX_FILE, .mode = m, .src = s, .uid = u                                  \
    }
static struct fixture k_fixtures[] = {
    FX("t.sstrace", FX_FILE, 0600, "synthetic-small.sstrace.r300"), /* uncompressed prefix */
    FX("h.sstrace", FX_FILE, 0600, "hostile.sstrace"), /* tests/report/mk_hostile.c, if built */
    FX("z.sstrace", FX_FILE, 0600, "h200-cnn-launchbound.sstrace.head"), /* zstd, cut at 4 KiB */
    FX("k.json", FX_FILE, 0600, "=kineto"),                              /* k_kineto above */
    FX("n.sqlite", FX_FILE, 0600, "nsys:t.sstrace"), /* the nsys importer's input */
    FX("ro.txt", FX_FILE, 0444, "=read-only\n"),     /* refused as -o unless --force */
    FX("zeros", FX_FILE, 0600, "04096"),             /* a stream of zeros is refused at once */
    FX("f.sstrace", FX_FIFO, 0600, NULL), /* no reader, no writer: refused, never waited on */
    FX("lnk", FX_LINK, 0777, "ro.txt"),   /* outputs are written through links */
    FX("dang", FX_LINK, 0777, "new.txt"), /* dangling: the file is made at the target */
    FX("loop", FX_LINK, 0777, "loop"),
    FX("tl", FX_LINK, 0777, "t.sstrace"), /* -o tl t.sstrace: the same file as an input */
    /* devices of the sandbox's own (made only as root): outputs written as streams, never
     * renamed over; as inputs, an empty stream */
    FX("null", FX_CHR, 0666, "1:3"),                     /* takes everything */
    FX("full", FX_CHR, 0666, "1:7"),                     /* every write fails (ENOSPC) */
    FX("h.perfetto.json", FX_FILE, 0600, "=exists\n"),   /* export h.sstrace: refused, --force */
    FX_OWNED("u.txt", 0644, "=someone else's\n", 65534), /* replaced, it keeps its owner */
};
#define N_FIXTURES (sizeof k_fixtures / sizeof k_fixtures[0])

static FILE *g_null;
static int g_null_fd = -1;
static char g_top[] = "/tmp/stepscope-fuzz-cli-XXXXXX";
static int g_show; /* FUZZ_CLI_SHOW=1: the verbs' output is shown (debugging a seed) */

/* ---- making the fixtures ----------------------------------------------------------------------
 */

/* The first MiB of a file (every fixture is smaller). */
static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *in = fopen(path, "rb");
    unsigned char *buf = in ? malloc(1 << 20) : NULL;
    *size = buf ? fread(buf, 1, 1 << 20, in) : 0;
    if (in) fclose(in);
    return buf;
}

/* The bytes of DIR/name: DIR is $FUZZ_CLI_SEED_DIR when set (a fuzzer carried to another
 * machine, where the build tree's seed folder is absent), else the build's. */
static unsigned char *read_seed(const char *name, size_t *size)
{
    const char *dir = getenv("FUZZ_CLI_SEED_DIR");
    char from[4096];
    snprintf(from, sizeof from, "%s/%s", dir && *dir ? dir : FUZZ_SEED_DIR, name);
    unsigned char *buf = read_file(from, size);
    if (!buf)
        fprintf(stderr, "fuzz_cli: %s missing (%s): the sandbox lacks it\n", from, strerror(errno));
    return buf;
}

/* The nsys export of a fixture already made (the importer's input through the CLI). */
static unsigned char *nsys_export_of(const char *trace, size_t *size)
{
    char err[256] = "";
    const char *tmp = "fuzz-cli-export.sqlite";
    if (ssi_nsys_export(trace, NULL, tmp, err, sizeof err) != 0) {
        fprintf(stderr, "fuzz_cli: nsys export of %s failed (%s): no n.sqlite\n", trace, err);
        return NULL;
    }
    unsigned char *buf = read_file(tmp, size);
    unlink(tmp);
    return buf;
}

static void load_fixture(struct fixture *f)
{
    const char *s = f->src;
    if (s[0] == '=' && strcmp(s, "=kineto") == 0) {
        f->size = sizeof k_kineto - 1;
        f->data = (unsigned char *)strdup(k_kineto);
    } else if (s[0] == '=') {
        f->size = strlen(s + 1);
        f->data = (unsigned char *)strdup(s + 1);
    } else if (s[0] == '0') {
        f->size = strtoul(s, NULL, 10);
        f->data = calloc(1, f->size);
    } else if (strncmp(s, "nsys:", 5) == 0) {
        f->data = nsys_export_of(s + 5, &f->size);
    } else {
        f->data = read_seed(s, &f->size);
    }
}

static int write_fixture(const struct fixture *f)
{
    int fd = open(f->name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    size_t done = 0;
    while (done < f->size) {
        ssize_t n = write(fd, f->data + done, f->size - done);
        if (n <= 0) break;
        done += (size_t)n;
    }
    int rc = done == f->size && fchmod(fd, f->mode) == 0 ? 0 : -1;
    if (rc == 0 && f->uid && geteuid() == 0 && fchown(fd, f->uid, f->uid) != 0) rc = -1;
    return close(fd) == 0 ? rc : -1;
}

static int make_chr(const struct fixture *f)
{
    unsigned major, minor;
    if (sscanf(f->src, "%u:%u", &major, &minor) != 2) return -1;
    if (mknod(f->name, S_IFCHR | f->mode, makedev(major, minor)) != 0) return -1;
    return chmod(f->name, f->mode);
}

/* Makes fixture f (once its name is free) and remembers how it looks. */
static void make_fixture(struct fixture *f)
{
    int rc = -1;
    if (f->kind == FX_FILE && f->data) rc = write_fixture(f);
    if (f->kind == FX_LINK) rc = symlink(f->src, f->name);
    if (f->kind == FX_FIFO) rc = mkfifo(f->name, f->mode) == 0 ? chmod(f->name, f->mode) : -1;
    if (f->kind == FX_CHR) rc = make_chr(f);
    if (rc != 0 || lstat(f->name, &f->st) != 0) memset(&f->st, 0, sizeof f->st);
}

static void remove_name(const char *name)
{
    if (unlink(name) != 0) rmdir(name);
}

static int touched(const struct fixture *f)
{
    struct stat st;
    if (lstat(f->name, &st) != 0) return f->st.st_ino != 0;
    return st.st_ino != f->st.st_ino || st.st_mode != f->st.st_mode ||
           st.st_size != f->st.st_size || st.st_ctim.tv_sec != f->st.st_ctim.tv_sec ||
           st.st_ctim.tv_nsec != f->st.st_ctim.tv_nsec;
}

/* Undoes what the last input did to the fixtures (replaced with --force, written through
 * a link, renamed over). */
static void restore_fixtures(void)
{
    for (size_t i = 0; i < N_FIXTURES; i++) {
        if (!touched(&k_fixtures[i])) continue;
        remove_name(k_fixtures[i].name);
        make_fixture(&k_fixtures[i]);
    }
}

static int is_fixture(const char *name)
{
    for (size_t i = 0; i < N_FIXTURES; i++)
        if (strcmp(name, k_fixtures[i].name) == 0) return 1;
    return 0;
}

/* Deletes whatever the verb left in the sandbox (outputs, temporary files). */
static void clean_sandbox(void)
{
    DIR *d = opendir(".");
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && !is_fixture(de->d_name))
            remove_name(de->d_name);
    closedir(d);
}

/* ---- the sandbox ------------------------------------------------------------------------------
 */

/* At exit: the sandbox goes (best effort: a crash leaves it for the post-mortem). */
static void remove_sandbox(void)
{
    char path[sizeof g_top + 16];
    snprintf(path, sizeof path, "%s/box", g_top);
    if (chdir(path) != 0) return;
    clean_sandbox();
    for (size_t i = 0; i < N_FIXTURES; i++)
        unlink(k_fixtures[i].name);
    if (chdir(g_top) != 0) return;
    unlink("bin/prog"), rmdir("bin"), rmdir("box");
    if (chdir("/") == 0) rmdir(g_top);
}

/* TOP/bin/prog, a script that does nothing, and PATH naming TOP/bin alone. */
static void make_bin(void)
{
    char path[sizeof g_top + 16];
    snprintf(path, sizeof path, "%s/bin", g_top);
    FILE *f = mkdir(path, 0700) == 0 && chdir(path) == 0 ? fopen("prog", "w") : NULL;
    if (!f || fputs("#!/bin/sh\nexit 0\n", f) < 0 || fclose(f) != 0 || chmod("prog", 0700)) {
        perror("fuzz_cli: bin/prog");
        abort();
    }
    setenv("PATH", path, 1);
}

/* fd 0 on /dev/null from the start: a verb reading "-" without a redirection in its input
 * sees an empty stream at once, never the fuzzer's own terminal or pipe. */
static void open_null(void)
{
    g_null = fopen("/dev/null", "w");
    g_null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (!g_null || g_null_fd < 0 || dup2(g_null_fd, STDIN_FILENO) < 0) {
        perror("fuzz_cli: /dev/null");
        abort();
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    if (!mkdtemp(g_top)) {
        perror("fuzz_cli: mkdtemp");
        abort();
    }
    atexit(remove_sandbox);
    const char *show = getenv("FUZZ_CLI_SHOW");
    g_show = show && strcmp(show, "1") == 0;
    open_null();
    make_bin();
    char box[sizeof g_top + 8];
    snprintf(box, sizeof box, "%s/box", g_top);
    if (mkdir(box, 0700) != 0 || chdir(box) != 0) {
        perror("fuzz_cli: sandbox");
        abort();
    }
    setenv("STEPSCOPE_LIB", "/nonexistent/stepscope-fuzz/libstepscope.so", 1);
    setenv("TMPDIR", box, 1);
    unsetenv("POSIXLY_CORRECT");
    for (size_t i = 0; i < N_FIXTURES; i++) { /* in order: n.sqlite is made from t.sstrace */
        if (k_fixtures[i].kind == FX_FILE) load_fixture(&k_fixtures[i]);
        make_fixture(&k_fixtures[i]);
    }
    fprintf(stderr, "fuzz_cli: sandbox %s\n", box);
    return 0;
}

/* ---- one input --------------------------------------------------------------------------------
 */

static const struct fixture *file_fixture(const char *name)
{
    for (size_t i = 0; i < N_FIXTURES; i++)
        if (k_fixtures[i].kind == FX_FILE && strcmp(name, k_fixtures[i].name) == 0)
            return &k_fixtures[i];
    return NULL;
}

/* A pipe holding fixture `name` (what fits: 1 MiB, a cut stream beyond), writer closed. */
static int pipe_of(const char *name)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
    fcntl(fds[1], F_SETFL, O_NONBLOCK); /* a full pipe cuts the stream, never blocks */
    const struct fixture *f = file_fixture(name);
    size_t done = 0;
    while (f && f->data && done < f->size) {
        ssize_t n = write(fds[1], f->data + done, f->size - done);
        if (n <= 0) break;
        done += (size_t)n;
    }
    close(fds[1]);
    return fds[0];
}

/* stdin for this input: "<NAME" the file, "|NAME" a pipe of it, "" /dev/null. Opened without
 * blocking (a FIFO fixture has no writer), no terminal taken. */
static void set_stdin(const char *redir)
{
    int fd = -1;
    if (redir[0] == '<') fd = open(redir + 1, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (redir[0] == '|') fd = pipe_of(redir + 1);
    if (fd >= 0) {
        dup2(fd, STDIN_FILENO);
        close(fd);
    }
}

/* Splits the input into argv (one argument per line; '/' becomes '_'); a "<NAME" or "|NAME"
 * line goes to redir (the last one counts) instead. */
static int build_argv(const uint8_t *data, size_t size, char *buf, char **argv, char *redir)
{
    int argc = 0;
    argv[argc++] = "stepscope";
    redir[0] = '\0';
    size_t i = 0;
    while (i < size && argc < MAX_ARGS) {
        char *arg = buf;
        size_t n = 0;
        for (; i < size && data[i] != '\n'; i++)
            if (n < MAX_ARG_LEN) arg[n++] = data[i] == '/' ? '_' : (char)data[i];
        i++; /* the newline */
        arg[n] = '\0';
        if (arg[0] == '<' || arg[0] == '|') {
            memcpy(redir, arg, n + 1);
            continue;
        }
        argv[argc++] = arg;
        buf += n + 1;
    }
    argv[argc] = NULL;
    return argc;
}

/* Runs the verb with stdout, stderr and descriptor 1 on /dev/null (unless FUZZ_CLI_SHOW). */
static int run_quietly(int argc, char **argv)
{
    FILE *out = stdout, *err = stderr;
    int fd1 = -1;
    if (!g_show) {
        stdout = g_null, stderr = g_null;
        fd1 = dup(STDOUT_FILENO);
        dup2(g_null_fd, STDOUT_FILENO);
    }
    int rc = stepscope_cli_main(argc, argv);
    fflush(g_null);
    clearerr(g_null);
    if (fd1 >= 0) {
        dup2(fd1, STDOUT_FILENO);
        close(fd1);
    }
    stdout = out;
    stderr = err;
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char buf[MAX_ARGS * (MAX_ARG_LEN + 1)];
    char *argv[MAX_ARGS + 1], redir[MAX_ARG_LEN + 1];
    int argc = build_argv(data, size, buf, argv, redir);
    set_stdin(redir);
    int rc = run_quietly(argc, argv);
    if (g_show) fprintf(stderr, "fuzz_cli: exit status %d\n", rc);
    dup2(g_null_fd, STDIN_FILENO);
    clean_sandbox();
    restore_fixtures();
    return 0;
}
