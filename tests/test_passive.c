/* test_passive.c — spring-dampers (runtime/passive.c). References: a prismatic body on a spring
 * to the world in closed form, τ = −k (x − L0) − c ẋ; the zero-length rule (never NaN, zero force
 * at zero length); on pendulums and random trees of every joint type, the elastic part against
 * the finite-difference gradient of the potential energy, τ = −∂V/∂q (along each velocity
 * coordinate, through mb_integrate), and the damping part against −c (∂ℓ/∂q)(∂ℓ/∂q)ᵀ v; the
 * argument checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

static const double X[3] = {1, 0, 0}, Y[3] = {0, 1, 0}, ZERO[3] = {0, 0, 0};
static const double IC[6] = {0.1, 0.1, 0.1, 0, 0, 0};

/* One body on a prismatic joint along x from the world. */
static mbt_tree *slider(void) {
  mbt_tree *t = mbt_tree_new(1);
  mbt_tree_joint(t, 1, 0, MB_JOINT_PRISMATIC, X, NULL, NULL);
  mbt_tree_body(t, 1, 2.0, ZERO, IC);
  mbt_tree_finish(t);
  return t;
}

static mb_spring spring(int a, int b, const double ra[3], const double rb[3], double k, double c,
                        double L0) {
  mb_spring s = {a, b, {ra[0], ra[1], ra[2]}, {rb[0], rb[1], rb[2]}, k, c, L0};
  return s;
}

static void test_slider_closed_form(void **state) {
  (void)state;
  mbt_tree *t = slider();
  mb_workspace ws;
  double *buf = mbt_workspace_new(&t->model, &ws);
  const double k = 40, c = 1.5, L0 = 0.1;
  mb_spring s = spring(0, 1, ZERO, ZERO, k, c, L0);
  mb_springs S = {1, &s, NULL, NULL, NULL, NULL};
  char msg[100];
  assert_int_equal(mb_springs_check(&t->model, &S, msg, sizeof msg), 0);
  /* x > 0: ℓ = x, ℓ̇ = ẋ */
  double q = 0.3, v = 0.7, tau = 0;
  assert_int_equal(mb_passive_forces(&t->model, &S, &ws, &q, &v, &tau), MB_OK);
  MBT_ASSERT_NEAR1(tau, -k * (q - L0) - c * v, 1e-13);
  /* x < 0: ℓ = −x, the force points the other way; the damper still gives −c ẋ */
  q = -0.4;
  assert_int_equal(mb_passive_forces(&t->model, &S, &ws, &q, &v, &tau), MB_OK);
  MBT_ASSERT_NEAR1(tau, k * (-q - L0) - c * v, 1e-13);
  /* v NULL: zero velocity */
  assert_int_equal(mb_passive_forces(&t->model, &S, &ws, &q, NULL, &tau), MB_OK);
  MBT_ASSERT_NEAR1(tau, k * (-q - L0), 1e-13);
  /* the energy ½ k (ℓ − L0)² */
  MBT_ASSERT_NEAR1(mb_spring_energy(&t->model, &S, &ws, &q), 0.5 * k * 0.3 * 0.3, 1e-13);
  free(buf);
  mbt_tree_free(t);
}

/* At zero length the direction is undefined: the force is zero, never NaN; near it the spring
 * with L0 > 0 pushes the points apart with k L0, and with L0 = 0 the force is k x exactly. */
static void test_zero_length_rule(void **state) {
  (void)state;
  mbt_tree *t = slider();
  mb_workspace ws;
  double *buf = mbt_workspace_new(&t->model, &ws);
  mb_spring s = spring(0, 1, ZERO, ZERO, 40, 2, 0.5);
  mb_springs S = {1, &s, NULL, NULL, NULL, NULL};
  double q = 0, v = 3, tau = -1;
  assert_int_equal(mb_passive_forces(&t->model, &S, &ws, &q, &v, &tau), MB_OK);
  assert_true(tau == 0.0);
  q = 1e-9; /* 1 nm: the direction is there to 5e-7 */
  assert_int_equal(mb_passive_forces(&t->model, &S, &ws, &q, &v, &tau), MB_OK);
  MBT_ASSERT_NEAR1(tau, 40 * 0.5 - 2 * 3, 1e-4);
  s.length = 0;
  q = 0;
  assert_int_equal(mb_passive_forces(&t->model, &S, &ws, &q, &v, &tau), MB_OK);
  assert_true(tau == 0.0);
  q = 1e-20; /* far below ε: the elastic part k x is still exact */
  assert_int_equal(mb_passive_forces(&t->model, &S, &ws, &q, NULL, &tau), MB_OK);
  MBT_ASSERT_NEAR1(tau, -40e-20, 1e-33);
  free(buf);
  mbt_tree_free(t);
}

/* q ⊕ h e_k (mb_integrate), for the finite differences along velocity coordinate k. */
static void step(const mb_model *m, const double *q, int k, double h, double *out) {
  double e[64] = {0};
  e[k] = 1;
  assert_int_equal(mb_integrate(m, q, e, h, out), MB_OK);
}

/* τ_elastic against −∂V/∂v_k by central differences (no damping in S). */
static void check_gradient(const mb_model *m, const mb_springs *S, const double *q, double tol) {
  mb_workspace ws;
  double *buf = mbt_workspace_new(m, &ws);
  double tau[64], fd[64], qp[64], qm[64];
  const double h = 1e-6;
  assert_true(m->nv <= 64 && m->nq <= 64);
  assert_int_equal(mb_passive_forces(m, S, &ws, q, NULL, tau), MB_OK);
  for (int k = 0; k < m->nv; k++) {
    step(m, q, k, h, qp), step(m, q, k, -h, qm);
    fd[k] = -(mb_spring_energy(m, S, &ws, qp) - mb_spring_energy(m, S, &ws, qm)) / (2 * h);
  }
  MBT_ASSERT_REL(tau, fd, m->nv, tol);
  free(buf);
}

/* A double pendulum about y with a spring from the world to its tip and one between the links. */
static void test_pendulum_gradient(void **state) {
  (void)state;
  double r2[3] = {0.7, 0, 0}, com[3] = {0.35, 0, 0};
  mbt_tree *t = mbt_tree_new(2);
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, Y, NULL, NULL);
  mbt_tree_joint(t, 2, 1, MB_JOINT_REVOLUTE, Y, NULL, r2);
  mbt_tree_body(t, 1, 1, com, IC), mbt_tree_body(t, 2, 1, com, IC);
  mbt_tree_finish(t);
  double anchor[3] = {0.5, 0.2, 0.3}, tip[3] = {0.6, 0.05, 0}, mid[3] = {0.3, 0, 0.1};
  mb_spring s[2] = {spring(0, 2, anchor, tip, 25, 0, 0.4), spring(1, 2, mid, tip, 10, 0, 0)};
  mb_springs S = {2, s, NULL, NULL, NULL, NULL};
  double q[2] = {0.4, -1.1};
  check_gradient(&t->model, &S, q, 1e-8);
  mbt_tree_free(t);
}

/* Random trees of every joint type (quaternions included) with random springs. */
static void test_random_trees_gradient(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 7);
  for (int trial = 0; trial < 20; trial++) {
    mbt_tree *t = mbt_randtree(100 + (uint64_t)trial, 2 + trial % 7, trial % 3 == 0);
    const mb_model *m = &t->model;
    mb_spring s[4];
    for (int k = 0; k < 4; k++) {
      int a = mbt_randint(&g, 0, m->nb), b = mbt_randint(&g, 0, m->nb - 1);
      if (b >= a) b++;
      double ra[3], rb[3];
      mbt_rand_vec(&g, 3, -0.5, 0.5, ra), mbt_rand_vec(&g, 3, -0.5, 0.5, rb);
      s[k] = spring(a, b, ra, rb, mbt_uniform(&g, 1, 50), 0, k % 2 ? 0 : mbt_uniform(&g, 0, 1));
    }
    mb_springs S = {4, s, NULL, NULL, NULL, NULL};
    char msg[100];
    assert_int_equal(mb_springs_check(m, &S, msg, sizeof msg), 0);
    double q[64];
    mb_neutral(m, q);
    double v[64];
    mbt_rand_vec(&g, m->nv, -1, 1, v);
    assert_int_equal(mb_integrate(m, q, v, 1.0, q), MB_OK); /* a random configuration */
    check_gradient(m, &S, q, 1e-7);
    mbt_tree_free(t);
  }
}

/* ℓ of the single spring S at q, through the energy of a unit spring with L0 = 0: V = ℓ²/2. */
static double length_at(const mb_model *m, const mb_spring *s, mb_workspace *ws, const double *q) {
  mb_spring unit = *s;
  unit.stiffness = 1, unit.length = 0;
  mb_springs U = {1, &unit, NULL, NULL, NULL, NULL};
  return sqrt(2 * mb_spring_energy(m, &U, ws, q));
}

/* τ(q, v) − τ(q, 0) = −c (∂ℓ/∂q)(∂ℓ/∂q)ᵀ v, ∂ℓ/∂q by central differences along each v_k. */
static void test_damping_random_trees(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 11);
  for (int trial = 0; trial < 20; trial++) {
    mbt_tree *t = mbt_randtree(300 + (uint64_t)trial, 2 + trial % 6, trial % 2);
    const mb_model *m = &t->model;
    mb_workspace ws;
    double *buf = mbt_workspace_new(m, &ws);
    double ra[3], rb[3], q[64], v[64], dl[64], t1[64], t0[64], want[64], qp[64], qm[64];
    mbt_rand_vec(&g, 3, -0.5, 0.5, ra), mbt_rand_vec(&g, 3, -0.5, 0.5, rb);
    mb_spring s = spring(0, m->nb, ra, rb, 30, 2.5, 0.3);
    mb_springs S = {1, &s, NULL, NULL, NULL, NULL};
    mb_neutral(m, q);
    mbt_rand_vec(&g, m->nv, -1, 1, v);
    assert_int_equal(mb_integrate(m, q, v, 1.0, q), MB_OK);
    mbt_rand_vec(&g, m->nv, -1, 1, v);
    const double h = 1e-6;
    double dot = 0;
    for (int k = 0; k < m->nv; k++) {
      step(m, q, k, h, qp), step(m, q, k, -h, qm);
      dl[k] = (length_at(m, &s, &ws, qp) - length_at(m, &s, &ws, qm)) / (2 * h);
      dot += dl[k] * v[k];
    }
    for (int k = 0; k < m->nv; k++) want[k] = -s.damping * dl[k] * dot;
    assert_int_equal(mb_passive_forces(m, &S, &ws, q, v, t1), MB_OK);
    assert_int_equal(mb_passive_forces(m, &S, &ws, q, NULL, t0), MB_OK);
    for (int k = 0; k < m->nv; k++) t1[k] -= t0[k];
    MBT_ASSERT_REL(t1, want, m->nv, 1e-7);
    free(buf);
    mbt_tree_free(t);
  }
}

/* The joints' own terms (mb.h mb_springs: damping, friction, stiffness, q_ref), closed form on the
 * slider (one prismatic coordinate): τ = −d q̇ − f q̇ / max(|q̇|, 1e-3) − k (q − q_ref), added to a
 * spring's; outside and inside the Coulomb band; a negative coefficient refused. */
static void test_joint_terms(void **state) {
  (void)state;
  mbt_tree *t = slider();
  const mb_model *m = &t->model;
  mb_workspace ws;
  double *buf = mbt_workspace_new(m, &ws);
  double d = 0.7, f = 0.3, k = 5.0, ref = 0.05, q = 0.2, tau, tau0;
  mb_spring s = spring(0, 1, ZERO, ZERO, 2.0, 0, 0);
  mb_springs S0 = {1, &s, NULL, NULL, NULL, NULL}, S = {1, &s, &d, &f, &k, &ref};
  mb_springs J = {0, NULL, &d, &f, &k, &ref};
  const double speeds[3] = {0.4, -2.5, 4e-4}; /* out of the band both ways, inside it */
  for (int c = 0; c < 3; c++) {
    double v = speeds[c], sgn = v / fmax(fabs(v), 1e-3);
    assert_int_equal(mb_passive_forces(m, &S0, &ws, &q, &v, &tau0), MB_OK);
    assert_int_equal(mb_passive_forces(m, &S, &ws, &q, &v, &tau), MB_OK);
    MBT_ASSERT_NEAR1(tau - tau0, -d * v - f * sgn - k * (q - ref), 1e-14);
    assert_int_equal(mb_passive_forces(m, &J, &ws, &q, &v, &tau), MB_OK); /* no spring */
    MBT_ASSERT_NEAR1(tau, -d * v - f * sgn - k * (q - ref), 1e-14);
  }
  char msg[100];
  assert_int_equal(mb_springs_check(m, &S, msg, sizeof msg), 0);
  f = -1.0;
  assert_int_equal(mb_springs_check(m, &S, msg, sizeof msg), -1);
  assert_string_equal(msg, "a joint's damping, friction or stiffness is negative or not finite");
  free(buf);
  mbt_tree_free(t);
}

static void test_arguments(void **state) {
  (void)state;
  mbt_tree *t = slider();
  const mb_model *m = &t->model;
  mb_workspace ws, other = {0};
  double *buf = mbt_workspace_new(m, &ws);
  mb_spring s = spring(0, 1, ZERO, ZERO, 1, 0, 0);
  mb_springs S = {1, &s, NULL, NULL, NULL, NULL}, none = {0, NULL, NULL, NULL, NULL, NULL};
  double q = 0.2, tau = 0;
  char msg[100];
  assert_int_equal(mb_passive_forces(m, &none, &ws, &q, NULL, &tau), MB_OK);
  assert_true(tau == 0.0);
  assert_int_equal(mb_passive_forces(m, NULL, &ws, &q, NULL, &tau), MB_EINVAL);
  assert_int_equal(mb_passive_forces(m, &S, &ws, NULL, NULL, &tau), MB_EINVAL);
  assert_int_equal(mb_passive_forces(m, &S, &ws, &q, NULL, NULL), MB_EINVAL);
  assert_int_equal(mb_passive_forces(NULL, &S, &ws, &q, NULL, &tau), MB_EINVAL);
  assert_int_equal(mb_passive_forces(m, &S, &other, &q, NULL, &tau), MB_EWORKSPACE);
  q = NAN;
  assert_int_equal(mb_passive_forces(m, &S, &ws, &q, NULL, &tau), MB_ENUMERIC);
  assert_true(isnan(mb_spring_energy(m, NULL, &ws, &q)));
  /* the checks */
  assert_int_equal(mb_springs_check(m, &S, msg, sizeof msg), 0);
  s.b = 0;
  assert_int_equal(mb_springs_check(m, &S, msg, sizeof msg), -1);
  assert_string_equal(msg, "spring 0: bodies out of range or equal");
  s.b = 2;
  assert_int_equal(mb_springs_check(m, &S, msg, sizeof msg), -1);
  s.b = 1, s.damping = -1;
  assert_int_equal(mb_springs_check(m, &S, msg, sizeof msg), -1);
  assert_string_equal(msg, "spring 0: stiffness, damping or length negative or not finite");
  s.damping = 0, s.rb[1] = INFINITY;
  assert_int_equal(mb_springs_check(m, &S, msg, sizeof msg), -1);
  assert_string_equal(msg, "spring 0: point not finite");
  mb_springs bad = {1, NULL, NULL, NULL, NULL, NULL};
  assert_int_equal(mb_springs_check(m, &bad, NULL, 0), -1);
  free(buf);
  mbt_tree_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_slider_closed_form),
    cmocka_unit_test(test_zero_length_rule),
    cmocka_unit_test(test_pendulum_gradient),
    cmocka_unit_test(test_random_trees_gradient),
    cmocka_unit_test(test_damping_random_trees),
    cmocka_unit_test(test_joint_terms),
    cmocka_unit_test(test_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
