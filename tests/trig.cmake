# The sine-cosine function written into generated code (templates/c/sincos_*.c): test_trig, and
# test_trig_fma, the same compiled with fused multiply-adds and contraction on, as mbdc_add_model
# compiles generated code by default (cmake/mbdc.cmake), where the compiler and this machine have
# them.
mbdc_add_test(NAME test_trig SOURCES test_trig.c)
set_tests_properties(test_trig PROPERTIES LABELS trig)
if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang" AND NOT CMAKE_CROSSCOMPILING)
  include(CheckCSourceRuns)
  set(CMAKE_REQUIRED_FLAGS "-mfma -ffp-contract=fast")
  set(CMAKE_REQUIRED_LIBRARIES m)
  check_c_source_runs("
    #include <math.h>
    int main(void) {
      volatile double a = 1.0 + 0x1p-30, b = 1.0 - 0x1p-30, c = -1.0;
      return fma(a, b, c) == -0x1p-60 && __builtin_cpu_supports(\"fma\") ? 0 : 1;
    }" MBDC_HAVE_FMA_RUN)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LIBRARIES)
  if(MBDC_HAVE_FMA_RUN)
    mbdc_add_test(NAME test_trig_fma SOURCES test_trig.c)
    target_compile_options(test_trig_fma PRIVATE -mfma -ffp-contract=fast)
    target_compile_definitions(test_trig_fma PRIVATE MBDC_TRIG_CONTRACTED)
    set_tests_properties(test_trig_fma PROPERTIES LABELS trig)
  endif()
endif()

# --trig-input (p_trig and the _sc twins) and --trig libm, through their harnesses: every twin
# against its runtime reference, or where there is none (rcr's parts, p_rcr) against its original
# function; p_trig against the C library's sin and cos. A loop model with rcr, a floating base
# with contacts, a flexible body, float; the C library's sin and cos on a fixed-base arm.
if(TARGET mbdc)
  set(_ex ${PROJECT_SOURCE_DIR}/examples)
  mbdc_add_model(NAME trig_five_bar MODEL ${_ex}/five_bar.mbd TRIG_INPUT QUIET PREFIX five_bar_sc)
  mbdc_add_model(NAME trig_solo12 MODEL ${_ex}/urdf/solo12.urdf FLOATING_BASE TRIG_INPUT QUIET
                 PREFIX solo_sc CONTACTS FL_FOOT FR_FOOT HL_FOOT HR_FOOT)
  mbdc_add_model(NAME trig_flexible_arm MODEL ${_ex}/flexible_arm.mbd TRIG_INPUT QUIET
                 PREFIX flexible_arm_sc)
  mbdc_add_model(NAME trig_arm7_float MODEL ${_ex}/arm7.mbd SCALAR float TRIG_INPUT QUIET
                 PREFIX arm7_sc)
  mbdc_add_model(NAME trig_ur5_libm MODEL ${_ex}/urdf/ur5.urdf TRIG libm QUIET PREFIX ur5_libm)
  set_tests_properties(trig_five_bar_check trig_solo12_check trig_flexible_arm_check
                       trig_arm7_float_check trig_ur5_libm_check
                       PROPERTIES LABELS "generated;trig" TIMEOUT 120)
endif()
