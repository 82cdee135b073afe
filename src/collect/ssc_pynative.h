/*
 * ssc_pynative.h — Python stacks read without the GIL (ssc_pynative.c), and the PY_FRAME /
 * PY_STACK interning it shares with the GIL sampler (ssc_pyhost.c). Prefixes ssc_pyn_, ssc_pyh_.
 */
#ifndef SSC_PYNATIVE_H
#define SSC_PYNATIVE_H

#include <stddef.h>
#include <stdint.h>

#include "collect/ssc_core.h"
#include "collect/ssc_pyread.h"

/* ---- ssc_pyhost.c: records shared by both readers (thread-safe) ---- */

/* Writes a PY_FRAME record; its id, or 0 when it could not be written. */
SSC_HIDDEN uint32_t ssc_pyh_frame_record(const char *func, size_t fn, const char *file,
                                         size_t fl, long line, long first);
/* The id of the stack fids[depth] (leaf first), writing its PY_STACK when new; 0 when it
 * could not be written. */
SSC_HIDDEN uint32_t ssc_pyh_stack_id(const uint32_t *fids, uint32_t depth, uint16_t flags);

/* Says once (stderr and NOTICE) that the frame or stack tables were cleared at their cap. */
SSC_HIDDEN void ssc_pyh_say_cleared(const char *what);

/* ---- ssc_pynative.c ---- */

/* Reads n bytes of our own memory at addr into buf through process_vm_readv (an unmapped or
 * racing address is an error, never a fault): 0 or -1. An ssc_pyr_read_fn. */
SSC_HIDDEN int ssc_pyn_read_self(void *ctx, uint64_t addr, void *buf, size_t n);

/* Whether API calls reach our CUPTI callbacks now (ssc_cupti.c, as they switch): with the
 * native reader ready, blocking calls then get their lines; ENV pyshim.sync_calls says so. */
SSC_HIDDEN void ssc_pyn_api_live(int on);

/* The layout the frame reader uses from now on (learned or read from _Py_DebugOffsets, and
 * checked), the interpreter whose threads are sampled, and PyGILState_GetThisThreadState (to
 * find the calling thread's state without the GIL). Once per process. */
SSC_HIDDEN void ssc_pyn_set_layout(const struct ssc_pyr_layout *l, uint64_t interp,
                                   void *(*this_thread_state)(void), const char *source);

/* Whether the native reader is ready (then API calls' sites are taken natively). */
SSC_HIDDEN int ssc_pyn_ready(void);

/* Starts the sampler thread: every thread of the interpreter but skip_tid, hz times a second
 * on average (randomised). 0, or an ss_error. */
SSC_HIDDEN int ssc_pyn_start(uint32_t hz, uint32_t skip_tid);

/* Outside GPU windows the sampler ticks this many times less often (ENV
 * pyshim.host_samples_outside_hz says the rate; `--capture all` keeps the full rate). */
#define SSC_PYN_OUTSIDE_DIV 5

/* A GPU window opened or closed (ssc_window.c): the sampler draws its next tick at the new
 * rate now, not after the old rate's interval. */
SSC_HIDDEN void ssc_pyn_window_edge(void);

/* Stops it (at exit, or when the shim stops sampling), waiting up to a second. */
SSC_HIDDEN void ssc_pyn_stop(void);

/* On the program's thread, inside a CUDA call that has blocked it min_block_ns or more: the
 * Python stack the call was made from, as a PY_CALL record with the call's correlation id. No
 * GIL, no lock but the interning's; cheap when the thread calls from the same place again. */
SSC_HIDDEN void ssc_pyn_call_site(uint32_t tid, uint32_t correlation, uint64_t ts_ns);

/* CUDA calls blocked at least this long get their Python line (ssc_cupti.c). */
#define SSC_PYN_CALL_MIN_NS 50000ull

#endif
