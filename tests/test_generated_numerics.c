/* test_generated_numerics.c — generated code on singular, non-finite and degenerate inputs
 * (docs/generator.md, "Singular and non-finite inputs"), against the runtime on the same inputs:
 *   two_link_point  (tests/singular/two_link_point_accepted.mbd) a massless link and a point mass
 *                   on two parallel revolute joints: det M = m² l1² c² sin² q2, so M is singular
 *                   exactly where the arm is straight (q2 = 0, ±π) and regular elsewhere;
 *   negligible_body (tests/singular/negligible_body_accepted.mbd) a 1e-20 lighter middle body:
 *                   the CFA's constraint matrix is singular to working precision in every state;
 *   gimbal, quadruped (examples/) for NaN, Inf and huge inputs, and for zero and non-unit
 *                   quaternions (spherical, floating joints).
 * Built twice: linked with the generated libraries, and (test_generated_numerics_ubsan) with the
 * generated sources compiled under -fsanitize=undefined,float-cast-overflow with no recovery, so
 * a trap on NaN, Inf or huge inputs fails the test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gimbal_dynamics.h"
#include "mb.h"
#include "mb_randtree.h"
#include "mb_testutil.h"
#include "negligible_body_dynamics.h"
#include "quadruped_dynamics.h"
#include "two_link_point_dynamics.h"

extern const mb_model two_link_point_model, negligible_body_model, gimbal_model, quadruped_model;

enum { NSTATES = 1000, MAXN = 64 };

/* The generated functions of one model, as pointers (arrays decay to pointers). */
typedef struct generated {
  const char *name;
  const mb_model *model;
  int nq, nv, nb;
  void (*rnea)(const double *, const double *, const double *, double *);
  void (*rnea_ext)(const double *, const double *, const double *, const double *, double *);
  void (*nle)(const double *, const double *, double *);
  void (*gravity)(const double *, double *);
  void (*crba)(const double *, double *);
  void (*joint_wrenches)(const double *, const double *, const double *, double *);
  void (*fk)(const double *, double *);
  int (*crba_fd)(const double *, const double *, const double *, double *);
  int (*aba)(const double *, const double *, const double *, double *);
  int (*minv)(const double *, double *);
  int (*cfa)(const double *, const double *, const double *, double *, double *);
} generated;

#define GENERATED(p, P, with_cfa)                                                               \
  {#p,         &p##_model, P##_NQ,  P##_NV,        P##_NB,      p##_rnea, p##_rnea_ext,        \
   p##_nle,    p##_gravity, p##_crba, p##_joint_wrenches, p##_fk, p##_crba_fd, p##_aba, p##_minv, \
   with_cfa}
static const generated gimbal = GENERATED(gimbal, GIMBAL, gimbal_cfa);
static const generated quadruped = GENERATED(quadruped, QUADRUPED, quadruped_cfa);
static const generated two_link = GENERATED(two_link_point, TWO_LINK_POINT, NULL);
static const generated negligible = GENERATED(negligible_body, NEGLIGIBLE_BODY, negligible_body_cfa);

typedef struct inputs {
  double q[MAXN], v[MAXN], a[MAXN], tau[MAXN], fext[6 * MAXN];
} inputs;

static void random_inputs(mbt_rng *g, const generated *G, inputs *x) {
  mbt_rand_q(g, G->model, x->q);
  mbt_rand_vec(g, G->nv, -1, 1, x->v), mbt_rand_vec(g, G->nv, -1, 1, x->a);
  mbt_rand_vec(g, G->nv, -1, 1, x->tau), mbt_rand_vec(g, 6 * (G->nb + 1), -1, 1, x->fext);
}

static int finite(const double *x, int n) {
  for (int k = 0; k < n; k++)
    if (!isfinite(x[k])) return 0;
  return 1;
}

/* ---- singular states --------------------------------------------------------------------- */

/* At q2 = 0 and q2 = ±π (the doubles nearest: sin = 1.2e-16, det M / (M11 M22) ~ 1e-32) the
 * generated aba, crba_fd and minv return -1, and so do the runtime's; in generic states all
 * return 0. Before, a pivot d > 0 let the rounding noise at ±π through (qdd ~ 1e16). */
static void test_singular_configurations(void **state) {
  (void)state;
  const generated *G = &two_link;
  const mb_model *m = G->model;
  mb_workspace ws;
  double *buf = mbt_workspace_new(m, &ws), out[MAXN * MAXN], ref[MAXN * MAXN];
  static const double straight[3] = {0.0, 3.141592653589793, -3.141592653589793};
  inputs x;
  mbt_rng g;
  mbt_rng_seed(&g, 8001);
  for (int s = 0; s < 2 * NSTATES; s++) {
    random_inputs(&g, G, &x);
    int singular = s < NSTATES;
    if (singular) x.q[1] = straight[s % 3];
    int want = singular ? -1 : 0, rwant = singular ? MB_ENUMERIC : MB_OK;
    if (G->aba(x.q, x.v, x.tau, out) != want || G->crba_fd(x.q, x.v, x.tau, out) != want ||
        G->minv(x.q, out) != want)
      fail_msg("state %d (q2 = %.17g): a generated function returned %s", s, x.q[1],
               singular ? "0" : "-1");
    if (mb_aba(m, &ws, x.q, x.v, x.tau, NULL, ref) != rwant ||
        mb_crba_fd(m, &ws, x.q, x.v, x.tau, ref) != rwant || mb_minv(m, &ws, x.q, ref) != rwant)
      fail_msg("state %d (q2 = %.17g): a runtime function disagrees", s, x.q[1]);
  }
  free(buf);
}

/* The CFA of a model whose middle body is 1e-20 times lighter returns -1 on every state, like
 * the runtime's (its constraint matrix is singular to working precision); the ABA succeeds. */
static void test_cfa_negligible_body(void **state) {
  (void)state;
  const generated *G = &negligible;
  mb_workspace ws;
  double *buf = mbt_workspace_new(G->model, &ws), out[MAXN], w[6 * MAXN];
  inputs x;
  mbt_rng g;
  mbt_rng_seed(&g, 8002);
  for (int s = 0; s < NSTATES; s++) {
    random_inputs(&g, G, &x);
    assert_int_equal(G->aba(x.q, x.v, x.tau, out), 0);
    if (G->cfa(x.q, x.v, x.tau, out, w) != -1) fail_msg("generated cfa accepted state %d", s);
    if (mb_cfa(G->model, &ws, x.q, x.v, x.tau, out, w) != MB_ENUMERIC)
      fail_msg("runtime cfa accepted state %d", s);
  }
  free(buf);
}

/* ---- non-finite and huge inputs ---------------------------------------------------------- */

/* Every function of G on x. An int function returns -1 exactly when one of its outputs is not
 * finite; every void function returns (no trap) with NaN or Inf where the input reaches. Counts
 * the int functions that returned 0, and sets *void_nonfinite if a void output is not finite. */
static int run_all(const generated *G, const inputs *x, int *void_nonfinite) {
  static double out[MAXN * MAXN], w[6 * MAXN];
  int nv = G->nv, nw = 6 * (G->nb + 1), ok = 0, nonfinite = 0;
  G->rnea(x->q, x->v, x->a, out), nonfinite |= !finite(out, nv);
  G->rnea_ext(x->q, x->v, x->a, x->fext, out), nonfinite |= !finite(out, nv);
  G->nle(x->q, x->v, out), nonfinite |= !finite(out, nv);
  G->gravity(x->q, out), nonfinite |= !finite(out, nv);
  G->crba(x->q, out), nonfinite |= !finite(out, nv * nv);
  G->joint_wrenches(x->q, x->v, x->a, out), nonfinite |= !finite(out, nw);
  G->fk(x->q, out), nonfinite |= !finite(out, 2 * nw);
#define INT(call, n1, n2)                                                                       \
  do {                                                                                          \
    int rc_ = (call), fin_ = finite(out, (n1)) && finite(w, (n2));                              \
    if (rc_ != 0 && rc_ != -1) fail_msg("%s: %s returned %d", G->name, #call, rc_);             \
    if ((rc_ == 0) != fin_) fail_msg("%s: %s returned %d with %s outputs", G->name, #call, rc_, \
                                     fin_ ? "finite" : "non-finite");                           \
    ok += rc_ == 0;                                                                             \
  } while (0)
  INT(G->aba(x->q, x->v, x->tau, out), nv, 0);
  INT(G->crba_fd(x->q, x->v, x->tau, out), nv, 0);
  INT(G->minv(x->q, out), nv * nv, 0);
  if (G->cfa) INT(G->cfa(x->q, x->v, x->tau, out, w), nv, nw);
#undef INT
  *void_nonfinite = nonfinite;
  return ok;
}

/* One NaN, +Inf or −Inf in any entry of q, v, τ (and a, f_ext for the void functions): every
 * int function whose answer depends on it returns -1 (before: 0 with NaN outputs), every void
 * function returns with a non-finite output that depends on it. minv does not depend on v or τ;
 * the answers hardly depend on the coordinates of a joint on the world (the gimbal's screw, the
 * quadruped's base position): for those only the rule itself is checked (-1 exactly when an
 * output is not finite). */
static void check_non_finite(const generated *G) {
  static const double bad[3] = {NAN, INFINITY, -INFINITY};
  const mb_model *m = G->model;
  int nint = G->cfa ? 4 : 3, vnf;
  inputs x;
  mbt_rng g;
  mbt_rng_seed(&g, 8100);
  for (int b = 0; b < 3; b++)
    for (int which = 0; which < 3; which++)
      for (int at = 0; at < (which == 0 ? G->nq : G->nv); at++) {
        random_inputs(&g, G, &x);
        assert_int_equal(run_all(G, &x, &vnf), nint);
        assert_false(vnf);
        double *arr = which == 0 ? x.q : which == 1 ? x.v : x.tau;
        arr[at] = bad[b];
        int body = m->nb;
        while (which == 0 && m->iq[body] > at) body--;
        int got = run_all(G, &x, &vnf), want = which == 0 ? 0 : 1; /* v, tau: minv only */
        if (which == 0 && m->parent[body] == 0) continue; /* run_all checked the rule */
        if (got != want || (which != 2 && !vnf))
          fail_msg("%s: %s[%d] = %g: %d int functions returned 0 (expected %d), void outputs %s",
                   G->name, which == 0 ? "q" : which == 1 ? "v" : "tau", at, bad[b], got, want,
                   vnf ? "non-finite" : "finite");
      }
  /* huge but finite: v = 1e200 overflows the velocity products (1e400 > DBL_MAX) */
  random_inputs(&g, G, &x);
  for (int k = 0; k < G->nv; k++) x.v[k] = 1e200;
  assert_int_equal(run_all(G, &x, &vnf), 1); /* minv */
  assert_true(vnf);
}

static void test_non_finite_inputs(void **state) {
  (void)state;
  check_non_finite(&gimbal);
  check_non_finite(&quadruped);
}

/* ---- quaternions --------------------------------------------------------------------------- */

/* Every quaternion scaled by 2.5, 1e-3 or 1e3: every output is that of the unit quaternions to
 * 1e-13 relative (the rotation of q/|q|; before, a non-unit quaternion gave a non-rotation).
 * The zero quaternion: every int function that depends on it returns -1, the rotation of its
 * body (fk) is NaN (before: the identity). */
static void check_quaternions(const generated *G) {
  const mb_model *m = G->model;
  static double out[MAXN * MAXN], ref[MAXN * MAXN];
  inputs x, y;
  mbt_rng g;
  mbt_rng_seed(&g, 8200);
  const double scales[3] = {2.5, 1e-3, 1e3};
  for (int sc = 0; sc < 3; sc++) {
    random_inputs(&g, G, &x);
    y = x;
    for (int i = 1; i <= m->nb; i++) {
      int nq = mb_joint_nq(m->jtype[i]);
      for (int k = nq - 4; nq >= 4 && k < nq; k++) y.q[m->iq[i] + k] *= scales[sc];
    }
    int nv = G->nv, npose = 12 * (G->nb + 1);
    G->fk(x.q, ref), G->fk(y.q, out);
    MBT_ASSERT_REL(out, ref, npose, 1e-13);
    G->rnea(x.q, x.v, x.a, ref), G->rnea(y.q, y.v, y.a, out);
    MBT_ASSERT_REL(out, ref, nv, 1e-13);
    G->crba(x.q, ref), G->crba(y.q, out);
    MBT_ASSERT_REL(out, ref, nv * nv, 1e-13);
    assert_int_equal(G->aba(x.q, x.v, x.tau, ref), 0);
    assert_int_equal(G->aba(y.q, y.v, y.tau, out), 0);
    MBT_ASSERT_REL(out, ref, nv, 1e-12);
  }
  for (int i = 1; i <= m->nb; i++) {
    int nq = mb_joint_nq(m->jtype[i]), vnf;
    if (nq < 4) continue;
    random_inputs(&g, G, &x);
    for (int k = nq - 4; k < nq; k++) x.q[m->iq[i] + k] = 0.0;
    int want = m->parent[i] == 0; /* minv does not read the base's quaternion */
    if (run_all(G, &x, &vnf) != want || !vnf)
      fail_msg("%s: zero quaternion of body %d: int functions or void outputs wrong", G->name, i);
    G->fk(x.q, out);
    for (int k = 0; k < 9; k++)
      if (!isnan(out[12 * i + k])) fail_msg("%s: body %d: R[%d] = %g", G->name, i, k, out[12 * i + k]);
  }
}

static void test_quaternions(void **state) {
  (void)state;
  check_quaternions(&gimbal);
  check_quaternions(&quadruped);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_singular_configurations),
      cmocka_unit_test(test_cfa_negligible_body),
      cmocka_unit_test(test_non_finite_inputs),
      cmocka_unit_test(test_quaternions),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
