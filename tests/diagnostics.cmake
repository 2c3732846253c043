# The front end: golden diagnostics (exact text, tests/golden/) and the parsed model's fields.
mbdc_add_test(NAME test_diagnostics SOURCES test_diagnostics.c LIBS mbdc_core)
mbdc_add_test(NAME test_parse SOURCES test_parse.c LIBS mbdc_core)
# The spring and initial statements: values, topology, runtime springs, the .mbd writer.
mbdc_add_test(NAME test_springs SOURCES test_springs.c LIBS mbdc_core)
# check, generate and stats agree on models singular in every configuration (tests/singular/),
# with located errors and no Lua traceback.
mbdc_add_script_test(NAME singular_models SCRIPT singular_test.sh
                     ARGS $<TARGET_FILE:mbdc> ${PROJECT_SOURCE_DIR})
set_property(TEST singular_models APPEND PROPERTY LABELS cli)
# Loops that cannot be used: located errors, the same from check, generate and stats.
mbdc_add_script_test(NAME loop_errors SCRIPT loop_errors_test.sh
                     ARGS $<TARGET_FILE:mbdc> ${PROJECT_SOURCE_DIR})
set_property(TEST loop_errors APPEND PROPERTY LABELS "cli;loops")
