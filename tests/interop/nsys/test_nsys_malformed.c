/*
 * test_nsys_malformed.c — ssi_nsys_import on broken and hostile databases: every one must give
 * a negative code and one line of text naming the problem, write no output file and leave no
 * temporary behind, and never crash (the sanitizer build runs this too).
 *
 *   test_nsys_malformed TRACE      (a trace to export as the well-formed starting point)
 *
 * Also the good cases next to them: the untouched export imports; a minimal database with only
 * the columns an old nsys writes imports; of two processes the one with more kernels is taken.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "../../ss_test.h"
#include "interop/ssi.h"
#include "trace/sst_reader.h"

static char g_good[512], g_bad[512], g_out[512];

static void copy_file(const char *from, const char *to, long limit)
{
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    REQUIRE(a && b);
    char buf[65536];
    size_t n;
    long total = 0;
    while ((n = fread(buf, 1, sizeof buf, a)) > 0 && (limit < 0 || total < limit)) {
        if (limit >= 0 && total + (long)n > limit) n = (size_t)(limit - total);
        REQUIRE(fwrite(buf, 1, n, b) == n);
        total += (long)n;
    }
    fclose(a);
    fclose(b);
}

static void sql(const char *path, const char *script)
{
    sqlite3 *db;
    REQUIRE(sqlite3_open(path, &db) == SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, script, NULL, NULL, &msg) != SQLITE_OK) SS_FAIL_AT("%s: %s", script, msg);
    sqlite3_free(msg);
    sqlite3_close(db);
}

/* Nothing but the inputs may be in the test folder: no output, no temporary. */
static int stray_files(void)
{
    int n = 0;
    char dir[512];
    snprintf(dir, sizeof dir, "%s", ss_test_path(""));
    DIR *d = opendir(dir);
    REQUIRE(d != NULL);
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strstr(de->d_name, "out.sstrace")) n++, fprintf(stderr, "stray: %s\n", de->d_name);
    closedir(d);
    return n;
}

static void expect_fail(const char *what, const char *path, const char *needle)
{
    char err[512] = "";
    int rc = ssi_nsys_import(path, g_out, err, sizeof err);
    if (rc >= 0) SS_FAIL_AT("%s: imported (rc %d), expected an error", what, rc);
    if (!err[0] || strchr(err, '\n')) SS_FAIL_AT("%s: not one line: '%s'", what, err);
    if (needle && !strstr(err, needle)) SS_FAIL_AT("%s: '%s' lacks '%s'", what, err, needle);
    CHECK(access(g_out, F_OK) != 0);
    CHECK_EQ(stray_files(), 0);
    printf("%-28s -> %s\n", what, err);
}

/* A copy of the good export changed by script, then expect_fail. */
static void mutated(const char *what, const char *script, const char *needle)
{
    copy_file(g_good, g_bad, -1);
    sql(g_bad, script);
    expect_fail(what, g_bad, needle);
}

/* Re-creates a table without its NOT NULL constraints, so that bad values can be stored. */
#define LOOSEN(t)                                                                                  \
    "CREATE TABLE tmp_l AS SELECT * FROM " t "; DROP TABLE " t "; ALTER TABLE tmp_l RENAME TO " t  \
    "; "
#define KERNEL "CUPTI_ACTIVITY_KIND_KERNEL"
#define FIRST_K " WHERE rowid = (SELECT min(rowid) FROM " KERNEL ")"

static void database_level(void)
{
    FILE *f = fopen(g_bad, "wb");
    REQUIRE(f);
    fclose(f);
    expect_fail("empty file", g_bad, "empty");
    f = fopen(g_bad, "wb");
    fputs("SQLite format 3", f);
    fputc(0, f);
    for (int i = 0; i < 8192; i++)
        fputc(0xAB, f);
    fclose(f);
    expect_fail("garbage after the magic", g_bad, NULL);
    f = fopen(g_bad, "wb");
    fputs("{\"traceEvents\": []}\n", f);
    fclose(f);
    expect_fail("not SQLite", g_bad, NULL);
    struct stat sb;
    REQUIRE(stat(g_good, &sb) == 0);
    copy_file(g_good, g_bad, sb.st_size / 2);
    expect_fail("truncated database", g_bad, NULL);
    expect_fail("missing file", ss_test_path("nope.sqlite"), NULL);
    expect_fail("a directory", ss_test_path(""), "directory");
}

static void table_level(void)
{
    mutated("no kernel table", "DROP TABLE " KERNEL, "no CUPTI_ACTIVITY_KIND_KERNEL");
    mutated("kernel table is a view",
            "DROP TABLE " KERNEL "; CREATE VIEW " KERNEL " AS SELECT 1 "
            "AS start",
            "no CUPTI_ACTIVITY_KIND_KERNEL");
    mutated("no StringIds", "DROP TABLE StringIds", "no StringIds");
    mutated("kernel without end",
            "CREATE TABLE tmp_l AS SELECT start, deviceId, streamId, "
            "mangledName FROM " KERNEL "; DROP TABLE " KERNEL
            "; ALTER TABLE tmp_l RENAME TO " KERNEL,
            "has no column end");
    mutated("memcpy without bytes",
            "CREATE TABLE tmp_l AS SELECT start, end, deviceId, streamId, "
            "copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY; DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY; "
            "ALTER TABLE tmp_l RENAME TO CUPTI_ACTIVITY_KIND_MEMCPY",
            "has no column bytes");
}

static void value_level(void)
{
    mutated("NULL start", LOOSEN(KERNEL) "UPDATE " KERNEL " SET start = NULL" FIRST_K,
            "start is NULL");
    mutated("text deviceId", LOOSEN(KERNEL) "UPDATE " KERNEL " SET deviceId = 'gpu0'" FIRST_K,
            "deviceId is text");
    mutated("real streamId", LOOSEN(KERNEL) "UPDATE " KERNEL " SET streamId = 1.5" FIRST_K,
            "streamId is a real");
    mutated("negative duration", "UPDATE " KERNEL " SET end = start - 10" FIRST_K,
            "negative duration");
    mutated("negative start", "UPDATE " KERNEL " SET start = -5, end = 10" FIRST_K, "out of range");
    mutated("huge deviceId", "UPDATE " KERNEL " SET deviceId = 1000000000000" FIRST_K,
            "out of range");
    mutated("negative bytes", "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = -1",
            "bytes = -1 is out of range");
    mutated("dangling name id", "UPDATE " KERNEL " SET mangledName = 987654321" FIRST_K,
            "not in StringIds");
    mutated("nameless kernel",
            LOOSEN(KERNEL) "UPDATE " KERNEL " SET mangledName = NULL, "
                           "demangledName = NULL, shortName = NULL" FIRST_K,
            "no name");
    mutated("blob in StringIds",
            "UPDATE StringIds SET value = x'00ff' WHERE id = (SELECT "
            "mangledName FROM " KERNEL FIRST_K ")",
            "not text");
    mutated("text nameId",
            LOOSEN("CUPTI_ACTIVITY_KIND_RUNTIME") "UPDATE "
                                                  "CUPTI_ACTIVITY_KIND_RUNTIME SET nameId = 'x' "
                                                  "WHERE rowid = 1",
            "nameId is text");
    mutated("NVTX end before start", "UPDATE NVTX_EVENTS SET end = start - 1 WHERE eventType = 59",
            "negative duration");
    mutated("bad meta number",
            "UPDATE META_DATA_CAPTURE SET value = 'x' || char(10) || 'y' WHERE "
            "name = 'STEPSCOPE_CLOCK'",
            "not a number");
    mutated("bad capture meta",
            "INSERT INTO META_DATA_CAPTURE (name, value) VALUES ('STEPSCOPE_CAPTURE_9999', "
            "'12 1 2 1 x')",
            "is not 'time on reason what'");
    mutated("capture meta out of range",
            "INSERT INTO META_DATA_CAPTURE (name, value) VALUES ('STEPSCOPE_CAPTURE_9999', "
            "'12 2 2 1')",
            "is not 'time on reason what'");
}

static uint64_t kernels_in(const char *trace, uint32_t *pid)
{
    struct sst_reader *r;
    REQUIRE(sst_reader_open(trace, NULL, &r) == 0);
    *pid = sst_reader_header(r)->pid;
    const struct sst_rec_header *h;
    uint64_t n = 0;
    while (sst_reader_next(r, &h) == 1)
        n += h->type == SST_REC_KERNEL;
    CHECK(sst_reader_status(r)->closed);
    sst_reader_close(r);
    return n;
}

static void expect_ok(const char *what, const char *path, uint64_t kernels, uint32_t pid)
{
    char err[512] = "";
    int rc = ssi_nsys_import(path, g_out, err, sizeof err);
    if (rc) SS_FAIL_AT("%s: %s", what, err);
    uint32_t got_pid = 0;
    if (!rc) CHECK_EQ_U64(kernels_in(g_out, &got_pid), kernels);
    if (!rc && pid) CHECK_EQ(got_pid, pid);
    unlink(g_out);
    printf("%-28s -> imported\n", what);
}

/* What an older nsys writes: few columns, no globalPid, no mangled names, no stepscope keys. */
static void minimal_database(void)
{
    unlink(g_bad);
    sql(g_bad,
        "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO StringIds VALUES (1, 'gemm'), (2, 'cudaLaunchKernel_v7000');"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT NOT NULL, end INT NOT NULL, "
        "deviceId INT NOT NULL, streamId INT NOT NULL, correlationId INT, shortName INT);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 200, 0, 7, 1, 1), "
        "(300, 450, 0, 7, 2, 1);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, globalTid INT, "
        "correlationId INT, nameId INT);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (90, 95, 16777216 * 77 + 78, 1, 2);");
    expect_ok("minimal old-style database", g_bad, 2, 0);
    /* two processes: 3 kernels of pid 20 win over 1 of pid 10 */
    unlink(g_bad);
    sql(g_bad, "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
               "INSERT INTO StringIds VALUES (1, 'k');"
               "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, "
               "streamId INT, globalPid INT, demangledName INT);"
               "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0, 7, 10 << 24, 1), "
               "(3, 4, 0, 7, 20 << 24, 1), (5, 6, 0, 7, 20 << 24, 1), (7, 8, 0, 7, 20 << 24, 1);");
    expect_ok("two processes", g_bad, 3, 20);
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 2);
    snprintf(g_good, sizeof g_good, "%s", ss_test_path("good.sqlite"));
    snprintf(g_bad, sizeof g_bad, "%s", ss_test_path("bad.sqlite"));
    snprintf(g_out, sizeof g_out, "%s", ss_test_path("out.sstrace"));
    char err[512];
    if (ssi_nsys_export(argv[1], NULL, g_good, err, sizeof err) != 0) SS_FAIL_AT("export: %s", err);
    uint32_t pid = 0;
    expect_ok("the export itself", g_good, kernels_in(argv[1], &pid), pid);
    database_level();
    table_level();
    value_level();
    minimal_database();
    return ss_test_result();
}
