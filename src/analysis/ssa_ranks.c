/*
 * ssa_ranks.c — the ranks of a multi-GPU job compared (`stepscope report DIR` over the traces
 * of a torchrun job): per rank its step time, GPU busy share, NCCL kernel time, exposed
 * communication and how much of NCCL was overlapped, its largest non-comm category; then the
 * straggler, why and its price (see ssa.h for the model).
 *
 * Works only on the per-rank results and their summaries: no trace is read again. A rank
 * whose exposed comm is mostly waiting for the straggler is given its peer (ssa_ranks_peer),
 * so that its comm_not_overlapped finding prices only the transfer that compute could hide
 * and does not count the straggler's time twice.
 */
#include <stdlib.h>
#include <string.h>

#include "ssa.h"
#include "ssa_align.h"
#include "util/ss_error.h"

/* ---- one rank from its result ---- */

static int top_noncomm_cat(const double *cat_ms)
{
    int best = -1;
    for (int c = 0; c < SSA_CAT_COUNT; c++)
        if (c != SSA_CAT_COMM && (best < 0 || cat_ms[c] > cat_ms[best])) best = c;
    return best;
}

static void rank_fill(const struct ssa_result *r, size_t input, struct ssa_rank *k)
{
    struct ssa_summary s;
    ssa_summarize(r, &s);
    memset(k, 0, sizeof *k);
    k->input = input, k->rank = r->rank;
    k->usable = s.steps > 0 && r->step_source != SSA_STEPS_NONE;
    k->step_ms = (double)s.mean_ns / 1e6;
    k->median_ms = (double)s.median_ns / 1e6;
    k->busy_pct = s.gpu_busy_pct;
    k->nccl_ms = s.kclass_ms[SSA_KC_NCCL];
    k->comm_ms = s.cat_ms[SSA_CAT_COMM];
    if (k->nccl_ms > 0) {
        double ov = 100 * (1 - k->comm_ms / k->nccl_ms);
        k->overlap_pct = ov < 0 ? 0 : ov > 100 ? 100 : ov;
    }
    k->noncomm_ms = k->step_ms > k->comm_ms ? k->step_ms - k->comm_ms : 0;
    memcpy(k->cat_ms, s.cat_ms, sizeof k->cat_ms);
    k->top_cat = top_noncomm_cat(k->cat_ms);
    k->top_ms = k->cat_ms[k->top_cat];
}

/* ---- which results are ranks of the job ---- */

static int is_rank(const struct ssa_result *r)
{
    return r && r->world_size > 1 && r->rank >= 0 && r->rank < r->world_size;
}

static int cmp_i32(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return a < b ? -1 : a > b;
}

/* The world size most rank results share (the larger on a tie); 0 when there is no rank. */
static int32_t job_world_size(const struct ssa_result *const *rs, size_t n, int *err)
{
    int32_t *ws = malloc((n ? n : 1) * sizeof *ws), best = 0;
    size_t m = 0, best_run = 0;
    *err = !ws;
    if (!ws) return 0;
    for (size_t i = 0; i < n; i++)
        if (is_rank(rs[i])) ws[m++] = rs[i]->world_size;
    qsort(ws, m, sizeof *ws, cmp_i32);
    for (size_t i = 0, run = 0; i < m; i++) {
        run = i && ws[i] == ws[i - 1] ? run + 1 : 1;
        if (run >= best_run) best_run = run, best = ws[i];
    }
    free(ws);
    return best;
}

static int cmp_rank(const void *x, const void *y)
{
    const struct ssa_rank *a = x, *b = y;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    return a->input < b->input ? -1 : a->input > b->input; /* the first given wins */
}

/* The ranks of the job, by rank number, one per rank number. */
static int collect_ranks(const struct ssa_result *const *rs, size_t n, struct ssa_job *job)
{
    job->ranks = malloc((n ? n : 1) * sizeof *job->ranks);
    if (!job->ranks) return SS_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (!is_rank(rs[i])) continue;
        if (rs[i]->world_size != job->world_size) {
            job->other_jobs++;
            continue;
        }
        rank_fill(rs[i], i, &job->ranks[job->n++]);
    }
    qsort(job->ranks, job->n, sizeof *job->ranks, cmp_rank);
    size_t kept = 0;
    for (size_t i = 0; i < job->n; i++) {
        if (kept && job->ranks[kept - 1].rank == job->ranks[i].rank) {
            job->duplicates++;
            continue;
        }
        job->ranks[kept++] = job->ranks[i];
    }
    job->n = kept;
    job->missing = (size_t)job->world_size - kept;
    return 0;
}

/* ---- comparing them ---- */

struct keyed {
    double key;
    size_t idx;
};

static int cmp_keyed_desc(const void *x, const void *y)
{
    const struct keyed *a = x, *b = y;
    if (a->key != b->key) return a->key > b->key ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* job->order: the usable ranks, most non-comm time first. */
static int order_ranks(struct ssa_job *job)
{
    struct keyed *v = malloc((job->n ? job->n : 1) * sizeof *v);
    job->order = malloc((job->n ? job->n : 1) * sizeof *job->order);
    if (!v || !job->order) {
        free(v);
        return SS_ENOMEM;
    }
    for (size_t i = 0; i < job->n; i++)
        if (job->ranks[i].usable) v[job->n_usable++] = (struct keyed){job->ranks[i].noncomm_ms, i};
    qsort(v, job->n_usable, sizeof *v, cmp_keyed_desc);
    for (size_t i = 0; i < job->n_usable; i++)
        job->order[i] = v[i].idx;
    free(v);
    return 0;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static double quantile(const double *sorted, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo + 1 >= n) return sorted[n - 1];
    return sorted[lo] + (pos - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

/* p10/median/p90 of the field at byte offset `off` of the usable ranks. */
static int spread_of(const struct ssa_job *job, size_t off, struct ssa_spread *out)
{
    memset(out, 0, sizeof *out);
    if (!job->n_usable) return 0;
    double *v = malloc(job->n_usable * sizeof *v);
    if (!v) return SS_ENOMEM;
    for (size_t i = 0; i < job->n_usable; i++)
        memcpy(&v[i], (const char *)&job->ranks[job->order[i]] + off, sizeof *v);
    qsort(v, job->n_usable, sizeof *v, cmp_double);
    *out = (struct ssa_spread){quantile(v, job->n_usable, 0.1), quantile(v, job->n_usable, 0.5),
                               quantile(v, job->n_usable, 0.9)};
    free(v);
    return 0;
}

/* The straggler (most non-comm time), the reference (median of the others), why, price. */
static void find_straggler(struct ssa_job *job)
{
    if (job->n_usable < 2) return;
    size_t others = job->n_usable - 1;
    job->straggler = job->order[0];
    job->reference = job->order[1 + (others - 1) / 2]; /* the others' median (on a tie the
                                                        * slower: the smaller price) */
    const struct ssa_rank *s = &job->ranks[job->straggler], *m = &job->ranks[job->reference];
    job->price_ms = s->noncomm_ms - m->noncomm_ms;
    job->why_cat = -1;
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        double d = s->cat_ms[c] - m->cat_ms[c];
        if (c != SSA_CAT_COMM && (job->why_cat < 0 || d > job->why_ms))
            job->why_cat = c, job->why_ms = d;
    }
    job->has_straggler =
        job->price_ms > 0 && job->price_ms >= SSA_STRAGGLER_MIN_PCT / 100 * job->step_ms.p50;
}

/* Of each rank's exposed comm, what waits for the straggler: the straggler's extra
 * non-comm time over this rank's, at most this rank's exposed comm. */
static void attribute_waits(struct ssa_job *job)
{
    if (!job->has_straggler) return;
    double slow = job->ranks[job->straggler].noncomm_ms;
    for (size_t i = 0; i < job->n_usable; i++) {
        struct ssa_rank *k = &job->ranks[job->order[i]];
        if (job->order[i] == job->straggler) continue;
        double w = slow - k->noncomm_ms;
        k->wait_ms = w < 0 ? 0 : w > k->comm_ms ? k->comm_ms : w;
    }
}

int ssa_ranks_analyze(const struct ssa_result *const *rs, size_t n, struct ssa_job *job)
{
    memset(job, 0, sizeof *job);
    job->why_cat = -1;
    int err;
    job->world_size = job_world_size(rs, n, &err);
    if (err) return SS_ENOMEM;
    if (!job->world_size) return 0;
    int rc = collect_ranks(rs, n, job);
    if (!rc) rc = order_ranks(job);
    if (!rc) rc = spread_of(job, offsetof(struct ssa_rank, step_ms), &job->step_ms);
    if (!rc) rc = spread_of(job, offsetof(struct ssa_rank, noncomm_ms), &job->noncomm_ms);
    if (!rc) rc = spread_of(job, offsetof(struct ssa_rank, comm_ms), &job->comm_ms);
    if (rc) {
        ssa_job_free(job);
        return rc;
    }
    find_straggler(job);
    attribute_waits(job);
    return spread_of(job, offsetof(struct ssa_rank, wait_ms), &job->wait_ms);
}

void ssa_job_free(struct ssa_job *job)
{
    free(job->ranks);
    free(job->order);
    ssa_align_free(job->align);
    job->ranks = NULL, job->order = NULL, job->align = NULL;
    job->n = job->n_usable = 0;
}

struct ssa_peer ssa_ranks_peer(const struct ssa_job *job, size_t input)
{
    struct ssa_peer none = {0, -1, 0};
    if (job->n < 2) return none;
    int32_t slow = job->has_straggler ? job->ranks[job->straggler].rank : -1;
    for (size_t i = 0; i < job->n; i++) {
        const struct ssa_rank *k = &job->ranks[i];
        if (k->usable && k->input == input) return (struct ssa_peer){1, slow, k->wait_ms};
    }
    return none;
}
