/* The driver of bench/batch.sh: the throughput of one generated model's batch functions
 * (mbdc generate --batch) against its scalar ones, for rnea, crba and aba.
 *
 * Compiled (C11, -O2 -fopenmp) with
 *   -DHEADER='"DIR/<p>_dynamics.h"' -DPFX=<p> -DPFX_UP=<P>
 * and linked with the generated <p>_dynamics.o (the model generated with --batch and at least
 * rnea, crba and aba) and bench/bench_harness.c (its clock and error measure).
 *
 *   batch_driver [N]   N states (default 1024)
 *
 * The states come from a fixed-seed xorshift generator: every q entry uniform in [-3, 3]
 * (unnormalised quaternions are accepted by the generated code), v, a and tau in [-1, 1]. They
 * are held twice: state-major (AoS: state i's q at q_aos + i * NQ) for the scalar functions, and
 * in the batch functions' structure-of-arrays layout (element k of state i at x[k * n + i]).
 * Three forms of each function, each computing all N states into an output array of N states:
 *   scalar    <p>_f called on each state in turn, AoS in and out;
 *   batch     <p>_f_batch(N, ...), SoA;
 *   threads   <p>_f_batch_threads(N, ...), SoA (split over OpenMP's threads when
 *             <p>_dynamics.c was compiled with -fopenmp; OMP_NUM_THREADS sets how many).
 * First the check: every batch and threads output equal to the scalar one to 1e-9 relative
 * (per state: the largest difference over the largest |entry| of the scalar output, as
 * bench_rel_err), and aba's statuses equal (a failed state's outputs are undefined: not
 * compared); else the first mismatch is printed and the exit status is 1. Then the timing: for
 * each function, each form's number of passes (one pass: all N states) such that a measurement
 * takes at least 20 ms; then 15 rounds, each measuring the three forms in turn (round-robin,
 * starting one form further each round), so that a slow spell of the machine falls on all of
 * them; the best measurement of each form.
 *
 * Output lines:
 *   states N
 *   threads T                     OpenMP's maximum threads (1 without OpenMP)
 *   check FUNC FORM REL_ERR       the worst state's relative difference from scalar
 *   failed FUNC N                 aba's failed states (status < 0), the same in every form
 *   time FUNC FORM NS             ns per state, the best of the rounds */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench_harness.h"

#include "bench_prefix.h"
#include "bench_rng.h"

#define NQ UP(NQ)
#define NV UP(NV)
#define NFORM 3
#define NFUNC 3
#define ROUNDS 15
#define MIN_NS 20e6 /* a measurement's least duration */
#define TOL 1e-9

static const char *const form_names[NFORM] = {"scalar", "batch", "threads"};
static const char *const func_names[NFUNC] = {"rnea", "crba", "aba"};
/* the rows of each function's output per state */
static const int out_rows[NFUNC] = {NV, NV * NV, NV};

static int n;
/* inputs: AoS, then SoA */
static double *q_aos, *v_aos, *a_aos, *tau_aos;
static double *q_soa, *v_soa, *a_soa, *tau_soa;
/* outputs of each function and form: [func][form] */
static double *out[NFUNC][NFORM];
static int *status[NFORM];


static void *alloc(size_t bytes) { /* 64-byte aligned, zeroed */
  size_t size = (bytes + 63) / 64 * 64;
  void *p = aligned_alloc(64, size ? size : 64);
  if (!p) {
    fprintf(stderr, "batch_driver: out of memory\n");
    exit(2);
  }
  memset(p, 0, size ? size : 64);
  return p;
}

static double *darray(int rows) { return alloc(sizeof(double) * (size_t)rows * (size_t)n); }

/* SoA copy of AoS x of rows entries per state */
static void to_soa(const double *x, double *y, int rows) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < rows; k++) y[(size_t)k * n + i] = x[(size_t)i * rows + k];
}

/* One pass of a function in a form: all n states. Returns aba's failed states (else 0). */
__attribute__((noinline)) static int pass(int func, int form) {
  double *o = out[func][form];
  int fails = 0;
  switch (func * NFORM + form) {
    case 0: /* rnea */
      for (int i = 0; i < n; i++)
        FN(rnea)(q_aos + (size_t)i * NQ, v_aos + (size_t)i * NV, a_aos + (size_t)i * NV,
                 o + (size_t)i * NV);
      break;
    case 1:
      FN(rnea_batch)(n, q_soa, v_soa, a_soa, o);
      break;
    case 2:
      FN(rnea_batch_threads)(n, q_soa, v_soa, a_soa, o);
      break;
    case 3: /* crba */
      for (int i = 0; i < n; i++) FN(crba)(q_aos + (size_t)i * NQ, o + (size_t)i * NV * NV);
      break;
    case 4:
      FN(crba_batch)(n, q_soa, o);
      break;
    case 5:
      FN(crba_batch_threads)(n, q_soa, o);
      break;
    case 6: /* aba */
      for (int i = 0; i < n; i++) {
        status[0][i] = FN(aba)(q_aos + (size_t)i * NQ, v_aos + (size_t)i * NV,
                               tau_aos + (size_t)i * NV, o + (size_t)i * NV);
        fails += status[0][i] < 0;
      }
      break;
    case 7:
      fails = FN(aba_batch)(n, q_soa, v_soa, tau_soa, o, status[1]);
      break;
    case 8:
      fails = FN(aba_batch_threads)(n, q_soa, v_soa, tau_soa, o, status[2]);
      break;
  }
  return fails;
}

/* The check of func: every form's outputs and statuses against the scalar form's. */
static int check(int func) {
  int rows = out_rows[func], fails[NFORM], bad = 0;
  double *x = malloc(sizeof(double) * (size_t)rows);
  if (!x) return fprintf(stderr, "batch_driver: out of memory\n"), 1;
  for (int form = 0; form < NFORM; form++) fails[form] = pass(func, form);
  for (int form = 1; form < NFORM && !bad; form++) {
    double worst = 0;
    if (fails[form] != fails[0]) {
      printf("MISMATCH %s %s: %d failed states, scalar %d\n", func_names[func],
             form_names[form], fails[form], fails[0]);
      bad = 1;
    }
    for (int i = 0; i < n && !bad; i++) {
      const double *ref = out[func][0] + (size_t)i * rows;
      if (func == 2 && status[form][i] != status[0][i]) {
        printf("MISMATCH %s %s state %d: status %d, scalar %d\n", func_names[func],
               form_names[form], i, status[form][i], status[0][i]);
        bad = 1;
        break;
      }
      if (func == 2 && status[0][i] < 0) continue; /* outputs undefined */
      for (int k = 0; k < rows; k++) x[k] = out[func][form][(size_t)k * n + i];
      double err = bench_rel_err(x, ref, rows);
      if (!(err <= TOL)) { /* NaN too */
        printf("MISMATCH %s %s state %d: relative difference %.3g > %g\n", func_names[func],
               form_names[form], i, err, TOL);
        bad = 1;
      }
      if (err > worst) worst = err;
    }
    if (!bad) printf("check %s %s %.3g\n", func_names[func], form_names[form], worst);
  }
  if (func == 2 && !bad) printf("failed %s %d\n", func_names[func], fails[0]);
  free(x);
  return bad;
}

/* ns of reps passes of func in form */
static double measure(int func, int form, long reps) {
  double t0 = bench_now_ns();
  for (long r = 0; r < reps; r++) pass(func, form);
  return bench_now_ns() - t0;
}

static void time_func(int func) {
  long reps[NFORM];
  double best[NFORM];
  for (int form = 0; form < NFORM; form++) {
    reps[form] = 1;
    while (measure(func, form, reps[form]) < MIN_NS) reps[form] *= 2;
    best[form] = INFINITY;
  }
  for (int round = 0; round < ROUNDS; round++)
    for (int j = 0; j < NFORM; j++) {
      int form = (round + j) % NFORM;
      double ns = measure(func, form, reps[form]) / ((double)reps[form] * n);
      if (ns < best[form]) best[form] = ns;
    }
  for (int form = 0; form < NFORM; form++)
    printf("time %s %s %.2f\n", func_names[func], form_names[form], best[form]);
  fflush(stdout);
}

int main(int argc, char **argv) {
  n = argc > 1 ? atoi(argv[1]) : 1024;
  if (argc > 2 || n < 1) {
    fprintf(stderr, "usage: batch_driver [N]\n");
    return 2;
  }
  q_aos = darray(NQ), v_aos = darray(NV), a_aos = darray(NV), tau_aos = darray(NV);
  q_soa = darray(NQ), v_soa = darray(NV), a_soa = darray(NV), tau_soa = darray(NV);
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < NQ; k++) q_aos[(size_t)i * NQ + k] = uniform(-3, 3);
    for (int k = 0; k < NV; k++) v_aos[(size_t)i * NV + k] = uniform(-1, 1);
    for (int k = 0; k < NV; k++) a_aos[(size_t)i * NV + k] = uniform(-1, 1);
    for (int k = 0; k < NV; k++) tau_aos[(size_t)i * NV + k] = uniform(-1, 1);
  }
  to_soa(q_aos, q_soa, NQ), to_soa(v_aos, v_soa, NV);
  to_soa(a_aos, a_soa, NV), to_soa(tau_aos, tau_soa, NV);
  for (int func = 0; func < NFUNC; func++)
    for (int form = 0; form < NFORM; form++) out[func][form] = darray(out_rows[func]);
  for (int form = 0; form < NFORM; form++) status[form] = alloc(sizeof(int) * (size_t)n);

  printf("states %d\n", n);
#ifdef _OPENMP
  printf("threads %d\n", omp_get_max_threads());
#else
  printf("threads 1\n");
#endif
  int bad = 0;
  for (int func = 0; func < NFUNC; func++) bad |= check(func);
  if (bad) return 1;
  for (int func = 0; func < NFUNC; func++) time_func(func);
  return 0;
}
