# `dtb info`: JSON keys and values worked out by hand, and bad input.
include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)

function(expect_list json key)
  string(JSON n LENGTH "${json}" ${key})
  list(LENGTH ARGN expected_n)
  if(NOT n EQUAL expected_n)
    message(FATAL_ERROR "dtb info: ${key} has ${n} entries, expected ${ARGN}")
  endif()
  set(i 0)
  foreach(expected IN LISTS ARGN)
    string(JSON value GET "${json}" ${key} ${i})
    if(NOT value STREQUAL expected)
      message(FATAL_ERROR "dtb info: ${key}[${i}] is '${value}', expected '${expected}'")
    endif()
    math(EXPR i "${i} + 1")
  endforeach()
endfunction()

function(expect_json json key expected)
  string(JSON value GET "${json}" ${key})
  if(NOT value STREQUAL "${expected}")
    message(FATAL_ERROR "dtb info: ${key} is '${value}', expected '${expected}'")
  endif()
endfunction()

# KKvK on 8x8: C(32,2) * 30 placements, one men configuration (none), one level.
# Black's king capturing a white king leaves KvK; White capturing leaves Black nothing.
run(0 info --variant american --material KKvK --json)
expect_json("${out}" variant american)
expect_json("${out}" material KKvK)
expect_json("${out}" positions_per_side 14880)
expect_json("${out}" men_configurations 1)
expect_json("${out}" potential_levels 1)
expect_list("${out}" successors KvK)

# MvK on 8x8: the man on 28 squares (not row 1), the king on the 31 others;
# advancement 0..6, seven levels; crowning gives KvK.
run(0 info --variant checkers --material MvK --json)
expect_json("${out}" positions_per_side 868)
expect_json("${out}" men_configurations 28)
expect_json("${out}" potential_levels 7)
expect_list("${out}" successors KvK)

# The least memory one process solves MvK in: its 1,736 positions whole, 2
# bytes each and a capture bit (28 words of 8): 3,696 bytes; its pairs (62
# positions) too small to count. Held a level at a time it would take more
# (a window of the whole table and the packed levels besides).
expect_json("${out}" working_set_bytes 3696)
expect_json("${out}" working_set_by_levels OFF)

# Canadian KKMvKM (1,410,978,240 positions, 21 levels): a level at a time,
# in less than its values whole (2,998,328,760 bytes) and more than the
# packed levels counted at 3/8 of a byte a position (529,116,840).
run(0 info --variant canadian --material KKMvKM --json)
expect_json("${out}" working_set_by_levels ON)
string(JSON least GET "${out}" working_set_bytes)
if(least LESS_EQUAL 529116840 OR least GREATER_EQUAL 2998328760)
  message(FATAL_ERROR "dtb info canadian KKMvKM: a working set of ${least} bytes")
endif()
run(0 info --variant canadian --material KKMvKM)
expect_in("${out}" "working set: ")
expect_in("${out}" "(a level at a time), the least dtb build --memory for it")
run(0 info --variant brazilian --pieces 4)
expect_in("${out}" "largest working set: 3.4 MiB (whole), KKvKK")

# Two pieces on 8x8: KvK (32 * 31), KvM (28 * 31), MvM (28 * 28 - 24 shared middle squares).
run(0 info --variant brazilian --pieces 2 --json)
string(JSON n LENGTH "${out}")
if(NOT n EQUAL 3)
  message(FATAL_ERROR "dtb info --pieces 2: expected 3 materials, got ${n}: ${out}")
endif()
foreach(pair "0;KvK;992" "1;KvM;868" "2;MvM;760")
  list(GET pair 0 i)
  list(GET pair 1 name)
  list(GET pair 2 size)
  string(JSON item GET "${out}" ${i})
  expect_json("${item}" material ${name})
  expect_json("${item}" positions_per_side ${size})
endforeach()

# Canadian KKKvK: C(72,3) * 69 placements.
run(0 info --variant canadian --material KKKvK)
if(NOT out MATCHES "positions per side to move: 4115160")
  message(FATAL_ERROR "dtb info canadian KKKvK: ${out}")
endif()

run(1 info --variant shogi --material KvK)
run(1 info --variant american --material KvKvK)
if(NOT err MATCHES "expected one 'v'")
  message(FATAL_ERROR "bad material message: ${err}")
endif()
run(2 info --variant american)
run(2 info --variant american --material KvK --pieces 2)
run(2 info --variant american --pieces 1)

# KMvM on 12x12. White crowning: KKvM (White taking the man leaves Black
# nothing). Black taking the man: KvM; the king: MvM; crowning: KMvK; taking
# the man while crowning: KvK (the king while crowning: MvK, stored as KvM).
# Sorted by (white men, white kings, black men, black kings).
run(0 info --variant canadian --material KMvM --json)
expect_list("${out}" successors KvK KvM KKvM MvM KMvK)

# The version, and help as a subcommand.
run(0 --version)
if(NOT out MATCHES "^dtb [0-9]+\\.[0-9]+\\.[0-9]+$")
  message(FATAL_ERROR "dtb --version: ${out}")
endif()
run(0 help)
expect_in("${out}" "Usage: dtb [OPTIONS] SUBCOMMAND")
expect_in("${out}" "build")
run(0 help build)
expect_in("${out}" "Usage: dtb build [OPTIONS]")
expect_in("${out}" "--memory")
run(2 help chess)
expect_in("${err}" "no subcommand 'chess': run dtb help for the list")
