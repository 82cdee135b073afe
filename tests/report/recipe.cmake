# recipe.cmake: docs/design.md's "Add a report format", done to a copy of tools/report/ (OUT):
# its first file, the writer (WRITER, copied in as report_NAME.c), and its second, the row in
# report.h (the writer's "REPORT_FORMATS row:" line, added at the end of REPORT_FORMATS).
# Nothing else of the copy is changed; it builds stepscope-recipe-report
# (tests/report/CMakeLists.txt).
#   cmake -DSRC=tools/report -DWRITER=tests/report/report_plain.c -DOUT=DIR -P recipe.cmake
file(MAKE_DIRECTORY ${OUT})
file(GLOB files ${SRC}/*.[ch])
foreach(f ${files})
  get_filename_component(name ${f} NAME)
  if(NOT name STREQUAL "report.h")
    configure_file(${f} ${OUT}/${name} COPYONLY) # (copied only when changed)
  endif()
endforeach()
# 1. tools/report/report_NAME.c
get_filename_component(name ${WRITER} NAME)
configure_file(${WRITER} ${OUT}/${name} COPYONLY)
# 2. tools/report/report.h: the row, after the last one of REPORT_FORMATS
file(READ ${WRITER} writer)
if(NOT writer MATCHES "REPORT_FORMATS row: (X\\([^\n]*\\))\n")
  message(FATAL_ERROR "${WRITER}: no 'REPORT_FORMATS row: X(...)' line")
endif()
set(row "${CMAKE_MATCH_1}")
file(READ ${SRC}/report.h h)
string(FIND "${h}" "#define REPORT_FORMATS(X)" at)
string(SUBSTRING "${h}" ${at} -1 rest)
string(FIND "${rest}" "\n\n" end) # the macro ends at the first blank line
math(EXPR end "${at} + ${end}")
string(SUBSTRING "${h}" 0 ${end} head)
string(SUBSTRING "${h}" ${end} -1 tail)
file(WRITE ${OUT}/report.h.new "${head} \\\n    ${row}${tail}")
configure_file(${OUT}/report.h.new ${OUT}/report.h COPYONLY)
