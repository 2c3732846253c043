# mbdc.cmake — generate a model's dynamics at build time, build them, and check them.
#
#   mbdc_add_model(NAME <name> MODEL <file.mbd or file.urdf>
#                  [PREFIX <p>] [SCALAR double|float] [FUNCTIONS <f>...] [TEMPLATES <dir>]
#                  [OUTPUT_DIR <dir>] [FLOATING_BASE])
#
# At build time runs `mbdc generate` (again whenever the model, the mbdc executable or a template
# changes) into OUTPUT_DIR (default ${CMAKE_CURRENT_BINARY_DIR}/<name>), producing
# <p>_dynamics.h, <p>_dynamics.c, <p>_model.c and <p>_check.c, and defines
#   <name>_dynamics  static library of the generated functions (C99, libm only); linking it puts
#                    OUTPUT_DIR on the include path: #include "<p>_dynamics.h"; its properties
#                    MBDC_PREFIX and MBDC_OUTPUT_DIR say <p> and OUTPUT_DIR
#   <name>_check     the cross-check harness, generated functions against the runtime `mbrt`
#   test <name>_check  (ctest) runs the harness: fails if a function disagrees beyond 1e-10
#                    (1e-4 for float)
# <p> is PREFIX, or else the model's name (its `model NAME;` statement, read at configure time;
# without one, the file's name as mbdc makes it: `arm-v2.mbd` -> arm_v2; for a URDF, the robot's
# name with every character that is not a letter, digit or '_' replaced by '_', a '_' before a
# leading digit and an 'n' before a leading '__' or '_' and a capital — give PREFIX for a robot
# named after a C keyword; prefixes of the runtime's families mb, mbs, mbg are refused).
# FLOATING_BASE passes --floating-base (a URDF without a world joint gets a floating base).
# FUNCTIONS is a CMake list or a comma-separated string (default: every function mbdc
# generates). TEMPLATES is a directory of replacement recipes and render templates
# (DIR/algorithms/*.lua, DIR/c/*.lua).
#
# The mbdc executable is the target `mbdc` when it is part of the build (add_subdirectory of the
# mbdc sources), else MBDC_EXECUTABLE (searched on the PATH).
include_guard(GLOBAL)

set(_MBDC_SOURCE_DIR ${CMAKE_CURRENT_LIST_DIR}/..)

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

function(mbdc_add_model)
  cmake_parse_arguments(A "FLOATING_BASE" "NAME;MODEL;PREFIX;SCALAR;TEMPLATES;OUTPUT_DIR" "FUNCTIONS"
                        ${ARGN})
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

  if(TARGET mbdc)
    set(mbdc $<TARGET_FILE:mbdc>)
    set(deps mbdc)
    file(GLOB_RECURSE builtin CONFIGURE_DEPENDS
      ${_MBDC_SOURCE_DIR}/templates/algorithms/*.lua ${_MBDC_SOURCE_DIR}/templates/c/*.lua)
    list(APPEND deps ${builtin})
  else()
    find_program(MBDC_EXECUTABLE mbdc)
    if(NOT MBDC_EXECUTABLE)
      message(FATAL_ERROR "mbdc_add_model(${A_NAME}): no mbdc target and no MBDC_EXECUTABLE")
    endif()
    set(mbdc ${MBDC_EXECUTABLE})
    set(deps ${MBDC_EXECUTABLE})
  endif()

  # The command line, with paths relative to the output directory (it runs there), so the
  # banners of the generated files carry no absolute path.
  file(RELATIVE_PATH model_rel ${out} ${model})
  set(args generate ${model_rel} -o .)
  if(A_FLOATING_BASE)
    list(APPEND args --floating-base)
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
  if(A_TEMPLATES)
    get_filename_component(templates ${A_TEMPLATES} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    file(GLOB_RECURSE user_templates CONFIGURE_DEPENDS
      ${templates}/algorithms/*.lua ${templates}/c/*.lua)
    list(APPEND deps ${user_templates})
    file(RELATIVE_PATH templates_rel ${out} ${templates})
    if(templates_rel STREQUAL "")
      set(templates_rel .)
    endif()
    list(APPEND args --templates ${templates_rel})
  endif()

  set(files ${out}/${prefix}_dynamics.h ${out}/${prefix}_dynamics.c ${out}/${prefix}_model.c
            ${out}/${prefix}_check.c)
  file(MAKE_DIRECTORY ${out})
  add_custom_command(OUTPUT ${files}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${out}
    COMMAND ${mbdc} ${args}
    WORKING_DIRECTORY ${out}
    DEPENDS ${model} ${deps}
    COMMENT "mbdc: generating ${A_NAME} from ${A_MODEL}"
    VERBATIM)

  # The generated functions: C99 in ISO mode (no FP contraction by GCC), warnings as errors.
  set(strict "")
  if(CMAKE_C_COMPILER_ID MATCHES "^(GNU|Clang|AppleClang)$")
    set(strict -Wall -Wextra -Werror -pedantic -Wvla)
  endif()
  add_library(${A_NAME}_dynamics STATIC ${out}/${prefix}_dynamics.c ${out}/${prefix}_dynamics.h)
  target_include_directories(${A_NAME}_dynamics PUBLIC ${out})
  set_target_properties(${A_NAME}_dynamics PROPERTIES MBDC_PREFIX ${prefix} MBDC_OUTPUT_DIR ${out})
  target_compile_options(${A_NAME}_dynamics PRIVATE ${strict})
  set_target_properties(${A_NAME}_dynamics PROPERTIES
    C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  if(NOT MSVC)
    target_link_libraries(${A_NAME}_dynamics PUBLIC m)
  endif()

  # The cross-check: generated functions against the generic runtime on random states.
  add_executable(${A_NAME}_check ${out}/${prefix}_check.c ${out}/${prefix}_model.c)
  target_compile_options(${A_NAME}_check PRIVATE ${strict})
  set_target_properties(${A_NAME}_check PROPERTIES
    C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  target_link_libraries(${A_NAME}_check PRIVATE mbrt ${A_NAME}_dynamics)
  if(NOT MSVC)
    target_link_libraries(${A_NAME}_check PRIVATE m)
  endif()
  add_test(NAME ${A_NAME}_check COMMAND ${A_NAME}_check)
endfunction()
