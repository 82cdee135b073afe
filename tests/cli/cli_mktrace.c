/*
 * cli_mktrace.c — writes small traces with known content for the CLI tests.
 *
 *   test-cli-mktrace MODE OUT EXPECT
 *     MODE   normal   a bit of everything, many small chunks, closed cleanly
 *            zstd     the same, with zstd-compressed chunks
 *            hostile  strings full of quotes, newlines, terminal escapes, invalid UTF-8
 *            unclosed the normal content, flushed but never closed (no END chunk)
 *            odd      valid framing, odd values: undefined string ids, unknown enum
 *                     values and flag bits, end before start, a NaN payload, a record
 *                     longer than this version's struct
 *            outside  20 marked steps of 10 ms with no GPU work inside, kernels between them
 *                     (markers that do not wrap the training step)
 *            unalike  20 marked steps, 1 ms and 60 ms in turn, a kernel in each
 *     OUT    the trace to create (must not exist)
 *     EXPECT a JSON file saying what was written (counts per kind, time span, drops),
 *            which the shell tests compare with `stepscope info --json`.
 *
 * The expectations are counted here as records are written, independently of the reader,
 * so a reader or info that miscounts fails the test.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/sst_names.h"
#include "trace/sst_writer.h"
#include "trace/sst_zstd.h"

#define BASE_NS 1000000000ull

struct gen {
    struct sst_writer *w;
    uint64_t counts[SST_REC_TYPE_LIMIT];
    uint64_t first, last;
    uint64_t dropped[8];
    const char *str_name, *str_host, *str_cmd, *str_msg; /* the strings the records use */
    size_t len_name, len_host, len_cmd, len_msg;
};

static void die(const char *what)
{
    fprintf(stderr, "test-cli-mktrace: %s\n", what);
    exit(1);
}

/* Reserves a record and counts it; records the time range for the expectations. */
static void *rec(struct gen *g, uint16_t type, size_t size, uint64_t t0, uint64_t t1)
{
    void *p = sst_writer_reserve(g->w, type, size);
    if (!p) die("reserve failed");
    g->counts[type]++;
    if (t0) {
        if (!g->first || t0 < g->first) g->first = t0;
        if (t1 > g->last) g->last = t1;
    }
    return p;
}

static uint32_t intern(struct gen *g, const char *s, size_t len)
{
    uint32_t id = sst_writer_intern(g->w, s, len);
    if (id == SST_NO_STRING) die("intern failed");
    return id;
}

static void write_header_records(struct gen *g)
{
    uint32_t host = intern(g, g->str_host, g->len_host);
    uint32_t cmd = intern(g, g->str_cmd, g->len_cmd);
    uint32_t exe = intern(g, "/usr/bin/python3", 16);
    struct sst_rec_process *p = rec(g, SST_REC_PROCESS, sizeof *p, BASE_NS, BASE_NS);
    *p = (struct sst_rec_process){p->h, 4242, 1, 0, 0, 2, host, cmd, exe, 0, BASE_NS};
    uint32_t tname = intern(g, "pt_main_thread", 14);
    struct sst_rec_thread *t = rec(g, SST_REC_THREAD, sizeof *t, BASE_NS + 1, BASE_NS + 1);
    t->tid = 4242, t->name = tname, t->ts_ns = BASE_NS + 1;
    uint32_t k = intern(g, "driver_version", 14), v = intern(g, "580.65", 6);
    struct sst_rec_env *e = rec(g, SST_REC_ENV, sizeof *e, 0, 0);
    e->key = k, e->value = v;
    uint32_t dev_name = intern(g, g->str_name, g->len_name);
    for (uint32_t d = 0; d < 2; d++) {
        struct sst_rec_device *dv = rec(g, SST_REC_DEVICE, sizeof *dv, 0, 0);
        dv->device = d, dv->name = dev_name, dv->sm_count = 132, dv->cc_major = 9;
        dv->global_mem = 150000000000ull;
    }
    uint32_t dom = intern(g, "stepscope", 9);
    struct sst_rec_nvtx_domain *nd =
        rec(g, SST_REC_NVTX_DOMAIN, sizeof *nd, BASE_NS + 2, BASE_NS + 2);
    nd->name = dom, nd->ts_ns = BASE_NS + 2;
}

static void write_gpu_records(struct gen *g, uint64_t t, uint32_t i, uint32_t name)
{
    struct sst_rec_api *a = rec(g, SST_REC_API, sizeof *a, t, t + 3000);
    a->domain = SST_API_RUNTIME, a->start_ns = t, a->end_ns = t + 3000, a->tid = 4242;
    a->cbid = 211, a->correlation = i + 1;
    struct sst_rec_kernel *k = rec(g, SST_REC_KERNEL, sizeof *k, t + 2000, t + 7000);
    k->name = name, k->start_ns = t + 2000, k->end_ns = t + 7000, k->correlation = i + 1;
    k->stream = 7, k->grid[0] = 128, k->grid[1] = k->grid[2] = 1, k->block[0] = 256;
    k->block[1] = k->block[2] = 1, k->registers = 32, k->flags = i % 7 == 0 ? SST_KF_GRAPH : 0;
    if (i % 10 == 0) {
        struct sst_rec_memcpy *m = rec(g, SST_REC_MEMCPY, sizeof *m, t + 100, t + 900);
        m->copy_kind = SST_COPY_H2D, m->src_kind = SST_MEM_PAGEABLE;
        m->dst_kind = SST_MEM_DEVICE, m->start_ns = t + 100, m->end_ns = t + 900;
        m->bytes = 1 << 20, m->stream = 7, m->flags = SST_CF_ASYNC;
        struct sst_rec_memset *s = rec(g, SST_REC_MEMSET, sizeof *s, t + 950, t + 990);
        s->mem_kind = SST_MEM_DEVICE, s->start_ns = t + 950, s->end_ns = t + 990;
        s->bytes = 4096, s->stream = 7;
    }
    if (i % 50 == 49) {
        struct sst_rec_sync *y = rec(g, SST_REC_SYNC, sizeof *y, t + 7000, t + 8000);
        y->kind = SST_SYNC_STREAM, y->start_ns = t + 7000, y->end_ns = t + 8000, y->stream = 7;
    }
}

static void write_nvtx(struct gen *g, uint16_t type, uint64_t t, uint32_t msg, uint64_t id)
{
    struct sst_rec_nvtx *n = rec(g, type, sizeof *n, t, t);
    n->tid = 4242, n->ts_ns = t, n->message = msg, n->range_id = id;
    if (type == SST_REC_NVTX_MARK)
        n->payload_type = SST_PAYLOAD_F64, n->payload = 0x3ff8000000000000ull; /* 1.5 */
}

/* One training step: step markers, an NVTX range, host sample, allocations. */
static void write_step(struct gen *g, uint64_t t, uint64_t step, uint32_t msg)
{
    struct sst_rec_step *s = rec(g, SST_REC_STEP, sizeof *s, t, t);
    s->phase = SST_STEP_BEGIN, s->source = SST_STEPSRC_API, s->ts_ns = t, s->step = step;
    write_nvtx(g, SST_REC_NVTX_PUSH, t + 10, msg, 0);
    write_nvtx(g, SST_REC_NVTX_POP, t + 20, SST_NO_STRING, 0);
    struct sst_rec_host_sample *h = rec(g, SST_REC_HOST_SAMPLE, sizeof *h, t + 30, t + 30);
    h->ts_ns = t + 30, h->threads = 12, h->cpu_user_ns = step * 1000000, h->rss_bytes = 1 << 30;
    if (step % 2 == 0) {
        struct sst_rec_memory *m = rec(g, SST_REC_MEMORY, sizeof *m, t + 40, t + 40);
        m->op = SST_MEMOP_ALLOC, m->mem_kind = SST_MEM_DEVICE, m->ts_ns = t + 40;
        m->address = 0x7f0000000000ull + step, m->bytes = 1 << 24;
    }
    s = rec(g, SST_REC_STEP, sizeof *s, t + 999000, t + 999000);
    s->phase = SST_STEP_END, s->source = SST_STEPSRC_API, s->ts_ns = t + 999000, s->step = step;
}

static void write_dropped(struct gen *g, uint8_t source, uint64_t count, uint64_t t)
{
    struct sst_rec_dropped *d = rec(g, SST_REC_DROPPED, sizeof *d, t, t);
    d->source = source, d->rec_type = SST_REC_KERNEL, d->ts_ns = t, d->count = count;
    g->dropped[source] += count;
    sst_writer_count_dropped(g->w, count);
}

static void write_tail(struct gen *g, uint64_t t)
{
    uint32_t msg = intern(g, g->str_msg, g->len_msg);
    write_nvtx(g, SST_REC_NVTX_START, t, msg, 77);
    write_nvtx(g, SST_REC_NVTX_END, t + 5, SST_NO_STRING, 77);
    write_nvtx(g, SST_REC_NVTX_MARK, t + 6, msg, 0);
    write_dropped(g, SST_DROP_CUPTI, 5, t + 10);
    write_dropped(g, SST_DROP_HOST_BUFFER, 7, t + 11);
    write_dropped(g, SST_DROP_CUPTI, 3, t + 12);
    struct sst_rec_capture *c = rec(g, SST_REC_CAPTURE, sizeof *c, t + 20, t + 20);
    c->on = 0, c->reason = SST_CAP_EXIT, c->what = 3, c->ts_ns = t + 20;
    struct sst_rec_overhead *o = rec(g, SST_REC_OVERHEAD, sizeof *o, t + 30, t + 80);
    o->kind = 1, o->start_ns = t + 30, o->end_ns = t + 80, o->tid = 4242;
    for (int i = 0; i < 2; i++) {
        struct sst_rec_notice *n = rec(g, SST_REC_NOTICE, sizeof *n, t + 90 + i, t + 90 + i);
        n->level = i ? SST_NOTE_WARN : SST_NOTE_INFO,
        n->code = i ? SST_NOTICE_MEMORY_CAP : SST_NOTICE_OTHER;
        n->ts_ns = t + 90 + i, n->message = msg;
    }
}

/* Records a careless or newer producer could write: the CLI must show them, not trip. */
static void write_odd(struct gen *g)
{
    struct sst_rec_kernel *k = rec(g, SST_REC_KERNEL, sizeof *k, 0, 0);
    k->name = 9999, k->start_ns = 2000, k->end_ns = 1000, k->flags = 0x8001;
    k = rec(g, SST_REC_KERNEL, sizeof *k, 0, 0);
    k->start_ns = UINT64_MAX, k->end_ns = 0; /* a span no signed number holds */
    struct sst_rec_memcpy *m = rec(g, SST_REC_MEMCPY, sizeof *m, 0, 0);
    m->copy_kind = 200, m->src_kind = 201, m->dst_kind = SST_MEM_PINNED, m->flags = 0x80;
    struct sst_rec_nvtx *n = rec(g, SST_REC_NVTX_MARK, sizeof *n, 0, 0);
    n->payload_type = SST_PAYLOAD_F64, n->payload = 0x7ff8000000000001ull; /* NaN */
    n = rec(g, SST_REC_NVTX_MARK, sizeof *n, 0, 0);
    n->payload_type = 99, n->payload = 0xdeadbeef;
    struct sst_rec_notice *no = rec(g, SST_REC_NOTICE, sizeof *no + 16, 0, 0); /* newer, longer */
    no->level = 9, no->code = 999, no->message = 12345;
    struct sst_rec_dropped *d = rec(g, SST_REC_DROPPED, sizeof *d, 0, 0);
    d->source = 77, d->rec_type = 999, d->count = UINT64_MAX; /* saturates, never wraps */
    d = rec(g, SST_REC_DROPPED, sizeof *d, 0, 0);
    d->source = 77, d->count = 5;
}

static void step_mark(struct gen *g, uint8_t phase, uint64_t t, uint64_t step)
{
    struct sst_rec_step *s = rec(g, SST_REC_STEP, sizeof *s, t, t);
    s->phase = phase, s->source = SST_STEPSRC_API, s->ts_ns = t, s->step = step, s->tid = 7;
}

static void kernel_at(struct gen *g, uint32_t name, uint64_t t0, uint64_t t1)
{
    struct sst_rec_kernel *k = rec(g, SST_REC_KERNEL, sizeof *k, t0, t1);
    k->name = name, k->start_ns = t0, k->end_ns = t1, k->stream = 7;
}

/* outside: 20 steps of 10 ms back to back, then 20 kernels after the last one (steps tile the
 * time between them, so work between steps is inside one); unalike: steps of 1 and 60 ms in
 * turn, a kernel of half the step inside each. */
static void write_step_modes(struct gen *g, int unalike)
{
    write_header_records(g);
    uint32_t name = intern(g, g->str_name, g->len_name);
    uint64_t t = BASE_NS + 1000, ms = 1000000;
    for (uint64_t i = 0; i < 20; i++) {
        uint64_t d = unalike ? (i % 2 ? 60 : 1) * ms : 10 * ms;
        step_mark(g, SST_STEP_BEGIN, t, i);
        if (unalike) kernel_at(g, name, t + 10, t + d / 2);
        step_mark(g, SST_STEP_END, t + d, i);
        t += d;
    }
    for (uint64_t i = 0; i < 20 && !unalike; i++, t += 5 * ms)
        kernel_at(g, name, t + ms, t + 4 * ms);
}

static void write_all(struct gen *g)
{
    write_header_records(g);
    uint32_t name = intern(g, g->str_name, g->len_name);
    uint32_t range = intern(g, g->str_msg, g->len_msg);
    uint64_t t = BASE_NS + 1000;
    for (uint32_t i = 0; i < 600; i++, t += 10000) {
        if (i % 100 == 0) write_step(g, t, i / 100, range);
        write_gpu_records(g, t, i, name);
    }
    write_tail(g, t + 1000000);
}

static void put_hex(FILE *f, const char *key, const char *s, size_t n)
{
    fprintf(f, "  \"%s\": \"", key);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%02x", (unsigned char)s[i]);
    fprintf(f, "\",\n");
}

/* What was written, for the shell tests to compare against `info --json`. */
static void write_expect(const struct gen *g, const char *path, uint64_t strings, int closed)
{
    FILE *f = fopen(path, "w");
    if (!f) die("cannot create EXPECT");
    fprintf(f, "{\n  \"records\": {\n");
    for (uint16_t t = 1; t < SST_REC_TYPE_LIMIT; t++)
        fprintf(f, "    \"%s\": %" PRIu64 "%s\n", sst_rec_type_name(t),
                t == SST_REC_STRING ? strings : g->counts[t],
                t + 1 < SST_REC_TYPE_LIMIT ? "," : "");
    fprintf(f, "  },\n  \"first\": %" PRIu64 ",\n  \"last\": %" PRIu64 ",\n", g->first, g->last);
    fprintf(f, "  \"dropped_cupti\": %" PRIu64 ",\n  \"dropped_host_buffer\": %" PRIu64 ",\n",
            g->dropped[SST_DROP_CUPTI], g->dropped[SST_DROP_HOST_BUFFER]);
    put_hex(f, "name_hex", g->str_name, g->len_name);
    put_hex(f, "host_hex", g->str_host, g->len_host);
    put_hex(f, "cmd_hex", g->str_cmd, g->len_cmd);
    put_hex(f, "msg_hex", g->str_msg, g->len_msg);
    fprintf(f, "  \"closed\": %s\n}\n", closed ? "true" : "false");
    if (fclose(f) != 0) die("cannot write EXPECT");
}

#define SET_STR(g, field, lit) ((g)->str_##field = (lit), (g)->len_##field = sizeof(lit) - 1)

static void choose_strings(struct gen *g, int hostile)
{
    if (!hostile) {
        SET_STR(g, name, "nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_NTT");
        SET_STR(g, host, "node-01");
        SET_STR(g, cmd, "python train.py --epochs 1");
        SET_STR(g, msg, "forward");
        return;
    }
    /* Quotes, backslash, newline, a colour escape; invalid and overlong UTF-8; a
     * right-to-left override, NEL (C1), BEL and tab; an embedded NUL and an OSC title set. */
    SET_STR(g, name, "k\"q\"\\b\nnew\x1b[31mRED\x1b[0m\r");
    SET_STR(g, host,
            "h\xff\xfe\xc0\xaf"
            "ost");
    SET_STR(g, cmd,
            "python \xe2\x80\xae"
            "txt.py \xc2\x85 \x07"
            "bell\ttab \xf0\x9f\x9a\x80");
    SET_STR(g, msg, "msg\0after\x1b]0;title\x07");
}

int main(int argc, char **argv)
{
    if (argc != 4) die("usage: test-cli-mktrace normal|zstd|hostile|unclosed|odd|outside|unalike OUT EXPECT");
    const char *mode = argv[1];
    struct gen g = {0};
    struct sst_writer_opts o = {.chunk_bytes = 8192,
                                .clock = SST_CLOCK_SYNTHETIC,
                                .features = SST_FEAT_SYNTHETIC | SST_FEAT_CUPTI,
                                .pid = 4242,
                                .start_mono_ns = BASE_NS,
                                .start_unix_ns = 1764436800ull * 1000000000ull};
    int zstd = strcmp(mode, "zstd") == 0;
    if (zstd && sst_zstd_compressor_init(&o.compressor, 3) != 0) die("zstd init failed");
    if (zstd) o.features |= SST_FEAT_ZSTD;
    choose_strings(&g, strcmp(mode, "hostile") == 0);
    if (sst_writer_open(argv[2], &o, &g.w) != 0) die("cannot create OUT");
    if (strcmp(mode, "odd") == 0)
        write_odd(&g);
    else if (strcmp(mode, "outside") == 0 || strcmp(mode, "unalike") == 0)
        write_step_modes(&g, strcmp(mode, "unalike") == 0);
    else
        write_all(&g);
    struct sst_writer_stats st;
    sst_writer_get_stats(g.w, &st);
    int closed = strcmp(mode, "unclosed") != 0;
    if (!closed) {
        if (sst_writer_flush(g.w) != 0) die("flush failed");
        sst_writer_abandon(g.w, 0);
    } else if (sst_writer_close(g.w, g.last + 1) != 0) {
        die("close failed");
    }
    if (zstd) sst_zstd_compressor_free(&o.compressor);
    write_expect(&g, argv[3], st.strings, closed);
    return 0;
}
