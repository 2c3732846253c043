# The command line as users meet it, and the fuzzer's regressions.
if(TARGET mbdc)
  add_test(NAME cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli_test.sh $<TARGET_FILE:mbdc>
           ${PROJECT_SOURCE_DIR})
endif()
mbdc_add_test(NAME test_fuzz_regressions SOURCES test_fuzz_regressions.c LIBS mbdc_core)
mbdc_add_test(NAME test_rtmodel SOURCES test_rtmodel.c LIBS mbdc_core)
