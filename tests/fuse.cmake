# --fuse NAME=f1,f2,...: each fused function through its harness, every part's outputs against
# that part's runtime reference (tests/cli_test.sh has its usage errors). A fixed-base arm with a
# controller's whole cycle in one function (M, h, frame poses, Jacobians and J̇v, centre of mass
# and its Jacobian) beside Pinocchio's computeAllTerms; a floating base with contact dynamics and
# --trig-input (the fused function's _sc twin); the loops' Newton pair, and a loop part beside one
# defined anywhere (loop_residual, reported not compared); a flexible body; float; user recipes
# without a runtime reference (tests/fuse_templates/: a part not compared, a function only run).
if(TARGET mbdc)
  set(_ex ${PROJECT_SOURCE_DIR}/examples)
  mbdc_add_model(NAME fuse_panda MODEL ${_ex}/urdf/panda.urdf QUIET PREFIX panda_fu
                 FUNCTIONS rnea
                 FUSE cycle=crba,nle,frame_pose,frame_jacobian,frame_acceleration_bias,com,com_jacobian
                      all_terms=crba,nle,aba)
  mbdc_add_model(NAME fuse_solo12 MODEL ${_ex}/urdf/solo12.urdf FLOATING_BASE QUIET TRIG_INPUT
                 PREFIX solo_fu FUNCTIONS aba CONTACTS FL_FOOT FR_FOOT HL_FOOT HR_FOOT
                 FUSE kkt=crba,nle,contact_fd)
  mbdc_add_model(NAME fuse_five_bar MODEL ${_ex}/five_bar.mbd QUIET PREFIX five_bar_fu
                 FUNCTIONS fd_loops
                 FUSE newton=loop_residual,loop_jacobian mixed=loop_residual,fd_loops)
  mbdc_add_model(NAME fuse_flexible_arm MODEL ${_ex}/flexible_arm.mbd QUIET
                 PREFIX flexible_arm_fu FUNCTIONS rnea FUSE all_terms=crba,nle,aba)
  mbdc_add_model(NAME fuse_arm7_float MODEL ${_ex}/arm7.mbd SCALAR float QUIET PREFIX arm7_fu
                 FUNCTIONS rnea FUSE all_terms=crba,nle,aba)
  mbdc_add_model(NAME fuse_user MODEL ${_ex}/arm7.mbd QUIET PREFIX arm7_user
                 TEMPLATES ${CMAKE_CURRENT_SOURCE_DIR}/fuse_templates FUNCTIONS rnea
                 FUSE half=my_mass,nle neither=my_mass,my_bias)
  set_tests_properties(fuse_panda_check fuse_solo12_check fuse_five_bar_check
                       fuse_flexible_arm_check fuse_arm7_float_check fuse_user_check
                       PROPERTIES LABELS "generated;fuse" TIMEOUT 120)
endif()
