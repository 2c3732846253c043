# The generated code as a whole, and the programs built on the matrix's libraries (the models
# themselves, their harnesses and their <name>_libm checks, double and float: matrix.txt):
#   generated_stale          generated/ equals a fresh generation (else: regenerate)
#   generated_deterministic  generating twice gives the same bytes
#   generated_header         the header's signatures and objects (tests/header_test.sh)
#   random_loops, the simulations and controllers of examples/sim/ and examples/controller/
#   identification_ur5       the identification example (examples/identification/)

# Seeded random closed chains through the whole pipeline (tests/random_loops.c).
add_executable(random_loops ${CMAKE_CURRENT_LIST_DIR}/random_loops.c)
target_compile_options(random_loops PRIVATE ${MBDC_WARNINGS})
target_link_libraries(random_loops PRIVATE m)
# (the programs are compiled by the test: with the sanitizers when the runtime has them)
set(random_loops_flags "")
if(MBDC_SANITIZE)
  set(random_loops_flags "-fsanitize=address,undefined -fno-omit-frame-pointer")
endif()
mbdc_add_script_test(NAME random_loops SCRIPT random_loops_test.sh TIMEOUT 600
  ARGS $<TARGET_FILE:mbdc> $<TARGET_FILE:random_loops> ${CMAKE_C_COMPILER}
       ${PROJECT_SOURCE_DIR}/runtime $<TARGET_FILE:mbrt> "${random_loops_flags}")
set_property(TEST random_loops APPEND PROPERTY LABELS "generated;loops")

# The header as users read it: every signature of `mbdc functions` declared as listed, every
# object it declares defined in <p>_dynamics.c (tests/header_test.sh).
mbdc_add_script_test(NAME generated_header SCRIPT header_test.sh TIMEOUT 300
  ARGS $<TARGET_FILE:mbdc> ${CMAKE_C_COMPILER} ${PROJECT_SOURCE_DIR})
set_property(TEST generated_header APPEND PROPERTY LABELS "generated;cli")

foreach(mode stale deterministic)
  mbdc_add_script_test(NAME generated_${mode} SCRIPT generated_test.sh TIMEOUT 300
    ARGS ${mode} $<TARGET_FILE:mbdc> ${PROJECT_SOURCE_DIR})
  set_property(TEST generated_${mode} APPEND PROPERTY LABELS generated)
endforeach()

# The space robot of Liu, Hu & Zhang, "Constraint force algorithm for tree-like multibody system
# dynamics", Chinese Journal of Theoretical and Applied Mechanics 48(1), 2016, §4, simulated for
# 10 s with the generated cfa and aba and mb_simulate (examples/sim/): the trajectories agree to
# 1e-9 and the centroidal momentum stays zero.
add_executable(space_robot_sim ${PROJECT_SOURCE_DIR}/examples/sim/space_robot_sim.c
               ${CMAKE_CURRENT_BINARY_DIR}/space_robot/space_robot_model.c)
target_link_libraries(space_robot_sim PRIVATE space_robot_dynamics mbrt m)
add_test(NAME cfa_space_robot_sim COMMAND space_robot_sim)
set_tests_properties(cfa_space_robot_sim PROPERTIES LABELS generated TIMEOUT 120)

# The closed-loop examples simulated with their generated fd_loops, the runtime's mb_simulate
# (Dormand & Prince 5(4) with error control, tol 1e-10) and the coordinate projection after every
# accepted step (examples/sim/loop_sim.h, docs/loops_simulation.md): the five-bar of Critchley &
# Anderson (2003) §6 for 5 s, the quarter car of Kang & Yoon (KSME) for 2 s. Each checks the
# constraint drift with and without projection and the energy (conserved by the five-bar,
# dissipated by the quarter car's damper, E + D = E(0)).
foreach(sim five_bar quarter_car)
  add_executable(${sim}_sim ${PROJECT_SOURCE_DIR}/examples/sim/${sim}_sim.c
                 ${CMAKE_CURRENT_BINARY_DIR}/${sim}/${sim}_model.c)
  target_include_directories(${sim}_sim PRIVATE ${PROJECT_SOURCE_DIR}/examples/sim)
  target_link_libraries(${sim}_sim PRIVATE ${sim}_dynamics mbrt m)
  add_test(NAME loops_${sim}_sim COMMAND ${sim}_sim --check)
  set_tests_properties(loops_${sim}_sim PROPERTIES LABELS "generated;loops" TIMEOUT 60)
endforeach()

# Cassie (examples/mjcf/agility_cassie/cassie.xml, matrix row mjcf_cassie) falling from its
# home keyframe for 0.5 s: its four loops by the generated fd_loops with armature, mb_simulate
# (DP5(4), tol 1e-10) and the projection (examples/sim/cassie_sim.c): the loops stay closed, the
# energy is conserved.
if(MBDC_TEST_SET STREQUAL "full")
  add_executable(cassie_sim ${PROJECT_SOURCE_DIR}/examples/sim/cassie_sim.c
                 ${CMAKE_CURRENT_BINARY_DIR}/mjcf_cassie/cassie_model.c)
  target_include_directories(cassie_sim PRIVATE ${PROJECT_SOURCE_DIR}/examples/sim)
  target_link_libraries(cassie_sim PRIVATE mjcf_cassie_dynamics mbrt m)
  add_test(NAME loops_cassie_sim COMMAND cassie_sim --check)
  set_tests_properties(loops_cassie_sim PROPERTIES LABELS "generated;loops;mjcf" TIMEOUT 60)
  mbdc_full_only(loops_cassie_sim)
endif()

# The five-bar through the instants where the paper's dependent coordinates turn singular: the
# generated p_rcr (recursive coordinate reduction, switching selections) against the generated
# p_fd_loops (multipliers) over 5 s (examples/sim/five_bar_rcr.c; docs/loops.md).
add_executable(five_bar_rcr ${PROJECT_SOURCE_DIR}/examples/sim/five_bar_rcr.c
               ${CMAKE_CURRENT_BINARY_DIR}/five_bar/five_bar_model.c)
target_compile_options(five_bar_rcr PRIVATE ${MBDC_WARNINGS})
target_link_libraries(five_bar_rcr PRIVATE five_bar_dynamics mbrt m)
add_test(NAME loops_five_bar_rcr COMMAND five_bar_rcr)
set_tests_properties(loops_five_bar_rcr PROPERTIES LABELS "generated;loops" TIMEOUT 60)

# The flexible arm of examples/flexible_arm.mbd and the same arm with a rigid forearm
# (flexible_arm_rigid.mbd) swung by the same torques for 5 s with their generated aba and
# mb_simulate (examples/sim/flexible_arm_sim.c, docs/flexible.md "Simulation"; the rigid arm's
# runtime model for mb_simulate): the energy balance T + U - W, the change when the tolerance is
# divided by 10, the rigid arm on its reference and the residual vibration at the linearized
# frequency.
add_executable(flexible_arm_sim ${PROJECT_SOURCE_DIR}/examples/sim/flexible_arm_sim.c
               ${CMAKE_CURRENT_BINARY_DIR}/flexible_arm/flexible_arm_model.c
               ${CMAKE_CURRENT_BINARY_DIR}/flexible_arm_rigid/flexible_arm_rigid_model.c)
target_compile_options(flexible_arm_sim PRIVATE ${MBDC_WARNINGS})
target_link_libraries(flexible_arm_sim PRIVATE flexible_arm_dynamics flexible_arm_rigid_dynamics
                      mbrt m)
add_test(NAME flexible_arm_sim COMMAND flexible_arm_sim --check)
set_tests_properties(flexible_arm_sim PROPERTIES LABELS "generated;flexible" TIMEOUT 120)

# The controller examples (examples/controller/, docs/controllers.md) on the generated robots:
# Solo12's whole-body balance on four contacts (contact_fd, impulse, frame Jacobians, energy).
add_executable(solo12_balance ${PROJECT_SOURCE_DIR}/examples/controller/solo12_balance.c)
target_compile_options(solo12_balance PRIVATE ${MBDC_WARNINGS})
target_link_libraries(solo12_balance PRIVATE urdf_solo12_model m)
add_test(NAME controller_solo12_balance COMMAND solo12_balance --check)
set_tests_properties(controller_solo12_balance PROPERTIES LABELS "generated;controller" TIMEOUT 60)
# The Panda's operational-space control of its TCP (frame Jacobian, J̇v, minv, nle; aba the plant).
add_executable(panda_osc ${PROJECT_SOURCE_DIR}/examples/controller/panda_osc.c)
target_compile_options(panda_osc PRIVATE ${MBDC_WARNINGS})
target_link_libraries(panda_osc PRIVATE urdf_panda_dynamics m)
add_test(NAME controller_panda_osc COMMAND panda_osc --check)
set_tests_properties(controller_panda_osc PROPERTIES LABELS "generated;controller" TIMEOUT 60)
# The LQR example (examples/mpc/, docs/mpc.md): Solo12 on its four feet linearized in discrete
# time (contact_fd_derivatives, integrate_jacobians), the LQR on the contact-consistent subspace,
# a sideways push: A and B against central differences, the Riccati residual, the closed loop's
# spectral radius below 1, the push recovered.
mbdc_add_model(NAME mpc_solo12 MODEL ${PROJECT_SOURCE_DIR}/examples/urdf/solo12.urdf PREFIX solo
               FLOATING_BASE QUIET NO_CHECK CONTACTS FL_FOOT FR_FOOT HL_FOOT HR_FOOT
               FRAMES FL_FOOT FR_FOOT HL_FOOT HR_FOOT
               FUNCTIONS contact_fd contact_fd_derivatives impulse integrate integrate_jacobians
                         difference gravity frame_pose frame_jacobian_world)
add_executable(solo12_lqr ${PROJECT_SOURCE_DIR}/examples/mpc/solo12_lqr.c
               ${PROJECT_SOURCE_DIR}/examples/mpc/lqr.c)
target_compile_options(solo12_lqr PRIVATE ${MBDC_WARNINGS})
target_link_libraries(solo12_lqr PRIVATE mpc_solo12_dynamics m)
add_test(NAME controller_solo12_lqr COMMAND solo12_lqr --check)
set_tests_properties(controller_solo12_lqr PROPERTIES
                     LABELS "generated;controller;derivatives;contacts" TIMEOUT 60)

# The identification example (examples/identification/, docs/identification.md): the UR5's base
# inertial parameters and joint friction identified by OLS and WLS (LAPACK) from torques
# simulated along an optimised Fourier trajectory; fails if an estimate is off by more than 4.5
# standard deviations or the torques of a validation trajectory by much more than the noise.
find_package(LAPACK)
if(LAPACK_FOUND)
  mbdc_add_model(NAME ident_ur5 MODEL ${PROJECT_SOURCE_DIR}/examples/urdf/ur5.urdf PREFIX ur5
                 QUIET NO_CHECK FUNCTIONS rnea base_regressor base_params joint_regressor)
  set(ident ${PROJECT_SOURCE_DIR}/examples/identification)
  add_executable(identification_ur5 ${ident}/identify.c ${ident}/robot.c ${ident}/excitation.c
                 ${ident}/lsq.c ${ident}/svg.c)
  target_compile_options(identification_ur5 PRIVATE ${MBDC_WARNINGS})
  target_link_libraries(identification_ur5 PRIVATE ident_ur5_dynamics LAPACK::LAPACK m)
  add_test(NAME identification_ur5 COMMAND identification_ur5 ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(identification_ur5 PROPERTIES LABELS "generated;identification"
                       TIMEOUT 60)
else()
  mbdc_missing_peer(identification_ur5 "no LAPACK (Debian: liblapack-dev, scripts/setup.sh)")
endif()
