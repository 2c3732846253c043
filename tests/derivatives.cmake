# The derivatives of the dynamics (docs/derivatives.md): rnea_derivatives and aba_derivatives
# through their harnesses, every output (∂/∂q, ∂/∂v, M or M⁻¹) against the runtime's
# mb_rnea_derivatives and mb_aba_derivatives (runtime/derivatives.c, itself checked against
# central differences by test_derivatives), the compiled C with its epilogue included: a
# fixed-base arm, spherical joints (the gimbal), a loop model's spanning tree, the Panda, a
# floating base (Solo12), and float (rnea_derivatives). test_gen_derivatives checks the generated
# graphs against central differences of the generated rnea and aba on every example and robot and
# on random trees.
if(TARGET mbdc)
  set(_ex ${PROJECT_SOURCE_DIR}/examples)
  set(_fns rnea_derivatives,aba_derivatives)
  mbdc_add_model(NAME deriv_arm7 MODEL ${_ex}/arm7.mbd QUIET PREFIX arm7_d FUNCTIONS ${_fns})
  mbdc_add_model(NAME deriv_gimbal MODEL ${_ex}/gimbal.mbd QUIET PREFIX gimbal_d FUNCTIONS ${_fns})
  mbdc_add_model(NAME deriv_five_bar MODEL ${_ex}/five_bar.mbd QUIET PREFIX five_bar_d
                 FUNCTIONS ${_fns})
  mbdc_add_model(NAME deriv_panda MODEL ${_ex}/urdf/panda.urdf QUIET PREFIX panda_d
                 FUNCTIONS ${_fns})
  mbdc_add_model(NAME deriv_solo12 MODEL ${_ex}/urdf/solo12.urdf FLOATING_BASE QUIET
                 PREFIX solo_d FUNCTIONS ${_fns})
  # float: rnea_derivatives only. aba_derivatives in float loses about cond(M) times float's
  # epsilon (2.9e-4 relative on this arm, measured against the runtime in double; docs/derivatives.md)
  mbdc_add_model(NAME deriv_arm7_float MODEL ${_ex}/arm7.mbd SCALAR float QUIET PREFIX arm7_df
                 FUNCTIONS rnea_derivatives)
  set_tests_properties(deriv_arm7_check deriv_gimbal_check deriv_five_bar_check
                       deriv_panda_check deriv_solo12_check deriv_arm7_float_check
                       PROPERTIES LABELS "generated;derivatives" TIMEOUT 120)
endif()
