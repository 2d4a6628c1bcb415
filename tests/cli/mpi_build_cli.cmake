# `dtb build` on MPI ranks (mpiexec, oversubscribed on this machine): the
# tables of 1, 2 and 3 ranks must be byte for byte those of the one-process
# build (SOURCE_DATE_EPOCH fixes the provenance date). A small
# --team-positions makes teams of ranks solve materials together, so that the
# teams' paths run here: levels shared out, pairs split over the team,
# kings-only materials (one pair) split over every rank.
include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)
set(ENV{SOURCE_DATE_EPOCH} 1767225600)

set(work ${WORK}/mpi-build-cli)
file(REMOVE_RECURSE ${work})

# variant, what to build, positions per team member.
set(cases
  "brazilian|--pieces,4|60000"
  "american|--pieces,4|60000"
  "russian|--pieces,3|5000"
  "international|--pieces,3|100000"
  "canadian|--material,KKvK|200000"
  "brazilian|--material,KKKvKK|1000000")
set(i 0)
foreach(case IN LISTS cases)
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 variant)
  list(GET parts 1 what)
  list(GET parts 2 team)
  string(REPLACE "," " " what_text "${what}")
  string(REPLACE "," ";" what "${what}")
  math(EXPR i "${i} + 1")
  set(ref ${work}/ref${i})
  run(0 build --variant ${variant} ${what} --dir ${ref} --output quiet)
  foreach(ranks 1 2 3)
    set(dir ${work}/case${i}-ranks${ranks})
    mpi_run(${ranks} 0 build --variant ${variant} ${what} --dir ${dir} --team-positions ${team})
    message(STATUS "${variant} ${what_text} on ${ranks} ranks: ${last}")
    expect_in("${out}" "building on ${ranks} ranks")
    same_tables(${variant} ${ref} ${dir})
    if(ranks EQUAL 3)
      # Teams ran (a material solved on several ranks), and the rank report is there.
      expect_in("${out}" " ranks\n")
      expect_in("${out}" "rank 2 ")
    endif()
  endforeach()
endforeach()
# The kings-only material of the last case, one pair of 4 million positions,
# was split over all three ranks.
expect_in("${out}" "KKKvKK")
string(REGEX MATCH "KKKvKK [^\n]* on 3 ranks" split "${out}")
if(split STREQUAL "")
  message(FATAL_ERROR "KKKvKK was not solved by a team of 3 ranks: ${out}")
endif()

# Built again on 2 ranks: nothing to do, and the skipped tables are named.
mpi_run(2 0 build --variant brazilian --material KKKvKK --dir ${work}/case6-ranks3 --team-positions 1000000)
expect_in("${out}" "KKKvKK     already built")
expect_in("${last}" "built 0 materials")

file(REMOVE_RECURSE ${work})
