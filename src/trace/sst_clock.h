/*
 * sst_clock.h — CLOCK records: reading the pair (the collector) and what a trace's pairs say
 * (info; later the alignment of several hosts' traces on one timeline).
 */
#ifndef SST_CLOCK_H
#define SST_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "sst_format.h"

/* Reads CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_MONOTONIC into r's fields (not its header). */
void sst_clock_read(struct sst_rec_clock *r);

/* REALTIME - MONOTONIC of one pair, ns. */
int64_t sst_clock_offset(const struct sst_rec_clock *r);

#define SST_CLOCK_FIT_KEEP 8192 /* offsets kept for the median: 22 h of pairs 10 s apart */

/* What a trace's pairs say: fed one pair at a time, in constant memory. */
struct sst_clock_fit {
    uint64_t n;                        /* pairs seen */
    uint32_t max_spread_ns;            /* the largest uncertainty of a pair */
    uint64_t t0;                       /* the first pair's time and offset: the sums below are */
    int64_t base;                      /* relative to them, so doubles keep their precision */
    double mean_t, mean_o, m2_t, c_to; /* running least squares (Welford), t in ns */
    int64_t kept[SST_CLOCK_FIT_KEEP];  /* offsets for the median, every stride-th pair */
    uint32_t n_kept, stride;
};

void sst_clock_fit_init(struct sst_clock_fit *f);
void sst_clock_fit_add(struct sst_clock_fit *f, const struct sst_rec_clock *r);
/* The median offset of the pairs (0 when none). Sorts the kept offsets: call it after the
 * last sst_clock_fit_add. */
int64_t sst_clock_fit_median(struct sst_clock_fit *f);
/* How fast the offset moved: the least-squares slope, in ppm (0 with fewer than 2 pairs). */
double sst_clock_fit_ppm(const struct sst_clock_fit *f);

#endif
