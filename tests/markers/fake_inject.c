/*
 * A test NVTX injection library: loaded by nvtx3 from NVTX_INJECTION64_PATH, it records the
 * domain calls it receives, one line each, into the file named by FAKE_INJECT_LOG:
 *
 *   init                                  InitializeInjectionNvtx2 (once per nvtx3 module)
 *   domain NAME                           nvtxDomainCreateA
 *   string DOMAIN TEXT                    nvtxDomainRegisterStringA
 *   category DOMAIN ID NAME               nvtxDomainNameCategoryA
 *   push DOMAIN cat=C MSG payload=P       nvtxDomainRangePushEx (MSG reg:TEXT or ascii:TEXT,
 *   mark DOMAIN cat=C MSG payload=P       nvtxDomainMarkEx       P none or u64:N)
 *   pop DOMAIN                            nvtxDomainRangePop
 *
 * Same name -> same domain handle, as real tools do. Not the collector: just enough to check
 * what the markers emit.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NVTX_NO_IMPL /* a tool: types and callback ids only */
#include <nvtx3/nvToolsExt.h>

#define FAKE_MAX_NAMES 64

struct fake_name {
    char text[64];
};

static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;
static int fake_fd = -1;
static struct fake_name fake_domains[FAKE_MAX_NAMES];
static struct fake_name fake_strings[FAKE_MAX_NAMES];
static int fake_domain_count, fake_string_count;

static void fake_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fake_log(const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (n < 0 || fake_fd < 0) return;
    if (n > (int)sizeof(line) - 2) n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    if (write(fake_fd, line, (size_t)n) != n)
        return; /* a test library: a short write just shows up as a failed check */
}

/* Interns `text` in `table`; returns its 1-based index, used as the handle. Lock held. */
static size_t fake_intern(struct fake_name *table, int *count, const char *text)
{
    for (int i = 0; i < *count; i++)
        if (strcmp(table[i].text, text) == 0) return (size_t)i + 1;
    if (*count == FAKE_MAX_NAMES) return 0;
    snprintf(table[*count].text, sizeof(table[*count].text), "%s", text);
    *count += 1;
    return (size_t)*count;
}

static const char *fake_lookup(struct fake_name *table, int count, const void *handle)
{
    size_t i = (size_t)handle;
    return (i >= 1 && i <= (size_t)count) ? table[i - 1].text : "?";
}

static const char *fake_domain_name(nvtxDomainHandle_t d)
{
    return d ? fake_lookup(fake_domains, fake_domain_count, d) : "(default)";
}

static nvtxDomainHandle_t NVTX_API fake_domain_create(const char *name)
{
    pthread_mutex_lock(&fake_lock);
    nvtxDomainHandle_t d = (nvtxDomainHandle_t)fake_intern(fake_domains, &fake_domain_count, name);
    fake_log("domain %s", name);
    pthread_mutex_unlock(&fake_lock);
    return d;
}

static nvtxStringHandle_t NVTX_API fake_register_string(nvtxDomainHandle_t d, const char *text)
{
    pthread_mutex_lock(&fake_lock);
    nvtxStringHandle_t s = (nvtxStringHandle_t)fake_intern(fake_strings, &fake_string_count, text);
    fake_log("string %s %s", fake_domain_name(d), text);
    pthread_mutex_unlock(&fake_lock);
    return s;
}

static void NVTX_API fake_name_category(nvtxDomainHandle_t d, uint32_t id, const char *name)
{
    pthread_mutex_lock(&fake_lock);
    fake_log("category %s %u %s", fake_domain_name(d), id, name);
    pthread_mutex_unlock(&fake_lock);
}

static void fake_event(const char *what, nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    char msg[256] = "none", payload[40] = "none";
    if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED)
        snprintf(msg, sizeof(msg), "reg:%s",
                 fake_lookup(fake_strings, fake_string_count, a->message.registered));
    else if (a->messageType == NVTX_MESSAGE_TYPE_ASCII)
        snprintf(msg, sizeof(msg), "ascii:%s", a->message.ascii);
    if (a->payloadType == NVTX_PAYLOAD_TYPE_UNSIGNED_INT64)
        snprintf(payload, sizeof(payload), "u64:%llu", (unsigned long long)a->payload.ullValue);
    else if (a->payloadType != NVTX_PAYLOAD_UNKNOWN)
        snprintf(payload, sizeof(payload), "type%d", (int)a->payloadType);
    fake_log("%s %s cat=%u %s payload=%s", what, fake_domain_name(d), a->category, msg, payload);
}

static int NVTX_API fake_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    pthread_mutex_lock(&fake_lock);
    fake_event("push", d, a);
    pthread_mutex_unlock(&fake_lock);
    return 0;
}

static void NVTX_API fake_mark(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    pthread_mutex_lock(&fake_lock);
    fake_event("mark", d, a);
    pthread_mutex_unlock(&fake_lock);
}

static int NVTX_API fake_pop(nvtxDomainHandle_t d)
{
    pthread_mutex_lock(&fake_lock);
    fake_log("pop %s", fake_domain_name(d));
    pthread_mutex_unlock(&fake_lock);
    return 0;
}

static void fake_set(NvtxFunctionTable table, unsigned size, unsigned id, NvtxFunctionPointer fn)
{
    if (id <= size && table[id]) *table[id] = fn;
}

__attribute__((visibility("default"))) int NVTX_API
InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table);

int NVTX_API InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table)
{
    const NvtxExportTableCallbacks *etbl =
        (const NvtxExportTableCallbacks *)get_export_table(NVTX_ETID_CALLBACKS);
    NvtxFunctionTable t = NULL;
    unsigned size = 0;
    if (!etbl || !etbl->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &size) || !t) return 0;
    pthread_mutex_lock(&fake_lock);
    if (fake_fd < 0) {
        const char *path = getenv("FAKE_INJECT_LOG");
        if (path) fake_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    }
    fake_log("init");
    pthread_mutex_unlock(&fake_lock);
    fake_set(t, size, NVTX_CBID_CORE2_DomainCreateA, (NvtxFunctionPointer)fake_domain_create);
    fake_set(t, size, NVTX_CBID_CORE2_DomainRegisterStringA,
             (NvtxFunctionPointer)fake_register_string);
    fake_set(t, size, NVTX_CBID_CORE2_DomainNameCategoryA, (NvtxFunctionPointer)fake_name_category);
    fake_set(t, size, NVTX_CBID_CORE2_DomainRangePushEx, (NvtxFunctionPointer)fake_push);
    fake_set(t, size, NVTX_CBID_CORE2_DomainRangePop, (NvtxFunctionPointer)fake_pop);
    fake_set(t, size, NVTX_CBID_CORE2_DomainMarkEx, (NvtxFunctionPointer)fake_mark);
    return 1;
}
