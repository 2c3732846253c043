/* space_robot_sim.c — the free-floating two-arm space robot of Liu, Hu & Zhang,
 * "Constraint force algorithm for tree-like multibody system dynamics", Chinese Journal of
 * Theoretical and Applied Mechanics 48(1), 2016, §4 (examples/space_robot.mbd), simulated for
 * 10 s, twice: with the generated constraint force algorithm (space_robot_cfa) and with the
 * generated articulated-body algorithm (space_robot_aba), from the same state and the same joint
 * torques. The paper integrates with a fixed step of 0.002 s and does not name its integrator;
 * both runs here use the runtime's mb_simulate (runtime/simulate.c; docs/analysis.md
 * "Integration with error control": Dormand & Prince's 5(4) pair, the step chosen for rtol =
 * atol = TOL; the hub's pose stays on SE(3): Munthe-Kaas stages, q ⊕ Θ by mb_integrate), over
 * 1 s segments (mb_simulate from each end to the next, starting with the step the last one
 * proposed). Each run chooses its own steps, and they differ: the error estimate, a difference of
 * nearly equal stages, turns the two dynamics' rounding differences into step sizes about 1e-8
 * apart (relative); so the runs are compared where both land, at the segment ends. Checked (exit
 * 0 if all hold):
 *   - the trajectories agree to 1e-9 at t = 0, 1, ..., 10 s (q, v, relative to their largest
 *     entries);
 *   - at t = 0 and every accepted step of both runs (mb_simulate's event callback, an observer),
 *     the constraint wrenches of cfa equal joint_wrenches(q, v, q̈_aba) to 1e-9 relative;
 *   - the centroidal momentum h_G = A_G v (space_robot_ccrba; no gravity, no external force, from
 *     rest: h_G = 0, the centre of mass stays put), angular and linear, stays 0 to 100 TOL of the
 *     largest momentum the arms' joint motion carries (A_G's joint columns times their rates; the
 *     hub carries the opposite): the integration error, which the cfa-aba comparison cannot see.
 * Measured at TOL = 1e-10: 202 steps (2 rejected), 1235 cfa calls (the fixed-step RK4 at 0.002 s
 * used before: 5000 steps, 20000 calls); max |dq| = 1.5e-13, max |dv| = 6.4e-14 (RK4: 1.6e-13,
 * 7.1e-14); wrenches 1.3e-13 (8.6e-13); momentum 3.5e-11 (angular) and 3.0e-10 (linear) of the
 * arms' 34.8 N m s and 11.2 kg m/s. The RK4 at 0.002 s had 3.1e-13 and 5.0e-13: mb_simulate gets
 * those at TOL = 1e-12 (4.6e-13, 1.5e-12) in 2981 calls, RK4 at 0.01 s (4000 calls) 2.0e-10 and
 * 3.1e-10.
 *
 *   space_robot_sim [--tol TOL] [DATA]   exit 0 when the checks pass; with DATA, writes at t = 0
 *   and every accepted step of the cfa run: t, hub roll pitch yaw (deg), arm-1 joint angles q11
 *   q12 q13 (deg), and the wrench of the hub on L11 at joint j11 in its frame: nx ny nz (N m)
 *   fx fy fz (N) — docs/cfa_space_robot.gp. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mb.h"
#include "space_robot_dynamics.h"

extern const mb_model space_robot_model;
#define NQ SPACE_ROBOT_NQ
#define NV SPACE_ROBOT_NV
#define NB SPACE_ROBOT_NB
#define NW (6 * (NB + 1))
#define T_END 10.0
#define TOL 1e-10 /* rtol = atol of mb_simulate */
#define NSEG 10   /* the runs are compared at the ends of T_END / NSEG = 1 s segments */
#define PI 3.14159265358979323846

/* The joint torques: the hub is free (τ = 0 on the floating joint), each arm joint driven by a
 * cosine (zero mean velocity, bounded swings): shoulder roll 0.02 N m (the stretched arm has
 * ~0.07 kg m² about its own axis), shoulder pitch 5 N m, elbow 1 N m, with periods 10, 5, 4 s on
 * arm 1 and 8, 6, 3 s on arm 2 (opposite signs): swings of tens of degrees the hub reacts to. */
static void torques(double t, double *tau) {
  memset(tau, 0, NV * sizeof *tau);
  static const double amp[6] = {0.02, 5, 1, -0.02, -5, -1}, period[6] = {10, 5, 4, 8, 6, 3};
  for (int k = 0; k < 6; k++) tau[6 + k] = amp[k] * cos(2 * PI * t / period[k]);
}

/* Roll, pitch, yaw (ZYX, degrees) of the hub from its quaternion [x y z w]. */
static void attitude(const double *quat, double rpy[3]) {
  double R[9];
  mbs_quat_to_rot(quat, R);
  rpy[0] = atan2(R[7], R[8]) * 180 / PI;
  rpy[1] = -asin(R[6]) * 180 / PI;
  rpy[2] = atan2(R[3], R[0]) * 180 / PI;
}

static double max_diff(const double *a, const double *b, int n, double *scale) {
  double d = 0;
  for (int i = 0; i < n; i++) {
    if (fabs(a[i] - b[i]) > d) d = fabs(a[i] - b[i]);
    if (fabs(b[i]) > *scale) *scale = fabs(b[i]);
  }
  return d;
}

static double norm3(const double *x) { return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]); }

/* A run and the callbacks' context: its dynamics, what it measured. */
typedef struct sim {
  int aba;                                 /* 0 cfa, 1 aba */
  FILE *data;                              /* NULL: none */
  long steps, rejected, calls;             /* mb_simulate's, summed over the segments */
  double q[NSEG + 1][NQ], v[NSEG + 1][NV]; /* the state at the segment ends */
  double dw, wscale;                       /* cfa wrenches against joint_wrenches(q, v, q̈_aba) */
  double k_G, p_G, k_arms, p_arms; /* max |angular|, |linear| momentum: total and the arms' */
} sim;

static int accel(void *c, double t, const double *q, const double *v, double *qdd) {
  double tau[NV], w[NW];
  torques(t, tau);
  int rc = ((sim *)c)->aba ? space_robot_aba(q, v, tau, qdd) : space_robot_cfa(q, v, tau, qdd, w);
  return rc != 0 ? MB_ENUMERIC : MB_OK;
}

/* mb_simulate's event callback, an observer (also called at t = 0): at the state (q, v), the
 * constraint wrenches of cfa against joint_wrenches(q, v, q̈_aba); the centroidal momentum
 * h_G = A_G v (space_robot_ccrba) and the arms' share, A_G's joint columns times their rates;
 * a DATA row. */
static int observe(void *c, double t, double *q, double *v) {
  sim *x = c;
  double tau[NV], qdd[NV], w[NW], wa[NW], A[6 * NV], h[6] = {0}, ha[6] = {0}, rpy[3];
  torques(t, tau);
  if (space_robot_cfa(q, v, tau, qdd, w) != 0 || space_robot_aba(q, v, tau, qdd) != 0)
    return MB_ENUMERIC;
  space_robot_joint_wrenches(q, v, qdd, wa);
  x->dw = fmax(x->dw, max_diff(w, wa, NW, &x->wscale));
  space_robot_ccrba(q, A);
  for (int r = 0; r < 6; r++)
    for (int i = 0; i < NV; i++) {
      h[r] += A[r * NV + i] * v[i];
      if (i >= 6) ha[r] += A[r * NV + i] * v[i];
    }
  x->k_G = fmax(x->k_G, norm3(h)), x->p_G = fmax(x->p_G, norm3(h + 3));
  x->k_arms = fmax(x->k_arms, norm3(ha)), x->p_arms = fmax(x->p_arms, norm3(ha + 3));
  if (x->data) {
    attitude(q + 3, rpy);
    fprintf(x->data, "%.6f %.9g %.9g %.9g %.9g %.9g %.9g", t, rpy[0], rpy[1], rpy[2],
            q[7] * 180 / PI, q[8] * 180 / PI, q[9] * 180 / PI);
    for (int k = 0; k < 6; k++) fprintf(x->data, " %.9g", w[12 + k]);
    fprintf(x->data, "\n");
  }
  return MB_OK;
}

/* One run from the hub at the origin, identity attitude, everything at rest: mb_simulate over
 * each segment in turn, starting with the step the last one proposed. MB_OK or a failure. */
static int run(sim *x, double tol, void *scratch) {
  double h0 = 0;
  memset(x->q[0], 0, sizeof x->q[0]), memset(x->v[0], 0, sizeof x->v[0]);
  x->q[0][6] = 1;
  const mb_sim_system sys = {accel, NULL, observe, NULL, 0, x};
  int rc = observe(x, 0.0, x->q[0], x->v[0]);
  for (int k = 0; k < NSEG && rc == MB_OK; k++) {
    const mb_sim_options opt = {tol, tol, h0, 0.0, 0.0, 0};
    mb_sim_stats st;
    memcpy(x->q[k + 1], x->q[k], sizeof x->q[k]), memcpy(x->v[k + 1], x->v[k], sizeof x->v[k]);
    rc = mb_simulate(&space_robot_model, &sys, &opt, T_END * k / NSEG, T_END * (k + 1) / NSEG,
                     x->q[k + 1], x->v[k + 1], NULL, scratch, &st);
    x->steps += st.accepted, x->rejected += st.rejected, x->calls += st.naccel, h0 = st.h_next;
    if (rc != MB_OK)
      fprintf(stderr, "%s: mb_simulate failed at t = %g (status %d)\n", x->aba ? "aba" : "cfa",
              st.t, rc);
  }
  return rc;
}

int main(int argc, char **argv) {
  const char *usage = "usage: space_robot_sim [--tol TOL] [DATA]\n", *path = NULL;
  double tol = TOL, dq = 0, dv = 0, qscale = 1, vscale = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--tol") && i + 1 < argc)
      tol = atof(argv[++i]);
    else if (argv[i][0] != '-' && !path)
      path = argv[i];
    else
      return fprintf(stderr, "%s", usage), 2;
  }
  if (!(tol > 0)) return fprintf(stderr, "%s", usage), 2;
  static sim c, a;
  void *scratch = malloc(mb_simulate_scratch_size(&space_robot_model));
  if (!scratch) return fprintf(stderr, "out of memory\n"), 1;
  c.data = path ? fopen(path, "w") : NULL;
  if (path && !c.data) return perror(path), 2;
  a.aba = 1;
  int rc = run(&c, tol, scratch);
  if (c.data) fclose(c.data);
  if (rc != MB_OK || run(&a, tol, scratch) != MB_OK) return free(scratch), 1;
  free(scratch);
  for (int k = 0; k <= NSEG; k++) {
    dq = fmax(dq, max_diff(c.q[k], a.q[k], NQ, &qscale));
    dv = fmax(dv, max_diff(c.v[k], a.v[k], NV, &vscale));
  }
  double dw = fmax(c.dw, a.dw), wscale = fmax(c.wscale, a.wscale);
  int ok = dq <= 1e-9 * qscale && dv <= 1e-9 * vscale && dw <= 1e-9 * wscale &&
           c.k_G <= 100 * tol * c.k_arms && c.p_G <= 100 * tol * c.p_arms;
  printf("space robot, %g s, DP5(4) tol %g: cfa %ld steps (%ld rejected), %ld calls; aba %ld "
         "steps (%ld rejected), %ld calls; cfa vs aba at t = 0, 1, ..., %g s: max |dq| = %.2e "
         "(scale %.2g), max |dv| = %.2e (scale %.2g); cfa wrenches vs joint_wrenches(aba) at "
         "every step: %.2e (scale %.2g); centroidal momentum (0 from rest), cfa run: angular "
         "%.2e of the arms' %.3g N m s, linear %.2e of the arms' %.3g kg m/s: %s\n",
         T_END, tol, c.steps, c.rejected, c.calls, a.steps, a.rejected, a.calls, T_END, dq, qscale,
         dv, vscale, dw, wscale, c.k_G / c.k_arms, c.k_arms, c.p_G / c.p_arms, c.p_arms,
         ok ? "ok" : "FAIL (tolerances 1e-9, 100 TOL)");
  return ok ? 0 : 1;
}
