# cmake --install into a fresh prefix, then the examples (probe/example) built
# against it: C and C++ with find_package(dtb), and each by hand with the flags
# pkg-config gives (C++20 from its cxx_standard). Every program runs without
# LD_LIBRARY_PATH (the loader finds the library by its run-time path), reports
# the library's version and gives the values the synthetic tables were
# written with.
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
foreach(f include/dtb.h include/dtb.hpp lib/cmake/dtb/dtbConfig.cmake lib/pkgconfig/dtb-probe.pc lib/libdtb-probe.so
          bin/dtb)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "cmake --install did not install ${f}")
  endif()
endforeach()
file(GLOB_RECURSE installed LIST_DIRECTORIES true RELATIVE ${prefix} ${prefix}/*)
foreach(f ${installed})
  file(GLOB inside ${prefix}/${f}/*)
  if(IS_DIRECTORY ${prefix}/${f} AND NOT inside)
    message(FATAL_ERROR "cmake --install left an empty folder: ${f}")
  endif()
endforeach()
unset(ENV{LD_LIBRARY_PATH})
check("bin/dtb --version" ${prefix}/bin/dtb --version)
if(NOT last STREQUAL "dtb ${VERSION}")
  message(FATAL_ERROR "bin/dtb --version says '${last}', expected 'dtb ${VERSION}'")
endif()

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
execute_process(COMMAND pkg-config --variable=cxx_standard dtb-probe OUTPUT_VARIABLE standard
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT standard STREQUAL "c++20")
  message(FATAL_ERROR "pkg-config's cxx_standard is '${standard}', expected c++20")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
check("compiling C with pkg-config" ${C_COMPILER} ${SOURCE}/probe/example/probe_example.c ${flags}
      -o ${WORK}/install-example/c_by_pkg_config)
check("compiling C++ with pkg-config" ${CXX_COMPILER} -std=${standard} ${SOURCE}/probe/example/probe_example.cpp
      ${flags} -o ${WORK}/install-example/cpp_by_pkg_config)

set(programs probe_example probe_example_cpp c_by_pkg_config cpp_by_pkg_config)
foreach(program ${programs})
  execute_process(COMMAND ${WORK}/install-example/${program} brazilian ${tables} "W:WK1,K3:BK32"
                  OUTPUT_VARIABLE out)
  string(FIND "${out}" "libdtb-probe ${VERSION}\n" at)
  if(NOT at EQUAL 0)
    message(FATAL_ERROR "${program} does not start with the library's version ${VERSION}: ${out}")
  endif()
endforeach()
foreach(fen "W:WK1,K3:BK32" "B:W22,K1:BK19" "W:W10:BK15")
  check("expected value" ${TOOL} expect brazilian "${fen}")
  set(expected "${last}")
  foreach(program ${programs})
    check("${program}" ${WORK}/install-example/${program} brazilian ${tables} "${fen}")
    if(NOT last STREQUAL expected)
      message(FATAL_ERROR "${program} ${fen}: '${last}', expected '${expected}'")
    endif()
  endforeach()
endforeach()

# Errors reach the program as a status (C) or an exception (C++) and a
# message naming the file.
foreach(program probe_example probe_example_cpp)
  execute_process(COMMAND ${WORK}/install-example/${program} brazilian ${tables} "W:WK1,K3,K5:BK32"
                  RESULT_VARIABLE status ERROR_VARIABLE err)
  string(FIND "${err}" "KKKvK" at)
  if(status EQUAL 0 OR at EQUAL -1)
    message(FATAL_ERROR "${program}: a missing table was not reported with its name: ${err}")
  endif()
endforeach()
file(REMOVE_RECURSE ${prefix} ${tables} ${WORK}/install-example)
