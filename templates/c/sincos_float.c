/* mbdc_sincosf(n, x, sin_x, cos_x): sin_x[i] = sin x[i] and cos_x[i] = cos x[i] for i < n in
 * float, within 1 ulp of the correctly rounded values, in float arithmetic only (for processors
 * with a single-precision unit). Written out by mbdc into the generated code that needs it; a
 * loop without branches over arrays that do not overlap, as mbdc_sincos in double.
 *
 * As mbdc_sincos: x = k pi/2 + r, pi/2 = P1 + P2 + P3 + P4 with P1..P3 of 14 significant bits
 * (k Pi exact for |k| < 2^10) and P4 the next 24 bits, so r = rh + rl is x - k pi/2 to about
 * 2^-57 absolute, below the nearest approach of a float to a multiple of pi/2, at any |x| < 2^10
 * (about 160 turns). Beyond that, and for NaN and infinities, the C library's sinf and cosf
 * answer. S has degree 3 and C degree 3 in z = rh^2: the Chebyshev fits of (sin r / r - 1)/z and
 * (cos r - 1 + z/2)/z^2 on [0, (pi/4)^2] (0.06 and 0.01 ulp, coefficients rounded to float). */
static inline void mbdc_sincosf(int n, const float *restrict x, float *restrict sin_x,
                                float *restrict cos_x) {
  int in_range = 1;
  for (int i = 0; i < n; i++) in_range &= fabsf(x[i]) < 0x1p10f;
  for (int i = 0; i < n; i++) {
    union { float f; uint32_t u; } kb, sb, cb;
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    kb.f = x[i] * 0x1.45f306p-1f + 0x1.8p23f; /* round(x 2/pi) in the low bits */
    const float k = kb.f - 0x1.8p23f;
#else
    const float k = nearbyintf(x[i] * 0x1.45f306p-1f);
    kb.u = (uint32_t)(int32_t)(fabsf(k) < 0x1p23f ? k : 0.0f);
#endif
    /* r = x - k (P1 + P2 + P3 + P4) */
    const float y = x[i] - k * 0x1.922p+0f;                     /* exact */
    const float a2 = k * 0x1.2afp-18f, a3 = k * -0x1.0b48p-34f; /* exact */
    const float s2 = y + a2, b2 = s2 - y, e2 = (y - (s2 - b2)) + (a2 - b2);
    const float s3 = s2 + a3, e3 = a3 - (s3 - s2);
    const float tail = (e2 + e3) + k * 0x1.ee59dap-50f;
    const float rh = s3 + tail, rl = tail - (rh - s3);
    const float z = rh * rh, hz = 0.5f * z, w = 1.0f - hz;
    const float S = -0x1.555556p-3f + z * (0x1.11110ep-7f + z * (-0x1.a013a8p-13f
                    + z * 0x1.6dbe02p-19f));
    const float C = 0x1.555556p-5f + z * (-0x1.6c16cp-10f + z * (0x1.a015c4p-16f
                    + z * -0x1.25244ap-22f));
    sb.f = rh + (rh * (z * S) + rl * w);
    cb.f = w + ((((1.0f - w) - hz) + z * (z * C)) - rh * rl);
    /* the quadrant: sin(r + k pi/2) is s, c, -s, -c and cos(r + k pi/2) is c, -s, -c, s */
    const uint32_t swap = (sb.u ^ cb.u) & ((uint32_t)0 - (kb.u & 1));
    sb.u ^= swap ^ ((kb.u & 2) << 30);
    cb.u ^= swap ^ (((kb.u + 1) & 2) << 30);
    sin_x[i] = sb.f;
    cos_x[i] = cb.f;
  }
  for (int i = 0; !in_range && i < n; i++)
    if (!(fabsf(x[i]) < 0x1p10f)) sin_x[i] = sinf(x[i]), cos_x[i] = cosf(x[i]);
}
