#include "stepscope/stepscope.h"
#include "markers_test_tu2.h"

/* First use of this unit's cache happens on 4 threads at once (see check_threads). */
void tu2_step(uint64_t step)
{
    stepscope_step_begin(step);
    stepscope_step_end();
}
