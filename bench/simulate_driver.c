/* simulate_driver.c — work against accuracy of the runtime's mb_simulate (Dormand & Prince 5(4)
 * with error control, runtime/simulate.c) and of the fixed-step classical RK4 on the joint
 * manifolds the loop examples used before it, on the two closed-loop examples with their
 * generated functions (examples/five_bar.mbd for 5 s, examples/quarter_car.mbd for 2 s, as the
 * examples run them, and for its first 0.5 s, the transient, alone: after it the corner is at
 * rest but for the wheel's free spin; from their initial states; q̈ = p_fd_loops(q, v, τ), τ =
 * p_passive_forces(q, v) or 0; p_project_q and p_project_v after every step, as
 * examples/sim/loop_sim.h). bench/simulate.sh builds and runs it (docs/analysis.md "Integration
 * with error control").
 *
 * The error of a run is max(max_k |(q(T) ⊖ q_ref)_k|, max_k |v_k(T) − v_ref,k|) (mb_difference:
 * rad, m and rad/s, m/s alike), q_ref, v_ref from mb_simulate at rtol = atol = 1e-13; that
 * reference is checked against RK4 at a step 2⁻¹⁷ T (its own error of order 1e-13). The work is
 * the number of p_fd_loops calls: 4 a step for RK4, mb_simulate's count (6 a step after the
 * first, FSAL, rejected steps and the starting step included).
 *
 * Prints, one per line:
 *   ref MODEL ERR_OF_RK4_FINE
 *   run MODEL rk4 DT CALLS STEPS ERR     (DT in s)
 *   run MODEL dp5 TOL CALLS STEPS ERR
 *   ratio MODEL TOL ERR DP5_CALLS RK4_CALLS RK4/DP5
 * the ratio at each DP5 error inside RK4's range, RK4's calls interpolated there (log-log,
 * linear between its two runs that bracket the error). Exit 0, or 1 if a run failed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "five_bar_dynamics.h"
#include "mb.h"
#include "quarter_car_dynamics.h"

extern const mb_model five_bar_model, quarter_car_model;

#define NMAX 16

typedef struct bmodel {
  const char *name;
  const mb_model *m;
  double T;
  const double *q0, *v0;
  int (*fd)(const double *q, const double *v, const double *tau, double *qdd, double *lam);
  void (*passive)(const double *q, const double *v, double *tau); /* NULL: τ = 0 */
  int (*pq)(double *q);
  int (*pv)(const double *q, double *v);
  long calls;
} bmodel;

static int accel(void *c, double t, const double *q, const double *v, double *qdd) {
  bmodel *b = c;
  double tau[NMAX] = {0}, lam[NMAX];
  (void)t;
  if (b->passive) b->passive(q, v, tau);
  b->calls++;
  return b->fd(q, v, tau, qdd, lam) ? MB_ENUMERIC : MB_OK;
}

static int project(void *c, double t, double *q, double *v) {
  bmodel *b = c;
  (void)t;
  return b->pq(q) || b->pv(q, v) ? MB_ENUMERIC : MB_OK;
}

/* One classical RK4 step on the manifold (stage positions q ⊕ (c dt) v_k, the update q ⊕ dt v̄),
 * then the projection. */
static int rk4_step(bmodel *b, double t, double dt, double *q, double *v) {
  const mb_model *m = b->m;
  double k[4][NMAX], vs[4][NMAX], qs[NMAX], vbar[NMAX];
  static const double c[4] = {0, 0.5, 0.5, 1}, w[4] = {1, 2, 2, 1};
  memcpy(vs[0], v, sizeof *v * (size_t)m->nv);
  for (int s = 0; s < 4; s++) {
    if (s > 0) {
      for (int i = 0; i < m->nv; i++) vs[s][i] = v[i] + c[s] * dt * k[s - 1][i];
      if (mb_integrate(m, q, vs[s - 1], c[s] * dt, qs)) return -1;
    } else {
      memcpy(qs, q, sizeof *q * (size_t)m->nq);
    }
    if (accel(b, t + c[s] * dt, qs, vs[s], k[s])) return -1;
  }
  for (int i = 0; i < m->nv; i++) {
    double a = 0;
    vbar[i] = 0;
    for (int s = 0; s < 4; s++) vbar[i] += w[s] * vs[s][i] / 6, a += w[s] * k[s][i] / 6;
    v[i] += dt * a;
  }
  if (mb_integrate(m, q, vbar, dt, q)) return -1;
  return project(b, t + dt, q, v);
}

static int rk4_run(bmodel *b, long n, double *q, double *v) {
  memcpy(q, b->q0, sizeof *q * (size_t)b->m->nq);
  memcpy(v, b->v0, sizeof *v * (size_t)b->m->nv);
  b->calls = 0;
  for (long s = 0; s < n; s++)
    if (rk4_step(b, (double)s * (b->T / (double)n), b->T / (double)n, q, v)) return -1;
  return 0;
}

static int dp_run(bmodel *b, double tol, double *q, double *v, mb_sim_stats *st) {
  static double scratch[4096];
  mb_sim_system sys = {accel, project, NULL, NULL, 0, b};
  mb_sim_options o = {tol, tol, 0.0, 0.0, 0.0, 0};
  if (mb_simulate_scratch_size(b->m) > sizeof scratch) return -1;
  memcpy(q, b->q0, sizeof *q * (size_t)b->m->nq);
  memcpy(v, b->v0, sizeof *v * (size_t)b->m->nv);
  b->calls = 0;
  return mb_simulate(b->m, &sys, &o, 0.0, b->T, q, v, NULL, scratch, st) == MB_OK ? 0 : -1;
}

static double dist(const mb_model *m, const double *q, const double *v, const double *qr,
                   const double *vr) {
  double d[NMAX], e = 0;
  if (mb_difference(m, qr, q, d)) return NAN;
  for (int k = 0; k < m->nv; k++) e = fmax(e, fmax(fabs(d[k]), fabs(v[k] - vr[k])));
  return e;
}

#define NRK 11
#define NDP 9

/* RK4's calls at error e, log-log interpolated between the two runs that bracket it (the runs
 * in order of decreasing step), if the error falls by at least 8 between them (RK4's regime, 16
 * per halving; below about 5e-12 the quarter car's falls by 2 to 4 only, the projection's
 * tolerance of 1e-12 its floor); 0 when no such pair brackets it. */
static double rk4_calls_at(const double *err, const double *calls, double e) {
  for (int i = 0; i + 1 < NRK; i++) {
    double a = err[i], b = err[i + 1];
    if (a > 0 && b > 0 && e <= a && e >= b && a >= 8 * b) {
      double f = log(a / e) / log(a / b);
      return exp(log(calls[i]) + f * log(calls[i + 1] / calls[i]));
    }
  }
  return 0;
}

static int bench(bmodel *b) {
  double qr[NMAX], vr[NMAX], q[NMAX], v[NMAX], rk_err[NRK], rk_calls[NRK];
  mb_sim_stats st;
  if (dp_run(b, 1e-13, qr, vr, &st)) return fprintf(stderr, "%s: reference failed\n", b->name), 1;
  if (rk4_run(b, 1L << 17, q, v)) return fprintf(stderr, "%s: fine RK4 failed\n", b->name), 1;
  printf("ref %s %.3e\n", b->name, dist(b->m, q, v, qr, vr));
  for (int i = 0; i < NRK; i++) { /* dt = T / (25 · 2^i): 200 ms .. 0.2 ms (five-bar) */
    long n = 25L << i;
    rk_err[i] = rk4_run(b, n, q, v) ? NAN : dist(b->m, q, v, qr, vr);
    rk_calls[i] = (double)b->calls;
    printf("run %s rk4 %.6g %ld %ld %.3e\n", b->name, b->T / (double)n, b->calls, n, rk_err[i]);
  }
  for (int i = 0; i < NDP; i++) {
    double tol = pow(10.0, -4 - i), e;
    if (dp_run(b, tol, q, v, &st)) {
      printf("run %s dp5 %.0e failed\n", b->name, tol);
      continue;
    }
    e = dist(b->m, q, v, qr, vr);
    printf("run %s dp5 %.0e %ld %ld %.3e\n", b->name, tol, st.naccel, st.accepted, e);
    double r = rk4_calls_at(rk_err, rk_calls, e);
    if (r > 0)
      printf("ratio %s %.0e %.3e %ld %.0f %.2f\n", b->name, tol, e, st.naccel, r,
             r / (double)st.naccel);
  }
  return 0;
}

int main(void) {
  bmodel b[3] = {{"five_bar", &five_bar_model, 5.0, five_bar_q_initial, five_bar_v_initial,
                  five_bar_fd_loops, NULL, five_bar_project_q, five_bar_project_v, 0},
                 {"quarter_car", &quarter_car_model, 2.0, quarter_car_q_initial,
                  quarter_car_v_initial, quarter_car_fd_loops, quarter_car_passive_forces,
                  quarter_car_project_q, quarter_car_project_v, 0},
                 {"quarter_car_0.5s", &quarter_car_model, 0.5, quarter_car_q_initial,
                  quarter_car_v_initial, quarter_car_fd_loops, quarter_car_passive_forces,
                  quarter_car_project_q, quarter_car_project_v, 0}};
  int rc = 0;
  for (int i = 0; i < 3; i++) {
    if (b[i].m->nq > NMAX || b[i].m->nv > NMAX) return 1;
    rc |= bench(&b[i]);
  }
  return rc;
}
