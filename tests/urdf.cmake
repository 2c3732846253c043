# URDF import (issue 7): golden diagnostics of bad URDFs (tests/golden_urdf/), every element kind,
# the import round trip of every example robot, and the command line (urdf_cli_test.sh).
mbdc_add_test(NAME test_urdf SOURCES test_urdf.c LIBS mbdc_core)
if(TARGET mbdc)
  add_test(NAME urdf_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/urdf_cli_test.sh
           $<TARGET_FILE:mbdc> ${PROJECT_SOURCE_DIR} ${CMAKE_C_COMPILER})
  set_tests_properties(urdf_cli PROPERTIES TIMEOUT 600)
endif()
