# The command line as users meet it, and the fuzzer's regressions.
if(TARGET mbdc)
  add_test(NAME cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli_test.sh $<TARGET_FILE:mbdc>
           ${PROJECT_SOURCE_DIR})
endif()
# docs/, generated/ and the sources cite nothing outside the repository; links resolve.
add_test(NAME self_contained COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/self_contained_test.sh
         ${PROJECT_SOURCE_DIR})
mbdc_add_test(NAME test_fuzz_regressions
              SOURCES test_fuzz_regressions.c ${PROJECT_SOURCE_DIR}/fuzz/pipeline.c LIBS mbdc_core)
target_include_directories(test_fuzz_regressions PRIVATE ${PROJECT_SOURCE_DIR}/fuzz)
# Some of these inputs once hung the reader: a hang is a failure, not a 25-minute wait.
set_tests_properties(test_fuzz_regressions PROPERTIES TIMEOUT 120)
mbdc_add_test(NAME test_rtmodel SOURCES test_rtmodel.c LIBS mbdc_core)
