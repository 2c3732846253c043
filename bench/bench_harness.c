/* bench_harness.c — the bench programs' shared command line, states and measurement
 * (bench_harness.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 199309L /* clock_gettime, when compiled outside CMake (bench/driver.sh) */
#endif
#include "bench_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef BENCH_HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(s) (void)(s)
#endif

/* ---------------------------------------------------------------------------------------------
 * The command line. */
int bench_parse_options(int argc, char **argv, bench_options *o, bench_option_fn own, void *ctx) {
  *o = (bench_options){7, 100, 1000, 1e6, 0, 0};
  for (int k = 1; k < argc; k++) {
    const char *a = argv[k], *val = k + 1 < argc ? argv[k + 1] : NULL;
    int used = own ? own(argc, argv, k, ctx) : 0;
    if (used < 0) return -1;
    if (used > 0)
      k += used - 1;
    else if (strcmp(a, "--smoke") == 0)
      o->reps = 1, o->batches = 2, o->calls = 10;
    else if (strcmp(a, "--check") == 0)
      o->check_only = 1;
    else if (strcmp(a, "--callgrind") == 0 && val)
      o->callgrind = atoi(val), k++;
    else if (strcmp(a, "--reps") == 0 && val)
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
  return o->reps < 1 || o->batches < 1 || o->calls < 1 || o->callgrind < 0 || !(o->batch_ns > 0)
             ? -1 : 0;
}

int bench_usage(const char *name, const char *modes, const char *options) {
  fprintf(stderr,
          "usage: %s [--smoke | --check | --callgrind N%s] [--reps R] [--batches K] [--batch B] "
          "[--batch-ns T]%s\n",
          name, modes, options);
  return 2;
}

/* ---------------------------------------------------------------------------------------------
 * States and checks. */
double bench_uniform(unsigned long long *s, double lo, double hi) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return lo + (hi - lo) * (double)((*s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

void bench_random_quat(unsigned long long *s, double *x) {
  double n2;
  do {
    n2 = 0;
    for (int k = 0; k < 4; k++) x[k] = bench_uniform(s, -1, 1), n2 += x[k] * x[k];
  } while (n2 < 0.01 || n2 > 1);
  for (int k = 0; k < 4; k++) x[k] /= sqrt(n2);
}

double bench_rel_err(const double *x, const double *ref, int n) {
  double err = 0, scale = 0;
  for (int k = 0; k < n; k++) {
    double e = fabs(x[k] - ref[k]);
    if (!(e <= err)) err = e; /* NaN counts as the worst */
    if (fabs(ref[k]) > scale) scale = fabs(ref[k]);
  }
  return scale > 0 ? err / scale : err;
}

int bench_check(const char *label, const char *impl, double err, double bound) {
  int bad = !(err <= bound);
  printf("check %s %s %.2e bound %.0e%s\n", label, impl, err, bound, bad ? " FAIL" : "");
  return bad;
}

/* ---------------------------------------------------------------------------------------------
 * Timing. */
double bench_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, c = *(const double *)y;
  return (a > c) - (a < c);
}

double bench_median(double *x, int n) {
  qsort(x, (size_t)n, sizeof *x, cmp_double);
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* ns per call of n calls of k, cycling through the states from *pos on (and advancing it). */
static double batch(bench *b, bench_kernel k, int n, unsigned *pos) {
  unsigned p = *pos, end = p + (unsigned)n;
  double t0 = bench_now_ns();
  for (; p != end; p++) {
    k(b, (int)(p & (BENCH_NSTATES - 1)));
    __asm__ volatile("" ::: "memory");
  }
  *pos = p;
  return (bench_now_ns() - t0) / n;
}

/* The calls per batch of f: after a warm-up of each implementation (caches, branch predictors,
 * lazy binding: up to 10^4 calls or ~10 batches' time), as many as fit in batch_ns of the slowest,
 * at most o->calls. */
static int calls_per_batch(bench *b, const bench_func *f, const bench_options *o) {
  double slowest = 0;
  for (int i = 0; i < f->nimpl; i++) {
    unsigned pos = 0;
    double per_call = batch(b, f->k[i], 10, &pos), warm = 10 * o->batch_ns / per_call;
    per_call = batch(b, f->k[i], warm > 10000 ? 10000 : warm < 10 ? 10 : (int)warm, &pos);
    if (per_call > slowest) slowest = per_call;
  }
  double fit = o->batch_ns / slowest;
  int calls = o->calls;
  return fit >= calls ? calls : fit < 10 ? (calls < 10 ? calls : 10) : (int)fit;
}

/* The batch, time and ratio lines of f from its n batches per implementation, t[i * n ...]. */
static void report(const bench_func *f, const char *const *impl, int fcalls, double *t, int n) {
  double median[BENCH_MAX_IMPL];
  printf("batch %s %d\n", f->label, fcalls);
  for (int i = 0; i < f->nimpl; i++) {
    double *x = t + i * n;
    median[i] = bench_median(x, n);
    printf("time %s %s %.1f %.1f\n", f->label, impl[i], median[i], x[0]);
  }
  for (int i = 1; i < f->nimpl; i++)
    printf("ratio %s %s %.2f\n", f->label, impl[i], median[i] / median[0]);
  fflush(stdout);
}

/* R repetitions; in each, for every function, K batches of each implementation interleaved. */
static void time_all(bench *b, const bench_func *funcs, int nfunc, const char *const *impl,
                     const bench_options *o) {
  int n = o->reps * o->batches, slots = nfunc * BENCH_MAX_IMPL;
  double *t = malloc((size_t)(slots * n) * sizeof *t);
  int *fcalls = malloc((size_t)nfunc * sizeof *fcalls);
  unsigned *pos = calloc((size_t)slots, sizeof *pos);
  if (!t || !fcalls || !pos) {
    fprintf(stderr, "bench: out of memory\n");
  } else {
    for (int f = 0; f < nfunc; f++) fcalls[f] = calls_per_batch(b, &funcs[f], o);
    for (int r = 0; r < o->reps; r++)
      for (int f = 0; f < nfunc; f++)
        for (int k = 0; k < o->batches; k++)
          for (int i = 0; i < funcs[f].nimpl; i++) {
            int slot = f * BENCH_MAX_IMPL + i;
            t[slot * n + r * o->batches + k] = batch(b, funcs[f].k[i], fcalls[f], &pos[slot]);
          }
    for (int f = 0; f < nfunc; f++)
      report(&funcs[f], impl, fcalls[f], t + f * BENCH_MAX_IMPL * n, n);
  }
  free(t), free(fcalls), free(pos);
}

/* N calls of every (function, implementation), each between callgrind's client requests: the
 * dump named "LABEL IMPL" holds the instructions of exactly those calls. */
static void callgrind(bench *b, const bench_func *funcs, int nfunc, const char *const *impl,
                      int calls) {
  char name[128];
  for (int f = 0; f < nfunc; f++)
    for (int i = 0; i < funcs[f].nimpl; i++) {
      unsigned pos = 0;
      batch(b, funcs[f].k[i], calls, &pos); /* warm-up: lazy binding of libm and the peers */
      snprintf(name, sizeof name, "%s %s", funcs[f].label, impl[i]);
      pos = 0;
      CALLGRIND_ZERO_STATS;
      batch(b, funcs[f].k[i], calls, &pos);
      CALLGRIND_DUMP_STATS_AT(name);
    }
}

/* The mode's first line: what the timing is, or the calls per callgrind dump. */
static void header_line(const bench_func *funcs, int nfunc, const bench_options *o) {
  int nimpl = 0;
  for (int f = 0; f < nfunc; f++)
    if (funcs[f].nimpl > nimpl) nimpl = funcs[f].nimpl;
  if (o->callgrind > 0)
    printf("callgrind %d calls per dump\n", o->callgrind);
  else
    printf("# timing: %d repetitions x %d batches per implementation and function, each of up to "
           "%d calls and about %.0f us of the %s implementation\n",
           o->reps, o->batches, o->calls, o->batch_ns / 1e3, nimpl > 2 ? "slowest" : "slower");
}

void bench_measure(bench *b, const bench_func *funcs, int nfunc, const char *const *impl,
                   const bench_options *o, int header) {
  if (o->check_only && o->callgrind == 0) return;
  if (header) header_line(funcs, nfunc, o);
  if (o->callgrind > 0)
    callgrind(b, funcs, nfunc, impl, o->callgrind);
  else
    time_all(b, funcs, nfunc, impl, o);
}
