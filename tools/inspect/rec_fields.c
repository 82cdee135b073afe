/* rec_fields.c — see rec_fields.h. */
#include "rec_fields.h"

#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "cmd.h"
#include "flag_names.h"
#include "text_esc.h"
#include "trace/sst_clock.h"
#include "trace/sst_names.h"

/* ---- field writers: each writes " key=value" (text) or "key": value (JSON) ---- */

static void f_key(struct rec_sink *s, const char *key)
{
    if (s->json)
        json_key(s->json, key);
    else
        fprintf(s->f, " %s=", key);
}

static void f_u64(struct rec_sink *s, const char *key, uint64_t v)
{
    f_key(s, key);
    if (s->json)
        json_u64(s->json, v);
    else
        fprintf(s->f, "%" PRIu64, v);
}

static void f_i64(struct rec_sink *s, const char *key, int64_t v)
{
    f_key(s, key);
    if (s->json)
        json_i64(s->json, v);
    else
        fprintf(s->f, "%" PRId64, v);
}

/* Addresses and bit masks: hex in text, a plain number in JSON. */
static void f_hex(struct rec_sink *s, const char *key, uint64_t v)
{
    f_key(s, key);
    if (s->json)
        json_u64(s->json, v);
    else
        fprintf(s->f, "0x%" PRIx64, v);
}

void rec_text_string(FILE *f, const struct sst_reader *rd, uint32_t id)
{
    uint32_t len = 0;
    const char *text = id == SST_NO_STRING ? NULL : sst_reader_string(rd, id, &len);
    if (text)
        text_write_escaped(f, text, len, 1);
    else if (id == SST_NO_STRING)
        fputc('-', f);
    else
        fprintf(f, "<string %" PRIu32 ">", id);
}

void rec_json_string(struct json_out *j, const struct sst_reader *rd, uint32_t id)
{
    uint32_t len = 0;
    const char *text = id == SST_NO_STRING ? NULL : sst_reader_string(rd, id, &len);
    if (text)
        json_string_n(j, text, len);
    else
        json_null(j);
}

static void f_str(struct rec_sink *s, const char *key, uint32_t id)
{
    f_key(s, key);
    if (s->json)
        rec_json_string(s->json, s->rd, id);
    else
        rec_text_string(s->f, s->rd, id);
}

/* An enum value by name; names are fixed identifiers from rec_names (no escaping). */
static void f_name(struct rec_sink *s, const char *key, const char *name)
{
    f_key(s, key);
    if (s->json)
        json_string(s->json, name);
    else
        fputs(name, s->f);
}

/* An enum value: its name, or "unknown(N)" for a value this version does not know. */
static void f_enum(struct rec_sink *s, const char *key, const char *name, unsigned v)
{
    char buf[32];
    f_name(s, key, rn_enum(buf, sizeof buf, name, v));
}

static void f_dim3(struct rec_sink *s, const char *key, uint32_t a, uint32_t b, uint32_t c)
{
    f_key(s, key);
    if (!s->json) {
        fprintf(s->f, "(%" PRIu32 ",%" PRIu32 ",%" PRIu32 ")", a, b, c);
        return;
    }
    json_begin_array(s->json);
    json_u64(s->json, a);
    json_u64(s->json, b);
    json_u64(s->json, c);
    json_end_array(s->json);
}

/* end - start as a signed number, saturated: a hostile record may have any two values. */
static int64_t signed_span(uint64_t start, uint64_t end)
{
    if (end >= start) return end - start > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(end - start);
    return start - end > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)(start - end);
}

/* An interval: "t=START dur=12.3us" in text; "t", "end" and "dur_ns" in JSON. A record
 * whose end precedes its start (damaged or hostile) shows dur=-N rather than wrapping. */
static void f_span(struct rec_sink *s, uint64_t start, uint64_t end)
{
    char buf[32];
    f_u64(s, "t", start);
    if (s->json) {
        json_kv_u64(s->json, "end", end);
        json_kv_i64(s->json, "dur_ns", signed_span(start, end));
    } else if (end >= start) {
        fprintf(s->f, " dur=%s", cli_fmt_duration(buf, sizeof buf, end - start));
    } else {
        fprintf(s->f, " dur=-%s", cli_fmt_duration(buf, sizeof buf, start - end));
    }
}

static void f_flags(struct rec_sink *s, const char *key, unsigned flags,
                    const char *(*fmt)(char *, size_t, unsigned))
{
    char buf[128];
    f_name(s, key, fmt(buf, sizeof buf, flags));
}

/* ---- one printer per record type ---- */

static void p_string(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_string r;
    sst_rec_load(h, &r, sizeof r);
    f_u64(s, "id", r.id);
    f_u64(s, "len", r.len);
    /* The text is the record's own bytes; never trust len beyond the record's size. */
    size_t room = h->size > sizeof r ? h->size - sizeof r : 0;
    size_t len = r.len < room ? r.len : room;
    const char *text = (const char *)h + sizeof r;
    f_key(s, "text");
    if (s->json)
        json_string_n(s->json, text, len);
    else
        text_write_escaped(s->f, text, len, 1);
}

static void p_process(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_process r;
    sst_rec_load(h, &r, sizeof r);
    f_u64(s, "pid", r.pid);
    f_u64(s, "ppid", r.ppid);
    f_i64(s, "rank", r.rank);
    f_i64(s, "local_rank", r.local_rank);
    f_i64(s, "world_size", r.world_size);
    f_u64(s, "start", r.start_ns);
    f_str(s, "host", r.hostname);
    f_str(s, "exe", r.exe);
    f_str(s, "cmdline", r.cmdline);
}

static void p_thread(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_thread r;
    sst_rec_load(h, &r, sizeof r);
    f_u64(s, "t", r.ts_ns);
    f_u64(s, "tid", r.tid);
    f_str(s, "name", r.name);
}

static void p_env(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_env r;
    sst_rec_load(h, &r, sizeof r);
    f_str(s, "key", r.key);
    f_str(s, "value", r.value);
}

static void p_device(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_device r;
    sst_rec_load(h, &r, sizeof r);
    f_u64(s, "dev", r.device);
    f_u64(s, "sms", r.sm_count);
    f_u64(s, "cc_major", r.cc_major);
    f_u64(s, "cc_minor", r.cc_minor);
    f_u64(s, "mem", r.global_mem);
    f_u64(s, "mem_clock_khz", r.mem_clock_khz);
    f_u64(s, "mem_bus_width", r.mem_bus_width);
    f_u64(s, "pci_bus", r.pci_bus);
    f_hex(s, "uuid_crc", r.uuid_hi_crc);
    f_str(s, "name", r.name);
}

static void p_kernel(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_kernel r;
    sst_rec_load(h, &r, sizeof r);
    f_span(s, r.start_ns, r.end_ns);
    f_u64(s, "dev", r.device);
    f_u64(s, "stream", r.stream);
    f_u64(s, "corr", r.correlation);
    f_dim3(s, "grid", r.grid[0], r.grid[1], r.grid[2]);
    f_dim3(s, "block", r.block[0], r.block[1], r.block[2]);
    f_u64(s, "regs", r.registers);
    f_u64(s, "smem_static", r.shared_static);
    f_u64(s, "smem_dynamic", r.shared_dynamic);
    if (r.graph_id) f_u64(s, "graph", r.graph_id);
    if (r.flags) f_flags(s, "flags", r.flags, rn_kernel_flags);
    f_str(s, "name", r.name);
}

static void p_memcpy(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_memcpy r;
    sst_rec_load(h, &r, sizeof r);
    f_span(s, r.start_ns, r.end_ns);
    f_enum(s, "kind", sst_copy_kind_name(r.copy_kind), r.copy_kind);
    f_enum(s, "src", sst_mem_kind_name(r.src_kind), r.src_kind);
    f_enum(s, "dst", sst_mem_kind_name(r.dst_kind), r.dst_kind);
    f_u64(s, "bytes", r.bytes);
    f_u64(s, "dev", r.device);
    if (r.src_device != r.device || r.dst_device != r.device) {
        f_u64(s, "src_dev", r.src_device);
        f_u64(s, "dst_dev", r.dst_device);
    }
    f_u64(s, "stream", r.stream);
    f_u64(s, "corr", r.correlation);
    if (r.flags) f_flags(s, "flags", r.flags, rn_copy_flags);
}

static void p_memset(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_memset r;
    sst_rec_load(h, &r, sizeof r);
    f_span(s, r.start_ns, r.end_ns);
    f_enum(s, "mem", sst_mem_kind_name(r.mem_kind), r.mem_kind);
    f_u64(s, "bytes", r.bytes);
    f_u64(s, "value", r.value);
    f_u64(s, "dev", r.device);
    f_u64(s, "stream", r.stream);
    f_u64(s, "corr", r.correlation);
    if (r.flags) f_flags(s, "flags", r.flags, rn_copy_flags);
}

static void p_sync(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_sync r;
    sst_rec_load(h, &r, sizeof r);
    f_span(s, r.start_ns, r.end_ns);
    f_enum(s, "kind", sst_sync_kind_name(r.kind), r.kind);
    f_u64(s, "dev", r.device);
    if (r.stream != 0xffffffffu) f_u64(s, "stream", r.stream); /* not stream-specific */
    if (r.event) f_u64(s, "event", r.event);
    f_u64(s, "corr", r.correlation);
}

static void p_api(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_api r;
    sst_rec_load(h, &r, sizeof r);
    f_span(s, r.start_ns, r.end_ns);
    f_enum(s, "domain", sst_api_domain_name(r.domain), r.domain);
    f_u64(s, "cbid", r.cbid);
    f_u64(s, "tid", r.tid);
    f_u64(s, "corr", r.correlation);
    f_i64(s, "result", r.result);
}

/* The payload of an NVTX record, decoded by its declared type. */
static void f_payload(struct rec_sink *s, uint8_t type, uint64_t bits)
{
    double d;
    float fl;
    uint32_t lo = (uint32_t)bits;
    f_enum(s, "payload_type", sst_payload_type_name(type), type);
    switch (type) {
    case SST_PAYLOAD_NONE:
        return;
    case SST_PAYLOAD_U64:
        f_u64(s, "payload", bits);
        return;
    case SST_PAYLOAD_I64:
        f_i64(s, "payload", (int64_t)bits);
        return;
    case SST_PAYLOAD_U32:
        f_u64(s, "payload", lo);
        return;
    case SST_PAYLOAD_I32:
        f_i64(s, "payload", (int32_t)lo);
        return;
    case SST_PAYLOAD_F64:
        memcpy(&d, &bits, sizeof d);
        break;
    case SST_PAYLOAD_F32:
        memcpy(&fl, &lo, sizeof fl);
        d = fl;
        break;
    default:
        f_hex(s, "payload", bits);
        return; /* unknown type: the raw bits */
    }
    f_key(s, "payload");
    if (s->json)
        json_double(s->json, d);
    else
        fprintf(s->f, "%.17g", d);
}

static void p_nvtx(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_nvtx r;
    sst_rec_load(h, &r, sizeof r);
    f_u64(s, "t", r.ts_ns);
    f_u64(s, "tid", r.tid);
    if (h->type == SST_REC_NVTX_START || h->type == SST_REC_NVTX_END)
        f_u64(s, "range_id", r.range_id);
    if (r.category) f_u64(s, "category", r.category);
    if (r.color) f_hex(s, "color", r.color);
    if (r.payload_type != SST_PAYLOAD_NONE) f_payload(s, r.payload_type, r.payload);
    f_str(s, "domain", r.domain);
    f_str(s, "message", r.message);
}

static void p_nvtx_domain(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_nvtx_domain r;
    sst_rec_load(h, &r, sizeof r);
    f_u64(s, "t", r.ts_ns);
    f_str(s, "name", r.name);
}

static void p_host_sample(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_host_sample r;
    sst_rec_load(h, &r, sizeof r);
    f_u64(s, "t", r.ts_ns);
    f_u64(s, "threads", r.threads);
    f_u64(s, "children", r.children);
    f_u64(s, "cpu_user_ns", r.cpu_user_ns);
    f_u64(s, "cpu_sys_ns", r.cpu_sys_ns);
    f_u64(s, "child_user_ns", r.child_user_ns);
    f_u64(s, "child_sys_ns", r.child_sys_ns);
    f_u64(s, "read_bytes", r.read_bytes);
    f_u64(s, "rchar", r.rchar);
    f_u64(s, "vol_ctxsw", r.vol_ctxsw);
    f_u64(s, "invol_ctxsw", r.invol_ctxsw);
    f_u64(s, "rss", r.rss_bytes);
}

static void p_dropped(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_dropped r;
    sst_rec_load(h, &r, sizeof r);
    f_u64(s, "t", r.ts_ns);
    f_enum(s, "source", sst_drop_source_name(r.source), r.source);
    if (r.rec_type)
        f_enum(s, "of", sst_rec_type_name(r.rec_type), r.rec_type);
    else
        f_name(s, "of", "mixed");
    f_u64(s, "count", r.count);
}

static void p_damage(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_damage r;
    sst_rec_load(h, &r, sizeof r);
    f_enum(s, "kind", sst_damage_kind_name(r.kind), r.kind);
    f_u64(s, "count", r.count);
    if (r.offset == UINT64_MAX)
        f_name(s, "at", "unknown");
    else
        f_u64(s, "at", r.offset);
    f_str(s, "detail", r.detail);
}

static void p_clock(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_clock r;
    sst_rec_load(h, &r, sizeof r);
    f_u64(s, "t", r.ts_ns);
    f_u64(s, "unix_ns", r.unix_ns);
    f_u64(s, "spread_ns", r.spread_ns);
    f_i64(s, "offset_ns", sst_clock_offset(&r)); /* what alignment uses, said once here */
}

static void p_capture(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_capture r;
    sst_rec_load(h, &r, sizeof r);
    f_u64(s, "t", r.ts_ns);
    f_name(s, "state", r.on ? "on" : "off");
    f_enum(s, "reason", sst_capture_reason_name(r.reason), r.reason);
    f_flags(s, "what", r.what, rn_capture_what);
}

static void p_step(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_step r;
    sst_rec_load(h, &r, sizeof r);
    f_u64(s, "t", r.ts_ns);
    f_enum(s, "phase", sst_step_phase_name(r.phase), r.phase);
    f_enum(s, "source", sst_step_source_name(r.source), r.source);
    f_u64(s, "step", r.step);
    f_u64(s, "tid", r.tid);
}

static void p_memory(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_memory r;
    sst_rec_load(h, &r, sizeof r);
    f_u64(s, "t", r.ts_ns);
    f_enum(s, "op", sst_memop_name(r.op), r.op);
    f_enum(s, "mem", sst_mem_kind_name(r.mem_kind), r.mem_kind);
    f_u64(s, "bytes", r.bytes);
    f_hex(s, "address", r.address);
    f_u64(s, "dev", r.device);
    f_u64(s, "stream", r.stream);
    f_u64(s, "corr", r.correlation);
}

static void p_overhead(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_overhead r;
    sst_rec_load(h, &r, sizeof r);
    f_span(s, r.start_ns, r.end_ns);
    f_u64(s, "kind", r.kind); /* CUpti_ActivityOverheadKind, kept as CUPTI numbers it */
    f_u64(s, "tid", r.tid);
}

static void p_notice(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_notice r;
    sst_rec_load(h, &r, sizeof r);
    f_u64(s, "t", r.ts_ns);
    f_enum(s, "level", sst_notice_level_name(r.level), r.level);
    f_enum(s, "code", sst_notice_code_name(r.code), r.code);
    f_str(s, "message", r.message);
}

/* The collector's own cost (enum sst_cost_kind), named here: only `dump` prints it. */
static const char *cost_kind_name(uint8_t k)
{
    static const char *const names[] = {
        NULL,          "api_callback", "nvtx_callback", "cupti_convert",
        "writer",      "thread_name",  "cupti_control", "py_stack"};
    _Static_assert(sizeof names / sizeof names[0] == SST_COST_KIND_LIMIT, "a name per cost kind");
    return k < SST_COST_KIND_LIMIT ? names[k] : NULL;
}

static void p_cost(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_cost r;
    sst_rec_load(h, &r, sizeof r);
    f_u64(s, "t", r.ts_ns);
    f_enum(s, "kind", cost_kind_name(r.kind), r.kind);
    f_u64(s, "tid", r.tid);
    f_u64(s, "events", r.events);
    f_u64(s, "timed", r.timed);
    f_u64(s, "ns", r.ns);
}

static void p_graph(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_graph r;
    sst_rec_load(h, &r, sizeof r);
    f_span(s, r.start_ns, r.end_ns);
    f_u64(s, "dev", r.device);
    f_u64(s, "end_dev", r.end_device);
    f_u64(s, "stream", r.stream);
    f_u64(s, "corr", r.correlation);
    f_u64(s, "graph", r.graph_id);
}

static void p_py_frame(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_py_frame r;
    sst_rec_load(h, &r, sizeof r);
    f_u64(s, "id", r.id);
    f_u64(s, "line", r.line);
    f_u64(s, "first_line", r.first_line);
    f_str(s, "function", r.function);
    f_str(s, "file", r.file);
}

/* Frame ids leaf first: "frames=7,3,1" in text, an array in JSON. Never past the record's
 * size, whatever `depth` claims. */
static void f_frame_ids(struct rec_sink *s, const struct sst_rec_header *h, uint16_t depth)
{
    size_t room = (h->size - sizeof(struct sst_rec_py_stack)) / sizeof(uint32_t);
    size_t n = depth < room ? depth : room;
    const unsigned char *p = (const unsigned char *)h + sizeof(struct sst_rec_py_stack);
    f_key(s, "frames");
    if (s->json) json_begin_array(s->json);
    for (size_t i = 0; i < n; i++) {
        uint32_t id;
        memcpy(&id, p + i * sizeof id, sizeof id);
        if (s->json)
            json_u64(s->json, id);
        else
            fprintf(s->f, "%s%" PRIu32, i ? "," : "", id);
    }
    if (s->json)
        json_end_array(s->json);
    else if (n == 0)
        fputc('-', s->f);
}

static void p_py_stack(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_py_stack r;
    sst_rec_load(h, &r, sizeof r);
    f_u64(s, "id", r.id);
    f_u64(s, "depth", r.depth);
    if (r.flags & SST_PYSTACK_TRUNCATED) f_name(s, "truncated", "yes");
    f_frame_ids(s, h, r.depth);
}

static void p_py_sample(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_py_sample r;
    sst_rec_load(h, &r, sizeof r);
    f_u64(s, "t", r.ts_ns);
    f_u64(s, "tid", r.tid);
    f_u64(s, "stack", r.stack);
    f_u64(s, "lag_us", r.lag_us);
}

static void p_py_call(struct rec_sink *s, const struct sst_rec_header *h)
{
    struct sst_rec_py_call r;
    sst_rec_load(h, &r, sizeof r);
    f_u64(s, "t", r.ts_ns);
    f_u64(s, "tid", r.tid);
    f_u64(s, "stack", r.stack);
    f_u64(s, "correlation", r.correlation);
}

/* ---- dispatch: one printer per kind, from the kinds' table (a kind added to SST_REC_TYPES
 * without its p_<layout> above does not build) ---- */

typedef void (*rec_printer)(struct rec_sink *s, const struct sst_rec_header *h);

static const rec_printer printers[SST_REC_TYPE_LIMIT] = {
#define REC_X_PRINTER(name, num, str, layout, time) [num] = p_##layout,
    SST_REC_TYPES(REC_X_PRINTER)
#undef REC_X_PRINTER
};

static rec_printer printer_for(uint16_t type)
{
    return type < SST_REC_TYPE_LIMIT ? printers[type] : NULL;
}

void rec_print(struct rec_sink *s, const struct sst_rec_header *h)
{
    const char *name = sst_rec_type_name(h->type);
    rec_printer p = printer_for(h->type);
    if (s->json) {
        json_begin_object(s->json);
        json_key(s->json, "type");
        json_string(s->json, name ? name : "unknown");
    } else {
        fprintf(s->f, "%-11s", name ? name : "unknown");
    }
    if (!p) f_u64(s, "type_id", h->type); /* the reader skips these; be safe anyway */
    /* A size beyond the known struct means a newer writer appended fields: worth showing. */
    if (!p || (h->type != SST_REC_STRING && h->type != SST_REC_PY_STACK &&
               h->size > sst_rec_min_size(h->type)))
        f_u64(s, "size", h->size);
    if (p) p(s, h);
    if (s->json) {
        json_end_object(s->json);
        json_finish(s->json);
    } else {
        fputc('\n', s->f);
    }
}
