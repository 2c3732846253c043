/* mbdc_sincos(n, x, sin_x, cos_x): sin_x[i] = sin x[i] and cos_x[i] = cos x[i] for i < n, within
 * 1 ulp of the correctly rounded values (0.79 ulp from the exact ones), with no call and no
 * table. The loop has no branch, so a compiler vectorizes it: with AVX2, four arguments cost
 * about what one does (the three arrays do not overlap: restrict, which lets it do so without
 * inlining). Written out by mbdc into the generated code that needs it, which computes
 * every sine and cosine a function needs in one call.
 *
 * x = k pi/2 + r with k the integer nearest to x 2/pi and |r| <= pi/4 (a little more when the
 * product rounds the other way). pi/2 = P1 + P2 + P3 + P4: P1..P3 carry 33 significant bits each,
 * so k P1, k P2 and k P3 are exact for |k| < 2^20; P4 is the next 53 bits. x - k P1 is exact
 * (Sterbenz), the next two steps keep their rounding errors (TwoSum), so r = rh + rl is x - k pi/2
 * to about 2^-130 absolute, far below the nearest approach of a double to a multiple of pi/2
 * (about 2^-60): no cancellation shows, at any |x| < 2^20 (about 167 000 turns). Beyond that,
 * and for NaN and infinities, the C library's sin and cos answer (after the loop, which computes
 * something harmless for them).
 *
 * sin r = rh + (rh z S(z) + rl (1 - z/2)) and cos r = 1 - z/2 + z^2 C(z) with z = rh^2: S has
 * degree 6 and C degree 5 in z, the Chebyshev fits of (sin r / r - 1)/z and
 * (cos r - 1 + z/2)/z^2 on [0, (pi/4)^2] (relative error of the fits 0.06 and 0.01 ulp, with the
 * coefficients rounded to double). 1 - z/2 is split so that its rounding error is kept. The
 * quadrant k mod 4 is applied to the bits: s and c swapped under a mask when k is odd, and the
 * sign bits flipped. Needs round-to-nearest and no excess precision (FLT_EVAL_METHOD 0), where k
 * is read from the low bits of x 2/pi + 1.5 2^52; elsewhere k comes from nearbyint. */
static inline void mbdc_sincos(int n, const double *restrict x, double *restrict sin_x,
                               double *restrict cos_x) {
  int in_range = 1;
  for (int i = 0; i < n; i++) in_range &= fabs(x[i]) < 0x1p20;
  for (int i = 0; i < n; i++) {
    union { double d; uint64_t u; } kb, sb, cb;
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    kb.d = x[i] * 0x1.45f306dc9c883p-1 + 0x1.8p52; /* round(x 2/pi) in the low bits */
    const double k = kb.d - 0x1.8p52;
#else
    const double k = nearbyint(x[i] * 0x1.45f306dc9c883p-1);
    kb.u = (uint64_t)(int64_t)(fabs(k) < 0x1p52 ? k : 0.0);
#endif
    /* r = x - k (P1 + P2 + P3 + P4) */
    const double y = x[i] - k * 0x1.921fb544p+0;                         /* exact */
    const double a2 = k * -0x1.0b4611a6p-34, a3 = k * -0x1.3198a2ep-69; /* exact */
    const double s2 = y + a2, b2 = s2 - y, e2 = (y - (s2 - b2)) + (a2 - b2);
    const double s3 = s2 + a3, e3 = a3 - (s3 - s2);
    const double tail = (e2 + e3) + k * -0x1.b839a252049c1p-104;
    const double rh = s3 + tail, rl = tail - (rh - s3);
    const double z = rh * rh, hz = 0.5 * z, w = 1.0 - hz;
    const double S = -0x1.5555555555555p-3 + z * (0x1.1111111111110p-7
                     + z * (-0x1.a01a01a019938p-13 + z * (0x1.71de3a5460903p-19
                     + z * (-0x1.ae645412bbdd3p-26 + z * (0x1.61217f03f5d5cp-33
                     + z * -0x1.ab17cf930dca4p-41)))));
    const double C = 0x1.5555555555555p-5 + z * (-0x1.6c16c16c16967p-10
                     + z * (0x1.a01a019f4eabep-16 + z * (-0x1.27e4fa17d4a58p-22
                     + z * (0x1.1eeb68e39cf4dp-29 + z * -0x1.907d9f5b4de2bp-37))));
    sb.d = rh + (rh * (z * S) + rl * w);
    cb.d = w + ((((1.0 - w) - hz) + z * (z * C)) - rh * rl);
    /* the quadrant: sin(r + k pi/2) is s, c, -s, -c and cos(r + k pi/2) is c, -s, -c, s */
    const uint64_t swap = (sb.u ^ cb.u) & ((uint64_t)0 - (kb.u & 1));
    sb.u ^= swap ^ ((kb.u & 2) << 62);
    cb.u ^= swap ^ (((kb.u + 1) & 2) << 62);
    sin_x[i] = sb.d;
    cos_x[i] = cb.d;
  }
  for (int i = 0; !in_range && i < n; i++)
    if (!(fabs(x[i]) < 0x1p20)) sin_x[i] = sin(x[i]), cos_x[i] = cos(x[i]);
}
