/*
 * ssi_nsys_import_meta.c — what the nsys reader writes before the events: the trace header's
 * facts and the PROCESS, ENV, DEVICE, THREAD and DROPPED records.
 *
 * A file stepscope exported carries its own facts in META_DATA_CAPTURE (STEPSCOPE_* keys) and
 * its ENV records in TARGET_INFO_SYSTEM_ENV (devStateName "stepscope"): they are read back as
 * they were. A capture nsys made has none: the process comes from PROCESSES, the start from
 * TARGET_INFO_SESSION_START_TIME and ANALYSIS_DETAILS, the GPUs from TARGET_INFO_GPU, and the
 * clock is taken to be CLOCK_MONOTONIC_RAW (nsys's default on Linux; docs/interop.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interop/ssi_nsys.h"
#include "interop/ssi_nsys_im.h"
#include "trace/sst_names.h"
#include "util/ss_error.h"

/* ---- STEPSCOPE_* keys ---- */

static int add_meta(struct im *m, const char *k, size_t kl, const char *v, size_t vl)
{
    char **p = realloc(m->meta, (m->n_meta + 2) * sizeof *p);
    if (!p) return im_fail(m, SS_ENOMEM, "out of memory");
    m->meta = p;
    p[m->n_meta] = strndup(k, kl);
    p[m->n_meta + 1] = strndup(v ? v : "", vl);
    m->n_meta += 2;
    if (!p[m->n_meta - 2] || !p[m->n_meta - 1]) return im_fail(m, SS_ENOMEM, "out of memory");
    return 0;
}

static int load_meta(struct im *m)
{
    if (ssi_nsys_table_exists(m->db, "META_DATA_CAPTURE") != 1 ||
        ssi_nsys_has_column(m->db, "META_DATA_CAPTURE", "value") != 1)
        return 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(m->db,
                           "SELECT name, value FROM META_DATA_CAPTURE WHERE name LIKE "
                           "'" SSI_NSYS_META_PREFIX "%'",
                           -1, &st, NULL) != SQLITE_OK)
        return im_fail(m, SS_ECORRUPT, "META_DATA_CAPTURE: %s", sqlite3_errmsg(m->db));
    int rc;
    while (!m->rc && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_type(st, 0) != SQLITE_TEXT) continue;
        const char *k = (const char *)sqlite3_column_text(st, 0) + strlen(SSI_NSYS_META_PREFIX);
        size_t kl = (size_t)sqlite3_column_bytes(st, 0) - strlen(SSI_NSYS_META_PREFIX);
        const char *v = sqlite3_column_type(st, 1) == SQLITE_TEXT
                            ? (const char *)sqlite3_column_text(st, 1)
                            : NULL;
        add_meta(m, k, kl, v, v ? (size_t)sqlite3_column_bytes(st, 1) : 0);
    }
    if (!m->rc && rc != SQLITE_DONE)
        im_fail(m, SS_ECORRUPT, "META_DATA_CAPTURE: %s", sqlite3_errmsg(m->db));
    sqlite3_finalize(st);
    return m->rc;
}

static const char *meta(const struct im *m, const char *key)
{
    for (size_t i = 0; i + 1 < m->n_meta; i += 2)
        if (strcmp(m->meta[i], key) == 0) return m->meta[i + 1];
    return NULL;
}

/* A STEPSCOPE_* integer key: 1 and *v when present and a whole decimal number in range. */
static int meta_int(struct im *m, const char *key, int64_t lo, int64_t hi, int64_t *v)
{
    const char *s = meta(m, key);
    if (!s) return 0;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end || errno || x < lo || x > hi) {
        im_fail(m, SS_EBADREC,
                "META_DATA_CAPTURE " SSI_NSYS_META_PREFIX "%s is not a number in "
                "range",
                key);
        return 0;
    }
    *v = x;
    return 1;
}

static uint64_t meta_u(struct im *m, const char *key, uint64_t hi, uint64_t dflt)
{
    int64_t v;
    return meta_int(m, key, 0, hi > INT64_MAX ? INT64_MAX : (int64_t)hi, &v) ? (uint64_t)v : dflt;
}

void im_meta_free(struct im *m)
{
    for (size_t i = 0; i < m->n_meta; i++)
        free(m->meta[i]);
    free(m->meta);
}

/* ---- one-row queries of nsys's session tables ---- */

/* The first integer of a query (0 rows or NULL: dflt). */
static int64_t query_int(struct im *m, const char *table, const char *sql, int64_t dflt)
{
    if (ssi_nsys_table_exists(m->db, table) != 1) return dflt;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(m->db, sql, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return dflt; /* a table without the column: the fact is unknown */
    }
    int64_t v = dflt;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

int im_session(struct im *m, struct sst_writer_opts *o)
{
    if (load_meta(m)) return m->rc;
    int64_t pid;
    if (!m->filter_pid && meta_int(m, "PROCESS_PID", 0, UINT32_MAX, &pid)) m->pid = (uint32_t)pid;
    o->pid = m->pid;
    o->clock = (uint8_t)meta_u(m, "CLOCK", 255, SST_CLOCK_MONOTONIC_RAW);
    int64_t start = query_int(m, "ANALYSIS_DETAILS", "SELECT startTime FROM ANALYSIS_DETAILS", 0);
    int64_t unix_ns = query_int(m, "TARGET_INFO_SESSION_START_TIME",
                                "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME", 0);
    o->start_mono_ns = meta_u(m, "START_MONO_NS", INT64_MAX, start > 0 ? (uint64_t)start : 1);
    o->start_unix_ns = meta_u(m, "START_UNIX_NS", INT64_MAX, unix_ns > 0 ? (uint64_t)unix_ns : 1);
    if (o->start_mono_ns == 0) o->start_mono_ns = 1; /* 0 asks the writer for "now" */
    if (o->start_unix_ns == 0) o->start_unix_ns = 1;
    /* host samples are not exported, zstd is the writer's own choice */
    o->features |= (uint32_t)meta_u(m, "FEATURES", UINT32_MAX, 0) &
                   ~(uint32_t)(SST_FEAT_ZSTD | SST_FEAT_HOST_SAMPLES);
    m->start_ns = o->start_mono_ns;
    return m->rc;
}

/* ---- the header records ---- */

static uint32_t meta_string(struct im *m, const char *key)
{
    const char *s = meta(m, key);
    return s && *s ? im_intern(m, s, strlen(s)) : SST_NO_STRING;
}

/* PROCESSES.name of the process: nsys's short name, the only command line it keeps. */
static uint32_t process_name(struct im *m)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT name FROM PROCESSES WHERE pid = %" PRIu32 " LIMIT 1", m->pid);
    if (ssi_nsys_table_exists(m->db, "PROCESSES") != 1) return SST_NO_STRING;
    sqlite3_stmt *st;
    uint32_t id = SST_NO_STRING;
    if (sqlite3_prepare_v2(m->db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT)
        id = im_intern(m, (const char *)sqlite3_column_text(st, 0),
                       (size_t)sqlite3_column_bytes(st, 0));
    sqlite3_finalize(st);
    return id;
}

static int process_record(struct im *m)
{
    uint32_t host = meta_string(m, "PROCESS_HOSTNAME"), exe = meta_string(m, "PROCESS_EXE");
    uint32_t cmd = meta(m, "PROCESS_CMDLINE") ? meta_string(m, "PROCESS_CMDLINE") : process_name(m);
    int64_t rank = -1, local = -1, world = -1;
    meta_int(m, "PROCESS_RANK", INT32_MIN, INT32_MAX, &rank);
    meta_int(m, "PROCESS_LOCAL_RANK", INT32_MIN, INT32_MAX, &local);
    meta_int(m, "PROCESS_WORLD_SIZE", INT32_MIN, INT32_MAX, &world);
    uint32_t ppid = (uint32_t)meta_u(m, "PROCESS_PPID", UINT32_MAX, 0);
    uint64_t start = meta_u(m, "PROCESS_START_NS", INT64_MAX, 0);
    if (m->rc) return m->rc;
    struct sst_rec_process *p = sst_writer_reserve(m->w, SST_REC_PROCESS, sizeof *p);
    if (!p) return im_fail(m, SS_EIO, "cannot write the trace");
    p->pid = m->pid, p->ppid = ppid;
    p->rank = (int32_t)rank, p->local_rank = (int32_t)local, p->world_size = (int32_t)world;
    p->hostname = host, p->cmdline = cmd, p->exe = exe, p->start_ns = start;
    return 0;
}

/* Rows of a small table through a throw-away cursor, so that im_int checks every value. */
static int each(struct im *m, const char *table, const struct im_col *cols, size_t n,
                const char *sql, int (*fn)(struct im *, struct im_cursor *))
{
    if (ssi_nsys_table_exists(m->db, table) != 1) return 0;
    unsigned char have[IM_MAX_COLS];
    if (n > IM_MAX_COLS) return im_fail(m, SS_EINVAL, "%s: too many columns", table);
    im_columns(m, table, cols, n, have);
    for (size_t i = 1; i < n; i++)
        if (!have[i])
            return cols[i].required
                       ? im_fail(m, SS_EBADREC, "%s has no column %s", table, cols[i].name)
                       : 0;
    struct im_cursor c = {.table = table, .cols = cols, .n_cols = n};
    if (sqlite3_prepare_v2(m->db, sql, -1, &c.st, NULL) != SQLITE_OK) {
        im_fail(m, SS_ECORRUPT, "%s: %s", table, sqlite3_errmsg(m->db));
    } else {
        int rc;
        while (!m->rc && (rc = sqlite3_step(c.st)) == SQLITE_ROW)
            c.rowid = sqlite3_column_int64(c.st, 0), fn(m, &c);
        if (!m->rc && rc != SQLITE_DONE)
            im_fail(m, SS_ECORRUPT, "%s: %s", table, sqlite3_errmsg(m->db));
    }
    sqlite3_finalize(c.st);
    return m->rc;
}

static int env_row(struct im *m, struct im_cursor *c)
{
    const char *k, *v;
    size_t kl, vl;
    if (im_text(m, c, 1, &k, &kl) || im_text(m, c, 2, &v, &vl) || !k) return m->rc;
    /* nsys names the CPU count CpuCores; the analysis reads cpu_count */
    uint32_t key = strcmp(k, "CpuCores") == 0 ? im_intern(m, "cpu_count", 9) : im_intern(m, k, kl);
    uint32_t val = im_intern(m, v ? v : "", vl);
    if (m->rc) return m->rc;
    struct sst_rec_env *e = sst_writer_reserve(m->w, SST_REC_ENV, sizeof *e);
    if (!e) return im_fail(m, SS_EIO, "cannot write the trace");
    e->key = key, e->value = val;
    return 0;
}

static const struct im_col k_env_cols[] = {{"rowid", 1}, {"name", 1}, {"value", 1}};

/* Where the trace came from, as the Kineto importer says it (import.format): the analysis
 * prices the recorder's own cost by it. Not for stepscope's own export read back: its ENV rows
 * come back with it and say who recorded it. */
static int env_format(struct im *m)
{
    if (query_int(m, "TARGET_INFO_SYSTEM_ENV",
                  "SELECT COUNT(*) FROM TARGET_INFO_SYSTEM_ENV WHERE devStateName = '" SSI_NSYS_ENV_STATE
                  "'",
                  0) > 0)
        return 0;
    uint32_t key = im_intern(m, "import.format", 13), val = im_intern(m, "nsys-sqlite", 11);
    if (m->rc) return m->rc;
    struct sst_rec_env *e = sst_writer_reserve(m->w, SST_REC_ENV, sizeof *e);
    if (!e) return im_fail(m, SS_EIO, "cannot write the trace");
    e->key = key, e->value = val;
    return 0;
}

static int env_records(struct im *m)
{
    if (env_format(m)) return m->rc;
    /* stepscope's own rows when there are any, else nsys's CPU count */
    const char *sql = "SELECT rowid, name, value FROM TARGET_INFO_SYSTEM_ENV WHERE devStateName "
                      "= '" SSI_NSYS_ENV_STATE "' OR (name = 'CpuCores' AND NOT EXISTS (SELECT 1 "
                      "FROM TARGET_INFO_SYSTEM_ENV WHERE devStateName = '" SSI_NSYS_ENV_STATE "')) "
                      "ORDER BY rowid";
    if (ssi_nsys_table_exists(m->db, "TARGET_INFO_SYSTEM_ENV") == 1 &&
        ssi_nsys_has_column(m->db, "TARGET_INFO_SYSTEM_ENV", "devStateName") != 1)
        return 0;
    return each(m, "TARGET_INFO_SYSTEM_ENV", k_env_cols, 3, sql, env_row);
}

static const struct im_col k_gpu_cols[] = {
    {"rowid", 1},   {"id", 1},           {"name", 0},         {"totalMemory", 0},
    {"smCount", 0}, {"computeMajor", 0}, {"computeMinor", 0}, {"busLocation", 0}};

static int gpu_row(struct im *m, struct im_cursor *c)
{
    int64_t id, mem, sms, major, minor;
    const char *name, *bus;
    size_t nl, bl;
    if (im_int(m, c, 1, 0, 0, 0, 0xFFFF, &id) || im_int(m, c, 3, 1, 0, 0, INT64_MAX, &mem) ||
        im_int(m, c, 4, 1, 0, 0, UINT32_MAX, &sms) || im_int(m, c, 5, 1, 0, 0, 0xFFFF, &major) ||
        im_int(m, c, 6, 1, 0, 0, 0xFFFF, &minor) || im_text(m, c, 2, &name, &nl) ||
        im_text(m, c, 7, &bus, &bl))
        return m->rc;
    unsigned pci = 0;
    if (bus) sscanf(bus, "%*x:%x:", &pci);
    char key[64];
    uint32_t nid = name ? im_intern(m, name, nl) : SST_NO_STRING;
    snprintf(key, sizeof key, "DEVICE_%" PRId64 "_UUID_CRC", id);
    uint32_t crc = (uint32_t)meta_u(m, key, UINT32_MAX, 0);
    snprintf(key, sizeof key, "DEVICE_%" PRId64 "_MEM_CLOCK_KHZ", id);
    uint32_t clk = (uint32_t)meta_u(m, key, UINT32_MAX, 0);
    snprintf(key, sizeof key, "DEVICE_%" PRId64 "_MEM_BUS_WIDTH", id);
    uint32_t width = (uint32_t)meta_u(m, key, UINT32_MAX, 0);
    if (m->rc) return m->rc;
    struct sst_rec_device *d = sst_writer_reserve(m->w, SST_REC_DEVICE, sizeof *d);
    if (!d) return im_fail(m, SS_EIO, "cannot write the trace");
    d->device = (uint32_t)id, d->name = nid, d->sm_count = (uint32_t)sms;
    d->cc_major = (uint16_t)major, d->cc_minor = (uint16_t)minor, d->uuid_hi_crc = crc;
    d->global_mem = (uint64_t)mem, d->mem_clock_khz = clk, d->mem_bus_width = width;
    d->pci_bus = pci & 0xff;
    return 0;
}

static int thread_row(struct im *m, struct im_cursor *c)
{
    int64_t name, gtid;
    if (im_int(m, c, 1, 0, 0, INT64_MIN, INT64_MAX, &name) ||
        im_int(m, c, 2, 0, 0, INT64_MIN, INT64_MAX, &gtid))
        return m->rc;
    if (m->filter_pid && ssi_nsys_pid_of(gtid) != m->pid) return 0;
    uint32_t sid = im_string(m, c, "nameId", name);
    if (m->rc) return m->rc;
    struct sst_rec_thread *t = sst_writer_reserve(m->w, SST_REC_THREAD, sizeof *t);
    if (!t) return im_fail(m, SS_EIO, "cannot write the trace");
    t->tid = ssi_nsys_tid_of(gtid), t->name = sid;
    t->ts_ns = m->start_ns; /* ThreadNames has no time: the session's start */
    return 0;
}

/* A capture of several processes: the trace holds one, said in a NOTICE (`stepscope info`). */
static int notice(struct im *m)
{
    char text[200];
    int n = snprintf(text, sizeof text,
                     "the nsys capture has %" PRId64 " processes with CUDA "
                     "kernels; imported pid %" PRIu32 " (the most kernels) only",
                     m->n_processes, m->pid);
    uint32_t id = im_intern(m, text, (size_t)n);
    if (m->rc) return m->rc;
    struct sst_rec_notice *r = sst_writer_reserve(m->w, SST_REC_NOTICE, sizeof *r);
    if (!r) return im_fail(m, SS_EIO, "cannot write the trace");
    r->level = SST_NOTE_WARN, r->code = SST_NOTICE_OTHER, r->message = id;
    r->ts_ns = m->start_ns; /* no time of its own: the session's start, as threads' */
    return 0;
}

/* STEPSCOPE_CAPTURE_<n> rows ("ts_ns on reason what", written by the export) as CAPTURE
 * records again. A value of another shape fails the import, as a bad number does. */
static int capture_records(struct im *m)
{
    size_t kl = strlen(SSI_NSYS_CAPTURE_KEY);
    for (size_t i = 0; i + 1 < m->n_meta && !m->rc; i += 2) {
        if (strncmp(m->meta[i], SSI_NSYS_CAPTURE_KEY, kl) != 0) continue;
        uint64_t t;
        unsigned on, reason, what;
        int used = 0;
        if (sscanf(m->meta[i + 1], "%" SCNu64 " %u %u %u%n", &t, &on, &reason, &what, &used) !=
                4 ||
            m->meta[i + 1][used] || on > 1 || reason > UINT8_MAX || what > UINT16_MAX)
            return im_fail(m, SS_EBADREC,
                           "META_DATA_CAPTURE " SSI_NSYS_META_PREFIX "%s is not "
                           "'time on reason what'",
                           m->meta[i]);
        struct sst_rec_capture *r = sst_writer_reserve(m->w, SST_REC_CAPTURE, sizeof *r);
        if (!r) return im_fail(m, SS_EIO, "cannot write the trace");
        r->ts_ns = t, r->on = (uint8_t)on, r->reason = (uint8_t)reason, r->what = (uint16_t)what;
        if (t > m->t_max) m->t_max = t; /* the END chunk's time comes after every record */
    }
    return m->rc;
}

static const struct im_col k_thread_cols[] = {{"rowid", 1}, {"nameId", 1}, {"globalTid", 1}};

int im_header_records(struct im *m)
{
    if (process_record(m) || env_records(m) || capture_records(m)) return m->rc;
    if (each(m, "TARGET_INFO_GPU", k_gpu_cols, sizeof k_gpu_cols / sizeof *k_gpu_cols,
             "SELECT rowid, id, name, totalMemory, smCount, computeMajor, computeMinor, "
             "busLocation FROM TARGET_INFO_GPU ORDER BY rowid",
             gpu_row) ||
        each(m, "ThreadNames", k_thread_cols, 3,
             "SELECT rowid, nameId, globalTid FROM ThreadNames ORDER BY rowid", thread_row))
        return m->rc;
    if (m->n_processes > 1 && notice(m)) return m->rc;
    uint64_t dropped = meta_u(m, "DROPPED", INT64_MAX, 0);
    if (!dropped || m->rc) return m->rc;
    struct sst_rec_dropped *d = sst_writer_reserve(m->w, SST_REC_DROPPED, sizeof *d);
    if (!d) return im_fail(m, SS_EIO, "cannot write the trace");
    d->count = dropped;
    d->ts_ns = m->start_ns; /* a time the trace's clock holds (0 is before its start) */
    return 0;
}

int im_meta_damage(struct im *m)
{
    const char *said = meta(m, "DAMAGE_SAID");
    char key[48], detail[160];
    snprintf(detail, sizeof detail, "the exported trace's: %.130s", said ? said : "");
    for (uint8_t k = 1; k < SST_DAMAGE_LIMIT && !m->rc; k++) {
        if (k == SST_DAMAGE_DROPPED) continue; /* STEPSCOPE_DROPPED's DROPPED record says it */
        snprintf(key, sizeof key, "DAMAGE_%s", sst_damage_kind_name(k));
        uint64_t n = meta_u(m, key, INT64_MAX, 0);
        if (n && sst_writer_damage(m->w, k, n, UINT64_MAX, detail))
            return im_fail(m, SS_EIO, "cannot write the trace");
    }
    return m->rc;
}
