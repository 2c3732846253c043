/* test_trig.c — the sine-cosine batch mbdc writes into generated code (templates/c/sincos_*.c),
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
 * The points go through the batch LANES at a time (an odd count, so the vectorized loop's
 * remainder runs too), each lane also alone (n = 1): the two agree to the bit, in-range lanes
 * beside fallback ones included. test_trig_fma (MBDC_TRIG_CONTRACTED) checks both against the
 * reference instead: the compiler may fuse the vector loop and the lone call differently.
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
#include <string.h>

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

enum { LANES = 7 };

typedef struct worst {
  double cr, exact, x;
  long n;
  double pending[LANES]; /* the batch being filled */
  int npending;
} worst;

/* Two results of one argument the same to the bit (a NaN: both NaN). */
static int same(double a, double b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0; }

static void record(worst *w, double x, double s, double c) {
  long double rs = sinl((long double)x), rc = cosl((long double)x);
  double e = fmax(ulps_to_cr(s, rs), ulps_to_cr(c, rc));
  double ex = fmax(ulps_to_exact(s, rs), ulps_to_exact(c, rc));
  if (e > w->cr) w->cr = e, w->x = x;
  if (ex > w->exact) w->exact = ex;
  w->n++;
}

static void flush_double(worst *w) {
  double s[LANES], c[LANES];
  mbdc_sincos(w->npending, w->pending, s, c);
  for (int i = 0; i < w->npending; i++) {
    double x = w->pending[i], s1, c1;
    mbdc_sincos(1, &x, &s1, &c1);
    record(w, x, s[i], c[i]);
#ifdef MBDC_TRIG_CONTRACTED
    record(w, x, s1, c1); /* fused differently in the vector loop and alone: each checked */
#else
    assert_true(same(s[i], s1) && same(c[i], c1));
#endif
  }
  w->npending = 0;
}

static void check_double(worst *w, double x) {
  w->pending[w->npending++] = x;
  if (w->npending == LANES) flush_double(w);
}

static void expect_within(worst *w, const char *what) {
  flush_double(w);
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
  /* the fallback lanes beside in-range ones, in one batch */
  const double x[] = {0x1p20, 0.5, -0x1p20, 1e7, -3.5e12, 3.0, 1e300, INFINITY, -INFINITY, NAN,
                      -0x1.fffffffffffffp19};
  enum { N = sizeof x / sizeof *x };
  double s[N], c[N];
  mbdc_sincos(N, x, s, c);
  for (int k = 0; k < N; k++) {
    double rs = sin(x[k]), rc = cos(x[k]), s1, c1;
    mbdc_sincos(1, &x[k], &s1, &c1);
    assert_true(same(s[k], s1) && same(c[k], c1));
    if (fabs(x[k]) < 0x1p20) {
      assert_true(fabs(s[k] - rs) <= 0x1p-52 && fabs(c[k] - rc) <= 0x1p-52);
    } else {
      assert_true(same(s[k], rs) && same(c[k], rc));
    }
  }
  /* sin is odd and cos even, to the bit */
  for (double y = 1e-9; y < 0x1p20; y *= 1.0137) {
    const double pm[2] = {y, -y};
    double s2[2], c2[2];
    mbdc_sincos(2, pm, s2, c2);
    assert_true(s2[0] == -s2[1] && c2[0] == c2[1]);
  }
}

static double ulpsf_to_cr(float got, double ref) {
  float cr = (float)ref;
  if (got == cr) return 0.0;
  float u = nextafterf(fabsf(cr), INFINITY) - fabsf(cr);
  return fabs((double)got - (double)cr) / (double)u;
}

static int samef(float a, float b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0; }

/* Every float from 2^-12 up to the fallback at 2^10, LANES at a time, and the negatives by
 * symmetry (to the bit); every 1024th lane also alone, to the bit. */
static void t_float_exhaustive(void **state) {
  (void)state;
  double worst_e = 0.0;
  float worst_x = 0.0f, xs[LANES], s[LANES], c[LANES];
  long n = 0;
  int k = 0;
  for (float x = 0x1p-12f;; x = nextafterf(x, INFINITY)) {
    int last = !(x < 0x1p10f);
    if (!last) xs[k++] = x;
    if (k < LANES && !last) continue;
    mbdc_sincosf(k, xs, s, c);
    for (int i = 0; i < k; i++, n++) {
      double e = fmax(ulpsf_to_cr(s[i], sin((double)xs[i])), ulpsf_to_cr(c[i], cos((double)xs[i])));
      if (e > worst_e) worst_e = e, worst_x = xs[i];
      if ((n & 1023) == 0) {
        float s1, c1, s2[2], c2[2];
        const float pm[2] = {xs[i], -xs[i]};
        mbdc_sincosf(1, &xs[i], &s1, &c1);
        mbdc_sincosf(2, pm, s2, c2);
        assert_true(samef(s2[1], -s2[0]) && samef(c2[1], c2[0]));
#ifdef MBDC_TRIG_CONTRACTED
        e = fmax(ulpsf_to_cr(s1, sin((double)xs[i])), ulpsf_to_cr(c1, cos((double)xs[i])));
        if (e > worst_e) worst_e = e, worst_x = xs[i];
#else
        assert_true(samef(s1, s[i]) && samef(c1, c[i]));
#endif
      }
    }
    k = 0;
    if (last) break;
  }
  for (float x = 0x1p-40f; x < 0x1p-12f; x *= 1.001f) {
    float s1, c1;
    mbdc_sincosf(1, &x, &s1, &c1);
    double e = fmax(ulpsf_to_cr(s1, sin((double)x)), ulpsf_to_cr(c1, cos((double)x)));
    if (e > worst_e) worst_e = e, worst_x = x;
  }
  printf("  float: %ld floats, worst %.3f ulp from the correctly rounded value (x = %.9g)\n", n,
         worst_e, (double)worst_x);
  assert_true(worst_e <= 1.0);
  const float big[] = {0x1p10f, 0.25f, -3000.0f, 1e30f, -2.0f, INFINITY, NAN};
  enum { NB = sizeof big / sizeof *big };
  float sb[NB], cb[NB];
  mbdc_sincosf(NB, big, sb, cb);
  for (int i = 0; i < NB; i++) {
    float rs = sinf(big[i]), rc = cosf(big[i]);
    if (fabsf(big[i]) < 0x1p10f)
      assert_true(fabsf(sb[i] - rs) <= 0x1p-23f && fabsf(cb[i] - rc) <= 0x1p-23f);
    else
      assert_true(samef(sb[i], rs) && samef(cb[i], rc));
  }
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
