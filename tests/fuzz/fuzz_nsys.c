/*
 * fuzz_nsys.c — libFuzzer target: the nsys SQLite importer (ssi_nsys_import, issue #6) on
 * databases of the nsys export schema filled with fuzzed rows (format: fuzz_nsys_rows.h).
 *
 * Each input becomes a database file in a private folder (the empty schema image, the rows
 * inserted in one transaction), which is imported into a stepscope trace; then:
 *   success: the trace must read back cleanly (strict reader: closed, nothing damaged or
 *            malformed) and go through the analysis;
 *   failure: one NUL-terminated line in err, and no output file (nor a temporary) left.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "analysis/ssa.h"
#include "fuzz_nsys_rows.h"
#include "fuzz_util.h"
#include "interop/ssi.h"
#include "trace/sst_reader.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_nsys: %s:%d: %s\n", __FILE__, __LINE__, #cond);                  \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static char g_dir[64];
static char g_in[sizeof g_dir + 32], g_out[sizeof g_dir + 32];
static struct fz_schema g_schema;

static void remove_dir(void)
{
    fz_dir_remove(g_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    /* The scratch folder: in /dev/shm where it is a roomy tmpfs (the fsync that commits each
     * imported trace costs nothing there, and parallel jobs do not queue on a disk; libFuzzer's
     * fork mode keeps its job folders under it too), else in /tmp. */
    struct statvfs fs;
    int shm = statvfs("/dev/shm", &fs) == 0 && (uint64_t)fs.f_bavail * fs.f_frsize >= (1ull << 30);
    snprintf(g_dir, sizeof g_dir, "%s/stepscope-fuzz-nsys-XXXXXX", shm ? "/dev/shm" : "/tmp");
    if (!mkdtemp(g_dir)) {
        snprintf(g_dir, sizeof g_dir, "/tmp/stepscope-fuzz-nsys-XXXXXX");
        if (!mkdtemp(g_dir)) abort();
    }
    if (fz_schema_init(&g_schema) != 0) abort();
    snprintf(g_in, sizeof g_in, "%s/in.sqlite", g_dir);
    snprintf(g_out, sizeof g_out, "%s/out.sstrace", g_dir);
    setenv("TMPDIR", g_dir, 1);
    atexit(remove_dir);
    return 0;
}

/* Inserts the input's rows into a copy of the empty schema; writes the database to g_in. */
static void build_database(const uint8_t *data, size_t size)
{
    sqlite3 *db;
    CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
    unsigned char *img = sqlite3_malloc64((sqlite3_uint64)g_schema.image_size);
    CHECK(img != NULL);
    memcpy(img, g_schema.image, (size_t)g_schema.image_size);
    CHECK(sqlite3_deserialize(db, "main", img, g_schema.image_size, g_schema.image_size,
                              SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) ==
          SQLITE_OK);
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    struct fz_in in = {data, size};
    sqlite3_stmt *stmts[FZ_MAX_TABLES] = {0};
    uint8_t t;
    while (fz_take(&in, &t, 1) == 0) {
        size_t ti = t % g_schema.n;
        if (!stmts[ti]) {
            char sql[1024];
            int n = snprintf(sql, sizeof sql, "INSERT INTO \"%s\" VALUES(", g_schema.name[ti]);
            for (int c = 0; c < g_schema.ncol[ti] && n < (int)sizeof sql - 8; c++)
                n += snprintf(sql + n, sizeof sql - (size_t)n, c ? ",?" : "?");
            snprintf(sql + n, sizeof sql - (size_t)n, ")");
            CHECK(sqlite3_prepare_v2(db, sql, -1, &stmts[ti], NULL) == SQLITE_OK);
        }
        sqlite3_stmt *st = stmts[ti];
        int ok = 1;
        for (int c = 0; c < g_schema.ncol[ti] && ok; c++)
            ok = fz_bind_value(st, c + 1, &in) == 0;
        if (ok) sqlite3_step(st); /* a constraint violation skips the row */
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        if (!ok) break;
    }
    for (size_t i = 0; i < g_schema.n; i++)
        sqlite3_finalize(stmts[i]);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sqlite3_int64 n = 0;
    unsigned char *bytes = sqlite3_serialize(db, "main", &n, 0);
    CHECK(bytes != NULL);
    int fd = open(g_in, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    CHECK(fd >= 0);
    CHECK(write(fd, bytes, (size_t)n) == (ssize_t)n);
    close(fd);
    sqlite3_free(bytes);
    sqlite3_close(db);
}

static void check_output(void)
{
    struct sst_reader_opts o = {.strict = 1};
    struct sst_reader *r;
    CHECK(sst_reader_open(g_out, &o, &r) == 0);
    const struct sst_rec_header *h;
    int rc;
    while ((rc = sst_reader_next(r, &h)) == 1)
        if (h->type == SST_REC_KERNEL) {
            const struct sst_rec_kernel *k = (const void *)h;
            CHECK(k->name == 0 || sst_reader_string(r, k->name, NULL) != NULL);
        }
    CHECK(rc == 0);
    const struct sst_read_status *st = sst_reader_status(r);
    CHECK(st->closed && !st->truncated && st->bad_chunks == 0 && st->malformed == 0);
    sst_reader_close(r);
    struct ssa_opts so = {0};
    struct ssa_result *res = NULL;
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
    build_database(data, size);
    char err[256];
    memset(err, 'x', sizeof err);
    int rc = ssi_nsys_import(g_in, g_out, err, sizeof err);
    if (rc == 0) {
        check_output();
        CHECK(unlink(g_out) == 0);
    } else {
        CHECK(rc < 0);
        CHECK(memchr(err, '\0', sizeof err) != NULL);
        CHECK(strchr(err, '\n') == NULL);
    }
    CHECK(fz_dir_count_except(g_dir, "in.sqlite") == 0); /* only the input */
    return 0;
}
