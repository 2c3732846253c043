/* numfmt.h — numbers as C source text: the shortest decimal that reads back exactly.
 *
 * The generator prints every constant through these two functions: the result is
 * deterministic, independent of the locale, and always a floating literal to C (it contains a
 * decimal point or an exponent: "1.0", "0.5", "1e-07", "2.5e+20"). -0.0 is printed as "0.0".
 * Non-finite values give "nan", "inf" or "-inf", which are not C: callers reject them first. */
#ifndef MBG_NUMFMT_H
#define MBG_NUMFMT_H

/* Shortest "%.Ng" (N = 1..17) that strtod reads back as exactly v. */
void mbg_fmt_double(double v, char buf[32]);
/* Shortest "%.Ng" (N = 1..9) that strtof reads back as exactly v; no "f" suffix. */
void mbg_fmt_float(float v, char buf[32]);

#endif
