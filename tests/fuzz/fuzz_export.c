/*
 * fuzz_export.c — libFuzzer target: `stepscope export` (Perfetto JSON, nsys SQLite, NVTXT) on a
 * fuzzed trace, through the CLI's own entry point (tools/ compiled with main renamed, as for
 * fuzz_cli), so the exporters and the safe-output code that puts their file in place
 * (src/util/ss_out.c) both see damaged traces (issue #16: the nsys export failed on a trace
 * with one flipped bit while every other output succeeded).
 *
 * The input is a trace; its checksums are repaired first (fuzz_util.h) so that mutations reach
 * the records; its last byte (in a real trace, inside the END chunk) chooses the format.
 * Checks beyond "no crash, leak, hang": export exits 0 or 1 (never a usage error: the command
 * line is always valid); after 0 the output exists and is not empty; after 1 it does not
 * exist; either way nothing else (a temporary file) is left in the scratch folder.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <fcntl.h>
#include <unistd.h>

#include "fuzz_util.h"

int stepscope_cli_main(int argc, char **argv);

static char g_dir[64];
static char g_out[sizeof g_dir + 32];
static FILE *g_null;

static void remove_scratch(void)
{
    fz_dir_remove(g_dir);
}

/* The scratch folder (in /dev/shm when it is a roomy tmpfs: the nsys export's SQLite commits
 * cost little there), TMPDIR, and stdin on /dev/null. */
static void init_once(void)
{
    struct statvfs fs;
    int shm = statvfs("/dev/shm", &fs) == 0 && (uint64_t)fs.f_bavail * fs.f_frsize >= (1ull << 30);
    snprintf(g_dir, sizeof g_dir, "%s/stepscope-fuzz-export-XXXXXX", shm ? "/dev/shm" : "/tmp");
    if (!mkdtemp(g_dir)) {
        snprintf(g_dir, sizeof g_dir, "/tmp/stepscope-fuzz-export-XXXXXX");
        if (!mkdtemp(g_dir)) abort();
    }
    atexit(remove_scratch);
    snprintf(g_out, sizeof g_out, "%s/out", g_dir);
    setenv("TMPDIR", g_dir, 1);
    g_null = fopen("/dev/null", "w");
    int fd = open("/dev/null", O_RDONLY);
    if (!g_null || fd < 0 || dup2(fd, STDIN_FILENO) < 0) abort();
    close(fd);
}

/* The verb, its output streams on /dev/null (the exporters write their file, not stdout). */
static int run_export(const char *format, const char *in)
{
    char *argv[] = {"stepscope", "export", "-q", "-f", (char *)format, "-o", g_out, (char *)in,
                    NULL};
    FILE *out = stdout, *err = stderr;
    stdout = g_null, stderr = g_null;
    int rc = stepscope_cli_main(8, argv);
    fflush(g_null);
    clearerr(g_null);
    stdout = out, stderr = err;
    return rc;
}

FZ_NO_COVERAGE static void check(int rc, const char *format)
{
    struct stat st;
    int made = stat(g_out, &st) == 0;
    if (rc != 0 && rc != 1) {
        fprintf(stderr, "fuzz_export: export -f %s exited %d\n", format, rc);
        abort();
    }
    if (rc == 0 && (!made || st.st_size == 0)) {
        fprintf(stderr, "fuzz_export: -f %s exited 0 without an output\n", format);
        abort();
    }
    if (rc == 1 && made) {
        fprintf(stderr, "fuzz_export: -f %s failed but left %s\n", format, g_out);
        abort();
    }
    if (fz_dir_count_except(g_dir, "out") != 0) {
        fprintf(stderr, "fuzz_export: -f %s left a temporary file in %s\n", format, g_dir);
        abort();
    }
    unlink(g_out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const formats[] = {"perfetto", "nsys-sqlite", "nvtxt"};
    static struct fz_file file = {.fd = -1};
    if (file.fd < 0) {
        init_once();
        fz_file_init(&file, "fuzz-export");
    }
    uint8_t *fixed = malloc(size ? size : 1);
    if (!fixed) return 0;
    if (size) memcpy(fixed, data, size);
    fz_fix_crcs(fixed, size);
    fz_file_set(&file, fixed, size);
    free(fixed);
    const char *format = formats[(size ? data[size - 1] : 0) % 3];
    check(run_export(format, file.path), format);
    return 0;
}
