/*
 * ssi_nsys_import_rows.c — one row of an nsys table -> trace records, every value checked.
 *
 * Column order of each cursor is fixed by the tables in ssi_nsys_import.c (k_cols_*); the
 * indices below name them (column 0 is always the rowid, column 1 the cursor's time).
 * Strings are interned before a record is reserved: interning may write a STRING record,
 * which would move the writer's room for the record.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interop/ssi_nsys.h"
#include "interop/ssi_nsys_im.h"
#include "util/ss_error.h"

#define U16 0xFFFFll
#define U32 0xFFFFFFFFll
#define I64MAX INT64_MAX

int im_fail(struct im *m, int rc, const char *fmt, ...)
{
    if (m->rc) return m->rc;
    m->rc = rc;
    if (m->err && m->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(m->err, m->errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* ---- values ---- */

static const char *type_name(int t)
{
    return t == SQLITE_TEXT    ? "text"
           : t == SQLITE_BLOB  ? "a blob"
           : t == SQLITE_FLOAT ? "a real"
                               : "NULL";
}

int im_int(struct im *m, const struct im_cursor *c, int i, int nullable, int64_t dflt, int64_t lo,
           int64_t hi, int64_t *out)
{
    int t = sqlite3_column_type(c->st, i);
    if (t == SQLITE_NULL && nullable) return *out = dflt, 0;
    if (t != SQLITE_INTEGER)
        return im_fail(m, SS_EBADREC, "%s rowid %" PRId64 ": %s is %s, not an integer", c->table,
                       c->rowid, c->cols[i].name, type_name(t));
    int64_t v = sqlite3_column_int64(c->st, i);
    if (v < lo || v > hi)
        return im_fail(m, SS_EBADREC,
                       "%s rowid %" PRId64 ": %s = %" PRId64 " is out of range (%" PRId64
                       "..%" PRId64 ")",
                       c->table, c->rowid, c->cols[i].name, v, lo, hi);
    *out = v;
    return 0;
}

int im_text(struct im *m, const struct im_cursor *c, int i, const char **out, size_t *len)
{
    int t = sqlite3_column_type(c->st, i);
    *out = NULL, *len = 0;
    if (t == SQLITE_NULL) return 0;
    if (t != SQLITE_TEXT)
        return im_fail(m, SS_EBADREC, "%s rowid %" PRId64 ": %s is %s, not text", c->table,
                       c->rowid, c->cols[i].name, type_name(t));
    *out = (const char *)sqlite3_column_text(c->st, i);
    *len = (size_t)sqlite3_column_bytes(c->st, i);
    return *out ? 0 : im_fail(m, SS_ENOMEM, "out of memory");
}

/* start (column 1) and end (column 2): ns, end not before start. */
static int span(struct im *m, const struct im_cursor *c, int64_t *s, int64_t *e)
{
    if (im_int(m, c, 1, 0, 0, 0, I64MAX, s) || im_int(m, c, 2, 0, 0, 0, I64MAX, e)) return m->rc;
    if (*e < *s)
        return im_fail(m, SS_EBADREC,
                       "%s rowid %" PRId64 ": end (%" PRId64 ") is before start (%" PRId64
                       "): negative duration",
                       c->table, c->rowid, *e, *s);
    if ((uint64_t)*s < m->t_min) m->t_min = (uint64_t)*s;
    if ((uint64_t)*e > m->t_max) m->t_max = (uint64_t)*e;
    return 0;
}

/* ---- strings ---- */

uint32_t im_intern(struct im *m, const char *s, size_t len)
{
    uint32_t id = sst_writer_intern(m->w, s, len);
    if (!id && len)
        im_fail(m, sst_writer_error(m->w) ? sst_writer_error(m->w) : SS_ENOMEM,
                "cannot write the trace: %s", ss_strerror(sst_writer_error(m->w)));
    return id;
}

uint32_t im_string(struct im *m, const struct im_cursor *c, const char *col, int64_t id)
{
    uint64_t v;
    if (im_map_get(&m->strings, (uint64_t)id, &v)) return (uint32_t)v;
    sqlite3_reset(m->string_stmt);
    sqlite3_bind_int64(m->string_stmt, 1, id);
    int rc = sqlite3_step(m->string_stmt);
    if (rc != SQLITE_ROW) {
        if (rc == SQLITE_DONE)
            im_fail(m, SS_EBADREC, "%s rowid %" PRId64 ": %s %" PRId64 " is not in StringIds",
                    c->table, c->rowid, col, id);
        else
            im_fail(m, SS_ECORRUPT, "StringIds: %s", sqlite3_errmsg(m->db));
        return 0;
    }
    if (sqlite3_column_type(m->string_stmt, 0) != SQLITE_TEXT) {
        im_fail(m, SS_EBADREC, "StringIds id %" PRId64 ": value is %s, not text", id,
                type_name(sqlite3_column_type(m->string_stmt, 0)));
        return 0;
    }
    const char *s = (const char *)sqlite3_column_text(m->string_stmt, 0);
    uint32_t sid = im_intern(m, s ? s : "", (size_t)sqlite3_column_bytes(m->string_stmt, 0));
    if (sid && im_map_put(&m->strings, (uint64_t)id, sid)) im_fail(m, SS_ENOMEM, "out of memory");
    return sid;
}

/* A text column, or else a StringIds id column: the trace string id, 0 when both are NULL. */
static uint32_t text_or_id(struct im *m, const struct im_cursor *c, int text_col, int id_col)
{
    const char *s;
    size_t n;
    int64_t id;
    if (im_text(m, c, text_col, &s, &n)) return 0;
    if (s) return im_intern(m, s, n);
    if (im_int(m, c, id_col, 1, -1, INT64_MIN, I64MAX, &id) || id == -1) return 0;
    return im_string(m, c, c->cols[id_col].name, id);
}

/* ---- GPU work ---- */

enum {
    K_DEV = 3,
    K_STREAM,
    K_CORR,
    K_GPID,
    K_MANGLED,
    K_DEMANGLED,
    K_SHORT,
    K_GRID,
    K_BLOCK = 13,
    K_REGS = 16,
    K_SSTATIC,
    K_SDYN,
    K_LAUNCH
};

static uint32_t kernel_name(struct im *m, const struct im_cursor *c)
{
    for (int i = K_MANGLED; i <= K_SHORT; i++) {
        int64_t id;
        if (im_int(m, c, i, 1, -1, INT64_MIN, I64MAX, &id)) return 0;
        if (id != -1 || sqlite3_column_type(c->st, i) != SQLITE_NULL)
            return im_string(m, c, c->cols[i].name, id);
    }
    im_fail(m, SS_EBADREC,
            "%s rowid %" PRId64 ": the kernel has no name (demangledName, "
            "shortName and mangledName are NULL)",
            c->table, c->rowid);
    return 0;
}

static int emit_kernel(struct im *m, const struct im_cursor *c)
{
    int64_t s, e, dev, stream, corr, v[10], launch;
    if (span(m, c, &s, &e) || im_int(m, c, K_DEV, 0, 0, 0, U16, &dev) ||
        im_int(m, c, K_STREAM, 0, 0, 0, U32, &stream) ||
        im_int(m, c, K_CORR, 1, 0, 0, U32, &corr) ||
        im_int(m, c, K_LAUNCH, 1, 0, INT64_MIN, I64MAX, &launch))
        return m->rc;
    for (int i = 0; i < 9; i++) /* grid xyz, block xyz, registers, shared static/dynamic */
        if (im_int(m, c, K_GRID + i, 1, 0, 0, i >= 3 && i < 7 ? U16 : U32, &v[i])) return m->rc;
    uint32_t name = kernel_name(m, c);
    if (m->rc) return m->rc;
    struct sst_rec_kernel *k = sst_writer_reserve(m->w, SST_REC_KERNEL, sizeof *k);
    if (!k) return im_fail(m, SS_EIO, "cannot write the trace");
    k->name = name, k->start_ns = (uint64_t)s, k->end_ns = (uint64_t)e;
    k->correlation = (uint32_t)corr, k->stream = (uint32_t)stream, k->device = (uint16_t)dev;
    for (int i = 0; i < 3; i++)
        k->grid[i] = (uint32_t)v[i], k->block[i] = (uint16_t)v[3 + i];
    k->registers = (uint16_t)v[6];
    k->shared_static = (uint32_t)v[7], k->shared_dynamic = (uint32_t)v[8];
    if (launch == SSI_NSYS_LAUNCH_COOP_SINGLE) k->flags |= SST_KF_COOPERATIVE;
    return 0;
}

/* Async or blocking, from the API call that issued the copy (nsys has no flag for it); a copy
 * without its call is taken as async, so no blocking copy is claimed without evidence. */
static uint8_t copy_flags(const struct im *m, int64_t corr)
{
    uint64_t async;
    if (corr && im_map_get(&m->async, (uint64_t)corr, &async) && !async) return 0;
    return SST_CF_ASYNC;
}

enum { C_DEV = 3, C_STREAM, C_CORR, C_GPID, C_BYTES, C_KIND, C_SRC, C_DST, C_SRCDEV, C_DSTDEV };

static int emit_memcpy(struct im *m, const struct im_cursor *c)
{
    int64_t s, e, dev, stream, corr, bytes, kind, src, dst, sdev, ddev;
    if (span(m, c, &s, &e) || im_int(m, c, C_DEV, 0, 0, 0, U16, &dev) ||
        im_int(m, c, C_STREAM, 0, 0, 0, U32, &stream) ||
        im_int(m, c, C_CORR, 1, 0, 0, U32, &corr) ||
        im_int(m, c, C_BYTES, 0, 0, 0, I64MAX, &bytes) ||
        im_int(m, c, C_KIND, 0, 0, INT64_MIN, I64MAX, &kind) ||
        im_int(m, c, C_SRC, 1, SSI_NSYS_MEM_UNKNOWN, INT64_MIN, I64MAX, &src) ||
        im_int(m, c, C_DST, 1, SSI_NSYS_MEM_UNKNOWN, INT64_MIN, I64MAX, &dst) ||
        im_int(m, c, C_SRCDEV, 1, dev, 0, U16, &sdev) ||
        im_int(m, c, C_DSTDEV, 1, dev, 0, U16, &ddev))
        return m->rc;
    struct sst_rec_memcpy *r = sst_writer_reserve(m->w, SST_REC_MEMCPY, sizeof *r);
    if (!r) return im_fail(m, SS_EIO, "cannot write the trace");
    r->copy_kind = ssi_nsys_copy_to_sst(kind);
    r->src_kind = ssi_nsys_mem_to_sst(src), r->dst_kind = ssi_nsys_mem_to_sst(dst);
    r->flags = copy_flags(m, corr);
    r->start_ns = (uint64_t)s, r->end_ns = (uint64_t)e, r->bytes = (uint64_t)bytes;
    r->correlation = (uint32_t)corr, r->stream = (uint32_t)stream;
    r->device = (uint16_t)dev, r->src_device = (uint16_t)sdev, r->dst_device = (uint16_t)ddev;
    return 0;
}

enum { S_DEV = 3, S_STREAM, S_CORR, S_GPID, S_VALUE, S_BYTES, S_KIND };

static int emit_memset(struct im *m, const struct im_cursor *c)
{
    int64_t s, e, dev, stream, corr, value, bytes, kind;
    if (span(m, c, &s, &e) || im_int(m, c, S_DEV, 0, 0, 0, U16, &dev) ||
        im_int(m, c, S_STREAM, 0, 0, 0, U32, &stream) ||
        im_int(m, c, S_CORR, 1, 0, 0, U32, &corr) ||
        im_int(m, c, S_VALUE, 1, 0, INT32_MIN, U32, &value) ||
        im_int(m, c, S_BYTES, 0, 0, 0, I64MAX, &bytes) ||
        im_int(m, c, S_KIND, 1, SSI_NSYS_MEM_UNKNOWN, INT64_MIN, I64MAX, &kind))
        return m->rc;
    struct sst_rec_memset *r = sst_writer_reserve(m->w, SST_REC_MEMSET, sizeof *r);
    if (!r) return im_fail(m, SS_EIO, "cannot write the trace");
    r->mem_kind = ssi_nsys_mem_to_sst(kind);
    r->flags = copy_flags(m, corr);
    r->device = (uint16_t)dev;
    r->start_ns = (uint64_t)s, r->end_ns = (uint64_t)e, r->bytes = (uint64_t)bytes;
    r->correlation = (uint32_t)corr, r->stream = (uint32_t)stream, r->value = (uint32_t)value;
    return 0;
}

enum { Y_DEV = 3, Y_STREAM, Y_CORR, Y_GPID, Y_TYPE, Y_EVENT };

static int emit_sync(struct im *m, const struct im_cursor *c)
{
    int64_t s, e, dev, stream, corr, type, event;
    /* CUPTI's "no stream / no event" is 0xffffffff; some writers store it as -1 */
    if (span(m, c, &s, &e) || im_int(m, c, Y_DEV, 1, 0, 0, U16, &dev) ||
        im_int(m, c, Y_STREAM, 1, U32, -1, U32, &stream) ||
        im_int(m, c, Y_CORR, 1, 0, 0, U32, &corr) ||
        im_int(m, c, Y_TYPE, 0, 0, INT64_MIN, I64MAX, &type) ||
        im_int(m, c, Y_EVENT, 1, 0, -1, U32, &event))
        return m->rc;
    struct sst_rec_sync *r = sst_writer_reserve(m->w, SST_REC_SYNC, sizeof *r);
    if (!r) return im_fail(m, SS_EIO, "cannot write the trace");
    r->kind = type >= SST_SYNC_EVENT && type <= SST_SYNC_CONTEXT ? (uint8_t)type : SST_SYNC_UNKNOWN;
    r->device = (uint16_t)dev;
    r->start_ns = (uint64_t)s, r->end_ns = (uint64_t)e;
    r->correlation = (uint32_t)corr, r->stream = (uint32_t)stream, r->event = (uint32_t)event;
    return 0;
}

/* ---- CUDA API calls ---- */

enum { R_CLASS = 3, R_GTID, R_CORR, R_NAME, R_RESULT };

/* domain << 32 | cbid of a nameId, cached; UINT64_MAX when the name is no CUDA API nsys or
 * stepscope knows. */
static uint64_t api_of(struct im *m, const struct im_cursor *c, int64_t name_id, uint8_t prefer)
{
    uint64_t v;
    if (im_map_get(&m->api_names, (uint64_t)name_id, &v)) return v;
    sqlite3_reset(m->string_stmt);
    sqlite3_bind_int64(m->string_stmt, 1, name_id);
    if (sqlite3_step(m->string_stmt) != SQLITE_ROW ||
        sqlite3_column_type(m->string_stmt, 0) != SQLITE_TEXT) {
        im_fail(m, SS_EBADREC,
                "%s rowid %" PRId64 ": nameId %" PRId64 " is not a string in "
                "StringIds",
                c->table, c->rowid, name_id);
        return UINT64_MAX;
    }
    uint8_t dom;
    uint32_t cbid;
    const char *name = (const char *)sqlite3_column_text(m->string_stmt, 0);
    v = ssi_nsys_api_from_name(name, prefer, &dom, &cbid) ? (uint64_t)dom << 32 | cbid : UINT64_MAX;
    if (im_map_put(&m->api_names, (uint64_t)name_id, v)) im_fail(m, SS_ENOMEM, "out of memory");
    return v;
}

static int emit_runtime(struct im *m, const struct im_cursor *c)
{
    int64_t s, e, cls, gtid, corr, name, result;
    if (span(m, c, &s, &e) || im_int(m, c, R_CLASS, 1, 0, INT64_MIN, I64MAX, &cls) ||
        im_int(m, c, R_GTID, 0, 0, INT64_MIN, I64MAX, &gtid) ||
        im_int(m, c, R_CORR, 1, 0, 0, U32, &corr) ||
        im_int(m, c, R_NAME, 0, 0, INT64_MIN, I64MAX, &name) ||
        im_int(m, c, R_RESULT, 1, 0, INT32_MIN, U32, &result))
        return m->rc;
    if (cls != SSI_NSYS_CLASS_CUDA_RUNTIME && cls != SSI_NSYS_CLASS_CUDA_DRIVER) {
        m->skipped_api++; /* cuDNN, cuBLAS, ... ranges: not CUDA calls */
        return 0;
    }
    uint8_t prefer = cls == SSI_NSYS_CLASS_CUDA_DRIVER ? SST_API_DRIVER : SST_API_RUNTIME;
    uint64_t api = api_of(m, c, name, prefer);
    if (m->rc) return m->rc;
    if (api == UINT64_MAX) m->unknown_api++;
    struct sst_rec_api *r = sst_writer_reserve(m->w, SST_REC_API, sizeof *r);
    if (!r) return im_fail(m, SS_EIO, "cannot write the trace");
    r->domain = api == UINT64_MAX ? prefer : (uint8_t)(api >> 32);
    r->cbid = api == UINT64_MAX ? 0 : (uint32_t)api;
    r->start_ns = (uint64_t)s, r->end_ns = (uint64_t)e;
    r->tid = ssi_nsys_tid_of(gtid);
    r->correlation = (uint32_t)corr;
    r->result = (int32_t)(uint32_t)result;
    return 0;
}

/* ---- NVTX ---- */

/* Open cursor columns: rowid, start, end, eventType, rangeId, category, color, text, textId,
 * globalTid, endGlobalTid, domainId, then the payload union (uint64Value .. floatValue). */
enum {
    N_END = 2,
    N_TYPE,
    N_RANGE,
    N_CAT,
    N_COLOR,
    N_TEXT,
    N_TEXTID,
    N_GTID,
    N_ENDGTID,
    N_DOMAIN,
    N_U64,
    N_I64,
    N_F64,
    N_U32,
    N_I32,
    N_F32
};
/* Close cursor columns: rowid, end, start, eventType, globalTid, endGlobalTid, domainId,
 * rangeId. */
enum { X_START = 2, X_TYPE, X_GTID, X_ENDGTID, X_DOMAIN, X_RANGE };

static struct im_stack *stack_of(struct im *m, uint32_t tid, int64_t domain)
{
    for (size_t i = 0; i < m->n_stacks; i++)
        if (m->stacks[i].tid == tid && m->stacks[i].domain == domain) return &m->stacks[i];
    if (m->n_stacks == m->cap_stacks) {
        size_t cap = m->cap_stacks ? m->cap_stacks * 2 : 16;
        struct im_stack *v = realloc(m->stacks, cap * sizeof *v);
        if (!v) return im_fail(m, SS_ENOMEM, "out of memory"), NULL;
        m->stacks = v, m->cap_stacks = cap;
    }
    struct im_stack *s = &m->stacks[m->n_stacks++];
    *s = (struct im_stack){.tid = tid, .domain = domain};
    return s;
}

void im_stacks_free(struct im *m)
{
    for (size_t i = 0; i < m->n_stacks; i++)
        free(m->stacks[i].v);
    free(m->stacks);
}

static uint32_t domain_string(struct im *m, int64_t domain_id)
{
    uint64_t v;
    if (!domain_id) return SST_NO_STRING;
    if (im_map_get(&m->domains, (uint64_t)domain_id, &v)) return (uint32_t)v;
    char buf[40];
    int n = snprintf(buf, sizeof buf, "domain#%" PRId64, domain_id);
    uint32_t id = im_intern(m, buf, (size_t)n);
    if (id && im_map_put(&m->domains, (uint64_t)domain_id, id)) im_fail(m, SS_ENOMEM, "no memory");
    return id;
}

/* The payload union: the first non-NULL member, as the trace's raw bits. */
static int payload(struct im *m, const struct im_cursor *c, uint8_t *type, uint64_t *bits)
{
    static const uint8_t types[] = {SST_PAYLOAD_U64, SST_PAYLOAD_I64, SST_PAYLOAD_F64,
                                    SST_PAYLOAD_U32, SST_PAYLOAD_I32, SST_PAYLOAD_F32};
    *type = SST_PAYLOAD_NONE, *bits = 0;
    for (int i = 0; i < 6; i++) {
        int col = N_U64 + i, t = sqlite3_column_type(c->st, col);
        if (t == SQLITE_NULL) continue;
        *type = types[i];
        if (*type == SST_PAYLOAD_F64 || *type == SST_PAYLOAD_F32) {
            if (t != SQLITE_FLOAT && t != SQLITE_INTEGER)
                return im_fail(m, SS_EBADREC, "%s rowid %" PRId64 ": %s is %s, not a number",
                               c->table, c->rowid, c->cols[col].name, type_name(t));
            double d = sqlite3_column_double(c->st, col);
            float f = (float)d;
            uint32_t u32;
            if (*type == SST_PAYLOAD_F64)
                memcpy(bits, &d, sizeof d);
            else
                memcpy(&u32, &f, sizeof f), *bits = u32;
            return 0;
        }
        int64_t v;
        int64_t lo = *type == SST_PAYLOAD_I32   ? INT32_MIN
                     : *type == SST_PAYLOAD_U32 ? 0
                                                : INT64_MIN;
        int64_t hi = *type == SST_PAYLOAD_I32 ? INT32_MAX : *type == SST_PAYLOAD_U32 ? U32 : I64MAX;
        if (im_int(m, c, col, 0, 0, lo, hi, &v)) return m->rc;
        *bits = *type == SST_PAYLOAD_I32 ? (uint32_t)(int32_t)v : (uint64_t)v;
        return 0;
    }
    return 0;
}

struct nv { /* one open-cursor row, checked */
    int64_t start, end, type, range, category, color, gtid, end_gtid, domain;
    int has_end;
    uint32_t message, domain_str;
    uint8_t ptype;
    uint64_t pbits;
};

static int read_nv(struct im *m, const struct im_cursor *c, struct nv *v)
{
    if (im_int(m, c, 1, 0, 0, 0, I64MAX, &v->start) ||
        im_int(m, c, N_END, 1, -1, 0, I64MAX, &v->end) ||
        im_int(m, c, N_TYPE, 0, 0, INT64_MIN, I64MAX, &v->type) ||
        im_int(m, c, N_RANGE, 1, 0, INT64_MIN, I64MAX, &v->range) ||
        im_int(m, c, N_CAT, 1, 0, 0, U32, &v->category) ||
        im_int(m, c, N_COLOR, 1, 0, INT32_MIN, U32, &v->color) ||
        im_int(m, c, N_GTID, 1, 0, INT64_MIN, I64MAX, &v->gtid) ||
        im_int(m, c, N_ENDGTID, 1, v->gtid, INT64_MIN, I64MAX, &v->end_gtid) ||
        im_int(m, c, N_DOMAIN, 1, 0, INT64_MIN, I64MAX, &v->domain) ||
        payload(m, c, &v->ptype, &v->pbits))
        return m->rc;
    v->has_end = v->end != -1;
    if (v->has_end && v->end < v->start)
        return im_fail(m, SS_EBADREC,
                       "%s rowid %" PRId64 ": end (%" PRId64 ") is before start (%" PRId64
                       "): negative duration",
                       c->table, c->rowid, v->end, v->start);
    if (!v->range) v->range = (int64_t)(1ull << 62) + c->rowid; /* pairs the two ends */
    if ((uint64_t)v->start < m->t_min) m->t_min = (uint64_t)v->start;
    if (v->has_end && (uint64_t)v->end > m->t_max) m->t_max = (uint64_t)v->end;
    return 0;
}

static int nvtx_rec(struct im *m, uint16_t type, uint64_t ts, int64_t gtid, const struct nv *v)
{
    struct sst_rec_nvtx *r = sst_writer_reserve(m->w, type, sizeof *r);
    if (!r) return im_fail(m, SS_EIO, "cannot write the trace");
    r->tid = ssi_nsys_tid_of(gtid);
    r->ts_ns = ts;
    r->domain = v->domain_str;
    if (type == SST_REC_NVTX_START || type == SST_REC_NVTX_END) r->range_id = (uint64_t)v->range;
    if (type == SST_REC_NVTX_POP || type == SST_REC_NVTX_END) return 0;
    r->message = v->message, r->category = (uint32_t)v->category, r->color = (uint32_t)v->color;
    r->payload_type = v->ptype, r->payload = v->pbits;
    return 0;
}

static int step_rec(struct im *m, uint8_t phase, const struct im_frame *f, uint64_t ts,
                    uint32_t tid)
{
    struct sst_rec_step *r = sst_writer_reserve(m->w, SST_REC_STEP, sizeof *r);
    if (!r) return im_fail(m, SS_EIO, "cannot write the trace");
    r->phase = phase, r->source = f->source, r->ts_ns = ts, r->step = f->number, r->tid = tid;
    return 0;
}

/* A push; a "step" range in the "stepscope" domain also writes a STEP record, as the
 * collector does (source from the marker's category: 1 api, 2 pyshim, else user). */
static int push(struct im *m, const struct nv *v)
{
    uint32_t tid = ssi_nsys_tid_of(v->gtid);
    struct im_stack *s = stack_of(m, tid, v->domain);
    if (!s) return m->rc;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        struct im_frame *f = realloc(s->v, cap * sizeof *f);
        if (!f) return im_fail(m, SS_ENOMEM, "out of memory");
        s->v = f, s->cap = cap;
    }
    struct im_frame *f = &s->v[s->n++];
    *f = (struct im_frame){0, 0, 0};
    if (nvtx_rec(m, SST_REC_NVTX_PUSH, (uint64_t)v->start, v->gtid, v)) return m->rc;
    if (!m->step_domain || v->domain_str != m->step_domain || v->message != m->step_text) return 0;
    f->is_step = 1;
    f->source = v->category == 1   ? SST_STEPSRC_API
                : v->category == 2 ? SST_STEPSRC_PYSHIM
                                   : SST_STEPSRC_USER;
    int whole = v->ptype == SST_PAYLOAD_U64 || v->ptype == SST_PAYLOAD_I64;
    int half = v->ptype == SST_PAYLOAD_U32 || v->ptype == SST_PAYLOAD_I32;
    f->number = whole ? v->pbits : half ? (uint32_t)v->pbits : m->step_ordinal;
    m->step_ordinal++;
    return step_rec(m, SST_STEP_BEGIN, f, (uint64_t)v->start, tid);
}

static int pop(struct im *m, uint64_t ts, int64_t gtid, const struct nv *v)
{
    uint32_t tid = ssi_nsys_tid_of(gtid);
    struct im_stack *s = stack_of(m, tid, v->domain);
    if (!s) return m->rc;
    if (nvtx_rec(m, SST_REC_NVTX_POP, ts, gtid, v)) return m->rc;
    if (!s->n) return 0;
    struct im_frame f = s->v[--s->n];
    return f.is_step ? step_rec(m, SST_STEP_END, &f, ts, tid) : 0;
}

static int emit_open(struct im *m, const struct im_cursor *c)
{
    struct nv v;
    if (read_nv(m, c, &v)) return m->rc;
    v.domain_str = domain_string(m, v.domain);
    v.message = text_or_id(m, c, N_TEXT, N_TEXTID);
    if (m->rc) return m->rc;
    uint32_t tid = ssi_nsys_tid_of(v.gtid);
    int zero = v.has_end && v.end == v.start; /* both ends here: the close cursor skips it */
    switch (v.type) {
    case SSI_NSYS_NVTX_DOMAIN_CREATE: { /* the map was filled before the merge */
        struct sst_rec_nvtx_domain *d = sst_writer_reserve(m->w, SST_REC_NVTX_DOMAIN, sizeof *d);
        if (!d) return im_fail(m, SS_EIO, "cannot write the trace");
        d->name = v.message, d->ts_ns = (uint64_t)v.start;
        return 0;
    }
    case SSI_NSYS_NVTX_THREAD: {
        struct sst_rec_thread *t = sst_writer_reserve(m->w, SST_REC_THREAD, sizeof *t);
        if (!t) return im_fail(m, SS_EIO, "cannot write the trace");
        t->tid = tid, t->name = v.message, t->ts_ns = (uint64_t)v.start;
        return 0;
    }
    case SSI_NSYS_NVTX_MARK:
        return nvtx_rec(m, SST_REC_NVTX_MARK, (uint64_t)v.start, v.gtid, &v);
    case SSI_NSYS_NVTX_PUSHPOP:
    case SSI_NSYS_NVTXT_PUSHPOP:
        if (push(m, &v)) return m->rc;
        return zero ? pop(m, (uint64_t)v.end, v.gtid, &v) : 0;
    case SSI_NSYS_NVTX_STARTEND:
    case SSI_NSYS_NVTXT_STARTEND:
        if (nvtx_rec(m, SST_REC_NVTX_START, (uint64_t)v.start, v.gtid, &v)) return m->rc;
        return zero ? nvtx_rec(m, SST_REC_NVTX_END, (uint64_t)v.end, v.end_gtid, &v) : 0;
    default:
        return 0; /* categories, domain destroys */
    }
}

static int emit_close(struct im *m, const struct im_cursor *c)
{
    struct nv v = {0};
    if (im_int(m, c, 1, 0, 0, 0, I64MAX, &v.end) ||
        im_int(m, c, X_START, 0, 0, 0, I64MAX, &v.start) ||
        im_int(m, c, X_TYPE, 0, 0, INT64_MIN, I64MAX, &v.type) ||
        im_int(m, c, X_GTID, 1, 0, INT64_MIN, I64MAX, &v.gtid) ||
        im_int(m, c, X_ENDGTID, 1, v.gtid, INT64_MIN, I64MAX, &v.end_gtid) ||
        im_int(m, c, X_DOMAIN, 1, 0, INT64_MIN, I64MAX, &v.domain) ||
        im_int(m, c, X_RANGE, 1, 0, INT64_MIN, I64MAX, &v.range))
        return m->rc;
    if (!v.range) v.range = (int64_t)(1ull << 62) + c->rowid;
    v.domain_str = domain_string(m, v.domain);
    if ((uint64_t)v.end > m->t_max) m->t_max = (uint64_t)v.end;
    if (v.type == SSI_NSYS_NVTX_PUSHPOP || v.type == SSI_NSYS_NVTXT_PUSHPOP)
        return pop(m, (uint64_t)v.end, v.gtid, &v);
    return nvtx_rec(m, SST_REC_NVTX_END, (uint64_t)v.end, v.end_gtid, &v);
}

int im_emit(struct im *m, struct im_cursor *c)
{
    switch (c->src) {
    case IM_KERNEL:
        return emit_kernel(m, c);
    case IM_MEMCPY:
        return emit_memcpy(m, c);
    case IM_MEMSET:
        return emit_memset(m, c);
    case IM_SYNC:
        return emit_sync(m, c);
    case IM_RUNTIME:
        return emit_runtime(m, c);
    case IM_OPEN:
        return emit_open(m, c);
    case IM_CLOSE:
        return emit_close(m, c);
    default:
        return 0;
    }
}

/* ---- the integer map ---- */

static size_t slot(uint64_t key, size_t cap)
{
    return (size_t)(key * 0x9E3779B97F4A7C15ull >> 17) & (cap - 1);
}

static int map_grow(struct im_map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 256;
    uint64_t *k = calloc(cap, sizeof *k), *v = malloc(cap * sizeof *v);
    if (!k || !v) return free(k), free(v), SS_ENOMEM;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i]) continue;
        size_t j = slot(m->keys[i], cap);
        while (k[j])
            j = (j + 1) & (cap - 1);
        k[j] = m->keys[i], v[j] = m->vals[i];
    }
    free(m->keys), free(m->vals);
    m->keys = k, m->vals = v, m->cap = cap;
    return 0;
}

int im_map_put(struct im_map *m, uint64_t key, uint64_t val)
{
    if (!key) return m->has_zero = 1, m->zero_val = val, 0;
    if ((m->n + 1) * 2 > m->cap && map_grow(m)) return SS_ENOMEM;
    size_t j = slot(key, m->cap);
    while (m->keys[j] && m->keys[j] != key)
        j = (j + 1) & (m->cap - 1);
    if (!m->keys[j]) m->n++;
    m->keys[j] = key, m->vals[j] = val;
    return 0;
}

int im_map_get(const struct im_map *m, uint64_t key, uint64_t *val)
{
    if (!key) return m->has_zero ? (*val = m->zero_val, 1) : 0;
    if (!m->cap) return 0;
    for (size_t j = slot(key, m->cap); m->keys[j]; j = (j + 1) & (m->cap - 1))
        if (m->keys[j] == key) return *val = m->vals[j], 1;
    return 0;
}

void im_map_free(struct im_map *m)
{
    free(m->keys);
    free(m->vals);
    *m = (struct im_map){0};
}
