/* mb_testutil.h — double-precision assertions for the runtime tests.
 *
 * cmocka 1.1.5's float assertion compares as float; these compare doubles and, on failure, print
 * the worst index with both values. Include after <cmocka.h>. */
#ifndef MB_TESTUTIL_H
#define MB_TESTUTIL_H

#include <math.h>
#include <stddef.h>

/* Worst |got − want| over n entries; *worst gets its index. */
static inline double mbt_max_diff(const double *got, const double *want, size_t n, size_t *worst) {
  double d = 0.0;
  *worst = 0;
  for (size_t k = 0; k < n; k++) {
    double e = fabs(got[k] - want[k]);
    if (!(e <= d)) d = e, *worst = k; /* NaN counts as worst */
  }
  return d;
}

/* max_k |x_k| (0 for n = 0; NaN entries are passed over). */
static inline double mbt_max_abs(const double *x, size_t n) {
  double s = 0.0;
  for (size_t k = 0; k < n; k++) s = fmax(s, fabs(x[k]));
  return s;
}

/* A x = b, A n × n row-major, by Gaussian elimination with partial pivoting: the tests' own dense
 * solve, independent of the runtime's factorizations. A is overwritten by U, b by x. Returns the
 * smallest |pivot| (NaN if a pivot is NaN; INFINITY for n = 0), or 0 at the first pivot that is
 * exactly 0, the solve then left unfinished: a caller asserts it above its threshold, or divides
 * it by mbt_max_abs of A (taken before the call) for a condition estimate. */
static inline double mbt_gauss(int n, double *A, double *b) {
  double small = INFINITY;
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int r = c + 1; r < n; r++)
      if (fabs(A[n * r + c]) > fabs(A[n * p + c])) p = r;
    for (int k = 0; k < n && p != c; k++) {
      double t = A[n * c + k];
      A[n * c + k] = A[n * p + k], A[n * p + k] = t;
    }
    double t = b[c];
    b[c] = b[p], b[p] = t;
    double a = fabs(A[n * c + c]);
    if (a == 0.0) return 0.0;
    if (!isnan(small) && !(a >= small)) small = a; /* a NaN pivot stays the answer */
    for (int r = c + 1; r < n; r++) {
      double f = A[n * r + c] / A[n * c + c];
      for (int k = c; k < n; k++) A[n * r + k] -= f * A[n * c + k];
      b[r] -= f * b[c];
    }
  }
  for (int r = n - 1; r >= 0; r--) {
    double s = b[r];
    for (int k = r + 1; k < n; k++) s -= A[n * r + k] * b[k];
    b[r] = s / A[n * r + r];
  }
  return small;
}

/* Fails unless max_k |got_k − want_k| ≤ tol · scale. */
static inline void mbt_assert_near(const double *got, const double *want, size_t n, double tol,
                                   double scale, const char *what, const char *file, int line) {
  size_t w;
  double d = mbt_max_diff(got, want, n, &w);
  if (!(d <= tol * scale)) {
    print_error("%s: |got - want| = %.3e > %.3e at index %zu: got %.17g, want %.17g\n", what, d,
                tol * scale, w, got[w], want[w]);
    _fail(file, line);
  }
}

/* Absolute: every |got_k − want_k| ≤ tol. */
#define MBT_ASSERT_NEAR(got, want, n, tol) \
  mbt_assert_near((got), (want), (size_t)(n), (tol), 1.0, #got " vs " #want, __FILE__, __LINE__)
/* Normwise relative: max |got − want| ≤ tol · max(max |want|, 1e-300). */
#define MBT_ASSERT_REL(got, want, n, tol)                                                     \
  mbt_assert_near((got), (want), (size_t)(n), (tol),                                          \
                  fmax(mbt_max_abs((want), (size_t)(n)), 1e-300), #got " vs " #want, __FILE__, \
                  __LINE__)
/* Scalars. */
#define MBT_ASSERT_NEAR1(got, want, tol)                                                       \
  do {                                                                                         \
    double mbt_g_ = (got), mbt_w_ = (want);                                                    \
    mbt_assert_near(&mbt_g_, &mbt_w_, 1, (tol), 1.0, #got " vs " #want, __FILE__, __LINE__);   \
  } while (0)

#endif
