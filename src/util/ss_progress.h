/*
 * ss_progress.h — how far long work has come, for a progress line (prefix ss_progress_).
 *
 * The readers and importers call ss_progress_report(done, total) as they go (bytes of their
 * input; at most once per chunk or read buffer); the CLI installs a sink that draws one line
 * on a terminal (tools/common/cli_progress.c). Without a sink the call is one load and a branch.
 * One sink per process: set it only around single-threaded work.
 */
#ifndef SS_PROGRESS_H
#define SS_PROGRESS_H

#include <stdint.h>

typedef void (*ss_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* Installs fn (NULL removes it). */
void ss_progress_set(ss_progress_fn fn, void *ctx);

/* done of total bytes (total 0: unknown). */
void ss_progress_report(uint64_t done, uint64_t total);

#endif
