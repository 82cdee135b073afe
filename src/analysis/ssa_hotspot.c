/*
 * ssa_hotspot.c — what the report shows of the Python stack samples (issue #20): the user's
 * lines where a category's time went (ssa_host_hotspots), and the flame graph of GPU-idle
 * host time (ssa_host_flame_build), both from the steady cells of ssa_host.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ssa_internal.h"
#include "util/ss_error.h"

/* ---- hotspots ---- */

#define NO_FRAME UINT32_MAX

/* One cell (or sync site) seen as its line and the library frame beside it. */
struct spot {
    uint32_t frame, lib;
    uint64_t ns;
    double idle_launches;
    uint64_t samples;
    uint64_t sync_calls;
};

static int cmp_spot(const void *x, const void *y)
{
    const struct spot *a = x, *b = y;
    if (a->frame != b->frame) return a->frame < b->frame ? -1 : 1;
    return (a->lib > b->lib) - (a->lib < b->lib);
}

static int cmp_hotspot(const void *x, const void *y)
{
    const struct ssa_hotspot *a = x, *b = y;
    if (a->ms_per_step != b->ms_per_step) return a->ms_per_step > b->ms_per_step ? -1 : 1;
    if (a->samples != b->samples) return a->samples > b->samples ? -1 : 1;
    return (a->frame > b->frame) - (a->frame < b->frame); /* one table: a stable order */
}

/* A stack's line (NO_FRAME for an empty stack) and the library frame beside it. */
uint32_t ssa_host_stack_line(const struct ssa_host *h, uint32_t stack, uint32_t *lib)
{
    const struct ssa_pystack *st = &h->tab.stacks[stack];
    *lib = st->user && st->lib ? st->lib - 1 : NO_FRAME;
    return st->user ? st->user - 1 : st->lib ? st->lib - 1 : NO_FRAME;
}

/* The cells of the categories in cats, each as its (line, library frame). The categories
 * with call sites have their sites' cells (ssa_host_sites_apply): one truth for every view. */
static size_t collect_spots(const struct ssa_host *h, uint32_t cats, struct spot *v)
{
    size_t n = 0;
    for (size_t i = 0; i < h->n_cells; i++) {
        const struct ssa_host_cell *c = &h->cells[i];
        if (!(cats & SSA_CAT_BIT(c->cat))) continue;
        uint32_t lib, frame = ssa_host_stack_line(h, c->stack, &lib);
        if (frame == NO_FRAME) continue; /* an empty stack */
        int idle = c->cat >= SSA_CAT_FIRST_IDLE;
        v[n++] = (struct spot){frame, lib, c->ns, idle ? c->launches : 0, c->samples, c->calls};
    }
    return n;
}

/* One line's sorted spots v[0..n) into its hotspot: sums, and the library frame beside it
 * with the most time. */
static void sum_line(const struct ssa_host *h, const struct spot *v, size_t n, double steps,
                     double rec_us, struct ssa_hotspot *out)
{
    uint64_t ns = 0, samples = 0, best_ns = 0, calls = 0;
    double launches = 0;
    uint32_t best = NO_FRAME;
    for (size_t i = 0; i < n;) {
        uint32_t lib = v[i].lib;
        uint64_t lib_ns = 0;
        for (; i < n && v[i].lib == lib; i++) {
            lib_ns += v[i].ns, samples += v[i].samples, calls += v[i].sync_calls;
            launches += v[i].idle_launches;
        }
        ns += lib_ns;
        if (lib_ns > best_ns) best_ns = lib_ns, best = lib;
    }
    double raw = (double)ns / 1e6 / steps, rec = launches * rec_us / 1e3 / steps;
    *out = (struct ssa_hotspot){&h->tab.frames[v[0].frame],
                                best == NO_FRAME ? NULL : &h->tab.frames[best],
                                raw > rec ? raw - rec : 0, raw, samples, calls};
}

size_t ssa_host_hotspots(const struct ssa_result *r, const struct ssa_summary *s, uint32_t cats,
                         struct ssa_hotspot *out, size_t max)
{
    const struct ssa_host *h = &r->host;
    size_t cap = h->n_cells;
    if (!cap || !s->steps || !max) return 0;
    struct spot *v = malloc(cap * sizeof *v);
    struct ssa_hotspot *all = malloc(cap * sizeof *all);
    size_t n = v && all ? collect_spots(h, cats, v) : 0, m = 0;
    if (n) qsort(v, n, sizeof *v, cmp_spot);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j].frame == v[i].frame)
            j++;
        sum_line(h, v + i, j - i, (double)s->steps, s->rec_us_per_launch, &all[m++]);
        i = j;
    }
    if (m) qsort(all, m, sizeof *all, cmp_hotspot);
    size_t k = m < max ? m : max;
    if (k) memcpy(out, all, k * sizeof *out);
    free(v), free(all);
    return k;
}

char *ssa_hotspot_label(const struct ssa_hotspot *h, char *buf, size_t cap)
{
    return ssa_pyframe_label(h->frame, 1, buf, cap);
}

/* ---- the flame graph ---- */

/* A node while the tree is built: children in a singly linked list. */
struct fnode {
    uint32_t frame; /* index + 1, 0: root or category */
    uint8_t cat;
    uint16_t depth;
    uint32_t first_child, next_sibling; /* index + 1, 0: none */
    uint64_t ns;
};

struct ftree {
    struct fnode *v;
    size_t n;
    uint64_t cut_ns;
};

/* The child of parent for frame (index + 1), created when missing; 0 when the cap is met. */
static uint32_t child_of(struct ftree *t, uint32_t parent, uint32_t frame, uint8_t cat)
{
    uint32_t c = t->v[parent].first_child;
    for (; c; c = t->v[c - 1].next_sibling)
        if (t->v[c - 1].frame == frame && t->v[c - 1].cat == cat) return c - 1;
    if (t->n >= SSA_FLAME_MAX_NODES) return UINT32_MAX;
    struct fnode *x = &t->v[t->n];
    *x = (struct fnode){frame, cat, (uint16_t)(t->v[parent].depth + 1), 0,
                        t->v[parent].first_child, 0};
    t->v[parent].first_child = (uint32_t)++t->n;
    return (uint32_t)(t->n - 1);
}

/* Adds one GPU-idle cell: root, its category, then its frames from the outermost call. */
static void add_path(struct ftree *t, const struct ssa_host *h, const struct ssa_host_cell *c)
{
    const struct ssa_pystack *st = &h->tab.stacks[c->stack];
    uint32_t node = child_of(t, 0, 0, c->cat);
    t->v[0].ns += c->ns;
    if (node == UINT32_MAX) {
        t->cut_ns += c->ns;
        return;
    }
    t->v[node].ns += c->ns;
    for (uint32_t d = st->depth; d-- > 0;) {
        uint32_t next = child_of(t, node, h->tab.stack_frames[st->off + d] + 1, c->cat);
        if (next == UINT32_MAX) {
            t->cut_ns += c->ns; /* this deep: left out, the ancestors keep the time */
            return;
        }
        t->v[next].ns += c->ns;
        node = next;
    }
}

/* A child as its list is sorted: by time, largest first, then category and frame. */
struct child {
    uint64_t ns;
    uint32_t cat, frame, idx;
};

static int cmp_child(const void *x, const void *y)
{
    const struct child *a = x, *b = y;
    if (a->ns != b->ns) return a->ns > b->ns ? -1 : 1;
    if (a->cat != b->cat) return a->cat < b->cat ? -1 : 1;
    return (a->frame > b->frame) - (a->frame < b->frame);
}

/* Relinks every node's children in order (scratch: room for SSA_FLAME_MAX_NODES). */
static void sort_children(struct ftree *t, struct child *scratch)
{
    for (size_t i = 0; i < t->n; i++) {
        size_t k = 0;
        for (uint32_t c = t->v[i].first_child; c; c = t->v[c - 1].next_sibling)
            scratch[k++] = (struct child){t->v[c - 1].ns, t->v[c - 1].cat, t->v[c - 1].frame, c};
        qsort(scratch, k, sizeof *scratch, cmp_child);
        t->v[i].first_child = k ? scratch[0].idx : 0;
        for (size_t j = 0; j < k; j++)
            t->v[scratch[j].idx - 1].next_sibling = j + 1 < k ? scratch[j + 1].idx : 0;
    }
}

/* Writes node i's subtree in pre-order into out from *n; returns the subtree's size. */
static uint32_t emit(const struct ftree *t, uint32_t i, struct ssa_flame_node *out, size_t *n)
{
    size_t at = (*n)++;
    const struct fnode *x = &t->v[i];
    out[at] = (struct ssa_flame_node){x->frame, x->cat, x->depth, 1, x->ns};
    for (uint32_t c = x->first_child; c; c = t->v[c - 1].next_sibling)
        out[at].subtree += emit(t, c - 1, out, n);
    return out[at].subtree;
}

int ssa_host_flame_build(struct ssa_host *h)
{
    struct ftree t = {calloc(SSA_FLAME_MAX_NODES, sizeof *t.v), 1, 0};
    struct child *scratch = malloc(SSA_FLAME_MAX_NODES * sizeof *scratch);
    if (!t.v || !scratch) return free(t.v), free(scratch), SS_ENOMEM;
    t.v[0].cat = SSA_CAT_COUNT;
    for (size_t i = 0; i < h->n_cells; i++)
        if (h->cells[i].cat >= SSA_CAT_FIRST_IDLE) add_path(&t, h, &h->cells[i]);
    int rc = 0;
    if (t.v[0].ns) {
        h->flame = malloc(t.n * sizeof *h->flame);
        if (h->flame) {
            sort_children(&t, scratch);
            emit(&t, 0, h->flame, &h->n_flame);
            h->flame_cut_ns = t.cut_ns;
        } else {
            rc = SS_ENOMEM;
        }
    }
    free(t.v), free(scratch);
    return rc;
}
