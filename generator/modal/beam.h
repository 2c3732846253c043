/* beam.h — the bending modes of a uniform Euler-Bernoulli cantilever (clamped at x = 0, free at
 * x = L), exact: the roots of the frequency equation, the mode shapes and their integrals
 * (Meirovitch, "Fundamentals of Vibrations", 2001; Blevins, "Formulas for Natural Frequency and
 * Mode Shape", 1979).
 *
 * Mode i (i ≥ 1) is normalized to φ_i(L) = 1, so its modal coordinate is the tip deflection of
 * that mode. With β_i = (β_i L)/L it satisfies φ'''' = β_i⁴ φ, φ(0) = φ'(0) = 0 and
 * φ''(L) = φ'''(L) = 0. The preset uses modes 1..20; every function is pure. */
#ifndef MBG_BEAM_H
#define MBG_BEAM_H

/* β_i L, the i-th positive root of 1 + cos x cosh x = 0 (1.8751040687119611, 4.6940911329741745,
 * ...), to full double precision; NaN for i < 1. */
double mbg_beam_root(int i);

/* φ_i(x), φ_i'(x), φ_i''(x) of mode i of a beam of length L (derivatives with respect to x). */
void mbg_beam_shape(int i, double L, double x, double out[3]);

/* Closed-form integrals over 0 ≤ x ≤ L of the normalized modes:
 *   ∫ φ_i dx    = −φ_i'''(0)/β_i⁴,
 *   ∫ x φ_i dx  =  φ_i''(0)/β_i⁴,
 *   ∫ φ_i φ_j dx = L/4 δ_ij,
 * and the modal stiffness EI ∫ φ_i''² dx = EI β_i⁴ L/4 = EI (β_i L)⁴/(4 L³). */
double mbg_beam_int_phi(int i, double L);
double mbg_beam_int_xphi(int i, double L);
double mbg_beam_int_phiphi(int i, int j, double L);
double mbg_beam_stiffness(int i, double L, double EI);

#endif
