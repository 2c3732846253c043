# The cross-check against MuJoCo (issue 7): built whenever libmujoco-dev is installed
# (scripts/setup.sh installs it). test_mujoco compares the generated dynamics of every example
# robot built (the urdf_<stem> rows of tests/matrix.txt: urdf_<stem>_dynamics) with MuJoCo 2.2.2
# loading the same URDF; see test_mujoco.c and docs/urdf.md. The MuJoCo side (the URDF copy, the inertias, the
# coordinate map) is mujoco_peer/'s library mbdc_mujoco, which the benchmarks use too.
if(NOT TARGET mbdc_mujoco)
  mbdc_missing_peer(test_mujoco "MuJoCo (libmujoco-dev) is not installed" test_mujoco.c)
  return()
endif()

# The table of the robots' generated functions (mbt_robots[], tests/mujoco_robots.h): the
# example robots' rows of matrix.txt built in this set (MBDC_URDF_ROBOTS, mbdc_test_matrix).
file(STRINGS ${PROJECT_SOURCE_DIR}/examples/urdf/floating_base.txt MBDC_FLOATING_ROBOTS
     REGEX "^[a-z]")
set(includes "")
set(entries "")
set(libs "")
foreach(stem IN LISTS MBDC_URDF_ROBOTS)
  _mbdc_model_prefix(${PROJECT_SOURCE_DIR}/examples/urdf/${stem}.urdf p)
  string(TOUPPER ${p} P)
  set(fb 0)
  if(stem IN_LIST MBDC_FLOATING_ROBOTS)
    set(fb 1)
  endif()
  string(APPEND includes "#include \"${p}_dynamics.h\"\n")
  string(APPEND entries "  {\"${stem}\", ${fb}, ${P}_NQ, ${P}_NV, ${P}_NJ, ${P}_NB, ${p}_joint_names, "
                        "${p}_joint_iq, ${p}_joint_iv, ${p}_rnea, ${p}_crba, ${p}_aba, ${P}_NF, "
                        "${p}_frame_names, ${p}_body_names, ${p}_frame_pose, "
                        "${p}_frame_jacobian_world, ${p}_com},\n")
  list(APPEND libs urdf_${stem}_dynamics)
endforeach()
set(table ${CMAKE_CURRENT_BINARY_DIR}/mujoco_robots.c)
file(CONFIGURE OUTPUT ${table} CONTENT "/* The example robots' generated functions, for test_mujoco (tests/mujoco.cmake). */
#include \"mujoco_robots.h\"
@includes@
const mbt_robot mbt_robots[] = {
@entries@};
const int mbt_nrobots = (int)(sizeof mbt_robots / sizeof *mbt_robots);
" @ONLY)

add_executable(test_mujoco test_mujoco.c ${table})
target_compile_options(test_mujoco PRIVATE ${MBDC_WARNINGS})
target_include_directories(test_mujoco PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(test_mujoco PRIVATE ${libs} mbdc_mujoco m)
add_test(NAME test_mujoco COMMAND test_mujoco)
set_tests_properties(test_mujoco PROPERTIES LABELS "mujoco;urdf" TIMEOUT 300
  ENVIRONMENT "MBDC_SOURCE_DIR=${PROJECT_SOURCE_DIR};MBDC_BINARY_DIR=${PROJECT_BINARY_DIR}")
