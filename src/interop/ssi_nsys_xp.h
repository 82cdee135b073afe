/*
 * ssi_nsys_xp.h — the state of the nsys SQLite writer, shared by its files:
 * ssi_nsys_export.c (the loop, strings, GPU work, API calls, process facts) and
 * ssi_nsys_export_nvtx.c (NVTX ranges, marks, domains and step markers).
 */
#ifndef SSI_NSYS_XP_H
#define SSI_NSYS_XP_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/sst_reader.h"

enum xp_stmt {
    XS_STRING,
    XS_KERNEL,
    XS_MEMCPY,
    XS_MEMSET,
    XS_SYNC,
    XS_RUNTIME,
    XS_NVTX,
    XS_THREAD,
    XS_ENV,
    XS_CAPTURE_META,
    XS_DIAG,
    XS_COUNT
};

struct xp_str { /* StringIds entry: text in the arena */
    uint64_t hash;
    int64_t id;
    size_t off;
    uint32_t len;
};

struct xp_range { /* an NVTX range or step waiting for its end */
    uint64_t ts, payload, range_id;
    uint32_t tid, domain, message, category, color;
    uint8_t payload_type, used;
};

struct xp_lane { /* the push/pop stack of one thread in one domain */
    uint32_t tid, domain;
    size_t n, cap;
    struct xp_range *v;
};

struct xp_kname { /* StringIds ids of one kernel name (0: not yet made) */
    int64_t mangled, demangled, shortn;
    uint32_t id; /* the trace's string id of the name (0: a free slot) */
};

struct ssi_window;
struct ssi_merge;

struct xp {
    struct sst_reader *r;
    struct ssi_window *win; /* the part written (NULL: all) */
    const char *win_desc;   /* in words, for META_DATA_CAPTURE (NULL: all) */
    sqlite3 *db;
    sqlite3_stmt *st[XS_COUNT];
    char *err;
    size_t errlen;
    int rc; /* first error (sticky) */
    uint32_t pid;
    /* one trace of several in one database (NULL: the only one): its times, ids and GPUs
     * moved so that no two traces' rows meet (ssi_nsys_write_merged) */
    const struct ssi_merge *merge;
    uint64_t slot_hi;    /* merge->slot << 32 (0 alone): added to correlation and range ids */
    int64_t domain_base; /* domainIds the traces before this one took */
    uint64_t t_min, t_max;
    /* StringIds: text -> id (open addressing) */
    struct xp_str *strs;
    size_t cap_strs, n_strs;
    char *arena;
    size_t arena_len, arena_cap;
    int64_t next_str;
    /* caches by trace string id and by CUPTI id */
    struct xp_kname *knames; /* open addressing by trace string id (key 0: free) */
    size_t n_knames, cap_knames;
    struct xp_kname kname_unknown; /* shared by every id the trace does not define */
    int64_t *api_ids[3];
    size_t n_api_ids[3];
    /* NVTX */
    struct xp_lane *lanes;
    size_t n_lanes, cap_lanes;
    struct xp_range *opens; /* start/end ranges by range id (open addressing) */
    size_t cap_opens, n_opens;
    uint32_t *domains; /* trace string id of nsys domainId i + 1 */
    size_t n_domains, cap_domains;
    struct xp_range *steps; /* STEP records without NVTX, one open per thread */
    size_t n_steps, cap_steps;
    /* what went where */
    uint64_t rows, skipped[SST_REC_TYPE_LIMIT], clamped, unmatched_pops;
    uint32_t captures; /* CAPTURE records written as STEPSCOPE_CAPTURE_<n> */
    uint64_t dropped;
};

/* Binds and steps a prepared INSERT, then resets it; sets x->rc on failure. */
void xp_insert(struct xp *x, enum xp_stmt s);
void xp_bind_i64(struct xp *x, enum xp_stmt s, int idx, int64_t v);
void xp_bind_null(struct xp *x, enum xp_stmt s, int idx);
void xp_bind_text(struct xp *x, enum xp_stmt s, int idx, const char *t, size_t len);
void xp_bind_double(struct xp *x, enum xp_stmt s, int idx, double v);
/* The globalPid of the trace's process, the globalTid of its thread tid: in a merged export
 * the hardware id bits (48-63) hold the trace's slot, as nsys tells hosts apart. */
int64_t xp_gpid(const struct xp *x);
int64_t xp_gtid(const struct xp *x, uint32_t tid);
/* A correlation or NVTX range id made the trace's own (slot << 32 | id in a merged export). */
int64_t xp_id(const struct xp *x, uint64_t id);
/* A timestamp as nsys's signed 64-bit integer, on the common clock in a merged export; sets
 * x->rc when it does not fit. */
int64_t xp_ts(struct xp *x, uint64_t t);
/* The end of a record that started at start: in a merged export its start's place plus its
 * duration (as the merged Perfetto export draws it), else xp_ts(end). */
int64_t xp_end(struct xp *x, uint64_t start, uint64_t end);

/* The StringIds id of a text (inserted the first time); 0 after an error. */
int64_t xp_string(struct xp *x, const char *s, size_t len);
/* The text of a trace string id ("" when undefined) and its length. */
const char *xp_trace_str(const struct xp *x, uint32_t id, uint32_t *len);

/* NVTX (ssi_nsys_export_nvtx.c) */
void xp_nvtx(struct xp *x, const struct sst_rec_header *h);
void xp_nvtx_domain(struct xp *x, const struct sst_rec_header *h);
void xp_step(struct xp *x, const struct sst_rec_header *h);
/* Writes what is still open at the end of the trace (end NULL, as nsys does). */
void xp_nvtx_finish(struct xp *x);
void xp_nvtx_free(struct xp *x);

#endif
