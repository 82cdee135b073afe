/*
 * ssi_perfetto.c — stepscope trace -> Chrome Trace Event JSON, which Perfetto UI
 * (ui.perfetto.dev) and chrome://tracing open (`stepscope export --format perfetto`).
 *
 * Streamed: each record becomes its event as the reader meets it, so memory does not grow
 * with the trace (the JSON writer keeps a nesting stack; the per-process tables below hold
 * one entry per GPU stream and per process). Records are dispatched from one table indexed
 * by record type (k_handlers). Layout:
 *   - the training process (its pid): one track per host thread, named from THREAD records;
 *     CUDA API calls as slices, NVTX push/pop as nested slices, NVTX start/end as async
 *     slices, marks as instants; STEP records on a "steps" track; host CPU and RSS counters;
 *   - one pseudo-process per GPU (pid SSX_GPU_PID + device), one track per stream: kernels,
 *     copies and memsets; a flow arrow from each launch call to its GPU work (correlation);
 *   - a "stepscope attribution" track: one slice per step, its args the milliseconds per
 *     category from the analysis the caller passes in (the same reader, analysed first);
 *   - per thread with Python stack samples a "Python stacks" track (tid SSX_PY_TID + tid): one
 *     slice per sample over the time it stands for (they tile the thread's time), named by its
 *     first user frame (else its leaf), the whole stack in its args (ssa_pystream).
 * Timestamps are microseconds (with ns decimals) since the trace's first event. Every string
 * from the trace goes through the JSON writer's escaping.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ssa.h"
#include "interop/ssi.h"
#include "interop/ssi_window.h"
#include "trace/sst_format.h"
#include "trace/sst_names.h"
#include "trace/sst_reader.h"
#include "util/json_out.h"
#include "util/ss_cxxname.h"
#include "util/ss_error.h"

#define SSX_GPU_PID 0x40000000u   /* pseudo pid of GPU d: SSX_GPU_PID + d */
#define SSX_ATTR_TID 0x7ffffff0u  /* the attribution track of the training process */
#define SSX_STEPS_TID 0x7ffffff1u /* STEP records */
#define SSX_MAX_LANES 4096        /* named GPU streams kept (beyond: unnamed, still drawn) */
#define SSX_RANGE_SLOTS 1024      /* NVTX start/end ranges remembered by id */
#define SSX_PY_TID 0x20000000u    /* the Python stacks track of thread t: SSX_PY_TID + t (kernel
                                   * thread ids stay below 2^22) */
#define SSX_PY_TRACKS 1024        /* Python tracks named (beyond: unnamed, still drawn) */

struct lane {
    uint32_t device, stream;
};

#define SSX_NAME_SLOTS 4096

struct exporter {
    struct sst_reader *r;
    const struct ssi_merge *merge; /* one of several traces on one timeline, or NULL */
    struct ssi_window *win; /* the part written (NULL: all) */
    const char *win_desc;
    struct json_out j;
    uint64_t t0;  /* first event's time: the zero of the timeline */
    uint32_t pid; /* the training process (0 until its PROCESS record) */
    struct lane lanes[SSX_MAX_LANES];
    size_t n_lanes;
    uint64_t gpus; /* bit d: GPU d's process named */
    uint64_t last_cpu_ns, last_sample_ns;
    uint64_t events;
    /* NVTX start/end ranges pair by range id and may cross threads: the start's message is
     * kept in a small table (bounded; an end whose start was evicted gets a generic name) */
    struct {
        uint64_t id;
        uint32_t message;
    } ranges[SSX_RANGE_SLOTS];
    struct ssa_pystream *py; /* NULL until the first Python stack record */
    struct ssa_pyrate py_rate; /* the trace's sampling rates (0: unknown) */
    uint32_t py_tracks[SSX_PY_TRACKS];
    size_t n_py_tracks;
    /* kernel names demangled once per string id (open addressing; a full table demangles
     * the rest on every use): slot state 0 empty, 1 not mangled, 2 demangled in dem */
    struct {
        uint32_t id;
        uint8_t state;
        char *dem;
    } names[SSX_NAME_SLOTS];
    int err;
};

/* ---- small writers ---- */

/* Nanoseconds since the trace's zero (negative for the rare record before it); in a merged
 * export, of its time on the common clock since the common zero. */
static int64_t rel_ns(const struct exporter *x, uint64_t t)
{
    if (x->merge) return ssi_merge_rel_ns(x->merge, t);
    return t >= x->t0 ? (int64_t)(t - x->t0) : -(int64_t)(x->t0 - t);
}

/* A pid as written: in a merged export, the trace's own (its process, or its GPU d). */
static uint64_t out_pid(const struct exporter *x, uint64_t pid)
{
    if (!x->merge) return pid;
    if (pid >= SSX_GPU_PID) return SSI_MERGE_PID(x->merge->slot, 1 + (pid - SSX_GPU_PID) % 63);
    return SSI_MERGE_PID(x->merge->slot, 0);
}

static const char *str(const struct exporter *x, uint32_t id, uint32_t *len)
{
    const char *s = sst_reader_string(x->r, id, len);
    if (!s) *len = 0;
    return s;
}

/* Opens one event object: {"ph":ph,"pid":pid,"tid":tid,"ts":t[,"name":...]} (left open). */
static void ev_begin(struct exporter *x, const char *ph, uint64_t pid, uint64_t tid, uint64_t t)
{
    json_begin_object(&x->j);
    json_kv_string(&x->j, "ph", ph);
    json_kv_u64(&x->j, "pid", out_pid(x, pid));
    json_kv_u64(&x->j, "tid", tid);
    json_key(&x->j, "ts");
    json_ns_as_us(&x->j, rel_ns(x, t));
    x->events++;
}

static void ev_name_id(struct exporter *x, uint32_t id, const char *fallback)
{
    uint32_t len;
    const char *s = str(x, id, &len);
    json_key(&x->j, "name");
    if (s && len)
        json_string_n(&x->j, s, len);
    else
        json_string(&x->j, fallback);
}

/* The demangled name of string id (NULL: not a mangled name, show it as it is); owned by the
 * cache, or *tmp (the caller frees) when the cache is full. */
static const char *demangled(struct exporter *x, uint32_t id, char **tmp)
{
    *tmp = NULL;
    size_t i = (id * 2654435761u) & (SSX_NAME_SLOTS - 1);
    for (size_t probe = 0; probe < 64; probe++, i = (i + 1) & (SSX_NAME_SLOTS - 1)) {
        if (x->names[i].state && x->names[i].id == id) return x->names[i].dem;
        if (x->names[i].state) continue;
        uint32_t len;
        const char *s = str(x, id, &len);
        x->names[i].id = id;
        x->names[i].dem = s ? ss_demangle(s, len) : NULL;
        x->names[i].state = x->names[i].dem ? 2 : 1;
        return x->names[i].dem;
    }
    uint32_t len;
    const char *s = str(x, id, &len);
    return *tmp = s ? ss_demangle(s, len) : NULL;
}

/* A kernel's name: demangled when it is a C++ mangled name (the mangled one goes in its args,
 * ev_mangled), else as the trace holds it. */
static void ev_kernel_name(struct exporter *x, uint32_t id)
{
    char *tmp;
    const char *dem = demangled(x, id, &tmp);
    if (dem)
        json_kv_string(&x->j, "name", dem);
    else
        ev_name_id(x, id, "kernel");
    free(tmp);
}

static void ev_mangled(struct exporter *x, uint32_t id)
{
    char *tmp;
    const char *dem = demangled(x, id, &tmp);
    free(tmp);
    uint32_t len;
    const char *s = dem ? str(x, id, &len) : NULL;
    if (!s) return;
    json_key(&x->j, "mangled");
    json_string_n(&x->j, s, len);
}

static void ev_dur(struct exporter *x, uint64_t start, uint64_t end)
{
    json_key(&x->j, "dur");
    json_ns_as_us(&x->j, end > start ? (int64_t)(end - start) : 0);
}

/* A metadata event naming a process (tid 0) or a thread. */
static void name_meta(struct exporter *x, const char *what, uint64_t pid, uint64_t tid,
                      const char *name, size_t len)
{
    json_begin_object(&x->j);
    json_kv_string(&x->j, "ph", "M");
    json_kv_string(&x->j, "name", what);
    json_kv_u64(&x->j, "pid", out_pid(x, pid));
    json_kv_u64(&x->j, "tid", tid);
    json_key(&x->j, "args");
    json_begin_object(&x->j);
    json_key(&x->j, "name");
    json_string_n(&x->j, name, len);
    json_end_object(&x->j);
    json_end_object(&x->j);
}

/* Names GPU d's pseudo-process and the stream's track the first time they appear. */
static uint64_t gpu_track(struct exporter *x, uint32_t device, uint32_t stream)
{
    uint64_t pid = SSX_GPU_PID + (device & 0xffff);
    char buf[64];
    if (device < 64 && !(x->gpus >> device & 1)) {
        x->gpus |= 1ull << device;
        char big[192];
        int n = snprintf(big, sizeof big, "%s%sGPU %" PRIu32, x->merge ? x->merge->label : "",
                         x->merge ? " " : "", device);
        name_meta(x, "process_name", pid, 0, big, n < (int)sizeof big ? (size_t)n : sizeof big - 1);
    }
    for (size_t i = 0; i < x->n_lanes; i++)
        if (x->lanes[i].device == device && x->lanes[i].stream == stream) return pid;
    if (x->n_lanes < SSX_MAX_LANES) {
        x->lanes[x->n_lanes++] = (struct lane){device, stream};
        int n = snprintf(buf, sizeof buf, "stream %" PRIu32, stream);
        name_meta(x, "thread_name", pid, stream, buf, (size_t)n);
    }
    return pid;
}

/* The end of a flow arrow from the launch with this correlation id. */
static void flow(struct exporter *x, const char *ph, uint64_t pid, uint64_t tid, uint64_t t,
                 uint32_t corr)
{
    if (!corr) return;
    ev_begin(x, ph, pid, tid, t);
    json_kv_string(&x->j, "name", "launch");
    json_kv_string(&x->j, "cat", "launch");
    json_kv_u64(&x->j, "id", x->merge ? (uint64_t)x->merge->slot << 32 | corr : corr);
    if (ph[0] == 'f') json_kv_string(&x->j, "bp", "e");
    json_end_object(&x->j);
}

/* ---- one handler per record type ---- */

/* Records shorter than today's struct (an older writer) are zero-filled: sst_rec_load. */
#define LOAD(h, dst) sst_rec_load((h), &(dst), sizeof(dst))

static void set_t0(struct exporter *x, uint64_t t)
{
    if (!x->t0 && t) x->t0 = t;
}

static void on_process(struct exporter *x, const struct sst_rec_header *h)
{
    struct sst_rec_process p;
    LOAD(h, p);
    x->pid = p.pid;
    set_t0(x, p.start_ns);
    uint32_t len;
    const char *cmd = str(x, p.cmdline, &len);
    char buf[96];
    int n = snprintf(buf, sizeof buf, "%.60s%spid %" PRIu32 ": ", x->merge ? x->merge->label : "",
                     x->merge ? " " : "", p.pid);
    size_t keep = len > 200 ? 200 : len; /* a long command line would crowd the track list */
    char name[320];
    memcpy(name, buf, (size_t)n);
    if (cmd) memcpy(name + n, cmd, keep);
    name_meta(x, "process_name", p.pid, 0, name, (size_t)n + (cmd ? keep : 0));
    name_meta(x, "thread_name", p.pid, SSX_ATTR_TID, "stepscope attribution", 21);
    name_meta(x, "thread_name", p.pid, SSX_STEPS_TID, "steps (markers)", 15);
}

static void on_thread(struct exporter *x, const struct sst_rec_header *h)
{
    struct sst_rec_thread t;
    LOAD(h, t);
    uint32_t len;
    const char *s = str(x, t.name, &len);
    if (s && x->pid) name_meta(x, "thread_name", x->pid, t.tid, s, len);
}

/* A GPU slice on its stream's track: opens the event and its args (the caller adds its own
 * args and calls gpu_slice_end). name: the slice's name, or NULL with name_id (a string id). */
struct gpu_work {
    uint32_t device, stream, correlation, name_id;
    uint64_t start, end;
    const char *name, *cat;
};

static uint64_t gpu_slice_begin(struct exporter *x, const struct gpu_work *w)
{
    set_t0(x, w->start);
    uint64_t pid = gpu_track(x, w->device, w->stream);
    ev_begin(x, "X", pid, w->stream, w->start);
    if (w->name)
        json_kv_string(&x->j, "name", w->name);
    else if (strcmp(w->cat, "kernel") == 0)
        ev_kernel_name(x, w->name_id);
    else
        ev_name_id(x, w->name_id, w->cat);
    json_kv_string(&x->j, "cat", w->cat);
    ev_dur(x, w->start, w->end);
    json_key(&x->j, "args");
    json_begin_object(&x->j);
    json_kv_u64(&x->j, "correlation", w->correlation);
    return pid;
}

/* Closes the args and the event, then draws the arrow from the launch. */
static void gpu_slice_end(struct exporter *x, const struct gpu_work *w, uint64_t pid)
{
    json_end_object(&x->j);
    json_end_object(&x->j);
    flow(x, "f", pid, w->stream, w->start, w->correlation);
}

static void json_u64_triple(struct json_out *j, const char *key, uint64_t a, uint64_t b, uint64_t c)
{
    json_key(j, key);
    json_begin_array(j);
    json_u64(j, a), json_u64(j, b), json_u64(j, c);
    json_end_array(j);
}

static void on_kernel(struct exporter *x, const struct sst_rec_header *h)
{
    struct sst_rec_kernel k;
    LOAD(h, k);
    struct gpu_work w = {k.device,   k.stream, k.correlation, k.name,
                         k.start_ns, k.end_ns, NULL,          "kernel"};
    uint64_t pid = gpu_slice_begin(x, &w);
    json_u64_triple(&x->j, "grid", k.grid[0], k.grid[1], k.grid[2]);
    json_u64_triple(&x->j, "block", k.block[0], k.block[1], k.block[2]);
    json_kv_u64(&x->j, "registers", k.registers);
    ev_mangled(x, k.name);
    gpu_slice_end(x, &w, pid);
}

static void on_memcpy(struct exporter *x, const struct sst_rec_header *h)
{
    struct sst_rec_memcpy m;
    LOAD(h, m);
    char name[64];
    snprintf(name, sizeof name, "memcpy %s (%s to %s)", sst_copy_kind_name(m.copy_kind),
             sst_mem_kind_name(m.src_kind), sst_mem_kind_name(m.dst_kind));
    struct gpu_work w = {m.device,   m.stream, m.correlation, 0,
                         m.start_ns, m.end_ns, name,          "memcpy"};
    uint64_t pid = gpu_slice_begin(x, &w);
    json_kv_u64(&x->j, "bytes", m.bytes);
    gpu_slice_end(x, &w, pid);
}

static void on_memset(struct exporter *x, const struct sst_rec_header *h)
{
    struct sst_rec_memset m;
    LOAD(h, m);
    struct gpu_work w = {m.device,   m.stream, m.correlation, 0,
                         m.start_ns, m.end_ns, "memset",      "memset"};
    uint64_t pid = gpu_slice_begin(x, &w);
    json_kv_u64(&x->j, "bytes", m.bytes);
    gpu_slice_end(x, &w, pid);
}

static void on_api(struct exporter *x, const struct sst_rec_header *h)
{
    struct sst_rec_api a;
    LOAD(h, a);
    set_t0(x, a.start_ns);
    const char *name = ssa_api_name(a.domain, a.cbid);
    char buf[48];
    if (!name)
        snprintf(buf, sizeof buf, "%s cbid %" PRIu32, sst_api_domain_name(a.domain), a.cbid),
            name = buf;
    ev_begin(x, "X", x->pid, a.tid, a.start_ns);
    json_kv_string(&x->j, "name", name);
    json_kv_string(&x->j, "cat", "cuda_api");
    ev_dur(x, a.start_ns, a.end_ns);
    json_key(&x->j, "args");
    json_begin_object(&x->j);
    json_kv_u64(&x->j, "correlation", a.correlation);
    json_kv_i64(&x->j, "result", a.result);
    json_end_object(&x->j);
    json_end_object(&x->j);
    if (ssa_api_class(a.domain, a.cbid) == SSA_API_LAUNCH)
        flow(x, "s", x->pid, a.tid, a.start_ns, a.correlation);
}

static void nvtx_args(struct exporter *x, const struct sst_rec_nvtx *n)
{
    uint32_t len;
    const char *d = n->domain != SST_NO_STRING ? str(x, n->domain, &len) : NULL;
    json_kv_string(&x->j, "cat", "nvtx");
    json_key(&x->j, "args");
    json_begin_object(&x->j);
    json_key(&x->j, "domain");
    if (d)
        json_string_n(&x->j, d, len);
    else
        json_string(&x->j, "default");
    if (n->payload_type != SST_PAYLOAD_NONE) json_kv_u64(&x->j, "payload", n->payload);
    json_end_object(&x->j);
}

static void on_nvtx(struct exporter *x, const struct sst_rec_header *h)
{
    struct sst_rec_nvtx n;
    LOAD(h, n);
    set_t0(x, n.ts_ns);
    static const char *const ph[] = {[SST_REC_NVTX_PUSH] = "B",
                                     [SST_REC_NVTX_POP] = "E",
                                     [SST_REC_NVTX_START] = "b",
                                     [SST_REC_NVTX_END] = "e",
                                     [SST_REC_NVTX_MARK] = "i"};
    ev_begin(x, ph[h->type], x->pid, n.tid, n.ts_ns);
    if (h->type == SST_REC_NVTX_POP) {
        json_end_object(&x->j);
        return;
    }
    uint32_t msg = n.message;
    if (h->type == SST_REC_NVTX_START || h->type == SST_REC_NVTX_END) {
        size_t slot = n.range_id % SSX_RANGE_SLOTS;
        if (h->type == SST_REC_NVTX_START)
            x->ranges[slot].id = n.range_id, x->ranges[slot].message = msg;
        else
            msg = x->ranges[slot].id == n.range_id ? x->ranges[slot].message : SST_NO_STRING;
        json_kv_u64(&x->j, "id", n.range_id);
    }
    if (h->type == SST_REC_NVTX_MARK) json_kv_string(&x->j, "s", "t");
    ev_name_id(x, msg, "nvtx range");
    nvtx_args(x, &n);
    json_end_object(&x->j);
}

static void on_step(struct exporter *x, const struct sst_rec_header *h)
{
    struct sst_rec_step s;
    LOAD(h, s);
    set_t0(x, s.ts_ns);
    const char *ph = s.phase == SST_STEP_BEGIN ? "B" : s.phase == SST_STEP_END ? "E" : "i";
    ev_begin(x, ph, x->pid, SSX_STEPS_TID, s.ts_ns);
    if (ph[0] != 'E') {
        char name[40];
        snprintf(name, sizeof name, "step %" PRIu64, s.step);
        json_kv_string(&x->j, "name", name);
        json_kv_string(&x->j, "cat", "step");
        if (ph[0] == 'i') json_kv_string(&x->j, "s", "t");
    }
    json_end_object(&x->j);
}

/* One counter track with one series: viewers stack the series of one counter on one axis,
 * so quantities in different units get a track each. */
static void counter(struct exporter *x, uint64_t ts_ns, const char *name, const char *series,
                    double v)
{
    ev_begin(x, "C", x->pid, 0, ts_ns);
    json_kv_string(&x->j, "name", name);
    json_key(&x->j, "args");
    json_begin_object(&x->j);
    json_key(&x->j, series);
    json_double(&x->j, v);
    json_end_object(&x->j);
    json_end_object(&x->j);
}

/* Counters: the process's CPU use since the last sample (% of one core) and its RSS. */
static void on_host_sample(struct exporter *x, const struct sst_rec_header *h)
{
    struct sst_rec_host_sample s;
    LOAD(h, s);
    set_t0(x, s.ts_ns);
    uint64_t cpu = s.cpu_user_ns + s.cpu_sys_ns;
    if (x->last_sample_ns && s.ts_ns > x->last_sample_ns && cpu >= x->last_cpu_ns) {
        double pct = 100.0 * (double)(cpu - x->last_cpu_ns) / (double)(s.ts_ns - x->last_sample_ns);
        counter(x, s.ts_ns, "host CPU %", "cpu_pct", pct);
        counter(x, s.ts_ns, "host RSS MiB", "rss_mib", (double)s.rss_bytes / 1048576.0);
    }
    x->last_cpu_ns = cpu, x->last_sample_ns = s.ts_ns;
}

/* ---- Python stack samples: a track per sampled thread ---- */

static void py_track(struct exporter *x, uint32_t tid)
{
    for (size_t i = 0; i < x->n_py_tracks; i++)
        if (x->py_tracks[i] == tid) return;
    if (x->n_py_tracks == SSX_PY_TRACKS) return;
    x->py_tracks[x->n_py_tracks++] = tid;
    char name[64];
    int n = snprintf(name, sizeof name, "Python stacks (thread %" PRIu32 ")", tid);
    name_meta(x, "thread_name", x->pid, (uint64_t)SSX_PY_TID + tid, name, (size_t)n);
}

static void py_slice(void *ctx, const struct ssa_pysample *s)
{
    struct exporter *x = ctx;
    if (!s->stack || !s->weight_ns) return;
    const struct ssa_pytab *t = ssa_pystream_table(x->py);
    const struct ssa_pystack *st = &t->stacks[s->stack - 1];
    uint32_t top = st->user ? st->user : st->lib;
    char label[768];
    py_track(x, s->tid);
    ev_begin(x, "X", x->pid, (uint64_t)SSX_PY_TID + s->tid, s->from_ns);
    json_kv_string(&x->j, "name",
                   top ? ssa_pyframe_label(&t->frames[top - 1], 1, label, sizeof label) : "?");
    json_kv_string(&x->j, "cat", "python");
    ev_dur(x, s->from_ns, s->from_ns + s->weight_ns);
    json_key(&x->j, "args");
    json_begin_object(&x->j);
    json_kv_u64(&x->j, "tid", s->tid);
    json_key(&x->j, "snapshot_us");
    json_ns_as_us(&x->j, rel_ns(x, s->ts_ns));
    json_key(&x->j, "stack"); /* leaf first, as in the trace */
    json_begin_array(&x->j);
    for (uint32_t d = 0; d < st->depth; d++)
        json_string(&x->j, ssa_pyframe_label(&t->frames[t->stack_frames[st->off + d]], 0, label,
                                              sizeof label));
    json_end_array(&x->j);
    json_end_object(&x->j);
    json_end_object(&x->j);
}

static void on_python(struct exporter *x, const struct sst_rec_header *h)
{
    if (!x->py && h->type == SST_REC_CAPTURE && !ssa_py_capture_on(h)) return; /* none yet */
    if (!x->py && ssa_pystream_new(x->py_rate, &x->py)) x->err = SS_ENOMEM;
    if (x->py && ssa_pystream_feed(x->py, x->r, h, py_slice, x)) x->err = SS_ENOMEM;
}

typedef void (*record_fn)(struct exporter *x, const struct sst_rec_header *h);

/* What each record type becomes; the others (environment, drops, strings...) are not
 * timeline events. */
static const record_fn k_handlers[SST_REC_TYPE_LIMIT] = {
    [SST_REC_PROCESS] = on_process,     [SST_REC_THREAD] = on_thread,
    [SST_REC_KERNEL] = on_kernel,       [SST_REC_MEMCPY] = on_memcpy,
    [SST_REC_MEMSET] = on_memset,       [SST_REC_API] = on_api,
    [SST_REC_NVTX_PUSH] = on_nvtx,      [SST_REC_NVTX_POP] = on_nvtx,
    [SST_REC_NVTX_START] = on_nvtx,     [SST_REC_NVTX_END] = on_nvtx,
    [SST_REC_NVTX_MARK] = on_nvtx,      [SST_REC_STEP] = on_step,
    [SST_REC_HOST_SAMPLE] = on_host_sample, [SST_REC_PY_FRAME] = on_python,
    [SST_REC_PY_STACK] = on_python,         [SST_REC_PY_SAMPLE] = on_python,
    [SST_REC_CAPTURE] = on_python,
};

static void export_record(struct exporter *x, const struct sst_rec_header *h)
{
    if (h->type < SST_REC_TYPE_LIMIT && k_handlers[h->type]) k_handlers[h->type](x, h);
}

/* ---- stepscope's attribution: one slice per step, its categories as args ---- */

static void attribution_step(struct exporter *x, const struct ssa_step *st)
{
    char name[40];
    snprintf(name, sizeof name, "step %" PRIu64 "%s", st->number, st->warmup ? " (warm-up)" : "");
    ev_begin(x, "X", x->pid, SSX_ATTR_TID, st->begin_ns);
    json_kv_string(&x->j, "name", name);
    json_kv_string(&x->j, "cat", "stepscope");
    ev_dur(x, st->begin_ns, st->end_ns);
    json_key(&x->j, "args");
    json_begin_object(&x->j);
    uint64_t busy = 0;
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        if (c < SSA_CAT_FIRST_IDLE) busy += st->cat_ns[c];
        if (!st->cat_ns[c]) continue;
        json_key(&x->j, ssa_cat_name(c));
        json_double(&x->j, (double)st->cat_ns[c] / 1e6);
    }
    json_key(&x->j, "gpu_busy_pct");
    json_double(&x->j, st->end_ns > st->begin_ns
                           ? 100.0 * (double)busy / (double)(st->end_ns - st->begin_ns)
                           : 0);
    json_end_object(&x->j);
    json_end_object(&x->j);
}

static void export_attribution(struct exporter *x, const struct ssa_result *res)
{
    for (size_t i = 0; res && res->steps && res->step_source != SSA_STEPS_NONE && i < res->n_steps;
         i++)
        if (ssi_window_overlaps(x->win, res->steps[i].begin_ns, res->steps[i].end_ns))
            attribution_step(x, &res->steps[i]);
}

/* The trace's state, in the JSON's "metadata" (shown by chrome://tracing and Perfetto): a
 * damaged trace's export holds what could be read and must not pass for the whole run, so
 * the damage model's kinds and line go with it (the CLI says it on stderr, issue #41). */
static void export_metadata(struct exporter *x)
{
    const struct sst_read_status *st = sst_reader_status(x->r);
    struct sst_damage d;
    char line[1024];
    sst_reader_damage(x->r, &d);
    json_key(&x->j, "metadata");
    json_begin_object(&x->j);
    json_kv_string(&x->j, "exported-by", "stepscope export");
    json_kv_string(&x->j, "trace-state", d.any || !st->closed ? "incomplete" : "complete");
    json_kv_u64(&x->j, "bad-chunks", st->bad_chunks);
    json_kv_bool(&x->j, "truncated", d.count[SST_DAMAGE_TRUNCATED] != 0);
    if (d.any) {
        json_key(&x->j, "damage");
        json_begin_object(&x->j);
        for (uint8_t k = 1; k < SST_DAMAGE_LIMIT; k++)
            if (d.count[k]) json_kv_u64(&x->j, sst_damage_kind_name(k), d.count[k]);
        json_kv_string(&x->j, "said", sst_damage_describe(&d, line, sizeof line));
        json_end_object(&x->j);
    }
    if (x->win_desc) json_kv_string(&x->j, "window", x->win_desc);
    json_end_object(&x->j);
}

/* ---- the export ---- */

/* The events of x's trace into the open traceEvents array: its records, then stepscope's
 * attribution of its steps. 0 or an ss_error with warn saying why. */
static int trace_events(struct exporter *x, const struct ssa_result *res, char *warn, size_t cap)
{
    const struct sst_rec_header *h;
    int rc;
    while ((rc = ssi_window_next(x->r, x->win, &h)) == 1 && !x->err)
        export_record(x, h);
    if (rc >= 0 && x->err) rc = x->err;
    if (rc >= 0 && x->py) ssa_pystream_flush(x->py, py_slice, x);
    if (rc < 0) {
        if (warn && cap) snprintf(warn, cap, "cannot read the trace: %s", ss_strerror(rc));
        return rc;
    }
    export_attribution(x, res);
    return 0;
}

static void begin_doc(struct json_out *j, FILE *f)
{
    json_init(j, f, 0);
    json_begin_object(j);
    json_kv_string(j, "displayTimeUnit", "ns");
    json_key(j, "traceEvents");
    json_begin_array(j);
}

static int write_events(struct exporter *x, const struct ssa_result *res, FILE *f, char *warn,
                        size_t cap)
{
    begin_doc(&x->j, f);
    int rc = trace_events(x, res, warn, cap);
    if (rc) return rc;
    json_end_array(&x->j);
    export_metadata(x);
    json_end_object(&x->j);
    return json_finish(&x->j) == 0 ? 0 : SS_EIO;
}

/* An exporter for one input (calloc'ed: the caller frees it with exporter_free). */
static struct exporter *exporter_new(const struct ssi_export_in *in)
{
    struct exporter *x = calloc(1, sizeof *x); /* the lane table is large for the stack */
    if (!x) return NULL;
    x->r = in->r, x->win = in->win, x->win_desc = in->win_desc, x->merge = in->merge;
    if (in->res) x->py_rate = ssa_py_rate(&in->res->env);
    return x;
}

static void exporter_free(struct exporter *x)
{
    if (!x) return;
    ssa_pystream_free(x->py);
    for (size_t i = 0; i < SSX_NAME_SLOTS; i++)
        free(x->names[i].dem);
    free(x);
}

int ssi_perfetto_write(const struct ssi_export_in *in, FILE *f, char *warn, size_t cap)
{
    if (warn && cap) warn[0] = '\0';
    struct exporter *x = exporter_new(in);
    if (!x) {
        if (warn && cap) snprintf(warn, cap, "out of memory");
        return SS_ENOMEM;
    }
    int rc = ssi_window_rewind(in->r, in->win);
    if (rc == 0) rc = write_events(x, in->res, f, warn, cap);
    exporter_free(x);
    return rc;
}

/* One input of a merged export, its events written through the document's writer *j. */
static int merged_one(const struct ssi_export_in *in, struct json_out *j, char *warn,
                      size_t cap)
{
    struct exporter *x = exporter_new(in);
    if (!x) return SS_ENOMEM;
    x->j = *j;
    int rc = ssi_window_rewind(in->r, in->win);
    if (rc == 0) rc = trace_events(x, in->res, warn, cap);
    *j = x->j;
    exporter_free(x);
    return rc;
}

int ssi_perfetto_write_merged(const struct ssi_export_in *ins, size_t n, FILE *f, char *warn,
                              size_t cap)
{
    struct json_out j;
    int rc = 0;
    if (warn && cap) warn[0] = '\0';
    begin_doc(&j, f);
    for (size_t i = 0; i < n && !rc; i++)
        rc = merged_one(&ins[i], &j, warn, cap);
    if (rc == SS_ENOMEM && warn && cap) snprintf(warn, cap, "out of memory");
    if (rc) return rc;
    json_end_array(&j);
    json_key(&j, "metadata");
    json_begin_object(&j);
    json_kv_string(&j, "exported-by", "stepscope export (merged: one timeline)");
    json_kv_u64(&j, "traces", n);
    if (n && ins[0].win_desc) json_kv_string(&j, "window", ins[0].win_desc); /* one for all */
    json_end_object(&j);
    json_end_object(&j);
    return json_finish(&j) == 0 ? 0 : SS_EIO;
}

const struct ssi_exporter ssi_export_perfetto = {
    "perfetto", ".perfetto.json",
    "Chrome Trace Event JSON for Perfetto UI and chrome://tracing: host threads\n"
    "(CUDA API calls, NVTX ranges, step markers, CPU and RSS counters), one\n"
    "track per GPU stream (kernels, copies, memsets), flow arrows from each\n"
    "launch to its GPU work, stepscope's attribution of every step, and\n"
    "the Python stack samples as one track per sampled thread.",
    1, ssi_perfetto_write, NULL, 0, 480};
