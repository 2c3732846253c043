/* test_api.c — the runtime's argument contract (runtime/mb.h, "The contract"): every entry point
 * returns MB_EINVAL for a NULL model, workspace or required array and MB_EWORKSPACE for a
 * workspace laid out for another model, for a model whose sizes changed since, or never laid out
 * (zeroed or garbage), and writes nothing then; optional arrays (v, a, fext, wrench) may be NULL.
 * Reference: the documented codes, and output arrays filled with a sentinel that must survive
 * every refused call. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

enum { N = 4096 };
static double q[N], v[N], a[N], tau[N], fext[N], out[N], out2[N];
static const double SENTINEL = 12345.0;

static void fill_outputs(void) {
  for (int k = 0; k < N; k++) out[k] = out2[k] = SENTINEL;
}

/* Every entry point that takes (m, ws), with its required arrays; one of them replaced by NULL
 * when `drop` names its position (1-based among the pointers after ws), 0 for none. */
static int call(int fn, const mb_model *m, mb_workspace *ws, int drop) {
#define P(k, x) (drop == (k) ? NULL : (x))
  switch (fn) {
  case 0: return mb_rnea(m, ws, P(1, q), v, a, fext, P(2, out));
  case 1: return mb_nle(m, ws, P(1, q), v, P(2, out));
  case 2: return mb_gravity(m, ws, P(1, q), P(2, out));
  case 3: return mb_crba(m, ws, P(1, q), P(2, out));
  case 4: return mb_crba_fd(m, ws, P(1, q), v, P(2, tau), P(3, out));
  case 5: return mb_aba(m, ws, P(1, q), v, P(2, tau), fext, P(3, out));
  case 6: return mb_minv(m, ws, P(1, q), P(2, out));
  case 7: return mb_cfa(m, ws, P(1, q), v, P(2, tau), P(3, out), out2);
  case 8: return mb_fk(m, ws, P(1, q), P(2, out));
  case 9: return mb_joint_wrenches(m, ws, P(1, q), v, a, P(2, out));
  case 10: return mb_ltdl(m, ws, P(1, out));
  case 11: return mb_ltdl_solve(m, ws, P(1, out2), P(2, out));
  default: return 99;
  }
#undef P
}
static const int nfunctions = 12, nrequired[12] = {2, 2, 2, 2, 3, 3, 2, 3, 2, 2, 1, 2};
static const char *const names[12] = {"rnea", "nle",     "gravity", "crba",  "crba_fd",
                                      "aba",  "minv",    "cfa",     "fk",    "joint_wrenches",
                                      "ltdl", "ltdl_solve"};

static void expect_refused(int fn, const mb_model *m, mb_workspace *ws, int drop, int want) {
  fill_outputs();
  int rc = call(fn, m, ws, drop);
  if (rc != want) fail_msg("%s (NULL at %d): returned %d, expected %d", names[fn], drop, rc, want);
  for (int k = 0; k < N; k++)
    if (out[k] != SENTINEL || out2[k] != SENTINEL)
      fail_msg("%s refused but wrote its output [%d]", names[fn], k);
}

static mbt_tree *tree(uint64_t seed) {
  mbt_tree *t = mbt_randtree(seed, 6, 1);
  mbt_rng g;
  mbt_rng_seed(&g, seed + 100);
  mbt_rand_q(&g, &t->model, q);
  mbt_rand_vec(&g, t->model.nv, -1, 1, v), mbt_rand_vec(&g, t->model.nv, -1, 1, a);
  mbt_rand_vec(&g, t->model.nv, -1, 1, tau), mbt_rand_vec(&g, 6 * 7, -1, 1, fext);
  return t;
}

/* A NULL model, workspace or required array: MB_EINVAL, nothing written. With every optional
 * array NULL the calls succeed. */
static void test_null_arguments(void **state) {
  (void)state;
  mbt_tree *t = tree(1);
  const mb_model *m = &t->model;
  mb_workspace ws;
  double *buf = mbt_workspace_new(m, &ws);
  for (int fn = 0; fn < nfunctions; fn++) {
    expect_refused(fn, NULL, &ws, 0, MB_EINVAL);
    expect_refused(fn, m, NULL, 0, MB_EINVAL);
    for (int drop = 1; drop <= nrequired[fn]; drop++) expect_refused(fn, m, &ws, drop, MB_EINVAL);
    /* the same call with every argument: MB_OK (ltdl gets M, ltdl_solve its factors) */
    if (fn == 10) assert_int_equal(mb_crba(m, &ws, q, out), MB_OK);
    if (fn == 11) {
      assert_int_equal(mb_crba(m, &ws, q, out2), MB_OK);
      assert_int_equal(mb_ltdl(m, &ws, out2), MB_OK);
      for (int k = 0; k < m->nv; k++) out[k] = tau[k];
    }
    assert_int_equal(call(fn, m, &ws, 0), MB_OK);
  }
  /* optional arrays */
  assert_int_equal(mb_rnea(m, &ws, q, NULL, NULL, NULL, out), MB_OK);
  assert_int_equal(mb_nle(m, &ws, q, NULL, out), MB_OK);
  assert_int_equal(mb_aba(m, &ws, q, NULL, tau, NULL, out), MB_OK);
  assert_int_equal(mb_crba_fd(m, &ws, q, NULL, tau, out), MB_OK);
  assert_int_equal(mb_cfa(m, &ws, q, NULL, tau, out, NULL), MB_OK);
  assert_int_equal(mb_joint_wrenches(m, &ws, q, NULL, NULL, out), MB_OK);
  /* the rest of the API */
  assert_int_equal(mb_workspace_init(NULL, m, buf), MB_EINVAL);
  assert_int_equal(mb_workspace_init(&ws, NULL, buf), MB_EINVAL);
  assert_int_equal(mb_workspace_init(&ws, m, NULL), MB_EINVAL);
  assert_int_equal(mb_workspace_check(NULL, &ws), MB_EINVAL);
  assert_int_equal(mb_workspace_check(m, NULL), MB_EINVAL);
  assert_int_equal(mb_workspace_size(NULL), 0);
  assert_int_equal(mb_integrate(NULL, q, v, 0.1, out), MB_EINVAL);
  assert_int_equal(mb_integrate(m, NULL, v, 0.1, out), MB_EINVAL);
  assert_int_equal(mb_integrate(m, q, NULL, 0.1, out), MB_EINVAL);
  assert_int_equal(mb_integrate(m, q, v, 0.1, NULL), MB_EINVAL);
  assert_int_equal(mb_integrate(m, q, v, 0.1, out), MB_OK);
  assert_int_equal(mb_neutral(NULL, out), MB_EINVAL);
  assert_int_equal(mb_neutral(m, NULL), MB_EINVAL);
  assert_int_equal(mb_neutral(m, out), MB_OK);
  assert_int_equal(mb_model_check(NULL, NULL, 0), -1);
  free(buf);
  mbt_tree_free(t);
}

/* A workspace laid out for another model (of other sizes, and of the same sizes at another
 * address), for this model before its sizes changed, zeroed, or filled with garbage:
 * MB_EWORKSPACE from every entry point, nothing written. */
static void test_wrong_workspace(void **state) {
  (void)state;
  mbt_tree *t = tree(1), *other = mbt_randtree(2, 9, 0), *twin = tree(1);
  const mb_model *m = &t->model;
  mb_workspace ws_other, ws_twin, ws_zero, ws_garbage, ws_changed;
  double *b1 = mbt_workspace_new(&other->model, &ws_other);
  double *b2 = mbt_workspace_new(&twin->model, &ws_twin);
  memset(&ws_zero, 0, sizeof ws_zero);
  memset(&ws_garbage, 0xa5, sizeof ws_garbage);
  mbt_tree *grown = tree(1);
  double *b3 = mbt_workspace_new(&grown->model, &ws_changed);
  grown->model.nb -= 1; /* the model changed after its workspace was laid out */
  assert_int_equal(twin->model.nv, m->nv);
  mb_workspace *bad[4] = {&ws_other, &ws_twin, &ws_zero, &ws_garbage};
  for (int fn = 0; fn < nfunctions; fn++) {
    for (int k = 0; k < 4; k++) expect_refused(fn, m, bad[k], 0, MB_EWORKSPACE);
    expect_refused(fn, &grown->model, &ws_changed, 0, MB_EWORKSPACE);
  }
  for (int k = 0; k < 4; k++) assert_int_equal(mb_workspace_check(m, bad[k]), MB_EWORKSPACE);
  assert_int_equal(mb_workspace_check(&other->model, &ws_other), MB_OK);
  grown->model.nb += 1;
  assert_int_equal(mb_workspace_check(&grown->model, &ws_changed), MB_OK);
  free(b1), free(b2), free(b3);
  mbt_tree_free(t), mbt_tree_free(other), mbt_tree_free(twin), mbt_tree_free(grown);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_null_arguments),
      cmocka_unit_test(test_wrong_workspace),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
