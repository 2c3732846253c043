/* test_loops.c — closed loops (runtime/loops.c, fd_loops.c, project.c; mb.h "Closed loops").
 *
 * References, one per test (stated again at each):
 *   - the loop frame and the target frame built to coincide (up to the loop type's own motion) at
 *     a configuration q0 (loop_close below): φ(q0) = 0, row by row, for every loop type;
 *   - calculus: K v = d/dt φ(q ⊕ v t) and K̇v = d/dt (K(q ⊕ v t) v) at t = 0, by central
 *     differences along mb_integrate, at arbitrary (not assembled) states, every row type;
 *   - the equations mb_fd_loops solves, checked with mb_crba and mb_nle: K q̈ = −K̇v and
 *     M q̈ + h − τ = Kᵀλ; mb_project_q / mb_project_v: max |φ| ≤ MB_PROJECT_TOL and K v = 0;
 *   - physics: a loop joint of type X between a body and a floating child is the tree joint X
 *     (Featherstone 2008 §8.1: the same motion), so mb_fd_loops must give mb_aba's q̈ of the tree;
 *     a slider-crank closed by a prismatic loop and the same mechanism with a tree slider closed by
 *     a revolute loop have the same crank acceleration; the constraint (not the row choice)
 *     determines q̈; a conservative mechanism conserves T + V (RK4, 1 s);
 *   - the contract of mb.h: MB_ENUMERIC at singular configurations or redundant rows, q unchanged
 *     by a projection that fails, MB_EINVAL for NULL, MB_EWORKSPACE for a foreign workspace,
 *     mb_loops_check's rejections. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

enum { MAXV = 96, MAXQ = 112, MAXC = 24, MAXB = 16 };

/* Worst errors seen, printed by the last test (relative unless said). */
static double worst_phi0, worst_Kv, worst_Kdv, worst_projq, worst_projv, worst_acc, worst_eom,
    worst_tree, worst_rows, worst_slider, worst_energy;

/* What is being checked, for the failure messages. */
static char ctx[160];

/* ------------------------------------------------------------------------------------ helpers */

typedef struct lsys {
  const mb_model *m;
  mb_loop loop[4];
  int row[MAXC];
  mb_loops L;
  mb_workspace ws;
  mb_loop_workspace lw;
  double *wbuf, *lbuf;
} lsys;

/* A system of loops (rows NULL: every row of every loop); heap-allocated, since lw points at L. */
static lsys *lsys_new(const mb_model *m, const mb_loop *loops, int nloops, const int *rows,
                      int nc) {
  lsys *s = calloc(1, sizeof *s);
  char msg[160];
  s->m = m;
  memcpy(s->loop, loops, sizeof *loops * (size_t)nloops);
  if (rows)
    memcpy(s->row, rows, sizeof *rows * (size_t)nc);
  else
    for (int l = nc = 0; l < nloops; l++)
      for (int k = 0; k < mb_loop_nrows(loops[l].type); k++)
        s->row[nc++] = MB_LOOP_MAX_ROWS * l + k;
  s->L = (mb_loops){nloops, s->loop, nc, s->row};
  if (mb_loops_check(m, &s->L, msg, sizeof msg)) fail_msg("mb_loops_check: %s", msg);
  s->wbuf = mbt_workspace_new(m, &s->ws);
  s->lbuf = malloc(mb_loop_workspace_size(m, &s->L));
  assert_int_equal(mb_loop_workspace_init(&s->lw, m, &s->L, s->lbuf), MB_OK);
  return s;
}

static void lsys_free(lsys *s) { free(s->wbuf), free(s->lbuf), free(s); }

static void resid(lsys *s, const double *q, double *phi) {
  assert_int_equal(mb_loop_residual(s->m, &s->L, &s->ws, &s->lw, q, phi), MB_OK);
}
static void jac(lsys *s, const double *q, double *K) {
  assert_int_equal(mb_loop_jacobian(s->m, &s->L, &s->ws, &s->lw, q, K), MB_OK);
}
static void bias(lsys *s, const double *q, const double *v, double *kb) {
  assert_int_equal(mb_loop_bias(s->m, &s->L, &s->ws, &s->lw, q, v, kb), MB_OK);
}
static double maxabs(const double *x, int n) { return mbt_max_abs(x, (size_t)n); }

/* y = K x (nc × nv) and the row-wise magnitude bound max_r Σ_k |K_rk x_k|. */
static double kmul(const double *K, int nc, int nv, const double *x, double *y) {
  double scale = 0.0;
  for (int r = 0; r < nc; r++) {
    double s = 0.0, a = 0.0;
    for (int k = 0; k < nv; k++) s += K[r * nv + k] * x[k], a += fabs(K[r * nv + k] * x[k]);
    y[r] = s, scale = fmax(scale, a);
  }
  return scale;
}

static void rot_mul(const double A[9], const double B[9], double C[9]) { mbs_mat3_mul(A, B, C); }
static void rot_T(const double A[9], double T[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) T[3 * i + j] = A[3 * j + i];
}
static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

/* Complete loop l (type, a, b, Ea, ra, axis, pitch set) so that at q the target frame is the loop
 * frame moved by the relative pose (Rrel, t): target → loop-frame rotation Rrel, target origin t
 * in loop-frame coordinates. With R_x, p_x the world pose of body x (mb_fk) the loop frame is
 * W = R_a Eaᵀ at P = p_a + R_a ra, the target frame T = W Rrel at P + W t, so Eb = Tᵀ R_b and
 * rb = R_bᵀ (P + W t − p_b). */
static void loop_close(const mb_model *m, const double *q, mb_loop *l, const double Rrel[9],
                       const double t[3]) {
  mb_workspace ws;
  double *buf = mbt_workspace_new(m, &ws),
         *pose = malloc(sizeof(double) * 12 * (size_t)(m->nb + 1));
  assert_int_equal(mb_fk(m, &ws, q, pose), MB_OK);
  const double *Ra = pose + 12 * l->a, *pa = Ra + 9, *Rb = pose + 12 * l->b, *pb = Rb + 9;
  double EaT[9], W[9], T[9], TT[9], P[3], Wt[3], x[3];
  rot_T(l->Ea, EaT), rot_mul(Ra, EaT, W), rot_mul(W, Rrel, T), rot_T(T, TT);
  rot_mul(TT, Rb, l->Eb);
  mbs_mat3_mv(Ra, l->ra, P), mbs_mat3_mv(W, t, Wt);
  for (int k = 0; k < 3; k++) x[k] = pa[k] + P[k] + Wt[k] - pb[k];
  mbs_mat3_tmv(Rb, x, l->rb);
  free(pose), free(buf);
}

static void unit_perp(mbt_rng *g, const double a[3], double w[3]) {
  double r[3], d, n;
  do {
    mbt_unit3(g, r);
    d = r[0] * a[0] + r[1] * a[1] + r[2] * a[2];
    for (int k = 0; k < 3; k++) w[k] = r[k] - d * a[k];
    n = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  } while (n < 0.3);
  for (int k = 0; k < 3; k++) w[k] /= n;
}

/* A loop of type t between a and b with a random loop frame, axis, pitch, and a random relative
 * pose of the type's own motion: assembled at q (loop_close). */
static mb_loop loop_rand(mbt_rng *g, const mb_model *m, const double *q, mb_loop_type t, int a,
                         int b) {
  mb_loop l;
  double Rrel[9], off[3] = {0, 0, 0}, w[3];
  memset(&l, 0, sizeof l);
  l.type = t, l.a = a, l.b = b;
  mbt_rand_rot(g, l.Ea), mbt_rand_vec(g, 3, -0.5, 0.5, l.ra);
  mbt_unit3(g, l.axis);
  memcpy(Rrel, I3, sizeof Rrel);
  double alpha = mbt_uniform(g, -1.0, 1.0);
  switch (t) {
  case MB_LOOP_REVOLUTE:
  case MB_LOOP_CONTINUOUS:
    mbs_rot_axis(l.axis, alpha, Rrel);
    break;
  case MB_LOOP_PRISMATIC:
    for (int k = 0; k < 3; k++) off[k] = alpha * l.axis[k];
    break;
  case MB_LOOP_HELICAL: /* rotation α about a and translation h α along it: θ = α */
    l.pitch = mbt_uniform(g, -0.3, 0.3);
    mbs_rot_axis(l.axis, alpha, Rrel);
    for (int k = 0; k < 3; k++) off[k] = l.pitch * alpha * l.axis[k];
    break;
  case MB_LOOP_SPHERICAL:
  case MB_LOOP_S:
    mbt_rand_rot(g, Rrel);
    break;
  case MB_LOOP_FIXED:
    break;
  case MB_LOOP_D1: /* axis2 (target coordinates) is, in the world, a unit vector ⟂ a */
    mbt_rand_rot(g, Rrel), mbt_rand_vec(g, 3, -0.5, 0.5, off);
    unit_perp(g, l.axis, w), mbs_mat3_tmv(Rrel, w, l.axis2);
    break;
  case MB_LOOP_D2: /* separation ⟂ a */
    mbt_rand_rot(g, Rrel), unit_perp(g, l.axis, w);
    for (int k = 0; k < 3; k++) off[k] = alpha * w[k];
    break;
  case MB_LOOP_SS:
    mbt_rand_rot(g, Rrel);
    do mbt_rand_vec(g, 3, -0.6, 0.6, off);
    while ((l.distance = sqrt(off[0] * off[0] + off[1] * off[1] + off[2] * off[2])) < 0.1);
    break;
  default:
    break;
  }
  loop_close(m, q, &l, Rrel, off);
  return l;
}

static void box_body(mbt_tree *t, int i, double mass, double len) {
  double com[3] = {len / 2, 0, 0},
         Ic[6] = {1e-3 * mass, mass * len * len / 12, mass * len * len / 12 + 1e-3 * mass, 0, 0, 0};
  mbt_tree_body(t, i, mass, com, Ic);
}

/* A spatial chain of n scalar joints (revolute, prismatic, helical, continuous in turn unless
 * revolute_only) with random XT, axes, pitches and bodies. */
static mbt_tree *chain_new(mbt_rng *g, int n, int revolute_only) {
  static const mb_joint_type cyc[4] = {MB_JOINT_REVOLUTE, MB_JOINT_PRISMATIC, MB_JOINT_HELICAL,
                                       MB_JOINT_CONTINUOUS};
  mbt_tree *t = mbt_tree_new(n);
  for (int i = 1; i <= n; i++) {
    double a[3], E[9], r[3], com[3], Ic[6] = {0, 0, 0, 0, 0, 0};
    mbt_unit3(g, a), mbt_rand_rot(g, E), mbt_rand_vec(g, 3, -0.6, 0.6, r);
    mbt_tree_joint(t, i, i - 1, revolute_only ? MB_JOINT_REVOLUTE : cyc[(i - 1) % 4], a, E, r);
    t->pitch[i] = (t->jtype[i] == MB_JOINT_HELICAL) ? mbt_uniform(g, -0.3, 0.3) : 0.0;
    mbt_rand_vec(g, 3, -0.3, 0.3, com);
    for (int k = 0; k < 3; k++) Ic[k] = mbt_uniform(g, 0.02, 0.06);
    mbt_tree_body(t, i, mbt_uniform(g, 0.5, 2.0), com, Ic);
  }
  mbt_tree_finish(t);
  return t;
}

/* ---------------------------------------------------------------------------------- mechanisms */

/* Planar four-bar in the xy plane: crank (body 1, length L1) about z at the origin, coupler
 * (body 2, L2) at the crank's tip, rocker (body 3, L3) at the coupler's tip, closed by a revolute
 * loop about z from the rocker's tip to the ground pivot (g, 0, 0); gravity −9.81 y. */
typedef struct fourbar {
  double g, L1, L2, L3;
} fourbar;

static mbt_tree *fourbar_tree(const fourbar *f) {
  double z[3] = {0, 0, 1}, r2[3] = {f->L1, 0, 0}, r3[3] = {f->L2, 0, 0};
  mbt_tree *t = mbt_tree_new(3);
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, z, NULL, NULL);
  mbt_tree_joint(t, 2, 1, MB_JOINT_REVOLUTE, z, NULL, r2);
  mbt_tree_joint(t, 3, 2, MB_JOINT_REVOLUTE, z, NULL, r3);
  box_body(t, 1, 1.0, f->L1), box_body(t, 2, 1.5, f->L2), box_body(t, 3, 1.2, f->L3);
  t->model.gravity[1] = -9.81, t->model.gravity[2] = 0.0;
  mbt_tree_finish(t);
  return t;
}

/* The revolute loop; Rz rotates loop frame and target frame alike (another choice of the rows). */
static mb_loop fourbar_loop(const fourbar *f, double Rz) {
  mb_loop l;
  double z[3] = {0, 0, 1};
  memset(&l, 0, sizeof l);
  l.type = MB_LOOP_REVOLUTE, l.a = 3, l.b = 0;
  mbs_rot_axis(z, Rz, l.Ea), memcpy(l.Eb, l.Ea, sizeof l.Eb);
  l.ra[0] = f->L3, l.rb[0] = f->g, l.axis[2] = 1.0;
  return l;
}

/* The assembled configuration at crank angle th (circle intersection, the branch with the
 * coupler's tip on the left of B → D); 0, or -1 if it does not close. */
static int fourbar_q(const fourbar *f, double th, double *q) {
  double B[2] = {f->L1 * cos(th), f->L1 * sin(th)}, D[2] = {f->g, 0.0};
  double e = hypot(D[0] - B[0], D[1] - B[1]), u[2] = {(D[0] - B[0]) / e, (D[1] - B[1]) / e};
  double a = (f->L2 * f->L2 - f->L3 * f->L3 + e * e) / (2 * e), h2 = f->L2 * f->L2 - a * a;
  if (h2 < 0) return -1;
  double h = sqrt(h2), C[2] = {B[0] + a * u[0] - h * u[1], B[1] + a * u[1] + h * u[0]};
  double p2 = atan2(C[1] - B[1], C[0] - B[0]), p3 = atan2(D[1] - C[1], D[0] - C[0]);
  q[0] = th, q[1] = p2 - th, q[2] = p3 - p2;
  return 0;
}

/* ------------------------------------------------------------------------ generic checks */

/* K v and K̇v against central differences along q(t) = q ⊕ v t (mb_integrate): d/dt φ(q(t)) and
 * d/dt (K(q(t)) v), h = 1e-5 (truncation ~ h² |φ'''| ~ 1e-10, rounding ~ ε/h ~ 1e-11), relative
 * 1e-7 resp. 1e-6 to max_r Σ_k |K_rk v_k| resp. max(‖K̇v‖∞, that × ‖v‖∞), floored at 1e-2 (m/s,
 * m/s²: the models are of unit size; a loop whose bodies cannot move relative to each other has
 * K v = 0 and a difference quotient of rounding noise, ~1e-11). */
static void check_calculus(lsys *s, const double *q, const double *v) {
  const mb_model *m = s->m;
  int nc = s->L.nc, nv = m->nv;
  double K[MAXC * MAXV], Kp[MAXC * MAXV], Km[MAXC * MAXV], kb[MAXC], Kv[MAXC], fd[MAXC];
  double qp[MAXQ], qm[MAXQ], pp[MAXC], pm[MAXC], a[MAXC], b[MAXC], h = 1e-5;
  jac(s, q, K), bias(s, q, v, kb);
  double scale = kmul(K, nc, nv, v, Kv);
  assert_int_equal(mb_integrate(m, q, v, h, qp), MB_OK);
  assert_int_equal(mb_integrate(m, q, v, -h, qm), MB_OK);
  resid(s, qp, pp), resid(s, qm, pm);
  for (int r = 0; r < nc; r++) fd[r] = (pp[r] - pm[r]) / (2 * h);
  double e = mbt_max_diff(Kv, fd, (size_t)nc, &(size_t){0}) / fmax(scale, 1e-2);
  worst_Kv = fmax(worst_Kv, e);
  if (!(e <= 1e-7)) fail_msg("%s: K v vs dφ/dt: relative error %.3e", ctx, e);
  jac(s, qp, Kp), jac(s, qm, Km);
  kmul(Kp, nc, nv, v, a), kmul(Km, nc, nv, v, b);
  for (int r = 0; r < nc; r++) fd[r] = (a[r] - b[r]) / (2 * h);
  double bscale = fmax(maxabs(kb, nc), scale * maxabs(v, nv));
  e = mbt_max_diff(kb, fd, (size_t)nc, &(size_t){0}) / fmax(bscale, 1e-2);
  worst_Kdv = fmax(worst_Kdv, e);
  if (!(e <= 1e-6)) fail_msg("%s: K̇v vs d(K v)/dt: relative error %.3e", ctx, e);
}

/* mb_fd_loops at (q, v, τ): K q̈ + K̇v = 0 relative 1e-10 to max(‖K‖∞ ‖q̈‖∞, ‖K̇v‖∞), and
 * M q̈ + h − τ − Kᵀλ = 0 (mb_crba, mb_nle) relative 1e-10 to the size of its terms. */
static void check_fd(lsys *s, const double *q, const double *v, const double *tau, double *qdd) {
  const mb_model *m = s->m;
  int nc = s->L.nc, nv = m->nv;
  double K[MAXC * MAXV], kb[MAXC], lam[MAXC], Ka[MAXC], M[MAXV * MAXV], h[MAXV], r[MAXV];
  int rc = mb_fd_loops(m, &s->L, &s->ws, &s->lw, q, v, tau, qdd, lam);
  if (rc != MB_OK) fail_msg("%s: mb_fd_loops: %d (singular row %d)", ctx, rc, s->lw.singular);
  jac(s, q, K), bias(s, q, v, kb);
  double knorm = 0.0; /* ‖K‖∞ */
  for (int i = 0; i < nc; i++) {
    double a = 0.0;
    for (int k = 0; k < nv; k++) a += fabs(K[i * nv + k]);
    knorm = fmax(knorm, a);
  }
  kmul(K, nc, nv, qdd, Ka);
  double scale = fmax(knorm * maxabs(qdd, nv), maxabs(kb, nc));
  for (int k = 0; k < nc; k++) Ka[k] += kb[k];
  double e = maxabs(Ka, nc) / scale;
  worst_acc = fmax(worst_acc, e);
  if (!(e <= 1e-10)) fail_msg("%s: K q̈ + K̇v: relative %.3e", ctx, e);
  assert_int_equal(mb_crba(m, &s->ws, q, M), MB_OK);
  assert_int_equal(mb_nle(m, &s->ws, q, v, h), MB_OK);
  scale = fmax(maxabs(h, nv), maxabs(tau, nv));
  for (int i = 0; i < nv; i++) {
    double x = h[i] - tau[i], ax = 0.0;
    for (int j = 0; j < nv; j++) x += M[i * nv + j] * qdd[j], ax += fabs(M[i * nv + j] * qdd[j]);
    for (int c = 0; c < nc; c++) x -= K[c * nv + i] * lam[c], ax += fabs(K[c * nv + i] * lam[c]);
    r[i] = x, scale = fmax(scale, ax);
  }
  e = maxabs(r, nv) / scale;
  worst_eom = fmax(worst_eom, e);
  if (!(e <= 1e-10)) fail_msg("%s: M q̈ + h − τ − Kᵀλ: relative %.3e", ctx, e);
}

/* From an assembled q0: perturb, mb_project_q (max |φ| ≤ MB_PROJECT_TOL), random v, mb_project_v
 * (|K v| ≤ 1e-12 Σ|K||v|), random τ, check_fd. q, v: the projected state. */
static void check_assembled(lsys *s, mbt_rng *g, const double *q0, double perturb, double *q,
                            double *v, double *qdd) {
  const mb_model *m = s->m;
  int nc = s->L.nc, nv = m->nv;
  double dq[MAXV], phi[MAXC], K[MAXC * MAXV], Kv[MAXC], tau[MAXV];
  resid(s, q0, phi);
  double e = maxabs(phi, nc);
  worst_phi0 = fmax(worst_phi0, e);
  if (!(e <= 1e-13)) fail_msg("φ(q0) = %.3e: not assembled", e);
  mbt_rand_vec(g, nv, -perturb, perturb, dq);
  assert_int_equal(mb_integrate(m, q0, dq, 1.0, q), MB_OK);
  int rc = mb_project_q(m, &s->L, &s->ws, &s->lw, q);
  if (rc) fail_msg("%s: mb_project_q: %d", ctx, rc);
  resid(s, q, phi);
  e = maxabs(phi, nc);
  worst_projq = fmax(worst_projq, e);
  if (!(e <= MB_PROJECT_TOL)) fail_msg("%s: max |φ| after mb_project_q: %.3e", ctx, e);
  double vin[MAXV];
  mbt_rand_vec(g, nv, -1, 1, vin);
  memcpy(v, vin, sizeof *v * (size_t)nv);
  assert_int_equal(mb_project_v(m, &s->L, &s->ws, &s->lw, q, v), MB_OK);
  jac(s, q, K);
  double scale = kmul(K, nc, nv, vin, Kv);
  kmul(K, nc, nv, v, Kv);
  e = maxabs(Kv, nc) / fmax(scale, 1e-300);
  worst_projv = fmax(worst_projv, e);
  if (!(e <= 1e-12)) fail_msg("%s: |K v| after mb_project_v: relative %.3e", ctx, e);
  mbt_rand_vec(g, nv, -1, 1, tau);
  check_fd(s, q, v, tau, qdd);
}

/* ------------------------------------------------------------------------------------- tests */

/* φ(q0) = 0 for every loop type built to close at q0 (loop_close), and the calculus identities
 * (check_calculus) at random, unassembled states: every loop type, every row, on random trees
 * with every joint type (spherical and floating included), loops between two moving bodies and
 * to the world on either side. */
static void test_calculus_every_type(void **state) {
  (void)state;
  for (int t = 0; t < MB_LOOP_TYPE_COUNT; t++)
    for (uint64_t seed = 1; seed <= 6; seed++) {
      mbt_rng g;
      mbt_rng_seed(&g, 1000 * (uint64_t)t + seed);
      mbt_tree *tr = mbt_randtree(100 * (uint64_t)t + seed, 8, (int)(seed % 2));
      const mb_model *m = &tr->model;
      double q0[MAXQ], q[MAXQ], v[MAXV], phi[MAXC];
      int a = mbt_randint(&g, 1, m->nb), b = mbt_randint(&g, 0, m->nb - 1);
      if (b >= a) b++;
      if (seed == 3) b = a, a = 0; /* world on side a */
      mbt_rand_q(&g, m, q0);
      mb_loop l = loop_rand(&g, m, q0, (mb_loop_type)t, a, b);
      lsys *s = lsys_new(m, &l, 1, NULL, 0);
      snprintf(ctx, sizeof ctx, "calculus type %d seed %d a %d b %d", t, (int)seed, a, b);
      resid(s, q0, phi);
      double e = maxabs(phi, s->L.nc);
      worst_phi0 = fmax(worst_phi0, e);
      if (!(e <= 1e-13)) fail_msg("type %d seed %d: φ(q0) = %.3e", t, (int)seed, e);
      for (int trial = 0; trial < 3; trial++) {
        mbt_rand_q(&g, m, q), mbt_rand_vec(&g, m->nv, -1, 1, v);
        check_calculus(s, q, v);
      }
      lsys_free(s);
      mbt_tree_free(tr);
    }
}

/* Dynamics on random floating-base trees with one loop of each type to the world (the floating
 * joint makes every row set independent): projection and the equations of fd (check_assembled). */
static void test_dynamics_every_type(void **state) {
  (void)state;
  for (int t = 0; t < MB_LOOP_TYPE_COUNT; t++)
    for (uint64_t seed = 1; seed <= 3; seed++) {
      mbt_rng g;
      mbt_rng_seed(&g, 2000 * (uint64_t)t + seed);
      mbt_tree *tr = mbt_randtree(300 * (uint64_t)t + seed, 6, 1);
      const mb_model *m = &tr->model;
      double q0[MAXQ], q[MAXQ], v[MAXV], qdd[MAXV];
      int a = mbt_randint(&g, 2, m->nb), b = 0;
      if (seed == 2) b = a, a = 0;
      mbt_rand_q(&g, m, q0);
      mb_loop l = loop_rand(&g, m, q0, (mb_loop_type)t, a, b);
      lsys *s = lsys_new(m, &l, 1, NULL, 0);
      snprintf(ctx, sizeof ctx, "dynamics type %d seed %d a %d b %d", t, (int)seed, a, b);
      check_assembled(s, &g, q0, 0.02, q, v, qdd);
      check_calculus(s, q, v);
      lsys_free(s);
      mbt_tree_free(tr);
    }
}

/* Reference: a loop joint of type X between body 1 (loop frame = the tree joint frame XT_2) and a
 * floating body 2 (target frame = its body frame) is the tree joint X between them (Featherstone
 * 2008 §8.1), so the loop model's q̈ equals mb_aba's on the tree with joint X: the same q̈ for
 * joints 1 and 3, and the floating joint's v̇ = [lin; ang] equals S_X q̈_X. The tree's joint force
 * τ_X is applied through the floating joint as the wrench S (SᵀS)⁻¹ τ_X. */
static void test_loop_equals_tree_joint(void **state) {
  (void)state;
  static const struct {
    mb_joint_type j;
    mb_loop_type l;
  } pairs[] = {{MB_JOINT_REVOLUTE, MB_LOOP_REVOLUTE},   {MB_JOINT_CONTINUOUS, MB_LOOP_CONTINUOUS},
               {MB_JOINT_PRISMATIC, MB_LOOP_PRISMATIC}, {MB_JOINT_HELICAL, MB_LOOP_HELICAL},
               {MB_JOINT_SPHERICAL, MB_LOOP_SPHERICAL}, {MB_JOINT_SPHERICAL, MB_LOOP_S},
               {MB_JOINT_FIXED, MB_LOOP_FIXED}};
  for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++)
    for (uint64_t seed = 1; seed <= 4; seed++) {
      mbt_rng g;
      mbt_rng_seed(&g, 3000 + 10 * p + seed);
      mbt_tree *t1 = mbt_tree_new(3), *t2 = mbt_tree_new(3);
      double ax[3][3], E[3][9], r[3][3], com[3], Ic[6] = {0.05, 0.04, 0.06, 0.01, -0.005, 0.002};
      double pitch = pairs[p].j == MB_JOINT_HELICAL ? mbt_uniform(&g, -0.4, 0.4) : 0.0;
      for (int i = 0; i < 3; i++) {
        mbt_unit3(&g, ax[i]), mbt_rand_rot(&g, E[i]), mbt_rand_vec(&g, 3, -0.7, 0.7, r[i]);
        mbt_rand_vec(&g, 3, -0.3, 0.3, com);
        double mass = mbt_uniform(&g, 0.5, 2.0);
        mbt_tree_body(t1, i + 1, mass, com, Ic), mbt_tree_body(t2, i + 1, mass, com, Ic);
      }
      mbt_tree_joint(t1, 1, 0, MB_JOINT_REVOLUTE, ax[0], E[0], r[0]);
      mbt_tree_joint(t2, 1, 0, MB_JOINT_REVOLUTE, ax[0], E[0], r[0]);
      mbt_tree_joint(t1, 2, 1, pairs[p].j, pairs[p].j == MB_JOINT_FIXED ? NULL : ax[1], E[1], r[1]);
      mbt_tree_joint(t2, 2, 1, MB_JOINT_FLOATING, NULL, E[1], r[1]);
      mbt_tree_joint(t1, 3, 2, MB_JOINT_REVOLUTE, ax[2], E[2], r[2]);
      mbt_tree_joint(t2, 3, 2, MB_JOINT_REVOLUTE, ax[2], E[2], r[2]);
      t1->pitch[2] = pitch;
      mbt_tree_finish(t1), mbt_tree_finish(t2);
      const mb_model *m1 = &t1->model, *m2 = &t2->model;
      int nX = m1->nv - 2;
      /* the tree's state, mapped onto the floating joint: XJ = (E, r) the same transform */
      double q1[8], v1[6], tau1[6], a1[6], q2[10], v2[8], tau2[8], a2[8], S[18], sv[6], sa[6];
      mbt_rand_q(&g, m1, q1), mbt_rand_vec(&g, m1->nv, -1, 1, v1);
      mbt_rand_vec(&g, m1->nv, -1, 1, tau1);
      if (pairs[p].j == MB_JOINT_HELICAL) q1[1] = mbt_uniform(&g, -2.5, 2.5); /* |θ| < π */
      mb_workspace ws1;
      double *b1 = mbt_workspace_new(m1, &ws1);
      mb_joint_S(m1, 2, S);
      double Ej[9], rj[3];
      mb_jcalc(m1, 2, q1, Ej, rj); /* E: joint frame → child, r: child origin in joint frame */
      double Rq[9];
      rot_T(Ej, Rq);
      /* the quaternion of Rq (child → parent), Shepperd-free: Rq is a rotation about ax[1] or
       * the spherical joint's own quaternion */
      double quat[4] = {0, 0, 0, 1};
      if (pairs[p].j == MB_JOINT_SPHERICAL)
        memcpy(quat, q1 + 1, sizeof quat);
      else if (pairs[p].j != MB_JOINT_PRISMATIC && pairs[p].j != MB_JOINT_FIXED)
        for (int k = 0; k < 4; k++) quat[k] = k < 3 ? ax[1][k] * sin(q1[1] / 2) : cos(q1[1] / 2);
      q2[0] = q1[0];
      for (int k = 0; k < 3; k++) q2[1 + k] = rj[k];
      memcpy(q2 + 4, quat, sizeof quat);
      q2[8] = q1[m1->nq - 1];
      /* v: S_X q̇_X = [ω; v] → floating [lin; ang] */
      for (int k = 0; k < 6; k++) {
        sv[k] = 0.0;
        for (int c = 0; c < nX; c++) sv[k] += S[6 * c + k] * v1[1 + c];
      }
      v2[0] = v1[0], v2[7] = v1[m1->nv - 1];
      for (int k = 0; k < 3; k++) v2[1 + k] = sv[3 + k], v2[4 + k] = sv[k];
      /* τ: the wrench f = S (SᵀS)⁻¹ τ_X (S has orthonormal columns, or one column) as [force;
       * torque] */
      double f[6] = {0, 0, 0, 0, 0, 0}, ss = 0.0;
      for (int k = 0; k < 6 && nX == 1; k++) ss += S[k] * S[k];
      for (int c = 0; c < nX; c++)
        for (int k = 0; k < 6; k++) f[k] += S[6 * c + k] * tau1[1 + c] / (nX == 1 ? ss : 1.0);
      tau2[0] = tau1[0], tau2[7] = tau1[m1->nv - 1];
      for (int k = 0; k < 3; k++) tau2[1 + k] = f[3 + k], tau2[4 + k] = f[k];
      /* the loop: a = 1 with the joint frame XT_2, b = 2 with its body frame */
      mb_loop l;
      memset(&l, 0, sizeof l);
      l.type = pairs[p].l, l.a = 1, l.b = 2;
      memcpy(l.Ea, E[1], sizeof l.Ea), memcpy(l.ra, r[1], sizeof l.ra);
      memcpy(l.Eb, I3, sizeof l.Eb);
      memcpy(l.axis, t1->axis + 6, sizeof l.axis);
      l.pitch = pitch;
      if (pairs[p].l == MB_LOOP_SPHERICAL || pairs[p].l == MB_LOOP_S || pairs[p].l == MB_LOOP_FIXED)
        l.axis[0] = 1, l.axis[1] = l.axis[2] = 0;
      lsys *s = lsys_new(m2, &l, 1, NULL, 0);
      snprintf(ctx, sizeof ctx, "loop = tree joint: pair %d seed %d", (int)p, (int)seed);
      double phi[MAXC], K[MAXC * MAXV], Kv[MAXC];
      resid(s, q2, phi);
      if (!(maxabs(phi, s->L.nc) <= 1e-13))
        fail_msg("pair %d: φ = %.3e", (int)p, maxabs(phi, s->L.nc));
      jac(s, q2, K);
      double sc = kmul(K, s->L.nc, m2->nv, v2, Kv);
      if (!(maxabs(Kv, s->L.nc) <= 1e-13 * fmax(sc, 1.0)))
        fail_msg("pair %d: K v = %.3e", (int)p, maxabs(Kv, s->L.nc));
      assert_int_equal(mb_aba(m1, &ws1, q1, v1, tau1, NULL, a1), MB_OK);
      check_fd(s, q2, v2, tau2, a2);
      /* compare: joints 1, 3, and S_X q̈_X with the floating v̇ */
      for (int k = 0; k < 6; k++) {
        sa[k] = 0.0;
        for (int c = 0; c < nX; c++) sa[k] += S[6 * c + k] * a1[1 + c];
      }
      double want[8] = {a1[0], sa[3], sa[4], sa[5], sa[0], sa[1], sa[2], a1[m1->nv - 1]};
      double sc2 = fmax(maxabs(want, 8), 1.0);
      double e = mbt_max_diff(a2, want, 8, &(size_t){0}) / sc2;
      worst_tree = fmax(worst_tree, e);
      if (!(e <= 1e-10))
        fail_msg("pair %d seed %d: loop q̈ vs tree q̈: relative %.3e", (int)p, (int)seed, e);
      lsys_free(s);
      free(b1);
      mbt_tree_free(t1), mbt_tree_free(t2);
    }
}

/* Planar four-bar: rows x, y of the revolute loop (the other three are identically zero).
 * Assembled by fourbar_q; projections and fd (check_assembled). Reference for the row choice: q̈
 * depends on the constraint, not on its rows: the same with the loop frame turned by 0.7 rad
 * about z, with a spherical loop's x, y rows, and with the loop written from the world (a = 0,
 * b = 3). The redundant selection (all five rows) still projects q (μ regularizes). */
static void test_fourbar(void **state) {
  (void)state;
  fourbar f = {1.0, 0.4, 1.1, 0.8};
  mbt_tree *t = fourbar_tree(&f);
  const mb_model *m = &t->model;
  int xy[2] = {0, 1};
  mb_loop l0 = fourbar_loop(&f, 0.0), l1 = fourbar_loop(&f, 0.7), l2 = l0, l3 = l0;
  l2.type = MB_LOOP_SPHERICAL;
  l3.a = 0, l3.b = 3, memcpy(l3.ra, l0.rb, sizeof l3.ra), memcpy(l3.rb, l0.ra, sizeof l3.rb);
  lsys *s0 = lsys_new(m, &l0, 1, xy, 2), *s1 = lsys_new(m, &l1, 1, xy, 2);
  lsys *s2 = lsys_new(m, &l2, 1, xy, 2), *s3 = lsys_new(m, &l3, 1, xy, 2);
  lsys *sall = lsys_new(m, &l0, 1, NULL, 0);
  mbt_rng g;
  mbt_rng_seed(&g, 41);
  for (int trial = 0; trial < 12; trial++) {
    double q0[3], q[3], v[3], qdd[3], qdd2[3], tau[3], phi[5];
    assert_int_equal(fourbar_q(&f, mbt_uniform(&g, -MBT_PI, MBT_PI), q0), 0);
    check_assembled(s0, &g, q0, 0.05, q, v, qdd);
    check_calculus(s0, q, v);
    mbt_rand_vec(&g, 3, -1, 1, tau);
    check_fd(s0, q, v, tau, qdd);
    lsys *alt[3] = {s1, s2, s3};
    for (int k = 0; k < 3; k++) {
      check_fd(alt[k], q, v, tau, qdd2);
      double e = mbt_max_diff(qdd2, qdd, 3, &(size_t){0}) / fmax(maxabs(qdd, 3), 1.0);
      worst_rows = fmax(worst_rows, e);
      if (!(e <= 1e-10)) fail_msg("four-bar, row choice %d: q̈ differs by %.3e", k, e);
    }
    /* all five rows: Φ is singular, but the projection is regularized */
    double dq[3];
    mbt_rand_vec(&g, 3, -0.05, 0.05, dq);
    for (int k = 0; k < 3; k++) q[k] += dq[k];
    assert_int_equal(mb_project_q(m, &sall->L, &sall->ws, &sall->lw, q), MB_OK);
    resid(sall, q, phi);
    assert_true(maxabs(phi, 5) <= MB_PROJECT_TOL);
  }
  lsys_free(s0), lsys_free(s1), lsys_free(s2), lsys_free(s3), lsys_free(sall);
  mbt_tree_free(t);
}

/* Slider-crank, crank r = 0.3, rod l = 1, in the xy plane, gravity −9.81 y. A: crank, rod and a
 * piston hinged to the rod (revolute tree joints about z), the piston held on the x axis by a
 * prismatic loop along x to the world (rows tilt1 and slide1; tilt2, twist and slide2 are
 * identically zero). B: crank and rod, a tree slider (prismatic along x from the world), closed
 * by a revolute loop between the rod's tip and the slider (rows x, y). The piston (mass 0.8, COM
 * at its pin) is the slider. Reference: the same mechanism, so the same crank and rod
 * accelerations. */
static void test_slider_crank(void **state) {
  (void)state;
  double z[3] = {0, 0, 1}, x[3] = {1, 0, 0}, rc = 0.3, rl = 1.0, r2[3] = {rc, 0, 0},
         r3[3] = {rl, 0, 0};
  double zero[3] = {0, 0, 0}, Ip[6] = {0.01, 0.01, 0.02, 0, 0, 0};
  mbt_tree *ta = mbt_tree_new(3), *tb = mbt_tree_new(3);
  mbt_tree_joint(ta, 1, 0, MB_JOINT_REVOLUTE, z, NULL, NULL);
  mbt_tree_joint(ta, 2, 1, MB_JOINT_REVOLUTE, z, NULL, r2);
  mbt_tree_joint(ta, 3, 2, MB_JOINT_REVOLUTE, z, NULL, r3);
  mbt_tree_joint(tb, 1, 0, MB_JOINT_REVOLUTE, z, NULL, NULL);
  mbt_tree_joint(tb, 2, 1, MB_JOINT_REVOLUTE, z, NULL, r2);
  mbt_tree_joint(tb, 3, 0, MB_JOINT_PRISMATIC, x, NULL, NULL);
  box_body(ta, 1, 1.0, rc), box_body(ta, 2, 1.5, rl), mbt_tree_body(ta, 3, 0.8, zero, Ip);
  box_body(tb, 1, 1.0, rc), box_body(tb, 2, 1.5, rl), mbt_tree_body(tb, 3, 0.8, zero, Ip);
  ta->model.gravity[1] = tb->model.gravity[1] = -9.81;
  ta->model.gravity[2] = tb->model.gravity[2] = 0.0;
  mbt_tree_finish(ta), mbt_tree_finish(tb);
  mb_loop la, lb;
  memset(&la, 0, sizeof la), memset(&lb, 0, sizeof lb);
  la.type = MB_LOOP_PRISMATIC, la.a = 3, la.b = 0, la.axis[0] = 1;
  memcpy(la.Ea, I3, sizeof la.Ea), memcpy(la.Eb, I3, sizeof la.Eb);
  lb.type = MB_LOOP_REVOLUTE, lb.a = 2, lb.b = 3, lb.axis[2] = 1, lb.ra[0] = rl;
  memcpy(lb.Ea, I3, sizeof lb.Ea), memcpy(lb.Eb, I3, sizeof lb.Eb);
  int rowsa[2] = {0, 3}, rowsb[2] = {0, 1};
  lsys *sa = lsys_new(&ta->model, &la, 1, rowsa, 2), *sb = lsys_new(&tb->model, &lb, 1, rowsb, 2);
  mbt_rng g;
  mbt_rng_seed(&g, 51);
  for (int trial = 0; trial < 12; trial++) {
    double th = mbt_uniform(&g, -MBT_PI, MBT_PI),
           xp = rc * cos(th) + sqrt(rl * rl - pow(rc * sin(th), 2));
    double ph = atan2(-rc * sin(th), xp - rc * cos(th));
    double q0a[3] = {th, ph - th, -ph}, q0b[3] = {th, ph - th, xp};
    double qa[3], va[3], qdda[3], qb[3], vb[3], qddb[3], tau[3], K[2 * 3];
    check_assembled(sa, &g, q0a, 0.05, qa, va, qdda);
    check_calculus(sa, qa, va);
    /* B at A's state: the slider where the piston is, its speed from K_B v_B = 0 (row x) */
    double phi[2];
    resid(sb, q0b, phi);
    assert_true(maxabs(phi, 2) <= 1e-14);
    xp = rc * cos(qa[0]) + rl * cos(qa[0] + qa[1]);
    qb[0] = qa[0], qb[1] = qa[1], qb[2] = xp, vb[0] = va[0], vb[1] = va[1], vb[2] = 0.0;
    jac(sb, qb, K);
    vb[2] = -(K[0] * vb[0] + K[1] * vb[1]) / K[2];
    mbt_rand_vec(&g, 3, -1, 1, tau);
    tau[2] = 0.0; /* A's piston hinge and B's slider are not driven */
    check_fd(sa, qa, va, tau, qdda);
    check_fd(sb, qb, vb, tau, qddb);
    double e = fmax(fabs(qdda[0] - qddb[0]), fabs(qdda[1] - qddb[1])) / fmax(maxabs(qdda, 2), 1.0);
    worst_slider = fmax(worst_slider, e);
    if (!(e <= 1e-10)) fail_msg("slider-crank A vs B: relative %.3e", e);
  }
  lsys_free(sa), lsys_free(sb);
  mbt_tree_free(ta), mbt_tree_free(tb);
}

/* A spatial chain of six scalar joints closed by a spherical loop to the world, and the same
 * with an s loop and an ss loop; assembled at a random q0 by loop_close. check_assembled and
 * check_calculus. */
static void test_spatial_loops(void **state) {
  (void)state;
  static const mb_loop_type types[] = {MB_LOOP_SPHERICAL, MB_LOOP_S, MB_LOOP_SS, MB_LOOP_FIXED};
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
    for (uint64_t seed = 1; seed <= 4; seed++) {
      mbt_rng g;
      mbt_rng_seed(&g, 60 + 10 * k + seed);
      mbt_tree *t = chain_new(&g, 7, 0);
      const mb_model *m = &t->model;
      double q0[7], q[7], v[7], qdd[7];
      mbt_rand_q(&g, m, q0);
      mb_loop l = loop_rand(&g, m, q0, types[k], 7, seed % 2 ? 0 : 1);
      lsys *s = lsys_new(m, &l, 1, NULL, 0);
      snprintf(ctx, sizeof ctx, "spatial type %d seed %d", (int)types[k], (int)seed);
      check_assembled(s, &g, q0, 0.05, q, v, qdd);
      check_calculus(s, q, v);
      lsys_free(s);
      mbt_tree_free(t);
    }
}

/* Two coupled loops sharing bodies: a planar six-bar (Stephenson): the four-bar crank 1, coupler
 * 2, rocker 3 closed to the world, and a dyad 4, 5 hinged on the coupler closed to the rocker;
 * rows x, y of each (0, 1, 6, 7). And a spatial chain with two loops of random types between
 * moving bodies. Assembled at q0 by loop_close. */
static void test_coupled_loops(void **state) {
  (void)state;
  double z[3] = {0, 0, 1}, r2[3] = {0.4, 0, 0}, r3[3] = {1.1, 0, 0}, r4[3] = {0.5, 0.3, 0};
  double r5[3] = {0.9, 0, 0};
  mbt_tree *t = mbt_tree_new(5);
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, z, NULL, NULL);
  mbt_tree_joint(t, 2, 1, MB_JOINT_REVOLUTE, z, NULL, r2);
  mbt_tree_joint(t, 3, 2, MB_JOINT_REVOLUTE, z, NULL, r3);
  mbt_tree_joint(t, 4, 2, MB_JOINT_REVOLUTE, z, NULL, r4);
  mbt_tree_joint(t, 5, 4, MB_JOINT_REVOLUTE, z, NULL, r5);
  box_body(t, 1, 1.0, 0.4), box_body(t, 2, 1.5, 1.1), box_body(t, 3, 1.2, 0.8);
  box_body(t, 4, 0.9, 0.9), box_body(t, 5, 0.7, 0.7);
  t->model.gravity[1] = -9.81, t->model.gravity[2] = 0.0;
  mbt_tree_finish(t);
  const mb_model *m = &t->model;
  double q0[5] = {0.3, -0.2, 1.9, -0.8, 1.2}, q[5], v[5], qdd[5];
  mb_loop l[2];
  memset(l, 0, sizeof l);
  l[0].type = l[1].type = MB_LOOP_REVOLUTE;
  l[0].a = 3, l[0].b = 0, l[0].ra[0] = 0.8, l[1].a = 5, l[1].b = 3, l[1].ra[0] = 0.7;
  for (int k = 0; k < 2; k++) {
    memcpy(l[k].Ea, I3, sizeof l[k].Ea), l[k].axis[2] = 1;
    loop_close(m, q0, &l[k], I3, (double[3]){0, 0, 0});
  }
  int rows[4] = {0, 1, 6, 7};
  lsys *s = lsys_new(m, l, 2, rows, 4);
  mbt_rng g;
  mbt_rng_seed(&g, 71);
  for (int trial = 0; trial < 5; trial++) {
    check_assembled(s, &g, q0, 0.03, q, v, qdd);
    check_calculus(s, q, v);
  }
  lsys_free(s);
  mbt_tree_free(t);
  /* spatial: a 9-joint chain, loops 8 → 3 and 9 → 0 of random types (each path has enough dofs) */
  static const mb_loop_type pair[][2] = {{MB_LOOP_REVOLUTE, MB_LOOP_SPHERICAL},
                                         {MB_LOOP_HELICAL, MB_LOOP_SS},
                                         {MB_LOOP_PRISMATIC, MB_LOOP_D1},
                                         {MB_LOOP_FIXED, MB_LOOP_D2}};
  for (size_t k = 0; k < sizeof pair / sizeof pair[0]; k++) {
    mbt_rng_seed(&g, 80 + k);
    mbt_tree *tc = chain_new(&g, 14, 0);
    const mb_model *mc = &tc->model;
    double Q0[14], Q[14], V[14], A[14];
    mbt_rand_q(&g, mc, Q0);
    mb_loop lc[2] = {loop_rand(&g, mc, Q0, pair[k][0], 10, 2),
                     loop_rand(&g, mc, Q0, pair[k][1], 14, 6)};
    lsys *sc = lsys_new(mc, lc, 2, NULL, 0);
    check_assembled(sc, &g, Q0, 0.02, Q, V, A);
    check_calculus(sc, Q, V);
    lsys_free(sc);
    mbt_tree_free(tc);
  }
}

/* T + V: T = ½ vᵀ M v (mb_crba), V = −Σ gᵀ (m p + R h) (mb_fk), as in test_energy.c. */
static double energy(lsys *s, const double *q, const double *v) {
  const mb_model *m = s->m;
  int n = m->nv;
  double T = 0.0, V = 0.0, Rh[3], M[MAXV * MAXV], pose[12 * MAXB];
  assert_int_equal(mb_crba(m, &s->ws, q, M), MB_OK);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) T += 0.5 * v[i] * M[i * n + j] * v[j];
  assert_int_equal(mb_fk(m, &s->ws, q, pose), MB_OK);
  for (int i = 1; i <= m->nb; i++) {
    const double *I = m->inertia + 10 * i, *R = pose + 12 * i, *p = R + 9;
    mbs_mat3_mv(R, I + 1, Rh);
    for (int k = 0; k < 3; k++) V -= m->gravity[k] * (I[0] * p[k] + Rh[k]);
  }
  return T + V;
}

/* One RK4 step of q̇ = v, v̇ = fd_loops(q, v, 0) (stages on the manifold as in test_energy.c; the
 * joints here are scalar), then mb_project_q and mb_project_v. */
static void rk4_step(lsys *s, double *q, double *v, double h) {
  static const double c[4] = {0, 0.5, 0.5, 1}, b[4] = {1. / 6, 2. / 6, 2. / 6, 1. / 6};
  const mb_model *m = s->m;
  int nv = m->nv;
  double Kq[4 * MAXV], Kv[4 * MAXV], dq[MAXV], vs[MAXV], qs[MAXQ], tau[MAXV] = {0};
  for (int st = 0; st < 4; st++) {
    for (int j = 0; j < nv; j++) {
      dq[j] = st ? c[st] * h * Kq[(st - 1) * nv + j] : 0.0;
      vs[j] = v[j] + (st ? c[st] * h * Kv[(st - 1) * nv + j] : 0.0);
    }
    mb_integrate(m, q, dq, 1.0, qs);
    int rc = mb_fd_loops(m, &s->L, &s->ws, &s->lw, qs, vs, tau, Kv + st * nv, NULL);
    if (rc) fail_msg("mb_fd_loops in RK4: %d", rc);
    memcpy(Kq + st * nv, vs, sizeof *vs * (size_t)nv);
  }
  for (int j = 0; j < nv; j++) {
    dq[j] = 0.0;
    for (int st = 0; st < 4; st++)
      dq[j] += h * b[st] * Kq[st * nv + j], v[j] += h * b[st] * Kv[st * nv + j];
  }
  mb_integrate(m, q, dq, 1.0, q);
  assert_int_equal(mb_project_q(m, &s->L, &s->ws, &s->lw, q), MB_OK);
  assert_int_equal(mb_project_v(m, &s->L, &s->ws, &s->lw, q, v), MB_OK);
}

/* Reference: energy conservation. τ = 0, no damping, gravity on: T + V after 1 s of RK4 (h = 1 ms,
 * projected after every step) equals its initial value to 1e-8 of the energy scale T0 + Σ m |g| ℓ
 * (ℓ = 1 m). A four-bar (crank-rocker, full turns) and a spatial chain of five revolute joints
 * closed by a spherical loop. */
static void run_energy(lsys *s, double *q, double *v) {
  const mb_model *m = s->m;
  double E0 = energy(s, q, v), T0 = E0, V0 = energy(s, q, (double[MAXV]){0}), mg = 0.0, dE = 0.0;
  T0 -= V0;
  for (int i = 1; i <= m->nb; i++) mg += m->inertia[10 * i] * 9.81;
  for (int n = 0; n < 1000; n++) {
    rk4_step(s, q, v, 1e-3);
    if (n % 50 == 49) dE = fmax(dE, fabs(energy(s, q, v) - E0));
  }
  double e = dE / (T0 + mg);
  worst_energy = fmax(worst_energy, e);
  if (!(e <= 1e-8)) fail_msg("energy drift %.3e relative", e);
}

static void test_energy(void **state) {
  (void)state;
  fourbar f = {1.0, 0.4, 1.1, 0.8};
  mbt_tree *t = fourbar_tree(&f);
  mb_loop l = fourbar_loop(&f, 0.0);
  int xy[2] = {0, 1};
  lsys *s = lsys_new(&t->model, &l, 1, xy, 2);
  double q[3], v[3] = {6.0, 0.0, 0.0};
  assert_int_equal(fourbar_q(&f, 0.4, q), 0);
  assert_int_equal(mb_project_v(s->m, &s->L, &s->ws, &s->lw, q, v), MB_OK);
  run_energy(s, q, v);
  lsys_free(s);
  mbt_tree_free(t);
  /* spatial */
  mbt_rng g;
  mbt_rng_seed(&g, 91);
  t = chain_new(&g, 5, 1);
  double Q[5], V[5];
  mbt_rand_q(&g, &t->model, Q);
  l = loop_rand(&g, &t->model, Q, MB_LOOP_SPHERICAL, 5, 0);
  s = lsys_new(&t->model, &l, 1, NULL, 0);
  mbt_rand_vec(&g, 5, -1, 1, V);
  assert_int_equal(mb_project_v(s->m, &s->L, &s->ws, &s->lw, Q, V), MB_OK);
  run_energy(s, Q, V);
  lsys_free(s);
  mbt_tree_free(t);
}

/* The contract (mb.h): MB_ENUMERIC at a singular configuration (a parallelogram four-bar with
 * every pivot on the x axis: K's x row vanishes) and with redundant rows kept (Φ singular), never
 * MB_OK with a non-finite output near it; mb_project_q on a loop that cannot close (the bars
 * reach 2.3 < 3) → MB_ENUMERIC with q unchanged; mb_project_v with redundant rows → MB_ENUMERIC
 * with v unchanged. */
static void test_singular(void **state) {
  (void)state;
  fourbar f = {1.0, 0.5, 1.0, 0.5};
  mbt_tree *t = fourbar_tree(&f);
  const mb_model *m = &t->model;
  mb_loop l = fourbar_loop(&f, 0.0);
  int xy[2] = {0, 1};
  lsys *s = lsys_new(m, &l, 1, xy, 2), *sall = lsys_new(m, &l, 1, NULL, 0);
  double q[3] = {0, 0, MBT_PI}, v[3] = {1, 0, 0}, tau[3] = {0.1, 0.2, 0.3}, qdd[3], lam[5], phi[5];
  resid(s, q, phi);
  assert_true(maxabs(phi, 2) <= 1e-15);
  assert_int_equal(mb_fd_loops(m, &s->L, &s->ws, &s->lw, q, v, tau, qdd, lam), MB_ENUMERIC);
  assert_true(s->lw.singular >= 1);
  /* near it: OK only with finite outputs */
  for (int k = -20; k <= 20; k++) {
    double th = k * 1e-9, qq[3];
    if (fourbar_q(&f, th, qq)) continue;
    int rc = mb_fd_loops(m, &s->L, &s->ws, &s->lw, qq, v, tau, qdd, lam);
    if (rc == MB_OK)
      assert_true(mbs_finite(qdd, 3) && mbs_finite(lam, 2));
    else
      assert_int_equal(rc, MB_ENUMERIC);
  }
  /* redundant rows, at a regular pose */
  fourbar f2 = {1.0, 0.4, 1.1, 0.8};
  mbt_tree *t2 = fourbar_tree(&f2);
  mb_loop l2 = fourbar_loop(&f2, 0.0);
  lsys *s2 = lsys_new(&t2->model, &l2, 1, NULL, 0);
  assert_int_equal(fourbar_q(&f2, 1.0, q), 0);
  assert_int_equal(mb_fd_loops(&t2->model, &s2->L, &s2->ws, &s2->lw, q, v, tau, qdd, lam),
                   MB_ENUMERIC);
  assert_int_equal(s2->lw.singular, 3); /* row z: 1 + 2 */
  double v0[3] = {1, 2, 3}, vc[3] = {1, 2, 3};
  assert_int_equal(mb_project_v(&t2->model, &s2->L, &s2->ws, &s2->lw, q, vc), MB_ENUMERIC);
  assert_memory_equal(vc, v0, sizeof vc);
  /* a loop that cannot close */
  fourbar f3 = {3.0, 0.4, 1.1, 0.8};
  mbt_tree *t3 = fourbar_tree(&f3);
  mb_loop l3 = fourbar_loop(&f3, 0.0);
  lsys *s3 = lsys_new(&t3->model, &l3, 1, xy, 2);
  double q3[3] = {0.2, 0.3, -0.4}, q3c[3] = {0.2, 0.3, -0.4};
  assert_int_equal(mb_project_q(&t3->model, &s3->L, &s3->ws, &s3->lw, q3), MB_ENUMERIC);
  assert_memory_equal(q3, q3c, sizeof q3);
  (void)sall;
  lsys_free(s), lsys_free(sall), lsys_free(s2), lsys_free(s3);
  mbt_tree_free(t), mbt_tree_free(t2), mbt_tree_free(t3);
}

/* A redundant row that vanishes only to rounding: the four-bar in a tilted plane (body 1's XT a
 * random rotation), closed by a spherical loop with rows x, y, z. The z row (along the plane's
 * normal) is identically zero, but its K row is rounding noise (~1e-17), not exact zeros, so Φ's
 * pivot for it is noise² and is not small against Φ_zz (noise² itself). Reference (mb.h): Φ is
 * singular to working precision → MB_ENUMERIC (never MB_OK with λ_z ~ 1e17 and a q̈ of noise),
 * and mb_project_v → MB_ENUMERIC with v unchanged; with rows x, y: MB_OK. */
static void test_noise_rows(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 121);
  for (int trial = 0; trial < 8; trial++) {
    fourbar f = {1.0, 0.4, 1.1, 0.8};
    mbt_tree *t = fourbar_tree(&f);
    mbt_rand_rot(&g, t->XT_E + 9);
    const mb_model *m = &t->model;
    double q[3], v[3], vc[3], tau[3], qdd[3], lam[3];
    assert_int_equal(fourbar_q(&f, mbt_uniform(&g, -MBT_PI, MBT_PI), q), 0);
    mb_loop l;
    memset(&l, 0, sizeof l);
    l.type = MB_LOOP_SPHERICAL, l.a = 3, l.b = 0, l.ra[0] = f.L3;
    memcpy(l.Ea, I3, sizeof l.Ea), l.axis[0] = 1;
    loop_close(m, q, &l, I3, (double[3]){0, 0, 0});
    int xy[2] = {0, 1};
    lsys *s2 = lsys_new(m, &l, 1, xy, 2), *s3 = lsys_new(m, &l, 1, NULL, 0);
    mbt_rand_vec(&g, 3, -1, 1, v), mbt_rand_vec(&g, 3, -1, 1, tau);
    assert_int_equal(mb_project_v(m, &s2->L, &s2->ws, &s2->lw, q, v), MB_OK);
    check_fd(s2, q, v, tau, qdd);
    int rc = mb_fd_loops(m, &s3->L, &s3->ws, &s3->lw, q, v, tau, qdd, lam);
    if (rc != MB_ENUMERIC)
      fail_msg("trial %d: rows x y z: mb_fd_loops %d, λ = %g %g %g", trial, rc, lam[0], lam[1],
               lam[2]);
    assert_int_equal(s3->lw.singular, 3);
    memcpy(vc, v, sizeof vc);
    assert_int_equal(mb_project_v(m, &s3->L, &s3->ws, &s3->lw, q, vc), MB_ENUMERIC);
    assert_memory_equal(vc, v, sizeof vc);
    lsys_free(s2), lsys_free(s3);
    mbt_tree_free(t);
  }
}

/* MB_EINVAL for every NULL argument, MB_EWORKSPACE for a workspace of another model or other
 * loops or never laid out; nothing written then. */
static void test_errors(void **state) {
  (void)state;
  fourbar f = {1.0, 0.4, 1.1, 0.8};
  mbt_tree *t = fourbar_tree(&f), *t2 = fourbar_tree(&f);
  const mb_model *m = &t->model;
  mb_loop l = fourbar_loop(&f, 0.0);
  int xy[2] = {0, 1};
  lsys *s = lsys_new(m, &l, 1, xy, 2), *o = lsys_new(&t2->model, &l, 1, xy, 2);
  lsys *o2 = lsys_new(m, &l, 1, xy, 2); /* same model, other mb_loops */
  mb_workspace *ws = &s->ws;
  mb_loop_workspace *lw = &s->lw, zero;
  memset(&zero, 0, sizeof zero);
  const mb_loops *L = &s->L;
  double q[3], v[3] = {1, 0, 0}, tau[3] = {0}, out[3 * 5], lam[2];
  assert_int_equal(fourbar_q(&f, 0.5, q), 0);
  /* NULL */
  assert_int_equal(mb_loop_residual(NULL, L, ws, lw, q, out), MB_EINVAL);
  assert_int_equal(mb_loop_residual(m, NULL, ws, lw, q, out), MB_EINVAL);
  assert_int_equal(mb_loop_residual(m, L, NULL, lw, q, out), MB_EINVAL);
  assert_int_equal(mb_loop_residual(m, L, ws, NULL, q, out), MB_EINVAL);
  assert_int_equal(mb_loop_residual(m, L, ws, lw, NULL, out), MB_EINVAL);
  assert_int_equal(mb_loop_residual(m, L, ws, lw, q, NULL), MB_EINVAL);
  assert_int_equal(mb_loop_jacobian(m, L, ws, lw, NULL, out), MB_EINVAL);
  assert_int_equal(mb_loop_jacobian(m, L, ws, lw, q, NULL), MB_EINVAL);
  assert_int_equal(mb_loop_jacobian(m, NULL, ws, lw, q, out), MB_EINVAL);
  assert_int_equal(mb_loop_bias(m, L, ws, lw, NULL, v, out), MB_EINVAL);
  assert_int_equal(mb_loop_bias(m, L, ws, lw, q, NULL, out), MB_EINVAL);
  assert_int_equal(mb_loop_bias(m, L, ws, lw, q, v, NULL), MB_EINVAL);
  assert_int_equal(mb_loop_bias(m, L, ws, NULL, q, v, out), MB_EINVAL);
  assert_int_equal(mb_fd_loops(m, L, ws, lw, NULL, v, tau, out, lam), MB_EINVAL);
  assert_int_equal(mb_fd_loops(m, L, ws, lw, q, NULL, tau, out, lam), MB_EINVAL);
  assert_int_equal(mb_fd_loops(m, L, ws, lw, q, v, NULL, out, lam), MB_EINVAL);
  assert_int_equal(mb_fd_loops(m, L, ws, lw, q, v, tau, NULL, lam), MB_EINVAL);
  assert_int_equal(mb_fd_loops(m, L, ws, lw, q, v, tau, out, NULL), MB_OK); /* lambda optional */
  assert_int_equal(mb_fd_loops(NULL, L, ws, lw, q, v, tau, out, lam), MB_EINVAL);
  assert_int_equal(mb_project_q(m, L, ws, lw, NULL), MB_EINVAL);
  assert_int_equal(mb_project_q(m, NULL, ws, lw, q), MB_EINVAL);
  assert_int_equal(mb_project_v(m, L, ws, lw, NULL, v), MB_EINVAL);
  assert_int_equal(mb_project_v(m, L, ws, lw, q, NULL), MB_EINVAL);
  assert_int_equal(mb_project_v(m, L, ws, NULL, q, v), MB_EINVAL);
  assert_int_equal(mb_loop_workspace_init(NULL, m, L, s->lbuf), MB_EINVAL);
  assert_int_equal(mb_loop_workspace_init(lw, m, L, NULL), MB_EINVAL);
  assert_int_equal(mb_loop_workspace_size(NULL, L), 0);
  assert_int_equal(mb_loop_workspace_size(m, NULL), 0);
  mb_loops Lbad = {1, &l, -1, xy}; /* nc < 0: no size, and no layout (not a memset of SIZE_MAX) */
  assert_true(mb_loop_workspace_size(m, &Lbad) == SIZE_MAX);
  mb_loop_workspace lwbad;
  assert_int_equal(mb_loop_workspace_init(&lwbad, m, &Lbad, s->lbuf), MB_EINVAL);
  /* foreign workspaces: nothing is written to the outputs */
  double sentinel[15];
  for (int k = 0; k < 15; k++) sentinel[k] = out[k] = 12345.0;
  assert_int_equal(mb_loop_residual(m, L, &o->ws, lw, q, out), MB_EWORKSPACE);
  assert_int_equal(mb_loop_residual(m, L, ws, &o->lw, q, out), MB_EWORKSPACE);
  assert_int_equal(mb_loop_residual(m, L, ws, &o2->lw, q, out), MB_EWORKSPACE);
  assert_int_equal(mb_loop_residual(m, L, ws, &zero, q, out), MB_EWORKSPACE);
  assert_int_equal(mb_loop_jacobian(m, L, ws, &o->lw, q, out), MB_EWORKSPACE);
  assert_int_equal(mb_loop_bias(m, L, &o->ws, lw, q, v, out), MB_EWORKSPACE);
  assert_int_equal(mb_fd_loops(m, L, ws, &o2->lw, q, v, tau, out, lam), MB_EWORKSPACE);
  assert_memory_equal(out, sentinel, sizeof sentinel);
  double qc[3];
  memcpy(qc, q, sizeof qc);
  qc[0] += 0.1;
  memcpy(sentinel, qc, sizeof qc);
  assert_int_equal(mb_project_q(m, L, ws, &o->lw, qc), MB_EWORKSPACE);
  assert_int_equal(mb_project_v(m, L, &o->ws, lw, q, v), MB_EWORKSPACE);
  assert_memory_equal(qc, sentinel, sizeof qc);
  /* NaN state: MB_ENUMERIC, never MB_OK */
  double qn[3] = {NAN, 0, 0};
  assert_int_equal(mb_loop_residual(m, L, ws, lw, qn, out), MB_ENUMERIC);
  assert_int_equal(mb_fd_loops(m, L, ws, lw, qn, v, tau, out, lam), MB_ENUMERIC);
  assert_int_equal(mb_project_q(m, L, ws, lw, qn), MB_ENUMERIC);
  lsys_free(s), lsys_free(o), lsys_free(o2);
  mbt_tree_free(t), mbt_tree_free(t2);
}

/* mb_loops_check: a valid set passes; each defect is rejected with a reason. */
static void test_loops_check(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 111);
  mbt_tree *t = mbt_randtree(7, 5, 0);
  const mb_model *m = &t->model;
  double q[MAXQ];
  mbt_rand_q(&g, m, q);
  mb_loop good[2] = {loop_rand(&g, m, q, MB_LOOP_D1, 3, 1), loop_rand(&g, m, q, MB_LOOP_SS, 5, 0)};
  int rows[2] = {0, 6};
  mb_loops L = {2, good, 2, rows};
  char msg[160];
  assert_int_equal(mb_loops_check(m, &L, msg, sizeof msg), 0);
  mb_loop bad[2];
  int br[3];
  mb_loops B = {2, bad, 2, br};
#define REJECT(...)                                                                                \
  do {                                                                                             \
    memcpy(bad, good, sizeof bad), memcpy(br, rows, sizeof rows);                                  \
    B = (mb_loops){2, bad, 2, br};                                                                 \
    __VA_ARGS__;                                                                                   \
    msg[0] = 0;                                                                                    \
    assert_int_equal(mb_loops_check(m, &B, msg, sizeof msg), -1);                                  \
    assert_true(msg[0] != 0);                                                                      \
  } while (0)
  REJECT(bad[0].b = bad[0].a);                                           /* a == b */
  REJECT(bad[1].a = 0, bad[1].b = 0);                                    /* a == b == world */
  REJECT(bad[0].a = m->nb + 1);                                          /* out of range */
  REJECT(bad[0].b = -1);                                                 /* out of range */
  REJECT(bad[0].axis[0] = 1, bad[0].axis[1] = 0.01, bad[0].axis[2] = 0); /* non-unit axis */
  REJECT(bad[0].axis2[0] = 0.9, bad[0].axis2[1] = bad[0].axis2[2] = 0);  /* non-unit axis2 */
  REJECT(bad[1].distance = 0.0);                                         /* ss distance ≤ 0 */
  REJECT(bad[1].distance = -0.5);                                        /* ss distance ≤ 0 */
  REJECT(bad[1].distance = NAN); /* ss distance not finite */
  REJECT(br[0] = 6, br[1] = 0);  /* rows not ascending */
  REJECT(br[1] = br[0]);         /* repeated row */
  REJECT(br[1] = 7);             /* ss has one row */
  REJECT(br[1] = 12);            /* loop 2 does not exist */
  REJECT(br[0] = -1);            /* negative row */
  REJECT(bad[0].Ea[0] = -bad[0].Ea[0], bad[0].Ea[1] = -bad[0].Ea[1],
         bad[0].Ea[2] = -bad[0].Ea[2]);     /* det −1 */
  REJECT(bad[1].Eb[4] += 1e-3);             /* not orthonormal */
  REJECT(bad[0].type = MB_LOOP_TYPE_COUNT); /* bad type */
  REJECT(B.nloops = -1);
  REJECT(B.row = NULL);
  /* a helical loop with a non-finite pitch */
  mb_loop h = loop_rand(&g, m, q, MB_LOOP_HELICAL, 2, 0);
  int hr[1] = {4};
  mb_loops H = {1, &h, 1, hr};
  assert_int_equal(mb_loops_check(m, &H, msg, sizeof msg), 0);
  h.pitch = INFINITY;
  assert_int_equal(mb_loops_check(m, &H, msg, sizeof msg), -1);
  /* catalogue */
  static const int nrows[MB_LOOP_TYPE_COUNT] = {5, 5, 5, 5, 3, 6, 1, 1, 3, 1};
  for (int k = 0; k < MB_LOOP_TYPE_COUNT; k++) {
    assert_int_equal(mb_loop_nrows((mb_loop_type)k), nrows[k]);
    assert_non_null(mb_loop_row_name((mb_loop_type)k, nrows[k] - 1));
    assert_null(mb_loop_row_name((mb_loop_type)k, nrows[k]));
    assert_null(mb_loop_row_name((mb_loop_type)k, -1));
  }
  assert_int_equal(mb_loop_nrows(MB_LOOP_TYPE_COUNT), 0);
  assert_string_equal(mb_loop_row_name(MB_LOOP_HELICAL, 4), "screw");
  mbt_tree_free(t);
}

static void test_report(void **state) {
  (void)state;
  print_message("worst: phi(q0) %.2e | Kv %.2e | Kdot v %.2e | proj q %.2e | proj v %.2e | "
                "K qdd + Kdot v %.2e | EOM %.2e | loop vs tree %.2e | row choice %.2e | "
                "slider A vs B %.2e | energy %.2e\n",
                worst_phi0, worst_Kv, worst_Kdv, worst_projq, worst_projv, worst_acc, worst_eom,
                worst_tree, worst_rows, worst_slider, worst_energy);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_calculus_every_type),
      cmocka_unit_test(test_dynamics_every_type),
      cmocka_unit_test(test_loop_equals_tree_joint),
      cmocka_unit_test(test_fourbar),
      cmocka_unit_test(test_slider_crank),
      cmocka_unit_test(test_spatial_loops),
      cmocka_unit_test(test_coupled_loops),
      cmocka_unit_test(test_energy),
      cmocka_unit_test(test_singular),
      cmocka_unit_test(test_noise_rows),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_loops_check),
      cmocka_unit_test(test_report),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
