# What mbdc writes (docs/security.md, "Outputs and untrusted input"): hostile paths, names and command lines reach the
# generated text only escaped; output sets are replaced whole (full disk, kill -9 at every step);
# modes; refused targets (outputs_test.sh). The generated C of random models with hostile names
# compiles strictly and passes its harness (names_property_test.sh; MBDC_PROPERTY_MODELS=N for
# more). Quoting, name rules and the output set in C (test_outputs.c).
mbdc_add_test(NAME test_outputs SOURCES test_outputs.c mb_randtree.c LIBS mbdc_core)
mbdc_add_script_test(NAME outputs SCRIPT outputs_test.sh TIMEOUT 600
                     ARGS $<TARGET_FILE:mbdc> ${PROJECT_SOURCE_DIR} ${CMAKE_C_COMPILER})
set_property(TEST outputs APPEND PROPERTY LABELS cli)
mbdc_add_test(NAME test_urdf_names SOURCES test_urdf_names.c mb_randtree.c LIBS mbdc_core)
add_executable(hostile_model hostile_model.c mb_randtree.c)
target_compile_options(hostile_model PRIVATE ${MBDC_WARNINGS})
target_include_directories(hostile_model PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(hostile_model PRIVATE mbdc_core m)
mbdc_add_script_test(NAME names_property SCRIPT names_property_test.sh TIMEOUT 600
  ARGS $<TARGET_FILE:mbdc> $<TARGET_FILE:hostile_model> ${PROJECT_SOURCE_DIR} ${CMAKE_C_COMPILER})
set_property(TEST names_property APPEND PROPERTY LABELS "cli;generated")
