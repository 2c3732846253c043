# MJCF import (issue 45): golden diagnostics of bad MJCF (tests/golden_mjcf/), the reader on small
# documents with analytic expectations (test_mjcf.c), the command line (mjcf_cli_test.sh), and the
# four MuJoCo Menagerie models of examples/mjcf/ against MuJoCo 2.2.2 (test_mjcf_mujoco.c).
mbdc_add_test(NAME test_mjcf SOURCES test_mjcf.c LIBS mbdc_core LABELS mjcf)
mbdc_add_script_test(NAME mjcf_cli SCRIPT mjcf_cli_test.sh TIMEOUT 600
                     ARGS $<TARGET_FILE:mbdc> ${PROJECT_SOURCE_DIR} ${CMAKE_C_COMPILER})
set_property(TEST mjcf_cli APPEND PROPERTY LABELS "cli;mjcf")
if(MUJOCO_INCLUDE_DIR AND MUJOCO_LIBRARY)
  add_executable(test_mjcf_mujoco test_mjcf_mujoco.c)
  target_compile_options(test_mjcf_mujoco PRIVATE ${MBDC_WARNINGS})
  target_include_directories(test_mjcf_mujoco PRIVATE ${MUJOCO_INCLUDE_DIR})
  target_link_libraries(test_mjcf_mujoco PRIVATE mbdc_core ${MUJOCO_LIBRARY} m)
  add_test(NAME test_mjcf_mujoco COMMAND test_mjcf_mujoco)
  set_tests_properties(test_mjcf_mujoco PROPERTIES LABELS "mujoco;mjcf" TIMEOUT 300
    ENVIRONMENT "MBDC_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
else()
  mbdc_missing_peer(test_mjcf_mujoco "MuJoCo (libmujoco-dev) is not installed" test_mjcf_mujoco.c)
endif()
