# Tests of the generic runtime solver (runtime/), one file per runtime file.
# The closed-loop tests (kinematics, dynamics) share mb_loopmech.c: the mechanisms and checks.
foreach(t spatial jcalc rnea crba fk integrate manifold_jacobians joint_wrenches aba ltdl minv
       derivatives frame_derivatives contact_derivatives cfa energy numerics api loops fd_loops
       loop_derivatives passive hybrid fd_loops_hybrid)
  set(_extra)
  if(t MATCHES "^(loops|fd_loops|loop_derivatives|fd_loops_hybrid)$")
    set(_extra mb_loopmech.c)
  endif()
  mbdc_add_test(NAME test_${t} SOURCES test_${t}.c mb_randtree.c ${_extra} LIBS mbrt)
endforeach()
# Assembly and initial velocity with locks, Baumgarte stabilization, the DAE residual
# (runtime/assemble.c, fd_loops.c): dense minimum-norm references, closed-form drift decay.
mbdc_add_test(NAME test_assemble SOURCES test_assemble.c mb_randtree.c mb_loopmech.c LIBS mbrt)
# No algorithm allocates: malloc and friends wrapped at link time and counted.
mbdc_add_test(NAME test_noalloc SOURCES test_noalloc.c mb_randtree.c mbt_alloc.c LIBS mbrt)
target_compile_options(test_noalloc PRIVATE -fno-builtin)
target_link_options(test_noalloc PRIVATE -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free)

# The universal joint (S varies with q, cJ ≠ 0) in every runtime algorithm: its closed form, the
# same robot through massless crosses of two revolutes, identities on random trees with it.
mbdc_add_test(NAME test_universal SOURCES test_universal.c mb_randtree.c LIBS mbrt)

# Operational frames: the model's frames, their runtime data, mb_frame_pose and the .mbd writer
# (the generator's loader builds them, so the test links mbdc_core).
mbdc_add_test(NAME test_frames SOURCES test_frames.c mbt_contactsys.c mbt_robot.c LIBS mbdc_core)
# Centre of mass, its Jacobian and the energy (runtime/com.c), against differences, the gravity
# torques and ½ vᵀ M v.
mbdc_add_test(NAME test_com SOURCES test_com.c mbt_robot.c LIBS mbdc_core)
# The regressors (runtime/regressor.c): τ = Y π against mb_rnea for the model's and arbitrary
# parameters, the energy regressors against mb_energy, Y's zero pattern, an analytic pendulum.
mbdc_add_test(NAME test_regressor SOURCES test_regressor.c mb_randtree.c mbt_robot.c LIBS mbdc_core)
# The rotor inertias (mb_model.armature) in every dynamics function: a pendulum and identities.
mbdc_add_test(NAME test_armature SOURCES test_armature.c mb_randtree.c mbt_robot.c LIBS mbdc_core)
# Coupled (mimic) coordinates (runtime/coupling.c, the DSL's mimic): two fingers in closed form,
# forward dynamics against the coupling as a constraint with multipliers, the folds against G.
mbdc_add_test(NAME test_coupled SOURCES test_coupled.c mb_randtree.c mbt_robot.c LIBS mbdc_core)
# Forward dynamics with the passive forces (mb_passive_tau, mb_aba_derivatives_passive: the
# generator's --passive-in-fd): a damped pendulum on a spring in closed form, finite differences.
mbdc_add_test(NAME test_passive_fd SOURCES test_passive_fd.c mb_randtree.c LIBS mbdc_core)
# The base inertial parameters (generator/topology/base_params.c): analytic counts and grouping,
# Y π = Y_b K π on fresh states, their number against the rank of the stacked regressor.
mbdc_add_test(NAME test_base_params SOURCES test_base_params.c mb_randtree.c mbt_robot.c LIBS mbdc_core)
# Contact-constrained dynamics and impacts (runtime/contact.c), against the equations, a dense KKT
# solve, masks, redundant contacts and energy. The contact tests share mbt_contactsys.c: the robot
# with its frames, workspace and scratches, random states, the rows of Jc, the motion residual.
mbdc_add_test(NAME test_contact SOURCES test_contact.c mbt_contactsys.c mbt_robot.c
              LIBS mbdc_core)
# Static equilibrium (runtime/static.c): a pendulum on a spring in closed form (stable and
# unstable branches), arms with springs and locks, a floating base, the quarter car's loops.
mbdc_add_test(NAME test_static SOURCES test_static.c mb_randtree.c mbt_loopmodel.c
              LIBS mbdc_core)
# Contact inverse dynamics (runtime/contact_id.c): the equations of motion, round trips through
# mb_contact_fd, optimality against a dense KKT solve, least norm, an unbalanced base, the contract.
mbdc_add_test(NAME test_contact_id SOURCES test_contact_id.c mbt_contactsys.c mbt_robot.c
              LIBS mbdc_core)
# Integration with error control (runtime/simulate.c): order 5 against a closed form and on SE(3)
# (a tumbling free body, random trees), conservation, closed loops with projection, events,
# determinism and no allocation.
mbdc_add_test(NAME test_simulate SOURCES test_simulate.c mb_randtree.c mb_loopmech.c mbt_alloc.c
              LIBS mbrt)
# (the allocator wrapped and counted, as in test_noalloc: mb_simulate allocates nothing)
target_compile_options(test_simulate PRIVATE -fno-builtin)
target_link_options(test_simulate PRIVATE
                    -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free)
