/* test_numerics.c — the runtime on singular, non-finite and degenerate inputs (runtime/mb.h,
 * "Status codes"): a function that returns int returns MB_ENUMERIC (-1) whenever its answer is
 * not a finite solution of a regular system, and a quaternion stands for the rotation of q/|q|.
 * References, per test: a model whose mass matrix has rank 2 in every configuration (a point mass
 * on a three-joint planar arm), a constraint matrix whose Schur complement cancels 20 digits, the
 * IEEE rules for NaN and overflow, and the scale invariance of the rotation a quaternion stands
 * for (R(s q) = R(q) for every s ≠ 0). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

enum { NSTATES = 1000 };

/* A planar arm: three revolute joints about parallel z axes, 1 m apart, two massless links and a
 * point mass of 1 kg 1 m beyond the last joint. Its mass matrix is M = Jᵀ J with J the 2 × 3
 * Jacobian of the point in the plane, so rank M ≤ 2 < 3 in every configuration: M is singular for
 * every q (and the model is one the runtime's model check accepts: m ≥ 0, Ic ⪰ 0). */
static mbt_tree *planar_point_arm(void) {
  double z[3] = {0, 0, 1}, x1[3] = {1, 0, 0}, zero[3] = {0, 0, 0}, Ic0[6] = {0};
  mbt_tree *t = mbt_tree_new(3);
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, z, NULL, NULL);
  mbt_tree_joint(t, 2, 1, MB_JOINT_REVOLUTE, z, NULL, x1);
  mbt_tree_joint(t, 3, 2, MB_JOINT_REVOLUTE, z, NULL, x1);
  mbt_tree_body(t, 1, 0.0, zero, Ic0);
  mbt_tree_body(t, 2, 0.0, zero, Ic0);
  mbt_tree_body(t, 3, 1.0, x1, Ic0);
  mbt_tree_finish(t);
  return t;
}

/* aba, crba_fd and minv return MB_ENUMERIC on 1000 random states of the planar point arm: the
 * pivot that should be 0 comes out as rounding noise of either sign, which the relative pivot test
 * rejects (the old test, d > 0, let the positive half through). cfa has no inverse inertia here. */
static void test_singular_for_every_q(void **state) {
  (void)state;
  mbt_tree *t = planar_point_arm();
  const mb_model *m = &t->model;
  char msg[128];
  assert_int_equal(mb_model_check(m, msg, sizeof msg), 0);
  mb_workspace ws;
  double *buf = mbt_workspace_new(m, &ws), q[3], v[3], tau[3], out[9];
  mbt_rng g;
  mbt_rng_seed(&g, 7001);
  for (int s = 0; s < NSTATES; s++) {
    mbt_rand_q(&g, m, q), mbt_rand_vec(&g, 3, -1, 1, v), mbt_rand_vec(&g, 3, -1, 1, tau);
    if (mb_aba(m, &ws, q, v, tau, NULL, out) != MB_ENUMERIC) fail_msg("aba accepted state %d", s);
    if (mb_crba_fd(m, &ws, q, v, tau, out) != MB_ENUMERIC) fail_msg("crba_fd accepted state %d", s);
    if (mb_minv(m, &ws, q, out) != MB_ENUMERIC) fail_msg("minv accepted state %d", s);
    if (mb_cfa(m, &ws, q, v, tau, out, NULL) != MB_ENUMERIC) fail_msg("cfa accepted state %d", s);
  }
  free(buf);
  mbt_tree_free(t);
}

/* A chain of three bodies on revolute joints with generic axes, the middle one 1e-20 times
 * lighter (mass and inertia) than the others. Its inverse inertia, ~1e20, enters the constraint
 * matrix A of the CFA in both blocks next to it, and the Schur complement that eliminates the one
 * from the other is the difference of two numbers ~1e20 whose exact value is O(1): no digit of it
 * survives rounding, A is singular to working precision in every configuration and mb_cfa returns
 * MB_ENUMERIC. The ABA needs no inverse inertia: its answer is well conditioned, and it is
 * returned. */
static void test_cfa_negligible_body(void **state) {
  (void)state;
  double a1[3] = {0.3, 0.5, 0.81}, a2[3] = {-0.6, 0.2, 0.77}, a3[3] = {0.1, -0.9, 0.4};
  double r[3] = {0.4, 0.1, -0.2}, c[3] = {0.2, -0.1, 0.15}, Ic[6] = {.05, .04, .03, .001, 0, .002};
  double tiny = 1e-20, Ict[6];
  for (int k = 0; k < 6; k++) Ict[k] = tiny * Ic[k];
  mbt_tree *t = mbt_tree_new(3);
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, a1, NULL, NULL);
  mbt_tree_joint(t, 2, 1, MB_JOINT_REVOLUTE, a2, NULL, r);
  mbt_tree_joint(t, 3, 2, MB_JOINT_REVOLUTE, a3, NULL, r);
  mbt_tree_body(t, 1, 1.0, c, Ic);
  mbt_tree_body(t, 2, tiny, c, Ict);
  mbt_tree_body(t, 3, 1.0, c, Ic);
  mbt_tree_finish(t);
  const mb_model *m = &t->model;
  mb_workspace ws;
  double *buf = mbt_workspace_new(m, &ws), q[3], v[3], tau[3], qdd[3], w[24];
  mbt_rng g;
  mbt_rng_seed(&g, 7002);
  for (int s = 0; s < NSTATES; s++) {
    mbt_rand_q(&g, m, q), mbt_rand_vec(&g, 3, -1, 1, v), mbt_rand_vec(&g, 3, -1, 1, tau);
    assert_int_equal(mb_aba(m, &ws, q, v, tau, NULL, qdd), MB_OK);
    if (mb_cfa(m, &ws, q, v, tau, qdd, w) != MB_ENUMERIC) fail_msg("cfa accepted state %d", s);
  }
  free(buf);
  mbt_tree_free(t);
}

/* ---- non-finite inputs ---------------------------------------------------------------------- */

typedef struct inputs {
  double q[200], v[200], tau[200], fext[6 * 64], M[200 * 200];
} inputs;

/* Every int function of the runtime on x: the number that returned MB_OK (naming the first if
 * `what` is given). Each must return MB_OK exactly when its outputs are finite. */
static int count_ok(const mb_model *m, mb_workspace *ws, inputs *x, const char *what) {
  static double out[200 * 200], w[6 * 64];
  int ok = 0, nv = m->nv, nw = 6 * (m->nb + 1);
  const char *first = NULL;
#define TRY(name, call, n1, n2)                                                                \
  do {                                                                                         \
    int rc_ = (call), fin_ = 1;                                                                \
    for (int k_ = 0; k_ < (n1); k_++) fin_ &= isfinite(out[k_]) != 0;                          \
    for (int k_ = 0; k_ < (n2); k_++) fin_ &= isfinite(w[k_]) != 0;                            \
    if (rc_ != MB_OK && rc_ != MB_ENUMERIC) fail_msg("%s returned %d", name, rc_);             \
    if (rc_ == MB_OK && !fin_) fail_msg("%s returned MB_OK with a non-finite output", name);   \
    if (rc_ == MB_OK) ok++, first = first ? first : name;                                      \
  } while (0)
  TRY("aba", mb_aba(m, ws, x->q, x->v, x->tau, NULL, out), nv, 0);
  TRY("aba fext", mb_aba(m, ws, x->q, x->v, x->tau, x->fext, out), nv, 0);
  TRY("crba_fd", mb_crba_fd(m, ws, x->q, x->v, x->tau, out), nv, 0);
  TRY("minv", mb_minv(m, ws, x->q, out), nv * nv, 0);
  TRY("cfa", mb_cfa(m, ws, x->q, x->v, x->tau, out, w), nv, nw);
#undef TRY
  if (first && what) print_message("%s: %s returned MB_OK\n", what, first);
  return ok;
}

/* One NaN, +Inf or −Inf in any entry of q, v, τ or f_ext makes an output non-finite, and every
 * int function returns MB_ENUMERIC (before: MB_OK with NaN outputs). Random trees with every joint
 * type, floating bases. minv reads q only, and not the coordinates of a joint on the world (M, in
 * body coordinates, does not depend on how the world sees the body of such a joint), so it
 * succeeds for v, τ, f_ext and those; only aba with f_ext reads f_ext, and a wrench on a body
 * welded to the world moves nothing. */
static void test_non_finite_inputs(void **state) {
  (void)state;
  static inputs x;
  const double bad[3] = {NAN, INFINITY, -INFINITY};
  for (uint64_t seed = 1; seed <= 4; seed++) {
    mbt_tree *t = mbt_randtree(seed, 8, (int)(seed % 2));
    const mb_model *m = &t->model;
    mb_workspace ws;
    double *buf = mbt_workspace_new(m, &ws);
    mbt_rng g;
    mbt_rng_seed(&g, 7100 + seed);
    for (int b = 0; b < 3; b++)
      for (int which = 0; which < 4; which++) {
        int n = which == 0 ? m->nq : which == 3 ? 6 * (m->nb + 1) : m->nv;
        for (int at = (which == 3 ? 6 : 0); at < n; at++) {
          mbt_rand_q(&g, m, x.q), mbt_rand_vec(&g, m->nv, -1, 1, x.v);
          mbt_rand_vec(&g, m->nv, -1, 1, x.tau), mbt_rand_vec(&g, 6 * (m->nb + 1), -1, 1, x.fext);
          assert_int_equal(count_ok(m, &ws, &x, NULL), 5);
          double *arr = which == 0 ? x.q : which == 1 ? x.v : which == 2 ? x.tau : x.fext;
          arr[at] = bad[b];
          char what[64];
          snprintf(what, sizeof what, "seed %d, %s[%d] = %g", (int)seed,
                   which == 0 ? "q" : which == 1 ? "v" : which == 2 ? "tau" : "fext", at, bad[b]);
          /* q: nothing may succeed (but minv for a joint on the world); v, tau: minv;
           * fext: all but aba with fext */
          int body = m->nb, welded = 1;
          while (which == 0 && m->iq[body] > at) body--;
          for (int b6 = at / 6; which == 3 && b6 > 0; b6 = m->parent[b6])
            welded &= m->jtype[b6] == MB_JOINT_FIXED; /* a wrench on a body welded to the world */
          int want = which == 0 ? m->parent[body] == 0 : which == 3 ? 4 + welded : 1;
          if (count_ok(m, &ws, &x, NULL) != want) fail_msg("%s", what);
        }
      }
    free(buf);
    mbt_tree_free(t);
  }
}

/* Huge finite inputs whose answer overflows: v = 1e200 makes the velocity products ~1e400 >
 * DBL_MAX, a prismatic displacement of 1e300 makes the articulated and composite inertias of its
 * parent ~m·1e600; the outputs are then Inf or NaN and every function that reads them returns
 * MB_ENUMERIC. Large inputs whose answer is representable (v = 1e100, a displacement of 1e3)
 * succeed (a control). */
static void test_huge_inputs(void **state) {
  (void)state;
  static inputs x;
  double a[3] = {0.3, 0.5, 0.81}, r[3] = {0.4, 0.1, -0.2}, c[3] = {0.2, -0.1, 0.15};
  double Ic[6] = {.05, .04, .03, .001, 0, .002};
  mbt_tree *t = mbt_tree_new(3);
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, a, NULL, NULL);
  mbt_tree_joint(t, 2, 1, MB_JOINT_PRISMATIC, a, NULL, r);
  mbt_tree_joint(t, 3, 2, MB_JOINT_REVOLUTE, r, NULL, r);
  for (int i = 1; i <= 3; i++) mbt_tree_body(t, i, 1.0, c, Ic);
  mbt_tree_finish(t);
  const mb_model *m = &t->model;
  mb_workspace ws;
  double *buf = mbt_workspace_new(m, &ws);
  memset(&x, 0, sizeof x);
  x.q[0] = 0.3, x.q[1] = 0.2, x.q[2] = -0.4, x.tau[0] = 1, x.tau[2] = -1;
  for (int k = 0; k < 3; k++) x.v[k] = 1e100;
  assert_int_equal(count_ok(m, &ws, &x, "v = 1e100"), 5);
  for (int k = 0; k < 3; k++) x.v[k] = 1e200;
  assert_int_equal(count_ok(m, &ws, &x, "v = 1e200"), 1); /* minv does not read v */
  for (int k = 0; k < 3; k++) x.v[k] = 0;
  x.q[1] = 1e3;
  assert_int_equal(count_ok(m, &ws, &x, "q = 1e3"), 5);
  x.q[1] = 1e300;
  assert_int_equal(count_ok(m, &ws, &x, "q = 1e300"), 0);
  free(buf);
  mbt_tree_free(t);
}

/* ---- quaternions ----------------------------------------------------------------------------- */

/* A random tree with spherical and floating joints (mbt_randtree cycles through every type). */
static mbt_tree *tree_with_quaternions(uint64_t seed) {
  mbt_tree *t = mbt_randtree(seed, 10, 1);
  int sph = 0;
  for (int i = 1; i <= t->model.nb; i++) sph += t->model.jtype[i] == MB_JOINT_SPHERICAL;
  assert_true(t->model.jtype[1] == MB_JOINT_FLOATING && sph > 0);
  return t;
}

/* Every quaternion scaled by s: the results of every function are those of the unit quaternions
 * (R(s q) = R(q)), to 1e-14 relative; before, a non-unit quaternion gave a non-rotation. */
static void test_quaternion_scale(void **state) {
  (void)state;
  static inputs x, y;
  static double out[200 * 200], ref[200 * 200];
  const double scales[3] = {2.5, 1e-3, 1e3};
  for (uint64_t seed = 1; seed <= 4; seed++) {
    mbt_tree *t = tree_with_quaternions(seed);
    const mb_model *m = &t->model;
    mb_workspace ws;
    double *buf = mbt_workspace_new(m, &ws);
    mbt_rng g;
    mbt_rng_seed(&g, 7200 + seed);
    mbt_rand_q(&g, m, x.q), mbt_rand_vec(&g, m->nv, -1, 1, x.v);
    mbt_rand_vec(&g, m->nv, -1, 1, x.tau);
    for (int sc = 0; sc < 3; sc++) {
      y = x;
      for (int i = 1; i <= m->nb; i++) {
        int nq = mb_joint_nq(m->jtype[i]);
        if (nq >= 4)
          for (int k = nq - 4; k < nq; k++) y.q[m->iq[i] + k] *= scales[sc];
      }
      int nv = m->nv, npose = 12 * (m->nb + 1);
      mb_fk(m, &ws, x.q, ref), mb_fk(m, &ws, y.q, out);
      MBT_ASSERT_REL(out, ref, npose, 1e-14);
      assert_int_equal(mb_aba(m, &ws, x.q, x.v, x.tau, NULL, ref), MB_OK);
      assert_int_equal(mb_aba(m, &ws, y.q, y.v, y.tau, NULL, out), MB_OK);
      MBT_ASSERT_REL(out, ref, nv, 1e-12);
      assert_int_equal(mb_minv(m, &ws, x.q, ref), MB_OK);
      assert_int_equal(mb_minv(m, &ws, y.q, out), MB_OK);
      MBT_ASSERT_REL(out, ref, nv * nv, 1e-12);
      mb_rnea(m, &ws, x.q, x.v, x.tau, NULL, ref), mb_rnea(m, &ws, y.q, y.v, y.tau, NULL, out);
      MBT_ASSERT_REL(out, ref, nv, 1e-12);
      /* integration: the unit quaternion's step, normalized */
      mb_integrate(m, x.q, x.v, 0.01, ref), mb_integrate(m, y.q, y.v, 0.01, out);
      MBT_ASSERT_REL(out, ref, m->nq, 1e-14);
    }
    free(buf);
    mbt_tree_free(t);
  }
}

/* A zero quaternion stands for no rotation: its rotation is NaN (2/|q|² = Inf times 0), so is
 * the rotation of the body it moves and the whole pose of every body beyond (a floating body's own
 * origin is its q and stays finite), the int functions return MB_ENUMERIC (but minv for the
 * floating base's quaternion, which M does not depend on) and integration gives NaN (before: the
 * identity, and MB_OK). */
static void test_zero_quaternion(void **state) {
  (void)state;
  static inputs x;
  static double out[200 * 200];
  for (uint64_t seed = 1; seed <= 4; seed++) {
    mbt_tree *t = tree_with_quaternions(seed);
    const mb_model *m = &t->model;
    mb_workspace ws;
    double *buf = mbt_workspace_new(m, &ws);
    for (int i = 1; i <= m->nb; i++) {
      int nq = mb_joint_nq(m->jtype[i]);
      if (nq < 4) continue;
      mbt_rng g;
      mbt_rng_seed(&g, 7300 + seed);
      mbt_rand_q(&g, m, x.q), mbt_rand_vec(&g, m->nv, -1, 1, x.v);
      mbt_rand_vec(&g, m->nv, -1, 1, x.tau);
      for (int k = nq - 4; k < nq; k++) x.q[m->iq[i] + k] = 0.0;
      assert_int_equal(mb_fk(m, &ws, x.q, out), MB_ENUMERIC);
      for (int b = i; b <= m->nb; b++) {
        int beyond = 0;
        for (int a = m->parent[b]; a > 0 && !beyond; a = m->parent[a]) beyond = a == i;
        for (int k = 0; k < (beyond ? 12 : b == i ? 9 : 0); k++)
          if (!isnan(out[12 * b + k]))
            fail_msg("seed %d, zero quaternion of body %d: pose[%d] of body %d = %g", (int)seed, i,
                     k, b, out[12 * b + k]);
      }
      assert_int_equal(count_ok(m, &ws, &x, NULL), i == 1 && m->jtype[1] == MB_JOINT_FLOATING);
      assert_int_equal(mb_integrate(m, x.q, x.v, 0.01, out), MB_ENUMERIC);
      for (int k = 0; k < nq; k++)
        if (!isnan(out[m->iq[i] + k]))
          fail_msg("seed %d body %d: integrated q[%d] = %g", (int)seed, i, k, out[m->iq[i] + k]);
    }
    free(buf);
    mbt_tree_free(t);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_singular_for_every_q), cmocka_unit_test(test_cfa_negligible_body),
      cmocka_unit_test(test_non_finite_inputs),    cmocka_unit_test(test_huge_inputs),
      cmocka_unit_test(test_quaternion_scale),     cmocka_unit_test(test_zero_quaternion),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
