# Every command dtb suggests in an error or a report works when pasted as it
# is: each is taken from what dtb printed, run by a shell, and the command
# that asked for it then succeeds. The tables folder's name has a space and a
# quote in it, so the suggestion must quote it.
include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)

set(dir "${WORK}/advice it's here")
file(REMOVE_RECURSE "${dir}")

# paste(text): runs the `dtb build ...` command that follows "with " in text,
# up to the closing parenthesis or the end, as a shell would, dtb being the
# program under test.
function(paste text)
  if(NOT text MATCHES "with (dtb build [^\n]*)")
    message(FATAL_ERROR "no dtb build command in: ${text}")
  endif()
  set(command "${CMAKE_MATCH_1}")
  string(REGEX REPLACE "\\)$" "" command "${command}")
  string(REGEX REPLACE "^dtb " "'${DTB}' " command "${command}")
  message(STATUS "pasting: ${command}")
  execute_process(COMMAND sh -c "${command} --output quiet" RESULT_VARIABLE status OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "the suggested command failed (${status}): ${command}\n${out}${err}")
  endif()
endfunction()

run(0 build --variant brazilian --dir "${dir}" --material KvK --output quiet)

# A probe that needs a table not built yet.
run(1 probe --variant brazilian --dir "${dir}" "W:WK1,K3:BK32")
paste("${err}")
run(0 probe --variant brazilian --dir "${dir}" "W:WK1,K3:BK32")

# Statistics under the draw rules without the .rul table.
run(1 stats --variant brazilian --dir "${dir}" --material KKvK --rules)
paste("${err}")
run(0 stats --variant brazilian --dir "${dir}" --material KKvK --rules)

# A report of a material without its .rul table says how to build it.
run(0 build --variant brazilian --dir "${dir}" --material KMvK --output quiet)
run(0 report --variant brazilian --dir "${dir}" --material KMvK --out "${dir}/KMvK.html")
file(READ "${dir}/KMvK.html" html)
if(NOT html MATCHES "<code>([^<]*)</code> to see its values")
  message(FATAL_ERROR "the report of KMvK suggests no command: ${html}")
endif()
set(command "${CMAKE_MATCH_1}")
foreach(entity "&#39;;'" "&quot;;\"" "&lt;;<" "&gt;;>" "&amp;;&")
  list(GET entity 0 from)
  list(GET entity 1 to)
  string(REPLACE "${from}" "${to}" command "${command}")
endforeach()
paste("with ${command}")
run(0 stats --variant brazilian --dir "${dir}" --material KMvK --rules)

# A position beyond any table dtb can build (60 kings on 12x12: 2^64 or more
# placements) is told so, not told to build it.
run(0 build --variant canadian --dir "${dir}" --material KvK --output quiet)
set(white "")
set(black "")
foreach(s RANGE 1 30)
  list(APPEND white "K${s}")
  math(EXPR b "${s} + 42")
  list(APPEND black "K${b}")
endforeach()
list(JOIN white "," white)
list(JOIN black "," black)
run(1 probe --variant canadian --dir "${dir}" "W:W${white}:B${black}")
expect_in("${err}" "beyond the 64-bit index")
if(err MATCHES "dtb build --")
  message(FATAL_ERROR "a material beyond the index is told to build it: ${err}")
endif()
