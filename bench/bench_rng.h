/* bench_rng.h — the bench drivers' states (peers_driver.c, contact_derivatives_driver.c,
 * batch_driver.c): a fixed-seed xorshift64 generator, the same sequence in every driver and run,
 * so that the instruction counts and checksums of a figure can be reproduced. Header-only: each
 * driver is one program of its own. */
#ifndef BENCH_RNG_H
#define BENCH_RNG_H

#include <stdint.h>

static uint64_t bench_rng_state = 0x9e3779b97f4a7c15u;

/* A number uniform in [lo, hi) (53 random bits). */
static double uniform(double lo, double hi) {
  bench_rng_state ^= bench_rng_state << 13;
  bench_rng_state ^= bench_rng_state >> 7;
  bench_rng_state ^= bench_rng_state << 17;
  return lo + (hi - lo) * ((double)(bench_rng_state >> 11) * (1.0 / 9007199254740992.0));
}

#endif
