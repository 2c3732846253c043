/* test_coupled.c — coupled (mimic) coordinates in the runtime (runtime/mb.h mb_coupling) and in
 * the generator's front end (the DSL's `mimic`, the topology's map). References:
 *   - analytic: two prismatic fingers on one slide axis, the second mirroring the first
 *     (q2 = −q1 + o), masses m1, m2, gravity along the slide: Gᵀ M G = m1 + m2 and
 *     q̈1 = (τ − (m1 − m2) g) / (m1 + m2), whatever o;
 *   - the same robot with the coupling as a constraint: the full model's equations with
 *     Lagrange multipliers, M a + h = τ_full + Aᵀ λ, A a = 0 (A the rows e_c − m e_source of the
 *     coupled coordinates, τ_full the independent forces on their own coordinates), solved densely
 *     here: a = G q̈ of mb_coupled_fd on tests/coupled/gripper.mbd and on a URDF-free random
 *     tree with couplings added; mb_coupled_minv is the inverse of Gᵀ M G;
 *   - the folds against their definitions (Gᵀ f, A G, Gᵀ A G with G formed densely);
 *   - mb_coupled_contact_fd and mb_coupled_impulse against the full tree with the couplings and
 *     the contact rows as constraints (multipliers, dense: the contact's multipliers are its
 *     force and impulse);
 *   - mb_coupled_fd_derivatives against central differences of mb_coupled_fd (the gripper's
 *     joints are scalar: its coordinates are its tangent space), and with the joints' passive
 *     forces (mb_coupled_fd_derivatives_passive) against central differences of mb_coupled_fd at
 *     τ + Gᵀ τ_passive(q_full, v_full);
 *   - refusals: a coupling that does not fit the model, NULL arguments. */
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
#include "mbt_robot.h"

enum { N_MAX = 32 };

/* G (nv × ni, dense) of c */
static void dense_G(const mb_model *m, const mb_coupling *c, double *G) {
  memset(G, 0, sizeof *G * (size_t)(m->nv * c->nv));
  for (int k = 0; k < m->nv; k++) G[k * c->nv + c->v_of[k]] = c->v_mult[k];
}

/* The independent coordinate k's own full index: the one with factor 1 whose map is k and which
 * is not coupled (own[] from the caller). Checks mb_coupled_fd against the multipliers' solution
 * at nstates random states. */
static void check_against_kkt(const mb_model *m, const mb_coupling *c, const int *coupled,
                              uint64_t seed, int nstates) {
  int n = m->nv, ni = c->nv, nc = n - ni, nk = n + nc;
  assert_true(nk <= 2 * N_MAX);
  mb_workspace ws;
  double *buf = mbt_workspace_new(m, &ws);
  double *scr = malloc(mb_coupled_scratch_size(m, c) * sizeof *scr);
  assert_non_null(scr);
  mbt_rng g;
  mbt_rng_seed(&g, seed);
  for (int s = 0; s < nstates; s++) {
    double q[N_MAX], v[N_MAX], tau[N_MAX], qf[N_MAX + 8], vf[N_MAX], qdd[N_MAX];
    double M[N_MAX * N_MAX], h[N_MAX], K[4 * N_MAX * N_MAX], rhs[2 * N_MAX];
    mbt_rand_vec(&g, c->nq, -1.2, 1.2, q);
    mbt_rand_vec(&g, ni, -1, 1, v);
    mbt_rand_vec(&g, ni, -2, 2, tau);
    mb_coupled_expand(m, c, q, v, qf, vf);
    assert_int_equal(mb_crba(m, &ws, qf, M), MB_OK);
    assert_int_equal(mb_nle(m, &ws, qf, vf, h), MB_OK);
    /* [M Aᵀ; A 0] [a; λ] = [τ_full − h; 0] */
    memset(K, 0, sizeof K);
    for (int r = 0; r < n; r++)
      for (int k = 0; k < n; k++) K[r * nk + k] = M[r * n + k];
    int row = n;
    for (int k = 0; k < n; k++) {
      rhs[k] = (coupled[k] ? 0 : tau[c->v_of[k]]) - h[k];
      if (!coupled[k]) continue;
      int src = -1; /* the source's own full index */
      for (int j = 0; j < n; j++)
        if (!coupled[j] && c->v_of[j] == c->v_of[k]) src = j;
      assert_true(src >= 0);
      K[row * nk + k] = 1, K[row * nk + src] = -c->v_mult[k];
      K[k * nk + row] = 1, K[src * nk + row] = -c->v_mult[k];
      rhs[row++] = 0;
    }
    assert_int_equal(row, nk);
    assert_true(mbt_gauss(nk, K, rhs) > 1e-14); /* Gaussian elimination, partial pivoting */
    assert_int_equal(mb_coupled_fd(m, c, &ws, scr, q, v, tau, NULL, qdd), MB_OK);
    double big = 1;
    for (int k = 0; k < n; k++) big = fmax(big, fabs(rhs[k]));
    for (int k = 0; k < n; k++)
      assert_true(fabs(c->v_mult[k] * qdd[c->v_of[k]] - rhs[k]) <= 1e-10 * big);
    /* M⁻¹ of the reduced inertia: Minv (Gᵀ M G) = 1 */
    double Mr[N_MAX * N_MAX], Mi[N_MAX * N_MAX];
    mb_coupled_fold_matrix(m, c, M, Mr);
    assert_int_equal(mb_coupled_minv(m, c, &ws, scr, q, Mi), MB_OK);
    for (int r = 0; r < ni; r++)
      for (int k = 0; k < ni; k++) {
        double x = 0;
        for (int j = 0; j < ni; j++) x += Mi[r * ni + j] * Mr[j * ni + k];
        assert_true(fabs(x - (r == k)) <= 1e-10);
      }
  }
  free(scr);
  free(buf);
}

static void test_fingers_analytic(void **state) {
  (void)state;
  const double m1 = 0.3, m2 = 0.5, g = 9.81, tau = 0.7;
  mbt_tree *t = mbt_tree_new(2);
  const double y[3] = {0, 1, 0}, r[3] = {0, 0, 0}, c0[3] = {0, 0, 0}, I[6] = {1e-4, 1e-4, 1e-4};
  mbt_tree_joint(t, 1, 0, MB_JOINT_PRISMATIC, y, NULL, r);
  mbt_tree_joint(t, 2, 0, MB_JOINT_PRISMATIC, y, NULL, r);
  mbt_tree_body(t, 1, m1, c0, I);
  mbt_tree_body(t, 2, m2, c0, I);
  mbt_tree_finish(t);
  t->model.gravity[0] = 0, t->model.gravity[1] = -g, t->model.gravity[2] = 0;
  const int q_of[2] = {0, 0}, v_of[2] = {0, 0};
  const double mult[2] = {1, -1}, off[2] = {0, 0.01};
  mb_coupling c = {1, 1, q_of, mult, off, v_of, mult};
  char msg[128];
  assert_int_equal(mb_coupling_check(&t->model, &c, msg, sizeof msg), 0);
  mb_workspace ws;
  double *buf = mbt_workspace_new(&t->model, &ws);
  double scr[64], q = 0.02, v = 0.3, qdd, Mi;
  assert_true(mb_coupled_scratch_size(&t->model, &c) <= 64);
  assert_int_equal(mb_coupled_fd(&t->model, &c, &ws, scr, &q, &v, &tau, NULL, &qdd), MB_OK);
  assert_true(fabs(qdd - (tau - (m1 - m2) * g) / (m1 + m2)) < 1e-14);
  assert_int_equal(mb_coupled_minv(&t->model, &c, &ws, scr, &q, &Mi), MB_OK);
  assert_true(fabs(Mi - 1 / (m1 + m2)) < 1e-14);
  double qf[2], vf[2];
  mb_coupled_expand(&t->model, &c, &q, &v, qf, vf);
  assert_true(qf[0] == q && qf[1] == -q + 0.01 && vf[1] == -v);
  /* refusals */
  const int bad_of[2] = {0, 1};
  mb_coupling b = {1, 1, bad_of, mult, off, v_of, mult};
  assert_int_equal(mb_coupling_check(&t->model, &b, msg, sizeof msg), -1);
  assert_int_equal(mb_coupled_fd(&t->model, &c, &ws, NULL, &q, &v, &tau, NULL, &qdd), MB_EINVAL);
  free(buf);
  mbt_tree_free(t);
}

/* The folds against G formed densely. */
static void test_folds(void **state) {
  (void)state;
  mbt_tree *t = mbt_randtree(7, 6, 0);
  const mb_model *m = &t->model;
  int n = m->nv;
  assert_true(n <= N_MAX);
  int q_of[N_MAX + 8], v_of[N_MAX], ni = 0;
  double qm[N_MAX + 8], qo[N_MAX + 8], vm[N_MAX], G[N_MAX * N_MAX];
  for (int k = 0; k < n; k++) v_of[k] = k % 2 && k > 0 ? v_of[k - 1] : ni++, vm[k] = 1 + 0.1 * k;
  for (int k = 0; k < m->nq; k++) q_of[k] = 0, qm[k] = 1, qo[k] = 0;
  mb_coupling c = {1, ni, q_of, qm, qo, v_of, vm};
  dense_G(m, &c, G);
  mbt_rng g;
  mbt_rng_seed(&g, 3);
  double A[3 * N_MAX * N_MAX], out[3 * N_MAX * N_MAX];
  mbt_rand_vec(&g, 3 * n * n, -1, 1, A);
  mb_coupled_fold_columns(m, &c, 3, A, out); /* A G */
  for (int r = 0; r < 3; r++)
    for (int k = 0; k < ni; k++) {
      double x = 0;
      for (int j = 0; j < n; j++) x += A[r * n + j] * G[j * ni + k];
      assert_true(fabs(out[r * ni + k] - x) < 1e-14);
    }
  mb_coupled_fold_rows(m, &c, 2, A, out); /* Gᵀ A, A n × 2 */
  for (int r = 0; r < ni; r++)
    for (int k = 0; k < 2; k++) {
      double x = 0;
      for (int j = 0; j < n; j++) x += G[j * ni + r] * A[j * 2 + k];
      assert_true(fabs(out[r * 2 + k] - x) < 1e-14);
    }
  mb_coupled_fold_matrix(m, &c, A, out); /* Gᵀ A G */
  for (int r = 0; r < ni; r++)
    for (int k = 0; k < ni; k++) {
      double x = 0;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) x += G[i * ni + r] * A[i * n + j] * G[j * ni + k];
      assert_true(fabs(out[r * ni + k] - x) < 1e-13);
    }
  mbt_tree_free(t);
}

/* tests/coupled/gripper.mbd through the front end, and its coupling as the runtime's. */
static const mbg_topology *open_gripper(mbt_robot *r, mb_coupling *c) {
  mbt_robot_open(r, "tests/coupled/gripper.mbd", 0);
  const mbg_topology *t = r->t;
  *c = (mb_coupling){t->nq_ind, t->nv_ind, t->q_of, t->q_mult, t->q_off, t->v_of, t->v_mult};
  return t;
}

/* The DSL's mimic statements through the front end: the gripper's map and its dynamics. */
static void test_gripper(void **state) {
  (void)state;
  mbt_robot r;
  mb_coupling c;
  const mbg_topology *t = open_gripper(&r, &c);
  assert_int_equal(t->ncoupled, 2);
  assert_int_equal(t->nq, 6);
  assert_int_equal(t->nq_ind, 4);
  assert_int_equal(mb_coupling_check(&r.rt.model, &c, NULL, 0), 0);
  /* roll = 2 drive + 0.1; finger_r = −finger_l */
  assert_true(t->q_of[3] == 2 && t->q_mult[3] == 2 && t->q_off[3] == 0.1 && t->q_coupled[3]);
  assert_true(t->v_of[5] == 3 && t->v_mult[5] == -1 && t->v_coupled[5]);
  check_against_kkt(&r.rt.model, &c, t->v_coupled, 11, 25);
  mbt_robot_close(&r);
}

/* q̈ of the gripper: mb_coupled_fd at τ, plus Gᵀ mb_passive_forces when S is not NULL. */
static void fd_at(const mb_model *m, const mb_coupling *c, const mb_springs *S, mb_workspace *ws,
                  double *scr, const double *q, const double *v, const double *tau, double *qdd) {
  double qf[8], vf[8], tp[8], t[8];
  for (int k = 0; k < c->nv; k++) t[k] = tau[k];
  if (S) {
    mb_coupled_expand(m, c, q, v, qf, vf);
    assert_int_equal(mb_passive_forces(m, S, ws, qf, vf, tp), MB_OK);
    mb_coupled_fold_columns(m, c, 1, tp, t);
    for (int k = 0; k < c->nv; k++) t[k] += tau[k];
  }
  assert_int_equal(mb_coupled_fd(m, c, ws, scr, q, v, t, NULL, qdd), MB_OK);
}

/* The derivatives D[0] = ∂q̈/∂q, D[1] = ∂q̈/∂v, D[2] = ∂q̈/∂τ (nd of them; n × n) against central
 * differences of fd_at (step 1e-6). */
static void compare_fd(const mb_model *m, const mb_coupling *c, const mb_springs *S,
                       mb_workspace *ws, double *scr, double *q, double *v, double *tau,
                       const double *const *D, int nd) {
  const double h = 1e-6;
  int n = c->nv;
  double lo[8], hi[8];
  for (int k = 0; k < n; k++)
    for (int which = 0; which < nd; which++) {
      double *x = which == 0 ? q : which == 1 ? v : tau, x0 = x[k];
      x[k] = x0 + h;
      fd_at(m, c, S, ws, scr, q, v, tau, hi);
      x[k] = x0 - h;
      fd_at(m, c, S, ws, scr, q, v, tau, lo);
      x[k] = x0;
      for (int i = 0; i < n; i++) {
        double fd = (hi[i] - lo[i]) / (2 * h);
        assert_true(fabs(fd - D[which][i * n + k]) <= 1e-6 * (1 + fabs(fd)));
      }
    }
}

/* The derivatives of the reduced forward dynamics against central differences (step 1e-6). */
static void test_derivatives(void **state) {
  (void)state;
  mbt_robot r;
  mb_coupling c;
  open_gripper(&r, &c);
  const mb_model *m = &r.rt.model;
  enum { N = 4 };
  assert_int_equal(c.nv, N);
  mb_workspace ws;
  double *buf = mbt_workspace_new(m, &ws);
  double *scr = malloc(mb_coupled_scratch_size(m, &c) * sizeof *scr);
  assert_non_null(scr);
  mbt_rng g;
  mbt_rng_seed(&g, 5);
  for (int s = 0; s < 5; s++) {
    double q[N], v[N], tau[N], dq[N * N], dv[N * N], Mi[N * N];
    mbt_rand_vec(&g, N, -1, 1, q);
    mbt_rand_vec(&g, N, -1, 1, v);
    mbt_rand_vec(&g, N, -1, 1, tau);
    assert_int_equal(mb_coupled_fd_derivatives(m, &c, &ws, scr, q, v, tau, dq, dv, Mi), MB_OK);
    const double *D[3] = {dq, dv, Mi};
    compare_fd(m, &c, NULL, &ws, scr, q, v, tau, D, 3);
  }
  free(scr);
  free(buf);
  mbt_robot_close(&r);
}

/* The derivatives with --passive-in-fd's joint terms (elbow damping 0.2, finger_l damping 0.5,
 * finger_r friction 0.3 on its coupled coordinate, a spring on drive for the stiffness term)
 * against central differences (step 1e-6; velocities outside the friction's linear band). */
static void test_derivatives_passive(void **state) {
  (void)state;
  mbt_robot r;
  mb_coupling c;
  open_gripper(&r, &c);
  const mb_model *m = &r.rt.model;
  enum { N = 4 };
  double damping[6] = {0, 0.2, 0, 0, 0.5, 0}, friction[6] = {0, 0, 0, 0, 0, 0.3};
  double stiffness[6] = {0, 0, 1.5, 0, 0, 0}, q_ref[6] = {0, 0, 0.2, 0, 0, 0};
  mb_springs S = {0, NULL, damping, friction, stiffness, q_ref};
  assert_int_equal(mb_springs_check(m, &S, NULL, 0), 0);
  mb_workspace ws;
  double *buf = mbt_workspace_new(m, &ws);
  double *scr = malloc(mb_coupled_scratch_size(m, &c) * sizeof *scr);
  assert_non_null(scr);
  mbt_rng g;
  mbt_rng_seed(&g, 13);
  for (int s = 0; s < 5; s++) {
    double q[N], v[N], tau[N], t2[N], dq[N * N], dv[N * N], Mi[N * N], qdd[N];
    mbt_rand_vec(&g, N, -1, 1, q);
    for (int k = 0; k < N; k++) v[k] = (k % 2 ? 1 : -1) * mbt_uniform(&g, 0.1, 1);
    mbt_rand_vec(&g, N, -1, 1, tau);
    assert_int_equal(mb_coupled_fd_derivatives_passive(m, &c, &S, &ws, scr, q, v, tau, t2, dq,
                                                       dv, Mi), MB_OK);
    fd_at(m, &c, &S, &ws, scr, q, v, tau, qdd);
    double q0[N];
    assert_int_equal(mb_coupled_fd(m, &c, &ws, scr, q, v, t2, NULL, q0), MB_OK);
    for (int k = 0; k < N; k++) assert_true(fabs(q0[k] - qdd[k]) <= 1e-12 * (1 + fabs(qdd[k])));
    const double *D[2] = {dq, dv};
    compare_fd(m, &c, &S, &ws, scr, q, v, tau, D, 2);
  }
  free(scr);
  free(buf);
  mbt_robot_close(&r);
}

/* The gripper's left finger tip in a point contact: forward dynamics and an impact against the
 * multipliers' solution of the full tree (couplings and contact rows as constraints). */
static void test_contacts(void **state) {
  (void)state;
  mbt_robot r;
  mb_coupling c;
  const mbg_topology *t = open_gripper(&r, &c);
  const mb_model *m = &r.rt.model;
  int tip = 0;
  for (int i = 1; i <= t->nb; i++)
    if (strcmp(r.m->bodies[t->body[i].model_body].name, "left") == 0) tip = i;
  assert_true(tip > 0);
  mb_frame fr = {tip, {1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0.01, 0.03}};
  mb_frames F = {1, &fr};
  mb_contact ct = {0, 3};
  mb_contacts C = {1, &ct};
  enum { N = 6, NI = 4, NK = N + 2 + 3 };
  mb_workspace ws;
  double *buf = mbt_workspace_new(m, &ws);
  double *scr = malloc(mb_coupled_contact_scratch_size(m, &c, &C) * sizeof *scr);
  assert_non_null(scr);
  mbt_rng g;
  mbt_rng_seed(&g, 9);
  for (int s = 0; s < 10; s++) {
    double q[NI], v[NI], tau[NI], qf[N], vf[N], M[N * N], h[N], Jf[6 * N], acc[6];
    double K[NK * NK], rhs[NK], qdd[NI], force[3], vp[NI], imp[3];
    mbt_rand_vec(&g, NI, -1, 1, q);
    mbt_rand_vec(&g, NI, -1, 1, v);
    mbt_rand_vec(&g, NI, -2, 2, tau);
    mb_coupled_expand(m, &c, q, v, qf, vf);
    assert_int_equal(mb_crba(m, &ws, qf, M), MB_OK);
    assert_int_equal(mb_nle(m, &ws, qf, vf, h), MB_OK);
    assert_int_equal(mb_frame_jacobian(m, &F, &ws, qf, 0, Jf), MB_OK);
    assert_int_equal(mb_frame_acceleration_bias(m, &F, &ws, qf, vf, acc), MB_OK);
    for (int impact = 0; impact < 2; impact++) {
      /* [M Aᵀ; A 0] [x; λ] = [rhs_q; rhs_c]: A the coupling rows, then the contact's linear rows */
      memset(K, 0, sizeof K);
      for (int i = 0; i < N; i++)
        for (int k = 0; k < N; k++) K[i * NK + k] = M[i * N + k];
      const int cpl[2][2] = {{3, 2}, {5, 4}}; /* (coupled, source) full indices */
      for (int j = 0; j < 2; j++) {
        int a = cpl[j][0], b = cpl[j][1];
        K[(N + j) * NK + a] = K[a * NK + N + j] = 1;
        K[(N + j) * NK + b] = K[b * NK + N + j] = -t->v_mult[a];
        rhs[N + j] = 0;
      }
      for (int i = 0; i < 3; i++) {
        for (int k = 0; k < N; k++)
          K[(N + 2 + i) * NK + k] = K[k * NK + N + 2 + i] = Jf[(3 + i) * N + k];
        rhs[N + 2 + i] = impact ? 0 : -acc[3 + i];
      }
      for (int k = 0; k < N; k++) { /* the independent forces on their own coordinates */
        double own = t->v_coupled[k] ? 0 : tau[t->v_of[k]];
        rhs[k] = impact ? 0 : own - h[k];
      }
      if (impact) { /* M (v⁺ − v⁻) = Jᵀ Λ (+ coupling), J v⁺ = 0: unknown Δv */
        for (int i = 0; i < 3; i++) {
          double x = 0;
          for (int k = 0; k < N; k++) x += Jf[(3 + i) * N + k] * vf[k];
          rhs[N + 2 + i] = -x;
        }
      }
      assert_true(mbt_gauss(NK, K, rhs) > 1e-14);
      double *out = impact ? vp : qdd, *f = impact ? imp : force;
      int rc = impact ? mb_coupled_impulse(m, &c, &F, &C, &ws, scr, q, v, NULL, vp, imp)
                      : mb_coupled_contact_fd(m, &c, &F, &C, &ws, scr, q, v, tau, NULL, NULL, qdd,
                                              force);
      assert_int_equal(rc, MB_OK);
      double big = 1;
      for (int k = 0; k < NK; k++) big = fmax(big, fabs(rhs[k]));
      for (int k = 0; k < N; k++) {
        double x = t->v_mult[k] * (out[t->v_of[k]] - (impact ? v[t->v_of[k]] : 0));
        assert_true(fabs(x - rhs[k]) <= 1e-9 * big);
      }
      /* M x + Aᵀ λ = τ − h: the force (impulse) is −λ of its rows */
      for (int i = 0; i < 3; i++) assert_true(fabs(f[i] + rhs[N + 2 + i]) <= 1e-9 * big);
    }
  }
  free(scr);
  free(buf);
  mbt_robot_close(&r);
}

/* A random tree with every other scalar joint coupled to an earlier scalar one. */
static void test_random_trees(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 6; seed++) {
    mbt_tree *t = mbt_randtree(seed, 10, seed % 2);
    const mb_model *m = &t->model;
    int q_of[N_MAX + 8], v_of[N_MAX], coupled[N_MAX] = {0}, kq = 0, kv = 0, last = -1;
    double qm[N_MAX + 8], qo[N_MAX + 8], vm[N_MAX];
    assert_true(m->nv <= N_MAX);
    for (int i = 1; i <= m->nb; i++) {
      int scalar = mb_joint_nq(m->jtype[i]) == 1 && mb_joint_nv(m->jtype[i]) == 1;
      int couple = scalar && last >= 0 && i % 2 == 0;
      for (int k = 0; k < mb_joint_nq(m->jtype[i]); k++) {
        int at = m->iq[i] + k;
        q_of[at] = couple ? q_of[m->iq[last]] : kq++;
        qm[at] = couple ? -0.5 - 0.1 * i : 1, qo[at] = couple ? 0.05 * i : 0;
      }
      for (int k = 0; k < mb_joint_nv(m->jtype[i]); k++) {
        int at = m->iv[i] + k;
        v_of[at] = couple ? v_of[m->iv[last]] : kv++;
        vm[at] = couple ? qm[m->iq[i]] : 1, coupled[at] = couple;
      }
      if (scalar && !couple) last = i;
    }
    mb_coupling c = {kq, kv, q_of, qm, qo, v_of, vm};
    char msg[128];
    assert_int_equal(mb_coupling_check(m, &c, msg, sizeof msg), 0);
    check_against_kkt(m, &c, coupled, 100 + seed, 10);
    mbt_tree_free(t);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fingers_analytic),
      cmocka_unit_test(test_folds),
      cmocka_unit_test(test_gripper),
      cmocka_unit_test(test_random_trees),
      cmocka_unit_test(test_derivatives),
      cmocka_unit_test(test_contacts),
      cmocka_unit_test(test_derivatives_passive),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
