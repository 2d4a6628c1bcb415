# run(expected_status args...): runs ${DTB} with args, fails the test if the
# exit status is not as expected (0, or any non-zero) or a failure printed no
# message; sets out, err and last (the last line of standard output).
function(run expected_status)
  execute_process(COMMAND ${DTB} ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(expected_status EQUAL 0 AND NOT status EQUAL 0)
    message(FATAL_ERROR "dtb ${ARGN} failed (${status}): ${err}")
  endif()
  if(NOT expected_status EQUAL 0 AND status EQUAL 0)
    message(FATAL_ERROR "dtb ${ARGN} should have failed")
  endif()
  if(NOT expected_status EQUAL 0 AND err STREQUAL "")
    message(FATAL_ERROR "dtb ${ARGN} failed without a message")
  endif()
  string(STRIP "${out}" out)
  string(REGEX REPLACE ".*\n" "" last "${out}")
  set(last "${last}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
endfunction()

# expect_in(text what): fails the test unless `what` occurs in `text`.
function(expect_in text what)
  string(FIND "${text}" "${what}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected '${what}' in: ${text}")
  endif()
endfunction()
