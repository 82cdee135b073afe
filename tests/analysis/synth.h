/*
 * synth.h — writes small synthetic traces with the writer API for the analysis tests:
 * records whose timing is chosen so the expected attribution is known to the nanosecond.
 */
#ifndef SYNTH_H
#define SYNTH_H

#include <string.h>

#include "ss_test.h"
#include "trace/sst_writer.h"

#define MS 1000000ull
#define US 1000ull
#define T0 (1000ull * 1000 * MS) /* 1000 s: a plausible monotonic clock */

struct synth {
    struct sst_writer *w;
    uint32_t domain, step_msg, data_msg;
};

static inline void synth_open(struct synth *s, const char *path)
{
    struct sst_writer_opts o = {.chunk_bytes = 4096,
                                .features = SST_FEAT_SYNTHETIC,
                                .clock = SST_CLOCK_SYNTHETIC,
                                .pid = 77,
                                .start_mono_ns = T0,
                                .start_unix_ns = 1};
    REQUIRE(sst_writer_open(path, &o, &s->w) == 0);
    s->domain = sst_writer_intern_cstr(s->w, "stepscope");
    s->step_msg = sst_writer_intern_cstr(s->w, "step");
    s->data_msg = sst_writer_intern_cstr(s->w, "data");
}

static inline void synth_close(struct synth *s)
{
    REQUIRE(sst_writer_close(s->w, 0) == 0);
}

static inline void synth_step(struct synth *s, uint8_t phase, uint64_t ts, uint64_t n, uint32_t tid)
{
    struct sst_rec_step *r = sst_writer_reserve(s->w, SST_REC_STEP, sizeof *r);
    REQUIRE(r);
    r->phase = phase, r->source = SST_STEPSRC_API, r->ts_ns = ts, r->step = n, r->tid = tid;
}

static inline void synth_nvtx(struct synth *s, uint16_t type, uint64_t ts, uint32_t tid,
                              uint32_t domain, uint32_t msg, int has_payload, uint64_t payload)
{
    struct sst_rec_nvtx *r = sst_writer_reserve(s->w, type, sizeof *r);
    REQUIRE(r);
    r->tid = tid, r->ts_ns = ts, r->domain = domain, r->message = msg;
    r->payload_type = has_payload ? SST_PAYLOAD_U64 : SST_PAYLOAD_NONE;
    r->payload = payload;
}

/* Returns the record, to set more of it before the next one is written. */
static inline struct sst_rec_kernel *synth_kernel_on(struct synth *s, const char *name,
                                                     uint64_t t0, uint64_t t1, uint16_t device)
{
    uint32_t id = sst_writer_intern_cstr(s->w, name);
    struct sst_rec_kernel *r = sst_writer_reserve(s->w, SST_REC_KERNEL, sizeof *r);
    REQUIRE(r);
    r->name = id, r->start_ns = t0, r->end_ns = t1, r->stream = 7, r->device = device;
    return r;
}

static inline struct sst_rec_kernel *synth_kernel(struct synth *s, const char *name, uint64_t t0,
                                                  uint64_t t1)
{
    return synth_kernel_on(s, name, t0, t1, 0);
}

/* A kernel of `blocks` thread blocks (grid blocks x 1 x 1) on device 0. */
static inline void synth_kernel_blocks(struct synth *s, const char *name, uint64_t t0,
                                       uint64_t t1, uint32_t blocks)
{
    uint32_t id = sst_writer_intern_cstr(s->w, name);
    struct sst_rec_kernel *r = sst_writer_reserve(s->w, SST_REC_KERNEL, sizeof *r);
    REQUIRE(r);
    r->name = id, r->start_ns = t0, r->end_ns = t1, r->stream = 7;
    r->grid[0] = blocks, r->grid[1] = 1, r->grid[2] = 1, r->block[0] = 128;
}

static inline void synth_device(struct synth *s, uint32_t device, const char *name, uint32_t sms)
{
    uint32_t id = sst_writer_intern_cstr(s->w, name);
    struct sst_rec_device *r = sst_writer_reserve(s->w, SST_REC_DEVICE, sizeof *r);
    REQUIRE(r);
    r->device = device, r->name = id, r->sm_count = sms, r->cc_major = 9;
}

static inline void synth_memcpy(struct synth *s, uint8_t kind, uint8_t src, uint64_t t0,
                                uint64_t t1, uint64_t bytes)
{
    struct sst_rec_memcpy *r = sst_writer_reserve(s->w, SST_REC_MEMCPY, sizeof *r);
    REQUIRE(r);
    r->copy_kind = kind, r->src_kind = src, r->dst_kind = SST_MEM_DEVICE;
    r->flags = SST_CF_ASYNC, r->start_ns = t0, r->end_ns = t1, r->bytes = bytes;
}

static inline void synth_memset(struct synth *s, uint64_t t0, uint64_t t1)
{
    struct sst_rec_memset *r = sst_writer_reserve(s->w, SST_REC_MEMSET, sizeof *r);
    REQUIRE(r);
    r->start_ns = t0, r->end_ns = t1, r->bytes = 64;
}

static inline struct sst_rec_api *synth_api(struct synth *s, uint8_t domain, uint32_t cbid,
                                            uint64_t t0, uint64_t t1, uint32_t tid)
{
    struct sst_rec_api *r = sst_writer_reserve(s->w, SST_REC_API, sizeof *r);
    REQUIRE(r);
    r->domain = domain, r->cbid = cbid, r->start_ns = t0, r->end_ns = t1, r->tid = tid;
    return r;
}

static inline void synth_sync(struct synth *s, uint64_t t0, uint64_t t1)
{
    struct sst_rec_sync *r = sst_writer_reserve(s->w, SST_REC_SYNC, sizeof *r);
    REQUIRE(r);
    r->kind = SST_SYNC_STREAM, r->start_ns = t0, r->end_ns = t1, r->stream = 7;
}

/* A COST record: the collector's running totals of one kind on one thread. */
static inline void synth_cost(struct synth *s, uint8_t kind, uint32_t tid, uint64_t ts,
                              uint64_t events, uint64_t timed, uint64_t ns)
{
    struct sst_rec_cost *r = sst_writer_reserve(s->w, SST_REC_COST, sizeof *r);
    REQUIRE(r);
    r->kind = kind, r->tid = tid, r->ts_ns = ts, r->events = events, r->timed = timed;
    r->ns = ns;
}

/* ---- Python stack records (issue #20) ---- */

static inline void synth_env(struct synth *s, const char *k, const char *v)
{
    uint32_t key = sst_writer_intern_cstr(s->w, k), value = sst_writer_intern_cstr(s->w, v);
    struct sst_rec_env *r = sst_writer_reserve(s->w, SST_REC_ENV, sizeof *r); /* after them */
    REQUIRE(r);
    r->key = key, r->value = value;
}

static inline void synth_thread(struct synth *s, uint32_t tid, const char *name)
{
    uint32_t id = sst_writer_intern_cstr(s->w, name);
    struct sst_rec_thread *r = sst_writer_reserve(s->w, SST_REC_THREAD, sizeof *r);
    REQUIRE(r);
    r->tid = tid, r->name = id, r->ts_ns = T0;
}

static inline void synth_pyframe(struct synth *s, uint32_t id, const char *fn, const char *file,
                                 uint32_t line)
{
    uint32_t fn_id = sst_writer_intern_cstr(s->w, fn), file_id = sst_writer_intern_cstr(s->w, file);
    struct sst_rec_py_frame *r = sst_writer_reserve(s->w, SST_REC_PY_FRAME, sizeof *r);
    REQUIRE(r);
    r->id = id, r->function = fn_id, r->file = file_id, r->line = line, r->first_line = line - 1;
}

/* A Python stack of frame ids, leaf first. */
static inline void synth_pystack(struct synth *s, uint32_t id, const uint32_t *f, uint16_t depth)
{
    struct sst_rec_py_stack *r =
        sst_writer_reserve(s->w, SST_REC_PY_STACK, sizeof *r + ((depth + 1u) & ~1u) * 4);
    REQUIRE(r);
    r->id = id, r->depth = depth;
    memcpy(r + 1, f, depth * sizeof *f);
}

static inline void synth_pysample(struct synth *s, uint32_t tid, uint64_t ts, uint32_t stack_id)
{
    struct sst_rec_py_sample *r = sst_writer_reserve(s->w, SST_REC_PY_SAMPLE, sizeof *r);
    REQUIRE(r);
    r->tid = tid, r->ts_ns = ts, r->stack = stack_id;
}

#endif
