/* ssi_nsys_names.c — values and names as nsys writes them: the enum mappings, CUDA API calls by
 * CUPTI callback id, and the three names of a kernel (mangled as CUPTI reports it, demangled,
 * and the short base name). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interop/ssi_nsys.h"
#include "trace/sst_cbid.h"

/* ---- value mappings (the trace's enums are in sst_format.h) ---- */

int ssi_nsys_copy_from_sst(uint8_t kind)
{
    switch (kind) {
    case SST_COPY_H2D:
        return SSI_NSYS_COPY_HTOD;
    case SST_COPY_D2H:
        return SSI_NSYS_COPY_DTOH;
    case SST_COPY_D2D:
        return SSI_NSYS_COPY_DTOD;
    case SST_COPY_H2H:
        return SSI_NSYS_COPY_HTOH;
    case SST_COPY_P2P:
        return SSI_NSYS_COPY_PTOP;
    case SST_COPY_H2A:
        return SSI_NSYS_COPY_HTOA;
    case SST_COPY_A2H:
        return SSI_NSYS_COPY_ATOH;
    case SST_COPY_OTHER:
        return SSI_NSYS_COPY_ATOA;
    default:
        return SSI_NSYS_COPY_UNKNOWN;
    }
}

uint8_t ssi_nsys_copy_to_sst(int64_t kind)
{
    switch (kind) {
    case SSI_NSYS_COPY_HTOD:
        return SST_COPY_H2D;
    case SSI_NSYS_COPY_DTOH:
        return SST_COPY_D2H;
    case SSI_NSYS_COPY_DTOD:
        return SST_COPY_D2D;
    case SSI_NSYS_COPY_HTOH:
        return SST_COPY_H2H;
    case SSI_NSYS_COPY_PTOP:
        return SST_COPY_P2P;
    case SSI_NSYS_COPY_HTOA:
        return SST_COPY_H2A;
    case SSI_NSYS_COPY_ATOH:
        return SST_COPY_A2H;
    case SSI_NSYS_COPY_ATOA:
    case SSI_NSYS_COPY_ATOD:
    case SSI_NSYS_COPY_DTOA:
    case SSI_NSYS_COPY_UVM_HTOD:
    case SSI_NSYS_COPY_UVM_DTOH:
    case SSI_NSYS_COPY_UVM_DTOD:
        return SST_COPY_OTHER;
    default:
        return SST_COPY_UNKNOWN;
    }
}

int ssi_nsys_mem_from_sst(uint8_t kind)
{
    return kind >= SST_MEM_PAGEABLE && kind <= SST_MEM_MANAGED_STATIC ? kind - 1
                                                                      : SSI_NSYS_MEM_UNKNOWN;
}

uint8_t ssi_nsys_mem_to_sst(int64_t kind)
{
    return kind >= SSI_NSYS_MEM_PAGEABLE && kind < SSI_NSYS_MEM_UNKNOWN ? (uint8_t)(kind + 1)
                                                                        : SST_MEM_UNKNOWN;
}

/* ---- CUDA API names ---- */

const char *ssi_nsys_api_name(uint8_t domain, uint32_t cbid, char *buf, size_t cap)
{
    const char *name = sst_cbid_name(domain, cbid);
    if (name) return name;
    snprintf(buf, cap, "%s_cbid%" PRIu32, domain == SST_API_DRIVER ? "cuUnknown" : "cudaUnknown",
             cbid);
    return buf;
}

/* Length of name without a trailing "_v<digits>" (nsys's reports strip it the same way). */
static size_t base_len(const char *name, size_t n)
{
    size_t i = n;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
        i--;
    if (i < n && i >= 2 && name[i - 1] == 'v' && name[i - 2] == '_') return i - 2;
    return n;
}

/* "cudaUnknown_cbid<N>" / "cuUnknown_cbid<N>", as ssi_nsys_api_name writes unknown ids. */
static int parse_unknown(const char *name, uint8_t *domain, uint32_t *cbid)
{
    const char *p;
    if (strncmp(name, "cudaUnknown_cbid", 16) == 0)
        *domain = SST_API_RUNTIME, p = name + 16;
    else if (strncmp(name, "cuUnknown_cbid", 14) == 0)
        *domain = SST_API_DRIVER, p = name + 14;
    else
        return 0;
    char *end;
    unsigned long v = strtoul(p, &end, 10);
    if (end == p || *end || v > UINT32_MAX) return 0;
    *cbid = (uint32_t)v;
    return 1;
}

/* Searches one domain's table: exact names first, then names equal without the suffix. */
static int find_in(uint8_t dom, const char *name, size_t n, int loose, uint32_t *cbid)
{
    size_t nb = base_len(name, n), count = sst_cbid_count(dom);
    for (uint32_t i = 0; i < count; i++) {
        const char *t = sst_cbid_name(dom, i);
        if (!t) continue;
        size_t tn = strlen(t);
        if (!loose ? (tn == n && memcmp(t, name, n) == 0)
                   : (base_len(t, tn) == nb && memcmp(t, name, nb) == 0)) {
            *cbid = i;
            return 1;
        }
    }
    return 0;
}

int ssi_nsys_api_from_name(const char *name, uint8_t prefer, uint8_t *domain, uint32_t *cbid)
{
    if (!name) return 0;
    if (parse_unknown(name, domain, cbid)) return 1;
    uint8_t other = prefer == SST_API_DRIVER ? SST_API_RUNTIME : SST_API_DRIVER;
    uint8_t first = prefer == SST_API_DRIVER ? SST_API_DRIVER : SST_API_RUNTIME;
    size_t n = strlen(name);
    for (int loose = 0; loose < 2; loose++) {
        if (find_in(first, name, n, loose, cbid)) return *domain = first, 1;
        if (find_in(other, name, n, loose, cbid)) return *domain = other, 1;
    }
    return 0;
}

/* ---- kernel names ---- */

/* The C++ ABI's demangler (libstdc++, the same one c++filt uses). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define SSI_DEMANGLE_MAX 8192 /* longer names are kept mangled (bounded work per name) */

char *ssi_nsys_demangle(const char *mangled, size_t len)
{
    if (len < 3 || len > SSI_DEMANGLE_MAX || mangled[0] != '_' || mangled[1] != 'Z') return NULL;
    char *copy = malloc(len + 1); /* the trace's strings are not NUL-terminated */
    if (!copy) return NULL;
    memcpy(copy, mangled, len);
    copy[len] = '\0';
    int status = -1;
    char *out = strchr(copy, '\0') == copy + len ? __cxa_demangle(copy, NULL, NULL, &status) : NULL;
    free(copy);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* Index of the last top-level '(' (the parameter list), or len when there is none. Brackets
 * are counted so that "(anonymous namespace)" inside scopes and "operator()" are skipped. */
static size_t params_at(const char *s, size_t len)
{
    int depth = 0;
    size_t at = len;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '(' && depth == 0) at = i;
        if (c == '(' || c == '<' || c == '[') depth++;
        if ((c == ')' || c == '>' || c == ']') && depth > 0) depth--;
    }
    /* "(anonymous namespace)::f" has its '(' at the top level too: only a list that closes
     * the name (followed by nothing but qualifiers) counts */
    if (at < len && at > 0 && s[at - 1] == ' ') return len;
    return at;
}

/* End of s[0..n) with a trailing "<...>" removed (template arguments of the function). */
static size_t strip_template(const char *s, size_t n)
{
    if (n == 0 || s[n - 1] != '>') return n;
    int depth = 0;
    for (size_t i = n; i-- > 0;) {
        if (s[i] == '>') depth++;
        if (s[i] == '<' && --depth == 0) {
            /* "operator<" / "operator<<": the '<' belongs to the name */
            if (i >= 8 && memcmp(s + i - 8, "operator", 8) == 0) return n;
            return i;
        }
    }
    return n;
}

/* Start of the last top-level "::"-separated or space-separated component of s[0..n). */
static size_t last_component(const char *s, size_t n)
{
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '(' || c == '<' || c == '[') depth++;
        if ((c == ')' || c == '>' || c == ']') && depth > 0) depth--;
        if (depth) continue;
        if (c == ' ') start = i + 1;
        if (c == ':' && i + 1 < n && s[i + 1] == ':') start = i + 2;
    }
    return start;
}

size_t ssi_nsys_short_name(const char *s, size_t len, char *out, size_t cap)
{
    if (cap == 0) return 0;
    size_t end = strip_template(s, params_at(s, len));
    size_t start = end ? last_component(s, end) : 0;
    if (start >= end) start = 0, end = len; /* nothing recognisable: the whole name */
    size_t n = end - start < cap - 1 ? end - start : cap - 1;
    memcpy(out, s + start, n);
    out[n] = '\0';
    return n;
}
