/*
 * ssc_cupti.c — the collector's CUPTI session: activity tracing inside the training process.
 *
 * Started from InitializeInjection (inside the driver's cuInit). Records reach the trace
 * through the core (ssc_rec_reserve/commit) from bufferCompleted, on whichever thread CUPTI
 * completes a buffer. Conversion is in ssc_cupti_convert.c, the takeover watch in
 * ssc_cupti_watch.c. Kernel activity is most of CUPTI's cost a launch, API records little
 * (docs/performance.md, "Recording cost"), and only the keep-list's calls are recorded: one by
 * one (cuptiActivityEnableRuntimeApi/DriverApi: activity-level, no subscriber) or through
 * callbacks, never whole domains when that can be helped.
 *
 * With API activity records (STEPSCOPE_API=activity) no CUPTI subscription is
 * held. CUPTI allows one subscriber per process and Kineto (torch.profiler) needs it: holding
 * one made torch.profiler record no GPU activity. We subscribe only for an instant at start (to
 * learn whether nsys or another tool owns CUPTI), for the takeover watch's launch probes, and
 * once the capture window is over until the program's next API call returns, which detaches
 * CUPTI (cuptiFinalize: switched-off kinds still cost, only detaching gives the program its
 * speed back). Activity tracing needs no subscriber. STEPSCOPE_API=callbacks (and auto, after
 * CUDA started) records API calls from our own callbacks instead, which does hold the
 * subscription while recording: given back at the shim's torch.profiler mark, at the window's
 * end (before the detach subscribes) and at a takeover; probes then run through it.
 *
 * torch.profiler: the Python shim marks "torch.profiler.start" right before the profiler
 * starts and "torch.profiler.stop" right after it stops (domain "stepscope"). ssc_nvtx.c
 * calls ssc_cupti_profiler_mark from that mark, on the Python thread, synchronously: before
 * Kineto touches CUPTI we flush, disable our kinds and let go; after it is done we register
 * our callbacks, clock and kinds again. The trace has CAPTURE off/on (reason TAKEN_OVER)
 * around the gap. Programs without the shim rely on the watch (ssc_cupti_watch.c).
 *
 * Locking: g_ctl serialises start/enable/flush/stop (called from the core's threads). It is
 * held across CUPTI calls that may call back into bufferCompleted on this thread, so the
 * buffer callbacks never take it; they only take g_pool.lock, under which CUPTI is never
 * called. All entry points do nothing in a fork()ed child (CUPTI does not survive fork).
 */
#include "collect/ssc_cupti.h"
#include "collect/ssc_pynative.h"
#include "collect/ssc_syncsite.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "trace/sst_writer.h"
#include "util/ss_error.h"

/* CUPTI suggests 1–10 MB buffers. At most SSC_BUF_MAX exist at once (64 MiB); when all are
 * out CUPTI drops records and counts them (reported as DROPPED, source CUPTI). Many small
 * buffers rather than a few large ones: each flush closes the buffer CUPTI is filling, and it
 * keeps that buffer until every record in it is complete, so a GPU-bound step whose host runs
 * ahead pins one buffer per flush for as long as its queue lasts: a few large buffers ran
 * out on a GPU-bound fp32 MLP and lost kernels each time, which 32 of 2 MiB do not
 * (docs/performance.md, "Figures behind the collector's choices"). */
#define SSC_BUF_BYTES (2u << 20)
#define SSC_BUF_MAX 32
#define SSC_WATCH_QUIET_NS (3ull * 1000000000ull)
#define SSC_WATCH_PROBE_NS (300ull * 1000000ull) /* launch-bound loops launch every few us */
#define SSC_PROFILER_MSG                                                                           \
    "torch.profiler started: it records GPU activity until it stops; stepscope's trace has "       \
    "a gap there"

/* CS_PAUSED: torch.profiler (announced by the shim) has CUPTI until its stop mark; CS_TAKEN:
 * lost for good (watch, CUPTI shut down, failed hand-back); CS_DETACHING: the window is over,
 * the next API exit finalises CUPTI; CS_DETACHED: it did (or failed to), hands off CUPTI. */
enum ssc_cupti_state {
    CS_OFF = 0,
    CS_RUNNING,
    CS_PAUSED,
    CS_TAKEN,
    CS_FAILED,
    CS_STOPPED,
    CS_DETACHING,
    CS_DETACHED
};

static pthread_mutex_t g_ctl = PTHREAD_MUTEX_INITIALIZER;
static enum ssc_cupti_state g_state;       /* under g_ctl */
static _Atomic pid_t g_pid;                /* process that started CUPTI (or saw a profiler mark) */
static CUpti_SubscriberHandle g_probe_sub; /* held only while a launch probe runs */
static int g_probing;                      /* g_probe_sub is live, under g_ctl */
static int g_enabled;                      /* activity kinds on (capture window), under g_ctl */
static int g_api_per_call;                 /* this CUPTI can enable API calls one by one */
static int g_api_whole_on;                 /* whole RUNTIME/DRIVER kinds on, under g_ctl */
static int g_api_per_call_on;              /* per-call API records on, under g_ctl */
static int g_cuda_started; /* ssc_cupti_start is done: per-call API settings no longer take */
static int g_profiler_on;  /* between torch.profiler's start and stop marks, under g_ctl */
static int g_shim_seen;    /* the shim announced a profiler: the watch is not needed */
static struct ssc_watch g_watch;

/* Dynamic detach (after the capture window): g_detach_sub is live while g_detach_armed is 1;
 * whoever turns g_detach_armed 1 -> 0 owns it (the callback finalises, the others let go).
 * g_detach_result: 0 pending, 1 finalised, -1 failed (then CUPTI stays attached, kinds off). */
static _Atomic int g_detach_armed;
static _Atomic int g_detach_result;
static CUpti_SubscriberHandle g_detach_sub;

static struct {
    pthread_mutex_t lock;
    uint8_t *free[SSC_BUF_MAX];
    uint8_t *ours[SSC_BUF_MAX]; /* every buffer we allocated, to recognise foreign ones */
    int nfree;
    int allocated;
} g_pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Written by CUPTI's callbacks on any thread. */
static _Atomic uint64_t g_deliveries; /* buffers requested + completed */
static _Atomic uint64_t g_launches;   /* launch callbacks seen (only while probing) */
static _Atomic uint64_t g_stat[SSC_CONV_DROPPED + 1];
static struct ssc_ctx_map g_contexts;

/* ---- small helpers ------------------------------------------------------------------ */

static uint64_t CUPTIAPI timestamp_cb(void)
{
    return sst_now_ns();
}

/* GPU activity turned on or off, and why. */
static void write_capture(int on, uint8_t reason)
{
    ssc_capture_record(on, reason, SST_CAPTURE_GPU);
}

static const char *cupti_err(CUptiResult res)
{
    const char *s = NULL;
    if (cuptiGetResultString(res, &s) != CUPTI_SUCCESS || !s) s = "unknown CUPTI error";
    return s;
}

static void say_unavailable(const char *what, CUptiResult res)
{
    char msg[256];
    snprintf(msg, sizeof(msg),
             "CUPTI unavailable (%s: %s): GPU activity is not recorded; "
             "NVTX and host data still are",
             what, cupti_err(res));
    ssc_notice(SST_NOTICE_CUPTI_UNAVAILABLE, SST_NOTE_WARN, msg);
}

/* A fork()ed child inherits our state but not CUPTI; checked before taking g_ctl, which
 * the parent may have held at the fork. */
static int in_starting_process(void)
{
    return atomic_load(&g_pid) == getpid();
}

/* ---- the sink that feeds converted records to the core ------------------------------- */

static void *sink_reserve(void *ctx, uint16_t type, size_t size)
{
    (void)ctx;
    return ssc_rec_reserve(type, size);
}

static void sink_commit(void *ctx, void *rec)
{
    (void)ctx;
    ssc_rec_commit(rec);
}

static uint32_t sink_intern(void *ctx, const char *s, size_t len)
{
    (void)ctx;
    return ssc_intern(s, len);
}

static const struct ssc_cupti_sink g_sink = {.reserve = sink_reserve,
                                             .commit = sink_commit,
                                             .intern = sink_intern,
                                             .ctx = NULL,
                                             .contexts = &g_contexts};

/* ---- activity buffers ------------------------------------------------------------- */

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    uint8_t *buf = NULL;
    atomic_fetch_add_explicit(&g_deliveries, 1, memory_order_relaxed);
    pthread_mutex_lock(&g_pool.lock);
    if (g_pool.nfree > 0) {
        buf = g_pool.free[--g_pool.nfree];
    } else if (g_pool.allocated < SSC_BUF_MAX) {
        /* Each buffer is its own allocation: a client that takes our buffers over and
         * frees them must not free a slice of an arena. */
        buf = aligned_alloc(8, SSC_BUF_BYTES);
        if (buf) g_pool.ours[g_pool.allocated++] = buf;
    }
    pthread_mutex_unlock(&g_pool.lock);
    *buffer = buf; /* NULL: CUPTI drops records and counts them */
    *size = buf ? SSC_BUF_BYTES : 0;
    *max_records = 0;
}

/* After a hand-back, CUPTI may complete a buffer that another client (Kineto) requested:
 * its size and its owner are unknown, so it is neither read nor kept nor freed. */
static int buffer_is_ours(const uint8_t *buf)
{
    int ours = 0;
    pthread_mutex_lock(&g_pool.lock);
    for (int i = 0; i < g_pool.allocated && !ours; i++)
        ours = g_pool.ours[i] == buf;
    pthread_mutex_unlock(&g_pool.lock);
    return ours;
}

static void buffer_release(uint8_t *buf)
{
    pthread_mutex_lock(&g_pool.lock);
    if (g_pool.nfree < SSC_BUF_MAX) {
        g_pool.free[g_pool.nfree++] = buf;
        buf = NULL;
    }
    pthread_mutex_unlock(&g_pool.lock);
    free(buf); /* only when the free list is full, which our own buffers never make it */
}

static void convert_buffer(uint8_t *buf, size_t valid)
{
    CUpti_Activity *rec = NULL;
    for (;;) {
        CUptiResult res = cuptiActivityGetNextRecord(buf, valid, &rec);
        if (res != CUPTI_SUCCESS) break; /* MAX_LIMIT_REACHED: end; INVALID_KIND: truncated */
        enum ssc_conv_result c = ssc_cupti_convert(rec, &g_sink);
        atomic_fetch_add_explicit(&g_stat[c], 1, memory_order_relaxed);
        /* the launching threads write nothing themselves: name them from here */
        if (c == SSC_CONV_RECORD &&
            (rec->kind == CUPTI_ACTIVITY_KIND_RUNTIME || rec->kind == CUPTI_ACTIVITY_KIND_DRIVER))
            ssc_name_thread_once(((const CUpti_ActivityAPI *)rec)->threadId);
        if (c == SSC_CONV_UNTIMED) ssc_count_dropped(SST_DROP_CUPTI, 0, 1);
    }
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
                                      size_t valid)
{
    (void)size;
    atomic_fetch_add_explicit(&g_deliveries, 1, memory_order_relaxed);
    if (buf && !buffer_is_ours(buf)) return;
    uint64_t t0 = sst_now_ns();
    if (buf && valid > 0) convert_buffer(buf, valid);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
        ssc_count_dropped(SST_DROP_CUPTI, 0, dropped);
    if (buf) buffer_release(buf);
    ssc_cost_add(SST_COST_CUPTI_CONVERT, 1, 1, sst_now_ns() - t0);
}

/* ---- launch probes: the only subscription we ever hold, for about a second ----------- */

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void *data)
{
    (void)userdata;
    (void)cbid;
    const CUpti_CallbackData *cd = data;
    if ((domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) && cd &&
        cd->callbackSite == CUPTI_API_ENTER)
        atomic_fetch_add_explicit(&g_launches, 1, memory_order_relaxed);
}

/* While API calls are recorded through our callbacks the subscription is ours already: a
 * probe then counts the launches those callbacks see (g_probe_via_api) instead. */
static int g_api_subscribed;    /* g_api_sub is live, under g_ctl */
static _Atomic int g_api_probe; /* count launches in on_api (a probe through it runs) */
static int g_probe_via_api;     /* the running probe is g_api_probe, under g_ctl */

static void probe_end_locked(void)
{
    if (!g_probing) return;
    if (g_probe_via_api)
        atomic_store(&g_api_probe, 0);
    else
        cuptiUnsubscribe(g_probe_sub); /* also drops the callbacks it enabled */
    g_probing = g_probe_via_api = 0;
}

/* Subscribes and enables the launch callbacks. Returns the subscription's result: another
 * subscriber (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) means another client. */
static CUptiResult probe_begin_locked(void)
{
    if (g_probing) return CUPTI_SUCCESS;
    if (g_api_subscribed) {
        g_probing = g_probe_via_api = 1;
        atomic_store(&g_api_probe, 1);
        return CUPTI_SUCCESS;
    }
    CUptiResult res = cuptiSubscribe(&g_probe_sub, on_callback, NULL);
    if (res != CUPTI_SUCCESS) return res;
    g_probing = 1;
    const uint32_t *ids;
    size_t n = ssc_cupti_runtime_launch_list(&ids);
    for (size_t i = 0; i < n; i++)
        cuptiEnableCallback(1, g_probe_sub, CUPTI_CB_DOMAIN_RUNTIME_API, ids[i]);
    n = ssc_cupti_driver_launch_list(&ids);
    for (size_t i = 0; i < n; i++)
        cuptiEnableCallback(1, g_probe_sub, CUPTI_CB_DOMAIN_DRIVER_API, ids[i]);
    return CUPTI_SUCCESS;
}

/* ---- API calls through CUPTI callbacks (STEPSCOPE_API=callbacks/auto) ------------------ */

/* How API calls are recorded (STEPSCOPE_API, read at start). activity: CUPTI's API activity
 * records (per call when enabled while CUDA starts, whole domains later); callbacks: CUPTI
 * callbacks of the keep-list with our own timestamps, which take effect mid-run too; auto:
 * per-call activity records where they take, callbacks where activity would need whole
 * domains (a window opening mid-run, the take-back after torch.profiler). */
enum ssc_api_method { SSC_API_ACTIVITY = 0, SSC_API_CALLBACKS = 1, SSC_API_AUTO = 2 };
static enum ssc_api_method g_api_method;
static const char *const k_api_method_names[] = {"activity", "callbacks", "auto"};

/* The callbacks record while g_api_gen is nonzero: each switch-on starts a new generation
 * (ssc_cupti_api.c pairs an exit only with an entry of the same one); 0 when off, and in a
 * fork()ed child, whose CUPTI is dead. */
static CUpti_SubscriberHandle g_api_sub;
static _Atomic uint32_t g_api_gen;
static uint32_t g_api_gen_last; /* under g_ctl */
static __thread struct ssc_api_thread tls_api;
static __thread uint32_t tls_api_events; /* recorded calls since the last cost add */

/* One recorded call in SSC_COST_SAMPLE is timed, from its exit timestamp to the commit. */
static void count_api_cost(uint64_t exit_ns)
{
    if (++tls_api_events < SSC_COST_SAMPLE) return;
    tls_api_events = 0;
    ssc_cost_add(SST_COST_API_CALLBACK, SSC_COST_SAMPLE, 1, sst_now_ns() - exit_ns);
}

static void count_probe_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
    int launch = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? ssc_cupti_runtime_launch(cbid)
                                                       : ssc_cupti_driver_launch(cbid);
    if (launch) atomic_fetch_add_explicit(&g_launches, 1, memory_order_relaxed);
}

/* A synchronising call opened or closed (the outermost of nested ones: a driver call inside
 * a runtime call is not opened): the sampler may want the line that issued it. */
static void note_sync_site(const struct ssc_api_event *ev)
{
    if (!atomic_load_explicit(&ssc_g_sync_wanted, memory_order_relaxed)) return;
    int sync = ev->domain == SST_API_RUNTIME ? ssc_cupti_runtime_sync(ev->cbid)
                                             : ssc_cupti_driver_sync(ev->cbid);
    if (!sync) return;
    if (ev->exit)
        ssc_syncsite_exit(tls_api.tid, ev->correlation);
    else
        ssc_syncsite_enter(tls_api.tid, ev->correlation, ev->now_ns);
}

/* A call that blocked its thread (not a launch: copies, syncs, allocations, frees) gets the
 * Python line that made it, read natively on this thread (ssc_pynative.c): one load when the
 * native reader is off, a few more for calls that returned quickly. */
static void note_call_site(const struct ssc_api_event *ev)
{
    if (!ssc_pyn_ready()) return;
    const struct ssc_api_slot *s = ev->domain == SST_API_RUNTIME ? &tls_api.runtime : &tls_api.driver;
    if (ev->now_ns - s->start_ns < SSC_PYN_CALL_MIN_NS) return;
    int launch = ev->domain == SST_API_RUNTIME ? ssc_cupti_runtime_launch(ev->cbid)
                                               : ssc_cupti_driver_launch(ev->cbid);
    if (!launch) ssc_pyn_call_site(tls_api.tid, ev->correlation, ev->now_ns);
}

/* On the program's thread, at the entry and exit of every call of the keep-list: the clock
 * first, then a few stores (entry) or one record (exit). No lock, no CUPTI call. */
static void CUPTIAPI on_api(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                            const void *data)
{
    uint32_t gen = atomic_load_explicit(&g_api_gen, memory_order_relaxed);
    const CUpti_CallbackData *cd = data;
    (void)userdata;
    if (!gen || !cd) return;
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
    struct ssc_api_event ev = {domain == CUPTI_CB_DOMAIN_RUNTIME_API ? SST_API_RUNTIME
                                                                     : SST_API_DRIVER,
                               cd->callbackSite == CUPTI_API_EXIT, cbid, cd->correlationId, 0,
                               sst_now_ns()};
    if (ev.exit && cd->functionReturnValue) ev.result = *(const int32_t *)cd->functionReturnValue;
    if (!tls_api.tid) tls_api.tid = (uint32_t)syscall(SYS_gettid);
    enum ssc_api_outcome out = ssc_api_event(&tls_api, &ev, gen, &g_sink);
    if (out == SSC_API_RECORDED) {
        count_api_cost(ev.now_ns);
        note_call_site(&ev);
    }
    if (out == SSC_API_OPENED || out == SSC_API_RECORDED) note_sync_site(&ev);
    if (!ev.exit && atomic_load_explicit(&g_api_probe, memory_order_relaxed))
        count_probe_launch(domain, cbid);
}

static void api_after_fork_child(void)
{
    atomic_store(&g_api_gen, 0); /* CUPTI does not survive fork: record nothing from it */
    ssc_syncsite_live(0);
}

static void write_env(const char *key, const char *val);

/* Another client holds CUPTI's one subscription: activity records instead, said once. */
static void api_callbacks_unavailable(CUptiResult res)
{
    char msg[256];
    snprintf(msg, sizeof msg,
             "CUPTI callbacks unavailable (%s): API calls are recorded through CUPTI's activity "
             "records instead",
             cupti_err(res));
    ssc_notice(SST_NOTICE_OTHER, SST_NOTE_INFO, msg);
    write_env("cupti.api_callbacks", "unavailable");
}

static void enable_api_callbacks(CUpti_CallbackDomain domain, const uint32_t *ids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cuptiEnableCallback(1, g_api_sub, domain, ids[i]);
}

static int kind_off(CUpti_ActivityKind k);

/* Launch sampling (STEPSCOPE_LAUNCH_SAMPLE): whether kernel launches are recorded in this
 * step. Under g_ctl; 1 until the core's first sampled-out step. */
static int g_launches_on = 1;

static void enable_launch_callbacks(int on)
{
    const uint32_t *ids;
    size_t n;
    if (!kind_off(CUPTI_ACTIVITY_KIND_RUNTIME)) {
        n = ssc_cupti_runtime_kernel_launch_list(&ids);
        for (size_t i = 0; i < n; i++)
            cuptiEnableCallback((uint32_t)on, g_api_sub, CUPTI_CB_DOMAIN_RUNTIME_API, ids[i]);
    }
    if (!kind_off(CUPTI_ACTIVITY_KIND_DRIVER)) {
        n = ssc_cupti_driver_kernel_launch_list(&ids);
        for (size_t i = 0; i < n; i++)
            cuptiEnableCallback((uint32_t)on, g_api_sub, CUPTI_CB_DOMAIN_DRIVER_API, ids[i]);
    }
}

/* Subscribes (once) and enables the keep-list's callbacks; 0 when CUPTI refused. */
static int api_callbacks_on(void)
{
    if (!g_api_subscribed) {
        CUptiResult res = cuptiSubscribe(&g_api_sub, on_api, NULL);
        if (res != CUPTI_SUCCESS) {
            api_callbacks_unavailable(res);
            return 0;
        }
        g_api_subscribed = 1;
    }
    const uint32_t *ids;
    size_t n;
    if (!kind_off(CUPTI_ACTIVITY_KIND_RUNTIME)) {
        n = ssc_cupti_runtime_keep_list(&ids);
        enable_api_callbacks(CUPTI_CB_DOMAIN_RUNTIME_API, ids, n);
    }
    if (!kind_off(CUPTI_ACTIVITY_KIND_DRIVER)) {
        n = ssc_cupti_driver_keep_list(&ids);
        enable_api_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, ids, n);
    }
    if (!g_launches_on) enable_launch_callbacks(0);
    if (++g_api_gen_last == 0) g_api_gen_last = 1;
    atomic_store(&g_api_gen, g_api_gen_last);
    ssc_syncsite_live(1);
    ssc_pyn_api_live(1);
    return 1;
}

/* Callbacks off and the subscription given back (Kineto, the detach or a probe may need it).
 * A callback already running on another thread finishes its record: harmless. */
static void api_callbacks_off(void)
{
    atomic_store(&g_api_gen, 0);
    ssc_syncsite_live(0);
    ssc_pyn_api_live(0);
    if (!g_api_subscribed) return;
    if (g_probe_via_api) probe_end_locked();
    cuptiUnsubscribe(g_api_sub);
    g_api_subscribed = 0;
}

/* ---- dynamic detach after the capture window ----------------------------------------- */

/* Switching the kinds off at the window's end leaves most of CUPTI's per-launch cost in place
 * (docs/performance.md, "Recording cost"); only cuptiFinalize removes its hooks. CUPTI's
 * advice is to call it at the exit of a CUDA API call: called from our own thread it races with
 * the program's CUPTI-hooked calls (Kineto crashed so in cuptiActivityFlushAll). So the writer
 * subscribes to every API call and the first exit on a program thread flushes and finalises. */
static void CUPTIAPI on_detach_callback(void *userdata, CUpti_CallbackDomain domain,
                                        CUpti_CallbackId cbid, const void *data)
{
    (void)userdata, (void)domain, (void)cbid;
    const CUpti_CallbackData *cd = data;
    int armed = 1;
    if (!cd || cd->callbackSite != CUPTI_API_EXIT) return;
    if (!atomic_compare_exchange_strong(&g_detach_armed, &armed, 0)) return;
    uint64_t t0 = sst_now_ns();
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    CUptiResult res = cuptiFinalize();
    if (res != CUPTI_SUCCESS) cuptiUnsubscribe(g_detach_sub); /* CUPTI stays, kinds off */
    atomic_store(&g_detach_result, res == CUPTI_SUCCESS ? 1 : -1);
    ssc_cost_add(SST_COST_CUPTI_CONTROL, 1, 1, sst_now_ns() - t0); /* on the program's thread */
}

static int g_detach_off;   /* STEPSCOPE_CUPTI_DETACH=0, read at start */
static int g_detach_tried; /* armed once (a failure is not retried), under g_ctl */

static void enable_locked(int on);
static void count_global_drops(void);

/* The writer, window over: kinds are off; everything so far is flushed, then the detach
 * subscription is armed. Another subscriber (a tool that took CUPTI without the shim
 * saying so) leaves CUPTI attached with the kinds off, as before detaching existed. */
static void detach_arm_locked(void)
{
    g_detach_tried = 1;
    probe_end_locked();
    enable_locked(0);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    count_global_drops();
    if (cuptiSubscribe(&g_detach_sub, on_detach_callback, NULL) != CUPTI_SUCCESS) return;
    atomic_store(&g_detach_result, 0);
    atomic_store(&g_detach_armed, 1); /* before any callback can run */
    g_state = CS_DETACHING;
    if (cuptiEnableDomain(1, g_detach_sub, CUPTI_CB_DOMAIN_RUNTIME_API) != CUPTI_SUCCESS ||
        cuptiEnableDomain(1, g_detach_sub, CUPTI_CB_DOMAIN_DRIVER_API) != CUPTI_SUCCESS) {
        int armed = 1;
        if (atomic_compare_exchange_strong(&g_detach_armed, &armed, 0)) {
            cuptiUnsubscribe(g_detach_sub);
            g_state = CS_RUNNING;
        }
    }
}

/* The callback has finished: record the outcome once. */
static void detach_finish_locked(void)
{
    int r = atomic_load(&g_detach_result);
    if (r == 0) return;
    write_env("cupti.detached", r == 1 ? "1" : "failed");
    g_state = r == 1 ? CS_DETACHED : CS_RUNNING; /* failed: attached, kinds off */
}

/* Stop or torch.profiler's start mark while armed: take the subscription back if no API
 * exit has claimed it (CS_RUNNING again, to be armed again once CUPTI is ours), else wait for
 * the finalise under way (bounded: a second) and leave CUPTI alone. */
static void detach_settle_locked(void)
{
    int armed = 1;
    if (atomic_compare_exchange_strong(&g_detach_armed, &armed, 0)) {
        cuptiUnsubscribe(g_detach_sub);
        g_state = CS_RUNNING;
        g_detach_tried = 0; /* not tried after all */
        return;
    }
    for (int i = 0; i < 1000 && atomic_load(&g_detach_result) == 0; i++)
        usleep(1000);
    detach_finish_locked();
    if (g_state == CS_DETACHING) g_state = CS_DETACHED; /* still finalising: hands off */
}

/* ---- activity kinds -------------------------------------------------------------- */

/* Full mode records kernels, memsets, copies and API calls. Light mode keeps what finds
 * host-side bottlenecks at the least cost: API calls (launches, syncs, copies, allocations, with
 * their host durations) and copies (bytes, pageable or pinned).
 * SYNCHRONIZATION, MEMORY2 and OVERHEAD records are opt-in (STEPSCOPE_CUPTI_EXTRA): they cost
 * host-bound programs as much as the kernel records or more (SYNCHRONIZATION most: measured
 * kind by kind inside one process, docs/performance.md, "Recording cost"), while the analysis
 * reads none of them: API records carry the host side of every sync and allocation. */
static const CUpti_ActivityKind k_full_only[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                                 CUPTI_ACTIVITY_KIND_MEMSET};
static const CUpti_ActivityKind k_extra[] = {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
                                             CUPTI_ACTIVITY_KIND_MEMORY2,
                                             CUPTI_ACTIVITY_KIND_OVERHEAD};
static const CUpti_ActivityKind k_both[] = {CUPTI_ACTIVITY_KIND_MEMCPY,
                                            CUPTI_ACTIVITY_KIND_MEMCPY2};

/* STEPSCOPE_CUPTI_OFF=kind,kind,... leaves activity kinds off, for the overhead benchmark
 * (bench/overhead) to find what each kind costs; names: kernel, overhead, memcpy, memset,
 * sync, memory, runtime, driver, graph. Read once, at start, before any kind is enabled. */
static const struct {
    const char *name;
    CUpti_ActivityKind kind;
} k_kind_names[] = {
    {"kernel", CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL},
    {"overhead", CUPTI_ACTIVITY_KIND_OVERHEAD},
    {"memcpy", CUPTI_ACTIVITY_KIND_MEMCPY},
    {"memcpy", CUPTI_ACTIVITY_KIND_MEMCPY2},
    {"memset", CUPTI_ACTIVITY_KIND_MEMSET},
    {"sync", CUPTI_ACTIVITY_KIND_SYNCHRONIZATION},
    {"memory", CUPTI_ACTIVITY_KIND_MEMORY2},
    {"runtime", CUPTI_ACTIVITY_KIND_RUNTIME},
    {"driver", CUPTI_ACTIVITY_KIND_DRIVER},
    {"graph", CUPTI_ACTIVITY_KIND_GRAPH_TRACE},
};
static uint64_t g_kinds_off;   /* bit (1 << kind) for each kind left off */
static uint64_t g_kinds_extra; /* bit (1 << kind) for each opt-in kind asked for */

/* The kinds a LIST setting names (its words are names of k_kind_names), as bits (1 << kind). */
static uint64_t kinds_named(enum sst_setting_id id)
{
    uint64_t bits = 0, words = ssc_setting(id)->num;
    char name[32];
    for (int w = 0; sst_setting_alt(id, w, name, sizeof name) == 0; w++) {
        if (!(words >> w & 1)) continue;
        for (size_t i = 0; i < sizeof k_kind_names / sizeof k_kind_names[0]; i++)
            if (strcmp(name, k_kind_names[i].name) == 0) bits |= 1ull << k_kind_names[i].kind;
    }
    return bits;
}

/* STEPSCOPE_CUPTI_OFF (kinds left off) and STEPSCOPE_CUPTI_EXTRA=sync,memory,overhead (the
 * opt-in kinds of full mode), read at start; ENV collector.cupti_extra says which. */
static void read_kinds_off(void)
{
    uint64_t extra_ok = 0;
    for (size_t i = 0; i < sizeof k_extra / sizeof k_extra[0]; i++)
        extra_ok |= 1ull << k_extra[i];
    g_kinds_off = kinds_named(SST_SET_CUPTI_OFF);
    g_kinds_extra = kinds_named(SST_SET_CUPTI_EXTRA) & extra_ok;
}

static int kind_off(CUpti_ActivityKind k)
{
    return (unsigned)k < 64 && (g_kinds_off >> k) & 1;
}

static CUptiResult set_kind(CUpti_ActivityKind k, int on)
{
    if (kind_off(k)) return CUPTI_SUCCESS;
    return on ? cuptiActivityEnable(k) : cuptiActivityDisable(k);
}

/* Enables (or disables) the kept calls of one domain one by one. Returns 0 when this CUPTI
 * has no per-call control (the first call says so); single unknown cbids are ignored. */
static int set_api_calls(CUptiResult (*fn)(CUpti_CallbackId, uint8_t), const uint32_t *ids,
                         size_t n, int on)
{
    for (size_t i = 0; i < n; i++) {
        CUptiResult res = fn(ids[i], (uint8_t)on);
        if (i == 0 && (res == CUPTI_ERROR_NOT_SUPPORTED || res == CUPTI_ERROR_NOT_COMPATIBLE))
            return 0;
    }
    return 1;
}

/* API records: only the keep-list, call by call, when enabled while CUDA starts (inside
 * InitializeInjection). Enabled later — a capture window opening mid-run, CUPTI taken back
 * after torch.profiler — per-call settings record nothing (CUDA 13's CUPTI:
 * bench/gpu/cupti_api_window.cu, docs/performance.md, "Figures behind the collector's
 * choices"), so then, or if this CUPTI lacks per-call control, whole domains are enabled and
 * ssc_cupti_convert filters (more overhead, same trace). */
static void set_api_per_call(int on)
{
    const uint32_t *ids;
    size_t n;
    g_api_per_call_on = on;
    if (g_api_per_call && !kind_off(CUPTI_ACTIVITY_KIND_RUNTIME)) {
        n = ssc_cupti_runtime_keep_list(&ids);
        g_api_per_call = set_api_calls(cuptiActivityEnableRuntimeApi, ids, n, on);
    }
    if (g_api_per_call && !kind_off(CUPTI_ACTIVITY_KIND_DRIVER)) {
        n = ssc_cupti_driver_keep_list(&ids);
        g_api_per_call = set_api_calls(cuptiActivityEnableDriverApi, ids, n, on);
    }
}

static void set_api_whole(int on)
{
    set_kind(CUPTI_ACTIVITY_KIND_RUNTIME, on);
    set_kind(CUPTI_ACTIVITY_KIND_DRIVER, on);
    g_api_whole_on = on;
}

/* Whether this switch-on records API calls through callbacks: always under callbacks; under
 * auto where activity records would need whole domains (CUDA has started, or this CUPTI has
 * no per-call control). */
static int api_by_callbacks(void)
{
    if (g_api_method == SSC_API_CALLBACKS) return 1;
    return g_api_method == SSC_API_AUTO && (g_cuda_started || !g_api_per_call);
}

static void set_api(int on)
{
    if (!on) {
        api_callbacks_off();
        if (g_api_per_call_on) set_api_per_call(0);
        if (g_api_whole_on) set_api_whole(0);
        return;
    }
    if (api_by_callbacks() && api_callbacks_on()) return;
    if (g_api_per_call && !g_cuda_started) set_api_per_call(1);
    if (!g_api_per_call || g_cuda_started) set_api_whole(1);
}

/* STEPSCOPE_GRAPHS=graph: CUPTI's graph-level records (one per graph launch), in both modes.
 * Whether CUPTI then still sends the nodes' kernel records is not documented
 * (bench/gpu/graph_trace.cu measures it); whatever it sends is kept. A CUPTI that refuses the
 * kind (too old, or not together with CONCURRENT_KERNEL) leaves node records only, said once. */
static int g_graph_level;    /* read at start */
static int g_graph_trace_on; /* under g_ctl */

static void set_graph_trace(int on)
{
    if (!g_graph_level || kind_off(CUPTI_ACTIVITY_KIND_GRAPH_TRACE)) return;
    if (!on) {
        if (g_graph_trace_on) cuptiActivityDisable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
        g_graph_trace_on = 0;
        return;
    }
    CUptiResult res = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
    g_graph_trace_on = res == CUPTI_SUCCESS;
    if (g_graph_trace_on) return;
    char msg[256];
    snprintf(msg, sizeof msg,
             "STEPSCOPE_GRAPHS=graph: CUPTI refused graph-level tracing (%s): CUDA graphs are "
             "recorded node by node",
             cupti_err(res));
    ssc_notice(SST_NOTICE_OTHER, SST_NOTE_WARN, msg);
    write_env("cupti.graph_trace", "unavailable");
    g_graph_level = 0;
}

/* Returns the first failure (enabling); disabling is best effort. */
static CUptiResult set_kinds(int on)
{
    CUptiResult first = CUPTI_SUCCESS;
    int full = !ssc_light_mode();
    for (size_t i = 0; full && i < sizeof(k_full_only) / sizeof(k_full_only[0]); i++) {
        CUptiResult r = set_kind(k_full_only[i], on);
        if (first == CUPTI_SUCCESS) first = r;
    }
    for (size_t i = 0; full && i < sizeof(k_extra) / sizeof(k_extra[0]); i++)
        if ((g_kinds_extra >> k_extra[i]) & 1) set_kind(k_extra[i], on); /* best effort */
    for (size_t i = 0; i < sizeof(k_both) / sizeof(k_both[0]); i++) {
        CUptiResult r = set_kind(k_both[i], on);
        if (first == CUPTI_SUCCESS) first = r;
    }
    set_graph_trace(on);
    set_api(on);
    return first;
}

/* ---- start ------------------------------------------------------------------------- */

static void write_env(const char *key, const char *val);

static int start_conflict(void)
{
    /* an ENV key too: the report keeps ENV records, and must say "left to another tool"
     * rather than "GPU idle" (as for collector.foreign_cuda_injection) */
    write_env("cupti.conflict", "1");
    ssc_notice(SST_NOTICE_CUPTI_CONFLICT, SST_NOTE_WARN,
               "another CUPTI client (Nsight Systems, Nsight Compute, a debugger or a "
               "profiler) holds CUPTI: GPU activity is not recorded; NVTX and host data "
               "still are");
    write_capture(0, SST_CAP_CONFLICT);
    return SS_EACCES;
}

/* Whether another client (nsys, Nsight Compute, a debugger) owns CUPTI: only the subscribe
 * call tells, so we subscribe and let go at once (a held subscription would lock Kineto
 * out). 0: alone; else an ss_error after saying why. */
static int check_alone(void)
{
    CUpti_SubscriberHandle sub;
    CUptiResult res = cuptiSubscribe(&sub, on_callback, NULL);
    if (res == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) return start_conflict();
    if (res != CUPTI_SUCCESS) {
        say_unavailable("cuptiSubscribe", res);
        return SS_EIO;
    }
    cuptiUnsubscribe(sub);
    return 0;
}

/* Our global CUPTI state: the clock (before any kind is enabled, as CUPTI requires, so GPU
 * and host events share CLOCK_MONOTONIC), kernel tids as in NVTX records, our buffer
 * callbacks, device and context records. Repeated after torch.profiler, which may have
 * registered its own callbacks and clock or finalised CUPTI (then this re-initialises it).
 * Returns CUPTI_SUCCESS or the first failure, naming the step in *step. */
static CUptiResult register_ours(const char **step)
{
    *step = "cuptiActivityRegisterTimestampCallback";
    CUptiResult res = cuptiActivityRegisterTimestampCallback(timestamp_cb);
    if (res == CUPTI_SUCCESS) {
        *step = "cuptiSetThreadIdType";
        res = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    }
    if (res == CUPTI_SUCCESS) {
        *step = "cuptiActivityRegisterCallbacks";
        res = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    }
    if (res != CUPTI_SUCCESS) return res;
    /* Device and context records come once per GPU/context: on whenever CUPTI is ours. */
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DEVICE);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONTEXT);
    return CUPTI_SUCCESS;
}

/* Until we know we are alone we must not change global CUPTI state such as its clock. */
/* One ENV record key=value from this file (the core writes the rest of the environment). */
static void write_env(const char *key, const char *val)
{
    ssc_env_record(key, val, strlen(val));
}

/* The CUPTI API version: the cbids in API records are that version's numbering. */
static void write_cupti_version(void)
{
    uint32_t version = 0;
    char val[16];
    if (cuptiGetVersion(&version) != CUPTI_SUCCESS) return;
    snprintf(val, sizeof val, "%u", version);
    write_env("cupti.version", val);
}

/* STEPSCOPE_API=activity|callbacks|auto. The default, callbacks, costs no more than API
 * activity records (docs/performance.md, "Recording cost": kind by kind inside one process, and
 * plain against recorded), and only callbacks let a CUDA call's Python line be read on its own
 * thread as it returns (ssc_pynative.c). */
static enum ssc_api_method read_api_method(void)
{
    char word[32];
    sst_setting_format(SST_SET_API, ssc_setting(SST_SET_API), word, sizeof word);
    for (int m = 0; m <= SSC_API_AUTO; m++)
        if (strcmp(word, k_api_method_names[m]) == 0) return (enum ssc_api_method)m;
    return SSC_API_CALLBACKS; /* not reached: the table's words are these */
}

/* The session's settings (read at the collector's start: ssc_config.c), once per process,
 * before any kind is enabled (also when CUDA starts inside torch.profiler and CUPTI is set up
 * only at the take-back); their ENV records (api, graphs, cupti_extra) say CUDA started. */
static void read_config(void)
{
    char graphs[16];
    read_kinds_off();
    g_detach_off = !ssc_setting(SST_SET_CUPTI_DETACH)->num;
    if (g_detach_off) write_env("cupti.detached", "off"); /* the steps after a window pay too */
    g_api_method = read_api_method();
    sst_setting_format(SST_SET_GRAPHS, ssc_setting(SST_SET_GRAPHS), graphs, sizeof graphs);
    g_graph_level = strcmp(graphs, "graph") == 0;
    ssc_config_env(SST_S_ENV_CUDA, write_env);
    pthread_atfork(NULL, NULL, api_after_fork_child);
}

static int start_locked(void)
{
    int rc = check_alone();
    if (rc != 0) return rc;
    const char *step;
    CUptiResult res = register_ours(&step);
    if (res != CUPTI_SUCCESS) {
        say_unavailable(step, res);
        return SS_EIO;
    }
    write_cupti_version();
    write_capture(1, SST_CAP_START); /* GPU activity joins the core's NVTX/host capture */
    return 0;
}

/* Window edges are recorded by the core (CAPTURE reason WINDOW/START/EXIT); only what
 * concerns CUPTI alone (conflict, takeover, errors) is recorded here. */
static void enable_locked(int on)
{
    if (on == g_enabled) return;
    CUptiResult res = set_kinds(on);
    if (on && res != CUPTI_SUCCESS) {
        say_unavailable("cuptiActivityEnable", res);
        set_kinds(0);
        write_capture(0, SST_CAP_ERROR);
        return;
    }
    g_enabled = on;
}

int ssc_cupti_start(void)
{
    pthread_mutex_lock(&g_ctl);
    int rc = 0;
    if (g_state == CS_OFF) read_config();
    if (g_state == CS_OFF && g_profiler_on) {
        /* CUDA starts inside torch.profiler's prepare: CUPTI is Kineto's until its stop
         * mark, and its subscription would look like a conflict. Everything waits. */
        atomic_store(&g_pid, getpid());
        g_api_per_call = 1;
        g_state = CS_PAUSED;
        write_capture(0, SST_CAP_TAKEN_OVER);
        ssc_notice(SST_NOTICE_CUPTI_TAKEN_OVER, SST_NOTE_WARN, SSC_PROFILER_MSG);
    } else if (g_state == CS_OFF) {
        atomic_store(&g_pid, getpid());
        g_api_per_call = 1;
        rc = start_locked();
        g_state = rc == 0 ? CS_RUNNING : CS_FAILED;
        if (rc == 0) {
            ssc_watch_init(&g_watch, sst_now_ns(), SSC_WATCH_QUIET_NS, SSC_WATCH_PROBE_NS);
            if (ssc_capturing()) enable_locked(1);
        }
    } else if (g_state == CS_FAILED || g_state == CS_STOPPED) {
        rc = SS_EIO;
    }
    g_cuda_started = 1;
    pthread_mutex_unlock(&g_ctl);
    return rc;
}

/* A window after a detach (every:, auto's re-windows): CUPTI comes back as in CUPTI's sample
 * cupti_finalize (any CUPTI call initialises it again): our clock, buffer callbacks and
 * DEVICE/CONTEXT records, then the kinds and callbacks as at any window's opening, and the
 * next window's end detaches again. Only once the finalise is done, and not while
 * torch.profiler has CUPTI. Refused: said once, and no window records GPU activity from here
 * (CS_FAILED; NVTX, steps and host samples go on). */
static void reattach_locked(void)
{
    static unsigned attaches;
    const char *step;
    char n[16];
    if (g_profiler_on || atomic_load(&g_detach_result) != 1) return;
    CUptiResult res = register_ours(&step);
    if (res != CUPTI_SUCCESS) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "could not attach CUPTI again for the next capture window (%s: %s): GPU "
                 "activity is no longer recorded; NVTX and host data still are",
                 step, cupti_err(res));
        /* not CUPTI_UNAVAILABLE: the first window was recorded, which record must not deny
         * (its exit 3); CS_FAILED makes this the only time, said here rather than once per
         * code */
        ssc_notice(SST_NOTICE_OTHER, SST_NOTE_INFO, msg);
        if (!ssc_setting(SST_SET_QUIET)->num) ssc_say(msg);
        write_env("cupti.reattached", "failed");
        write_capture(0, SST_CAP_ERROR);
        g_state = CS_FAILED;
        return;
    }
    g_state = CS_RUNNING;
    g_enabled = 0;
    g_detach_tried = 0; /* this window's end detaches again */
    snprintf(n, sizeof n, "%u", ++attaches);
    write_env("cupti.reattached", n);
    ssc_watch_init(&g_watch, sst_now_ns(), SSC_WATCH_QUIET_NS, SSC_WATCH_PROBE_NS);
}

void ssc_cupti_set_enabled(int on)
{
    if (!in_starting_process()) return;
    uint64_t t0 = sst_now_ns();
    pthread_mutex_lock(&g_ctl);
    if (on && g_state == CS_DETACHING) detach_settle_locked(); /* armed: taken back */
    if (on && g_state == CS_DETACHED) reattach_locked();
    if (g_state == CS_RUNNING) enable_locked(on != 0);
    pthread_mutex_unlock(&g_ctl);
    ssc_cost_add(SST_COST_CUPTI_CONTROL, 1, 1, sst_now_ns() - t0);
}

/* Only callbacks can be switched call by call mid-run: per-call activity records enabled
 * mid-run record nothing, whole domains would record every launch anyway. */
static int api_by_activity_locked(void)
{
    return g_api_per_call_on || g_api_whole_on;
}

int ssc_cupti_launch_sample(int on)
{
    if (!in_starting_process()) return 1;
    if (pthread_mutex_trylock(&g_ctl) != 0) return 0; /* a flush: the next step tries again */
    uint64_t t0 = sst_now_ns();
    int rc = 1;
    if (g_state == CS_RUNNING && api_by_activity_locked()) {
        rc = -1; /* and every launch recorded from here, callbacks too (the core gives up) */
        on = 1;
    }
    if (g_launches_on != on) {
        g_launches_on = on;
        if (g_state == CS_RUNNING && g_api_subscribed && atomic_load(&g_api_gen))
            enable_launch_callbacks(on);
    }
    pthread_mutex_unlock(&g_ctl);
    ssc_cost_add(SST_COST_CUPTI_CONTROL, 1, 1, sst_now_ns() - t0);
    return rc;
}

/* ---- flush and the takeover watch ------------------------------------------------- */

/* From here on CUPTI is not ours: we neither flush (that would push another client's
 * buffers around) nor disable anything (that would cut its trace short). */
static void lost_locked(uint16_t notice, uint8_t reason, const char *why)
{
    probe_end_locked();
    api_callbacks_off(); /* API records stop with the rest; the subscription is Kineto's */
    g_state = CS_TAKEN;
    ssc_notice(notice, SST_NOTE_WARN, why);
    write_capture(0, reason);
}

#define SSC_TAKEN_MSG                                                                              \
    "another CUPTI client (torch.profiler?) took over CUPTI's activity buffers: GPU activity "     \
    "is no longer recorded from here on"

/* A probe's subscription fails when another client subscribed meanwhile (Kineto does
 * before taking the buffers): that is the takeover itself. Other failures only skip the
 * probe (it then counts no launch and the watch backs off). */
static void probe_on_locked(void)
{
    if (probe_begin_locked() == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
        lost_locked(SST_NOTICE_CUPTI_TAKEN_OVER, SST_CAP_TAKEN_OVER, SSC_TAKEN_MSG);
}

static void watch_locked(void)
{
    if (g_shim_seen) return; /* the shim says when torch.profiler runs: no guessing */
    /* Light mode with API calls through our callbacks: a launch leaves nothing in CUPTI's
     * buffers (no kernel kind, no API activity record), so silent buffers prove nothing.
     * And while we hold the subscription Kineto cannot subscribe to take them over. */
    if (g_api_subscribed && ssc_light_mode()) return;
    uint64_t launches = atomic_load_explicit(&g_launches, memory_order_relaxed);
    enum ssc_watch_action act =
        ssc_watch_tick(&g_watch, sst_now_ns(), g_enabled, atomic_load(&g_deliveries), launches);
    if (act == SSC_WATCH_CONFIRM) {
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        act = ssc_watch_confirm(&g_watch, sst_now_ns(), atomic_load(&g_deliveries), launches);
    }
    if (act == SSC_WATCH_PROBE_ON) probe_on_locked();
    if (act == SSC_WATCH_PROBE_OFF) probe_end_locked();
    if (act == SSC_WATCH_TAKEN_OVER)
        lost_locked(SST_NOTICE_CUPTI_TAKEN_OVER, SST_CAP_TAKEN_OVER, SSC_TAKEN_MSG);
}

/* Records dropped from CUPTI's global queue (those of no stream); per-stream drops are
 * read in buffer_completed. */
static void count_global_drops(void)
{
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped) == CUPTI_SUCCESS && dropped)
        ssc_count_dropped(SST_DROP_CUPTI, 0, dropped);
}

/* The core calls ssc_cupti_flush every writer round (100 ms); CUPTI's flush takes locks
 * that launching threads also take, so plain flushes run at most every 250 ms. Full
 * buffers are delivered by CUPTI without waiting for us. */
#define SSC_FLUSH_MIN_NS 250000000ull

void ssc_cupti_flush(int force)
{
    static uint64_t last_ns;
    if (!in_starting_process()) return;
    pthread_mutex_lock(&g_ctl);
    uint64_t now = sst_now_ns();
    if (!force && now - last_ns < SSC_FLUSH_MIN_NS) {
        pthread_mutex_unlock(&g_ctl);
        return;
    }
    last_ns = now;
    if (g_state == CS_DETACHING) detach_finish_locked(); /* no CUPTI call may race it */
    if (g_state == CS_RUNNING && ssc_window_over() && !g_detach_off && !g_detach_tried) {
        detach_arm_locked();
    } else if (g_state == CS_RUNNING) {
        CUptiResult res = cuptiActivityFlushAll(force ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
        count_global_drops();
        if (res == CUPTI_ERROR_NOT_INITIALIZED) {
            /* Someone called cuptiFinalize (Kineto does with TEARDOWN_CUPTI=1; CUPTI itself
             * after a fatal error). Our subscription died with it. */
            g_api_subscribed = 0;
            lost_locked(SST_NOTICE_CUPTI_TAKEN_OVER, SST_CAP_TAKEN_OVER,
                        "CUPTI was shut down (by torch.profiler or after a CUPTI error): GPU "
                        "activity is no longer recorded from here on");
        } else {
            watch_locked();
        }
    }
    pthread_mutex_unlock(&g_ctl);
}

/* ---- torch.profiler, announced by the Python shim ------------------------------------ */

/* Right before Kineto prepares: everything so far becomes ours (kinds off first, so the
 * forced flush is the last word), then CUPTI is left alone. No probe may stay subscribed:
 * Kineto's own cuptiSubscribe comes next. */
static void hand_over_locked(void)
{
    probe_end_locked();
    if (g_enabled) set_kinds(0);
    g_enabled = 0;
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DEVICE);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONTEXT);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    count_global_drops();
    g_state = CS_PAUSED;
    write_capture(0, SST_CAP_TAKEN_OVER);
    ssc_notice(SST_NOTICE_CUPTI_TAKEN_OVER, SST_NOTE_WARN, SSC_PROFILER_MSG);
}

/* Right after the profiler stopped: Kineto disabled its kinds and flushed its buffers, and
 * may have registered its own callbacks and clock or finalised CUPTI. Ours go back in; any
 * failure leaves CUPTI alone for good (said once). No subscribe check here: Kineto may keep
 * a subscription after its stop, which says nothing about nsys. */
static void take_back_locked(void)
{
    const char *step;
    CUptiResult res = register_ours(&step);
    if (res != CUPTI_SUCCESS) {
        char msg[256];
        snprintf(msg, sizeof(msg),
                 "could not take CUPTI back after torch.profiler stopped (%s: %s): GPU "
                 "activity is no longer recorded from here on",
                 step, cupti_err(res));
        ssc_notice(SST_NOTICE_CUPTI_UNAVAILABLE, SST_NOTE_WARN, msg);
        write_capture(0, SST_CAP_ERROR);
        g_state = CS_TAKEN;
        return;
    }
    g_state = CS_RUNNING;
    write_capture(1, SST_CAP_TAKEN_OVER);
    ssc_watch_init(&g_watch, sst_now_ns(), SSC_WATCH_QUIET_NS, SSC_WATCH_PROBE_NS);
    if (ssc_capturing()) enable_locked(1);
}

void ssc_cupti_profiler_mark(int started)
{
    pid_t pid = atomic_load(&g_pid);
    if (pid != 0 && pid != getpid()) return; /* a fork()ed child: CUPTI is not there */
    uint64_t t0 = sst_now_ns();
    pthread_mutex_lock(&g_ctl);
    g_shim_seen = 1;
    /* Kineto is one per process: a second start while one runs changes nothing, and any
     * stop ends its session, so marks are not counted. */
    g_profiler_on = started;
    if (started && g_state == CS_DETACHING) detach_settle_locked(); /* Kineto subscribes next */
    if (started && g_state == CS_RUNNING) hand_over_locked();
    if (!started && g_state == CS_PAUSED) take_back_locked();
    pthread_mutex_unlock(&g_ctl);
    ssc_cost_add(SST_COST_CUPTI_CONTROL, 1, 1, sst_now_ns() - t0);
}

/* ---- stop ------------------------------------------------------------------------- */

/* Counts of what conversion did, as ENV records, for `stepscope info` and for checking the
 * filter's cost: "cupti.records", "cupti.filtered", "cupti.unknown", "cupti.untimed". */
static void write_stats(void)
{
    static const char *const keys[] = {"cupti.records", "cupti.filtered", "cupti.unknown",
                                       "cupti.untimed", "cupti.dropped"};
    for (int i = 0; i <= SSC_CONV_DROPPED; i++) {
        char val[24];
        snprintf(val, sizeof(val), "%llu", (unsigned long long)atomic_load(&g_stat[i]));
        write_env(keys[i], val);
    }
}

static void free_pool(void)
{
    pthread_mutex_lock(&g_pool.lock);
    for (int i = 0; i < g_pool.nfree; i++)
        free(g_pool.free[i]);
    g_pool.allocated -= g_pool.nfree;
    g_pool.nfree = 0;
    pthread_mutex_unlock(&g_pool.lock);
}

void ssc_cupti_stop(void)
{
    if (!in_starting_process()) return;
    pthread_mutex_lock(&g_ctl);
    if (g_state == CS_DETACHING) detach_settle_locked();
    if (g_state == CS_RUNNING || g_state == CS_TAKEN || g_state == CS_PAUSED ||
        g_state == CS_DETACHED) {
        if (g_state == CS_DETACHED) free_pool(); /* CUPTI is gone: not one call more */
        if (g_state == CS_RUNNING) {
            /* Kinds first, so the forced flush is the last word. */
            probe_end_locked();
            if (g_enabled) set_kinds(0);
            cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
            count_global_drops();
            g_enabled = 0;
            free_pool();
        }
        /* PAUSED/TAKEN: CUPTI is another client's; touching it would cut its trace. */
        write_stats();
        g_state = CS_STOPPED;
    }
    pthread_mutex_unlock(&g_ctl);
}
