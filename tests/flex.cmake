# The runtime's flexible-body dynamics through the whole pipeline (.mbd → model → topology →
# rtmodel → runtime): identities at random states, zero modes against the rigid body, beam theory
# (frequencies, static sag, nodal data against the beam preset), energy balance, model checks.
mbdc_add_test(NAME test_flex SOURCES test_flex.c test_flex_beam.c test_flex_energy.c mbt_flex.c
              LIBS mbdc_core)
# A beam with zero modes generates the rigid rod's code byte for byte.
if(TARGET mbdc)
  add_test(NAME flex_rigid COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/flex_rigid_test.sh
           $<TARGET_FILE:mbdc> ${PROJECT_SOURCE_DIR})
endif()
