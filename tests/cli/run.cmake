# run(expected_status args...): runs ${DTB} with args, fails the test if the
# exit status is not as expected (0, or any non-zero) or a failure printed no
# message; sets out, err and last (the last line of standard output).
function(run expected_status)
  execute_process(COMMAND ${DTB} ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  check_run("dtb ${ARGN}")
endfunction()

# small_or_full(): the size of the Brazilian builds that the command-line
# tests repeat: up to 4 pieces, whose 23 materials are 3 of two pieces (a
# king or a man a side, a king against a man counted once), 6 of three and
# 14 of four; in the sanitizer builds (SMALL, tests/CMakeLists.txt) up to 3,
# 9 materials and a thirtieth of the positions, through the same code. Sets
# `pieces` and `materials`.
macro(small_or_full)
  if(SMALL)
    set(pieces 3)
    set(materials 9)
  else()
    set(pieces 4)
    set(materials 23)
  endif()
endmacro()

# check_run(what): in run() and mpi_run(), after the command: checks
# `status` against `expected_status` and that a failure said why, and sets
# out, err and last in the caller's caller.
macro(check_run what)
  if(expected_status EQUAL 0 AND NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status}): ${out} ${err}")
  endif()
  if(NOT expected_status EQUAL 0 AND status EQUAL 0)
    message(FATAL_ERROR "${what} should have failed: ${out}")
  endif()
  if(NOT expected_status EQUAL 0 AND err STREQUAL "")
    message(FATAL_ERROR "${what} failed without a message")
  endif()
  string(STRIP "${out}" out)
  string(REGEX REPLACE ".*\n" "" last "${out}")
  set(last "${last}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
endmacro()

# expect_in(text what): fails the test unless `what` occurs in `text`.
function(expect_in text what)
  string(FIND "${text}" "${what}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected '${what}' in: ${text}")
  endif()
endfunction()

# same_tables(variant a b): every table file (.wld, .dtw, .rul) of a/variant
# is in b/variant, byte for byte, and the other way round.
function(same_tables variant a b)
  file(GLOB files RELATIVE ${a}/${variant} ${a}/${variant}/*.wld ${a}/${variant}/*.dtw ${a}/${variant}/*.rul)
  file(GLOB others RELATIVE ${b}/${variant} ${b}/${variant}/*.wld ${b}/${variant}/*.dtw ${b}/${variant}/*.rul)
  list(LENGTH files n)
  list(LENGTH others n_other)
  if(n EQUAL 0 OR NOT n EQUAL n_other)
    message(FATAL_ERROR "${a} has ${n} ${variant} tables, ${b} ${n_other}")
  endif()
  foreach(f IN LISTS files)
    file(SHA256 ${a}/${variant}/${f} x)
    file(SHA256 ${b}/${variant}/${f} y)
    if(NOT x STREQUAL y)
      message(FATAL_ERROR "${variant} ${f} differs between ${a} and ${b}")
    endif()
  endforeach()
endfunction()

# mpi_run(ranks expected_status args...): like run(), with ${DTB} started on
# `ranks` ranks by ${MPIEXEC} (oversubscribed); a run that does not end
# within 300 s fails the test (a hang). In the sanitizer builds
# LeakSanitizer is off for these runs: Open MPI leaves memory allocated by
# plugins it unloads before the check, which no suppression can name; the
# address and undefined-behaviour checks stay on, and the same solver and
# writer code runs leak-checked in the tests without MPI.
function(mpi_run ranks expected_status)
  set(ENV{OMPI_ALLOW_RUN_AS_ROOT} 1)
  set(ENV{OMPI_ALLOW_RUN_AS_ROOT_CONFIRM} 1)
  set(ENV{ASAN_OPTIONS} "detect_leaks=0")
  execute_process(COMMAND ${MPIEXEC} -n ${ranks} --oversubscribe ${DTB} ${ARGN}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
  if(status MATCHES "timeout")
    message(FATAL_ERROR "dtb ${ARGN} on ${ranks} ranks did not end within 300 s: ${out} ${err}")
  endif()
  check_run("dtb ${ARGN} on ${ranks} ranks")
endfunction()

# check_levels_resume(work whole variant target levels args...): with every
# material solved a level at a time (DTB_TEST_LEVELS_FROM_POSITIONS=0),
# `dtb build args... --threads 2` into a folder of `work`, killed once
# target's checkpoint (a material's, or M.rul for its rule solve) before
# its level 2, 7 or `levels` is written (DTB_TEST_KILL_AT_LEVEL), resumes
# target from there, to the tables of `whole`; a checkpoint with a byte
# changed in its level's frames is not trusted, said so, and target is
# solved from its first level, to the same tables. The checkpoints go with
# their tables.
function(check_levels_resume work whole variant target levels)
  set(ENV{DTB_TEST_LEVELS_FROM_POSITIONS} 0)
  math(EXPR last "${levels} - 1")
  foreach(level 1 6 ${last} damaged)
    set(dir ${work}/levels-${target}-${level})
    set(kill_at ${level})
    if(level STREQUAL damaged)
      set(kill_at 6)
    endif()
    set(ENV{DTB_TEST_KILL_AT_LEVEL} ${target}:${kill_at})
    execute_process(COMMAND ${DTB} ${ARGN} --dir ${dir} --threads 2 RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)
    unset(ENV{DTB_TEST_KILL_AT_LEVEL})
    set(checkpoint ${dir}/${variant}/.levels/${target}/checkpoint.zst)
    if(status EQUAL 0 OR NOT EXISTS ${checkpoint})
      message(FATAL_ERROR "the build was not killed before ${target}'s level ${kill_at} (${status})")
    endif()
    if(level STREQUAL damaged)
      file(SIZE ${checkpoint} size)
      math(EXPR at "${size} * 3 / 4")  # a byte in the level's frames
      execute_process(COMMAND ${TOOL} flip ${checkpoint} ${at} RESULT_VARIABLE status)
      if(NOT status EQUAL 0)
        message(FATAL_ERROR "could not change a byte of ${checkpoint}")
      endif()
    endif()
    run(0 ${ARGN} --dir ${dir} --threads 2)
    if(level STREQUAL damaged)
      expect_in("${out}" "${target}/checkpoint.zst: ")
      expect_in("${out}" "solving ${target} from its first level")
    else()
      math(EXPR shown "${level} + 1")
      expect_in("${out}" "${target} resumed from its checkpoint at level ${shown} of ${levels}")
    endif()
    same_tables(${variant} ${whole} ${dir})
    if(EXISTS ${dir}/${variant}/.levels)
      message(FATAL_ERROR "the build left its levels behind in ${dir}")
    endif()
  endforeach()
  unset(ENV{DTB_TEST_LEVELS_FROM_POSITIONS})
endfunction()
