/*
 * report_diff.h — what `stepscope diff` shows (the diff view, built once by cmd_diff.c) and
 * hands to the report writers: each format's writer (report.h) has a diff() member.
 */
#ifndef REPORT_DIFF_H
#define REPORT_DIFF_H

#include "analysis/ssa.h"

struct diff_side {
    const char *path;
    struct ssa_result *r;
    struct ssa_summary s;
    struct ssa_findings f;
};

/* One finding of either trace, paired by id, before's ranking first. */
struct diff_pair {
    const struct ssa_finding *x;       /* the one shown: before's when both have it */
    const struct ssa_finding *bf, *af; /* each side's, NULL where absent */
    const char *status;                /* "resolved", "new", "changed", "unchanged" */
    char before[32], after[32];        /* their savings as ms/step, "-" where absent */
};

struct diff_view {
    struct diff_side b, a;
    const char *verdict; /* "faster", "slower", "no change" */
    double noise_ms;     /* the difference of the medians that noise explains */
    double speedup_median, speedup_mean; /* before / after (NaN when after is 0) */
    int cat_shown[SSA_CAT_COUNT]; /* the category's row is worth a line: either side has time
                                   * in it (the tables leave out what reads 0.000 both sides) */
    struct diff_pair pairs[2 * SSA_MAX_FINDINGS];
    size_t n_pairs;
};

#endif
