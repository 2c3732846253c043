/* test_universal.c — the universal joint in the runtime (runtime/jcalc.c: S(q) and cJ; every
 * algorithm). References:
 *   - the closed form of XJ and S for axes z, x (rotations written by hand);
 *   - the same robot built from two revolutes through a massless cross (the cross's frame on the
 *     joint frame, the second revolute's at the cross's origin): every function of the runtime
 *     gives the same numbers for both, to rounding;
 *   - identities on random trees with universal joints: rnea(aba(τ)) = τ, M's columns the
 *     differences of rnea, M⁻¹ M = 1, crba_fd = aba, and the power balance dT/dt = vᵀ (τ − g)
 *     by central differences of T = ½ vᵀ M v along a trajectory (the check on cJ);
 *   - the refusals: mb_cfa (MB_EINVAL), mb_model_check (axes not perpendicular, no axis2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

/* Reference: XJ = (Rz(θ1) Rx(θ2))ᵀ and S = [(0, sin θ2, cos θ2) e_x; 0 0] for axes z, x. */
static void test_closed_form(void **state) {
  (void)state;
  static const double z[3] = {0, 0, 1}, x[3] = {1, 0, 0}, com[3] = {0.1, 0, 0};
  static const double Ic[6] = {0.1, 0.1, 0.1, 0, 0, 0};
  double q[2] = {0.7, -0.4}, E[9], r[3], S[12], zero[3] = {0};
  double c1 = cos(q[0]), s1 = sin(q[0]), c2 = cos(q[1]), s2 = sin(q[1]);
  /* R = Rz Rx = [c1 −s1 c2  s1 s2; s1 c1 c2 −c1 s2; 0 s2 c2], E = Rᵀ */
  double want[9] = {c1, s1, 0, -s1 * c2, c1 * c2, s2, s1 * s2, -c1 * s2, c2};
  double wantS[12] = {0, s2, c2, 0, 0, 0, 1, 0, 0, 0, 0, 0};
  mbt_tree *t = mbt_tree_new(1);
  mbt_tree_joint(t, 1, 0, MB_JOINT_UNIVERSAL, z, NULL, NULL);
  mbt_tree_axis2(t, 1, x);
  mbt_tree_body(t, 1, 1.0, com, Ic);
  mbt_tree_finish(t);
  assert_int_equal(mb_model_check(&t->model, NULL, 0), 0);
  mb_jcalc(&t->model, 1, q, E, r);
  mb_joint_S_at(&t->model, 1, q, S);
  MBT_ASSERT_NEAR(E, want, 9, 1e-15);
  MBT_ASSERT_NEAR(r, zero, 3, 0.0);
  MBT_ASSERT_NEAR(S, wantS, 12, 1e-15);
  /* cJ = θ̇1 θ̇2 (s1 × a2) = θ̇1 θ̇2 (0, cos θ2, −sin θ2) */
  double qd[2] = {0.3, -2.0}, cJ[6] = {0}, wantc[6] = {0, -0.6 * c2, 0.6 * s2, 0, 0, 0};
  mb_joint_cJ(&t->model, 1, S, qd, cJ);
  MBT_ASSERT_NEAR(cJ, wantc, 6, 1e-15);
  mbt_tree_free(t);
}

/* ---- the pair: universal joints, and the same robot through massless crosses ---------------- */

typedef struct pair {
  mbt_tree *u, *r;
  int map[6]; /* body of u → body of r */
} pair;

static void body(mbt_tree *t, int i, double mass, double cx, double cy, double cz) {
  const double com[3] = {cx, cy, cz}, Ic[6] = {0.02 * mass, 0.03 * mass, 0.025 * mass, 0.002,
                                               -0.001, 0.003};
  mbt_tree_body(t, i, mass, com, Ic);
}

/* U: 1 revolute, 2 universal (general axes, XT turned) on 1, 3 revolute on 2, 4 universal (z, x)
 * on the world, 5 prismatic on 4. R: each universal a revolute about its axis onto a massless
 * cross, then a revolute about axis2 at the cross's origin (XT = 1). */
static void make_pair(pair *p) {
  static const double y[3] = {0, 1, 0}, x[3] = {1, 0, 0}, z[3] = {0, 0, 1};
  static const double a1[3] = {0.6, 0, 0.8}, a2[3] = {0.48, 0.8, -0.36};
  static const double r1[3] = {0.1, 0.2, 0.3}, r2[3] = {0.3, 0, 0.1}, r3[3] = {0, 0.2, 0.4};
  static const double r4[3] = {-0.5, 0, 0}, r5[3] = {0.1, 0.1, 0};
  double E1[9], E2[9], E4[9];
  mbt_rng g;
  mbt_rng_seed(&g, 77);
  mbt_rand_rot(&g, E1), mbt_rand_rot(&g, E2), mbt_rand_rot(&g, E4);
  mbt_tree *u = mbt_tree_new(5), *r = mbt_tree_new(7);
  mbt_tree_joint(u, 1, 0, MB_JOINT_REVOLUTE, y, E1, r1);
  mbt_tree_joint(u, 2, 1, MB_JOINT_UNIVERSAL, a1, E2, r2), mbt_tree_axis2(u, 2, a2);
  mbt_tree_joint(u, 3, 2, MB_JOINT_REVOLUTE, x, NULL, r3);
  mbt_tree_joint(u, 4, 0, MB_JOINT_UNIVERSAL, z, E4, r4), mbt_tree_axis2(u, 4, x);
  mbt_tree_joint(u, 5, 4, MB_JOINT_PRISMATIC, z, NULL, r5);
  mbt_tree_joint(r, 1, 0, MB_JOINT_REVOLUTE, y, E1, r1);
  mbt_tree_joint(r, 2, 1, MB_JOINT_REVOLUTE, a1, E2, r2);
  mbt_tree_joint(r, 3, 2, MB_JOINT_REVOLUTE, a2, NULL, NULL);
  mbt_tree_joint(r, 4, 3, MB_JOINT_REVOLUTE, x, NULL, r3);
  mbt_tree_joint(r, 5, 0, MB_JOINT_REVOLUTE, z, E4, r4);
  mbt_tree_joint(r, 6, 5, MB_JOINT_REVOLUTE, x, NULL, NULL);
  mbt_tree_joint(r, 7, 6, MB_JOINT_PRISMATIC, z, NULL, r5);
  static const int map[6] = {0, 1, 3, 4, 6, 7};
  static const double mass[6] = {0, 1.5, 2.0, 0.7, 3.0, 0.4};
  static const double c[6][3] = {{0}, {0.1, 0, 0.2}, {0.05, 0.3, -0.1}, {0, 0.2, 0.1},
                                 {0.2, -0.1, 0.05}, {0, 0, 0.3}};
  for (int i = 1; i <= 5; i++) {
    body(u, i, mass[i], c[i][0], c[i][1], c[i][2]);
    body(r, map[i], mass[i], c[i][0], c[i][1], c[i][2]);
  }
  mbt_tree_finish(u), mbt_tree_finish(r);
  memcpy(p->map, map, sizeof map);
  p->u = u, p->r = r;
  assert_int_equal(mb_model_check(&u->model, NULL, 0), 0);
  assert_int_equal(mb_model_check(&r->model, NULL, 0), 0);
  assert_int_equal(u->model.nv, r->model.nv);
}

enum { NV = 7, NN = NV * NV };

/* One state (q, v, a, τ) and the workspaces of both models. */
typedef struct run {
  pair p;
  mb_workspace wu, wr;
  double *bu, *br;
  double q[NV], v[NV], a[NV], tau[NV];
} run;

static void run_start(run *s, uint64_t seed) {
  make_pair(&s->p);
  s->bu = mbt_workspace_new(&s->p.u->model, &s->wu);
  s->br = mbt_workspace_new(&s->p.r->model, &s->wr);
  mbt_rng g;
  mbt_rng_seed(&g, seed);
  mbt_rand_vec(&g, NV, -3.0, 3.0, s->q);
  mbt_rand_vec(&g, NV, -2.0, 2.0, s->v);
  mbt_rand_vec(&g, NV, -2.0, 2.0, s->a);
  mbt_rand_vec(&g, NV, -5.0, 5.0, s->tau);
}

static void run_end(run *s) {
  free(s->bu), free(s->br);
  mbt_tree_free(s->p.u), mbt_tree_free(s->p.r);
}

#define U_ (&s.p.u->model), &s.wu
#define R_ (&s.p.r->model), &s.wr

/* Joint space: rnea, nle, crba, aba, crba_fd, minv, and both derivatives, to 1e-12 relative. */
static void test_pair_joint_space(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 8; seed++) {
    run s;
    run_start(&s, seed);
    double x[4][NN], y[4][NN];
    assert_int_equal(mb_rnea(U_, s.q, s.v, s.a, NULL, x[0]), MB_OK);
    assert_int_equal(mb_rnea(R_, s.q, s.v, s.a, NULL, y[0]), MB_OK);
    MBT_ASSERT_REL(x[0], y[0], NV, 1e-12);
    assert_int_equal(mb_crba(U_, s.q, x[0]), MB_OK);
    assert_int_equal(mb_crba(R_, s.q, y[0]), MB_OK);
    MBT_ASSERT_REL(x[0], y[0], NN, 1e-12);
    assert_int_equal(mb_minv(U_, s.q, x[0]), MB_OK);
    assert_int_equal(mb_minv(R_, s.q, y[0]), MB_OK);
    MBT_ASSERT_REL(x[0], y[0], NN, 1e-11);
    assert_int_equal(mb_aba(U_, s.q, s.v, s.tau, NULL, x[0]), MB_OK);
    assert_int_equal(mb_aba(R_, s.q, s.v, s.tau, NULL, y[0]), MB_OK);
    MBT_ASSERT_REL(x[0], y[0], NV, 1e-11);
    assert_int_equal(mb_crba_fd(U_, s.q, s.v, s.tau, x[1]), MB_OK);
    MBT_ASSERT_REL(x[1], y[0], NV, 1e-11);
    assert_int_equal(mb_rnea_derivatives(U_, s.q, s.v, s.a, x[0], x[1], x[2]), MB_OK);
    assert_int_equal(mb_rnea_derivatives(R_, s.q, s.v, s.a, y[0], y[1], y[2]), MB_OK);
    for (int k = 0; k < 3; k++) MBT_ASSERT_REL(x[k], y[k], NN, 1e-12);
    assert_int_equal(mb_aba_derivatives(U_, s.q, s.v, s.tau, x[0], x[1], x[2]), MB_OK);
    assert_int_equal(mb_aba_derivatives(R_, s.q, s.v, s.tau, y[0], y[1], y[2]), MB_OK);
    for (int k = 0; k < 3; k++) MBT_ASSERT_REL(x[k], y[k], NN, 1e-10);
    run_end(&s);
  }
}

/* Bodies and frames: poses, body velocities and accelerations after rnea, joint wrenches, a frame
 * on body 3 (4 of R) and on body 5 (7): pose, Jacobian, acceleration bias; centroidal momentum,
 * its matrix and bias; the energies; the regressor's columns of each body. */
static void test_pair_bodies(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 8; seed++) {
    run s;
    run_start(&s, seed + 100);
    const int *map = s.p.map;
    double x[6 * NV * 2 + 12 * 8], y[6 * NV * 2 + 12 * 8], t[NV];
    assert_int_equal(mb_fk(U_, s.q, x), MB_OK);
    assert_int_equal(mb_fk(R_, s.q, y), MB_OK);
    for (int i = 1; i <= 5; i++) MBT_ASSERT_NEAR(x + 12 * i, y + 12 * map[i], 12, 1e-13);
    assert_int_equal(mb_joint_wrenches(U_, s.q, s.v, s.a, x), MB_OK);
    assert_int_equal(mb_joint_wrenches(R_, s.q, s.v, s.a, y), MB_OK);
    mb_rnea(U_, s.q, s.v, s.a, NULL, t), mb_rnea(R_, s.q, s.v, s.a, NULL, t);
    for (int i = 1; i <= 5; i++) {
      MBT_ASSERT_REL(x + 6 * i, y + 6 * map[i], 6, 1e-12);
      MBT_ASSERT_REL(s.wu.v + 6 * i, s.wr.v + 6 * map[i], 6, 1e-13);
      MBT_ASSERT_REL(s.wu.a + 6 * i, s.wr.a + 6 * map[i], 6, 1e-12);
    }
    mb_frame fu[2] = {{3, {1, 0, 0, 0, 1, 0, 0, 0, 1}, {0.1, 0.2, 0.3}},
                      {5, {0, 1, 0, -1, 0, 0, 0, 0, 1}, {0, 0.1, 0}}};
    mb_frame fr[2] = {fu[0], fu[1]};
    fr[0].body = 4, fr[1].body = 7;
    mb_frames Fu = {2, fu}, Fr = {2, fr};
    assert_int_equal(mb_frame_jacobian(&s.p.u->model, &Fu, &s.wu, s.q, 1, x), MB_OK);
    assert_int_equal(mb_frame_jacobian(&s.p.r->model, &Fr, &s.wr, s.q, 1, y), MB_OK);
    MBT_ASSERT_NEAR(x, y, 12 * NV, 1e-13);
    assert_int_equal(mb_frame_acceleration_bias(&s.p.u->model, &Fu, &s.wu, s.q, s.v, x), MB_OK);
    assert_int_equal(mb_frame_acceleration_bias(&s.p.r->model, &Fr, &s.wr, s.q, s.v, y), MB_OK);
    MBT_ASSERT_REL(x, y, 12, 1e-12);
    assert_int_equal(mb_ccrba(U_, s.q, x), MB_OK);
    assert_int_equal(mb_ccrba(R_, s.q, y), MB_OK);
    MBT_ASSERT_REL(x, y, 6 * NV, 1e-12);
    assert_int_equal(mb_centroidal_bias(U_, s.q, s.v, x), MB_OK);
    assert_int_equal(mb_centroidal_bias(R_, s.q, s.v, y), MB_OK);
    MBT_ASSERT_REL(x, y, 6, 1e-12);
    assert_int_equal(mb_energy(U_, s.q, s.v, x), MB_OK);
    assert_int_equal(mb_energy(R_, s.q, s.v, y), MB_OK);
    MBT_ASSERT_REL(x, y, 2, 1e-13);
    run_end(&s);
  }
}

/* The regressor: body i's ten columns of U's Y are body map(i)'s of R's; the crosses' are 0. */
static void test_pair_regressor(void **state) {
  (void)state;
  run s;
  run_start(&s, 9);
  double *Yu = malloc(sizeof(double) * NV * 10 * (5 + 7)), *Yr = Yu + NV * 50;
  assert_int_equal(mb_regressor(U_, s.q, s.v, s.a, Yu), MB_OK);
  assert_int_equal(mb_regressor(R_, s.q, s.v, s.a, Yr), MB_OK);
  double scale = fmax(mbt_max_abs(Yr, NV * 70), 1.0);
  for (int row = 0; row < NV; row++)
    for (int i = 1; i <= 5; i++)
      mbt_assert_near(Yu + 50 * row + 10 * (i - 1), Yr + 70 * row + 10 * (s.p.map[i] - 1), 10,
                      1e-12, scale, "regressor columns", __FILE__, __LINE__);
  free(Yu);
  run_end(&s);
}

/* ---- identities on random trees with universal joints ---------------------------------------- */

/* rnea(q, v, aba(q, v, τ)) = τ (1e-10 relative), M's column k = rnea(q, 0, e_k) − g(q) (1e-10),
 * M⁻¹ M = 1 (1e-9 relative to |M⁻¹| |M|), crba_fd = aba (1e-9). */
static void test_identities(void **state) {
  (void)state;
  for (int sz = 0; sz < MBT_NSIZES; sz++)
    for (uint64_t seed = 1; seed <= MBT_NSEEDS; seed++) {
      mbt_tree *t = mbt_randtree_universal(seed, mbt_sizes[sz] + 8, (int)(seed % 2));
      const mb_model *m = &t->model;
      size_t n = (size_t)m->nv;
      mb_workspace ws;
      double *buf = mbt_workspace_new(m, &ws);
      double *q = malloc(sizeof(double) * ((size_t)m->nq + 7 * n + 3 * n * n));
      double *v = q + m->nq, *tau = v + n, *qdd = tau + n, *t2 = qdd + n, *e = t2 + n;
      double *g0 = e + n, *col = g0 + n, *M = col + n, *Mi = M + n * n, *P = Mi + n * n;
      mbt_rng g;
      mbt_rng_seed(&g, seed * 17 + (uint64_t)sz);
      mbt_rand_q(&g, m, q), mbt_rand_vec(&g, m->nv, -1, 1, v);
      mbt_rand_vec(&g, m->nv, -5, 5, tau);
      assert_int_equal(mb_aba(m, &ws, q, v, tau, NULL, qdd), MB_OK);
      assert_int_equal(mb_rnea(m, &ws, q, v, qdd, NULL, t2), MB_OK);
      MBT_ASSERT_REL(t2, tau, n, 1e-10);
      assert_int_equal(mb_crba_fd(m, &ws, q, v, tau, t2), MB_OK);
      MBT_ASSERT_REL(t2, qdd, n, 1e-9);
      assert_int_equal(mb_crba(m, &ws, q, M), MB_OK);
      assert_int_equal(mb_gravity(m, &ws, q, g0), MB_OK);
      for (size_t k = 0; k < n; k++) {
        for (size_t l = 0; l < n; l++) e[l] = (l == k);
        mb_rnea(m, &ws, q, NULL, e, NULL, col);
        for (size_t l = 0; l < n; l++) col[l] -= g0[l], e[l] = M[l * n + k];
        MBT_ASSERT_REL(col, e, n, 1e-10);
      }
      assert_int_equal(mb_minv(m, &ws, q, Mi), MB_OK);
      for (size_t r = 0; r < n; r++)
        for (size_t c = 0; c < n; c++) {
          double s = 0;
          for (size_t l = 0; l < n; l++) s += Mi[r * n + l] * M[l * n + c];
          P[r * n + c] = s - (r == c);
        }
      double scale = mbt_max_abs(Mi, n * n) * mbt_max_abs(M, n * n) * (double)n;
      for (size_t k = 0; k < n * n; k++) MBT_ASSERT_NEAR1(P[k], 0.0, 1e-12 * scale);
      free(q), free(buf);
      mbt_tree_free(t);
    }
}

/* ½ vᵀ M v along q(t) = q + v t + ½ a t², v(t) = v + a t. */
static double kinetic(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                      double *M) {
  int n = m->nv;
  double T = 0;
  mb_crba(m, ws, q, M);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) T += 0.5 * v[i] * M[i * n + j] * v[j];
  return T;
}

/* Power balance: dT/dt = vᵀ (τ − g(q)) with τ = rnea(q, v, a) (Ṁ − 2C is skew), the derivative
 * by central differences (ε = 1e-4: truncation ~1e-8 relative); a wrong cJ breaks it. */
static void test_power_balance(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= MBT_NSEEDS; seed++) {
    mbt_tree *t = mbt_randtree_universal(seed, 14, (int)(seed % 2));
    const mb_model *m = &t->model;
    size_t nv = (size_t)m->nv, nq = (size_t)m->nq;
    mb_workspace ws;
    double *buf = mbt_workspace_new(m, &ws);
    double *q = malloc(sizeof(double) * (2 * nq + 6 * nv + nv * nv)), *qt = q + nq;
    double *v = qt + nq, *a = v + nv, *xi = a + nv, *vt = xi + nv, *tau = vt + nv, *g0 = tau + nv;
    double *M = g0 + nv, eps = 1e-4, T[2], power = 0;
    mbt_rng g;
    mbt_rng_seed(&g, seed);
    mbt_rand_q(&g, m, q), mbt_rand_vec(&g, m->nv, -1, 1, v), mbt_rand_vec(&g, m->nv, -1, 1, a);
    for (int s = 0; s < 2; s++) {
      double e = s ? eps : -eps;
      for (size_t k = 0; k < nv; k++) xi[k] = v[k] * e + 0.5 * a[k] * e * e, vt[k] = v[k] + a[k] * e;
      mb_integrate(m, q, xi, 1.0, qt);
      T[s] = kinetic(m, &ws, qt, vt, M);
    }
    mb_rnea(m, &ws, q, v, a, NULL, tau);
    mb_gravity(m, &ws, q, g0);
    for (size_t k = 0; k < nv; k++) power += v[k] * (tau[k] - g0[k]);
    MBT_ASSERT_NEAR1((T[1] - T[0]) / (2 * eps), power, 1e-7 * fmax(1.0, fabs(power)));
    free(q), free(buf);
    mbt_tree_free(t);
  }
}

/* mb_cfa refuses a model with a universal joint; mb_model_check wants axis2, unit, ⟂ axis. */
static void test_refusals(void **state) {
  (void)state;
  run s;
  run_start(&s, 3);
  double qdd[NV];
  assert_int_equal(mb_cfa(U_, s.q, s.v, s.tau, qdd, NULL), MB_EINVAL);
  char msg[200];
  s.p.u->axis2[3 * 4 + 2] = 0.5; /* body 4: a2 = (1, 0, 0.5), not unit and not ⟂ z */
  assert_int_equal(mb_model_check(&s.p.u->model, msg, sizeof msg), -1);
  assert_non_null(strstr(msg, "axis2 is not a unit vector"));
  s.p.u->axis2[3 * 4] = sqrt(0.75); /* unit, not ⟂ */
  assert_int_equal(mb_model_check(&s.p.u->model, msg, sizeof msg), -1);
  assert_non_null(strstr(msg, "not perpendicular"));
  s.p.u->model.axis2 = NULL;
  assert_int_equal(mb_model_check(&s.p.u->model, msg, sizeof msg), -1);
  assert_non_null(strstr(msg, "no axis2"));
  run_end(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_closed_form),      cmocka_unit_test(test_pair_joint_space),
      cmocka_unit_test(test_pair_bodies),      cmocka_unit_test(test_pair_regressor),
      cmocka_unit_test(test_identities),       cmocka_unit_test(test_power_balance),
      cmocka_unit_test(test_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
