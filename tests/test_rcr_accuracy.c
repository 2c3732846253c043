/* test_rcr_accuracy.c — the accuracy of mb_rcr (recursive coordinate reduction) and mb_fd_loops
 * (Lagrange multipliers) on the seeded random closed chains of tests/random_loops.c, against a
 * reference q̈ computed independently of both.
 *
 * Reference: the KKT system of the same equations,
 *     [M  Kᵀ] [ q̈ ]   [ τ − h ]
 *     [K  0 ] [−λ ] = [ −K̇v  ],
 * with M = mb_crba, h = mb_nle, K = mb_loop_jacobian, K̇v = mb_loop_bias, all in double. It is
 * solved twice: (1) Gaussian elimination with full pivoting in long double, then two steps of
 * iterative refinement with the residual accumulated in a wider type (__float128 where the
 * compiler has it, else long double); (2) the same elimination entirely in that wider type. The
 * two must agree to 1e-14 relative. The reference is thus exact (to ~1e-15) for the double
 * inputs M, h, K, K̇v — not for the mechanism: the inputs carry their own rounding errors, and
 * mb_rcr does not even use M and h (it runs its own recursions), so a relative difference of a
 * few ε times the constrained system's condition is unavoidable for any double method.
 *
 * Models: random_loops SEED KIND written to a temporary file by the random_loops program (its
 * path is argv[1]; ctest passes it), loaded with mbt_loopmodel (the loops closed as mbdc check
 * closes them); the kinds coupled and headed (seeds 1-8; coupled 5 and 8 do not close), planar
 * and spatial (seeds 1-4, those of the ctest random_loops). States: the recipe of test_rcr.c
 * (q0 ⊕ dv, dv in ±0.4, projected; v in ±1 projected; τ in ±2), and the same with dv in ±1 (as
 * far from q0 as the generated harness goes). Selections: mb_rcr_select at q0 from the chain's
 * end (0) and start (1), each alone and both in order (the rule of mb.h, as the generated p_rcr
 * uses them), and mb_rcr_select at the state itself from the end ("fresh"). The errors are
 * binned by the smallest pivot ratio of the selection used (mb_rcr_pivots).
 *
 * Bounds: mb_fd_loops 1e-12 relative everywhere; mb_rcr 1e-11 relative wherever the selection's
 * ratio is ≥ MB_RCR_SWITCH, and with the rule of mb.h at every state. mb_rcr's error follows ε
 * times the condition of the reduced mass matrix TᵀMT, which the selection's pivot ratio does not
 * bound: unrefined it reached 9.7e-10 here (headed, dv ±1) and 1.9e-10 at ratios ≥ 0.5. Refining
 * q̈ once where the smallest pivot ratio of a tail's reduced mass matrix is below MB_RCR_REFINE
 * (1e-2; about a third of these states) brought the coupled and headed chains to 2.1e-11, but the
 * spatial chains kept 3.6e-11 at dv ±1 (4.9e-11 with clang): they have no tail independents, and
 * their conditioning is in the heads' pivots (ratios 0.015-0.066 against the head's unreduced
 * mass, mb.h). Refining also where a head's ratio is below MB_RCR_REFINE_HEAD (0.1; a threshold
 * of 0.01 changed almost nothing) gives: spatial 6.1e-13, planar 2.9e-13, coupled 1.0e-12, headed
 * 5.9e-12 (dv ±1); fd_loops stays below 2e-13. At a tail threshold of 1e-3 (10% refined) a
 * headed state with a tail ratio of 4.8e-3 kept an error of 1.1e-9 (clang): the ratios are a
 * guide to the conditioning, not a bound.
 *
 * MBDC_RCR_ACC_DUMP=file writes one line per state and selection: kind amplitude seed state case
 * ratio err_rcr err_fd. MBDC_RCR_ACC_SEEDS, MBDC_RCR_ACC_STATES: seeds and states of the coupled
 * and headed kinds (8, 200). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mb_testutil.h"
#include "mbt_loopsys.h"

#define MAXV 64

typedef mbt_rng rng;
typedef mbt_loopsys sys;
#define MAXN (2 * MAXV)

#ifdef __SIZEOF_FLOAT128__
typedef __float128 wide;
#define WIDE_NAME "__float128"
#else
typedef long double wide;
#define WIDE_NAME "long double"
#endif

static const char *gen_path; /* the random_loops program */
static FILE *dump;

/* ------------------------------------------------------------------------------------ helpers */

/* random_loops SEED KIND into a temporary .mbd, loaded; NULL if the model does not load. */
static sys *sys_random(const char *kind, int seed) {
  char path[] = "/tmp/mbdc_rcr_accXXXXXX", cmd[8192];
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  snprintf(cmd, sizeof cmd, "'%s' %d %s > '%s'", gen_path, seed, kind, path);
  if (system(cmd) != 0) fail_msg("%s failed", cmd);
  sys *s = calloc(1, sizeof *s);
  assert_non_null(s);
  int rc = mbt_loopsys_open(path, s);
  remove(path);
  if (rc) return free(s), NULL;
  assert_true(s->nq <= MAXV && s->nv <= MAXV && s->nc > 0 && s->nc <= MAXV);
  return s;
}

static void sys_close(sys *s) {
  mbt_loopsys_close(s);
  free(s);
}

/* test_rcr.c's recipe with dv in ±amp (test_rcr: 0.4; the generated harness: 1). 0, or -1 if no
 * draw assembles. */
static int assembled_state(sys *s, rng *g, double amp, double *q, double *v, double *tau) {
  return mbt_loopsys_state(s, g, amp, q, v, tau);
}

static double rel_err(const double *a, const double *ref, int n) {
  size_t w;
  return mbt_max_diff(a, ref, (size_t)n, &w) / fmax(mbt_max_abs(ref, (size_t)n), 1e-300);
}

/* ------------------------------------------------------------------------------ the reference */

static wide wabs(wide x) { return x < 0 ? -x : x; }

/* Gaussian elimination with full pivoting of A x = b (n × n, row-major), in type T. */
#define GEFP(NAME, T)                                                                              \
  static int NAME(int n, const wide *A0, const wide *b0, wide *x) {                                \
    T A[MAXN * MAXN], b[MAXN], y[MAXN];                                                            \
    int cp[MAXN];                                                                                  \
    for (int i = 0; i < n * n; i++) A[i] = (T)A0[i];                                               \
    for (int i = 0; i < n; i++) b[i] = (T)b0[i], cp[i] = i;                                        \
    for (int k = 0; k < n; k++) {                                                                  \
      int pr = k, pc = k;                                                                          \
      T big = 0;                                                                                   \
      for (int i = k; i < n; i++)                                                                  \
        for (int j = k; j < n; j++) {                                                              \
          T a = A[i * n + j] < 0 ? -A[i * n + j] : A[i * n + j];                                   \
          if (a > big) big = a, pr = i, pc = j;                                                    \
        }                                                                                          \
      if (big == 0) return -1;                                                                     \
      for (int j = 0; j < n; j++) { /* rows k ↔ pr */                                            \
        T t = A[k * n + j];                                                                        \
        A[k * n + j] = A[pr * n + j], A[pr * n + j] = t;                                           \
      }                                                                                            \
      T t = b[k];                                                                                  \
      b[k] = b[pr], b[pr] = t;                                                                     \
      for (int i = 0; i < n; i++) { /* columns k ↔ pc */                                         \
        T u = A[i * n + k];                                                                        \
        A[i * n + k] = A[i * n + pc], A[i * n + pc] = u;                                           \
      }                                                                                            \
      int ti = cp[k];                                                                              \
      cp[k] = cp[pc], cp[pc] = ti;                                                                 \
      for (int i = k + 1; i < n; i++) {                                                            \
        T f = A[i * n + k] / A[k * n + k];                                                         \
        for (int j = k; j < n; j++) A[i * n + j] -= f * A[k * n + j];                              \
        b[i] -= f * b[k];                                                                          \
      }                                                                                            \
    }                                                                                              \
    for (int k = n - 1; k >= 0; k--) {                                                             \
      T s = b[k];                                                                                  \
      for (int j = k + 1; j < n; j++) s -= A[k * n + j] * y[j];                                    \
      y[k] = s / A[k * n + k];                                                                     \
    }                                                                                              \
    for (int k = 0; k < n; k++) x[cp[k]] = (wide)y[k];                                             \
    return 0;                                                                                      \
  }
GEFP(gefp_ld, long double)
GEFP(gefp_wide, wide)

/* The reference q̈ at (q, v, τ): two solutions of the KKT system (see the top). *agree: their
 * relative difference in q̈. */
static void reference(sys *s, const double *q, const double *v, const double *tau, double *qdd,
                      double *agree) {
  int nv = s->nv, nc = s->nc, n = nv + nc;
  double M[MAXV * MAXV], h[MAXV], K[MAXV * MAXV], kb[MAXV];
  static wide A[MAXN * MAXN];
  wide b[MAXN] = {0}, x[MAXN] = {0}, x2[MAXN] = {0}, r[MAXN] = {0}, dx[MAXN] = {0};
  assert_int_equal(mb_crba(s->m, &s->ws, q, M), MB_OK);
  assert_int_equal(mb_nle(s->m, &s->ws, q, v, h), MB_OK);
  assert_int_equal(mb_loop_jacobian(s->m, s->L, &s->ws, &s->lw, q, K), MB_OK);
  assert_int_equal(mb_loop_bias(s->m, s->L, &s->ws, &s->lw, q, v, kb), MB_OK);
  for (int i = 0; i < n * n; i++) A[i] = 0;
  for (int i = 0; i < nv; i++) {
    for (int j = 0; j < nv; j++) A[i * n + j] = M[i * nv + j];
    b[i] = (wide)tau[i] - (wide)h[i];
  }
  for (int c = 0; c < nc; c++) {
    for (int j = 0; j < nv; j++) A[(nv + c) * n + j] = A[j * n + nv + c] = K[c * nv + j];
    b[nv + c] = -(wide)kb[c];
  }
  assert_int_equal(gefp_ld(n, A, b, x), 0);
  for (int it = 0; it < 2; it++) {
    for (int i = 0; i < n; i++) {
      wide t = b[i];
      for (int j = 0; j < n; j++) t -= A[i * n + j] * x[j];
      r[i] = t;
    }
    assert_int_equal(gefp_ld(n, A, r, dx), 0);
    for (int i = 0; i < n; i++) x[i] += dx[i];
  }
  assert_int_equal(gefp_wide(n, A, b, x2), 0);
  wide d = 0, big = 0;
  for (int i = 0; i < nv; i++) {
    if (wabs(x[i] - x2[i]) > d) d = wabs(x[i] - x2[i]);
    if (wabs(x2[i]) > big) big = wabs(x2[i]);
    qdd[i] = (double)x2[i];
  }
  *agree = (double)(d / big);
}

/* ------------------------------------------------------------------------------ measurements */

#define NBIN                                                                                       \
  5 /* smallest pivot ratio of the selection used: < 1e-3, 1e-3.., 1e-2.., 1e-1.., ≥ 0.5 */
static const double bin_lo[NBIN] = {0, 1e-3, 1e-2, 1e-1, 0.5};

typedef struct stats {
  double worst[NBIN], worst_scaled[NBIN]; /* max err, max err × ratio */
  int count[NBIN];
} stats;

static int bin_of(double r) {
  int b = 0;
  while (b + 1 < NBIN && r >= bin_lo[b + 1]) b++;
  return b;
}

static void note(stats *st, double ratio, double err) {
  int b = bin_of(ratio);
  st->count[b]++;
  st->worst[b] = fmax(st->worst[b], err);
  st->worst_scaled[b] = fmax(st->worst_scaled[b], err * ratio);
}

static void print_stats(const char *what, const stats *st) {
  printf("  %-24s", what);
  for (int b = 0; b < NBIN; b++)
    if (st->count[b])
      printf(" | r>=%-6g n %3d err %.1e (x r %.1e)", bin_lo[b], st->count[b], st->worst[b],
             st->worst_scaled[b]);
  printf("\n");
}

/* The selection's smallest ratio at q. */
static double min_ratio(sys *s, const double *q, const int *dep) {
  double ratio[MAXV], lo = -1;
  assert_int_equal(mb_rcr_pivots(s->m, s->L, &s->ws, &s->lw, q, dep, ratio, &lo), MB_OK);
  return lo;
}

#define NCASE 4 /* selection 0 alone, 1 alone, both (the rule of mb.h), fresh at the state */
static const char *const case_name[NCASE] = {"rcr sel 0 (end)", "rcr sel 1 (start)",
                                             "rcr sel 0, 1 (rule)", "rcr fresh sel"};

typedef struct totals {
  double fd, ref_agree;
  double rcr_ok[NCASE]; /* worst rcr error where the used selection's ratio ≥ MB_RCR_SWITCH */
  stats rcr[NCASE], fd_by_ratio;
} totals;

static void merge(stats *to, const stats *from) {
  for (int b = 0; b < NBIN; b++) {
    to->count[b] += from->count[b];
    to->worst[b] = fmax(to->worst[b], from->worst[b]);
    to->worst_scaled[b] = fmax(to->worst_scaled[b], from->worst_scaled[b]);
  }
}

/* One model, nstates states. */
static void measure(const char *kind, int seed, int nstates, double amp, totals *tot) {
  sys *s = sys_random(kind, seed);
  if (!s) {
    printf("%s %d: does not load (mbdc check fails)\n", kind, seed);
    return;
  }
  int nv = s->nv, nc = s->nc, dep[3 * MAXV], fresh[MAXV], used;
  double q[MAXV], v[MAXV], tau[MAXV], ref[MAXV], qdd[MAXV], agree;
  for (int f = 0; f < 2; f++)
    assert_int_equal(mb_rcr_select(s->m, s->L, &s->ws, &s->lw, s->lm.q0, f, NULL, dep + f * nc),
                     MB_OK);
  stats rs[NCASE] = {0}, fs = {0};
  double fd_worst = 0, ok_worst[NCASE] = {0}, agree_worst = 0;
  int nfresh_fail = 0;
  rng g = {0x5eedu * (uint64_t)seed + (uint64_t)kind[0]};
  for (int n = 0; n < nstates; n++) {
    if (assembled_state(s, &g, amp, q, v, tau)) fail_msg("%s %d: no assembled state", kind, seed);
    reference(s, q, v, tau, ref, &agree);
    agree_worst = fmax(agree_worst, agree);
    assert_int_equal(mb_fd_loops(s->m, s->L, &s->ws, &s->lw, q, v, tau, qdd, NULL), MB_OK);
    double efd = rel_err(qdd, ref, nv);
    fd_worst = fmax(fd_worst, efd);
    int have_fresh = mb_rcr_select(s->m, s->L, &s->ws, &s->lw, q, 0, NULL, fresh) == MB_OK;
    nfresh_fail += !have_fresh;
    for (int k = 0; k < NCASE; k++) {
      const int *d = k < 2 ? dep + k * nc : k == 2 ? dep : fresh;
      int nsel = k == 2 ? 2 : 1;
      if (k == 3 && !have_fresh) continue;
      int rc = mb_rcr(s->m, s->L, &s->ws, &s->lw, nsel, d, q, v, tau, qdd, &used);
      if (rc != MB_OK) continue; /* a singular selection alone */
      double r = min_ratio(s, q, d + (k == 2 ? used * nc : 0)), e = rel_err(qdd, ref, nv);
      note(&rs[k], r, e);
      if (k == 2) note(&fs, r, efd);
      if (r >= MB_RCR_SWITCH) ok_worst[k] = fmax(ok_worst[k], e);
      if (dump) fprintf(dump, "%s %g %d %d %d %.6e %.6e %.6e\n", kind, amp, seed, n, k, r, e, efd);
    }
  }
  printf("%s %d (dv ±%g): nv %d nc %d: fd_loops worst %.1e; rcr (rule, ratio >= 0.01) worst "
         "%.1e; reference agreement %.1e; fresh selection failed at %d states\n",
         kind, seed, amp, nv, nc, fd_worst, ok_worst[2], agree_worst, nfresh_fail);
  for (int k = 0; k < NCASE; k++) {
    merge(&tot->rcr[k], &rs[k]);
    tot->rcr_ok[k] = fmax(tot->rcr_ok[k], ok_worst[k]);
  }
  merge(&tot->fd_by_ratio, &fs);
  tot->fd = fmax(tot->fd, fd_worst);
  tot->ref_agree = fmax(tot->ref_agree, agree_worst);
  sys_close(s);
}

static totals run_kind(const char *kind, int nseeds, int nstates, double amp) {
  totals t = {0};
  for (int seed = 1; seed <= nseeds; seed++) measure(kind, seed, nstates, amp, &t);
  printf("%s (dv ±%g), %d seeds x %d states: fd_loops worst %.2e; rcr worst where the ratio >= "
         "0.01: sel 0 %.2e, sel 1 %.2e, rule %.2e, fresh %.2e; reference (%s) self-agreement "
         "%.1e\n",
         kind, amp, nseeds, nstates, t.fd, t.rcr_ok[0], t.rcr_ok[1], t.rcr_ok[2], t.rcr_ok[3],
         WIDE_NAME, t.ref_agree);
  for (int k = 0; k < NCASE; k++) print_stats(case_name[k], &t.rcr[k]);
  print_stats("fd_loops (rule's ratio)", &t.fd_by_ratio);
  assert_true(t.ref_agree <= 1e-14);
  if (!(t.fd <= 1e-12)) fail_msg("%s: mb_fd_loops vs the reference: %.3e", kind, t.fd);
  /* mb_rcr (refined where a tail's pivot ratio is below MB_RCR_REFINE or a head's below
   * MB_RCR_REFINE_HEAD): every selection where its ratio is ≥ MB_RCR_SWITCH, and the rule of mb.h
   * at every state, to 1e-11 (measured: 5.9e-12, headed, dv ±1, gcc and clang) */
  for (int k = 0; k < NCASE; k++)
    if (!(t.rcr_ok[k] <= 1e-11))
      fail_msg("%s: %s vs the reference: %.3e", kind, case_name[k], t.rcr_ok[k]);
  for (int b = 0; b < NBIN; b++)
    if (!(t.rcr[2].worst[b] <= 1e-11))
      fail_msg("%s: mb_rcr (rule) vs the reference: %.3e", kind, t.rcr[2].worst[b]);
  return t;
}

static int env_int(const char *name, int dflt) {
  const char *s = getenv(name);
  return s && *s ? atoi(s) : dflt;
}

static void test_coupled(void **state) {
  (void)state;
  for (int a = 0; a < 2; a++)
    run_kind("coupled", env_int("MBDC_RCR_ACC_SEEDS", 8), env_int("MBDC_RCR_ACC_STATES", 200),
             a ? 1.0 : 0.4);
}

static void test_headed(void **state) {
  (void)state;
  for (int a = 0; a < 2; a++)
    run_kind("headed", env_int("MBDC_RCR_ACC_SEEDS", 8), env_int("MBDC_RCR_ACC_STATES", 200),
             a ? 1.0 : 0.4);
}

static void test_planar(void **state) {
  (void)state;
  for (int a = 0; a < 2; a++) run_kind("planar", 4, 100, a ? 1.0 : 0.4);
}

static void test_spatial(void **state) {
  (void)state;
  for (int a = 0; a < 2; a++) run_kind("spatial", 4, 100, a ? 1.0 : 0.4);
}

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: test_rcr_accuracy RANDOM_LOOPS\n"), 2;
  gen_path = argv[1];
  const char *d = getenv("MBDC_RCR_ACC_DUMP");
  if (d && *d && !(dump = fopen(d, "w"))) return perror(d), 2;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_coupled),
      cmocka_unit_test(test_headed),
      cmocka_unit_test(test_planar),
      cmocka_unit_test(test_spatial),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  if (dump) fclose(dump);
  return rc;
}
