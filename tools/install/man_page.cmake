# man_page.cmake: one man page from its scdoc source (docs/man/*.scd), with @FORMATS@ in it
# replaced by the --format words of `stepscope VERB --help` (report, diff): the rows of
# REPORT_FORMATS (tools/report/report.h), so that a new report format is on the pages without
# a word of them changed.
#   cmake -DSCDOC=scdoc -DSTEPSCOPE=build/stepscope -DSRC=PAGE.1.scd -DOUT=PAGE.1 -P man_page.cmake
file(READ ${SRC} page)
if(page MATCHES "@FORMATS@")
  get_filename_component(name ${SRC} NAME) # stepscope-report.1.scd
  string(REGEX REPLACE "^stepscope-([a-z]+)\\.1\\.scd$" "\\1" verb ${name})
  execute_process(COMMAND ${STEPSCOPE} ${verb} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
  # the option's first line, then the lines under its description column (21 spaces)
  set(under "\n                     [^ \n][^\n]*")
  if(NOT rc EQUAL 0 OR NOT help MATCHES "  -f, --format FMT +([^\n]*(${under})*)")
    message(FATAL_ERROR "${STEPSCOPE} ${verb} --help: no --format words (exit ${rc})")
  endif()
  string(REGEX REPLACE "\n +" " " words "${CMAKE_MATCH_1}")
  string(REGEX REPLACE "([*_\\\\])" "\\\\\\1" words "${words}") # scdoc's markup, escaped
  string(REPLACE "@FORMATS@" "${words}" page "${page}")
endif()
file(WRITE ${OUT}.scd "${page}")
execute_process(COMMAND ${SCDOC} INPUT_FILE ${OUT}.scd OUTPUT_FILE ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "scdoc ${SRC}: exit ${rc}")
endif()
