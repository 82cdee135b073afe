/*
 * ssi_kineto_map.c — Kineto's names for things -> the trace format's numbers, and the exact
 * decimal parser for its timestamps.
 *
 * The strings are those libkineto writes (cupti_strings.cpp, ActivityType.h, output_json.cpp
 * of pytorch/kineto): memcpy names "Memcpy HtoD (Pageable -> Device)", memset names
 * "Memset (Device)", sync names "Stream Sync", categories "kernel", "gpu_memcpy", ...
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/ssa.h"
#include "ssi_kineto_internal.h"

#define LIT_IS(s, n, lit) ((n) == sizeof(lit) - 1 && memcmp((s), (lit), (n)) == 0)
#define HAS_PREFIX(s, n, lit) ((n) >= sizeof(lit) - 1 && memcmp((s), (lit), sizeof(lit) - 1) == 0)

#define CAT(lit, cat)                                                                              \
    {                                                                                              \
        lit, sizeof(lit) - 1, cat                                                                  \
    }

enum ki_cat ki_cat_of(const char *s, size_t n)
{
    static const struct {
        const char *name;
        size_t len;
        enum ki_cat cat;
    } cats[] = {
        CAT("kernel", KC_KERNEL),
        CAT("gpu_memcpy", KC_MEMCPY),
        CAT("gpu_memset", KC_MEMSET),
        CAT("cuda_runtime", KC_RUNTIME),
        CAT("cuda_driver", KC_DRIVER),
        CAT("cuda_sync", KC_SYNC),
        CAT("user_annotation", KC_USER_ANNOTATION),
        CAT("cpu_op", KC_CPU_OP),
        CAT("python_function", KC_PYTHON),
        CAT("gpu_user_annotation", KC_GPU_ANNOTATION),
        /* Kineto's own categories with nothing stepscope imports (said in docs/interop.md) */
        CAT("ac2g", KC_KNOWN_SKIPPED),
        CAT("fwdbwd", KC_KNOWN_SKIPPED),
        CAT("Trace", KC_KNOWN_SKIPPED),
        CAT("overhead", KC_KNOWN_SKIPPED),
        CAT("cuda_event", KC_KNOWN_SKIPPED),
        CAT("cpu_instant_event", KC_KNOWN_SKIPPED),
        CAT("cuda_profiler_range", KC_KNOWN_SKIPPED),
        CAT("external_correlation", KC_KNOWN_SKIPPED),
        CAT("collective_comm", KC_KNOWN_SKIPPED),
    };
    for (size_t i = 0; i < sizeof cats / sizeof cats[0]; i++)
        if (cats[i].len == n && memcmp(cats[i].name, s, n) == 0) return cats[i].cat;
    return KC_OTHER;
}

/* ---- numbers ---- */

/* Decimal digits of s into *m (at most 19 significant digits; further integer digits raise
 * *exp, further fraction digits are dropped), fraction digits lower *exp. Returns the index
 * after the mantissa. */
static size_t read_mantissa(const char *s, size_t n, size_t i, uint64_t *m, int64_t *exp)
{
    int digits = 0, frac = 0;
    for (; i < n; i++) {
        char c = s[i];
        if (c == '.') {
            frac = 1;
            continue;
        }
        if (c < '0' || c > '9') break;
        if (digits < 19) {
            *m = *m * 10 + (uint64_t)(c - '0');
            if (*m) digits++;
            if (frac) (*exp)--;
        } else if (!frac) {
            (*exp)++;
        }
    }
    return i;
}

/* The exponent part "e-12"; clamped so that no arithmetic below overflows. */
static int64_t read_exponent(const char *s, size_t n, size_t i)
{
    if (i >= n || (s[i] != 'e' && s[i] != 'E')) return 0;
    i++;
    int neg = i < n && s[i] == '-';
    if (i < n && (s[i] == '-' || s[i] == '+')) i++;
    int64_t e = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
        if (e < 100000) e = e * 10 + (s[i] - '0');
    return neg ? -e : e;
}

/* m * 10^e rounded to nearest, into *q; -1 past KI_TS_LIMIT. */
static int scale_pow10(uint64_t m, int64_t e, uint64_t *q)
{
    if (m == 0) return *q = 0, 0;
    for (; e > 0; e--) {
        if (m > (uint64_t)KI_TS_LIMIT / 10) return -1;
        m *= 10;
    }
    if (e < -19) return *q = 0, 0; /* below half a unit */
    uint64_t p = 1;
    for (; e < 0; e++)
        p *= 10;
    uint64_t r = m % p;
    m /= p;
    if (r >= p - r) m++; /* r >= p/2 without overflowing 2r */
    if (m > (uint64_t)KI_TS_LIMIT) return -1;
    return *q = m, 0;
}

/* The usual number, digits with an optional fraction and 18 digits at most: its mantissa and
 * exponent as read_mantissa would give them (nothing is dropped), in one tight pass. 0 when
 * s[i..n) is not of that shape (the general path reads it). */
static int read_plain(const char *s, size_t n, size_t i, uint64_t *m, int64_t *exp)
{
    if (n - i > 19) return 0; /* 18 digits and the point */
    uint64_t v = 0;
    size_t point = n;
    for (size_t k = i; k < n; k++) {
        unsigned d = (unsigned)(unsigned char)s[k] - '0';
        if (d < 10)
            v = v * 10 + d;
        else if (s[k] == '.' && point == n)
            point = k;
        else
            return 0;
    }
    if (point + 1 == n || point == i) return 0;
    *m = v;
    *exp = point == n ? 0 : -(int64_t)(n - point - 1);
    return 1;
}

int ki_parse_scaled(const char *s, size_t n, int scale, int64_t *out)
{
    size_t i = 0;
    int neg = n > 0 && s[0] == '-';
    if (neg) i++;
    uint64_t m = 0;
    int64_t exp = 0;
    if (read_plain(s, n, i, &m, &exp)) {
        exp += scale;
    } else {
        m = 0, exp = 0;
        i = read_mantissa(s, n, i, &m, &exp);
        exp += read_exponent(s, n, i) + scale;
    }
    uint64_t q;
    if (scale_pow10(m, exp, &q) != 0) return -1;
    *out = neg ? -(int64_t)q : (int64_t)q;
    return 0;
}

/* ---- copies, memsets, syncs ---- */

static uint8_t mem_kind(const char *s, size_t n)
{
    static const char *const kinds[] = {"Unknown", "Pageable", "Pinned",        "Device",
                                        "Array",   "Managed",  "Device Static", "Managed Static"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strlen(kinds[i]) == n && memcmp(kinds[i], s, n) == 0) return (uint8_t)i;
    return SST_MEM_UNKNOWN;
}

static uint8_t copy_kind(const char *s, size_t n)
{
    static const struct {
        const char *name;
        uint8_t kind;
    } kinds[] = {{"HtoD", SST_COPY_H2D},  {"DtoH", SST_COPY_D2H},   {"DtoD", SST_COPY_D2D},
                 {"HtoH", SST_COPY_H2H},  {"PtoP", SST_COPY_P2P},   {"HtoA", SST_COPY_H2A},
                 {"AtoH", SST_COPY_A2H},  {"AtoA", SST_COPY_OTHER}, {"AtoD", SST_COPY_OTHER},
                 {"DtoA", SST_COPY_OTHER}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (n == 4 && memcmp(kinds[i].name, s, 4) == 0) return kinds[i].kind;
    return SST_COPY_UNKNOWN;
}

/* The memory kind(s) in "(...)" at the end of name: "(Pageable -> Device)" or "(Device)". */
static void paren_kinds(const char *name, size_t n, uint8_t *a, uint8_t *b)
{
    const char *open = memchr(name, '(', n);
    *a = *b = SST_MEM_UNKNOWN;
    if (!open || name[n - 1] != ')') return;
    const char *in = open + 1, *end = name + n - 1;
    const char *arrow = NULL;
    for (const char *p = in; p + 4 <= end; p++)
        if (memcmp(p, " -> ", 4) == 0) arrow = p;
    if (!arrow) {
        *a = mem_kind(in, (size_t)(end - in));
        return;
    }
    *a = mem_kind(in, (size_t)(arrow - in));
    *b = mem_kind(arrow + 4, (size_t)(end - arrow - 4));
}

void ki_memcpy_kinds(const char *name, size_t n, uint8_t *kind, uint8_t *src, uint8_t *dst)
{
    *kind = SST_COPY_UNKNOWN;
    *src = *dst = SST_MEM_UNKNOWN;
    if (!HAS_PREFIX(name, n, "Memcpy ")) return;
    *kind = n >= 11 ? copy_kind(name + 7, 4) : SST_COPY_UNKNOWN;
    paren_kinds(name, n, src, dst);
}

uint8_t ki_memset_kind(const char *name, size_t n)
{
    uint8_t a, b;
    if (!HAS_PREFIX(name, n, "Memset ")) return SST_MEM_UNKNOWN;
    paren_kinds(name, n, &a, &b);
    return a;
}

uint8_t ki_sync_kind(const char *name, size_t n)
{
    if (LIT_IS(name, n, "Event Sync")) return SST_SYNC_EVENT;
    if (LIT_IS(name, n, "Stream Wait Event")) return SST_SYNC_STREAM_WAIT_EVENT;
    if (LIT_IS(name, n, "Stream Sync")) return SST_SYNC_STREAM;
    if (LIT_IS(name, n, "Context Sync")) return SST_SYNC_CONTEXT;
    return SST_SYNC_UNKNOWN;
}

/* ---- API names ---- */

/* Length of a CUPTI enum name without its "_vNNNN" version suffix (4+ digits), the way
 * Kineto names API calls ("cudaLaunchKernel_v7000" -> "cudaLaunchKernel"; "_v2" stays). */
static size_t unversioned_len(const char *s)
{
    size_t n = strlen(s), d = n;
    while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
        d--;
    if (n - d >= 4 && d >= 2 && s[d - 1] == 'v' && s[d - 2] == '_') return d - 2;
    return n;
}

#define KI_CBID_SCAN 1024 /* the analysis's table holds cbids below this */

uint32_t ki_cbid_of(uint8_t domain, const char *name, size_t n)
{
    /* Only the calls the analysis classes (launch, sync, alloc) matter to it; their table is
     * the one in ssa_api_class.c. Used only when an event has no "cbid" (old Kineto). */
    for (uint32_t cbid = 1; cbid < KI_CBID_SCAN; cbid++) {
        const char *known = ssa_api_name(domain, cbid);
        if (known && unversioned_len(known) == n && memcmp(known, name, n) == 0) return cbid;
    }
    return 0;
}

/* ---- annotations ---- */

enum ki_range ki_range_kind(uint8_t cat, const char *name, size_t n)
{
    if (HAS_PREFIX(name, n, "ProfilerStep#")) return KR_STEP;
    if (HAS_PREFIX(name, n, "enumerate(DataLoader)#")) return KR_DATA;
    if (cat == KC_USER_ANNOTATION) return KR_RANGE;         /* record_function: the user's own */
    if (HAS_PREFIX(name, n, "Optimizer.")) return KR_RANGE; /* step / zero_grad */
    return KR_SKIP; /* aten ops, Python frames: many, and nothing the analysis reads */
}

void ki_thread_name(const char *s, size_t n, const char **out, size_t *out_len)
{
    *out = s, *out_len = n;
    if (!HAS_PREFIX(s, n, "thread ") || s[n - 1] != ')') return;
    const char *open = memchr(s, '(', n);
    if (!open || open + 1 >= s + n - 1) return;
    *out = open + 1;
    *out_len = (size_t)(s + n - 1 - (open + 1));
}
