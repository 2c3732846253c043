# --frame (docs/frames.md): every recipe that has the choice of frames built in each world-aligned
# variant (the joint point, the centre of mass, the world's origin) and checked by its harness
# against the runtime, which computes in body frames: fixed and floating bases, a tree with
# branches, a spherical joint, prismatic joints, two loop models with fd_loops (Kang & Yoon's
# quarter car among them); the fused dynamics and aba_wrenches too.
if(TARGET mbdc)
  set(_ex ${PROJECT_SOURCE_DIR}/examples)
  set(_fns rnea,rnea_ext,nle,nle_ext,gravity,crba,crba_fd,aba,aba_ext,minv,joint_wrenches)
  string(APPEND _fns ,dynamics,aba_wrenches) # the fused functions (fused.lua)
  set(_tests "")
  foreach(_v joint com world)
    mbdc_add_model(NAME frame_${_v}_arm7 MODEL ${_ex}/arm7.mbd FRAME ${_v} QUIET
                   PREFIX arm7_${_v} FUNCTIONS ${_fns})
    mbdc_add_model(NAME frame_${_v}_quadruped MODEL ${_ex}/quadruped.mbd FRAME ${_v} QUIET
                   PREFIX quadruped_${_v} FUNCTIONS ${_fns})
    mbdc_add_model(NAME frame_${_v}_space_robot MODEL ${_ex}/space_robot.mbd FRAME ${_v} QUIET
                   PREFIX space_robot_${_v} FUNCTIONS ${_fns})
    mbdc_add_model(NAME frame_${_v}_gimbal MODEL ${_ex}/gimbal.mbd FRAME ${_v} QUIET
                   PREFIX gimbal_${_v} FUNCTIONS ${_fns})
    mbdc_add_model(NAME frame_${_v}_five_bar MODEL ${_ex}/five_bar.mbd FRAME ${_v} QUIET
                   PREFIX five_bar_${_v} FUNCTIONS ${_fns},fd_loops)
    mbdc_add_model(NAME frame_${_v}_quarter_car MODEL ${_ex}/quarter_car.mbd FRAME ${_v} QUIET
                   PREFIX quarter_car_${_v} FUNCTIONS ${_fns},fd_loops)
    mbdc_add_model(NAME frame_${_v}_panda MODEL ${_ex}/urdf/panda.urdf FRAME ${_v} QUIET
                   PREFIX panda_${_v} FUNCTIONS ${_fns})
    mbdc_add_model(NAME frame_${_v}_solo12 MODEL ${_ex}/urdf/solo12.urdf FLOATING_BASE
                   FRAME ${_v} QUIET PREFIX solo_${_v} FUNCTIONS ${_fns})
    list(APPEND _tests frame_${_v}_arm7_check frame_${_v}_quadruped_check
         frame_${_v}_space_robot_check frame_${_v}_gimbal_check frame_${_v}_five_bar_check
         frame_${_v}_quarter_car_check
         frame_${_v}_panda_check frame_${_v}_solo12_check)
  endforeach()
  set_tests_properties(${_tests} PROPERTIES LABELS "generated;frames" TIMEOUT 120)
endif()
