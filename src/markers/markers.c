/*
 * libstepscope_markers.so — the markers of include/stepscope/stepscope.h behind a plain C ABI,
 * for languages that cannot compile the header at run time. The Python shim
 * (python/stepscope/) loads it with ctypes, so its events carry category 2 ("pyshim").
 *
 * Only the stepscope_markers_* functions are exported (-fvisibility=hidden); nvtx3 keeps its own
 * globals hidden in this module and dlopens NVTX_INJECTION64_PATH on the first call.
 */
#include <stdint.h>

#include "stepscope/stepscope.h"

#define SS_MARKERS_API __attribute__((visibility("default")))

SS_MARKERS_API void stepscope_markers_step_begin(uint64_t step);
SS_MARKERS_API void stepscope_markers_step_end(void);
SS_MARKERS_API void stepscope_markers_data_begin(void);
SS_MARKERS_API void stepscope_markers_data_end(void);
SS_MARKERS_API void stepscope_markers_range_push(const char *name);
SS_MARKERS_API void stepscope_markers_range_pop(void);
SS_MARKERS_API void stepscope_markers_mark(const char *name);

void stepscope_markers_step_begin(uint64_t step)
{
    stepscope_detail_step_begin(STEPSCOPE_CATEGORY_PYSHIM, step);
}

void stepscope_markers_step_end(void)
{
    stepscope_detail_pop();
}

void stepscope_markers_data_begin(void)
{
    stepscope_detail_data_begin(STEPSCOPE_CATEGORY_PYSHIM);
}

void stepscope_markers_data_end(void)
{
    stepscope_detail_pop();
}

void stepscope_markers_range_push(const char *name)
{
    stepscope_detail_range_push(STEPSCOPE_CATEGORY_PYSHIM, name);
}

void stepscope_markers_range_pop(void)
{
    stepscope_detail_pop();
}

void stepscope_markers_mark(const char *name)
{
    stepscope_detail_mark(STEPSCOPE_CATEGORY_PYSHIM, name);
}
