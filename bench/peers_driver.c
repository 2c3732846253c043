/* The driver of bench/peers.sh: calls the generated rnea, crba, aba (and aba_wrenches) of one
 * model once per state over 64 random states, each function inside its own noinline run_<f>, so
 * that callgrind's inclusive count of run_<f> divided by 64 is the instructions per call.
 *
 * Compiled by bench/peers.sh (C11) with
 *   -DHEADER='"DIR/<p>_dynamics.h"' -DPFX=<p> -DPFX_UP=<P> [-DWITH_ABA_WRENCHES]
 * and linked with the generated <p>_dynamics.o. States from a fixed-seed xorshift generator:
 * every q entry uniform in [-3, 3] (unnormalised quaternions are accepted by the generated code,
 * and the instruction count does not depend on them), v, a, tau in [-1, 1]. Static arrays only. */
#include <stdint.h>
#include <stdio.h>

#ifndef HEADER
#error "compile with -DHEADER='\"DIR/<p>_dynamics.h\"' -DPFX=<p> -DPFX_UP=<P>"
#endif
#include HEADER

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define FN(f) CAT(PFX, CAT(_, f))   /* FN(rnea) -> <p>_rnea */
#define UP(m) CAT(PFX_UP, CAT(_, m)) /* UP(NQ) -> <P>_NQ */

#define NQ UP(NQ)
#define NV UP(NV)
#define NSTATES 64

static double q[NSTATES][NQ];
static double v[NSTATES][NV];
static double a[NSTATES][NV];
static double tau[NSTATES][NV];
static double tau_out[NSTATES][NV];
static double M[NSTATES][NV * NV];
static double qdd[NSTATES][NV];
#ifdef WITH_ABA_WRENCHES
static double wrench[NSTATES][6 * (UP(NB) + 1)];
#endif

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static double uniform(double lo, double hi) { /* xorshift64 */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return lo + (hi - lo) * ((double)(rng_state >> 11) * (1.0 / 9007199254740992.0));
}

__attribute__((noinline)) static void run_rnea(void) {
  for (int s = 0; s < NSTATES; s++) FN(rnea)(q[s], v[s], a[s], tau_out[s]);
}

__attribute__((noinline)) static void run_crba(void) {
  for (int s = 0; s < NSTATES; s++) FN(crba)(q[s], M[s]);
}

__attribute__((noinline)) static int run_aba(void) {
  int fails = 0;
  for (int s = 0; s < NSTATES; s++) fails += FN(aba)(q[s], v[s], tau[s], qdd[s]) != 0;
  return fails;
}

#ifdef WITH_ABA_WRENCHES
__attribute__((noinline)) static int run_aba_wrenches(void) {
  int fails = 0;
  for (int s = 0; s < NSTATES; s++) fails += FN(aba_wrenches)(q[s], v[s], tau[s], qdd[s], wrench[s]) != 0;
  return fails;
}
#endif

int main(void) {
  for (int s = 0; s < NSTATES; s++) {
    for (int i = 0; i < NQ; i++) q[s][i] = uniform(-3, 3);
    for (int i = 0; i < NV; i++) v[s][i] = uniform(-1, 1);
    for (int i = 0; i < NV; i++) a[s][i] = uniform(-1, 1);
    for (int i = 0; i < NV; i++) tau[s][i] = uniform(-1, 1);
  }
  run_rnea();
  run_crba();
  int fails = run_aba();
#ifdef WITH_ABA_WRENCHES
  fails += run_aba_wrenches();
#endif
  /* Read the outputs so that nothing is optimised away. */
  double sum = 0;
  for (int s = 0; s < NSTATES; s++) {
    for (int i = 0; i < NV; i++) sum += tau_out[s][i] + qdd[s][i] + M[s][i * NV + i];
#ifdef WITH_ABA_WRENCHES
    sum += wrench[s][6];
#endif
  }
  printf("checksum %.17g, aba failures %d of %d\n", sum, fails, NSTATES);
  return 0;
}
