/* test_contact_derivatives.c — the derivatives of contact-constrained dynamics and of impacts
 * (runtime/contact_derivatives.c) on seeded random trees of every joint type, with and without a
 * floating base, each with a point contact, a welded contact and a second point contact on random
 * bodies at random frames, random masks, rigid (μ = 0) and compliant (μ > 0).
 *
 * References:
 *   - central differences of mb_contact_fd (q̈, f) and mb_impulse (v⁺, Λ) along the tangent space
 *     (q ⊕ ε e_k by mb_integrate) and along v, τ, v⁻; step h = 1e-5, 1e-6 relative to the
 *     largest entry of the matrix (truncation h² ≈ 1e-10, rounding ≈ 1e-16 / h = 1e-11, times
 *     the conditioning of the contact system);
 *   - q̈ and f, v⁺ and Λ equal to mb_contact_fd's and mb_impulse's (exactly: the same calls);
 *   - no active contact: mb_aba_derivatives' answers (exactly) and zero force derivatives.
 * A random draw whose contact system is singular (MB_ENUMERIC: redundant rigid contacts) is
 * tried again with its point contact alone, then skipped; at least half of the draws must be
 * usable. */
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

enum { NC = 3, NR = 12 }; /* contacts: dims 3, 6, 3 */

typedef struct fixture {
  mbt_tree *t;
  mb_workspace ws;
  mb_frame fr[NC];
  mb_frames F;
  mb_contact ct[NC];
  mb_contacts C;
  int active[NC];
  double mu[NC], *mup;
  double *buf, *scr, *q, *qp, *qm, *v, *x, *xp, *xm, *e, *yp, *ym, *fp, *fm, *y0, *f0, *col;
  double *D[3], *DF[3], *R;
} fixture;

static void setup(fixture *f, uint64_t seed, int nb, int floating) {
  f->t = mbt_randtree(seed, nb, floating);
  const mb_model *m = &f->t->model;
  size_t nv = (size_t)m->nv, nq = (size_t)m->nq;
  f->buf = mbt_workspace_new(m, &f->ws);
  mbt_rng g;
  mbt_rng_seed(&g, seed * 53 + (uint64_t)nb);
  for (int k = 0; k < NC; k++) {
    f->fr[k].body = mbt_randint(&g, 1, nb);
    mbt_rand_rot(&g, f->fr[k].R);
    mbt_rand_vec(&g, 3, -0.8, 0.8, f->fr[k].p);
    f->ct[k].frame = k, f->ct[k].dim = k == 1 ? 6 : 3;
    f->active[k] = mbt_randint(&g, 0, 3) > 0; /* mostly active */
    f->mu[k] = 0.05 * mbt_uniform(&g, 0.5, 1.5);
  }
  f->F.n = NC, f->F.frame = f->fr, f->C.n = NC, f->C.contact = f->ct;
  f->mup = seed % 3 == 0 ? f->mu : NULL;
  f->scr = malloc(mb_contact_derivatives_scratch_size(m, &f->C));
  size_t nd = 3 * nq + 10 * nv + 5 * (size_t)NR + 4 * nv * nv + 3 * NR * nv;
  double *p = f->q = malloc(sizeof(double) * nd);
  double **vecs[] = {&f->v, &f->x, &f->xp, &f->xm, &f->e, &f->yp, &f->ym, &f->y0, &f->col};
  f->qp = p + nq, f->qm = f->qp + nq, p = f->qm + nq;
  for (size_t k = 0; k < sizeof vecs / sizeof vecs[0]; k++) *vecs[k] = p, p += nv;
  f->fp = p, f->fm = p + NR, f->f0 = p + 2 * NR, f->R = p + 3 * NR, p += 5 * NR;
  for (int k = 0; k < 3; k++) f->D[k] = p, p += nv * nv;
  for (int k = 0; k < 3; k++) f->DF[k] = p, p += NR * nv;
  mbt_rand_q(&g, m, f->q);
  mbt_rand_vec(&g, m->nv, -1, 1, f->v);
  mbt_rand_vec(&g, m->nv, -1, 1, f->x); /* τ, or v⁻ */
}

static void teardown(fixture *f) {
  free(f->q), free(f->buf), free(f->scr);
  mbt_tree_free(f->t);
}

#define FOR_TREES(f) MBT_FOR_TREES(setup, teardown, f)

/* The solution (y, force) at (q, v, x): mb_contact_fd (impact 0: x = τ) or mb_impulse (impact 1:
 * v⁻ = x, v ignored). */
static int solve(fixture *f, int impact, const double *q, const double *v, const double *x,
                 double *y, double *force) {
  const mb_model *m = &f->t->model;
  if (impact) return mb_impulse(m, &f->F, &f->C, &f->ws, f->scr, q, x, f->active, y, force);
  return mb_contact_fd(m, &f->F, &f->C, &f->ws, f->scr, q, v, x, f->active, f->mup, y, force);
}

/* Column k of the derivatives along variable w (0: q, 1: v, 2: x) by central differences, against
 * column k of D (nv rows) and DF (NR rows). */
static void check_column(fixture *f, int impact, int w, int k, const double *D, const double *DF,
                         double sd, double sf) {
  const mb_model *m = &f->t->model;
  int nv = m->nv, nr = mb_contact_rows(&f->C);
  double h = 1e-5;
  for (int l = 0; l < nv; l++) f->e[l] = l == k ? 1.0 : 0.0;
  const double *q[2] = {f->q, f->q}, *v[2] = {f->v, f->v}, *x[2] = {f->x, f->x};
  double *qs[2] = {f->qp, f->qm}, *xs[2] = {f->xp, f->xm};
  for (int s = 0; s < 2; s++) {
    double hs = s ? -h : h;
    if (w == 0) {
      assert_int_equal(mb_integrate(m, f->q, f->e, hs, qs[s]), MB_OK);
      q[s] = qs[s];
    } else {
      const double *base = w == 1 ? f->v : f->x;
      for (int l = 0; l < nv; l++) xs[s][l] = base[l] + hs * f->e[l];
      if (w == 1) v[s] = xs[s];
      else x[s] = xs[s];
    }
  }
  assert_int_equal(solve(f, impact, q[0], v[0], x[0], f->yp, f->fp), MB_OK);
  assert_int_equal(solve(f, impact, q[1], v[1], x[1], f->ym, f->fm), MB_OK);
  for (int l = 0; l < nv; l++) f->col[l] = (f->yp[l] - f->ym[l]) / (2 * h), f->e[l] = D[l * nv + k];
  mbt_assert_near(f->e, f->col, (size_t)nv, 1e-6, sd, "dy column", __FILE__, __LINE__);
  if (!DF) return;
  double fcol[NR];
  for (int l = 0; l < nr; l++) {
    fcol[l] = (f->fp[l] - f->fm[l]) / (2 * h);
    f->R[l] = DF[l * nv + k];
  }
  mbt_assert_near(f->R, fcol, (size_t)nr, 1e-6, sf, "dforce column", __FILE__, __LINE__);
}

static void check_all(fixture *f, int impact, int nvars) {
  const mb_model *m = &f->t->model;
  size_t nv = (size_t)m->nv, nr = (size_t)mb_contact_rows(&f->C);
  for (int w = 0; w < nvars; w++) {
    double sd = fmax(mbt_max_abs(f->D[w], nv * nv), 1.0);
    double sf = fmax(mbt_max_abs(f->DF[w], nr * nv), 1.0);
    for (int k = 0; k < (int)nv; k++) check_column(f, impact, w, k, f->D[w], f->DF[w], sd, sf);
  }
}

/* Contact dynamics: q̈, f as mb_contact_fd; ∂/∂q, ∂/∂v, ∂/∂τ against central differences. */
static void test_contact_fd_derivatives(void **state) {
  (void)state;
  fixture f;
  int used = 0, draws = 0;
  FOR_TREES(f) {
    const mb_model *m = &f.t->model;
    size_t nv = (size_t)m->nv, nr = (size_t)mb_contact_rows(&f.C);
    double *qdd = f.xm, *force = f.R; /* free until check_all */
    draws++;
    int rc = MB_ENUMERIC;
    for (int t = 0; t < 2 && rc == MB_ENUMERIC; t++) { /* redundant: the point contact alone */
      if (t) f.active[0] = 1, f.active[1] = f.active[2] = 0;
      rc = mb_contact_fd_derivatives(m, &f.F, &f.C, &f.ws, f.scr, f.q, f.v, f.x, f.active, f.mup,
                                     qdd, force, f.D[0], f.D[1], f.D[2], f.DF[0], f.DF[1],
                                     f.DF[2]);
    }
    if (rc == MB_ENUMERIC) continue;
    assert_int_equal(rc, MB_OK);
    used++;
    assert_int_equal(solve(&f, 0, f.q, f.v, f.x, f.y0, f.f0), MB_OK);
    MBT_ASSERT_NEAR(qdd, f.y0, nv, 0.0);
    MBT_ASSERT_NEAR(force, f.f0, nr, 0.0);
    check_all(&f, 0, 3);
  }
  assert_true(2 * used >= draws);
}

/* Impacts: v⁺, Λ as mb_impulse; ∂/∂q, ∂/∂v⁻ against central differences. */
static void test_impulse_derivatives(void **state) {
  (void)state;
  fixture f;
  int used = 0, draws = 0;
  FOR_TREES(f) {
    const mb_model *m = &f.t->model;
    size_t nv = (size_t)m->nv, nr = (size_t)mb_contact_rows(&f.C);
    double *vplus = f.xm, *imp = f.R;
    draws++;
    int rc = MB_ENUMERIC;
    for (int t = 0; t < 2 && rc == MB_ENUMERIC; t++) { /* else the point contact alone */
      if (t) f.active[0] = 1, f.active[1] = f.active[2] = 0;
      rc = mb_impulse_derivatives(m, &f.F, &f.C, &f.ws, f.scr, f.q, f.x, f.active, vplus, imp,
                                  f.D[0], f.D[2], f.DF[0], f.DF[2]);
    }
    if (rc == MB_ENUMERIC) continue;
    assert_int_equal(rc, MB_OK);
    used++;
    assert_int_equal(solve(&f, 1, f.q, f.v, f.x, f.y0, f.f0), MB_OK);
    MBT_ASSERT_NEAR(vplus, f.y0, nv, 0.0);
    MBT_ASSERT_NEAR(imp, f.f0, nr, 0.0);
    double sd = fmax(mbt_max_abs(f.D[0], nv * nv), 1.0);
    double sf = fmax(mbt_max_abs(f.DF[0], nr * nv), 1.0);
    for (int k = 0; k < (int)nv; k++) check_column(&f, 1, 0, k, f.D[0], f.DF[0], sd, sf);
    sd = fmax(mbt_max_abs(f.D[2], nv * nv), 1.0), sf = fmax(mbt_max_abs(f.DF[2], nr * nv), 1.0);
    for (int k = 0; k < (int)nv; k++) check_column(&f, 1, 2, k, f.D[2], f.DF[2], sd, sf);
  }
  assert_true(2 * used >= draws);
}

/* No active contact: mb_aba_derivatives' answers, zero force derivatives. */
static void test_no_contact(void **state) {
  (void)state;
  fixture f;
  setup(&f, 5, 12, 1);
  const mb_model *m = &f.t->model;
  size_t nv = (size_t)m->nv, n2 = nv * nv;
  for (int k = 0; k < NC; k++) f.active[k] = 0;
  assert_int_equal(mb_contact_fd_derivatives(m, &f.F, &f.C, &f.ws, f.scr, f.q, f.v, f.x,
                                             f.active, NULL, f.yp, f.fp, f.D[0], f.D[1], f.D[2],
                                             f.DF[0], f.DF[1], f.DF[2]),
                   MB_OK);
  double *ref = malloc(sizeof(double) * 3 * n2);
  assert_int_equal(mb_aba_derivatives(m, &f.ws, f.q, f.v, f.x, ref, ref + n2, ref + 2 * n2),
                   MB_OK);
  for (int k = 0; k < 3; k++) MBT_ASSERT_NEAR(f.D[k], ref + (size_t)k * n2, n2, 0.0);
  free(ref);
  for (int k = 0; k < 3; k++)
    for (size_t l = 0; l < NR * nv; l++) assert_true(f.DF[k][l] == 0.0);
  teardown(&f);
}

/* The contract: NULL derivative outputs, aliasing v⁺ and v⁻ (MB_EINVAL). */
static void test_refusals(void **state) {
  (void)state;
  fixture f;
  setup(&f, 3, 5, 1);
  const mb_model *m = &f.t->model;
  assert_int_equal(mb_contact_fd_derivatives(m, &f.F, &f.C, &f.ws, f.scr, f.q, f.v, f.x,
                                             f.active, NULL, f.yp, f.fp, NULL, f.D[1], f.D[2],
                                             NULL, NULL, NULL),
                   MB_EINVAL);
  assert_int_equal(mb_impulse_derivatives(m, &f.F, &f.C, &f.ws, f.scr, f.q, f.x, f.active, f.x,
                                          NULL, f.D[0], f.D[2], NULL, NULL),
                   MB_EINVAL);
  teardown(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_contact_fd_derivatives),
      cmocka_unit_test(test_impulse_derivatives),
      cmocka_unit_test(test_no_contact),
      cmocka_unit_test(test_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
