# Long functions cut into parts (--parts, docs/generator.md "Long functions"): the same models as
# the other harnesses, generated with parts of a few dozen statements so that every function of
# more than a few hundred is cut, compiled with the project's warnings as errors, and every output
# compared with the runtime by the harness. The cut is exercised through every kind of body: int
# functions with pivot arrays (aba, fd_loops, contact_fd), the batch of sines and cosines (the
# default) and the C library's (TRIG libm), the _sc twins (TRIG_INPUT: one more parameter), int
# array parameters (contacts), an epilogue after the parts (aba_derivatives), a fused function,
# the zero local of later parts, float. A value made in one part and read in another goes
# through the scratch array: a slot reused too early or a value not carried would change an
# output.
if(TARGET mbdc)
  set(_ex ${PROJECT_SOURCE_DIR}/examples)
  mbdc_add_model(NAME parts_arm7 MODEL ${_ex}/arm7.mbd QUIET PREFIX arm7_pt PARTS 25)
  mbdc_add_model(NAME parts_gimbal MODEL ${_ex}/gimbal.mbd QUIET PREFIX gimbal_pt PARTS 25
                 TRIG libm)
  mbdc_add_model(NAME parts_five_bar MODEL ${_ex}/five_bar.mbd QUIET PREFIX five_bar_pt PARTS 30
                 TRIG_INPUT)
  mbdc_add_model(NAME parts_solo12 MODEL ${_ex}/urdf/solo12.urdf FLOATING_BASE QUIET
                 PREFIX solo_pt PARTS 200 CONTACTS FL_FOOT FR_FOOT HL_FOOT HR_FOOT
                 FUNCTIONS rnea crba aba contact_fd impulse rnea_derivatives aba_derivatives
                 FUSE cycle=crba,nle,frame_jacobian,contact_fd)
  mbdc_add_model(NAME parts_flexible_arm MODEL ${_ex}/flexible_arm.mbd QUIET
                 PREFIX flexible_arm_pt PARTS 40)
  mbdc_add_model(NAME parts_arm7_float MODEL ${_ex}/arm7.mbd SCALAR float QUIET PREFIX arm7_ptf
                 PARTS 25)
  set_tests_properties(parts_arm7_check parts_gimbal_check parts_five_bar_check
                       parts_solo12_check parts_flexible_arm_check parts_arm7_float_check
                       PROPERTIES LABELS "generated;parts" TIMEOUT 120)
endif()
