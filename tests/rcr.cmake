# Recursive coordinate reduction (runtime/rcr.c, docs/loops.md): mb_rcr against mb_fd_loops on
# every loop model of the repository, the selection rules, and the five-bar through the instants
# where the paper's selection turns singular.
mbdc_add_test(NAME test_rcr SOURCES test_rcr.c mbt_loopmodel.c LIBS mbdc_core)
set_tests_properties(test_rcr PROPERTIES LABELS loops)
add_executable(rcr_probe EXCLUDE_FROM_ALL /tmp/rcr/t.c mbt_loopmodel.c)
target_include_directories(rcr_probe PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(rcr_probe PRIVATE mbdc_core m)
