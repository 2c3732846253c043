/* loop_sim.h — the simulation loop shared by five_bar_sim.c and quarter_car_sim.c: a model with
 * closed loops (docs/dsl.md `loop`) integrated with its generated functions.
 *
 * From the model's initial state (p_q_initial, p_v_initial: its `initial` statements), with a
 * fixed step dt:
 *   q̈      = p_fd_loops(q, v, τ)  (M q̈ + h = τ + Kᵀλ, K q̈ = −K̇v: Lagrange multipliers, no
 *             coordinate partition), τ = p_passive_forces(q, v) (the springs) or 0;
 *   step    classical RK4 on the joint manifolds, as examples/sim/space_robot_sim.c: the stage
 *             positions q ⊕ (c dt) v_k and the update q ⊕ dt v̄ by the runtime's mb_integrate
 *             (quaternions: q exp(ω dt), they stay unit);
 *   after every step (unless disabled) p_project_q(q) and then p_project_v(q, v), the
 *             coordinate projection onto φ(q) = 0 and K(q) v = 0.
 * Recorded at every step: max_r |φ_r(q)| (p_loop_residual), max_r |(K(q) v)_r| (p_loop_jacobian),
 * the total energy E = ½ vᵀ M v (M = p_crba) − Σ_i g · (m_i p_i + R_i h_i) (the bodies' COM in
 * the gravity field: p_fk and the runtime model's inertia m, h = m c) + Σ ½ k (ℓ − L0)² (the
 * springs: the runtime's mb_spring_energy), and, for a model with dampers, the energy D the
 * dampers dissipated: Ḋ = −v · τ_d with τ_d = τ(q, v) − τ(q, 0) the dampers' share of the passive
 * forces, integrated with the same RK4 stages, so that E + D = E(0) is the energy balance.
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
  /* Extra CSV columns of the model (names comma-separated, nextra values): computed after each
   * step from t, q and the poses; ctx is the program's own. */
  int nextra;
  const char *extra_names;
  void (*extra)(void *ctx, double t, const double *q, const double *pose, double *out);
  void *ctx;
} loop_sim;

/* What a run measured. */
typedef struct ls_stats {
  int steps;
  double max_phi, max_kv;     /* over the whole run, t = 0 included */
  double e0, max_de;          /* E(0) and max |E(t) − E(0)| */
  double max_ke;              /* max ½ vᵀ M v: the energy scale of the motion */
  double max_rise;            /* max of E(t_{n+1}) − E(t_n) (> 0: the energy went up) */
  double max_balance;         /* max |E(t) + D(t) − E(0)| */
  double dissipated;          /* D at the end */
  double e_end, ke_end;
  double extra0[LS_MAX], extra_end[LS_MAX]; /* the extra columns at t = 0 and at the end */
  double cpu_steps_per_s;
} ls_stats;

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

/* One RK4 step on the manifold (q, v, and the dissipated energy d). */
static int ls_rk4(const loop_sim *S, double dt, double *q, double *v, double *d) {
  double k[4][LS_MAX], vs[4][LS_MAX], qs[LS_MAX], tau[LS_MAX], vbar[LS_MAX], lam[LS_MAX], p[4];
  static const double c[4] = {0, 0.5, 0.5, 1}, w[4] = {1, 2, 2, 1};
  memcpy(vs[0], v, (size_t)S->nv * sizeof *v);
  for (int s = 0; s < 4; s++) {
    if (s > 0) {
      for (int i = 0; i < S->nv; i++) vs[s][i] = v[i] + c[s] * dt * k[s - 1][i];
      if (mb_integrate(S->model, q, vs[s - 1], c[s] * dt, qs) != MB_OK) return -1;
    } else {
      memcpy(qs, q, (size_t)S->nq * sizeof *q);
    }
    ls_passive(S, qs, vs[s], tau, &p[s]);
    if (S->fd_loops(qs, vs[s], tau, k[s], lam) != 0) return -1;
  }
  for (int i = 0; i < S->nv; i++) {
    double a = 0;
    vbar[i] = 0;
    for (int s = 0; s < 4; s++) vbar[i] += w[s] * vs[s][i] / 6, a += w[s] * k[s][i] / 6;
    v[i] += dt * a;
  }
  for (int s = 0; s < 4; s++) *d += dt * w[s] * p[s] / 6;
  if (mb_integrate(S->model, q, vbar, dt, qs) != MB_OK) return -1;
  memcpy(q, qs, (size_t)S->nq * sizeof *q);
  return 0;
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

/* Simulate T seconds with step dt, projecting after every step if project; write a CSV row every
 * `every` steps (and the last) to csv if not NULL. 0, or -1 (with a message on stderr) if a
 * solve or a projection failed. */
static int ls_run(const loop_sim *S, double dt, double T, int project, FILE *csv, int every,
                  ls_stats *st) {
  double q[LS_MAX], v[LS_MAX], pose[12 * LS_MAX], extra[LS_MAX], d = 0, ke, e_prev = 0;
  int steps = (int)floor(T / dt + 0.5);
  if (S->nq > LS_MAX || S->nv > LS_MAX || S->nc > LS_MAX || S->nb + 1 > LS_MAX ||
      S->nextra > LS_MAX)
    return fprintf(stderr, "%s: model too large for loop_sim.h\n", S->name), -1;
  void *buf = malloc(mb_workspace_size(S->model));
  mb_workspace ws = {0};
  if (!buf || mb_workspace_init(&ws, S->model, buf) != MB_OK)
    return free(buf), fprintf(stderr, "%s: no workspace\n", S->name), -1;
  memcpy(q, S->q_initial, (size_t)S->nq * sizeof *q);
  memcpy(v, S->v_initial, (size_t)S->nv * sizeof *v);
  memset(st, 0, sizeof *st);
  st->steps = steps;
  if (csv) ls_header(S, csv);
  clock_t c0 = clock();
  int rc = 0;
  for (int n = 0; n <= steps; n++) {
    double t = n * dt, phi, kv, e = ls_energy(S, &ws, q, v, pose, &ke);
    ls_drift(S, q, v, &phi, &kv);
    if (S->extra) S->extra(S->ctx, t, q, pose, extra);
    if (n == 0) st->e0 = e_prev = e;
    if (phi > st->max_phi) st->max_phi = phi;
    if (kv > st->max_kv) st->max_kv = kv;
    if (fabs(e - st->e0) > st->max_de) st->max_de = fabs(e - st->e0);
    if (ke > st->max_ke) st->max_ke = ke;
    if (e - e_prev > st->max_rise) st->max_rise = e - e_prev;
    if (fabs(e + d - st->e0) > st->max_balance) st->max_balance = fabs(e + d - st->e0);
    e_prev = e;
    st->e_end = e, st->ke_end = ke;
    if (n == 0) memcpy(st->extra0, extra, (size_t)S->nextra * sizeof *extra);
    memcpy(st->extra_end, extra, (size_t)S->nextra * sizeof *extra);
    st->dissipated = d;
    if (csv && (n % every == 0 || n == steps)) {
      fprintf(csv, "%.6f", t);
      for (int i = 0; i < S->nq; i++) fprintf(csv, ",%.12g", q[i]);
      fprintf(csv, ",%.6e,%.6e,%.17g,%.17g", phi, kv, e, d);
      for (int i = 0; i < S->nextra; i++) fprintf(csv, ",%.12g", extra[i]);
      fprintf(csv, "\n");
    }
    if (n == steps) break;
    if (ls_rk4(S, dt, q, v, &d) != 0) {
      fprintf(stderr, "%s: the constrained solve failed at t = %g\n", S->name, t);
      rc = -1;
      break;
    }
    if (project && (S->project_q(q) != 0 || S->project_v(q, v) != 0)) {
      fprintf(stderr, "%s: the projection failed at t = %g\n", S->name, t + dt);
      rc = -1;
      break;
    }
  }
  double secs = (double)(clock() - c0) / CLOCKS_PER_SEC;
  st->cpu_steps_per_s = secs > 0 ? steps / secs : 0;
  free(buf);
  return rc;
}

/* Command line shared by the programs:
 *   [--no-project] [--dt DT] [--every N] [--check]
 * Returns 0, or -1 after a usage message. */
typedef struct ls_args {
  int project, check, every;
  double dt;
} ls_args;

static int ls_parse(int argc, char **argv, ls_args *a, const char *usage) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--no-project"))
      a->project = 0;
    else if (!strcmp(argv[i], "--check"))
      a->check = 1;
    else if (!strcmp(argv[i], "--dt") && i + 1 < argc)
      a->dt = atof(argv[++i]);
    else if (!strcmp(argv[i], "--every") && i + 1 < argc)
      a->every = atoi(argv[++i]);
    else
      return fprintf(stderr, "%s", usage), -1;
  }
  if (!(a->dt > 0) || a->every < 1) return fprintf(stderr, "%s", usage), -1;
  return 0;
}

#endif
