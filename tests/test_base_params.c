/* test_base_params.c — the base inertial parameters (generator/topology/base_params.h).
 * References:
 *   - analytic counts: one revolute joint about z under gravity along −y has three base
 *     parameters (Izz, m cx, m cy: τ = Izz q̈ + g (m cx cos q − m cy sin q)), and one (Izz) when
 *     gravity is along its axis; a planar two-link arm (axes z, links of length l1 = 0.7 along x)
 *     has six under gravity in its plane (Izz, m cx, m cy of each link) and four without gravity
 *     (link 1's first moments act only through gravity), and link 1's Izz stands for
 *     Izz1 + m2 l1² and its m cx for m cx1 + m2 l1 (Khalil's grouping: K's entries are l1² and l1);
 *     a free-floating body has all ten;
 *   - the defining identity, on states and parameters other than those the set was computed
 *     from: Y(q, v, q̈) π = Y_b(q, v, q̈) K π (Y_b: Y's columns col[]), for random π (any values:
 *     the identity is linear), on random trees with every joint type and on real robots; relative
 *     error 1e-7 (the selection's tolerance is 1e-8 on unit columns);
 *   - the rank: the number of base parameters is the rank of Y stacked over fresh states,
 *     counted as the eigenvalues of its Gram matrix above 1e-12 of the largest (singular values
 *     above 1e-6 of the largest; rounding leaves about 1e-16; a different decomposition: Jacobi
 *     rotations). */
#include <dirent.h>
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
#include "mbt_robot.h"
#include "topology/base_params.h"

#define RANK_EIG 1e-12

static int count_of(const mb_model *m) {
  mbg_base_params b;
  assert_int_equal(mbg_base_params_compute(m, &b), 0);
  int n = b.nbase;
  mbg_base_params_free(&b);
  return n;
}

static mbt_tree *pendulum(double gy, double gz) {
  mbt_tree *t = mbt_tree_new(1);
  double z[3] = {0, 0, 1}, r[3] = {0.1, 0.2, 0.3}, c[3] = {0.3, -0.2, 0.1};
  double Ic[6] = {1, 2, 3, .1, .2, .3};
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, z, NULL, r);
  mbt_tree_body(t, 1, 2.0, c, Ic);
  mbt_tree_finish(t);
  t->model.gravity[0] = 0, t->model.gravity[1] = gy, t->model.gravity[2] = gz;
  return t;
}

static mbt_tree *planar_arm(double gy) {
  mbt_tree *t = mbt_tree_new(2);
  double z[3] = {0, 0, 1}, r0[3] = {0, 0, 0}, r1[3] = {0.7, 0, 0};
  double c1[3] = {0.3, 0.05, 0.02}, c2[3] = {0.4, -0.03, 0.01};
  double I1[6] = {0.1, 0.2, 0.3, 0.01, 0.02, 0.03}, I2[6] = {0.2, 0.1, 0.25, 0.02, 0.01, 0.03};
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, z, NULL, r0);
  mbt_tree_joint(t, 2, 1, MB_JOINT_REVOLUTE, z, NULL, r1);
  mbt_tree_body(t, 1, 3.0, c1, I1);
  mbt_tree_body(t, 2, 2.0, c2, I2);
  mbt_tree_finish(t);
  t->model.gravity[0] = 0, t->model.gravity[1] = gy, t->model.gravity[2] = 0;
  return t;
}

static void test_analytic_counts(void **state) {
  (void)state;
  mbt_tree *t = pendulum(-9.81, 0);
  assert_int_equal(count_of(&t->model), 3);
  mbt_tree_free(t);
  t = pendulum(0, -9.81);
  assert_int_equal(count_of(&t->model), 1);
  mbt_tree_free(t);
  t = planar_arm(0);
  assert_int_equal(count_of(&t->model), 4);
  mbt_tree_free(t);
  t = mbt_tree_new(1); /* a free-floating body */
  double c[3] = {0.1, 0.2, 0.3}, Ic[6] = {1, 2, 3, .1, .2, .3}, r[3] = {0, 0, 0};
  mbt_tree_joint(t, 1, 0, MB_JOINT_FLOATING, NULL, NULL, r);
  mbt_tree_body(t, 1, 2.0, c, Ic);
  mbt_tree_finish(t);
  assert_int_equal(count_of(&t->model), 10);
  mbt_tree_free(t);
}

/* The planar arm's grouping: link 1's Izz (column 9) and m cx (column 1) are base parameters,
 * and m2 (column 10) enters them with the coefficients l1² and l1. */
static void test_planar_grouping(void **state) {
  (void)state;
  mbt_tree *t = planar_arm(-9.81);
  mbg_base_params b;
  assert_int_equal(mbg_base_params_compute(&t->model, &b), 0);
  assert_int_equal(b.nbase, 6);
  int izz1 = -1, mcx1 = -1;
  for (int k = 0; k < b.nbase; k++) {
    if (b.col[k] == 9) izz1 = k;
    if (b.col[k] == 1) mcx1 = k;
  }
  assert_true(izz1 >= 0 && mcx1 >= 0);
  MBT_ASSERT_NEAR1(b.K[(size_t)izz1 * 20 + 10], 0.49, 1e-9);
  MBT_ASSERT_NEAR1(b.K[(size_t)mcx1 * 20 + 10], 0.7, 1e-9);
  mbg_base_params_free(&b);
  mbt_tree_free(t);
}

/* Eigenvalues of the symmetric n × n matrix A (destroyed) by cyclic Jacobi, into d. */
static void jacobi(double *A, int n, double *d) {
  for (int sweep = 0; sweep < 60; sweep++) {
    double off = 0.0;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) off += A[p * n + q] * A[p * n + q];
    if (off < 1e-30) break;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) {
        double apq = A[p * n + q];
        if (fabs(apq) < 1e-300) continue;
        double th = (A[q * n + q] - A[p * n + p]) / (2 * apq);
        double tt = (th >= 0 ? 1 : -1) / (fabs(th) + sqrt(th * th + 1)), c = 1 / sqrt(tt * tt + 1);
        double s = tt * c;
        for (int k = 0; k < n; k++) {
          double akp = A[k * n + p], akq = A[k * n + q];
          A[k * n + p] = c * akp - s * akq, A[k * n + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; k++) {
          double apk = A[p * n + k], aqk = A[q * n + k];
          A[p * n + k] = c * apk - s * aqk, A[q * n + k] = s * apk + c * aqk;
        }
      }
  }
  for (int k = 0; k < n; k++) d[k] = A[k * n + k];
}

/* The rank of the positive semidefinite n × n matrix A (destroyed) by LDLᵀ with complete (diagonal)
 * pivoting: the pivots above RANK_EIG times the first (the largest diagonal entry) — for the
 * larger models, where Jacobi's sweeps take too long in a sanitizer build; test_robots compares
 * both on the models where both run. */
static int pivoted_rank(double *A, int n) {
  double first = 0.0;
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (A[i * n + i] > A[p * n + p]) p = i;
    if (p != k) { /* symmetric swap of rows and columns k and p */
      for (int i = 0; i < n; i++) {
        double t = A[k * n + i];
        A[k * n + i] = A[p * n + i], A[p * n + i] = t;
      }
      for (int i = 0; i < n; i++) {
        double t = A[i * n + k];
        A[i * n + k] = A[i * n + p], A[i * n + p] = t;
      }
    }
    double d = A[k * n + k];
    if (k == 0) first = d;
    if (!(d > RANK_EIG * first)) return k;
    for (int i = k + 1; i < n; i++) {
      double l = A[i * n + k] / d;
      if (l != 0.0)
        for (int j = k + 1; j < n; j++) A[i * n + j] -= l * A[k * n + j];
    }
  }
  return n;
}

/* The identity Y π = Y_b K π and the rank, on fresh states (seed 99) and random π. */
static void check_identity(const mb_model *m) {
  mbg_base_params b;
  assert_int_equal(mbg_base_params_compute(m, &b), 0);
  int nv = m->nv, nreg = b.nreg, nstates = 3 * nreg / nv + 3;
  size_t nq = (size_t)m->nq, ncol = (size_t)nreg;
  mb_workspace ws;
  double *buf = mbt_workspace_new(m, &ws);
  double *Y = malloc(sizeof(double) * ((size_t)nv * ncol + 2 * ncol + (size_t)b.nbase + 4 * nq +
                                       ncol * ncol + ncol));
  double *pi = Y + (size_t)nv * ncol, *beta = pi + ncol, *q = beta + b.nbase, *v = q + nq;
  double *a = v + nq, *G = a + nq, *d = G + ncol * ncol, tau[64], taub[64];
  assert_true(nv <= 64);
  memset(G, 0, sizeof(double) * ncol * ncol);
  mbt_rng g;
  mbt_rng_seed(&g, 99);
  for (int s = 0; s < nstates; s++) {
    mbt_rand_q(&g, m, q), mbt_rand_vec(&g, nv, -1, 1, v), mbt_rand_vec(&g, nv, -1, 1, a);
    mbt_rand_vec(&g, nreg, -2, 2, pi);
    assert_int_equal(mb_regressor(m, &ws, q, v, a, Y), MB_OK);
    for (int k = 0; k < b.nbase; k++) {
      beta[k] = 0.0;
      for (int c = 0; c < nreg; c++) beta[k] += b.K[(size_t)k * ncol + (size_t)c] * pi[c];
    }
    for (int r = 0; r < nv; r++) {
      tau[r] = taub[r] = 0.0;
      for (int c = 0; c < nreg; c++) tau[r] += Y[(size_t)r * ncol + (size_t)c] * pi[c];
      for (int k = 0; k < b.nbase; k++) taub[r] += Y[(size_t)r * ncol + (size_t)b.col[k]] * beta[k];
      const double *y = Y + (size_t)r * ncol;
      for (size_t i = 0; i < ncol; i++) /* the Gram matrix of the stacked Y (its zeros skipped) */
        if (y[i] != 0.0)
          for (size_t j = 0; j < ncol; j++) G[i * ncol + j] += y[i] * y[j];
    }
    MBT_ASSERT_REL(taub, tau, nv, 1e-7);
  }
  int rank = 0;
  if (nreg <= 100) { /* Jacobi's eigenvalues, and the pivoted LDLᵀ on a copy: the same rank */
    double *G2 = malloc(sizeof(double) * ncol * ncol);
    assert_non_null(G2);
    memcpy(G2, G, sizeof(double) * ncol * ncol);
    jacobi(G, nreg, d);
    double top = 0.0;
    for (int k = 0; k < nreg; k++) top = fmax(top, d[k]);
    for (int k = 0; k < nreg; k++) rank += d[k] > RANK_EIG * top;
    assert_int_equal(pivoted_rank(G2, nreg), rank);
    free(G2);
  } else {
    rank = pivoted_rank(G, nreg);
  }
  assert_int_equal(rank, b.nbase);
  free(Y), free(buf);
  mbg_base_params_free(&b);
}

static void test_random_trees(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 6; seed++) {
    mbt_tree *t = mbt_randtree(seed, 4 + (int)seed, (int)(seed % 2));
    check_identity(&t->model);
    mbt_tree_free(t);
  }
  mbt_tree *t = planar_arm(-9.81);
  check_identity(&t->model);
  mbt_tree_free(t);
}

static void check_robot(const char *rel, int floating) {
  mbt_robot r;
  mbt_robot_open(&r, rel, floating);
  check_identity(&r.rt.model);
  mbt_robot_close(&r);
}

static void test_robots(void **state) {
  (void)state;
  check_robot("examples/arm7.mbd", 0);
  check_robot("examples/urdf/ur5.urdf", 0);
  check_robot("examples/gimbal.mbd", 0);
}

/* 1 if the example robot `stem` has a floating base (examples/urdf/floating_base.txt). */
static int floating_example(const char *src, const char *stem) {
  char path[1024], line[256];
  snprintf(path, sizeof path, "%s/examples/urdf/floating_base.txt", src);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    line[strcspn(line, " \t\r\n#")] = '\0';
    found = strcmp(line, stem) == 0;
  }
  fclose(f);
  return found;
}

/* The identity and the rank on every rigid example and robot of the source tree (the flexible
 * ones have no base parameters; the loops' tree is the open one's). */
static void test_every_example(void **state) {
  (void)state;
  const char *src = getenv("MBDC_SOURCE_DIR");
  assert_non_null(src);
  static const char *const dirs[] = {"examples", "examples/urdf"};
  int n = 0;
  for (int k = 0; k < 2; k++) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", src, dirs[k]);
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      const char *ext = strrchr(e->d_name, '.');
      if (!ext || (strcmp(ext, ".mbd") != 0 && strcmp(ext, ".urdf") != 0)) continue;
      char rel[512], stem[256];
      snprintf(rel, sizeof rel, "%s/%s", dirs[k], e->d_name);
      snprintf(stem, sizeof stem, "%.*s", (int)(ext - e->d_name), e->d_name);
      mbt_robot r;
      mbt_robot_open(&r, rel, k == 1 && floating_example(src, stem));
      if (mb_flex_count(&r.rt.model, 0) == 0) check_identity(&r.rt.model), n++;
      mbt_robot_close(&r);
    }
    closedir(d);
  }
  assert_true(n >= 15); /* the 11 rigid examples and the 7 robots */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_analytic_counts),
      cmocka_unit_test(test_planar_grouping),
      cmocka_unit_test(test_random_trees),
      cmocka_unit_test(test_robots),
      cmocka_unit_test(test_every_example),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
