# `dtb probe`, `dtb stats` and `dtb verify` on synthetic tables written by
# tests/probe/synthetic_tool; the expected values come from that tool's own
# search (tests/probe/synthetic_tables.hpp), not from dtb.
include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)

function(tool)
  execute_process(COMMAND ${TOOL} ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "synthetic_tool ${ARGN} failed: ${err}")
  endif()
  string(STRIP "${out}" out)
  set(out "${out}" PARENT_SCOPE)
endfunction()


set(dir ${WORK}/tables-cli)
file(REMOVE_RECURSE ${dir})
tool(write brazilian ${dir} KMvK KKvK)

# probe: the last line is the value; quiet positions, capture positions, Black to move.
foreach(fen "W:WK1,K3:BK32" "B:WK1,K3:BK32" "W:W10:BK15" "B:W22,K1:BK19" "W:WK5:BK9" "B:WK29:B14")
  tool(expect brazilian "${fen}")
  set(expected "${out}")
  run(0 probe --variant brazilian --dir ${dir} "${fen}")
  if(NOT last STREQUAL expected)
    message(FATAL_ERROR "dtb probe ${fen}: '${last}', expected '${expected}'")
  endif()
endforeach()

# Synthetic values are not a game's values: following them, the best line
# soon meets a position where the tables disagree, and that is an error.
run(1 probe --variant brazilian --dir ${dir} "W:WK5,K3:BK32" --line)
expect_in("${err}" "the tables disagree")

# Errors: missing table, missing directory, malformed FEN, wrong variant.
run(1 probe --variant brazilian --dir ${dir} "W:WK1,K3,K5:BK32")
expect_in("${err}" "KKKvK.wld")
run(1 probe --variant brazilian --dir ${WORK}/nowhere "W:WK1,K3:BK32")
expect_in("${err}" "nowhere/brazilian")
run(1 probe --variant brazilian --dir ${dir} "W:WK1,K3:BK33")
expect_in("${err}" "out of range")
run(1 probe --variant chess --dir ${dir} "W:WK1:BK3")
expect_in("${err}" "unknown variant")

# stats: the counts against the tool's own count over every placement.
foreach(material KMvK KvKM KKvK)
  tool(stats brazilian ${material})
  string(REPLACE "\n" ";" sides "${out}")
  run(0 stats --variant brazilian --dir ${dir} --material ${material} --json)
  string(JSON n GET "${out}" positions_per_side)
  foreach(line IN LISTS sides)
    string(REPLACE " " ";" f "${line}")
    list(GET f 0 side)
    set(key ${side}_to_move)
    set(i 1)
    foreach(field win draw loss max_dtw_win count_at_max_win example_max_win)
      list(GET f ${i} expected)
      string(JSON value GET "${out}" ${key} ${field})
      if(NOT value STREQUAL expected)
        message(FATAL_ERROR "dtb stats ${material}: ${key}.${field} is '${value}', expected '${expected}'")
      endif()
      math(EXPR i "${i} + 1")
    endforeach()
  endforeach()
endforeach()

# verify: all good, then one damaged block, then a file of another variant.
run(0 verify --variant brazilian --dir ${dir})
expect_in("${last}" "all 8 tables verified")
run(0 verify --variant brazilian --dir ${dir} --material KvKM)
file(SIZE ${dir}/brazilian/KMvK.dtw size)
math(EXPR middle "${size} / 2")
tool(flip ${dir}/brazilian/KMvK.dtw ${middle})
run(1 verify --variant brazilian --dir ${dir})
expect_in("${out}" "FAILED  corrupted table ${dir}/brazilian/KMvK.dtw")
expect_in("${err}" "1 of 8 tables failed")
run(1 verify --variant brazilian --dir ${dir} --material KMvK)
run(0 verify --variant brazilian --dir ${dir} --material KKvK)
file(REMOVE ${dir}/brazilian/KKvK.wld)
run(1 verify --variant brazilian --dir ${dir} --material KKvK)
expect_in("${out}" "missing table ${dir}/brazilian/KKvK.wld")
file(REMOVE_RECURSE ${dir})

# convert: the true tables (the tool's brute force) written in format 1
# become, byte for byte, the files written today (.dtw of format 2, .wld
# of 3, at the tool's zstd level 3); a second run finds them current.
set(conv ${WORK}/convert-cli)
file(REMOVE_RECURSE ${conv} ${conv}-2)
tool(true brazilian ${conv} 1 KMvK)
tool(true brazilian ${conv}-2 2 KMvK)
run(0 convert --variant brazilian --dir ${conv} --dtw-compression 3 --wld-compression 3)
expect_in("${out}" "KMvK.dtw: format 1 to 2")
expect_in("${out}" "KMvK.wld: format 1 to 3")
expect_in("${last}" "0 already current")
same_tables(brazilian ${conv} ${conv}-2)
run(0 convert --variant brazilian --dir ${conv})
expect_in("${last}" "converted 0 files")
run(0 verify --variant brazilian --dir ${conv} --full)
# Compact .wld (format 4) and back: full again, byte for byte.
run(0 convert --variant brazilian --dir ${conv} --compact-wld --wld-compression 3)
expect_in("${out}" "KMvK.wld: format 3 to 4")
expect_in("${out}" "KMvK.dtw: already of format 2")
run(0 verify --variant brazilian --dir ${conv} --full)
run(0 convert --variant brazilian --dir ${conv} --compact-wld)
expect_in("${last}" "converted 0 files")
run(1 convert --variant brazilian --dir ${conv} --compact-wld --full-wld)
expect_in("${err}" "excludes")
run(0 convert --variant brazilian --dir ${conv} --full-wld --wld-compression 3)
expect_in("${out}" "KMvK.wld: format 4 to 3")
same_tables(brazilian ${conv} ${conv}-2)
# A .wld missing beside a file of format 1: named, and that file left.
file(REMOVE_RECURSE ${conv})
tool(true brazilian ${conv} 1 KMvK)
file(REMOVE ${conv}/brazilian/KMvK.wld)
run(1 convert --variant brazilian --dir ${conv} --material KMvK)
expect_in("${err}" "KMvK.wld")
expect_in("${err}" "leave KMvK.dtw in format 1")
run(1 convert --variant chess --dir ${conv})
expect_in("${err}" "unknown variant")
run(1 convert --variant brazilian --dir ${WORK}/nowhere)
expect_in("${err}" "nowhere/brazilian")
file(REMOVE_RECURSE ${conv} ${conv}-2)

# A set dtb built, made compact: verify --full passes; a build that reads
# its tables back refuses them, naming the fix, and builds once they are
# full again.
set(built ${WORK}/compact-cli)
file(REMOVE_RECURSE ${built})
run(0 build --variant brazilian --pieces 3 --dir ${built} --threads 2)
run(0 convert --variant brazilian --dir ${built} --compact-wld)
expect_in("${out}" "KKvK.wld: format 3 to 4")
run(0 verify --variant brazilian --dir ${built} --full)
run(1 build --variant brazilian --material KKvKK --dir ${built} --threads 2)
expect_in("${err}" "a compact .wld")
expect_in("${err}" "dtb convert --full-wld")
run(0 convert --variant brazilian --dir ${built} --full-wld)
run(0 build --variant brazilian --material KKvKK --dir ${built} --threads 2)
run(0 verify --variant brazilian --dir ${built} --full)
file(REMOVE_RECURSE ${built})
