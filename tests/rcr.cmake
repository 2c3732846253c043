# Recursive coordinate reduction (runtime/rcr.c, docs/loops.md): mb_rcr against mb_fd_loops on
# every loop model of the repository, the selection rules, and the five-bar through the instants
# where the paper's selection turns singular.
mbdc_add_test(NAME test_rcr SOURCES test_rcr.c mbt_loopmodel.c mbt_loopsys.c LIBS mbdc_core
              LABELS loops)

# The accuracy of mb_rcr and mb_fd_loops on the seeded random closed chains (tests/random_loops.c)
# against a reference q̈ from the KKT system in extended precision.
add_executable(test_rcr_accuracy test_rcr_accuracy.c mbt_loopmodel.c mbt_loopsys.c)
target_compile_options(test_rcr_accuracy PRIVATE ${MBDC_WARNINGS})
target_include_directories(test_rcr_accuracy PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(test_rcr_accuracy PRIVATE mbdc_core PkgConfig::CMOCKA m)
add_test(NAME test_rcr_accuracy COMMAND test_rcr_accuracy $<TARGET_FILE:random_loops>)
set_tests_properties(test_rcr_accuracy PROPERTIES LABELS "unit;loops" TIMEOUT 300
  ENVIRONMENT "MBDC_SOURCE_DIR=${PROJECT_SOURCE_DIR}")

# Loops hung from another loop's tail (the plan and mb_rcr vs mb_fd_loops on selections with
# dependents on a shared joint).
mbdc_add_test(NAME test_rcr_hung SOURCES test_rcr_hung.c mbt_loopmodel.c mbt_loopsys.c
              LIBS mbdc_core LABELS loops)
