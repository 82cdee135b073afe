# The CUPTI half of the collector, tested without a GPU: CUPTI activity records are built in
# memory (only the CUPTI headers are needed, libcupti is neither linked nor loaded).
# Included from tests/collect/CMakeLists.txt; one ctest per case, each its own process.
if(STEPSCOPE_HAVE_CUPTI)
  add_executable(test_cupti_convert
    ${CMAKE_CURRENT_LIST_DIR}/test_cupti_convert.c
    ${CMAKE_SOURCE_DIR}/src/collect/ssc_cupti_convert.c
    ${CMAKE_SOURCE_DIR}/src/collect/ssc_cupti_watch.c)
  target_include_directories(test_cupti_convert SYSTEM PRIVATE
    $<TARGET_PROPERTY:CUDA::cupti,INTERFACE_INCLUDE_DIRECTORIES>)
  target_link_libraries(test_cupti_convert PRIVATE sstrace)
  foreach(case kernel untimed dropped memcpy memcpy_p2p memset sync api filter filter_lists
               memory overhead device unknown watch watch_backoff)
    add_test(NAME cupti_convert_${case} COMMAND test_cupti_convert ${case})
    set_tests_properties(cupti_convert_${case} PROPERTIES TIMEOUT 60)
  endforeach()
endif()
