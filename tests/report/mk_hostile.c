/*
 * mk_hostile.c — writes a small trace whose every string is hostile to HTML and Markdown:
 * tags, quotes, ampersands, Markdown syntax, a terminal escape and invalid UTF-8, in the
 * command line, the device name, the kernel names and an NVTX message. 12 steps with a
 * kernel each, so every part of the report (breakdown, median step, top kernels) prints
 * them; Python stack samples whose function and file names are hostile too (the host time
 * block, the flame graph, the folded and Perfetto exports). Usage: report-mk-hostile OUT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/sst_writer.h"

#define BASE_NS 1000000000ull
#define STEP_NS 1000000ull
#define PID 4343

static const char k_evil[] = "<script>alert('x')</script>\"&amp;<img src=x onerror=alert(1)>"
                             "|*_`[a](javascript:alert(1))\x1b[31m\xff";

static void *rec(struct sst_writer *w, uint16_t type, size_t size)
{
    void *p = sst_writer_reserve(w, type, size);
    if (!p) {
        fprintf(stderr, "report-mk-hostile: reserve failed\n");
        exit(1);
    }
    return p;
}

static void write_identity(struct sst_writer *w)
{
    uint32_t s = sst_writer_intern_cstr(w, k_evil);
    struct sst_rec_process *p = rec(w, SST_REC_PROCESS, sizeof *p);
    *p = (struct sst_rec_process){p->h, PID, 1, -1, -1, -1, s, s, s, 0, BASE_NS};
    struct sst_rec_device *d = rec(w, SST_REC_DEVICE, sizeof *d);
    d->device = 0, d->name = s, d->sm_count = 132, d->cc_major = 9;
}

/* One Python frame (function and file hostile) in one stack (id 1), and a user frame below
 * it (id 2, "train;x" with the folded format's separator). */
static void write_python(struct sst_writer *w, uint32_t evil)
{
    uint32_t file = sst_writer_intern_cstr(w, "/home/<u>/t\nx.py"), fn2 = sst_writer_intern_cstr(w, "train;x");
    struct sst_rec_py_frame *f = rec(w, SST_REC_PY_FRAME, sizeof *f);
    f->id = 1, f->function = evil, f->file = file, f->line = 7, f->first_line = 1;
    f = rec(w, SST_REC_PY_FRAME, sizeof *f);
    f->id = 2, f->function = fn2, f->file = file, f->line = 9, f->first_line = 1;
    struct sst_rec_py_stack *s = rec(w, SST_REC_PY_STACK, sizeof *s + 8);
    s->id = 1, s->depth = 2;
    uint32_t ids[2] = {1, 2};
    memcpy(s + 1, ids, sizeof ids);
}

static void write_sample(struct sst_writer *w, uint64_t t)
{
    struct sst_rec_py_sample *p = rec(w, SST_REC_PY_SAMPLE, sizeof *p);
    p->tid = PID, p->ts_ns = t, p->stack = 1;
}

static void write_step(struct sst_writer *w, uint64_t i, uint32_t kname, uint32_t msg)
{
    uint64_t t = BASE_NS + i * STEP_NS;
    struct sst_rec_step *s = rec(w, SST_REC_STEP, sizeof *s);
    s->phase = SST_STEP_BEGIN, s->source = SST_STEPSRC_API, s->ts_ns = t, s->step = i, s->tid = PID;
    struct sst_rec_nvtx *n = rec(w, SST_REC_NVTX_PUSH, sizeof *n);
    n->tid = PID, n->ts_ns = t + 10, n->message = msg, n->domain = SST_NO_STRING;
    n = rec(w, SST_REC_NVTX_POP, sizeof *n);
    n->tid = PID, n->ts_ns = t + 50000, n->message = SST_NO_STRING;
    n->domain = SST_NO_STRING;
    struct sst_rec_api *a = rec(w, SST_REC_API, sizeof *a);
    a->domain = SST_API_RUNTIME, a->start_ns = t + 100, a->end_ns = t + 5000, a->tid = PID;
    a->cbid = 211, a->correlation = (uint32_t)i + 1;
    struct sst_rec_kernel *k = rec(w, SST_REC_KERNEL, sizeof *k);
    k->name = kname, k->start_ns = t + 6000, k->end_ns = t + 400000;
    k->correlation = (uint32_t)i + 1, k->stream = 7;
    k->grid[0] = k->grid[1] = k->grid[2] = 1, k->block[0] = k->block[1] = k->block[2] = 1;
    write_sample(w, t + 200000); /* GPU busy */
    write_sample(w, t + 600000); /* GPU idle: host */
    s = rec(w, SST_REC_STEP, sizeof *s);
    s->phase = SST_STEP_END, s->source = SST_STEPSRC_API, s->ts_ns = t + STEP_NS - 1000;
    s->step = i, s->tid = PID;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: report-mk-hostile OUT\n");
        return 2;
    }
    struct sst_writer_opts o = {.chunk_bytes = 8192,
                                .clock = SST_CLOCK_SYNTHETIC,
                                .features = SST_FEAT_SYNTHETIC | SST_FEAT_CUPTI,
                                .pid = PID,
                                .start_mono_ns = BASE_NS,
                                .start_unix_ns = 1764436800ull * 1000000000ull};
    struct sst_writer *w;
    if (sst_writer_open(argv[1], &o, &w) != 0) {
        fprintf(stderr, "report-mk-hostile: cannot create %s\n", argv[1]);
        return 1;
    }
    write_identity(w);
    uint32_t kname = sst_writer_intern_cstr(w, k_evil);
    write_python(w, kname);
    uint32_t msg = sst_writer_intern_cstr(w, "<b onmouseover='alert(2)'>step</b>");
    for (uint64_t i = 0; i < 12; i++)
        write_step(w, i, kname, msg);
    return sst_writer_close(w, BASE_NS + 13 * STEP_NS) == 0 ? 0 : 1;
}
