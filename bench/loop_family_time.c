/* loop_family_time.c — times the generated p_fd_loops (Lagrange multipliers) against p_rcr
 * (recursive coordinate reduction) of one model of bench/loop_family.c's families, on the same
 * states, in one run. bench/loop_family_time.sh generates the model
 * (mbdc generate MODEL --functions fd_loops,rcr) and compiles this driver against it:
 *
 *   cc -O2 -std=c11 -DLF_PREFIX=ladder_4 -DLF_UPPER=LADDER_4 -I DIR -I runtime \
 *      bench/loop_family_time.c bench/bench_harness.c DIR/ladder_4_dynamics.c \
 *      DIR/ladder_4_model.c libmbrt.a -lm
 *
 * usage: loop_family_time [SECONDS [ROUNDS]]   (default 0.2 s per round per function, 5 rounds)
 *
 * The states: q = the model's <prefix>_q_assembled (its loops closed), v = 0, and 64 torque
 * vectors tau drawn uniformly from [-1, 1] by a fixed xorshift64* generator. Both functions must
 * succeed on every state, p_rcr with its first selection (the one its operation count in
 * bench/loop_family.dat assumes), and agree: max_i |qdd_rcr - qdd_fd| <= 1e-9 max_i |qdd_fd| on
 * each state; otherwise the driver exits 1. The timing: the number of calls that takes SECONDS
 * is calibrated for each function, then ROUNDS rounds time each function once, alternately
 * (fd_loops first in even rounds, p_rcr first in odd ones), cycling through the 64 states;
 * the median of the rounds is reported in ns per call. One line to stdout:
 *   nv m fd_ns rcr_ns rcr/fd worst_rel calls_fd calls_rcr
 * and the rounds to stderr. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_harness.h"

#ifndef LF_PREFIX
#error "compile with -DLF_PREFIX=<model prefix> -DLF_UPPER=<its upper case>"
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define STR_(a) #a
#define STR(a) STR_(a)
#define LF(name) CAT(LF_PREFIX, name)      /* LF(_fd_loops) -> ladder_4_fd_loops */
#define LFU(name) CAT(LF_UPPER, name)      /* LFU(_NV) -> LADDER_4_NV */

#include STR(CAT(LF_PREFIX, _dynamics.h))

#define NQ LFU(_NQ)
#define NV LFU(_NV)
#define NC LFU(_NC)
#define NSTATES 64
#define MAX_ROUNDS 99
#define TOL 1e-9

static double tau[NSTATES][NV];
static volatile double sink; /* keeps the calls' results alive */

/* xorshift64*: a fixed sequence, uniform doubles in [-1, 1] */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static double uniform(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  uint64_t r = rng_state * 0x2545f4914f6cdd1du;
  return (double)(r >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

/* calls of p_fd_loops (which = 0) or p_rcr (which = 1), cycling through the states; seconds */
static double run(int which, long calls) {
  static const double v[NV] = {0};
  double qdd[NV], lambda[NC], acc = 0;
  double t0 = bench_now_ns();
  for (long c = 0; c < calls; c++) {
    const double *t = tau[c & (NSTATES - 1)];
    if (which == 0) LF(_fd_loops)(LF(_q_assembled), v, t, qdd, lambda);
    else LF(_rcr)(LF(_q_assembled), v, t, qdd, NULL);
    acc += qdd[c % NV];
  }
  double t1 = bench_now_ns();
  sink = acc;
  return 1e-9 * (t1 - t0);
}

/* the number of calls that takes about `seconds` */
static long calibrate(int which, double seconds) {
  long calls = NSTATES;
  double t;
  while ((t = run(which, calls)) < 0.02 && calls < (1L << 40)) calls *= 2;
  double want = (double)calls * seconds / t;
  return want < NSTATES ? NSTATES : (long)want;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.2;
  int rounds = argc > 2 ? atoi(argv[2]) : 5;
  if (argc > 3 || !(seconds > 0 && seconds < 100) || rounds < 1 || rounds > MAX_ROUNDS) {
    fputs("usage: loop_family_time [SECONDS [ROUNDS]]   (0 < SECONDS < 100, 1 <= ROUNDS <= 99)\n",
          stderr);
    return 2;
  }
  for (int s = 0; s < NSTATES; s++)
    for (int i = 0; i < NV; i++) tau[s][i] = uniform();

  /* agreement on every state */
  static const double v[NV] = {0};
  double worst = 0;
  for (int s = 0; s < NSTATES; s++) {
    double qdd_fd[NV], lambda[NC], qdd_rcr[NV];
    int used = -1;
    if (LF(_fd_loops)(LF(_q_assembled), v, tau[s], qdd_fd, lambda)) {
      fprintf(stderr, "%s: p_fd_loops fails on state %d\n", STR(LF_PREFIX), s);
      return 1;
    }
    if (LF(_rcr)(LF(_q_assembled), v, tau[s], qdd_rcr, &used) || used != 0) {
      fprintf(stderr, "%s: p_rcr fails or does not use selection 0 (used %d) on state %d\n",
              STR(LF_PREFIX), used, s);
      return 1;
    }
    double scale = 0, diff = 0;
    for (int i = 0; i < NV; i++) {
      scale = fmax(scale, fabs(qdd_fd[i]));
      diff = fmax(diff, fabs(qdd_rcr[i] - qdd_fd[i]));
    }
    double rel = diff / scale;
    if (!(rel <= TOL)) {
      fprintf(stderr, "%s: p_rcr and p_fd_loops differ on state %d: %.3g relative (> %g)\n",
              STR(LF_PREFIX), s, rel, TOL);
      return 1;
    }
    worst = fmax(worst, rel);
  }

  /* timing: warm up and calibrate both, then alternate */
  long calls[2];
  for (int f = 0; f < 2; f++) calls[f] = calibrate(f, seconds);
  double ns[2][MAX_ROUNDS];
  for (int r = 0; r < rounds; r++) {
    for (int j = 0; j < 2; j++) {
      int f = r % 2 ? 1 - j : j;
      ns[f][r] = 1e9 * run(f, calls[f]) / (double)calls[f];
    }
    fprintf(stderr, "%s: round %d: fd_loops %.1f ns, rcr %.1f ns\n", STR(LF_PREFIX), r + 1,
            ns[0][r], ns[1][r]);
  }
  double fd = bench_median(ns[0], rounds), rcr = bench_median(ns[1], rounds);
  printf("%d %d %.1f %.1f %.3f %.2e %ld %ld\n", NV, NC, fd, rcr, rcr / fd, worst, calls[0],
         calls[1]);
  return 0;
}
