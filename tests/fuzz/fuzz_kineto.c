/*
 * fuzz_kineto.c — libFuzzer target: the Kineto JSON importer (ssi_kineto_import, issue #6).
 *
 * The input is a torch.profiler trace (plain JSON, or gzip when it starts with 1f 8b; the
 * importer sniffs). It is imported into a stepscope trace in a private folder; then:
 *   success: the trace must read back cleanly (closed, no damaged chunk, no malformed record,
 *            every string reference defined) and go through the analysis;
 *   failure: the error text must be one NUL-terminated line inside its buffer, and no
 *            output file (nor its temporary) may be left behind.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/ssa.h"
#include "fuzz_util.h"
#include "interop/ssi.h"
#include "trace/sst_reader.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_kineto: %s:%d: %s\n", __FILE__, __LINE__, #cond);                \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static char g_dir[] = "/tmp/stepscope-fuzz-kineto-XXXXXX";
static char g_out[sizeof g_dir + 32];

static void remove_dir(void)
{
    fz_dir_remove(g_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    if (!mkdtemp(g_dir)) abort();
    snprintf(g_out, sizeof g_out, "%s/out.sstrace", g_dir);
    setenv("TMPDIR", g_dir, 1);
    atexit(remove_dir);
    return 0;
}

/* The imported trace: read back in strict mode, then analysed. */
static void check_output(void)
{
    struct sst_reader_opts o = {.strict = 1};
    struct sst_reader *r;
    CHECK(sst_reader_open(g_out, &o, &r) == 0);
    const struct sst_rec_header *h;
    int rc;
    while ((rc = sst_reader_next(r, &h)) == 1) {
        const uint8_t *p = (const uint8_t *)h;
        if (h->type == SST_REC_STRING) continue;
        /* the importer interns every name it writes: no dangling string id */
        if (h->type == SST_REC_KERNEL) {
            const struct sst_rec_kernel *k = (const void *)p;
            CHECK(k->name == 0 || sst_reader_string(r, k->name, NULL) != NULL);
        }
    }
    CHECK(rc == 0);
    const struct sst_read_status *st = sst_reader_status(r);
    CHECK(st->closed && !st->truncated && st->bad_chunks == 0 && st->malformed == 0);
    sst_reader_close(r);
    struct ssa_result *res = NULL;
    struct ssa_opts so = {0};
    if (ssa_analyze_file_ex(g_out, &so, SSA_COMPACT, &res) == 0) {
        struct ssa_summary s;
        struct ssa_findings f;
        ssa_summarize(res, &s);
        ssa_find(res, &s, NULL, &f);
        ssa_result_free(res);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct fz_file in = {.fd = -1};
    if (in.fd < 0) fz_file_init(&in, "fuzz-kineto");
    fz_file_set(&in, data, size);
    char err[256];
    memset(err, 'x', sizeof err);
    int rc = ssi_kineto_import(in.path, g_out, err, sizeof err);
    if (rc == 0) {
        check_output();
        CHECK(unlink(g_out) == 0);
    } else {
        CHECK(rc < 0);
        CHECK(memchr(err, '\0', sizeof err) != NULL);
        CHECK(strchr(err, '\n') == NULL);
    }
    CHECK(fz_dir_count_except(g_dir, NULL) == 0);
    return 0;
}
