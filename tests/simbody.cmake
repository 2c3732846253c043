# The closed-loop cross-check against Simbody (docs/loops_simbody.md): built whenever Debian's
# libsimbody-dev is installed (scripts/setup.sh installs it; its CMake package SimbodyConfig.cmake
# is found by find_package). test_simbody builds every listed model in Simbody from the runtime's
# mb_model, mb_loops and mb_springs (tests/mbt_simbody.cpp, library mbt_simbody: mbt_simbody.cmake)
# and compares the constrained q̈ of mb_fd_loops and of the generated p_fd_loops with Simbody's,
# and with prescribed coordinates mb_fd_loops_hybrid's and p_fd_loops_hybrid's (q̈, τ_P).
include(${CMAKE_CURRENT_LIST_DIR}/mbt_simbody.cmake)
if(NOT MBT_SIMBODY_FOUND)
  message(STATUS "Simbody (libsimbody-dev) not found: no Simbody cross-check")
  mbdc_missing_peer(test_simbody "Simbody (libsimbody-dev) is not installed" test_simbody.cpp
                    mbt_simbody.cpp)
  return()
endif()

add_executable(test_simbody test_simbody.cpp)
set_target_properties(test_simbody PROPERTIES CXX_STANDARD 14 CXX_STANDARD_REQUIRED ON)
target_compile_options(test_simbody PRIVATE -Wall -Wextra ${MBDC_WERROR_FLAG})
target_link_libraries(test_simbody PRIVATE mbt_simbody)
# The generated p_fd_loops of the loop examples, as further q̈ sources (rows of matrix.txt).
foreach(stem five_bar quarter_car)
  if(TARGET ${stem}_dynamics)
    string(TOUPPER ${stem} upper)
    target_compile_definitions(test_simbody PRIVATE MBT_HAVE_GEN_${upper})
    target_link_libraries(test_simbody PRIVATE ${stem}_dynamics)
  endif()
endforeach()
# Their generated p_fd_loops_hybrid (rows hybrid_five_bar, hybrid_quarter_car; prefixes five_bar_h,
# quarter_car_h), against Simbody's prescribed-u̇ Motions.
foreach(stem five_bar quarter_car)
  if(TARGET hybrid_${stem}_dynamics)
    string(TOUPPER ${stem} upper)
    target_compile_definitions(test_simbody PRIVATE MBT_HAVE_GEN_${upper}_H)
    target_link_libraries(test_simbody PRIVATE hybrid_${stem}_dynamics)
  endif()
endforeach()
add_test(NAME test_simbody COMMAND test_simbody)
set_tests_properties(test_simbody PROPERTIES LABELS "simbody;loops" TIMEOUT 300
  ENVIRONMENT "MBDC_SOURCE_DIR=${PROJECT_SOURCE_DIR};MBDC_BINARY_DIR=${PROJECT_BINARY_DIR}")
