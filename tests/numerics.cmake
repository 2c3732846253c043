# Generated code on singular, non-finite and degenerate inputs (docs/generator.md, "Singular and
# non-finite inputs"): two models of tests/singular/ and the examples gimbal and quadruped (rows
# of matrix.txt, all four in the quick set), and the test linked
# with their libraries and, once more, with their sources under UndefinedBehaviorSanitizer.
set(_gn_models two_link_point negligible_body gimbal quadruped)
set(_gn_model_sources "")
set(_gn_dynamics_sources "")
foreach(name IN LISTS _gn_models)
  list(APPEND _gn_model_sources ${CMAKE_CURRENT_BINARY_DIR}/${name}/${name}_model.c)
  list(APPEND _gn_dynamics_sources ${CMAKE_CURRENT_BINARY_DIR}/${name}/${name}_dynamics.c)
endforeach()
mbdc_add_test(NAME test_generated_numerics
              SOURCES test_generated_numerics.c mb_randtree.c ${_gn_model_sources}
              LIBS two_link_point_dynamics negligible_body_dynamics gimbal_dynamics
                   quadruped_dynamics mbrt
              LABELS numerics)
# The same with the generated functions compiled under -fsanitize=undefined,float-cast-overflow
# (no recovery: a report aborts the test). The generated code has no integer arithmetic on values
# and one conversion from floating point (the quadrant of mbdc_sincos, an integer below 2^20: NaN,
# Inf and larger angles go to the C library first), so these only confirm that NaN, Inf and huge
# inputs take no undefined path; a zero quaternion divides by zero, which IEEE arithmetic defines (Inf) and
# -fsanitize=float-divide-by-zero, deliberately not used, would report.
# (Not in a sanitizer build, where everything, the generated code included, is compiled under
# -fsanitize=undefined,float-cast-overflow already.)
if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang" AND NOT MBDC_SANITIZE)
  mbdc_add_test(NAME test_generated_numerics_ubsan
                SOURCES test_generated_numerics.c mb_randtree.c ${_gn_model_sources}
                        ${_gn_dynamics_sources}
                LIBS mbrt LABELS numerics)
  foreach(name IN LISTS _gn_models)
    target_include_directories(test_generated_numerics_ubsan PRIVATE
                               ${CMAKE_CURRENT_BINARY_DIR}/${name})
    add_dependencies(test_generated_numerics_ubsan ${name}_generate) # its sources, generated
  endforeach()
  set(_gn_ubsan -fsanitize=undefined,float-cast-overflow -fno-sanitize-recover=all)
  target_compile_options(test_generated_numerics_ubsan PRIVATE ${_gn_ubsan})
  target_link_options(test_generated_numerics_ubsan PRIVATE ${_gn_ubsan})
  # -O0 and no debug information: UBSan's checks are placed before any optimization, and the
  # quadruped's megabytes take minutes at -O2 under it (212 s measured, -g on).
  set_source_files_properties(${_gn_dynamics_sources} PROPERTIES COMPILE_OPTIONS "-w;-O0;-g0")
endif()
