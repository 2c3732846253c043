/* The driver of bench/contact_derivatives.sh: calls the generated contact_fd and
 * contact_fd_derivatives of one model (generated with --contacts, every contact active) once per
 * state over 64 random states, each inside its own noinline run_<f>, so that callgrind's inclusive
 * count of run_<f> divided by 64 is the instructions per call; and what the derivatives replace,
 * central differences of contact_fd by q (along the tangent space, the generated integrate), v and
 * tau: 6 nv calls of contact_fd and 2 nv of integrate per state (run_fd_contact_fd).
 *
 * Compiled by bench/driver.sh's bench_driver conventions (C11) with
 *   -DHEADER='"DIR/<p>_dynamics.h"' -DPFX=<p> -DPFX_UP=<P>
 * and linked with the generated <p>_dynamics.o. States from a fixed-seed xorshift generator: q
 * the generated integrate of a random tangent step (in [-1, 1]) from the neutral configuration
 * <p>_q_neutral when the header has one, else uniform in [-1, 1]; v, tau in [-1, 1]. Prints the
 * number of calls that returned -1 (a singular contact system: none expected). Static arrays
 * only. */
#include <stdint.h>
#include <stdio.h>

#include "bench_prefix.h"
#include "bench_rng.h"
#define NQ UP(NQ)
#define NV UP(NV)
#define NR UP(NCROWS)
#define NC UP(NCONTACT)
#define NSTATES 64

static double q[NSTATES][NQ], v[NSTATES][NV], tau[NSTATES][NV];
static double qdd[NSTATES][NV], force[NSTATES][NR];
static double dq[NSTATES][NV * NV], dv[NSTATES][NV * NV], dt[NSTATES][NV * NV];
static double fq[NSTATES][NR * NV], fv[NSTATES][NR * NV], ft[NSTATES][NR * NV];
static int act[NC];


__attribute__((noinline)) static int run_contact_fd(void) {
  int fails = 0;
  for (int s = 0; s < NSTATES; s++)
    fails += FN(contact_fd)(q[s], v[s], tau[s], act, qdd[s], force[s]) != 0;
  return fails;
}

__attribute__((noinline)) static int run_contact_fd_derivatives(void) {
  int fails = 0;
  for (int s = 0; s < NSTATES; s++)
    fails += FN(contact_fd_derivatives)(q[s], v[s], tau[s], act, qdd[s], force[s], dq[s], dv[s],
                                        dt[s], fq[s], fv[s], ft[s]) != 0;
  return fails;
}

/* Column k of the derivatives of (qdd, force) by central differences: along q (the generated
 * integrate), v and tau. */
static void central_differences(int s) {
  static double qs[NQ], vs[NV], ts[NV], e[NV], yp[NV], ym[NV], fp[NR], fm[NR];
  const double h = 1e-6;
  for (int k = 0; k < NV; k++) {
    for (int l = 0; l < NV; l++) e[l] = l == k, vs[l] = v[s][l], ts[l] = tau[s][l];
    for (int x = 0; x < 3; x++) {
      double *D = x == 0 ? dq[s] : x == 1 ? dv[s] : dt[s];
      double *F = x == 0 ? fq[s] : x == 1 ? fv[s] : ft[s];
      for (int side = 0; side < 2; side++) {
        double step = side ? -h : h;
        if (x == 0) FN(integrate)(q[s], e, step, qs);
        if (x == 1) vs[k] = v[s][k] + step;
        if (x == 2) ts[k] = tau[s][k] + step;
        (void)FN(contact_fd)(x == 0 ? qs : q[s], vs, ts, act, side ? ym : yp, side ? fm : fp);
      }
      vs[k] = v[s][k], ts[k] = tau[s][k];
      for (int l = 0; l < NV; l++) D[l * NV + k] = (yp[l] - ym[l]) / (2 * h);
      for (int l = 0; l < NR; l++) F[l * NV + k] = (fp[l] - fm[l]) / (2 * h);
    }
  }
}

__attribute__((noinline)) static void run_fd_contact_fd(void) {
  for (int s = 0; s < NSTATES; s++) central_differences(s);
}

int main(void) {
  for (int k = 0; k < NC; k++) act[k] = 1;
  for (int s = 0; s < NSTATES; s++) {
    double e[NV], q0[NQ];
    for (int k = 0; k < NQ; k++) q0[k] = 0.0;
    for (int k = 0; k < NV; k++) e[k] = uniform(-1, 1);
    /* a unit quaternion for every ball or free joint: integrate from the identity (w last) */
    for (int k = 0; k < UP(NJ); k++) {
      int nq = (k + 1 < UP(NJ) ? FN(joint_iq)[k + 1] : NQ) - FN(joint_iq)[k];
      int nv = (k + 1 < UP(NJ) ? FN(joint_iv)[k + 1] : NV) - FN(joint_iv)[k];
      if (nq == nv + 1) q0[FN(joint_iq)[k] + nq - 1] = 1.0;
    }
    FN(integrate)(q0, e, 1.0, q[s]);
    for (int k = 0; k < NV; k++) v[s][k] = uniform(-1, 1), tau[s][k] = uniform(-1, 1);
  }
  int fails = run_contact_fd() + run_contact_fd_derivatives();
  run_fd_contact_fd();
  printf("fails %d\n", fails);
  return 0;
}
