/* test_integrate.c — q ⊕ v dt on the joint manifolds (runtime/integrate.c). References: exact
 * scalar steps, the one-parameter-subgroup law, the kinematic differential equations integrated
 * here by RK4, and the quaternion rate q̇ = ½ q ⊗ [ω; 0]. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

typedef struct state {
  mbt_tree *t;
  double *q, *v, *q1, *q2, *q3;
} state_t;

static void setup(state_t *s, mbt_rng *g, uint64_t seed) {
  s->t = mbt_randtree(seed, 15, (int)(seed % 2));
  size_t nq = (size_t)s->t->model.nq;
  s->q = malloc(sizeof(double) * (4 * nq + (size_t)s->t->model.nv));
  s->q1 = s->q + nq, s->q2 = s->q1 + nq, s->q3 = s->q2 + nq, s->v = s->q3 + nq;
  mbt_rand_q(g, &s->t->model, s->q);
  mbt_rand_vec(g, s->t->model.nv, -3, 3, s->v);
}

static void teardown(state_t *s) {
  free(s->q);
  mbt_tree_free(s->t);
}

/* Scalar joints step by exactly v dt; every quaternion keeps unit norm over 1000 steps. */
static void test_scalars_and_unit_quaternions(void **st) {
  (void)st;
  mbt_rng g;
  mbt_rng_seed(&g, 41);
  for (uint64_t seed = 1; seed <= 10; seed++) {
    state_t s;
    setup(&s, &g, seed);
    const mb_model *m = &s.t->model;
    mb_integrate(m, s.q, s.v, 0.01, s.q1);
    for (int i = 1; i <= m->nb; i++)
      if (mb_joint_nq(m->jtype[i]) == 1)
        assert_true(s.q1[m->iq[i]] == s.q[m->iq[i]] + s.v[m->iv[i]] * 0.01);
    memcpy(s.q1, s.q, sizeof(double) * (size_t)m->nq);
    for (int step = 0; step < 1000; step++) mb_integrate(m, s.q1, s.v, 0.01, s.q1); /* in place */
    for (int i = 1; i <= m->nb; i++) {
      mb_joint_type t = m->jtype[i];
      if (t != MB_JOINT_SPHERICAL && t != MB_JOINT_FLOATING) continue;
      const double *u = s.q1 + m->iq[i] + (t == MB_JOINT_FLOATING ? 3 : 0);
      MBT_ASSERT_NEAR1(sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2] + u[3] * u[3]), 1.0, 1e-15);
    }
    teardown(&s);
  }
}

/* Constant velocity is a one-parameter subgroup: (q ⊕ v t1) ⊕ v t2 = q ⊕ v (t1 + t2). */
static void test_group_law(void **st) {
  (void)st;
  mbt_rng g;
  mbt_rng_seed(&g, 42);
  for (uint64_t seed = 1; seed <= 10; seed++) {
    state_t s;
    setup(&s, &g, seed);
    const mb_model *m = &s.t->model;
    mb_integrate(m, s.q, s.v, 0.3, s.q1);
    mb_integrate(m, s.q1, s.v, 0.5, s.q2);
    mb_integrate(m, s.q, s.v, 0.8, s.q3);
    MBT_ASSERT_NEAR(s.q2, s.q3, m->nq, 1e-13);
    mb_integrate(m, s.q1, s.v, -0.3, s.q2);
    MBT_ASSERT_NEAR(s.q2, s.q, m->nq, 1e-13);
    teardown(&s);
  }
}

/* d/dt (p, R) = (R v_lin, R ω×) with R, ω × written out; one RK4 step of size h. */
static void rk4_deriv(const double *y, const double vl[3], const double w[3], double *dy) {
  const double *R = y + 3;
  double wx[9] = {0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0};
  mbs_mat3_mv(R, vl, dy);
  mbs_mat3_mul(R, wx, dy + 3);
}

static void rk4(double *y, const double vl[3], const double w[3], double h) {
  double k1[12], k2[12], k3[12], k4[12], t[12];
  rk4_deriv(y, vl, w, k1);
  for (int k = 0; k < 12; k++) t[k] = y[k] + 0.5 * h * k1[k];
  rk4_deriv(t, vl, w, k2);
  for (int k = 0; k < 12; k++) t[k] = y[k] + 0.5 * h * k2[k];
  rk4_deriv(t, vl, w, k3);
  for (int k = 0; k < 12; k++) t[k] = y[k] + h * k3[k];
  rk4_deriv(t, vl, w, k4);
  for (int k = 0; k < 12; k++) y[k] += h / 6 * (k1[k] + 2 * k2[k] + 2 * k3[k] + k4[k]);
}

/* A floating joint with a constant body twist: mb_integrate's closed form (SE(3) exponential)
 * against RK4 on ṗ = R v_lin, Ṙ = R ω× over 2000 substeps. */
static void test_floating_vs_rk4(void **st) {
  (void)st;
  mbt_rng g;
  mbt_rng_seed(&g, 43);
  mbt_tree *t = mbt_randtree(1, 1, 1);
  const mb_model *m = &t->model;
  for (int trial = 0; trial < 20; trial++) {
    double q[7], v[6], qo[7], y[12], want[12], dt = mbt_uniform(&g, 0.1, 2);
    mbt_rand_q(&g, m, q), mbt_rand_vec(&g, 6, -2, 2, v);
    mb_integrate(m, q, v, dt, qo);
    memcpy(y, q, sizeof(double) * 3);
    mbs_quat_to_rot(q + 3, y + 3);
    for (int k = 0; k < 2000; k++) rk4(y, v, v + 3, dt / 2000);
    memcpy(want, qo, sizeof(double) * 3);
    mbs_quat_to_rot(qo + 3, want + 3);
    MBT_ASSERT_NEAR(want, y, 12, 1e-10);
  }
  mbt_tree_free(t);
}

/* Small-step consistency: central differences of q ⊕ ε v against the kinematic equations:
 * scalars q̇ = v, quaternions q̇ = ½ q ⊗ [ω; 0], a floating origin ṗ = R(q) v_lin, a planar one
 * [ẋ ẏ] = R(θ) [v_u v_w] with θ̇ = ω. */
static void test_small_step(void **st) {
  (void)st;
  mbt_rng g;
  mbt_rng_seed(&g, 44);
  for (uint64_t seed = 1; seed <= 10; seed++) {
    state_t s;
    setup(&s, &g, seed);
    const mb_model *m = &s.t->model;
    double h = 1e-5;
    mb_integrate(m, s.q, s.v, h, s.q1), mb_integrate(m, s.q, s.v, -h, s.q2);
    for (int k = 0; k < m->nq; k++) s.q1[k] = (s.q1[k] - s.q2[k]) / (2 * h);
    for (int i = 1; i <= m->nb; i++) {
      const double *qi = s.q + m->iq[i], *vi = s.v + m->iv[i];
      double want[7], R[9], w[4] = {0, 0, 0, 0};
      int nq = mb_joint_nq(m->jtype[i]);
      switch (m->jtype[i]) {
      case MB_JOINT_SPHERICAL:
        memcpy(w, vi, sizeof(double) * 3), mbs_quat_mul(qi, w, want);
        for (int k = 0; k < 4; k++) want[k] *= 0.5;
        break;
      case MB_JOINT_FLOATING:
        mbs_quat_to_rot(qi + 3, R), mbs_mat3_mv(R, vi, want);
        memcpy(w, vi + 3, sizeof(double) * 3), mbs_quat_mul(qi + 3, w, want + 3);
        for (int k = 3; k < 7; k++) want[k] *= 0.5;
        break;
      case MB_JOINT_FIXED:
        continue;
      case MB_JOINT_PLANAR:
        want[0] = cos(qi[2]) * vi[0] - sin(qi[2]) * vi[1];
        want[1] = sin(qi[2]) * vi[0] + cos(qi[2]) * vi[1], want[2] = vi[2];
        break;
      default:
        for (int k = 0; k < nq; k++) want[k] = vi[k];
      }
      MBT_ASSERT_NEAR(s.q1 + m->iq[i], want, nq, 1e-9);
    }
    teardown(&s);
  }
}

/* mb_difference inverts mb_integrate: q ⊖ (q ⊕ v/2) = v/2 while every rotation stays below π
 * (|v_k| ≤ 3 here: |v/2| ≤ 2.6 rad), (q ⊕ (q1 ⊖ q)) = q1 for any q1 (a quaternion up to its sign),
 * and q ⊖ q = 0 exactly where nothing rotates. */
static void test_difference(void **st) {
  (void)st;
  mbt_rng g;
  mbt_rng_seed(&g, 43);
  for (uint64_t seed = 1; seed <= 20; seed++) {
    state_t s;
    setup(&s, &g, seed);
    const mb_model *m = &s.t->model;
    int nv = m->nv, nq = m->nq;
    double *d = malloc(sizeof(double) * (size_t)nv);
    assert_non_null(d);
    assert_int_equal(mb_integrate(m, s.q, s.v, 0.5, s.q1), MB_OK); /* |v| 0.5 ≤ 2.6 < π */
    assert_int_equal(mb_difference(m, s.q, s.q1, d), MB_OK);
    for (int k = 0; k < nv; k++) d[k] *= 2.0;
    MBT_ASSERT_NEAR(d, s.v, (size_t)nv, 1e-12);
    mbt_rand_q(&g, m, s.q2); /* any configuration: rotations up to π apart */
    assert_int_equal(mb_difference(m, s.q, s.q2, d), MB_OK);
    assert_int_equal(mb_integrate(m, s.q, d, 1.0, s.q3), MB_OK);
    for (int i = 1; i <= m->nb; i++) {
      mb_joint_type t = m->jtype[i];
      int o = m->iq[i], k0 = t == MB_JOINT_FLOATING ? 3 : 0, nqi = mb_joint_nq(t);
      double sgn = 1;
      if (t == MB_JOINT_SPHERICAL || t == MB_JOINT_FLOATING) { /* q and −q: one rotation */
        double dot = 0, n2 = 0;
        for (int k = 0; k < 4; k++) dot += s.q3[o + k0 + k] * s.q2[o + k0 + k];
        for (int k = 0; k < 4; k++) n2 += s.q2[o + k0 + k] * s.q2[o + k0 + k];
        sgn = dot < 0 ? -1 : 1;
        for (int k = 0; k < 4; k++) s.q2[o + k0 + k] *= sgn / sqrt(n2);
      }
      MBT_ASSERT_NEAR(s.q3 + o, s.q2 + o, (size_t)nqi, 1e-12);
    }
    assert_int_equal(mb_difference(m, s.q, s.q, d), MB_OK);
    for (int k = 0; k < nv; k++) assert_true(fabs(d[k]) <= 1e-15);
    (void)nq;
    free(d);
    teardown(&s);
  }
  assert_int_equal(mb_difference(NULL, NULL, NULL, NULL), MB_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_difference),
      cmocka_unit_test(test_scalars_and_unit_quaternions),
      cmocka_unit_test(test_group_law),
      cmocka_unit_test(test_floating_vs_rk4),
      cmocka_unit_test(test_small_step),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
