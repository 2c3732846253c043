/* test_spatial.c — spatial algebra (runtime/spatial.c) against dense 6×6 references built here
 * from the textbook definitions (Featherstone, "Rigid Body Dynamics Algorithms", 2008, ch. 2),
 * and the algebraic identities. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

enum { TRIALS = 200 };

/* Dense references, row-major 6×6. */
static void skew(const double a[3], double S[9]) {
  S[0] = 0, S[1] = -a[2], S[2] = a[1];
  S[3] = a[2], S[4] = 0, S[5] = -a[0];
  S[6] = -a[1], S[7] = a[0], S[8] = 0;
}

static void mm3(const double *A, const double *B, double *C) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      C[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) C[3 * i + j] += A[3 * i + k] * B[3 * k + j];
    }
}

/* Put 3×3 block B at block (bi, bj) of the 6×6 D, scaled by s. */
static void put(double *D, int bi, int bj, const double *B, double s) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) D[6 * (3 * bi + i) + 3 * bj + j] = s * B[3 * i + j];
}

/* BXA = [E 0; −E r× E] */
static void dense_X(const double E[9], const double r[3], double X[36]) {
  double rx[9], Erx[9], Z[9] = {0};
  skew(r, rx);
  mm3(E, rx, Erx);
  put(X, 0, 0, E, 1), put(X, 0, 1, Z, 1), put(X, 1, 0, Erx, -1), put(X, 1, 1, E, 1);
}

/* BX*A = [E −E r×; 0 E] */
static void dense_Xf(const double E[9], const double r[3], double X[36]) {
  double rx[9], Erx[9], Z[9] = {0};
  skew(r, rx);
  mm3(E, rx, Erx);
  put(X, 0, 0, E, 1), put(X, 0, 1, Erx, -1), put(X, 1, 0, Z, 1), put(X, 1, 1, E, 1);
}

/* crm(v) = [ω× 0; v× ω×] */
static void dense_crm(const double v[6], double C[36]) {
  double wx[9], vx[9], Z[9] = {0};
  skew(v, wx), skew(v + 3, vx);
  put(C, 0, 0, wx, 1), put(C, 0, 1, Z, 1), put(C, 1, 0, vx, 1), put(C, 1, 1, wx, 1);
}

/* I = [Ic + m c× c×ᵀ, m c×; m c×ᵀ, m 1] from mass, COM and Ic (not from the 10 numbers). */
static void dense_I(double m, const double c[3], const double Ic[9], double I[36]) {
  double cx[9], cxT[9], cc[9], one[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, A[9];
  skew(c, cx);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) cxT[3 * i + j] = cx[3 * j + i];
  mm3(cx, cxT, cc);
  for (int k = 0; k < 9; k++) A[k] = Ic[k] + m * cc[k];
  put(I, 0, 0, A, 1), put(I, 0, 1, cx, m), put(I, 1, 0, cxT, m), put(I, 1, 1, one, m);
}

static void mv6(const double *A, const double *x, double *y) {
  for (int i = 0; i < 6; i++) {
    y[i] = 0;
    for (int k = 0; k < 6; k++) y[i] += A[6 * i + k] * x[k];
  }
}

static void tmv6(const double *A, const double *x, double *y) {
  for (int i = 0; i < 6; i++) {
    y[i] = 0;
    for (int k = 0; k < 6; k++) y[i] += A[6 * k + i] * x[k];
  }
}

static void mm6(const double *A, const double *B, double *C) {
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++) {
      C[6 * i + j] = 0;
      for (int k = 0; k < 6; k++) C[6 * i + j] += A[6 * i + k] * B[6 * k + j];
    }
}

static void rand_X(mbt_rng *g, double E[9], double r[3]) {
  mbt_rand_rot(g, E);
  mbt_rand_vec(g, 3, -2, 2, r);
}

/* The four transform applications against dense X, X*, Xᵀ, X⁻¹ = (X*)ᵀ. */
static void test_transforms_vs_dense(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 1);
  for (int t = 0; t < TRIALS; t++) {
    double E[9], r[3], X[36], Xf[36], m[6], got[6], want[6];
    rand_X(&g, E, r);
    mbt_rand_vec(&g, 6, -1, 1, m);
    dense_X(E, r, X), dense_Xf(E, r, Xf);
    mbs_X_mv(E, r, m, got), mv6(X, m, want);
    MBT_ASSERT_NEAR(got, want, 6, 1e-14);
    mbs_X_fv(E, r, m, got), mv6(Xf, m, want);
    MBT_ASSERT_NEAR(got, want, 6, 1e-14);
    mbs_XT_fv(E, r, m, got), tmv6(X, m, want); /* Xᵀ f */
    MBT_ASSERT_NEAR(got, want, 6, 1e-14);
    mbs_Xinv_mv(E, r, m, got), tmv6(Xf, m, want); /* X⁻¹ = X*ᵀ */
    MBT_ASSERT_NEAR(got, want, 6, 1e-14);
  }
}

/* X⁻¹ X m = m;  (X1 X2) m = X1 (X2 m);  mbs_X_inv gives X⁻¹;  (X m)·(X* f) = m·f. */
static void test_inverse_compose(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 2);
  for (int t = 0; t < TRIALS; t++) {
    double E1[9], r1[3], E2[9], r2[3], E[9], r[3], Ei[9], ri[3], m[6], f[6], a[6], b[6], c[6];
    double X1[36], X2[36], X12[36], X[36];
    rand_X(&g, E1, r1), rand_X(&g, E2, r2);
    mbt_rand_vec(&g, 6, -1, 1, m), mbt_rand_vec(&g, 6, -1, 1, f);
    mbs_X_mv(E1, r1, m, a), mbs_Xinv_mv(E1, r1, a, b);
    MBT_ASSERT_NEAR(b, m, 6, 1e-14);
    mbs_X_fv(E1, r1, f, a), mbs_XT_fv(E1, r1, a, b);
    MBT_ASSERT_NEAR(b, f, 6, 1e-14);
    mbs_X_compose(E1, r1, E2, r2, E, r);
    dense_X(E1, r1, X1), dense_X(E2, r2, X2), dense_X(E, r, X), mm6(X1, X2, X12);
    MBT_ASSERT_NEAR(X, X12, 36, 1e-13);
    mbs_X_inv(E1, r1, Ei, ri);
    mbs_X_mv(E1, r1, m, a), mbs_X_mv(Ei, ri, a, b);
    MBT_ASSERT_NEAR(b, m, 6, 1e-14);
    mbs_X_mv(E1, r1, m, a), mbs_X_fv(E1, r1, f, c);
    double p0 = 0, p1 = 0;
    for (int k = 0; k < 6; k++) p0 += m[k] * f[k], p1 += a[k] * c[k];
    MBT_ASSERT_NEAR1(p1, p0, 1e-13);
    /* in-place composition */
    mbs_X_compose(E1, r1, E2, r2, E2, r2);
    MBT_ASSERT_NEAR(E2, E, 9, 0.0);
    MBT_ASSERT_NEAR(r2, r, 3, 0.0);
  }
}

/* crm(v) m against dense crm; crf(v) f = −crm(v)ᵀ f; v × v = 0. */
static void test_cross_products(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 3);
  for (int t = 0; t < TRIALS; t++) {
    double v[6], m[6], C[36], got[6], want[6];
    mbt_rand_vec(&g, 6, -1, 1, v), mbt_rand_vec(&g, 6, -1, 1, m);
    dense_crm(v, C);
    mbs_crm(v, m, got), mv6(C, m, want);
    MBT_ASSERT_NEAR(got, want, 6, 1e-15);
    mbs_crf(v, m, got), tmv6(C, m, want);
    for (int k = 0; k < 6; k++) want[k] = -want[k];
    MBT_ASSERT_NEAR(got, want, 6, 1e-15);
    double zero[6] = {0};
    mbs_crm(v, v, got);
    MBT_ASSERT_NEAR(got, zero, 6, 1e-15);
  }
}

/* Random body: mass, COM, Ic; its 10 numbers via the test builder. */
static void rand_inertia(mbt_rng *g, double *m, double c[3], double Ic9[9], double I10[10]) {
  mbt_tree *t = mbt_randtree((uint64_t)mbt_randint(g, 1, 1 << 30), 1, 0);
  for (int k = 0; k < 10; k++) I10[k] = t->inertia[10 + k];
  mbt_tree_free(t);
  /* recover m, c, Ic from the random body: Ic = Ī − m c× c×ᵀ (checked against dense_I below) */
  double Ib[9], cx[9], cxT[9], cc[9];
  *m = I10[0];
  for (int k = 0; k < 3; k++) c[k] = I10[1 + k] / *m;
  mbs_sym3_full(I10 + 4, Ib);
  skew(c, cx);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) cxT[3 * i + j] = cx[3 * j + i];
  mm3(cx, cxT, cc);
  for (int k = 0; k < 9; k++) Ic9[k] = Ib[k] - *m * cc[k];
}

/* I m and λX*_i I iXλ against the dense I = [Ic + m c×c×ᵀ, m c×; m c×ᵀ, m 1] and Xᵀ I X. */
static void test_inertia(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 4);
  for (int t = 0; t < TRIALS; t++) {
    double m, c[3], Ic[9], I10[10], I[36], E[9], r[3], X[36], XtI[36], IXp[36], P10[10], P[36];
    double v[6], got[6], want[6], XI[36];
    rand_inertia(&g, &m, c, Ic, I10);
    dense_I(m, c, Ic, I);
    mbt_rand_vec(&g, 6, -1, 1, v);
    mbs_I_mv(I10, v, got), mv6(I, v, want);
    MBT_ASSERT_NEAR(got, want, 6, 1e-14);
    /* P = Xᵀ I X, and the same from mbs_I_to_parent then dense_I of its (m, c, Ic) */
    rand_X(&g, E, r);
    dense_X(E, r, X);
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 6; j++) XtI[6 * i + j] = X[6 * j + i];
    mm6(XtI, I, XI), mm6(XI, X, IXp);
    mbs_I_to_parent(E, r, I10, P10);
    for (int k = 0; k < 6; k++) {
      double e[6] = {0};
      e[k] = 1;
      mbs_I_mv(P10, e, got);
      for (int i = 0; i < 6; i++) P[6 * i + k] = got[i];
    }
    MBT_ASSERT_NEAR(P, IXp, 36, 1e-13);
    /* in place */
    mbs_I_to_parent(E, r, I10, I10);
    MBT_ASSERT_NEAR(I10, P10, 10, 0.0);
  }
}

/* Quaternions: R(q) is a rotation; R(a ⊗ b) = R(a) R(b); exp(θ a) = rot(a, θ); normalize. */
static void test_quaternions(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 5);
  for (int t = 0; t < TRIALS; t++) {
    double a[4], b[4], ab[4], Ra[9], Rb[9], Rab[9], RaRb[9], RRt[9], one[9] = {1, 0, 0, 0, 1, 0, 0,
                                                                              0, 1};
    mbt_rand_quat(&g, a), mbt_rand_quat(&g, b);
    mbs_quat_to_rot(a, Ra), mbs_quat_to_rot(b, Rb);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        RRt[3 * i + j] = Ra[3 * i] * Ra[3 * j] + Ra[3 * i + 1] * Ra[3 * j + 1] +
                         Ra[3 * i + 2] * Ra[3 * j + 2];
    MBT_ASSERT_NEAR(RRt, one, 9, 1e-14);
    mbs_quat_mul(a, b, ab), mbs_quat_to_rot(ab, Rab), mm3(Ra, Rb, RaRb);
    MBT_ASSERT_NEAR(Rab, RaRb, 9, 1e-14);
    double ax[3], th = mbt_uniform(&g, -4, 4), w[3], e[4], Re[9], Rr[9];
    mbt_unit3(&g, ax);
    for (int k = 0; k < 3; k++) w[k] = th * ax[k];
    mbs_quat_exp(w, e), mbs_quat_to_rot(e, Re), mbs_rot_axis(ax, th, Rr);
    MBT_ASSERT_NEAR(Re, Rr, 9, 1e-14);
    /* tiny angles use the series: compare with rot_axis too */
    for (int k = 0; k < 3; k++) w[k] = 1e-6 * ax[k];
    mbs_quat_exp(w, e), mbs_quat_to_rot(e, Re), mbs_rot_axis(ax, 1e-6, Rr);
    MBT_ASSERT_NEAR(Re, Rr, 9, 1e-15);
    double ewant[4] = {sin(0.5e-6) * ax[0], sin(0.5e-6) * ax[1], sin(0.5e-6) * ax[2], cos(0.5e-6)};
    MBT_ASSERT_REL(e, ewant, 4, 1e-15);
    double s[4] = {3 * a[0], 3 * a[1], 3 * a[2], 3 * a[3]};
    mbs_quat_normalize(s);
    MBT_ASSERT_NEAR(s, a, 4, 1e-14);
  }
  /* rot(z, 90°) maps the child x axis to the parent y axis (right-handed, child → parent) */
  double z[3] = {0, 0, 1}, R[9], x[3] = {1, 0, 0}, y[3], ywant[3] = {0, 1, 0};
  mbs_rot_axis(z, 1.5707963267948966, R);
  mbs_mat3_mv(R, x, y);
  MBT_ASSERT_NEAR(y, ywant, 3, 1e-15);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_transforms_vs_dense), cmocka_unit_test(test_inverse_compose),
      cmocka_unit_test(test_cross_products),      cmocka_unit_test(test_inertia),
      cmocka_unit_test(test_quaternions),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
