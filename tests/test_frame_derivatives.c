/* test_frame_derivatives.c — the derivatives of the operational frames' velocity and acceleration
 * (runtime/frame_derivatives.c) on seeded random trees of every joint type (universal joints
 * too), with and without a floating base, each with frames at random offsets and rotations on
 * random bodies (the world's included). References:
 *   - central differences of V = mb_frame_velocity (world) and A = mb_frame_jacobian(world) a +
 *     mb_frame_acceleration_bias (world), and of Rᵀ V, Rᵀ A with R from mb_frame_pose (local),
 *     along the tangent space (q ⊕ ±h e_k by mb_integrate) and along v;
 *   - mb_frame_jacobian (world and local) for dV/dv and dA/da;
 *   - the time derivative: the world V is differentiated by A, so dV/dq v = J̇ v =
 *     mb_frame_acceleration_bias, and dA/dv v = 2 J̇ v (dA/dv = dV/dq + J̇, docs/derivatives.md);
 *     in the frame's axes d/dt (Rᵀ V) = Rᵀ A − ω_l × (Rᵀ V), so (dV/dq)_local v = Rᵀ J̇ v −
 *     [0; ω_l × v_l].
 * The world frame's columns (a frame on body 0) are zero. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

enum { NF = 4 }; /* frames per tree */

typedef struct fixture {
  mbt_tree *t;
  mb_workspace ws;
  mb_frame fr[NF];
  mb_frames F;
  double *buf, *q, *v, *a, *qp, *qm, *vp, *e, *yp, *ym, *pose;
  double *dq, *dv, *da, *ref, *col; /* 6 nv NF each (col: 6 NF) */
} fixture;

static int with_universal;

static void setup(fixture *f, uint64_t seed, int nb, int floating) {
  f->t = with_universal ? mbt_randtree_universal(seed, nb, floating)
                        : mbt_randtree(seed, nb, floating);
  const mb_model *m = &f->t->model;
  size_t nv = (size_t)m->nv, nq = (size_t)m->nq, blk = 6 * nv * NF;
  f->buf = mbt_workspace_new(m, &f->ws);
  f->q = malloc(sizeof(double) * (3 * nq + 4 * nv + 30 * NF + 4 * blk + 1));
  f->qp = f->q + nq, f->qm = f->qp + nq, f->v = f->qm + nq, f->a = f->v + nv;
  f->vp = f->a + nv, f->e = f->vp + nv, f->yp = f->e + nv, f->ym = f->yp + 6 * NF;
  f->pose = f->ym + 6 * NF, f->col = f->pose + 12 * NF, f->dq = f->col + 6 * NF;
  f->dv = f->dq + blk, f->da = f->dv + blk, f->ref = f->da + blk;
  mbt_rng g;
  mbt_rng_seed(&g, seed * 37 + 11);
  mbt_rand_q(&g, m, f->q);
  mbt_rand_vec(&g, m->nv, -1, 1, f->v);
  mbt_rand_vec(&g, m->nv, -1, 1, f->a);
  for (int k = 0; k < NF; k++) { /* frame 0 on the last body (the deepest), one maybe on 0 */
    f->fr[k].body = k == 0 ? nb : mbt_randint(&g, k == NF - 1 ? 0 : 1, nb);
    mbt_rand_rot(&g, f->fr[k].R);
    mbt_rand_vec(&g, 3, -0.8, 0.8, f->fr[k].p);
  }
  f->F.n = NF, f->F.frame = f->fr;
}

static void teardown(fixture *f) {
  free(f->q), free(f->buf);
  mbt_tree_free(f->t);
}

#define FOR_TREES(f) MBT_FOR_TREES(setup, teardown, f)

/* y = V(q, v) (accel = 0) or A(q, v, a) (accel = 1), 6 per frame, world or frame axes: the
 * reference functions, from mb_frame_velocity, mb_frame_jacobian, mb_frame_acceleration_bias
 * and mb_frame_pose. */
static void value(fixture *f, const double *q, const double *v, const double *a, int accel,
                  int local, double *y) {
  const mb_model *m = &f->t->model;
  size_t nv = (size_t)m->nv;
  if (!accel) assert_int_equal(mb_frame_velocity(m, &f->F, &f->ws, q, v, y), MB_OK);
  if (accel) {
    assert_int_equal(mb_frame_acceleration_bias(m, &f->F, &f->ws, q, v, y), MB_OK);
    assert_int_equal(mb_frame_jacobian(m, &f->F, &f->ws, q, 0, f->ref), MB_OK);
    for (size_t r = 0; r < 6 * NF; r++)
      for (size_t c = 0; c < nv; c++) y[r] += f->ref[nv * r + c] * a[c];
  }
  if (!local) return;
  assert_int_equal(mb_frame_pose(m, &f->F, &f->ws, q, f->pose), MB_OK);
  for (int k = 0; k < NF; k++)
    for (int h = 0; h < 2; h++) {
      const double *R = f->pose + 12 * k; /* frame → world: Rᵀ x */
      double *x = y + 6 * k + 3 * h, t[3];
      mbs_mat3_tmv(R, x, t);
      for (int l = 0; l < 3; l++) x[l] = t[l];
    }
}

/* Every column of D (6 NF × nv per the layout: frame k's block at 6 nv k) against central
 * differences of value() along q (wrt_q) or v, step h = 1e-5: the error is the truncation
 * h² |y'''| / 6 plus the rounding ε |y| / h, about 1e-10 of the largest entry on these trees
 * (measured: 9e-11 at h = 1e-5, 1.3e-9 at 1e-6 where rounding dominates, 2.2e-10 at 2e-5 where
 * truncation does), so 1e-8 of the largest entry (at least 1) leaves a margin of 100. */
static void check_fd(fixture *f, const double *D, int accel, int local, int wrt_q) {
  const mb_model *m = &f->t->model;
  int n = m->nv;
  double h = 1e-5, scale = fmax(mbt_max_abs(D, 6 * (size_t)n * NF), 1.0);
  for (int k = 0; k < n; k++) {
    for (int l = 0; l < n; l++) f->e[l] = (l == k) ? 1.0 : 0.0;
    if (wrt_q) {
      assert_int_equal(mb_integrate(m, f->q, f->e, h, f->qp), MB_OK);
      assert_int_equal(mb_integrate(m, f->q, f->e, -h, f->qm), MB_OK);
      value(f, f->qp, f->v, f->a, accel, local, f->yp);
      value(f, f->qm, f->v, f->a, accel, local, f->ym);
    } else {
      for (int l = 0; l < n; l++) f->vp[l] = f->v[l] + h * f->e[l];
      value(f, f->q, f->vp, f->a, accel, local, f->yp);
      for (int l = 0; l < n; l++) f->vp[l] = f->v[l] - h * f->e[l];
      value(f, f->q, f->vp, f->a, accel, local, f->ym);
    }
    for (int r = 0; r < 6 * NF; r++) f->col[r] = (f->yp[r] - f->ym[r]) / (2 * h);
    double got[6 * NF];
    for (int r = 0; r < 6 * NF; r++) got[r] = D[(size_t)n * (size_t)r + (size_t)k];
    mbt_assert_near(got, f->col, 6 * NF, 1e-8, scale, wrt_q ? "d/dq column" : "d/dv column",
                    __FILE__, __LINE__);
  }
}

/* The world-axes acceleration derivatives (the contact rows' J q̈ + J̇ v differentiated) and
 * dA/da = J: central differences and mb_frame_jacobian (1e-12 relative: the same columns, the
 * point transfer taken from the world's origin instead of the joint's). */
static void acceleration_case(fixture *f, int local) {
  const mb_model *m = &f->t->model;
  size_t blk = 6 * (size_t)m->nv * NF;
  assert_int_equal(mb_frame_acceleration_derivatives(m, &f->F, &f->ws, f->q, f->v, f->a, local,
                                                     f->dq, f->dv, f->da),
                   MB_OK);
  check_fd(f, f->dq, 1, local, 1);
  check_fd(f, f->dv, 1, local, 0);
  assert_int_equal(mb_frame_jacobian(m, &f->F, &f->ws, f->q, local, f->ref), MB_OK);
  MBT_ASSERT_REL(f->da, f->ref, blk, 1e-12);
}

static void test_acceleration_world(void **state) {
  (void)state;
  fixture f;
  FOR_TREES(f) acceleration_case(&f, 0);
}

static void test_acceleration_local(void **state) {
  (void)state;
  fixture f;
  FOR_TREES(f) acceleration_case(&f, 1);
}

/* dV/dq against central differences of mb_frame_velocity (and Rᵀ of it); dV/dv against
 * mb_frame_jacobian (1e-12 relative, as above). */
static void test_velocity(void **state) {
  (void)state;
  fixture f;
  FOR_TREES(f) {
    const mb_model *m = &f.t->model;
    size_t blk = 6 * (size_t)m->nv * NF;
    for (int local = 0; local < 2; local++) {
      assert_int_equal(mb_frame_velocity_derivatives(m, &f.F, &f.ws, f.q, f.v, local, f.dq, f.dv),
                       MB_OK);
      check_fd(&f, f.dq, 0, local, 1);
      assert_int_equal(mb_frame_jacobian(m, &f.F, &f.ws, f.q, local, f.ref), MB_OK);
      MBT_ASSERT_REL(f.dv, f.ref, blk, 1e-12);
    }
  }
}

/* y = D x for the stacked 6 NF × nv D. */
static void mul(const fixture *f, const double *D, const double *x, double *y) {
  size_t nv = (size_t)f->t->model.nv;
  for (size_t r = 0; r < 6 * NF; r++) {
    double s = 0.0;
    for (size_t c = 0; c < nv; c++) s += D[nv * r + c] * x[c];
    y[r] = s;
  }
}

/* y against want to 1e-12 of max(|want|, 1): rounding only (the terms are of order 1 on these
 * trees: |v| ≤ 1, offsets ≲ 1; a frame on the world has J̇ v = 0). */
#define NEAR12(y, want)                                                                        \
  mbt_assert_near((y), (want), 6 * NF, 1e-12, fmax(mbt_max_abs((want), 6 * NF), 1.0),         \
                  #y " vs " #want, __FILE__, __LINE__)

/* The time-derivative identities (header): dV/dq v = J̇ v and dA/dv v = 2 J̇ v in world axes,
 * and dV/dq v = Rᵀ J̇ v − [0; ω_l × v_l] in the frame's. */
static void test_time_derivative(void **state) {
  (void)state;
  fixture f;
  FOR_TREES(f) {
    const mb_model *m = &f.t->model;
    double bias[6 * NF], vel[6 * NF], y[6 * NF], twice[6 * NF];
    assert_int_equal(mb_frame_acceleration_bias(m, &f.F, &f.ws, f.q, f.v, bias), MB_OK);
    assert_int_equal(mb_frame_velocity_derivatives(m, &f.F, &f.ws, f.q, f.v, 0, f.dq, NULL),
                     MB_OK);
    mul(&f, f.dq, f.v, y);
    NEAR12(y, bias);
    assert_int_equal(mb_frame_acceleration_derivatives(m, &f.F, &f.ws, f.q, f.v, f.a, 0, NULL,
                                                       f.dv, NULL),
                     MB_OK);
    mul(&f, f.dv, f.v, y);
    for (int r = 0; r < 6 * NF; r++) twice[r] = 2 * bias[r];
    NEAR12(y, twice);
    /* local: Rᵀ J̇ v − [0; ω_l × v_l] */
    value(&f, f.q, f.v, f.a, 0, 1, vel);
    for (int k = 0; k < m->nv; k++) f.e[k] = 0.0;
    value(&f, f.q, f.v, f.e, 1, 1, bias); /* A at a = 0: J̇ v, frame axes */
    for (int k = 0; k < NF; k++) {
      double t[3];
      mbs_cross(vel + 6 * k, vel + 6 * k + 3, t);
      for (int l = 0; l < 3; l++) bias[6 * k + 3 + l] -= t[l];
    }
    assert_int_equal(mb_frame_velocity_derivatives(m, &f.F, &f.ws, f.q, f.v, 1, f.dq, NULL),
                     MB_OK);
    mul(&f, f.dq, f.v, y);
    NEAR12(y, bias);
  }
}

/* The universal joints' trees (S varies with q): the same references. */
static void test_universal_joints(void **state) {
  with_universal = 1;
  test_acceleration_world(state);
  test_acceleration_local(state);
  test_velocity(state);
  test_time_derivative(state);
  with_universal = 0;
}

/* NULL v and a are zero; NULL outputs are skipped; a frame on the world has zero columns; NULL
 * frames or q are refused (MB_EINVAL). */
static void test_nulls(void **state) {
  (void)state;
  fixture f;
  setup(&f, 5, 6, 1);
  const mb_model *m = &f.t->model;
  size_t blk = 6 * (size_t)m->nv * NF;
  for (int k = 0; k < m->nv; k++) f.v[k] = f.a[k] = 0.0;
  assert_int_equal(mb_frame_acceleration_derivatives(m, &f.F, &f.ws, f.q, f.v, f.a, 1, f.dq,
                                                     f.dv, f.da),
                   MB_OK);
  assert_int_equal(mb_frame_acceleration_derivatives(m, &f.F, &f.ws, f.q, NULL, NULL, 1, f.ref,
                                                     NULL, NULL),
                   MB_OK);
  MBT_ASSERT_NEAR(f.ref, f.dq, blk, 0.0);
  assert_int_equal(mb_frame_acceleration_derivatives(m, &f.F, &f.ws, f.q, NULL, NULL, 1, NULL,
                                                     f.ref, NULL),
                   MB_OK);
  MBT_ASSERT_NEAR(f.ref, f.dv, blk, 0.0);
  f.fr[1].body = 0;
  assert_int_equal(mb_frame_velocity_derivatives(m, &f.F, &f.ws, f.q, f.v, 0, f.dq, f.dv), MB_OK);
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < m->nv; c++) {
      size_t at = 6 * (size_t)m->nv + (size_t)m->nv * (size_t)r + (size_t)c;
      MBT_ASSERT_NEAR1(f.dq[at], 0.0, 0.0);
      MBT_ASSERT_NEAR1(f.dv[at], 0.0, 0.0);
    }
  assert_int_equal(mb_frame_velocity_derivatives(m, NULL, &f.ws, f.q, f.v, 0, f.dq, f.dv),
                   MB_EINVAL);
  assert_int_equal(mb_frame_acceleration_derivatives(m, &f.F, &f.ws, NULL, f.v, f.a, 0, f.dq,
                                                     f.dv, f.da),
                   MB_EINVAL);
  teardown(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_acceleration_world), cmocka_unit_test(test_acceleration_local),
      cmocka_unit_test(test_velocity),           cmocka_unit_test(test_time_derivative),
      cmocka_unit_test(test_universal_joints),   cmocka_unit_test(test_nulls),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
