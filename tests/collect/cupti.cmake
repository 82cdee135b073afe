# The CUPTI half of the collector, tested without a GPU: CUPTI activity records are built in
# memory (only the CUPTI headers are needed, libcupti is neither linked nor loaded).
# Included from tests/collect/CMakeLists.txt; one ctest per case, each its own process.
if(STEPSCOPE_HAVE_CUPTI)
  add_executable(test_cupti_convert
    ${CMAKE_CURRENT_LIST_DIR}/test_cupti_convert.c
    ${CMAKE_SOURCE_DIR}/src/collect/ssc_cupti_convert.c
    ${CMAKE_SOURCE_DIR}/src/collect/ssc_cupti_watch.c
    ${CMAKE_SOURCE_DIR}/src/collect/ssc_cupti_api.c)
  target_include_directories(test_cupti_convert SYSTEM PRIVATE
    $<TARGET_PROPERTY:CUDA::cupti,INTERFACE_INCLUDE_DIRECTORIES>)
  target_link_libraries(test_cupti_convert PRIVATE sstrace)
  foreach(case kernel untimed dropped memcpy memcpy_p2p memset sync api filter filter_lists
               memory overhead device unknown watch watch_backoff
               graph api_cb_pair api_cb_nested api_cb_unpaired)
    add_test(NAME cupti_convert_${case} COMMAND test_cupti_convert ${case})
    set_tests_properties(cupti_convert_${case} PROPERTIES TIMEOUT 60)
  endforeach()
endif()

# The CUPTI session itself (ssc_cupti.c) against a fake libcupti.so.13 (fake_cupti.c), found
# first through LD_LIBRARY_PATH: hand-over to torch.profiler and take-back on the shim's marks,
# no subscription held, conflict with another client.
if(STEPSCOPE_HAVE_CUPTI AND TARGET stepscope_collector)
  add_library(fake_cupti SHARED ${CMAKE_CURRENT_LIST_DIR}/fake_cupti.c)
  target_include_directories(fake_cupti SYSTEM PRIVATE
    $<TARGET_PROPERTY:CUDA::cupti,INTERFACE_INCLUDE_DIRECTORIES>)
  target_link_libraries(fake_cupti PRIVATE Threads::Threads)
  set_target_properties(fake_cupti PROPERTIES OUTPUT_NAME cupti SOVERSION 13
    C_VISIBILITY_PRESET hidden
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fake_cupti)
  add_executable(cupti_prog ${CMAKE_CURRENT_LIST_DIR}/cupti_prog.c)
  target_include_directories(cupti_prog SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
  target_include_directories(cupti_prog PRIVATE ${CMAKE_SOURCE_DIR}/include)
  target_link_libraries(cupti_prog PRIVATE fake_cupti Threads::Threads ${CMAKE_DL_LIBS})
  set(cupti_cases profiler profiler_before_cuda conflict kinds_off thread_name
               detach detach_off detach_idle detach_fails auto auto_late auto_shim auto_short auto_stall auto_stall_early auto_nostep auto_ticks_graph auto_ticks_backward auto_ticks_mixed
               light_findings
               detach_cuda_late cb_calls cb_window_callbacks cb_window_auto cb_window_activity
               cb_race cb_race_exit cb_profiler cb_watch cb_watch_light cost environ pinned
               sync_site sync_site_activity launch_sample launch_sample_activity
               launch_sample_default every_steps every_time rewindow rewindow_steady
               rewindow_off reattach_fails every_refused)
  # cb_fork's child starts the collector's writer thread after a fork() of a process with
  # threads, which ThreadSanitizer does not support (it kills the child).
  if(NOT STEPSCOPE_TSAN)
    list(APPEND cupti_cases cb_fork)
  endif()
  # auto_shim runs python3 (not sanitized) with the collector: the sanitizers' runtimes are
  # preloaded under ASan (tests/CMakeLists.txt); none is for ThreadSanitizer, so not there.
  if(STEPSCOPE_TSAN OR (STEPSCOPE_SANITIZE AND NOT SS_SANITIZER_PRELOAD_ENV))
    list(REMOVE_ITEM cupti_cases auto_shim)
  endif()
  foreach(case ${cupti_cases})
    add_test(NAME collect_cupti_${case}
      COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/run_cupti_test.sh ${case}
              $<TARGET_FILE:stepscope> $<TARGET_FILE:cupti_prog> $<TARGET_FILE_DIR:fake_cupti>
              ${CMAKE_CURRENT_BINARY_DIR}/work-cupti-${case})
    set_tests_properties(collect_cupti_${case} PROPERTIES TIMEOUT 60)
  endforeach()
  if(STEPSCOPE_SANITIZE AND TARGET stepscope AND "auto_shim" IN_LIST cupti_cases)
    set_tests_properties(collect_cupti_auto_shim PROPERTIES ENVIRONMENT
                         "${SS_SANITIZER_PRELOAD_ENV}")
  endif()
endif()

# The overhead floor's in-process A/B (bench/overhead/cupti_floor.c, CUPTI_FLOOR_ALTERNATE)
# against the fake libcupti: callbacks off in odd windows, on in even ones.
if(STEPSCOPE_HAVE_CUPTI AND TARGET stepscope_collector AND TARGET cupti_floor)
  add_executable(floor_prog ${CMAKE_CURRENT_LIST_DIR}/floor_prog.c)
  target_include_directories(floor_prog SYSTEM PRIVATE
    $<TARGET_PROPERTY:CUDA::cupti,INTERFACE_INCLUDE_DIRECTORIES>)
  target_link_libraries(floor_prog PRIVATE fake_cupti ${CMAKE_DL_LIBS})
  add_test(NAME collect_floor_alternate
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/run_floor_test.sh $<TARGET_FILE:floor_prog>
            $<TARGET_FILE:cupti_floor> $<TARGET_FILE_DIR:fake_cupti>)
  set_tests_properties(collect_floor_alternate PROPERTIES TIMEOUT 60)
endif()
