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

static inline double mbt_max_abs(const double *x, size_t n) {
  double s = 0.0;
  for (size_t k = 0; k < n; k++) s = fmax(s, fabs(x[k]));
  return s;
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
