// The public header compiled as C++ (with the RAII helpers): it must build without warnings,
// link, and run as a no-op without injection.
#include "stepscope/stepscope.h"

#include <cstdio>
#include <cstdlib>

int main()
{
    unsetenv("NVTX_INJECTION64_PATH"); // no tool: the markers must be no-ops
    for (uint64_t step = 0; step < 3; step++) {
        stepscope::step_scope s(step);
        {
            stepscope::data_scope d;
        }
        stepscope::range_scope r("forward");
        stepscope_mark("loss");
    }
    stepscope_step_begin(7);
    stepscope_step_end();
    std::printf("ok: C++ markers ran\n");
    return 0;
}
