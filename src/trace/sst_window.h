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
 *   every:P[,steps:L]
 *                  a window of L marked steps (STEPSCOPE_AUTO_STEPS when not given: the
 *                  collector's default 100) from step 0, then again every P: P is a whole
 *                  number of marked steps (2 or more; L < P) or a time, a number of seconds,
 *                  minutes or hours (`30s`, `10m`, `1.5h`; at least 0.1 s, below 1e9 s): the
 *                  first step that begins that long after the last window opened opens the next
 *                  (e.g. every:2000, every:10m,steps:50)
 */
#ifndef SST_WINDOW_H
#define SST_WINDOW_H

#include <stddef.h>
#include <stdint.h>

enum sst_window_kind {
    SST_WINDOW_AUTO,
    SST_WINDOW_ALL,
    SST_WINDOW_STEPS,
    SST_WINDOW_SECONDS,
    SST_WINDOW_EVERY
};

struct sst_window {
    int kind;          /* enum sst_window_kind */
    uint64_t from, to; /* steps: ordinals, both inside; seconds: ns after the start; else 0 */
    /* every: the period, in marked steps or in ns (one of them is 0), and the windows' length
     * in marked steps (0: not given, the collector's STEPSCOPE_AUTO_STEPS) */
    uint64_t period_steps, period_ns, len;
};

/* Parses spec into *w. 0, or SS_EINVAL (w then says SST_WINDOW_ALL). */
int sst_window_parse(const char *spec, struct sst_window *w);

/* The spec of *w in the grammar above, as parse reads it back (every:2000,steps:100,
 * every:600s,steps:50; seconds in the shortest form that reads back alike). */
void sst_window_format(const struct sst_window *w, char *buf, size_t cap);

#endif
