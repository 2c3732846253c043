/* bench_flex.c — forward dynamics of a model with flexible bodies: the generated aba and crba_fd
 * against the runtime's mb_aba and mb_crba_fd, in one process on the same states (docs/flexible.md
 * "Benchmark", docs/benchmarks.md "Flexible bodies"; Jain & Rodriguez, "Recursive Dynamics for
 * Flexible Multibody Systems Using Spatial Operators", JPL Publication 90-26, 1990).
 *
 * Compiled once per model (bench/CMakeLists.txt) with BENCH_PREFIX (the generated code's prefix),
 * BENCH_HEADER (its header) and BENCH_NAME. States: NSTATES random ones, every joint angle in
 * [−π, π), every modal coordinate in [−0.05, 0.05) (a few centimetres of tip deflection for the
 * beam preset), v and τ in [−1, 1).
 *
 * The command line, the measurement and the output lines are bench_harness.h's, each line's label
 * "MODEL FUNC" (callgrind dumps "MODEL FUNC IMPL", for bench/flex.sh), and:
 *   bench_flex_MODEL --run FUNC IMPL N   only N calls of one (function, implementation), no check:
 *                                   for counting the arithmetic under valgrind --tool=lackey
 *                                   (bench/flex.sh: the difference between N and 0 calls)
 *   check MODEL FUNC generated REL_ERR bound B   worst max|gen − runtime| / max|runtime| over the
 *                                   states */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_harness.h"
#include "mb.h"
#include BENCH_HEADER

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define GEN(f) CAT(BENCH_PREFIX, f)
extern const mb_model GEN(model);

#define NSTATES BENCH_NSTATES
#define TOL 1e-10 /* the harness's bound, generated against the runtime */

struct bench {
  const mb_model *m;
  mb_workspace ws;
  int nq, nv;
  double *q, *v, *tau; /* NSTATES states */
  double *out;
  int rc; /* sum of return codes, so they are used */
};

/* Joint angles in [−π, π), modal coordinates in [−0.05, 0.05); v, τ in [−1, 1). Only 1-dof
 * joints: a quaternion would need normalizing (main refuses other joints). */
static void random_state(const mb_model *m, unsigned long long *s, double *q, double *v,
                         double *tau) {
  for (int i = 1; i <= m->nb; i++) {
    double *qi = q + m->iq[i];
    int nj = mb_joint_nq(m->jtype[i]);
    if (nj == 1) qi[0] = bench_uniform(s, -3.14159, 3.14159);
    for (int k = 0; k < mb_body_nm(m, i); k++) qi[nj + k] = bench_uniform(s, -0.05, 0.05);
  }
  for (int k = 0; k < m->nv; k++) v[k] = bench_uniform(s, -1, 1), tau[k] = bench_uniform(s, -1, 1);
}

#define Q(s) (b->q + (s)*b->nq)
#define V(s) (b->v + (s)*b->nv)
#define TAU(s) (b->tau + (s)*b->nv)

/* ---------------------------------------------------------------------------------------------
 * The timed calls, through a pointer (the same cost for both), writing to memory the compiler
 * cannot see through. */
#define NOINLINE __attribute__((noinline))

static NOINLINE void gen_aba(bench *b, int s) { b->rc += GEN(aba)(Q(s), V(s), TAU(s), b->out); }
static NOINLINE void gen_crba_fd(bench *b, int s) {
  b->rc += GEN(crba_fd)(Q(s), V(s), TAU(s), b->out);
}
static NOINLINE void rt_aba(bench *b, int s) {
  b->rc += mb_aba(b->m, &b->ws, Q(s), V(s), TAU(s), NULL, b->out);
}
static NOINLINE void rt_crba_fd(bench *b, int s) {
  b->rc += mb_crba_fd(b->m, &b->ws, Q(s), V(s), TAU(s), b->out);
}

enum { IMPL_GEN, IMPL_RT, NIMPL };
static const char *const impl_name[NIMPL] = {"generated", "runtime"};
static const struct function {
  const char *name;
  bench_kernel k[NIMPL];
} functions[] = {
    {"aba", {gen_aba, rt_aba}},
    {"crba_fd", {gen_crba_fd, rt_crba_fd}},
};
#define NFUNC ((int)(sizeof functions / sizeof functions[0]))

/* ---------------------------------------------------------------------------------------------
 * The check: the generated functions against the runtime on every state. */
static int check(bench *b) {
  int failed = 0;
  char label[128];
  double *ref = malloc((size_t)b->nv * sizeof *ref);
  if (!ref) return 1;
  for (int f = 0; f < NFUNC; f++) {
    double worst = 0;
    for (int s = 0; s < NSTATES; s++) {
      b->rc = 0;
      functions[f].k[IMPL_RT](b, s);
      memcpy(ref, b->out, (size_t)b->nv * sizeof *ref);
      functions[f].k[IMPL_GEN](b, s);
      double e = b->rc != 0 ? NAN : bench_rel_err(b->out, ref, b->nv);
      if (!(e <= worst)) worst = e;
    }
    snprintf(label, sizeof label, "%s %s", BENCH_NAME, functions[f].name);
    failed += bench_check(label, "generated", worst, TOL);
  }
  free(ref);
  return failed;
}

/* --run FUNC IMPL N (bench_option_fn): ctx is the run's {function, implementation, calls}. */
static int run_option(int argc, char **argv, int k, void *ctx) {
  int *run = ctx;
  if (strcmp(argv[k], "--run") != 0) return 0;
  if (k + 3 >= argc) return -1;
  for (int f = 0; f < NFUNC; f++)
    if (strcmp(argv[k + 1], functions[f].name) == 0) run[0] = f;
  for (int i = 0; i < NIMPL; i++)
    if (strcmp(argv[k + 2], impl_name[i]) == 0) run[1] = i;
  run[2] = atoi(argv[k + 3]);
  return run[0] < 0 || run[1] < 0 || run[2] < 0 ? -1 : 4;
}

/* Validates the model (1-dof joints only) and lays out b; 0, or -1 with a message. */
static int open_bench(bench *b, void **wsbuf) {
  const mb_model *m = &GEN(model);
  char msg[512];
  if (mb_model_check(m, msg, sizeof msg) != 0) return fprintf(stderr, "model: %s\n", msg), -1;
  for (int i = 1; i <= m->nb; i++)
    if (mb_joint_nq(m->jtype[i]) > 1)
      return fprintf(stderr, "%s: only 1-dof joints are supported here\n", BENCH_NAME), -1;
  b->m = m, b->nq = m->nq, b->nv = m->nv;
  *wsbuf = malloc(mb_workspace_size(m));
  b->q = malloc((size_t)(NSTATES * b->nq) * sizeof(double));
  b->v = malloc((size_t)(NSTATES * b->nv) * sizeof(double));
  b->tau = malloc((size_t)(NSTATES * b->nv) * sizeof(double));
  b->out = malloc((size_t)b->nv * sizeof(double));
  if (!*wsbuf || !b->q || !b->v || !b->tau || !b->out) return fprintf(stderr, "no memory\n"), -1;
  mb_workspace_init(&b->ws, m, *wsbuf);
  unsigned long long seed = BENCH_SEED;
  for (int s = 0; s < NSTATES; s++) random_state(m, &seed, Q(s), V(s), TAU(s));
  int modes = 0;
  for (int i = 1; i <= m->nb; i++) modes += mb_body_nm(m, i);
  printf("# model %s: nq %d, nv %d, %d moving bodies, %d modal coordinates; %d random states "
         "(seed %u)\n",
         BENCH_NAME, b->nq, b->nv, m->nb, modes, NSTATES, BENCH_SEED);
  return 0;
}

int main(int argc, char **argv) {
  bench_options o;
  int run[3] = {-1, -1, 0}; /* --run: function, implementation, calls (run[0] < 0: not asked) */
  if (bench_parse_options(argc, argv, &o, run_option, run) != 0)
    return bench_usage("bench_flex_" BENCH_NAME, " | --run FUNC IMPL N", "");
  bench bb = {0}, *b = &bb;
  void *wsbuf = NULL;
  int failed = open_bench(b, &wsbuf) != 0 ? 1 : run[0] >= 0 ? 0 : check(b);
  if (failed) {
    printf("# %d check(s) failed: not timing code that disagrees\n", failed);
  } else if (run[0] >= 0) {
    for (int c = 0; c < run[2]; c++) functions[run[0]].k[run[1]](b, c & (NSTATES - 1));
    printf("run %s %s %s %d calls\n", BENCH_NAME, functions[run[0]].name, impl_name[run[1]],
           run[2]);
  } else {
    char label[NFUNC][128];
    for (int f = 0; f < NFUNC; f++) { /* one function after the other */
      snprintf(label[f], sizeof label[f], "%s %s", BENCH_NAME, functions[f].name);
      bench_func func = {label[f], NIMPL, functions[f].k};
      bench_measure(b, &func, 1, impl_name, &o, f == 0);
    }
  }
  free(wsbuf), free(b->q), free(b->v), free(b->tau), free(b->out);
  return failed ? 1 : 0;
}
