/*
 * ssc_internal.h — the collector's internal interface (src/collect/).
 *
 * The collector is libstepscope.so, injected into the training process. Its core
 * (ssc_config.c: configuration, the bottom; ssc_core.c: start, the CUDA entry point, fork,
 * signals, exit, and ssc_window.c: the capture window, the top; ssc_buf.c: per-thread record
 * buffers; ssc_intern.c: strings; ssc_records.c: notices, ENV and CAPTURE records;
 * ssc_writer.c: the writer thread; ssc_host.c: the process, environment and host samples;
 * ssc_nvtx.c: NVTX; ssc_pyhost.c: the Python shim's door; ssc_zstd.c) and its CUPTI part
 * (ssc_cupti*.c: activity tracing and the conversion of CUPTI records) meet here.
 * Nothing in this header is exported from the library: everything is hidden.
 */
#ifndef SSC_INTERNAL_H
#define SSC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "collect/ssc_config.h"
#include "trace/sst_format.h"

/* ---- records (core): callable from any thread, never blocks, never allocates on the
 * hot path after a thread's first record. reserve returns zeroed memory for one record
 * with its header set, or NULL when the record must be dropped (memory cap, collector
 * shut down); the drop is counted. Every non-NULL reserve is followed by commit. */
SSC_HIDDEN void *ssc_rec_reserve(uint16_t type, size_t size);
SSC_HIDDEN void ssc_rec_commit(void *rec);

/* Interned string id for s (thread-safe). The STRING record that defines the id is
 * guaranteed to reach the file before any record committed after this call returns.
 * Returns SST_NO_STRING on failure. */
SSC_HIDDEN uint32_t ssc_intern(const char *s, size_t len);

/* Writes a THREAD record naming tid (from /proc/self/task/TID/comm) unless this process has
 * named it already. For threads seen only in CUPTI's records — the launching threads write no
 * record of their own. Lock-free, any thread; past SSC_NAMED_SLOTS threads, more stay unnamed. */
SSC_HIDDEN void ssc_name_thread_once(uint32_t tid);

/* The collector's own cost (COST records, enum sst_cost_kind): adds to the calling thread's
 * counters, which the writer turns into COST records. Lock-free; no allocation after the
 * thread's first record. Where events are frequent, callers time one in SSC_COST_SAMPLE and
 * add events in batches of that many (events = SSC_COST_SAMPLE, timed = 1). */
#define SSC_COST_SAMPLE 16
SSC_HIDDEN void ssc_cost_add(uint8_t kind, uint64_t events, uint64_t timed, uint64_t ns);

/* A CAPTURE record: what (enum sst_capture_what bits) turned on or off, and why (enum
 * sst_capture_reason). Any thread, like ssc_rec_reserve. */
SSC_HIDDEN void ssc_capture_record(int on, uint8_t reason, uint16_t what);

/* Counts records lost outside the buffers (e.g. CUPTI's own drops) for a DROPPED record. */
SSC_HIDDEN void ssc_count_dropped(uint8_t source, uint16_t rec_type, uint64_t count);

/* An ENV record key=value (value_len bytes) from any thread, like ssc_rec_reserve
 * (ssc_records.c, as the two below). */
SSC_HIDDEN void ssc_env_record(const char *key, const char *value, size_t value_len);

/* Says msg once on stderr ("stepscope: ...") per code, and writes a NOTICE record. */
SSC_HIDDEN void ssc_notice(uint16_t code, uint8_t level, const char *msg);

/* Writer thread, once per trace: marks what the configuration says (what record left to
 * another tool's injection library; a setting that was not valid). */
SSC_HIDDEN void ssc_mark_config(void);
/* Child side of fork: the child's trace gets its notices again. */
SSC_HIDDEN void ssc_records_after_fork_child(void);

/* ---- CUPTI (ssc_cupti.c), called by the core -------------------------------------- */

/* From InitializeInjection: check that no other client owns CUPTI (subscribe and let go at
 * once: no subscription is ever held, Kineto needs it), set the timestamp callback to
 * sst_now_ns, enable the activity kinds for the mode. Returns 0, or an ss_error after saying
 * why (conflict, CUPTI missing); the core keeps recording NVTX and host data either way. */
SSC_HIDDEN int ssc_cupti_start(void);

/* Turn activity recording on/off (capture window edges). */
SSC_HIDDEN void ssc_cupti_set_enabled(int on);

/* Launch sampling, at a step's begin: kernel launch calls recorded (1) or not (0) from here.
 * Returns 1 when done (or CUPTI is not recording calls now: it takes effect when it does),
 * 0 when CUPTI was busy (a flush: try again at the next step), -1 when API calls are recorded
 * through activity records, which cannot be switched call by call mid-run. Never blocks. */
SSC_HIDDEN int ssc_cupti_launch_sample(int on);

/* Flush CUPTI's completed buffers into records (periodically and at exit). */
SSC_HIDDEN void ssc_cupti_flush(int force);

/* At exit: flush everything (unless another client has CUPTI). */
SSC_HIDDEN void ssc_cupti_stop(void);

/* From the NVTX mark "torch.profiler.start" (started 1) / "torch.profiler.stop" (0) in domain
 * "stepscope", which the Python shim emits right before torch.profiler starts and right
 * after it stops, on the calling thread: hands CUPTI over to Kineto (flush, kinds off,
 * CAPTURE off TAKEN_OVER, notice) and takes it back (callbacks, clock, kinds, CAPTURE on
 * TAKEN_OVER). Callable before ssc_cupti_start (CUDA not started yet) and from any thread;
 * never fails (CUPTI errors are said once and leave GPU recording off). */
SSC_HIDDEN void ssc_cupti_profiler_mark(int started);

#endif
