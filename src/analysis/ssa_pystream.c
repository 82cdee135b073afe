/*
 * ssa_pystream.c — the Python stack sample records read in file order (ssa_host.h): frames
 * and stacks interned by content, each sample completed with the time it stands for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ssa_internal.h"
#include "util/ss_error.h"

/* A sampled thread: its last sample, waiting for the next one to know its weight. */
struct pythread {
    uint32_t tid, stack;
    uint64_t ts, due; /* the snapshot's time; when it was due (ts - lag) */
    int pending;
    int slow; /* the sampler's rate when it was taken: 1 the outside one */
};

/* Open-addressing slots holding index + 1 of an interned entry (0: empty), found by hash. */
struct slots {
    uint32_t *v;
    uint32_t *hash; /* the entry's hash, so that growing needs no rehash of the content */
    size_t cap, n;
};

struct ssa_pystream {
    struct ssa_pytab t;
    size_t cap_frames, cap_stacks, cap_sf;
    struct slots fslots, sslots;
    struct ssa_idmap frame_ids, stack_ids; /* the trace's ids -> index + 1 */
    struct ssa_idmap thread_ix;            /* tid -> index into threads */
    struct pythread *threads;
    size_t n_threads, cap_threads;
    uint64_t interval_ns[2], cap_ns[2]; /* [0] inside GPU windows, [1] outside (ssa_pyrate) */
    int slow;                           /* the sampler ticks at the outside rate now */
    uint64_t samples;
    uint32_t unknown_frame; /* index + 1 of the "?" frame, once needed */
};

/* ---- hashing ---- */

static uint32_t fnv(uint32_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 16777619u;
    return h;
}

static uint32_t frame_hash(const char *fn, size_t fl, const char *file, size_t il, uint32_t line,
                           uint32_t first)
{
    uint32_t h = fnv(2166136261u, fn, fl);
    h = fnv(h, "\0", 1);
    h = fnv(h, file, il);
    h = fnv(h, &line, sizeof line);
    return fnv(h, &first, sizeof first);
}

static int slots_grow(struct slots *s)
{
    size_t cap = s->cap ? s->cap * 2 : 256;
    uint32_t *v = calloc(cap, sizeof *v), *hash = calloc(cap, sizeof *hash);
    if (!v || !hash) {
        free(v), free(hash);
        return SS_ENOMEM;
    }
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->v[i]) continue;
        size_t j = s->hash[i] & (cap - 1);
        while (v[j])
            j = (j + 1) & (cap - 1);
        v[j] = s->v[i], hash[j] = s->hash[i];
    }
    free(s->v), free(s->hash);
    s->v = v, s->hash = hash, s->cap = cap;
    return 0;
}

static void slots_free(struct slots *s)
{
    free(s->v), free(s->hash);
    memset(s, 0, sizeof *s);
}

/* ---- frames ---- */

/* A folder of this name in a path marks library code, wherever it is installed. */
static const char *const library_dirs[] = {
    "/torch/",  "/lightning/",  "/pytorch_lightning/", "/lightning_fabric/", "/transformers/",
    "/accelerate/", "/timm/", "/torchvision/", "/torchinductor_", "/site-packages/",
    "/dist-packages/", "/stepscope/_", /* the shim's files: python/stepscope/_*.py */
};

/* "/lib/python3.12/" and the like: the standard library (site-packages are tested first). */
static int in_stdlib(const char *file)
{
    for (const char *p = strstr(file, "/python"); p; p = strstr(p + 1, "/python")) {
        const char *q = p + 7;
        if ((p - file >= 4 && memcmp(p - 4, "/lib", 4) == 0) ||
            (p - file >= 6 && memcmp(p - 6, "/lib64", 6) == 0)) {
            while ((*q >= '0' && *q <= '9') || *q == '.')
                q++;
            if (q > p + 7 && *q == '/') return 1;
        }
    }
    return 0;
}

int ssa_pyframe_kind_of(const char *file)
{
    if (strncmp(file, "<frozen ", 8) == 0) return SSA_PYF_STDLIB;
    if (file[0] == '<') return SSA_PYF_LIBRARY; /* code generated at run time (fx, dataclasses) */
    for (size_t i = 0; i < sizeof library_dirs / sizeof library_dirs[0]; i++)
        if (strstr(file, library_dirs[i])) return SSA_PYF_LIBRARY;
    return in_stdlib(file) ? SSA_PYF_STDLIB : SSA_PYF_USER;
}

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d) return NULL;
    if (n) memcpy(d, s, n);
    d[n] = 0;
    return d;
}

static int frame_equal(const struct ssa_pyframe *f, const char *fn, size_t fl, const char *file,
                       size_t il, uint32_t line, uint32_t first)
{
    return f->line == line && f->first_line == first && strlen(f->function) == fl &&
           memcmp(f->function, fn, fl) == 0 && strlen(f->file) == il &&
           memcmp(f->file, file, il) == 0;
}

/* The frame's index + 1, interned when new; 0 when out of memory or with max frames kept. */
static uint32_t intern_frame(struct ssa_pystream *p, const char *fn, size_t fl, const char *file,
                             size_t il, uint32_t line, uint32_t first, uint32_t max)
{
    uint32_t h = frame_hash(fn, fl, file, il, line, first);
    if ((p->fslots.n + 1) * 2 > p->fslots.cap && slots_grow(&p->fslots)) return 0;
    size_t j = h & (p->fslots.cap - 1);
    for (; p->fslots.v[j]; j = (j + 1) & (p->fslots.cap - 1))
        if (p->fslots.hash[j] == h &&
            frame_equal(&p->t.frames[p->fslots.v[j] - 1], fn, fl, file, il, line, first))
            return p->fslots.v[j];
    if (p->t.n_frames >= max) return 0;
    if (p->t.n_frames == p->cap_frames) {
        size_t cap = p->cap_frames ? 2 * p->cap_frames : 256;
        struct ssa_pyframe *v = realloc(p->t.frames, cap * sizeof *v);
        if (!v) return 0;
        p->t.frames = v, p->cap_frames = cap;
    }
    struct ssa_pyframe *f = &p->t.frames[p->t.n_frames];
    f->function = dup_n(fn, fl), f->file = dup_n(file, il);
    if (!f->function || !f->file) return free(f->function), free(f->file), 0;
    f->line = line, f->first_line = first, f->kind = (uint8_t)ssa_pyframe_kind_of(f->file);
    p->fslots.v[j] = (uint32_t)++p->t.n_frames, p->fslots.hash[j] = h, p->fslots.n++;
    return (uint32_t)p->t.n_frames;
}

/* The "?" frame that stands for an id the trace never defined (a damaged chunk) and for the
 * frames past the cap: the one frame allowed past SSA_PY_MAX_FRAMES, so a trace with more
 * distinct frames still reports (0 only when out of memory). */
static uint32_t unknown_frame(struct ssa_pystream *p)
{
    if (!p->unknown_frame)
        p->unknown_frame = intern_frame(p, "?", 1, "?", 1, 0, 0, SSA_PY_MAX_FRAMES + 1);
    return p->unknown_frame;
}

static int on_frame(struct ssa_pystream *p, struct sst_reader *r, const struct sst_rec_header *h)
{
    struct sst_rec_py_frame f;
    sst_rec_load(h, &f, sizeof f);
    uint32_t fl = 0, il = 0;
    const char *fn = sst_reader_string(r, f.function, &fl), *file = sst_reader_string(r, f.file, &il);
    if (!fn) fn = "?", fl = 1;
    if (!file) file = "?", il = 1;
    uint32_t ix = intern_frame(p, fn, fl, file, il, f.line, f.first_line, SSA_PY_MAX_FRAMES);
    if (!ix) ix = unknown_frame(p);
    if (!ix) return SS_ENOMEM;
    uint32_t *slot = ssa_idmap_put(&p->frame_ids, f.id, ix);
    if (!slot) return SS_ENOMEM;
    *slot = ix; /* a later definition of an id replaces the earlier one */
    return 0;
}

/* ---- stacks ---- */

/* The first user frame from the leaf and the library frame beside it (ssa_host.h). */
static void collapse(const struct ssa_pytab *t, struct ssa_pystack *s)
{
    s->user = s->lib = 0;
    if (s->depth == 0) return; /* the frame array may not exist yet */
    const uint32_t *f = &t->stack_frames[s->off];
    for (uint32_t i = 0; i < s->depth; i++) {
        if (t->frames[f[i]].kind != SSA_PYF_USER) continue;
        s->user = f[i] + 1;
        s->lib = i > 0 ? f[0] + 1 : 0;
        return;
    }
    s->lib = f[0] + 1;
}

static int stack_equal(const struct ssa_pytab *t, const struct ssa_pystack *s, const uint32_t *f,
                       uint32_t depth)
{
    /* An empty stack may come before any frame array exists: no pointer arithmetic on NULL. */
    return s->depth == depth &&
           (depth == 0 || memcmp(&t->stack_frames[s->off], f, depth * sizeof *f) == 0);
}

static int room_for_stack(struct ssa_pystream *p, uint32_t depth)
{
    if (p->t.n_stacks == p->cap_stacks) {
        size_t cap = p->cap_stacks ? 2 * p->cap_stacks : 256;
        struct ssa_pystack *v = realloc(p->t.stacks, cap * sizeof *v);
        if (!v) return SS_ENOMEM;
        p->t.stacks = v, p->cap_stacks = cap;
    }
    if (p->t.n_stack_frames + depth > p->cap_sf) {
        size_t cap = p->cap_sf ? p->cap_sf : 1024;
        while (cap < p->t.n_stack_frames + depth)
            cap *= 2;
        uint32_t *v = realloc(p->t.stack_frames, cap * sizeof *v);
        if (!v) return SS_ENOMEM;
        p->t.stack_frames = v, p->cap_sf = cap;
    }
    return 0;
}

/* The stack of frame indexes f (leaf first): its index + 1, interned when new; 0 when it
 * cannot be kept (past the cap: its samples are dropped), with *err set when out of memory. */
static uint32_t intern_stack(struct ssa_pystream *p, const uint32_t *f, uint32_t depth, int *err)
{
    uint32_t h = fnv(2166136261u, f, depth * sizeof *f);
    if ((p->sslots.n + 1) * 2 > p->sslots.cap && slots_grow(&p->sslots)) return *err = SS_ENOMEM, 0;
    size_t j = h & (p->sslots.cap - 1);
    for (; p->sslots.v[j]; j = (j + 1) & (p->sslots.cap - 1))
        if (p->sslots.hash[j] == h && stack_equal(&p->t, &p->t.stacks[p->sslots.v[j] - 1], f, depth))
            return p->sslots.v[j];
    if (p->t.n_stacks >= SSA_PY_MAX_STACKS) return 0;
    if (room_for_stack(p, depth)) return *err = SS_ENOMEM, 0;
    struct ssa_pystack *s = &p->t.stacks[p->t.n_stacks];
    s->off = (uint32_t)p->t.n_stack_frames, s->depth = depth;
    if (depth) memcpy(&p->t.stack_frames[s->off], f, depth * sizeof *f);
    p->t.n_stack_frames += depth;
    collapse(&p->t, s);
    p->sslots.v[j] = (uint32_t)++p->t.n_stacks, p->sslots.hash[j] = h, p->sslots.n++;
    return (uint32_t)p->t.n_stacks;
}

static int on_stack(struct ssa_pystream *p, const struct sst_rec_header *h)
{
    struct sst_rec_py_stack s;
    sst_rec_load(h, &s, sizeof s);
    size_t room = h->size > sizeof s ? (h->size - sizeof s) / sizeof(uint32_t) : 0;
    uint32_t depth = s.depth < room ? s.depth : (uint32_t)room;
    uint32_t *f = malloc((depth ? depth : 1) * sizeof *f);
    if (!f) return SS_ENOMEM;
    const unsigned char *ids = (const unsigned char *)h + sizeof s;
    int err = 0;
    for (uint32_t i = 0; i < depth && !err; i++) {
        uint32_t id;
        memcpy(&id, ids + i * sizeof id, sizeof id);
        uint32_t *ix = ssa_idmap_get(&p->frame_ids, id);
        uint32_t fi = ix ? *ix : unknown_frame(p);
        if (!fi) err = SS_ENOMEM;
        f[i] = fi - 1;
    }
    uint32_t ix = err ? 0 : intern_stack(p, f, depth, &err);
    free(f);
    if (err) return err;
    uint32_t *slot = ssa_idmap_put(&p->stack_ids, s.id, ix);
    if (!slot) return SS_ENOMEM;
    *slot = ix;
    return 0;
}

/* ---- samples ---- */

static struct pythread *thread_of(struct ssa_pystream *p, uint32_t tid)
{
    uint32_t *ix = ssa_idmap_get(&p->thread_ix, tid);
    if (ix) return &p->threads[*ix];
    if (p->n_threads == p->cap_threads) {
        size_t cap = p->cap_threads ? 2 * p->cap_threads : 16;
        struct pythread *v = realloc(p->threads, cap * sizeof *v);
        if (!v) return NULL;
        p->threads = v, p->cap_threads = cap;
    }
    if (!ssa_idmap_put(&p->thread_ix, tid, (uint32_t)p->n_threads)) return NULL;
    struct pythread *t = &p->threads[p->n_threads++];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    return t;
}

/* Completes t's pending sample: it stands for its own lag and the time until the next tick
 * was due (next_due), that part capped at SSA_PY_CAP_TICKS mean intervals of the slower of the
 * rates in effect when it was taken and now (a window's edge wakes the sampler, which draws
 * its next tick at the new rate: the interval that ends here is of either). */
static void complete(struct ssa_pystream *p, struct pythread *t, uint64_t next_due,
                     ssa_pysample_fn fn, void *ctx)
{
    if (!t->pending) return;
    uint64_t lag = t->ts - t->due, planned = next_due > t->ts ? next_due - t->ts : 0;
    if (lag > SSA_PY_MAX_LAG_NS) lag = SSA_PY_MAX_LAG_NS;
    uint64_t then = p->cap_ns[t->slow], now = p->cap_ns[p->slow], cap = then > now ? then : now;
    if (planned > cap) planned = cap;
    struct ssa_pysample s = {t->tid, t->stack, t->ts, t->ts - lag, lag + planned};
    t->pending = 0;
    fn(ctx, &s);
}

static int on_sample(struct ssa_pystream *p, const struct sst_rec_header *h, ssa_pysample_fn fn,
                     void *ctx)
{
    struct sst_rec_py_sample s;
    sst_rec_load(h, &s, sizeof s);
    p->samples++;
    struct pythread *t = thread_of(p, s.tid);
    if (!t) return SS_ENOMEM;
    uint64_t lag = (uint64_t)s.lag_us * 1000, due = s.ts_ns > lag ? s.ts_ns - lag : 0;
    if (due < t->ts) due = t->ts; /* the lag reaches back no further than the last sample */
    if (due > s.ts_ns) due = s.ts_ns; /* a sample out of order: no lag */
    complete(p, t, due, fn, ctx);
    uint32_t *ix = s.stack ? ssa_idmap_get(&p->stack_ids, s.stack) : NULL;
    *t = (struct pythread){s.tid, ix ? *ix : 0, s.ts_ns, due, 1, p->slow};
    return 0;
}

/* Python stacks stop being sampled (exit, error, pause): the pending samples end there. The
 * sampler's rate changes: the samples from here on are weighed at it. */
static void on_capture(struct ssa_pystream *p, const struct sst_rec_header *h, ssa_pysample_fn fn,
                       void *ctx)
{
    struct sst_rec_capture c;
    sst_rec_load(h, &c, sizeof c);
    if (!(c.what & SST_CAPTURE_PY_STACKS)) return;
    if (c.on && (c.reason == SST_CAP_SLOW || c.reason == SST_CAP_FULL))
        p->slow = c.reason == SST_CAP_SLOW;
    if (c.on) return;
    for (size_t i = 0; i < p->n_threads; i++)
        complete(p, &p->threads[i], c.ts_ns, fn, ctx);
}

int ssa_pystream_feed(struct ssa_pystream *p, struct sst_reader *r, const struct sst_rec_header *h,
                      ssa_pysample_fn fn, void *ctx)
{
    switch (h->type) {
    case SST_REC_PY_FRAME:
        return on_frame(p, r, h);
    case SST_REC_PY_STACK:
        return on_stack(p, h);
    case SST_REC_PY_SAMPLE:
        return on_sample(p, h, fn, ctx);
    case SST_REC_CAPTURE:
        on_capture(p, h, fn, ctx);
        return 0;
    default:
        return 0;
    }
}

void ssa_pystream_flush(struct ssa_pystream *p, ssa_pysample_fn fn, void *ctx)
{
    for (size_t i = 0; i < p->n_threads; i++) {
        struct pythread *t = &p->threads[i];
        complete(p, t, t->ts + p->interval_ns[p->slow], fn, ctx);
    }
}

/* ---- the stream ---- */

int ssa_pystream_new(struct ssa_pyrate rate, struct ssa_pystream **out)
{
    struct ssa_pystream *p = calloc(1, sizeof *p);
    *out = p;
    if (!p) return SS_ENOMEM;
    double hz[2] = {rate.hz > 0 ? rate.hz : SSA_PY_DEFAULT_HZ, rate.outside_hz};
    if (!(hz[1] > 0)) hz[1] = hz[0];
    for (int i = 0; i < 2; i++) {
        p->interval_ns[i] = (uint64_t)(1e9 / hz[i]);
        p->cap_ns[i] = (uint64_t)(SSA_PY_CAP_TICKS * (double)p->interval_ns[i]);
    }
    return 0;
}

void ssa_pytab_free(struct ssa_pytab *t)
{
    for (size_t i = 0; i < t->n_frames; i++)
        free(t->frames[i].function), free(t->frames[i].file);
    free(t->frames);
    free(t->stacks);
    free(t->stack_frames);
    memset(t, 0, sizeof *t);
}

void ssa_pystream_free(struct ssa_pystream *p)
{
    if (!p) return;
    ssa_pytab_free(&p->t);
    slots_free(&p->fslots), slots_free(&p->sslots);
    ssa_idmap_free(&p->frame_ids), ssa_idmap_free(&p->stack_ids), ssa_idmap_free(&p->thread_ix);
    free(p->threads);
    free(p);
}

const struct ssa_pytab *ssa_pystream_table(const struct ssa_pystream *p)
{
    return &p->t;
}

void ssa_pystream_take(struct ssa_pystream *p, struct ssa_pytab *out)
{
    *out = p->t;
    memset(&p->t, 0, sizeof p->t);
    p->cap_frames = p->cap_stacks = p->cap_sf = 0;
    slots_free(&p->fslots), slots_free(&p->sslots);
    ssa_idmap_free(&p->frame_ids), ssa_idmap_free(&p->stack_ids);
    p->unknown_frame = 0;
}

uint64_t ssa_pystream_samples(const struct ssa_pystream *p)
{
    return p->samples;
}

uint32_t ssa_pystream_stack(const struct ssa_pystream *p, uint32_t id)
{
    const uint32_t *ix = id ? ssa_idmap_get(&p->stack_ids, id) : NULL;
    return ix ? *ix : 0;
}

static double rate_of(const struct ssa_env_record *env, const char *key)
{
    const char *v = ssa_env_value(env, key);
    if (!v) return 0;
    char *end;
    double hz = strtod(v, &end);
    /* a rate below 0.01 Hz (or a hostile 1e-300) would make a sampling interval of over
     * 100 s, or one beyond what a u64 of ns holds */
    return end != v && hz >= 0.01 && hz < 1e6 ? hz : 0;
}

double ssa_py_rate_hz(const struct ssa_env_record *env)
{
    return rate_of(env, "pyshim.host_samples_hz");
}

struct ssa_pyrate ssa_py_rate(const struct ssa_env_record *env)
{
    return (struct ssa_pyrate){rate_of(env, "pyshim.host_samples_hz"),
                               rate_of(env, "pyshim.host_samples_outside_hz")};
}

int ssa_py_capture_on(const struct sst_rec_header *h)
{
    if (h->type != SST_REC_CAPTURE) return 0;
    struct sst_rec_capture c;
    sst_rec_load(h, &c, sizeof c);
    return c.on && (c.what & SST_CAPTURE_PY_STACKS);
}

char *ssa_pyframe_label(const struct ssa_pyframe *f, int short_file, char *buf, size_t cap)
{
    const char *file = f->file, *p;
    if (short_file && (p = strrchr(file, '/')) && p[1]) file = p + 1;
    if (!short_file && f->kind != SSA_PYF_USER) {
        const char *sp = strstr(file, "-packages/"); /* site- or dist- */
        if (sp) file = sp + 10;
    }
    snprintf(buf, cap, "%s (%s:%u)", f->function, file, f->line);
    return buf;
}
