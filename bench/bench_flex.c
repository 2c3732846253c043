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
 *   bench_flex_MODEL                check, then time: R repetitions; in each, for every function,
 *                                   K batches of each implementation, interleaved batch by batch,
 *                                   of up to B calls, as many as fit in T ns of the slower one;
 *                                   each batch goes on through the states where that
 *                                   implementation's last batch stopped (both see the same
 *                                   sequence); median and minimum ns per call over the R·K batches
 *   bench_flex_MODEL --smoke        check, then a few calls of everything (the ctest)
 *   bench_flex_MODEL --check        only the check
 *   bench_flex_MODEL --callgrind N  N calls of each (function, implementation) between callgrind
 *                                   client requests, dumps named "MODEL FUNC IMPL" (bench/flex.sh)
 *   bench_flex_MODEL --run FUNC IMPL N   only N calls of one (function, implementation), no check:
 *                                   for counting the arithmetic under valgrind --tool=lackey
 *                                   (bench/flex.sh: the difference between N and 0 calls)
 *   options: --reps R --batches K --batch B --batch-ns T (defaults 7, 100, 1000, 10^6)
 *
 * Output, after '#' comments:
 *   check MODEL FUNC generated REL_ERR   worst max|gen − runtime| / max|runtime| over the states
 *   batch MODEL FUNC CALLS
 *   time MODEL FUNC IMPL MEDIAN_NS MIN_NS
 *   ratio MODEL FUNC runtime RATIO       median(runtime) / median(generated), from this run */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mb.h"
#include BENCH_HEADER

#ifdef BENCH_HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(s) (void)(s)
#endif

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define GEN(f) CAT(BENCH_PREFIX, f)
extern const mb_model GEN(model);

#define NSTATES 64 /* a power of two: the batches cycle with & (NSTATES - 1) */
#define SEED 20261121u
#define TOL 1e-10 /* the harness's bound, generated against the runtime */

typedef struct bench {
  const mb_model *m;
  mb_workspace ws;
  int nq, nv;
  double *q, *v, *tau; /* NSTATES states */
  double *out;
  int rc; /* sum of return codes, so they are used */
} bench;

/* xorshift64*, as the generated harness: uniform in [lo, hi). */
static double uniform(unsigned long long *s, double lo, double hi) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return lo + (hi - lo) * (double)((*s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static int joint_nq(int type) {
  return type == MB_JOINT_FIXED       ? 0
         : type == MB_JOINT_SPHERICAL ? 4
         : type == MB_JOINT_FLOATING  ? 7
                                      : 1;
}

/* Joint angles in [−π, π), modal coordinates in [−0.05, 0.05); v, τ in [−1, 1). Only 1-dof
 * joints: a quaternion would need normalizing (main refuses other joints). */
static void random_state(const mb_model *m, unsigned long long *s, double *q, double *v,
                         double *tau) {
  for (int i = 1; i <= m->nb; i++) {
    double *qi = q + m->iq[i];
    int nj = joint_nq(m->jtype[i]);
    if (nj == 1) qi[0] = uniform(s, -3.14159, 3.14159);
    for (int k = 0; k < mb_body_nm(m, i); k++) qi[nj + k] = uniform(s, -0.05, 0.05);
  }
  for (int k = 0; k < m->nv; k++) v[k] = uniform(s, -1, 1), tau[k] = uniform(s, -1, 1);
}

#define Q(s) (b->q + (s)*b->nq)
#define V(s) (b->v + (s)*b->nv)
#define TAU(s) (b->tau + (s)*b->nv)

/* ---------------------------------------------------------------------------------------------
 * The timed calls, through a pointer (the same cost for both), writing to memory the compiler
 * cannot see through. */
typedef void (*kernel)(bench *b, int s);
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
  kernel k[NIMPL];
} functions[] = {
    {"aba", {gen_aba, rt_aba}},
    {"crba_fd", {gen_crba_fd, rt_crba_fd}},
};
#define NFUNC ((int)(sizeof functions / sizeof functions[0]))

/* ---------------------------------------------------------------------------------------------
 * The check: the generated functions against the runtime on every state. */
static double rel_err(const double *x, const double *ref, int n) {
  double err = 0, scale = 0;
  for (int k = 0; k < n; k++) {
    double e = fabs(x[k] - ref[k]);
    if (!(e <= err)) err = e; /* NaN counts as the worst */
    if (fabs(ref[k]) > scale) scale = fabs(ref[k]);
  }
  return scale > 0 ? err / scale : err;
}

static int check(bench *b) {
  int failed = 0;
  double *ref = malloc((size_t)b->nv * sizeof *ref);
  if (!ref) return 1;
  for (int f = 0; f < NFUNC; f++) {
    double worst = 0;
    for (int s = 0; s < NSTATES; s++) {
      b->rc = 0;
      functions[f].k[IMPL_RT](b, s);
      memcpy(ref, b->out, (size_t)b->nv * sizeof *ref);
      functions[f].k[IMPL_GEN](b, s);
      double e = b->rc != 0 ? NAN : rel_err(b->out, ref, b->nv);
      if (!(e <= worst)) worst = e;
    }
    int bad = !(worst <= TOL);
    failed += bad;
    printf("check %s %s generated %.2e%s\n", BENCH_NAME, functions[f].name, worst,
           bad ? " FAIL" : "");
  }
  free(ref);
  return failed;
}

/* ---------------------------------------------------------------------------------------------
 * Timing. */
static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* ns per call of n calls, cycling through the states from *pos on (and advancing it). */
static double batch(bench *b, kernel k, int n, unsigned *pos) {
  unsigned p = *pos;
  double t0 = now_ns();
  for (int c = 0; c < n; c++, p++) {
    k(b, (int)(p & (NSTATES - 1)));
    __asm__ volatile("" ::: "memory");
  }
  double t = (now_ns() - t0) / n;
  *pos = p;
  return t;
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, c = *(const double *)y;
  return (a > c) - (a < c);
}

/* The calls per batch of function f: warm-up (caches, branch predictors, lazy binding: up to 10^4
 * calls or ~10 batches' time), then as many calls as fit in batch_ns of the slower one. */
static int calls_per_batch(bench *b, int f, int calls, double batch_ns) {
  double slowest = 0;
  for (int i = 0; i < NIMPL; i++) {
    unsigned pos = 0;
    double per_call = batch(b, functions[f].k[i], 10, &pos), warm = 10 * batch_ns / per_call;
    per_call = batch(b, functions[f].k[i], warm > 10000 ? 10000 : warm < 10 ? 10 : (int)warm, &pos);
    if (per_call > slowest) slowest = per_call;
  }
  double fit = batch_ns / slowest;
  return fit >= calls ? calls : fit < 10 ? (calls < 10 ? calls : 10) : (int)fit;
}

static void time_all(bench *b, int reps, int batches, int calls, double batch_ns) {
  int n = reps * batches;
  double *t = malloc((size_t)(NIMPL * n) * sizeof *t);
  if (!t) return;
  for (int f = 0; f < NFUNC; f++) {
    int fcalls = calls_per_batch(b, f, calls, batch_ns);
    unsigned pos[NIMPL] = {0, 0};
    for (int r = 0; r < reps; r++)
      for (int k = 0; k < batches; k++)
        for (int i = 0; i < NIMPL; i++)
          t[i * n + r * batches + k] = batch(b, functions[f].k[i], fcalls, &pos[i]);
    printf("batch %s %s %d\n", BENCH_NAME, functions[f].name, fcalls);
    double median[NIMPL];
    for (int i = 0; i < NIMPL; i++) {
      double *x = t + i * n;
      qsort(x, (size_t)n, sizeof *x, cmp_double);
      median[i] = n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
      printf("time %s %s %s %.1f %.1f\n", BENCH_NAME, functions[f].name, impl_name[i], median[i],
             x[0]);
    }
    printf("ratio %s %s runtime %.2f\n", BENCH_NAME, functions[f].name,
           median[IMPL_RT] / median[IMPL_GEN]);
    fflush(stdout);
  }
  free(t);
}

/* N calls of every (function, implementation), each between callgrind's client requests: the
 * dump named "MODEL FUNC IMPL" holds the instructions of exactly those calls. */
static void callgrind(bench *b, int calls) {
  char name[128];
  for (int f = 0; f < NFUNC; f++)
    for (int i = 0; i < NIMPL; i++) {
      unsigned pos = 0;
      batch(b, functions[f].k[i], calls, &pos); /* warm-up: lazy binding of libm */
      snprintf(name, sizeof name, "%s %s %s", BENCH_NAME, functions[f].name, impl_name[i]);
      pos = 0;
      CALLGRIND_ZERO_STATS;
      batch(b, functions[f].k[i], calls, &pos);
      CALLGRIND_DUMP_STATS_AT(name);
    }
  printf("callgrind %d calls per dump\n", calls);
}

typedef struct options {
  int reps, batches, calls, mode_check, cg_calls;
  double batch_ns;
  int run_f, run_i, run_n; /* --run: function, implementation, calls (run_f < 0: not asked) */
} options;

/* Fills o from argv. Returns 0, or -1 for a usage error. */
static int parse_options(int argc, char **argv, options *o) {
  *o = (options){7, 100, 1000, 0, 0, 1e6, -1, -1, 0};
  for (int k = 1; k < argc; k++) {
    const char *a = argv[k], *val = k + 1 < argc ? argv[k + 1] : NULL;
    if (strcmp(a, "--smoke") == 0)
      o->reps = 1, o->batches = 2, o->calls = 10;
    else if (strcmp(a, "--check") == 0)
      o->mode_check = 1;
    else if (strcmp(a, "--callgrind") == 0 && val)
      o->cg_calls = atoi(val), k++;
    else if (strcmp(a, "--run") == 0 && k + 3 < argc) {
      for (int f = 0; f < NFUNC; f++)
        if (strcmp(argv[k + 1], functions[f].name) == 0) o->run_f = f;
      for (int i = 0; i < NIMPL; i++)
        if (strcmp(argv[k + 2], impl_name[i]) == 0) o->run_i = i;
      o->run_n = atoi(argv[k + 3]), k += 3;
      if (o->run_f < 0 || o->run_i < 0 || o->run_n < 0) return -1;
    } else if (strcmp(a, "--reps") == 0 && val)
      o->reps = atoi(val), k++;
    else if (strcmp(a, "--batches") == 0 && val)
      o->batches = atoi(val), k++;
    else if (strcmp(a, "--batch") == 0 && val)
      o->calls = atoi(val), k++;
    else if (strcmp(a, "--batch-ns") == 0 && val)
      o->batch_ns = atof(val), k++;
    else
      return -1;
  }
  return o->reps < 1 || o->batches < 1 || o->calls < 1 || o->cg_calls < 0 || !(o->batch_ns > 0) ? -1
                                                                                                : 0;
}

/* Validates the model (1-dof joints only) and lays out b; 0, or -1 with a message. */
static int open_bench(bench *b, void **wsbuf) {
  const mb_model *m = &GEN(model);
  char msg[512];
  if (mb_model_check(m, msg, sizeof msg) != 0) return fprintf(stderr, "model: %s\n", msg), -1;
  for (int i = 1; i <= m->nb; i++)
    if (joint_nq(m->jtype[i]) > 1)
      return fprintf(stderr, "%s: only 1-dof joints are supported here\n", BENCH_NAME), -1;
  b->m = m, b->nq = m->nq, b->nv = m->nv;
  *wsbuf = malloc(mb_workspace_size(m));
  b->q = malloc((size_t)(NSTATES * b->nq) * sizeof(double));
  b->v = malloc((size_t)(NSTATES * b->nv) * sizeof(double));
  b->tau = malloc((size_t)(NSTATES * b->nv) * sizeof(double));
  b->out = malloc((size_t)b->nv * sizeof(double));
  if (!*wsbuf || !b->q || !b->v || !b->tau || !b->out) return fprintf(stderr, "no memory\n"), -1;
  mb_workspace_init(&b->ws, m, *wsbuf);
  unsigned long long seed = SEED;
  for (int s = 0; s < NSTATES; s++) random_state(m, &seed, Q(s), V(s), TAU(s));
  int modes = 0;
  for (int i = 1; i <= m->nb; i++) modes += mb_body_nm(m, i);
  printf("# model %s: nq %d, nv %d, %d moving bodies, %d modal coordinates; %d random states "
         "(seed %u)\n",
         BENCH_NAME, b->nq, b->nv, m->nb, modes, NSTATES, SEED);
  return 0;
}

int main(int argc, char **argv) {
  options o;
  if (parse_options(argc, argv, &o) != 0) {
    fprintf(stderr,
            "usage: bench_flex_%s [--smoke | --check | --callgrind N | --run FUNC IMPL N] "
            "[--reps R] [--batches K] [--batch B] [--batch-ns T]\n",
            BENCH_NAME);
    return 2;
  }
  bench bb = {0}, *b = &bb;
  void *wsbuf = NULL;
  int failed = open_bench(b, &wsbuf) != 0 ? 1 : o.run_f >= 0 ? 0 : check(b);
  if (failed) {
    printf("# %d check(s) failed: not timing code that disagrees\n", failed);
  } else if (o.run_f >= 0) {
    for (int c = 0; c < o.run_n; c++) functions[o.run_f].k[o.run_i](b, c & (NSTATES - 1));
    printf("run %s %s %s %d calls\n", BENCH_NAME, functions[o.run_f].name, impl_name[o.run_i],
           o.run_n);
  } else if (o.cg_calls > 0) {
    callgrind(b, o.cg_calls);
  } else if (!o.mode_check) {
    printf("# timing: %d repetitions x %d batches per implementation and function, each of up to "
           "%d calls and about %.0f us of the slower implementation\n",
           o.reps, o.batches, o.calls, o.batch_ns / 1e3);
    time_all(b, o.reps, o.batches, o.calls, o.batch_ns);
  }
  free(wsbuf), free(b->q), free(b->v), free(b->tau), free(b->out);
  return failed ? 1 : 0;
}
