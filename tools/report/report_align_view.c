/*
 * report_align_view.c — the two sentences of the ranks section that the alignment gives
 * (src/analysis/ssa_align.h): how well the ranks' clocks were laid on one timeline, and who
 * arrived last at the collectives and what everyone's waiting for them cost.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "analysis/ssa_align.h"
#include "report_view.h"
#include "util/text_esc.h"

/* Appends to buf at *n, never past cap (a hostname escaped can be long). */
__attribute__((format(printf, 4, 5))) static void add(char *buf, size_t cap, size_t *n,
                                                      const char *fmt, ...)
{
    if (*n >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *n, cap - *n, fmt, ap);
    va_end(ap);
    if (k > 0) *n = *n + (size_t)k < cap ? *n + (size_t)k : cap;
}

static void host_said(const struct ssa_align *a, size_t h, char *buf, size_t cap)
{
    char name[4 * SSA_ALIGN_HOST_MAX];
    const struct ssa_align_host *x = &a->hosts[h];
    const char *raw = a->ranks[x->first].host_name;
    text_escape_to(name, sizeof name, raw[0] ? raw : "?");
    if (x->n_ranks == 1) snprintf(buf, cap, "host %.150s (rank %d)", name, (int)x->rank_lo);
    else if (x->contiguous)
        snprintf(buf, cap, "host %.150s (ranks %d-%d)", name, (int)x->rank_lo, (int)x->rank_hi);
    else snprintf(buf, cap, "host %.150s (%zu ranks)", name, x->n_ranks);
}

static void say_clocks(const struct ssa_align *a, char *buf, size_t cap)
{
    char one[200];
    size_t n = 0;
    if (a->n_hosts == 1) host_said(a, 0, one, sizeof one);
    if (!a->n_coll)
        add(buf, cap, &n, "no all-reduce, all-gather or reduce-scatter kernel matched across "
            "the ranks: %s", a->n_hosts > 1 ? "hosts laid on their wall clocks alone (ms apart)"
                                            : "waits not measured");
    else if (a->n_hosts == 1)
        add(buf, cap, &n, "one clock (%s): the ends of %zu matched collectives meet within "
            "%.1f us (median), %.1f us (p90)", one, a->n_coll, a->resid_p50_ns / 1e3,
            a->resid_p90_ns / 1e3);
    else
        add(buf, cap, &n, "%zu hosts aligned on %zu matched collectives: their ends meet "
            "within %.1f us (median), %.1f us (p90); %.0f us on the wall clocks alone",
            a->n_hosts, a->n_coll, a->resid_p50_ns / 1e3, a->resid_p90_ns / 1e3,
            a->coarse_p50_ns / 1e3);
    if (a->n_unmatched) add(buf, cap, &n, "; %zu collective kernels not matched", a->n_unmatched);
}

/* The index of the largest `caused_ns` among n entries `stride` bytes apart. */
static size_t most_caused(const void *v, size_t n, size_t stride, size_t off)
{
    size_t best = 0;
    double b = -1, x;
    for (size_t i = 0; i < n; i++) {
        memcpy(&x, (const char *)v + i * stride + off, sizeof x);
        if (x > b) b = x, best = i;
    }
    return best;
}

/* "... arrives last at 84 % of 61 collectives; the others wait 13.1 ms/step for it in all
 * (6.5 per rank)" */
static void say_one(const struct ssa_align *a, const char *who, size_t last, double caused,
                    char *buf, size_t cap, size_t *n)
{
    double per = a->steps ? caused / 1e6 / (double)a->steps : caused / 1e6;
    add(buf, cap, n, "%s arrives last at %.0f %% of %zu collectives; the others wait %.2f ms%s "
        "for it in all (%.2f per rank)", who, 100.0 * (double)last / (double)a->n_priced,
        a->n_priced, per, a->steps ? "/step" : " over the trace", per / (double)a->n_ranks);
}

/* The host whose ranks the others waited for most (several hosts), then the rank; the rank
 * only as "(rank R each time)" when it is that host's every last arrival; neither when it
 * was never clearly last. */
static void say_arrivals(const struct ssa_align *a, char *buf, size_t cap)
{
    char who[200];
    size_t r = most_caused(a->ranks, a->n_ranks, sizeof *a->ranks,
                           offsetof(struct ssa_align_rank, caused_ns));
    const struct ssa_align_rank *k = &a->ranks[r];
    size_t n = 0, h = most_caused(a->hosts, a->n_hosts, sizeof *a->hosts,
                                  offsetof(struct ssa_align_host, caused_ns));
    int say_host = a->n_hosts > 1 && a->hosts[h].last;
    if (!a->n_priced) return;
    if (say_host) {
        host_said(a, h, who, sizeof who);
        say_one(a, who, a->hosts[h].last, a->hosts[h].caused_ns, buf, cap, &n);
    }
    if (say_host && k->last && k->host == h && k->last == a->hosts[h].last)
        add(buf, cap, &n, " (rank %d each time)", (int)k->rank);
    else if (k->last) {
        if (say_host) add(buf, cap, &n, "; ");
        snprintf(who, sizeof who, "rank %d", (int)k->rank);
        say_one(a, who, k->last, k->caused_ns, buf, cap, &n);
    }
    if (a->n_undetermined)
        add(buf, cap, &n, "%sat %zu of %zu collectives the last two ranks came too close to tell",
            n ? "; " : "", a->n_undetermined, a->n_priced);
}

void report_align_view(const struct ssa_align *a, char *clocks, size_t ccap, char *arrivals,
                       size_t acap)
{
    clocks[0] = arrivals[0] = 0;
    if (!a) return;
    say_clocks(a, clocks, ccap);
    say_arrivals(a, arrivals, acap);
}
