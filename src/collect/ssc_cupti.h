/*
 * ssc_cupti.h — the pure parts of the collector's CUPTI half, shared by ssc_cupti.c (the
 * CUPTI session inside the training process) and the tests (which have no GPU).
 *
 *   ssc_cupti_convert.c  one CUPTI activity record -> one trace record, through a sink; the
 *                        keep-lists of runtime/driver API calls
 *   ssc_cupti_watch.c    the state machine that notices torch.profiler (Kineto) taking the
 *                        activity callbacks away
 *   ssc_cupti_api.c      API calls recorded from CUPTI's callbacks with our own timestamps:
 *                        pairing each exit with its entry, per thread
 *
 * Nothing here calls CUPTI: only its headers are needed. Everything is hidden.
 */
#ifndef SSC_CUPTI_H
#define SSC_CUPTI_H

#include <stddef.h>
#include <stdint.h>

#include <cupti.h>

#include "collect/ssc_internal.h"

/* ---- conversion ------------------------------------------------------------------------ */

/* Where converted records go. In the collector these wrap ssc_rec_reserve/commit and
 * ssc_intern; tests pass their own. reserve returns zeroed memory with the header set, or
 * NULL (the record is dropped); every non-NULL reserve is followed by commit. */
struct ssc_cupti_sink {
    void *(*reserve)(void *ctx, uint16_t type, size_t size);
    void (*commit)(void *ctx, void *rec);
    uint32_t (*intern)(void *ctx, const char *s, size_t len);
    void *ctx;
    struct ssc_ctx_map *contexts; /* context id -> device; NULL: devices of syncs unknown */
};

/* SYNCHRONIZATION records name a context, not a device; CONTEXT records (one per context,
 * at creation) give the mapping. A small fixed table is enough: a process has one primary
 * context per GPU, plus the odd green context. Written and read by the thread that converts
 * buffers; CUPTI serialises buffer completion per context, and a stale read only costs a
 * device id of SSC_DEVICE_UNKNOWN. */
#define SSC_CTX_MAP_SIZE 64
#define SSC_DEVICE_UNKNOWN 0xffffu
struct ssc_ctx_map {
    uint32_t context[SSC_CTX_MAP_SIZE];
    uint16_t device[SSC_CTX_MAP_SIZE];
    uint32_t used;
};

enum ssc_conv_result {
    SSC_CONV_RECORD = 0,   /* one record committed */
    SSC_CONV_FILTERED = 1, /* deliberately not recorded (noisy API call, bookkeeping) */
    SSC_CONV_UNKNOWN = 2,  /* an activity kind this version does not convert */
    SSC_CONV_UNTIMED = 3,  /* CUPTI could not time it (zero timestamps): unusable */
    SSC_CONV_DROPPED = 4,  /* the sink refused the record (memory cap) */
};

/* Converts one CUPTI activity record. Pure apart from the sink (and the context map it
 * carries): no CUPTI calls, no globals. Strings in a is copied through sink->intern. */
SSC_HIDDEN enum ssc_conv_result ssc_cupti_convert(const CUpti_Activity *a,
                                                  const struct ssc_cupti_sink *sink);

/* ---- which API calls are recorded ------------------------------------------------------ */

/* 1 when calls with this cbid (cupti_runtime_cbid.h / cupti_driver_cbid.h) are recorded:
 * launches, copies, memsets, syncs, allocations, event/stream/graph calls. Everything else
 * (getters, attribute queries, polls) is left out. */
SSC_HIDDEN int ssc_cupti_runtime_kept(uint32_t cbid);
SSC_HIDDEN int ssc_cupti_driver_kept(uint32_t cbid);

/* 1 when the cbid launches GPU work (kernels, graphs, host functions). */
SSC_HIDDEN int ssc_cupti_runtime_launch(uint32_t cbid);
SSC_HIDDEN int ssc_cupti_driver_launch(uint32_t cbid);

/* 1 when the cbid blocks the host until the GPU catches up (stream, device, event and
 * context synchronize): its entry may wake the sampler (ssc_syncsite.c). */
SSC_HIDDEN int ssc_cupti_runtime_sync(uint32_t cbid);
SSC_HIDDEN int ssc_cupti_driver_sync(uint32_t cbid);

/* The same lists as arrays, to enable exactly these calls in CUPTI (keep-lists: activity
 * records through cuptiActivityEnableRuntimeApi/DriverApi, which need no subscriber; launch
 * lists: the watch's probe callbacks). *out is static. */
SSC_HIDDEN size_t ssc_cupti_runtime_keep_list(const uint32_t **out);
SSC_HIDDEN size_t ssc_cupti_driver_keep_list(const uint32_t **out);
SSC_HIDDEN size_t ssc_cupti_runtime_launch_list(const uint32_t **out);
SSC_HIDDEN size_t ssc_cupti_driver_launch_list(const uint32_t **out);
/* Kernel launches only (no graph launch, no host function): the calls launch sampling
 * switches. */
SSC_HIDDEN size_t ssc_cupti_runtime_kernel_launch_list(const uint32_t **out);
SSC_HIDDEN size_t ssc_cupti_driver_kernel_launch_list(const uint32_t **out);

/* ---- API calls through CUPTI callbacks (ssc_cupti_api.c) ----------------------------- */

/*
 * STEPSCOPE_API=callbacks records the keep-list's calls from CUPTI's entry and exit callbacks
 * (enabled call by call, which, unlike per-call activity records, also works when enabled
 * mid-run) instead of CUPTI's API activity records. Each thread keeps its open calls: one
 * runtime call, and one driver call made outside a runtime call. A driver call made while a
 * runtime call is open is that runtime call's own work (cudaMemcpy calls the driver's copy)
 * and is not recorded a second time. Every switch-on of the callbacks starts a new
 * generation; a slot opened under an older one is stale, so an exit whose entry came before
 * the switch (or was never seen) is dropped rather than paired with a wrong start.
 */
struct ssc_api_slot {
    uint64_t start_ns;
    uint32_t correlation;
    uint32_t gen; /* the generation it was opened under; 0: nothing open */
};
struct ssc_api_thread {
    struct ssc_api_slot runtime, driver;
    uint32_t tid;
};
/* One callback as read from CUpti_CallbackData. */
struct ssc_api_event {
    uint8_t domain; /* SST_API_RUNTIME / SST_API_DRIVER */
    uint8_t exit;   /* 0: entry, 1: exit */
    uint32_t cbid;
    uint32_t correlation; /* CUpti_CallbackData.correlationId: the activity records' id */
    int32_t result;       /* exit: the call's return value */
    uint64_t now_ns;      /* read first thing in the callback */
};
enum ssc_api_outcome {
    SSC_API_OPENED = 0,   /* an entry: the call is open */
    SSC_API_RECORDED = 1, /* an exit: one API record committed */
    SSC_API_NESTED = 2,   /* a driver call inside an open runtime call: not recorded */
    SSC_API_UNPAIRED = 3, /* an exit without its entry under this generation: dropped */
    SSC_API_DROPPED = 4,  /* the sink refused the record */
};
/* Handles one callback of thread t under generation gen (nonzero). Pure apart from the sink:
 * no CUPTI call, no clock read, no global. */
SSC_HIDDEN enum ssc_api_outcome ssc_api_event(struct ssc_api_thread *t,
                                              const struct ssc_api_event *ev, uint32_t gen,
                                              const struct ssc_cupti_sink *sink);

/* ---- takeover watch (ssc_cupti_watch.c) ------------------------------------------------ */

/*
 * When torch.profiler starts, Kineto calls cuptiActivityRegisterCallbacks with its own
 * functions: from then on every buffer, ours included, is handed to Kineto and our
 * bufferCompleted is never called again. Python programs under the shim announce the
 * profiler with NVTX marks (ssc_cupti_profiler_mark), and then this watch is off. For the
 * others (libtorch C++ programs, the shim turned off) CUPTI offers no way to ask who is
 * registered, so we infer it:
 *
 *  1. quiet:   while capturing, neither bufferRequested nor bufferCompleted has run for
 *              `quiet_ns` although we flush every 250 ms. Either the GPU is idle, or our
 *              records wait in a partly filled buffer, or the buffers go elsewhere.
 *  2. precheck: a forced flush. If one of our buffers comes back we are fine (back to 1,
 *              waiting twice as long next time). Active programs end here: no subscription.
 *  3. probe:   nothing came back: subscribe to CUPTI callbacks for the launch APIs only, for
 *              `probe_ns`, and count launches (held only then: a torch.profiler starting
 *              during a probe cannot subscribe and loses its GPU data, seen when probes
 *              came before the flush). A subscribe that fails because another client
 *              subscribed is the takeover itself. No launch -> the program is idle: back to 1,
 *              waiting twice as long before the next check (at most 32x).
 *  4. confirm: launches happened, so records were produced (launch calls are always in the
 *              keep-list). A forced flush hands every buffer holding a record to whoever is
 *              registered. If ours comes back we are fine (back to 1); if not, the records
 *              went to someone else: taken over. Said once, never undone (we do not steal
 *              the callbacks back: that would break the user's torch.profiler trace).
 *
 * Probes cost nothing outside themselves, and only happen when nothing was delivered for a
 * while, even to a forced flush. The machine is pure; ssc_cupti.c drives it from ssc_cupti_flush.
 */
enum ssc_watch_state {
    SSC_WATCH_QUIET = 0,
    SSC_WATCH_PROBING = 1,
    SSC_WATCH_CONFIRMING = 2,
    SSC_WATCH_TAKEN = 3,
    SSC_WATCH_PRECHECK = 4
};
enum ssc_watch_action {
    SSC_WATCH_NONE = 0,
    SSC_WATCH_PROBE_ON = 1,  /* subscribe, enable the launch callbacks */
    SSC_WATCH_PROBE_OFF = 2, /* unsubscribe */
    SSC_WATCH_CONFIRM = 3,   /* force-flush, then call ssc_watch_confirm (may say PROBE_ON) */
    SSC_WATCH_TAKEN_OVER = 4 /* unsubscribe, say so, stop using CUPTI */
};
struct ssc_watch {
    enum ssc_watch_state state;
    uint64_t quiet_ns, probe_ns; /* base intervals */
    uint64_t quiet_cur_ns;       /* current quiet interval (backs off after idle probes) */
    uint64_t last_ok_ns;         /* last time something was delivered, or a probe ended */
    uint64_t probe_start_ns;
    uint64_t deliveries_seen;   /* deliveries total at the previous tick */
    uint64_t launches_at_probe; /* launches total when the probe started */
};

SSC_HIDDEN void ssc_watch_init(struct ssc_watch *w, uint64_t now_ns, uint64_t quiet_ns,
                               uint64_t probe_ns);
/* One periodic check. deliveries and launches are running totals (buffers requested +
 * completed; launch callbacks seen). */
SSC_HIDDEN enum ssc_watch_action ssc_watch_tick(struct ssc_watch *w, uint64_t now_ns, int capturing,
                                                uint64_t deliveries, uint64_t launches);
/* After SSC_WATCH_CONFIRM and a forced flush: PROBE_OFF (healthy), PROBE_ON (the precheck
 * got nothing back: count launches from now) or TAKEN_OVER (a probe saw launches and still
 * nothing came back). */
SSC_HIDDEN enum ssc_watch_action ssc_watch_confirm(struct ssc_watch *w, uint64_t now_ns,
                                                   uint64_t deliveries, uint64_t launches);

#endif
