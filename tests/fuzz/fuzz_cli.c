/*
 * fuzz_cli.c — libFuzzer target: the CLI's argument handling, through the real entry point.
 *
 * tools/stepscope.c is compiled with main renamed (stepscope_cli_main, see CMakeLists.txt),
 * so every input goes through the verb table and the verb's own parser and then does
 * whatever those arguments ask: read a trace, analyse it, write a report or an export.
 * The input is the argument list, one argument per line (at most MAX_ARGS); argv[0] is
 * "stepscope". The verbs run in a sandbox folder (cwd) that holds three small traces:
 *   t.sstrace  an uncompressed prefix of tests/fixtures/synthetic-small.sstrace
 *   h.sstrace  the hostile trace of tests/report/mk_hostile.c (when it was built)
 *   z.sstrace  the first 4 KiB of a real, zstd-compressed H200 trace (cut)
 * Safety of the fuzzing machine: '/' in an argument becomes '_', so every path an argument
 * names lies in the sandbox (cwd is two levels below a private mkdtemp folder, so ".." is
 * that folder and holds nothing else); files the verbs create are deleted after each input;
 * `record` can never start a program because STEPSCOPE_LIB names a missing library (it
 * fails after its options are parsed and checked, before it creates anything); TMPDIR is
 * the sandbox. stdout and stderr (the FILE streams the verbs print through) point at
 * /dev/null while a verb runs; libFuzzer and the sanitizers write to descriptor 2 directly.
 * A verb that called exit() would end the fuzzer: none does (only record's forked child
 * calls _exit, and record never forks here).
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef FUZZ_SEED_DIR
#define FUZZ_SEED_DIR "."
#endif

#define MAX_ARGS 24
#define MAX_ARG_LEN 512

int stepscope_cli_main(int argc, char **argv);

static const char *const k_keep[] = {".", "..", "t.sstrace", "h.sstrace", "z.sstrace"};
static FILE *g_null;
static char g_top[] = "/tmp/stepscope-fuzz-cli-XXXXXX";
static int g_show; /* FUZZ_CLI_SHOW=1: the verbs' output is shown (debugging a seed) */

/* Copies DIR/name to `to` (in cwd): DIR is $FUZZ_CLI_SEED_DIR when set (a fuzzer carried to
 * another machine, where the build tree's seed folder is absent), else the build's. */
static void copy_file(const char *name, const char *to)
{
    const char *dir = getenv("FUZZ_CLI_SEED_DIR");
    char from[4096];
    snprintf(from, sizeof from, "%s/%s", dir && *dir ? dir : FUZZ_SEED_DIR, name);
    FILE *in = fopen(from, "rb");
    if (!in) {
        fprintf(stderr, "fuzz_cli: %s missing (%s): the sandbox lacks %s\n", from, strerror(errno),
                to);
        return;
    }
    FILE *out = fopen(to, "wb");
    char buf[8192];
    size_t n;
    while (out && (n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n) break;
    fclose(in);
    if (out) fclose(out);
}

static int kept(const char *name);
static void clean_sandbox(void);

/* At exit: the sandbox goes (best effort: a crash leaves it for the post-mortem). */
static void remove_sandbox(void)
{
    char box[sizeof g_top + 8];
    snprintf(box, sizeof box, "%s/box", g_top);
    if (chdir(box) != 0) return;
    clean_sandbox();
    unlink("t.sstrace"), unlink("h.sstrace"), unlink("z.sstrace");
    if (chdir("/") == 0 && rmdir(box) == 0) rmdir(g_top);
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
    char box[sizeof g_top + 8];
    snprintf(box, sizeof box, "%s/box", g_top);
    if (mkdir(box, 0700) != 0 || chdir(box) != 0) {
        perror("fuzz_cli: sandbox");
        abort();
    }
    copy_file("synthetic-small.sstrace.r300", "t.sstrace");
    copy_file("hostile.sstrace", "h.sstrace");
    copy_file("h200-cnn-launchbound.sstrace.head", "z.sstrace");
    setenv("STEPSCOPE_LIB", "/nonexistent/stepscope-fuzz/libstepscope.so", 1);
    setenv("TMPDIR", box, 1);
    unsetenv("POSIXLY_CORRECT");
    g_null = fopen("/dev/null", "w");
    if (!g_null) abort();
    fprintf(stderr, "fuzz_cli: sandbox %s\n", box);
    return 0;
}

static int kept(const char *name)
{
    for (size_t i = 0; i < sizeof k_keep / sizeof k_keep[0]; i++)
        if (strcmp(name, k_keep[i]) == 0) return 1;
    return 0;
}

/* Deletes whatever the verb left in the sandbox (outputs, .tmp files). */
static void clean_sandbox(void)
{
    DIR *d = opendir(".");
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (!kept(de->d_name) && unlink(de->d_name) != 0) rmdir(de->d_name);
    closedir(d);
}

/* Splits the input into argv (one argument per line); '/' becomes '_'. */
static int build_argv(const uint8_t *data, size_t size, char *buf, char **argv)
{
    int argc = 0;
    argv[argc++] = "stepscope";
    size_t i = 0;
    while (i < size && argc < MAX_ARGS) {
        char *arg = buf;
        size_t n = 0;
        for (; i < size && data[i] != '\n'; i++)
            if (n < MAX_ARG_LEN) arg[n++] = data[i] == '/' ? '_' : (char)data[i];
        i++; /* the newline */
        arg[n] = '\0';
        argv[argc++] = arg;
        buf += n + 1;
    }
    argv[argc] = NULL;
    return argc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char buf[MAX_ARGS * (MAX_ARG_LEN + 1)];
    char *argv[MAX_ARGS + 1];
    int argc = build_argv(data, size, buf, argv);
    FILE *out = stdout, *err = stderr;
    if (!g_show) stdout = g_null, stderr = g_null;
    int rc = stepscope_cli_main(argc, argv);
    if (g_show) fprintf(stderr, "fuzz_cli: exit status %d\n", rc);
    fflush(g_null);
    clearerr(g_null);
    stdout = out;
    stderr = err;
    clean_sandbox();
    return 0;
}
