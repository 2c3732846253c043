# What mbdc writes (docs/security.md, "Outputs and untrusted input"): hostile paths, names and command lines reach the
# generated text only escaped; output sets are replaced whole (full disk, kill -9 at every step);
# modes; refused targets (outputs_test.sh). The generated C of random models with hostile names
# compiles strictly and passes its harness (names_property_test.sh; MBDC_PROPERTY_MODELS=N for
# more). Quoting, name rules and the output set in C (test_outputs.c).
mbdc_add_test(NAME test_outputs SOURCES test_outputs.c mb_randtree.c LIBS mbdc_core)
if(TARGET mbdc)
  add_test(NAME outputs COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/outputs_test.sh
           $<TARGET_FILE:mbdc> ${PROJECT_SOURCE_DIR} ${CMAKE_C_COMPILER})
  set_tests_properties(outputs PROPERTIES TIMEOUT 600)
endif()
mbdc_add_test(NAME test_urdf_names SOURCES test_urdf_names.c mb_randtree.c LIBS mbdc_core)
add_executable(hostile_model hostile_model.c mb_randtree.c)
target_compile_options(hostile_model PRIVATE ${MBDC_WARNINGS})
target_include_directories(hostile_model PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(hostile_model PRIVATE mbdc_core m)
if(TARGET mbdc)
  add_test(NAME names_property COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/names_property_test.sh
           $<TARGET_FILE:mbdc> $<TARGET_FILE:hostile_model> ${PROJECT_SOURCE_DIR}
           ${CMAKE_C_COMPILER})
  set_tests_properties(names_property PROPERTIES TIMEOUT 600)
endif()
