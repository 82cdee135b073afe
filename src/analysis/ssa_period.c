/*
 * ssa_period.c — steps from the periodicity of the kernel sequence, for traces without
 * step markers (issue #5).
 *
 * A training loop launches the same kernels in the same order every step, so some kernel
 * name (an anchor) runs once per step and the multiset of kernels between two consecutive
 * runs of it is the same every time. Pass 1 gave per-name counts; from them a few
 * candidate anchors are chosen (names whose count many other names share — the names that
 * run once per step share the step count —, and the rarest names seen at least
 * SSA_PERIOD_MIN_STEPS times). Two extra streaming passes then keep only the candidates'
 * occurrences (bounded by SSA_PERIOD_MAX_OCC, i.e. by steps, never by events):
 *   A: each occurrence's kernel start and correlation id;
 *   B: its launch time (the API record with the same correlation id), and per interval
 *      between consecutive occurrences the number of kernels and an order-free hash of
 *      their names (records are not in time order, so no order can be trusted), and the
 *      GPU idle time before the occurrence.
 * A candidate is periodic when at least SSA_PERIOD_MATCH of its intervals have the modal
 * (count, hash). A kernel of every layer is periodic too, with a shorter period, so the
 * periodic candidates with the FEWEST occurrences (within 10 %) are kept: the names that run
 * once per step (a name that runs once every k steps would win: a known limit). Among those
 * the one after the longest GPU idle gap wins (the step's start: data loading runs before
 * the first kernel of a step). Boundaries are the anchor's launch times.
 */
#include <stdlib.h>
#include <string.h>

#include "ssa_internal.h"
#include "util/ss_error.h"

#define SSA_PERIOD_CANDS 16           /* candidate anchors examined */
#define SSA_PERIOD_MIN_STEPS 3        /* fewer occurrences cannot show a period */
#define SSA_PERIOD_MAX_OCC (1u << 20) /* occurrences kept over all candidates (~48 MB) */
#define SSA_PERIOD_MATCH 0.6          /* share of intervals that must repeat */

struct occ {
    uint64_t start, launch, last_end, hash;
    uint32_t corr, nk;
};
struct pcand {
    uint32_t name;
    size_t off, n, fill;
    size_t matches;
    uint64_t gap;
};
struct period {
    struct pcand c[SSA_PERIOD_CANDS];
    size_t nc;
    struct occ *o;
    struct ssa_idmap by_name; /* name id -> candidate index */
    struct ssa_idmap by_corr; /* correlation id -> occurrence index + 1 */
    uint64_t last_kernel_end;
};

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33, x *= 0xff51afd7ed558ccdull, x ^= x >> 33, x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_occ(const void *a, const void *b)
{
    const struct occ *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Adds k as a candidate with room for its occurrences. */
static int add_cand(struct period *p, const struct ssa_knstat *k, size_t *total)
{
    for (size_t i = 0; i < p->nc; i++)
        if (p->c[i].name == k->name_id) return 0;
    if (p->nc == SSA_PERIOD_CANDS || *total + k->count > SSA_PERIOD_MAX_OCC) return 0;
    p->c[p->nc].name = k->name_id;
    p->c[p->nc].n = (size_t)k->count;
    p->c[p->nc].off = *total;
    *total += (size_t)k->count;
    return ssa_idmap_put(&p->by_name, k->name_id, (uint32_t)p->nc++) ? 0 : SS_ENOMEM;
}

static size_t shared_count(const uint64_t *sorted, size_t n, uint64_t c)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (sorted[m] + 1 < c)
            lo = m + 1;
        else
            hi = m;
    }
    size_t k = 0;
    for (size_t i = lo; i < n && sorted[i] <= c + 1; i++)
        k++;
    return k;
}

/* Half the candidates by shared count, half by rarity. */
static int choose_cands(struct period *p, const struct ssa_scan *sc, size_t *total)
{
    uint64_t *cnt = malloc((sc->n_kn ? sc->n_kn : 1) * sizeof *cnt);
    int rc = cnt ? 0 : SS_ENOMEM;
    for (size_t i = 0; i < sc->n_kn && !rc; i++)
        cnt[i] = sc->kn[i].count;
    if (!rc) qsort(cnt, sc->n_kn, sizeof *cnt, cmp_u64);
    for (int pass = 0; pass < 2 && !rc; pass++) {
        size_t limit = pass == 0 ? SSA_PERIOD_CANDS / 2 : SSA_PERIOD_CANDS;
        while (p->nc < limit && !rc) {
            size_t best = SIZE_MAX, best_sh = 0;
            for (size_t i = 0; i < sc->n_kn; i++) {
                const struct ssa_knstat *k = &sc->kn[i];
                if (k->count < SSA_PERIOD_MIN_STEPS || ssa_idmap_get(&p->by_name, k->name_id))
                    continue;
                if (*total + k->count > SSA_PERIOD_MAX_OCC) continue;
                size_t sh = pass == 0 ? shared_count(cnt, sc->n_kn, k->count) : 1;
                if (best == SIZE_MAX || sh > best_sh ||
                    (sh == best_sh && k->count < sc->kn[best].count))
                    best = i, best_sh = sh;
            }
            if (best == SIZE_MAX) break;
            rc = add_cand(p, &sc->kn[best], total);
        }
    }
    free(cnt);
    return rc;
}

static int pass_a(struct period *p, struct sst_reader *r)
{
    struct ssa_pass ps;
    int rc = ssa_pass_begin(r, &ps);
    if (rc) return ssa_pass_end(&ps), rc;
    const struct sst_rec_header *h;
    while ((rc = sst_reader_next(r, &h)) == 1) {
        if (h->type != SST_REC_KERNEL) continue;
        struct sst_rec_kernel k;
        SSA_LOAD(h, k);
        uint32_t *ci = ssa_idmap_get(&p->by_name, k.name);
        if (!ci) continue;
        struct pcand *c = &p->c[*ci];
        if (c->fill == c->n) continue;
        struct occ *o = &p->o[c->off + c->fill++];
        memset(o, 0, sizeof *o);
        o->start = k.start_ns, o->launch = k.start_ns, o->corr = k.correlation;
    }
    ssa_pass_end(&ps);
    if (rc < 0) return rc;
    for (size_t i = 0; i < p->nc; i++) {
        struct pcand *c = &p->c[i];
        c->n = c->fill;
        qsort(p->o + c->off, c->n, sizeof *p->o, cmp_occ);
        for (size_t j = 0; j < c->n; j++) {
            uint32_t corr = p->o[c->off + j].corr;
            if (corr && !ssa_idmap_put(&p->by_corr, corr, (uint32_t)(c->off + j + 1)))
                return SS_ENOMEM;
        }
    }
    return 0;
}

/* Index of the last occurrence starting at or before t, or SIZE_MAX. */
static size_t occ_at(const struct occ *o, size_t n, uint64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (o[m].start <= t)
            lo = m + 1;
        else
            hi = m;
    }
    return lo ? lo - 1 : SIZE_MAX;
}

static void bucket_kernel(struct period *p, const struct sst_rec_kernel *k)
{
    uint64_t h = mix64(k->name);
    if (k->end_ns > p->last_kernel_end) p->last_kernel_end = k->end_ns;
    for (size_t i = 0; i < p->nc; i++) {
        struct occ *o = p->o + p->c[i].off;
        size_t n = p->c[i].n;
        size_t j = occ_at(o, n, k->start_ns);
        if (j != SIZE_MAX) o[j].nk++, o[j].hash += h;
        size_t e = k->end_ns ? occ_at(o, n, k->end_ns - 1) : SIZE_MAX;
        e = e == SIZE_MAX ? 0 : e + 1; /* the first occurrence starting at or after the end */
        if (e < n && k->end_ns <= o[e].start && k->end_ns > o[e].last_end)
            o[e].last_end = k->end_ns;
    }
}

static int pass_b(struct period *p, struct sst_reader *r)
{
    struct ssa_pass ps;
    int rc = ssa_pass_begin(r, &ps);
    if (rc) return ssa_pass_end(&ps), rc;
    const struct sst_rec_header *h;
    while ((rc = sst_reader_next(r, &h)) == 1) {
        if (h->type == SST_REC_KERNEL) {
            struct sst_rec_kernel k;
            SSA_LOAD(h, k);
            bucket_kernel(p, &k);
        } else if (h->type == SST_REC_API) {
            struct sst_rec_api a;
            SSA_LOAD(h, a);
            uint32_t *ix = a.correlation ? ssa_idmap_get(&p->by_corr, a.correlation) : NULL;
            if (ix && a.start_ns < p->o[*ix - 1].launch) p->o[*ix - 1].launch = a.start_ns;
        }
    }
    ssa_pass_end(&ps);
    return rc < 0 ? rc : 0;
}

/* Matching intervals (the modal kernel multiset) and the median idle gap before each. */
static int score(struct period *p, struct pcand *c)
{
    c->matches = 0;
    if (c->n < SSA_PERIOD_MIN_STEPS + 1) return 0;
    size_t m = c->n - 1; /* the last occurrence's interval is open-ended */
    uint64_t *v = malloc(m * sizeof *v);
    if (!v) return SS_ENOMEM;
    struct occ *o = p->o + c->off;
    for (size_t j = 0; j < m; j++)
        v[j] = o[j].hash ^ mix64(o[j].nk + 0x9e37ull);
    qsort(v, m, sizeof *v, cmp_u64);
    for (size_t i = 0, run = 1; i < m; i++, run++) {
        if (i + 1 < m && v[i + 1] == v[i]) continue;
        if (run > c->matches) c->matches = run;
        run = 0;
    }
    uint64_t prev = 0;
    for (size_t j = 0; j < m; j++) { /* idle gap: start minus the latest earlier kernel end */
        if (o[j].last_end > prev) prev = o[j].last_end;
        v[j] = prev && o[j].start > prev ? o[j].start - prev : 0;
    }
    c->gap = ssa_quantile_u64(v, m, 0.5);
    free(v);
    if ((double)c->matches < SSA_PERIOD_MATCH * (double)m || c->matches < SSA_PERIOD_MIN_STEPS)
        c->matches = 0;
    return 0;
}

static int make_briefs(struct period *p, const struct pcand *c, struct ssa_result *res)
{
    struct occ *o = p->o + c->off;
    uint64_t *d = malloc(c->n * sizeof *d);
    res->briefs = calloc(c->n, sizeof *res->briefs);
    if (!d || !res->briefs) {
        free(d);
        return SS_ENOMEM;
    }
    size_t n = 0;
    for (size_t j = 0; j + 1 < c->n; j++)
        if (o[j + 1].launch > o[j].launch) d[n++] = o[j + 1].launch - o[j].launch;
    uint64_t med = ssa_quantile_u64(d, n, 0.5);
    free(d);
    n = 0;
    for (size_t j = 0; j < c->n; j++) {
        uint64_t b = o[j].launch, e = j + 1 < c->n ? o[j + 1].launch : p->last_kernel_end;
        if (j + 1 == c->n && (e < b + med / 2 || e > b + med + med / 2)) break; /* partial */
        if (e <= b) continue;
        res->briefs[n] = (struct ssa_step_brief){.number = n, .begin_ns = b, .end_ns = e};
        n++;
    }
    res->n_steps = n;
    return 0;
}

int ssa_period_detect(const struct ssa_scan *sc, struct ssa_result *res)
{
    struct period p;
    memset(&p, 0, sizeof p);
    size_t total = 0;
    int rc = sc->reader ? choose_cands(&p, sc, &total) : 0;
    if (rc || p.nc == 0) goto out;
    p.o = malloc(total * sizeof *p.o);
    if (!p.o) {
        rc = SS_ENOMEM;
        goto out;
    }
    if ((rc = pass_a(&p, sc->reader)) || (rc = pass_b(&p, sc->reader))) goto out;
    size_t fewest = SIZE_MAX; /* the shortest period: the names that run once per step */
    for (size_t i = 0; i < p.nc && !rc; i++) {
        rc = score(&p, &p.c[i]);
        if (!rc && p.c[i].matches && p.c[i].n < fewest) fewest = p.c[i].n;
    }
    struct pcand *best = NULL;
    for (size_t i = 0; i < p.nc && !rc; i++) { /* among those, the one after the longest idle */
        struct pcand *c = &p.c[i];
        if (!c->matches || (double)c->n > 1.1 * (double)fewest) continue;
        if (!best || c->gap > best->gap || (c->gap == best->gap && c->matches > best->matches))
            best = c;
    }
    if (!rc && best) rc = make_briefs(&p, best, res);
out:
    free(p.o);
    ssa_idmap_free(&p.by_name);
    ssa_idmap_free(&p.by_corr);
    return rc;
}
