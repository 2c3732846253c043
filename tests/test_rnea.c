/* test_rnea.c — inverse dynamics (runtime/rnea.c) against closed-form equations of motion
 * derived by hand (Lagrange or Newton-Euler) for the pendulums, a free rigid body and a cart-pole.
 * Each closed-form case is also built in frames rotated by a random Q (arbitrary joint axes, XT
 * rotations, inertias with products), which must not change the joint torques. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

enum { TRIALS = 20 };
static const double g0 = 9.81;

/* Body data given in unrotated coordinates, stored rotated by Q: com' = Q com, Ic' = Q Ic Qᵀ. */
static void body_rot(mbt_tree *t, int i, const double Q[9], double m, const double com[3],
                     const double Ic[6]) {
  static const int row[6] = {0, 1, 2, 0, 0, 1}, col[6] = {0, 1, 2, 1, 2, 2};
  double c[3], I9[9], J[6];
  mbs_mat3_mv(Q, com, c);
  mbs_sym3_full(Ic, I9);
  for (int k = 0; k < 6; k++) {
    J[k] = 0;
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) J[k] += Q[3 * row[k] + a] * I9[3 * a + b] * Q[3 * col[k] + b];
  }
  mbt_tree_body(t, i, m, c, J);
}

/* Q = identity on the first trial, random after. */
static void trial_rot(mbt_rng *g, int trial, double Q[9]) {
  static const double one[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  if (trial == 0)
    for (int k = 0; k < 9; k++) Q[k] = one[k];
  else
    mbt_rand_rot(g, Q);
}

/* Single pendulum: revolute about y at the world origin, COM at (L, cy, 0), inertia Ic about the
 * COM (with products), gravity (0, 0, −g). Rotating about y by θ sends x to (cos θ, 0, −sin θ),
 * so the COM height is −L sin θ and (Lagrange):
 *   τ = (Iyy + m L²) θ̈ − m g L cos θ      (no velocity term for one degree of freedom). */
static void test_single_pendulum(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 21);
  for (int trial = 0; trial < TRIALS; trial++) {
    double Q[9], y[3] = {0, 1, 0}, a[3], m = mbt_uniform(&g, 0.5, 2), L = mbt_uniform(&g, 0.2, 1);
    double com[3] = {L, 0.3, 0}, Ic[6] = {0.02, 0.05, 0.04, 0.001, -0.002, 0.003};
    trial_rot(&g, trial, Q);
    mbs_mat3_mv(Q, y, a);
    mbt_tree *t = mbt_tree_new(1);
    mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, a, Q, NULL);
    body_rot(t, 1, Q, m, com, Ic);
    mbt_tree_finish(t);
    mb_workspace ws;
    double *buf = mbt_workspace_new(&t->model, &ws);
    double th = mbt_uniform(&g, -3, 3), thd = mbt_uniform(&g, -2, 2), thdd = mbt_uniform(&g, -2, 2);
    double tau, want = (Ic[1] + m * L * L) * thdd - m * g0 * L * cos(th);
    mb_rnea(&t->model, &ws, &th, &thd, &thdd, NULL, &tau);
    MBT_ASSERT_NEAR1(tau, want, 1e-12);
    free(buf);
    mbt_tree_free(t);
  }
}

/* Double pendulum, both joints revolute about y, link 1 of length l1, COMs at (c_i, 0, 0), COM
 * inertias I_i = Iyy. With φ1 = θ1, φ2 = θ1 + θ2 and the plane coordinates (x, −z), this is the
 * textbook planar double pendulum with gravity along +(−z):
 *   M11 = I1 + m1 c1² + I2 + m2 (l1² + c2² + 2 l1 c2 cos θ2)
 *   M12 = I2 + m2 (c2² + l1 c2 cos θ2),   M22 = I2 + m2 c2²
 *   C1 = −m2 l1 c2 sin θ2 (2 θ̇1 θ̇2 + θ̇2²),   C2 = m2 l1 c2 sin θ2 θ̇1²
 *   G1 = −g (m1 c1 cos φ1 + m2 (l1 cos φ1 + c2 cos φ2)),   G2 = −g m2 c2 cos φ2
 *   τ = M θ̈ + C + G. */
static void test_double_pendulum(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 22);
  for (int trial = 0; trial < TRIALS; trial++) {
    double Q[9], y[3] = {0, 1, 0}, a[3], x[3], r2[3], one[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    double m1 = mbt_uniform(&g, 0.5, 2), m2 = mbt_uniform(&g, 0.5, 2), l1 = mbt_uniform(&g, .5, 1);
    double c1 = mbt_uniform(&g, 0.1, 0.5), c2 = mbt_uniform(&g, 0.1, 0.5);
    double Ic1[6] = {0.01, 0.03, 0.02, 0, 0, 0.001}, Ic2[6] = {0.02, 0.04, 0.03, 0.002, 0, 0};
    double com1[3] = {c1, 0, 0}, com2[3] = {c2, 0, 0}, I1 = Ic1[1], I2 = Ic2[1];
    trial_rot(&g, trial, Q);
    mbs_mat3_mv(Q, y, a);
    x[0] = l1, x[1] = x[2] = 0;
    mbs_mat3_mv(Q, x, r2);
    mbt_tree *t = mbt_tree_new(2);
    mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, a, Q, NULL);
    mbt_tree_joint(t, 2, 1, MB_JOINT_REVOLUTE, a, one, r2);
    body_rot(t, 1, Q, m1, com1, Ic1);
    body_rot(t, 2, Q, m2, com2, Ic2);
    mbt_tree_finish(t);
    mb_workspace ws;
    double *buf = mbt_workspace_new(&t->model, &ws), q[2], qd[2], qdd[2], tau[2];
    mbt_rand_vec(&g, 2, -3, 3, q), mbt_rand_vec(&g, 2, -2, 2, qd), mbt_rand_vec(&g, 2, -2, 2, qdd);
    double f1 = q[0], f2 = q[0] + q[1], c = cos(q[1]), s = sin(q[1]);
    double M11 = I1 + m1 * c1 * c1 + I2 + m2 * (l1 * l1 + c2 * c2 + 2 * l1 * c2 * c);
    double M12 = I2 + m2 * (c2 * c2 + l1 * c2 * c), M22 = I2 + m2 * c2 * c2;
    double C1 = -m2 * l1 * c2 * s * (2 * qd[0] * qd[1] + qd[1] * qd[1]);
    double C2 = m2 * l1 * c2 * s * qd[0] * qd[0];
    double G1 = -g0 * (m1 * c1 * cos(f1) + m2 * (l1 * cos(f1) + c2 * cos(f2)));
    double G2 = -g0 * m2 * c2 * cos(f2);
    double want[2] = {M11 * qdd[0] + M12 * qdd[1] + C1 + G1, M12 * qdd[0] + M22 * qdd[1] + C2 + G2};
    mb_rnea(&t->model, &ws, q, qd, qdd, NULL, tau);
    MBT_ASSERT_NEAR(tau, want, 2, 1e-12);
    free(buf);
    mbt_tree_free(t);
  }
}

/* A free rigid body (floating joint), COM c, inertia Ic about the COM, all in the body frame;
 * v = [v_O; ω], a = [v̇_O; ω̇] body-frame components, R = R(quat). Newton-Euler:
 *   a_c = v̇_O + ω × v_O + ω̇ × c + ω × (ω × c)   (COM acceleration, body components)
 *   F   = m a_c − m Rᵀ g                        (force the joint must apply)
 *   n_O = Ic ω̇ + ω × Ic ω + c × F                (moment about the origin, gyroscopic ω × Ic ω)
 *   τ = [F; n_O];  with an external wrench fext = [n; f] on the body: τ = [F − f; n_O − n]. */
static void test_free_body(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 23);
  for (int trial = 0; trial < TRIALS; trial++) {
    mbt_tree *t = mbt_randtree((uint64_t)trial + 100, 1, 1);
    const mb_model *m = &t->model;
    mbt_tree_joint(t, 1, 0, MB_JOINT_FLOATING, NULL, (const double[9]){1, 0, 0, 0, 1, 0, 0, 0, 1},
                   (const double[3]){0, 0, 0}); /* joint frame = world frame */
    double *I10 = t->inertia + 10, mass = I10[0], c[3], Ic[9], q[7], v[6], a[6], tau[6];
    for (int k = 0; k < 3; k++) c[k] = I10[1 + k] / mass;
    /* Ic = Ī − m (|c|² 1 − c cᵀ) */
    mbs_sym3_full(I10 + 4, Ic);
    double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) Ic[3 * i + j] -= mass * ((i == j) * cc - c[i] * c[j]);
    mbt_rand_q(&g, m, q), mbt_rand_vec(&g, 6, -2, 2, v), mbt_rand_vec(&g, 6, -2, 2, a);
    const double *vO = v, *w = v + 3, *vdO = a, *wd = a + 3;
    double R[9], Rg[3], t1[3], t2[3], t3[3], t4[3], ac[3], F[3], Iw[3], Iwd[3], gyro[3], cF[3];
    mbs_quat_to_rot(q + 3, R);
    mbs_mat3_tmv(R, m->gravity, Rg);
    mbs_cross(w, vO, t1), mbs_cross(wd, c, t2), mbs_cross(w, c, t3), mbs_cross(w, t3, t4);
    for (int k = 0; k < 3; k++) ac[k] = vdO[k] + t1[k] + t2[k] + t4[k];
    for (int k = 0; k < 3; k++) F[k] = mass * ac[k] - mass * Rg[k];
    mbs_mat3_mv(Ic, w, Iw), mbs_mat3_mv(Ic, wd, Iwd), mbs_cross(w, Iw, gyro), mbs_cross(c, F, cF);
    double want[6];
    for (int k = 0; k < 3; k++) want[k] = F[k], want[3 + k] = Iwd[k] + gyro[k] + cF[k];
    mb_workspace ws;
    double *buf = mbt_workspace_new(m, &ws);
    mb_rnea(m, &ws, q, v, a, NULL, tau);
    MBT_ASSERT_REL(tau, want, 6, 1e-13);
    double fext[12] = {0}, wext[6];
    mbt_rand_vec(&g, 6, -3, 3, fext + 6);
    for (int k = 0; k < 3; k++)
      wext[k] = want[k] - fext[9 + k], wext[3 + k] = want[3 + k] - fext[6 + k];
    mb_rnea(m, &ws, q, v, a, fext, tau);
    MBT_ASSERT_REL(tau, wext, 6, 1e-13);
    free(buf);
    mbt_tree_free(t);
  }
}

/* Cart-pole: a cart of mass M on a prismatic joint along x, a pole of mass m on a revolute joint
 * about y at the cart origin, COM at (0, 0, l) (upright at θ = 0), inertia I = Iyy about its COM.
 * Pole COM at (x + l sin θ, 0, l cos θ); Lagrange gives
 *   τ_x = (M + m) ẍ + m l cos θ θ̈ − m l sin θ θ̇²
 *   τ_θ = m l cos θ ẍ + (I + m l²) θ̈ − m g l sin θ. */
static void test_cart_pole(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 24);
  for (int trial = 0; trial < TRIALS; trial++) {
    double Q[9], ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ax[3], ay[3];
    double one[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    double M = mbt_uniform(&g, 1, 3), mp = mbt_uniform(&g, 0.2, 1), l = mbt_uniform(&g, 0.3, 1);
    double comc[3] = {0.1, -0.2, 0.05}, Icc[6] = {0.1, 0.2, 0.3, 0.01, 0.02, 0.03};
    double comp[3] = {0, 0, l}, Icp[6] = {0.03, 0.02, 0.01, 0, 0.001, 0}, I = Icp[1];
    trial_rot(&g, trial, Q);
    mbs_mat3_mv(Q, ex, ax), mbs_mat3_mv(Q, ey, ay);
    mbt_tree *t = mbt_tree_new(2);
    mbt_tree_joint(t, 1, 0, MB_JOINT_PRISMATIC, ax, Q, NULL);
    mbt_tree_joint(t, 2, 1, MB_JOINT_REVOLUTE, ay, one, NULL);
    body_rot(t, 1, Q, M, comc, Icc);
    body_rot(t, 2, Q, mp, comp, Icp);
    mbt_tree_finish(t);
    mb_workspace ws;
    double *buf = mbt_workspace_new(&t->model, &ws), q[2], qd[2], qdd[2], tau[2];
    mbt_rand_vec(&g, 2, -3, 3, q), mbt_rand_vec(&g, 2, -2, 2, qd), mbt_rand_vec(&g, 2, -2, 2, qdd);
    double c = cos(q[1]), s = sin(q[1]);
    double want[2] = {(M + mp) * qdd[0] + mp * l * c * qdd[1] - mp * l * s * qd[1] * qd[1],
                      mp * l * c * qdd[0] + (I + mp * l * l) * qdd[1] - mp * g0 * l * s};
    mb_rnea(&t->model, &ws, q, qd, qdd, NULL, tau);
    MBT_ASSERT_NEAR(tau, want, 2, 1e-12);
    free(buf);
    mbt_tree_free(t);
  }
}

/* On random trees: rnea = M a + nle and nle(q, 0) = gravity(q), with a NULL acceleration meaning
 * zero; the reference is mb_rnea's own linearity in a, computed with a and with 2a. */
static void test_nle_gravity(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 25);
  for (uint64_t seed = 1; seed <= 10; seed++) {
    mbt_tree *t = mbt_randtree(seed, 12, (int)(seed % 2));
    const mb_model *m = &t->model;
    size_t nv = (size_t)m->nv;
    mb_workspace ws;
    double *buf = mbt_workspace_new(m, &ws), *q = malloc(sizeof(double) * (size_t)m->nq);
    double *v = malloc(sizeof(double) * nv * 7), *a = v + nv, *a2 = v + 2 * nv, *t1 = v + 3 * nv,
           *t2 = v + 4 * nv, *h = v + 5 * nv, *want = v + 6 * nv;
    mbt_rand_q(&g, m, q), mbt_rand_vec(&g, m->nv, -1, 1, v), mbt_rand_vec(&g, m->nv, -1, 1, a);
    for (size_t k = 0; k < nv; k++) a2[k] = 2 * a[k];
    mb_rnea(m, &ws, q, v, a, NULL, t1);
    mb_rnea(m, &ws, q, v, a2, NULL, t2);
    mb_nle(m, &ws, q, v, h);
    for (size_t k = 0; k < nv; k++) want[k] = 2 * t1[k] - t2[k]; /* τ(a) = h + M a */
    MBT_ASSERT_REL(h, want, nv, 1e-12);
    mb_nle(m, &ws, q, NULL, h);
    mb_gravity(m, &ws, q, want);
    MBT_ASSERT_NEAR(h, want, nv, 0.0);
    free(v), free(q), free(buf);
    mbt_tree_free(t);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_single_pendulum), cmocka_unit_test(test_double_pendulum),
      cmocka_unit_test(test_free_body),       cmocka_unit_test(test_cart_pole),
      cmocka_unit_test(test_nle_gravity),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
