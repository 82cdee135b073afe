/* sst_window.c — the capture window's grammar; see sst_window.h. */
#include "sst_window.h"

#include <stdio.h>
#include <string.h>

#include "util/ss_error.h"

#define STEPS_MAX 1.8e19  /* below 2^64: the ordinal converts exactly */
#define SECONDS_MAX 1e9   /* ~31 years: the nanoseconds fit 64 bits */

/* "PREFIXA-B" with nothing after B: 1 with *a and *b, else 0. */
static int two_numbers(const char *spec, const char *prefix, double *a, double *b)
{
    size_t n = strlen(prefix);
    int used = 0;
    if (strncmp(spec, prefix, n) != 0) return 0;
    spec += n;
    return sscanf(spec, "%lf-%lf%n", a, b, &used) == 2 && used > 0 && !spec[used];
}

static int whole(double x)
{
    return x >= 0 && x < STEPS_MAX && x == (double)(uint64_t)x;
}

int sst_window_parse(const char *spec, struct sst_window *w)
{
    double a, b;
    *w = (struct sst_window){SST_WINDOW_ALL, 0, 0};
    if (strcmp(spec, "all") == 0) return 0;
    if (strcmp(spec, "auto") == 0) return w->kind = SST_WINDOW_AUTO, 0;
    if (two_numbers(spec, "steps:", &a, &b) && whole(a) && whole(b) && b >= a) {
        *w = (struct sst_window){SST_WINDOW_STEPS, (uint64_t)a, (uint64_t)b};
        return 0;
    }
    if (two_numbers(spec, "seconds:", &a, &b) && a >= 0 && b > a && b < SECONDS_MAX) {
        *w = (struct sst_window){SST_WINDOW_SECONDS, (uint64_t)(a * 1e9), (uint64_t)(b * 1e9)};
        return 0;
    }
    return SS_EINVAL;
}
