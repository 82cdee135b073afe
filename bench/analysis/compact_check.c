/*
 * compact_check.c — build/bench-analysis-compact-check: SSA_COMPACT must give the results
 * of the full mode. For each trace given: the briefs match the full steps (identity,
 * warm-up, busy time, top category), the steady sums equal the sums of the steady full
 * steps exactly, and the summary and findings agree within rounding (compact mode sums
 * before dividing). Exit 0 when all agree; prints each difference.
 *
 *   bench-analysis-compact-check TRACE...
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ssa.h"
#include "util/ss_error.h"

static int failures;

#define FAIL_IF(cond, ...)                                                                     \
    do {                                                                                       \
        if (cond) {                                                                            \
            failures++;                                                                        \
            printf("FAIL %s: ", path);                                                         \
            printf(__VA_ARGS__);                                                               \
            printf("\n");                                                                      \
        }                                                                                      \
    } while (0)

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-12;
}

static void check_briefs(const char *path, const struct ssa_result *f, const struct ssa_result *c)
{
    struct ssa_step sum;
    memset(&sum, 0, sizeof sum);
    for (size_t i = 0; i < f->n_steps && i < c->n_steps; i++) {
        const struct ssa_step *s = &f->steps[i];
        const struct ssa_step_brief *b = &c->briefs[i], *fb = &f->briefs[i];
        uint64_t busy = 0;
        int top = 0;
        for (int k = 0; k < SSA_CAT_COUNT; k++) {
            if (k < SSA_CAT_FIRST_IDLE) busy += s->cat_ns[k];
            if (s->cat_ns[k] > s->cat_ns[top]) top = k;
        }
        FAIL_IF(b->number != s->number || b->begin_ns != s->begin_ns || b->end_ns != s->end_ns ||
                    b->warmup != s->warmup || b->busy_ns != busy || b->top_cat != top ||
                    memcmp(b, fb, sizeof *b) != 0,
                "step %zu: brief differs", i);
        if (s->warmup) continue;
        for (int k = 0; k < SSA_CAT_COUNT; k++) sum.cat_ns[k] += s->cat_ns[k];
        sum.n.kernels += s->n.kernels, sum.n.launches += s->n.launches;
        sum.n.copy_bytes[1] += s->n.copy_bytes[1], sum.n.data_ns += s->n.data_ns;
        sum.n.short_gap_ns += s->n.short_gap_ns, sum.n.syncs += s->n.syncs;
    }
    FAIL_IF(memcmp(sum.cat_ns, c->steady.cat_ns, sizeof sum.cat_ns) != 0, "steady cat_ns sums");
    FAIL_IF(sum.n.kernels != c->steady.n.kernels || sum.n.launches != c->steady.n.launches ||
                sum.n.copy_bytes[1] != c->steady.n.copy_bytes[1] ||
                sum.n.data_ns != c->steady.n.data_ns || sum.n.syncs != c->steady.n.syncs ||
                sum.n.short_gap_ns != c->steady.n.short_gap_ns,
            "steady count sums");
}

static void check_summary(const char *path, const struct ssa_result *f, const struct ssa_result *c)
{
    struct ssa_summary sf, sc;
    struct ssa_findings ff, fc;
    ssa_summarize(f, &sf);
    ssa_summarize(c, &sc);
    FAIL_IF(sf.steps != sc.steps || sf.median_ns != sc.median_ns || sf.p10_ns != sc.p10_ns ||
                sf.p90_ns != sc.p90_ns || sf.mean_ns != sc.mean_ns || sf.total_ns != sc.total_ns,
            "step statistics differ");
    for (int k = 0; k < SSA_CAT_COUNT; k++)
        FAIL_IF(!near(sf.cat_ms[k], sc.cat_ms[k]) || !near(sf.cat_pct[k], sc.cat_pct[k]),
                "category %s: %.12g vs %.12g ms", ssa_cat_name(k), sf.cat_ms[k], sc.cat_ms[k]);
    FAIL_IF(!near(sf.kernels_per_step, sc.kernels_per_step) ||
                !near(sf.h2d_mib_per_step, sc.h2d_mib_per_step),
            "per-step counts differ");
    if (!sf.steps) return;
    ssa_find(f, &sf, NULL, &ff);
    ssa_find(c, &sc, NULL, &fc);
    FAIL_IF(ff.n != fc.n, "%zu vs %zu findings", ff.n, fc.n);
    for (size_t i = 0; i < ff.n && i < fc.n; i++)
        FAIL_IF(strcmp(ff.v[i].id, fc.v[i].id) != 0 || !near(ff.v[i].saving_ms, fc.v[i].saving_ms),
                "finding %zu: %s %.12g vs %s %.12g", i, ff.v[i].id, ff.v[i].saving_ms, fc.v[i].id,
                fc.v[i].saving_ms);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *path = argv[i];
        struct ssa_result *f = NULL, *c = NULL;
        int rf = ssa_analyze_file(path, NULL, &f);
        int rc = ssa_analyze_file_ex(path, NULL, SSA_COMPACT, &c);
        FAIL_IF(rf != 0 || rc != 0, "analysis failed: %s / %s", ss_strerror(rf), ss_strerror(rc));
        if (f && c) {
            FAIL_IF(c->steps != NULL || !c->compact || f->compact, "compact flags");
            FAIL_IF(f->n_steps != c->n_steps || f->n_warmup != c->n_warmup ||
                        f->warmup_autotune != c->warmup_autotune ||
                        f->late_intervals != c->late_intervals,
                    "steps %zu/%zu, warm-up %zu/%zu", f->n_steps, c->n_steps, f->n_warmup,
                    c->n_warmup);
            if (f->n_steps == c->n_steps) check_briefs(path, f, c);
            check_summary(path, f, c);
            printf("%s: %zu steps (%zu warm-up), full and compact agree%s\n", path, f->n_steps,
                   f->n_warmup, failures ? " (see FAIL lines)" : "");
        }
        ssa_result_free(f);
        ssa_result_free(c);
    }
    return failures ? 1 : 0;
}
