# The modal data of flexible bodies (generator/modal/): exact cantilever modes against textbook
# roots and quadrature, the beam preset and nodal data's modal mass, coupling and stiffness.
mbdc_add_test(NAME test_modal SOURCES test_modal.c LIBS mbdc_core)
