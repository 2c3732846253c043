# The runtime's flexible-body dynamics through the whole pipeline (.mbd → model → topology →
# rtmodel → runtime): identities at random states, zero modes against the rigid body, beam theory
# (frequencies, static sag, nodal data against the beam preset), energy balance, model checks.
mbdc_add_test(NAME test_flex SOURCES test_flex.c test_flex_beam.c test_flex_energy.c mbt_flex.c
              LIBS mbdc_core LABELS flexible)
# A beam with zero modes generates the rigid rod's code byte for byte.
mbdc_add_script_test(NAME flex_rigid SCRIPT flex_rigid_test.sh
                     ARGS $<TARGET_FILE:mbdc> ${PROJECT_SOURCE_DIR})
set_property(TEST flex_rigid APPEND PROPERTY LABELS "cli;flexible")
