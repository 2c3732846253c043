# The command line as users meet it, and the fuzzer's regressions.
mbdc_add_script_test(NAME cli SCRIPT cli_test.sh ARGS $<TARGET_FILE:mbdc> ${PROJECT_SOURCE_DIR})
set_property(TEST cli APPEND PROPERTY LABELS cli)
# docs/, generated/ and the sources cite nothing outside the repository; links resolve.
mbdc_add_script_test(NAME self_contained SCRIPT self_contained_test.sh ARGS ${PROJECT_SOURCE_DIR})
set_property(TEST self_contained APPEND PROPERTY LABELS docs)
# docs/ agrees with the code where they can be compared (mbdc_add_model's keywords, ...).
mbdc_add_script_test(NAME docs_consistent SCRIPT docs_test.sh ARGS ${PROJECT_SOURCE_DIR})
set_property(TEST docs_consistent APPEND PROPERTY LABELS docs)
mbdc_add_test(NAME test_fuzz_regressions
              SOURCES test_fuzz_regressions.c ${PROJECT_SOURCE_DIR}/fuzz/pipeline.c LIBS mbdc_core
              LABELS fuzz)
target_include_directories(test_fuzz_regressions PRIVATE ${PROJECT_SOURCE_DIR}/fuzz)
# Some of these inputs once hung the reader: a hang is a failure, not a 25-minute wait.
set_tests_properties(test_fuzz_regressions PROPERTIES TIMEOUT 120)
mbdc_add_test(NAME test_rtmodel SOURCES test_rtmodel.c LIBS mbdc_core)
# The table of the built-in functions against the recipes, in `generate --help` and `functions`.
mbdc_add_test(NAME test_functions SOURCES test_functions.c LIBS mbdc_core)
