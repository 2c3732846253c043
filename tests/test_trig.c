/* test_trig.c — the sine-cosine pair mbdc writes into generated code (templates/c/sincos_*.c),
 * included here byte for byte as the generator writes it.
 *
 * Reference: the correctly rounded value, taken as the long double sinl/cosl of the C library
 * (64-bit significand, exact argument reduction) rounded to double; for float, the double sin/cos
 * rounded to float. Claim checked: every result is the correctly rounded value or a neighbour
 * (within 1 ulp), and the double one within 0.79 ulp of the exact value.
 * Points: a dense sweep, the doubles nearest to every multiple k pi/2 the fast path reaches (the
 * hard cases of the argument reduction), random points in every binade, and for float every
 * float from 2^-12 to 2^10 (below 2^-12, sin x = x and cos x = 1 are checked in a sweep). The
 * fallback (|x| >= 2^20, 2^10 in float; NaN, infinities) is the C library's own answer.
 * Built twice by CMake: as is, and where the compiler and this machine have fused multiply-adds,
 * with contraction on (test_trig_fma). */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../templates/c/sincos_double.c"
#include "../templates/c/sincos_float.c"

/* |got - cr| in units of the last place of cr, the double nearest to ref. */
static double ulps_to_cr(double got, long double ref) {
  double cr = (double)ref;
  if (got == cr) return 0.0;
  double u = nextafter(fabs(cr), INFINITY) - fabs(cr);
  return fabs(got - cr) / u;
}

/* |got - ref| in units of the last place of the double nearest to ref. */
static double ulps_to_exact(double got, long double ref) {
  double cr = fabs((double)ref);
  long double u = (long double)nextafter(cr, INFINITY) - cr;
  return (double)(fabsl((long double)got - ref) / u);
}

typedef struct worst {
  double cr, exact, x;
  long n;
} worst;

static void check_double(worst *w, double x) {
  double s, c;
  mbdc_sincos(x, &s, &c);
  long double rs = sinl((long double)x), rc = cosl((long double)x);
  double e = fmax(ulps_to_cr(s, rs), ulps_to_cr(c, rc));
  double ex = fmax(ulps_to_exact(s, rs), ulps_to_exact(c, rc));
  if (e > w->cr) w->cr = e, w->x = x;
  if (ex > w->exact) w->exact = ex;
  w->n++;
}

static void expect_within(const worst *w, const char *what) {
  printf("  %s: %ld points, worst %.3f ulp from the correctly rounded value (x = %.17g), "
         "%.3f ulp from the exact one\n", what, w->n, w->cr, w->x, w->exact);
  assert_true(w->cr <= 1.0);
  assert_true(w->exact < 0.79);
}

static void t_double_sweep(void **state) {
  (void)state;
  worst w = {0};
  const long n = 1L << 21;
  for (long i = 0; i <= n; i++) check_double(&w, -50.0 + 100.0 * (double)i / (double)n);
  for (long i = 0; i <= n / 8; i++) check_double(&w, ldexp((double)i, -40)); /* sin x = x */
  expect_within(&w, "sweep of [-50, 50] and of [0, 2^-22]");
}

/* The doubles around k pi/2 for every k the fast path reaches (|x| < 2^20): where x - k pi/2
 * cancels most, and an argument reduction with too few digits of pi shows. */
static void t_double_near_multiples(void **state) {
  (void)state;
  worst w = {0};
  const long double pio2 = 1.57079632679489661923132169163975144L;
  for (long k = 1; (double)k * 1.5707963267948966 < 0x1p20; k++) {
    double x = (double)((long double)k * pio2);
    check_double(&w, x);
    check_double(&w, nextafter(x, 0.0));
    check_double(&w, -nextafter(x, INFINITY));
  }
  expect_within(&w, "the doubles next to k pi/2");
}

static void t_double_random(void **state) {
  (void)state;
  worst w = {0};
  uint64_t r = 0x9e3779b97f4a7c15u;
  for (long i = 0; i < 1000000; i++) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17; /* xorshift64 */
    double m = 1.0 + (double)(r >> 11) * 0x1p-53;
    int e = (int)((r >> 3) % 81) - 60; /* binades 2^-60 .. 2^20 */
    double x = ldexp(m, e) * ((r & 1) ? -1.0 : 1.0);
    if (fabs(x) < 0x1p20) check_double(&w, x);
  }
  expect_within(&w, "random points in the binades 2^-60 .. 2^20");
}

static void t_double_fallback_and_symmetry(void **state) {
  (void)state;
  const double big[] = {0x1p20, -0x1p20, 1e7, -3.5e12, 1e300, INFINITY, -INFINITY};
  for (size_t k = 0; k < sizeof big / sizeof *big; k++) {
    double s, c;
    mbdc_sincos(big[k], &s, &c);
    double rs = sin(big[k]), rc = cos(big[k]);
    assert_true((isnan(s) && isnan(rs)) || s == rs);
    assert_true((isnan(c) && isnan(rc)) || c == rc);
  }
  double s, c;
  mbdc_sincos(NAN, &s, &c);
  assert_true(isnan(s) && isnan(c));
  /* sin is odd and cos even, to the bit */
  for (double x = 1e-9; x < 0x1p20; x *= 1.0137) {
    double s1, c1, s2, c2;
    mbdc_sincos(x, &s1, &c1);
    mbdc_sincos(-x, &s2, &c2);
    assert_true(s1 == -s2 && c1 == c2);
  }
}

static double ulpsf_to_cr(float got, double ref) {
  float cr = (float)ref;
  if (got == cr) return 0.0;
  float u = nextafterf(fabsf(cr), INFINITY) - fabsf(cr);
  return fabs((double)got - (double)cr) / (double)u;
}

/* Every float from 2^-12 up to the fallback at 2^10, and the negatives by symmetry (to the bit). */
static void t_float_exhaustive(void **state) {
  (void)state;
  double worst_e = 0.0;
  float worst_x = 0.0f;
  long n = 0;
  for (float x = 0x1p-12f; x < 0x1p10f; x = nextafterf(x, INFINITY), n++) {
    float s, c;
    mbdc_sincosf(x, &s, &c);
    double e = fmax(ulpsf_to_cr(s, sin((double)x)), ulpsf_to_cr(c, cos((double)x)));
    if (e > worst_e) worst_e = e, worst_x = x;
    if ((n & 1023) == 0) {
      float s2, c2;
      mbdc_sincosf(-x, &s2, &c2);
      assert_true(s2 == -s && c2 == c);
    }
  }
  for (float x = 0x1p-40f; x < 0x1p-12f; x *= 1.001f) {
    float s, c;
    mbdc_sincosf(x, &s, &c);
    double e = fmax(ulpsf_to_cr(s, sin((double)x)), ulpsf_to_cr(c, cos((double)x)));
    if (e > worst_e) worst_e = e, worst_x = x;
  }
  printf("  float: %ld floats, worst %.3f ulp from the correctly rounded value (x = %.9g)\n", n,
         worst_e, (double)worst_x);
  assert_true(worst_e <= 1.0);
  const float big[] = {0x1p10f, -3000.0f, 1e30f, INFINITY};
  for (size_t k = 0; k < sizeof big / sizeof *big; k++) {
    float s, c;
    mbdc_sincosf(big[k], &s, &c);
    float rs = sinf(big[k]), rc = cosf(big[k]);
    assert_true((isnan(s) && isnan(rs)) || s == rs);
    assert_true((isnan(c) && isnan(rc)) || c == rc);
  }
  float s, c;
  mbdc_sincosf(NAN, &s, &c);
  assert_true(isnan(s) && isnan(c));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(t_double_sweep),
      cmocka_unit_test(t_double_near_multiples),
      cmocka_unit_test(t_double_random),
      cmocka_unit_test(t_double_fallback_and_symmetry),
      cmocka_unit_test(t_float_exhaustive),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
