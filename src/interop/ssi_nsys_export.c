/*
 * ssi_nsys_export.c — stepscope trace -> SQLite database in the schema of `nsys export --type
 * sqlite` (Nsight Systems 2025.3.1), so that `nsys stats` and `nsys analyze` run on it.
 *
 * One streaming pass over the trace (sst_reader): each record becomes at most one row, inserted
 * through prepared statements inside one transaction into out_path (removed on failure; the
 * CLI passes a temporary file, src/util/ss_out.h). Memory: the string table (each distinct text once), three string
 * ids per distinct kernel name, and the NVTX ranges still open. Mapping: docs/interop.md.
 * NVTX is in ssi_nsys_export_nvtx.c; the schema and enums in ssi_nsys_schema.c.
 * ssi_nsys_write_merged writes the traces of a folder one after the other into one database,
 * each with its place on the common timeline (issue #44; docs/export.md).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "interop/ssi.h"
#include "interop/ssi_nsys.h"
#include "interop/ssi_nsys_xp.h"
#include "interop/ssi_window.h"
#include "trace/sst_cbid.h"
#include "trace/sst_names.h"
#include "util/ss_cxxname.h"
#include "util/ss_error.h"

#ifndef STEPSCOPE_VERSION
#define STEPSCOPE_VERSION "0.1.0"
#endif

/* ---- statements ---- */

static const char *const k_insert[XS_COUNT] = {
    [XS_STRING] = "INSERT INTO StringIds (id, value) VALUES (?, ?)",
    [XS_KERNEL] = "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, "
                  "streamId, correlationId, globalPid, demangledName, shortName, mangledName, "
                  "launchType, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, "
                  "staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, "
                  "localMemoryTotal, gridId) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                  "?, ?, ?, ?, ?, 0, 0, 0)",
    [XS_MEMCPY] = "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, "
                  "streamId, correlationId, globalPid, bytes, copyKind, srcKind, dstKind, "
                  "srcDeviceId, srcContextId, dstDeviceId, dstContextId, copyCount) VALUES (?, ?, "
                  "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)",
    [XS_MEMSET] = "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, "
                  "streamId, correlationId, globalPid, value, bytes, memKind) VALUES (?, ?, ?, ?, "
                  "?, ?, ?, ?, ?, ?)",
    [XS_SYNC] =
        "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, "
        "contextId, streamId, correlationId, globalPid, syncType, eventId) VALUES (?, ?, ?, "
        "?, ?, ?, ?, ?, ?)",
    [XS_RUNTIME] = "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, "
                   "correlationId, nameId, returnValue) VALUES (?, ?, ?, ?, ?, ?, ?)",
    [XS_NVTX] = "INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, category, color, text, "
                "globalTid, endGlobalTid, domainId, uint64Value, int64Value, doubleValue, "
                "uint32Value, int32Value, floatValue) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                "?, ?, ?, ?)",
    [XS_THREAD] = "INSERT INTO ThreadNames (nameId, priority, globalTid) VALUES (?, NULL, ?)",
    [XS_ENV] = "INSERT INTO TARGET_INFO_SYSTEM_ENV (globalVid, devStateName, name, nameEnum, "
               "value) VALUES (0, '" SSI_NSYS_ENV_STATE "', ?, 0, ?)",
    [XS_CAPTURE_META] = "INSERT INTO META_DATA_CAPTURE (name, value) VALUES (?, ?)",
    [XS_DIAG] = "INSERT INTO DIAGNOSTIC_EVENT (timestamp, timestampType, source, severity, text, "
                "globalPid) VALUES (?, 1, 1, ?, ?, ?)",
};

void xp_insert(struct xp *x, enum xp_stmt s)
{
    sqlite3_stmt *st = x->st[s];
    if (!x->rc && sqlite3_step(st) != SQLITE_DONE) {
        ssi_nsys_err(x->err, x->errlen, "SQLite: %s", sqlite3_errmsg(x->db));
        x->rc = ssi_nsys_sql_rc(x->db);
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    x->rows++;
}

void xp_bind_i64(struct xp *x, enum xp_stmt s, int idx, int64_t v)
{
    sqlite3_bind_int64(x->st[s], idx, v);
}

void xp_bind_null(struct xp *x, enum xp_stmt s, int idx)
{
    sqlite3_bind_null(x->st[s], idx);
}

void xp_bind_text(struct xp *x, enum xp_stmt s, int idx, const char *t, size_t len)
{
    sqlite3_bind_text(x->st[s], idx, t ? t : "", t ? (int)len : 0, SQLITE_TRANSIENT);
}

void xp_bind_double(struct xp *x, enum xp_stmt s, int idx, double v)
{
    sqlite3_bind_double(x->st[s], idx, v);
}

int64_t xp_gpid(const struct xp *x)
{
    uint64_t hw = x->merge ? (uint64_t)x->merge->slot << 48 : 0;
    return (int64_t)((uint64_t)ssi_nsys_gpid(x->pid) | hw);
}

int64_t xp_gtid(const struct xp *x, uint32_t tid)
{
    return xp_gpid(x) | (int64_t)((uint64_t)tid & SSI_NSYS_ID_MASK);
}

int64_t xp_id(const struct xp *x, uint64_t id)
{
    return (int64_t)(x->slot_hi ^ id);
}

/* A CUDA context per device of each process: device + 1, past the slots of the traces before
 * in a merged export (two hosts' device 0 are two GPUs). */
static int64_t xp_context(const struct xp *x, uint32_t device)
{
    return (int64_t)(x->slot_hi | ((uint64_t)device + 1));
}

/* Where local time t goes in a merged export: the merged Perfetto export's place for it
 * (ssi_merge_rel_ns), as an absolute time on the reference host's clock. */
static uint64_t place(const struct xp *x, uint64_t t)
{
    return (uint64_t)((int64_t)x->merge->t0 + ssi_merge_rel_ns(x->merge, t));
}

static int64_t ts_checked(struct xp *x, uint64_t t);

int64_t xp_ts(struct xp *x, uint64_t t)
{
    return ts_checked(x, x->merge && t ? place(x, t) : t);
}

/* An end keeps its duration, as the merged Perfetto export draws it: the records of one trace
 * keep their lengths and their order. */
int64_t xp_end(struct xp *x, uint64_t start, uint64_t end)
{
    if (!x->merge || !start || end < start) return xp_ts(x, end);
    return ts_checked(x, place(x, start) + (end - start));
}

static int64_t ts_checked(struct xp *x, uint64_t t)
{
    if (t > INT64_MAX && !x->rc) {
        ssi_nsys_err(x->err, x->errlen, "timestamp %" PRIu64 " does not fit nsys's signed 64 bits",
                     t);
        x->rc = SS_EINVAL;
    }
    if (t && t < x->t_min) x->t_min = t;
    if (t > x->t_max) x->t_max = t;
    return (int64_t)t;
}

/* ---- StringIds ---- */

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h | 1; /* 0 marks an empty slot */
}

static int strs_grow(struct xp *x)
{
    size_t cap = x->cap_strs ? x->cap_strs * 2 : 1024;
    struct xp_str *v = calloc(cap, sizeof *v);
    if (!v) return SS_ENOMEM;
    for (size_t i = 0; i < x->cap_strs; i++) {
        if (!x->strs[i].hash) continue;
        size_t j = x->strs[i].hash & (cap - 1);
        while (v[j].hash)
            j = (j + 1) & (cap - 1);
        v[j] = x->strs[i];
    }
    free(x->strs);
    x->strs = v, x->cap_strs = cap;
    return 0;
}

static int arena_add(struct xp *x, const char *s, size_t n, size_t *off)
{
    if (x->arena_len + n > x->arena_cap) {
        size_t cap = x->arena_cap ? x->arena_cap : 65536;
        while (cap < x->arena_len + n)
            cap *= 2;
        char *a = realloc(x->arena, cap);
        if (!a) return SS_ENOMEM;
        x->arena = a, x->arena_cap = cap;
    }
    if (n) memcpy(x->arena + x->arena_len, s, n);
    *off = x->arena_len;
    x->arena_len += n;
    return 0;
}

int64_t xp_string(struct xp *x, const char *s, size_t n)
{
    if (x->rc) return 0;
    if ((x->n_strs + 1) * 2 > x->cap_strs && (x->rc = strs_grow(x)) != 0) return 0;
    uint64_t h = fnv1a(s, n);
    size_t j = h & (x->cap_strs - 1);
    for (; x->strs[j].hash; j = (j + 1) & (x->cap_strs - 1)) {
        const struct xp_str *e = &x->strs[j];
        /* an empty string may be all the arena holds: it is never allocated then */
        if (e->hash == h && e->len == n && (n == 0 || memcmp(x->arena + e->off, s, n) == 0))
            return e->id;
    }
    size_t off;
    if ((x->rc = arena_add(x, s, n, &off)) != 0) return 0;
    x->strs[j] = (struct xp_str){h, ++x->next_str, off, (uint32_t)n};
    x->n_strs++;
    xp_bind_i64(x, XS_STRING, 1, x->next_str);
    xp_bind_text(x, XS_STRING, 2, s, n);
    xp_insert(x, XS_STRING);
    return x->next_str;
}

const char *xp_trace_str(const struct xp *x, uint32_t id, uint32_t *len)
{
    const char *s = id ? sst_reader_string(x->r, id, len) : NULL;
    if (!s) *len = 0;
    return s ? s : "";
}

/* ---- kernels ---- */

/* Fills k's three names for the kernel name raw (mangled as CUPTI reports it). */
static void kname_fill(struct xp *x, struct xp_kname *k, const char *raw, uint32_t len)
{
    char *dem = ss_demangle(raw, len);
    const char *d = dem ? dem : raw;
    size_t dlen = dem ? strlen(dem) : len;
    char shortn[512];
    size_t slen = ss_name_bare(d, dlen, shortn, sizeof shortn);
    k->mangled = xp_string(x, raw, len);
    k->demangled = xp_string(x, d, dlen);
    k->shortn = xp_string(x, shortn, slen);
    free(dem);
}

/* The slot of id in the open-addressing table (cap a power of two), or of where it goes. */
static struct xp_kname *kname_slot(struct xp_kname *v, size_t cap, uint32_t id)
{
    size_t i = (id * 2654435761u) & (cap - 1);
    while (v[i].id && v[i].id != id)
        i = (i + 1) & (cap - 1);
    return &v[i];
}

/* Doubles the table (at most half full): its size follows the distinct kernel names, never
 * the value of an id (a damaged record's id, any 32-bit value, once asked for 96 GiB). */
static int kname_grow(struct xp *x)
{
    size_t cap = x->cap_knames ? 2 * x->cap_knames : 256;
    struct xp_kname *v = calloc(cap, sizeof *v);
    if (!v) return SS_ENOMEM;
    for (size_t i = 0; i < x->cap_knames; i++)
        if (x->knames[i].id) *kname_slot(v, cap, x->knames[i].id) = x->knames[i];
    free(x->knames);
    x->knames = v, x->cap_knames = cap;
    return 0;
}

/* The names of kernel name id; every id the trace does not define shares "<unknown>". */
static const struct xp_kname *kname_ids(struct xp *x, uint32_t id)
{
    static const struct xp_kname none = {0};
    uint32_t len = 0;
    const char *raw = id ? sst_reader_string(x->r, id, &len) : NULL;
    if (!raw || !len) {
        if (!x->kname_unknown.mangled) kname_fill(x, &x->kname_unknown, "<unknown>", 9);
        return &x->kname_unknown;
    }
    if (2 * (x->n_knames + 1) > x->cap_knames && kname_grow(x) != 0)
        return x->rc = SS_ENOMEM, &none;
    struct xp_kname *k = kname_slot(x->knames, x->cap_knames, id);
    if (k->id) return k;
    k->id = id, x->n_knames++;
    kname_fill(x, k, raw, len);
    return k;
}

/* CUPTI occasionally reports an end before the start; nsys's reports would show a negative
 * duration, and stepscope's analysis counts it as zero: written as zero, and counted. */
static uint64_t end_of(struct xp *x, uint64_t start, uint64_t end)
{
    if (end >= start) return end;
    x->clamped++;
    return start;
}

/* start, end, deviceId, contextId, streamId, correlationId, globalPid: the first seven
 * columns of every GPU activity table. contextId: one context per device (device + 1). */
static void bind_gpu(struct xp *x, enum xp_stmt s, uint64_t start, uint64_t end, uint32_t device,
                     uint32_t stream, uint32_t corr)
{
    xp_bind_i64(x, s, 1, xp_ts(x, start));
    xp_bind_i64(x, s, 2, xp_end(x, start, end_of(x, start, end)));
    xp_bind_i64(x, s, 3, device);
    xp_bind_i64(x, s, 4, xp_context(x, device));
    xp_bind_i64(x, s, 5, stream);
    if (corr)
        xp_bind_i64(x, s, 6, xp_id(x, corr));
    else
        xp_bind_null(x, s, 6);
    xp_bind_i64(x, s, 7, xp_gpid(x));
}

static void on_kernel(struct xp *x, const struct sst_rec_header *h)
{
    struct sst_rec_kernel k;
    sst_rec_load(h, &k, sizeof k);
    const struct xp_kname *n = kname_ids(x, k.name);
    bind_gpu(x, XS_KERNEL, k.start_ns, k.end_ns, k.device, k.stream, k.correlation);
    xp_bind_i64(x, XS_KERNEL, 8, n->demangled);
    xp_bind_i64(x, XS_KERNEL, 9, n->shortn);
    xp_bind_i64(x, XS_KERNEL, 10, n->mangled);
    xp_bind_i64(x, XS_KERNEL, 11,
                k.flags & SST_KF_COOPERATIVE ? SSI_NSYS_LAUNCH_COOP_SINGLE
                                             : SSI_NSYS_LAUNCH_REGULAR);
    xp_bind_i64(x, XS_KERNEL, 12, k.registers);
    for (int i = 0; i < 3; i++) {
        xp_bind_i64(x, XS_KERNEL, 13 + i, k.grid[i]);
        xp_bind_i64(x, XS_KERNEL, 16 + i, k.block[i]);
    }
    xp_bind_i64(x, XS_KERNEL, 19, k.shared_static);
    xp_bind_i64(x, XS_KERNEL, 20, k.shared_dynamic);
    xp_insert(x, XS_KERNEL);
}

static void on_memcpy(struct xp *x, const struct sst_rec_header *h)
{
    struct sst_rec_memcpy m;
    sst_rec_load(h, &m, sizeof m);
    bind_gpu(x, XS_MEMCPY, m.start_ns, m.end_ns, m.device, m.stream, m.correlation);
    if (m.bytes > INT64_MAX) m.bytes = INT64_MAX;
    xp_bind_i64(x, XS_MEMCPY, 8, (int64_t)m.bytes);
    xp_bind_i64(x, XS_MEMCPY, 9, ssi_nsys_copy_from_sst(m.copy_kind));
    xp_bind_i64(x, XS_MEMCPY, 10, ssi_nsys_mem_from_sst(m.src_kind));
    xp_bind_i64(x, XS_MEMCPY, 11, ssi_nsys_mem_from_sst(m.dst_kind));
    xp_bind_i64(x, XS_MEMCPY, 12, m.src_device);
    xp_bind_i64(x, XS_MEMCPY, 13, xp_context(x, m.src_device));
    xp_bind_i64(x, XS_MEMCPY, 14, m.dst_device);
    xp_bind_i64(x, XS_MEMCPY, 15, xp_context(x, m.dst_device));
    xp_insert(x, XS_MEMCPY);
}

static void on_memset(struct xp *x, const struct sst_rec_header *h)
{
    struct sst_rec_memset m;
    sst_rec_load(h, &m, sizeof m);
    bind_gpu(x, XS_MEMSET, m.start_ns, m.end_ns, m.device, m.stream, m.correlation);
    xp_bind_i64(x, XS_MEMSET, 8, m.value);
    xp_bind_i64(x, XS_MEMSET, 9, m.bytes > INT64_MAX ? INT64_MAX : (int64_t)m.bytes);
    xp_bind_i64(x, XS_MEMSET, 10, ssi_nsys_mem_from_sst(m.mem_kind));
    xp_insert(x, XS_MEMSET);
}

static void on_sync(struct xp *x, const struct sst_rec_header *h)
{
    struct sst_rec_sync s;
    sst_rec_load(h, &s, sizeof s);
    bind_gpu(x, XS_SYNC, s.start_ns, s.end_ns, s.device, s.stream, s.correlation);
    xp_bind_i64(x, XS_SYNC, 8, s.kind);
    xp_bind_i64(x, XS_SYNC, 9, s.event);
    xp_insert(x, XS_SYNC);
}

/* ---- CUDA API calls ---- */

static int64_t api_name_id(struct xp *x, uint8_t domain, uint32_t cbid)
{
    size_t cap = sst_cbid_count(domain);
    if (cbid < cap && x->api_ids[domain] && x->api_ids[domain][cbid])
        return x->api_ids[domain][cbid];
    char buf[48];
    const char *name = ssi_nsys_api_name(domain, cbid, buf, sizeof buf);
    int64_t id = xp_string(x, name, strlen(name));
    if (cbid < cap) {
        if (!x->api_ids[domain] && !(x->api_ids[domain] = calloc(cap, sizeof(int64_t))))
            return x->rc = SS_ENOMEM, 0;
        x->api_ids[domain][cbid] = id;
    }
    return id;
}

static void on_api(struct xp *x, const struct sst_rec_header *h)
{
    struct sst_rec_api a;
    sst_rec_load(h, &a, sizeof a);
    if (a.domain != SST_API_RUNTIME && a.domain != SST_API_DRIVER) {
        x->skipped[SST_REC_API]++;
        return;
    }
    enum xp_stmt s = XS_RUNTIME;
    xp_bind_i64(x, s, 1, xp_ts(x, a.start_ns));
    xp_bind_i64(x, s, 2, xp_end(x, a.start_ns, end_of(x, a.start_ns, a.end_ns)));
    xp_bind_i64(x, s, 3,
                a.domain == SST_API_DRIVER ? SSI_NSYS_CLASS_CUDA_DRIVER
                                           : SSI_NSYS_CLASS_CUDA_RUNTIME);
    xp_bind_i64(x, s, 4, xp_gtid(x, a.tid));
    if (a.correlation)
        xp_bind_i64(x, s, 5, xp_id(x, a.correlation));
    else
        xp_bind_null(x, s, 5);
    xp_bind_i64(x, s, 6, api_name_id(x, a.domain, a.cbid));
    xp_bind_i64(x, s, 7, a.result);
    xp_insert(x, s);
}

/* ---- process, threads, devices, environment ---- */

static void meta(struct xp *x, const char *key, const char *value, size_t len)
{
    char name[128];
    /* in a merged export each trace's facts carry its slot: STEPSCOPE_TRACE<i>_<KEY> (trace
     * 3's PROCESS_PID) */
    if (x->merge)
        snprintf(name, sizeof name, SSI_NSYS_META_PREFIX "TRACE%u_%s", (unsigned)x->merge->slot,
                 key);
    else
        snprintf(name, sizeof name, SSI_NSYS_META_PREFIX "%s", key);
    xp_bind_text(x, XS_CAPTURE_META, 1, name, strlen(name));
    xp_bind_text(x, XS_CAPTURE_META, 2, value, len);
    xp_insert(x, XS_CAPTURE_META);
}

static void meta_u64(struct xp *x, const char *key, uint64_t v)
{
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%" PRIu64, v);
    meta(x, key, buf, (size_t)n);
}

static void meta_i64(struct xp *x, const char *key, int64_t v)
{
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%" PRId64, v);
    meta(x, key, buf, (size_t)n);
}

static void meta_str(struct xp *x, const char *key, uint32_t id)
{
    uint32_t len;
    const char *s = xp_trace_str(x, id, &len);
    if (id) meta(x, key, s, len);
}

/* PROCESSES.name: the executable's base name, as nsys shows a process. */
static void process_name(struct xp *x, const struct sst_rec_process *p, char *out, size_t cap)
{
    uint32_t len;
    const char *s = xp_trace_str(x, p->exe, &len);
    if (!len) {
        s = xp_trace_str(x, p->cmdline, &len);
        const char *sp = memchr(s, ' ', len);
        if (sp) len = (uint32_t)(sp - s);
    }
    const char *slash = len ? memrchr(s, '/', len) : NULL;
    if (slash) len -= (uint32_t)(slash + 1 - s), s = slash + 1;
    snprintf(out, cap, "%.*s", (int)(len < cap ? len : cap - 1), s);
}

static void on_process(struct xp *x, const struct sst_rec_header *h)
{
    struct sst_rec_process p;
    sst_rec_load(h, &p, sizeof p);
    x->pid = p.pid;
    char name[256];
    process_name(x, &p, name, sizeof name);
    char sql[512];
    sqlite3_snprintf(sizeof sql, sql,
                     "INSERT INTO PROCESSES (globalPid, pid, name) VALUES "
                     "(%lld, %u, %Q)",
                     (long long)xp_gpid(x), p.pid, name);
    if (!x->rc) x->rc = ssi_nsys_sql_exec(x->db, sql, x->err, x->errlen);
    meta_u64(x, "PROCESS_PID", p.pid);
    meta_u64(x, "PROCESS_PPID", p.ppid);
    meta_i64(x, "PROCESS_RANK", p.rank);
    meta_i64(x, "PROCESS_LOCAL_RANK", p.local_rank);
    meta_i64(x, "PROCESS_WORLD_SIZE", p.world_size);
    meta_u64(x, "PROCESS_START_NS", p.start_ns);
    meta_str(x, "PROCESS_HOSTNAME", p.hostname);
    meta_str(x, "PROCESS_CMDLINE", p.cmdline);
    meta_str(x, "PROCESS_EXE", p.exe);
}

static void on_thread(struct xp *x, const struct sst_rec_header *h)
{
    struct sst_rec_thread t;
    sst_rec_load(h, &t, sizeof t);
    uint32_t len;
    const char *s = xp_trace_str(x, t.name, &len);
    xp_bind_i64(x, XS_THREAD, 1, xp_string(x, s, len));
    xp_bind_i64(x, XS_THREAD, 2, xp_gtid(x, t.tid));
    xp_insert(x, XS_THREAD);
}

static void device_meta(struct xp *x, const struct sst_rec_device *d)
{
    char key[64];
    snprintf(key, sizeof key, "DEVICE_%u_UUID_CRC", (unsigned)d->device);
    meta_u64(x, key, d->uuid_hi_crc);
    snprintf(key, sizeof key, "DEVICE_%u_MEM_CLOCK_KHZ", (unsigned)d->device);
    meta_u64(x, key, d->mem_clock_khz);
    snprintf(key, sizeof key, "DEVICE_%u_MEM_BUS_WIDTH", (unsigned)d->device);
    meta_u64(x, key, d->mem_bus_width);
}

static void on_device(struct xp *x, const struct sst_rec_header *h)
{
    struct sst_rec_device d;
    sst_rec_load(h, &d, sizeof d);
    uint32_t len;
    const char *name = xp_trace_str(x, d.name, &len);
    char nm[256], bus[32], sql[1024];
    snprintf(nm, sizeof nm, "%.*s", (int)(len < sizeof nm ? len : sizeof nm - 1), name);
    snprintf(bus, sizeof bus, "0000:%02x:00.0", d.pci_bus & 0xff);
    /* bytes per second: DDR, two transfers per clock */
    uint64_t bw = (uint64_t)d.mem_clock_khz * 1000u * 2u * (d.mem_bus_width / 8u);
    /* vmId: the serialized hardware id of the process (the trace's slot in a merged export) */
    sqlite3_snprintf(
        sizeof sql, sql,
        "INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, isDiscrete, "
        "totalMemory, memoryBandwidth, smCount, cuDevice, computeMajor, computeMinor, "
        "smMajor, smMinor) VALUES (%lld, %u, %Q, %Q, 1, %lld, %lld, %u, %u, %u, %u, %u, "
        "%u); INSERT INTO TARGET_INFO_CUDA_DEVICE (gpuId, cudaId, pid) VALUES (%u, "
        "%u, %u)",
        (long long)(xp_gpid(x) & ~(int64_t)0xFFFFFFFFFFFF), d.device, nm, bus,
        (long long)(d.global_mem > INT64_MAX ? INT64_MAX : d.global_mem), (long long)bw, d.sm_count,
        d.device, d.cc_major, d.cc_minor, d.cc_major, d.cc_minor, d.device, d.device, x->pid);
    if (!x->rc) x->rc = ssi_nsys_sql_exec(x->db, sql, x->err, x->errlen);
    device_meta(x, &d);
}

static void on_env(struct xp *x, const struct sst_rec_header *h)
{
    struct sst_rec_env e;
    sst_rec_load(h, &e, sizeof e);
    uint32_t kl, vl;
    const char *k = xp_trace_str(x, e.key, &kl), *v = xp_trace_str(x, e.value, &vl);
    if (!kl) return;
    xp_bind_text(x, XS_ENV, 1, k, kl);
    xp_bind_text(x, XS_ENV, 2, v, vl);
    xp_insert(x, XS_ENV);
}

/* CAPTURE records have no nsys table: each becomes a META_DATA_CAPTURE row, so that an import
 * of the file analyses the same steps (a --capture window's, src/analysis/ssa_capture.c). */
static void on_capture(struct xp *x, const struct sst_rec_header *h)
{
    struct sst_rec_capture c;
    sst_rec_load(h, &c, sizeof c);
    if (x->captures >= SSI_NSYS_MAX_CAPTURES) {
        x->skipped[SST_REC_CAPTURE]++;
        return;
    }
    char key[32], val[64];
    snprintf(key, sizeof key, SSI_NSYS_CAPTURE_KEY "%" PRIu32, x->captures++);
    int n = snprintf(val, sizeof val, "%" PRIu64 " %u %u %u", c.ts_ns, (unsigned)c.on,
                     (unsigned)c.reason, (unsigned)c.what);
    meta(x, key, val, (size_t)n);
}

/* Notices and drops become nsys diagnostics (severity 1 info, 2 warning, 3 error). */
static void diag(struct xp *x, uint64_t ts, int severity, const char *text)
{
    xp_bind_i64(x, XS_DIAG, 1, xp_ts(x, ts));
    xp_bind_i64(x, XS_DIAG, 2, severity);
    xp_bind_text(x, XS_DIAG, 3, text, strlen(text));
    xp_bind_i64(x, XS_DIAG, 4, xp_gpid(x));
    xp_insert(x, XS_DIAG);
}

static void on_notice(struct xp *x, const struct sst_rec_header *h)
{
    struct sst_rec_notice n;
    sst_rec_load(h, &n, sizeof n);
    uint32_t len;
    const char *s = xp_trace_str(x, n.message, &len);
    char text[600];
    snprintf(text, sizeof text, "stepscope: %.*s", (int)(len < 512 ? len : 512), s);
    diag(x, n.ts_ns, n.level >= 1 && n.level <= 3 ? n.level : 1, text);
}

static void on_dropped(struct xp *x, const struct sst_rec_header *h)
{
    struct sst_rec_dropped d;
    sst_rec_load(h, &d, sizeof d);
    const char *src = sst_drop_source_name(d.source);
    char text[160];
    snprintf(text, sizeof text, "stepscope: %" PRIu64 " records dropped (%s)", d.count,
             src ? src : "unknown");
    diag(x, d.ts_ns, 2, text);
    x->dropped += d.count;
}

/* ---- the loop ---- */

static void export_record(struct xp *x, const struct sst_rec_header *h)
{
    switch (h->type) {
    case SST_REC_KERNEL:
        on_kernel(x, h);
        break;
    case SST_REC_MEMCPY:
        on_memcpy(x, h);
        break;
    case SST_REC_MEMSET:
        on_memset(x, h);
        break;
    case SST_REC_SYNC:
        on_sync(x, h);
        break;
    case SST_REC_API:
        on_api(x, h);
        break;
    case SST_REC_NVTX_PUSH:
    case SST_REC_NVTX_POP:
    case SST_REC_NVTX_START:
    case SST_REC_NVTX_END:
    case SST_REC_NVTX_MARK:
        xp_nvtx(x, h);
        break;
    case SST_REC_NVTX_DOMAIN:
        xp_nvtx_domain(x, h);
        break;
    case SST_REC_STEP:
        xp_step(x, h);
        break;
    case SST_REC_PROCESS:
        on_process(x, h);
        break;
    case SST_REC_THREAD:
        on_thread(x, h);
        break;
    case SST_REC_DEVICE:
        on_device(x, h);
        break;
    case SST_REC_ENV:
        on_env(x, h);
        break;
    case SST_REC_NOTICE:
        on_notice(x, h);
        break;
    case SST_REC_CAPTURE:
        on_capture(x, h);
        break;
    case SST_REC_DROPPED:
        on_dropped(x, h);
        break;
    case SST_REC_STRING:
        break;
    default:
        if (h->type < SST_REC_TYPE_LIMIT) x->skipped[h->type]++;
        break;
    }
}

/* ---- the database: schema, enums, statements, closing rows ---- */

static int create_schema(struct xp *x)
{
    int rc = ssi_nsys_sql_exec(
        x->db,
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE; "
        "PRAGMA cache_size = -16384; "
        "BEGIN",
        x->err, x->errlen);
    for (size_t i = 0; !rc && i < ssi_nsys_n_schema; i++)
        rc = ssi_nsys_sql_exec(x->db, ssi_nsys_schema[i], x->err, x->errlen);
    for (size_t i = 0; !rc && i < ssi_nsys_n_enum_rows; i++) {
        const struct ssi_nsys_enum_row *e = &ssi_nsys_enum_rows[i];
        char sql[512];
        sqlite3_snprintf(sizeof sql, sql, "INSERT INTO %s (id, name, label) VALUES (%d, %Q, %Q)",
                         e->table, e->id, e->name, e->label);
        rc = ssi_nsys_sql_exec(x->db, sql, x->err, x->errlen);
    }
    for (int s = 0; !rc && s < XS_COUNT; s++)
        if (sqlite3_prepare_v3(x->db, k_insert[s], -1, SQLITE_PREPARE_PERSISTENT, &x->st[s],
                               NULL) != SQLITE_OK) {
            ssi_nsys_err(x->err, x->errlen, "SQLite: %s", sqlite3_errmsg(x->db));
            rc = SS_EIO;
        }
    return rc;
}

static void utc_text(uint64_t unix_ns, char *out, size_t cap)
{
    time_t secs = (time_t)(unix_ns / 1000000000u);
    struct tm tm;
    if (!gmtime_r(&secs, &tm) || !strftime(out, cap, "%Y-%m-%dT%H:%M:%S", &tm)) {
        snprintf(out, cap, "unknown");
        return;
    }
    size_t n = strlen(out);
    snprintf(out + n, cap - n, ".%03uZ", (unsigned)(unix_ns / 1000000u % 1000u));
}

/* The session's rows: its start (start_unix_ns), its span, what wrote it from what. */
static void export_session(struct xp *x, uint64_t start_unix_ns, const char *in_path)
{
    char sql[2048], when[40];
    utc_text(start_unix_ns, when, sizeof when);
    uint64_t t0 = x->t_min == UINT64_MAX ? 0 : x->t_min, t1 = x->t_max > t0 ? x->t_max : t0;
    sqlite3_snprintf(
        sizeof sql, sql,
        "INSERT INTO TARGET_INFO_SESSION_START_TIME (utcEpochNs, utcTime, localTime) VALUES "
        "(%lld, %Q, %Q); INSERT INTO ANALYSIS_DETAILS (globalVid, duration, startTime, stopTime) "
        "VALUES (0, %lld, %lld, %lld); INSERT INTO META_DATA_EXPORT (name, value) VALUES "
        "('EXPORT_PRODUCT_NAME', 'stepscope'), ('EXPORT_PRODUCT_VERSION', %Q), "
        "('EXPORT_SCHEMA_OF', 'Nsight Systems 2025.3.1'), ('EXPORT_PARAM_INPUT_FILE', %Q)",
        (long long)(start_unix_ns > INT64_MAX ? 0 : start_unix_ns), when, when,
        (long long)(t1 - t0), (long long)t0, (long long)t1, STEPSCOPE_VERSION, in_path);
    if (!x->rc) x->rc = ssi_nsys_sql_exec(x->db, sql, x->err, x->errlen);
}

/* The trace's own facts in META_DATA_CAPTURE (its header, window, losses). */
static void export_trace_meta(struct xp *x)
{
    const struct sst_file_header *fh = sst_reader_header(x->r);
    meta_u64(x, "CLOCK", fh->clock);
    meta_u64(x, "FEATURES", fh->features);
    meta_u64(x, "PID", fh->pid);
    meta_u64(x, "START_MONO_NS", fh->start_mono_ns);
    meta_u64(x, "START_UNIX_NS", fh->start_unix_ns);
    if (x->win_desc) meta(x, "WINDOW", x->win_desc, strlen(x->win_desc));
    meta_u64(x, "DROPPED", x->dropped);
    meta_u64(x, "CLAMPED_DURATIONS", x->clamped);
}

/* What the schema has no table for, said once in META_DATA_CAPTURE ("memory=1019 ..."). */
static void export_skipped(struct xp *x)
{
    char buf[512];
    size_t n = 0;
    buf[0] = '\0';
    for (int t = 0; t < SST_REC_TYPE_LIMIT && n < sizeof buf - 40; t++) {
        if (!x->skipped[t]) continue;
        const char *name = sst_rec_type_name((uint16_t)t);
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s=%" PRIu64, n ? " " : "",
                              name ? name : "?", x->skipped[t]);
    }
    meta(x, "NOT_EXPORTED", buf, n);
}

/* The trace's state and its damage (the one model, issue #41): STEPSCOPE_TRACE_STATE, and
 * for a damaged trace STEPSCOPE_DAMAGE_<KIND> = count per kind and STEPSCOPE_DAMAGE_SAID, which
 * the import turns back into DAMAGE records: the damage survives the round trip. */
static void export_state(struct xp *x)
{
    const struct sst_read_status *st = sst_reader_status(x->r);
    struct sst_damage d;
    char key[64], line[1024];
    sst_reader_damage(x->r, &d);
    int partial = d.any || !st->closed;
    meta(x, "TRACE_STATE", partial ? "incomplete" : "complete", partial ? 10 : 8);
    for (uint8_t k = 1; k < SST_DAMAGE_LIMIT && d.any; k++) {
        if (!d.count[k]) continue;
        snprintf(key, sizeof key, "DAMAGE_%s", sst_damage_kind_name(k));
        meta_u64(x, key, d.count[k]);
    }
    if (d.any) sst_damage_describe(&d, line, sizeof line), meta(x, "DAMAGE_SAID", line, strlen(line));
}

static void xp_free(struct xp *x)
{
    for (int s = 0; s < XS_COUNT; s++)
        sqlite3_finalize(x->st[s]);
    xp_nvtx_free(x);
    free(x->strs);
    free(x->arena);
    free(x->knames);
    for (int d = 0; d < 3; d++)
        free(x->api_ids[d]);
}

static int read_all(struct xp *x)
{
    const struct sst_rec_header *h;
    int rc;
    while (!x->rc && (rc = ssi_window_next(x->r, x->win, &h)) == 1)
        export_record(x, h);
    if (!x->rc && rc < 0) {
        ssi_nsys_err(x->err, x->errlen, "cannot read the trace: %s", ss_strerror(rc));
        x->rc = rc;
    }
    return x->rc;
}

static int export_db(struct xp *x, const char *in_path)
{
    int rc = create_schema(x);
    if (rc) return rc;
    x->pid = sst_reader_header(x->r)->pid;
    if (read_all(x)) return x->rc;
    xp_nvtx_finish(x);
    export_session(x, sst_reader_header(x->r)->start_unix_ns, in_path);
    export_trace_meta(x);
    export_skipped(x);
    export_state(x);
    if (!x->rc) x->rc = ssi_nsys_sql_exec(x->db, "COMMIT", x->err, x->errlen);
    return x->rc;
}

static int open_trace(const char *in_path, struct sst_reader **r, char *err, size_t errlen)
{
    int rc = sst_reader_open(in_path, NULL, r);
    if (rc) ssi_nsys_err(err, errlen, "cannot read the trace: %s", ss_strerror(rc));
    return rc;
}

/* The database file, opened by SQLite by name (an empty file is an empty database). */
static int open_db(struct xp *x, const char *out_path, char **tmp, char *err, size_t errlen)
{
    size_t cap = strlen(out_path) + 16;
    *tmp = malloc(cap);
    int fd = *tmp ? ssi_nsys_tmp_create(out_path, *tmp, cap, err, errlen) : SS_ENOMEM;
    if (fd < 0) return free(*tmp), *tmp = NULL, fd;
    close(fd);
    if (sqlite3_open_v2(*tmp, &x->db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) return 0;
    ssi_nsys_err(err, errlen, "%s: SQLite: %s", *tmp, x->db ? sqlite3_errmsg(x->db) : "no memory");
    return SS_EIO;
}

/* What fills the database: one trace, or the traces of a merged export. */
struct xp_job {
    const struct ssi_export_in *ins;
    size_t n;
    const char *source;
};

/* The database filled in a temporary file next to out_path, then put in its place; removed
 * on failure. */
static int write_db(const struct xp_job *j, int (*fill)(struct xp *, const struct xp_job *),
                    const char *out_path, char *err, size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    struct xp x = {.err = err, .errlen = errlen, .t_min = UINT64_MAX};
    char *tmp = NULL;
    int rc = open_db(&x, out_path, &tmp, err, errlen);
    if (rc == 0) rc = fill(&x, j);
    xp_free(&x);
    if (x.db && sqlite3_close(x.db) != SQLITE_OK && !rc) rc = SS_EIO;
    if (tmp && !rc)
        rc = ssi_nsys_tmp_commit(tmp, out_path, err, errlen);
    else if (tmp)
        unlink(tmp);
    free(tmp);
    return rc;
}

static int fill_one(struct xp *x, const struct xp_job *j)
{
    const struct ssi_export_in *in = j->ins;
    x->r = in->r, x->win = in->win, x->win_desc = in->win_desc;
    int rc = ssi_window_rewind(in->r, in->win);
    return rc ? rc : export_db(x, in->source);
}

/* A damaged trace is exported as far as it reads, its damage in META_DATA_CAPTURE (the caller
 * says it: cmd_export). */
int ssi_nsys_export_reader(const struct ssi_export_in *in, const char *out_path, char *err,
                           size_t errlen)
{
    struct xp_job j = {in, 1, in->source};
    return write_db(&j, fill_one, out_path, err, errlen);
}

/* ---- merged: the traces of a folder one after the other in one database ---- */

/* What belongs to one trace (its string ids, its NVTX state, its counts) forgotten; the
 * StringIds table, API names and domain numbering go on. */
static void trace_reset(struct xp *x)
{
    xp_nvtx_free(x);
    free(x->knames);
    x->domain_base += (int64_t)x->n_domains;
    x->knames = NULL, x->n_knames = x->cap_knames = 0;
    x->lanes = NULL, x->n_lanes = x->cap_lanes = 0;
    x->opens = NULL, x->cap_opens = x->n_opens = 0;
    x->domains = NULL, x->n_domains = x->cap_domains = 0;
    x->steps = NULL, x->n_steps = x->cap_steps = 0;
    memset(x->skipped, 0, sizeof x->skipped);
    x->clamped = x->unmatched_pops = x->dropped = 0;
    x->captures = 0;
}

static int merged_trace(struct xp *x, const struct ssi_export_in *in)
{
    x->r = in->r, x->win = NULL, x->win_desc = NULL, x->merge = in->merge;
    x->slot_hi = (uint64_t)in->merge->slot << 32;
    x->pid = sst_reader_header(x->r)->pid;
    int rc = ssi_window_rewind(in->r, NULL);
    if (rc) return ssi_nsys_err(x->err, x->errlen, "%s: %s", in->source, ss_strerror(rc)), rc;
    if (read_all(x)) return x->rc;
    xp_nvtx_finish(x);
    export_trace_meta(x);
    export_skipped(x);
    export_state(x);
    trace_reset(x);
    return x->rc;
}

/* The session starts with the earliest trace (the wall clock of the first to start). */
static int fill_merged(struct xp *x, const struct xp_job *j)
{
    uint64_t start = UINT64_MAX;
    int rc = create_schema(x);
    for (size_t i = 0; !rc && i < j->n; i++) {
        uint64_t s = sst_reader_header(j->ins[i].r)->start_unix_ns;
        if (s && s < start) start = s;
        rc = merged_trace(x, &j->ins[i]);
    }
    if (rc) return rc;
    x->merge = NULL;
    export_session(x, start == UINT64_MAX ? 0 : start, j->source);
    if (!x->rc) x->rc = ssi_nsys_sql_exec(x->db, "COMMIT", x->err, x->errlen);
    return x->rc;
}

int ssi_nsys_write_merged(const struct ssi_export_in *ins, size_t n, const char *source,
                          const char *out_path, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++)
        if (!ins[i].merge)
            return ssi_nsys_err(err, errlen, "a merged export needs every trace's place"),
                   SS_EINVAL;
    struct xp_job j = {ins, n, source};
    return write_db(&j, fill_merged, out_path, err, errlen);
}

int ssi_nsys_export(const char *in_path, const char *source, const char *out_path, char *err,
                    size_t errlen)
{
    struct sst_reader *r;
    int rc = open_trace(in_path, &r, err, errlen);
    if (rc) return rc;
    struct ssi_export_in in = {r, NULL, source ? source : in_path, 0, NULL, NULL, NULL};
    rc = ssi_nsys_export_reader(&in, out_path, err, errlen);
    sst_reader_close(r);
    return rc;
}

const struct ssi_exporter ssi_export_nsys_sqlite = {
    "nsys-sqlite", ".sqlite",
    "an SQLite database in the schema of `nsys export --type sqlite`\n"
    "(Nsight Systems 2025.3.1): kernels, copies, memsets, syncs, CUDA API\n"
    "calls, NVTX ranges, threads, GPUs; `nsys stats` and `nsys analyze` read it.",
    0, NULL, ssi_nsys_export_reader, 0, 56};
