/* test_gen_base.c — the generated base_regressor, base_params and joint_regressor
 * (templates/lib/regressors.lua, generator/emit/gen_base.c), their expression graphs evaluated
 * numerically (mbg_sym_eval). References:
 *   - Yb against the runtime's Y (mb_regressor) in the columns the generator kept
 *     (mbg_gen_base_get(g)->col), 1e-10 relative to max |Y|;
 *   - the identity Yb β = Y π with β = base_params(π), for random π in [-1, 1] and states other
 *     than those the set was computed from (Y: mb_regressor), 1e-9 relative to max |Y π| (the
 *     selection keeps columns whose residual exceeds 1e-8 of unit columns; K comes out exact to
 *     about 1e-13 on these models);
 *   - the rank: the stacked Yb over fresh states has rank P_NBASE, counted as the eigenvalues of
 *     its Gram matrix above 1e-12 of the largest (Jacobi rotations, as test_base_params);
 *   - joint_regressor against mb_joint_regressor, exactly (the same operations: v / fmax(|v|,
 *     1e-3), |v| = fmax(v, −v)), at random states and at velocities 0, ±1e-4, ±1e-3, ±2e-3;
 * on seeded random trees of every joint type (fixed and floating bases), a model with loop
 * joints (the open tree's set), the UR5 and Panda arms and the simple humanoid on a floating
 * base. A flexible model and one with more than MBG_BASE_MAX_PARAMS standard parameters are
 * refused with exit 1 and a message that says why, and joint_regressor for a model without a
 * joint of one velocity coordinate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/gen_base.h"
#include "emit/generate.h"
#include "mb.h"
#include "mb_randtree.h"
#include "mb_testutil.h"
#include "mbg_randmodel.h"
#include "mbg_testmodel.h"

enum { MAXV = 64, MAXREG = 600 };

typedef struct bstate {
  double q[MAXV], v[MAXV], a[MAXV], pi[MAXREG];
} bstate;

static double input(void *ctx, const char *array, int index) {
  const bstate *s = ctx;
  if (strcmp(array, "q") == 0) return s->q[index];
  if (strcmp(array, "v") == 0) return s->v[index];
  if (strcmp(array, "a") == 0) return s->a[index];
  if (strcmp(array, "pi") == 0) return s->pi[index];
  fail_msg("unknown input array %s", array);
  return 0;
}

static const mbg_gen_function *find(const mbg_gen *g, const char *name) {
  for (int k = 0; k < g->nfunctions; k++)
    if (strcmp(g->functions[k].name, name) == 0) return &g->functions[k];
  fail_msg("%s was not generated", name);
  return NULL;
}

static void eval(const mbg_gen *g, const char *name, const bstate *s, const char *array,
                 double *out) {
  mbgt_eval_outputs(find(g, name)->sym, input, (void *)s, array, out);
}

/* Generate the three functions for m (taken) or path; 0, or the generator's status, with its
 * messages in msg. */
static int generate(mbg_gen *g, mbg_model *m, const char *path, int floating, char *msg,
                    size_t n) {
  mbg_gen_opts o = {.model_path = path, .functions = "base_regressor,base_params,joint_regressor",
                    .floating_base = floating, .quiet = 1};
  FILE *err = tmpfile();
  int rc = m ? mbg_gen_open_model(g, &o, m, "", 0, err) : mbg_gen_open(g, &o, err);
  g->keep_sym = 1;
  if (rc == 0) rc = mbg_gen_run(g, err);
  rewind(err);
  size_t got = fread(msg, 1, n - 1, err);
  msg[got] = '\0';
  fclose(err);
  return rc;
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
        double t = (th >= 0 ? 1 : -1) / (fabs(th) + sqrt(th * th + 1)), c = 1 / sqrt(t * t + 1);
        double s = t * c;
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

/* Yb against Y's kept columns and the identity Yb β = Y π at one state; the Gram matrix of the
 * stacked Yb accumulated into G (nbase × nbase). */
static void check_state(mbg_gen *g, const mbg_base_params *b, const bstate *s, double *Y,
                        double *Yb, double *G, const char *where) {
  const mb_model *m = &g->rt.model;
  int nv = m->nv, nreg = b->nreg, nb = b->nbase;
  mb_workspace ws;
  double *buf = mbt_workspace_new(m, &ws), beta[MAXREG], tau[MAXV], taub[MAXV], want[MAXV];
  assert_int_equal(mb_regressor(m, &ws, s->q, s->v, s->a, Y), MB_OK);
  free(buf);
  eval(g, "base_regressor", s, "Yb", Yb);
  eval(g, "base_params", s, "beta", beta);
  double top = fmax(mbt_max_abs(Y, (size_t)nv * (size_t)nreg), 1e-300);
  for (int r = 0; r < nv; r++)
    for (int k = 0; k < nb; k++) {
      double d = fabs(Yb[r * nb + k] - Y[r * nreg + b->col[k]]);
      if (!(d <= 1e-10 * top))
        fail_msg("%s: Yb[%d][%d] = %.17g, Y's column %d %.17g", where, r, k, Yb[r * nb + k],
                 b->col[k], Y[r * nreg + b->col[k]]);
    }
  for (int r = 0; r < nv; r++) {
    tau[r] = taub[r] = 0.0;
    for (int c = 0; c < nreg; c++) tau[r] += Y[r * nreg + c] * s->pi[c];
    for (int k = 0; k < nb; k++) taub[r] += Yb[r * nb + k] * beta[k];
    want[r] = tau[r];
    for (int i = 0; i < nb; i++)
      for (int j = 0; j < nb; j++) G[i * nb + j] += Yb[r * nb + i] * Yb[r * nb + j];
  }
  double scale = fmax(mbt_max_abs(want, (size_t)nv), 1e-12);
  size_t w;
  double err = mbt_max_diff(taub, want, (size_t)nv, &w);
  if (!(err <= 1e-9 * scale))
    fail_msg("%s: Yb beta - Y pi = %.3e at row %zu (|Y pi| up to %.3e)", where, err, w, scale);
}

/* joint_regressor against mb_joint_regressor at s, exactly. */
static void check_joints(mbg_gen *g, const bstate *s, const char *where) {
  const mb_model *m = &g->rt.model;
  size_t n = (size_t)m->nv * 4 * (size_t)mb_joint_count1(m);
  double *got = malloc((n + 1) * sizeof *got), *want = malloc((n + 1) * sizeof *want);
  assert_int_equal(mb_joint_regressor(m, s->v, s->a, want), MB_OK);
  eval(g, "joint_regressor", s, "Yj", got);
  for (size_t k = 0; k < n; k++)
    if (!(got[k] == want[k]))
      fail_msg("%s: Yj[%zu] = %.17g, runtime %.17g", where, k, got[k], want[k]);
  free(got), free(want);
}

/* Every check at nstates states (at least enough rows for the rank) of g's model. */
static void check(mbg_gen *g, uint64_t seed, const char *where) {
  const mb_model *m = &g->rt.model;
  const mbg_base_params *b = mbg_gen_base_get(g);
  assert_non_null(b);
  int nv = m->nv, nb = b->nbase, nstates = 2 * nb / nv + 3;
  assert_true(nv <= MAXV && m->nq <= MAXV && b->nreg <= MAXREG);
  double *Y = malloc(sizeof *Y * (size_t)nv * (size_t)b->nreg);
  double *Yb = malloc(sizeof *Yb * ((size_t)nv * (size_t)nb + 1));
  double *G = calloc((size_t)nb * (size_t)nb + 1, sizeof *G);
  double *d = malloc(sizeof *d * (size_t)(nb + 1));
  mbt_rng rng;
  mbt_rng_seed(&rng, seed);
  for (int k = 0; k < nstates; k++) {
    bstate s;
    mbt_rand_q(&rng, m, s.q);
    mbt_rand_vec(&rng, nv, -1, 1, s.v);
    mbt_rand_vec(&rng, nv, -1, 1, s.a);
    mbt_rand_vec(&rng, b->nreg, -1, 1, s.pi);
    check_state(g, b, &s, Y, Yb, G, where);
    static const double slow[] = {0.0, 1e-4, -1e-4, 1e-3, -1e-3, 2e-3, -2e-3};
    if (k < 7)
      for (int j = 0; j < nv; j++) s.v[j] = slow[(k + j) % 7]; /* in, at and past the band */
    check_joints(g, &s, where);
  }
  jacobi(G, nb, d);
  double top = 0.0;
  int rank = 0;
  for (int k = 0; k < nb; k++) top = fmax(top, d[k]);
  for (int k = 0; k < nb; k++) rank += d[k] > 1e-12 * top;
  if (rank != nb) fail_msg("%s: the stacked Yb has rank %d, P_NBASE %d", where, rank, nb);
  free(Y), free(Yb), free(G), free(d);
}

static void random_trees(void **state) {
  (void)state;
  mbt_rng rng;
  char msg[4096];
  for (int seed = 1; seed <= 12; seed++) {
    mbt_rng_seed(&rng, (uint64_t)(8100 + seed));
    int shape = seed % 4, n = 1 + (seed * 5) % 11, floating = seed % 3 == 0;
    char what[96];
    snprintf(what, sizeof what, "random tree seed %d (%d bodies%s)", seed, n,
             floating ? ", floating base" : "");
    mbg_gen g;
    if (generate(&g, mbgt_random_model(&rng, n, shape, floating), what, 0, msg, sizeof msg))
      fail_msg("%s: generation failed: %s", what, msg);
    check(&g, (uint64_t)seed, what);
    mbg_gen_close(&g);
  }
}

static void robot(const char *rel, int floating) {
  char path[512], msg[4096];
  const char *src = getenv("MBDC_SOURCE_DIR");
  snprintf(path, sizeof path, "%s/%s", src ? src : ".", rel);
  mbg_gen g;
  if (generate(&g, NULL, path, floating, msg, sizeof msg) != 0)
    fail_msg("%s: generation failed: %s", rel, msg);
  check(&g, 77, rel);
  mbg_gen_close(&g);
}

static void robots(void **state) {
  (void)state;
  robot("examples/urdf/ur5.urdf", 0);
  robot("examples/urdf/panda.urdf", 0);
  robot("examples/urdf/simple_humanoid.urdf", 1);
  robot("examples/gimbal.mbd", 0);
  robot("tests/models/loop_types.mbd", 0); /* loops: the open tree's set */
}

/* A flexible model and one past MBG_BASE_MAX_PARAMS: exit 1, the reason said. */
static void refused(void **state) {
  (void)state;
  char path[512], msg[4096];
  const char *src = getenv("MBDC_SOURCE_DIR");
  snprintf(path, sizeof path, "%s/examples/flexible_arm.mbd", src ? src : ".");
  mbg_gen g;
  assert_int_equal(generate(&g, NULL, path, 0, msg, sizeof msg), 1);
  assert_non_null(strstr(msg, "flexible"));
  mbg_gen_close(&g);
  mbt_rng rng;
  mbt_rng_seed(&rng, 5);
  /* 2.5 times the bodies: the fixed joints among them are merged */
  int n = 5 * MBG_BASE_MAX_PARAMS / MB_NPARAM / 2, rc;
  rc = generate(&g, mbgt_random_model(&rng, n, 1, 0), "big", 0, msg, sizeof msg);
  assert_true(g.topo->nb > MBG_BASE_MAX_PARAMS / MB_NPARAM);
  assert_int_equal(rc, 1);
  assert_non_null(strstr(msg, "at most 600 standard parameters"));
  mbg_gen_close(&g);
  /* a ball-jointed body alone: no joint of one velocity coordinate, joint_regressor refused */
  mbg_model *m = mbg_model_new("ball", "");
  assert_non_null(m);
  mbgt_joint(m, "ball", MBG_JOINT_SPHERICAL, 0, mbgt_body(m, "payload", 1.5));
  assert_int_equal(generate(&g, m, "ball", 0, msg, sizeof msg), 1);
  assert_non_null(strstr(msg, "no joint of one velocity coordinate"));
  mbg_gen_close(&g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(random_trees),
      cmocka_unit_test(robots),
      cmocka_unit_test(refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
