/*
 * cupti_floor.c — the overhead floor: the cheapest CUPTI client that enables what stepscope
 * enables and throws the records away, one CUPTI switch at a time if asked.
 *
 * Injected with CUDA_INJECTION64_PATH=libcupti_floor.so. bench/overhead/run_overhead.py
 * compares stepscope against it: whatever stepscope costs beyond this floor is its own
 * doing (conversion, buffering, writing), the rest is CUPTI's.
 *
 * CUPTI_FLOOR_KINDS=name,name,... picks what is switched on (default: `full`, the kinds of
 * stepscope's full mode with whole API domains, as before the selector existed):
 *
 *   kernel      CONCURRENT_KERNEL           memcpy     MEMCPY + MEMCPY2
 *   memset      MEMSET                      sync       SYNCHRONIZATION
 *   memory      MEMORY2                     overhead   OVERHEAD
 *   graph       GRAPH_TRACE                 runtime    RUNTIME (whole domain)
 *   driver      DRIVER (whole domain)
 *   runtime-keep, driver-keep   per-call API records of the collector's keep-lists
 *                               (cuptiActivityEnableRuntimeApi/DriverApi), as stepscope does
 *                               when capturing from the start in STEPSCOPE_API=activity
 *   callbacks   subscribe and enable the keep-list callbacks of both domains; the callback
 *               returns at once (what CUPTI's dispatch alone costs)
 *   callbacks-ts  the same, and the callback reads the clock at entry and exit and keeps the
 *               pair per thread (what recording an API call with our own timestamps costs,
 *               less building the record)
 *   callbacks-all  every callback of both domains (cuptiEnableDomain), returning at once
 *   none        CUPTI initialised (buffer callbacks registered), nothing enabled
 *   full        kernel,memcpy,memset,sync,runtime,driver,memory,overhead
 *
 * CUPTI_FLOOR_ALTERNATE=1 (with a callbacks* name): an in-process A/B. The callbacks start
 * off; cudaDeviceSynchronize exits are watched, and at the 1st, 3rd, 5th, ... one (the
 * synchronize before each of bench/overhead/models.py's timed windows) the callbacks are
 * switched on for odd windows 2, 4, 6, ... and off for 1, 3, 5, ...: compare a run's even
 * windows against its odd ones. At exit the floor prints the synchronize count
 * (2 x windows when the parity held).
 *
 * CUPTI_FLOOR_ATTRS=name[=value],... sets CUPTI's activity attributes before anything is enabled
 * (they take only before CUDA starts), to see whether any of them makes kernel tracing cheaper:
 *
 *   zeroed      ZEROED_OUT_ACTIVITY_BUFFER=1, and buffers come zeroed (calloc) from here, so
 *               CUPTI does not zero them on the launching thread
 *   pinned      MEM_ALLOCATION_TYPE_HOST_PINNED=1 (the device-side record buffers in pinned
 *               host memory)
 *   devbuf=MiB  DEVICE_BUFFER_SIZE (default 3 MiB in CUDA 13's header)
 *   prealloc=N  DEVICE_BUFFER_PRE_ALLOCATE_VALUE (default 3)
 *   nothread    PER_THREAD_ACTIVITY_BUFFER=0 (one buffer for all threads; default per thread)
 *
 * CUPTI_FLOOR_VERBOSE=1 prints the records and callbacks seen at exit, one line each
 * ("cupti_floor: N records", "cupti_floor: N timed callbacks"); the client always says which
 * kinds it was asked for ("cupti_floor: kinds LIST"): run_overhead.py checks both lines.
 *
 * Stairs (an in-process split of CUPTI's cost, kind by kind): cupti_floor_stair(LIST), exported,
 * switches on more kinds mid-run (activity kinds and callbacks; per-call API records take only
 * at start). The framework harness calls it (BENCH_STAIRS, bench/workloads/frameworks/
 * harness.py) at step boundaries, after a synchronize, and times each stair: what each kind
 * adds is the difference between consecutive stairs of one process, free of the 10-40 %
 * process-to-process noise of host-bound programs. Kinds are only ever added: switching a
 * kind off leaves most of its cost in place (docs/performance.md).
 */
#include <cupti.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collect/ssc_cupti.h"

#define FLOOR_BUF_BYTES (8u << 20)
#define EXPORT __attribute__((visibility("default")))

enum floor_cb { CB_NONE = 0, CB_KEEP = 1, CB_KEEP_TS = 2, CB_ALL = 3 };

static unsigned long long floor_records;
static _Atomic unsigned long long floor_callbacks, floor_syncs;
static CUpti_SubscriberHandle floor_sub;
static enum floor_cb floor_cb_mode;
static int floor_alternate;
static _Atomic int floor_cb_on = 1; /* the callbacks' switch under CUPTI_FLOOR_ALTERNATE */
static __thread uint64_t floor_enter_ns, floor_exit_ns;

static int floor_zeroed; /* CUPTI_FLOOR_ATTRS=zeroed: we hand out zeroed buffers */

static void CUPTIAPI floor_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = floor_zeroed ? calloc(1, FLOOR_BUF_BYTES) : aligned_alloc(8, FLOOR_BUF_BYTES);
    *size = *buffer ? FLOOR_BUF_BYTES : 0;
    *max_records = 0;
}

static void CUPTIAPI floor_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
                                            size_t size, size_t valid)
{
    CUpti_Activity *rec = NULL;
    (void)ctx, (void)stream, (void)size;
    /* Walk the records so the floor pays what any consumer pays to read them. */
    while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) floor_records++;
    free(buffer);
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Whether the list names `name` as a whole item. */
static int named(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
    return 0;
}

/* ---- activity kinds ----------------------------------------------------------------- */

static const struct {
    const char *name;
    CUpti_ActivityKind kind;
} floor_kinds[] = {
    {"kernel", CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL},
    {"memcpy", CUPTI_ACTIVITY_KIND_MEMCPY},
    {"memcpy", CUPTI_ACTIVITY_KIND_MEMCPY2},
    {"memset", CUPTI_ACTIVITY_KIND_MEMSET},
    {"sync", CUPTI_ACTIVITY_KIND_SYNCHRONIZATION},
    {"memory", CUPTI_ACTIVITY_KIND_MEMORY2},
    {"overhead", CUPTI_ACTIVITY_KIND_OVERHEAD},
    {"graph", CUPTI_ACTIVITY_KIND_GRAPH_TRACE},
    {"runtime", CUPTI_ACTIVITY_KIND_RUNTIME},
    {"driver", CUPTI_ACTIVITY_KIND_DRIVER},
};

/* "-name" in a stair's list switches the kind off again (does its cost go with it?). */
static void disable_kinds(const char *list)
{
    char off[32];
    for (size_t i = 0; i < sizeof floor_kinds / sizeof floor_kinds[0]; i++) {
        snprintf(off, sizeof off, "-%s", floor_kinds[i].name);
        if (named(list, off)) cuptiActivityDisable(floor_kinds[i].kind);
    }
}

static void enable_kinds(const char *list)
{
    for (size_t i = 0; i < sizeof floor_kinds / sizeof floor_kinds[0]; i++) {
        if (!named(list, floor_kinds[i].name)) continue;
        CUptiResult r = cuptiActivityEnable(floor_kinds[i].kind);
        if (r != CUPTI_SUCCESS)
            fprintf(stderr, "cupti_floor: enabling %s failed (%d)\n", floor_kinds[i].name, (int)r);
    }
}

static void enable_per_call(const char *list)
{
    const uint32_t *ids;
    size_t n;
    if (named(list, "runtime-keep")) {
        n = ssc_cupti_runtime_keep_list(&ids);
        for (size_t i = 0; i < n; i++) cuptiActivityEnableRuntimeApi(ids[i], 1);
    }
    if (named(list, "driver-keep")) {
        n = ssc_cupti_driver_keep_list(&ids);
        for (size_t i = 0; i < n; i++) cuptiActivityEnableDriverApi(ids[i], 1);
    }
}

/* ---- callbacks ---------------------------------------------------------------------- */

static void set_keep_callbacks(uint32_t on)
{
    const uint32_t *ids;
    size_t n = ssc_cupti_runtime_keep_list(&ids);
    for (size_t i = 0; i < n; i++)
        if (ids[i] != CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020 || !floor_alternate)
            cuptiEnableCallback(on, floor_sub, CUPTI_CB_DOMAIN_RUNTIME_API, ids[i]);
    n = ssc_cupti_driver_keep_list(&ids);
    for (size_t i = 0; i < n; i++)
        cuptiEnableCallback(on, floor_sub, CUPTI_CB_DOMAIN_DRIVER_API, ids[i]);
}

/* CUPTI_FLOOR_ALTERNATE: the synchronize before window k (sync 2k-1) switches the
 * callbacks on for even k. Runs inside the synchronize's exit callback, as CUPTI allows. */
static void alternate_at_sync(void)
{
    unsigned long long n = atomic_fetch_add(&floor_syncs, 1) + 1;
    if (n % 2 == 0) return;
    int on = ((n + 1) / 2) % 2 == 0;
    if (atomic_exchange(&floor_cb_on, on) != on) set_keep_callbacks((uint32_t)on);
}

static void CUPTIAPI floor_callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
                                    const void *data)
{
    const CUpti_CallbackData *cd = data;
    (void)ud;
    if (floor_alternate && dom == CUPTI_CB_DOMAIN_RUNTIME_API &&
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020 &&
        cd->callbackSite == CUPTI_API_EXIT)
        alternate_at_sync();
    if (floor_cb_mode != CB_KEEP_TS) return;
    if (cd->callbackSite == CUPTI_API_ENTER)
        floor_enter_ns = now_ns();
    else
        floor_exit_ns = now_ns();
    atomic_fetch_add_explicit(&floor_callbacks, 1, memory_order_relaxed);
}

static void start_callbacks(const char *list)
{
    if (floor_cb_mode != CB_NONE) return; /* one subscription: the first stair that asks */
    floor_cb_mode = named(list, "callbacks-all") ? CB_ALL
                    : named(list, "callbacks-ts") ? CB_KEEP_TS
                    : named(list, "callbacks")    ? CB_KEEP
                                                  : CB_NONE;
    if (floor_cb_mode == CB_NONE) return;
    if (cuptiSubscribe(&floor_sub, floor_callback, NULL) != CUPTI_SUCCESS) {
        fprintf(stderr, "cupti_floor: cuptiSubscribe failed: no callbacks\n");
        return;
    }
    floor_alternate = getenv("CUPTI_FLOOR_ALTERNATE") && floor_cb_mode != CB_ALL;
    if (floor_alternate) {
        cuptiEnableCallback(1, floor_sub, CUPTI_CB_DOMAIN_RUNTIME_API,
                            CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020);
        atomic_store(&floor_cb_on, 0); /* window 1 runs without */
    } else if (floor_cb_mode == CB_ALL) {
        cuptiEnableDomain(1, floor_sub, CUPTI_CB_DOMAIN_RUNTIME_API);
        cuptiEnableDomain(1, floor_sub, CUPTI_CB_DOMAIN_DRIVER_API);
    } else {
        set_keep_callbacks(1);
    }
}

/* ---- activity attributes (CUPTI_FLOOR_ATTRS) ------------------------------------------ */

/* The value after "name=" in list, or 0 when absent. */
static size_t attr_value(const char *list, const char *name)
{
    char key[32];
    snprintf(key, sizeof key, "%s=", name);
    const char *p = strstr(list, key);
    return p ? (size_t)strtoull(p + strlen(key), NULL, 10) : 0;
}

static void set_attr(const char *what, CUpti_ActivityAttribute attr, void *value, size_t size)
{
    CUptiResult r = cuptiActivitySetAttribute(attr, &size, value);
    fprintf(stderr, "cupti_floor: attr %s %s\n", what, r == CUPTI_SUCCESS ? "set" : "FAILED");
}

/* Before the buffer callbacks are registered and any kind is enabled, as CUPTI asks. */
static void set_attrs(const char *list)
{
    uint8_t one = 1, zero = 0;
    size_t mib = attr_value(list, "devbuf"), pre = attr_value(list, "prealloc");
    if (named(list, "nothread"))
        set_attr("nothread", CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &zero, 1);
    floor_zeroed = named(list, "zeroed");
    if (floor_zeroed) set_attr("zeroed", CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &one, 1);
    if (named(list, "pinned"))
        set_attr("pinned", CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, &one, 1);
    size_t bytes = mib << 20;
    if (mib) set_attr("devbuf", CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &bytes, sizeof bytes);
    if (pre) set_attr("prealloc", CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE, &pre, sizeof pre);
}

/* ---- entry point -------------------------------------------------------------------- */

static void floor_at_exit(void)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (floor_alternate)
        fprintf(stderr, "cupti_floor: %llu cudaDeviceSynchronize calls\n",
                (unsigned long long)atomic_load(&floor_syncs));
    if (getenv("CUPTI_FLOOR_VERBOSE")) {
        fprintf(stderr, "cupti_floor: %llu records\n", floor_records);
        fprintf(stderr, "cupti_floor: %llu timed callbacks\n",
                (unsigned long long)atomic_load(&floor_callbacks));
    }
}

/* One more stair: the kinds (and callbacks) named in list are switched on, now. Called by the
 * program between steps, on its own thread (harness.py, BENCH_STAIRS). Returns 0. */
EXPORT int cupti_floor_stair(const char *list)
{
    if (!list) return 0;
    disable_kinds(list);
    enable_kinds(list);
    start_callbacks(list);
    fprintf(stderr, "cupti_floor: stair %s\n", list);
    return 0;
}

EXPORT int InitializeInjection(void)
{
    const char *list = getenv("CUPTI_FLOOR_KINDS");
    if (!list || !*list) list = "full";
    fprintf(stderr, "cupti_floor: kinds %s\n", list);
    if (named(list, "full")) list = "kernel,memcpy,memset,sync,runtime,driver,memory,overhead";
    if (getenv("CUPTI_FLOOR_ATTRS")) set_attrs(getenv("CUPTI_FLOOR_ATTRS"));
    if (cuptiActivityRegisterCallbacks(floor_buffer_requested, floor_buffer_completed) !=
        CUPTI_SUCCESS)
        return 1;
    enable_kinds(list);
    enable_per_call(list); /* inside cuInit: before CUDA starts, where per-call settings take */
    start_callbacks(list);
    atexit(floor_at_exit);
    return 1;
}
