/*
 * bench_analysis.c — build/bench-analysis: runs the analysis (ssa_analyze_file, ssa_summarize,
 * ssa_find: everything `stepscope report` computes) on one trace and prints the time, the
 * records per second, and an FNV-1a digest over every per-step number, the kernel-name totals
 * and the findings' savings. Two builds that print the same digest computed the same result.
 *
 *   bench-analysis TRACE [--reps N] [--compact]
 *
 * --compact: ssa_analyze_file_ex(..., SSA_COMPACT): the digest then covers the step briefs,
 * the steady sums and the findings; also printed: the summary's numbers, to compare modes.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ssa.h"
#include "util/ss_error.h"

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static uint64_t digest(const struct ssa_result *r, const struct ssa_findings *f)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < r->n_steps && r->compact; i++)
        h = fnv(h, &r->briefs[i], offsetof(struct ssa_step_brief, top_cat) + 1);
    if (r->compact) h = fnv(h, &r->steady, sizeof r->steady);
    for (size_t i = 0; i < r->n_steps && !r->compact; i++) {
        const struct ssa_step *s = &r->steps[i];
        h = fnv(h, &s->number, sizeof s->number);
        h = fnv(h, &s->begin_ns, sizeof s->begin_ns);
        h = fnv(h, &s->end_ns, sizeof s->end_ns);
        h = fnv(h, &s->warmup, sizeof s->warmup);
        h = fnv(h, s->cat_ns, sizeof s->cat_ns);
        h = fnv(h, &s->n, sizeof s->n); /* plain integers, no padding holes */
    }
    for (size_t i = 0; i < r->n_knames; i++) {
        h = fnv(h, &r->knames[i].count, sizeof r->knames[i].count);
        h = fnv(h, &r->knames[i].total_ns, sizeof r->knames[i].total_ns);
        h = fnv(h, r->kname_text[i], strlen(r->kname_text[i]));
    }
    for (size_t i = 0; i < f->n; i++) {
        h = fnv(h, f->v[i].id, strlen(f->v[i].id));
        h = fnv(h, &f->v[i].saving_ms, sizeof f->v[i].saving_ms);
    }
    return h;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench-analysis TRACE [--reps N]\n");
        return 2;
    }
    int reps = 1;
    unsigned flags = 0;
    for (int a = 2; a < argc; a++) {
        if (strcmp(argv[a], "--compact") == 0) flags |= SSA_COMPACT;
        else if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc) reps = atoi(argv[++a]);
    }
    for (int i = 0; i < (reps > 0 ? reps : 1); i++) {
        double t0 = now_s();
        struct ssa_result *r;
        int rc = ssa_analyze_file_ex(argv[1], NULL, flags, &r);
        if (rc) {
            fprintf(stderr, "bench-analysis: %s: %s\n", argv[1], ss_strerror(rc));
            return 1;
        }
        struct ssa_summary s;
        struct ssa_findings f;
        ssa_summarize(r, &s);
        ssa_find(r, &s, NULL, &f);
        double dt = now_s() - t0;
        printf("%.3f s  %" PRIu64 " records  %.2f M rec/s  %zu steps  peak %zu intervals  "
               "digest %016" PRIx64 "\n",
               dt, r->records, (double)r->records / dt / 1e6, r->n_steps,
               r->peak_buffered_intervals, digest(r, &f));
        printf("  summary: %zu steps, median %" PRIu64 " mean %" PRIu64 " ns, busy %.6f %%,"
               " kernels/step %.6f;", s.steps, s.median_ns, s.mean_ns, s.gpu_busy_pct,
               s.kernels_per_step);
        for (size_t k = 0; k < f.n; k++) printf(" %s %.6f ms", f.v[k].id, f.v[k].saving_ms);
        printf("\n");
        ssa_result_free(r);
    }
    return 0;
}
