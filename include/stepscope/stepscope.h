/*
 * stepscope.h — step and phase markers for C and C++ training loops.
 *
 * Header-only, built on the CUDA toolkit's nvtx3 (compile with -I/usr/local/cuda/include, or any
 * directory that holds nvtx3/). Nothing to link: nvtx3 is header-only. When the program does not
 * run under stepscope (or another NVTX tool), every call costs one load and one branch: nvtx3
 * finds no NVTX_INJECTION64_PATH on the first call and turns all its entry points into no-ops.
 *
 *     for (uint64_t i = 0; i < steps; i++) {
 *         stepscope_step_begin(i);
 *         stepscope_data_begin();  next_batch(&batch);  stepscope_data_end();
 *         forward_backward_update(&batch);
 *         stepscope_step_end();
 *     }
 *
 * Convention (the collector and the analysis rely on it; see docs/markers.md):
 *   - NVTX domain "stepscope";
 *   - a step is a push/pop range whose message is the registered string "step" and whose payload
 *     (NVTX_PAYLOAD_TYPE_UNSIGNED_INT64) is the step number;
 *   - data loading is a push/pop range with the registered message "data";
 *   - other ranges and marks carry the caller's ASCII message;
 *   - category 1 ("api") for this header, category 2 ("pyshim") for the Python shim.
 * Ranges are push/pop ranges: begin and end on the same thread, properly nested.
 *
 * Define STEPSCOPE_DISABLE before including to compile every marker to nothing (nvtx3 is then not
 * needed at all).
 *
 * Thread safety: every function may be called from any thread. The domain and the registered
 * strings are created lazily on the first call and cached in static variables without a lock; two
 * threads that make their first call at the same instant may both create them (NVTX tools return
 * the same handle for the same domain name, and an extra registered string is harmless). The cache
 * is per translation unit (static inline functions), so each file that includes this header
 * creates the handles once for itself.
 */
#ifndef STEPSCOPE_STEPSCOPE_H
#define STEPSCOPE_STEPSCOPE_H

#include <stdint.h>

/* The naming convention, shared with the collector and the Python shim. */
#define STEPSCOPE_NVTX_DOMAIN "stepscope"
#define STEPSCOPE_MSG_STEP "step"
#define STEPSCOPE_MSG_DATA "data"
#define STEPSCOPE_CATEGORY_API 1u
#define STEPSCOPE_CATEGORY_API_NAME "api"
#define STEPSCOPE_CATEGORY_PYSHIM 2u
#define STEPSCOPE_CATEGORY_PYSHIM_NAME "pyshim"

#ifndef STEPSCOPE_DISABLE

#include <string.h>
#include <nvtx3/nvToolsExt.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Implementation details: not part of the API, may change without notice. */

typedef struct stepscope_detail_handles {
    nvtxDomainHandle_t domain;
    nvtxStringHandle_t step; /* registered "step" */
    nvtxStringHandle_t data; /* registered "data" */
} stepscope_detail_handles;

enum { STEPSCOPE_DETAIL_FRESH = 0, STEPSCOPE_DETAIL_WRITING = 1, STEPSCOPE_DETAIL_READY = 2 };

static inline void stepscope_detail_create(stepscope_detail_handles *h)
{
    h->domain = nvtxDomainCreateA(STEPSCOPE_NVTX_DOMAIN);
    h->step = nvtxDomainRegisterStringA(h->domain, STEPSCOPE_MSG_STEP);
    h->data = nvtxDomainRegisterStringA(h->domain, STEPSCOPE_MSG_DATA);
    nvtxDomainNameCategoryA(h->domain, STEPSCOPE_CATEGORY_API, STEPSCOPE_CATEGORY_API_NAME);
    nvtxDomainNameCategoryA(h->domain, STEPSCOPE_CATEGORY_PYSHIM, STEPSCOPE_CATEGORY_PYSHIM_NAME);
}

/* Returns the cached handles, creating them on first use. The thread that wins the FRESH ->
 * WRITING exchange publishes its handles; a thread that loses the race (or sees WRITING) uses the
 * handles it just created for this one call instead of waiting, so no caller ever blocks. */
static inline stepscope_detail_handles stepscope_detail_handles_get(void)
{
    static stepscope_detail_handles cached;
    static int state;
    stepscope_detail_handles fresh;
    int expected = STEPSCOPE_DETAIL_FRESH;

    if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) == STEPSCOPE_DETAIL_READY) return cached;
    stepscope_detail_create(&fresh);
    if (__atomic_compare_exchange_n(&state, &expected, STEPSCOPE_DETAIL_WRITING, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        cached = fresh;
        __atomic_store_n(&state, STEPSCOPE_DETAIL_READY, __ATOMIC_RELEASE);
    }
    return fresh;
}

static inline void stepscope_detail_attrs(nvtxEventAttributes_t *a, uint32_t category,
                                          uint32_t argb)
{
    memset(a, 0, sizeof(*a));
    a->version = NVTX_VERSION;
    a->size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a->category = category;
    a->colorType = NVTX_COLOR_ARGB;
    a->color = argb;
}

/* Sets the message to a registered string, or to the same text in ASCII when the tool attached
 * to NVTX does not register strings (handle NULL). */
static inline void stepscope_detail_message(nvtxEventAttributes_t *a, nvtxStringHandle_t handle,
                                            const char *text)
{
    if (handle) {
        a->messageType = NVTX_MESSAGE_TYPE_REGISTERED;
        a->message.registered = handle;
    } else {
        a->messageType = NVTX_MESSAGE_TYPE_ASCII;
        a->message.ascii = text;
    }
}

#define STEPSCOPE_DETAIL_COLOR_STEP 0xFF3B78D8u
#define STEPSCOPE_DETAIL_COLOR_DATA 0xFFE69138u
#define STEPSCOPE_DETAIL_COLOR_USER 0xFF6AA84Fu

static inline void stepscope_detail_step_begin(uint32_t category, uint64_t step)
{
    stepscope_detail_handles h = stepscope_detail_handles_get();
    nvtxEventAttributes_t a;
    stepscope_detail_attrs(&a, category, STEPSCOPE_DETAIL_COLOR_STEP);
    stepscope_detail_message(&a, h.step, STEPSCOPE_MSG_STEP);
    a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
    a.payload.ullValue = step;
    nvtxDomainRangePushEx(h.domain, &a);
}

static inline void stepscope_detail_data_begin(uint32_t category)
{
    stepscope_detail_handles h = stepscope_detail_handles_get();
    nvtxEventAttributes_t a;
    stepscope_detail_attrs(&a, category, STEPSCOPE_DETAIL_COLOR_DATA);
    stepscope_detail_message(&a, h.data, STEPSCOPE_MSG_DATA);
    nvtxDomainRangePushEx(h.domain, &a);
}

static inline void stepscope_detail_range_push(uint32_t category, const char *name)
{
    stepscope_detail_handles h = stepscope_detail_handles_get();
    nvtxEventAttributes_t a;
    stepscope_detail_attrs(&a, category, STEPSCOPE_DETAIL_COLOR_USER);
    stepscope_detail_message(&a, NULL, name ? name : "");
    nvtxDomainRangePushEx(h.domain, &a);
}

static inline void stepscope_detail_mark(uint32_t category, const char *name)
{
    stepscope_detail_handles h = stepscope_detail_handles_get();
    nvtxEventAttributes_t a;
    stepscope_detail_attrs(&a, category, STEPSCOPE_DETAIL_COLOR_USER);
    stepscope_detail_message(&a, NULL, name ? name : "");
    nvtxDomainMarkEx(h.domain, &a);
}

static inline void stepscope_detail_pop(void)
{
    nvtxDomainRangePop(stepscope_detail_handles_get().domain);
}

/* ---- The API ---- */

/* Opens training step `step` (count from 0). Close it with stepscope_step_end() on this thread. */
static inline void stepscope_step_begin(uint64_t step)
{
    stepscope_detail_step_begin(STEPSCOPE_CATEGORY_API, step);
}

/* Closes the step opened by the matching stepscope_step_begin(). */
static inline void stepscope_step_end(void)
{
    stepscope_detail_pop();
}

/* Opens a data-loading range: the time the training thread waits for its next batch. */
static inline void stepscope_data_begin(void)
{
    stepscope_detail_data_begin(STEPSCOPE_CATEGORY_API);
}

static inline void stepscope_data_end(void)
{
    stepscope_detail_pop();
}

/* Opens a range named `name` (copied by the tool; NULL is taken as ""). */
static inline void stepscope_range_push(const char *name)
{
    stepscope_detail_range_push(STEPSCOPE_CATEGORY_API, name);
}

static inline void stepscope_range_pop(void)
{
    stepscope_detail_pop();
}

/* Records an instant event named `name`. */
static inline void stepscope_mark(const char *name)
{
    stepscope_detail_mark(STEPSCOPE_CATEGORY_API, name);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#else /* STEPSCOPE_DISABLE: every marker compiles to nothing */

#ifdef __cplusplus
extern "C" {
#endif
static inline void stepscope_step_begin(uint64_t step)
{
    (void)step;
}
static inline void stepscope_step_end(void) {}
static inline void stepscope_data_begin(void) {}
static inline void stepscope_data_end(void) {}
static inline void stepscope_range_push(const char *name)
{
    (void)name;
}
static inline void stepscope_range_pop(void) {}
static inline void stepscope_mark(const char *name)
{
    (void)name;
}
#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* STEPSCOPE_DISABLE */

#ifdef __cplusplus
namespace stepscope
{
/* RAII helpers: the range closes when the object leaves scope, also on an exception. */
class step_scope
{
  public:
    explicit step_scope(uint64_t step)
    {
        stepscope_step_begin(step);
    }
    ~step_scope()
    {
        stepscope_step_end();
    }
    step_scope(const step_scope &) = delete;
    step_scope &operator=(const step_scope &) = delete;
};

class data_scope
{
  public:
    data_scope()
    {
        stepscope_data_begin();
    }
    ~data_scope()
    {
        stepscope_data_end();
    }
    data_scope(const data_scope &) = delete;
    data_scope &operator=(const data_scope &) = delete;
};

class range_scope
{
  public:
    explicit range_scope(const char *name)
    {
        stepscope_range_push(name);
    }
    ~range_scope()
    {
        stepscope_range_pop();
    }
    range_scope(const range_scope &) = delete;
    range_scope &operator=(const range_scope &) = delete;
};
} /* namespace stepscope */
#endif

#endif /* STEPSCOPE_STEPSCOPE_H */
