# The closed-loop cross-check against Simbody (docs/loops_simbody.md): built whenever Debian's
# libsimbody-dev is installed (scripts/setup.sh installs it; its CMake package SimbodyConfig.cmake
# is found by find_package). test_simbody builds every listed model in Simbody from the runtime's
# mb_model and mb_loops and compares the constrained q̈ of mb_fd_loops with Simbody's. C++ is
# enabled here only, for this one test.
find_package(Simbody CONFIG QUIET)
if(NOT Simbody_FOUND)
  message(STATUS "Simbody (libsimbody-dev) not found: no Simbody cross-check")
  return()
endif()
enable_language(CXX)

add_executable(test_simbody test_simbody.cpp mbt_loopmodel.c)
set_target_properties(test_simbody PROPERTIES CXX_STANDARD 14 CXX_STANDARD_REQUIRED ON)
target_compile_options(test_simbody PRIVATE
  $<$<COMPILE_LANGUAGE:C>:${MBDC_WARNINGS}> $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Werror>)
target_include_directories(test_simbody PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_include_directories(test_simbody SYSTEM PRIVATE ${Simbody_INCLUDE_DIR})
target_link_libraries(test_simbody PRIVATE ${Simbody_LIBRARIES} mbdc_core m)
add_test(NAME test_simbody COMMAND test_simbody)
set_tests_properties(test_simbody PROPERTIES LABELS loops TIMEOUT 300
  ENVIRONMENT "MBDC_SOURCE_DIR=${PROJECT_SOURCE_DIR};MBDC_BINARY_DIR=${PROJECT_BINARY_DIR}")
