/*
 * ssc_core.h — what the collector core's own files share (not the CUPTI part: that meets the
 * core through ssc_internal.h). Everything here is hidden inside libstepscope.so.
 *
 * Pieces and the files that own them:
 *   ssc_core.c    configuration, per-process start/stop, entry point InitializeInjection,
 *                 fork and signal handling, notices
 *   ssc_buf.c     per-thread record buffers (lock-free for the recording thread), the block
 *                 pool bounded by the memory cap, drop counters
 *   ssc_intern.c  the process-wide string table and the queue of STRING records
 *   ssc_writer.c  the writer thread: drains buffers into the sst_writer, flushes, samples
 *   ssc_host.c    environment record and host samples (/proc, getrusage)
 *   ssc_nvtx.c    InitializeInjectionNvtx2 and every NVTX callback
 *   ssc_zstd.c    a zstd compressor found with dlopen (the library does not link libzstd)
 *
 * Lock order (fork's prepare handler takes them all in this order):
 *   g_init_mu -> writer round lock -> NVTX domains -> string table -> block pool.
 * No lock is ever taken on the recording hot path (ssc_rec_reserve/commit, interning a
 * string this thread has seen before).
 */
#ifndef SSC_CORE_H
#define SSC_CORE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/ssc_internal.h"
#include "trace/sst_writer.h"

/* ---- core state (ssc_core.c) ---- */
enum ssc_state {
    SSC_OFF = 0,     /* not started in this process (yet, or again after fork) */
    SSC_RUNNING = 1, /* records are accepted */
    SSC_STOPPED = 2, /* shut down at exit, or could not start: records are refused */
};
SSC_HIDDEN extern _Atomic int ssc_g_state;

/* Starts the core in this process if it is not running (idempotent, thread-safe, also after
 * fork). Returns 1 when records are accepted. */
SSC_HIDDEN int ssc_core_ensure(void);

/* Starts one of the collector's own threads (the writer, the Python sampler) with every signal
 * blocked, and returns once it runs and has its thread-local storage: a fork() right after
 * must not catch the new thread inside the allocator. 0, or pthread_create's error. */
SSC_HIDDEN int ssc_thread_start(pthread_t *thread, void *(*fn)(void *));

/* Whether ssc_cupti_start succeeded in this process (the writer then flushes/stops CUPTI). */
SSC_HIDDEN int ssc_core_cupti_on(void);

/* Monotonic start time of the collector in this process (ns, sst_now_ns clock). */
SSC_HIDDEN uint64_t ssc_start_ns(void);

/* The calling thread's kernel thread id. */
SSC_HIDDEN uint32_t ssc_gettid(void);

/* Writes "stepscope: msg\n" to stderr with one write(2) (async-signal-safe). */
SSC_HIDDEN void ssc_say(const char *msg);

/* Writer thread, once per trace: marks what record left to another tool's injection library
 * (config foreign_cuda/foreign_nvtx); nothing when there is none. */
SSC_HIDDEN void ssc_core_mark_foreign(void);

/* Capture window (ssc_core.c): a step began/ended; time passed (writer thread). */
SSC_HIDDEN void ssc_window_step_begin(uint64_t ordinal);
SSC_HIDDEN void ssc_window_step_end(uint64_t ordinal);
SSC_HIDDEN void ssc_window_tick(uint64_t now_ns);
/* A loop went on without an optimizer step (the shim's tick marks, docs/markers.md): a CUDA
 * graph replayed, backward() run. On the marking thread. */
enum ssc_tick_kind { SSC_TICK_GRAPH, SSC_TICK_BACKWARD };
SSC_HIDDEN void ssc_window_loop_tick(enum ssc_tick_kind kind);

/* ---- per-thread buffers (ssc_buf.c) ---- */
struct ssc_tbuf;
/* The calling thread's buffer, created on first use (NULL when it cannot be). */
SSC_HIDDEN struct ssc_tbuf *ssc_tbuf_self(void);
SSC_HIDDEN void ssc_buf_global_init(void);
/* Position of every live buffer's committed data (writer thread, before draining strings). */
SSC_HIDDEN void ssc_buf_snapshot(void);
/* Appends every buffer's records up to its snapshot to w; frees drained blocks and the
 * buffers of exited threads. Returns records moved. */
SSC_HIDDEN uint64_t ssc_buf_drain(struct sst_writer *w);
/* Child side of fork: forgets every buffer (their records belong to the parent's file). */
SSC_HIDDEN void ssc_buf_after_fork_child(void);
SSC_HIDDEN void ssc_buf_lock_all(void);
SSC_HIDDEN void ssc_buf_unlock_all(void);
/* Records dropped per source and type since the last call; fills counts[source][type]. */
#define SSC_DROP_SOURCES 5
SSC_HIDDEN void ssc_drops_take(uint64_t counts[SSC_DROP_SOURCES][SST_REC_TYPE_LIMIT]);
/* Marks the calling thread as the writer thread: its records go straight to the writer. */
SSC_HIDDEN void ssc_buf_set_writer_thread(struct sst_writer *w);
/* COST records (writer thread) of every thread whose counters moved since the last call,
 * the writer's own included. */
SSC_HIDDEN void ssc_buf_write_costs(void);
/* The writer thread's own time in one kind so far (ns), to keep kinds apart. */
SSC_HIDDEN uint64_t ssc_buf_writer_cost_ns(uint8_t kind);

/* ---- strings (ssc_intern.c) ---- */
struct ssc_str; /* an interned string; lives as long as the process */
/* The entry for s (creating it), NULL when the table is full. Lock-free when this thread has
 * seen s recently. */
SSC_HIDDEN struct ssc_str *ssc_str_get(const char *s, size_t len);
/* The id of an entry, queueing its STRING record if the current file has not had it. */
SSC_HIDDEN uint32_t ssc_str_id(struct ssc_str *e);
SSC_HIDDEN const char *ssc_str_text(const struct ssc_str *e, uint32_t *len);
/* Writes queued STRING records to w (writer thread). */
SSC_HIDDEN void ssc_str_drain(struct sst_writer *w);
SSC_HIDDEN void ssc_str_lock(void);
SSC_HIDDEN void ssc_str_unlock(void);
/* Child side of fork: the new file has no strings yet; queued ones are discarded. */
SSC_HIDDEN void ssc_str_after_fork_child(void);

/* ---- writer thread (ssc_writer.c) ---- */
/* Opens the trace file and starts the thread. Returns 0 or an ss_error (already said). */
SSC_HIDDEN int ssc_writer_start(void);
/* Asks the thread to finish (final drain, END chunk) and waits up to timeout_ms. */
SSC_HIDDEN void ssc_writer_stop(int timeout_ms);
/* From a signal handler: flush everything now (close the file when `close_file`), wait up
 * to timeout_ms for it. Async-signal-safe. */
SSC_HIDDEN void ssc_writer_signal_flush(int close_file, int timeout_ms);
SSC_HIDDEN void ssc_writer_lock(void);
SSC_HIDDEN void ssc_writer_unlock(void);
/* Child side of fork: abandon the parent's writer without writing. */
SSC_HIDDEN void ssc_writer_after_fork_child(void);
/* Records written directly by the writer thread (strings drained first). */
SSC_HIDDEN void *ssc_writer_rec(uint16_t type, size_t size);

/* ---- host (ssc_host.c) ---- */
/* Copies the variables the trace keeps out of environ; a program's thread, before the writer
 * starts (ssc_core_ensure). */
SSC_HIDDEN void ssc_host_snapshot_env(void);
/* The rest: writer thread only. */
SSC_HIDDEN void ssc_host_write_process(void);
SSC_HIDDEN void ssc_host_write_env(void);
SSC_HIDDEN void ssc_host_write_late_env(void);
/* "python", "cxx" (C++ over libtorch), "c" (C over libtorch's C ABI) or "cuda" (no libtorch),
 * from what is loaded now (ssc_program.c); a static string. */
SSC_HIDDEN const char *ssc_program_kind(void);
SSC_HIDDEN void ssc_host_sample(void);
/* "<host>-<pid>[-r<rank>][.<attempt>].sstrace" into buf (attempt 0: no suffix). */
SSC_HIDDEN void ssc_host_trace_name(char *buf, size_t cap, int attempt);

/* ---- zstd (ssc_zstd.c) ---- */
SSC_HIDDEN int ssc_zstd_compressor(struct sst_compressor *out);

/* ---- NVTX (ssc_nvtx.c) ---- */
SSC_HIDDEN void ssc_nvtx_after_fork_child(void);
/* The domain list's lock (fork prepare/parent/child). */
SSC_HIDDEN void ssc_nvtx_lock(void);
SSC_HIDDEN void ssc_nvtx_unlock(void);

#endif
