/*
 * ssc_core.h — what the collector core's own files share (not the CUPTI part: that meets the
 * core through ssc_internal.h). Everything here is hidden inside libstepscope.so.
 *
 * Pieces and the files that own them, from the top down (test style.collect_layers: no file
 * calls a function of the top but the top; the bottom calls none of the others):
 *   ssc_core.c    top: per-process start/stop, entry point InitializeInjection, fork and
 *                 signal handling (ssc_lifecycle.h)
 *   ssc_window.c  top: the capture window, auto's late start, launch sampling
 *   ssc_records.c notices, ENV and CAPTURE records, what the configuration says in a trace
 *   ssc_buf.c     per-thread record buffers (lock-free for the recording thread), the block
 *                 pool bounded by the memory cap, drop counters
 *   ssc_intern.c  the process-wide string table and the queue of STRING records
 *   ssc_writer.c  the writer thread: drains buffers into the sst_writer, flushes, samples
 *   ssc_host.c    environment record and host samples (/proc, getrusage)
 *   ssc_nvtx.c    InitializeInjectionNvtx2 and every NVTX callback
 *   ssc_zstd.c    a zstd compressor found with dlopen (the library does not link libzstd)
 *   ssc_config.c  bottom: settings, the capture window they ask for, the process's state,
 *                 services (ssc_config.h)
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
/* Opens the trace file and starts the thread, whose rounds call ssc_top.round. Returns 0 or
 * an ss_error (already said). */
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
