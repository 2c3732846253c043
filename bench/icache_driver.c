/* icache_driver.c — one robot's generated rnea, crba and aba against the runtime's mb_rnea,
 * mb_crba and mb_aba on the same model (the tables of <p>_model.c): fully unrolled code against
 * one compact loop over the model's tables, for bench/icache.sh.
 *
 * Compiled with -DHEADER='"DIR/<p>_dynamics.h"' -DMODEL_HEADER='"DIR/<p>_model.h"' -DPFX=<p>
 * -DPFX_UP=<P>, linked with the generated code and mbrt.
 *
 *   icache_driver          time: per function, the generated and the runtime's form in turns,
 *                          each the best of 30 runs over the 64 states; prints
 *                          "time FUNC GEN_NS RUNTIME_NS" (ns per call)
 *   icache_driver count    each generated function once per state (for callgrind: run_<f>'s
 *                          inclusive count ÷ 64 is its instructions per call)
 *
 * States: q in [-1, 1] (a floating base's quaternion normalized), v and τ in [-1, 1], from a fixed
 * xorshift seed; one output array for every state, as a controller has. */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mb.h"
#include HEADER
#include MODEL_HEADER

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define FN(f) CAT(PFX, CAT(_, f))
#define UP(m) CAT(PFX_UP, CAT(_, m))
#define NQ UP(NQ)
#define NV UP(NV)
#define NSTATES 64

static double q[NSTATES][NQ], v[NSTATES][NV], tau[NSTATES][NV];
static double out[NV * NV];
static const mb_model *model = &FN(model);
static mb_workspace ws;
static int fails;

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static double uniform(double lo, double hi) { /* xorshift64 */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return lo + (hi - lo) * ((double)(rng_state >> 11) * (1.0 / 9007199254740992.0));
}

__attribute__((noinline)) static void run_rnea(void) {
  for (int s = 0; s < NSTATES; s++) FN(rnea)(q[s], v[s], tau[s], out);
}
__attribute__((noinline)) static void run_crba(void) {
  for (int s = 0; s < NSTATES; s++) FN(crba)(q[s], out);
}
__attribute__((noinline)) static void run_aba(void) {
  for (int s = 0; s < NSTATES; s++) fails += FN(aba)(q[s], v[s], tau[s], out) != 0;
}
__attribute__((noinline)) static void rt_rnea(void) {
  for (int s = 0; s < NSTATES; s++) fails += mb_rnea(model, &ws, q[s], v[s], tau[s], NULL, out);
}
__attribute__((noinline)) static void rt_crba(void) {
  for (int s = 0; s < NSTATES; s++) fails += mb_crba(model, &ws, q[s], out);
}
__attribute__((noinline)) static void rt_aba(void) {
  for (int s = 0; s < NSTATES; s++)
    fails += mb_aba(model, &ws, q[s], v[s], tau[s], NULL, out) != 0;
}

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One timing of reps runs, in ns per call. */
static double once(void (*run)(void), int reps) {
  double t0 = seconds();
  for (int r = 0; r < reps; r++) run();
  return (seconds() - t0) / reps / NSTATES * 1e9;
}

/* gen and rt in turns, 30 timings each; the best of each. Runs of about 2 ms each. */
static void time_pair(const char *name, void (*gen)(void), void (*rt)(void)) {
  gen(), rt();
  double g = once(gen, 1), r = once(rt, 1);
  int rg = (int)(2e6 / (g * NSTATES)) + 1, rr = (int)(2e6 / (r * NSTATES)) + 1;
  for (int k = 0; k < 30; k++) {
    double tg = once(gen, rg), tr = once(rt, rr);
    if (tg < g) g = tg;
    if (tr < r) r = tr;
  }
  printf("time %s %.2f %.2f\n", name, g, r);
}

int main(int argc, char **argv) {
  int quat = model->nq > model->nv; /* a floating base: q[3..6] its quaternion */
  for (int s = 0; s < NSTATES; s++) {
    for (int i = 0; i < NQ; i++) q[s][i] = uniform(-1, 1);
    if (quat) {
      double n = sqrt(q[s][3] * q[s][3] + q[s][4] * q[s][4] + q[s][5] * q[s][5] + q[s][6] * q[s][6]);
      for (int i = 3; i < 7; i++) q[s][i] /= n;
    }
    for (int i = 0; i < NV; i++) v[s][i] = uniform(-1, 1), tau[s][i] = uniform(-1, 1);
  }
  void *buf = malloc(mb_workspace_size(model));
  if (!buf || mb_workspace_init(&ws, model, buf) != MB_OK) return fprintf(stderr, "workspace\n"), 1;
  if (argc > 1 && strcmp(argv[1], "count") == 0) {
    run_rnea(), run_crba(), run_aba();
  } else {
    time_pair("rnea", run_rnea, rt_rnea);
    time_pair("crba", run_crba, rt_crba);
    time_pair("aba", run_aba, rt_aba);
  }
  free(buf);
  printf("checksum %.17g failures %d\n", out[0] + out[NV - 1], fails);
  return fails != 0;
}
