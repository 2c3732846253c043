/* test_sizes.c — models at scale. Sizes that do not fit an int (docs/runtime.md, "Sizes"):
 * products of two sizes (nv², 6 nv (nb + 1), nc²) overflow an int from nv = 46341, so the runtime
 * computes them in size_t and rejects models it cannot index, and the generator refuses, with a
 * clear error, models whose arrays the generated code cannot index. References: the arithmetic
 * of the sizes, written out here; the messages' text. And the readers' time on many errors: a
 * did-you-mean search per unknown name made it quadratic (a bound far above the linear time). */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "emit/generate.h"
#include "load/load.h"
#include "mb.h"

/* A runtime model of nb bodies, every joint `type` on the world (arrays only; nothing is run). */
typedef struct star {
  mb_model model;
  int *parent, *iq, *iv;
  mb_joint_type *jtype;
  double *XT_E, *XT_r, *axis, *pitch, *inertia;
} star;

static star *star_new(int nb, mb_joint_type type) {
  star *s = calloc(1, sizeof *s);
  size_t n = (size_t)nb + 1;
  assert_non_null(s);
  s->parent = calloc(n, sizeof *s->parent), s->iq = calloc(n, sizeof *s->iq);
  s->iv = calloc(n, sizeof *s->iv), s->jtype = calloc(n, sizeof *s->jtype);
  s->XT_E = calloc(9 * n, sizeof(double)), s->XT_r = calloc(3 * n, sizeof(double));
  s->axis = calloc(3 * n, sizeof(double)), s->pitch = calloc(n, sizeof(double));
  s->inertia = calloc(10 * n, sizeof(double));
  assert_true(s->parent && s->iq && s->iv && s->jtype && s->XT_E && s->XT_r && s->axis &&
              s->pitch && s->inertia);
  int nq = 0, nv = 0;
  s->parent[0] = -1;
  for (int i = 1; i <= nb; i++) {
    s->jtype[i] = type, s->iq[i] = nq, s->iv[i] = nv;
    nq += mb_joint_nq(type), nv += mb_joint_nv(type);
    for (int k = 0; k < 9; k += 4) s->XT_E[9 * i + k] = 1.0;
    s->axis[3 * i + 2] = 1.0;
    double *I = s->inertia + 10 * i;
    I[0] = 1.0, I[4] = I[5] = I[6] = 0.1;
  }
  s->model = (mb_model){nb,        nq,       nv,      s->parent, s->jtype, s->iq,
                        s->iv,     s->XT_E,  s->XT_r, s->axis,   s->pitch, s->inertia,
                        {0, 0, -9.81}, NULL, NULL, NULL};
  return s;
}

static void star_free(star *s) {
  free(s->parent), free(s->iq), free(s->iv), free(s->jtype), free(s->XT_E), free(s->XT_r);
  free(s->axis), free(s->pitch), free(s->inertia), free(s);
}

/* 8000 floating bodies: nv = 48000, nv² = 2.304e9 > INT_MAX. The workspace size is exact: every
 * array of MB_WORKSPACE_ARRAYS, in doubles, counted here by hand. */
static void runtime_workspace_beyond_int(void **state) {
  (void)state;
  star *s = star_new(8000, MB_JOINT_FLOATING);
  char msg[200];
  if (mb_model_check(&s->model, msg, sizeof msg)) fail_msg("%s", msg);
  size_t nb1 = 8001, nv = 48000, nc = 0; /* a floating joint leaves no constraint unknown */
  size_t per_body = 9 + 3 + 6 + 6 + 6 + 10 + 9 + 3 + 36 + 36 + 6 + 6 + 1 + 1 + 12 + 6 + 6 + 6 + 6 + 4 +
                    36 + 36 + 18; /* the derivatives' dI, dB, dF */
  size_t per_dof = 6 + 1 + 1 + 6 + 6 + 1 + 1 + 1 + 24 + 2; /* the derivatives' dS, dx */
  size_t doubles = per_body * nb1 + per_dof * nv + nv * nv + 6 * nv * nb1 + nc * nc;
  assert_true(mb_workspace_size(&s->model) == doubles * sizeof(double));
  assert_true(mb_workspace_size(&s->model) > (size_t)INT_MAX * 8);
  star_free(s);
}

/* More bodies than an int holds the offsets of: rejected with the reason; no workspace size. */
static void runtime_too_many_bodies(void **state) {
  (void)state;
  star *s = star_new(1, MB_JOINT_REVOLUTE);
  char msg[200];
  for (int k = 0; k < 2; k++) {
    s->model.nb = k == 0 ? MB_MAX_BODIES + 1 : INT_MAX; /* the arrays are never read that far */
    assert_int_equal(mb_model_check(&s->model, msg, sizeof msg), -1);
    if (!strstr(msg, "bodies, more than")) fail_msg("message: %s", msg);
    assert_true(mb_workspace_size(&s->model) == SIZE_MAX);
  }
  s->model.nb = 1, s->model.nv = INT_MAX; /* nv beyond what the bodies can have */
  assert_int_equal(mb_model_check(&s->model, msg, sizeof msg), -1);
  assert_true(mb_workspace_size(&s->model) == SIZE_MAX);
  star_free(s);
}

/* A .mbd of n floating bodies on the world. */
static char *floating_star(int n, size_t *len) {
  char *text = NULL;
  FILE *f = open_memstream(&text, len);
  assert_non_null(f);
  fprintf(f, "model star;\n");
  for (int i = 0; i < n; i++) fprintf(f, "body b%d { mass 1; inertia 1 1 1; }\n", i);
  for (int i = 0; i < n; i++) fprintf(f, "joint j%d floating world -> b%d;\n", i, i);
  assert_int_equal(fclose(f), 0);
  return text;
}

/* nv = 46344 (7724 floating bodies): an nv × nv matrix has 2.15e9 entries, past INT_MAX. The
 * generator refuses at once, before any recipe runs (it used to compute the size in an int). */
static void generator_refuses_beyond_int(void **state) {
  (void)state;
  size_t len = 0;
  char *text = floating_star(7724, &len), *msgs = NULL;
  size_t mlen = 0;
  FILE *err = open_memstream(&msgs, &mlen);
  int errors, warnings;
  mbg_model *m = mbg_model_from_text("star.mbd", text, len, err, &errors, &warnings);
  assert_non_null(m);
  mbg_gen g;
  mbg_gen_opts o = {.model_path = "star.mbd", .functions = "crba"};
  int rc = mbg_gen_open_model(&g, &o, m, text, len, err);
  mbg_gen_close(&g);
  assert_int_equal(fclose(err), 0);
  assert_int_equal(rc, 1);
  if (!strstr(msgs, "star.mbd: error: the model is too large to generate: nv = 46344"))
    fail_msg("message: %s", msgs);
  free(msgs);
  free(text);
}

/* 10000 bodies and 30000 references to names that do not exist, in a .mbd and a URDF: 30000
 * errors, 50 printed. Each searched all names for a did-you-mean (40 s for each file); only the
 * printed ones do now. */
static void many_unknown_names_time(void **state) {
  (void)state;
  for (int urdf = 0; urdf <= 1; urdf++) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    fprintf(f, urdf ? "<robot name=\"r\">\n" : "model r;\n");
    for (int i = 0; i < 10000; i++)
      fprintf(f, urdf ? "<link name=\"link%05d\"/>\n" : "body link%05d { mass 1; }\n", i);
    for (int i = 0; i < 30000; i++)
      fprintf(f,
              urdf ? "<joint name=\"j%d\" type=\"fixed\"><parent link=\"link00000\"/>"
                     "<child link=\"lunk%05d\"/></joint>\n"
                   : "joint j%d fixed link00000 -> lunk%05d;\n",
              i, i % 10000);
    if (urdf) fprintf(f, "</robot>\n");
    assert_int_equal(fclose(f), 0);
    FILE *sink = fopen("/dev/null", "w");
    int errors, warnings;
    mbg_load_opts o = {.floating_base = 0};
    clock_t t0 = clock();
    mbg_model *m = mbg_model_from_source(urdf ? "t.urdf" : "t.mbd", text, len, &o, sink, &errors,
                                         &warnings);
    double seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
    fclose(sink);
    free(text);
    assert_null(m);
    assert_int_equal(errors, 30000);
    if (seconds > 10.0)
      fail_msg("%s: 30000 unknown names took %.1f s", urdf ? "URDF" : ".mbd", seconds);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(runtime_workspace_beyond_int),
      cmocka_unit_test(runtime_too_many_bodies),
      cmocka_unit_test(generator_refuses_beyond_int),
      cmocka_unit_test(many_unknown_names_time),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
