/* sst_window.c — the capture window's grammar; see sst_window.h. */
#include "sst_window.h"

#include <stdio.h>
#include <string.h>

#include "util/ss_error.h"

#define STEPS_MAX 1.8e19       /* below 2^64: the ordinal converts exactly */
#define SECONDS_MAX 1e9        /* ~31 years: the nanoseconds fit 64 bits */
#define EVERY_MIN_NS 100000000 /* 0.1 s: the collector's writer looks at the clock every 0.1 s */
#define LEN_MAX 100000000      /* STEPSCOPE_AUTO_STEPS' largest */

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

/* s[0..n) as a plain decimal number (digits and one point, no sign, exponent or hex: sscanf
 * alone would take " 5", "5e3", "0x5", "inf"). 1 with *x. */
static int decimal(const char *s, size_t n, double *x)
{
    char buf[32];
    int used = 0;
    if (n == 0 || n >= sizeof buf || strspn(s, "0123456789.") < n || *s == '.') return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return sscanf(buf, "%lf%n", x, &used) == 1 && (size_t)used == n;
}

/* every's period, s[0..n): marked steps ("2000") or a time ("30s", "10m", "1.5h"). */
static int every_period(const char *s, size_t n, struct sst_window *w)
{
    static const struct {
        char unit;
        double ns;
    } units[] = {{'s', 1e9}, {'m', 60e9}, {'h', 3600e9}};
    double x;
    if (decimal(s, n, &x)) {
        w->period_steps = (uint64_t)x;
        return whole(x) && x >= 2;
    }
    if (n < 2 || !decimal(s, n - 1, &x)) return 0;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        double ns = x * units[i].ns;
        if (s[n - 1] != units[i].unit) continue;
        w->period_ns = (uint64_t)(ns + 0.5);
        return ns >= EVERY_MIN_NS && ns < SECONDS_MAX * 1e9;
    }
    return 0;
}

/* "every:P[,steps:L]": 1 with *w, else 0. */
static int every(const char *spec, struct sst_window *w)
{
    if (strncmp(spec, "every:", 6) != 0) return 0;
    const char *p = spec + 6;
    size_t n = strcspn(p, ",");
    double len = 0;
    *w = (struct sst_window){SST_WINDOW_EVERY, 0, 0, 0, 0, 0};
    if (!every_period(p, n, w)) return 0;
    p += n;
    if (*p) {
        if (strncmp(p, ",steps:", 7) != 0 || !decimal(p + 7, strlen(p + 7), &len)) return 0;
        if (!whole(len) || len < 1 || len > LEN_MAX) return 0;
        w->len = (uint64_t)len;
    }
    /* windows as long as their period would never close: that is `all` */
    return !w->period_steps || w->len < w->period_steps;
}

int sst_window_parse(const char *spec, struct sst_window *w)
{
    double a, b;
    *w = (struct sst_window){SST_WINDOW_ALL, 0, 0, 0, 0, 0};
    if (strcmp(spec, "all") == 0) return 0;
    if (strcmp(spec, "auto") == 0) return w->kind = SST_WINDOW_AUTO, 0;
    if (two_numbers(spec, "steps:", &a, &b) && whole(a) && whole(b) && b >= a) {
        *w = (struct sst_window){SST_WINDOW_STEPS, (uint64_t)a, (uint64_t)b, 0, 0, 0};
        return 0;
    }
    if (two_numbers(spec, "seconds:", &a, &b) && a >= 0 && b > a && b < SECONDS_MAX) {
        *w = (struct sst_window){
            SST_WINDOW_SECONDS, (uint64_t)(a * 1e9), (uint64_t)(b * 1e9), 0, 0, 0};
        return 0;
    }
    if (every(spec, w)) return 0;
    *w = (struct sst_window){SST_WINDOW_ALL, 0, 0, 0, 0, 0};
    return SS_EINVAL;
}

static void format_every(const struct sst_window *w, char *buf, size_t cap)
{
    char len[32] = "";
    if (w->len) snprintf(len, sizeof len, ",steps:%llu", (unsigned long long)w->len);
    if (w->period_steps)
        snprintf(buf, cap, "every:%llu%s", (unsigned long long)w->period_steps, len);
    else
        snprintf(buf, cap, "every:%.9gs%s", (double)w->period_ns / 1e9, len);
}

void sst_window_format(const struct sst_window *w, char *buf, size_t cap)
{
    switch (w->kind) {
    case SST_WINDOW_AUTO:
        snprintf(buf, cap, "auto");
        break;
    case SST_WINDOW_STEPS:
        snprintf(buf, cap, "steps:%llu-%llu", (unsigned long long)w->from,
                 (unsigned long long)w->to);
        break;
    case SST_WINDOW_SECONDS:
        snprintf(buf, cap, "seconds:%.9g-%.9g", (double)w->from / 1e9, (double)w->to / 1e9);
        break;
    case SST_WINDOW_EVERY:
        format_every(w, buf, cap);
        break;
    default:
        snprintf(buf, cap, "all");
    }
}
