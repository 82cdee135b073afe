/*
 * sst_cbid.h — what the numbers in sst_rec_api.cbid mean: the one table of CUPTI callback ids
 * (sst_cbid_table.h, generated from the CUPTI headers by gen_cbid_table.sh), as names and as
 * enum constants. The analysis classes calls by these constants (ssa_api_class.c: a name that
 * is not a CUPTI callback does not build); the exporters and importers name calls with
 * sst_cbid_name. Not in the collector (it records numbers only).
 */
#ifndef SST_CBID_H
#define SST_CBID_H

#include <stddef.h>
#include <stdint.h>

#include "sst_cbid_table.h"

/* SST_CBID_RT_cudaLaunchKernel_v7000 == 211, SST_CBID_DRV_cuLaunchKernel == 307, ... */
enum sst_cbid_runtime {
#define SST_X_CBID_RT(name, num) SST_CBID_RT_##name = num,
    SST_CBID_RUNTIME(SST_X_CBID_RT)
#undef SST_X_CBID_RT
};
enum sst_cbid_driver {
#define SST_X_CBID_DRV(name, num) SST_CBID_DRV_##name = num,
    SST_CBID_DRIVER(SST_X_CBID_DRV)
#undef SST_X_CBID_DRV
};

/* The name of a call (domain: enum sst_api_domain), e.g. "cudaLaunchKernel_v7000",
 * "cuLaunchKernel"; NULL for an id the table does not know. Static storage. */
const char *sst_cbid_name(uint8_t domain, uint32_t cbid);

/* One past the largest id of a domain's table (0 for an unknown domain). */
size_t sst_cbid_count(uint8_t domain);

#endif
