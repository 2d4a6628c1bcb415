# `dtb build` from the command line: a build, `dtb verify --full` on it, a
# table altered behind the manifest's back, a build killed (SIGKILL) after
# writing a table and before listing it, builds killed at arbitrary moments,
# each resumed: the tables at the end must be byte for byte those of the
# uninterrupted build. SOURCE_DATE_EPOCH fixes the provenance date, so that
# whole files compare. The values themselves are checked against the
# brute-force solver in solver_tests.
include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)
set(ENV{SOURCE_DATE_EPOCH} 1767225600)
small_or_full()
# The material whose levels are resumed, 13 potential levels either way, and
# when builds are killed mid-material (a build up to 3 pieces is done sooner).
set(levels_material KMMvK)
set(kill_seconds 0.3 0.6 0.9 1.2)
if(pieces EQUAL 3)
  set(levels_material MMvK)
  set(kill_seconds 0.03 0.06 0.09 0.12)  # under the sanitizers a build up to 3 takes about 0.14 s
endif()


function(kill_after seconds dir)
  execute_process(COMMAND timeout -s KILL ${seconds} ${DTB} build --variant brazilian --pieces ${pieces} --dir ${dir}
                  RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)
  set(status "${status}" PARENT_SCOPE)
endfunction()

set(work ${WORK}/build-cli)
file(REMOVE_RECURSE ${work})

# The reference build; not on a terminal, one line per material.
run(0 build --variant brazilian --pieces ${pieces} --dir ${work}/whole)
expect_in("${out}" "KMvK")
expect_in("${out}" "positions/s")
expect_in("${last}" "built ${materials} materials")
run(0 verify --variant brazilian --dir ${work}/whole --full --threads 2)
expect_in("${last}" "values checked against their moves")
# The memory figures below are those of 4 pieces, in the sanitizer builds too.
set(whole4 ${work}/whole)
if(NOT pieces EQUAL 4)
  set(whole4 ${work}/whole4)
  run(0 build --variant brazilian --pieces 4 --dir ${whole4})
endif()

# The same tables whatever the number of threads (one; more than the cores):
# the solver's parallel parts (pairs in parallel, atomics inside big pairs,
# materials at once) must not change a byte.
foreach(threads 1 3)
  run(0 build --variant brazilian --pieces ${pieces} --dir ${work}/threads${threads} --threads ${threads})
  same_tables(brazilian ${work}/whole ${work}/threads${threads})
endforeach()

# Less memory than the largest material's working set at its least
# (KKvKK, its own mirror image: its 215,760 positions whole, 2 bytes and a
# bit each, and its one pair in work, the 431,520 placements of both sides
# to move, 7 bytes and a bit each: 458,496 + 3,074,584 = 3,533,080 bytes,
# 3.4 MiB) is refused with that figure, as a wrong option, before anything
# is built.
run(2 build --variant brazilian --pieces 4 --dir ${work}/little-memory --memory 0.001)
expect_in("${err}" "--memory of 1.0 MiB is less than the 3.4 MiB that solving KKvKK takes at the least")
expect_in("${err}" "dtb info --variant brazilian --material KKvKK")
file(GLOB built ${work}/little-memory/brazilian/*.dtw)
if(built)
  message(FATAL_ERROR "a build refused for its --memory built ${built}")
endif()
# Once KKvKK is built, a build of KKvKK and KMvK needs only KMvK's.
run(0 build --variant brazilian --material KKvKK --dir ${work}/little-memory)
run(0 build --variant brazilian --material KKvKK --material KMvK --dir ${work}/little-memory --memory 0.001)

# 3.5 MiB, just above: materials start one at a time, kept tables are let
# go of memory, and the packed forms are gone at the end. With every packed
# form failing to be written (as on a full disk), none is. The same tables
# both ways. Which tables let go are read again whole, and whether from
# their packed forms, their table files or through the probe cache, depends
# on which jobs happen to be in work at once; Solver.LetGoTablesAreReadAgain
# reads one back each way.
run(0 build --variant brazilian --pieces 4 --dir ${work}/spilled --memory 3.5M --threads 2)
same_tables(brazilian ${whole4} ${work}/spilled)
if(NOT out MATCHES "[1-9][0-9]* tables let go of memory")
  message(FATAL_ERROR "expected kept tables let go of memory in: ${out}")
endif()
if(EXISTS ${work}/spilled/brazilian/.packed)
  message(FATAL_ERROR "the build left its packed forms behind")
endif()
set(ENV{DTB_TEST_PACKED_FAILS} 1)
run(0 build --variant brazilian --pieces 4 --dir ${work}/spill-fails --memory 3.5M --threads 2)
unset(ENV{DTB_TEST_PACKED_FAILS})
same_tables(brazilian ${whole4} ${work}/spill-fails)
expect_in("${out}" "could not write the packed form of")
expect_in("${out}" " 0 packed forms written ")
expect_in("${out}" "values read from packed forms 0 times")

# A little more (4 MB, a working set and a few hundred kilobytes): kept
# tables give up their room packed rather than dropped, and are unpacked
# when read again. The same tables.
run(0 build --variant brazilian --pieces 4 --dir ${work}/packed --memory 0.004)
same_tables(brazilian ${whole4} ${work}/packed)
if(NOT out MATCHES "kept tables within the memory budget: [1-9][0-9]* packed [^\n]*, unpacked [1-9][0-9]* times")
  message(FATAL_ERROR "expected kept tables packed and unpacked in: ${out}")
endif()
# The summary sets the peak beside the budget (0.004 GiB: 4 MiB) and what was held against it.
expect_in("${out}" "(budget 4 MiB, held at most ")

# Run again: nothing to do.
run(0 build --variant brazilian --pieces ${pieces} --dir ${work}/whole)
expect_in("${last}" "built 0 materials")
expect_in("${last}" "${materials} already built")

# A table altered with valid checksums: verify passes, verify --full does not;
# build sees that the file is not the one in the manifest and builds it again.
file(COPY ${work}/whole/ DESTINATION ${work}/altered)
execute_process(COMMAND ${TOOL} alter brazilian ${work}/altered KMvK RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "synthetic_tool alter failed")
endif()
run(0 verify --variant brazilian --dir ${work}/altered)
run(1 verify --variant brazilian --dir ${work}/altered --full)
expect_in("${out}" "FAILED  KMvK: ")
run(0 build --variant brazilian --pieces ${pieces} --dir ${work}/altered)
expect_in("${out}" "KMvK")
expect_in("${out}" "building it again")
expect_in("${last}" "built 1 materials")
same_tables(brazilian ${work}/whole ${work}/altered)

# Killed after writing KKvKM's tables (KMvK's up to 3 pieces), before the
# manifest lists them.
set(killed KKvKM)
if(pieces EQUAL 3)
  set(killed KMvK)
endif()
set(ENV{DTB_TEST_KILL_AFTER_WRITE} ${killed})
execute_process(COMMAND ${DTB} build --variant brazilian --pieces ${pieces} --dir ${work}/killed
                RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)
unset(ENV{DTB_TEST_KILL_AFTER_WRITE})
if(status EQUAL 0 OR NOT EXISTS ${work}/killed/brazilian/${killed}.dtw)
  message(FATAL_ERROR "the build was not killed after writing ${killed} (${status})")
endif()
file(READ ${work}/killed/brazilian/manifest.json manifest)
string(FIND "${manifest}" "\"${killed}\"" listed)
if(NOT listed EQUAL -1)
  message(FATAL_ERROR "the manifest lists ${killed}, whose build was killed")
endif()
# The resumed build reads the tables built before the kill from the packed
# forms that build left, not back from their files.
run(0 build --variant brazilian --pieces ${pieces} --dir ${work}/killed)
expect_in("${out}" "already built")
if(NOT out MATCHES "values read from packed forms [1-9][0-9]* times [^\n]*; 0 read back from their files")
  message(FATAL_ERROR "expected the resumed build to read its tables from their packed forms in: ${out}")
endif()
same_tables(brazilian ${work}/whole ${work}/killed)

# Killed at arbitrary moments, mid-material, and resumed each time.
foreach(seconds ${kill_seconds})
  kill_after(${seconds} ${work}/interrupted)
  if(status EQUAL 0)
    break()
  endif()
  file(GLOB left ${work}/interrupted/brazilian/*.tmp)
  message(STATUS "killed after ${seconds} s; temporary files left: ${left}")
endforeach()
run(0 build --variant brazilian --pieces ${pieces} --dir ${work}/interrupted)
run(0 verify --variant brazilian --dir ${work}/interrupted)
same_tables(brazilian ${work}/whole ${work}/interrupted)

# Inside a material: with every material solved a level at a time, a
# build killed once KMMvK's checkpoint (MMvK's up to 3 pieces) before its
# level 2, 7 or 13 of 13 is written resumes it from there, and a damaged
# checkpoint is not trusted (check_levels_resume in run.cmake); the tables
# are those of the build with every material whole.
check_levels_resume(${work} ${work}/whole brazilian ${levels_material} 13 build --variant brazilian --pieces ${pieces})

# Errors name the problem and the fix.
run(1 build --variant brazilian --dir ${work}/x)
expect_in("${err}" "--pieces N or --material M")
# --memory takes a size with its unit, or a plain number of GiB.
foreach(case "512M;512" "1.5G;1536" "2;2048" "1GiB;1024")
  list(GET case 0 given)
  list(GET case 1 mib)
  run(0 build --variant brazilian --pieces 2 --dir ${work}/memory --memory ${given} --output quiet)
  expect_in("${out}" "budget ${mib} MiB")
endforeach()
foreach(given 0 -1 4X 1e400)
  run(2 build --variant brazilian --pieces 2 --dir ${work}/memory --memory ${given})
  expect_in("${err}" "'${given}' is not a size: give one such as 4G, 512M or 1.5T")
endforeach()
# The test boards are the library's, for its tests: dtb knows the five variants.
run(1 build --variant international6 --pieces 2 --dir ${work}/x)
expect_in("${err}" "unknown variant 'international6'")
run(1 build --variant chess --pieces 2 --dir ${work}/x)
expect_in("${err}" "unknown variant")
run(1 build --variant brazilian --material KXvK --dir ${work}/x)
expect_in("${err}" "KXvK")
run(1 build --variant brazilian --pieces 2 --material KvK --dir ${work}/x)
file(WRITE ${work}/bad/brazilian/manifest.json "{ not json")
run(1 build --variant brazilian --pieces 2 --dir ${work}/bad)
expect_in("${err}" "manifest")
expect_in("${err}" "remove it")
run(1 build --variant brazilian --pieces 2 --dir ${work}/x --rank-timeout 1)
expect_in("${err}" "--rank-timeout")
file(WRITE ${work}/file "")
run(1 build --variant brazilian --pieces 2 --dir ${work}/file)
expect_in("${err}" "cannot create")

file(REMOVE_RECURSE ${work})
