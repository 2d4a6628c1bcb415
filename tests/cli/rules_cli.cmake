# `dtb build --rules`, `dtb probe --rules`, `dtb stats --rules` and `dtb
# verify` of .rul tables from the command line (docs/rules.md): the same
# .rul files whatever the threads and the memory, a build killed after a
# .rul is written and resumed, the figures issue 19 gives for Brazilian
# three kings against one (found apart from this code), a hand-made
# position on each side of the limit of every count (FMJD 6.3-6.5, CBD 16,
# the 40-move rule, FMJD-64 7.2.4, 7.2.5, 7.2.7, 7.2.8, and a side without a
# move at a full count), and every bad count and table refused
# with a message and a non-zero status. The rule distances themselves are
# checked against the brute-force player of the rules in rule_solver_tests.
include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)
set(ENV{SOURCE_DATE_EPOCH} 1767225600)
small_or_full()
# A rule table killed and resumed, and one resumed from its levels (13
# potential levels either way); the least memory for the build (just above
# KKvKK's working set up to 4 pieces, 3.4 MiB; KMvK's up to 3, 110,672 bytes:
# dtb info --variant brazilian --material KMvK).
set(killed KKMvK.rul)
set(levels_material KMMvK.rul)
set(least_memory 3.5M)
if(pieces EQUAL 3)
  set(killed KMvK.rul)
  set(levels_material MMvK.rul)
  set(least_memory 120K)
endif()
math(EXPR tables "3 * ${materials}")

set(work ${WORK}/rules-cli)
file(REMOVE_RECURSE ${work})

# Brazilian up to 4 pieces (3 in the sanitizer builds) with the rule
# tables, then verify --full: every stored rule distance against the best
# over its moves.
run(0 build --variant brazilian --pieces ${pieces} --dir ${work}/whole --rules)
expect_in("${out}" "KKvK.rul")
expect_in("${last}" "rule tables: built ${materials}")
run(0 verify --variant brazilian --dir ${work}/whole --full --threads 2)
expect_in("${out}" "ok      KMvK.rul: every value is the best over its moves")
expect_in("${last}" "all ${tables} tables verified")

# The same files with one thread, and with the least memory the build
# allows (few rule values kept, the others' read back through the probe
# from their files; 1 KB, none kept: Solver.RulesWithLittleMemory).
run(0 build --variant brazilian --pieces ${pieces} --dir ${work}/one --rules --threads 1)
same_tables(brazilian ${work}/whole ${work}/one)
run(0 build --variant brazilian --pieces ${pieces} --dir ${work}/little --rules --memory ${least_memory})
same_tables(brazilian ${work}/whole ${work}/little)

# Killed (SIGKILL) once a .rul is written and before the manifest lists
# it; run again, it resumes to the same files.
set(ENV{DTB_TEST_KILL_AFTER_WRITE} ${killed})
execute_process(COMMAND ${DTB} build --variant brazilian --pieces ${pieces} --dir ${work}/killed --rules
                RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)
unset(ENV{DTB_TEST_KILL_AFTER_WRITE})
if(status EQUAL 0)
  message(FATAL_ERROR "the build was to be killed after writing ${killed}")
endif()
run(0 build --variant brazilian --pieces ${pieces} --dir ${work}/killed --rules)
expect_in("${last}" "already built")
same_tables(brazilian ${work}/whole ${work}/killed)
run(0 build --variant brazilian --pieces ${pieces} --dir ${work}/whole --rules)
expect_in("${last}" "rule tables: built 0 (0 positions)")
expect_in("${last}" "${materials} already built")

# Rule tables by levels: with every material's plain and rule solves a
# level at a time, a build killed once KMMvK.rul's checkpoint (MMvK.rul's
# up to 3 pieces) before its level 2, 7 or 13 of 13 is written resumes it
# from there, and a damaged checkpoint is not trusted (check_levels_resume
# in run.cmake); the .rul files are those of the build with every material
# whole.
check_levels_resume(${work} ${work}/whole brazilian ${levels_material} 13
                    build --variant brazilian --pieces ${pieces} --rules)

# Kings against kings, whatever the size above: KKKvK and KKvKK.
run(0 build --variant brazilian --material KKKvK --material KKvKK --dir ${work}/kings --rules)

# Issue 19's figures: Brazilian KKKvK, White to move, 132,240 wins, all
# within the 16-move count from its start; 8,144 lost to the count 13 plies
# in and 53,400 29 plies in; the longest win under the rules 22 plies.
run(0 stats --variant brazilian --dir ${work}/kings --material KKKvK --rules --json)
string(JSON wins GET "${out}" white_to_move classes win)
string(JSON cursed GET "${out}" white_to_move classes cursed_win)
string(JSON at13 GET "${out}" white_to_move survival 13)
string(JSON at29 GET "${out}" white_to_move survival 29)
string(JSON longest GET "${out}" white_to_move longest_rule_win)
math(EXPR gone13 "${wins} - ${at13}")
math(EXPR gone29 "${wins} - ${at29}")
if(NOT wins EQUAL 132240 OR NOT cursed EQUAL 0 OR NOT gone13 EQUAL 8144 OR NOT gone29 EQUAL 53400
   OR NOT longest EQUAL 22)
  message(FATAL_ERROR "Brazilian KKKvK under the rules: ${wins} wins, ${cursed} cursed, ${gone13} gone at 13, "
                      "${gone29} at 29, longest ${longest}; expected 132240, 0, 8144, 53400, 22")
endif()
run(0 stats --variant brazilian --dir ${work}/kings --material KKKvK --rules)
expect_in("${out}" "white to move, the count from zero: 132240 wins, 0 cursed wins")

# International, hand-made positions on each side of a limit. The rule: when
# a count reaches its limit the game is drawn unless the side to move has no
# legal move (docs/rules.md, "A win on the ply that completes a count").
run(0 build --variant international --material KKvKK --material KKKvK --dir ${work}/intl --rules)
# FMJD 6.5, one king against one: White's king on 28 takes Black's on 23 and
# the game is over, a win in 1. With 9 plies of the 10 counted it is still
# White's move inside the count: won. With 10 the count is full and White
# has a move: drawn (the plain value, a win, makes it a cursed win).
run(0 probe --variant international --dir ${work}/intl --rules --count E=9 W:WK28:BK23)
expect_in("${last}" "win 1 (win; rule distance win 1, 1 plies left)")
run(0 probe --variant international --dir ${work}/intl --rules --count E=10 W:WK28:BK23)
expect_in("${last}" "draw (cursed win; rule distance win 1, 0 plies left)")
# FMJD 6.4, one king against three: White's king on 46 takes Black's on 41
# along the long diagonal; Black has nothing left. 31 plies counted: won; 32: drawn.
run(0 probe --variant international --dir ${work}/intl --rules --count E=31 W:WK46,K1,K2:BK41)
expect_in("${last}" "win 1 (win;")
run(0 probe --variant international --dir ${work}/intl --rules --count E=32 W:WK46,K1,K2:BK41)
expect_in("${last}" "draw (cursed win;")
# FMJD 6.3, kings only: White's king on 46 takes 41 and, on along the same
# diagonal, 32: both of Black's kings in one move. 49 plies: won; 50: drawn.
run(0 probe --variant international --dir ${work}/intl --rules --count K=49 W:WK46,K1:BK41,K32)
expect_in("${last}" "win 1 (win;")
run(0 probe --variant international --dir ${work}/intl --rules --count K=50 W:WK46,K1:BK41,K32)
expect_in("${last}" "draw (cursed win;")
# The count full, but Black's king in the corner (5) has no move: the king on
# 10 blocks it and cannot be taken (14 behind it is occupied). Lost in 0.
run(0 probe --variant international --dir ${work}/intl --rules --count E=10 B:WK10,K14:BK5)
expect_in("${last}" "loss 0 (loss;")
# International has no main road; counts past limits, negative, K after E,
# a count the material does not have: each refused, naming the count.
foreach(bad "T=0" "E=11" "E=-1" "K=5,E=3" "K=51" "X=1" "E=1,E=2" "E=three")
  run(1 probe --variant international --dir ${work}/intl --rules --count ${bad} W:WK28:BK23)
endforeach()
run(1 probe --variant international --dir ${work}/intl --rules --count T=0 W:WK28:BK23)
expect_in("${err}" "no main-road count")
run(1 probe --variant international --dir ${work}/intl --rules --count E=11 W:WK28:BK23)
expect_in("${err}" "E=11 is past the limit of FMJD 6.5")
run(1 probe --variant international --dir ${work}/intl --rules --count E=1 W:WK46,K1:BK41,K32)
expect_in("${err}" "not a lone-king ending")

# On 8x8 boards (squares as PDN numbers them: 29, 25, 22, 18, 15 is the long
# diagonal, the main road, from White's left corner), White's king on 29
# takes Black's king on 25 and, for two kings, on 18 too (landing on 22,
# then 15 or beyond): the game is over in 1 ply, a win at one ply left and
# a draw at none. Brazilian, CBD 16 (20 moves each of kings only, 40 plies):
foreach(k 39 40)
  run(0 probe --variant brazilian --dir ${work}/kings --rules --count K=${k} W:WK29,K1:BK25,K18)
  set(brazilian${k} "${last}")
endforeach()
expect_in("${brazilian39}" "win 1 (win;")
expect_in("${brazilian40}" "draw (cursed win;")
# American, the 40-move rule (80 plies); the king jumps 25 and 18 in one move.
run(0 build --variant american --material KKvKK --dir ${work}/american --rules)
run(0 probe --variant american --dir ${work}/american --rules --count K=79 W:WK29,K1:BK25,K18)
expect_in("${last}" "win 1 (win;")
run(0 probe --variant american --dir ${work}/american --rules --count K=80 W:WK29,K1:BK25,K18)
expect_in("${last}" "draw (cursed win;")

# Russian: 7.2.5 (15 moves of kings only, 30 plies), 7.2.8 (one king against
# two: 5 moves, 10 plies), 7.2.4 (three kings against one: 15 moves, 30
# plies), and 7.2.7 (the main road, 10 plies from when the lone king first
# stood alone on it; here the count given, T), each at one ply left and at
# none. The main-road count cannot exceed the ending's; 7.2.7 with men is
# refused.
run(0 build --variant russian --material KKKvK --material KKMvK --material KKvKK --dir ${work}/russian --rules)
expect_in("${out}" "no rule table: KKMvK: FMJD-64 7.2.7")
foreach(case "K=29;W:WK29,K1:BK25,K18;win 1 (win;" "K=30;W:WK29,K1:BK25,K18;draw (cursed win;"
             "E=9;W:WK29,K1:BK25;win 1 (win;" "E=10;W:WK29,K1:BK25;draw (cursed win;"
             "E=29;W:WK29,K1,K2:BK25;win 1 (win;" "E=30;W:WK29,K1,K2:BK25;draw (cursed win;"
             "E=20,T=9;W:WK29,K1,K2:BK25;win 1 (win;" "E=20,T=10;W:WK29,K1,K2:BK25;draw (cursed win;")
  list(GET case 0 counts)
  list(GET case 1 fen)
  list(GET case 2 expected)
  run(0 probe --variant russian --dir ${work}/russian --rules --count ${counts} ${fen})
  expect_in("${last}" "${expected}")
endforeach()
run(1 probe --variant russian --dir ${work}/russian --rules --count E=3,T=4 W:WK1,K3,K5:BK29)
expect_in("${err}" "T=4 is larger than E=3")
run(1 probe --variant russian --dir ${work}/russian --rules --count E=20,T=11 W:WK1,K3,K5:BK29)
expect_in("${err}" "T=11 is past the limit of FMJD-64 7.2.7")
run(1 probe --variant russian --dir ${work}/russian --rules W:WK1,K3,10:BK29)
expect_in("${err}" "7.2.7")

# A missing and a damaged rule table: named, with what to do.
file(REMOVE ${work}/intl/international/KvK.rul)
run(1 probe --variant international --dir ${work}/intl --rules W:WK1:BK5)
expect_in("${err}" "KvK.rul: no such file (build it with dtb build --variant international --dir ${work}/intl --material KvK --rules)")
# One byte of the last block changed.
file(SIZE ${work}/intl/international/KKvK.rul size)
math(EXPR at "${size} - 20")
execute_process(COMMAND ${TOOL} flip ${work}/intl/international/KKvK.rul ${at} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "could not alter KKvK.rul")
endif()
# A position read in that block: KKvK.rul (format 2) stores Black to move,
# whose lone king here has no move.
run(1 probe --variant international --dir ${work}/intl --rules B:WK10,K14:BK5)
expect_in("${err}" "corrupted table ${work}/intl/international/KKvK.rul")
run(1 verify --variant international --dir ${work}/intl)
expect_in("${out}" "FAILED  corrupted table ${work}/intl/international/KKvK.rul")
