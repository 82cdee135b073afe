/*
 * sst_clock.c — CLOCK records: the pair read by the collector, and the offset, drift and
 * uncertainty a trace's pairs give.
 */
#include "sst_clock.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t read_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* REALTIME between two MONOTONIC reads: their midpoint is the best guess of the instant it
 * was read at, and their distance bounds the error (a preemption in between shows there). */
void sst_clock_read(struct sst_rec_clock *r)
{
    uint64_t m0 = read_ns(CLOCK_MONOTONIC);
    uint64_t u = read_ns(CLOCK_REALTIME);
    uint64_t m1 = read_ns(CLOCK_MONOTONIC);
    uint64_t d = m1 - m0;
    r->spread_ns = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
    r->ts_ns = m0 + d / 2;
    r->unix_ns = u;
}

int64_t sst_clock_offset(const struct sst_rec_clock *r)
{
    return (int64_t)(r->unix_ns - r->ts_ns); /* wraps to the right value for any real pair */
}

void sst_clock_fit_init(struct sst_clock_fit *f)
{
    memset(f, 0, sizeof *f);
    f->stride = 1;
}

/* When the kept offsets fill up, every other one goes and the stride doubles: the median
 * stays one over pairs spread evenly across the whole trace, in constant memory. */
static void keep(struct sst_clock_fit *f, int64_t off)
{
    if ((f->n - 1) % f->stride) return;
    if (f->n_kept == SST_CLOCK_FIT_KEEP) {
        for (uint32_t i = 0; i < SST_CLOCK_FIT_KEEP / 2; i++)
            f->kept[i] = f->kept[2 * i];
        f->n_kept = SST_CLOCK_FIT_KEEP / 2;
        f->stride *= 2;
        if ((f->n - 1) % f->stride) return;
    }
    f->kept[f->n_kept++] = off;
}

/* Welford's running means and co-moments: no sum of squares of 1e14 ns to cancel. */
void sst_clock_fit_add(struct sst_clock_fit *f, const struct sst_rec_clock *r)
{
    int64_t off = sst_clock_offset(r);
    if (f->n == 0) {
        f->t0 = r->ts_ns;
        f->base = off;
    }
    f->n++;
    double t = (double)(int64_t)(r->ts_ns - f->t0), o = (double)(off - f->base);
    double dt = t - f->mean_t;
    f->mean_t += dt / (double)f->n;
    f->mean_o += (o - f->mean_o) / (double)f->n;
    f->m2_t += dt * (t - f->mean_t);
    f->c_to += dt * (o - f->mean_o);
    if (r->spread_ns > f->max_spread_ns) f->max_spread_ns = r->spread_ns;
    keep(f, off);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int64_t sst_clock_fit_median(struct sst_clock_fit *f)
{
    if (!f->n_kept) return 0;
    qsort(f->kept, f->n_kept, sizeof f->kept[0], cmp_i64);
    uint32_t h = f->n_kept / 2;
    if (f->n_kept % 2) return f->kept[h];
    return f->kept[h - 1] + (f->kept[h] - f->kept[h - 1]) / 2; /* no overflow near 2^63 */
}

double sst_clock_fit_ppm(const struct sst_clock_fit *f)
{
    if (f->n < 2 || f->m2_t <= 0) return 0;
    return f->c_to / f->m2_t * 1e6;
}
