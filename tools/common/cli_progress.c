/*
 * cli_progress.c — a one-line progress bar on stderr while a long read runs (an import of a
 * 2 GB JSON, the two passes of the analysis over a big trace): bytes, share and rate, drawn at
 * most 10 times a second and only after the first half second, so short work shows nothing.
 * Only when stderr is a terminal (STEPSCOPE_PROGRESS=1 forces it, for tests), never with -q.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "text_esc.h"
#include "util/ss_progress.h"

#define PROGRESS_DELAY_NS 500000000ull
#define PROGRESS_EVERY_NS 100000000ull
#define BAR_CELLS 24

struct progress {
    char label[96];
    uint64_t t0, last_draw;
    int drawn;
};

static struct progress g_progress;

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void draw(struct progress *p, uint64_t done, uint64_t total, uint64_t t)
{
    char bar[BAR_CELLS + 1], sz[32], rate[32];
    double share = total ? (double)done / (double)total : 0;
    if (share > 1) share = 1;
    int full = (int)(share * BAR_CELLS);
    for (int i = 0; i < BAR_CELLS; i++) bar[i] = i < full ? '#' : '.';
    bar[BAR_CELLS] = '\0';
    double secs = (double)(t - p->t0) / 1e9;
    cli_fmt_bytes(sz, sizeof sz, done);
    cli_fmt_bytes(rate, sizeof rate, secs > 0 ? (uint64_t)((double)done / secs) : 0);
    if (total)
        fprintf(stderr, "\r%s [%s] %3.0f %%  %s  %s/s\033[K", p->label, bar, 100 * share, sz, rate);
    else
        fprintf(stderr, "\r%s  %s  %s/s\033[K", p->label, sz, rate);
    fflush(stderr);
    p->drawn = 1;
}

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
    struct progress *p = ctx;
    uint64_t t = now_ns();
    if (t - p->t0 < PROGRESS_DELAY_NS || t - p->last_draw < PROGRESS_EVERY_NS) return;
    p->last_draw = t;
    draw(p, done, total, t);
}

static int wanted(void)
{
    struct sst_value force; /* 1 or 0 forces it either way (tests) */
    if (cli_setting(SST_SET_PROGRESS, &force) > 0) return (int)force.num;
    return !cli_quiet && isatty(STDERR_FILENO);
}

void cli_progress_begin(const char *what, const char *path)
{
    if (!wanted()) return;
    char shown[64];
    text_elide_path(shown, sizeof shown, path, 32);
    snprintf(g_progress.label, sizeof g_progress.label, "%s %s", what, shown);
    g_progress.t0 = now_ns();
    g_progress.last_draw = 0;
    g_progress.drawn = 0;
    ss_progress_set(on_progress, &g_progress);
}

void cli_progress_end(void)
{
    ss_progress_set(NULL, NULL);
    if (g_progress.drawn) fputs("\r\033[K", stderr); /* the line is cleared, not left */
    g_progress.drawn = 0;
}
