/*
 * env_trace.h — writes small traces whose environment record is chosen by the test, for the
 * environment checks (src/analysis/ssa_env.h) read from a trace: a PROCESS record, the ENV
 * key/values given, host samples with the child counts given, and 12 marked steps with a
 * launch and the kernels named. Used by test_env.c and mk_env_trace.c.
 */
#ifndef ENV_TRACE_H
#define ENV_TRACE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace/sst_writer.h"

#define ENVT_BASE_NS 1000000000ull
#define ENVT_STEP_NS 1000000ull
#define ENVT_PID 5151
#define ENVT_STEPS 12

struct env_trace {
    const char *const (*env)[2]; /* n_env key/value pairs of ENV records */
    size_t n_env;
    const uint32_t *children; /* host samples' child counts; NULL: no host sample */
    size_t n_children;
    const char *const *kernels; /* kernel names run in every step, NULL-terminated */
};

static void *envt_rec(struct sst_writer *w, uint16_t type, size_t size)
{
    void *p = sst_writer_reserve(w, type, size);
    if (!p) {
        fprintf(stderr, "env_trace: reserve failed\n");
        exit(1);
    }
    return p;
}

static void envt_identity(struct sst_writer *w, const struct env_trace *t)
{
    uint32_t cmd = sst_writer_intern_cstr(w, "python train.py");
    struct sst_rec_process *p = envt_rec(w, SST_REC_PROCESS, sizeof *p);
    p->pid = ENVT_PID, p->ppid = 1, p->rank = p->local_rank = p->world_size = -1;
    p->hostname = p->cmdline = p->exe = cmd, p->start_ns = ENVT_BASE_NS;
    for (size_t i = 0; i < t->n_env; i++) {
        uint32_t k = sst_writer_intern_cstr(w, t->env[i][0]);
        uint32_t v = sst_writer_intern_cstr(w, t->env[i][1]);
        struct sst_rec_env *r = envt_rec(w, SST_REC_ENV, sizeof *r);
        r->key = k, r->value = v;
    }
    for (size_t i = 0; i < t->n_children; i++) {
        struct sst_rec_host_sample *s = envt_rec(w, SST_REC_HOST_SAMPLE, sizeof *s);
        s->ts_ns = ENVT_BASE_NS + i * ENVT_STEP_NS, s->threads = 4;
        s->children = t->children[i];
    }
}

static void envt_step(struct sst_writer *w, const struct env_trace *t, uint64_t i)
{
    uint64_t ts = ENVT_BASE_NS + i * ENVT_STEP_NS, at = ts + 6000;
    struct sst_rec_step *s = envt_rec(w, SST_REC_STEP, sizeof *s);
    s->phase = SST_STEP_BEGIN, s->source = SST_STEPSRC_API, s->ts_ns = ts, s->step = i;
    s->tid = ENVT_PID;
    for (const char *const *k = t->kernels; k && *k; k++, at += 100000) {
        uint32_t name = sst_writer_intern_cstr(w, *k);
        struct sst_rec_api *a = envt_rec(w, SST_REC_API, sizeof *a);
        a->domain = SST_API_RUNTIME, a->start_ns = at - 5000, a->end_ns = at - 1000;
        a->tid = ENVT_PID, a->cbid = 211, a->correlation = (uint32_t)(i * 16 + (k - t->kernels));
        struct sst_rec_kernel *kr = envt_rec(w, SST_REC_KERNEL, sizeof *kr);
        kr->name = name, kr->start_ns = at, kr->end_ns = at + 80000;
        kr->correlation = a->correlation, kr->stream = 7;
    }
    s = envt_rec(w, SST_REC_STEP, sizeof *s);
    s->phase = SST_STEP_END, s->source = SST_STEPSRC_API, s->ts_ns = ts + ENVT_STEP_NS - 1000;
    s->step = i, s->tid = ENVT_PID;
}

/* Writes t to path. 0, or -1 with a line on stderr. */
static int env_trace_write(const char *path, const struct env_trace *t)
{
    struct sst_writer_opts o = {.chunk_bytes = 8192,
                                .clock = SST_CLOCK_SYNTHETIC,
                                .features = SST_FEAT_SYNTHETIC | SST_FEAT_CUPTI,
                                .pid = ENVT_PID,
                                .start_mono_ns = ENVT_BASE_NS,
                                .start_unix_ns = 1764436800ull * 1000000000ull};
    struct sst_writer *w;
    if (sst_writer_open(path, &o, &w) != 0) {
        fprintf(stderr, "env_trace: cannot create %s\n", path);
        return -1;
    }
    envt_identity(w, t);
    for (uint64_t i = 0; i < ENVT_STEPS; i++)
        envt_step(w, t, i);
    return sst_writer_close(w, ENVT_BASE_NS + (ENVT_STEPS + 1) * ENVT_STEP_NS) == 0 ? 0 : -1;
}

#endif
