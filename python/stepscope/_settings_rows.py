# Generated from src/trace/sst_settings.h by tools/install/settings_gen.c: do not edit;
# after a change of the table, `cmake --build build --target settings_py` (test
# settings.agree checks it).
"""The rows of stepscope's settings table that the Python shim reads (_settings.py reads
them): name -> (variable, type, values, default, what a value must be)."""

ROWS = {
    "HOST_SAMPLES": ("STEPSCOPE_HOST_SAMPLES", "choice", "off|1-1000", "100",
        "off or a number from 1 to 1000"),
    "QUIET": ("STEPSCOPE_QUIET", "switch", "", "0",
        "0 or 1"),
    "PYFRAMES": ("STEPSCOPE_PYFRAMES", "choice", "auto|gil", "auto",
        "auto or gil"),
    "PYSHIM": ("STEPSCOPE_PYSHIM", "switch", "", "1",
        "0 or 1"),
    "MARKERS_LIB": ("STEPSCOPE_MARKERS_LIB", "text", "", "",
        "any text"),
    "FOREIGN_CUDA_INJECTION": ("STEPSCOPE_FOREIGN_CUDA_INJECTION", "text", "", "",
        "any text"),
    "FOREIGN_NVTX_INJECTION": ("STEPSCOPE_FOREIGN_NVTX_INJECTION", "text", "", "",
        "any text"),
    "ROOT_PID": ("STEPSCOPE_ROOT_PID", "text", "", "",
        "any text"),
    "AUTO_FROM": ("STEPSCOPE_AUTO_FROM", "step_pid", "0-1000", "",
        "STEP:PID, STEP a number from 0 to 1000"),
    "HOST_SAMPLES_FORCE": ("STEPSCOPE_HOST_SAMPLES_FORCE", "switch", "", "0",
        "0 or 1"),
}
