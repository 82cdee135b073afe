/*
 * fake_cupti.c — a stand-in libcupti.so.13 for testing the collector's CUPTI session on a
 * machine without a GPU (tests/collect/cupti.cmake, case profiler_*). It implements only what
 * libstepscope.so calls, plus cuptiFinalize, and keeps CUPTI's one-subscriber rule. Every call
 * is appended to $FAKE_CUPTI_LOG as one line ("subscribe ok", "register_callbacks 0x...",
 * "flush forced", ...) so a test can check the order of what the collector did.
 * FAKE_CUPTI_CONFLICT=1: cuptiSubscribe always fails as under nsys; FAKE_CUPTI_FINALIZE_FAIL:
 * cuptiFinalize fails; FAKE_CUPTI_REATTACH_FAIL: after a cuptiFinalize, registering buffer
 * callbacks fails (CUPTI refuses to come back for a later window); FAKE_CUPTI_SWALLOW: flushes
 * hand no buffer back (as when another client took the activity callbacks over); FAKE_CUPTI_PIN=N: every flush closes a buffer whose
 * records are not complete yet (kernels still queued behind a GPU-bound step), so CUPTI keeps
 * it and asks for another; the oldest is handed back once N are held, all of them at a forced
 * flush, and a request that gets no buffer is a dropped record (cuptiActivityGetNumDropped-
 * Records), as on the H200 when the host ran 1.6 s ahead. fake_cupti_api_call plays
 * one CUDA API call: the subscriber's callback (if its domain is enabled) at entry and exit.
 * fake_cupti_call plays any call, CUPTI's way: the callback at entry and exit when that call's
 * callback (cuptiEnableCallback) or its whole domain is enabled, with a fresh correlation id,
 * the return value and, for a runtime call, a driver call inside it if asked; it is not logged
 * (tests and benchmarks call it many times from several threads), and, like CUPTI, it holds
 * no lock while the callback runs, so a test can race callbacks against unsubscribing.
 */
#include <cupti.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define API __attribute__((visibility("default")))
#define FAKE_MAX_CBID 1024 /* above every runtime and driver cbid of CUPTI 13 */

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_subscribed;
static _Atomic(CUpti_CallbackFunc) g_cb; /* the subscriber's */
static _Atomic(void *) g_cb_ud;
/* enabled callbacks, [0] runtime, [1] driver: whole domains, and call by call */
static _Atomic int g_domain_on[2];
static _Atomic unsigned char g_cbid_on[2][FAKE_MAX_CBID];
static _Atomic uint32_t g_correlation;
static CUpti_BuffersCallbackRequestFunc g_req;
static CUpti_BuffersCallbackCompleteFunc g_cmp;

/* 0 runtime, 1 driver, -1 a domain the fake does not play. */
static int domain_index(CUpti_CallbackDomain d)
{
    return d == CUPTI_CB_DOMAIN_RUNTIME_API ? 0 : d == CUPTI_CB_DOMAIN_DRIVER_API ? 1 : -1;
}

/* A new or dropped subscription: nothing enabled (CUPTI ties enables to the subscriber). */
static void callbacks_reset(void)
{
    for (int d = 0; d < 2; d++) {
        atomic_store(&g_domain_on[d], 0);
        for (int i = 0; i < FAKE_MAX_CBID; i++)
            atomic_store_explicit(&g_cbid_on[d][i], 0, memory_order_relaxed);
    }
}

static void logf_(const char *fmt, ...)
{
    const char *path = getenv("FAKE_CUPTI_LOG");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fclose(f);
}

API CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *s, CUpti_CallbackFunc cb, void *ud)
{
    pthread_mutex_lock(&g_mu);
    int busy =
        g_subscribed || (getenv("FAKE_CUPTI_CONFLICT") && *getenv("FAKE_CUPTI_CONFLICT") == '1');
    if (!busy) {
        g_subscribed = 1;
        callbacks_reset();
        atomic_store(&g_cb_ud, ud);
        atomic_store(&g_cb, cb);
    }
    pthread_mutex_unlock(&g_mu);
    logf_("subscribe %s", busy ? "busy" : "ok");
    if (busy) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    *s = (CUpti_SubscriberHandle)(void *)&g_subscribed;
    return CUPTI_SUCCESS;
}

API CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle s)
{
    (void)s;
    pthread_mutex_lock(&g_mu);
    g_subscribed = 0;
    atomic_store(&g_cb, NULL);
    callbacks_reset();
    pthread_mutex_unlock(&g_mu);
    logf_("unsubscribe");
    return CUPTI_SUCCESS;
}

API CUptiResult cuptiEnableCallback(uint32_t on, CUpti_SubscriberHandle s, CUpti_CallbackDomain d,
                                    CUpti_CallbackId id)
{
    (void)s;
    int di = domain_index(d);
    if (di >= 0 && id < FAKE_MAX_CBID) atomic_store(&g_cbid_on[di][id], on ? 1 : 0);
    logf_("enable_callback %d %u %u", (int)d, (unsigned)id, on);
    return CUPTI_SUCCESS;
}

API CUptiResult cuptiEnableDomain(uint32_t on, CUpti_SubscriberHandle s, CUpti_CallbackDomain d)
{
    (void)s;
    int di = domain_index(d);
    if (di >= 0) atomic_store(&g_domain_on[di], (int)on);
    logf_("enable_domain %d %u", (int)d, on);
    return CUPTI_SUCCESS;
}

/* The subscriber's callback when call (d, cbid) has it enabled, else NULL. */
static CUpti_CallbackFunc callback_for(CUpti_CallbackDomain d, uint32_t cbid)
{
    int di = domain_index(d);
    if (di < 0) return NULL;
    int on = atomic_load(&g_domain_on[di]) ||
             (cbid < FAKE_MAX_CBID && atomic_load_explicit(&g_cbid_on[di][cbid], memory_order_relaxed));
    return on ? atomic_load(&g_cb) : NULL;
}

static _Atomic unsigned long long g_fired; /* callbacks made (fake_cupti_fired) */

static void fire(CUpti_CallbackDomain d, uint32_t cbid, CUpti_CallbackData *cd,
                 CUpti_ApiCallbackSite site)
{
    CUpti_CallbackFunc cb = callback_for(d, cbid);
    cd->callbackSite = site;
    if (!cb) return;
    atomic_fetch_add_explicit(&g_fired, 1, memory_order_relaxed);
    cb(atomic_load(&g_cb_ud), d, cbid, cd);
}

/* Not CUPTI's: how many callbacks fake_cupti_call has made so far. */
API unsigned long long fake_cupti_fired(void)
{
    return atomic_load(&g_fired);
}

/* Not CUPTI's: one API call of domain d (CUPTI_CB_DOMAIN_RUNTIME_API or _DRIVER_API) made by
 * the calling thread, returning `result`; mid (if any) runs between the entry and the exit
 * callbacks (a test switches recording there); inner_cbid != 0: a driver call with its own
 * correlation id made inside it. Returns the call's correlation id. */
API uint32_t fake_cupti_call_mid(int d, uint32_t cbid, uint32_t inner_cbid, int result,
                                 void (*mid)(void))
{
    uint64_t corr_data = 0;
    CUpti_CallbackData cd;
    memset(&cd, 0, sizeof cd);
    cd.functionName = "fake";
    cd.correlationId = atomic_fetch_add(&g_correlation, 1) + 1;
    cd.correlationData = &corr_data;
    cd.functionReturnValue = &result;
    fire((CUpti_CallbackDomain)d, cbid, &cd, CUPTI_API_ENTER);
    if (inner_cbid) fake_cupti_call_mid(CUPTI_CB_DOMAIN_DRIVER_API, inner_cbid, 0, 0, NULL);
    if (mid) mid();
    fire((CUpti_CallbackDomain)d, cbid, &cd, CUPTI_API_EXIT);
    return cd.correlationId;
}

API uint32_t fake_cupti_call(int d, uint32_t cbid, uint32_t inner_cbid, int result)
{
    return fake_cupti_call_mid(d, cbid, inner_cbid, result, NULL);
}

/* Not CUPTI's: one runtime API call (cudaLaunchKernel) made by the calling thread, with the
 * subscriber's callbacks at its entry and exit when they are enabled. Logged. */
API void fake_cupti_api_call(void)
{
    fake_cupti_call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                    0, 0);
    logf_("api_call");
}

/* Not CUPTI's: a line in the log, for a test to find where the program was. */
API void fake_cupti_note(const char *text)
{
    logf_("note %s", text);
}

static int g_finalized; /* under g_mu: cuptiFinalize ran (FAKE_CUPTI_REATTACH_FAIL) */

API CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
                                               CUpti_BuffersCallbackCompleteFunc cmp)
{
    pthread_mutex_lock(&g_mu);
    if (g_finalized && getenv("FAKE_CUPTI_REATTACH_FAIL")) {
        pthread_mutex_unlock(&g_mu);
        logf_("register_callbacks refused");
        return CUPTI_ERROR_NOT_INITIALIZED;
    }
    g_req = req, g_cmp = cmp;
    pthread_mutex_unlock(&g_mu);
    logf_("register_callbacks %s", getenv("FAKE_CUPTI_KINETO") ? "kineto" : "collector");
    return CUPTI_SUCCESS;
}

API CUptiResult cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc fn)
{
    (void)fn;
    logf_("register_timestamp");
    return CUPTI_SUCCESS;
}

API CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType t)
{
    (void)t;
    return CUPTI_SUCCESS;
}

API CUptiResult cuptiActivityEnable(CUpti_ActivityKind k)
{
    logf_("enable %d", (int)k);
    return CUPTI_SUCCESS;
}

API CUptiResult cuptiActivityDisable(CUpti_ActivityKind k)
{
    logf_("disable %d", (int)k);
    return CUPTI_SUCCESS;
}

API CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId id, uint8_t on)
{
    (void)id, (void)on;
    return CUPTI_SUCCESS;
}

API CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId id, uint8_t on)
{
    (void)id, (void)on;
    return CUPTI_SUCCESS;
}

static uint32_t g_api_tid; /* under g_mu; fake_cupti_api_record */

/* Not CUPTI's: the next forced flush carries one RUNTIME record (a kernel launch) made on
 * thread tid, as CUPTI's records of the program's launching threads do. */
API void fake_cupti_api_record(uint32_t tid)
{
    pthread_mutex_lock(&g_mu);
    g_api_tid = tid;
    pthread_mutex_unlock(&g_mu);
}

/* Writes the pending API record (if any) into buf; returns the bytes it holds. */
static size_t fill_buffer(uint8_t *buf, size_t size)
{
    pthread_mutex_lock(&g_mu);
    uint32_t tid = g_api_tid;
    g_api_tid = 0;
    pthread_mutex_unlock(&g_mu);
    CUpti_ActivityAPI a;
    if (!tid || size < sizeof a) return 0;
    memset(&a, 0, sizeof a);
    a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
    /* on the collector's clock, as the real CUPTI's records are once it registered its
     * timestamp callback: a time before the recording started is impossible (issue #41) */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    a.end = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
    a.start = a.end - 1000;
    a.threadId = tid;
    a.correlationId = 1;
    memcpy(buf, &a, sizeof a);
    return sizeof a;
}

/* FAKE_CUPTI_PIN: the buffers CUPTI holds with records not yet complete (oldest first), and
 * the requests that got none since the last GetNumDroppedRecords. Flushes come from the
 * collector's writer thread only. */
#define FAKE_PIN_MAX 64
static struct {
    uint8_t *buf[FAKE_PIN_MAX];
    size_t size[FAKE_PIN_MAX];
    int n, most;
    size_t dropped;
} g_pin;

static void pin_hand_back(CUpti_BuffersCallbackCompleteFunc cmp, int keep)
{
    while (g_pin.n > keep) {
        cmp(NULL, 0, g_pin.buf[0], g_pin.size[0], 0);
        g_pin.n--;
        memmove(g_pin.buf, g_pin.buf + 1, (size_t)g_pin.n * sizeof g_pin.buf[0]);
        memmove(g_pin.size, g_pin.size + 1, (size_t)g_pin.n * sizeof g_pin.size[0]);
    }
}

static void pin_flush(CUpti_BuffersCallbackRequestFunc req,
                      CUpti_BuffersCallbackCompleteFunc cmp, uint32_t flag, int limit)
{
    uint8_t *buf = NULL;
    size_t size = 0, max = 0;
    req(&buf, &size, &max);
    if (!buf) {
        g_pin.dropped++;
    } else if (g_pin.n < FAKE_PIN_MAX) {
        g_pin.buf[g_pin.n] = buf, g_pin.size[g_pin.n++] = size;
        if (g_pin.n > g_pin.most) logf_("pinned %d", g_pin.most = g_pin.n);
    }
    pin_hand_back(cmp, (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) ? 0 : limit);
}

/* A forced flush hands one buffer through the registered callbacks, as CUPTI does with a
 * partly filled one: empty, or with the record fake_cupti_api_record asked for. */
API CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
    CUpti_BuffersCallbackRequestFunc req;
    CUpti_BuffersCallbackCompleteFunc cmp;
    pthread_mutex_lock(&g_mu);
    req = g_req, cmp = g_cmp;
    pthread_mutex_unlock(&g_mu);
    if (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) logf_("flush forced");
    if (getenv("FAKE_CUPTI_SWALLOW")) return CUPTI_SUCCESS; /* buffers "go to another client" */
    const char *pin = getenv("FAKE_CUPTI_PIN");
    if (pin && req && cmp) {
        pin_flush(req, cmp, flag, atoi(pin));
        return CUPTI_SUCCESS;
    }
    if ((flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) && req && cmp) {
        uint8_t *buf = NULL;
        size_t size = 0, max = 0;
        req(&buf, &size, &max);
        if (buf) cmp(NULL, 0, buf, size, fill_buffer(buf, size));
    }
    return CUPTI_SUCCESS;
}

/* The buffers hold at most one record, at their start. */
API CUptiResult cuptiActivityGetNextRecord(uint8_t *buf, size_t valid, CUpti_Activity **rec)
{
    if (*rec == NULL && valid >= sizeof(CUpti_ActivityAPI)) {
        *rec = (CUpti_Activity *)buf;
        return CUPTI_SUCCESS;
    }
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
}

API CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext c, uint32_t s, size_t *n)
{
    (void)c, (void)s;
    *n = g_pin.dropped; /* the collector asks from its writer thread, as it flushes */
    g_pin.dropped = 0;
    return CUPTI_SUCCESS;
}

API CUptiResult cuptiGetResultString(CUptiResult r, const char **s)
{
    (void)r;
    *s = "fake CUPTI error";
    return CUPTI_SUCCESS;
}

API CUptiResult cuptiGetVersion(uint32_t *version)
{
    *version = CUPTI_API_VERSION;
    return CUPTI_SUCCESS;
}

/* The overhead floor's CUPTI_FLOOR_ATTRS (bench/overhead/cupti_floor.c) links to it. */
API CUptiResult cuptiActivitySetAttribute(CUpti_ActivityAttribute attr, size_t *size, void *value)
{
    (void)attr, (void)size, (void)value;
    return CUPTI_SUCCESS;
}

API CUptiResult cuptiFinalize(void)
{
    if (getenv("FAKE_CUPTI_FINALIZE_FAIL")) {
        logf_("finalize failed");
        return CUPTI_ERROR_UNKNOWN;
    }
    pthread_mutex_lock(&g_mu);
    g_subscribed = 0;
    atomic_store(&g_cb, NULL);
    callbacks_reset();
    g_req = NULL, g_cmp = NULL;
    g_finalized = 1;
    pthread_mutex_unlock(&g_mu);
    logf_("finalize");
    return CUPTI_SUCCESS;
}
