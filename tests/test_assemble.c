/* test_assemble.c — assembly and initial velocity with locked coordinates (runtime/assemble.c),
 * Baumgarte stabilization and the DAE residual (runtime/fd_loops.c); mb.h "Analyses",
 * docs/analysis.md. The mechanisms and checks are mb_loopmech.c's.
 *
 * References, one per test (stated again at each):
 *   - mb_assemble: φ = 0 to MB_PROJECT_TOL and the locked coordinates bit for bit (the contract);
 *     for a small correction the move against the dense minimum-norm solution −K_Fᵀ (K_F K_Fᵀ)⁻¹ φ
 *     (Gaussian elimination here), equal to first order; the unclosable five-bar against the
 *     geometry of its least-squares configuration (which row is left);
 *   - mb_initvel: K v = 0, the locked velocities bit for bit, the move against the same dense
 *     minimum-norm solution (a linear problem: to rounding); an inconsistent case against the
 *     dense least-squares residual;
 *   - Baumgarte: α = β = 0 against mb_fd_loops bit for bit; the equations K q̈ + K̇v + 2α K v +
 *     β² φ = 0 and M q̈ + h − τ = Kᵀλ (mb_crba, mb_nle); a drifting four-bar's φ(t) against the
 *     closed-form solution of φ̈ + 2α φ̇ + β² φ = 0 (RK4);
 *   - the DAE residual: its blocks against mb_crba, mb_nle, mb_loop_jacobian, mb_loop_residual,
 *     and zero at mb_fd_loops' solution on the manifold. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_loopmech.h"
#include "mb_randtree.h"
#include "mb_testutil.h"

static int n_other; /* cases where project_q's correction was compared (and differed) */
static double least_other = INFINITY; /* its smallest difference from the minimum-norm move */
static double worst_asm, worst_minnorm, worst_iv, worst_ivref, worst_bg, worst_decay, worst_dae;

/* ------------------------------------------------------------------------------------ helpers */

/* The dense minimum-norm solution of K_F d = −c over the free columns (lock[k] = 0), d = 0 in the
 * locked ones: d = −K_Fᵀ (K_F K_Fᵀ)⁻¹ c. */
static void min_norm(const double *K, int nc, int nv, const int *lock, const double *c,
                     double *d) {
  double A[MAXC * MAXC], y[MAXC];
  for (int r = 0; r < nc; r++) {
    y[r] = c[r];
    for (int s = 0; s < nc; s++) {
      double x = 0.0;
      for (int k = 0; k < nv; k++) x += lock[k] ? 0.0 : K[r * nv + k] * K[s * nv + k];
      A[r * nc + s] = x;
    }
  }
  assert_true(mbt_gauss(nc, A, y) > 1e-14); /* y = (K_F K_Fᵀ)⁻¹ c */
  for (int k = 0; k < nv; k++) {
    double x = 0.0;
    for (int r = 0; r < nc; r++) x += K[r * nv + k] * y[r];
    d[k] = lock[k] ? 0.0 : -x;
  }
}

/* Random locks on the joints other than body 1's (the floating base of tree_with_loop, which
 * alone can close a loop to the world): each dof with probability ½, every dof of a joint with
 * ¼ (so quaternion joints are wholly locked too). */
static void rand_locks(mbt_rng *g, const mb_model *m, int *lock) {
  memset(lock, 0, sizeof *lock * (size_t)m->nv);
  for (int i = 2; i <= m->nb; i++) {
    int all = mbt_uniform(g, 0, 1) < 0.25;
    for (int c = 0; c < mb_joint_nv(m->jtype[i]); c++)
      lock[m->iv[i] + c] = all || mbt_uniform(g, 0, 1) < 0.5;
  }
}

/* 1 if joint i's q entries must be kept bit for bit under lock (mb.h mb_assemble): its locked
 * scalar coordinates, or all of them when every dof is locked; checked entry by entry. */
static void assert_locks_kept(const mb_model *m, const int *lock, const double *before,
                              const double *after) {
  for (int i = 1; i <= m->nb; i++) {
    mb_joint_type t = m->jtype[i];
    int nq = mb_joint_nq(t), nv = mb_joint_nv(t), all = nv > 0;
    int scalar = nq == nv && t != MB_JOINT_PLANAR;
    for (int c = 0; c < nv; c++) all = all && lock[m->iv[i] + c];
    for (int c = 0; c < nq; c++)
      if (all || (scalar && lock[m->iv[i] + c]))
        if (memcmp(&before[m->iq[i] + c], &after[m->iq[i] + c], sizeof *before))
          fail_msg("%s: locked q[%d] moved: %.17g -> %.17g", ctx, m->iq[i] + c,
                   before[m->iq[i] + c], after[m->iq[i] + c]);
  }
}

/* The planar five-bar: ground pivots A = (0, 0) (q1, bar 1 of length l1) and E = (g, 0) (q3,
 * bar 3 of length l3), elbows q2 (bar 2, l2) and q4 (bar 4, l4), revolute about z; a revolute
 * loop joins the tips of bars 2 and 4, its loop frame on bar 2 turned by rot about z; rows x, y
 * (the other three vanish in the plane). */
typedef struct fivebar {
  double g, l1, l2, l3, l4;
} fivebar;

static mbt_tree *fivebar_tree(const fivebar *f) {
  double z[3] = {0, 0, 1}, r2[3] = {f->l1, 0, 0}, r3[3] = {f->g, 0, 0}, r4[3] = {f->l3, 0, 0};
  mbt_tree *t = mbt_tree_new(4);
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, z, NULL, NULL);
  mbt_tree_joint(t, 2, 1, MB_JOINT_REVOLUTE, z, NULL, r2);
  mbt_tree_joint(t, 3, 0, MB_JOINT_REVOLUTE, z, NULL, r3);
  mbt_tree_joint(t, 4, 3, MB_JOINT_REVOLUTE, z, NULL, r4);
  box_body(t, 1, 1.0, f->l1), box_body(t, 2, 1.0, f->l2);
  box_body(t, 3, 1.0, f->l3), box_body(t, 4, 1.0, f->l4);
  mbt_tree_finish(t);
  return t;
}

static mb_loop fivebar_loop(const fivebar *f, double rot) {
  mb_loop l;
  double z[3] = {0, 0, 1};
  memset(&l, 0, sizeof l);
  l.type = MB_LOOP_REVOLUTE, l.a = 2, l.b = 4;
  mbs_rot_axis(z, rot, l.Ea), memcpy(l.Eb, l.Ea, sizeof l.Eb);
  l.ra[0] = f->l2, l.rb[0] = f->l4, l.axis[2] = 1.0;
  return l;
}

/* The closed configuration with drivers q1, q3 (the tip on the upper circle intersection). */
static void fivebar_q(const fivebar *f, double q1, double q3, double *q) {
  double B[2] = {f->l1 * cos(q1), f->l1 * sin(q1)};
  double D[2] = {f->g + f->l3 * cos(q3), f->l3 * sin(q3)};
  double e = hypot(D[0] - B[0], D[1] - B[1]), u[2] = {(D[0] - B[0]) / e, (D[1] - B[1]) / e};
  double a = (f->l2 * f->l2 - f->l4 * f->l4 + e * e) / (2 * e), h = sqrt(f->l2 * f->l2 - a * a);
  double P[2] = {B[0] + a * u[0] - h * u[1], B[1] + a * u[1] + h * u[0]};
  q[0] = q1, q[1] = atan2(P[1] - B[1], P[0] - B[0]) - q1;
  q[2] = q3, q[3] = atan2(P[1] - D[1], P[0] - D[0]) - q3;
}

/* ----------------------------------------------------------------------------- mb_assemble */

/* Random floating-base trees with one loop of every type to the world (tree_with_loop, ends 0
 * and 1), assembled at q0, moved by up to 0.05 along every coordinate, random locks on the other
 * joints (the floating base closes any loop). Reference: the contract — MB_OK, max |φ| ≤
 * MB_PROJECT_TOL, the locked coordinates bit for bit; and, for a move of 1e-4, the dense
 * minimum-norm solution d = −K_Fᵀ (K_F K_Fᵀ)⁻¹ φ at the start: Newton's first step is d up to
 * the damping μ ~ 1e-10 and the later ones are O(|d|²), so the move q ⊖ q_start agrees with d to
 * O(|d|²) ~ 1e-8 (we allow 1e-6; another valid correction — project_q's, which moves the locked
 * coordinates too — differs by O(|d|) ~ 1e-4, checked to fail the same test). */
static void test_assemble_locks(void **state) {
  (void)state;
  for (int t = 0; t < MB_LOOP_TYPE_COUNT; t++)
    for (uint64_t seed = 1; seed <= 4; seed++) {
      mbt_rng g;
      mbt_rng_seed(&g, 7000 * (uint64_t)t + seed);
      mbt_tree *tr;
      double q0[MAXQ], qs[MAXQ], q[MAXQ], dq[MAXV], phi[MAXC], K[MAXC * MAXV], d[MAXV];
      int a, b, lock[MAXV];
      lsys *s = tree_with_loop(&g, 900 * (uint64_t)t + seed, 6, (mb_loop_type)t, (int)seed % 2,
                               &tr, q0, &a, &b);
      const mb_model *m = s->m;
      int nv = m->nv, nc = s->L.nc;
      for (int big = 1; big >= 0; big--) {
        snprintf(ctx, sizeof ctx, "assemble type %d seed %d move %s", t, (int)seed,
                 big ? "0.05" : "1e-4");
        rand_locks(&g, m, lock);
        mbt_rand_vec(&g, nv, big ? -0.05 : -1e-4, big ? 0.05 : 1e-4, dq);
        assert_int_equal(mb_integrate(m, q0, dq, 1.0, qs), MB_OK);
        memcpy(q, qs, sizeof *q * (size_t)m->nq);
        int rc = mb_assemble(m, &s->L, &s->ws, &s->lw, lock, q);
        if (rc) fail_msg("%s: mb_assemble %d (row %d)", ctx, rc, s->lw.singular);
        resid(s, q, phi);
        worst_asm = fmax(worst_asm, maxabs(phi, nc));
        if (!(maxabs(phi, nc) <= MB_PROJECT_TOL)) fail_msg("%s: |φ| %.3e", ctx, maxabs(phi, nc));
        assert_locks_kept(m, lock, qs, q);
        if (big) continue;
        /* the move against the dense minimum-norm step at the start */
        resid(s, qs, phi), jac(s, qs, K);
        min_norm(K, nc, nv, lock, phi, d);
        assert_int_equal(mb_difference(m, qs, q, dq), MB_OK);
        double e = mbt_max_diff(dq, d, (size_t)nv, &(size_t){0});
        worst_minnorm = fmax(worst_minnorm, e);
        if (!(e <= 1e-6))
          fail_msg("%s: move vs minimum norm %.3e (|d| %.3e)", ctx, e, maxabs(d, nv));
        /* project_q's correction (nothing locked) fails the same comparison when locks matter */
        int any = 0;
        memcpy(q, qs, sizeof *q * (size_t)m->nq);
        assert_int_equal(mb_project_q(m, &s->L, &s->ws, &s->lw, q), MB_OK);
        assert_int_equal(mb_difference(m, qs, q, dq), MB_OK);
        for (int k = 0; k < nv; k++) any |= lock[k] && fabs(dq[k]) > 1e-5;
        if (any) {
          double o = mbt_max_diff(dq, d, (size_t)nv, &(size_t){0});
          n_other++, least_other = fmin(least_other, o);
          if (!(o > 1e-6)) fail_msg("%s: project_q's move passes the minimum-norm test", ctx);
        }
      }
      lsys_free(s);
      mbt_tree_free(tr);
    }
}

/* The five-bar (pivots 1 apart, bars 0.6 and 0.8). Compatible drivers: locked at a perturbed
 * closed configuration's q1, q3, the elbows close the loop (MB_OK, q1 and q3 bit for bit).
 * Incompatible: q1 = π, q3 = 0 put the elbows 2.2 apart, beyond the distal bars' 1.6. The least-
 * squares configuration has both distal bars on the line between the elbows, pointing at each
 * other: the gap 0.6 lies along bar 2, i.e. along the loop frame's x axis, so row x (0) is the one
 * left (lw->singular = 1); with the loop frame turned by 90° about z the gap is along its y axis
 * (lw->singular = 2). Reference: that geometry. q is unchanged (the contract). Every coordinate
 * locked: MB_OK at a closed configuration (nothing moves), MB_ENUMERIC off it. */
static void test_assemble_fivebar(void **state) {
  (void)state;
  fivebar f = {1.0, 0.6, 0.8, 0.6, 0.8};
  mbt_tree *t = fivebar_tree(&f);
  const mb_model *m = &t->model;
  int xy[2] = {0, 1};
  mb_loop l0 = fivebar_loop(&f, 0.0), l1 = fivebar_loop(&f, 0.5 * MBT_PI);
  lsys *s0 = lsys_new(m, &l0, 1, xy, 2), *s1 = lsys_new(m, &l1, 1, xy, 2);
  int drivers[4] = {1, 0, 1, 0}, all[4] = {1, 1, 1, 1};
  double q0[4], q[4], qs[4], phi[2];
  mbt_rng g;
  mbt_rng_seed(&g, 5);
  for (int k = 0; k < 8; k++) {
    fivebar_q(&f, mbt_uniform(&g, 1.2, 1.9), mbt_uniform(&g, 1.2, 1.9), q0);
    for (int j = 0; j < 4; j++) qs[j] = q0[j] + mbt_uniform(&g, -0.05, 0.05);
    memcpy(q, qs, sizeof q);
    assert_int_equal(mb_assemble(m, &s0->L, &s0->ws, &s0->lw, drivers, q), MB_OK);
    resid(s0, q, phi);
    assert_true(maxabs(phi, 2) <= MB_PROJECT_TOL);
    assert_memory_equal(&q[0], &qs[0], sizeof *q), assert_memory_equal(&q[2], &qs[2], sizeof *q);
    memcpy(q, q0, sizeof q);
    assert_int_equal(mb_assemble(m, &s0->L, &s0->ws, &s0->lw, all, q), MB_OK);
    assert_memory_equal(q, q0, sizeof q);
  }
  double bad[4] = {MBT_PI, -MBT_PI + 0.4, 0.0, MBT_PI - 0.3}, qb[4];
  lsys *sys[2] = {s0, s1};
  for (int k = 0; k < 2; k++) {
    memcpy(qb, bad, sizeof qb);
    assert_int_equal(mb_assemble(m, &sys[k]->L, &sys[k]->ws, &sys[k]->lw, drivers, qb),
                     MB_ENUMERIC);
    assert_int_equal(sys[k]->lw.singular, 1 + k);
    assert_memory_equal(qb, bad, sizeof qb);
  }
  assert_int_equal(mb_assemble(m, &s0->L, &s0->ws, &s0->lw, all, qb), MB_ENUMERIC);
  assert_int_equal(s0->lw.singular, 1); /* at q = bad, |φ_x| > |φ_y| */
  resid(s0, bad, phi);
  assert_true(fabs(phi[0]) > fabs(phi[1]));
  int flag[4] = {0, 2, 0, 0};
  assert_int_equal(mb_assemble(m, &s0->L, &s0->ws, &s0->lw, flag, qb), MB_EINVAL);
  lsys_free(s0), lsys_free(s1);
  mbt_tree_free(t);
}

/* ------------------------------------------------------------------------------ mb_initvel */

/* Reference: K v = 0 relative to Σ|K_rk v_k| at 1e-12, the locked velocities bit for bit, and the
 * move against the dense minimum-norm solution d = −K_Fᵀ (K_F K_Fᵀ)⁻¹ K v (a linear problem: to
 * rounding, 1e-10 relative to |v|), on the systems of test_assemble_locks at their assembled q0.
 * The five-bar with q1, q2, q3 locked and moving leaves one free column for two rows: the dense
 * least-squares residual c − K_4 (K_4 · c)/|K_4|² (K_4 the free column) says which row is left. */
static void test_initvel(void **state) {
  (void)state;
  for (int t = 0; t < MB_LOOP_TYPE_COUNT; t++)
    for (uint64_t seed = 1; seed <= 3; seed++) {
      mbt_rng g;
      mbt_rng_seed(&g, 8000 * (uint64_t)t + seed);
      mbt_tree *tr;
      double q0[MAXQ], v[MAXV], vin[MAXV], K[MAXC * MAXV], c[MAXC], d[MAXV];
      int a, b, lock[MAXV];
      lsys *s = tree_with_loop(&g, 910 * (uint64_t)t + seed, 6, (mb_loop_type)t, (int)seed % 2,
                               &tr, q0, &a, &b);
      const mb_model *m = s->m;
      int nv = m->nv, nc = s->L.nc;
      snprintf(ctx, sizeof ctx, "initvel type %d seed %d", t, (int)seed);
      rand_locks(&g, m, lock);
      mbt_rand_vec(&g, nv, -1, 1, vin);
      memcpy(v, vin, sizeof v);
      assert_int_equal(mb_initvel(m, &s->L, &s->ws, &s->lw, lock, q0, v), MB_OK);
      jac(s, q0, K);
      double scale = kmul(K, nc, nv, v, c), e = maxabs(c, nc) / scale;
      worst_iv = fmax(worst_iv, e);
      if (!(e <= 1e-12)) fail_msg("%s: |K v| relative %.3e", ctx, e);
      for (int k = 0; k < nv; k++)
        if (lock[k]) assert_memory_equal(&v[k], &vin[k], sizeof *v);
      kmul(K, nc, nv, vin, c);
      min_norm(K, nc, nv, lock, c, d);
      for (int k = 0; k < nv; k++) d[k] += vin[k];
      e = mbt_max_diff(v, d, (size_t)nv, &(size_t){0}) / maxabs(vin, nv);
      worst_ivref = fmax(worst_ivref, e);
      if (!(e <= 1e-10)) fail_msg("%s: v vs minimum norm, relative %.3e", ctx, e);
      lsys_free(s);
      mbt_tree_free(tr);
    }
  fivebar f = {1.0, 0.6, 0.8, 0.6, 0.8};
  mbt_tree *t = fivebar_tree(&f);
  const mb_model *m = &t->model;
  int xy[2] = {0, 1}, three[4] = {1, 1, 1, 0}, drivers[4] = {1, 0, 1, 0};
  mb_loop l = fivebar_loop(&f, 0.0);
  lsys *s = lsys_new(m, &l, 1, xy, 2);
  double q[4], v[4] = {0.7, -0.2, 0.4, 0.1}, v0[4], K[8], c[2], r[2];
  fivebar_q(&f, 1.5, 1.7, q);
  memcpy(v0, v, sizeof v);
  assert_int_equal(mb_initvel(m, &s->L, &s->ws, &s->lw, three, q, v), MB_ENUMERIC);
  assert_memory_equal(v, v0, sizeof v);
  jac(s, q, K);
  kmul(K, 2, 4, v, c);
  double k2 = K[3] * K[3] + K[7] * K[7], p = (K[3] * c[0] + K[7] * c[1]) / k2;
  r[0] = c[0] - K[3] * p, r[1] = c[1] - K[7] * p;
  assert_int_equal(s->lw.singular, 1 + (fabs(r[1]) > fabs(r[0])));
  assert_int_equal(mb_initvel(m, &s->L, &s->ws, &s->lw, drivers, q, v), MB_OK);
  assert_true(v[0] == v0[0] && v[2] == v0[2]);
  lsys_free(s);
  mbt_tree_free(t);
}

/* ------------------------------------------------------------------------------- Baumgarte */

/* Random off-manifold states (the systems above, q moved by 0.02 without projection, random v,
 * τ). Reference: α = β = 0 is mb_fd_loops bit for bit (mb.h); with α, β > 0, K q̈ + K̇v + 2α K v
 * + β² φ = 0 (relative 1e-10 to the terms' size) and M q̈ + h − τ = Kᵀλ (mb_crba, mb_nle:
 * relative 1e-10). Negative or non-finite gains: MB_EINVAL. */
static void test_baumgarte_equations(void **state) {
  (void)state;
  for (int t = 0; t < MB_LOOP_TYPE_COUNT; t++) {
    mbt_rng g;
    mbt_rng_seed(&g, 9100 + (uint64_t)t);
    mbt_tree *tr;
    double q0[MAXQ], q[MAXQ], dq[MAXV], v[MAXV], tau[MAXV], qdd[MAXV], qdd0[MAXV], lam[MAXC],
        lam0[MAXC], K[MAXC * MAXV], kb[MAXC], phi[MAXC], c[MAXC], kv[MAXC];
    double M[MAXV * MAXV], h[MAXV], r[MAXV];
    int a, b;
    lsys *s = tree_with_loop(&g, 920 + (uint64_t)t, 6, (mb_loop_type)t, 0, &tr, q0, &a, &b);
    const mb_model *m = s->m;
    int nv = m->nv, nc = s->L.nc;
    snprintf(ctx, sizeof ctx, "baumgarte type %d", t);
    mbt_rand_vec(&g, nv, -0.02, 0.02, dq);
    assert_int_equal(mb_integrate(m, q0, dq, 1.0, q), MB_OK);
    mbt_rand_vec(&g, nv, -1, 1, v), mbt_rand_vec(&g, nv, -1, 1, tau);
    assert_int_equal(mb_fd_loops(m, &s->L, &s->ws, &s->lw, q, v, tau, qdd0, lam0), MB_OK);
    assert_int_equal(
        mb_fd_loops_baumgarte(m, &s->L, &s->ws, &s->lw, q, v, tau, 0.0, 0.0, qdd, lam), MB_OK);
    assert_memory_equal(qdd, qdd0, sizeof *qdd * (size_t)nv);
    assert_memory_equal(lam, lam0, sizeof *lam * (size_t)nc);
    double al = 3.0, be = 7.0;
    assert_int_equal(mb_fd_loops_baumgarte(m, &s->L, &s->ws, &s->lw, q, v, tau, al, be, qdd, lam),
                     MB_OK);
    jac(s, q, K), bias(s, q, v, kb), resid(s, q, phi);
    double sc = kmul(K, nc, nv, qdd, c);
    kmul(K, nc, nv, v, kv);
    for (int k = 0; k < nc; k++) {
      double e = c[k] + kb[k] + 2 * al * kv[k] + be * be * phi[k];
      double size = sc + fabs(kb[k]) + fabs(2 * al * kv[k]) + fabs(be * be * phi[k]);
      worst_bg = fmax(worst_bg, fabs(e) / size);
      if (!(fabs(e) <= 1e-10 * size)) fail_msg("%s: row %d: %.3e", ctx, k, e);
    }
    assert_int_equal(mb_crba(m, &s->ws, q, M), MB_OK);
    assert_int_equal(mb_nle(m, &s->ws, q, v, h), MB_OK);
    double big = 0.0;
    for (int i = 0; i < nv; i++) {
      r[i] = h[i] - tau[i];
      for (int k = 0; k < nv; k++) r[i] += M[i * nv + k] * qdd[k];
      for (int k = 0; k < nc; k++) r[i] -= K[k * nv + i] * lam[k];
      big = fmax(big, fabs(h[i]) + fabs(tau[i]));
    }
    worst_bg = fmax(worst_bg, maxabs(r, nv) / big);
    if (!(maxabs(r, nv) <= 1e-10 * big)) fail_msg("%s: EOM %.3e", ctx, maxabs(r, nv));
    assert_int_equal(
        mb_fd_loops_baumgarte(m, &s->L, &s->ws, &s->lw, q, v, tau, -1.0, 0.0, qdd, lam),
        MB_EINVAL);
    assert_int_equal(
        mb_fd_loops_baumgarte(m, &s->L, &s->ws, &s->lw, q, v, tau, 0.0, NAN, qdd, lam),
        MB_EINVAL);
    lsys_free(s);
    mbt_tree_free(tr);
  }
}

/* RK4 of (q, v) with q̇ = v, v̇ = q̈ (mb_fd_loops_baumgarte), the four-bar's revolute joints
 * (q a vector space), n steps of dt. */
static void rk4(lsys *s, double *q, double *v, double al, double be, double dt, int n) {
  double tau[3] = {0}, k1[6], k2[6], k3[6], k4[6], x[6];
  for (int step = 0; step < n; step++) {
    double *ks[4] = {k1, k2, k3, k4}, c[4] = {0, 0.5, 0.5, 1};
    for (int st = 0; st < 4; st++) {
      for (int k = 0; k < 3; k++) {
        x[k] = q[k] + (st ? c[st] * dt * ks[st - 1][k] : 0);
        x[3 + k] = v[k] + (st ? c[st] * dt * ks[st - 1][3 + k] : 0);
      }
      memcpy(ks[st], x + 3, 3 * sizeof *x);
      assert_int_equal(mb_fd_loops_baumgarte(s->m, &s->L, &s->ws, &s->lw, x, x + 3, tau, al,
                                             be, ks[st] + 3, NULL),
                       MB_OK);
    }
    for (int k = 0; k < 3; k++) {
      q[k] += dt / 6 * (k1[k] + 2 * k2[k] + 2 * k3[k] + k4[k]);
      v[k] += dt / 6 * (k1[3 + k] + 2 * k2[3 + k] + 2 * k3[3 + k] + k4[3 + k]);
    }
  }
}

/* The four-bar (gravity on, τ = 0) started off its manifold: q moved by 1e-3 and v not
 * projected, so φ₀ ≠ 0 and φ̇₀ = K v₀ ≠ 0. The rows obey φ̈ + 2α φ̇ + β² φ = 0 exactly (mb.h), so
 * after T = 1 s each φ_r(T) is the closed form: α = β = 0, φ₀ + φ̇₀ T (the drift grows); α = β =
 * 10, (φ₀ + (φ̇₀ + β φ₀) T) e^{−βT}; α = 2, β = 10, e^{−αT} (φ₀ cos ωT + (φ̇₀ + α φ₀)/ω sin ωT),
 * ω² = β² − α². Reference: those, to RK4's error (dt = 1e-3: we allow 1e-8 absolute against
 * |φ(T)| up to ~1); the unstabilized drift grows beyond 10 |φ₀|, the stabilized |φ(T)| stays
 * below 1e-2 of it. */
static void test_baumgarte_decay(void **state) {
  (void)state;
  fourbar f = {1.0, 0.4, 1.1, 0.8};
  mbt_tree *t = fourbar_tree(&f);
  mb_loop l = fourbar_loop(&f, 0.0);
  int xy[2] = {0, 1};
  lsys *s = lsys_new(&t->model, &l, 1, xy, 2);
  double gains[3][2] = {{0, 0}, {10, 10}, {2, 10}}, T = 1.0, drift = 0.0;
  for (int gi = 0; gi < 3; gi++) {
    double q[3], v[3] = {1.5, -0.5, 0.3}, phi0[2], dphi0[2], K[6], phi[2], want[2];
    assert_int_equal(fourbar_q(&f, 0.4, q), 0);
    q[0] += 1e-3, q[1] -= 2e-3;
    resid(s, q, phi0), jac(s, q, K);
    kmul(K, 2, 3, v, dphi0);
    double al = gains[gi][0], be = gains[gi][1], w = sqrt(be * be - al * al);
    rk4(s, q, v, al, be, 1e-3, 1000);
    resid(s, q, phi);
    for (int r = 0; r < 2; r++) {
      if (be == 0)
        want[r] = phi0[r] + dphi0[r] * T;
      else if (al == be)
        want[r] = (phi0[r] + (dphi0[r] + be * phi0[r]) * T) * exp(-be * T);
      else
        want[r] = exp(-al * T) *
                  (phi0[r] * cos(w * T) + (dphi0[r] + al * phi0[r]) / w * sin(w * T));
    }
    double e = mbt_max_diff(phi, want, 2, &(size_t){0});
    worst_decay = fmax(worst_decay, e);
    if (!(e <= 1e-8)) fail_msg("gains %g %g: φ(T) %.3e %.3e, closed form %.3e %.3e", al, be,
                               phi[0], phi[1], want[0], want[1]);
    if (be == 0) drift = maxabs(phi, 2); /* the first: unstabilized */
    if (be == 0) assert_true(drift > 10 * maxabs(phi0, 2));
    else assert_true(maxabs(phi, 2) <= 1e-2 * drift);
  }
  lsys_free(s);
  mbt_tree_free(t);
}

/* ---------------------------------------------------------------------------- DAE residual */

/* Reference: (a) at arbitrary (q, v, q̈, λ, τ) off the manifold, the blocks against mb_crba · q̈ +
 * mb_nle − τ − Kᵀλ (mb_loop_jacobian), mb_loop_residual and K v (relative 1e-12 to their terms);
 * (b) at mb_fd_loops' q̈, λ at a projected state (mb_project_q, mb_project_v), the residual is
 * zero to rounding: the dynamics block relative 1e-12 to |τ| + |h|, φ within MB_PROJECT_TOL, K v
 * within 1e-12 relative. */
static void test_dae_residual(void **state) {
  (void)state;
  for (int t = 0; t < MB_LOOP_TYPE_COUNT; t++) {
    mbt_rng g;
    mbt_rng_seed(&g, 9300 + (uint64_t)t);
    mbt_tree *tr;
    double q0[MAXQ], q[MAXQ], dq[MAXV], v[MAXV], tau[MAXV], qdd[MAXV], lam[MAXC], K[MAXC * MAXV],
        phi[MAXC], kv[MAXC], M[MAXV * MAXV], h[MAXV], want[MAXV], res[MAXV + 2 * MAXC];
    int a, b;
    lsys *s = tree_with_loop(&g, 930 + (uint64_t)t, 6, (mb_loop_type)t, 1, &tr, q0, &a, &b);
    const mb_model *m = s->m;
    int nv = m->nv, nc = s->L.nc;
    snprintf(ctx, sizeof ctx, "dae type %d", t);
    mbt_rand_vec(&g, nv, -0.1, 0.1, dq);
    assert_int_equal(mb_integrate(m, q0, dq, 1.0, q), MB_OK);
    mbt_rand_vec(&g, nv, -1, 1, v), mbt_rand_vec(&g, nv, -1, 1, tau);
    mbt_rand_vec(&g, nv, -1, 1, qdd), mbt_rand_vec(&g, nc, -1, 1, lam);
    assert_int_equal(
        mb_loops_residual_dae(m, &s->L, &s->ws, &s->lw, q, v, qdd, lam, tau, res), MB_OK);
    assert_int_equal(mb_crba(m, &s->ws, q, M), MB_OK);
    assert_int_equal(mb_nle(m, &s->ws, q, v, h), MB_OK);
    jac(s, q, K), resid(s, q, phi);
    double big = 0.0;
    for (int i = 0; i < nv; i++) {
      double x = h[i] - tau[i], sz = fabs(h[i]) + fabs(tau[i]);
      for (int k = 0; k < nv; k++) x += M[i * nv + k] * qdd[k], sz += fabs(M[i * nv + k] * qdd[k]);
      for (int k = 0; k < nc; k++) x -= K[k * nv + i] * lam[k], sz += fabs(K[k * nv + i] * lam[k]);
      want[i] = x, big = fmax(big, sz);
    }
    double e = mbt_max_diff(res, want, (size_t)nv, &(size_t){0}) / big;
    double sk = kmul(K, nc, nv, v, kv);
    double ep = mbt_max_diff(res + nv, phi, (size_t)nc, &(size_t){0});
    e = fmax(e, ep / fmax(maxabs(phi, nc), 1e-300));
    e = fmax(e, mbt_max_diff(res + nv + nc, kv, (size_t)nc, &(size_t){0}) / sk);
    worst_dae = fmax(worst_dae, e);
    if (!(e <= 1e-12)) fail_msg("%s: blocks %.3e", ctx, e);
    /* (b) at the solution on the manifold */
    assert_int_equal(mb_project_q(m, &s->L, &s->ws, &s->lw, q), MB_OK);
    assert_int_equal(mb_project_v(m, &s->L, &s->ws, &s->lw, q, v), MB_OK);
    assert_int_equal(mb_fd_loops(m, &s->L, &s->ws, &s->lw, q, v, tau, qdd, lam), MB_OK);
    assert_int_equal(
        mb_loops_residual_dae(m, &s->L, &s->ws, &s->lw, q, v, qdd, lam, tau, res), MB_OK);
    assert_int_equal(mb_nle(m, &s->ws, q, v, h), MB_OK);
    big = maxabs(h, nv) + maxabs(tau, nv);
    jac(s, q, K);
    sk = kmul(K, nc, nv, v, kv);
    if (!(maxabs(res, nv) <= 1e-12 * big)) fail_msg("%s: dynamics %.3e", ctx, maxabs(res, nv));
    if (!(maxabs(res + nv, nc) <= MB_PROJECT_TOL))
      fail_msg("%s: φ %.3e", ctx, maxabs(res + nv, nc));
    if (!(maxabs(res + nv + nc, nc) <= 1e-12 * sk)) fail_msg("%s: K v", ctx);
    worst_dae = fmax(worst_dae, maxabs(res, nv) / big);
    assert_int_equal(
        mb_loops_residual_dae(m, &s->L, &s->ws, &s->lw, q, v, NULL, lam, tau, res), MB_EINVAL);
    lsys_free(s);
    mbt_tree_free(tr);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_assemble_locks),   cmocka_unit_test(test_assemble_fivebar),
      cmocka_unit_test(test_initvel),          cmocka_unit_test(test_baumgarte_equations),
      cmocka_unit_test(test_baumgarte_decay),  cmocka_unit_test(test_dae_residual),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  print_message("worst: assemble |phi| %.2e | move vs min-norm %.2e | initvel |Kv| %.2e | "
                "initvel vs min-norm %.2e | baumgarte eqs %.2e | decay vs closed form %.2e | "
                "dae %.2e | project_q's move differs in %d cases by >= %.2e\n",
                worst_asm, worst_minnorm, worst_iv, worst_ivref, worst_bg, worst_decay, worst_dae,
                n_other, least_other);
  return rc;
}
