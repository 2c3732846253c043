/* loop_sim.h — the simulation loop shared by five_bar_sim.c and quarter_car_sim.c: a model with
 * closed loops (docs/dsl.md `loop`) integrated with its generated functions.
 *
 * From the model's initial state (p_q_initial, p_v_initial: its `initial` statements):
 *   q̈      = p_fd_loops(q, v, τ)  (M q̈ + h = τ + Kᵀλ, K q̈ = −K̇v: Lagrange multipliers, no
 *             coordinate partition), τ = p_passive_forces(q, v) (the springs) or 0;
 *   steps   the runtime's mb_simulate (runtime/simulate.c; docs/analysis.md "Integration with
 *             error control"): Dormand & Prince's 5(4) pair with the step chosen for the
 *             tolerance (rtol = atol = tol), the stage positions on the joint manifolds (q ⊕ Θ
 *             by mb_integrate, RKMK: quaternions stay unit and the order stays 5);
 *   after every accepted step (unless disabled) p_project_q(q) and then p_project_v(q, v), the
 *             coordinate projection onto φ(q) = 0 and K(q) v = 0 (mb_simulate's projection
 *             callback).
 * Recorded at t = 0 and after every accepted step (mb_simulate's event callback, an observer
 * here): max_r |φ_r(q)| (p_loop_residual), max_r |(K(q) v)_r| (p_loop_jacobian), the total energy
 * E = ½ vᵀ M v (M = p_crba) − Σ_i g · (m_i p_i + R_i h_i) (the bodies' COM in the gravity field:
 * p_fk and the runtime model's inertia m, h = m c) + Σ ½ k (ℓ − L0)² (the springs: the runtime's
 * mb_spring_energy), and, for a model with dampers, the energy D the dampers dissipated:
 * Ḋ = −v · τ_d with τ_d = τ(q, v) − τ(q, 0) the dampers' share of the passive forces, a
 * quadrature state of mb_simulate (integrated by the same stages), so that E + D = E(0) is the
 * energy balance.
 *
 * Not a library: each program includes this file once after its model's header and defines a
 * loop_sim describing the model. Every function is static. */
#ifndef LOOP_SIM_H
#define LOOP_SIM_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mb.h"

#define LS_MAX 48 /* bound on nq, nv, nc, nb + 1 and the extra columns of the models here */

typedef struct loop_sim {
  const char *name;
  const mb_model *model;     /* the runtime model (<p>_model.c): mb_integrate, inertias, gravity */
  const mb_springs *springs; /* NULL: none */
  int nq, nv, nb, nc, nj;
  const double *q_initial, *v_initial;
  const char *const *joint_names;
  const int *joint_iq;
  void (*crba)(const double *q, double *M);
  void (*fk)(const double *q, double *pose);
  int (*fd_loops)(const double *q, const double *v, const double *tau, double *qdd,
                  double *lambda);
  void (*residual)(const double *q, double *phi);
  void (*jacobian)(const double *q, double *K);
  int (*project_q)(double *q);
  int (*project_v)(const double *q, double *v);
  void (*passive)(const double *q, const double *v, double *tau); /* NULL: τ = 0 */
  /* Extra CSV columns of the model (names comma-separated, nextra values): computed at every
   * recorded state from t, q and the poses; ctx is the program's own. */
  int nextra;
  const char *extra_names;
  void (*extra)(void *ctx, double t, const double *q, const double *pose, double *out);
  void *ctx;
} loop_sim;

/* What a run measured. */
typedef struct ls_stats {
  long steps, rejected, calls; /* mb_simulate's accepted and rejected steps, fd_loops calls */
  double max_phi, max_kv;      /* over the whole run, t = 0 included */
  double e0, max_de;           /* E(0) and max |E(t) − E(0)| */
  double max_ke;               /* max ½ vᵀ M v: the energy scale of the motion */
  double max_rise;             /* max of E(t_{n+1}) − E(t_n) (> 0: the energy went up) */
  double max_balance;          /* max |E(t) + D(t) − E(0)| */
  double dissipated;           /* D at the end */
  double e_end, ke_end;
  double extra0[LS_MAX], extra_end[LS_MAX]; /* the extra columns at t = 0 and at the end */
  double cpu_s;                             /* processor time of the run */
} ls_stats;

/* One run's state, the callbacks' context. */
typedef struct ls_run_ctx {
  const loop_sim *S;
  mb_workspace ws;
  ls_stats *st;
  FILE *csv;
  int every;
  double t_end;
  long n;        /* states recorded */
  double e_prev; /* E at the last one */
  double d;      /* D: mb_simulate's quadrature state */
} ls_run_ctx;

/* τ = the passive forces at (q, v), and the dampers' dissipation rate −v · τ_d. */
static void ls_passive(const loop_sim *S, const double *q, const double *v, double *tau,
                       double *pdiss) {
  double tau0[LS_MAX];
  static const double zero[LS_MAX];
  memset(tau, 0, (size_t)S->nv * sizeof *tau);
  *pdiss = 0;
  if (!S->passive) return;
  S->passive(q, v, tau);
  S->passive(q, zero, tau0);
  for (int i = 0; i < S->nv; i++) *pdiss -= v[i] * (tau[i] - tau0[i]);
}

/* mb_simulate's callbacks: q̈ = p_fd_loops(q, v, τ_passive), Ḋ, the projections. */
static int ls_accel(void *c, double t, const double *q, const double *v, double *qdd) {
  const loop_sim *S = ((ls_run_ctx *)c)->S;
  double tau[LS_MAX], lam[LS_MAX], p;
  (void)t;
  ls_passive(S, q, v, tau, &p);
  return S->fd_loops(q, v, tau, qdd, lam) != 0 ? MB_ENUMERIC : MB_OK;
}

static int ls_quad(void *c, double t, const double *q, const double *v, double *dw) {
  double tau[LS_MAX];
  (void)t;
  ls_passive(((ls_run_ctx *)c)->S, q, v, tau, &dw[0]);
  return MB_OK;
}

static int ls_project(void *c, double t, double *q, double *v) {
  const loop_sim *S = ((ls_run_ctx *)c)->S;
  if (S->project_q(q) != 0 || S->project_v(q, v) != 0) {
    fprintf(stderr, "%s: the projection failed at t = %g\n", S->name, t);
    return MB_ENUMERIC;
  }
  return MB_OK;
}

/* Kinetic, gravitational and spring energy at (q, v); pose = p_fk(q) on return. */
static double ls_energy(const loop_sim *S, mb_workspace *ws, const double *q, const double *v,
                        double *pose, double *ke) {
  double M[LS_MAX * LS_MAX], t = 0, u = 0;
  S->crba(q, M);
  for (int i = 0; i < S->nv; i++)
    for (int j = 0; j < S->nv; j++) t += 0.5 * v[i] * M[i * S->nv + j] * v[j];
  S->fk(q, pose);
  const double *g = S->model->gravity;
  for (int b = 1; b <= S->nb; b++) {
    const double *R = pose + 12 * b, *p = R + 9, *in = S->model->inertia + 10 * b;
    double m = in[0], h[3] = {in[1], in[2], in[3]};
    for (int r = 0; r < 3; r++) /* m (p + R c) = m p + R h, the body's first moment in world */
      u -= g[r] * (m * p[r] + R[3 * r] * h[0] + R[3 * r + 1] * h[1] + R[3 * r + 2] * h[2]);
  }
  if (S->springs) u += mb_spring_energy(S->model, S->springs, ws, q);
  *ke = t;
  return t + u;
}

static double ls_max_abs(const double *x, int n) {
  double m = 0;
  for (int i = 0; i < n; i++)
    if (fabs(x[i]) > m) m = fabs(x[i]);
  return m;
}

/* The constraint drift: max |φ_r(q)| and max |(K v)_r|. */
static void ls_drift(const loop_sim *S, const double *q, const double *v, double *phi_max,
                     double *kv_max) {
  double phi[LS_MAX], K[LS_MAX * LS_MAX], kv[LS_MAX];
  S->residual(q, phi);
  S->jacobian(q, K);
  for (int r = 0; r < S->nc; r++) {
    kv[r] = 0;
    for (int i = 0; i < S->nv; i++) kv[r] += K[r * S->nv + i] * v[i];
  }
  *phi_max = ls_max_abs(phi, S->nc);
  *kv_max = ls_max_abs(kv, S->nc);
}

static void ls_header(const loop_sim *S, FILE *csv) {
  fprintf(csv, "t");
  for (int j = 0; j < S->nj; j++) {
    int n = (j + 1 < S->nj ? S->joint_iq[j + 1] : S->nq) - S->joint_iq[j];
    static const char *const quat[4] = {"qx", "qy", "qz", "qw"};
    for (int k = 0; k < n; k++) {
      if (n == 1)
        fprintf(csv, ",%s", S->joint_names[j]);
      else if (n == 4)
        fprintf(csv, ",%s.%s", S->joint_names[j], quat[k]);
      else
        fprintf(csv, ",%s.%d", S->joint_names[j], k);
    }
  }
  fprintf(csv, ",max_abs_phi,max_abs_Kv,energy,dissipated");
  if (S->nextra) fprintf(csv, ",%s", S->extra_names);
  fprintf(csv, "\n");
}

/* One CSV row: t, q, max|φ|, max|Kv|, E, D and the extra columns. */
static void ls_row(const ls_run_ctx *x, double t, const double *q, double phi, double kv, double e,
                   const double *extra) {
  fprintf(x->csv, "%.6f", t);
  for (int i = 0; i < x->S->nq; i++) fprintf(x->csv, ",%.12g", q[i]);
  fprintf(x->csv, ",%.6e,%.6e,%.17g,%.17g", phi, kv, e, x->d);
  for (int i = 0; i < x->S->nextra; i++) fprintf(x->csv, ",%.12g", extra[i]);
  fprintf(x->csv, "\n");
}

/* Records the state (q, v) at t into the statistics, and a CSV row every `every` states and at
 * t_end. The event callback of mb_simulate (an observer): MB_OK. */
static int ls_observe(void *c, double t, double *q, double *v) {
  ls_run_ctx *x = c;
  const loop_sim *S = x->S;
  ls_stats *st = x->st;
  double pose[12 * LS_MAX], extra[LS_MAX], ke, phi, kv, d = x->d;
  double e = ls_energy(S, &x->ws, q, v, pose, &ke);
  ls_drift(S, q, v, &phi, &kv);
  if (S->extra) S->extra(S->ctx, t, q, pose, extra);
  if (x->n == 0) st->e0 = x->e_prev = e;
  if (phi > st->max_phi) st->max_phi = phi;
  if (kv > st->max_kv) st->max_kv = kv;
  if (fabs(e - st->e0) > st->max_de) st->max_de = fabs(e - st->e0);
  if (ke > st->max_ke) st->max_ke = ke;
  if (e - x->e_prev > st->max_rise) st->max_rise = e - x->e_prev;
  if (fabs(e + d - st->e0) > st->max_balance) st->max_balance = fabs(e + d - st->e0);
  x->e_prev = e;
  st->e_end = e, st->ke_end = ke;
  if (x->n == 0) memcpy(st->extra0, extra, (size_t)S->nextra * sizeof *extra);
  memcpy(st->extra_end, extra, (size_t)S->nextra * sizeof *extra);
  st->dissipated = d;
  if (x->csv && (x->n % x->every == 0 || t >= x->t_end)) ls_row(x, t, q, phi, kv, e, extra);
  x->n++;
  return MB_OK;
}

/* Simulate T seconds to the tolerance tol (rtol = atol), projecting after every accepted step if
 * project; write a CSV row every `every` accepted steps (t = 0 first) to csv if not NULL.
 * 0, or -1 (with a message on stderr) if a solve or a projection failed. */
static int ls_run(const loop_sim *S, double tol, double T, int project, FILE *csv, int every,
                  ls_stats *st) {
  double q[LS_MAX], v[LS_MAX];
  if (S->nq > LS_MAX || S->nv > LS_MAX || S->nc > LS_MAX || S->nb + 1 > LS_MAX ||
      S->nextra > LS_MAX)
    return fprintf(stderr, "%s: model too large for loop_sim.h\n", S->name), -1;
  ls_run_ctx x = {S, {0}, st, csv, every, T, 0, 0.0, 0.0};
  void *buf = malloc(mb_workspace_size(S->model)), *scratch;
  scratch = malloc(mb_simulate_scratch_size(S->model));
  if (!buf || !scratch || mb_workspace_init(&x.ws, S->model, buf) != MB_OK)
    return free(buf), free(scratch), fprintf(stderr, "%s: no workspace\n", S->name), -1;
  memcpy(q, S->q_initial, (size_t)S->nq * sizeof *q);
  memcpy(v, S->v_initial, (size_t)S->nv * sizeof *v);
  memset(st, 0, sizeof *st);
  if (csv) ls_header(S, csv);
  ls_observe(&x, 0.0, q, v);
  const mb_sim_system sys = {ls_accel, project ? ls_project : NULL, ls_observe, ls_quad, 1, &x};
  const mb_sim_options opt = {tol, tol, 0.0, 0.0, 0.0, 0};
  mb_sim_stats ss;
  clock_t c0 = clock();
  int rc = mb_simulate(S->model, &sys, &opt, 0.0, T, q, v, &x.d, scratch, &ss);
  st->cpu_s = (double)(clock() - c0) / CLOCKS_PER_SEC;
  st->steps = ss.accepted, st->rejected = ss.rejected, st->calls = ss.naccel;
  if (rc != MB_OK)
    fprintf(stderr, "%s: mb_simulate failed at t = %g (status %d)\n", S->name, ss.t, rc);
  free(buf), free(scratch);
  return rc == MB_OK ? 0 : -1;
}

/* Command line shared by the programs:
 *   [--no-project] [--tol TOL] [--every N] [--check]
 * Returns 0, or -1 after a usage message. */
typedef struct ls_args {
  int project, check, every;
  double tol;
} ls_args;

static int ls_parse(int argc, char **argv, ls_args *a, const char *usage) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--no-project"))
      a->project = 0;
    else if (!strcmp(argv[i], "--check"))
      a->check = 1;
    else if (!strcmp(argv[i], "--tol") && i + 1 < argc)
      a->tol = atof(argv[++i]);
    else if (!strcmp(argv[i], "--every") && i + 1 < argc)
      a->every = atoi(argv[++i]);
    else
      return fprintf(stderr, "%s", usage), -1;
  }
  if (!(a->tol > 0) || a->every < 1) return fprintf(stderr, "%s", usage), -1;
  return 0;
}

#endif
