# The front end: golden diagnostics (exact text, tests/golden/) and the parsed model's fields.
mbdc_add_test(NAME test_diagnostics SOURCES test_diagnostics.c LIBS mbdc_core)
mbdc_add_test(NAME test_parse SOURCES test_parse.c LIBS mbdc_core)
# The spring and initial statements: values, topology, runtime springs, the .mbd writer.
mbdc_add_test(NAME test_springs SOURCES test_springs.c LIBS mbdc_core)
# check, generate and stats agree on models singular in every configuration (tests/singular/),
# with located errors and no Lua traceback.
if(TARGET mbdc)
  add_test(NAME singular_models COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/singular_test.sh
           $<TARGET_FILE:mbdc> ${PROJECT_SOURCE_DIR})
endif()
# Loops that cannot be used: located errors, the same from check, generate and stats.
if(TARGET mbdc)
  add_test(NAME loop_errors COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/loop_errors_test.sh
           $<TARGET_FILE:mbdc> ${PROJECT_SOURCE_DIR})
endif()
