/* test_fk.c — forward kinematics (runtime/fk.c). References: a double pendulum's pose by hand,
 * a product of 4×4 homogeneous matrices built here from the joint conventions of mb.h, and the
 * body velocities of RNEA against finite differences of the poses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

/* Double pendulum about y (link l1 along x): body 2 sits at l1 (cos θ1, 0, −sin θ1) with
 * rotation R_y(θ1 + θ2); R_y(φ) = [c 0 s; 0 1 0; −s 0 c]. */
static void test_double_pendulum_pose(void **state) {
  (void)state;
  double y[3] = {0, 1, 0}, r2[3] = {0.7, 0, 0}, com[3] = {0.1, 0, 0}, Ic[6] = {.1, .1, .1, 0, 0, 0};
  mbt_tree *t = mbt_tree_new(2);
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, y, NULL, NULL);
  mbt_tree_joint(t, 2, 1, MB_JOINT_REVOLUTE, y, NULL, r2);
  mbt_tree_body(t, 1, 1, com, Ic), mbt_tree_body(t, 2, 1, com, Ic);
  mbt_tree_finish(t);
  mb_workspace ws;
  double *buf = malloc(mb_workspace_size(&t->model)), q[2] = {0.4, -1.1}, pose[36];
  mb_workspace_init(&ws, &t->model, buf);
  mb_fk(&t->model, &ws, q, pose);
  double c = cos(q[0] + q[1]), s = sin(q[0] + q[1]);
  double want[12] = {c, 0, s, 0, 1, 0, -s, 0, c, 0.7 * cos(q[0]), 0, -0.7 * sin(q[0])};
  double world[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  MBT_ASSERT_NEAR(pose + 24, want, 12, 1e-15);
  MBT_ASSERT_NEAR(pose, world, 12, 0.0);
  free(buf);
  mbt_tree_free(t);
}

/* 4×4 homogeneous [R p; 0 1] as 12 numbers (R row-major, p); C = A B. */
static void hmul(const double *A, const double *B, double *C) {
  double R[9], p[3];
  mbs_mat3_mul(A, B, R);
  mbs_mat3_mv(A, B + 9, p);
  for (int k = 0; k < 3; k++) p[k] += A[9 + k];
  memcpy(C, R, sizeof R), memcpy(C + 9, p, sizeof p);
}

/* The joint's child pose in its joint frame, from the conventions of mb.h. */
static void joint_h(const mb_model *m, int i, const double *q, double H[12]) {
  const double *qi = q + m->iq[i], *a = m->axis + 3 * i;
  static const double one[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  memcpy(H, one, sizeof one);
  switch (m->jtype[i]) {
  case MB_JOINT_REVOLUTE:
  case MB_JOINT_CONTINUOUS: mbs_rot_axis(a, qi[0], H); break;
  case MB_JOINT_PRISMATIC: for (int k = 0; k < 3; k++) H[9 + k] = qi[0] * a[k]; break;
  case MB_JOINT_HELICAL:
    mbs_rot_axis(a, qi[0], H);
    for (int k = 0; k < 3; k++) H[9 + k] = m->pitch[i] * qi[0] * a[k];
    break;
  case MB_JOINT_SPHERICAL: mbs_quat_to_rot(qi, H); break;
  case MB_JOINT_FLOATING:
    mbs_quat_to_rot(qi + 3, H);
    for (int k = 0; k < 3; k++) H[9 + k] = qi[k];
    break;
  case MB_JOINT_PLANAR: { /* origin x u + y w, then the turn θ about a */
    double u[3], w[3];
    mb_planar_axes(a, u, w);
    mbs_rot_axis(a, qi[2], H);
    for (int k = 0; k < 3; k++) H[9 + k] = qi[0] * u[k] + qi[1] * w[k];
    break;
  }
  case MB_JOINT_CYLINDRICAL:
    mbs_rot_axis(a, qi[0], H);
    for (int k = 0; k < 3; k++) H[9 + k] = qi[1] * a[k];
    break;
  default: break;
  }
}

/* T_i = T_λ · [XT_Eᵀ XT_r; 0 1] · H_joint(q_i). */
static void test_vs_homogeneous(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 31);
  for (uint64_t seed = 1; seed <= 10; seed++) {
    mbt_tree *t = mbt_randtree(seed, 20, (int)(seed % 2));
    const mb_model *m = &t->model;
    mb_workspace ws;
    size_t n = (size_t)m->nb + 1;
    double *buf = malloc(mb_workspace_size(m)), *q = malloc(sizeof(double) * (size_t)m->nq);
    double *pose = malloc(sizeof(double) * 24 * n), *T = pose + 12 * n;
    mb_workspace_init(&ws, m, buf);
    mbt_rand_q(&g, m, q);
    mb_fk(m, &ws, q, pose);
    for (int k = 0; k < 12; k++) T[k] = (k < 9 && k % 4 == 0);
    for (int i = 1; i <= m->nb; i++) {
      double XT[12], H[12], A[12];
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) XT[3 * a + b] = m->XT_E[9 * i + 3 * b + a];
      for (int k = 0; k < 3; k++) XT[9 + k] = m->XT_r[3 * i + k];
      joint_h(m, i, q, H);
      hmul(T + 12 * m->parent[i], XT, A);
      hmul(A, H, T + 12 * i);
    }
    MBT_ASSERT_NEAR(pose, T, 12 * n, 1e-13);
    free(pose), free(q), free(buf);
    mbt_tree_free(t);
  }
}

/* RNEA's body velocity v_i = [ω; v_O] (body frame) against central differences of the poses
 * along q(±ε) = q ⊕ ±ε v:  ω× = Rᵀ Ṙ,  v_O = Rᵀ ṗ. */
static void test_velocity_vs_finite_difference(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 32);
  for (uint64_t seed = 1; seed <= 10; seed++) {
    mbt_tree *t = mbt_randtree(seed, 15, (int)(seed % 2));
    const mb_model *m = &t->model;
    mb_workspace ws;
    size_t n = (size_t)m->nb + 1, nq = (size_t)m->nq;
    double *buf = malloc(mb_workspace_size(m)), *q = malloc(sizeof(double) * 3 * nq);
    double *qp = q + nq, *qm = qp + nq, *v = malloc(sizeof(double) * ((size_t)m->nv * 2 + 1));
    double *tau = v + m->nv, *P = malloc(sizeof(double) * 36 * n);
    double *Pp = P + 12 * n, *Pm = Pp + 12 * n;
    double h = 1e-5;
    mb_workspace_init(&ws, m, buf);
    mbt_rand_q(&g, m, q), mbt_rand_vec(&g, m->nv, -1, 1, v);
    mb_integrate(m, q, v, h, qp), mb_integrate(m, q, v, -h, qm);
    mb_fk(m, &ws, q, P), mb_fk(m, &ws, qp, Pp), mb_fk(m, &ws, qm, Pm);
    mb_nle(m, &ws, q, v, tau);
    for (int i = 1; i <= m->nb; i++) {
      const double *R = P + 12 * i, *Rp = Pp + 12 * i, *Rm = Pm + 12 * i;
      double W[9], dp[3], fd[6];
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
          W[3 * a + b] = 0;
          for (int k = 0; k < 3; k++)
            W[3 * a + b] += R[3 * k + a] * (Rp[3 * k + b] - Rm[3 * k + b]);
          W[3 * a + b] /= 2 * h;
        }
      for (int k = 0; k < 3; k++) dp[k] = (Rp[9 + k] - Rm[9 + k]) / (2 * h);
      fd[0] = W[7], fd[1] = W[2], fd[2] = W[3];
      mbs_mat3_tmv(R, dp, fd + 3);
      MBT_ASSERT_NEAR(ws.v + 6 * i, fd, 6, 1e-8);
    }
    free(P), free(v), free(q), free(buf);
    mbt_tree_free(t);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_double_pendulum_pose),
      cmocka_unit_test(test_vs_homogeneous),
      cmocka_unit_test(test_velocity_vs_finite_difference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
