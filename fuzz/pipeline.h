/* pipeline.h — one input through everything `mbdc check` and `mbdc generate` do, into memory.
 * Shared by the libFuzzer target fuzz_pipeline.c and by tests/test_fuzz_regressions.c, which
 * replays the regression inputs through it. */
#ifndef MBDC_FUZZ_PIPELINE_H
#define MBDC_FUZZ_PIPELINE_H

#include <stddef.h>
#include <stdio.h>

/* Bodies above which only rnea, crba and aba are generated (the rest grows as nb² and would make
 * the fuzzer slow without reaching other code). */
enum { MBDC_FUZZ_ALL_FUNCTIONS_MAX_NB = 16 };
/* The derivative functions (by name only), asked for on one input in three of at most this many
 * bodies (they are the longest functions to generate). */
enum { MBDC_FUZZ_DERIVATIVES_MAX_NB = 8 };
#define MBDC_FUZZ_DERIVATIVES                                                                     \
  "rnea_derivatives,aba_derivatives,rnea_ext_derivatives,frame_velocity_derivatives,"           \
  "frame_acceleration_derivatives_local,integrate_jacobians,difference_jacobians"

/* The input as a model (a URDF when its first non-blank byte is '<', with --floating-base when
 * its last byte is odd; else the model language): loaded and checked, its topology and the text
 * of `mbdc check` printed, then generated and rendered into `sink`, no file written. Messages go
 * to `sink` too. Returns the stage reached: 0 not a model, 1 checked, 2 generated (the recipes
 * ran), 3 rendered. */
int mbdc_fuzz_pipeline(const char *data, size_t size, FILE *sink);

#endif
