/*
 * ssc_syncsite.h — the Python sampler woken by synchronising CUDA calls (ssc_syncsite.c).
 */
#ifndef SSC_SYNCSITE_H
#define SSC_SYNCSITE_H

#include <stdint.h>

#include "collect/ssc_core.h"

/* Whether API calls reach the collector through its own CUPTI callbacks right now (ssc_cupti.c
 * says so when it switches them on and off): only then are synchronising calls seen as they
 * start. */
SSC_HIDDEN void ssc_syncsite_live(int on);

/* Nonzero once a sampler asked for synchronising calls: until then the callbacks skip them
 * with this one load (ssc_cupti.c, on every recorded call). */
SSC_HIDDEN extern _Atomic int ssc_g_sync_wanted;

/* On the program's thread, from the callbacks: thread tid entered (exit: left) the
 * synchronising call with this correlation id at now_ns. Never blocks; without a sampler that
 * asked for them, two relaxed loads. */
SSC_HIDDEN void ssc_syncsite_enter(uint32_t tid, uint32_t correlation, uint64_t now_ns);
SSC_HIDDEN void ssc_syncsite_exit(uint32_t tid, uint32_t correlation);

/* On the sampler's thread (one at a time), without the GIL: waits up to timeout_ns for a
 * thread that has been blocked in a synchronising call for at least min_block_ns and is still
 * in it; each call is reported once. Returns 1 with *tid and *correlation set, 0 when the time
 * was up, SS_ENOTSUP when calls are not seen as they start (the collector records API calls
 * from CUPTI's activity records, or not at all). */
SSC_HIDDEN int ssc_syncsite_wait(uint64_t timeout_ns, uint64_t min_block_ns, uint32_t *tid,
                                 uint32_t *correlation);

#endif
