/*
 * report_diff.h — what `stepscope diff` shows (the diff view, built once by cmd_diff.c from the
 * two traces' report views) and hands to the report writers: each format's writer (report.h)
 * has a diff() member, which reads this view and nothing else.
 */
#ifndef REPORT_DIFF_H
#define REPORT_DIFF_H

#include "analysis/ssa.h"
#include "report_view.h"

/* One trace of the two: its report's view (the summary v.s, the findings v.f: the same as its
 * report says), and the note when it has no step markers. */
struct diff_side {
    const char *path;
    struct report_view v;
    char note[96]; /* "before has no step markers: its whole trace counts as one step", or "" */
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
    /* the change in words, after the verdict: "median step 3.31 → 2.90 ms (1.14x; noise ±0.07
     * ms), mean 3.44 → 3.01 ms, GPU busy 18.2 → 21.0 %" */
    char said[320];
    double noise_ms;     /* the difference of the medians that noise explains */
    double speedup_median, speedup_mean; /* before / after (NaN when after is 0) */
    int cat_shown[SSA_CAT_COUNT]; /* the category's row is worth a line: either side has time
                                   * in it (the tables leave out what reads 0.000 both sides) */
    struct diff_pair pairs[2 * SSA_MAX_FINDINGS];
    size_t n_pairs;
};

#endif
