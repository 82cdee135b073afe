/*
 * ssi_kineto_emit.c — one Kineto event -> stepscope records, filled the way the collector
 * fills them (src/collect/ssc_cupti_convert.c, ssc_nvtx.c), so the analysis cannot tell an
 * import from a native trace except by what Kineto does not record.
 *
 *   kernel               -> KERNEL (name, device, stream, grid/block, registers, shared
 *                           memory — Kineto gives static + dynamic as one sum: shared_static —,
 *                           correlation)
 *   gpu_memcpy           -> MEMCPY (kind and memory kinds from "Memcpy HtoD (Pageable ->
 *                           Device)"; async when the launching API call's name says Async)
 *   gpu_memset           -> MEMSET (likewise)
 *   cuda_runtime/_driver -> API (cbid from args, else from the name; correlation)
 *   cuda_sync            -> SYNC
 *   ProfilerStep#N       -> NVTX push/pop "ProfilerStep#N" (the analysis's profiler steps)
 *   enumerate(DataLoader)#... -> NVTX push/pop "data" in the "stepscope" domain (the
 *                           analysis's data-loading ranges) and the range under its own name
 *   other user_annotation, Optimizer.* -> NVTX push/pop under their name
 *   M thread_name        -> THREAD;  deviceProperties -> DEVICE
 * A range becomes its push immediately followed by its pop: pairs never interleave, so the
 * per-thread stacks of every reader pair them whatever the nesting. Records keep the order
 * of the JSON (Kineto writes host annotations first, then API calls and GPU work
 * interleaved): the analysis reads records in any order (src/analysis/README.md).
 */
#include <stdio.h>
#include <string.h>

#include "analysis/ssa.h"
#include "interop/ssi.h"
#include "ssi_kineto_internal.h"
#include "trace/sst_zstd.h"
#include "util/ss_error.h"

static const char *cat_text(uint8_t cat)
{
    switch (cat) {
    case KC_KERNEL:
        return "kernel";
    case KC_MEMCPY:
        return "gpu_memcpy";
    case KC_MEMSET:
        return "gpu_memset";
    case KC_RUNTIME:
        return "cuda_runtime";
    case KC_DRIVER:
        return "cuda_driver";
    case KC_SYNC:
        return "cuda_sync";
    default:
        return "annotation";
    }
}

static int write_error(struct ki_out *o, char *msg, size_t cap)
{
    int rc = o->w ? sst_writer_error(o->w) : 0;
    if (!rc) rc = SS_EIO;
    snprintf(msg, cap, "cannot write the trace: %s", ss_strerror(rc));
    return rc;
}

static int append(struct ki_out *o, const void *rec, char *msg, size_t cap)
{
    return sst_writer_append(o->w, rec) == 0 ? 0 : write_error(o, msg, cap);
}

#define REC_INIT(var, TYPE)                                                                        \
    memset(&(var), 0, sizeof(var)), (var).h.type = (TYPE), (var).h.size = sizeof(var)

/* ---- the header, the process, the environment ---- */

static int write_env(struct ki_out *o, const char *key, const char *value)
{
    if (!value || !*value) return 0;
    struct sst_rec_env r;
    REC_INIT(r, SST_REC_ENV);
    r.key = sst_writer_intern_cstr(o->w, key);
    r.value = sst_writer_intern_cstr(o->w, value);
    return sst_writer_append(o->w, &r);
}

static int write_device(struct ki_out *o, const struct ki_device *d)
{
    struct sst_rec_device r;
    REC_INIT(r, SST_REC_DEVICE);
    r.device = (uint32_t)d->id; /* 0..0xFFFE: ki_add_device */
    r.name = sst_writer_intern_cstr(o->w, d->name);
    r.sm_count = d->sms > 0 && d->sms <= UINT32_MAX ? (uint32_t)d->sms : 0;
    r.cc_major = d->cc_major > 0 && d->cc_major <= UINT16_MAX ? (uint16_t)d->cc_major : 0;
    r.cc_minor = d->cc_minor > 0 && d->cc_minor <= UINT16_MAX ? (uint16_t)d->cc_minor : 0;
    r.global_mem = d->total_mem > 0 ? (uint64_t)d->total_mem : 0;
    return sst_writer_append(o->w, &r); /* no UUID, clocks or PCI bus in Kineto */
}

int ki_add_device(struct ki_out *o, const struct ki_device *d)
{
    if (d->id < 0 || d->id > 0xFFFE || o->n_dev >= KI_MAX_DEVICES)
        return 0; /* no usable id: nothing records could refer to */
    o->dev[o->n_dev++] = *d;
    if (!o->w) return 0; /* written when the writer opens */
    o->n_dev_written = o->n_dev;
    return write_device(o, d);
}

static int write_process(struct ki_out *o)
{
    struct sst_rec_process r;
    REC_INIT(r, SST_REC_PROCESS);
    r.pid = o->pid;
    r.rank = o->rank, r.local_rank = -1, r.world_size = o->world_size;
    r.start_ns = o->first_ns;
    return sst_writer_append(o->w, &r); /* host name and command line: not in Kineto */
}

static int write_preamble(struct ki_out *o)
{
    int rc = write_process(o);
    if (!rc) rc = write_env(o, "import.format", "kineto-json");
    if (!rc) rc = write_env(o, "import.source", o->src_name);
    if (!rc)
        rc = write_env(o, "import.clock",
                       o->have_base ? "unix_ns (baseTimeNanoseconds + ts)"
                                    : "kineto_ns (ts, no base time)");
    if (!rc) rc = write_env(o, "driver_version", o->driver_ver);
    if (!rc) rc = write_env(o, "runtime_version", o->runtime_ver);
    if (!rc) rc = write_env(o, "cupti.version", o->cupti_ver);
    for (; !rc && o->n_dev_written < o->n_dev; o->n_dev_written++)
        rc = write_device(o, &o->dev[o->n_dev_written]);
    return rc;
}

/* The writer, on the temporary file, once the first record must be written. */
static int open_writer(struct ki_out *o, uint64_t first_ns, char *msg, size_t cap)
{
    struct sst_writer_opts wo;
    memset(&wo, 0, sizeof wo);
    wo.features = SST_FEAT_CUPTI | SST_FEAT_NVTX;
    /* Kineto's clock is CLOCK_REALTIME-based, not the collector's monotonic one: the header's
     * "synthetic" says the times were not read on this clock by a collector (docs/interop.md) */
    wo.clock = SST_CLOCK_SYNTHETIC;
    wo.pid = o->pid; /* unknown (no host event yet): 0, the writer puts the importer's */
    wo.start_mono_ns = first_ns ? first_ns : 1;
    wo.start_unix_ns = wo.start_mono_ns; /* unix ns when baseTimeNanoseconds came first */
    if (sst_zstd_compressor_init(&o->zc, 3) == 0) wo.compressor = o->zc;
    o->first_ns = first_ns;
    int fd = o->fd;
    o->fd = -1; /* the writer owns it from here, even when opening fails */
    int rc = sst_writer_open_fd(fd, &wo, &o->w);
    if (rc) return snprintf(msg, cap, "cannot write the trace: %s", ss_strerror(rc)), rc;
    rc = write_preamble(o);
    return rc ? write_error(o, msg, cap) : 0;
}

/* ---- checks ---- */

static int is_host_cat(uint8_t cat)
{
    return cat == KC_RUNTIME || cat == KC_DRIVER || cat == KC_CPU_OP || cat == KC_USER_ANNOTATION ||
           cat == KC_PYTHON;
}

static const char *field_name(uint32_t bit)
{
    static const char *const names[] = {"ph", "cat", "name", "pid", "tid", "ts", "dur"};
    for (int i = 0; i < 7; i++)
        if (bit == 1u << i) return names[i];
    return "args";
}

/* The event has every field of `need`, none of those it uses (`use`) is bad. */
static int check_fields(const struct ki_event *e, uint32_t need, uint32_t use, char *msg,
                        size_t cap)
{
    if (e->bad & (need | use)) return snprintf(msg, cap, "%s", e->bad_msg), SS_EINVAL;
    uint32_t missing = need & ~e->have;
    if (!missing) return 0;
    snprintf(msg, cap, "traceEvents[%llu] (%s): no \"%s\"", (unsigned long long)e->index,
             cat_text(e->cat), field_name(missing & -missing));
    return SS_EINVAL;
}

/* An integer of args within [lo, hi]; 0 or SS_EINVAL. Absent: the default stays. */
static int arg_range(const struct ki_event *e, uint32_t bit, int64_t v, int64_t lo, int64_t hi,
                     const char *name, char *msg, size_t cap)
{
    if (!(e->have & bit) || (v >= lo && v <= hi)) return 0;
    snprintf(msg, cap, "traceEvents[%llu]: args.%s = %lld is out of range",
             (unsigned long long)e->index, name, (long long)v);
    return SS_EINVAL;
}

/* An event's ts (relative to baseTimeNanoseconds) as the trace's ns; -1 when out of range.
 * Both terms are within 2^62 (ki_parse_scaled): the comparison cannot overflow. */
static int abs_time(const struct ki_out *o, int64_t rel, uint64_t *out)
{
    int64_t base = o->have_base ? o->base_ns : 0;
    if (rel < -base || rel > KI_TS_LIMIT - base) return -1;
    *out = (uint64_t)(rel + base);
    return 0;
}

/* [start, end] in the trace's ns from ts/dur, checked; opens the writer at the first. */
static int event_span(struct ki_out *o, const struct ki_event *e, uint64_t *t0, uint64_t *t1,
                      char *msg, size_t cap)
{
    if (e->dur < 0)
        return snprintf(msg, cap, "traceEvents[%llu]: negative \"dur\"",
                        (unsigned long long)e->index),
               SS_EINVAL;
    if (abs_time(o, e->ts, t0) != 0)
        return snprintf(msg, cap, "traceEvents[%llu]: \"ts\" is out of range",
                        (unsigned long long)e->index),
               SS_EINVAL;
    *t1 = *t0 + (uint64_t)e->dur; /* both at most 2^62: no overflow */
    if (!o->w) {
        int rc = open_writer(o, *t0, msg, cap);
        if (rc) return rc;
    }
    if (*t1 > o->last_ns) o->last_ns = *t1;
    return 0;
}

static uint16_t dev16(const struct ki_event *e, int64_t v, uint32_t bit)
{
    return (e->have & bit) ? (uint16_t)v : 0xFFFF; /* 0xFFFF: unknown (trace format) */
}

/* ---- GPU work ---- */

static int emit_kernel(struct ki_out *o, const struct ki_event *e, char *msg, size_t cap)
{
    const uint32_t use = KF_DEVICE | KF_STREAM | KF_CORR | KF_REGS | KF_SHMEM | KF_GRID | KF_BLOCK;
    int rc = check_fields(e, KF_NAME | KF_TS | KF_DUR, use, msg, cap);
    if (!rc) rc = arg_range(e, KF_DEVICE, e->device, 0, 0xFFFE, "device", msg, cap);
    if (!rc) rc = arg_range(e, KF_STREAM, e->stream, 0, UINT32_MAX, "stream", msg, cap);
    if (!rc) rc = arg_range(e, KF_CORR, e->corr, 0, UINT32_MAX, "correlation", msg, cap);
    if (!rc) rc = arg_range(e, KF_REGS, e->regs, 0, UINT16_MAX, "registers per thread", msg, cap);
    if (!rc) rc = arg_range(e, KF_SHMEM, e->shmem, 0, UINT32_MAX, "shared memory", msg, cap);
    for (int i = 0; i < 3 && !rc; i++) {
        rc = arg_range(e, KF_GRID, e->grid[i], 0, UINT32_MAX, "grid", msg, cap);
        if (!rc) rc = arg_range(e, KF_BLOCK, e->block[i], 0, UINT16_MAX, "block", msg, cap);
    }
    struct sst_rec_kernel k;
    REC_INIT(k, SST_REC_KERNEL);
    if (!rc) rc = event_span(o, e, &k.start_ns, &k.end_ns, msg, cap);
    if (rc) return rc;
    k.name = sst_writer_intern(o->w, e->name, e->name_len);
    k.correlation = (uint32_t)e->corr, k.stream = (uint32_t)e->stream;
    for (int i = 0; i < 3; i++)
        k.grid[i] = (uint32_t)e->grid[i], k.block[i] = (uint16_t)e->block[i];
    k.registers = (uint16_t)e->regs, k.shared_static = (uint32_t)e->shmem;
    k.device = dev16(e, e->device, KF_DEVICE);
    return append(o, &k, msg, cap);
}

/* Copies and memsets wait for their API call (which says async or not) in a short queue;
 * usually it came first. A full queue, or the end, writes them as issued synchronously
 * (flags 0), the collector's reading when CUPTI sets no async flag. */
static int write_pending(struct ki_out *o, size_t i, int async, char *msg, size_t cap)
{
    struct ki_pending *p = &o->pending[i];
    if (p->type == SST_REC_MEMCPY)
        p->r.c.flags = async ? SST_CF_ASYNC : 0;
    else
        p->r.s.flags = async ? SST_CF_ASYNC : 0;
    int rc = append(o, &p->r, msg, cap);
    memmove(p, p + 1, (o->n_pending - i - 1) * sizeof *p);
    o->n_pending--;
    return rc;
}

/* 1 + async for a correlation id whose API call was seen, else 0. */
static int api_async(const struct ki_out *o, uint32_t corr)
{
    size_t slot = corr & (KI_CORR_SLOTS - 1);
    return corr && o->corr_key[slot] == corr ? o->corr_async[slot] : 0;
}

static int emit_gpu_op(struct ki_out *o, uint32_t corr, uint16_t type, const void *rec, char *msg,
                       size_t cap)
{
    int known = api_async(o, corr);
    struct ki_pending *p = &o->pending[o->n_pending];
    if (known || !corr) { /* write now */
        struct ki_pending now;
        memset(&now, 0, sizeof now);
        memcpy(&now.r, rec, type == SST_REC_MEMCPY ? sizeof now.r.c : sizeof now.r.s);
        if (type == SST_REC_MEMCPY)
            now.r.c.flags = known == 2 ? SST_CF_ASYNC : 0;
        else
            now.r.s.flags = known == 2 ? SST_CF_ASYNC : 0;
        return append(o, &now.r, msg, cap);
    }
    if (o->n_pending == KI_PENDING) {
        int rc = write_pending(o, 0, 0, msg, cap);
        if (rc) return rc;
        p = &o->pending[o->n_pending];
    }
    p->corr = corr, p->type = type;
    memcpy(&p->r, rec, type == SST_REC_MEMCPY ? sizeof p->r.c : sizeof p->r.s);
    o->n_pending++;
    return 0;
}

static int copy_ranges(const struct ki_event *e, char *msg, size_t cap)
{
    int rc = arg_range(e, KF_DEVICE, e->device, 0, 0xFFFE, "device", msg, cap);
    if (!rc) rc = arg_range(e, KF_SRC_DEV, e->src_dev, 0, 0xFFFE, "fromDevice", msg, cap);
    if (!rc) rc = arg_range(e, KF_DST_DEV, e->dst_dev, 0, 0xFFFE, "toDevice", msg, cap);
    if (!rc) rc = arg_range(e, KF_STREAM, e->stream, 0, UINT32_MAX, "stream", msg, cap);
    if (!rc) rc = arg_range(e, KF_CORR, e->corr, 0, UINT32_MAX, "correlation", msg, cap);
    if (!rc) rc = arg_range(e, KF_BYTES, e->bytes, 0, KI_TS_LIMIT, "bytes", msg, cap);
    return rc;
}

static int emit_memcpy(struct ki_out *o, const struct ki_event *e, char *msg, size_t cap)
{
    const uint32_t use = KF_DEVICE | KF_SRC_DEV | KF_DST_DEV | KF_STREAM | KF_CORR | KF_BYTES;
    int rc = check_fields(e, KF_NAME | KF_TS | KF_DUR, use, msg, cap);
    if (!rc) rc = copy_ranges(e, msg, cap);
    struct sst_rec_memcpy m;
    REC_INIT(m, SST_REC_MEMCPY);
    if (!rc) rc = event_span(o, e, &m.start_ns, &m.end_ns, msg, cap);
    if (rc) return rc;
    ki_memcpy_kinds(e->name, e->name_len, &m.copy_kind, &m.src_kind, &m.dst_kind);
    m.bytes = (uint64_t)e->bytes;
    m.correlation = (uint32_t)e->corr, m.stream = (uint32_t)e->stream;
    m.device = dev16(e, e->device, KF_DEVICE);
    m.src_device = (e->have & KF_SRC_DEV) ? (uint16_t)e->src_dev : m.device;
    m.dst_device = (e->have & KF_DST_DEV) ? (uint16_t)e->dst_dev : m.device;
    return emit_gpu_op(o, m.correlation, SST_REC_MEMCPY, &m, msg, cap);
}

static int emit_memset(struct ki_out *o, const struct ki_event *e, char *msg, size_t cap)
{
    int rc = check_fields(e, KF_NAME | KF_TS | KF_DUR, KF_DEVICE | KF_STREAM | KF_CORR | KF_BYTES,
                          msg, cap);
    if (!rc) rc = copy_ranges(e, msg, cap);
    struct sst_rec_memset m;
    REC_INIT(m, SST_REC_MEMSET);
    if (!rc) rc = event_span(o, e, &m.start_ns, &m.end_ns, msg, cap);
    if (rc) return rc;
    m.mem_kind = ki_memset_kind(e->name, e->name_len);
    m.device = dev16(e, e->device, KF_DEVICE);
    m.bytes = (uint64_t)e->bytes;
    m.correlation = (uint32_t)e->corr, m.stream = (uint32_t)e->stream;
    return emit_gpu_op(o, m.correlation, SST_REC_MEMSET, &m, msg, cap); /* value: not in Kineto */
}

static int emit_sync(struct ki_out *o, const struct ki_event *e, char *msg, size_t cap)
{
    int rc = check_fields(e, KF_TS | KF_DUR,
                          KF_NAME | KF_DEVICE | KF_STREAM | KF_CORR | KF_EVENT_ID, msg, cap);
    if (!rc) rc = arg_range(e, KF_DEVICE, e->device, 0, 0xFFFE, "device", msg, cap);
    if (!rc) rc = arg_range(e, KF_STREAM, e->stream, -1, UINT32_MAX, "stream", msg, cap);
    if (!rc) rc = arg_range(e, KF_CORR, e->corr, 0, UINT32_MAX, "correlation", msg, cap);
    if (!rc)
        rc = arg_range(e, KF_EVENT_ID, e->event_id, 0, UINT32_MAX, "wait_on_cuda_event_id", msg,
                       cap);
    struct sst_rec_sync r;
    REC_INIT(r, SST_REC_SYNC);
    if (!rc) rc = event_span(o, e, &r.start_ns, &r.end_ns, msg, cap);
    if (rc) return rc;
    r.kind = (e->have & KF_NAME) ? ki_sync_kind(e->name, e->name_len) : SST_SYNC_UNKNOWN;
    r.device = dev16(e, e->device, KF_DEVICE);
    r.stream = (e->have & KF_STREAM) && e->stream >= 0 ? (uint32_t)e->stream : 0xFFFFFFFFu;
    r.correlation = (uint32_t)e->corr;
    r.event = (uint32_t)e->event_id;
    return append(o, &r, msg, cap);
}

/* ---- host ---- */

static uint32_t host_tid(const struct ki_event *e)
{
    return e->tid_num && e->tid >= 0 && e->tid <= UINT32_MAX ? (uint32_t)e->tid : 0;
}

/* Remembers whether the call with this correlation id was async, and writes the copies
 * and memsets that waited for it. */
static int note_api(struct ki_out *o, uint32_t corr, int async, char *msg, size_t cap)
{
    if (!corr) return 0;
    size_t slot = corr & (KI_CORR_SLOTS - 1);
    o->corr_key[slot] = corr;
    o->corr_async[slot] = (uint8_t)(1 + async);
    for (size_t i = 0; i < o->n_pending;) {
        if (o->pending[i].corr != corr) {
            i++;
            continue;
        }
        int rc = write_pending(o, i, async, msg, cap);
        if (rc) return rc;
    }
    return 0;
}

static int emit_api(struct ki_out *o, const struct ki_event *e, char *msg, size_t cap)
{
    int rc = check_fields(e, KF_TS | KF_DUR, KF_NAME | KF_CBID | KF_CORR | KF_TID, msg, cap);
    if (!rc) rc = arg_range(e, KF_CBID, e->cbid, 0, UINT32_MAX, "cbid", msg, cap);
    if (!rc) rc = arg_range(e, KF_CORR, e->corr, 0, UINT32_MAX, "correlation", msg, cap);
    struct sst_rec_api a;
    REC_INIT(a, SST_REC_API);
    if (!rc) rc = event_span(o, e, &a.start_ns, &a.end_ns, msg, cap);
    if (rc) return rc;
    a.domain = e->cat == KC_DRIVER ? SST_API_DRIVER : SST_API_RUNTIME;
    a.tid = host_tid(e);
    a.correlation = (uint32_t)e->corr; /* result: Kineto does not record it (0 = success) */
    /* a HIP call's cbid is roctracer's, not CUPTI's: not classed rather than misclassed */
    int hip = (e->have & KF_NAME) && e->name_len >= 3 && memcmp(e->name, "hip", 3) == 0;
    if ((e->have & KF_CBID) && !hip)
        a.cbid = (uint32_t)e->cbid;
    else if ((e->have & KF_NAME) && !hip)
        a.cbid = ki_cbid_of(a.domain, e->name, e->name_len);
    if (!a.cbid) o->unknown_cbid++;
    const char *known = ssa_api_name(a.domain, a.cbid);
    int async = (e->have & KF_NAME) ? memmem(e->name, e->name_len, "Async", 5) != NULL
                                    : known && strstr(known, "Async");
    rc = append(o, &a, msg, cap);
    return rc ? rc : note_api(o, a.correlation, async, msg, cap);
}

static int write_nvtx(struct ki_out *o, uint16_t type, uint32_t tid, uint64_t ts, uint32_t domain,
                      uint32_t message)
{
    struct sst_rec_nvtx r;
    REC_INIT(r, type);
    r.tid = tid, r.ts_ns = ts, r.domain = domain, r.message = message;
    return sst_writer_append(o->w, &r);
}

/* A push immediately followed by its pop (see the top of this file). */
static int write_range(struct ki_out *o, uint32_t tid, uint64_t t0, uint64_t t1, uint32_t domain,
                       uint32_t message)
{
    int rc = write_nvtx(o, SST_REC_NVTX_PUSH, tid, t0, domain, message);
    return rc ? rc : write_nvtx(o, SST_REC_NVTX_POP, tid, t1, domain, SST_NO_STRING);
}

/* The "stepscope" domain and its "data" message, announced once like the collector does. */
static int data_ids(struct ki_out *o, uint64_t ts)
{
    if (o->dom_stepscope) return 0;
    o->dom_stepscope = sst_writer_intern_cstr(o->w, "stepscope");
    o->msg_data = sst_writer_intern_cstr(o->w, "data");
    struct sst_rec_nvtx_domain d;
    REC_INIT(d, SST_REC_NVTX_DOMAIN);
    d.name = o->dom_stepscope, d.ts_ns = ts;
    return sst_writer_append(o->w, &d);
}

static int emit_range(struct ki_out *o, const struct ki_event *e, char *msg, size_t cap)
{
    if (!(e->have & KF_NAME) || (e->bad & KF_NAME)) return o->skipped_cpu++, 0;
    enum ki_range kind = ki_range_kind(e->cat, e->name, e->name_len);
    if (kind == KR_SKIP) return o->skipped_cpu++, 0;
    uint64_t t0, t1;
    int rc = check_fields(e, KF_TS | KF_DUR, KF_TID, msg, cap);
    if (!rc) rc = event_span(o, e, &t0, &t1, msg, cap);
    if (rc) return rc;
    uint32_t tid = host_tid(e);
    if (kind == KR_DATA) { /* the analysis's data-loading range, then the name for people */
        rc = data_ids(o, t0);
        if (!rc) rc = write_range(o, tid, t0, t1, o->dom_stepscope, o->msg_data);
    }
    if (!rc)
        rc = write_range(o, tid, t0, t1, SST_NO_STRING,
                         sst_writer_intern(o->w, e->name, e->name_len));
    return rc ? write_error(o, msg, cap) : 0;
}

static int meta_is(const struct ki_event *e, const char *what)
{
    size_t n = strlen(what);
    return (e->have & KF_NAME) && e->name_len == n && memcmp(e->name, what, n) == 0;
}

/* "process_name" of the profiled process: its name as the command (Kineto keeps no command
 * line), through a second PROCESS record — the analysis keeps the first that names one. */
static int emit_process_name(struct ki_out *o, const struct ki_event *e, char *msg, size_t cap)
{
    if (!(e->have & KF_ARG_NAME) || !e->arg_name_len) return 0;
    struct sst_rec_process r;
    REC_INIT(r, SST_REC_PROCESS);
    r.pid = o->pid;
    r.rank = o->rank, r.local_rank = -1, r.world_size = o->world_size;
    r.start_ns = o->first_ns;
    r.cmdline = sst_writer_intern(o->w, e->arg_name, e->arg_name_len);
    return append(o, &r, msg, cap);
}

/* "thread_name" of a host thread of the profiled process -> THREAD; its "process_name" ->
 * the command. */
static int emit_meta(struct ki_out *o, const struct ki_event *e, char *msg, size_t cap)
{
    if (!o->w || !o->have_pid || !e->pid_num || e->pid != o->pid) return 0;
    if (meta_is(e, "process_name")) return emit_process_name(o, e, msg, cap);
    if (!meta_is(e, "thread_name") || !host_tid(e) || !(e->have & KF_ARG_NAME)) return 0;
    const char *name;
    size_t len;
    ki_thread_name(e->arg_name, e->arg_name_len, &name, &len);
    struct sst_rec_thread r;
    REC_INIT(r, SST_REC_THREAD);
    r.tid = host_tid(e);
    r.name = sst_writer_intern(o->w, name, len);
    uint64_t ts;
    int ok = (e->have & KF_TS) && !(e->bad & KF_TS) && abs_time(o, e->ts, &ts) == 0;
    r.ts_ns = ok && ts ? ts : o->first_ns;
    return append(o, &r, msg, cap);
}

/* ---- dispatch ---- */

static int recognised(const struct ki_event *e)
{
    return e->ph == 'M' || (e->cat != KC_NONE && e->cat != KC_OTHER);
}

/* ---- damage: events left out, counted (issue #41) ---- */

/* Every field the import keeps of a GPU event or API call, hashed (0 is never returned). */
static uint64_t event_key(const struct ki_event *e)
{
    uint64_t h = ssi_hash_mix(e->cat, (uint64_t)e->ts);
    const int64_t v[] = {e->dur, e->tid, e->device, e->stream, e->corr, e->bytes, e->cbid,
                         e->grid[0], e->grid[1], e->grid[2], e->block[0], e->block[1], e->block[2]};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) h = ssi_hash_mix(h, (uint64_t)v[i]);
    size_t i = 0; /* the name 8 bytes a step: kernel names run to hundreds of bytes */
    for (; i + 8 <= e->name_len; i += 8) {
        uint64_t w;
        memcpy(&w, e->name + i, 8);
        h = ssi_hash_mix(h, w);
    }
    for (; i < e->name_len; i++) h = ssi_hash_mix(h, (unsigned char)e->name[i]);
    return h ? h : 1;
}

static int is_work(uint8_t cat)
{
    return cat == KC_KERNEL || cat == KC_MEMCPY || cat == KC_MEMSET || cat == KC_RUNTIME ||
           cat == KC_DRIVER || cat == KC_SYNC;
}

/* 1 when the event cannot be one of the capture: a GPU event or API call before the time base
 * (Kineto's ts count from it: a negative one is impossible), or an exact repeat of a recent
 * one (a kernel cannot run twice at the same instant on its stream). Counted, left out. */
static int left_out(struct ki_out *o, const struct ki_event *e)
{
    if (e->ph != 'X' || !is_work(e->cat) || !(e->have & KF_TS) || (e->bad & KF_TS)) return 0;
    if (o->have_base && e->ts < 0) {
        if (!o->impossible++)
            snprintf(o->first_impossible, sizeof o->first_impossible,
                     "traceEvents[%llu] (%s) at ts %lld ns, before the time base",
                     (unsigned long long)e->index, cat_text(e->cat), (long long)e->ts);
        return 1;
    }
    uint64_t key = event_key(e), *slot = &o->seen[key & (KI_SEEN_SLOTS - 1)];
    if (*slot != key) return *slot = key, 0;
    if (!o->repeats++)
        snprintf(o->first_repeat, sizeof o->first_repeat, "traceEvents[%llu] (%s)",
                 (unsigned long long)e->index, cat_text(e->cat));
    return 1;
}

/* The import's own damage as DAMAGE records, so every reader of the trace says it. */
static int write_damage(struct ki_out *o)
{
    int rc = 0;
    if (o->truncated_at)
        rc = sst_writer_damage(o->w, SST_DAMAGE_TRUNCATED, 1, o->truncated_at,
                               o->cut_msg[0] ? o->cut_msg : "the capture ends inside its document");
    if (!rc && o->repeats)
        rc = sst_writer_damage(o->w, SST_DAMAGE_DUPLICATE, o->repeats, UINT64_MAX, o->first_repeat);
    if (!rc && o->impossible)
        rc = sst_writer_damage(o->w, SST_DAMAGE_INCONSISTENT, o->impossible, UINT64_MAX,
                               o->first_impossible);
    return rc;
}

int ki_emit_event(struct ki_out *o, const struct ki_event *e, char *msg, size_t cap)
{
    o->events++;
    o->recognised += recognised(e);
    if (!o->have_pid && is_host_cat(e->cat) && e->pid_num && e->pid > 0 && e->pid <= UINT32_MAX)
        o->pid = (uint32_t)e->pid, o->have_pid = 1;
    if (e->ph == 'M') return emit_meta(o, e, msg, cap);
    if (e->ph != 'X') return o->skipped_other++, 0; /* flows, instants, counters */
    if (left_out(o, e)) return 0;
    switch (e->cat) {
    case KC_KERNEL:
        return o->imported++, emit_kernel(o, e, msg, cap);
    case KC_MEMCPY:
        return o->imported++, emit_memcpy(o, e, msg, cap);
    case KC_MEMSET:
        return o->imported++, emit_memset(o, e, msg, cap);
    case KC_RUNTIME:
    case KC_DRIVER:
        return o->imported++, emit_api(o, e, msg, cap);
    case KC_SYNC:
        return o->imported++, emit_sync(o, e, msg, cap);
    case KC_USER_ANNOTATION:
    case KC_CPU_OP:
    case KC_PYTHON:
        return emit_range(o, e, msg, cap);
    default:
        return o->skipped_other++, 0;
    }
}

static int write_count(struct ki_out *o, const char *key, uint64_t n)
{
    char v[24];
    snprintf(v, sizeof v, "%llu", (unsigned long long)n);
    return write_env(o, key, v);
}

int ki_emit_finish(struct ki_out *o, char *msg, size_t cap)
{
    if (!o->w) return 0;
    int rc = 0;
    while (!rc && o->n_pending)
        rc = write_pending(o, 0, 0, msg, cap);
    if (rc) return rc;
    rc = write_count(o, "import.events", o->events);
    if (!rc) rc = write_count(o, "import.skipped_host_ops", o->skipped_cpu);
    if (!rc) rc = write_count(o, "import.skipped_other", o->skipped_other);
    if (!rc && o->unknown_cbid) rc = write_count(o, "import.unknown_api_names", o->unknown_cbid);
    if (!rc && o->base_late) rc = write_env(o, "import.base_time", "ignored: after the events");
    if (!rc && o->truncated_at) rc = write_count(o, "import.truncated_at", o->truncated_at);
    if (!rc) rc = write_damage(o);
    return rc ? write_error(o, msg, cap) : 0;
}
