/* five_bar_rcr.c — the five-bar of examples/five_bar.mbd (Critchley & Anderson 2003, §6) released
 * from the paper's state, simulated 5 s twice with the generated code: once with
 * five_bar_fd_loops (Lagrange multipliers: no choice of coordinates, no formulation singularity)
 * and once with five_bar_rcr (recursive coordinate reduction), each step classical RK4 on the
 * joint manifolds (the runtime's mb_integrate) followed by five_bar_project_q and
 * five_bar_project_v. The paper's dependent coordinates q2, q3 (selection 0: the model's
 * `independent q1 q4`) turn singular whenever bar 2 is vertical (q1 + q2 = π/2 mod π: their
 * rows' determinant is L cos(q1 + q2)), first at t = 0.8103 s; p_rcr switches to its other
 * selection (q1, q2 dependent) around those instants.
 *
 *   five_bar_rcr [--csv]
 *       checks (exit 0 or 1), the reference being the multiplier trajectory:
 *       - max |q_rcr(t) − q_fd(t)| over the 5 s ≤ 1e-9 (the bound; measured 2e-14);
 *       - p_rcr never fails (returns 0 at every stage);
 *       - it used selection 1 at some step, and at the step nearest every instant bar 2 is
 *         vertical (found on the reference trajectory by the sign change of cos(q1 + q2));
 *       - it used selection 0 at the start (the model's own choice is regular there).
 *       --csv: t, q1..q4 of both runs and the selection used, every 10 ms, on stdout. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "five_bar_dynamics.h"
#include "mb.h"

extern const mb_model five_bar_model;
#define NQ FIVE_BAR_NQ
#define NV FIVE_BAR_NV
#define DT 1e-3
#define NSTEPS 5000

typedef int (*accel_fn)(const double *q, const double *v, double *qdd, int *used);

static int fd(const double *q, const double *v, double *qdd, int *used) {
  double tau[NV] = {0}, lambda[FIVE_BAR_NC];
  *used = -1;
  return five_bar_fd_loops(q, v, tau, qdd, lambda);
}

static int rcr(const double *q, const double *v, double *qdd, int *used) {
  double tau[NV] = {0};
  return five_bar_rcr(q, v, tau, qdd, used);
}

/* One RK4 step on the manifolds, then the projections; *used: the selection at the first stage.
 * 0, or -1 if a stage or a projection failed. */
static int step(accel_fn f, double *q, double *v, int *used) {
  static const double c[4] = {0, 0.5, 0.5, 1}, w[4] = {1. / 6, 2. / 6, 2. / 6, 1. / 6};
  double qs[NQ], vs[NV], kv[4][NV], ka[4][NV], vbar[NV] = {0}, abar[NV] = {0};
  for (int s = 0; s < 4; s++) {
    for (int k = 0; k < NV; k++) vs[k] = v[k] + (s ? c[s] * DT * ka[s - 1][k] : 0);
    double dq[NV];
    for (int k = 0; k < NV; k++) dq[k] = s ? kv[s - 1][k] : 0;
    if (mb_integrate(&five_bar_model, q, dq, c[s] * DT, qs)) return -1;
    int u;
    if (f(qs, vs, ka[s], &u)) return -1;
    if (s == 0) *used = u;
    memcpy(kv[s], vs, sizeof vs);
    for (int k = 0; k < NV; k++) vbar[k] += w[s] * kv[s][k], abar[k] += w[s] * ka[s][k];
  }
  if (mb_integrate(&five_bar_model, q, vbar, DT, q)) return -1;
  for (int k = 0; k < NV; k++) v[k] += DT * abar[k];
  return five_bar_project_q(q) || five_bar_project_v(q, v) ? -1 : 0;
}

int main(int argc, char **argv) {
  int csv = argc > 1 && strcmp(argv[1], "--csv") == 0, failures = 0;
  double qf[NQ], vf[NV], qr[NQ], vr[NV], worst = 0, cprev = 0;
  int used_any1 = 0, used0_start = -1, vertical = 0, vertical_ok = 0, n_switch = 0, uprev = 0;
  memcpy(qf, five_bar_q_initial, sizeof qf), memcpy(qr, five_bar_q_initial, sizeof qr);
  memcpy(vf, five_bar_v_initial, sizeof vf), memcpy(vr, five_bar_v_initial, sizeof vr);
  for (int n = 0; n < NSTEPS; n++) {
    int uf, ur;
    if (step(fd, qf, vf, &uf) || step(rcr, qr, vr, &ur)) {
      fprintf(stderr, "five_bar_rcr: FAIL: a step failed at t = %.3f s\n", n * DT);
      return 1;
    }
    if (n == 0) used0_start = ur;
    used_any1 |= ur == 1;
    n_switch += n > 0 && ur != uprev;
    uprev = ur;
    for (int k = 0; k < NQ; k++) worst = fmax(worst, fabs(qr[k] - qf[k]));
    double cb = cos(qf[0] + qf[1]); /* bar 2's x axis: vertical when cos of its angle is 0 */
    if (n > 0 && (cb > 0) != (cprev > 0)) {
      vertical++;
      vertical_ok += ur == 1;
      fprintf(stderr, "five_bar_rcr: bar 2 vertical at t = %.4f s: p_rcr used selection %d\n",
              (n + 1) * DT, ur);
    }
    cprev = cb;
    if (csv && n % 10 == 9)
      printf("%.3f,%.10f,%.10f,%.10f,%.10f,%.10f,%.10f,%.10f,%.10f,%d\n", (n + 1) * DT, qf[0],
             qf[1], qf[2], qf[3], qr[0], qr[1], qr[2], qr[3], ur);
  }
  fprintf(stderr, "five_bar_rcr: 5 s, RK4 dt %g s with projection: max |q_rcr - q_fd| = %.2e; "
                  "%d instants bar 2 vertical, %d selection changes\n", DT, worst, vertical,
          n_switch);
  if (!(worst <= 1e-9)) fprintf(stderr, "FAIL: trajectories differ by %.2e > 1e-9\n", worst), failures++;
  if (used0_start != 0) fprintf(stderr, "FAIL: selection %d at the start\n", used0_start), failures++;
  if (!used_any1) fprintf(stderr, "FAIL: selection 1 never used\n"), failures++;
  if (vertical == 0 || vertical_ok != vertical)
    fprintf(stderr, "FAIL: selection 1 at %d of %d vertical instants\n", vertical_ok, vertical),
        failures++;
  fprintf(stderr, "five_bar_rcr: %s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
