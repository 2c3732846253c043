/* mb_loopmech.c — the shared helpers of test_loops.c and test_fd_loops.c (mb_loopmech.h): systems
 * of loops, random loops closed at a configuration, hand-built mechanisms, the generic checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_loopmech.h"

double worst_phi0, worst_Kv, worst_Kdv, worst_projq, worst_projv, worst_acc, worst_eom;
char ctx[160];

/* ------------------------------------------------------------------------------------ helpers */

/* A system of loops (rows NULL: every row of every loop); heap-allocated, since lw points at L. */
lsys *lsys_new(const mb_model *m, const mb_loop *loops, int nloops, const int *rows, int nc) {
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

void lsys_free(lsys *s) { free(s->wbuf), free(s->lbuf), free(s); }

/* y = K x (nc × nv) and the row-wise magnitude bound max_r Σ_k |K_rk x_k|. */
double kmul(const double *K, int nc, int nv, const double *x, double *y) {
  double scale = 0.0;
  for (int r = 0; r < nc; r++) {
    double s = 0.0, a = 0.0;
    for (int k = 0; k < nv; k++) s += K[r * nv + k] * x[k], a += fabs(K[r * nv + k] * x[k]);
    y[r] = s, scale = fmax(scale, a);
  }
  return scale;
}

/* Complete loop l (type, a, b, Ea, ra, axis, pitch set) so that at q the target frame is the loop
 * frame moved by the relative pose (Rrel, t): target → loop-frame rotation Rrel, target origin t
 * in loop-frame coordinates. With R_x, p_x the world pose of body x (mb_fk) the loop frame is
 * W = R_a Eaᵀ at P = p_a + R_a ra, the target frame T = W Rrel at P + W t, so Eb = Tᵀ R_b and
 * rb = R_bᵀ (P + W t − p_b). */
void loop_close(const mb_model *m, const double *q, mb_loop *l, const double Rrel[9],
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
mb_loop loop_rand(mbt_rng *g, const mb_model *m, const double *q, mb_loop_type t, int a, int b) {
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
  case MB_LOOP_PLANAR: /* a turn α about a and a shift ⟂ a */
    mbs_rot_axis(l.axis, alpha, Rrel), unit_perp(g, l.axis, w);
    for (int k = 0; k < 3; k++) off[k] = 0.5 * w[k];
    break;
  case MB_LOOP_CYLINDRICAL: /* a turn α about a and a shift along it */
    mbs_rot_axis(l.axis, alpha, Rrel);
    for (int k = 0; k < 3; k++) off[k] = -0.3 * l.axis[k];
    break;
  case MB_LOOP_D1: /* axis2 (target coordinates) is, in the world, a unit vector ⟂ a */
    mbt_rand_rot(g, Rrel), mbt_rand_vec(g, 3, -0.5, 0.5, off);
    unit_perp(g, l.axis, w), mbs_mat3_tmv(Rrel, w, l.axis2);
    break;
  case MB_LOOP_UNIVERSAL: /* the origins together, axis2 as d1's */
    mbt_rand_rot(g, Rrel);
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

void box_body(mbt_tree *t, int i, double mass, double len) {
  double com[3] = {len / 2, 0, 0},
         Ic[6] = {1e-3 * mass, mass * len * len / 12, mass * len * len / 12 + 1e-3 * mass, 0, 0, 0};
  mbt_tree_body(t, i, mass, com, Ic);
}

/* A spatial chain of n scalar joints (revolute, prismatic, helical, continuous in turn unless
 * revolute_only) with random XT, axes, pitches and bodies. */
lsys *tree_with_loop(mbt_rng *g, uint64_t tree_seed, int nb, mb_loop_type t, int ends,
                     mbt_tree **tree, double *q0, int *a, int *b) {
  *tree = mbt_randtree(tree_seed, nb, 1);
  const mb_model *m = &(*tree)->model;
  *a = mbt_randint(g, 2, m->nb), *b = ends == 2 ? mbt_randint(g, 1, *a - 1) : 0;
  if (ends == 1) *b = *a, *a = 0;
  mbt_rand_q(g, m, q0);
  mb_loop l = loop_rand(g, m, q0, t, *a, *b);
  return lsys_new(m, &l, 1, NULL, 0);
}

lsys *chain_two_loops(mbt_rng *g, mb_loop_type ta, mb_loop_type tb, mbt_tree **tree,
                      double q0[14]) {
  *tree = chain_new(g, 14, 0);
  const mb_model *m = &(*tree)->model;
  mbt_rand_q(g, m, q0);
  mb_loop l[2] = {loop_rand(g, m, q0, ta, 10, 2), loop_rand(g, m, q0, tb, 14, 6)};
  return lsys_new(m, l, 2, NULL, 0);
}

mbt_tree *chain_new(mbt_rng *g, int n, int revolute_only) {
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

/* The planar four-bar of mb_loopmech.h (struct fourbar). */
mbt_tree *fourbar_tree(const fourbar *f) {
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
mb_loop fourbar_loop(const fourbar *f, double Rz) {
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
int fourbar_q(const fourbar *f, double th, double *q) {
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
void check_calculus(lsys *s, const double *q, const double *v) {
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
void check_fd(lsys *s, const double *q, const double *v, const double *tau, double *qdd) {
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
void check_assembled(lsys *s, mbt_rng *g, const double *q0, double perturb, double *q, double *v,
                     double *qdd) {
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
