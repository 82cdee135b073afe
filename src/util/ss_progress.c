/* ss_progress.c — the progress sink; see ss_progress.h. */
#include "ss_progress.h"

#include <stddef.h>

static ss_progress_fn g_fn;
static void *g_ctx;

void ss_progress_set(ss_progress_fn fn, void *ctx)
{
    g_ctx = ctx;
    g_fn = fn;
}

void ss_progress_report(uint64_t done, uint64_t total)
{
    if (g_fn) g_fn(g_ctx, done, total);
}
