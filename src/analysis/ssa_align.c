/*
 * ssa_align.c — the ranks of a job on one timeline (clock offsets from REALTIME pairs,
 * refined from collective ends) and who each collective waited for; ssa_align.h says the
 * model. What it needs of a trace (its PROCESS record, CLOCK pairs and collective kernels: a
 * few KiB a rank) is collected while the analysis' first pass reads it (SSA_ALIGN_KEEP,
 * ssa_scan.c), so that a report over many ranks reads each trace once; ssa_align_load
 * reads one trace for that alone (tests, tools).
 */
#include "ssa_align.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ssa.h"
#include "trace/sst_clock.h"
#include "trace/sst_reader.h"
#include "util/ss_error.h"

/* ---- which kernels are collectives ---- */

static const char *const kind_part[] = {
#define SSA_X_ALIGN_PART(id, part, said) part,
    SSA_ALIGN_KINDS(SSA_X_ALIGN_PART)
#undef SSA_X_ALIGN_PART
};

static int has(const char *s, size_t len, const char *needle, int fold)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= len; i++)
        if (fold ? !strncasecmp(s + i, needle, n) : !memcmp(s + i, needle, n)) return 1;
    return 0;
}

int ssa_align_collective(const char *name, size_t len)
{
    if (!name || !has(name, len, "nccl", 1)) return 0;
    for (size_t k = 0; k < sizeof kind_part / sizeof kind_part[0]; k++)
        if (has(name, len, kind_part[k], 0)) return (int)k + 1;
    return 0;
}

/* ---- one trace: collected while a pass reads it ---- */

struct ssa_align_collect {
    struct ssa_align_rank r;
    struct sst_clock_fit fit; /* 64 KiB: the collector lives on the heap */
    uint32_t streams[SSA_ALIGN_STREAMS];
    size_t n_streams, cap;
};

struct ssa_align_collect *ssa_align_collect_new(void)
{
    struct ssa_align_collect *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->r.rank = c->r.world_size = -1;
    sst_clock_fit_init(&c->fit);
    return c;
}

void ssa_align_collect_free(struct ssa_align_collect *c)
{
    if (!c) return;
    ssa_align_rank_free(&c->r);
    free(c);
}

uint32_t ssa_align_name_hash(const char *name, size_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)name[i]) * 16777619u;
    return h;
}

/* The stream's order of first collective (streams past SSA_ALIGN_STREAMS - 1 share the last). */
static uint32_t stream_order(struct ssa_align_collect *c, uint32_t stream)
{
    for (size_t i = 0; i < c->n_streams; i++)
        if (c->streams[i] == stream) return (uint32_t)i;
    if (c->n_streams == SSA_ALIGN_STREAMS) return SSA_ALIGN_STREAMS - 1;
    c->streams[c->n_streams] = stream;
    return (uint32_t)c->n_streams++;
}

int ssa_align_collect_kernel(struct ssa_align_collect *c, const struct sst_rec_kernel *k,
                             uint32_t name_hash)
{
    struct ssa_align_rank *r = &c->r;
    if (r->n_coll == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        struct ssa_align_coll *v = realloc(r->coll, cap * sizeof *v);
        if (!v) return SS_ENOMEM;
        r->coll = v, c->cap = cap;
    }
    r->coll[r->n_coll++] = (struct ssa_align_coll){k->start_ns, k->end_ns, name_hash, k->stream};
    return 0;
}

/* A kernel read by ssa_align_load: kept when its name is a collective's. */
static int add_kernel(struct ssa_align_collect *c, struct sst_reader *rd,
                      const struct sst_rec_header *h)
{
    struct sst_rec_kernel k;
    uint32_t len;
    sst_rec_load(h, &k, sizeof k);
    const char *name = sst_reader_string(rd, k.name, &len);
    if (!ssa_align_collective(name, len)) return 0;
    return ssa_align_collect_kernel(c, &k, ssa_align_name_hash(name, len));
}

/* Every PROCESS record overwrites the rank; a hostname that cannot be read keeps the last. */
static void add_process(struct ssa_align_collect *c, struct sst_reader *rd,
                        const struct sst_rec_header *h)
{
    struct sst_rec_process p;
    uint32_t len;
    sst_rec_load(h, &p, sizeof p);
    c->r.rank = p.rank, c->r.world_size = p.world_size;
    const char *host = sst_reader_string(rd, p.hostname, &len);
    if (!host) return;
    if (len >= SSA_ALIGN_HOST_MAX) len = SSA_ALIGN_HOST_MAX - 1;
    memcpy(c->r.host_name, host, len);
    c->r.host_name[len] = 0;
}

void ssa_align_collect_record(struct ssa_align_collect *c, struct sst_reader *rd,
                              const struct sst_rec_header *h)
{
    struct sst_rec_clock k;
    if (h->type == SST_REC_PROCESS) {
        add_process(c, rd, h);
    } else if (h->type == SST_REC_CLOCK) {
        sst_rec_load(h, &k, sizeof k);
        sst_clock_fit_add(&c->fit, &k);
    }
}

static int cmp_coll_start(const void *x, const void *y)
{
    const struct ssa_align_coll *a = x, *b = y;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    return a->end < b->end ? -1 : a->end > b->end;
}

static int cmp_coll_stream(const void *x, const void *y)
{
    const struct ssa_align_coll *a = x, *b = y;
    if (a->stream != b->stream) return a->stream < b->stream ? -1 : 1;
    return cmp_coll_start(x, y);
}

/* Streams numbered by their first collective (the same order on every rank of a job whose
 * streams do the same work), then grouped: soff says where each begins. */
static void order_streams(struct ssa_align_collect *c)
{
    struct ssa_align_rank *r = &c->r;
    if (!r->n_coll) return; /* soff all 0; coll may be NULL, which qsort must not get */
    qsort(r->coll, r->n_coll, sizeof *r->coll, cmp_coll_start);
    for (size_t i = 0; i < r->n_coll; i++)
        r->coll[i].stream = stream_order(c, r->coll[i].stream);
    qsort(r->coll, r->n_coll, sizeof *r->coll, cmp_coll_stream);
    size_t i = 0;
    for (uint32_t s = 0; s <= SSA_ALIGN_STREAMS; s++) {
        r->soff[s] = i;
        while (i < r->n_coll && r->coll[i].stream == s) i++;
    }
}

/* REALTIME - MONOTONIC: the pairs' median, else the header's pair (format before v5). */
static void wall_offset(struct ssa_align_collect *c, const struct sst_reader *rd)
{
    const struct sst_file_header *fh = sst_reader_header(rd);
    c->r.n_pairs = (uint32_t)(c->fit.n > UINT32_MAX ? UINT32_MAX : c->fit.n);
    c->r.wall_ns = c->fit.n ? sst_clock_fit_median(&c->fit)
                            : (int64_t)(fh->start_unix_ns - fh->start_mono_ns);
}

void ssa_align_collect_end(struct ssa_align_collect *c, const struct sst_reader *rd,
                           struct ssa_align_rank *out)
{
    wall_offset(c, rd);
    order_streams(c);
    *out = c->r;
    /* shrunk to what was kept: a rank's collectives stay until the job is aligned */
    if (out->n_coll && out->n_coll < c->cap) {
        struct ssa_align_coll *v = realloc(out->coll, out->n_coll * sizeof *v);
        if (v) out->coll = v;
    }
    free(c);
}

static int read_all(struct ssa_align_collect *c, struct sst_reader *rd)
{
    const struct sst_rec_header *h;
    int got, rc = 0;
    while (!rc && (got = sst_reader_next(rd, &h)) == 1) {
        if (h->type == SST_REC_KERNEL) rc = add_kernel(c, rd, h);
        else ssa_align_collect_record(c, rd, h);
    }
    return rc ? rc : got < 0 ? got : 0;
}

int ssa_align_load(const char *path, struct ssa_align_rank *out)
{
    memset(out, 0, sizeof *out);
    out->rank = out->world_size = -1;
    struct ssa_align_collect *c = ssa_align_collect_new();
    struct sst_reader *rd = NULL;
    if (!c) return SS_ENOMEM;
    int rc = sst_reader_open(path, NULL, &rd);
    if (!rc) rc = read_all(c, rd);
    if (rc) ssa_align_collect_free(c);
    else ssa_align_collect_end(c, rd, out);
    if (rd) sst_reader_close(rd);
    return rc;
}

void ssa_align_rank_free(struct ssa_align_rank *r)
{
    free(r->coll);
    r->coll = NULL, r->n_coll = 0;
}

/* ---- hosts ---- */

static int cmp_rank_no(const void *x, const void *y)
{
    const struct ssa_align_rank *a = x, *b = y;
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/* The host of rank i among those made so far, by name ("" never shares one). */
static size_t host_of(const struct ssa_align *a, size_t i)
{
    const char *name = a->ranks[i].host_name;
    for (size_t h = 0; *name && h < a->n_hosts; h++)
        if (!strcmp(a->ranks[a->hosts[h].first].host_name, name)) return h;
    return a->n_hosts;
}

static void join_host(struct ssa_align *a, size_t i)
{
    size_t h = host_of(a, i);
    struct ssa_align_host *x = &a->hosts[h];
    int32_t rank = a->ranks[i].rank;
    if (h == a->n_hosts) {
        a->n_hosts++;
        *x = (struct ssa_align_host){.first = i, .rank_lo = rank, .rank_hi = rank};
        x->coarse_ns = (double)(a->ranks[i].wall_ns - a->ranks[a->hosts[0].first].wall_ns);
        x->offset_ns = x->coarse_ns;
    }
    x->n_ranks++;
    x->rank_hi = rank; /* ranks come in order */
    a->ranks[i].host = h;
}

/* Hosts in the order of their lowest rank: the reference is the lowest rank's. */
static void make_hosts(struct ssa_align *a)
{
    qsort(a->ranks, a->n_ranks, sizeof *a->ranks, cmp_rank_no);
    for (size_t i = 0; i < a->n_ranks; i++)
        join_host(a, i);
    for (size_t h = 0; h < a->n_hosts; h++) {
        struct ssa_align_host *x = &a->hosts[h];
        x->contiguous = (size_t)((int64_t)x->rank_hi - x->rank_lo + 1) == x->n_ranks;
    }
}

double ssa_align_map(const struct ssa_align *a, size_t h, uint64_t t)
{
    const struct ssa_align_host *x = &a->hosts[h];
    double since = (double)(int64_t)(t - x->at_ns);
    return (double)t + x->offset_ns + since * x->drift_ppm / 1e6;
}

/* ---- matching: the i-th collective of stream s on every rank ---- */

struct matched {
    size_t n[SSA_ALIGN_STREAMS]; /* per stream: collectives matched */
};

static size_t stream_len(const struct ssa_align_rank *r, size_t s)
{
    return r->soff[s + 1] - r->soff[s];
}

static const struct ssa_align_coll *coll_at(const struct ssa_align_rank *r, size_t s, size_t i)
{
    return &r->coll[r->soff[s] + i];
}

/* How many of stream s match: the fewest any rank has, up to the first name that differs. */
static size_t match_stream(const struct ssa_align *a, size_t s)
{
    size_t n = SIZE_MAX;
    for (size_t r = 0; r < a->n_ranks; r++)
        if (stream_len(&a->ranks[r], s) < n) n = stream_len(&a->ranks[r], s);
    for (size_t i = 0; i < n; i++)
        for (size_t r = 1; r < a->n_ranks; r++)
            if (coll_at(&a->ranks[r], s, i)->name_hash != coll_at(&a->ranks[0], s, i)->name_hash)
                return i;
    return n;
}

static void match_all(struct ssa_align *a, struct matched *m)
{
    size_t all = 0;
    for (size_t s = 0; s < SSA_ALIGN_STREAMS; s++) {
        m->n[s] = a->n_ranks ? match_stream(a, s) : 0;
        a->n_coll += m->n[s];
    }
    for (size_t r = 0; r < a->n_ranks; r++)
        all += a->ranks[r].n_coll;
    a->n_unmatched = all - a->n_coll * a->n_ranks;
}

/* ---- refining each host's clock from the collectives' ends ---- */

struct work {
    struct ssa_align *a;
    struct matched m;
    size_t *mem, *moff;   /* the ranks of host h: mem[moff[h] .. moff[h+1]) */
    uint64_t *scratch;    /* n_ranks */
    double *x, *y, *res;  /* n_coll: one host's fit */
    double *gs, *ge;      /* n_ranks: one collective's starts and ends, aligned */
};

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

static int cmp_dbl(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* The median end (local time) of host h's ranks at the i-th collective of stream s. */
static uint64_t host_end(struct work *w, size_t h, size_t s, size_t i)
{
    size_t n = w->moff[h + 1] - w->moff[h];
    for (size_t k = 0; k < n; k++)
        w->scratch[k] = coll_at(&w->a->ranks[w->mem[w->moff[h] + k]], s, i)->end;
    qsort(w->scratch, n, sizeof *w->scratch, cmp_u64);
    return w->scratch[n / 2];
}

struct line {
    double a, b, xm, rms; /* y = a + b (x - xm) */
    size_t n;
};

/* Least squares over the points whose res is within lim (all when lim is infinite). */
static struct line fit_line(const struct work *w, size_t n, double lim)
{
    struct line l = {0};
    double sx = 0, sy = 0, sxx = 0, sxy = 0, see = 0;
    for (size_t k = 0; k < n; k++)
        if (fabs(w->res[k]) <= lim) l.n++, sx += w->x[k], sy += w->y[k];
    if (!l.n) return l;
    l.xm = sx / (double)l.n, l.a = sy / (double)l.n;
    for (size_t k = 0; k < n; k++)
        if (fabs(w->res[k]) <= lim) {
            double dx = w->x[k] - l.xm;
            sxx += dx * dx, sxy += dx * (w->y[k] - l.a);
        }
    l.b = sxx > 0 ? sxy / sxx : 0;
    for (size_t k = 0; k < n; k++) {
        double e = w->y[k] - l.a - l.b * (w->x[k] - l.xm);
        if (fabs(w->res[k]) <= lim) see += e * e;
        w->res[k] = e;
    }
    l.rms = sqrt(see / (double)l.n);
    return l;
}

/* Two passes: the second leaves out the ends further from the first line than 4 robust
 * standard deviations (at least 2 us): a collective whose ends did not meet (a rank that
 * left early, a mismatched pair) must not pull the clock. */
static struct line robust_line(struct work *w, size_t n)
{
    for (size_t k = 0; k < n; k++)
        w->res[k] = 0;
    struct line l = fit_line(w, n, INFINITY);
    double mad = 0;
    if (n >= 3) {
        double *v = malloc(n * sizeof *v);
        if (v) {
            for (size_t k = 0; k < n; k++)
                v[k] = fabs(w->res[k]);
            qsort(v, n, sizeof *v, cmp_dbl);
            mad = v[n / 2];
            free(v);
        }
        double lim = 4 * 1.4826 * mad;
        l = fit_line(w, n, lim > 2000 ? lim : 2000);
    }
    return l;
}

/* Host h's points: x its end (from the first), y the reference host's end minus its own. */
static size_t host_points(struct work *w, size_t h, uint64_t *x0)
{
    size_t n = 0;
    for (size_t s = 0; s < SSA_ALIGN_STREAMS; s++)
        for (size_t i = 0; i < w->m.n[s]; i++) {
            uint64_t e = host_end(w, h, s, i), r = host_end(w, 0, s, i);
            if (!n) *x0 = e;
            w->x[n] = (double)(int64_t)(e - *x0);
            w->y[n++] = (double)(int64_t)(r - e);
        }
    return n;
}

static void refine_host(struct work *w, size_t h)
{
    struct ssa_align_host *x = &w->a->hosts[h];
    uint64_t x0 = 0;
    size_t n = host_points(w, h, &x0);
    if (!n) return; /* nothing matched: the REALTIME pairs' offset stands */
    struct line l = robust_line(w, n);
    x->offset_ns = l.a, x->drift_ppm = l.b * 1e6, x->fit_rms_ns = l.rms, x->n_fit = l.n;
    x->at_ns = x0 + (uint64_t)(int64_t)llround(l.xm);
}

/* ---- each collective: its spread of ends, its last arrival, everyone's wait ---- */

/* The aligned starts and ends of the i-th collective of stream s into w->gs, w->ge (coarse:
 * the REALTIME pairs' offsets alone). Returns the spread of the ends. */
static double aligned(struct work *w, size_t s, size_t i, int coarse)
{
    const struct ssa_align *a = w->a;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t r = 0; r < a->n_ranks; r++) {
        const struct ssa_align_coll *c = coll_at(&a->ranks[r], s, i);
        size_t h = a->ranks[r].host;
        double sh = a->hosts[h].coarse_ns;
        w->gs[r] = coarse ? (double)c->start + sh : ssa_align_map(a, h, c->start);
        w->ge[r] = coarse ? (double)c->end + sh : ssa_align_map(a, h, c->end);
        if (w->ge[r] < lo) lo = w->ge[r];
        if (w->ge[r] > hi) hi = w->ge[r];
    }
    return hi - lo;
}

/* The latest start among the ranks of other hosts than host h (-inf: none). */
static double latest_elsewhere(const struct work *w, size_t h)
{
    double best = -INFINITY;
    for (size_t r = 0; r < w->a->n_ranks; r++)
        if (w->a->ranks[r].host != h && w->gs[r] > best) best = w->gs[r];
    return best;
}

/* Who arrived last (its start the latest), the waits to it. The rank is undetermined when the
 * runner-up started within the collective's residual of it; its host is still the last one
 * when every rank of the other hosts started further back than that. */
static void price_waits(struct work *w, double spread)
{
    struct ssa_align *a = w->a;
    size_t last = 0;
    double second = -INFINITY, wait = 0;
    a->n_priced++;
    for (size_t r = 1; r < a->n_ranks; r++)
        if (w->gs[r] > w->gs[last]) second = w->gs[last], last = r;
        else if (w->gs[r] > second) second = w->gs[r];
    for (size_t r = 0; r < a->n_ranks; r++) {
        a->ranks[r].wait_ns += w->gs[last] - w->gs[r];
        wait += w->gs[last] - w->gs[r];
    }
    struct ssa_align_host *x = &a->hosts[a->ranks[last].host];
    if (a->n_hosts > 1 && w->gs[last] - latest_elsewhere(w, a->ranks[last].host) > spread)
        x->last++, x->caused_ns += wait;
    if (w->gs[last] - second <= spread) {
        a->n_undetermined++;
        return;
    }
    a->ranks[last].last++;
    a->ranks[last].caused_ns += wait;
    if (a->n_hosts == 1) x->last++, x->caused_ns += wait;
}

static double quantile(const double *sorted, size_t n, double q)
{
    return n ? sorted[(size_t)(q * (double)(n - 1) + 0.5)] : 0;
}

/* Inside the lowest rank's steady steps (everything when they are not known). */
static int priced(const struct ssa_align *a, const struct ssa_align_coll *c)
{
    const struct ssa_align_rank *r = &a->ranks[0];
    return !r->steady_steps || (c->start >= r->steady_lo && c->start < r->steady_hi);
}

static int every_collective(struct work *w)
{
    struct ssa_align *a = w->a;
    double *sp = malloc((a->n_coll ? a->n_coll : 1) * sizeof *sp);
    double *co = malloc((a->n_coll ? a->n_coll : 1) * sizeof *co);
    size_t k = 0;
    if (!sp || !co) {
        free(sp), free(co);
        return SS_ENOMEM;
    }
    for (size_t s = 0; s < SSA_ALIGN_STREAMS; s++)
        for (size_t i = 0; i < w->m.n[s]; i++, k++) {
            co[k] = aligned(w, s, i, 1);
            sp[k] = aligned(w, s, i, 0);
            if (priced(a, coll_at(&a->ranks[0], s, i))) price_waits(w, sp[k]);
        }
    qsort(sp, k, sizeof *sp, cmp_dbl);
    qsort(co, k, sizeof *co, cmp_dbl);
    a->resid_p50_ns = quantile(sp, k, 0.5), a->resid_p90_ns = quantile(sp, k, 0.9);
    a->resid_max_ns = k ? sp[k - 1] : 0, a->coarse_p50_ns = quantile(co, k, 0.5);
    free(sp), free(co);
    return 0;
}

/* ---- the whole ---- */

/* mem/moff: the ranks of each host, in rank order (a counting sort by host: moff[h] is
 * moved to host h's end while filling, then back to its start). */
static void group_members(struct work *w)
{
    const struct ssa_align *a = w->a;
    memset(w->moff, 0, (a->n_hosts + 1) * sizeof *w->moff);
    for (size_t r = 0; r < a->n_ranks; r++)
        w->moff[a->ranks[r].host + 1]++;
    for (size_t h = 0; h < a->n_hosts; h++)
        w->moff[h + 1] += w->moff[h];
    for (size_t r = 0; r < a->n_ranks; r++)
        w->mem[w->moff[a->ranks[r].host]++] = r;
    for (size_t h = a->n_hosts; h > 0; h--)
        w->moff[h] = w->moff[h - 1];
    w->moff[0] = 0;
}

static int work_alloc(struct work *w)
{
    size_t n = w->a->n_ranks ? w->a->n_ranks : 1, c = w->a->n_coll ? w->a->n_coll : 1;
    w->mem = malloc(n * sizeof *w->mem), w->moff = malloc((n + 1) * sizeof *w->moff);
    w->scratch = malloc(n * sizeof *w->scratch);
    w->gs = malloc(n * sizeof *w->gs), w->ge = malloc(n * sizeof *w->ge);
    w->x = malloc(c * sizeof *w->x), w->y = malloc(c * sizeof *w->y);
    w->res = malloc(c * sizeof *w->res);
    return w->mem && w->moff && w->scratch && w->gs && w->ge && w->x && w->y && w->res
               ? 0
               : SS_ENOMEM;
}

static void work_free(struct work *w)
{
    free(w->mem), free(w->moff), free(w->scratch);
    free(w->gs), free(w->ge), free(w->x), free(w->y), free(w->res);
}

static int align_all(struct ssa_align *a)
{
    struct work w = {.a = a};
    make_hosts(a);
    match_all(a, &w.m);
    int rc = work_alloc(&w);
    if (!rc) {
        group_members(&w);
        a->hosts[0].n_fit = a->n_coll;
        for (size_t h = 1; h < a->n_hosts; h++)
            refine_host(&w, h);
        rc = every_collective(&w);
    }
    work_free(&w);
    return rc;
}

static void free_loaded(struct ssa_align_rank *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ssa_align_rank_free(&v[i]);
    free(v);
}

int ssa_align_ranks(struct ssa_align_rank *ranks, size_t n, struct ssa_align **out)
{
    struct ssa_align *a = calloc(1, sizeof *a);
    *out = NULL;
    if (a) a->hosts = calloc(n ? n : 1, sizeof *a->hosts);
    if (!a || !a->hosts) {
        free_loaded(ranks, n);
        free(a);
        return SS_ENOMEM;
    }
    a->ranks = ranks, a->n_ranks = n;
    int rc = align_all(a);
    a->steps = n ? a->ranks[0].steady_steps : 0;
    if (rc) ssa_align_free(a);
    else *out = a;
    return rc;
}

void ssa_align_free(struct ssa_align *a)
{
    if (!a) return;
    for (size_t i = 0; i < a->n_ranks; i++)
        ssa_align_rank_free(&a->ranks[i]);
    free(a->ranks);
    free(a->hosts);
    free(a);
}

/* ---- the ranks of a job ---- */

/* The rank's steady steps (not warm-up, not a price outlier): the first's begin, the last's
 * end, how many. */
static void steady_of(const struct ssa_result *r, struct ssa_align_rank *k)
{
    for (size_t i = 0; i < r->n_steps; i++) {
        const struct ssa_step_brief *b = &r->briefs[i];
        if (b->warmup) continue;
        if (!k->steady_steps++) k->steady_lo = b->begin_ns;
        k->steady_hi = b->end_ns;
    }
}

/* Takes over what the analysis of rank input kept for alignment (SSA_ALIGN_KEEP): 1, or 0
 * when it kept nothing (an import, a stream, an analysis without the flag: left out). */
static int take_rank(struct ssa_result *r, size_t input, struct ssa_align_rank *out)
{
    if (!r->align_rank) return 0;
    *out = *r->align_rank;
    free(r->align_rank);
    r->align_rank = NULL;
    out->input = input;
    if (r->briefs) steady_of(r, out);
    return 1;
}

int ssa_align_job(struct ssa_job *job, struct ssa_result *const *rs)
{
    job->align = NULL;
    if (job->n < 2) return 0;
    struct ssa_align_rank *v = calloc(job->n, sizeof *v);
    size_t n = 0;
    if (!v) return SS_ENOMEM;
    for (size_t i = 0; i < job->n; i++)
        n += (size_t)take_rank(rs[job->ranks[i].input], job->ranks[i].input, &v[n]);
    if (n < 2) {
        free_loaded(v, n);
        return 0;
    }
    return ssa_align_ranks(v, n, &job->align);
}
