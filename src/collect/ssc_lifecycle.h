/*
 * ssc_lifecycle.h — the top of the collector: its life in a process (ssc_core.c: start, the
 * CUDA entry point, fork, signals, exit) and the capture window (ssc_window.c). Included by
 * those two files only: the parts below reach the top through ssc_top (ssc_config.h), set at
 * load (test style.collect_layers).
 */
#ifndef SSC_LIFECYCLE_H
#define SSC_LIFECYCLE_H

#include <stdint.h>

#include "collect/ssc_config.h"

/* Starts the core in this process if it is not running (idempotent, thread-safe, also after
 * fork). Returns 1 when records are accepted. ssc_top.start. */
SSC_HIDDEN int ssc_core_ensure(void);

/* ---- the capture window (ssc_window.c) ---- */
/* At the start, after the configuration was read: whether GPU activity is recorded now. */
SSC_HIDDEN void ssc_window_init(void);
/* When CUDA starts, before CUPTI does anything: auto's late start, if the shim spoke since. */
SSC_HIDDEN void ssc_window_cuda_start(void);
/* At exit: says so when auto's late window never opened. */
SSC_HIDDEN void ssc_window_at_exit(void);
SSC_HIDDEN void ssc_window_after_fork_child(void);
/* ssc_top's step_begin, step_end, loop_tick and round. */
SSC_HIDDEN void ssc_window_step_begin(uint64_t ordinal, uint64_t ts_ns);
SSC_HIDDEN void ssc_window_step_end(uint64_t ordinal);
SSC_HIDDEN void ssc_window_loop_tick(enum ssc_tick_kind kind);
SSC_HIDDEN void ssc_window_tick(uint64_t now_ns);

#endif
