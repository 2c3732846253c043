/* test_jcalc.c — joint models (runtime/jcalc.c), model checks and the workspace layout. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

/* A one-joint model of the given type and axis, XT = identity, a unit-mass body (a universal
 * joint's second axis: the coordinate axis least aligned with axis, made perpendicular). */
static mbt_tree *one_joint(mb_joint_type type, const double axis[3], double pitch) {
  static const double com[3] = {0.1, 0.2, 0.3}, Ic[6] = {0.1, 0.2, 0.25, 0, 0, 0};
  mbt_tree *t = mbt_tree_new(1);
  mbt_tree_joint(t, 1, 0, type, axis, NULL, NULL);
  if (type == MB_JOINT_UNIVERSAL) {
    double e[3] = {0, 0, 0};
    int k = fabs(axis[0]) <= fabs(axis[1]) ? 0 : 1;
    e[fabs(axis[k]) <= fabs(axis[2]) ? k : 2] = 1.0;
    mbt_tree_axis2(t, 1, e);
  }
  t->pitch[1] = pitch;
  mbt_tree_body(t, 1, 1.0, com, Ic);
  mbt_tree_finish(t);
  return t;
}

/* Reference: Featherstone's rz(θ) = [c s 0; −s c 0; 0 0 1], translation as written by hand. */
static void test_xj_analytic(void **state) {
  (void)state;
  double z[3] = {0, 0, 1}, E[9], r[3], th = 0.7, c = cos(th), s = sin(th);
  double rz[9] = {c, s, 0, -s, c, 0, 0, 0, 1}, zero[3] = {0};
  mbt_tree *t = one_joint(MB_JOINT_REVOLUTE, z, 0);
  mb_jcalc(&t->model, 1, &th, E, r);
  MBT_ASSERT_NEAR(E, rz, 9, 1e-15);
  MBT_ASSERT_NEAR(r, zero, 3, 0.0);
  mbt_tree_free(t);
  /* helical: rz(θ), r = h θ z */
  t = one_joint(MB_JOINT_HELICAL, z, 0.3);
  mb_jcalc(&t->model, 1, &th, E, r);
  double rh[3] = {0, 0, 0.3 * th};
  MBT_ASSERT_NEAR(E, rz, 9, 1e-15);
  MBT_ASSERT_NEAR(r, rh, 3, 1e-15);
  mbt_tree_free(t);
  /* prismatic along a: E = 1, r = q a */
  double a[3] = {0.6, 0, 0.8}, one[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, ra[3] = {0.42, 0, 0.56};
  t = one_joint(MB_JOINT_PRISMATIC, a, 0);
  mb_jcalc(&t->model, 1, &th, E, r);
  MBT_ASSERT_NEAR(E, one, 9, 0.0);
  MBT_ASSERT_NEAR(r, ra, 3, 1e-15);
  mbt_tree_free(t);
  /* spherical: q = rotation θ about z = [0 0 sin(θ/2) cos(θ/2)], XJ = rz(θ) */
  double qs[4] = {0, 0, sin(th / 2), cos(th / 2)};
  t = one_joint(MB_JOINT_SPHERICAL, NULL, 0);
  mb_jcalc(&t->model, 1, qs, E, r);
  MBT_ASSERT_NEAR(E, rz, 9, 1e-15);
  mbt_tree_free(t);
  /* floating: q = [p; quat], XJ = rz(θ) xlt(p): r = p */
  double qf[7] = {1, -2, 3, 0, 0, sin(th / 2), cos(th / 2)}, p[3] = {1, -2, 3};
  t = one_joint(MB_JOINT_FLOATING, NULL, 0);
  mb_jcalc(&t->model, 1, qf, E, r);
  MBT_ASSERT_NEAR(E, rz, 9, 1e-15);
  MBT_ASSERT_NEAR(r, p, 3, 0.0);
  mbt_tree_free(t);
  /* planar about z: the plane's axes x, y (mb.h); XJ = rz(θ) xlt(x, y, 0) */
  double qp[3] = {0.5, -0.25, th}, pp[3] = {0.5, -0.25, 0};
  t = one_joint(MB_JOINT_PLANAR, z, 0);
  mb_jcalc(&t->model, 1, qp, E, r);
  MBT_ASSERT_NEAR(E, rz, 9, 1e-15);
  MBT_ASSERT_NEAR(r, pp, 3, 0.0);
  mbt_tree_free(t);
  /* planar about x: the plane's axes y, z (cyclic); about −z: x and −y (the π turn about x) */
  double x[3] = {1, 0, 0}, mz[3] = {0, 0, -1}, u[3], w[3];
  mb_planar_axes(x, u, w);
  MBT_ASSERT_NEAR(u, ((double[3]){0, 1, 0}), 3, 0.0);
  MBT_ASSERT_NEAR(w, ((double[3]){0, 0, 1}), 3, 0.0);
  mb_planar_axes(mz, u, w);
  MBT_ASSERT_NEAR(u, ((double[3]){1, 0, 0}), 3, 0.0);
  MBT_ASSERT_NEAR(w, ((double[3]){0, -1, 0}), 3, 0.0);
  /* cylindrical about z: rz(θ), r = d z */
  double qc[2] = {th, 0.4}, rc[3] = {0, 0, 0.4};
  t = one_joint(MB_JOINT_CYLINDRICAL, z, 0);
  mb_jcalc(&t->model, 1, qc, E, r);
  MBT_ASSERT_NEAR(E, rz, 9, 1e-15);
  MBT_ASSERT_NEAR(r, rc, 3, 0.0);
  mbt_tree_free(t);
}

/* q perturbed by ε along velocity coordinate k, written here from the conventions of mb.h:
 * scalars add, quaternions multiply by exp(ε e_k) on the right, a floating origin moves by
 * ε R e_k (linear velocity in the child frame), a planar one by ε R(θ) e_k in its plane. */
static void perturb(const mb_model *m, const double *q, int k, double eps, double *qp) {
  memcpy(qp, q, sizeof(double) * (size_t)m->nq);
  double w[3] = {0}, e[4], R[9];
  switch (m->jtype[1]) {
  case MB_JOINT_SPHERICAL:
    w[k] = eps, mbs_quat_exp(w, e), mbs_quat_mul(q, e, qp);
    break;
  case MB_JOINT_FLOATING:
    if (k >= 3) {
      w[k - 3] = eps, mbs_quat_exp(w, e), mbs_quat_mul(q + 3, e, qp + 3);
    } else {
      mbs_quat_to_rot(q + 3, R);
      for (int j = 0; j < 3; j++) qp[j] += eps * R[3 * j + k];
    }
    break;
  case MB_JOINT_PLANAR: /* [x y] += ε [cos θ −sin θ; sin θ cos θ] e_k (k < 2); θ += ε */
    if (k == 2) qp[2] += eps;
    else qp[0] += eps * (k == 0 ? cos(q[2]) : -sin(q[2])),
         qp[1] += eps * (k == 0 ? sin(q[2]) : cos(q[2]));
    break;
  default:
    qp[k] += eps;
  }
}

/* Reference: S's column k = the joint's velocity [ω; v_O] in child coordinates, by central
 * differences of XJ: ω× = Rᵀ dR/dε, v_O = Rᵀ dr/dε, with R = Eᵀ. */
static void test_S_finite_difference(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 11);
  for (int type = MB_JOINT_REVOLUTE; type < MB_JOINT_TYPE_COUNT; type++)
    for (int trial = 0; trial < 20; trial++) {
      double a[3], q[7], qp[7], qm[7], S[36], h = 1e-6;
      mbt_unit3(&g, a);
      mbt_tree *t = one_joint((mb_joint_type)type, a, mbt_uniform(&g, -0.5, 0.5));
      const mb_model *m = &t->model;
      mbt_rand_q(&g, m, q);
      mb_joint_S_at(m, 1, q, S);
      for (int k = 0; k < m->nv; k++) {
        double Ep[9], rp[3], Em[9], rm[3], E[9], r[3], W[9], dr[3], col[6];
        perturb(m, q, k, h, qp), perturb(m, q, k, -h, qm);
        mb_jcalc(m, 1, qp, Ep, rp), mb_jcalc(m, 1, qm, Em, rm), mb_jcalc(m, 1, q, E, r);
        /* W = Rᵀ Ṙ = E (Ep − Em)ᵀ / 2h */
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++) {
            W[3 * i + j] = 0;
            for (int l = 0; l < 3; l++)
              W[3 * i + j] += E[3 * i + l] * (Ep[3 * j + l] - Em[3 * j + l]);
            W[3 * i + j] /= 2 * h;
          }
        for (int j = 0; j < 3; j++) dr[j] = (rp[j] - rm[j]) / (2 * h);
        col[0] = W[7], col[1] = W[2], col[2] = W[3];
        mbs_mat3_mv(E, dr, col + 3);
        MBT_ASSERT_NEAR(col, S + 6 * k, 6, 1e-8);
      }
      mbt_tree_free(t);
    }
}

/* Reference: the joint table of docs/runtime.md (and runtime/mb.h); the neutral configuration gives
 * XJ = 1. */
static void test_sizes_and_neutral(void **state) {
  (void)state;
  /* sized by the table: a new type reads 0 here until its expected sizes are written in */
  static const int nq[MB_JOINT_TYPE_COUNT] = {0, 1, 1, 1, 1, 4, 7, 3, 2, 2},
                   nv[MB_JOINT_TYPE_COUNT] = {0, 1, 1, 1, 1, 3, 6, 3, 2, 2};
  for (int type = 0; type < MB_JOINT_TYPE_COUNT; type++) {
    assert_int_equal(mb_joint_nq((mb_joint_type)type), nq[type]);
    assert_int_equal(mb_joint_nv((mb_joint_type)type), nv[type]);
    double a[3] = {0, 0.6, 0.8}, q[7], E[9], r[3], one[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, z[3] = {0};
    mbt_tree *t = one_joint((mb_joint_type)type, a, 0.2);
    mb_neutral(&t->model, q);
    mb_jcalc(&t->model, 1, q, E, r);
    MBT_ASSERT_NEAR(E, one, 9, 0.0);
    MBT_ASSERT_NEAR(r, z, 3, 0.0);
    mbt_tree_free(t);
  }
  assert_int_equal(mb_joint_nv(MB_JOINT_TYPE_COUNT), 0);
}

/* XJ(q) = (E, r) and S of a one-joint model of type t with axis a and pitch h. */
static void joint_at(mb_joint_type t, const double a[3], double h, const double *q, double E[9],
                     double r[3], double S[36]) {
  mbt_tree *tr = one_joint(t, a, h);
  mb_jcalc(&tr->model, 1, q, E, r);
  mb_joint_S_at(&tr->model, 1, q, S);
  mbt_tree_free(tr);
}

static int differ(const double *x, const double *y, int n) {
  for (int k = 0; k < n; k++)
    if (fabs(x[k] - y[k]) > 1e-12) return 1;
  return 0;
}

/* Reference: the joint models themselves. Every column of mb.h MB_JOINT_TYPES says what jcalc
 * does: axis (S or XJ moves with a), angle (XJ turns with q, by the same turn at q + 2π), pitch (XJ
 * moves with h), fixed_origin (r = 0), quat (a quaternion scaled by 2 is the same XJ; without
 * one, nq = nv); and the names are distinct. */
static void test_type_table(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 5);
  assert_string_equal(mb_joint_name(MB_JOINT_TYPE_COUNT), "?");
  assert_int_equal(mb_joint_quat(MB_JOINT_TYPE_COUNT), -1);
  for (int k = 0; k < MB_JOINT_TYPE_COUNT; k++) {
    mb_joint_type t = (mb_joint_type)k;
    for (int j = 0; j < k; j++)
      assert_string_not_equal(mb_joint_name(t), mb_joint_name((mb_joint_type)j));
    double a[3], b[3], q[7], q2[7], E[9], r[3], S[36], E2[9], r2[3], S2[36];
    mbt_unit3(&g, a), mbt_unit3(&g, b);
    mbt_tree *tr = one_joint(t, a, 0.3);
    mbt_rand_q(&g, &tr->model, q);
    mbt_tree_free(tr);
    int nq = mb_joint_nq(t), nv = mb_joint_nv(t), iq = mb_joint_quat(t);
    joint_at(t, a, 0.3, q, E, r, S);
    assert_int_equal(!differ(r, (double[3]){0}, 3), mb_joint_fixed_origin(t));
    joint_at(t, b, 0.3, q, E2, r2, S2);
    assert_int_equal(differ(E, E2, 9) || differ(r, r2, 3) || differ(S, S2, 6 * nv),
                     mb_joint_has_axis(t));
    joint_at(t, a, 0.5, q, E2, r2, S2);
    assert_int_equal(differ(r, r2, 3) || differ(S, S2, 6 * nv), mb_joint_has_pitch(t));
    if (mb_joint_is_angle(t)) { /* the first coordinate turns; the others stay */
      memcpy(q2, q, sizeof q);
      q2[0] = q[0] + 2 * MBT_PI;
      joint_at(t, a, 0.0, q2, E2, r2, S2); /* pitch 0: the turn only */
      joint_at(t, a, 0.0, q, E, r, S);
      MBT_ASSERT_NEAR(E2, E, 9, 1e-12);
      q2[0] = q[0] + 1.0;
      joint_at(t, a, 0.0, q2, E2, r2, S2);
      assert_true(differ(E, E2, 9));
    }
    if (iq < 0) {
      assert_int_equal(nq, nv);
      continue;
    }
    assert_true(iq + 4 <= nq);
    memcpy(q2, q, sizeof q);
    for (int l = 0; l < 4; l++) q2[iq + l] *= 2.0;
    joint_at(t, a, 0.3, q, E, r, S);
    joint_at(t, a, 0.3, q2, E2, r2, S2);
    MBT_ASSERT_NEAR(E2, E, 9, 1e-12);
  }
}

static void expect_reject(mbt_tree *t, const char *what) {
  char msg[200];
  assert_int_equal(mb_model_check(&t->model, msg, sizeof msg), -1);
  if (!strstr(msg, what)) fail_msg("message '%s' lacks '%s'", msg, what);
}

/* mb_model_check accepts random trees and rejects each kind of corruption. */
static void test_model_check(void **state) {
  (void)state;
  char msg[200];
  for (uint64_t seed = 1; seed <= 20; seed++) {
    mbt_tree *t = mbt_randtree(seed, 15, (int)(seed % 2));
    if (mb_model_check(&t->model, msg, sizeof msg) != 0) fail_msg("seed %d: %s", (int)seed, msg);
    mbt_tree_free(t);
  }
  mbt_tree *t = mbt_randtree(3, 8, 0);
  t->parent[4] = 4;
  expect_reject(t, "parent");
  t->parent[4] = 3, t->axis[3 * 1] += 0.1;
  t->jtype[1] = MB_JOINT_REVOLUTE;
  expect_reject(t, "axis");
  t->axis[3 * 1] -= 0.1, t->XT_E[9 * 2 + 0] = -t->XT_E[9 * 2 + 0];
  expect_reject(t, "rotation");
  t->XT_E[9 * 2 + 0] = -t->XT_E[9 * 2 + 0], t->iv[3] += 1;
  expect_reject(t, "iq/iv");
  t->iv[3] -= 1, t->model.nv += 1;
  expect_reject(t, "nq/nv");
  t->model.nv -= 1;
  assert_int_equal(mb_model_check(&t->model, NULL, 0), 0);
  /* a rotational inertia that is not positive semidefinite: Ic = diag(1, 1, -0.5) */
  double c[3] = {0.1, 0, 0}, bad[6] = {1, 1, -0.5, 0, 0, 0}, good[6] = {1, 1, 2, 0, 0, 0};
  mbt_tree_body(t, 5, 2.0, c, bad);
  expect_reject(t, "inertia");
  mbt_tree_body(t, 5, 2.0, c, good); /* the limit (a flat plate) is physical */
  assert_int_equal(mb_model_check(&t->model, msg, sizeof msg), 0);
  /* principal moments that break the triangle inequality, Ic = diag(1, 1, 3): no body has them,
   * but the algorithms do not care (real URDFs have such inertias): accepted */
  double unphysical[6] = {1, 1, 3, 0, 0, 0}, rod[6] = {0, 1, 1, 0, 0, 0};
  mbt_tree_body(t, 5, 2.0, c, unphysical);
  assert_int_equal(mb_model_check(&t->model, msg, sizeof msg), 0);
  mbt_tree_body(t, 5, 2.0, c, rod); /* a thin rod: Ic singular, still positive semidefinite */
  assert_int_equal(mb_model_check(&t->model, msg, sizeof msg), 0);
  mbt_tree_body(t, 5, -1.0, c, good);
  expect_reject(t, "inertia");
  mbt_tree_free(t);
}

/* The tolerance of the semidefiniteness test is relative to the body's scale, tr Ī (about the body
 * origin) + m (1 mm)² (docs/runtime.md): noise in the data is accepted at any scale, a clearly
 * indefinite inertia rejected at any scale. */
static void test_model_check_scale(void **state) {
  (void)state;
  char msg[200];
  mbt_tree *t = mbt_randtree(3, 8, 0);
  /* iCub's head (example-robot-data): 1.34 kg, no inertia but ixz = 2.4e-35 (principal moments
   * ±2.4e-35), the centre of mass 11 cm from the link origin */
  double head_c[3] = {0.0185, -0.1108, 0}, head[6] = {0, 0, 0, 0, 2.40741e-35, 0};
  mbt_tree_body(t, 5, 1.33687, head_c, head);
  if (mb_model_check(&t->model, msg, sizeof msg)) fail_msg("head: %s", msg);
  /* every entry ~1e-35 (principal moments -1e-35, 1e-35, 3e-35), 1 kg at the body origin */
  double o[3] = {0, 0, 0}, noise[6] = {1e-35, 1e-35, 1e-35, 2e-35, 0, 0};
  mbt_tree_body(t, 5, 1.0, o, noise);
  if (mb_model_check(&t->model, msg, sizeof msg)) fail_msg("noise: %s", msg);
  /* a point mass (zero inertia), at the origin and away from it */
  double zero[6] = {0, 0, 0, 0, 0, 0}, away[3] = {0.3, -0.2, 0.1};
  mbt_tree_body(t, 5, 1.0, o, zero);
  if (mb_model_check(&t->model, msg, sizeof msg)) fail_msg("point mass: %s", msg);
  mbt_tree_body(t, 5, 1.0, away, zero);
  if (mb_model_check(&t->model, msg, sizeof msg)) fail_msg("point mass away: %s", msg);
  /* a tiny body, 1e-6 kg: its own inertia with noise accepted, an indefinite one (principal
   * moments -4e-12, 1e-12, 6e-12) rejected */
  double tiny[6] = {1e-12, 2e-12, 1.5e-12, 1e-35, -2e-35, 0}, tiny_bad[6] = {1e-12, 1e-12, 1e-12,
                                                                              5e-12, 0, 0};
  mbt_tree_body(t, 5, 1e-6, away, tiny);
  if (mb_model_check(&t->model, msg, sizeof msg)) fail_msg("tiny: %s", msg);
  mbt_tree_body(t, 5, 1e-6, o, tiny_bad);
  expect_reject(t, "inertia");
  /* clearly indefinite without any diagonal (principal moments -1e-3, 0, 1e-3), and a sign typo */
  double offdiag[6] = {0, 0, 0, 1e-3, 0, 0}, typo[6] = {0.01, 0.02, -0.015, 0, 0, 0};
  mbt_tree_body(t, 5, 1.0, o, offdiag);
  expect_reject(t, "inertia");
  mbt_tree_body(t, 5, 2.0, away, typo);
  expect_reject(t, "inertia");
  mbt_tree_free(t);
}

/* The workspace arrays tile the buffer exactly; S holds every joint's motion subspace. */
static void test_workspace(void **state) {
  (void)state;
  mbt_tree *t = mbt_randtree(5, 12, 1);
  const mb_model *m = &t->model;
  size_t size = mb_workspace_size(m);
  double *buf = malloc(size);
  mb_workspace ws;
  mb_workspace_init(&ws, m, buf);
  double *end = buf;
#define CHECK_ARRAY(name, count) \
  assert_ptr_equal(ws.name, end); \
  end += (size_t)(count);
  MB_WORKSPACE_ARRAYS(CHECK_ARRAY)
#undef CHECK_ARRAY
  assert_true((char *)end == (char *)buf + size);
  for (int i = 1; i <= m->nb; i++) {
    double S[36];
    mb_joint_S(m, i, S);
    MBT_ASSERT_NEAR(ws.S + 6 * m->iv[i], S, 6 * mb_joint_nv(m->jtype[i]), 0.0);
  }
  free(buf);
  mbt_tree_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_xj_analytic),       cmocka_unit_test(test_S_finite_difference),
      cmocka_unit_test(test_sizes_and_neutral), cmocka_unit_test(test_type_table),
      cmocka_unit_test(test_model_check),
      cmocka_unit_test(test_model_check_scale),
      cmocka_unit_test(test_workspace),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
