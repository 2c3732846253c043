# Sizes beyond an int (nv ≥ 46341): the runtime's checks and workspace, the generator's refusal.
mbdc_add_test(NAME test_sizes SOURCES test_sizes.c LIBS mbdc_core)
