/* ssi_nsys_names.c — values and names as nsys writes them: the enum mappings, CUDA API calls by
 * CUPTI callback id. (A kernel's demangled and short names: src/util/ss_cxxname.h.) */
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
