/*
 * ssi_folded.c — Python stack samples as collapsed stacks (`stepscope export --format folded`),
 * the input of flamegraph.pl and speedscope: one line per distinct stack,
 * "root;frame;...;leaf VALUE", frames from the outermost call in, VALUE in microseconds.
 *
 * idle (the default): the GPU-idle time of the training and autograd threads over the steady
 * steps, from the analysis (ssa_result.host.cells), the root frame the category ("data",
 * "sync", ...). all: every sample of every thread over the whole trace, streamed from the
 * reader (ssa_pystream), the root frame the thread ("MainThread (tid 123)"). Frames read
 * "function (file:line)", library files from inside site-packages; ';' and control bytes in a
 * name are replaced (the format has no escaping).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ssa.h"
#include "interop/ssi.h"
#include "interop/ssi_window.h"
#include "trace/sst_reader.h"
#include "util/ss_error.h"

/* Writes s with what the format cannot carry replaced: ';' separates frames, a newline ends
 * the line, and a space before the value must stay the last one (spaces are fine). */
static void put_name(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        fputc(c == ';' ? ':' : c < 0x20 || c == 0x7f ? '?' : c, f);
    }
}

static void put_stack(FILE *f, const struct ssa_pytab *t, uint32_t stack)
{
    const struct ssa_pystack *s = &t->stacks[stack];
    char label[768];
    for (uint32_t d = s->depth; d-- > 0;) {
        fputc(';', f);
        put_name(f, ssa_pyframe_label(&t->frames[t->stack_frames[s->off + d]], 0, label,
                                      sizeof label));
    }
}

/* ---- idle: the analysis's cells ---- */

static int write_idle(const struct ssa_result *res, FILE *f)
{
    const struct ssa_host *h = &res->host;
    uint64_t idle_us = 0;
    for (size_t i = 0; i < h->n_cells; i++)
        if (h->cells[i].cat >= SSA_CAT_FIRST_IDLE) idle_us += (h->cells[i].ns + 500) / 1000;
    if (!idle_us) return SS_EEMPTY; /* nothing to fold: said by ssi_folded_write */
    for (int cat = SSA_CAT_FIRST_IDLE; cat < SSA_CAT_COUNT; cat++)
        for (size_t i = 0; i < h->n_cells; i++) {
            const struct ssa_host_cell *c = &h->cells[i];
            uint64_t us = (c->ns + 500) / 1000;
            if (c->cat != cat || !us) continue;
            fputs(ssa_cat_name(cat), f);
            put_stack(f, &h->tab, c->stack);
            fprintf(f, " %" PRIu64 "\n", us);
        }
    return 0;
}

/* ---- all: every sample, streamed ---- */

struct fold_entry {
    uint32_t tid, stack; /* stack: index + 1 into the stream's table */
    uint64_t ns;
};

struct fold_all {
    struct fold_entry *v;
    size_t n, cap;
    uint32_t *slots; /* index + 1 into v by (tid, stack) */
    size_t cap_slots;
    struct {
        uint32_t tid, name; /* the thread's last THREAD name (a string id) */
    } *names;
    size_t n_names, cap_names;
    int err;
};

static size_t fold_slot(uint32_t tid, uint32_t stack, size_t cap)
{
    uint64_t k = (uint64_t)tid << 32 | stack;
    return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

static int fold_grow(struct fold_all *a)
{
    size_t cap = a->cap_slots ? 2 * a->cap_slots : 1024;
    uint32_t *slots = calloc(cap, sizeof *slots);
    struct fold_entry *v = realloc(a->v, cap / 2 * sizeof *v);
    if (v) a->v = v, a->cap = cap / 2;
    if (!slots || !v) return free(slots), SS_ENOMEM;
    for (size_t i = 0; i < a->n; i++) {
        size_t j = fold_slot(a->v[i].tid, a->v[i].stack, cap);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = (uint32_t)(i + 1);
    }
    free(a->slots);
    a->slots = slots, a->cap_slots = cap;
    return 0;
}

static void fold_sample(void *ctx, const struct ssa_pysample *s)
{
    struct fold_all *a = ctx;
    if (!s->stack || !s->weight_ns || a->err) return;
    if (a->n + 1 > a->cap && fold_grow(a)) {
        a->err = SS_ENOMEM;
        return;
    }
    size_t j = fold_slot(s->tid, s->stack, a->cap_slots);
    for (; a->slots[j]; j = (j + 1) & (a->cap_slots - 1)) {
        struct fold_entry *e = &a->v[a->slots[j] - 1];
        if (e->tid == s->tid && e->stack == s->stack) {
            e->ns += s->weight_ns;
            return;
        }
    }
    a->v[a->n] = (struct fold_entry){s->tid, s->stack, s->weight_ns};
    a->slots[j] = (uint32_t)++a->n;
}

static void fold_thread(struct fold_all *a, const struct sst_rec_header *h)
{
    struct sst_rec_thread t;
    sst_rec_load(h, &t, sizeof t);
    for (size_t i = 0; i < a->n_names; i++)
        if (a->names[i].tid == t.tid) {
            a->names[i].name = t.name; /* the Python name comes after the process's */
            return;
        }
    if (a->n_names == a->cap_names) {
        size_t cap = a->cap_names ? 2 * a->cap_names : 16;
        void *v = realloc(a->names, cap * sizeof *a->names);
        if (!v) return; /* out of memory: the thread goes by its id */
        a->names = v, a->cap_names = cap;
    }
    a->names[a->n_names].tid = t.tid, a->names[a->n_names++].name = t.name;
}

static void put_thread(FILE *f, struct sst_reader *r, const struct fold_all *a, uint32_t tid)
{
    uint32_t len = 0;
    const char *name = NULL;
    for (size_t i = 0; i < a->n_names && !name; i++)
        if (a->names[i].tid == tid) name = sst_reader_string(r, a->names[i].name, &len);
    char buf[256];
    snprintf(buf, sizeof buf, "%.*s", name ? (int)(len < 200 ? len : 200) : 6,
             name ? name : "thread");
    put_name(f, buf);
    fprintf(f, " (tid %" PRIu32 ")", tid);
}

static int cmp_entry(const void *x, const void *y)
{
    const struct fold_entry *a = x, *b = y;
    if (a->tid != b->tid) return a->tid < b->tid ? -1 : 1;
    return (a->stack > b->stack) - (a->stack < b->stack);
}

static int write_all(const struct ssi_export_in *in, FILE *f)
{
    struct sst_reader *r = in->r;
    struct ssa_pystream *p;
    struct fold_all a;
    memset(&a, 0, sizeof a);
    int rc = ssa_pystream_new(ssa_py_rate(&in->res->env), &p);
    const struct sst_rec_header *h;
    while (rc == 0 && (rc = ssi_window_next(r, in->win, &h)) == 1) {
        if (h->type == SST_REC_THREAD) fold_thread(&a, h);
        rc = ssa_pystream_feed(p, r, h, fold_sample, &a);
        if (!rc) rc = a.err;
    }
    if (rc == 0) ssa_pystream_flush(p, fold_sample, &a), rc = a.err;
    if (rc == 0 && a.n) qsort(a.v, a.n, sizeof *a.v, cmp_entry);
    uint64_t total_us = 0;
    for (size_t i = 0; rc == 0 && i < a.n; i++)
        total_us += (a.v[i].ns + 500) / 1000;
    if (rc == 0 && !total_us) rc = SS_EEMPTY;
    for (size_t i = 0; rc == 0 && i < a.n; i++) {
        uint64_t us = (a.v[i].ns + 500) / 1000;
        if (!us) continue;
        put_thread(f, r, &a, a.v[i].tid);
        put_stack(f, ssa_pystream_table(p), a.v[i].stack - 1);
        fprintf(f, " %" PRIu64 "\n", us);
    }
    ssa_pystream_free(p);
    free(a.v), free(a.slots), free(a.names);
    return rc;
}

/* An export with nothing in it is an error, not an empty file (issue #28). */
static void say_empty(const struct ssa_result *res, int all, char *msg, size_t cap)
{
    if (!res->host.samples)
        snprintf(msg, cap, "the trace has no Python stack samples: nothing to fold (record a "
                           "Python program with the shim's sampler on)");
    else
        snprintf(msg, cap, all ? "no sample stands for any time: nothing to fold"
                               : "no sampled GPU-idle time in the steady steps: nothing to fold "
                                 "(--samples all folds every sample)");
}

int ssi_folded_write(const struct ssi_export_in *in, FILE *f, char *msg, size_t cap)
{
    const struct ssa_result *res = in->res;
    int all = in->all_samples;
    if (msg && cap) msg[0] = '\0';
    int rc = !res->host.samples ? SS_EEMPTY : all ? ssi_window_rewind(in->r, in->win) : 0;
    if (rc == 0) rc = all ? write_all(in, f) : write_idle(res, f);
    if (rc == SS_EEMPTY && msg && cap) say_empty(res, all, msg, cap);
    else if (rc < 0 && msg && cap) snprintf(msg, cap, "cannot read the trace: %s", ss_strerror(rc));
    return rc;
}

static int folded_stream(const struct ssi_export_in *in, FILE *f, char *msg, size_t cap)
{
    return ssi_folded_write(in, f, msg, cap);
}

const struct ssi_exporter ssi_export_folded = {
    "folded", ".folded",
    "collapsed stacks of the Python stack samples (flamegraph.pl,\n"
    "speedscope): \"root;frame;...;frame MICROSECONDS\" per line.",
    1, folded_stream, NULL, 1, 0};
