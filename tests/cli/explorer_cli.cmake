# `dtb report` and `dtb serve` from the command line: a report written, and
# bad input refused with a message and a non-zero status.
include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)

set(dir ${WORK}/explorer-cli)
file(REMOVE_RECURSE ${dir})
file(MAKE_DIRECTORY ${dir}/empty)
run(0 build --variant international --material KKvK --dir ${dir} --output quiet --rules)

run(0 report --variant international --dir ${dir} --material KKvK --out ${dir}/KKvK.html)
file(READ ${dir}/KKvK.html html)
expect_in("${html}" "<h1>international KKvK</h1>")
expect_in("${html}" "FMJD 6.5 (1 king against 1 or 2 pieces with a king: 5 moves each)")
expect_in("${html}" "cursed wins")
# The legend: plies against moves, the classes and the rule distance, the
# chart's scale.
expect_in("${html}" "A ply is one turn of one player")
expect_in("${html}" "The <i>rule distance</i> is the plies until the win is safe from the count")
expect_in("${html}" "limit (10 plies)")
expect_in("${html}" "positions on a logarithmic scale")
# The longest win's boards numbered as a game score (White first here).
expect_in("${html}" "<figcaption>1. ")
expect_in("${html}" "<figcaption>1... ")
if(EXISTS ${dir}/KKvK.html.tmp)
  message(FATAL_ERROR "dtb report left its temporary file")
endif()

run(1 report --variant international --dir ${dir} --material KKKvK --out ${dir}/KKKvK.html)
expect_in("${err}" "no table of KKKvK")
run(1 report --variant international --dir ${dir} --material KKvK --out ${dir}/no/such/folder/KKvK.html)
expect_in("${err}" "cannot create ${dir}/no/such/folder/KKvK.html.tmp")
expect_in("${err}" "check that its folder exists and is writable")
run(1 report --variant chess --dir ${dir} --material KKvK --out ${dir}/x.html)
expect_in("${err}" "unknown variant")
run(1 report --variant international --dir ${dir}/empty --material KKvK --out ${dir}/x.html)
expect_in("${err}" "no such directory")
run(2 report --variant international --dir ${dir} --material KKvK)
expect_in("${err}" "--out")

run(1 serve --dir ${dir}/empty --port 0)
expect_in("${err}" "no tables in")
run(2 serve --dir ${dir} --port 70000)
run(1 serve --dir ${dir} --host 192.0.2.1 --port 0)
expect_in("${err}" "cannot listen on 192.0.2.1")
