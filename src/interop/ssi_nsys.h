/*
 * ssi_nsys.h — what the nsys SQLite writer (ssi_nsys_export.c) and reader (ssi_nsys_import.c)
 * share: the schema of `nsys export --type sqlite` (Nsight Systems 2025.3.1, read off a real
 * export: ../shared/anchors/nsys-2025.3.1-sqlite-schema.sql), the values of its enum tables,
 * the mapping between those values and the trace's (sst_format.h), and the serialized ids.
 * Internal to src/interop; docs/interop.md describes the mapping for people.
 */
#ifndef SSI_NSYS_H
#define SSI_NSYS_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/sst_format.h"

/* ---- serialized process / thread ids ------------------------------------------------------
 * nsys packs ids into one integer: bits 0-23 the thread id, bits 24-47 the process id, bits
 * 48-63 the hardware / VM id (0 here: one machine). globalPid is the same with the thread bits
 * zero. nsys's own reports decode them as (g >> 24) & 0xFFFFFF and g & 0xFFFFFF and join
 * kernels to their launch by globalPid == (globalTid & 0xFFFFFFFFFF000000). Linux pids and
 * tids fit in 22 bits; larger ones (not from Linux) are cut to 24 bits. */
#define SSI_NSYS_ID_MASK 0xFFFFFFull
static inline int64_t ssi_nsys_gpid(uint32_t pid)
{
    return (int64_t)(((uint64_t)pid & SSI_NSYS_ID_MASK) << 24);
}
static inline int64_t ssi_nsys_gtid(uint32_t pid, uint32_t tid)
{
    return ssi_nsys_gpid(pid) | (int64_t)((uint64_t)tid & SSI_NSYS_ID_MASK);
}
static inline uint32_t ssi_nsys_pid_of(int64_t g)
{
    return (uint32_t)(((uint64_t)g >> 24) & SSI_NSYS_ID_MASK);
}
static inline uint32_t ssi_nsys_tid_of(int64_t g)
{
    return (uint32_t)((uint64_t)g & SSI_NSYS_ID_MASK);
}

/* ---- enum values (the ENUM_* tables; nsys documents them in "SQLite Schema Event Values") -- */

/* ENUM_NSYS_EVENT_TYPE: NVTX_EVENTS.eventType */
enum ssi_nsys_event_type {
    SSI_NSYS_NVTX_CATEGORY = 33,
    SSI_NSYS_NVTX_MARK = 34,
    SSI_NSYS_NVTX_THREAD = 39, /* nvtxNameOsThread */
    SSI_NSYS_NVTX_PUSHPOP = 59,
    SSI_NSYS_NVTX_STARTEND = 60,
    SSI_NSYS_NVTXT_PUSHPOP = 70, /* imported from NVTXT */
    SSI_NSYS_NVTXT_STARTEND = 71,
    SSI_NSYS_NVTX_DOMAIN_CREATE = 75,
    SSI_NSYS_NVTX_DOMAIN_DESTROY = 76,
};

/* ENUM_NSYS_EVENT_CLASS: CUPTI_ACTIVITY_KIND_RUNTIME.eventClass (runtime and driver calls
 * share the table) */
enum ssi_nsys_event_class { SSI_NSYS_CLASS_CUDA_RUNTIME = 0, SSI_NSYS_CLASS_CUDA_DRIVER = 1 };

/* ENUM_CUDA_MEMCPY_OPER: copyKind (= CUPTI's CUpti_ActivityMemcpyKind) */
enum ssi_nsys_copy {
    SSI_NSYS_COPY_UNKNOWN = 0,
    SSI_NSYS_COPY_HTOD = 1,
    SSI_NSYS_COPY_DTOH = 2,
    SSI_NSYS_COPY_HTOA = 3,
    SSI_NSYS_COPY_ATOH = 4,
    SSI_NSYS_COPY_ATOA = 5,
    SSI_NSYS_COPY_ATOD = 6,
    SSI_NSYS_COPY_DTOA = 7,
    SSI_NSYS_COPY_DTOD = 8,
    SSI_NSYS_COPY_HTOH = 9,
    SSI_NSYS_COPY_PTOP = 10,
    SSI_NSYS_COPY_UVM_HTOD = 11,
    SSI_NSYS_COPY_UVM_DTOH = 12,
    SSI_NSYS_COPY_UVM_DTOD = 13,
};

/* ENUM_CUDA_MEM_KIND: srcKind, dstKind, memKind. Not CUPTI's numbering: pageable is 0 and
 * unknown is 7 (the trace has unknown 0 and the rest one higher). */
#define SSI_NSYS_MEM_PAGEABLE 0
#define SSI_NSYS_MEM_UNKNOWN 7

/* ENUM_CUPTI_SYNC_TYPE = CUPTI's CUpti_ActivitySynchronizationType = enum sst_sync_kind. */

/* ENUM_CUDA_KERNEL_LAUNCH_TYPE */
enum { SSI_NSYS_LAUNCH_REGULAR = 1, SSI_NSYS_LAUNCH_COOP_SINGLE = 2 };

/* The trace's copy kind as nsys's copyKind, and back. SST_COPY_OTHER stands for CUPTI's
 * ATOA/ATOD/DTOA (the collector folds them together): it is written as ATOA and ATOA, ATOD,
 * DTOA and the unified-memory kinds read back as OTHER. */
int ssi_nsys_copy_from_sst(uint8_t kind);
uint8_t ssi_nsys_copy_to_sst(int64_t kind);
int ssi_nsys_mem_from_sst(uint8_t kind);
uint8_t ssi_nsys_mem_to_sst(int64_t kind);

/* One row of an ENUM_* table. */
struct ssi_nsys_enum_row {
    const char *table;
    int id;
    const char *name, *label;
};
extern const struct ssi_nsys_enum_row ssi_nsys_enum_rows[];
extern const size_t ssi_nsys_n_enum_rows;

/* The CREATE TABLE statements of the schema, verbatim from the anchor (nsys 2025.3.1). */
extern const char *const ssi_nsys_schema[];
extern const size_t ssi_nsys_n_schema;

/* META_DATA_EXPORT / META_DATA_CAPTURE keys stepscope writes (see docs/interop.md). The
 * STEPSCOPE_* capture keys carry what the nsys schema has no column for, so that a trace
 * exported and imported again gives the same report. */
#define SSI_NSYS_META_PREFIX "STEPSCOPE_"
#define SSI_NSYS_ENV_STATE "stepscope" /* TARGET_INFO_SYSTEM_ENV.devStateName of ENV records */
/* CAPTURE records, one STEPSCOPE_CAPTURE_<n> key each, value "ts_ns on reason what" (they say
 * which steps have GPU activity); past this many they are counted in NOT_EXPORTED. */
#define SSI_NSYS_CAPTURE_KEY "CAPTURE_"
#define SSI_NSYS_MAX_CAPTURES 4096

/* ---- CUDA API names (the trace module's callback-id table: src/trace/sst_cbid.h) ---- */

/* The API name written for a call: the table's, or "cudaUnknown_cbid<N>" / "cuUnknown_cbid<N>"
 * for an id missing from it (read back by ssi_api_from_name). buf must hold 48 bytes. */
const char *ssi_nsys_api_name(uint8_t domain, uint32_t cbid, char *buf, size_t cap);

/* The CUPTI id of an API name as nsys writes it; prefer_domain breaks ties between the
 * runtime and the driver (the row's eventClass). Accepts the name with or without its
 * "_v<digits>" suffix. Returns 1 and sets *domain, *cbid, or 0 when unknown. */
int ssi_nsys_api_from_name(const char *name, uint8_t prefer_domain, uint8_t *domain,
                           uint32_t *cbid);

/* Kernel names, demangled and short: src/util/ss_cxxname.h (ss_demangle, ss_name_bare). */

/* ---- output files (ssi_nsys_sql.c) ---- */

/* Creates or truncates out_path (0600 when new) and returns its descriptor, copying the name
 * into tmp (cap >= strlen(out_path) + 1) — the file the writer fills and, on failure,
 * removes. The writers write their output directly: callers that must not lose what was at
 * the path pass a temporary file of their own (the CLI: src/util/ss_out.h). Returns the
 * descriptor or a negative ss_error with err set. */
int ssi_nsys_tmp_create(const char *out_path, char *tmp, size_t cap, char *err, size_t errlen);

/* Flushes the finished file to disk; on failure removes it and sets err. */
int ssi_nsys_tmp_commit(const char *tmp, const char *out_path, char *err, size_t errlen);

/* ---- SQLite helpers (ssi_nsys_sql.c) ---- */

/* Runs one statement that returns no rows; on failure writes "what: sqlite's message". */
int ssi_nsys_sql_exec(sqlite3 *db, const char *sql, char *err, size_t errlen);
/* The ss_error of db's last failure: SS_ENOSPC for a full disk, SS_ENOMEM, the errno's code
 * for a failed system call (EFBIG past `ulimit -f`), else SS_EIO. */
int ssi_nsys_sql_rc(sqlite3 *db);

/* Whether table exists (1), not (0), or the query failed (negative ss_error). */
int ssi_nsys_table_exists(sqlite3 *db, const char *table);

/* Whether table has column (1 / 0 / negative ss_error). */
int ssi_nsys_has_column(sqlite3 *db, const char *table, const char *column);

/* printf into err when err is not NULL. */
void ssi_nsys_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
