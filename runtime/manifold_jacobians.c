/* manifold_jacobians.c — the Jacobians of q ⊕ v dt (mb_integrate) and of q1 ⊖ q0 (mb_difference)
 * along the tangent spaces of the joint manifolds: Pinocchio's dIntegrate and dDifference.
 *
 * Every joint's configuration is an element M of a Lie group with its velocity in the tangent at
 * M, and mb_integrate moves it on the right: M ⊕ τ = M Exp(τ), τ = v dt; mb_difference is
 * q1 ⊖ q0 = Log(M0⁻¹ M1). Scalars and modal coordinates are ℝ (Exp(τ) = τ), a spherical joint is
 * SO(3) (its quaternion), a floating joint SE(3) with the tangent ordered [linear; angular], a
 * planar joint SE(2) with [v_u v_w ω]. With Jr the right Jacobian of the group
 * (Exp(τ + δ) = Exp(τ) Exp(Jr(τ) δ) + O(δ²)) and Ad the adjoint (M Exp(δ) M⁻¹ = Exp(Ad_M δ)):
 *
 *   integrate:  ∂(M ⊕ τ)/∂M = Ad_{Exp(τ)}⁻¹ = Ad_{Exp(−τ)},   ∂(M ⊕ v dt)/∂v = Jr(v dt) dt;
 *   difference: ∂(M1 ⊖ M0)/∂M1 = Jr⁻¹(τ),   ∂(M1 ⊖ M0)/∂M0 = −Jl⁻¹(τ) = −Jr⁻¹(−τ),  τ = M1 ⊖ M0,
 *
 * each derivative along the tangent at its argument and measured in the tangent at the result
 * (J. Solà, J. Deray, D. Atchuthan, "A micro Lie theory for state estimation in robotics", 2018:
 * the right-plus and right-minus Jacobians and the SO(3), SE(2), SE(3) appendices; the SE(3) block
 * Q is theirs and T. Barfoot's, "State Estimation for Robotics", 2017, ch. 7). None of them
 * depends on q itself beyond τ. With θ = |φ|, φ the rotation part of τ and φ× its cross-product
 * matrix:
 *
 *   SO(3)  Exp(φ) = 1 + a φ× + b φ×²,  Jr(φ) = 1 − b φ× + c φ×²,  Jr⁻¹(φ) = 1 + ½ φ× + d φ×²;
 *   SE(3)  Jr(ρ, φ) = [Jr(φ) Q; 0 Jr(φ)],  Jr⁻¹ = [Jr⁻¹(φ)  −Jr⁻¹(φ) Q Jr⁻¹(φ); 0 Jr⁻¹(φ)],
 *          Q = −½ ρ× + c (φ×ρ× + ρ×φ× − φ×ρ×φ×) − k2 (φ×²ρ× + ρ×φ×² − 3 φ×ρ×φ×)
 *              + k3 (φ×ρ×φ×² + φ×²ρ×φ×),
 *          Ad_{Exp(−τ)} = [Eᵀ  −Eᵀ t×; 0 Eᵀ], E = Exp(φ), t = V(φ) ρ = (1 + b φ× + c φ×²) ρ;
 *   SE(2)  (ρ = [u1 u2], scalar φ) Jr = [a  bφ  c φ u1 − b u2; −bφ  a  b u1 + c φ u2; 0 0 1],
 *          Jr⁻¹ = [g −h; h g] on the first two rows and columns, g = 1 − d φ², h = φ/2, its
 *          third column −[g −h; h g] (Jr's), and Ad_{Exp(−τ)} = [R(φ)ᵀ  J R(φ)ᵀ t; 0 1], J the
 *          quarter turn;
 *
 *   a = sin θ/θ, b = (1 − cos θ)/θ², c = (θ − sin θ)/θ³, d = (1 − (θ/2) cot(θ/2))/θ²,
 *   k2 = (θ² + 2 cos θ − 2)/(2 θ⁴), k3 = (2θ − 3 sin θ + θ cos θ)/(2 θ⁵).
 *
 * Below θ = 0.5 the coefficients are their Taylor series (eight terms: the first left out is
 * below 1e-17 relative there), where the closed forms would lose digits to cancellation (k3's
 * numerator is θ⁵/60 from terms of size θ); above, the closed forms lose at most a few units of
 * the last place of the Jacobians' entries. */
#include "mb.h"

#include <math.h>
#include <string.h>

#define LIE_SERIES_BELOW 0.5
#define NSER 8

/* The coefficients of one rotation angle θ (above). */
typedef struct lie_k {
  double a, b, c, d, k2, k3;
} lie_k;

/* Their Taylor series in θ²: a, b, c, k2 = Σ (−1)ⁿ θ²ⁿ / (2n + 1, 2, 3, 4)!, k3 = Σ (−1)ⁿ (n + 1)
 * θ²ⁿ / (2n + 5)!, d = Σ |B₂ₙ₊₂| θ²ⁿ / (2n + 2)! (B the Bernoulli numbers: x cot x's series). */
static const double SER_A[NSER] = {1.0,
                                   -1.0 / 6.0,
                                   1.0 / 120.0,
                                   -1.0 / 5040.0,
                                   1.0 / 362880.0,
                                   -1.0 / 39916800.0,
                                   1.0 / 6227020800.0,
                                   -1.0 / 1307674368000.0};
static const double SER_B[NSER] = {1.0 / 2.0,
                                   -1.0 / 24.0,
                                   1.0 / 720.0,
                                   -1.0 / 40320.0,
                                   1.0 / 3628800.0,
                                   -1.0 / 479001600.0,
                                   1.0 / 87178291200.0,
                                   -1.0 / 20922789888000.0};
static const double SER_C[NSER] = {1.0 / 6.0,
                                   -1.0 / 120.0,
                                   1.0 / 5040.0,
                                   -1.0 / 362880.0,
                                   1.0 / 39916800.0,
                                   -1.0 / 6227020800.0,
                                   1.0 / 1307674368000.0,
                                   -1.0 / 355687428096000.0};
static const double SER_K2[NSER] = {1.0 / 24.0,
                                    -1.0 / 720.0,
                                    1.0 / 40320.0,
                                    -1.0 / 3628800.0,
                                    1.0 / 479001600.0,
                                    -1.0 / 87178291200.0,
                                    1.0 / 20922789888000.0,
                                    -1.0 / 6402373705728000.0};
static const double SER_K3[NSER] = {1.0 / 120.0,
                                    -2.0 / 5040.0,
                                    3.0 / 362880.0,
                                    -4.0 / 39916800.0,
                                    5.0 / 6227020800.0,
                                    -6.0 / 1307674368000.0,
                                    7.0 / 355687428096000.0,
                                    -8.0 / 121645100408832000.0};
static const double SER_D[NSER] = {1.0 / 12.0,
                                   1.0 / 720.0,
                                   1.0 / 30240.0,
                                   1.0 / 1209600.0,
                                   1.0 / 47900160.0,
                                   691.0 / 1307674368000.0,
                                   1.0 / 74724249600.0,
                                   3617.0 / 10670622842880000.0};

static double series(const double s[NSER], double x) {
  double r = s[NSER - 1];
  for (int k = NSER - 2; k >= 0; k--) r = r * x + s[k];
  return r;
}

/* The coefficients at θ ≥ 0 (d only for θ < 2π, where Jr⁻¹ exists). */
static void lie_coeffs(double th, lie_k *k) {
  double t2 = th * th;
  if (th < LIE_SERIES_BELOW) {
    k->a = series(SER_A, t2), k->b = series(SER_B, t2), k->c = series(SER_C, t2);
    k->d = series(SER_D, t2), k->k2 = series(SER_K2, t2), k->k3 = series(SER_K3, t2);
    return;
  }
  double s = sin(th), co = cos(th), h = 0.5 * th;
  k->a = s / th;
  k->b = (1.0 - co) / t2;
  k->c = (th - s) / (t2 * th);
  k->d = (1.0 - h * cos(h) / sin(h)) / t2;
  k->k2 = (t2 + 2.0 * co - 2.0) / (2.0 * t2 * t2);
  k->k3 = (2.0 * th - 3.0 * s + th * co) / (2.0 * t2 * t2 * th);
}

/* ---- 3 × 3 matrices, row-major ------------------------------------------------------------- */

static void hat(const double x[3], double X[9]) {
  X[0] = 0, X[1] = -x[2], X[2] = x[1];
  X[3] = x[2], X[4] = 0, X[5] = -x[0];
  X[6] = -x[1], X[7] = x[0], X[8] = 0;
}

/* out = 1 + al φ× + be φ×². */
static void so3_poly(const double phi[3], double al, double be, double out[9]) {
  double P[9], P2[9];
  hat(phi, P);
  mbs_mat3_mul(P, P, P2);
  for (int k = 0; k < 9; k++) out[k] = (k % 4 == 0) + al * P[k] + be * P2[k];
}

/* The SE(3) block Q of Jr(ρ, φ) (above). */
static void se3_Q(const double rho[3], const double phi[3], const lie_k *k, double Q[9]) {
  double P[9], R[9], PR[9], RP[9], PRP[9], PPR[9], RPP[9], PRPP[9], PPRP[9];
  hat(phi, P), hat(rho, R);
  mbs_mat3_mul(P, R, PR), mbs_mat3_mul(R, P, RP), mbs_mat3_mul(P, RP, PRP);
  mbs_mat3_mul(P, PR, PPR), mbs_mat3_mul(RP, P, RPP);
  mbs_mat3_mul(PRP, P, PRPP), mbs_mat3_mul(P, PRP, PPRP);
  for (int i = 0; i < 9; i++)
    Q[i] = -0.5 * R[i] + k->c * (PR[i] + RP[i] - PRP[i]) -
           k->k2 * (PPR[i] + RPP[i] - 3.0 * PRP[i]) + k->k3 * (PRPP[i] + PPRP[i]);
}

/* A 6 × 6 row-major matrix [A B; 0 A] from 3 × 3 blocks. */
static void block6(const double A[9], const double B[9], double out[36]) {
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      out[6 * r + c] = A[3 * r + c], out[6 * r + 3 + c] = B[3 * r + c];
      out[6 * (r + 3) + c] = 0, out[6 * (r + 3) + 3 + c] = A[3 * r + c];
    }
}

/* ---- the Jacobians of one joint, τ its tangent vector --------------------------------------- */

/* SO(3): Ad_{Exp(−φ)} = Exp(φ)ᵀ = 1 − a φ× + b φ×², and Jr(φ). */
static void so3_integrate(const double phi[3], double Jq[9], double Jv[9]) {
  lie_k k;
  lie_coeffs(sqrt(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2]), &k);
  so3_poly(phi, -k.a, k.b, Jq);
  so3_poly(phi, -k.b, k.c, Jv);
}

/* SE(3), τ = [ρ; φ]: Ad_{Exp(−τ)} and Jr(τ). */
static void se3_integrate(const double tau[6], double Jq[36], double Jv[36]) {
  const double *rho = tau, *phi = tau + 3;
  double Et[9], t[3], T[9], B[9], Jr[9], Q[9];
  lie_k k;
  lie_coeffs(sqrt(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2]), &k);
  so3_poly(phi, -k.a, k.b, Et); /* Eᵀ */
  so3_poly(phi, k.b, k.c, T);   /* V(φ) */
  mbs_mat3_mv(T, rho, t);
  hat(t, T);
  mbs_mat3_mul(Et, T, B);
  for (int i = 0; i < 9; i++) B[i] = -B[i]; /* −Eᵀ t× */
  block6(Et, B, Jq);
  so3_poly(phi, -k.b, k.c, Jr);
  se3_Q(rho, phi, &k, Q);
  block6(Jr, Q, Jv);
}

/* SE(2), τ = [u1 u2 φ]: Ad_{Exp(−τ)} and Jr(τ). */
static void se2_integrate(const double tau[3], double Jq[9], double Jv[9]) {
  double u1 = tau[0], u2 = tau[1], phi = tau[2], s = sin(phi), co = cos(phi);
  lie_k k;
  lie_coeffs(fabs(phi), &k);
  double bp = k.b * phi, cp = k.c * phi;
  double p1 = k.a * u1 + bp * u2, p2 = -bp * u1 + k.a * u2; /* R(φ)ᵀ t = R(φ)ᵀ V(φ) u */
  double q[9] = {co, s, -p2, -s, co, p1, 0, 0, 1};
  double j[9] = {k.a, bp, cp * u1 - k.b * u2, -bp, k.a, k.b * u1 + cp * u2, 0, 0, 1};
  memcpy(Jq, q, sizeof q);
  memcpy(Jv, j, sizeof j);
}

/* SO(3): Jr⁻¹(φ). */
static void so3_jr_inv(const double phi[3], double out[9]) {
  lie_k k;
  lie_coeffs(sqrt(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2]), &k);
  so3_poly(phi, 0.5, k.d, out);
}

/* SE(3): Jr⁻¹(τ). */
static void se3_jr_inv(const double tau[6], double out[36]) {
  const double *rho = tau, *phi = tau + 3;
  double Ji[9], Q[9], T[9], B[9];
  lie_k k;
  lie_coeffs(sqrt(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2]), &k);
  so3_poly(phi, 0.5, k.d, Ji);
  se3_Q(rho, phi, &k, Q);
  mbs_mat3_mul(Ji, Q, T);
  mbs_mat3_mul(T, Ji, B);
  for (int i = 0; i < 9; i++) B[i] = -B[i];
  block6(Ji, B, out);
}

/* SE(2): Jr⁻¹(τ). */
static void se2_jr_inv(const double tau[3], double out[9]) {
  double u1 = tau[0], u2 = tau[1], phi = tau[2];
  lie_k k;
  lie_coeffs(fabs(phi), &k);
  double g = 1.0 - k.d * phi * phi, h = 0.5 * phi;
  double x = k.c * phi * u1 - k.b * u2, y = k.b * u1 + k.c * phi * u2; /* Jr's third column */
  double j[9] = {g, -h, -(g * x - h * y), h, g, -(h * x + g * y), 0, 0, 1};
  memcpy(out, j, sizeof j);
}

/* ---- writing the block-diagonal matrices ---------------------------------------------------- */

/* Rows at .. at + n − 1 of the nv × nv J: zero, with s B (n × n) on the diagonal block; B NULL:
 * s times the identity. */
static void put_block(double *J, int nv, int at, int n, const double *B, double s) {
  for (int r = 0; r < n; r++) {
    double *row = J + (size_t)(at + r) * (size_t)nv;
    memset(row, 0, sizeof *row * (size_t)nv);
    for (int c = 0; c < n; c++) row[at + c] = s * (B ? B[n * r + c] : (double)(r == c));
  }
}

static int all_finite(const mb_model *m, const double *A, const double *B) {
  size_t n = (size_t)m->nv * (size_t)m->nv;
  return (!A || mbs_finite(A, n)) && (!B || mbs_finite(B, n));
}

int mb_integrate_jacobians(const mb_model *m, const double *q, const double *v, double dt,
                           double *Jq, double *Jv) {
  if (!m || !q || !v) return MB_EINVAL;
  for (int i = 1; i <= m->nb; i++) {
    const double *vi = v + m->iv[i];
    double tau[6], bq[36], bv[36];
    int nv = mb_joint_nv(m->jtype[i]), lie = 1;
    for (int k = 0; k < nv; k++) tau[k] = vi[k] * dt;
    switch (m->jtype[i]) {
    case MB_JOINT_SPHERICAL: so3_integrate(tau, bq, bv); break;
    case MB_JOINT_FLOATING: se3_integrate(tau, bq, bv); break;
    case MB_JOINT_PLANAR: se2_integrate(tau, bq, bv); break;
    default: lie = 0; break; /* a vector space: 1 and dt 1 */
    }
    if (Jq) put_block(Jq, m->nv, m->iv[i], nv, lie ? bq : NULL, 1.0);
    if (Jv) put_block(Jv, m->nv, m->iv[i], nv, lie ? bv : NULL, dt);
    /* modal coordinates (flexible bodies) add: 1 and dt 1 */
    if (Jq) put_block(Jq, m->nv, m->iv[i] + nv, mb_body_nm(m, i), NULL, 1.0);
    if (Jv) put_block(Jv, m->nv, m->iv[i] + nv, mb_body_nm(m, i), NULL, dt);
  }
  return all_finite(m, Jq, Jv) ? MB_OK : MB_ENUMERIC;
}

int mb_difference_jacobians(const mb_model *m, const double *q0, const double *q1, double *J0,
                            double *J1) {
  if (!m || !q0 || !q1) return MB_EINVAL;
  if (m->nv == 0 || (!J0 && !J1)) return MB_OK;
  /* τ = q1 ⊖ q0 kept in the last row of an output: joint i reads its part before any of its rows
   * is written, and only the last joint with coordinates writes that row */
  double *tau_all = (J1 ? J1 : J0) + (size_t)(m->nv - 1) * (size_t)m->nv;
  int rc = mb_difference(m, q0, q1, tau_all);
  if (rc != MB_OK) return rc;
  for (int i = 1; i <= m->nb; i++) {
    double tau[6], neg[6], b0[36], b1[36];
    int nv = mb_joint_nv(m->jtype[i]), lie = 1, at = m->iv[i], nm = mb_body_nm(m, i);
    for (int k = 0; k < nv; k++) tau[k] = tau_all[at + k], neg[k] = -tau[k];
    switch (m->jtype[i]) {
    case MB_JOINT_SPHERICAL: so3_jr_inv(neg, b0), so3_jr_inv(tau, b1); break;
    case MB_JOINT_FLOATING: se3_jr_inv(neg, b0), se3_jr_inv(tau, b1); break;
    case MB_JOINT_PLANAR: se2_jr_inv(neg, b0), se2_jr_inv(tau, b1); break;
    default: lie = 0; break; /* a vector space: −1 and 1 */
    }
    if (J0) put_block(J0, m->nv, at, nv, lie ? b0 : NULL, -1.0);
    if (J1) put_block(J1, m->nv, at, nv, lie ? b1 : NULL, 1.0);
    if (J0) put_block(J0, m->nv, at + nv, nm, NULL, -1.0); /* modal coordinates subtract */
    if (J1) put_block(J1, m->nv, at + nv, nm, NULL, 1.0);
  }
  return all_finite(m, J0, J1) ? MB_OK : MB_ENUMERIC;
}
