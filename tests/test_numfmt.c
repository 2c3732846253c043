/* test_numfmt.c — shortest round-trip numbers (generator/numfmt.c): exact text of edge cases,
 * and random bit patterns against a linear search over the precisions. */
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

#include "base/numfmt.h"

static uint64_t rng = 0x9e3779b97f4a7c15u; /* xorshift64*: the same sequence everywhere */
static uint64_t rnd_u64(void) {
  rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
  return rng * 0x2545f4914f6cdd1du;
}
static double rnd_unit(void) { return (double)(rnd_u64() >> 11) * 0x1p-53; } /* [0, 1) */
static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Reference: the first of %.1g ... %.17g that reads back, found linearly, with ".0" when bare. */
static void shortest_linear(double v, int isfloat, char *buf) {
  if (v == 0.0) v = 0.0;
  for (int p = 1; p <= 17; p++) {
    snprintf(buf, 32, "%.*g", p, v);
    if (isfloat ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v) break;
  }
  if (!strpbrk(buf, ".e")) strcat(buf, ".0");
}

static void t_numfmt(void **st) {
  (void)st;
  static const struct { double v; const char *want; } d[] = {
      {0.0, "0.0"}, {-0.0, "0.0"}, {1.0, "1.0"}, {-2.0, "-2.0"}, {0.1, "0.1"}, {0.5, "0.5"},
      {1e-300, "1e-300"}, {5e-324, "5e-324"}, {DBL_MAX, "1.7976931348623157e+308"},
      {1.0 / 3.0, "0.3333333333333333"}, {1e-7, "1e-07"}, {2.5e20, "2.5e+20"},
      {123.456, "123.456"}, {1e100, "1e+100"}, {NAN, "nan"}, {-INFINITY, "-inf"}};
  char buf[32];
  for (size_t i = 0; i < sizeof d / sizeof *d; i++) {
    mbg_fmt_double(d[i].v, buf);
    assert_string_equal(buf, d[i].want);
  }
  static const struct { float v; const char *want; } f[] = {
      {0.0f, "0.0"}, {-0.0f, "0.0"}, {1.0f, "1.0"}, {0.1f, "0.1"}, {1.0f / 3.0f, "0.33333334"},
      {FLT_MAX, "3.4028235e+38"}, {1e-45f, "1e-45"}, {16777216.0f, "16777216.0"}};
  for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
    mbg_fmt_float(f[i].v, buf);
    assert_string_equal(buf, f[i].want);
  }
  /* random bit patterns: read back exactly, always a floating literal */
  for (int k = 0; k < 50000; k++) {
    uint64_t bits = rnd_u64();
    double x;
    float y;
    uint32_t b32 = (uint32_t)(bits >> 32);
    memcpy(&x, &bits, sizeof x);
    memcpy(&y, &b32, sizeof y);
    if (k % 4 == 0) x = ldexp(rnd_unit(), (int)(rnd_u64() % 40) - 20); /* ordinary magnitudes too */
    char ref[32];
    if (isfinite(x)) {
      mbg_fmt_double(x, buf);
      assert_true(strtod(buf, NULL) == x && strpbrk(buf, ".e") && !strchr(buf, ','));
      assert_true(x == 0.0 || same_bits(strtod(buf, NULL), x));
      shortest_linear(x, 0, ref);
      assert_string_equal(buf, ref);
    }
    if (isfinite(y)) {
      mbg_fmt_float(y, buf);
      assert_true(strtof(buf, NULL) == y && strpbrk(buf, ".e"));
      shortest_linear((double)y, 1, ref);
      assert_string_equal(buf, ref);
    }
  }
}


int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(t_numfmt)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
