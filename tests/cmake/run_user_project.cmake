# Configures, builds and runs tests/cmake/project against this build's mdhc,
# from a copy (the test edits an imported module): with the generator GEN,
# then the import check again with the other of Ninja and Unix Makefiles.
file(REMOVE_RECURSE ${BIN})
file(COPY ${SRC}/tests/cmake/project/ DESTINATION ${BIN}/src)
set(module ${BIN}/src/mdh/lib/weights.mdh)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what}")
  endif()
endfunction()

# Sets the imported module's weight (`a + W * b`); the edit is newer than any output.
function(set_weight from to)
  execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 1)
  file(READ ${module} text)
  string(REPLACE "a + ${from} * b" "a + ${to} * b" text "${text}")
  file(WRITE ${module} "${text}")
endfunction()

run("configuring the user project failed"
    ${CMAKE_COMMAND} -G ${GEN} -S ${BIN}/src -B ${BIN}/build -DMDH_SOURCE_DIR=${SRC} -DMDHC=${MDHC})
run("building the user project failed" ${CMAKE_COMMAND} --build ${BIN}/build)
run("the user project's kernel gave wrong results" ${BIN}/build/app)
run("the user project's OpenCL kernel gave wrong results" ${BIN}/build/app_opencl)
run("the strict-FP kernel was contracted into FMAs" ${BIN}/build/app_strict)
run("a scan called from inside a parallel region gave wrong results" ${BIN}/build/app_nested)
run("the kernel with an imported module (relative INCLUDE) gave wrong results" ${BIN}/build/app_import 2)
run("-ffast-math in the project's flags changed the generated kernel's results" "${BIN}/build/fast math/app_fastmath")
set_weight(2 3)
run("rebuilding after the imported module changed failed" ${CMAKE_COMMAND} --build ${BIN}/build)
run("editing an imported module left stale generated code (${GEN})" ${BIN}/build/app_import 3)

if(GEN MATCHES "Ninja")
  set(other "Unix Makefiles")
else()
  set(other "Ninja")
endif()
run("configuring the user project with ${other} failed"
    ${CMAKE_COMMAND} -G ${other} -S ${BIN}/src -B ${BIN}/build-other -DMDH_SOURCE_DIR=${SRC} -DMDHC=${MDHC})
run("building app_import with ${other} failed" ${CMAKE_COMMAND} --build ${BIN}/build-other --target app_import)
run("the kernel with an imported module gave wrong results (${other})" ${BIN}/build-other/app_import 3)
run("building in a directory with a space in its path failed (${other})"
    ${CMAKE_COMMAND} --build ${BIN}/build-other --target app_fastmath)
run("-ffast-math in the project's flags changed the generated kernel's results (${other})"
    "${BIN}/build-other/fast math/app_fastmath")
set_weight(3 2)
run("rebuilding app_import with ${other} failed" ${CMAKE_COMMAND} --build ${BIN}/build-other --target app_import)
run("editing an imported module left stale generated code (${other})" ${BIN}/build-other/app_import 2)

# A comment-only edit regenerates the same code: mdhc leaves the generated files as they
# were, and Ninja (restat, which CMake sets for custom commands) rebuilds nothing after them.
if(GEN MATCHES "Ninja")
  set(ninja_build ${BIN}/build)
else()
  set(ninja_build ${BIN}/build-other)
endif()
run("bringing app_import up to date failed" ${CMAKE_COMMAND} --build ${ninja_build} --target app_import)
file(TIMESTAMP ${ninja_build}/app_import linked_before "%s")
execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 1.1)
file(READ ${module} text)
file(WRITE ${module} "// a comment-only edit\n${text}")
run("rebuilding after a comment-only edit failed" ${CMAKE_COMMAND} --build ${ninja_build} --target app_import)
file(TIMESTAMP ${ninja_build}/app_import linked_after "%s")
if(NOT linked_before STREQUAL linked_after)
  message(FATAL_ERROR "a comment-only edit of an imported module relinked app_import (${linked_before} -> ${linked_after})")
endif()
run("app_import after a comment-only edit gave wrong results" ${ninja_build}/app_import 2)

# A target name that is no C identifier fails when the project is configured, not when it is built.
file(WRITE ${BIN}/badname/CMakeLists.txt "cmake_minimum_required(VERSION 3.19)\nproject(bad CXX)\n"
     "include(${SRC}/cmake/MDH.cmake)\n"
     "mdh_add_library(matvec-f32 SOURCE ${SRC}/examples/matvec.mdh ENTRY matvec SET T=f32,I=3,K=4)\n")
execute_process(COMMAND ${CMAKE_COMMAND} -G ${GEN} -S ${BIN}/badname -B ${BIN}/badname/build -DMDHC=${MDHC}
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(rc EQUAL 0 OR NOT err MATCHES "must be a C identifier.*e\\.g\\. +matvec_f32")
  message(FATAL_ERROR "a target named matvec-f32 was configured (rc ${rc}): ${err}")
endif()
