/* test_gen_manifold.c — the generated integrate_jacobians and difference_jacobians
 * (templates/lib/manifold.lua), their expression graphs evaluated numerically (mbg_sym_eval),
 * against the runtime's mb_integrate_jacobians and mb_difference_jacobians (which
 * test_manifold_jacobians checks against differences and the adjoint series), 1e-12 relative, at
 * rotations of about 3 rad, 0.3 rad, 1e-9 rad (where the graph's branch-free choice must take the
 * Taylor series: the closed forms would be wrong there by about 1e-7), on both sides of the switch
 * at 0.5 rad, and near π for the difference; on seeded random trees of every joint type (fixed and
 * floating bases) and on a floating flexible spacecraft (modal coordinates). The compiled harness
 * (tests/matrix.txt, manifold_*) compares the same at its random states only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/generate.h"
#include "mb.h"
#include "mb_randtree.h"
#include "mb_testutil.h"
#include "mbg_randmodel.h"
#include "mbg_testmodel.h"

enum { MAXQ = 96, MAXV = 80 };

typedef struct mstate {
  double q[MAXQ], q1[MAXQ], v[MAXV], dt;
} mstate;

static double input(void *ctx, const char *array, int index) {
  const mstate *s = ctx;
  if (strcmp(array, "q") == 0 || strcmp(array, "q0") == 0) return s->q[index];
  if (strcmp(array, "q1") == 0) return s->q1[index];
  if (strcmp(array, "v") == 0) return s->v[index];
  if (strcmp(array, "dt") == 0) return assert_int_equal(index, MBG_SYM_SCALAR), s->dt;
  fail_msg("unknown input array %s", array);
  return 0;
}

static const mbg_gen_function *find(const mbg_gen *g, const char *name) {
  for (int k = 0; k < g->nfunctions; k++)
    if (strcmp(g->functions[k].name, name) == 0) return &g->functions[k];
  fail_msg("%s was not generated", name);
  return NULL;
}

static void expect(const double *got, const double *want, int n, const char *what,
                   const char *name, const char *where) {
  size_t w;
  double err = mbt_max_diff(got, want, (size_t)n, &w), scale = mbt_max_abs(want, (size_t)n);
  if (!(err <= 1e-12 * fmax(scale, 1.0)))
    fail_msg("%s: %s.%s: |generated - runtime| = %.3e (scale %.3e) at [%zu]: %.17g vs %.17g",
             where, name, what, err, scale, w, got[w], want[w]);
}

/* Every rotation vector of m (spherical, floating, planar) in v made of length len / dt. */
static void set_angles(const mb_model *m, double *v, double len, double dt) {
  for (int i = 1; i <= m->nb; i++) {
    mb_joint_type t = m->jtype[i];
    if (t != MB_JOINT_SPHERICAL && t != MB_JOINT_FLOATING && t != MB_JOINT_PLANAR) continue;
    double *phi = v + m->iv[i] + (t == MB_JOINT_FLOATING ? 3 : t == MB_JOINT_PLANAR ? 2 : 0);
    int n = t == MB_JOINT_PLANAR ? 1 : 3;
    double s = 0;
    for (int k = 0; k < n; k++) s += phi[k] * phi[k];
    for (int k = 0; k < n; k++) phi[k] *= len / (dt * sqrt(s));
  }
}

/* The rotation lengths compared: large, moderate, tiny, either side of the switch at 0.5, and
 * near π (the difference's far end). */
static const double LENGTHS[6] = {2.9, 0.3, 1e-9, 0.5 - 1e-9, 0.5 + 1e-9, MBT_PI - 1e-3};

static void check(const mbg_gen *g, uint64_t seed, const char *where) {
  const mb_model *m = &g->rt.model;
  const mbg_gen_function *fi = find(g, "integrate_jacobians");
  const mbg_gen_function *fd = find(g, "difference_jacobians");
  int n2 = m->nv * m->nv;
  double *buf = malloc(sizeof(double) * 4 * (size_t)n2), *got = buf + n2, *r0 = got + n2;
  double *r1 = r0 + n2;
  mbt_rng rng;
  mbt_rng_seed(&rng, seed);
  assert_true(buf && m->nq <= MAXQ && m->nv <= MAXV);
  for (int l = 0; l < 6; l++) {
    mstate s = {.dt = 0.7};
    mbt_rand_vec(&rng, m->nq, -0.1, 0.1, s.q); /* modal coordinates */
    mbt_rand_q(&rng, m, s.q);
    mbt_rand_vec(&rng, m->nv, -1, 1, s.v);
    set_angles(m, s.v, LENGTHS[l], s.dt);
    assert_int_equal(mb_integrate_jacobians(m, s.q, s.v, s.dt, r0, r1), MB_OK);
    mbgt_eval_outputs(fi->sym, input, &s, "Jq", got);
    expect(got, r0, n2, "Jq", fi->name, where);
    mbgt_eval_outputs(fi->sym, input, &s, "Jv", got);
    expect(got, r1, n2, "Jv", fi->name, where);
    assert_int_equal(mb_integrate(m, s.q, s.v, s.dt, s.q1), MB_OK); /* q1 ⊖ q = v dt */
    assert_int_equal(mb_difference_jacobians(m, s.q, s.q1, r0, r1), MB_OK);
    mbgt_eval_outputs(fd->sym, input, &s, "J0", got);
    expect(got, r0, n2, "J0", fd->name, where);
    mbgt_eval_outputs(fd->sym, input, &s, "J1", got);
    expect(got, r1, n2, "J1", fd->name, where);
  }
  free(buf);
}

/* Generate the two functions for m (taken) or path. */
static void generate(mbg_gen *g, mbg_model *m, const char *path, const char *where) {
  mbg_gen_opts o = {.model_path = path, .functions = "integrate_jacobians,difference_jacobians",
                    .quiet = 1};
  FILE *err = tmpfile();
  int rc = m ? mbg_gen_open_model(g, &o, m, "", 0, err) : mbg_gen_open(g, &o, err);
  g->keep_sym = 1;
  if (rc == 0) rc = mbg_gen_run(g, err);
  fclose(err);
  if (rc != 0) fail_msg("%s: generation failed (%d)", where, rc);
}

/* 16 random trees of every joint type (planar and cylindrical included), every shape, a floating
 * root for even seeds. */
static void random_trees(void **state) {
  (void)state;
  mbt_rng rng;
  for (int seed = 1; seed <= 16; seed++) {
    mbt_rng_seed(&rng, (uint64_t)(4700 + seed));
    int shape = seed % 4, n = 2 + (seed * 7) % 11, floating = seed % 2 == 0;
    char what[96];
    snprintf(what, sizeof what, "random tree seed %d (%d bodies%s)", seed, n,
             floating ? ", floating base" : "");
    mbg_gen g;
    generate(&g, mbgt_random_model_all(&rng, n, shape, floating), what, what);
    check(&g, (uint64_t)seed, what);
    mbg_gen_close(&g);
  }
}

/* A floating bus with two flexible arrays and a wheel: SE(3) beside modal coordinates. */
static void flexible_spacecraft(void **state) {
  (void)state;
  const char *src = getenv("MBDC_SOURCE_DIR");
  char path[1200];
  snprintf(path, sizeof path, "%s/examples/flexible_spacecraft.mbd", src ? src : ".");
  mbg_gen g;
  generate(&g, NULL, path, path);
  assert_non_null(g.rt.model.flex);
  check(&g, 99, path);
  mbg_gen_close(&g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(random_trees),
      cmocka_unit_test(flexible_spacecraft),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
