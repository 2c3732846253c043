/* space_robot_sim.c — the free-floating two-arm space robot of Liu, Hu & Zhang,
 * "Constraint force algorithm for tree-like multibody system dynamics", Chinese Journal of
 * Theoretical and Applied Mechanics 48(1), 2016, §4 (examples/space_robot.mbd), simulated for
 * 10 s with step 0.002 s, as in the paper, twice: with the generated constraint force algorithm
 * (space_robot_cfa) and with the generated articulated-body algorithm (space_robot_aba), from
 * the same state and the same joint torques. The paper does not name its integrator; both runs
 * use the same classical RK4 on the joint manifold (the positions advanced with the runtime's
 * mb_integrate, q ⊕ v dt). The trajectories must agree to 1e-9 (q, v) and the constraint
 * wrenches of cfa must equal joint_wrenches(q, v, q̈_aba) to 1e-9 relative.
 *
 *   space_robot_sim [DATA]   exit 0 when they agree; with DATA, writes every 0.02 s:
 *   t, hub roll pitch yaw (deg), arm-1 joint angles q11 q12 q13 (deg), and the wrench of the hub
 *   on L11 at joint j11 in its frame: nx ny nz (N m) fx fy fz (N)  — docs/cfa_space_robot.gp. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mb.h"
#include "space_robot_dynamics.h"

extern const mb_model space_robot_model;
#define NQ SPACE_ROBOT_NQ
#define NV SPACE_ROBOT_NV
#define NB SPACE_ROBOT_NB
#define DT 0.002
#define STEPS 5000
#define PI 3.14159265358979323846

typedef int (*fd_fn)(const double *q, const double *v, const double *tau, double *qdd);

/* The joint torques: the hub is free (τ = 0 on the floating joint), each arm joint driven by a
 * cosine (zero mean velocity, bounded swings): shoulder roll 0.02 N m (the stretched arm has ~0.07 kg m² about its own axis),
 * shoulder pitch 5 N m, elbow 1 N m, with periods 10, 5, 4 s on arm 1 and 8, 6, 3 s on arm 2
 * (opposite signs): swings of tens of degrees the hub reacts to. */
static void torques(double t, double *tau) {
  memset(tau, 0, NV * sizeof *tau);
  static const double amp[6] = {0.02, 5, 1, -0.02, -5, -1}, period[6] = {10, 5, 4, 8, 6, 3};
  for (int k = 0; k < 6; k++) tau[6 + k] = amp[k] * cos(2 * PI * t / period[k]);
}

static int cfa_fd(const double *q, const double *v, const double *tau, double *qdd) {
  double w[6 * (NB + 1)];
  return space_robot_cfa(q, v, tau, qdd, w);
}

/* One RK4 step on the manifold: stage positions q ⊕ (c dt) v_k, the update q ⊕ dt v̄. */
static int rk4(fd_fn fd, double t, double *q, double *v) {
  double k[4][NV], vs[4][NV], qs[NQ], tau[NV], vbar[NV];
  static const double c[4] = {0, 0.5, 0.5, 1}, w[4] = {1, 2, 2, 1};
  memcpy(vs[0], v, sizeof vs[0]);
  for (int s = 0; s < 4; s++) {
    if (s > 0) {
      for (int i = 0; i < NV; i++) vs[s][i] = v[i] + c[s] * DT * k[s - 1][i];
      mb_integrate(&space_robot_model, q, vs[s - 1], c[s] * DT, qs);
    } else {
      memcpy(qs, q, sizeof qs);
    }
    torques(t + c[s] * DT, tau);
    if (fd(qs, vs[s], tau, k[s]) != 0) return -1;
  }
  for (int i = 0; i < NV; i++) {
    vbar[i] = 0;
    double a = 0;
    for (int s = 0; s < 4; s++) vbar[i] += w[s] * vs[s][i] / 6, a += w[s] * k[s][i] / 6;
    v[i] += DT * a;
  }
  mb_integrate(&space_robot_model, q, vbar, DT, qs);
  memcpy(q, qs, sizeof qs);
  return 0;
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

int main(int argc, char **argv) {
  double qc[NQ] = {0}, vc[NV] = {0}, qa[NQ], va[NV], tau[NV], qdd[NV], w[6 * (NB + 1)];
  double wa[6 * (NB + 1)], dq = 0, dv = 0, dw = 0, qscale = 1, vscale = 1, wscale = 0;
  FILE *data = argc > 1 ? fopen(argv[1], "w") : NULL;
  if (argc > 1 && !data) return perror(argv[1]), 2;
  qc[6] = 1; /* the hub at the origin, identity attitude, everything at rest */
  memcpy(qa, qc, sizeof qa), memcpy(va, vc, sizeof va);
  for (int n = 0; n <= STEPS; n++) {
    double t = n * DT, rpy[3];
    /* the constraint wrenches of cfa against joint_wrenches at the aba accelerations */
    torques(t, tau);
    if (space_robot_cfa(qc, vc, tau, qdd, w) != 0 || space_robot_aba(qa, va, tau, qdd) != 0)
      return fprintf(stderr, "singular at t = %g\n", t), 1;
    space_robot_joint_wrenches(qa, va, qdd, wa);
    double d = max_diff(w, wa, 6 * (NB + 1), &wscale);
    if (d > dw) dw = d;
    if (data && n % 10 == 0) {
      attitude(qc + 3, rpy);
      fprintf(data, "%.3f %.9g %.9g %.9g %.9g %.9g %.9g", t, rpy[0], rpy[1], rpy[2],
              qc[7] * 180 / PI, qc[8] * 180 / PI, qc[9] * 180 / PI);
      for (int k = 0; k < 6; k++) fprintf(data, " %.9g", w[12 + k]);
      fprintf(data, "\n");
    }
    if (n == STEPS) break;
    if (rk4(cfa_fd, t, qc, vc) != 0 || rk4(space_robot_aba, t, qa, va) != 0)
      return fprintf(stderr, "singular at t = %g\n", t), 1;
    if ((d = max_diff(qc, qa, NQ, &qscale)) > dq) dq = d;
    if ((d = max_diff(vc, va, NV, &vscale)) > dv) dv = d;
  }
  if (data) fclose(data);
  int ok = dq <= 1e-9 * qscale && dv <= 1e-9 * vscale && dw <= 1e-9 * wscale;
  printf("space robot, 10 s, step %g s, RK4: cfa vs aba: max |dq| = %.2e (scale %.2g), "
         "max |dv| = %.2e (scale %.2g); cfa wrenches vs joint_wrenches(aba): %.2e (scale %.2g): "
         "%s\n", DT, dq, qscale, dv, vscale, dw, wscale, ok ? "ok" : "FAIL (tolerance 1e-9)");
  return ok ? 0 : 1;
}
