/* hostile_model.c — a random model with hostile names, as .mbd text, for the property test of
 * the emitted C (names_property_test.sh).
 *
 * usage: hostile_model SEED INDEX FILE.mbd
 * writes the model and prints the extra options of `mbdc generate` (a --prefix, or nothing).
 *
 * The tree is random (1..6 bodies, every joint type, parents anywhere before, random placements
 * and physically consistent inertias); every name is one the model language accepts, drawn
 * from: identifiers of the maximal length (63), names of libm and libc (exp, fabs, printf, ...)
 * and of their macros (M_PI, HUGE_VAL, FLT_MAX, ...), names the generated files use (q, tau, M,
 * pivot, k, t0, NQ, the harness's helpers and locals, the model data's arrays), names shaped like
 * the generated temporaries (v_x_0, IA_b_3), C++ and C23 keywords, '_' and '_' + lower case, and
 * names equal to the model's own macros (the prefix in capitals and _NQ). The model's name (the
 * prefix) comes from the same pool where it is a legal prefix; one model in four gets a
 * 63-character --prefix instead. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/mbd_write.h"
#include "emit/gen_names.h"
#include "mb_randtree.h"
#include "model/build.h"
#include "model/names.h"

static const char *const pool[] = {
  /* libm, libc */
  "exp", "expf", "log", "pow", "fabs", "tan", "atan2", "floor", "ceil", "fmod", "hypot",
  "sqrtf", "sinf", "cosf", "fma", "round", "trunc", "nan", "erf", "tgamma", "lgamma", "j0", "y0",
  "printf", "malloc", "free", "exit", "abs", "div", "rand", "errno", "stdin", "stdout", "FILE",
  "EOF", "size_t", "assert", "memcpy", "strlen", "isnan", "isinf", "signbit",
  /* their macros */
  "INFINITY", "NAN", "HUGE_VAL", "M_PI", "M_SQRT1_2", "M_E", "FP_NAN", "FLT_MAX", "DBL_EPSILON",
  "RAND_MAX", "EXIT_FAILURE", "SEEK_SET", "BUFSIZ",
  /* the generated files' parameters, locals, macros and arrays */
  "q", "v", "a", "tau", "M", "Minv", "fext", "wrench", "pose", "qdd", "pivot", "k", "t0", "t1",
  "t12", "n_x", "NQ", "NV", "NB", "NJ", "NSTATES", "SEED", "TOLERANCE", "uniform", "compare",
  "result", "results", "randquat", "randstate", "togen", "real", "gen_t", "random_quat",
  "random_state", "to_gen", "ref", "ref2", "out", "out2", "ws", "wsbuf", "buffer", "msg", "seed",
  "state", "rc", "grc", "big", "failed", "worst", "gq", "gv", "ga", "gtau", "gfext", "parent",
  "jtype", "iq", "iv", "XTE", "XTr", "XT_E", "XT_r", "inertia_", "axis_", "HAVE_RNEA",
  "SET_ID", "DYNAMICS_H",
  /* shaped like temporaries */
  "v_x_0", "IA_b_3", "D_link_0", "L_0_1", "A_b_x_0", "pA_y_1", "x_0", "x_0_1",
  /* keywords of C++ and C23 (not of C99) */
  "class", "new", "delete", "this", "template", "namespace", "operator", "private", "virtual",
  "alignas", "alignof", "static_assert", "thread_local", "nullptr", "constexpr", "and", "or",
  "not", "xor",
  /* underscores */
  "_", "_x", "_0", "_9lives", "x_", "a__b",
};
enum { NPOOL = sizeof pool / sizeof *pool };

static mbt_rng rng;
static int irand(int n) { return mbt_randint(&rng, 0, n - 1); }
static double urand(double lo, double hi) { return mbt_uniform(&rng, lo, hi); }

/* A random identifier of n characters the model language accepts. */
static void long_name(char *out, int n) {
  static const char first[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  static const char rest[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
  out[0] = first[irand((int)sizeof first - 1)];
  for (int k = 1; k < n; k++) out[k] = rest[irand((int)sizeof rest - 1)];
  out[n] = '\0';
}

static int legal(const char *name) {
  const char *why;
  return mbg_valid_c_name(name, &why) && !mbg_is_mbd_keyword(name) && strcmp(name, "world") != 0;
}

/* A fresh legal name (not in taken[0..n)) into out[64]. */
static void fresh_name(char *out, char (*taken)[64], int n, const char *macros) {
  for (;;) {
    int kind = irand(8);
    if (kind == 0) long_name(out, 63);
    else if (kind == 1) long_name(out, 1 + irand(62));
    else if (kind == 2 && macros) snprintf(out, 64, "%s", macros);
    else snprintf(out, 64, "%s", pool[irand(NPOOL)]);
    int clash = !legal(out);
    for (int k = 0; !clash && k < n; k++) clash = strcmp(out, taken[k]) == 0;
    if (!clash) return;
  }
}

int main(int argc, char **argv) {
  if (argc != 4) return fprintf(stderr, "usage: hostile_model SEED INDEX FILE.mbd\n"), 2;
  /* seeds s and s + 1 of mbt_rng_seed give the same stream shifted by one draw: mix the model's
   * index in with splitmix64's finalizer instead */
  uint64_t z = strtoull(argv[1], NULL, 10) * 0x9E3779B97F4A7C15ull ^ strtoull(argv[2], NULL, 10);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  rng.s = z ^ (z >> 31);
  char model[64], why[160], upper[80], prefix[64] = "";
  do fresh_name(model, NULL, 0, NULL);
  while (!mbg_gen_prefix_ok(model, why, sizeof why));
  if (irand(4) == 0) {
    do long_name(prefix, 63);
    while (!mbg_gen_prefix_ok(prefix, why, sizeof why));
  }
  /* the model's own macros as names: PREFIX_NQ (and PREFIX alone) */
  const char *P = *prefix ? prefix : model;
  size_t k = 0;
  for (; P[k] && k < 60; k++) upper[k] = (char)(P[k] >= 'a' && P[k] <= 'z' ? P[k] - 32 : P[k]);
  snprintf(upper + k, sizeof upper - k, "%s", irand(2) ? "_NQ" : "");
  if (strlen(upper) > 63) upper[63] = '\0';

  static const mbg_joint_type types[] = {MBG_JOINT_REVOLUTE,  MBG_JOINT_CONTINUOUS,
                                         MBG_JOINT_PRISMATIC, MBG_JOINT_HELICAL,
                                         MBG_JOINT_SPHERICAL, MBG_JOINT_FIXED};
  mbg_model *m = mbg_model_new(model, "");
  int n = 1 + irand(6), ntaken = 0;
  char taken[16][64];
  mbg_loc none = {0, 0, 0};
  for (int b = 1; b <= n; b++) {
    fresh_name(taken[ntaken], taken, ntaken, upper);
    int i = mbg_model_add_body(m, taken[ntaken++], none);
    mbg_body *B = &m->bodies[i];
    double p[3];
    for (int c = 0; c < 3; c++) p[c] = urand(0.02, 0.3); /* principal parts: a valid tensor */
    B->mass = urand(0.2, 3);
    B->inertia[0] = p[1] + p[2], B->inertia[1] = p[0] + p[2], B->inertia[2] = p[0] + p[1];
    for (int c = 0; c < 3; c++) B->com[c] = urand(-0.3, 0.3);
    fresh_name(taken[ntaken], taken, ntaken, upper);
    int j = mbg_model_add_joint(m, taken[ntaken++], none);
    mbg_joint *J = &m->joints[j];
    J->type = b == 1 && irand(3) == 0 ? MBG_JOINT_FLOATING : types[irand(6)];
    if (b == n && J->type == MBG_JOINT_FIXED) J->type = MBG_JOINT_REVOLUTE;
    J->parent = irand(b);
    J->child = i;
    for (int c = 0; c < 3; c++) J->xyz[c] = urand(-0.5, 0.5), J->rpy[c] = urand(-3, 3);
    J->axis[0] = J->axis[1] = J->axis[2] = 0;
    if (irand(2)) {
      J->axis[irand(3)] = irand(2) ? 1.0 : -1.0;
    } else {
      mbt_unit3(&rng, J->axis);
    }
    J->pitch = J->type == MBG_JOINT_HELICAL ? urand(-0.1, 0.1) : 0;
    J->node = -1;
  }
  m->gravity[0] = 0, m->gravity[1] = 0, m->gravity[2] = -9.81;
  FILE *f = fopen(argv[3], "w");
  if (!f || mbg_mbd_write(f, m, "hostile_model") != 0 || fclose(f) != 0)
    return fprintf(stderr, "hostile_model: cannot write %s\n", argv[3]), 2;
  if (*prefix) printf("--prefix %s\n", prefix);
  mbg_model_free(m);
  return 0;
}
