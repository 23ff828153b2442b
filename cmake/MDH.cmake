# MDH.cmake — compile .mdh computations into a CMake project, like Halide's
# add_halide_library:
#
#   include(/path/to/mdh/cmake/MDH.cmake)      # sets MDHC if not given
#   mdh_add_library(matvec_f32                 # target and entry symbol
#     SOURCE   matvec.mdh                      # the .mdh file
#     ENTRY    matvec                          # the mdh declaration
#     SET      T=f32,I=1024,K=512              # meta-parameters (* = run time)
#     [CONFIG  tuned.json]                     # low-level configuration
#     [THREADS 0]  [INCLUDE dir ...])
#   target_link_libraries(app PRIVATE matvec_f32)   # then #include "matvec_f32.h"
#
# The generated source is rebuilt when the .mdh file or the configuration
# changes; it needs only a C++17 compiler with OpenMP at build time.
if(NOT MDHC)
  find_program(MDHC mdhc HINTS ${CMAKE_CURRENT_LIST_DIR}/../build/tools)
endif()
find_package(OpenMP REQUIRED)

function(mdh_add_library target)
  cmake_parse_arguments(ARG "" "SOURCE;ENTRY;SET;CONFIG;THREADS" "INCLUDE" ${ARGN})
  if(NOT ARG_SOURCE OR NOT ARG_ENTRY)
    message(FATAL_ERROR "mdh_add_library(${target}): SOURCE and ENTRY are required")
  endif()
  get_filename_component(src ${ARG_SOURCE} ABSOLUTE)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/mdh/${target})
  set(args compile ${src} --entry ${ARG_ENTRY} --name ${target} -o ${dir})
  set(deps ${src})
  if(ARG_SET)
    list(APPEND args --set ${ARG_SET})
  endif()
  if(ARG_CONFIG)
    get_filename_component(cfg ${ARG_CONFIG} ABSOLUTE)
    list(APPEND args --config ${cfg})
    list(APPEND deps ${cfg})
  endif()
  if(ARG_THREADS)
    list(APPEND args --threads ${ARG_THREADS})
  endif()
  foreach(inc ${ARG_INCLUDE})
    list(APPEND args -I ${inc})
  endforeach()
  add_custom_command(
    OUTPUT ${dir}/${target}.cpp ${dir}/${target}.h
    COMMAND ${MDHC} ${args}
    DEPENDS ${deps} ${MDHC}
    COMMENT "mdhc: ${ARG_ENTRY} (${ARG_SET}) -> ${target}"
    VERBATIM)
  add_library(${target} STATIC ${dir}/${target}.cpp)
  target_include_directories(${target} PUBLIC ${dir})
  target_compile_features(${target} PUBLIC cxx_std_17)
  target_compile_options(${target} PRIVATE -O3 -march=native -ffp-contract=fast)
  target_link_libraries(${target} PUBLIC OpenMP::OpenMP_CXX)
endfunction()
