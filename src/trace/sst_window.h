/*
 * sst_window.h — the capture window's grammar, parsed in ONE place for the three that read it:
 * `stepscope record --capture SPEC` (checked before the program starts), the collector
 * (STEPSCOPE_CAPTURE, src/collect/ssc_core.c) and the analysis (the trace's ENV
 * collector.capture, src/analysis/ssa_capture.c).
 *
 *   auto           STEPSCOPE_AUTO_STEPS marked steps (the collector's default 100) from step 0,
 *                  or from step 8 where the Python shim marks the steps (ENV collector.window
 *                  says which: src/collect/ssc_core.c, capture_auto)
 *   all            the whole run
 *   steps:A-B      marked steps A to B (whole numbers, 0 the first step, A <= B)
 *   seconds:A-B    A to B seconds after the collector started (0 <= A < B < 1e9)
 */
#ifndef SST_WINDOW_H
#define SST_WINDOW_H

#include <stdint.h>

enum sst_window_kind { SST_WINDOW_AUTO, SST_WINDOW_ALL, SST_WINDOW_STEPS, SST_WINDOW_SECONDS };

struct sst_window {
    int kind;          /* enum sst_window_kind */
    uint64_t from, to; /* steps: ordinals, both inside; seconds: ns after the start; else 0 */
};

/* Parses spec into *w. 0, or SS_EINVAL (w then says SST_WINDOW_ALL). */
int sst_window_parse(const char *spec, struct sst_window *w);

#endif
