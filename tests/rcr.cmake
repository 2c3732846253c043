# Recursive coordinate reduction (runtime/rcr.c, docs/loops.md): mb_rcr against mb_fd_loops on
# every loop model of the repository, the selection rules, and the five-bar through the instants
# where the paper's selection turns singular.
mbdc_add_test(NAME test_rcr SOURCES test_rcr.c mbt_loopmodel.c LIBS mbdc_core)
set_tests_properties(test_rcr PROPERTIES LABELS loops)
