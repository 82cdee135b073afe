/* sst_cbid.c — the names of sst_cbid_table.h (see sst_cbid.h). With the toolkit's CUPTI headers
 * on the include path (SST_HAVE_CUPTI_CBID, set by src/CMakeLists.txt) every row is checked
 * against CUPTI's enums at compile time: regenerate the table when a toolkit renumbers. */
#include "sst_cbid.h"

#include "sst_format.h"

#ifdef SST_HAVE_CUPTI_CBID
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#define SST_X_CHECK_RT(name, num)                                                                \
    _Static_assert(CUPTI_RUNTIME_TRACE_CBID_##name == num, #name);
#define SST_X_CHECK_DRV(name, num)                                                               \
    _Static_assert(CUPTI_DRIVER_TRACE_CBID_##name == num, #name);
SST_CBID_RUNTIME(SST_X_CHECK_RT)
SST_CBID_DRIVER(SST_X_CHECK_DRV)
/* A newer toolkit may add ids: regenerate the table then (it only grows). */
_Static_assert(CUPTI_RUNTIME_TRACE_CBID_SIZE >= SST_CBID_RUNTIME_SIZE, "runtime cbid table");
_Static_assert(CUPTI_DRIVER_TRACE_CBID_SIZE >= SST_CBID_DRIVER_SIZE, "driver cbid table");
#endif

#define SST_X_CBID_NAME(name, num) [num] = #name,
static const char *const runtime_names[] = {SST_CBID_RUNTIME(SST_X_CBID_NAME)};
static const char *const driver_names[] = {SST_CBID_DRIVER(SST_X_CBID_NAME)};
#undef SST_X_CBID_NAME

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

const char *sst_cbid_name(uint8_t domain, uint32_t cbid)
{
    if (domain == SST_API_RUNTIME && cbid < COUNT_OF(runtime_names)) return runtime_names[cbid];
    if (domain == SST_API_DRIVER && cbid < COUNT_OF(driver_names)) return driver_names[cbid];
    return NULL;
}

size_t sst_cbid_count(uint8_t domain)
{
    if (domain == SST_API_RUNTIME) return COUNT_OF(runtime_names);
    return domain == SST_API_DRIVER ? COUNT_OF(driver_names) : 0;
}
