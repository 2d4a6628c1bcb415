# cmake --install into a fresh prefix, then the C example (probe/example) built
# against it twice: with find_package(dtb) and with pkg-config. Both must give
# the values the synthetic tables were written with.
set(prefix ${WORK}/install-prefix)
set(tables ${WORK}/install-tables)
file(REMOVE_RECURSE ${prefix} ${tables} ${WORK}/install-example)

function(check what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status}):\n${out}\n${err}")
  endif()
  string(STRIP "${out}" out)
  string(REGEX REPLACE ".*\n" "" last "${out}")
  set(last "${last}" PARENT_SCOPE)
endfunction()

check("cmake --install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})
foreach(f include/dtb.h include/dtb.hpp lib/cmake/dtb/dtbConfig.cmake lib/pkgconfig/dtb-probe.pc lib/libdtb-probe.so)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "cmake --install did not install ${f}")
  endif()
endforeach()

check("writing tables" ${TOOL} write brazilian ${tables} KMvK KKvK)

check("configuring the example" ${CMAKE_COMMAND} -S ${SOURCE}/probe/example -B ${WORK}/install-example
      -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
check("building the example" ${CMAKE_COMMAND} --build ${WORK}/install-example)

# The same example compiled by hand with the flags pkg-config gives.
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
execute_process(COMMAND pkg-config --cflags --libs dtb-probe OUTPUT_VARIABLE flags RESULT_VARIABLE status
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "pkg-config does not find dtb-probe")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
check("compiling with pkg-config" ${C_COMPILER} ${SOURCE}/probe/example/probe_example.c ${flags}
      -o ${WORK}/install-example/by_pkg_config)

set(ENV{LD_LIBRARY_PATH} ${prefix}/lib)
foreach(fen "W:WK1,K3:BK32" "B:W22,K1:BK19" "W:W10:BK15")
  check("expected value" ${TOOL} expect brazilian "${fen}")
  set(expected "${last}")
  foreach(program probe_example by_pkg_config)
    check("${program}" ${WORK}/install-example/${program} brazilian ${tables} "${fen}")
    if(NOT last STREQUAL expected)
      message(FATAL_ERROR "${program} ${fen}: '${last}', expected '${expected}'")
    endif()
  endforeach()
endforeach()

# Errors reach the program as a status and a message naming the file.
execute_process(COMMAND ${WORK}/install-example/probe_example brazilian ${tables} "W:WK1,K3,K5:BK32"
                RESULT_VARIABLE status ERROR_VARIABLE err)
string(FIND "${err}" "missing table" at)
if(status EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "a missing table was not reported: ${err}")
endif()
file(REMOVE_RECURSE ${prefix} ${tables} ${WORK}/install-example)
