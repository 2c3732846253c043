/* numfmt.c — shortest round-trip decimal text of doubles and floats (see numfmt.h).
 *
 * Reading back exactly is monotone in the number of digits: the nearest (p+1)-digit decimal is
 * at least as close to v as the nearest p-digit one (which is also a (p+1)-digit decimal), so
 * the shortest precision is found by bisection over 1..17 (1..9 for floats). */
#include "base/numfmt.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "nan", "inf", "-inf"; returns 1 when v is not finite. */
static int fmt_nonfinite(double v, char buf[32]) {
  if (isnan(v)) {
    strcpy(buf, "nan");
  } else if (isinf(v)) {
    strcpy(buf, v < 0 ? "-inf" : "inf");
  } else {
    return 0;
  }
  return 1;
}

/* Text printed in the current locale → C-locale text with a '.', plus ".0" when the text
 * would read as an integer. The locale's decimal point is used only while the text is read
 * back by strtod/strtof, which follow the same locale. */
static void fmt_finish(char buf[32]) {
  const char *dp = localeconv()->decimal_point;
  size_t dl = dp ? strlen(dp) : 0;
  if (dl > 0 && strcmp(dp, ".") != 0) {
    char *p = strstr(buf, dp);
    if (p) {
      *p = '.';
      memmove(p + 1, p + dl, strlen(p + dl) + 1);
    }
  }
  if (!strpbrk(buf, ".eE")) strcat(buf, ".0"); /* at most 17 digits + sign: fits */
}

/* "%.*g" into buf: at most 17 significant digits, so it fits in 32 bytes; formatted through a
 * buffer large enough for any double so the compiler can see nothing is truncated. */
static void fmt_g(char buf[32], int prec, double v) {
  char tmp[330];
  snprintf(tmp, sizeof tmp, "%.*g", prec, v);
  size_t n = strlen(tmp);
  if (n > 31) n = 31;
  memcpy(buf, tmp, n);
  buf[n] = '\0';
}

void mbg_fmt_double(double v, char buf[32]) {
  if (fmt_nonfinite(v, buf)) return;
  if (v == 0.0) v = 0.0; /* -0.0 → 0.0 */
  int lo = 1, hi = 17; /* %.17g always reads back */
  while (lo < hi) {
    int p = (lo + hi) / 2;
    fmt_g(buf, p, v);
    if (strtod(buf, NULL) == v) hi = p; else lo = p + 1;
  }
  fmt_g(buf, lo, v);
  fmt_finish(buf);
}

void mbg_fmt_float(float v, char buf[32]) {
  if (fmt_nonfinite((double)v, buf)) return;
  if (v == 0.0f) v = 0.0f;
  int lo = 1, hi = 9; /* %.9g always reads back */
  while (lo < hi) {
    int p = (lo + hi) / 2;
    fmt_g(buf, p, (double)v);
    if (strtof(buf, NULL) == v) hi = p; else lo = p + 1;
  }
  fmt_g(buf, lo, (double)v);
  fmt_finish(buf);
}
