# Sets STEPSCOPE_NVTX3_INCLUDE_DIR to a directory that holds nvtx3/nvToolsExt.h, or leaves it
# false. Looks in the CUDA toolkit's include directories, then in the site-packages of python3
# (PyPI's nvidia-nvtx wheel installs nvidia/cu13/include/nvtx3/).
if(STEPSCOPE_NVTX3_INCLUDE_DIR)
  return()
endif()

if(NOT DEFINED CUDAToolkit_INCLUDE_DIRS)
  find_package(CUDAToolkit QUIET)
endif()

set(_ss_nvtx_hints ${CUDAToolkit_INCLUDE_DIRS})
find_program(_ss_python3 NAMES python3)
if(_ss_python3)
  execute_process(
    COMMAND ${_ss_python3} -c
      "import glob, os, site\nfor d in site.getsitepackages() + [site.getusersitepackages()]:\n    for h in sorted(glob.glob(os.path.join(d, 'nvidia', '*', 'include', 'nvtx3', 'nvToolsExt.h'))):\n        print(os.path.dirname(os.path.dirname(h)))"
    OUTPUT_VARIABLE _ss_py_dirs OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  string(REPLACE "\n" ";" _ss_py_dirs "${_ss_py_dirs}")
  list(APPEND _ss_nvtx_hints ${_ss_py_dirs})
endif()

find_path(STEPSCOPE_NVTX3_INCLUDE_DIR nvtx3/nvToolsExt.h
  HINTS ${_ss_nvtx_hints}
  PATHS /usr/local/cuda/include)
