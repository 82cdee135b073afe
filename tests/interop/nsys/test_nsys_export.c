/*
 * test_nsys_export.c — ssi_nsys_export on real traces, checked with SQL against the trace.
 *
 *   test_nsys_export TRACE...
 *
 * For each trace: exports it, reads the trace once more with sst_reader to count what it
 * holds, and asks the database, with the queries nsys's own reports use, for the same numbers:
 * kernel instances and total time per kernel name (exact, ns), copies and bytes per copyKind,
 * memsets, CUDA API calls per name, NVTX rows per eventType, process and thread ids through
 * nsys's globalTid decoding. Also: the schema is the anchor's (every table), the enum tables
 * hold nsys's values, and every kernel row has its three names.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../ss_test.h"
#include "interop/ssi.h"
#include "interop/ssi_nsys.h"
#include "trace/sst_reader.h"

#define MAX_NAMES 4096

struct kname {
    char *name;
    uint64_t n, ns;
};

struct tally {
    uint32_t pid;
    struct kname k[MAX_NAMES];
    size_t nk;
    uint64_t kernels, copies[16], copy_bytes[16], memsets, memset_bytes, syncs;
    struct kname api[MAX_NAMES]; /* per nsys API name */
    size_t napi;
    uint64_t pushes, starts, marks, extra_steps;
};

static struct kname *find(struct kname *v, size_t *n, const char *s, size_t len)
{
    for (size_t i = 0; i < *n; i++)
        if (strlen(v[i].name) == len && memcmp(v[i].name, s, len) == 0) return &v[i];
    REQUIRE(*n < MAX_NAMES);
    v[*n].name = strndup(s, len);
    v[*n].n = v[*n].ns = 0;
    return &v[(*n)++];
}

static uint64_t dur(uint64_t s, uint64_t e)
{
    return e > s ? e - s : 0;
}

static void load(const struct sst_rec_header *h, void *dst, size_t size)
{
    memset(dst, 0, size);
    memcpy(dst, h, h->size < size ? h->size : size);
}

static void count_record(struct sst_reader *r, const struct sst_rec_header *h, struct tally *t)
{
    union {
        struct sst_rec_kernel k;
        struct sst_rec_memcpy c;
        struct sst_rec_memset s;
        struct sst_rec_api a;
        struct sst_rec_process p;
        struct sst_rec_step st;
    } u;
    uint32_t len = 0;
    switch (h->type) {
    case SST_REC_PROCESS:
        load(h, &u.p, sizeof u.p);
        t->pid = u.p.pid;
        break;
    case SST_REC_KERNEL: {
        load(h, &u.k, sizeof u.k);
        const char *s = sst_reader_string(r, u.k.name, &len);
        struct kname *k =
            s && len ? find(t->k, &t->nk, s, len) : find(t->k, &t->nk, "<unknown>", 9);
        k->n++, k->ns += dur(u.k.start_ns, u.k.end_ns), t->kernels++;
        break;
    }
    case SST_REC_MEMCPY: {
        load(h, &u.c, sizeof u.c);
        int kind = ssi_nsys_copy_from_sst(u.c.copy_kind);
        t->copies[kind]++, t->copy_bytes[kind] += u.c.bytes;
        break;
    }
    case SST_REC_MEMSET:
        load(h, &u.s, sizeof u.s);
        t->memsets++, t->memset_bytes += u.s.bytes;
        break;
    case SST_REC_SYNC:
        t->syncs++;
        break;
    case SST_REC_API: {
        load(h, &u.a, sizeof u.a);
        char buf[48];
        const char *name = ssi_nsys_api_name(u.a.domain, u.a.cbid, buf, sizeof buf);
        find(t->api, &t->napi, name, strlen(name))->n++;
        break;
    }
    case SST_REC_NVTX_PUSH:
        t->pushes++;
        break;
    case SST_REC_NVTX_START:
        t->starts++;
        break;
    case SST_REC_NVTX_MARK:
        t->marks++;
        break;
    case SST_REC_STEP:
        load(h, &u.st, sizeof u.st);
        if (u.st.phase == SST_STEP_BEGIN && u.st.source != SST_STEPSRC_API &&
            u.st.source != SST_STEPSRC_PYSHIM && u.st.source != SST_STEPSRC_USER)
            t->extra_steps++;
        break;
    default:
        break;
    }
}

static void tally_trace(const char *path, struct tally *t)
{
    struct sst_reader *r;
    REQUIRE(sst_reader_open(path, NULL, &r) == 0);
    t->pid = sst_reader_header(r)->pid;
    const struct sst_rec_header *h;
    while (sst_reader_next(r, &h) == 1)
        count_record(r, h, t);
    sst_reader_close(r);
}

/* ---- SQL ---- */

static sqlite3_int64 q1(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        SS_FAIL_AT("%s: %s", sql, sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_int64 v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    return v;
}

/* Runs a (text, count, sum) grouping query and compares each row with the tally. */
static void check_groups(sqlite3 *db, const char *sql, struct kname *v, size_t n, int with_ns)
{
    sqlite3_stmt *st;
    REQUIRE(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
    size_t rows = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        size_t len = (size_t)sqlite3_column_bytes(st, 0);
        size_t before = n;
        struct kname *k = find(v, &n, name, len);
        if (n != before) SS_FAIL_AT("%s: '%s' is not in the trace", sql, name);
        CHECK_EQ_U64(sqlite3_column_int64(st, 1), k->n);
        if (with_ns) CHECK_EQ_U64(sqlite3_column_int64(st, 2), k->ns);
        rows++;
    }
    sqlite3_finalize(st);
    CHECK_EQ(rows, n);
}

static void check_copies(sqlite3 *db, const struct tally *t)
{
    sqlite3_stmt *st;
    REQUIRE(sqlite3_prepare_v2(db,
                               "SELECT m.copyKind, count(*), sum(m.bytes), e.label FROM "
                               "CUPTI_ACTIVITY_KIND_MEMCPY AS m JOIN ENUM_CUDA_MEMCPY_OPER AS e "
                               "ON e.id = m.copyKind GROUP BY 1",
                               -1, &st, NULL) == SQLITE_OK);
    uint64_t total = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int kind = sqlite3_column_int(st, 0);
        REQUIRE(kind >= 0 && kind < 16);
        CHECK_EQ_U64(sqlite3_column_int64(st, 1), t->copies[kind]);
        CHECK_EQ_U64(sqlite3_column_int64(st, 2), t->copy_bytes[kind]);
        total += (uint64_t)sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    uint64_t want = 0;
    for (int i = 0; i < 16; i++)
        want += t->copies[i];
    CHECK_EQ_U64(total, want); /* every copy joined its enum row */
    CHECK_EQ_U64(q1(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET"), t->memsets);
    CHECK_EQ_U64(q1(db, "SELECT coalesce(sum(bytes), 0) FROM CUPTI_ACTIVITY_KIND_MEMSET"),
                 t->memset_bytes);
    CHECK_EQ_U64(q1(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"), t->syncs);
}

static void check_nvtx_and_ids(sqlite3 *db, const struct tally *t)
{
    CHECK_EQ_U64(q1(db, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59"),
                 t->pushes + t->extra_steps);
    CHECK_EQ_U64(q1(db, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 60"), t->starts);
    CHECK_EQ_U64(q1(db, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 34"), t->marks);
    /* nsys's decoding of the serialized ids gives the process back, everywhere */
    CHECK_EQ(q1(db, "SELECT count(DISTINCT (globalPid >> 24) & 16777215) FROM "
                    "CUPTI_ACTIVITY_KIND_KERNEL"),
             t->kernels ? 1 : 0);
    if (t->kernels)
        CHECK_EQ_U64(q1(db, "SELECT (globalPid >> 24) & 16777215 FROM CUPTI_ACTIVITY_KIND_KERNEL "
                            "LIMIT 1"),
                     t->pid);
    CHECK_EQ(q1(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r WHERE (r.globalTid "
                    "& 0xFFFFFFFFFF000000) != (SELECT globalPid FROM PROCESSES)"),
             0);
    /* every kernel finds its launch the way nsys's kernel-launch reports join them */
    CHECK_EQ(q1(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k WHERE k.shortName "
                    "NOT IN (SELECT id FROM StringIds) OR k.demangledName NOT IN (SELECT id FROM "
                    "StringIds) OR k.mangledName NOT IN (SELECT id FROM StringIds)"),
             0);
    CHECK_EQ(q1(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE end < start"), 0);
    /* every range of a named domain finds its NvtxDomainCreate row in the same process, the
     * join nsys's NVTX summaries make */
    CHECK_EQ(q1(db, "SELECT count(*) FROM NVTX_EVENTS AS e WHERE e.eventType IN (34, 59, 60) AND "
                    "e.domainId != 0 AND NOT EXISTS (SELECT 1 FROM NVTX_EVENTS AS d WHERE "
                    "d.eventType = 75 AND d.domainId = e.domainId AND (d.globalTid & "
                    "0x0000FFFFFF000000) = (e.globalTid & 0x0000FFFFFF000000))"),
             0);
    CHECK_EQ(q1(db, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 75 AND text IS NULL"), 0);
}

/* The schema is the anchor's: every table of ssi_nsys_schema exists, and the enums. */
static void check_schema(sqlite3 *db)
{
    CHECK_EQ(q1(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'"),
             (sqlite3_int64)ssi_nsys_n_schema);
    for (size_t i = 0; i < ssi_nsys_n_schema; i++) {
        char name[128];
        REQUIRE(sscanf(ssi_nsys_schema[i], "CREATE TABLE %127s", name) == 1);
        CHECK(ssi_nsys_table_exists(db, name) == 1);
    }
    CHECK_EQ(q1(db, "SELECT count(*) FROM ENUM_CUDA_MEMCPY_OPER WHERE id = 1 AND label = "
                    "'Host-to-Device'"),
             1);
    CHECK_EQ(q1(db, "SELECT count(*) FROM ENUM_CUDA_MEM_KIND WHERE id = 0 AND label = 'Pageable'"),
             1);
    CHECK_EQ(q1(db, "SELECT count(*) FROM ENUM_NSYS_EVENT_TYPE WHERE id = 59 AND name = "
                    "'NvtxPushPopRange'"),
             1);
    CHECK_EQ(q1(db, "SELECT count(*) FROM ENUM_CUPTI_SYNC_TYPE"), 5);
}

static void check_one(const char *trace)
{
    char out[512], err[512];
    const char *base = strrchr(trace, '/');
    snprintf(out, sizeof out, "%s", ss_test_path("export.sqlite"));
    unlink(out);
    int rc = ssi_nsys_export(trace, NULL, out, err, sizeof err);
    if (rc) SS_FAIL_AT("%s: %s", trace, err);
    REQUIRE(rc == 0);
    static struct tally t;
    for (size_t i = 0; i < t.nk; i++)
        free(t.k[i].name);
    for (size_t i = 0; i < t.napi; i++)
        free(t.api[i].name);
    memset(&t, 0, sizeof t);
    tally_trace(trace, &t);
    sqlite3 *db;
    REQUIRE(sqlite3_open_v2(out, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    check_schema(db);
    CHECK_EQ_U64(q1(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), t.kernels);
    /* cuda_gpu_kern_sum's numbers, by the raw (mangled) name the trace keeps */
    check_groups(db,
                 "SELECT s.value, count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL "
                 "AS k JOIN StringIds AS s ON s.id = k.mangledName GROUP BY 1",
                 t.k, t.nk, 1);
    check_groups(db,
                 "SELECT s.value, count(*), 0 FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r JOIN "
                 "StringIds AS s ON s.id = r.nameId GROUP BY 1",
                 t.api, t.napi, 0);
    check_copies(db, &t);
    check_nvtx_and_ids(db, &t);
    sqlite3_close(db);
    printf("%s: %" PRIu64 " kernels (%zu names), %zu API names, %" PRIu64 " NVTX pushes: ok\n",
           base ? base + 1 : trace, t.kernels, t.nk, t.napi, t.pushes);
}

int main(int argc, char **argv)
{
    REQUIRE(argc >= 2);
    for (int i = 1; i < argc; i++)
        check_one(argv[i]);
    return ss_test_result();
}
