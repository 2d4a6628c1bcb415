# Faults in a distributed build (mpiexec, three ranks on this machine): a
# rank killed with SIGKILL in the middle of its team's work, and a rank that
# fails with an error. Either way the job must end (not hang) with a non-zero
# status and a message, the manifest must list only tables written whole, and
# the same command started again must say what it skips and end with the
# tables of an uninterrupted one-process build, byte for byte.
include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)
set(ENV{SOURCE_DATE_EPOCH} 1767225600)

set(work ${WORK}/mpi-fault-cli)
file(REMOVE_RECURSE ${work})
# KKKvKK's one pair of 4 million positions is split over the three ranks;
# the kings-only materials it leads to are solved first.
set(build build --variant brazilian --material KKKvKK --team-positions 1000000)
run(0 build --variant brazilian --material KKKvKK --dir ${work}/reference --output quiet)

# check_interrupted(dir): the job did not list KKKvKK, the tables it lists
# hold, and a new start skips them and finishes the same tables.
function(check_interrupted dir)
  file(READ ${dir}/brazilian/manifest.json manifest)
  string(FIND "${manifest}" "\"KKKvKK\"" listed)
  if(NOT listed EQUAL -1)
    message(FATAL_ERROR "the manifest lists KKKvKK, whose build was interrupted")
  endif()
  string(FIND "${manifest}" "\"KKKvK\"" listed)
  if(listed EQUAL -1)
    message(FATAL_ERROR "the manifest lost KKKvK, finished before the interruption: ${manifest}")
  endif()
  run(0 verify --variant brazilian --dir ${dir})
  mpi_run(3 0 ${build} --dir ${dir})
  expect_in("${out}" "KKKvK      already built")
  expect_in("${last}" "built 1 materials")
  same_tables(brazilian ${work}/reference ${dir})
endfunction()

# A rank dies (SIGKILL) while its team works on KKKvKK.
set(ENV{DTB_TEST_KILL_RANK} "1:KKKvKK")
mpi_run(3 1 ${build} --dir ${work}/killed)
unset(ENV{DTB_TEST_KILL_RANK})
message(STATUS "a rank killed: ${err}")
expect_in("${err}" "signal 9")
check_interrupted(${work}/killed)

# A rank fails with an error on KKKvKK: it says so and the job stops.
set(ENV{DTB_TEST_FAIL_RANK} "2:KKKvKK")
mpi_run(3 1 ${build} --dir ${work}/failed)
unset(ENV{DTB_TEST_FAIL_RANK})
expect_in("${err}" "dtb: error (rank 2 of 3): KKKvKK: a test made rank 2 fail")
check_interrupted(${work}/failed)

# Errors found before the work starts end every rank with the message.
mpi_run(2 1 build --variant chess --pieces 2 --dir ${work}/x)
expect_in("${err}" "unknown variant")
file(WRITE ${work}/bad/brazilian/manifest.json "{ not json")
mpi_run(2 1 build --variant brazilian --pieces 2 --dir ${work}/bad)
expect_in("${err}" "manifest")
expect_in("${err}" "remove it")

file(REMOVE_RECURSE ${work})
