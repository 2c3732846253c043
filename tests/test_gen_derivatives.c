/* test_gen_derivatives.c — the generated derivatives (templates/lib/derivatives.lua), their
 * expression graphs evaluated numerically (mbg_sym_eval), against the generated functions they
 * differentiate, in the same generation:
 *   ∂τ/∂q, ∂τ/∂v    central differences of the generated rnea, q stepped along the tangent space
 *                    (mb_integrate: a quaternion turns in its child frame), 1e-6 relative;
 *   ∂τ/∂a = M       differences of rnea in a (linear: exact but for rounding), 1e-9;
 *   ∂q̈/∂q, ∂q̈/∂v    central differences of the generated aba, 1e-6;
 *   ∂q̈/∂τ = M⁻¹     differences of aba in τ (linear), 1e-9;
 *   ∂q̈/∂x = −M⁻¹ ∂τ/∂x at q̈ = aba(q, v, τ), from the generated rnea_derivatives, 1e-9;
 * on seeded random trees of every shape and joint type (fixed and floating bases) and on every
 * rigid example and robot; a model with flexible bodies is refused. */
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
#include "mbg_examples.h"
#include "mbg_randmodel.h"
#include "mbg_testmodel.h"

enum { MAXV = 64 };

typedef struct dstate {
  double q[MAXV], v[MAXV], a[MAXV], tau[MAXV];
} dstate;

static double input(void *ctx, const char *array, int index) {
  const dstate *s = ctx;
  if (strcmp(array, "q") == 0) return s->q[index];
  if (strcmp(array, "v") == 0) return s->v[index];
  if (strcmp(array, "a") == 0) return s->a[index];
  if (strcmp(array, "tau") == 0) return s->tau[index];
  fail_msg("unknown input array %s", array);
  return 0;
}

static const mbg_gen_function *find(const mbg_gen *g, const char *name) {
  for (int k = 0; k < g->nfunctions; k++)
    if (strcmp(g->functions[k].name, name) == 0) return &g->functions[k];
  fail_msg("%s was not generated", name);
  return NULL;
}

/* The output array `array` of function `name` at s into out. */
static void eval(const mbg_gen *g, const char *name, const dstate *s, const char *array,
                 double *out) {
  mbgt_eval_outputs(find(g, name)->sym, input, (void *)s, array, out);
}

/* y(s) of the function differentiated: rnea's τ (x = a) or aba's q̈ (x = tau) */
static void value(const mbg_gen *g, int aba, const dstate *s, double *y) {
  eval(g, aba ? "aba" : "rnea", s, aba ? "qdd" : "tau", y);
}

/* Column k of the derivative of y in q (what 0, central, tangent step h), v (1, central) or x
 * (2: y is affine in x, so y(x + e_k) − y(x)). */
static void difference(const mbg_gen *g, int aba, const dstate *s, int what, int k, double *col) {
  const mb_model *m = &g->rt.model;
  int n = m->nv;
  double e[MAXV] = {0}, yp[MAXV], ym[MAXV], h = 1e-5;
  dstate p = *s, q = *s;
  e[k] = 1.0;
  if (what == 0) {
    assert_int_equal(mb_integrate(m, s->q, e, h, p.q), MB_OK);
    assert_int_equal(mb_integrate(m, s->q, e, -h, q.q), MB_OK);
  } else if (what == 1) {
    p.v[k] += h, q.v[k] -= h;
  } else {
    double *x = aba ? p.tau : p.a;
    x[k] += 1.0, h = 0.5;
  }
  value(g, aba, &p, yp);
  value(g, aba, &q, ym);
  for (int l = 0; l < n; l++) col[l] = (yp[l] - ym[l]) / (2 * h);
}

/* D (nv × nv row-major) column by column against the differences, tol relative to max(|D|, 1). */
static void against(const mbg_gen *g, int aba, const dstate *s, int what, const double *D,
                    double tol, const char *name, const char *where) {
  int n = g->rt.model.nv;
  double col[MAXV], got[MAXV];
  double scale = fmax(mbt_max_abs(D, (size_t)n * (size_t)n), 1.0);
  for (int k = 0; k < n; k++) {
    difference(g, aba, s, what, k, col);
    for (int l = 0; l < n; l++) got[l] = D[l * n + k];
    size_t w;
    double err = mbt_max_diff(got, col, (size_t)n, &w);
    if (!(err <= tol * scale))
      fail_msg("%s: %s column %d: |generated - differences| = %.3e > %.1e x %.3e at row %zu: "
               "%.17g vs %.17g", where, name, k, err, tol, scale, w, got[w], col[w]);
  }
}

/* X = −Minv X (n × n; T: n × n scratch), as the epilogue minus_minv_product. */
static void minus_minv(int n, const double *Minv, double *X, double *T) {
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++) {
      double x = 0.0;
      for (int l = 0; l < n; l++) x -= Minv[r * n + l] * X[l * n + c];
      T[r * n + c] = x;
    }
  memcpy(X, T, (size_t)n * (size_t)n * sizeof *X);
}

static void random_state(mbt_rng *rng, const mb_model *m, dstate *s) {
  mbt_rand_q(rng, m, s->q);
  mbt_rand_vec(rng, m->nv, -1, 1, s->v);
  mbt_rand_vec(rng, m->nv, -1, 1, s->a);
  mbt_rand_vec(rng, m->nv, -1, 1, s->tau);
}

/* Every check above at nstates random states of g's model. */
static void check(const mbg_gen *g, int nstates, uint64_t seed, const char *where) {
  const mb_model *m = &g->rt.model;
  int n = m->nv;
  size_t n2 = (size_t)n * (size_t)n;
  assert_true(n <= MAXV && m->nq <= MAXV);
  double *D = malloc(6 * n2 * sizeof *D), *Dv = D + n2, *M = Dv + n2, *P = M + n2;
  double *Pv = P + n2, *Mi = Pv + n2;
  mbt_rng rng;
  mbt_rng_seed(&rng, seed);
  for (int k = 0; k < nstates; k++) {
    dstate s;
    random_state(&rng, m, &s);
    eval(g, "rnea_derivatives", &s, "dtau_dq", D);
    eval(g, "rnea_derivatives", &s, "dtau_dv", Dv);
    eval(g, "rnea_derivatives", &s, "M", M);
    against(g, 0, &s, 0, D, 1e-6, "dtau_dq", where);
    against(g, 0, &s, 1, Dv, 1e-6, "dtau_dv", where);
    against(g, 0, &s, 2, M, 1e-9, "M = dtau_da", where);
    eval(g, "aba_derivatives", &s, "dqdd_dq", P);
    eval(g, "aba_derivatives", &s, "dqdd_dv", Pv);
    eval(g, "aba_derivatives", &s, "Minv", Mi);
    /* its epilogue (templates/c/source.lua): dqdd_dx = −Minv dqdd_dx, the graph's ∂τ/∂x */
    assert_string_equal(find(g, "aba_derivatives")->epilogue, "minus_minv_product");
    minus_minv(n, Mi, P, M);
    minus_minv(n, Mi, Pv, M);
    against(g, 1, &s, 0, P, 1e-6, "dqdd_dq", where);
    against(g, 1, &s, 1, Pv, 1e-6, "dqdd_dv", where);
    against(g, 1, &s, 2, Mi, 1e-9, "Minv = dqdd_dtau", where);
    /* −M⁻¹ ∂τ/∂x at q̈ */
    dstate t = s;
    value(g, 1, &s, t.a);
    eval(g, "rnea_derivatives", &t, "dtau_dq", D);
    eval(g, "rnea_derivatives", &t, "dtau_dv", Dv);
    for (int pass = 0; pass < 2; pass++) {
      const double *T = pass ? Dv : D, *G = pass ? Pv : P;
      double *R = M;
      for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
          double x = 0.0;
          for (int l = 0; l < n; l++) x -= Mi[r * n + l] * T[l * n + c];
          R[r * n + c] = x;
        }
      size_t w;
      double err = mbt_max_diff(G, R, n2, &w), scale = fmax(mbt_max_abs(R, n2), 1.0);
      if (!(err <= 1e-9 * scale))
        fail_msg("%s: %s != -Minv dtau at [%zu]: %.17g vs %.17g", where,
                 pass ? "dqdd_dv" : "dqdd_dq", w, G[w], R[w]);
    }
  }
  free(D);
}

static const char functions[] = "rnea,aba,rnea_derivatives,aba_derivatives";

/* Generate the four functions for m (taken) or path; 0, or the generator's status; *flexible: the
 * model has flexible bodies. */
static int generate(mbg_gen *g, mbg_model *m, const char *path, int floating, int *flexible) {
  mbg_gen_opts o = {.model_path = path, .functions = functions, .floating_base = floating,
                    .quiet = 1};
  FILE *err = tmpfile();
  int rc = m ? mbg_gen_open_model(g, &o, m, "", 0, err) : mbg_gen_open(g, &o, err);
  g->keep_sym = 1;
  *flexible = rc == 0 && g->rt.model.flex != NULL;
  if (rc == 0) rc = mbg_gen_run(g, err);
  fclose(err);
  return rc;
}

static void random_trees(void **state) {
  (void)state;
  static const char *shapes[] = {"random", "chain", "bushy", "deep"};
  mbt_rng rng;
  for (int seed = 1; seed <= 16; seed++) {
    mbt_rng_seed(&rng, (uint64_t)(7000 + seed));
    int shape = seed % 4, n = 1 + (seed * 7) % 12, floating = seed % 2 == 0;
    char what[96];
    snprintf(what, sizeof what, "%s tree seed %d (%d bodies%s)", shapes[shape], seed, n,
             floating ? ", floating base" : "");
    mbg_gen g;
    int flexible;
    if (generate(&g, mbgt_random_model(&rng, n, shape, floating), what, 0, &flexible) != 0)
      fail_msg("%s: generation failed", what);
    check(&g, 2, (uint64_t)seed, what);
    mbg_gen_close(&g);
  }
}

/* One example (mbgt_each_example): checked at one state, or refused with exit 1 when flexible;
 * ctx counts the refusals. */
static void example(const char *path, int floating, void *ctx) {
  int *refused = ctx, flexible;
  mbg_gen g;
  int rc = generate(&g, NULL, path, floating, &flexible);
  if (flexible) {
    if (rc != 1) fail_msg("%s: a flexible model: exit %d, not 1", path, rc);
    ++*refused;
  } else {
    if (rc != 0) fail_msg("%s: generation failed (%d)", path, rc);
    check(&g, 1, (uint64_t)strlen(path), path);
  }
  mbg_gen_close(&g);
}

/* Every example and robot (the floating bases of examples/urdf/floating_base.txt); flexible
 * models refused with exit 1. */
static void example_models(void **state) {
  (void)state;
  int refused = 0;
  assert_true(mbgt_each_example(example, &refused) >= 15);
  assert_true(refused >= 3); /* the flexible examples */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(random_trees),
      cmocka_unit_test(example_models),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
