/*
 * ssa_syncsite.c — where the blocking CUDA calls were issued (issues #20, #28): each PY_CALL
 * record (the stack of a thread blocked in a synchronising or allocating call,
 * docs/trace-format.md) joined to the API record with its correlation id, which says how long
 * the call blocked, in which step, and whether it freed memory.
 *
 * The two come from different threads' buffers (the sampler's, the program's), so either may
 * come first in the file. Pass 1 numbers the PY_CALLs' correlation ids (memory: one slot per
 * PY_CALL, at most one per mean sampling interval); pass 2 fills a slot from whichever record
 * comes first and joins at the second. A call counts when its snapshot lies inside the call
 * (a late one may show a later line), its thread is one whose samples count (ssa_host_counts),
 * and its step is steady. ssa_host_sites_apply then makes the sites the lines of their
 * categories (sync, alloc) in the cells every view reads: the cause of a wait is the line that
 * issued the call, not whatever line a sample happened to land on next.
 */
#include <stdlib.h>
#include <string.h>

#include "ssa_internal.h"
#include "util/ss_num.h"
#include "util/ss_error.h"

#define MAX_SITES 4096 /* distinct (stack, group) kept; calls of more are not counted */

struct ssa_hcall {
    uint64_t snap_ns, start_ns, end_ns;
    uint32_t stack; /* index + 1; 0 until the PY_CALL is in */
    uint32_t tid_snap, tid_api;
    uint8_t have_api, group, cat, free;
};

struct ssa_hsite {
    uint32_t stack; /* index + 1 */
    uint32_t calls;
    uint64_t blocked_ns;
    uint8_t group, cat, free;
};

int ssa_host_note_call(struct ssa_hostacc *h, const struct sst_rec_py_call *c)
{
    if (ssa_idmap_get(&h->call_ix, c->correlation)) return 0; /* a repeated id: the first */
    if (!ssa_idmap_put(&h->call_ix, c->correlation, (uint32_t)h->py_calls)) return SS_ENOMEM;
    h->py_calls++;
    return 0;
}

/* The slot of correlation id corr (allocated at first use), or NULL when pass 1 did not see
 * it (or out of memory: *err). */
static struct ssa_hcall *call_of(struct ssa_hostacc *h, uint32_t corr, int *err)
{
    uint32_t *ix = ssa_idmap_get(&h->call_ix, corr);
    if (!ix) return NULL;
    if (!h->calls && !(h->calls = calloc(h->py_calls, sizeof *h->calls))) {
        *err = SS_ENOMEM;
        return NULL;
    }
    return &h->calls[*ix];
}

static struct ssa_hsite *site_of(struct ssa_hostacc *h, const struct ssa_hcall *x)
{
    for (size_t i = 0; i < h->n_sites; i++) {
        const struct ssa_hsite *s = &h->sites[i];
        if (s->stack == x->stack && s->group == x->group && s->cat == x->cat && s->free == x->free)
            return &h->sites[i];
    }
    if (h->n_sites == MAX_SITES) return NULL;
    if (h->n_sites == h->cap_sites) {
        size_t cap = h->cap_sites ? 2 * h->cap_sites : 16;
        struct ssa_hsite *v = realloc(h->sites, cap * sizeof *v);
        if (!v) return NULL;
        h->sites = v, h->cap_sites = cap;
    }
    h->sites[h->n_sites] = (struct ssa_hsite){x->stack, 0, 0, x->group, x->cat, x->free};
    return &h->sites[h->n_sites++];
}

/* Both halves are in: one call of its stack, when it is what it claims to be (whether its
 * step is steady is known after pass 2: ssa_host_sites_finish). */
static int join(struct ssa_hostacc *h, const struct ssa_result *res, const struct ssa_hcall *x)
{
    if (x->tid_snap != x->tid_api) return 0;
    if (x->snap_ns < x->start_ns || x->snap_ns > x->end_ns) return 0; /* taken after it */
    if (!ssa_host_counts(h, res, x->tid_api)) return 0;
    struct ssa_hsite *s = site_of(h, x);
    if (!s) return h->n_sites == MAX_SITES ? 0 : SS_ENOMEM;
    s->calls++;
    s->blocked_ns += x->end_ns - x->start_ns;
    return 0;
}

int ssa_host_call_stack(struct ssa_hostacc *h, const struct ssa_result *res,
                        const struct sst_rec_py_call *c, uint32_t stack)
{
    int err = 0;
    struct ssa_hcall *x = call_of(h, c->correlation, &err);
    if (!x || x->stack || !stack) return err;
    x->snap_ns = c->ts_ns, x->stack = stack, x->tid_snap = c->tid;
    return x->have_api ? join(h, res, x) : 0;
}

int ssa_host_call_api(struct ssa_hostacc *h, const struct ssa_result *res,
                      const struct sst_rec_api *api, enum ssa_step_group g, int cat)
{
    int err = 0;
    struct ssa_hcall *x = h->py_calls ? call_of(h, api->correlation, &err) : NULL;
    if (!x || x->have_api || api->end_ns < api->start_ns) return err;
    x->have_api = 1, x->start_ns = api->start_ns, x->end_ns = api->end_ns;
    x->tid_api = api->tid, x->group = (uint8_t)g, x->cat = (uint8_t)cat;
    x->free = (uint8_t)ssa_api_frees(api->domain, api->cbid);
    return x->stack ? join(h, res, x) : 0;
}

/* ---- after pass 2 ---- */

static int cmp_site(const void *x, const void *y)
{
    const struct ssa_host_site *a = x, *b = y;
    if (a->stack != b->stack) return a->stack < b->stack ? -1 : 1;
    if (a->cat != b->cat) return a->cat < b->cat ? -1 : 1;
    return (a->free > b->free) - (a->free < b->free);
}

int ssa_host_sites_finish(struct ssa_hostacc *h, struct ssa_result *res)
{
    struct ssa_host *out = &res->host;
    out->sync_calls = h->py_calls;
    if (!h->n_sites) return 0;
    out->sites = calloc(h->n_sites, sizeof *out->sites);
    if (!out->sites) return SS_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < h->n_sites; i++) {
        const struct ssa_hsite *x = &h->sites[i];
        if (!ssa_host_group_steady(h, res, x->group)) continue;
        out->sites[n++] =
            (struct ssa_host_site){x->stack - 1, x->cat, x->free, x->calls, x->blocked_ns};
    }
    qsort(out->sites, n, sizeof *out->sites, cmp_site);
    size_t m = 0; /* the groups of one stack (and kind) merged */
    for (size_t i = 0; i < n; i++) {
        struct ssa_host_site *last = m ? &out->sites[m - 1] : NULL;
        if (last && cmp_site(last, &out->sites[i]) == 0) {
            last->calls += out->sites[i].calls, last->blocked_ns += out->sites[i].blocked_ns;
        } else {
            out->sites[m++] = out->sites[i];
        }
    }
    out->n_sites = m;
    for (size_t i = 0; i < m; i++)
        out->sync_calls_used += out->sites[i].calls;
    return 0;
}

void ssa_host_sites_free(struct ssa_hostacc *h)
{
    ssa_idmap_free(&h->call_ix);
    free(h->calls);
    free(h->sites);
}

/* ---- the sites as their categories' lines ---- */

/* Which sites of category cat carry its time: for alloc, the frees when any freed (the
 * allocations after an emptied cache are their victims); otherwise all. */
static int site_carries(const struct ssa_host *h, int cat, const struct ssa_host_site *x)
{
    if (x->cat != cat) return 0;
    if (cat != SSA_CAT_ALLOC || x->free) return 1;
    for (size_t i = 0; i < h->n_sites; i++)
        if (h->sites[i].cat == cat && h->sites[i].free) return 0;
    return 1;
}

/* The cells of category cat, over total_ns, from its sites (by the time each blocked);
 * appended to v from *n. Returns the sites used. */
static size_t site_cells(const struct ssa_host *h, int cat, double total_ns,
                         struct ssa_host_cell *v, size_t *n)
{
    uint64_t blocked = 0;
    size_t used = 0;
    for (size_t i = 0; i < h->n_sites; i++)
        if (site_carries(h, cat, &h->sites[i])) blocked += h->sites[i].blocked_ns;
    for (size_t i = 0; blocked && i < h->n_sites; i++) {
        const struct ssa_host_site *x = &h->sites[i];
        if (!site_carries(h, cat, x)) continue;
        double share = (double)x->blocked_ns / (double)blocked;
        v[(*n)++] = (struct ssa_host_cell){x->stack, (uint8_t)cat, x->calls, x->calls,
                                           ss_u64_clamped(share * total_ns + 0.5), 0};
        used++;
    }
    return used;
}

static int cmp_cell(const void *x, const void *y)
{
    const struct ssa_host_cell *a = x, *b = y;
    if (a->stack != b->stack) return a->stack < b->stack ? -1 : 1;
    return (a->cat > b->cat) - (a->cat < b->cat);
}

int ssa_host_sites_apply(struct ssa_result *res)
{
    struct ssa_host *h = &res->host;
    static const int cats[] = {SSA_CAT_SYNC, SSA_CAT_ALLOC};
    if (!h->n_sites) return 0;
    struct ssa_summary s;
    ssa_summarize(res, &s);
    struct ssa_host_cell *v = malloc((h->n_cells + h->n_sites) * sizeof *v);
    if (!v) return SS_ENOMEM;
    size_t n = 0;
    uint32_t by_sites = 0;
    for (size_t c = 0; c < sizeof cats / sizeof cats[0]; c++)
        if (site_cells(h, cats[c], s.cat_ms[cats[c]] * 1e6 * (double)s.steps, v, &n))
            by_sites |= SSA_CAT_BIT(cats[c]);
    for (size_t i = 0; i < h->n_cells; i++)
        if (!(by_sites & SSA_CAT_BIT(h->cells[i].cat))) v[n++] = h->cells[i];
    qsort(v, n, sizeof *v, cmp_cell);
    free(h->cells);
    h->cells = v, h->n_cells = n;
    return 0;
}
