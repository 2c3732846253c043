/* test_derivatives.c — the derivatives of inverse and forward dynamics (runtime/derivatives.c) on
 * seeded random trees with every joint type, with and without floating base. References: central
 * finite differences of mb_rnea and mb_aba along the tangent space (q ⊕ ε e_k by mb_integrate,
 * the step a quaternion takes), M from mb_crba (∂τ/∂a = M), M⁻¹ from mb_minv (∂q̈/∂τ = M⁻¹), and
 * the identity ∂q̈/∂x = −M⁻¹ ∂τ/∂x at (q, v, q̈(q, v, τ)). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

typedef struct fixture {
  mbt_tree *t;
  mb_workspace ws;
  double *buf, *q, *v, *a, *tau, *qp, *qm, *e, *yp, *ym;
  double *dq, *dv, *M, *ref, *col;
} fixture;

static int with_universal; /* the trees draw universal joints too (test_universal_joints) */
static const double *cur_fext; /* the external wrenches rnea3 and aba3 apply (NULL: none) */

static void setup(fixture *f, uint64_t seed, int nb, int floating) {
  f->t = with_universal ? mbt_randtree_universal(seed, nb, floating)
                        : mbt_randtree(seed, nb, floating);
  const mb_model *m = &f->t->model;
  size_t nv = (size_t)m->nv, nq = (size_t)m->nq;
  f->buf = mbt_workspace_new(m, &f->ws);
  f->q = malloc(sizeof(double) * (3 * nq + 7 * nv + 4 * nv * nv + 1));
  f->qp = f->q + nq, f->qm = f->qp + nq, f->v = f->qm + nq, f->a = f->v + nv;
  f->tau = f->a + nv, f->e = f->tau + nv, f->yp = f->e + nv, f->ym = f->yp + nv;
  f->col = f->ym + nv, f->dq = f->col + nv, f->dv = f->dq + nv * nv, f->M = f->dv + nv * nv;
  f->ref = f->M + nv * nv;
  mbt_rng g;
  mbt_rng_seed(&g, seed * 31 + 7);
  mbt_rand_q(&g, m, f->q);
  mbt_rand_vec(&g, m->nv, -1, 1, f->v);
  mbt_rand_vec(&g, m->nv, -1, 1, f->a);
  mbt_rand_vec(&g, m->nv, -1, 1, f->tau);
}

static void teardown(fixture *f) {
  free(f->q), free(f->buf);
  mbt_tree_free(f->t);
}

/* y(q, v, x) for the function under test: τ = rnea(q, v, x) or q̈ = aba(q, v, x) */
typedef int (*dyn_fn)(const mb_model *, mb_workspace *, const double *, const double *,
                      const double *, double *);
static int rnea3(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                 const double *a, double *y) {
  return mb_rnea(m, ws, q, v, a, cur_fext, y);
}
static int aba3(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                const double *tau, double *y) {
  return mb_aba(m, ws, q, v, tau, cur_fext, y);
}

/* Column k of ∂y/∂q (wrt_q) or ∂y/∂v by central differences, step h, into f->col. */
static void fd_column(fixture *f, dyn_fn fn, const double *x, int k, int wrt_q, double h) {
  const mb_model *m = &f->t->model;
  int n = m->nv;
  for (int l = 0; l < n; l++) f->e[l] = (l == k) ? 1.0 : 0.0;
  if (wrt_q) {
    assert_int_equal(mb_integrate(m, f->q, f->e, h, f->qp), MB_OK);
    assert_int_equal(mb_integrate(m, f->q, f->e, -h, f->qm), MB_OK);
    assert_int_equal(fn(m, &f->ws, f->qp, f->v, x, f->yp), MB_OK);
    assert_int_equal(fn(m, &f->ws, f->qm, f->v, x, f->ym), MB_OK);
  } else {
    double *vp = f->qp, *vm = f->qm; /* nq ≥ nv */
    for (int l = 0; l < n; l++) vp[l] = f->v[l] + h * f->e[l], vm[l] = f->v[l] - h * f->e[l];
    assert_int_equal(fn(m, &f->ws, f->q, vp, x, f->yp), MB_OK);
    assert_int_equal(fn(m, &f->ws, f->q, vm, x, f->ym), MB_OK);
  }
  for (int l = 0; l < n; l++) f->col[l] = (f->yp[l] - f->ym[l]) / (2 * h);
}

/* Every column of D (n × n row-major) against central differences, 1e-6 relative to the largest
 * entry of the column or of D (h = 1e-5: truncation h² ≈ 1e-10, rounding 1e-16/h ≈ 1e-11). */
static void check_fd(fixture *f, dyn_fn fn, const double *x, const double *D, int wrt_q) {
  int n = f->t->model.nv;
  double scale = fmax(mbt_max_abs(D, (size_t)n * (size_t)n), 1.0);
  for (int k = 0; k < n; k++) {
    fd_column(f, fn, x, k, wrt_q, 1e-5);
    for (int l = 0; l < n; l++) f->e[l] = D[l * n + k];
    mbt_assert_near(f->e, f->col, (size_t)n, 1e-6, scale, wrt_q ? "d/dq column" : "d/dv column",
                    __FILE__, __LINE__);
  }
}

#define FOR_TREES(f)                                             \
  for (int s_ = 0; s_ < MBT_NSIZES; s_++)                        \
    for (uint64_t seed_ = 1; seed_ <= MBT_NSEEDS; seed_++)       \
      for (int once_ = (setup(&(f), seed_, mbt_sizes[s_], (int)(seed_ % 2)), 1); once_; \
           once_ = 0, teardown(&(f)))

/* ∂τ/∂q and ∂τ/∂v against central differences of mb_rnea; ∂τ/∂a = mb_crba's M to 1e-12. */
static void test_rnea_derivatives(void **state) {
  (void)state;
  fixture f;
  FOR_TREES(f) {
    const mb_model *m = &f.t->model;
    size_t n2 = (size_t)m->nv * (size_t)m->nv;
    assert_int_equal(mb_rnea_derivatives(m, &f.ws, f.q, f.v, f.a, f.dq, f.dv, f.M), MB_OK);
    check_fd(&f, rnea3, f.a, f.dq, 1);
    check_fd(&f, rnea3, f.a, f.dv, 0);
    assert_int_equal(mb_crba(m, &f.ws, f.q, f.ref), MB_OK);
    MBT_ASSERT_REL(f.M, f.ref, n2, 1e-12);
  }
}

/* v = 0, a = 0: ∂τ/∂v = 0 (τ is quadratic in v), and ∂τ/∂q is the gravity torques' derivative. */
static void test_static(void **state) {
  (void)state;
  fixture f;
  FOR_TREES(f) {
    const mb_model *m = &f.t->model;
    size_t n2 = (size_t)m->nv * (size_t)m->nv;
    for (int k = 0; k < m->nv; k++) f.v[k] = 0.0, f.a[k] = 0.0;
    assert_int_equal(mb_rnea_derivatives(m, &f.ws, f.q, NULL, NULL, f.dq, f.dv, f.M), MB_OK);
    for (size_t k = 0; k < n2; k++) f.ref[k] = 0.0;
    MBT_ASSERT_NEAR(f.dv, f.ref, n2, 0.0);
    check_fd(&f, rnea3, f.a, f.dq, 1);
  }
}

/* ∂q̈/∂q and ∂q̈/∂v against central differences of mb_aba; ∂q̈/∂τ = mb_minv's M⁻¹ exactly (the
 * same computation); and −M⁻¹ ∂τ/∂q at q̈. */
static void test_aba_derivatives(void **state) {
  (void)state;
  fixture f;
  FOR_TREES(f) {
    const mb_model *m = &f.t->model;
    int n = m->nv;
    size_t n2 = (size_t)n * (size_t)n;
    double *Minv = f.M;
    assert_int_equal(mb_aba_derivatives(m, &f.ws, f.q, f.v, f.tau, f.dq, f.dv, Minv), MB_OK);
    check_fd(&f, aba3, f.tau, f.dq, 1);
    check_fd(&f, aba3, f.tau, f.dv, 0);
    assert_int_equal(mb_minv(m, &f.ws, f.q, f.ref), MB_OK);
    MBT_ASSERT_NEAR(Minv, f.ref, n2, 0.0);
    /* −M⁻¹ ∂τ/∂q from the inverse-dynamics derivatives at q̈ */
    double *R = malloc(sizeof(double) * 2 * n2), *T = R + n2;
    assert_int_equal(mb_aba(m, &f.ws, f.q, f.v, f.tau, NULL, f.a), MB_OK);
    assert_int_equal(mb_rnea_derivatives(m, &f.ws, f.q, f.v, f.a, T, f.ref, NULL), MB_OK);
    for (int r = 0; r < n; r++)
      for (int c = 0; c < n; c++) {
        double s = 0.0;
        for (int l = 0; l < n; l++) s -= Minv[r * n + l] * T[l * n + c];
        R[r * n + c] = s;
      }
    MBT_ASSERT_REL(f.dq, R, n2, 1e-12);
    free(R);
  }
}

/* The three tests above on trees with universal joints (S varies with q, cJ ≠ 0): the same
 * references (differences of mb_rnea and mb_aba, mb_crba, mb_minv). */
static void test_universal_joints(void **state) {
  with_universal = 1;
  test_rnea_derivatives(state);
  test_static(state);
  test_aba_derivatives(state);
  with_universal = 0;
}

/* Column 6 j + l of ∂y/∂fext (y = τ or q̈, affine in fext) against the difference of y at fext
 * and fext + e_{6j+l} (exact but for rounding: 1e-9 relative to the largest entry). */
static void check_fext(fixture *f, dyn_fn fn, const double *x, double *fext, const double *D) {
  const mb_model *m = &f->t->model;
  int n = m->nv, cols = 6 * (m->nb + 1);
  double scale = fmax(mbt_max_abs(D, (size_t)n * (size_t)cols), 1.0);
  assert_int_equal(fn(m, &f->ws, f->q, f->v, x, f->ym), MB_OK);
  for (int k = 0; k < cols; k++) {
    double keep = fext[k];
    fext[k] += 1.0;
    assert_int_equal(fn(m, &f->ws, f->q, f->v, x, f->yp), MB_OK);
    fext[k] = keep;
    for (int l = 0; l < n; l++) f->col[l] = f->yp[l] - f->ym[l], f->e[l] = D[l * cols + k];
    mbt_assert_near(f->e, f->col, (size_t)n, 1e-9, scale, "d/dfext column", __FILE__, __LINE__);
  }
}

/* With external wrenches (random, every body): ∂τ/∂q, ∂τ/∂v of mb_rnea_ext_derivatives and
 * ∂q̈/∂q, ∂q̈/∂v of mb_aba_ext_derivatives against central differences of mb_rnea / mb_aba with
 * the same fext (held in the bodies' frames), their M and M⁻¹ against mb_crba and mb_minv, and
 * ∂/∂fext against differences of the affine maps; fext = NULL gives mb_rnea_derivatives'. */
static void test_ext_derivatives(void **state) {
  (void)state;
  fixture f;
  FOR_TREES(f) {
    const mb_model *m = &f.t->model;
    size_t n2 = (size_t)m->nv * (size_t)m->nv, cols = 6 * ((size_t)m->nb + 1);
    double *fext = malloc(sizeof(double) * (cols + cols * (size_t)m->nv + n2));
    double *D = fext + cols, *W = D + cols * (size_t)m->nv;
    mbt_rng g;
    mbt_rng_seed(&g, 99);
    mbt_rand_vec(&g, (int)cols, -2, 2, fext);
    cur_fext = fext;
    assert_int_equal(mb_rnea_ext_derivatives(m, &f.ws, f.q, f.v, f.a, fext, f.dq, f.dv, f.M, D),
                     MB_OK);
    check_fd(&f, rnea3, f.a, f.dq, 1);
    check_fd(&f, rnea3, f.a, f.dv, 0);
    check_fext(&f, rnea3, f.a, fext, D);
    assert_int_equal(mb_crba(m, &f.ws, f.q, f.ref), MB_OK);
    MBT_ASSERT_REL(f.M, f.ref, n2, 1e-12);
    assert_int_equal(mb_aba_ext_derivatives(m, &f.ws, f.q, f.v, f.tau, fext, f.dq, f.dv, f.M, D),
                     MB_OK);
    check_fd(&f, aba3, f.tau, f.dq, 1);
    check_fd(&f, aba3, f.tau, f.dv, 0);
    check_fext(&f, aba3, f.tau, fext, D);
    assert_int_equal(mb_minv(m, &f.ws, f.q, f.ref), MB_OK);
    MBT_ASSERT_NEAR(f.M, f.ref, n2, 0.0);
    cur_fext = NULL;
    assert_int_equal(mb_rnea_ext_derivatives(m, &f.ws, f.q, f.v, f.a, NULL, f.dq, f.dv, NULL,
                                             NULL), MB_OK);
    assert_int_equal(mb_rnea_derivatives(m, &f.ws, f.q, f.v, f.a, W, f.ref, NULL), MB_OK);
    MBT_ASSERT_NEAR(f.dq, W, n2, 0.0);
    MBT_ASSERT_NEAR(f.dv, f.ref, n2, 0.0);
    free(fext);
  }
}

/* A NULL configuration or output is refused (MB_EINVAL). */
static void test_refusals(void **state) {
  (void)state;
  fixture f;
  setup(&f, 3, 4, 1);
  const mb_model *m = &f.t->model;
  assert_int_equal(mb_rnea_derivatives(m, &f.ws, f.q, f.v, f.a, NULL, f.dv, f.M), MB_EINVAL);
  assert_int_equal(mb_aba_derivatives(m, &f.ws, f.q, f.v, f.tau, f.dq, f.dv, NULL), MB_EINVAL);
  assert_int_equal(mb_rnea_derivatives(m, &f.ws, NULL, f.v, f.a, f.dq, f.dv, f.M), MB_EINVAL);
  teardown(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rnea_derivatives),
      cmocka_unit_test(test_static),
      cmocka_unit_test(test_aba_derivatives),
      cmocka_unit_test(test_universal_joints),
      cmocka_unit_test(test_ext_derivatives),
      cmocka_unit_test(test_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
