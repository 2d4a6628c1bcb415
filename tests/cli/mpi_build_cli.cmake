# `dtb build` on MPI ranks (mpiexec, oversubscribed on this machine): the
# tables of 1, 2 and 3 ranks must be byte for byte those of the one-process
# build (SOURCE_DATE_EPOCH fixes the provenance date). A small
# --team-positions lets teams of ranks solve materials together; which do
# depends on timing (a material's team is its share of the ranks among the
# materials ready at the time), except for the material named last, built
# alone at the end on every rank: a kings-only one (one pair, split over the
# ranks) and one of men (levels shared out by whole pairs).
include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)
set(ENV{SOURCE_DATE_EPOCH} 1767225600)
small_or_full()
# Positions a team member for the builds up to `pieces`, the rule table
# killed and the plain table killed in teams.
set(team_positions 60000)
set(half_team_positions 30000)
set(killed_rul KKMvK.rul)
set(killed_team KMvKM)
if(pieces EQUAL 3)
  set(team_positions 5000)
  set(half_team_positions 2500)
  set(killed_rul KMvK.rul)
  set(killed_team KMvM)
endif()

set(work ${WORK}/mpi-build-cli)
file(REMOVE_RECURSE ${work})

# variant, what to build, positions per team member.
set(cases
  "brazilian|--pieces,${pieces}|${team_positions}"
  "american|--pieces,${pieces}|${team_positions}"
  "russian|--pieces,3|5000"
  "international|--pieces,3|100000"
  "canadian|--material,KKvK|100000"
  "brazilian|--material,MMvMM|20000"
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
      expect_in("${out}" "rank 2 ")  # the report of every rank
      if(what MATCHES "--material")
        # The material named, built last and alone, by all three ranks.
        list(GET what 1 target)
        string(REGEX MATCH "${target} [^\n]* on 3 ranks" team "${out}")
        if(team STREQUAL "")
          message(FATAL_ERROR "${target} was not solved by a team of 3 ranks: ${out}")
        endif()
      endif()
    endif()
  endforeach()
endforeach()

# Little memory for tables: the ones a team reads are shared out, each
# member taking its range from the ranks that solved it (in a team, their
# ranges) or from the file; the same tables still.
set(dir ${work}/little-memory)
mpi_run(3 0 build --variant brazilian --pieces ${pieces} --dir ${dir} --team-positions ${half_team_positions} --memory 0.001)
same_tables(brazilian ${work}/ref1 ${dir})

# Memory forces a team: Brazilian KKKvKK (4,027,520 positions, one pair)
# needs about 37 MB alone (2.125 bytes a position for its values, 7.125 for
# its pair in work), more than ranks of 0.02 GiB (21.5 MB) hold, and 14.3 MB
# a member on a team of 2 (7.125 bytes a position of a share): solved by 2
# ranks, though --team-positions (2^28 by default) would give it one; the
# same tables. With 0.005 GiB (5.4 MB) not even 2 ranks hold it: said once.
set(dir ${work}/memory-team)
mpi_run(2 0 build --variant brazilian --material KKKvKK --dir ${dir} --memory 0.02)
if(NOT out MATCHES "\nKKKvKK [^\n]* on 2 ranks")
  message(FATAL_ERROR "KKKvKK was not solved by a team of 2 ranks for want of memory: ${out}")
endif()
if(out MATCHES "over the budget")
  message(FATAL_ERROR "KKKvKK fits a team of 2, yet was said not to: ${out}")
endif()
same_tables(brazilian ${work}/ref7 ${dir})
mpi_run(2 0 build --variant brazilian --material KKKvKK --dir ${work}/memory-short --memory 0.005)
expect_in("${out}" "KKKvKK needs 0.013 GiB a rank on a team of 2, more than the smallest rank's 0.005 GiB")
expect_in("${out}" "it runs over the budget")
same_tables(brazilian ${work}/ref7 ${work}/memory-short)

# Tables asked of the ranks that keep them in parts of 4,096 positions
# (2^26 in a real build): many parts, packed, asked two ahead, a part asked
# again sent from those its holder kept packed; the same tables still.
set(ENV{DTB_TEST_PART_POSITIONS} 4096)
set(dir ${work}/small-parts)
mpi_run(3 0 build --variant brazilian --pieces ${pieces} --dir ${dir} --team-positions ${half_team_positions})
same_tables(brazilian ${work}/ref1 ${dir})
foreach(r 0 1 2)
  set(read_back "tables read back from their files [0-9]+ \\([0-9.]+ s, processor [0-9.]+ s\\)")
  set(parts "table parts packed [0-9]+, read packed [0-9]+, sent again [0-9]+")
  set(kept "kept tables packed [0-9]+, unpacked [0-9]+")
  if(NOT out MATCHES "rank ${r} [^\n]*; ${parts}; ${read_back}; ${kept}; peak memory")
    message(FATAL_ERROR "expected rank ${r}'s table parts packed and sent again in: ${out}")
  endif()
endforeach()
unset(ENV{DTB_TEST_PART_POSITIONS})

# Every material on a team of 2 (DTB_TEST_LARGEST_TEAMS), its levels of
# whole pairs in stages of 512 positions a member (DTB_TEST_STAGE_POSITIONS):
# many stages, each one's results and fetched blocks crossing while the next
# is solved; the same tables.
set(ENV{DTB_TEST_LARGEST_TEAMS} 1)
set(ENV{DTB_TEST_STAGE_POSITIONS} 512)
set(dir ${work}/stages)
mpi_run(2 0 build --variant brazilian --pieces ${pieces} --dir ${dir} --team-positions 1)
expect_in("${out}" "rank 0   0 alone, ${materials} in teams")
same_tables(brazilian ${work}/ref1 ${dir})
unset(ENV{DTB_TEST_LARGEST_TEAMS})
unset(ENV{DTB_TEST_STAGE_POSITIONS})

# With the rule tables (--rules): the same .rul files as one process makes,
# on 2 and 3 ranks, with teams for the plain tables; the rule jobs spread
# over the ranks (at least two of them solve some), reading the values other
# ranks solved from the packed forms they wrote, which are gone once the
# build ends.
run(0 build --variant brazilian --pieces ${pieces} --dir ${work}/rules-one --rules)
foreach(ranks 2 3)
  set(dir ${work}/rules-ranks${ranks})
  mpi_run(${ranks} 0 build --variant brazilian --pieces ${pieces} --dir ${dir} --rules --team-positions ${team_positions})
  expect_in("${last}" "rule tables: built ${materials}")
  same_tables(brazilian ${work}/rules-one ${dir})
  string(REGEX MATCHALL "in teams, [1-9][0-9]* rule tables" solving "${out}")
  list(LENGTH solving solving)
  string(REGEX MATCHALL "packed forms written [0-9]+, read [1-9]" unpacked "${out}")
  if(solving LESS 2 OR unpacked STREQUAL "")
    message(FATAL_ERROR "the rule jobs on ${ranks} ranks were not spread, or read no packed values: ${out}")
  endif()
  if(EXISTS ${dir}/brazilian/.packed)
    message(FATAL_ERROR "the build left its packed forms in ${dir}/brazilian/.packed")
  endif()
endforeach()

# The rank that writes KKMvK.rul (KMvK.rul up to 3 pieces) killed (SIGKILL) before the manifest lists
# it: the job ends, and run again on 2 ranks it resumes to the same files,
# reading the values it needs of the tables built before the kill from the
# packed forms that build left: none read back from its file, no rule
# values through their .rul files.
set(ENV{DTB_TEST_KILL_AFTER_WRITE} ${killed_rul})
mpi_run(3 1 build --variant brazilian --pieces ${pieces} --dir ${work}/rules-killed --rules)
unset(ENV{DTB_TEST_KILL_AFTER_WRITE})
expect_in("${err}" "signal 9")
mpi_run(2 0 build --variant brazilian --pieces ${pieces} --dir ${work}/rules-killed --rules)
expect_in("${out}" "rule table already built")
foreach(r 0 1)
  if(NOT out MATCHES "rank ${r} [^\n]*packed forms written [0-9]+, read [1-9][0-9]*, failed 0; rule values read through .rul files 0;[^\n]*tables read back from their files 0 ")
    message(FATAL_ERROR "expected rank ${r} of the resumed build to read packed forms only in: ${out}")
  endif()
endforeach()
if(NOT out MATCHES "\n${killed_rul} +[0-9,]+ positions")
  message(FATAL_ERROR "${killed_rul}, killed before the manifest listed it, was not built again: ${out}")
endif()
same_tables(brazilian ${work}/rules-one ${work}/rules-killed)

# Tables solved by teams leave one packed part a member (every material
# on its largest team, DTB_TEST_LARGEST_TEAMS): killed after KMvKM's tables
# (KMvM's up to 3 pieces)
# are written, the build resumed on 2 ranks reads what it needs of them from
# the parts, whole or a member's range, and reads nothing back from a file.
set(ENV{DTB_TEST_LARGEST_TEAMS} 1)
set(ENV{DTB_TEST_KILL_AFTER_WRITE} ${killed_team})
mpi_run(3 1 build --variant brazilian --pieces ${pieces} --dir ${work}/teams-killed --team-positions ${team_positions})
unset(ENV{DTB_TEST_KILL_AFTER_WRITE})
unset(ENV{DTB_TEST_LARGEST_TEAMS})
file(GLOB parts ${work}/teams-killed/brazilian/.packed/*.dtw.part*of*.zst)
if(parts STREQUAL "")
  message(FATAL_ERROR "the killed build left no packed parts of tables its teams solved")
endif()
mpi_run(2 0 build --variant brazilian --pieces ${pieces} --dir ${work}/teams-killed --team-positions ${team_positions})
foreach(r 0 1)
  if(NOT out MATCHES "rank ${r} [^\n]*failed 0;[^\n]*tables read back from their files 0 ")
    message(FATAL_ERROR "expected rank ${r} of the resumed build to read nothing back in: ${out}")
  endif()
endforeach()
same_tables(brazilian ${work}/ref1 ${work}/teams-killed)
if(EXISTS ${work}/teams-killed/brazilian/.packed)
  message(FATAL_ERROR "the resumed build left its packed forms")
endif()

# Built again on 2 ranks: nothing to do, and the skipped tables are named.
mpi_run(2 0 build --variant brazilian --material KKKvKK --dir ${work}/case7-ranks3 --team-positions 1000000)
expect_in("${out}" "KKKvKK     already built")
expect_in("${last}" "built 0 materials")

file(REMOVE_RECURSE ${work})
