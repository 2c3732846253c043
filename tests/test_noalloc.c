/* test_noalloc.c — no runtime algorithm allocates once the workspace is set up. malloc, calloc,
 * realloc and free are wrapped at link time (-Wl,--wrap=..., tests/runtime.cmake), so every call
 * from the runtime library and from this file goes through the counters of mbt_alloc.c.
 * Reference: zero calls while every algorithm runs; the wrapping itself is checked by counting two
 * known calls. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"
#include "mbt_alloc.h"

/* The wrappers see this file's own malloc and free: the counter can move. */
static void test_wrapping_works(void **state) {
  (void)state;
  void *volatile p;
  mbt_alloc_calls = 0, mbt_alloc_counting = 1;
  p = malloc(16);
  free(p);
  mbt_alloc_counting = 0;
  assert_int_equal(mbt_alloc_calls, 2);
}

/* Every algorithm, on random trees with every joint type and a floating base. */
static void test_algorithms_do_not_allocate(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 4; seed++) {
    mbt_tree *t = mbt_randtree(seed, 14, (int)(seed % 2));
    const mb_model *m = &t->model;
    size_t nv = (size_t)m->nv, nq = (size_t)m->nq, nw = 6 * ((size_t)m->nb + 1);
    mb_workspace ws;
    double *buf = malloc(mb_workspace_size(m));
    mb_workspace_init(&ws, m, buf);
    double *q = malloc(sizeof(double) * (2 * nq + 4 * nv + 2 * nv * nv + 2 * nw + 12 * nw));
    double *q2 = q + nq, *v = q2 + nq, *a = v + nv, *tau = a + nv, *out = tau + nv;
    double *M = out + nv, *Minv = M + nv * nv, *fext = Minv + nv * nv, *w = fext + nw;
    double *pose = w + nw;
    mbt_rng g;
    mbt_rng_seed(&g, seed);
    mbt_rand_q(&g, m, q), mbt_rand_vec(&g, m->nv, -1, 1, v), mbt_rand_vec(&g, m->nv, -1, 1, a);
    mbt_rand_vec(&g, m->nv, -1, 1, tau), mbt_rand_vec(&g, (int)nw, -1, 1, fext);
    mb_spring sp[2] = {{0, m->nb, {0.1, 0, 0}, {0, 0.2, 0}, 10, 1, 0.5},
                       {1, m->nb, {0, 0, 0}, {0, 0, 0.1}, 0, 2, 0}};
    mb_springs S = {2, sp, NULL, NULL, NULL, NULL};
    size_t nreg = (size_t)MB_NPARAM * (size_t)m->nb;
    double *Y = malloc(sizeof(double) * (nv + 2) * nreg), *yk = Y + nv * nreg, *yp = yk + nreg;
    int rc = 0;
    mbt_alloc_calls = 0, mbt_alloc_counting = 1;
    mb_rnea(m, &ws, q, v, a, fext, out);
    mb_nle(m, &ws, q, v, out);
    mb_gravity(m, &ws, q, out);
    mb_crba(m, &ws, q, M);
    rc |= mb_aba(m, &ws, q, v, tau, fext, out);
    rc |= mb_ltdl(m, &ws, M);
    mb_ltdl_solve(m, &ws, M, out);
    rc |= mb_crba_fd(m, &ws, q, v, tau, out);
    rc |= mb_minv(m, &ws, q, Minv);
    rc |= mb_cfa(m, &ws, q, v, tau, out, w);
    mb_fk(m, &ws, q, pose);
    mb_integrate(m, q, v, 0.01, q2);
    rc |= mb_integrate_jacobians(m, q, v, 0.01, M, Minv);
    rc |= mb_difference_jacobians(m, q, q2, M, Minv);
    mb_joint_wrenches(m, &ws, q, v, a, w);
    rc |= mb_passive_forces(m, &S, &ws, q, v, out);
    rc |= mb_regressor(m, &ws, q, v, a, Y);
    rc |= mb_energy_regressor(m, &ws, q, v, yk, yp);
    mbt_alloc_counting = 0;
    assert_int_equal(rc, 0);
    assert_int_equal(mbt_alloc_calls, 0);
    free(Y), free(q), free(buf);
    mbt_tree_free(t);
  }
}

/* The derivative functions (derivatives.c, frame_derivatives.c, contact_derivatives.c) on
 * floating-base trees (the floating joint keeps the contact system regular) with one frame on the
 * last body, a point contact at it, the scratch laid out beforehand. */
static void test_derivatives_do_not_allocate(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 3; seed++) {
    mbt_tree *t = mbt_randtree(seed, 10, 1);
    const mb_model *m = &t->model;
    size_t nv = (size_t)m->nv, nw = 6 * ((size_t)m->nb + 1);
    mb_frame fr = {m->nb, {1, 0, 0, 0, 1, 0, 0, 0, 1}, {0.1, 0.2, 0.3}};
    mb_frames F = {1, &fr};
    mb_contact ct = {0, 3};
    mb_contacts C = {1, &ct};
    mb_workspace ws;
    double *buf = malloc(mb_workspace_size(m));
    void *scr = malloc(mb_contact_derivatives_scratch_size(m, &C));
    mb_workspace_init(&ws, m, buf);
    size_t nd = (size_t)m->nq + 4 * nv + nw + 3 * nv * nv + nv * nw + 18 * nv;
    double *q = malloc(sizeof(double) * nd);
    double *v = q + m->nq, *a = v + nv, *tau = a + nv, *out = tau + nv, *fext = out + nv;
    double *A = fext + nw, *B = A + nv * nv, *Cm = B + nv * nv, *D = Cm + nv * nv, *E = D + nv * nw;
    mbt_rng g;
    mbt_rng_seed(&g, seed);
    mbt_rand_q(&g, m, q), mbt_rand_vec(&g, m->nv, -1, 1, v), mbt_rand_vec(&g, m->nv, -1, 1, a);
    mbt_rand_vec(&g, m->nv, -1, 1, tau), mbt_rand_vec(&g, (int)nw, -1, 1, fext);
    double f3[3], *fd = E; /* 3 × nv force derivatives, then 6 × nv frame blocks */
    int rc = 0;
    mbt_alloc_calls = 0, mbt_alloc_counting = 1;
    rc |= mb_rnea_derivatives(m, &ws, q, v, a, A, B, Cm);
    rc |= mb_aba_derivatives(m, &ws, q, v, tau, A, B, Cm);
    rc |= mb_rnea_ext_derivatives(m, &ws, q, v, a, fext, A, B, Cm, D);
    rc |= mb_aba_ext_derivatives(m, &ws, q, v, tau, fext, A, B, Cm, D);
    rc |= mb_frame_velocity_derivatives(m, &F, &ws, q, v, 1, E, E + 6 * nv);
    rc |= mb_frame_acceleration_derivatives(m, &F, &ws, q, v, a, 0, E, E + 6 * nv, E + 12 * nv);
    rc |= mb_contact_fd_derivatives(m, &F, &C, &ws, scr, q, v, tau, NULL, NULL, out, f3, A, B, Cm,
                                    fd, fd + 3 * nv, fd + 6 * nv);
    rc |= mb_impulse_derivatives(m, &F, &C, &ws, scr, q, v, NULL, out, f3, A, B, fd, fd + 3 * nv);
    mbt_alloc_counting = 0;
    assert_int_equal(rc, 0);
    assert_int_equal(mbt_alloc_calls, 0);
    free(q), free(scr), free(buf);
    mbt_tree_free(t);
  }
}

/* The closed-loop functions (loops.c, fd_loops.c, loop_derivatives.c, project.c): a spherical
 * loop from the last body of a floating-base tree to the world (the floating joint keeps Φ
 * regular), with both workspaces and the derivatives' scratch laid out beforehand. */
static void test_loops_do_not_allocate(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 4; seed++) {
    mbt_tree *t = mbt_randtree(seed, 10, 1);
    const mb_model *m = &t->model;
    size_t nv = (size_t)m->nv, nq = (size_t)m->nq;
    mb_loop l = {MB_LOOP_SPHERICAL, m->nb, 0, {1, 0, 0, 0, 1, 0, 0, 0, 1}, {0.1, 0.2, 0.3},
                 {1, 0, 0, 0, 1, 0, 0, 0, 1}, {0.5, 0, 0.5}, {1, 0, 0}, {0, 0, 0}, 0, 0};
    int rows[3] = {0, 1, 2};
    mb_loops L = {1, &l, 3, rows};
    mb_workspace ws;
    mb_loop_workspace lw;
    double *buf = malloc(mb_workspace_size(m)), *lbuf = malloc(mb_loop_workspace_size(m, &L));
    mb_workspace_init(&ws, m, buf);
    mb_loop_workspace_init(&lw, m, &L, lbuf);
    double *q = malloc(sizeof(double) * (nq + 3 * nv + 3 * nv + 12 + 3 * nv * nv + 9 * nv));
    double *v = q + nq, *tau = v + nv, *qdd = tau + nv, *K = qdd + nv, *out = K + 3 * nv;
    double *D = out + 12, *DL = D + 3 * nv * nv;
    void *scr = malloc(mb_fd_loops_derivatives_scratch_size(m, &L));
    mbt_rng g;
    mbt_rng_seed(&g, seed);
    mbt_rand_q(&g, m, q), mbt_rand_vec(&g, m->nv, -1, 1, v), mbt_rand_vec(&g, m->nv, -1, 1, tau);
    int rc = 0;
    mbt_alloc_calls = 0, mbt_alloc_counting = 1;
    rc |= mb_loop_residual(m, &L, &ws, &lw, q, out);
    rc |= mb_loop_jacobian(m, &L, &ws, &lw, q, K);
    rc |= mb_loop_bias(m, &L, &ws, &lw, q, v, out);
    rc |= mb_fd_loops(m, &L, &ws, &lw, q, v, tau, qdd, out);
    rc |= mb_fd_loops_derivatives(m, &L, &ws, &lw, scr, q, v, tau, qdd, out, D, D + nv * nv,
                                  D + 2 * nv * nv, DL, DL + 3 * nv, DL + 6 * nv);
    rc |= mb_project_q(m, &L, &ws, &lw, q);
    rc |= mb_project_v(m, &L, &ws, &lw, q, v);
    mbt_alloc_counting = 0;
    assert_int_equal(rc, 0);
    assert_int_equal(mbt_alloc_calls, 0);
    free(q), free(buf), free(lbuf), free(scr);
    mbt_tree_free(t);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_wrapping_works),
      cmocka_unit_test(test_algorithms_do_not_allocate),
      cmocka_unit_test(test_derivatives_do_not_allocate),
      cmocka_unit_test(test_loops_do_not_allocate),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
