/* sst_names.c — the names of the format's enums (see sst_names.h). */
#include "sst_names.h"

#include <string.h>

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Looks v up in a table indexed by value; NULL for holes and values past the end. */
static const char *lookup(const char *const *table, size_t n, unsigned v)
{
    return v < n ? table[v] : NULL;
}

const char *sst_rec_type_name(uint16_t type)
{
    static const char *const names[SST_REC_TYPE_LIMIT] = {
#define SST_X_NAME(name, num, str, layout, time) [num] = str,
        SST_REC_TYPES(SST_X_NAME)
#undef SST_X_NAME
    };
    return lookup(names, COUNT_OF(names), type);
}

uint16_t sst_rec_type_from_name(const char *name)
{
    for (uint16_t t = 1; t < SST_REC_TYPE_LIMIT; t++) {
        const char *n = sst_rec_type_name(t);
        if (n && strcmp(n, name) == 0)
            return t;
    }
    return 0;
}

const char *sst_chunk_type_name(uint16_t type)
{
    static const char *const names[] = {[SST_CHUNK_RECORDS] = "records", [SST_CHUNK_END] = "end"};
    return lookup(names, COUNT_OF(names), type);
}

const char *sst_clock_name(uint8_t clock)
{
    static const char *const names[] = {[SST_CLOCK_MONOTONIC] = "monotonic",
                                        [SST_CLOCK_MONOTONIC_RAW] = "monotonic_raw",
                                        [SST_CLOCK_SYNTHETIC] = "synthetic"};
    return lookup(names, COUNT_OF(names), clock);
}

#define SST_X_COPY_ONE(name, num, str) +1
enum { SST_COPY_ROWS = 0 SST_COPY_KINDS(SST_X_COPY_ONE) };
#undef SST_X_COPY_ONE
_Static_assert((int)SST_COPY_ROWS == (int)SST_COPY_KIND_COUNT,
               "copy kinds numbered 0.. without a hole");

const char *sst_copy_kind_name(uint8_t kind)
{
    static const char *const names[] = {
#define SST_X_COPY_NAME(name, num, str) [SST_COPY_##name] = str,
        SST_COPY_KINDS(SST_X_COPY_NAME)
#undef SST_X_COPY_NAME
    };
    return lookup(names, COUNT_OF(names), kind);
}

const char *sst_mem_kind_name(uint8_t kind)
{
    static const char *const names[] = {[SST_MEM_UNKNOWN] = "unknown",
                                        [SST_MEM_PAGEABLE] = "pageable",
                                        [SST_MEM_PINNED] = "pinned",
                                        [SST_MEM_DEVICE] = "device",
                                        [SST_MEM_ARRAY] = "array",
                                        [SST_MEM_MANAGED] = "managed",
                                        [SST_MEM_DEVICE_STATIC] = "device_static",
                                        [SST_MEM_MANAGED_STATIC] = "managed_static"};
    return lookup(names, COUNT_OF(names), kind);
}

const char *sst_sync_kind_name(uint8_t kind)
{
    static const char *const names[] = {[SST_SYNC_UNKNOWN] = "unknown",
                                        [SST_SYNC_EVENT] = "event",
                                        [SST_SYNC_STREAM_WAIT_EVENT] = "stream_wait_event",
                                        [SST_SYNC_STREAM] = "stream",
                                        [SST_SYNC_CONTEXT] = "context"};
    return lookup(names, COUNT_OF(names), kind);
}

const char *sst_api_domain_name(uint8_t domain)
{
    static const char *const names[] = {[SST_API_RUNTIME] = "runtime",
                                        [SST_API_DRIVER] = "driver"};
    return lookup(names, COUNT_OF(names), domain);
}

const char *sst_payload_type_name(uint8_t type)
{
    static const char *const names[] = {
        [SST_PAYLOAD_NONE] = "none", [SST_PAYLOAD_U64] = "u64", [SST_PAYLOAD_I64] = "i64",
        [SST_PAYLOAD_F64] = "f64",   [SST_PAYLOAD_U32] = "u32", [SST_PAYLOAD_I32] = "i32",
        [SST_PAYLOAD_F32] = "f32"};
    return lookup(names, COUNT_OF(names), type);
}

const char *sst_drop_source_name(uint8_t source)
{
    static const char *const names[] = {[SST_DROP_HOST_BUFFER] = "host_buffer",
                                        [SST_DROP_CUPTI] = "cupti",
                                        [SST_DROP_WRITE] = "write",
                                        [SST_DROP_STRING] = "string"};
    return lookup(names, COUNT_OF(names), source);
}

const char *sst_capture_reason_name(uint8_t reason)
{
    static const char *const names[] = {
        [SST_CAP_START] = "start",           [SST_CAP_WINDOW] = "window",
        [SST_CAP_CONFLICT] = "conflict",     [SST_CAP_TAKEN_OVER] = "taken_over",
        [SST_CAP_EXIT] = "exit",             [SST_CAP_ERROR] = "error",
        [SST_CAP_SAMPLED] = "sampled",       [SST_CAP_SLOW] = "slow_rate",
        [SST_CAP_FULL] = "full_rate"};
    return lookup(names, COUNT_OF(names), reason);
}

const char *sst_step_phase_name(uint8_t phase)
{
    static const char *const names[] = {
        [SST_STEP_BEGIN] = "begin", [SST_STEP_END] = "end", [SST_STEP_MARK] = "mark"};
    return lookup(names, COUNT_OF(names), phase);
}

const char *sst_step_source_name(uint8_t source)
{
    static const char *const names[] = {[SST_STEPSRC_API] = "api",
                                        [SST_STEPSRC_PYSHIM] = "pyshim",
                                        [SST_STEPSRC_PROFILER] = "profiler",
                                        [SST_STEPSRC_USER] = "user",
                                        [SST_STEPSRC_DETECTED] = "detected"};
    return lookup(names, COUNT_OF(names), source);
}

const char *sst_memop_name(uint8_t op)
{
    static const char *const names[] = {[SST_MEMOP_ALLOC] = "alloc", [SST_MEMOP_FREE] = "free"};
    return lookup(names, COUNT_OF(names), op);
}

const char *sst_notice_level_name(uint8_t level)
{
    static const char *const names[] = {
        [SST_NOTE_INFO] = "info", [SST_NOTE_WARN] = "warn", [SST_NOTE_ERROR] = "error"};
    return lookup(names, COUNT_OF(names), level);
}

const char *sst_notice_code_name(uint16_t code)
{
    static const char *const names[] = {
        [SST_NOTICE_CUPTI_UNAVAILABLE] = "cupti_unavailable",
        [SST_NOTICE_CUPTI_CONFLICT] = "cupti_conflict",
        [SST_NOTICE_CUPTI_TAKEN_OVER] = "cupti_taken_over",
        [SST_NOTICE_WRITE_ERROR] = "write_error",
        [SST_NOTICE_MEMORY_CAP] = "memory_cap",
        [SST_NOTICE_FORKED] = "forked",
        [SST_NOTICE_OTHER] = "other"};
    return lookup(names, COUNT_OF(names), code);
}

/* A damage kind's row of SST_DAMAGE_KINDS, or NULL. */
struct damage_row {
    const char *name, *what;
};
static const struct damage_row *damage_row(uint8_t kind)
{
    static const struct damage_row rows[SST_DAMAGE_LIMIT] = {
#define SST_X_DAMAGE_ROW(name, num, str, text) [num] = {str, text},
        SST_DAMAGE_KINDS(SST_X_DAMAGE_ROW)
#undef SST_X_DAMAGE_ROW
    };
    return kind < SST_DAMAGE_LIMIT && rows[kind].name ? &rows[kind] : NULL;
}

const char *sst_damage_kind_name(uint8_t kind)
{
    const struct damage_row *r = damage_row(kind);
    return r ? r->name : NULL;
}

const char *sst_damage_kind_what(uint8_t kind)
{
    const struct damage_row *r = damage_row(kind);
    return r ? r->what : NULL;
}
