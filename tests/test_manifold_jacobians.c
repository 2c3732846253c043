/* test_manifold_jacobians.c — the Jacobians of q ⊕ v dt and q1 ⊖ q0 along the tangent spaces
 * (runtime/manifold_jacobians.c). References: central differences of mb_integrate and
 * mb_difference measured through mb_difference; the power series of the adjoint representation
 * (Exp and Jr of a Lie group as series in ad_τ, which need no closed form and no small-angle
 * branch); the identities at v = 0 and q0 = q1; the chain rule on q1 ⊖ q0 = v for q1 = q0 ⊕ v. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

/* ---- models: random trees of every joint type, some with modal coordinates ------------------ */

enum { NB = 12 };

typedef struct tmodel {
  mbt_tree *t;
  mb_model m; /* t's model, with modes on every third body when asked */
  mb_flex fx;
  int nm[NB + 1], iq[NB + 1], iv[NB + 1];
} tmodel;

/* Seed s: every joint type (universal included), a floating base for odd seeds; with modes,
 * two modal coordinates on bodies 3, 6, 9, 12 (they follow the joint's in q and v). */
static void tmodel_make(tmodel *x, uint64_t seed, int modes) {
  x->t = mbt_randtree_universal(seed, NB, (int)(seed % 2));
  x->m = x->t->model;
  if (!modes) return;
  memset(&x->fx, 0, sizeof x->fx);
  int nq = 0, nv = 0;
  x->nm[0] = 0, x->iq[0] = x->iv[0] = 0;
  for (int i = 1; i <= NB; i++) {
    x->nm[i] = i % 3 == 0 ? 2 : 0;
    x->iq[i] = nq, x->iv[i] = nv;
    nq += mb_joint_nq(x->m.jtype[i]) + x->nm[i], nv += mb_joint_nv(x->m.jtype[i]) + x->nm[i];
  }
  x->fx.nm = x->nm;
  x->m.iq = x->iq, x->m.iv = x->iv, x->m.nq = nq, x->m.nv = nv, x->m.flex = &x->fx;
}

/* A configuration: unit quaternions, angles in (−π, π), modal coordinates in [−0.1, 0.1]. */
static void rand_config(mbt_rng *g, const mb_model *m, double *q) {
  mbt_rand_vec(g, m->nq, -0.1, 0.1, q);
  mbt_rand_q(g, m, q);
}

/* A tangent vector of scale s; with near_pi, every rotation vector (spherical, floating, planar)
 * of length π − 1e-3 instead. */
static void rand_tangent(mbt_rng *g, const mb_model *m, double s, int near_pi, double *v) {
  mbt_rand_vec(g, m->nv, -s, s, v);
  for (int i = 1; near_pi && i <= m->nb; i++) {
    mb_joint_type t = m->jtype[i];
    double *vi = v + m->iv[i], u[3];
    if (t == MB_JOINT_PLANAR) vi[2] = (vi[2] < 0 ? -1 : 1) * (MBT_PI - 1e-3);
    if (t != MB_JOINT_SPHERICAL && t != MB_JOINT_FLOATING) continue;
    mbt_unit3(g, u);
    for (int k = 0; k < 3; k++) vi[(t == MB_JOINT_FLOATING ? 3 : 0) + k] = (MBT_PI - 1e-3) * u[k];
  }
}

/* ---- central differences --------------------------------------------------------------------- */

/* The step and its error: central differences of smooth maps err by h²/6 times a third
 * derivative (O(1) here, so about 2e-13) plus rounding of about ε |q| / h (about 1e-9 for
 * |q| ≤ 5): 1e-7 relative to the largest entry leaves a margin of 100 over both. */
#define FD_H 1e-6
#define FD_TOL 1e-7

/* Jq and Jv of mb_integrate at (q, v, dt) by central differences measured through
 * mb_difference(qout, ·). */
static void fd_integrate(const mb_model *m, const double *q, const double *v, double dt,
                         double *Jq, double *Jv) {
  int nq = m->nq, nv = m->nv;
  double *qo = malloc(sizeof(double) * (size_t)(5 * nq + 3 * nv));
  double *qa = qo + nq, *qp = qa + nq, *qm = qp + nq, *e = qm + 2 * nq, *dp = e + nv;
  double *dm = dp + nv;
  assert_int_equal(mb_integrate(m, q, v, dt, qo), MB_OK);
  for (int k = 0; k < nv; k++) {
    for (int s = 0; s < 2; s++) { /* (q ⊕ ±h e_k) ⊕ v dt */
      memset(e, 0, sizeof(double) * (size_t)nv);
      e[k] = s ? -FD_H : FD_H;
      assert_int_equal(mb_integrate(m, q, e, 1.0, qa), MB_OK);
      assert_int_equal(mb_integrate(m, qa, v, dt, s ? qm : qp), MB_OK);
    }
    assert_int_equal(mb_difference(m, qo, qp, dp), MB_OK);
    assert_int_equal(mb_difference(m, qo, qm, dm), MB_OK);
    for (int r = 0; r < nv; r++) Jq[r * nv + k] = (dp[r] - dm[r]) / (2 * FD_H);
    for (int s = 0; s < 2; s++) { /* q ⊕ (v ± h e_k) dt */
      memcpy(e, v, sizeof(double) * (size_t)nv);
      e[k] += s ? -FD_H : FD_H;
      assert_int_equal(mb_integrate(m, q, e, dt, s ? qm : qp), MB_OK);
    }
    assert_int_equal(mb_difference(m, qo, qp, dp), MB_OK);
    assert_int_equal(mb_difference(m, qo, qm, dm), MB_OK);
    for (int r = 0; r < nv; r++) Jv[r * nv + k] = (dp[r] - dm[r]) / (2 * FD_H);
  }
  free(qo);
}

/* J0 and J1 of mb_difference at (q0, q1) by central differences along the tangents. */
static void fd_difference(const mb_model *m, const double *q0, const double *q1, double *J0,
                          double *J1) {
  int nq = m->nq, nv = m->nv;
  double *qa = malloc(sizeof(double) * (size_t)(nq + 3 * nv)), *e = qa + nq, *dp = e + nv;
  double *dm = dp + nv;
  for (int k = 0; k < nv; k++)
    for (int which = 0; which < 2; which++) {
      for (int s = 0; s < 2; s++) {
        memset(e, 0, sizeof(double) * (size_t)nv);
        e[k] = s ? -FD_H : FD_H;
        assert_int_equal(mb_integrate(m, which ? q1 : q0, e, 1.0, qa), MB_OK);
        assert_int_equal(mb_difference(m, which ? q0 : qa, which ? qa : q1, s ? dm : dp), MB_OK);
      }
      double *J = which ? J1 : J0;
      for (int r = 0; r < nv; r++) J[r * nv + k] = (dp[r] - dm[r]) / (2 * FD_H);
    }
  free(qa);
}

/* The scales of the velocities: large (rotations of up to about 3 rad), moderate, tiny
 * (|φ| ~ 1e-9, where the closed forms are 0/0 and the runtime uses its series). */
static const double SCALES[3] = {1.7, 0.3, 1e-9};

/* mb_integrate_jacobians against central differences: 12 trees × (with and without modes) ×
 * 3 scales, dt = 0.9. */
static void test_integrate_against_differences(void **st) {
  (void)st;
  mbt_rng g;
  mbt_rng_seed(&g, 4601);
  for (uint64_t seed = 1; seed <= 12; seed++)
    for (int modes = 0; modes < 2; modes++)
      for (int sc = 0; sc < 3; sc++) {
        tmodel x;
        tmodel_make(&x, seed, modes);
        const mb_model *m = &x.m;
        size_t n2 = (size_t)m->nv * (size_t)m->nv;
        double *q = malloc(sizeof(double) * ((size_t)(m->nq + m->nv) + 4 * n2));
        double *v = q + m->nq, *Jq = v + m->nv, *Jv = Jq + n2, *Fq = Jv + n2, *Fv = Fq + n2;
        rand_config(&g, m, q);
        rand_tangent(&g, m, SCALES[sc], 0, v);
        assert_int_equal(mb_integrate_jacobians(m, q, v, 0.9, Jq, Jv), MB_OK);
        fd_integrate(m, q, v, 0.9, Fq, Fv);
        MBT_ASSERT_REL(Jq, Fq, n2, FD_TOL);
        MBT_ASSERT_REL(Jv, Fv, n2, FD_TOL);
        free(q);
        mbt_tree_free(x.t);
      }
}

/* mb_difference_jacobians against central differences, q1 = q0 ⊕ w: 12 trees × (with and without
 * modes) × the 3 scales of w and rotations of π − 1e-3 (the logarithm's far end, |φ| ≤ π). */
static void test_difference_against_differences(void **st) {
  (void)st;
  mbt_rng g;
  mbt_rng_seed(&g, 4602);
  for (uint64_t seed = 1; seed <= 12; seed++)
    for (int modes = 0; modes < 2; modes++)
      for (int sc = 0; sc < 4; sc++) {
        tmodel x;
        tmodel_make(&x, seed, modes);
        const mb_model *m = &x.m;
        size_t n2 = (size_t)m->nv * (size_t)m->nv;
        double *q0 = malloc(sizeof(double) * ((size_t)(2 * m->nq + m->nv) + 4 * n2));
        double *q1 = q0 + m->nq, *w = q1 + m->nq, *J0 = w + m->nv, *J1 = J0 + n2, *F0 = J1 + n2;
        double *F1 = F0 + n2;
        rand_config(&g, m, q0);
        rand_tangent(&g, m, sc < 3 ? SCALES[sc] : 0.3, sc == 3, w);
        assert_int_equal(mb_integrate(m, q0, w, 1.0, q1), MB_OK);
        assert_int_equal(mb_difference_jacobians(m, q0, q1, J0, J1), MB_OK);
        fd_difference(m, q0, q1, F0, F1);
        MBT_ASSERT_REL(J0, F0, n2, FD_TOL);
        MBT_ASSERT_REL(J1, F1, n2, FD_TOL);
        free(q0);
        mbt_tree_free(x.t);
      }
}

/* ---- the adjoint representation's power series ----------------------------------------------- */

/* ad_τ of joint type t (n × n, row-major), in mbdc's tangent coordinates: SO(3) φ×; SE(3)
 * [ρ; φ] ↦ [φ× ρ×; 0 φ×]; SE(2) [u1 u2 φ] ↦ [0 −φ u2; φ 0 −u1; 0 0 0]. */
static void ad_matrix(mb_joint_type t, const double *tau, double *A) {
  const double *phi = t == MB_JOINT_FLOATING ? tau + 3 : tau;
  int n = mb_joint_nv(t);
  memset(A, 0, sizeof(double) * (size_t)(n * n));
  if (t == MB_JOINT_PLANAR) {
    A[1] = -tau[2], A[2] = tau[1], A[3] = tau[2], A[5] = -tau[0];
    return;
  }
  double P[9] = {0, -phi[2], phi[1], phi[2], 0, -phi[0], -phi[1], phi[0], 0};
  double R[9] = {0, -tau[2], tau[1], tau[2], 0, -tau[0], -tau[1], tau[0], 0};
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      A[n * r + c] = P[3 * r + c];
      if (n == 6) A[6 * (r + 3) + 3 + c] = P[3 * r + c], A[6 * r + 3 + c] = R[3 * r + c];
    }
}

/* out = Σ_{j ≥ 0} (−A)^j / (j + shift)!, n × n, summed until the terms vanish (at most 200):
 * shift 0 gives Exp(−τ)'s adjoint, Ad_{Exp(−τ)} = exp(−ad_τ); shift 1 the right Jacobian,
 * Jr(τ) = Σ (−ad_τ)^j / (j + 1)!. */
static void ad_series(const double *A, int n, int shift, double *out) {
  double term[36], next[36];
  for (int k = 0; k < n * n; k++) term[k] = k % (n + 1) == 0, out[k] = 0; /* 1 / shift! = 1 */
  for (int j = 0; j < 200; j++) {
    double size = 0;
    for (int k = 0; k < n * n; k++) out[k] += term[k], size = fmax(size, fabs(term[k]));
    if (size < 1e-300) break;
    for (int r = 0; r < n; r++)
      for (int c = 0; c < n; c++) {
        double s = 0;
        for (int k = 0; k < n; k++) s -= term[n * r + k] * A[n * k + c];
        next[n * r + c] = s / (double)(j + 1 + shift);
      }
    memcpy(term, next, sizeof(double) * (size_t)(n * n));
  }
}

/* The n × n diagonal block of the nv × nv J at (at, at). */
static void block_of(const double *J, int nv, int at, int n, double *B) {
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++) B[n * r + c] = J[(at + r) * nv + at + c];
}

/* Every spherical, floating and planar joint's blocks against the series of ad_τ, 1e-13 relative
 * (the series' own rounding: terms up to |ad|^j / j! ≈ 20 for |τ| ≤ 3): Jq = exp(−ad_τ) and
 * Jv = Jr(τ) dt, τ = v dt; J1 Jr(τ) = 1 and J0 Jr(−τ) = −1 for τ = q1 ⊖ q0 (Jr⁻¹ and −Jl⁻¹).
 * At the scales of the other tests and at |τ| near 0.5, where the runtime switches from the
 * series to the closed forms. */
static void test_blocks_against_ad_series(void **st) {
  (void)st;
  static const double scales[5] = {1.7, 0.3, 1e-9, 0.499999, 0.500001};
  mbt_rng g;
  mbt_rng_seed(&g, 4603);
  for (uint64_t seed = 1; seed <= 12; seed++)
    for (int sc = 0; sc < 5; sc++) {
      tmodel x;
      tmodel_make(&x, seed, 0);
      const mb_model *m = &x.m;
      int nv = m->nv;
      size_t n2 = (size_t)nv * (size_t)nv;
      double *q = malloc(sizeof(double) * ((size_t)(2 * m->nq + nv) + 4 * n2)), dt = 0.9;
      double *q1 = q + m->nq, *v = q1 + m->nq, *Jq = v + nv, *Jv = Jq + n2, *J0 = Jv + n2;
      double *J1 = J0 + n2;
      rand_config(&g, m, q);
      rand_tangent(&g, m, 1.0, 0, v);
      for (int i = 1; i <= m->nb; i++) { /* rotation vectors of length scales[sc] exactly */
        mb_joint_type t = m->jtype[i];
        double *phi = v + m->iv[i] + (t == MB_JOINT_FLOATING ? 3 : t == MB_JOINT_PLANAR ? 2 : 0);
        int len = t == MB_JOINT_PLANAR ? 1 : 3;
        double s = 0;
        for (int k = 0; k < len; k++) s += phi[k] * phi[k];
        for (int k = 0; k < len; k++) phi[k] *= scales[sc] / (dt * sqrt(s));
      }
      assert_int_equal(mb_integrate_jacobians(m, q, v, dt, Jq, Jv), MB_OK);
      assert_int_equal(mb_integrate(m, q, v, dt, q1), MB_OK);
      assert_int_equal(mb_difference_jacobians(m, q, q1, J0, J1), MB_OK);
      for (int i = 1; i <= m->nb; i++) {
        mb_joint_type t = m->jtype[i];
        if (t != MB_JOINT_SPHERICAL && t != MB_JOINT_FLOATING && t != MB_JOINT_PLANAR) continue;
        int n = mb_joint_nv(t), at = m->iv[i];
        double tau[6], A[36], ref[36], B[36], P[36], eye[36];
        for (int k = 0; k < n; k++) tau[k] = v[at + k] * dt;
        ad_matrix(t, tau, A);
        ad_series(A, n, 0, ref);
        block_of(Jq, nv, at, n, B);
        MBT_ASSERT_REL(B, ref, n * n, 1e-13);
        ad_series(A, n, 1, ref);
        for (int k = 0; k < n * n; k++) ref[k] *= dt, eye[k] = (k % (n + 1) == 0);
        block_of(Jv, nv, at, n, B);
        MBT_ASSERT_REL(B, ref, n * n, 1e-13);
        for (int pass = 0; pass < 2; pass++) { /* J1 Jr(τ) = 1, J0 Jr(−τ) = −1 */
          for (int k = 0; k < n * n; k++) A[k] = -A[k]; /* ad_{−τ}, then ad_τ again */
          ad_series(A, n, 1, ref);
          block_of(pass ? J1 : J0, nv, at, n, B);
          for (int r = 0; r < n; r++)
            for (int c = 0; c < n; c++) {
              double s = 0;
              for (int k = 0; k < n; k++) s += B[n * r + k] * ref[n * k + c];
              P[n * r + c] = pass ? s : -s;
            }
          MBT_ASSERT_NEAR(P, eye, n * n, 1e-13);
        }
      }
      free(q);
      mbt_tree_free(x.t);
    }
}

/* ---- identities ------------------------------------------------------------------------------ */

/* Exact: at v = 0, Jq = 1 and Jv = dt 1 (Exp(0) = 1, Jr(0) = 1); within rounding: at q0 = q1,
 * J1 = 1 and J0 = −1 (q ⊖ q is 0 up to the rounding of q⁻¹ ⊗ q, about 1e-16). */
static void test_identities_at_zero(void **st) {
  (void)st;
  mbt_rng g;
  mbt_rng_seed(&g, 4604);
  for (uint64_t seed = 1; seed <= 12; seed++) {
    tmodel x;
    tmodel_make(&x, seed, (int)(seed % 3 == 0));
    const mb_model *m = &x.m;
    int nv = m->nv;
    size_t n2 = (size_t)nv * (size_t)nv;
    double *q = malloc(sizeof(double) * ((size_t)(m->nq + nv) + 2 * n2)), dt = 0.25;
    double *v = q + m->nq, *Ja = v + nv, *Jb = Ja + n2;
    rand_config(&g, m, q);
    memset(v, 0, sizeof(double) * (size_t)nv);
    assert_int_equal(mb_integrate_jacobians(m, q, v, dt, Ja, Jb), MB_OK);
    for (int r = 0; r < nv; r++)
      for (int c = 0; c < nv; c++) {
        assert_true(Ja[r * nv + c] == (r == c ? 1.0 : 0.0));
        assert_true(Jb[r * nv + c] == (r == c ? dt : 0.0));
      }
    assert_int_equal(mb_difference_jacobians(m, q, q, Ja, Jb), MB_OK);
    for (int r = 0; r < nv; r++)
      for (int c = 0; c < nv; c++) {
        MBT_ASSERT_NEAR1(Ja[r * nv + c], r == c ? -1.0 : 0.0, 1e-15);
        MBT_ASSERT_NEAR1(Jb[r * nv + c], r == c ? 1.0 : 0.0, 1e-15);
      }
    free(q);
    mbt_tree_free(x.t);
  }
}

/* The chain rule on (q0 ⊕ v) ⊖ q0 = v (|φ| < π), with the Jacobians at dt = 1 and q1 = q0 ⊕ v:
 * ∂/∂v gives J1 Jv = 1, ∂/∂q0 gives J0 + J1 Jq = 0; to 1e-12 (rounding of a few products). */
static void test_chain_rule(void **st) {
  (void)st;
  mbt_rng g;
  mbt_rng_seed(&g, 4605);
  for (uint64_t seed = 1; seed <= 12; seed++)
    for (int sc = 0; sc < 3; sc++) {
      tmodel x;
      tmodel_make(&x, seed, (int)(seed % 2 == 0));
      const mb_model *m = &x.m;
      int nv = m->nv;
      size_t n2 = (size_t)nv * (size_t)nv;
      double *q0 = malloc(sizeof(double) * ((size_t)(2 * m->nq + nv) + 6 * n2));
      double *q1 = q0 + m->nq, *v = q1 + m->nq, *Jq = v + nv, *Jv = Jq + n2, *J0 = Jv + n2;
      double *J1 = J0 + n2, *P = J1 + n2, *want = P + n2;
      rand_config(&g, m, q0);
      rand_tangent(&g, m, SCALES[sc], 0, v);
      assert_int_equal(mb_integrate(m, q0, v, 1.0, q1), MB_OK);
      assert_int_equal(mb_integrate_jacobians(m, q0, v, 1.0, Jq, Jv), MB_OK);
      assert_int_equal(mb_difference_jacobians(m, q0, q1, J0, J1), MB_OK);
      for (int pass = 0; pass < 2; pass++) {
        const double *B = pass ? Jq : Jv;
        for (int r = 0; r < nv; r++)
          for (int c = 0; c < nv; c++) {
            double s = pass ? J0[r * nv + c] : 0;
            for (int k = 0; k < nv; k++) s += J1[r * nv + k] * B[k * nv + c];
            P[r * nv + c] = s, want[r * nv + c] = !pass && r == c;
          }
        MBT_ASSERT_NEAR(P, want, n2, 1e-12);
      }
      free(q0);
      mbt_tree_free(x.t);
    }
}

/* ---- the contract ---------------------------------------------------------------------------- */

/* NULL arguments (MB_EINVAL), either output alone (the same numbers as with both), a non-finite
 * velocity or a zero quaternion (MB_ENUMERIC). */
static void test_contract(void **st) {
  (void)st;
  mbt_rng g;
  mbt_rng_seed(&g, 4606);
  tmodel x;
  tmodel_make(&x, 1, 0); /* floating base: a quaternion at q[3..6] */
  const mb_model *m = &x.m;
  int nv = m->nv;
  size_t n2 = (size_t)nv * (size_t)nv;
  double *q = malloc(sizeof(double) * ((size_t)(2 * m->nq + nv) + 4 * n2));
  double *q1 = q + m->nq, *v = q1 + m->nq, *A = v + nv, *B = A + n2, *C = B + n2, *D = C + n2;
  rand_config(&g, m, q);
  rand_tangent(&g, m, 1.0, 0, v);
  assert_int_equal(mb_integrate(m, q, v, 1.0, q1), MB_OK);
  assert_int_equal(mb_integrate_jacobians(NULL, q, v, 1.0, A, B), MB_EINVAL);
  assert_int_equal(mb_integrate_jacobians(m, NULL, v, 1.0, A, B), MB_EINVAL);
  assert_int_equal(mb_integrate_jacobians(m, q, NULL, 1.0, A, B), MB_EINVAL);
  assert_int_equal(mb_difference_jacobians(NULL, q, q1, A, B), MB_EINVAL);
  assert_int_equal(mb_difference_jacobians(m, NULL, q1, A, B), MB_EINVAL);
  assert_int_equal(mb_difference_jacobians(m, q, NULL, A, B), MB_EINVAL);
  assert_int_equal(mb_integrate_jacobians(m, q, v, 0.5, A, B), MB_OK);
  assert_int_equal(mb_integrate_jacobians(m, q, v, 0.5, C, NULL), MB_OK);
  assert_int_equal(mb_integrate_jacobians(m, q, v, 0.5, NULL, D), MB_OK);
  assert_memory_equal(A, C, n2 * sizeof *A);
  assert_memory_equal(B, D, n2 * sizeof *B);
  assert_int_equal(mb_difference_jacobians(m, q, q1, A, B), MB_OK);
  assert_int_equal(mb_difference_jacobians(m, q, q1, C, NULL), MB_OK);
  assert_int_equal(mb_difference_jacobians(m, q, q1, NULL, D), MB_OK);
  assert_memory_equal(A, C, n2 * sizeof *A);
  assert_memory_equal(B, D, n2 * sizeof *B);
  assert_int_equal(mb_integrate_jacobians(m, q, v, 0.5, NULL, NULL), MB_OK);
  v[4] = NAN; /* the floating base's angular velocity */
  assert_int_equal(mb_integrate_jacobians(m, q, v, 0.5, A, B), MB_ENUMERIC);
  memset(q1 + 3, 0, 4 * sizeof *q1); /* a zero quaternion: no rotation */
  assert_int_equal(mb_difference_jacobians(m, q, q1, A, B), MB_ENUMERIC);
  free(q);
  mbt_tree_free(x.t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_integrate_against_differences),
      cmocka_unit_test(test_difference_against_differences),
      cmocka_unit_test(test_blocks_against_ad_series),
      cmocka_unit_test(test_identities_at_zero),
      cmocka_unit_test(test_chain_rule),
      cmocka_unit_test(test_contract),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
