/* test_rcr_hung.c — loops hung from another loop's tail in recursive coordinate reduction
 * (runtime/rcr_internal.h "hung"; Critchley & Anderson 2003, §5 with eq. 45: coupled loops whose
 * shared joints carry one loop's dependents or tail).
 *
 * For selections that put dependents on a shared joint: the plan (which group hangs from which,
 * at which body, with which open inputs; checked against the definition, worked out by hand for
 * each model below) and mb_rcr against mb_fd_loops (reference: the same equations solved with
 * Lagrange multipliers) on random assembled states, 1e-10 relative where the selection's
 * smallest pivot ratio is at least MB_RCR_SWITCH (test_rcr.c's rule). The models:
 *   - tests/models/hung_loops.mbd, its own `independent q3 qd1;` (dependents q1 q2 | qd2 qd3): the
 *     outer four-bar has no head (q1 is dependent), the inner loop (base L1, in the outer tail)
 *     shares L2's joint q2 and hangs at L2 with a head of its own, qd1;
 *   - tests/models/nested_loops.mbd with q3 qa1 | qb1 qb2 dependent: the outer head is q1 q2 (p = L2),
 *     the inner loop's base L1 lies in it short of p: an open input of the outer tail, open on L2;
 *     the inner loop hangs at L3;
 *   - tests/models/shared_spine.mbd with j_spine_5 j_spine_6 | j_inner_1 j_inner_2 dependent: the
 *     outer head j_spine_1..4 (p = spine_4) holds the inner base spine_1: an open input carried
 *     down spine_4 ... spine_2; the inner loop hangs at spine_8;
 *   - the same models with a selection that cannot hang (dependents of both loops on the shared
 *     joints, or no column would leave the dense system): one group. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "mbt_loopsys.h"
#include "rcr_internal.h"

#define MAXV 64
#define NSTATES 100

static mbt_loopsys *open_model(const char *rel) {
  const char *src = getenv("MBDC_SOURCE_DIR");
  char path[4096];
  if (!src) fail_msg("MBDC_SOURCE_DIR is not set (run the test with ctest)");
  snprintf(path, sizeof path, "%s/%s", src, rel);
  mbt_loopsys *s = calloc(1, sizeof *s);
  assert_non_null(s);
  if (mbt_loopsys_open(path, s)) fail_msg("%s: cannot load", path);
  assert_true(s->nv <= MAXV && s->m->nb < MAXV && s->nc <= MAXV);
  return s;
}

static void close_model(mbt_loopsys *s) {
  mbt_loopsys_close(s);
  free(s);
}

/* The body named name (its index in the runtime model). */
static int body(const mbt_loopsys *s, const char *name) {
  int i = mbt_loopmodel_body(&s->lm, name);
  if (i < 1) fail_msg("no body '%s'", name);
  return i;
}

/* The velocity column of the 1-dof joint into body name. */
static int col(const mbt_loopsys *s, const char *name) { return s->m->iv[body(s, name)]; }

/* mb_rcr with selection dep against mb_fd_loops on NSTATES random assembled states; the worst
 * relative error where the selection's ratio is ≥ MB_RCR_SWITCH (asserted ≤ 1e-10). */
static void agree(mbt_loopsys *s, const int *dep, const char *what, uint64_t seed) {
  mbt_rng g = {seed};
  double q[MAXV], v[MAXV], tau[MAXV], ref[MAXV], qdd[MAXV], ratio[MAXV], worst = 0.0, lo;
  int compared = 0;
  for (int n = 0; n < NSTATES; n++) {
    if (mbt_loopsys_state(s, &g, 0.4, q, v, tau)) fail_msg("%s: no assembled state", what);
    assert_int_equal(mb_fd_loops(s->m, s->L, &s->ws, &s->lw, q, v, tau, ref, NULL), MB_OK);
    assert_int_equal(mb_rcr_pivots(s->m, s->L, &s->ws, &s->lw, q, dep, ratio, &lo), MB_OK);
    if (!(lo >= MB_RCR_SWITCH)) continue;
    assert_int_equal(mb_rcr(s->m, s->L, &s->ws, &s->lw, 1, dep, q, v, tau, qdd, NULL), MB_OK);
    double e = 0.0, sc = 0.0;
    for (int k = 0; k < s->nv; k++) e = fmax(e, fabs(qdd[k] - ref[k])), sc = fmax(sc, fabs(ref[k]));
    worst = fmax(worst, e / sc), compared++;
  }
  printf("%-40s %3d states compared: worst |qdd_rcr - qdd_fd| / max|qdd_fd| = %.1e\n", what,
         compared, worst);
  assert_true(compared >= NSTATES / 4);
  if (!(worst <= 1e-10)) fail_msg("%s: mb_rcr vs mb_fd_loops %.3e", what, worst);
}

/* The plan of dep: two groups, group 1 hung from group 0 at body att, group 0's tail with nz
 * open inputs (group 1) and p at body p0; the hub att open for group 1. */
static void expect_hung(mbt_loopsys *s, const int *dep, int att, int p0, int nz) {
  rcr_plan P;
  assert_int_equal(mb_rcr_plan_(s->m, s->L, &s->lw, &P, dep), MB_OK);
  assert_int_equal(P.ng, 2);
  assert_int_equal(P.nest[0], -1);
  assert_int_equal(P.nest[1], 0);
  assert_int_equal(P.att[1], att);
  assert_int_equal(P.p[0], p0);
  assert_int_equal(P.nz[0], nz);
  if (nz) assert_int_equal(P.zg[0], 1);
  assert_int_equal(P.nz[1], 0);
  assert_int_equal(P.role[att], 2); /* a tail body of the outer group, its hub */
  assert_int_equal(P.grp[att], 0);
  assert_int_equal(P.nopen[att], 1);
  assert_int_equal(P.open[MB_RCR_MAX_OPEN * att], 1);
}

static void expect_joined(mbt_loopsys *s, const int *dep) {
  rcr_plan P;
  assert_int_equal(mb_rcr_plan_(s->m, s->L, &s->lw, &P, dep), MB_OK);
  assert_int_equal(P.ng, 1);
}

static void test_hung_loops(void **state) {
  (void)state;
  mbt_loopsys *s = open_model("tests/models/hung_loops.mbd");
  const int dep[4] = {col(s, "L1"), col(s, "L2"), col(s, "D2"), col(s, "D3")};
  expect_hung(s, dep, body(s, "L2"), 0, 0); /* outer: no head, p = c = world */
  rcr_plan P;
  assert_int_equal(mb_rcr_plan_(s->m, s->L, &s->lw, &P, dep), MB_OK);
  assert_int_equal(P.base[1], body(s, "L1"));
  assert_int_equal(P.p[1], body(s, "D1")); /* the inner loop's own head qd1 */
  assert_int_equal(P.role[body(s, "D1")], 1);
  assert_int_equal(P.nI[0], 1); /* q3 */
  agree(s, dep, "hung_loops (q1 q2 | qd2 qd3)", 1u);
  /* q1 q2 q3 qd1 (greedy from the chains' starts): three dependents on the outer loop's joints
   * for its two rows, so the inner loop cannot hang from it: one group */
  const int both[4] = {col(s, "L1"), col(s, "L2"), col(s, "L3"), col(s, "D1")};
  expect_joined(s, both);
  agree(s, both, "hung_loops (q1 q2 q3 qd1: one group)", 2u);
  close_model(s);
}

static void test_nested_open_input(void **state) {
  (void)state;
  mbt_loopsys *s = open_model("tests/models/nested_loops.mbd");
  const int dep[4] = {col(s, "L3"), col(s, "A1"), col(s, "B1"), col(s, "B2")};
  expect_hung(s, dep, body(s, "L3"), body(s, "L2"), 1);
  rcr_plan P;
  assert_int_equal(mb_rcr_plan_(s->m, s->L, &s->lw, &P, dep), MB_OK);
  int L2 = body(s, "L2");
  assert_int_equal(P.nopen[L2], 2); /* the outer head, and the inner base's open input */
  assert_int_equal(P.open[MB_RCR_MAX_OPEN * L2], 0);
  assert_int_equal(P.open[MB_RCR_MAX_OPEN * L2 + 1], 1);
  assert_int_equal(P.nopen[body(s, "L1")], 1); /* the inner loop closes on its base */
  agree(s, dep, "nested_loops (q3 qa1 | qb1 qb2)", 3u);
  /* q2 dependent: the inner base L1 is the outer p, and the inner loop has no head beyond L3:
   * hanging would take no column out of the dense system, so the loops are one group */
  const int flat[4] = {col(s, "L2"), col(s, "A1"), col(s, "B1"), col(s, "B2")};
  expect_joined(s, flat);
  agree(s, flat, "nested_loops (q2 qa1 qb1 qb2: one group)", 4u);
  close_model(s);
}

static void test_shared_spine(void **state) {
  (void)state;
  mbt_loopsys *s = open_model("tests/models/shared_spine.mbd");
  const int dep[4] = {col(s, "spine_5"), col(s, "spine_6"), col(s, "inner_1"), col(s, "inner_2")};
  expect_hung(s, dep, body(s, "spine_8"), body(s, "spine_4"), 1);
  rcr_plan P;
  assert_int_equal(mb_rcr_plan_(s->m, s->L, &s->lw, &P, dep), MB_OK);
  for (int k = 2; k <= 4; k++) { /* the open input crosses the outer head above spine_1 */
    char name[16];
    snprintf(name, sizeof name, "spine_%d", k);
    assert_int_equal(P.nopen[body(s, name)], 2);
  }
  assert_int_equal(P.nopen[body(s, "spine_1")], 1);
  assert_int_equal(P.nI[0], 4); /* j_spine_7, j_spine_8, j_outer_1, j_outer_2 */
  assert_int_equal(P.nI[1], 0);
  agree(s, dep, "shared_spine (spine 5 6 | inner 1 2)", 5u);
  close_model(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hung_loops),
      cmocka_unit_test(test_nested_open_input),
      cmocka_unit_test(test_shared_spine),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
