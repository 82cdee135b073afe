/*
 * ssc_nvtx.c — NVTX recording through nvtx3's injection interface.
 *
 * Each module of the program that includes nvtx3 (libtorch, the program, the Python binding)
 * has its own NVTX function-pointer tables; on its first NVTX call it loads the library named
 * by NVTX_INJECTION64_PATH and calls InitializeInjectionNvtx2 with its export-table getter.
 * We then store our callbacks into that module's CORE and CORE2 (domain) tables. Slots we
 * leave empty become no-ops (NVTX's own behaviour).
 *
 * Every callback takes its timestamp first, then builds one record in the calling thread's
 * buffer. Domain "stepscope" is special: the public header and the Python shim mark training
 * steps there (push "step" with the step number as payload, category 1 = API, 2 = Python
 * shim), and those pushes/pops also become STEP records that drive --capture steps:A-B.
 */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "collect/ssc_core.h"

#define EXPORT __attribute__((visibility("default")))
#define STEP_DOMAIN "stepscope"
#define STEP_RANGE "step"
#define PROFILER_START "torch.profiler.start"
#define PROFILER_STOP "torch.profiler.stop"
#define TICK_GRAPH "stepscope.tick.graph"       /* docs/markers.md, "Loop ticks" */
#define TICK_BACKWARD "stepscope.tick.backward"
#define STEP_CAT_API 1u
#define STEP_CAT_PYSHIM 2u
#define MAX_STEP_NEST 32
#define TEXT_MAX 1024 /* wide strings are converted into a stack buffer of this size */

/* A domain handle given to the program. Never freed: a handle used after destroy must not
 * crash the program. */
struct ssc_domain {
    struct ssc_str *name;
    int is_step_domain;
    struct ssc_domain *next;
};

/* One event's attributes, ready for a record. */
struct ev {
    uint64_t ts;
    uint32_t message, category, color;
    uint8_t ptype;
    uint64_t payload;
    const char *text; /* the message text when known (step detection) */
    uint32_t text_len;
};

struct step_frame {
    int is_step;
    uint8_t source;
    uint64_t number;  /* as the program counts (payload), repeated on STEP END */
    uint64_t ordinal; /* steps seen in this process, for --capture steps:A-B */
};

static pthread_mutex_t g_dom_mu = PTHREAD_MUTEX_INITIALIZER;
static struct ssc_domain *g_domains;
static _Atomic uint64_t g_step_ordinal;

static __thread uint32_t tls_tid;
static __thread int tls_depth; /* push/pop nesting, for the values NVTX returns */
static __thread uint64_t tls_range_seq;
static __thread struct step_frame tls_steps[MAX_STEP_NEST];
static __thread int tls_step_depth;
static __thread uint32_t tls_cost_events; /* NVTX records since the last cost add */

static uint32_t tid(void)
{
    if (!tls_tid) tls_tid = ssc_gettid();
    return tls_tid;
}

/* ---- attributes ------------------------------------------------------------------------- */

/* Wide text to UTF-8 in buf (wchar_t is UTF-32 on Linux). Returns the length. */
static size_t wide_to_utf8(const wchar_t *w, char *buf, size_t cap)
{
    size_t n = 0;
    for (; w && *w; w++) {
        uint32_t c = (uint32_t)*w;
        char tmp[4];
        size_t k;
        if (c < 0x80) {
            tmp[0] = (char)c, k = 1;
        } else if (c < 0x800) {
            tmp[0] = (char)(0xc0 | (c >> 6)), tmp[1] = (char)(0x80 | (c & 0x3f)), k = 2;
        } else if (c < 0x10000) {
            tmp[0] = (char)(0xe0 | (c >> 12)), tmp[1] = (char)(0x80 | ((c >> 6) & 0x3f));
            tmp[2] = (char)(0x80 | (c & 0x3f)), k = 3;
        } else if (c < 0x110000) {
            tmp[0] = (char)(0xf0 | (c >> 18)), tmp[1] = (char)(0x80 | ((c >> 12) & 0x3f));
            tmp[2] = (char)(0x80 | ((c >> 6) & 0x3f)), tmp[3] = (char)(0x80 | (c & 0x3f)), k = 4;
        } else {
            continue; /* not a code point */
        }
        if (n + k > cap) break;
        memcpy(buf + n, tmp, k);
        n += k;
    }
    return n;
}

static void ev_ascii(struct ev *ev, const char *s)
{
    if (!s) return;
    size_t len = strnlen(s, SST_STRING_MAX);
    ev->message = ssc_intern(s, len);
    ev->text = s;
    ev->text_len = (uint32_t)len;
}

static void ev_registered(struct ev *ev, nvtxStringHandle_t h)
{
    struct ssc_str *e = (struct ssc_str *)(void *)h;
    if (!e) return;
    ev->message = ssc_str_id(e);
    ev->text = ssc_str_text(e, &ev->text_len);
}

/* Reads an nvtxEventAttributes_t; `wbuf` holds converted wide text while the event lives. */
static void ev_from_attr(struct ev *ev, const nvtxEventAttributes_t *a, char *wbuf)
{
    if (!a || a->size < offsetof(nvtxEventAttributes_t, message) + sizeof(a->message))
        return; /* older or bogus struct: record the event without attributes */
    ev->category = a->category;
    ev->color = a->colorType == NVTX_COLOR_ARGB ? a->color : 0;
    if (a->payloadType >= NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 &&
        a->payloadType <= NVTX_PAYLOAD_TYPE_FLOAT) {
        ev->ptype = (uint8_t)a->payloadType; /* the sst payload numbering follows NVTX's */
        ev->payload =
            a->payloadType <= NVTX_PAYLOAD_TYPE_DOUBLE ? a->payload.ullValue : a->payload.uiValue;
    }
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
        ev_ascii(ev, a->message.ascii);
        break;
    case NVTX_MESSAGE_TYPE_UNICODE: {
        size_t n = wide_to_utf8(a->message.unicode, wbuf, TEXT_MAX);
        ev->message = ssc_intern(wbuf, n);
        ev->text = wbuf;
        ev->text_len = (uint32_t)n;
        break;
    }
    case NVTX_MESSAGE_TYPE_REGISTERED:
        ev_registered(ev, a->message.registered);
        break;
    default:
        break;
    }
}

static uint32_t domain_id(nvtxDomainHandle_t d)
{
    struct ssc_domain *dom = (struct ssc_domain *)(void *)d;
    return dom ? ssc_str_id(dom->name) : SST_NO_STRING;
}

static void emit(uint16_t type, uint32_t domain, const struct ev *ev, uint64_t range_id)
{
    struct sst_rec_nvtx *r = ssc_rec_reserve(type, sizeof *r);
    if (!r) return;
    r->tid = tid();
    r->ts_ns = ev->ts;
    r->range_id = range_id;
    r->payload = ev->payload;
    r->domain = domain;
    r->message = ev->message;
    r->category = ev->category;
    r->color = ev->color;
    r->payload_type = ev->ptype;
    ssc_rec_commit(r);
    /* One record in SSC_COST_SAMPLE is timed, from the callback's timestamp: one more clock
     * read per 16 events rather than per event. */
    if (++tls_cost_events < SSC_COST_SAMPLE) return;
    tls_cost_events = 0;
    ssc_cost_add(SST_COST_NVTX_CALLBACK, SSC_COST_SAMPLE, 1, sst_now_ns() - ev->ts);
}

/* Whether the event's text is exactly s. */
static int text_is(const struct ev *ev, const char *s)
{
    size_t n = strlen(s);
    return ev->text && ev->text_len == n && memcmp(ev->text, s, n) == 0;
}

/* ---- steps (domain "stepscope") --------------------------------------------------------- */

static void emit_step(uint8_t phase, uint8_t source, uint64_t ts, uint64_t step)
{
    struct sst_rec_step *r = ssc_rec_reserve(SST_REC_STEP, sizeof *r);
    if (!r) return;
    r->phase = phase;
    r->source = source;
    r->ts_ns = ts;
    r->step = step;
    r->tid = tid();
    ssc_rec_commit(r);
}

static uint8_t step_source(uint32_t category)
{
    if (category == STEP_CAT_API) return SST_STEPSRC_API;
    return category == STEP_CAT_PYSHIM ? SST_STEPSRC_PYSHIM : SST_STEPSRC_USER;
}

static void step_push(const struct ev *ev)
{
    struct step_frame f = {0, 0, 0, 0};
    f.is_step = text_is(ev, STEP_RANGE);
    if (f.is_step) {
        f.ordinal = atomic_fetch_add(&g_step_ordinal, 1);
        f.source = step_source(ev->category);
        /* The step number is the payload when the marker gave one, else the ordinal. */
        if (ev->ptype == SST_PAYLOAD_I64 || ev->ptype == SST_PAYLOAD_U64)
            f.number = ev->payload;
        else if (ev->ptype == SST_PAYLOAD_I32 || ev->ptype == SST_PAYLOAD_U32)
            f.number = (uint32_t)ev->payload;
        else
            f.number = f.ordinal;
        emit_step(SST_STEP_BEGIN, f.source, ev->ts, f.number);
        ssc_top.step_begin(f.ordinal, ev->ts);
    }
    /* Deeper nesting than we track is still counted, so pops stay paired. */
    if (tls_step_depth < MAX_STEP_NEST) tls_steps[tls_step_depth] = f;
    tls_step_depth++;
}

/* A pop in the step domain: the frame its push left (is_step 0 when untracked). */
static struct step_frame step_pop(void)
{
    struct step_frame f = {0, 0, 0, 0};
    if (tls_step_depth <= 0) return f;
    tls_step_depth--;
    if (tls_step_depth < MAX_STEP_NEST) f = tls_steps[tls_step_depth];
    return f;
}

/* ---- ranges and marks ------------------------------------------------------------------- */

static int push_ev(nvtxDomainHandle_t d, struct ev *ev)
{
    struct ssc_domain *dom = (struct ssc_domain *)(void *)d;
    emit(SST_REC_NVTX_PUSH, domain_id(d), ev, 0);
    if (dom && dom->is_step_domain) step_push(ev);
    return tls_depth++;
}

static int pop_dom(nvtxDomainHandle_t d)
{
    struct ev ev = {.ts = sst_now_ns()};
    struct ssc_domain *dom = (struct ssc_domain *)(void *)d;
    emit(SST_REC_NVTX_POP, domain_id(d), &ev, 0);
    if (dom && dom->is_step_domain) {
        struct step_frame f = step_pop();
        if (f.is_step) {
            emit_step(SST_STEP_END, f.source, ev.ts, f.number);
            ssc_top.step_end(f.ordinal);
        }
    }
    return tls_depth > 0 ? --tls_depth : -1;
}

static uint64_t start_ev(nvtxDomainHandle_t d, struct ev *ev)
{
    uint64_t id = ((uint64_t)tid() << 32) | (++tls_range_seq & 0xffffffffu);
    emit(SST_REC_NVTX_START, domain_id(d), ev, id);
    return id;
}

static void end_dom(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
    struct ev ev = {.ts = sst_now_ns()};
    emit(SST_REC_NVTX_END, domain_id(d), &ev, id);
}

static void mark_ev(nvtxDomainHandle_t d, struct ev *ev)
{
    struct ssc_domain *dom = (struct ssc_domain *)(void *)d;
    emit(SST_REC_NVTX_MARK, domain_id(d), ev, 0);
    if (!dom || !dom->is_step_domain) return;
    if (text_is(ev, PROFILER_START))
        ssc_cupti_profiler_mark(1);
    else if (text_is(ev, PROFILER_STOP))
        ssc_cupti_profiler_mark(0);
    else if (text_is(ev, TICK_GRAPH))
        ssc_top.loop_tick(SSC_TICK_GRAPH);
    else if (text_is(ev, TICK_BACKWARD))
        ssc_top.loop_tick(SSC_TICK_BACKWARD);
}

/* The Ex forms: one body for the default domain (NULL) and named domains. */
#define EV_FROM_ATTR(a)                                                                            \
    struct ev ev = {.ts = sst_now_ns()};                                                           \
    char wbuf[TEXT_MAX];                                                                           \
    ev_from_attr(&ev, (a), wbuf)

#define EV_FROM_ASCII(s)                                                                           \
    struct ev ev = {.ts = sst_now_ns()};                                                           \
    ev_ascii(&ev, (s))

#define EV_FROM_WIDE(s)                                                                            \
    struct ev ev = {.ts = sst_now_ns()};                                                           \
    char wbuf[TEXT_MAX];                                                                           \
    size_t wlen = wide_to_utf8((s), wbuf, TEXT_MAX);                                               \
    ev.message = ssc_intern(wbuf, wlen);                                                           \
    ev.text = wbuf;                                                                                \
    ev.text_len = (uint32_t)wlen

static void NVTX_API cb_mark_ex(const nvtxEventAttributes_t *a)
{
    EV_FROM_ATTR(a);
    mark_ev(NULL, &ev);
}
static void NVTX_API cb_mark_a(const char *s)
{
    EV_FROM_ASCII(s);
    mark_ev(NULL, &ev);
}
static void NVTX_API cb_mark_w(const wchar_t *s)
{
    EV_FROM_WIDE(s);
    mark_ev(NULL, &ev);
}
static nvtxRangeId_t NVTX_API cb_start_ex(const nvtxEventAttributes_t *a)
{
    EV_FROM_ATTR(a);
    return start_ev(NULL, &ev);
}
static nvtxRangeId_t NVTX_API cb_start_a(const char *s)
{
    EV_FROM_ASCII(s);
    return start_ev(NULL, &ev);
}
static nvtxRangeId_t NVTX_API cb_start_w(const wchar_t *s)
{
    EV_FROM_WIDE(s);
    return start_ev(NULL, &ev);
}
static void NVTX_API cb_end(nvtxRangeId_t id)
{
    end_dom(NULL, id);
}
static int NVTX_API cb_push_ex(const nvtxEventAttributes_t *a)
{
    EV_FROM_ATTR(a);
    return push_ev(NULL, &ev);
}
static int NVTX_API cb_push_a(const char *s)
{
    EV_FROM_ASCII(s);
    return push_ev(NULL, &ev);
}
static int NVTX_API cb_push_w(const wchar_t *s)
{
    EV_FROM_WIDE(s);
    return push_ev(NULL, &ev);
}
static int NVTX_API cb_pop(void)
{
    return pop_dom(NULL);
}

static void NVTX_API cb_dom_mark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    EV_FROM_ATTR(a);
    mark_ev(d, &ev);
}
static nvtxRangeId_t NVTX_API cb_dom_start_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    EV_FROM_ATTR(a);
    return start_ev(d, &ev);
}
static void NVTX_API cb_dom_end(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
    end_dom(d, id);
}
static int NVTX_API cb_dom_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    EV_FROM_ATTR(a);
    return push_ev(d, &ev);
}
static int NVTX_API cb_dom_pop(nvtxDomainHandle_t d)
{
    return pop_dom(d);
}

/* ---- names: categories, threads, domains, registered strings ---------------------------- */

static void name_category(nvtxDomainHandle_t d, uint32_t category, const char *name, size_t len)
{
    struct ssc_domain *dom = (struct ssc_domain *)(void *)d;
    char key[160];
    snprintf(key, sizeof key, "nvtx.category.%s.%u",
             dom ? ssc_str_text(dom->name, NULL) : "default", category);
    ssc_env_record(key, name, len);
}

static void NVTX_API cb_name_category_a(uint32_t category, const char *name)
{
    if (name) name_category(NULL, category, name, strnlen(name, SST_STRING_MAX));
}
static void NVTX_API cb_name_category_w(uint32_t category, const wchar_t *name)
{
    char buf[TEXT_MAX];
    name_category(NULL, category, buf, wide_to_utf8(name, buf, sizeof buf));
}
static void NVTX_API cb_dom_name_category_a(nvtxDomainHandle_t d, uint32_t category,
                                            const char *name)
{
    if (name) name_category(d, category, name, strnlen(name, SST_STRING_MAX));
}
static void NVTX_API cb_dom_name_category_w(nvtxDomainHandle_t d, uint32_t category,
                                            const wchar_t *name)
{
    char buf[TEXT_MAX];
    name_category(d, category, buf, wide_to_utf8(name, buf, sizeof buf));
}

static void name_thread(uint32_t thread_id, const char *name, size_t len)
{
    uint64_t ts = sst_now_ns();
    uint32_t n = ssc_intern(name, len);
    struct sst_rec_thread *r = ssc_rec_reserve(SST_REC_THREAD, sizeof *r);
    if (!r) return;
    r->tid = thread_id;
    r->name = n;
    r->ts_ns = ts;
    ssc_rec_commit(r);
}

static void NVTX_API cb_name_thread_a(uint32_t thread_id, const char *name)
{
    if (name) name_thread(thread_id, name, strnlen(name, SST_STRING_MAX));
}
static void NVTX_API cb_name_thread_w(uint32_t thread_id, const wchar_t *name)
{
    char buf[TEXT_MAX];
    name_thread(thread_id, buf, wide_to_utf8(name, buf, sizeof buf));
}

/* The same name always gives the same handle (modules create "their" domain separately). */
static nvtxDomainHandle_t domain_create(const char *name, size_t len)
{
    struct ssc_str *s = ssc_str_get(name, len);
    if (!s) return NULL;
    pthread_mutex_lock(&g_dom_mu);
    struct ssc_domain *d = g_domains;
    while (d && d->name != s)
        d = d->next;
    int created = 0;
    if (!d && (d = calloc(1, sizeof *d)) != NULL) {
        d->name = s;
        d->is_step_domain = len == strlen(STEP_DOMAIN) && memcmp(name, STEP_DOMAIN, len) == 0;
        d->next = g_domains;
        g_domains = d;
        created = 1;
    }
    pthread_mutex_unlock(&g_dom_mu);
    if (created) {
        uint32_t id = ssc_str_id(s);
        struct sst_rec_nvtx_domain *r = ssc_rec_reserve(SST_REC_NVTX_DOMAIN, sizeof *r);
        if (r) {
            r->name = id;
            r->ts_ns = sst_now_ns();
            ssc_rec_commit(r);
        }
    }
    return (nvtxDomainHandle_t)(void *)d;
}

static nvtxDomainHandle_t NVTX_API cb_domain_create_a(const char *name)
{
    return name ? domain_create(name, strnlen(name, SST_STRING_MAX)) : NULL;
}
static nvtxDomainHandle_t NVTX_API cb_domain_create_w(const wchar_t *name)
{
    char buf[TEXT_MAX];
    return name ? domain_create(buf, wide_to_utf8(name, buf, sizeof buf)) : NULL;
}
static void NVTX_API cb_domain_destroy(nvtxDomainHandle_t d)
{
    (void)d; /* handles stay valid: a late use must not touch freed memory */
}

static nvtxStringHandle_t NVTX_API cb_register_a(nvtxDomainHandle_t d, const char *s)
{
    (void)d; /* one table for all domains: the text is what the trace needs */
    return s ? (nvtxStringHandle_t)(void *)ssc_str_get(s, strnlen(s, SST_STRING_MAX)) : NULL;
}
static nvtxStringHandle_t NVTX_API cb_register_w(nvtxDomainHandle_t d, const wchar_t *s)
{
    (void)d;
    char buf[TEXT_MAX];
    return s ? (nvtxStringHandle_t)(void *)ssc_str_get(buf, wide_to_utf8(s, buf, sizeof buf))
             : NULL;
}

/* ---- injection -------------------------------------------------------------------------- */

#define FN(f) ((NvtxFunctionPointer)(void (*)(void))(f))

static const NvtxFunctionPointer k_core[NVTX_CBID_CORE_SIZE] = {
    [NVTX_CBID_CORE_MarkEx] = FN(cb_mark_ex),
    [NVTX_CBID_CORE_MarkA] = FN(cb_mark_a),
    [NVTX_CBID_CORE_MarkW] = FN(cb_mark_w),
    [NVTX_CBID_CORE_RangeStartEx] = FN(cb_start_ex),
    [NVTX_CBID_CORE_RangeStartA] = FN(cb_start_a),
    [NVTX_CBID_CORE_RangeStartW] = FN(cb_start_w),
    [NVTX_CBID_CORE_RangeEnd] = FN(cb_end),
    [NVTX_CBID_CORE_RangePushEx] = FN(cb_push_ex),
    [NVTX_CBID_CORE_RangePushA] = FN(cb_push_a),
    [NVTX_CBID_CORE_RangePushW] = FN(cb_push_w),
    [NVTX_CBID_CORE_RangePop] = FN(cb_pop),
    [NVTX_CBID_CORE_NameCategoryA] = FN(cb_name_category_a),
    [NVTX_CBID_CORE_NameCategoryW] = FN(cb_name_category_w),
    [NVTX_CBID_CORE_NameOsThreadA] = FN(cb_name_thread_a),
    [NVTX_CBID_CORE_NameOsThreadW] = FN(cb_name_thread_w),
};

/* Resource naming (sync objects) and nvtxInitialize are left to NVTX's no-ops. */
static const NvtxFunctionPointer k_core2[NVTX_CBID_CORE2_SIZE] = {
    [NVTX_CBID_CORE2_DomainMarkEx] = FN(cb_dom_mark_ex),
    [NVTX_CBID_CORE2_DomainRangeStartEx] = FN(cb_dom_start_ex),
    [NVTX_CBID_CORE2_DomainRangeEnd] = FN(cb_dom_end),
    [NVTX_CBID_CORE2_DomainRangePushEx] = FN(cb_dom_push_ex),
    [NVTX_CBID_CORE2_DomainRangePop] = FN(cb_dom_pop),
    [NVTX_CBID_CORE2_DomainNameCategoryA] = FN(cb_dom_name_category_a),
    [NVTX_CBID_CORE2_DomainNameCategoryW] = FN(cb_dom_name_category_w),
    [NVTX_CBID_CORE2_DomainRegisterStringA] = FN(cb_register_a),
    [NVTX_CBID_CORE2_DomainRegisterStringW] = FN(cb_register_w),
    [NVTX_CBID_CORE2_DomainCreateA] = FN(cb_domain_create_a),
    [NVTX_CBID_CORE2_DomainCreateW] = FN(cb_domain_create_w),
    [NVTX_CBID_CORE2_DomainDestroy] = FN(cb_domain_destroy),
};

/* Stores our callbacks into one module's table; 0 when the module has no such table. */
static int fill_table(const NvtxExportTableCallbacks *etbl, NvtxCallbackModule module,
                      const NvtxFunctionPointer *fns, unsigned nfns)
{
    NvtxFunctionTable table = NULL;
    unsigned int size = 0;
    if (!etbl->GetModuleFunctionTable(module, &table, &size) || !table) return 0;
    for (unsigned i = 1; i < size && i < nfns; i++)
        if (table[i] && fns[i]) *table[i] = fns[i];
    return 1;
}

/* Called by nvtx3 once per module; several modules may call it concurrently. */
EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table)
{
    if (!get_export_table || !ssc_top.start())
        return 0; /* NVTX then turns this module's calls into no-ops: zero cost */
    const NvtxExportTableCallbacks *etbl = get_export_table(NVTX_ETID_CALLBACKS);
    if (!etbl || etbl->struct_size < sizeof *etbl || !etbl->GetModuleFunctionTable) return 0;
    int ok = fill_table(etbl, NVTX_CB_MODULE_CORE, k_core, NVTX_CBID_CORE_SIZE);
    ok &= fill_table(etbl, NVTX_CB_MODULE_CORE2, k_core2, NVTX_CBID_CORE2_SIZE);
    const NvtxExportTableVersionInfo *vi = get_export_table(NVTX_ETID_VERSIONINFO);
    if (vi && vi->struct_size >= sizeof *vi && vi->SetInjectionNvtxVersion)
        vi->SetInjectionNvtxVersion(NVTX_VERSION);
    return ok;
}

void ssc_nvtx_lock(void)
{
    pthread_mutex_lock(&g_dom_mu);
}

void ssc_nvtx_unlock(void)
{
    pthread_mutex_unlock(&g_dom_mu);
}

void ssc_nvtx_after_fork_child(void)
{
    tls_tid = 0; /* the child's thread has a new kernel tid */
    tls_depth = 0;
    tls_step_depth = 0;
    tls_cost_events = 0;
}
