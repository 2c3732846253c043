/* test_passive_fd.c — forward dynamics with the passive forces (runtime/mb.h mb_passive_tau,
 * mb_aba_derivatives_passive: what the generator's --passive-in-fd computes). References:
 *   - analytic: a damped pendulum on a spring (revolute joint, point mass m at distance l,
 *     armature Ia, damping d, smoothed Coulomb friction f, stiffness k toward q0):
 *     q̈ = (τ − d q̇ − f s(q̇) − k (q − q0) − m g l sin q) / (m l² + Ia), s(q̇) = q̇ / max(|q̇|,
 *     10⁻³), and its derivatives ∂q̈/∂q = (−k − m g l cos q) / (m l² + Ia), ∂q̈/∂q̇ = (−d −
 *     f s'(q̇)) / (m l² + Ia), s' = 10³ inside the band, 0 outside;
 *   - identities on random trees (every joint type, floating bases): mb_passive_tau is τ +
 *     mb_passive_forces; mb_aba_derivatives_passive's q̈-derivatives against central differences
 *     of q ↦ mb_aba(q, v, mb_passive_tau(q, v, τ)) (along the tangent space, mb_integrate) and
 *     v ↦ the same; its M⁻¹ is mb_minv's;
 *   - refusals: springs (their derivatives are not computed) and NULL arguments. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

enum { NV_MAX = 64 };

static const double Y[3] = {0, 1, 0}, ZERO[3] = {0, 0, 0};

/* The pendulum: mass m at (0, 0, −l) on a revolute joint about y; gravity −9.81 z. */
static mbt_tree *pendulum(double m, double l) {
  mbt_tree *t = mbt_tree_new(1);
  const double c[3] = {0, 0, -l}, Ic[6] = {0};
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, Y, NULL, ZERO);
  mbt_tree_body(t, 1, m, c, Ic);
  mbt_tree_finish(t);
  return t;
}

static void test_damped_pendulum(void **state) {
  (void)state;
  const double m = 2.0, l = 0.5, Ia = 0.3, g = 9.81, d = 0.4, f = 0.2, k = 3.0, q0 = 0.25;
  mbt_tree *t = pendulum(m, l);
  double arm = Ia, damping = d, friction = f, stiffness = k, qref = q0;
  t->model.armature = &arm;
  mb_springs S = {0, NULL, &damping, &friction, &stiffness, &qref};
  mb_workspace ws;
  double *buf = mbt_workspace_new(&t->model, &ws);
  assert_int_equal(mb_springs_check(&t->model, &S, NULL, 0), 0);
  const double I = m * l * l + Ia, tau = 1.25;
  /* q̇ outside the band (s = sign), inside it (s = q̇ / 10⁻³), and at rest */
  const double qs[3] = {0.7, -1.1, 2.0}, vs[3] = {0.4, -4e-4, 0.0};
  for (int c = 0; c < 3; c++) {
    double q = qs[c], v = vs[c], te, qdd, qdd2, dq, dv, Mi;
    double s = fabs(v) >= 1e-3 ? (v > 0 ? 1.0 : -1.0) : v / 1e-3;
    double sd = fabs(v) < 1e-3 ? 1e3 : 0.0;
    double want = (tau - d * v - f * s - k * (q - q0) - m * g * l * sin(q)) / I;
    assert_int_equal(mb_passive_tau(&t->model, &S, &ws, &q, &v, &tau, &te), MB_OK);
    assert_int_equal(mb_aba(&t->model, &ws, &q, &v, &te, NULL, &qdd), MB_OK);
    MBT_ASSERT_NEAR1(qdd, want, 1e-13);
    assert_int_equal(mb_crba_fd(&t->model, &ws, &q, &v, &te, &qdd2), MB_OK);
    MBT_ASSERT_NEAR1(qdd2, want, 1e-13);
    assert_int_equal(mb_aba_derivatives_passive(&t->model, &S, &ws, &q, &v, &tau, &dq, &dv, &Mi),
                     MB_OK);
    MBT_ASSERT_NEAR1(dq, (-k - m * g * l * cos(q)) / I, 1e-13);
    MBT_ASSERT_NEAR1(dv, (-d - f * sd) / I, 1e-13);
    MBT_ASSERT_NEAR1(Mi, 1.0 / I, 1e-15);
  }
  /* the smoothed sign's slope on its own: 10³ inside, 0 outside and on the edge */
  MBT_ASSERT_NEAR1(mb_coulomb_sign_dv(5e-4), 1e3, 0);
  MBT_ASSERT_NEAR1(mb_coulomb_sign_dv(-1e-3), 0, 0);
  MBT_ASSERT_NEAR1(mb_coulomb_sign_dv(2.0), 0, 0);
  free(buf);
  mbt_tree_free(t);
}

/* q̈(q ⊕ e_k h, v + dv_k h) at the passive forces of S (scratch x, te of nq + 7 and nv). */
static void qdd_at(const mb_model *m, const mb_springs *S, mb_workspace *ws, const double *q,
                   const double *v, const double *tau, int k, double hq, double hv, double *qdd) {
  double e[NV_MAX] = {0}, x[7 * NV_MAX], vv[NV_MAX], te[NV_MAX];
  e[k] = 1.0;
  mb_integrate(m, q, e, hq, x);
  for (int j = 0; j < m->nv; j++) vv[j] = v[j] + (j == k ? hv : 0.0);
  assert_int_equal(mb_passive_tau(m, S, ws, x, vv, tau, te), MB_OK);
  assert_int_equal(mb_aba(m, ws, x, vv, te, NULL, qdd), MB_OK);
}

/* Random trees with random damping, friction (half of the dofs inside the band) and stiffness:
 * the derivatives against central differences (h = 10⁻⁶, v 10⁻⁴ or more from the band's edges;
 * their error, O(h²) and rounding O(ε / h), is below 10⁻⁹ of the largest entry). */
static void test_random_trees(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 23);
  for (int trial = 0; trial < 24; trial++) {
    mbt_tree *t = mbt_randtree(500 + (uint64_t)trial, 2 + trial % 6, trial % 3 == 0);
    const mb_model *m = &t->model;
    int nv = m->nv;
    assert_true(nv <= NV_MAX);
    double d[NV_MAX], f[NV_MAX], k[NV_MAX], r[NV_MAX], q[7 * NV_MAX], v[NV_MAX], tau[NV_MAX];
    mbt_rand_vec(&g, nv, 0, 2, d), mbt_rand_vec(&g, nv, 0, 1, f);
    mbt_rand_vec(&g, nv, 0, 5, k), mbt_rand_vec(&g, nv, -1, 1, r);
    mbt_rand_q(&g, m, q), mbt_rand_vec(&g, nv, -1, 1, v), mbt_rand_vec(&g, nv, -1, 1, tau);
    for (int j = 0; j < nv; j++) /* even dofs inside the band, odd ones 10⁻² or more outside */
      v[j] = j % 2 ? copysign(fmax(fabs(v[j]), 1e-2), v[j]) : mbt_uniform(&g, -9e-4, 9e-4);
    mb_springs S = {0, NULL, d, f, k, r};
    mb_workspace ws;
    double *buf = mbt_workspace_new(m, &ws);
    static double dq[NV_MAX * NV_MAX], dv[NV_MAX * NV_MAX], Mi[NV_MAX * NV_MAX],
        Mi2[NV_MAX * NV_MAX];
    double te[NV_MAX], tp[NV_MAX];
    assert_int_equal(mb_passive_tau(m, &S, &ws, q, v, tau, te), MB_OK);
    assert_int_equal(mb_passive_forces(m, &S, &ws, q, v, tp), MB_OK);
    for (int j = 0; j < nv; j++) MBT_ASSERT_NEAR1(te[j], tau[j] + tp[j], 0);
    int rc = mb_aba_derivatives_passive(m, &S, &ws, q, v, tau, dq, dv, Mi);
    if (rc == MB_ENUMERIC) { /* a draw where the ABA fails the pivot rule: skipped */
      free(buf), mbt_tree_free(t);
      continue;
    }
    assert_int_equal(rc, MB_OK);
    assert_int_equal(mb_minv(m, &ws, q, Mi2), MB_OK);
    MBT_ASSERT_REL(Mi, Mi2, nv * nv, 1e-14);
    const double h = 1e-6;
    for (int c = 0; c < nv; c++) {
      double p[NV_MAX], n[NV_MAX], fd[NV_MAX], got[NV_MAX];
      qdd_at(m, &S, &ws, q, v, tau, c, h, 0, p), qdd_at(m, &S, &ws, q, v, tau, c, -h, 0, n);
      for (int j = 0; j < nv; j++) fd[j] = (p[j] - n[j]) / (2 * h), got[j] = dq[nv * j + c];
      MBT_ASSERT_REL(got, fd, nv, 1e-6);
      qdd_at(m, &S, &ws, q, v, tau, c, 0, h, p), qdd_at(m, &S, &ws, q, v, tau, c, 0, -h, n);
      for (int j = 0; j < nv; j++) fd[j] = (p[j] - n[j]) / (2 * h), got[j] = dv[nv * j + c];
      MBT_ASSERT_REL(got, fd, nv, 1e-6);
    }
    free(buf);
    mbt_tree_free(t);
  }
}

static void test_arguments(void **state) {
  (void)state;
  mbt_tree *t = pendulum(1.0, 0.5);
  const mb_model *m = &t->model;
  mb_workspace ws;
  double *buf = mbt_workspace_new(m, &ws), q = 0.3, v = 0.1, tau = 0.5, te, dq, dv, Mi;
  double damping = 0.5;
  mb_spring s = {0, 1, {0, 0, 0}, {0, 0, 0}, 1, 0, 0};
  mb_springs S = {1, &s, &damping, NULL, NULL, NULL}, J = {0, NULL, &damping, NULL, NULL, NULL};
  /* springs: mb_passive_tau adds them; their derivatives are not computed */
  assert_int_equal(mb_passive_tau(m, &S, &ws, &q, &v, &tau, &te), MB_OK);
  assert_int_equal(mb_aba_derivatives_passive(m, &S, &ws, &q, &v, &tau, &dq, &dv, &Mi),
                   MB_EINVAL);
  assert_int_equal(mb_passive_tau(m, &J, &ws, &q, &v, NULL, &te), MB_EINVAL);
  assert_int_equal(mb_passive_tau(m, &J, &ws, &q, &v, &tau, NULL), MB_EINVAL);
  assert_int_equal(mb_passive_tau(m, NULL, &ws, &q, &v, &tau, &te), MB_EINVAL);
  assert_int_equal(mb_aba_derivatives_passive(m, NULL, &ws, &q, &v, &tau, &dq, &dv, &Mi),
                   MB_EINVAL);
  /* in place: out may alias tau */
  te = tau;
  assert_int_equal(mb_passive_tau(m, &J, &ws, &q, &v, &te, &te), MB_OK);
  MBT_ASSERT_NEAR1(te, tau - damping * v, 1e-15);
  free(buf);
  mbt_tree_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_damped_pendulum),
    cmocka_unit_test(test_random_trees),
    cmocka_unit_test(test_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
