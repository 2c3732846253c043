/* bench_main.c — times one robot's generated dynamics against the generic runtime and MuJoCo.
 *
 * Compiled once per robot (bench/CMakeLists.txt) with BENCH_PREFIX (the generated code's prefix),
 * BENCH_HEADER ("bench_config.h": the generated header, and BENCH_HAVE_CFA when the robot's code
 * has cfa), BENCH_NAME and, for a URDF example, BENCH_URDF (its path) and BENCH_FLOATING_BASE (1
 * when generated with --floating-base). The three implementations see the same random states, in
 * the same process:
 *
 *   bench_ROBOT                 check, then time: R repetitions; in each, for every function,
 *                               K batches of each implementation, interleaved batch by batch, of
 *                               up to B calls each: as many as fit in T ns of the function's slowest
 *                               implementation (all three make the same number of calls); median
 *                               and minimum ns per call over the R·K batches
 *   bench_ROBOT --smoke         check, then a few calls of everything (a ctest: it cannot rot)
 *   bench_ROBOT --check         only the agreement check on the states used
 *   bench_ROBOT --callgrind N   N calls of each (function, implementation) between callgrind
 *                               client requests (bench/callgrind.sh reads the dumps)
 *   options: --reps R --batches K --batch B --batch-ns T (defaults 7, 100, 1000, 10^6: at most
 *            10^5 calls and about 0.3 s of one function per repetition, so the big robots, whose
 *            slowest calls take 100 µs, are measured in seconds too),
 *            --write-urdf FILE (keep the URDF MuJoCo read)
 *
 * Output lines for bench/report.sh, after '#' comments:
 *   check FUNC IMPL REL_ERR            worst relative error against the runtime over the states
 *   batch FUNC CALLS                   calls per batch of this function
 *   time FUNC IMPL MEDIAN_NS MIN_NS    ns per call
 *   ratio FUNC PEER RATIO              median(peer) / median(generated), from this run
 *   mujoco n/a REASON                  when MuJoCo cannot load the robot */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_peer.h"
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
#define MODEL GEN(model)

#define NSTATES 64 /* random states, cycled through by every implementation */
#define SEED 20261121u
#define TOL_GEN 1e-10 /* generated vs runtime: the harness's tolerance */
/* MuJoCo vs runtime. MuJoCo keeps each body's inertia as principal moments and axes, which its
 * compiler finds only to ~1e-12 (off by up to ~1e-6 relative on panda, hyq, romeo_small,
 * anymal_b: docs/urdf.md); bench_mujoco.c sets them from the URDF to rounding, as test_mujoco's
 * "exact" run does, whose bound this is. What remains is rounding, amplified by M's condition
 * number in forward dynamics and M^-1; a real disagreement (a wrong frame or convention) is of
 * order 1. */
#define TOL_MJ 1e-9

typedef struct bench {
  const mb_model *m;
  mb_workspace ws;
  bench_mj *mj;
  int nq, nv, nb;
  double *q, *v, *a, *tau; /* NSTATES states */
  double *out, *wrench;    /* outputs (nv·nv, 6(nb+1)) */
  int rc;                  /* sum of return codes, so they are used */
} bench;

/* xorshift64*, as the generated harness: uniform in [lo, hi). */
static double uniform(unsigned long long *s, double lo, double hi) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return lo + (hi - lo) * (double)((*s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static void random_quat(unsigned long long *s, double *x) {
  double n2;
  do {
    n2 = 0;
    for (int k = 0; k < 4; k++) x[k] = uniform(s, -1, 1), n2 += x[k] * x[k];
  } while (n2 < 0.01 || n2 > 1);
  for (int k = 0; k < 4; k++) x[k] /= sqrt(n2);
}

/* q in the joints' ranges of use; v, a, tau in [-1, 1) */
static void random_state(const mb_model *m, unsigned long long *s, double *q, double *v,
                         double *a, double *tau) {
  for (int i = 1; i <= m->nb; i++) {
    double *qi = q + m->iq[i];
    switch (m->jtype[i]) {
    case MB_JOINT_SPHERICAL: random_quat(s, qi); break;
    case MB_JOINT_FLOATING:
      for (int k = 0; k < 3; k++) qi[k] = uniform(s, -1, 1);
      random_quat(s, qi + 3);
      break;
    case MB_JOINT_FIXED: break;
    case MB_JOINT_PRISMATIC: qi[0] = uniform(s, -0.5, 0.5); break;
    default: qi[0] = uniform(s, -3.14159, 3.14159); break;
    }
  }
  for (int k = 0; k < m->nv; k++)
    v[k] = uniform(s, -1, 1), a[k] = uniform(s, -1, 1), tau[k] = uniform(s, -1, 1);
}

#define Q(s) (b->q + (s) * b->nq)
#define V(s) (b->v + (s) * b->nv)
#define A(s) (b->a + (s) * b->nv)
#define TAU(s) (b->tau + (s) * b->nv)

/* ---------------------------------------------------------------------------------------------
 * The timed calls: one kernel per (function, implementation), called through a pointer (the
 * same cost for all three), each writing its output to memory the compiler cannot see through. */
typedef void (*kernel)(bench *b, int s);
#define NOINLINE __attribute__((noinline))

static NOINLINE void gen_rnea(bench *b, int s) { GEN(rnea)(Q(s), V(s), A(s), b->out); }
static NOINLINE void gen_crba(bench *b, int s) { GEN(crba)(Q(s), b->out); }
static NOINLINE void gen_crba_fd(bench *b, int s) {
  b->rc += GEN(crba_fd)(Q(s), V(s), TAU(s), b->out);
}
static NOINLINE void gen_aba(bench *b, int s) { b->rc += GEN(aba)(Q(s), V(s), TAU(s), b->out); }
static NOINLINE void gen_minv(bench *b, int s) { b->rc += GEN(minv)(Q(s), b->out); }

static NOINLINE void rt_rnea(bench *b, int s) {
  mb_rnea(b->m, &b->ws, Q(s), V(s), A(s), NULL, b->out);
}
static NOINLINE void rt_crba(bench *b, int s) { mb_crba(b->m, &b->ws, Q(s), b->out); }
static NOINLINE void rt_crba_fd(bench *b, int s) {
  b->rc += mb_crba_fd(b->m, &b->ws, Q(s), V(s), TAU(s), b->out);
}
static NOINLINE void rt_aba(bench *b, int s) {
  b->rc += mb_aba(b->m, &b->ws, Q(s), V(s), TAU(s), NULL, b->out);
}
static NOINLINE void rt_minv(bench *b, int s) { b->rc += mb_minv(b->m, &b->ws, Q(s), b->out); }

static NOINLINE void mj_rnea_k(bench *b, int s) { bench_mj_rnea(b->mj, s, b->out); }
static NOINLINE void mj_crba_k(bench *b, int s) { bench_mj_crba(b->mj, s, b->out); }
static NOINLINE void mj_fd_k(bench *b, int s) { bench_mj_fd(b->mj, s, b->out); }
static NOINLINE void mj_minv_k(bench *b, int s) { bench_mj_minv(b->mj, s, b->out); }

#ifdef BENCH_HAVE_CFA
static NOINLINE void gen_cfa(bench *b, int s) {
  b->rc += GEN(cfa)(Q(s), V(s), TAU(s), b->out, b->wrench);
}
static NOINLINE void rt_cfa(bench *b, int s) {
  b->rc += mb_cfa(b->m, &b->ws, Q(s), V(s), TAU(s), b->out, b->wrench);
}
#endif

enum { IMPL_GEN, IMPL_RT, IMPL_MJ, NIMPL };
static const char *const impl_name[NIMPL] = {"generated", "runtime", "mujoco"};
/* What the output is, for the check's conversion from MuJoCo's coordinates. */
enum { OUT_FORCE, OUT_MATRIX, OUT_ACC };

static const struct function {
  const char *name;
  int out;
  kernel k[NIMPL];
} functions[] = {
  {"rnea", OUT_FORCE, {gen_rnea, rt_rnea, mj_rnea_k}},
  {"crba", OUT_MATRIX, {gen_crba, rt_crba, mj_crba_k}},
  {"crba_fd", OUT_ACC, {gen_crba_fd, rt_crba_fd, mj_fd_k}},
  {"aba", OUT_ACC, {gen_aba, rt_aba, mj_fd_k}},
  {"minv", OUT_MATRIX, {gen_minv, rt_minv, mj_minv_k}},
#ifdef BENCH_HAVE_CFA
  {"cfa", OUT_ACC, {gen_cfa, rt_cfa, mj_fd_k}},
#endif
};
#define NFUNC ((int)(sizeof functions / sizeof functions[0]))

static int out_size(const bench *b, const struct function *f) {
  return f->out == OUT_MATRIX ? b->nv * b->nv : b->nv;
}

/* ---------------------------------------------------------------------------------------------
 * The check: every implementation against the runtime on every state. */
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
  int n = b->nv * b->nv, failed = 0;
  double *ref = malloc((size_t)n * sizeof *ref), *got = malloc((size_t)n * sizeof *got);
  for (int f = 0; f < NFUNC; f++) {
    double worst[NIMPL] = {0, 0, 0};
    int size = out_size(b, &functions[f]);
    for (int s = 0; s < NSTATES; s++) {
      functions[f].k[IMPL_RT](b, s);
      memcpy(ref, b->out, (size_t)size * sizeof *ref);
      for (int i = 0; i < NIMPL; i++) {
        if (i == IMPL_RT || (i == IMPL_MJ && !b->mj)) continue;
        functions[f].k[i](b, s);
        if (i == IMPL_MJ) {
          if (functions[f].out == OUT_FORCE) bench_mj_force_to_mb(b->mj, s, b->out, got);
          if (functions[f].out == OUT_ACC) bench_mj_acc_to_mb(b->mj, s, b->out, got);
          if (functions[f].out == OUT_MATRIX) bench_mj_matrix_to_mb(b->mj, s, b->out, got);
        } else {
          memcpy(got, b->out, (size_t)size * sizeof *got);
        }
        double e = rel_err(got, ref, size);
        if (!(e <= worst[i])) worst[i] = e;
      }
    }
    for (int i = 0; i < NIMPL; i++) {
      if (i == IMPL_RT || (i == IMPL_MJ && !b->mj)) continue;
      int bad = !(worst[i] <= (i == IMPL_MJ ? TOL_MJ : TOL_GEN));
      failed += bad;
      printf("check %s %s %.2e%s\n", functions[f].name, impl_name[i], worst[i],
             bad ? " FAIL" : "");
    }
  }
  free(ref), free(got);
  return failed;
}

/* ---------------------------------------------------------------------------------------------
 * Timing. */
static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* ns per call of one batch of n calls, cycling through the states */
static double batch(bench *b, kernel k, int n) {
  double t0 = now_ns();
  for (int c = 0; c < n; c++) {
    k(b, c & (NSTATES - 1));
    __asm__ volatile("" ::: "memory");
  }
  return (now_ns() - t0) / n;
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, c = *(const double *)y;
  return (a > c) - (a < c);
}

static void time_all(bench *b, int reps, int batches, int calls, double batch_ns) {
  int nimpl = b->mj ? NIMPL : IMPL_MJ, n = reps * batches, fcalls[NFUNC];
  double *t = malloc((size_t)(NFUNC * NIMPL * n) * sizeof *t);
  /* warm-up (caches, branch predictors, lazy binding: up to 10^4 calls or ~10 batches' time),
   * then the calls per batch from the slowest implementation */
  for (int f = 0; f < NFUNC; f++) {
    double slowest = 0;
    for (int i = 0; i < nimpl; i++) {
      double per_call = batch(b, functions[f].k[i], 10), warm = 10 * batch_ns / per_call;
      per_call = batch(b, functions[f].k[i], warm > 10000 ? 10000 : warm < 10 ? 10 : (int)warm);
      if (per_call > slowest) slowest = per_call;
    }
    double fit = batch_ns / slowest;
    fcalls[f] = fit >= calls ? calls : fit < 10 ? (calls < 10 ? calls : 10) : (int)fit;
  }
  for (int r = 0; r < reps; r++)
    for (int f = 0; f < NFUNC; f++)
      for (int k = 0; k < batches; k++)
        for (int i = 0; i < nimpl; i++)
          t[(f * NIMPL + i) * n + r * batches + k] = batch(b, functions[f].k[i], fcalls[f]);
  for (int f = 0; f < NFUNC; f++) {
    printf("batch %s %d\n", functions[f].name, fcalls[f]);
    double median[NIMPL];
    for (int i = 0; i < nimpl; i++) {
      double *x = t + (f * NIMPL + i) * n;
      qsort(x, (size_t)n, sizeof *x, cmp_double);
      median[i] = n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
      printf("time %s %s %.1f %.1f\n", functions[f].name, impl_name[i], median[i], x[0]);
    }
    for (int i = IMPL_RT; i < nimpl; i++)
      printf("ratio %s %s %.2f\n", functions[f].name, impl_name[i], median[i] / median[IMPL_GEN]);
  }
  free(t);
}

/* N calls of every (function, implementation), each between callgrind's client requests: the
 * dump named "FUNC IMPL" holds the instructions of exactly those calls. */
static void callgrind(bench *b, int calls) {
  char name[64];
  for (int f = 0; f < NFUNC; f++)
    for (int i = 0; i < (b->mj ? NIMPL : IMPL_MJ); i++) {
      batch(b, functions[f].k[i], calls); /* warm-up: lazy binding of libm and libmujoco */
      snprintf(name, sizeof name, "%s %s", functions[f].name, impl_name[i]);
      CALLGRIND_ZERO_STATS;
      batch(b, functions[f].k[i], calls);
      CALLGRIND_DUMP_STATS_AT(name);
    }
  printf("callgrind %d calls per dump\n", calls);
}

static int usage(void) {
  fprintf(stderr, "usage: bench_%s [--smoke | --check | --callgrind N] [--reps R] [--batches K] "
                  "[--batch B] [--batch-ns T] [--write-urdf FILE]\n",
          BENCH_NAME);
  return 2;
}

/* The command line (see the header). */
typedef struct options {
  int reps, batches, calls, mode_check, cg_calls;
  double batch_ns;
  const char *keep_urdf;
} options;

/* Fills o from argv. Returns 0, or -1 for a usage error. */
static int parse_options(int argc, char **argv, options *o) {
  *o = (options){7, 100, 1000, 0, 0, 1e6, NULL};
  for (int k = 1; k < argc; k++) {
    const char *a = argv[k], *val = k + 1 < argc ? argv[k + 1] : NULL;
    if (strcmp(a, "--smoke") == 0)
      o->reps = 1, o->batches = 2, o->calls = 10;
    else if (strcmp(a, "--check") == 0)
      o->mode_check = 1;
    else if (strcmp(a, "--callgrind") == 0 && val)
      o->cg_calls = atoi(val), k++;
    else if (strcmp(a, "--reps") == 0 && val)
      o->reps = atoi(val), k++;
    else if (strcmp(a, "--batches") == 0 && val)
      o->batches = atoi(val), k++;
    else if (strcmp(a, "--batch") == 0 && val)
      o->calls = atoi(val), k++;
    else if (strcmp(a, "--batch-ns") == 0 && val)
      o->batch_ns = atof(val), k++;
    else if (strcmp(a, "--write-urdf") == 0 && val)
      o->keep_urdf = val, k++;
    else
      return -1;
  }
  return o->reps < 1 || o->batches < 1 || o->calls < 1 || o->cg_calls < 0 || !(o->batch_ns > 0)
             ? -1 : 0;
}

#ifdef BENCH_URDF
#define URDF_PATH BENCH_URDF
#else
#define URDF_PATH NULL
#endif
#ifndef BENCH_FLOATING_BASE
#define BENCH_FLOATING_BASE 0
#endif

/* MuJoCo on the robot's URDF with the states of b (b->mj stays NULL, msg says why, when it is not
 * available), and a line saying what it loaded. */
static void open_peer(bench *b, const char *keep_urdf, char *msg, size_t n) {
  const mb_model *m = b->m;
  const char *urdf = URDF_PATH;
  int nj = 0, base = 0; /* moving joints; the floating base's body */
  for (int i = 1; i <= m->nb; i++) {
    nj += m->jtype[i] != MB_JOINT_FIXED;
    if (m->jtype[i] == MB_JOINT_FLOATING && !base) base = i;
  }
  bench_names names = {nj, GEN(joint_names), GEN(joint_iq), GEN(joint_iv), GEN(body_names)};
  b->mj = bench_mj_open(m, &names, urdf, BENCH_FLOATING_BASE, keep_urdf, NSTATES, msg, n);
  double *pose = malloc((size_t)(12 * (b->nb + 1)) * sizeof *pose);
  for (int s = 0; b->mj && pose && s < NSTATES; s++) {
    mb_fk(m, &b->ws, Q(s), pose); /* the base's world pose, whatever its joint's origin */
    bench_mj_set_state(b->mj, s, base ? pose + 12 * base : NULL, Q(s), V(s), A(s), TAU(s));
  }
  free(pose);
  if (b->mj)
    printf("# mujoco %s, loaded from %s\n", bench_mj_version(),
           urdf ? (BENCH_FLOATING_BASE ? "the example's URDF with a floating base"
                                       : "the example's URDF")
                : "a URDF written from the runtime model");
  else
    printf("mujoco n/a %s\n", msg);
}

int main(int argc, char **argv) {
  options o;
  if (parse_options(argc, argv, &o) != 0) return usage();
  bench bb = {0}, *b = &bb;
  const mb_model *m = &MODEL;
  char msg[512];
  if (mb_model_check(m, msg, sizeof msg) != 0) return fprintf(stderr, "model: %s\n", msg), 2;
  b->m = m, b->nq = m->nq, b->nv = m->nv, b->nb = m->nb;
  void *wsbuf = malloc(mb_workspace_size(m));
  mb_workspace_init(&b->ws, m, wsbuf);
  b->q = calloc((size_t)(NSTATES * b->nq + 7), sizeof(double));
  b->v = malloc((size_t)(NSTATES * b->nv) * sizeof(double));
  b->a = malloc((size_t)(NSTATES * b->nv) * sizeof(double));
  b->tau = malloc((size_t)(NSTATES * b->nv) * sizeof(double));
  b->out = malloc((size_t)(b->nv * b->nv + 6 * (b->nb + 1)) * sizeof(double));
  b->wrench = malloc((size_t)(6 * (b->nb + 1)) * sizeof(double));
  unsigned long long seed = SEED;
  for (int s = 0; s < NSTATES; s++) random_state(m, &seed, Q(s), V(s), A(s), TAU(s));

  printf("# robot %s: nq %d, nv %d, %d moving bodies; %d random states (seed %u)\n", BENCH_NAME,
         b->nq, b->nv, b->nb, NSTATES, SEED);
  open_peer(b, o.keep_urdf, msg, sizeof msg);

  int failed = check(b);
  if (failed) {
    printf("# %d check(s) failed: not timing code that disagrees\n", failed);
  } else if (o.cg_calls > 0) {
    callgrind(b, o.cg_calls);
  } else if (!o.mode_check) {
    printf("# timing: %d repetitions x %d batches per implementation and function, each of up to "
           "%d calls and about %.0f us of the slowest implementation\n",
           o.reps, o.batches, o.calls, o.batch_ns / 1e3);
    time_all(b, o.reps, o.batches, o.calls, o.batch_ns);
  }
  bench_mj_close(b->mj);
  free(wsbuf), free(b->q), free(b->v), free(b->a), free(b->tau), free(b->out), free(b->wrench);
  return failed ? 1 : 0;
}
