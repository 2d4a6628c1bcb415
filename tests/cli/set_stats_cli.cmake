# scripts/set_stats.sh and scripts/set_report.py on a small set: one JSON line
# per material of the manifest, a second run (resuming) adds none, every
# material in the report with its White-to-move figures; a missing set fails
# with a message.
include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)

set(dir ${WORK}/set_stats)
set(jsonl ${WORK}/set_stats.jsonl)
file(REMOVE_RECURSE ${dir})
file(REMOVE ${jsonl})
run(0 build --variant brazilian --pieces 3 --dir ${dir} --output quiet)
file(READ ${dir}/brazilian/manifest.json manifest)
string(JSON materials LENGTH "${manifest}" tables)

function(set_stats expected_status)
  execute_process(COMMAND ${SOURCE}/scripts/set_stats.sh ${DTB} ${ARGN}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  check_run("set_stats.sh ${ARGN}")
endfunction()

function(expect_lines n)
  file(STRINGS ${jsonl} lines REGEX "^{")
  list(LENGTH lines got)
  if(NOT got EQUAL n)
    message(FATAL_ERROR "set_stats.sh: ${got} lines in ${jsonl}, expected ${n}")
  endif()
endfunction()

set_stats(0 ${dir} brazilian ${jsonl})
expect_lines(${materials})
set_stats(0 ${dir} brazilian ${jsonl})
expect_lines(${materials})

execute_process(COMMAND python3 ${SOURCE}/scripts/set_report.py ${dir}/brazilian/manifest.json ${jsonl}
                RESULT_VARIABLE status OUTPUT_VARIABLE report)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "set_report.py failed (${status})")
endif()
string(REGEX MATCHALL "\n\\| [KMv]+ \\|" rows "${report}")
list(LENGTH rows got)
if(NOT got EQUAL materials)
  message(FATAL_ERROR "set_report.py: ${got} rows, expected ${materials}: ${report}")
endif()
if(report MATCHES "\\*")
  message(FATAL_ERROR "set_report.py marked materials as lacking stats: ${report}")
endif()

set_stats(1 ${WORK}/set_stats_missing brazilian ${jsonl})
expect_in("${err}" "build the set first")
