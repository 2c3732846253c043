/* test_loops.c — closed loops, the kinematics (runtime/loops.c; mb.h "Closed loops"); the
 * dynamics (fd_loops.c, project.c) are in test_fd_loops.c, the shared mechanisms and checks in
 * mb_loopmech.c.
 *
 * References, one per test (stated again at each):
 *   - the loop frame and the target frame built to coincide (up to the loop type's own motion) at
 *     a configuration q0 (loop_close in mb_loopmech.c): φ(q0) = 0, row by row, for every loop type;
 *   - calculus: K v = d/dt φ(q ⊕ v t) and K̇v = d/dt (K(q ⊕ v t) v) at t = 0, by central
 *     differences along mb_integrate, at arbitrary (not assembled) states, every row type;
 *   - the contract of mb.h: MB_ENUMERIC with redundant rows, v unchanged by a projection that
 *     fails, MB_EINVAL for NULL, MB_EWORKSPACE for a foreign workspace, mb_loops_check's
 *     rejections. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_loopmech.h"
#include "mb_randtree.h"
#include "mb_testutil.h"

/* ------------------------------------------------------------------------------------- tests */

/* φ(q0) = 0 for every loop type built to close at q0 (loop_close), and the calculus identities
 * (check_calculus) at random, unassembled states: every loop type, every row, on random trees
 * with every joint type (spherical and floating included), loops between two moving bodies and
 * to the world on either side. */
static void test_calculus_every_type(void **state) {
  (void)state;
  for (int t = 0; t < MB_LOOP_TYPE_COUNT; t++)
    for (uint64_t seed = 1; seed <= 6; seed++) {
      mbt_rng g;
      mbt_rng_seed(&g, 1000 * (uint64_t)t + seed);
      mbt_tree *tr = mbt_randtree(100 * (uint64_t)t + seed, 8, (int)(seed % 2));
      const mb_model *m = &tr->model;
      double q0[MAXQ], q[MAXQ], v[MAXV], phi[MAXC];
      int a = mbt_randint(&g, 1, m->nb), b = mbt_randint(&g, 0, m->nb - 1);
      if (b >= a) b++;
      if (seed == 3) b = a, a = 0; /* world on side a */
      mbt_rand_q(&g, m, q0);
      mb_loop l = loop_rand(&g, m, q0, (mb_loop_type)t, a, b);
      lsys *s = lsys_new(m, &l, 1, NULL, 0);
      snprintf(ctx, sizeof ctx, "calculus type %d seed %d a %d b %d", t, (int)seed, a, b);
      resid(s, q0, phi);
      double e = maxabs(phi, s->L.nc);
      worst_phi0 = fmax(worst_phi0, e);
      if (!(e <= 1e-13)) fail_msg("type %d seed %d: φ(q0) = %.3e", t, (int)seed, e);
      for (int trial = 0; trial < 3; trial++) {
        mbt_rand_q(&g, m, q), mbt_rand_vec(&g, m->nv, -1, 1, v);
        check_calculus(s, q, v);
      }
      lsys_free(s);
      mbt_tree_free(tr);
    }
}

/* A redundant row that vanishes only to rounding: the four-bar in a tilted plane (body 1's XT a
 * random rotation), closed by a spherical loop with rows x, y, z. The z row (along the plane's
 * normal) is identically zero, but its K row is rounding noise (~1e-17), not exact zeros, so Φ's
 * pivot for it is noise² and is not small against Φ_zz (noise² itself). Reference (mb.h): Φ is
 * singular to working precision → MB_ENUMERIC (never MB_OK with λ_z ~ 1e17 and a q̈ of noise),
 * and mb_project_v → MB_ENUMERIC with v unchanged; with rows x, y: MB_OK. */
static void test_noise_rows(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 121);
  for (int trial = 0; trial < 8; trial++) {
    fourbar f = {1.0, 0.4, 1.1, 0.8};
    mbt_tree *t = fourbar_tree(&f);
    mbt_rand_rot(&g, t->XT_E + 9);
    const mb_model *m = &t->model;
    double q[3], v[3], vc[3], tau[3], qdd[3], lam[3];
    assert_int_equal(fourbar_q(&f, mbt_uniform(&g, -MBT_PI, MBT_PI), q), 0);
    mb_loop l;
    memset(&l, 0, sizeof l);
    l.type = MB_LOOP_SPHERICAL, l.a = 3, l.b = 0, l.ra[0] = f.L3;
    memcpy(l.Ea, I3, sizeof l.Ea), l.axis[0] = 1;
    loop_close(m, q, &l, I3, (double[3]){0, 0, 0});
    int xy[2] = {0, 1};
    lsys *s2 = lsys_new(m, &l, 1, xy, 2), *s3 = lsys_new(m, &l, 1, NULL, 0);
    mbt_rand_vec(&g, 3, -1, 1, v), mbt_rand_vec(&g, 3, -1, 1, tau);
    assert_int_equal(mb_project_v(m, &s2->L, &s2->ws, &s2->lw, q, v), MB_OK);
    check_fd(s2, q, v, tau, qdd);
    int rc = mb_fd_loops(m, &s3->L, &s3->ws, &s3->lw, q, v, tau, qdd, lam);
    if (rc != MB_ENUMERIC)
      fail_msg("trial %d: rows x y z: mb_fd_loops %d, λ = %g %g %g", trial, rc, lam[0], lam[1],
               lam[2]);
    assert_int_equal(s3->lw.singular, 3);
    memcpy(vc, v, sizeof vc);
    assert_int_equal(mb_project_v(m, &s3->L, &s3->ws, &s3->lw, q, vc), MB_ENUMERIC);
    assert_memory_equal(vc, v, sizeof vc);
    lsys_free(s2), lsys_free(s3);
    mbt_tree_free(t);
  }
}

/* MB_EINVAL for every NULL argument, MB_EWORKSPACE for a workspace of another model or other
 * loops or never laid out; nothing written then. */
static void test_errors(void **state) {
  (void)state;
  fourbar f = {1.0, 0.4, 1.1, 0.8};
  mbt_tree *t = fourbar_tree(&f), *t2 = fourbar_tree(&f);
  const mb_model *m = &t->model;
  mb_loop l = fourbar_loop(&f, 0.0);
  int xy[2] = {0, 1};
  lsys *s = lsys_new(m, &l, 1, xy, 2), *o = lsys_new(&t2->model, &l, 1, xy, 2);
  lsys *o2 = lsys_new(m, &l, 1, xy, 2); /* same model, other mb_loops */
  mb_workspace *ws = &s->ws;
  mb_loop_workspace *lw = &s->lw, zero;
  memset(&zero, 0, sizeof zero);
  const mb_loops *L = &s->L;
  double q[3], v[3] = {1, 0, 0}, tau[3] = {0}, out[3 * 5], lam[2];
  assert_int_equal(fourbar_q(&f, 0.5, q), 0);
  /* NULL */
  assert_int_equal(mb_loop_residual(NULL, L, ws, lw, q, out), MB_EINVAL);
  assert_int_equal(mb_loop_residual(m, NULL, ws, lw, q, out), MB_EINVAL);
  assert_int_equal(mb_loop_residual(m, L, NULL, lw, q, out), MB_EINVAL);
  assert_int_equal(mb_loop_residual(m, L, ws, NULL, q, out), MB_EINVAL);
  assert_int_equal(mb_loop_residual(m, L, ws, lw, NULL, out), MB_EINVAL);
  assert_int_equal(mb_loop_residual(m, L, ws, lw, q, NULL), MB_EINVAL);
  assert_int_equal(mb_loop_jacobian(m, L, ws, lw, NULL, out), MB_EINVAL);
  assert_int_equal(mb_loop_jacobian(m, L, ws, lw, q, NULL), MB_EINVAL);
  assert_int_equal(mb_loop_jacobian(m, NULL, ws, lw, q, out), MB_EINVAL);
  assert_int_equal(mb_loop_bias(m, L, ws, lw, NULL, v, out), MB_EINVAL);
  assert_int_equal(mb_loop_bias(m, L, ws, lw, q, NULL, out), MB_EINVAL);
  assert_int_equal(mb_loop_bias(m, L, ws, lw, q, v, NULL), MB_EINVAL);
  assert_int_equal(mb_loop_bias(m, L, ws, NULL, q, v, out), MB_EINVAL);
  assert_int_equal(mb_fd_loops(m, L, ws, lw, NULL, v, tau, out, lam), MB_EINVAL);
  assert_int_equal(mb_fd_loops(m, L, ws, lw, q, NULL, tau, out, lam), MB_EINVAL);
  assert_int_equal(mb_fd_loops(m, L, ws, lw, q, v, NULL, out, lam), MB_EINVAL);
  assert_int_equal(mb_fd_loops(m, L, ws, lw, q, v, tau, NULL, lam), MB_EINVAL);
  assert_int_equal(mb_fd_loops(m, L, ws, lw, q, v, tau, out, NULL), MB_OK); /* lambda optional */
  assert_int_equal(mb_fd_loops(NULL, L, ws, lw, q, v, tau, out, lam), MB_EINVAL);
  assert_int_equal(mb_project_q(m, L, ws, lw, NULL), MB_EINVAL);
  assert_int_equal(mb_project_q(m, NULL, ws, lw, q), MB_EINVAL);
  assert_int_equal(mb_project_v(m, L, ws, lw, NULL, v), MB_EINVAL);
  assert_int_equal(mb_project_v(m, L, ws, lw, q, NULL), MB_EINVAL);
  assert_int_equal(mb_project_v(m, L, ws, NULL, q, v), MB_EINVAL);
  assert_int_equal(mb_loop_workspace_init(NULL, m, L, s->lbuf), MB_EINVAL);
  assert_int_equal(mb_loop_workspace_init(lw, m, L, NULL), MB_EINVAL);
  assert_int_equal(mb_loop_workspace_size(NULL, L), 0);
  assert_int_equal(mb_loop_workspace_size(m, NULL), 0);
  mb_loops Lbad = {1, &l, -1, xy}; /* nc < 0: no size, and no layout (not a memset of SIZE_MAX) */
  assert_true(mb_loop_workspace_size(m, &Lbad) == SIZE_MAX);
  mb_loop_workspace lwbad;
  assert_int_equal(mb_loop_workspace_init(&lwbad, m, &Lbad, s->lbuf), MB_EINVAL);
  /* foreign workspaces: nothing is written to the outputs */
  double sentinel[15];
  for (int k = 0; k < 15; k++) sentinel[k] = out[k] = 12345.0;
  assert_int_equal(mb_loop_residual(m, L, &o->ws, lw, q, out), MB_EWORKSPACE);
  assert_int_equal(mb_loop_residual(m, L, ws, &o->lw, q, out), MB_EWORKSPACE);
  assert_int_equal(mb_loop_residual(m, L, ws, &o2->lw, q, out), MB_EWORKSPACE);
  assert_int_equal(mb_loop_residual(m, L, ws, &zero, q, out), MB_EWORKSPACE);
  assert_int_equal(mb_loop_jacobian(m, L, ws, &o->lw, q, out), MB_EWORKSPACE);
  assert_int_equal(mb_loop_bias(m, L, &o->ws, lw, q, v, out), MB_EWORKSPACE);
  assert_int_equal(mb_fd_loops(m, L, ws, &o2->lw, q, v, tau, out, lam), MB_EWORKSPACE);
  assert_memory_equal(out, sentinel, sizeof sentinel);
  double qc[3];
  memcpy(qc, q, sizeof qc);
  qc[0] += 0.1;
  memcpy(sentinel, qc, sizeof qc);
  assert_int_equal(mb_project_q(m, L, ws, &o->lw, qc), MB_EWORKSPACE);
  assert_int_equal(mb_project_v(m, L, &o->ws, lw, q, v), MB_EWORKSPACE);
  assert_memory_equal(qc, sentinel, sizeof qc);
  /* NaN state: MB_ENUMERIC, never MB_OK */
  double qn[3] = {NAN, 0, 0};
  assert_int_equal(mb_loop_residual(m, L, ws, lw, qn, out), MB_ENUMERIC);
  assert_int_equal(mb_fd_loops(m, L, ws, lw, qn, v, tau, out, lam), MB_ENUMERIC);
  assert_int_equal(mb_project_q(m, L, ws, lw, qn), MB_ENUMERIC);
  lsys_free(s), lsys_free(o), lsys_free(o2);
  mbt_tree_free(t), mbt_tree_free(t2);
}

/* mb_loops_check: a valid set passes; each defect is rejected with a reason. */
static void test_loops_check(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 111);
  mbt_tree *t = mbt_randtree(7, 5, 0);
  const mb_model *m = &t->model;
  double q[MAXQ];
  mbt_rand_q(&g, m, q);
  mb_loop good[2] = {loop_rand(&g, m, q, MB_LOOP_D1, 3, 1), loop_rand(&g, m, q, MB_LOOP_SS, 5, 0)};
  int rows[2] = {0, 6};
  mb_loops L = {2, good, 2, rows};
  char msg[160];
  assert_int_equal(mb_loops_check(m, &L, msg, sizeof msg), 0);
  mb_loop bad[2];
  int br[3];
  mb_loops B = {2, bad, 2, br};
#define REJECT(...)                                                                                \
  do {                                                                                             \
    memcpy(bad, good, sizeof bad), memcpy(br, rows, sizeof rows);                                  \
    B = (mb_loops){2, bad, 2, br};                                                                 \
    __VA_ARGS__;                                                                                   \
    msg[0] = 0;                                                                                    \
    assert_int_equal(mb_loops_check(m, &B, msg, sizeof msg), -1);                                  \
    assert_true(msg[0] != 0);                                                                      \
  } while (0)
  REJECT(bad[0].b = bad[0].a);                                           /* a == b */
  REJECT(bad[1].a = 0, bad[1].b = 0);                                    /* a == b == world */
  REJECT(bad[0].a = m->nb + 1);                                          /* out of range */
  REJECT(bad[0].b = -1);                                                 /* out of range */
  REJECT(bad[0].axis[0] = 1, bad[0].axis[1] = 0.01, bad[0].axis[2] = 0); /* non-unit axis */
  REJECT(bad[0].axis2[0] = 0.9, bad[0].axis2[1] = bad[0].axis2[2] = 0);  /* non-unit axis2 */
  REJECT(bad[1].distance = 0.0);                                         /* ss distance ≤ 0 */
  REJECT(bad[1].distance = -0.5);                                        /* ss distance ≤ 0 */
  REJECT(bad[1].distance = NAN); /* ss distance not finite */
  REJECT(br[0] = 6, br[1] = 0);  /* rows not ascending */
  REJECT(br[1] = br[0]);         /* repeated row */
  REJECT(br[1] = 7);             /* ss has one row */
  REJECT(br[1] = 12);            /* loop 2 does not exist */
  REJECT(br[0] = -1);            /* negative row */
  REJECT(bad[0].Ea[0] = -bad[0].Ea[0], bad[0].Ea[1] = -bad[0].Ea[1],
         bad[0].Ea[2] = -bad[0].Ea[2]);     /* det −1 */
  REJECT(bad[1].Eb[4] += 1e-3);             /* not orthonormal */
  REJECT(bad[0].type = MB_LOOP_TYPE_COUNT); /* bad type */
  REJECT(B.nloops = -1);
  REJECT(B.row = NULL);
  /* a helical loop with a non-finite pitch */
  mb_loop h = loop_rand(&g, m, q, MB_LOOP_HELICAL, 2, 0);
  int hr[1] = {4};
  mb_loops H = {1, &h, 1, hr};
  assert_int_equal(mb_loops_check(m, &H, msg, sizeof msg), 0);
  h.pitch = INFINITY;
  assert_int_equal(mb_loops_check(m, &H, msg, sizeof msg), -1);
  /* catalogue */
  static const int nrows[MB_LOOP_TYPE_COUNT] = {5, 5, 5, 5, 3, 6, 3, 4, 4, 1, 1, 3, 1};
  for (int k = 0; k < MB_LOOP_TYPE_COUNT; k++) {
    assert_int_equal(mb_loop_nrows((mb_loop_type)k), nrows[k]);
    assert_non_null(mb_loop_row_name((mb_loop_type)k, nrows[k] - 1));
    assert_null(mb_loop_row_name((mb_loop_type)k, nrows[k]));
    assert_null(mb_loop_row_name((mb_loop_type)k, -1));
  }
  assert_int_equal(mb_loop_nrows(MB_LOOP_TYPE_COUNT), 0);
  assert_string_equal(mb_loop_row_name(MB_LOOP_HELICAL, 4), "screw");
  mbt_tree_free(t);
}

static void test_report(void **state) {
  (void)state;
  print_message("worst: phi(q0) %.2e | Kv %.2e | Kdot v %.2e | proj q %.2e | proj v %.2e | "
                "K qdd + Kdot v %.2e | EOM %.2e\n",
                worst_phi0, worst_Kv, worst_Kdv, worst_projq, worst_projv, worst_acc, worst_eom);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_calculus_every_type),
      cmocka_unit_test(test_noise_rows),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_loops_check),
      cmocka_unit_test(test_report),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
