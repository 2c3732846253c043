# mbdc.cmake — generate a model's dynamics at build time, build them, and check them.
# Reference: docs/cmake.md. Included by mbdc's CMakeLists.txt (add_subdirectory) and by the
# installed package (find_package(mbdc)).
#
#   mbdc_add_model(NAME <name> MODEL <file.mbd or file.urdf>
#                  [PREFIX <p>] [SCALAR double|float] [FUNCTIONS <f>...] [FRAMES <f>...]
#                  [CONTACTS <c>...] [TEMPLATES <dir>] [OUTPUT_DIR <dir>] [FLOATING_BASE]
#                  [NO_CHECK] [QUIET] [NO_FP_CONTRACT] [TRIG builtin|libm] [TRIG_INPUT]
#                  [FRAME body|joint|com|world|auto] [FUSE <NAME=f1,f2,...>...] [PARTS <n>]
#                  [PARAMETERS <body|all|gravity>...] [PASSIVE_IN_FD] [COUPLE_MIMIC] [BATCH]
#                  [PRESCRIBED <joint>...])
#
# At build time runs `mbdc generate` (again whenever the model, the mbdc executable, a template or
# the call's options change) into OUTPUT_DIR (default ${CMAKE_CURRENT_BINARY_DIR}/<name>),
# producing the files of _MBDC_FILES below, and defines
#   <name>_generate  the custom target that runs mbdc; a file whose content did not change keeps
#                    its time stamp, so nothing that compiles it is rebuilt
#   <name>_dynamics  static library of the generated functions (C99, libm only); linking it puts
#                    OUTPUT_DIR on the include path: #include "<p>_dynamics.h"; its properties
#                    MBDC_PREFIX and MBDC_OUTPUT_DIR say <p> and OUTPUT_DIR
#   <name>_model     static library of the runtime model <p>_model (<p>_model.h), linking
#                    <name>_dynamics and the runtime mbdc::mbrt
#   <name>_check     the cross-check harness, generated functions against the runtime
#   test <name>_check  (ctest) runs the harness: fails if a function disagrees beyond 1e-10
#                    (1e-4 for float)
# NO_CHECK: no <name>_check and no test. Cross-compiling without CMAKE_CROSSCOMPILING_EMULATOR:
# <name>_check is built (to run on the target) but no test is added.
# <p> is PREFIX, or else the model's name (its `model NAME;` statement, read at configure time;
# without one, the file's name as mbdc makes it: `arm-v2.mbd` -> arm_v2; for a URDF, the robot's
# name with every character that is not a letter, digit or '_' replaced by '_', a '_' before a
# leading digit and an 'n' before a leading '__' or '_' and a capital — give PREFIX for a robot
# named after a C keyword; prefixes of the runtime's families mb, mbs, mbg are refused).
# When <p> or OUTPUT_DIR changes, the files this <name> generated before are deleted at configure
# time (the list is kept in ${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/mbdc/<name>.txt).
# FLOATING_BASE passes --floating-base (a URDF without a world joint gets a floating base);
# QUIET passes -q (errors only: no warnings or notes repeated by every regeneration).
# The generated functions are compiled with -ffp-contract=fast (fused multiply-adds where the
# target has them) unless NO_FP_CONTRACT or MBDC_FP_CONTRACT=OFF (bit-reproducible builds).
# FUNCTIONS is a CMake list or a comma-separated string (default: every function mbdc
# generates); FRAMES (--frames) and CONTACTS (--contacts: FRAME, FRAME:3 or FRAME:6) as well,
# and PRESCRIBED (--prescribed: the joints hybrid_fixed prescribes).
# TRIG libm passes --trig libm (the C library's sin and cos instead of the pair mbdc writes out);
# TRIG_INPUT passes --trig-input (<p>_trig and the _sc functions). FRAME passes --frame (where
# the recipes that have the choice express their quantities, docs/frames.md; default auto).
# FUSE passes one --fuse per element (<p>_NAME: the outputs of f1, f2, ... from one function).
# PARTS N passes --parts N (a function of more than 3 N statements written as static functions
# of about N each, which compile faster; default 4000, 0 never).
# PARAMETERS (a CMake list or a comma-separated string) passes --parameters: those bodies'
# inertial parameters, `all` of them, and `gravity` become the functions' first argument pi
# (docs/parameters.md).
# PASSIVE_IN_FD passes --passive-in-fd (forward dynamics with tau + passive_forces).
# COUPLE_MIMIC passes --couple-mimic (a URDF's <mimic> joints follow their sources: docs/urdf.md).
# BATCH passes --batch (<p>_f_batch of every function: many states at once, docs/batch.md); the
# harness then checks them against the scalar functions, bit for bit with NO_FP_CONTRACT.
# TEMPLATES is a directory of
# replacement recipes, libraries and render templates (DIR/algorithms/*.lua, DIR/lib/*.lua,
# DIR/c/*.lua, DIR/c/*.c).
#
# The mbdc executable: MBDC_EXECUTABLE when set (a host mbdc for a cross build), else the target
# `mbdc` of an add_subdirectory of the mbdc sources, else the imported mbdc::mbdc of
# find_package(mbdc), else `mbdc` on the PATH (stored in MBDC_EXECUTABLE).
include_guard(GLOBAL)
# The functions keep the policies of 3.18 whatever the including project asks for (IN_LIST).
cmake_policy(PUSH)
cmake_policy(VERSION 3.18)

# (Functions, not variables: a variable set here would be seen only in the directory that
# included this file, and mbdc_add_model is called from others.)
# The files `mbdc generate` writes, <p>_<suffix>: the one list of them. <p>_dynamics.* build
# <name>_dynamics, <p>_model.* <name>_model, <p>_check.* <name>_check.
function(_mbdc_files out)
  set(${out} dynamics.h dynamics.c model.h model.c check.c PARENT_SCOPE)
endfunction()

# The C prefix mbdc gives a model without --prefix: its `model NAME;`, else the file's stem with
# every character that is not a letter, digit or '_' replaced by '_'.
function(_mbdc_model_prefix model out)
  if(model MATCHES "\\.[uU][rR][dD][fF]$")
    file(READ ${model} text)
    if(text MATCHES "<robot([ \t\r\n][^>]*)?[ \t\r\n]name[ \t\r\n]*=[ \t\r\n]*[\"']([^\"']*)[\"']")
      set(name "${CMAKE_MATCH_2}")
    else()
      get_filename_component(name ${model} NAME_WE)
    endif()
    string(REGEX REPLACE "[^A-Za-z0-9_]" "_" name "${name}")
    if(name MATCHES "^[0-9]")
      set(name "_${name}")
    elseif(name MATCHES "^_[_A-Z]")
      set(name "n${name}")
    endif()
    set(${out} ${name} PARENT_SCOPE)
    return()
  endif()
  file(STRINGS ${model} lines)
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "#.*" "" line "${line}")
    if(line MATCHES "(^|[ \t;])model[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*;")
      set(${out} ${CMAKE_MATCH_2} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  get_filename_component(stem ${model} NAME_WE)
  string(REGEX REPLACE "[^A-Za-z0-9_]" "_" stem "${stem}")
  set(${out} ${stem} PARENT_SCOPE)
endfunction()

# The mbdc command line (cmd) and what the generation depends on (deps), in the order of the
# header above.
function(_mbdc_generator name cmd_var deps_var)
  set(in_tree OFF)
  if(TARGET mbdc)
    get_target_property(imported mbdc IMPORTED)
    if(NOT imported)
      set(in_tree ON)
    endif()
  endif()
  if(MBDC_EXECUTABLE)
    set(cmd ${MBDC_EXECUTABLE})
    set(deps ${MBDC_EXECUTABLE})
  elseif(in_tree)
    # The built-in templates are compiled into mbdc; listed too, so the rule is plain to read.
    set(cmd $<TARGET_FILE:mbdc>)
    set(source ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/..)
    file(GLOB_RECURSE deps CONFIGURE_DEPENDS
      ${source}/templates/algorithms/*.lua ${source}/templates/lib/*.lua ${source}/templates/c/*.lua
      ${source}/templates/c/*.c)
    list(APPEND deps mbdc)
  elseif(TARGET mbdc::mbdc)
    set(cmd $<TARGET_FILE:mbdc::mbdc>)
    set(deps $<TARGET_FILE:mbdc::mbdc>)
  else()
    find_program(MBDC_EXECUTABLE mbdc DOC "The mbdc command mbdc_add_model() runs")
    if(NOT MBDC_EXECUTABLE)
      message(FATAL_ERROR "mbdc_add_model(${name}): no mbdc: set MBDC_EXECUTABLE, add the mbdc "
              "sources with add_subdirectory, or find_package(mbdc)")
    endif()
    set(cmd ${MBDC_EXECUTABLE})
    set(deps ${MBDC_EXECUTABLE})
  endif()
  set(${cmd_var} ${cmd} PARENT_SCOPE)
  set(${deps_var} ${deps} PARENT_SCOPE)
endfunction()

# Keep the list of the files <name> generates (and its command line) in `manifest`; rewritten only
# when it changes, so the generation reruns then (it depends on the list). Files of the previous
# list that are no longer generated (a new prefix or output directory) are deleted; a file of the
# list that is missing deletes the stamp, so it is generated again.
function(_mbdc_manifest name manifest stamp args files)
  set(text "# mbdc_add_model(${name}): the command and the files it writes (cmake/mbdc.cmake)\n")
  string(APPEND text "command: ${args}\n")
  foreach(f IN LISTS files)
    string(APPEND text "file: ${f}\n")
    if(NOT EXISTS ${f})
      file(REMOVE ${stamp})
    endif()
  endforeach()
  set(old_text "")
  if(EXISTS ${manifest})
    file(READ ${manifest} old_text)
    file(STRINGS ${manifest} old REGEX "^file: ")
    foreach(line IN LISTS old)
      string(SUBSTRING "${line}" 6 -1 f)
      if(NOT f IN_LIST files AND EXISTS ${f})
        message(STATUS "mbdc_add_model(${name}): removing ${f}, no longer generated")
        file(REMOVE ${f})
      endif()
    endforeach()
  endif()
  if(NOT text STREQUAL old_text)
    file(WRITE ${manifest} "${text}")
  endif()
endfunction()

# The command line of `mbdc generate` from the options (the caller's A_*), with paths relative to
# the output directory (it runs there), so the banners of the generated files carry no absolute
# path; the prefix and the template files the generation depends on.
function(_mbdc_args model out args_var prefix_var deps_var)
  file(RELATIVE_PATH model_rel ${out} ${model})
  set(args generate ${model_rel} -o .)
  set(deps "")
  if(A_FLOATING_BASE)
    list(APPEND args --floating-base)
  endif()
  if(A_QUIET)
    list(APPEND args -q)
  endif()
  if(A_TRIG_INPUT)
    list(APPEND args --trig-input)
  endif()
  if(A_PASSIVE_IN_FD)
    list(APPEND args --passive-in-fd)
  endif()
  if(A_COUPLE_MIMIC)
    list(APPEND args --couple-mimic)
  endif()
  if(A_BATCH)
    list(APPEND args --batch)
  endif()
  if(A_FRAME)
    if(NOT A_FRAME MATCHES "^(body|joint|com|world|auto)$")
      message(FATAL_ERROR "mbdc_add_model(${A_NAME}): FRAME is body, joint, com, world or auto, "
                          "not ${A_FRAME}")
    endif()
    list(APPEND args --frame ${A_FRAME})
  endif()
  if(DEFINED A_PARTS)
    if(NOT A_PARTS MATCHES "^[0-9]+$")
      message(FATAL_ERROR "mbdc_add_model(${A_NAME}): PARTS is a number of statements, not "
                          "${A_PARTS}")
    endif()
    list(APPEND args --parts ${A_PARTS})
  endif()
  if(A_TRIG)
    if(NOT A_TRIG MATCHES "^(builtin|libm)$")
      message(FATAL_ERROR "mbdc_add_model(${A_NAME}): TRIG is builtin or libm, not ${A_TRIG}")
    endif()
    list(APPEND args --trig ${A_TRIG})
  endif()
  if(A_PREFIX)
    set(prefix ${A_PREFIX})
    list(APPEND args --prefix ${A_PREFIX})
  else()
    _mbdc_model_prefix(${model} prefix)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${model})
  endif()
  if(A_SCALAR)
    if(NOT A_SCALAR MATCHES "^(double|float)$")
      message(FATAL_ERROR "mbdc_add_model(${A_NAME}): SCALAR is double or float, not ${A_SCALAR}")
    endif()
    list(APPEND args --scalar ${A_SCALAR})
  endif()
  if(A_FUNCTIONS)
    string(REPLACE ";" "," functions "${A_FUNCTIONS}")
    list(APPEND args --functions ${functions})
  endif()
  if(A_FRAMES)
    string(REPLACE ";" "," frames "${A_FRAMES}")
    list(APPEND args --frames ${frames})
  endif()
  if(A_CONTACTS)
    string(REPLACE ";" "," contacts "${A_CONTACTS}")
    list(APPEND args --contacts ${contacts})
  endif()
  if(A_PRESCRIBED)
    string(REPLACE ";" "," prescribed "${A_PRESCRIBED}")
    list(APPEND args --prescribed ${prescribed})
  endif()
  if(A_PARAMETERS)
    string(REPLACE ";" "," parameters "${A_PARAMETERS}")
    list(APPEND args --parameters ${parameters})
  endif()
  foreach(spec IN LISTS A_FUSE)
    list(APPEND args --fuse ${spec})
  endforeach()
  if(A_TEMPLATES)
    get_filename_component(templates ${A_TEMPLATES} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    file(GLOB_RECURSE deps CONFIGURE_DEPENDS ${templates}/algorithms/*.lua ${templates}/lib/*.lua
         ${templates}/c/*.lua
         ${templates}/c/*.c)
    file(RELATIVE_PATH templates_rel ${out} ${templates})
    if(templates_rel STREQUAL "")
      set(templates_rel .)
    endif()
    list(APPEND args --templates ${templates_rel})
  endif()
  set(${args_var} ${args} PARENT_SCOPE)
  set(${prefix_var} ${prefix} PARENT_SCOPE)
  set(${deps_var} ${deps} PARENT_SCOPE)
endfunction()

function(mbdc_add_model)
  cmake_parse_arguments(A "FLOATING_BASE;NO_CHECK;QUIET;NO_FP_CONTRACT;TRIG_INPUT;PASSIVE_IN_FD;\
COUPLE_MIMIC;BATCH"
                        "NAME;MODEL;PREFIX;SCALAR;TEMPLATES;OUTPUT_DIR;TRIG;FRAME;PARTS"
                        "FUNCTIONS;FRAMES;CONTACTS;FUSE;PARAMETERS;PRESCRIBED" ${ARGN})
  if(NOT A_NAME OR NOT A_MODEL)
    message(FATAL_ERROR "mbdc_add_model: NAME and MODEL are required")
  endif()
  if(A_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mbdc_add_model(${A_NAME}): unknown arguments: ${A_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(model ${A_MODEL} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  if(NOT EXISTS ${model})
    message(FATAL_ERROR "mbdc_add_model(${A_NAME}): no model file ${model}")
  endif()
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${A_NAME})
  if(A_OUTPUT_DIR)
    get_filename_component(out ${A_OUTPUT_DIR} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  _mbdc_generator(${A_NAME} mbdc mbdc_deps)
  _mbdc_args(${model} ${out} args prefix template_deps)

  _mbdc_files(suffixes)
  set(files "")
  foreach(suffix IN LISTS suffixes)
    list(APPEND files ${out}/${prefix}_${suffix})
  endforeach()
  # The stamp is the rule's output and the files its byproducts: mbdc leaves a file whose content
  # is unchanged as it is, and neither Make nor Ninja then recompiles it.
  set(state ${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/mbdc)
  set(stamp ${state}/${A_NAME}.stamp)
  _mbdc_manifest(${A_NAME} ${state}/${A_NAME}.txt ${stamp} "${args}" "${files}")
  file(MAKE_DIRECTORY ${out})
  add_custom_command(OUTPUT ${stamp} BYPRODUCTS ${files}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${out}
    COMMAND ${mbdc} ${args}
    COMMAND ${CMAKE_COMMAND} -E touch ${stamp}
    WORKING_DIRECTORY ${out}
    DEPENDS ${model} ${mbdc_deps} ${template_deps} ${state}/${A_NAME}.txt
    COMMENT "mbdc: generating ${A_NAME} from ${A_MODEL}"
    VERBATIM)
  add_custom_target(${A_NAME}_generate DEPENDS ${stamp})
  _mbdc_targets(${A_NAME} ${prefix} ${out} "${files}" ${A_NO_CHECK})
  _mbdc_fp_contract(${A_NAME} ${A_NO_FP_CONTRACT})
  if(A_BATCH AND TARGET ${A_NAME}_check AND (A_NO_FP_CONTRACT OR NOT MBDC_FP_CONTRACT))
    # no contraction: the batch functions' results are the scalar ones bit for bit
    target_compile_definitions(${A_NAME}_check PRIVATE BATCH_EXACT)
  endif()
endfunction()

# Floating-point contraction of the generated functions (<name>_dynamics): fused multiply-adds
# where the target has them (-march=x86-64-v3, -march=native, AArch64), fewer instructions and
# no less accurate (docs/cmake.md); off for NO_FP_CONTRACT or MBDC_FP_CONTRACT=OFF: bit-for-bit
# the same results on every target and with every compiler that keeps IEEE semantics.
option(MBDC_FP_CONTRACT "mbdc_add_model: let the compiler fuse multiply-adds in generated code" ON)
function(_mbdc_fp_contract name off)
  if(CMAKE_C_COMPILER_ID MATCHES "^(GNU|Clang|AppleClang)$")
    if(MBDC_FP_CONTRACT AND NOT off)
      target_compile_options(${name}_dynamics PRIVATE -ffp-contract=fast)
    else()
      target_compile_options(${name}_dynamics PRIVATE -ffp-contract=off)
    endif()
  endif()
endfunction()

# The libraries of the generated files and the harness.
function(_mbdc_targets name prefix out files no_check)
  # The generated functions: C99 in ISO mode (contraction set by _mbdc_fp_contract); warnings, as
  # errors with MBDC_WERROR (mbdc's own build).
  set(strict "")
  if(CMAKE_C_COMPILER_ID MATCHES "^(GNU|Clang|AppleClang)$")
    set(strict -Wall -Wextra -pedantic -Wvla)
    if(MBDC_WERROR)
      list(APPEND strict -Werror)
    endif()
  endif()
  foreach(part dynamics model check)
    set(${part}_files "")
    foreach(f IN LISTS files)
      if(f MATCHES "_${part}\\.[ch]$")
        list(APPEND ${part}_files ${f})
      endif()
    endforeach()
  endforeach()
  add_library(${name}_dynamics STATIC ${dynamics_files})
  add_dependencies(${name}_dynamics ${name}_generate)
  target_include_directories(${name}_dynamics PUBLIC ${out})
  set_target_properties(${name}_dynamics PROPERTIES MBDC_PREFIX ${prefix} MBDC_OUTPUT_DIR ${out})
  if(NOT MSVC)
    target_link_libraries(${name}_dynamics PUBLIC m)
  endif()
  if(NOT TARGET mbdc::mbrt)
    if(NOT no_check)
      message(FATAL_ERROR "mbdc_add_model(${name}): no runtime mbdc::mbrt for ${name}_check: "
              "find_package(mbdc) or add_subdirectory the mbdc sources, or NO_CHECK")
    endif()
    set(targets ${name}_dynamics)
  else()
    # The runtime model: #include "mb.h" and the <p>_model it defines.
    add_library(${name}_model STATIC ${model_files})
    target_link_libraries(${name}_model PUBLIC ${name}_dynamics mbdc::mbrt)
    set(targets ${name}_dynamics ${name}_model)
  endif()
  if(NOT no_check)
    # The cross-check: generated functions against the generic runtime on random states.
    add_executable(${name}_check ${check_files})
    target_link_libraries(${name}_check PRIVATE ${name}_model)
    list(APPEND targets ${name}_check)
    if(CMAKE_CROSSCOMPILING AND NOT CMAKE_CROSSCOMPILING_EMULATOR)
      message(STATUS "mbdc_add_model(${name}): cross-compiling without "
              "CMAKE_CROSSCOMPILING_EMULATOR: ${name}_check is built, no test runs it")
    else()
      add_test(NAME ${name}_check COMMAND ${name}_check)
    endif()
  endif()
  foreach(t IN LISTS targets)
    target_compile_options(${t} PRIVATE ${strict})
    set_target_properties(${t} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  endforeach()
endfunction()

cmake_policy(POP)
