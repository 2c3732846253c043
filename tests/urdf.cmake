# URDF import (issue 7): golden diagnostics of bad URDFs (tests/golden_urdf/), every element kind,
# the import round trip of every example robot, and the command line (urdf_cli_test.sh).
mbdc_add_test(NAME test_urdf SOURCES test_urdf.c LIBS mbdc_core LABELS urdf)
mbdc_add_script_test(NAME urdf_cli SCRIPT urdf_cli_test.sh TIMEOUT 600
                     ARGS $<TARGET_FILE:mbdc> ${PROJECT_SOURCE_DIR} ${CMAKE_C_COMPILER})
set_property(TEST urdf_cli APPEND PROPERTY LABELS "cli;urdf")
