/* beam.c — exact cantilever bending modes (Meirovitch, "Fundamentals of Vibrations", 2001;
 * Blevins, "Formulas for Natural Frequency and Mode Shape", 1979).
 *
 * The textbook shape φ = cosh βx − cos βx − σ (sinh βx − sin βx), σ = (cosh B + cos B)/(sinh B +
 * sin B), B = βL, subtracts numbers of the size e^B/2 (3e26 for mode 20) to leave one of size 1.
 * Written as φ = a + b − cos βx + σ sin βx with a = (1 − σ) e^{βx}/2 and b = (1 + σ) e^{−βx}/2,
 * and 1 − σ = (sin B − cos B − e^{−B})/(sinh B + sin B) (sinh B − cosh B = −e^{−B}), every term
 * is of the size of the result: nothing cancels. All three coefficients are scaled by
 * 2 e^{−B}/(2 e^{−B}), so no cosh B is ever formed. */
#include "modal/beam.h"

#include <math.h>

static const double PI = 3.14159265358979323846;

/* Newton's method on g(x) = cos x + 1/cosh x, the frequency equation divided by cosh x (well
 * scaled for every root: |g'| ≈ 1), from the asymptote (2i − 1)π/2. */
double mbg_beam_root(int i) {
  if (i < 1) return NAN;
  double x = (2.0 * i - 1.0) * PI / 2.0;
  int settled = 0;
  for (int it = 0; it < 60 && settled < 2; it++) {
    double sech = 1.0 / cosh(x);
    double g = cos(x) + sech, dg = -sin(x) - sech * tanh(x);
    double dx = g / dg;
    x -= dx;
    if (fabs(dx) <= 4e-16 * x) settled++; /* one more step once converged */
  }
  return x;
}

/* The raw (unnormalized) mode i on s = βx: coefficients of a = ca e^{s−B} and b = cb e^{−s}. */
typedef struct beam_mode {
  double B, beta, ca, cb, sigma, norm; /* norm: the raw φ at x = L */
} beam_mode;

/* raw[k] = (d/dx)^k φ_raw / β^k, k = 0..3, at s = βx. */
static void raw_shape(const beam_mode *m, double s, double raw[4]) {
  double a = m->ca * exp(s - m->B), b = m->cb * exp(-s);
  double c = cos(s), sn = sin(s), sg = m->sigma;
  raw[0] = a + b - c + sg * sn;
  raw[1] = a - b + sn + sg * c;
  raw[2] = a + b + c - sg * sn;
  raw[3] = a - b - sn - sg * c;
}

static beam_mode mode_of(int i, double L) {
  beam_mode m;
  m.B = mbg_beam_root(i);
  m.beta = m.B / L;
  double e = exp(-m.B), sB = sin(m.B), cB = cos(m.B);
  double D = 1.0 - e * e + 2.0 * e * sB; /* 2 e^{−B} (sinh B + sin B) */
  m.ca = (sB - cB - e) / D;              /* (1 − σ)/2 · e^B */
  m.cb = (1.0 + e * (sB + cB)) / D;      /* (1 + σ)/2 */
  m.sigma = (1.0 + e * e + 2.0 * e * cB) / D;
  double raw[4];
  raw_shape(&m, m.B, raw);
  m.norm = raw[0]; /* ±2: ∫φ_raw² = L φ_raw(L)²/4 and the raw mode has ∫φ_raw² = L */
  return m;
}

void mbg_beam_shape(int i, double L, double x, double out[3]) {
  beam_mode m = mode_of(i, L);
  double raw[4];
  raw_shape(&m, m.beta * x, raw);
  out[0] = raw[0] / m.norm;
  out[1] = raw[1] * m.beta / m.norm;
  out[2] = raw[2] * m.beta * m.beta / m.norm;
}

/* With φ'''' = β⁴ φ and φ''(L) = φ'''(L) = 0: ∫φ = [φ''']₀ᴸ/β⁴ = −φ'''(0)/β⁴. At x = 0,
 * a + b = 1 and a − b = −σ, so φ_raw'''(0) = −2σβ³: ∫φ = 2σ/(β N), N = φ_raw(L). */
double mbg_beam_int_phi(int i, double L) {
  beam_mode m = mode_of(i, L);
  return 2.0 * m.sigma / (m.beta * m.norm);
}

/* ∫xφ = ∫xφ''''/β⁴ = ([xφ''']₀ᴸ − [φ'']₀ᴸ)/β⁴ = φ''(0)/β⁴, and φ_raw''(0) = 2β²: 2/(β² N). */
double mbg_beam_int_xphi(int i, double L) {
  beam_mode m = mode_of(i, L);
  return 2.0 / (m.beta * m.beta * m.norm);
}

/* Orthogonality of distinct modes (the clamped-free operator is self-adjoint). For one mode,
 * d/dx [x(β⁴φ² − 2φ'φ''' + φ''²) − φ'φ'' + 3φφ'''] = 4β⁴φ², and the bracket is 0 at x = 0
 * (φ = φ' = 0) and Lβ⁴φ(L)² at x = L (φ'' = φ''' = 0): ∫φ² = L φ(L)²/4 = L/4. */
double mbg_beam_int_phiphi(int i, int j, double L) {
  return i == j ? L / 4.0 : 0.0;
}

/* ∫φ''² = [φ'φ'' − φφ''']₀ᴸ + ∫φφ'''' = β⁴ ∫φ² = β⁴ L/4. */
double mbg_beam_stiffness(int i, double L, double EI) {
  double B = mbg_beam_root(i);
  return EI * B * B * B * B / (4.0 * L * L * L);
}
