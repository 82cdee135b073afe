/*
 * ssc_config.h — the bottom of the collector (ssc_config.c): its configuration, read once from
 * the STEPSCOPE_* variables through the table every part of stepscope reads
 * (src/trace/sst_settings.h); the capture window the settings ask for; the process's state
 * that every part reads; and the services that need nothing of the collector (a line on
 * stderr, the thread id, starting our threads). It calls no other file of the collector, and
 * no file below the top (ssc_core.c, ssc_window.c) calls the top but through ssc_top below:
 * test style.collect_layers. Everything here is hidden inside libstepscope.so.
 */
#ifndef SSC_CONFIG_H
#define SSC_CONFIG_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "trace/sst_settings.h"

#define SSC_HIDDEN __attribute__((visibility("hidden")))

/* ---- settings ------------------------------------------------------------------------------ */

/* Reads every SST_S_COLLECTOR row from the environment (a value that is not one is said on
 * stderr and replaced by the default), then the capture window they ask for. Once, at the
 * start (ssc_core.c). */
SSC_HIDDEN void ssc_config_read(void);

/* A setting as in effect. Its text is a copy: the program may change its environment. */
SSC_HIDDEN const struct sst_value *ssc_setting(enum sst_setting_id id);

/* The text of a setting that was not valid (said at the start; the trace gets a NOTICE), or
 * NULL. */
SSC_HIDDEN const char *ssc_setting_invalid(enum sst_setting_id id);

/* Calls kv(key, value) for the value of every row with one of flags (SST_S_ENV: at the start,
 * then collector.window; SST_S_ENV_CUDA: when CUDA starts): the ENV record of the
 * configuration. A text left empty is not written. */
SSC_HIDDEN void ssc_config_env(unsigned flags, void (*kv)(const char *key, const char *value));

/* The words of MODE's row, in order. */
enum ssc_mode { SSC_MODE_FULL = 0, SSC_MODE_LIGHT = 1 };
SSC_HIDDEN int ssc_light_mode(void);

/* ---- the capture window the settings ask for ------------------------------------------------ */

enum ssc_window_kind {
    SSC_WINDOW_ALL = 0,
    SSC_WINDOW_STEPS = 1,
    SSC_WINDOW_SECONDS = 2,
    SSC_WINDOW_EVERY = 3, /* every:P: steps from..to first, then a window every period */
};

struct ssc_window {
    enum ssc_window_kind kind;
    uint64_t from, to; /* steps, or ns after the start; every: the first window's steps */
    int auto_pending;  /* "auto": the shim may still move its start (ssc_window.c) */
    int is_auto;       /* "auto": it may open again when the step time departs (ssc_window.c) */
    uint64_t period_steps, period_ns; /* every: one of them; the other 0 */
    uint64_t len;                     /* every: the steps each window records */
    char spec[64]; /* what auto or every came to (ENV collector.window), e.g. steps:8-107 */
};
/* Read by any part; written by the window only (ssc_config_window_start_at). */
SSC_HIDDEN const struct ssc_window *ssc_config_window(void);

/* The step the shim says auto's window starts at in this process (STEPSCOPE_AUTO_FROM=N:PID,
 * read now: the shim may speak after the collector started), 0 when it has not said. */
SSC_HIDDEN uint64_t ssc_config_auto_from(void);

/* Moves auto's window to start at step from, its length kept. */
SSC_HIDDEN void ssc_config_window_start_at(uint64_t from);
/* auto's start is decided (when CUDA starts): the shim can no longer move it. */
SSC_HIDDEN void ssc_config_window_resolved(void);

/* ---- the process's state ----------------------------------------------------------------- */

enum ssc_state {
    SSC_OFF = 0,     /* not started in this process (yet, or again after fork) */
    SSC_RUNNING = 1, /* records are accepted */
    SSC_STOPPED = 2, /* shut down at exit, or could not start: records are refused */
};
/* Written by the top (start, fork, exit) and the writer (a fatal signal's last flush). */
SSC_HIDDEN extern _Atomic int ssc_g_state;
/* GPU activity is inside the capture window right now (the window switches it). */
SSC_HIDDEN extern _Atomic int ssc_g_capturing;
/* The capture window has closed (steps:A-B after step B ended, seconds:A-B after B; every: and
 * auto's windows until the next opens): the CUPTI part then detaches CUPTI. */
SSC_HIDDEN extern _Atomic int ssc_g_window_over;
/* ssc_cupti_start succeeded in this process (the writer then flushes and stops CUPTI). */
SSC_HIDDEN extern _Atomic int ssc_g_cupti_on;

SSC_HIDDEN int ssc_capturing(void);
SSC_HIDDEN int ssc_window_over(void);

/* Monotonic start time of the collector in this process (ns, sst_now_ns clock); set at start. */
SSC_HIDDEN uint64_t ssc_start_ns(void);
SSC_HIDDEN void ssc_set_start_ns(uint64_t ns);

/* ---- what the parts below tell the top --------------------------------------------------------
 * Set by the top at load (a constructor of ssc_core.c), before anything can call them: the
 * parts below report through here and name no function of the top. */
enum ssc_tick_kind { SSC_TICK_GRAPH, SSC_TICK_BACKWARD };
struct ssc_top_events {
    /* Starts the collector in this process if it is not running (idempotent, thread-safe, also
     * after fork): 1 when records are accepted. A first record, the shim's door, NVTX. */
    int (*start)(void);
    /* A step began (at ts_ns, its STEP record's time) / ended (NVTX step markers; ordinal: 0
     * the first). */
    void (*step_begin)(uint64_t ordinal, uint64_t ts_ns);
    void (*step_end)(uint64_t ordinal);
    /* A loop went on without an optimizer step (the shim's tick marks, docs/markers.md). */
    void (*loop_tick)(enum ssc_tick_kind kind);
    /* A writer round: time passed (the writer thread). */
    void (*round)(uint64_t now_ns);
};
SSC_HIDDEN extern struct ssc_top_events ssc_top;

/* ---- services ------------------------------------------------------------------------------ */

/* The calling thread's kernel thread id. */
SSC_HIDDEN uint32_t ssc_gettid(void);

/* Writes "stepscope: msg\n" to stderr with one write(2) (async-signal-safe). */
SSC_HIDDEN void ssc_say(const char *msg);

/* Starts one of the collector's own threads (the writer, the Python sampler) with every signal
 * blocked, and returns once it runs and has its thread-local storage: a fork() right after
 * must not catch the new thread inside the allocator. 0, or pthread_create's error, or
 * ETIMEDOUT when the thread did not run within 5 s (it then never runs fn: ssc_config.c). */
SSC_HIDDEN int ssc_thread_start(pthread_t *thread, void *(*fn)(void *));

#endif
