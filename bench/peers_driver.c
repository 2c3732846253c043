/* The driver of bench/peers.sh: calls the generated rnea, crba, aba (and aba_wrenches) of one
 * model once per state over 64 random states, each function inside its own noinline run_<f>, so
 * that callgrind's inclusive count of run_<f> divided by 64 is the instructions per call.
 *
 * Compiled by bench/driver.sh's bench_driver (C11) with
 *   -DHEADER='"DIR/<p>_dynamics.h"' -DPFX=<p> -DPFX_UP=<P> [-DWITH_ABA_WRENCHES]
 * and linked with the generated <p>_dynamics.o and bench/bench_harness.c (its clock). States
 * from a fixed-seed xorshift generator: every q entry uniform in [-3, 3] (unnormalised
 * quaternions are accepted by the generated code, and the instruction count does not depend on
 * them), v, a, tau in [-1, 1]. Static arrays only.
 *
 * With -DTIMING it times instead: each run_<f> repeated (REPS times, fewer when they would take
 * over 2 ms; best of 30), printed as "time <f> <ns per call>"; the outputs then go to one array
 * for all states, as a controller's do (per-state outputs would take a humanoid's 64 mass
 * matrices, 600 KB, out of the L1 and L2 data caches and time the stores, not the function).
 *
 * With -DWITH_DERIVATIVES (the model generated with integrate, rnea_derivatives and
 * aba_derivatives too; bench/derivatives.sh) also the derivatives, and what they replace: central
 * differences of rnea and aba (run_fd_rnea, run_fd_aba).
 *
 * With -DTIMING -DWITH_RUNTIME -DMODEL_HEADER='"DIR/<p>_model.h"' (and -I runtime/, linked with
 * <p>_model.o and mbrt) it also times the runtime's mb_rnea, mb_crba and mb_aba on the same
 * model, as "time rt_<f> <ns per call>" (bench/icache.sh: the compact form against the
 * unrolled one).
 *
 * With -DPI_ARG (the model generated with --parameters, rnea, crba and aba, and aba_wrenches if
 * built, taking the run-time parameters pi first: bench/parameters.sh) each call passes the
 * model file's values, <p>_pi_model, as pi.
 *
 * With -DWITH_REGRESSOR (the model generated with regressor and base_regressor too:
 * bench/regressor.sh) also the joint-torque regressor Y, P_NV x P_NREG, and the base regressor
 * Yb, P_NV x P_NBASE (run_regressor, run_base_regressor); then Y times the bodies' parameters
 * <p>_pi_all is checked against rnea's tau at every state, printed as "regressor error E": the
 * largest |Y pi - tau| over max(1, |tau|).
 *
 * With -DWITH_HYBRID (the model generated with hybrid too: bench/hybrid.sh) also hybrid
 * dynamics under four masks (run_hybrid_free: every dof free, as aba; run_hybrid_all: every dof
 * prescribed, as rnea; run_hybrid_base: the first 6 dofs free and the rest prescribed, a floating
 * base's; run_hybrid_alt: every other dof prescribed); then its qdd with every dof free against
 * aba's and its tau with every dof prescribed against rnea's, printed as "hybrid error E": the
 * largest difference over max(1, |reference|). With -DWITH_HYBRID_FIXED -DFIXED_MASK='{...}'
 * also hybrid_fixed (generated with --prescribed: the same pattern as FIXED_MASK, nv flags) as
 * run_hybrid_fixed, checked against hybrid under that mask: "hybrid_fixed error E". */
#include <stdint.h>
#include <stdio.h>
#ifdef TIMING
#include "bench_harness.h"
#endif
#ifdef WITH_RUNTIME
#ifndef TIMING
#error "WITH_RUNTIME times the runtime: compile with -DTIMING too"
#endif
#include <stdlib.h>

#include "mb.h"
#include MODEL_HEADER
#endif

#include "bench_prefix.h"
#include "bench_rng.h"

#ifdef PI_ARG
#ifdef WITH_DERIVATIVES
#error "PI_ARG passes pi to rnea, crba, aba and aba_wrenches only"
#endif
#ifdef WITH_REGRESSOR
#error "PI_ARG passes pi to rnea, crba, aba and aba_wrenches only"
#endif
#define PI_ FN(pi_model), /* the first argument pi of a parametric function */
#else
#define PI_
#endif

#define NQ UP(NQ)
#define NV UP(NV)
#define NSTATES 64
#ifdef TIMING
#define NOUT 1 /* one output array for every state */
#define OUT(s) 0
#else
#define NOUT NSTATES
#define OUT(s) (s)
#endif

static double q[NSTATES][NQ];
static double v[NSTATES][NV];
static double a[NSTATES][NV];
static double tau[NSTATES][NV];
static double tau_out[NOUT][NV];
static double M[NOUT][NV * NV];
static double qdd[NOUT][NV];
#ifdef WITH_ABA_WRENCHES
static double wrench[NOUT][6 * (UP(NB) + 1)];
#endif
#ifdef WITH_DERIVATIVES
static double dq_out[NOUT][NV * NV], dv_out[NOUT][NV * NV];
#endif
#ifdef WITH_HYBRID
static int mask_free[NV], mask_all[NV], mask_base[NV], mask_alt[NV];
static double hqdd[NOUT][NV], htau[NOUT][NV];
#define RUN_HYBRID(name, in)                                                                      \
  __attribute__((noinline)) static int run_hybrid_##name(void) {                                 \
    int fails = 0;                                                                                \
    for (int s = 0; s < NSTATES; s++)                                                             \
      fails += FN(hybrid)(q[s], v[s], mask_##name, in[s], hqdd[OUT(s)], htau[OUT(s)]) != 0;       \
    return fails;                                                                                 \
  }
RUN_HYBRID(all, a)
RUN_HYBRID(base, tau)
RUN_HYBRID(alt, tau)
RUN_HYBRID(free, tau) /* last: hqdd then holds aba's answer */
#ifdef WITH_HYBRID_FIXED
static const int mask_fixed[NV] = FIXED_MASK;
static double fqdd[NOUT][NV], ftau[NOUT][NV];
RUN_HYBRID(fixed, tau)
__attribute__((noinline)) static int run_hybrid_fixed_fn(void) {
  int fails = 0;
  for (int s = 0; s < NSTATES; s++)
    fails += FN(hybrid_fixed)(q[s], v[s], tau[s], fqdd[OUT(s)], ftau[OUT(s)]) != 0;
  return fails;
}
#endif
#endif
#ifdef WITH_REGRESSOR
static double Y[NOUT][NV * UP(NREG)];
static double Yb[NOUT][NV * UP(NBASE)];
#endif


__attribute__((noinline)) static void run_rnea(void) {
  for (int s = 0; s < NSTATES; s++) FN(rnea)(PI_ q[s], v[s], a[s], tau_out[OUT(s)]);
}

__attribute__((noinline)) static void run_crba(void) {
  for (int s = 0; s < NSTATES; s++) FN(crba)(PI_ q[s], M[OUT(s)]);
}

__attribute__((noinline)) static int run_aba(void) {
  int fails = 0;
  for (int s = 0; s < NSTATES; s++) fails += FN(aba)(PI_ q[s], v[s], tau[s], qdd[OUT(s)]) != 0;
  return fails;
}

#ifdef WITH_ABA_WRENCHES
__attribute__((noinline)) static int run_aba_wrenches(void) {
  int fails = 0;
  for (int s = 0; s < NSTATES; s++) fails += FN(aba_wrenches)(PI_ q[s], v[s], tau[s], qdd[OUT(s)], wrench[OUT(s)]) != 0;
  return fails;
}
#endif

#ifdef WITH_REGRESSOR
__attribute__((noinline)) static void run_regressor(void) {
  for (int s = 0; s < NSTATES; s++) FN(regressor)(q[s], v[s], a[s], Y[OUT(s)]);
}

__attribute__((noinline)) static void run_base_regressor(void) {
  for (int s = 0; s < NSTATES; s++) FN(base_regressor)(q[s], v[s], a[s], Yb[OUT(s)]);
}
#endif

#ifdef WITH_DERIVATIVES
__attribute__((noinline)) static void run_rnea_derivatives(void) {
  for (int s = 0; s < NSTATES; s++) FN(rnea_derivatives)(q[s], v[s], a[s], dq_out[OUT(s)], dv_out[OUT(s)], M[OUT(s)]);
}

__attribute__((noinline)) static int run_aba_derivatives(void) {
  int fails = 0;
  for (int s = 0; s < NSTATES; s++) fails += FN(aba_derivatives)(q[s], v[s], tau[s], dq_out[OUT(s)], dv_out[OUT(s)], M[OUT(s)]) != 0;
  return fails;
}

/* What the derivatives replace: ∂y/∂q and ∂y/∂v by central differences of y = rnea (aba: of aba),
 * q stepped along the tangent space by the generated integrate: 4 nv calls of y and 2 nv of
 * integrate per state. */
static void central_differences(int aba, int s, double *dq, double *dv) {
  static double qs[NQ], vs[NV], e[NV], yp[NV], ym[NV];
  const double h = 1e-6;
  for (int k = 0; k < NV; k++) {
    for (int l = 0; l < NV; l++) e[l] = l == k, vs[l] = v[s][l];
    for (int side = 0; side < 2; side++) {
      double *y = side ? ym : yp, step = side ? -h : h;
      FN(integrate)(q[s], e, step, qs);
      if (aba) (void)FN(aba)(qs, v[s], tau[s], y); else FN(rnea)(qs, v[s], a[s], y);
    }
    for (int l = 0; l < NV; l++) dq[l * NV + k] = (yp[l] - ym[l]) / (2 * h);
    for (int side = 0; side < 2; side++) {
      double *y = side ? ym : yp;
      vs[k] = v[s][k] + (side ? -h : h);
      if (aba) (void)FN(aba)(q[s], vs, tau[s], y); else FN(rnea)(q[s], vs, a[s], y);
    }
    for (int l = 0; l < NV; l++) dv[l * NV + k] = (yp[l] - ym[l]) / (2 * h);
  }
}

__attribute__((noinline)) static void run_fd_rnea(void) {
  for (int s = 0; s < NSTATES; s++) central_differences(0, s, dq_out[OUT(s)], dv_out[OUT(s)]);
}

__attribute__((noinline)) static void run_fd_aba(void) {
  for (int s = 0; s < NSTATES; s++) central_differences(1, s, dq_out[OUT(s)], dv_out[OUT(s)]);
}
#endif

#ifdef TIMING
#ifndef REPS
#define REPS 100
#endif
static void run_aba_void(void) { (void)run_aba(); }
#ifdef WITH_ABA_WRENCHES
static void run_aba_wrenches_void(void) { (void)run_aba_wrenches(); }
#endif
#ifdef WITH_DERIVATIVES
static void run_aba_derivatives_void(void) { (void)run_aba_derivatives(); }
#endif

/* The best of 30 timings of REPS runs (each NSTATES calls; fewer runs, at least one, when REPS
 * would take over 2 ms), in ns per call. */
static void time_it(const char *name, void (*run)(void)) {
  double best = 1e30, t0 = bench_now_ns();
  run();
  double once = bench_now_ns() - t0;
  int reps = once * REPS > 2e6 ? (int)(2e6 / once) + 1 : REPS;
  for (int k = 0; k < 30; k++) {
    t0 = bench_now_ns();
    for (int r = 0; r < reps; r++) run();
    double t = (bench_now_ns() - t0) / reps / NSTATES;
    if (t < best) best = t;
  }
  printf("time %s %.2f\n", name, best);
}
#endif

#ifdef WITH_RUNTIME
static const mb_model *model = &FN(model);
static mb_workspace ws;
static int rt_fails;
static void rt_rnea(void) {
  for (int s = 0; s < NSTATES; s++)
    rt_fails += mb_rnea(model, &ws, q[s], v[s], a[s], NULL, tau_out[OUT(s)]) != MB_OK;
}
static void rt_crba(void) {
  for (int s = 0; s < NSTATES; s++) rt_fails += mb_crba(model, &ws, q[s], M[OUT(s)]) != MB_OK;
}
static void rt_aba(void) {
  for (int s = 0; s < NSTATES; s++)
    rt_fails += mb_aba(model, &ws, q[s], v[s], tau[s], NULL, qdd[OUT(s)]) != MB_OK;
}
#endif

int main(void) {
  for (int s = 0; s < NSTATES; s++) {
    for (int i = 0; i < NQ; i++) q[s][i] = uniform(-3, 3);
    for (int i = 0; i < NV; i++) v[s][i] = uniform(-1, 1);
    for (int i = 0; i < NV; i++) a[s][i] = uniform(-1, 1);
    for (int i = 0; i < NV; i++) tau[s][i] = uniform(-1, 1);
  }
#ifdef TIMING
  time_it("rnea", run_rnea);
  time_it("crba", run_crba);
  time_it("aba", run_aba_void);
#ifdef WITH_ABA_WRENCHES
  time_it("aba_wrenches", run_aba_wrenches_void);
#endif
#ifdef WITH_REGRESSOR
  time_it("regressor", run_regressor);
  time_it("base_regressor", run_base_regressor);
#endif
#ifdef WITH_DERIVATIVES
  time_it("rnea_derivatives", run_rnea_derivatives);
  time_it("aba_derivatives", run_aba_derivatives_void);
  time_it("fd_rnea", run_fd_rnea);
  time_it("fd_aba", run_fd_aba);
#endif
#ifdef WITH_RUNTIME
  void *buf = malloc(mb_workspace_size(model));
  if (!buf || mb_workspace_init(&ws, model, buf) != MB_OK) return fprintf(stderr, "workspace\n"), 1;
  time_it("rt_rnea", rt_rnea);
  time_it("rt_crba", rt_crba);
  time_it("rt_aba", rt_aba);
  free(buf);
#endif
#endif
  run_rnea();
  run_crba();
  int fails = run_aba();
#ifdef WITH_RUNTIME
  fails += rt_fails;
#endif
#ifdef WITH_ABA_WRENCHES
  fails += run_aba_wrenches();
#endif
#ifdef WITH_REGRESSOR
  run_regressor();
  run_base_regressor();
#ifndef TIMING
  double err = 0; /* Y pi = tau, pi the model's own parameters */
  for (int s = 0; s < NSTATES; s++)
    for (int i = 0; i < NV; i++) {
      double t = 0, m = tau_out[s][i] < 0 ? -tau_out[s][i] : tau_out[s][i];
      for (int k = 0; k < UP(NREG); k++) t += Y[s][i * UP(NREG) + k] * FN(pi_all)[k];
      t = (t - tau_out[s][i]) / (m > 1 ? m : 1);
      if (t < 0) t = -t;
      if (t > err) err = t;
    }
  printf("regressor error %.3g\n", err);
#endif
#endif
#if defined(WITH_HYBRID) && !defined(TIMING)
  for (int i = 0; i < NV; i++)
    mask_free[i] = 0, mask_all[i] = 1, mask_base[i] = i >= 6, mask_alt[i] = i % 2;
  double herr = 0; /* every dof prescribed: rnea's tau; every dof free: aba's qdd */
  fails += run_hybrid_all();
  for (int s = 0; s < NSTATES; s++)
    for (int i = 0; i < NV; i++) {
      double r = tau_out[s][i], m = r < 0 ? -r : r, e = (htau[s][i] - r) / (m > 1 ? m : 1);
      if ((e < 0 ? -e : e) > herr) herr = e < 0 ? -e : e;
    }
  fails += run_hybrid_base() + run_hybrid_alt() + run_hybrid_free();
  for (int s = 0; s < NSTATES; s++)
    for (int i = 0; i < NV; i++) {
      double r = qdd[s][i], m = r < 0 ? -r : r, e = (hqdd[s][i] - r) / (m > 1 ? m : 1);
      if ((e < 0 ? -e : e) > herr) herr = e < 0 ? -e : e;
    }
  printf("hybrid error %.3g\n", herr);
#ifdef WITH_HYBRID_FIXED
  double ferr = 0; /* the pattern folded in against the run-time mask */
  fails += run_hybrid_fixed() + run_hybrid_fixed_fn();
  for (int s = 0; s < NSTATES; s++)
    for (int i = 0; i < NV; i++) {
      double e1 = fqdd[s][i] - hqdd[s][i], e2 = ftau[s][i] - htau[s][i];
      double m1 = hqdd[s][i] < 0 ? -hqdd[s][i] : hqdd[s][i];
      double m2 = htau[s][i] < 0 ? -htau[s][i] : htau[s][i];
      e1 = (e1 < 0 ? -e1 : e1) / (m1 > 1 ? m1 : 1), e2 = (e2 < 0 ? -e2 : e2) / (m2 > 1 ? m2 : 1);
      if (e1 > ferr) ferr = e1;
      if (e2 > ferr) ferr = e2;
    }
  printf("hybrid_fixed error %.3g\n", ferr);
#endif
#endif
#ifdef WITH_DERIVATIVES
  run_rnea_derivatives();
  fails += run_aba_derivatives();
  run_fd_rnea();
  run_fd_aba();
#endif
  /* Read the outputs so that nothing is optimised away. */
  double sum = 0;
  for (int s = 0; s < NOUT; s++) {
    for (int i = 0; i < NV; i++) sum += tau_out[s][i] + qdd[s][i] + M[s][i * NV + i];
#ifdef WITH_ABA_WRENCHES
    sum += wrench[s][6];
#endif
#ifdef WITH_DERIVATIVES
    sum += dq_out[s][NV * NV - 1] + dv_out[s][0];
#endif
#ifdef WITH_REGRESSOR
    for (int k = 0; k < NV * UP(NREG); k++) sum += Y[s][k];
    for (int k = 0; k < NV * UP(NBASE); k++) sum += Yb[s][k];
#endif
  }
  printf("checksum %.17g, aba failures %d of %d\n", sum, fails, NSTATES);
  return 0;
}
