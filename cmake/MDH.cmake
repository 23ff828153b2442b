# MDH.cmake — compile .mdh computations into a CMake project, like Halide's
# add_halide_library:
#
#   include(/path/to/mdh/cmake/MDH.cmake)      # sets MDHC if not given
#   mdh_add_library(matvec_f32                 # target and entry symbol
#     SOURCE   matvec.mdh                      # the .mdh file
#     ENTRY    matvec                          # the mdh declaration
#     SET      T=f32,I=1024,K=512              # meta-parameters (* = run time)
#     [CONFIG  tuned.json]                     # low-level configuration
#     [STRICT_FP]                              # no FMA contraction (also when
#                                              # CONFIG says "strict_fp": true)
#     [THREADS 0]  [INCLUDE dir ...]           # module directories (relative:
#                                              # to this CMakeLists.txt, as SOURCE)
#     [BACKEND openmp|opencl])                 # default openmp; opencl: the
#                                              # OpenCL kernels and their C++ host
#                                              # entries (linked to OpenCL::OpenCL)
#   target_link_libraries(app PRIVATE matvec_f32)   # then #include "matvec_f32.h"
#
# MDH_ARCH_FLAGS (a cache variable, default -march=native) are the generated
# code's target flags: set it to e.g. -march=x86-64-v3 for a portable build.
#
# The generated source is rebuilt when the .mdh file, a module it imports or
# the configuration changes: mdhc writes a depfile of every .mdh file it read
# (Ninja; Makefiles from CMake 3.20 where the build path has no space), and
# other generators depend on every .mdh file under the source's and the
# INCLUDE directories.  Not noticed: a new .mdh file that shadows an imported
# module found further down the search path (reconfigure, or touch the
# source).  The kernel is compiled with -O3 MDH_ARCH_FLAGS -fno-fast-math
# (after the project's flags: a project-wide -ffast-math does not reach it)
# and -ffp-contract=fast, or =off for STRICT_FP.  It needs only a
# C++17 compiler with OpenMP at build time (and CMake >= 3.19, which reads
# the configuration's "strict_fp").
if(NOT MDHC)
  find_program(MDHC mdhc HINTS ${CMAKE_CURRENT_LIST_DIR}/../build/tools)
endif()
find_package(OpenMP REQUIRED)
set(MDH_ARCH_FLAGS -march=native CACHE STRING "target flags of the code mdh_add_library generates")
# Depfile paths relative to the current binary directory, as the function writes them (absolute).
if(POLICY CMP0116)
  cmake_policy(SET CMP0116 NEW)
endif()

function(mdh_add_library target)
  cmake_parse_arguments(ARG "STRICT_FP" "SOURCE;ENTRY;SET;CONFIG;THREADS;BACKEND" "INCLUDE" ${ARGN})
  if(NOT ARG_SOURCE OR NOT ARG_ENTRY)
    message(FATAL_ERROR "mdh_add_library(${target}): SOURCE and ENTRY are required")
  endif()
  if(NOT ARG_BACKEND)
    set(ARG_BACKEND openmp)
  endif()
  if(NOT ARG_BACKEND MATCHES "^(openmp|opencl)$")
    message(FATAL_ERROR "mdh_add_library(${target}): BACKEND ${ARG_BACKEND} is not openmp or opencl "
                        "(CUDA code comes from `mdhc compile --backend cuda`, built with nvcc)")
  endif()
  # The target's name is the entry symbol: a C identifier, checked here rather than by the
  # first build.
  if(NOT target MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    string(MAKE_C_IDENTIFIER "${target}" suggestion)
    message(FATAL_ERROR "mdh_add_library(${target}): the target's name is the C entry symbol and must be a C "
                        "identifier (ASCII letters, digits and `_`, not a digit first): e.g. ${suggestion}")
  endif()
  get_filename_component(src ${ARG_SOURCE} ABSOLUTE)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/mdh/${target})
  # -q: errors only (the paths and build hint mdhc prints otherwise are not how CMake builds it).
  set(args compile ${src} --entry ${ARG_ENTRY} --name ${target} --backend ${ARG_BACKEND} -q -o ${dir})
  set(deps ${src})
  if(ARG_SET)
    list(APPEND args --set ${ARG_SET})
  endif()
  set(strict ${ARG_STRICT_FP})
  if(ARG_CONFIG)
    get_filename_component(cfg ${ARG_CONFIG} ABSOLUTE)
    list(APPEND args --config ${cfg})
    list(APPEND deps ${cfg})
    # The code is compiled with the flags the configuration asks for: a strict
    # configuration must not be contracted into FMAs by the C++ compiler.
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${cfg})
    file(READ ${cfg} cfg_text)
    string(JSON cfg_strict ERROR_VARIABLE cfg_err GET "${cfg_text}" strict_fp)
    if(NOT cfg_err AND cfg_strict)
      set(strict ON)
    endif()
  endif()
  if(strict)
    list(APPEND args --strict-fp)
    set(contract -ffp-contract=off)
  else()
    set(contract -ffp-contract=fast)
  endif()
  if(ARG_THREADS)
    list(APPEND args --threads ${ARG_THREADS})
  endif()
  get_filename_component(src_dir ${src} DIRECTORY)
  set(module_dirs ${src_dir})
  foreach(inc ${ARG_INCLUDE})
    get_filename_component(inc ${inc} ABSOLUTE) # relative to CMAKE_CURRENT_SOURCE_DIR, like SOURCE
    list(APPEND args -I ${inc})
    list(APPEND module_dirs ${inc})
  endforeach()
  # Imported modules: the depfile lists every .mdh file mdhc read.
  # The Makefile generator's depfile support breaks on a binary directory with a space in its
  # path (CMake 3.25: "No rule to make target 'sub\ dir/.../compiler_depend.ts'"): globbing there.
  if(CMAKE_GENERATOR MATCHES "Ninja" OR (CMAKE_GENERATOR MATCHES "Makefiles" AND NOT CMAKE_VERSION VERSION_LESS 3.20
                                          AND NOT CMAKE_CURRENT_BINARY_DIR MATCHES " "))
    list(APPEND args --depfile ${dir}/${target}.d)
    set(depfile DEPFILE ${dir}/${target}.d)
  else()
    set(depfile)
    foreach(d ${module_dirs})
      file(GLOB_RECURSE modules CONFIGURE_DEPENDS ${d}/*.mdh)
      list(APPEND deps ${modules})
    endforeach()
  endif()
  add_custom_command(
    OUTPUT ${dir}/${target}.cpp ${dir}/${target}.h
    COMMAND ${MDHC} ${args}
    DEPENDS ${deps} ${MDHC}
    ${depfile}
    COMMENT "mdhc: ${ARG_ENTRY} (${ARG_SET}) -> ${target}"
    VERBATIM)
  add_library(${target} STATIC ${dir}/${target}.cpp)
  target_include_directories(${target} PUBLIC ${dir})
  target_compile_features(${target} PUBLIC cxx_std_17)
  # -fno-fast-math: a project-wide -ffast-math (CMAKE_CXX_FLAGS, which come first on the
  # command line) must not reach the generated code, whose results (NaN tests, --strict-fp,
  # the reduction order the interpreter checks) assume IEEE arithmetic.
  target_compile_options(${target} PRIVATE -O3 ${MDH_ARCH_FLAGS} -fno-fast-math ${contract})
  # GCC 12's second value-range pass ("ranger" mode) miscompiles some generated
  # kernels for AVX-512 targets; its legacy mode does not, at no measurable cost
  # (src/runtime/CompilerWorkarounds.h).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
     AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE --param=vrp2-mode=vrp)
  endif()
  if(ARG_BACKEND STREQUAL "opencl")
    find_package(OpenCL REQUIRED)
    target_link_libraries(${target} PUBLIC OpenCL::OpenCL)
  else()
    target_link_libraries(${target} PUBLIC OpenMP::OpenMP_CXX)
  endif()
endfunction()
