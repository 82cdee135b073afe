/*
 * ssa_host.c — Python stack samples in the analysis's two passes (ssa_host.h, issue #20).
 *
 * Pass 1 learns which threads are PyTorch's autograd threads and, per PY_SAMPLE record, the
 * earliest time it touches: the thread's previous sample, whose weight it completes. So pass 2
 * keeps a step open until the weights of its samples are known, exactly as for an NVTX pop
 * and its push. Pass 2 feeds the records to the sample stream; each completed sample of a
 * counted thread (ssa_host_counts) goes into its step's sample buffer (ssa_attr.c); the sweep
 * gives each its category, and ssa_host_add sums it into a cell per (stack, category, step
 * group). Once the warm-up is decided, the groups that turned out steady are merged into
 * res->host.cells.
 */
#include <stdlib.h>
#include <string.h>

#include "ssa_internal.h"
#include "util/ss_error.h"

struct ssa_hcell {
    uint64_t key; /* stack << 8 | cat << 2 | group */
    uint64_t ns;
    double launches;
    uint32_t samples;
};

#define CELL_KEY(stack, cat, g) ((uint64_t)(stack) << 8 | (uint64_t)(cat) << 2 | (uint64_t)(g))
#define CELL_STACK(k) ((uint32_t)((k) >> 8))
#define CELL_CAT(k) ((uint8_t)(((k) >> 2) & 63u))
#define CELL_GROUP(k) ((unsigned)((k)&3u))
_Static_assert(SSA_CAT_COUNT <= 64 && SSA_GROUPS <= 4, "cell keys hold a category and a group");

/* ---- sample buffers ---- */

int ssa_smp_room(struct ssa_smpbuf *b)
{
    if (b->n + 2 <= b->cap) return 0;
    size_t cap = b->cap ? 2 * b->cap : 16;
    struct ssa_smp *v = realloc(b->v, cap * sizeof *v);
    if (!v) return SS_ENOMEM;
    b->v = v, b->cap = cap;
    return 0;
}

void ssa_smp_sort(struct ssa_smpbuf *b)
{
    for (size_t i = 1; i < b->n; i++) {
        struct ssa_smp x = b->v[i];
        size_t j = i;
        for (; j > 0 && b->v[j - 1].rel > x.rel; j--)
            b->v[j] = b->v[j - 1];
        b->v[j] = x;
    }
    if (b->v) b->v[b->n].rel = UINT64_MAX;
}

/* ---- pass 1 ---- */

void ssa_host_note_thread(struct ssa_hostacc *h, struct sst_reader *r,
                          const struct sst_rec_thread *t)
{
    uint32_t len;
    const char *name = sst_reader_string(r, t->name, &len);
    if (name && len >= 11 && memcmp(name, "pt_autograd", 11) == 0)
        (void)ssa_idmap_put(&h->autograd, t->tid, 1); /* out of memory: not counted */
}

/* The slot of tid's last sample time, created at 0; NULL when out of memory. */
static uint64_t *last_of(struct ssa_hostacc *h, uint32_t tid)
{
    uint32_t *ix = ssa_idmap_get(&h->last_ix, tid);
    if (ix) return &h->last_ts[*ix];
    if (h->n_last == h->cap_last) {
        size_t cap = h->cap_last ? 2 * h->cap_last : 16;
        uint64_t *v = realloc(h->last_ts, cap * sizeof *v);
        if (!v) return NULL;
        h->last_ts = v, h->cap_last = cap;
    }
    if (!ssa_idmap_put(&h->last_ix, tid, (uint32_t)h->n_last)) return NULL;
    h->last_ts[h->n_last] = 0;
    return &h->last_ts[h->n_last++];
}

uint64_t ssa_host_note_sample(struct ssa_hostacc *h, const struct sst_rec_py_sample *s)
{
    h->py_samples++;
    uint64_t *last = last_of(h, s->tid);
    if (!last) return 0; /* out of memory: the earliest time keeps every step open */
    uint64_t touch = *last && *last < s->ts_ns ? *last : s->ts_ns;
    *last = s->ts_ns;
    return touch;
}

uint64_t ssa_host_note_capture(struct ssa_hostacc *h, const struct sst_rec_capture *c)
{
    uint64_t touch = c->ts_ns;
    if (c->on || !(c->what & SST_CAPTURE_PY_STACKS)) return touch;
    for (size_t i = 0; i < h->n_last; i++) {
        if (h->last_ts[i] && h->last_ts[i] < touch) touch = h->last_ts[i];
        h->last_ts[i] = 0; /* completed here */
    }
    return touch;
}

/* ---- pass 2 ---- */

int ssa_host_begin(struct ssa_hostacc *h, const struct ssa_result *res)
{
    if (!h->py_samples) return 0;
    return ssa_pystream_new(ssa_py_rate(&res->env), &h->py);
}

int ssa_host_counts(const struct ssa_hostacc *h, const struct ssa_result *res, uint32_t tid)
{
    return !res->train_tid || tid == res->train_tid || ssa_idmap_get(&h->autograd, tid);
}

static size_t slot_of(uint64_t key, size_t cap)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

static int cells_grow(struct ssa_hostacc *h)
{
    size_t cap = h->cap_slots ? 2 * h->cap_slots : 256;
    uint32_t *slots = calloc(cap, sizeof *slots);
    struct ssa_hcell *cells = realloc(h->cells, cap / 2 * sizeof *cells);
    if (!slots || !cells) {
        free(slots);
        if (cells) h->cells = cells;
        return SS_ENOMEM;
    }
    for (size_t i = 0; i < h->n_cells; i++) {
        size_t j = slot_of(cells[i].key, cap);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = (uint32_t)(i + 1);
    }
    free(h->slots);
    h->slots = slots, h->cap_slots = cap, h->cells = cells, h->cap_cells = cap / 2;
    return 0;
}

/* The cell of key, created empty; NULL when out of memory. Load at most 1/2. */
static struct ssa_hcell *cell_of(struct ssa_hostacc *h, uint64_t key)
{
    if (h->n_cells + 1 > h->cap_cells && cells_grow(h)) return NULL;
    size_t j = slot_of(key, h->cap_slots);
    for (; h->slots[j]; j = (j + 1) & (h->cap_slots - 1))
        if (h->cells[h->slots[j] - 1].key == key) return &h->cells[h->slots[j] - 1];
    struct ssa_hcell *c = &h->cells[h->n_cells];
    memset(c, 0, sizeof *c);
    c->key = key;
    h->slots[j] = (uint32_t)++h->n_cells;
    return c;
}

int ssa_host_add(struct ssa_hostacc *h, enum ssa_step_group g, size_t i,
                 const struct ssa_smpbuf *b)
{
    if (g == SSA_GROUP_WARMUP || !b->n) return 0;
    if (!h->rep[g]) h->rep[g] = i + 1;
    for (size_t k = 0; k < b->n; k++) {
        const struct ssa_smp *x = &b->v[k];
        struct ssa_hcell *c = cell_of(h, CELL_KEY(x->stack, x->cat, g));
        if (!c) return SS_ENOMEM;
        c->ns += x->w, c->launches += x->launches, c->samples++;
    }
    return 0;
}

/* ---- after pass 2 ---- */

int ssa_host_group_steady(const struct ssa_hostacc *h, const struct ssa_result *res, unsigned g)
{
    if (g == SSA_GROUP_STEADY) return 1;
    if (g == SSA_GROUP_WARMUP || !h->rep[g]) return 0;
    return !res->briefs[h->rep[g] - 1].warmup; /* a group's steps share their fate */
}

static int cmp_cell(const void *x, const void *y)
{
    const struct ssa_host_cell *a = x, *b = y;
    if (a->stack != b->stack) return a->stack < b->stack ? -1 : 1;
    return (a->cat > b->cat) - (a->cat < b->cat);
}

/* The cells of the steady groups, merged by (stack, category), into res->host. */
static int keep_cells(struct ssa_hostacc *h, struct ssa_result *res)
{
    struct ssa_host *out = &res->host;
    out->cells = calloc(h->n_cells ? h->n_cells : 1, sizeof *out->cells);
    if (!out->cells) return SS_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < h->n_cells; i++) {
        const struct ssa_hcell *c = &h->cells[i];
        if (!ssa_host_group_steady(h, res, CELL_GROUP(c->key))) continue;
        out->cells[n++] = (struct ssa_host_cell){.stack = CELL_STACK(c->key),
                                                 .cat = CELL_CAT(c->key),
                                                 .samples = c->samples,
                                                 .ns = c->ns,
                                                 .launches = c->launches};
    }
    qsort(out->cells, n, sizeof *out->cells, cmp_cell);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        struct ssa_host_cell *last = m ? &out->cells[m - 1] : NULL;
        if (last && last->stack == out->cells[i].stack && last->cat == out->cells[i].cat) {
            last->samples += out->cells[i].samples, last->ns += out->cells[i].ns;
            last->launches += out->cells[i].launches;
        } else {
            out->cells[m++] = out->cells[i];
        }
    }
    out->n_cells = m;
    for (size_t i = 0; i < m; i++)
        out->counted += out->cells[i].samples;
    return 0;
}

int ssa_host_finish(struct ssa_hostacc *h, struct ssa_result *res)
{
    struct ssa_host *out = &res->host;
    if (!h->py) return 0;
    double hz = ssa_py_rate_hz(&res->env);
    out->interval_ms = 1e3 / (hz > 0 ? hz : SSA_PY_DEFAULT_HZ);
    out->samples = ssa_pystream_samples(h->py);
    out->late = h->late;
    ssa_pystream_take(h->py, &out->tab);
    int rc = keep_cells(h, res);
    if (!rc) rc = ssa_host_sites_finish(h, res);
    if (!rc) rc = ssa_host_sites_apply(res);
    return rc ? rc : ssa_host_flame_build(out);
}

void ssa_hostacc_free(struct ssa_hostacc *h)
{
    ssa_idmap_free(&h->autograd);
    ssa_idmap_free(&h->last_ix);
    free(h->last_ts);
    ssa_pystream_free(h->py);
    free(h->cells);
    free(h->slots);
    ssa_host_sites_free(h);
    memset(h, 0, sizeof *h);
}

void ssa_host_free(struct ssa_host *h)
{
    ssa_pytab_free(&h->tab);
    free(h->sites);
    free(h->cells);
    free(h->flame);
    memset(h, 0, sizeof *h);
}
