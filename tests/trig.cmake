# The sine-cosine function written into generated code (templates/c/sincos_*.c): test_trig, and
# test_trig_fma, the same compiled with fused multiply-adds and contraction on, as mbdc_add_model
# compiles generated code by default (cmake/mbdc.cmake), where the compiler and this machine have
# them. (--trig-input and --trig libm through their harnesses: the trig_* rows of matrix.txt.)
mbdc_add_test(NAME test_trig SOURCES test_trig.c LABELS trig)
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
    mbdc_add_test(NAME test_trig_fma SOURCES test_trig.c LABELS trig)
    target_compile_options(test_trig_fma PRIVATE -mfma -ffp-contract=fast)
    target_compile_definitions(test_trig_fma PRIVATE MBDC_TRIG_CONTRACTED)
  endif()
endif()
