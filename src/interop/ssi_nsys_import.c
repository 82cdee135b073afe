/*
 * ssi_nsys_import.c — an nsys SQLite export (`nsys export --type sqlite`, or stepscope's own
 * --format nsys-sqlite) -> a stepscope trace, so that `stepscope report capture.sqlite` works.
 *
 * The database is opened read-only and checked before anything is written: it must be an
 * SQLite file with StringIds and CUPTI_ACTIVITY_KIND_KERNEL, and every table read must have
 * the columns the reader needs. One process is imported (the one with the most kernels; the
 * trace format holds one process per file). Its rows are then merged in time order from one
 * sorted cursor per table (kernels, copies, memsets, syncs, API calls, NVTX range starts and,
 * separately, NVTX range ends), so the trace is written in nearly the order the collector
 * would write it and the analysis streams it in bounded memory. Mapping: docs/interop.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interop/ssi.h"
#include "interop/ssi_nsys.h"
#include "interop/ssi_nsys_im.h"
#include "trace/sst_zstd.h"
#include "util/ss_error.h"

/* ---- the columns each cursor reads (indices are fixed: ssi_nsys_import_rows.c) ---- */

#define REQ(n)                                                                                     \
    {                                                                                              \
        n, 1                                                                                       \
    }
#define OPT(n)                                                                                     \
    {                                                                                              \
        n, 0                                                                                       \
    }
static const struct im_col k_cols_kernel[] = {REQ("rowid"),
                                              REQ("start"),
                                              REQ("end"),
                                              REQ("deviceId"),
                                              REQ("streamId"),
                                              OPT("correlationId"),
                                              OPT("globalPid"),
                                              OPT("mangledName"),
                                              OPT("demangledName"),
                                              OPT("shortName"),
                                              OPT("gridX"),
                                              OPT("gridY"),
                                              OPT("gridZ"),
                                              OPT("blockX"),
                                              OPT("blockY"),
                                              OPT("blockZ"),
                                              OPT("registersPerThread"),
                                              OPT("staticSharedMemory"),
                                              OPT("dynamicSharedMemory"),
                                              OPT("launchType")};
static const struct im_col k_cols_memcpy[] = {
    REQ("rowid"),         REQ("start"),       REQ("end"),        REQ("deviceId"), REQ("streamId"),
    OPT("correlationId"), OPT("globalPid"),   REQ("bytes"),      REQ("copyKind"), OPT("srcKind"),
    OPT("dstKind"),       OPT("srcDeviceId"), OPT("dstDeviceId")};
static const struct im_col k_cols_memset[] = {
    REQ("rowid"),         REQ("start"),     REQ("end"),   REQ("deviceId"), REQ("streamId"),
    OPT("correlationId"), OPT("globalPid"), OPT("value"), REQ("bytes"),    OPT("memKind")};
static const struct im_col k_cols_sync[] = {REQ("rowid"),     REQ("start"),    REQ("end"),
                                            OPT("deviceId"),  OPT("streamId"), OPT("correlationId"),
                                            OPT("globalPid"), REQ("syncType"), OPT("eventId")};
static const struct im_col k_cols_runtime[] = {
    REQ("rowid"),     REQ("start"),         REQ("end"),    OPT("eventClass"),
    REQ("globalTid"), OPT("correlationId"), REQ("nameId"), OPT("returnValue")};
static const struct im_col k_cols_open[] = {
    REQ("rowid"),       REQ("start"),      OPT("end"),          REQ("eventType"),
    OPT("rangeId"),     OPT("category"),   OPT("color"),        OPT("text"),
    OPT("textId"),      OPT("globalTid"),  OPT("endGlobalTid"), OPT("domainId"),
    OPT("uint64Value"), OPT("int64Value"), OPT("doubleValue"),  OPT("uint32Value"),
    OPT("int32Value"),  OPT("floatValue")};
static const struct im_col k_cols_close[] = {
    REQ("rowid"),     REQ("end"),          REQ("start"),    REQ("eventType"),
    OPT("globalTid"), OPT("endGlobalTid"), OPT("domainId"), OPT("rangeId")};

struct src_spec {
    const char *table;
    const struct im_col *cols;
    size_t n;
    const char *pid_col; /* the process filter's column */
    const char *where, *order;
};

#define SPEC(t, c, p, w, o)                                                                        \
    {                                                                                              \
        t, c, sizeof c / sizeof *c, p, w, o                                                        \
    }
static const struct src_spec k_specs[IM_NSRC] = {
    [IM_CLOSE] = SPEC("NVTX_EVENTS", k_cols_close, "globalTid",
                      "eventType IN (59, 60, 70, 71) AND \"end\" IS NOT NULL AND \"end\" > start",
                      "\"end\", start DESC, rowid"),
    [IM_KERNEL] =
        SPEC("CUPTI_ACTIVITY_KIND_KERNEL", k_cols_kernel, "globalPid", "1", "start, rowid"),
    [IM_MEMCPY] =
        SPEC("CUPTI_ACTIVITY_KIND_MEMCPY", k_cols_memcpy, "globalPid", "1", "start, rowid"),
    [IM_MEMSET] =
        SPEC("CUPTI_ACTIVITY_KIND_MEMSET", k_cols_memset, "globalPid", "1", "start, rowid"),
    [IM_SYNC] =
        SPEC("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", k_cols_sync, "globalPid", "1", "start, rowid"),
    [IM_RUNTIME] =
        SPEC("CUPTI_ACTIVITY_KIND_RUNTIME", k_cols_runtime, "globalTid", "1", "start, rowid"),
    [IM_OPEN] =
        SPEC("NVTX_EVENTS", k_cols_open, "globalTid", "eventType IN (34, 39, 59, 60, 70, 71, 75)",
             "start, \"end\" IS NULL DESC, \"end\" DESC, rowid"),
};

/* ---- opening and checking ---- */

static int open_db(struct im *m, const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return im_fail(m, ss_from_errno(errno), "cannot open: %s",
                       ss_strerror(ss_from_errno(errno)));
    if (S_ISDIR(sb.st_mode)) return im_fail(m, SS_EINVAL, "is a directory");
    if (sb.st_size == 0) return im_fail(m, SS_EEMPTY, "file is empty, not an nsys SQLite export");
    if (sqlite3_open_v2(path, &m->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        return im_fail(m, SS_EIO, "cannot open as SQLite: %s",
                       m->db ? sqlite3_errmsg(m->db) : "out of memory");
    /* a hostile file cannot make the schema run code or change the file */
    sqlite3_db_config(m->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_db_config(m->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
    int rc = ssi_nsys_table_exists(m->db, "StringIds");
    if (rc < 0)
        return im_fail(m, SS_ECORRUPT, "not a readable SQLite database: %s", sqlite3_errmsg(m->db));
    if (!rc) return im_fail(m, SS_EBADREC, "no StringIds table: not an nsys SQLite export");
    rc = ssi_nsys_table_exists(m->db, "CUPTI_ACTIVITY_KIND_KERNEL");
    if (rc <= 0)
        return im_fail(m, SS_EBADREC,
                       "no CUPTI_ACTIVITY_KIND_KERNEL table: the capture has no "
                       "CUDA kernels (record with nsys profile -t cuda)");
    return 0;
}

/* SQLite's own check of the file (b-tree pages, records, free lists): a page that a flipped
 * bit broke can make a query skip rows without an error, so a file that fails it is damaged
 * (issue #41: "25 of 26 steps" read without a word). quick_check, not integrity_check: it
 * reads every page once, O(N), but does not match indexes to tables, which the import does not
 * use (its sorts are its own). Its first complaint is kept for the DAMAGE record. */
static void check_integrity(struct im *m)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(m->db, "PRAGMA quick_check(1)", -1, &st, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_step(st);
    const char *said = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    if (rc == SQLITE_ROW && said && strcmp(said, "ok") == 0) {
        sqlite3_finalize(st);
        return;
    }
    snprintf(m->integrity, sizeof m->integrity, "SQLite quick_check: %.120s",
             said ? said : sqlite3_errmsg(m->db));
    for (char *p = m->integrity; *p; p++) /* one line, printable */
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = ' ';
    sqlite3_finalize(st);
}

static int prepare(struct im *m, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(m->db, sql, -1, st, NULL) == SQLITE_OK) return 0;
    return im_fail(m, SS_ECORRUPT, "SQLite: %s", sqlite3_errmsg(m->db));
}

/* have[i]: whether table has the column cols[i].name (have[0], the rowid, is 1). One
 * pragma_table_info query for the whole table, where ssi_nsys_has_column would compile and run
 * one per column (most of an import's fixed cost on a small file); names compare exactly, like
 * that query's "name = ?", and a failed query reads as missing columns, like a failed
 * ssi_nsys_has_column. */
void im_columns(struct im *m, const char *table, const struct im_col *cols, size_t n,
                unsigned char *have)
{
    memset(have, 0, n);
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(m->db, "SELECT name FROM pragma_table_info(?1)", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            const char *name = (const char *)sqlite3_column_text(st, 0);
            size_t len = (size_t)sqlite3_column_bytes(st, 0);
            for (size_t i = 1; name && i < n; i++)
                if (strlen(cols[i].name) == len && memcmp(cols[i].name, name, len) == 0)
                    have[i] = 1;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) memset(have, 0, n);
    if (n) have[0] = 1;
}

/* The column list of a cursor: missing optional columns read as NULL. */
static int column_list(struct im *m, const struct src_spec *s, char *buf, size_t cap, int *has_pid)
{
    size_t n = 0;
    unsigned char have_col[IM_MAX_COLS];
    *has_pid = 0;
    if (s->n > IM_MAX_COLS) return im_fail(m, SS_EINVAL, "%s: too many columns", s->table);
    im_columns(m, s->table, s->cols, s->n, have_col);
    for (size_t i = 0; i < s->n; i++) {
        const char *c = s->cols[i].name;
        int have = have_col[i];
        if (!have && s->cols[i].required)
            return im_fail(m, SS_EBADREC, "%s has no column %s", s->table, c);
        if (have && strcmp(c, s->pid_col) == 0) *has_pid = 1;
        n += (size_t)snprintf(buf + n, cap - n, "%s%s%s%s", i ? ", " : "", have ? "\"" : "",
                              have ? c : "NULL", have ? "\"" : "");
        if (n >= cap) return im_fail(m, SS_EINVAL, "column list too long");
    }
    return 0;
}

static int open_cursor(struct im *m, enum im_src src)
{
    const struct src_spec *s = &k_specs[src];
    struct im_cursor *c = &m->cur[src];
    *c = (struct im_cursor){.src = src, .table = s->table, .cols = s->cols, .n_cols = s->n};
    int rc = ssi_nsys_table_exists(m->db, s->table);
    if (rc <= 0) return rc < 0 ? im_fail(m, SS_ECORRUPT, "SQLite: %s", sqlite3_errmsg(m->db)) : 0;
    char cols[1024], filter[160] = "1", sql[2048];
    int has_pid;
    if (column_list(m, s, cols, sizeof cols, &has_pid)) return m->rc;
    if (has_pid && m->filter_pid)
        snprintf(filter, sizeof filter,
                 "(\"%s\" IS NULL OR ((\"%s\" >> 24) & 16777215) = %" PRIu32 ")", s->pid_col,
                 s->pid_col, m->pid);
    snprintf(sql, sizeof sql, "SELECT %s FROM \"%s\" WHERE %s AND %s ORDER BY %s", cols, s->table,
             s->where, filter, s->order);
    if (prepare(m, sql, &c->st)) return m->rc;
    c->has = 1; /* primed by the first advance */
    return 0;
}

/* Steps a cursor to its next row and reads its time (column 1) and rowid (column 0). */
static int advance(struct im *m, struct im_cursor *c)
{
    int rc = sqlite3_step(c->st);
    if (rc == SQLITE_DONE) return c->has = 0, 0;
    if (rc != SQLITE_ROW) {
        c->has = 0;
        return im_fail(m, SS_ECORRUPT, "%s: SQLite: %s", c->table, sqlite3_errmsg(m->db));
    }
    c->rowid = sqlite3_column_int64(c->st, 0);
    return im_int(m, c, 1, 0, 0, 0, INT64_MAX, &c->key);
}

/* ---- the process, and what the merge needs first ---- */

/* The process with the most kernels (nsys may capture several; a trace holds one). */
static int choose_process(struct im *m)
{
    if (ssi_nsys_has_column(m->db, "CUPTI_ACTIVITY_KIND_KERNEL", "globalPid") != 1) return 0;
    sqlite3_stmt *st;
    if (prepare(m,
                "SELECT (globalPid >> 24) & 16777215, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL "
                "WHERE globalPid IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1",
                &st))
        return m->rc;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        m->pid = (uint32_t)sqlite3_column_int64(st, 0), m->filter_pid = 1;
    else if (rc != SQLITE_DONE)
        im_fail(m, SS_ECORRUPT, "CUPTI_ACTIVITY_KIND_KERNEL: SQLite: %s", sqlite3_errmsg(m->db));
    sqlite3_finalize(st);
    if (m->rc || prepare(m,
                         "SELECT count(DISTINCT (globalPid >> 24) & 16777215) FROM "
                         "CUPTI_ACTIVITY_KIND_KERNEL WHERE globalPid IS NOT NULL",
                         &st))
        return m->rc;
    if (sqlite3_step(st) == SQLITE_ROW) m->n_processes = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return m->rc;
}

/* Runs a two-column query and hands each row to fn (text or integer values as they come). */
static int each_row(struct im *m, const char *sql, int (*fn)(struct im *, sqlite3_stmt *))
{
    sqlite3_stmt *st;
    if (prepare(m, sql, &st)) return m->rc;
    int rc;
    while (!m->rc && (rc = sqlite3_step(st)) == SQLITE_ROW)
        fn(m, st);
    if (!m->rc && rc != SQLITE_DONE) im_fail(m, SS_ECORRUPT, "SQLite: %s", sqlite3_errmsg(m->db));
    sqlite3_finalize(st);
    return m->rc;
}

static int add_domain(struct im *m, sqlite3_stmt *st)
{
    if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || sqlite3_column_type(st, 1) != SQLITE_TEXT)
        return 0; /* a nameless or odd domain: its ranges get "domain#N" */
    const char *s = (const char *)sqlite3_column_text(st, 1);
    uint32_t id = im_intern(m, s ? s : "", (size_t)sqlite3_column_bytes(st, 1));
    if (id && im_map_put(&m->domains, (uint64_t)sqlite3_column_int64(st, 0), id))
        im_fail(m, SS_ENOMEM, "out of memory");
    return 0;
}

/* domainId -> name, from the NvtxDomainCreate rows of the process. */
static int load_domains(struct im *m)
{
    if (ssi_nsys_table_exists(m->db, "NVTX_EVENTS") != 1) return 0;
    int text = ssi_nsys_has_column(m->db, "NVTX_EVENTS", "text") == 1;
    int tid = ssi_nsys_has_column(m->db, "NVTX_EVENTS", "textId") == 1;
    if (ssi_nsys_has_column(m->db, "NVTX_EVENTS", "domainId") != 1) return 0;
    int gtid = ssi_nsys_has_column(m->db, "NVTX_EVENTS", "globalTid") == 1;
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT e.domainId, coalesce(%s, %s) FROM NVTX_EVENTS AS e WHERE e.eventType = 75 "
             "AND (%s OR ((e.globalTid >> 24) & 16777215) = %" PRIu32 ")",
             tid ? "(SELECT value FROM StringIds WHERE id = e.textId)" : "NULL",
             text ? "e.text" : "NULL", gtid && m->filter_pid ? "e.globalTid IS NULL" : "1", m->pid);
    if (each_row(m, sql, add_domain)) return m->rc;
    m->step_domain = im_intern(m, "stepscope", 9);
    m->step_text = im_intern(m, "step", 4);
    return m->rc;
}

/* nameId -> is this API a copy or memset, and async? (-1 neither, 0 blocking, 1 async) */
static int copy_api_kind(const char *name)
{
    if (!name) return -1;
    int copy = strstr(name, "Memcpy") || strstr(name, "Memset") || strstr(name, "memcpy");
    int cuda = strncmp(name, "cuda", 4) == 0 || strncmp(name, "cu", 2) == 0;
    if (!copy || !cuda) return -1;
    return strstr(name, "Async") != NULL;
}

static int add_async(struct im *m, sqlite3_stmt *st)
{
    if (sqlite3_column_type(st, 0) != SQLITE_INTEGER) return 0;
    int kind = copy_api_kind((const char *)sqlite3_column_text(st, 1));
    if (kind >= 0 && im_map_put(&m->async, (uint64_t)sqlite3_column_int64(st, 0), (uint64_t)kind))
        im_fail(m, SS_ENOMEM, "out of memory");
    return 0;
}

/* correlationId -> async, for the copy and memset calls of the process (nsys's copy rows
 * have no async flag; the call that issued them says it). */
static int load_async(struct im *m)
{
    if (ssi_nsys_table_exists(m->db, "CUPTI_ACTIVITY_KIND_RUNTIME") != 1 ||
        ssi_nsys_has_column(m->db, "CUPTI_ACTIVITY_KIND_RUNTIME", "correlationId") != 1 ||
        ssi_nsys_has_column(m->db, "CUPTI_ACTIVITY_KIND_RUNTIME", "nameId") != 1)
        return 0;
    char sql[640];
    snprintf(sql, sizeof sql,
             "SELECT r.correlationId, s.value FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r JOIN "
             "(SELECT id, value FROM StringIds WHERE value LIKE '%%mem%%' AND (value LIKE "
             "'%%cpy%%' OR value LIKE '%%set%%')) AS s ON s.id = r.nameId WHERE %s",
             m->filter_pid ? "((r.globalTid >> 24) & 16777215) = ?1 OR r.globalTid IS NULL" : "1");
    sqlite3_stmt *st;
    if (prepare(m, sql, &st)) return m->rc;
    if (m->filter_pid) sqlite3_bind_int64(st, 1, m->pid);
    int rc;
    while (!m->rc && (rc = sqlite3_step(st)) == SQLITE_ROW)
        add_async(m, st);
    if (!m->rc && rc != SQLITE_DONE) im_fail(m, SS_ECORRUPT, "SQLite: %s", sqlite3_errmsg(m->db));
    sqlite3_finalize(st);
    return m->rc;
}

/* ---- the merge ---- */

/* Every column of the cursor's row but the rowid, hashed. */
static uint64_t row_hash(const struct im_cursor *c)
{
    uint64_t h = (uint64_t)c->src + 1;
    for (int i = 1; i < (int)c->n_cols; i++) {
        int t = sqlite3_column_type(c->st, i);
        h = ssi_hash_mix(h, (uint64_t)t);
        if (t == SQLITE_INTEGER) h = ssi_hash_mix(h, (uint64_t)sqlite3_column_int64(c->st, i));
        if (t == SQLITE_FLOAT) {
            double d = sqlite3_column_double(c->st, i);
            uint64_t bits;
            memcpy(&bits, &d, sizeof bits);
            h = ssi_hash_mix(h, bits);
        }
        if (t != SQLITE_TEXT && t != SQLITE_BLOB) continue;
        const unsigned char *b = t == SQLITE_TEXT ? sqlite3_column_text(c->st, i)
                                                  : sqlite3_column_blob(c->st, i);
        for (int k = 0, n = sqlite3_column_bytes(c->st, i); b && k < n; k++)
            h = ssi_hash_mix(h, b[k]);
    }
    return h;
}

/* 1 when the cursor's row repeats one of the same time exactly (every column but the rowid:
 * two kernels cannot share a stream, a start and an end): counted, left out (issue #41). */
static int repeated_row(struct im *m, struct im_cursor *c)
{
    if (c->n_same && c->same_key != c->key) c->n_same = 0;
    c->same_key = c->key;
    uint64_t h = row_hash(c);
    for (size_t i = 0; i < c->n_same; i++) {
        if (c->same[i] != h) continue;
        if (!m->repeats++)
            snprintf(m->first_repeat, sizeof m->first_repeat, "%s rowid %" PRId64, c->table,
                     c->rowid);
        return 1;
    }
    if (c->n_same < IM_SAME_TIME) c->same[c->n_same++] = h;
    return 0;
}

/* The cursor with the earliest time; ties go to the lower enum (range ends before starts). */
static struct im_cursor *earliest(struct im *m)
{
    struct im_cursor *best = NULL;
    for (int i = 0; i < IM_NSRC; i++) {
        struct im_cursor *c = &m->cur[i];
        if (c->has && c->st && (!best || c->key < best->key)) best = c;
    }
    return best;
}

static int merge(struct im *m)
{
    for (int i = 0; i < IM_NSRC && !m->rc; i++)
        if (m->cur[i].st) advance(m, &m->cur[i]);
    struct im_cursor *c;
    while (!m->rc && (c = earliest(m)) != NULL) {
        if (repeated_row(m, c)) {
            advance(m, c);
            continue;
        }
        if (im_emit(m, c)) break;
        if (sst_writer_error(m->w))
            return im_fail(m, sst_writer_error(m->w), "cannot write the trace: %s",
                           ss_strerror(sst_writer_error(m->w)));
        advance(m, c);
    }
    return m->rc;
}

/* What the import found wrong with the file, and what a stepscope export said its trace
 * lost, as DAMAGE records: every reader of the trace says it (issue #41). */
static int write_damage(struct im *m)
{
    if (im_meta_damage(m)) return m->rc;
    int rc = 0;
    if (m->integrity[0]) rc = sst_writer_damage(m->w, SST_DAMAGE_CORRUPT, 1, UINT64_MAX, m->integrity);
    if (!rc && m->repeats)
        rc = sst_writer_damage(m->w, SST_DAMAGE_DUPLICATE, m->repeats, UINT64_MAX, m->first_repeat);
    return rc ? im_fail(m, rc, "cannot write the trace: %s", ss_strerror(rc)) : 0;
}

static int import_rows(struct im *m)
{
    if (im_header_records(m) || load_domains(m) || load_async(m)) return m->rc;
    for (int i = 0; i < IM_NSRC && !m->rc; i++)
        open_cursor(m, (enum im_src)i);
    return m->rc || merge(m) ? m->rc : write_damage(m);
}

static void im_free(struct im *m)
{
    for (int i = 0; i < IM_NSRC; i++)
        sqlite3_finalize(m->cur[i].st);
    sqlite3_finalize(m->string_stmt);
    im_map_free(&m->strings);
    im_map_free(&m->api_names);
    im_map_free(&m->async);
    im_map_free(&m->domains);
    im_stacks_free(m);
    im_meta_free(m);
    sqlite3_close(m->db);
}

/* The trace is written to out_path directly, and out_path removed when the import fails. */
static int write_trace(struct im *m, struct sst_writer_opts *o, const char *out_path)
{
    size_t cap = strlen(out_path) + 16;
    char *tmp = malloc(cap);
    char msg[256] = "";
    int fd = tmp ? ssi_nsys_tmp_create(out_path, tmp, cap, msg, sizeof msg) : SS_ENOMEM;
    if (fd < 0) return free(tmp), im_fail(m, fd, "%s", msg[0] ? msg : "out of memory");
    int z = sst_zstd_compressor_init(&o->compressor, 3) == 0;
    if (z) o->features |= SST_FEAT_ZSTD;
    int rc = sst_writer_open_fd(fd, o, &m->w);
    if (rc) {
        close(fd);
        im_fail(m, rc, "%s: cannot write: %s", out_path, ss_strerror(rc));
    } else {
        import_rows(m);
        rc = sst_writer_close(m->w, m->t_max ? m->t_max : o->start_mono_ns);
        if (rc && !m->rc) im_fail(m, rc, "%s: cannot write: %s", out_path, ss_strerror(rc));
    }
    if (z) sst_zstd_compressor_free(&o->compressor);
    if (!m->rc && (rc = ssi_nsys_tmp_commit(tmp, out_path, msg, sizeof msg)) != 0)
        im_fail(m, rc, "%s", msg);
    if (m->rc) unlink(tmp);
    free(tmp);
    return m->rc;
}

int ssi_nsys_import(const char *in_path, const char *out_path, char *err, size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    struct im m = {.err = err, .errlen = errlen, .t_min = UINT64_MAX};
    struct sst_writer_opts o = {.features = SST_FEAT_CUPTI | SST_FEAT_NVTX};
    if (!open_db(&m, in_path) && (check_integrity(&m), !choose_process(&m)) &&
        !prepare(&m, "SELECT value FROM StringIds WHERE id = ?", &m.string_stmt) &&
        !im_session(&m, &o))
        write_trace(&m, &o, out_path);
    im_free(&m);
    for (char *p = err; m.rc && p && *p; p++) /* SQLite's messages may quote the file's names */
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
    return m.rc;
}

/* ---- the importer's row (ssi.h: SSI_IMPORTERS) ---- */

/* Every SQLite database: the import says what is not an nsys export in it (no StringIds...). */
static int looks_like_sqlite(const unsigned char *head, size_t n)
{
    return n >= 16 && memcmp(head, "SQLite format 3", 16) == 0;
}

const struct ssi_importer ssi_import_nsys = {
    "nsys",
    looks_like_sqlite,
    ssi_nsys_import,
    ".sqlite",
    "an nsys SQLite export (nsys export --type sqlite), or stepscope's own\n"
    "nsys-sqlite export.",
    "nsys SQLite export",
    0,
};
