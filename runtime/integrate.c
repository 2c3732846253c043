/* integrate.c — q ⊕ v dt on the joint manifolds (R for scalars and modal coordinates, S³ for
 * quaternions, SE(3) for a floating joint, SE(2) for a planar one), the counterpart of
 * Pinocchio's integrate, and its inverse q1 ⊖ q0 (Pinocchio's difference). */
#include "mb.h"

#include <math.h>

/* quat ← quat ⊗ exp(φ), renormalized: a rotation by φ in the child frame. */
static void quat_step(const double *quat, const double phi[3], double out[4]) {
  double e[4];
  mbs_quat_exp(phi, e);
  mbs_quat_mul(quat, e, out);
  mbs_quat_normalize(out);
}

/* SE(3) exponential of the body twist (u, φ) = (v_lin dt, ω dt):
 * p' = p + R V(φ) u,  V(φ) = 1 + (1 − cos θ)/θ² φ× + (θ − sin θ)/θ³ φ×²;  R' = R exp(φ). */
static void free_step(const double *qi, const double u[3], const double phi[3], double out[7]) {
  double R[9], c1[3], c2[3], t[3], Rt[3];
  double th2 = phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2], th = sqrt(th2);
  double A = (th < 1e-4) ? 0.5 - th2 / 24.0 : (1.0 - cos(th)) / th2;
  double B = (th < 1e-4) ? 1.0 / 6.0 - th2 / 120.0 : (th - sin(th)) / (th2 * th);
  mbs_cross(phi, u, c1);
  mbs_cross(phi, c1, c2);
  for (int k = 0; k < 3; k++) t[k] = u[k] + A * c1[k] + B * c2[k];
  mbs_quat_to_rot(qi + 3, R);
  mbs_mat3_mv(R, t, Rt);
  for (int k = 0; k < 3; k++) out[k] = qi[k] + Rt[k];
  quat_step(qi + 3, phi, out + 3);
}

/* SE(2) exponential of the planar body twist (t, φ) = ((v_u, v_w) dt, ω dt), q = [x y θ]:
 * [x y]' = [x y] + R(θ) V(φ) t, V(φ) = [s −c; c s] with s = sin φ/φ, c = (1 − cos φ)/φ =
 * 2 sin²(φ/2)/φ; θ' = θ + φ. The Taylor branches: s = 1 − φ²/6, c = φ/2 − φ³/24 below
 * |φ| = 1e-4. */
static void planar_step(const double *qi, const double t[2], double phi, double out[3]) {
  double p2 = phi * phi, sh = sin(0.5 * phi);
  int small = fabs(phi) < 1e-4;
  double s = small ? 1.0 - p2 / 6.0 : sin(phi) / phi;
  double c = small ? phi * (0.5 - p2 / 24.0) : 2.0 * sh * sh / phi;
  double a = s * t[0] - c * t[1], b = c * t[0] + s * t[1], ct = cos(qi[2]), st = sin(qi[2]);
  out[0] = qi[0] + ct * a - st * b;
  out[1] = qi[1] + st * a + ct * b;
  out[2] = qi[2] + phi;
}

int mb_integrate(const mb_model *m, const double *q, const double *v, double dt, double *qout) {
  if (!m || !q || !v || !qout) return MB_EINVAL;
  for (int i = 1; i <= m->nb; i++) {
    const double *qi = q + m->iq[i], *vi = v + m->iv[i];
    double u[3], phi[3], out[7];
    int nq = mb_joint_nq(m->jtype[i]);
    switch (m->jtype[i]) {
    case MB_JOINT_SPHERICAL: /* quat ⊗ exp(ω dt) */
      for (int k = 0; k < 3; k++) phi[k] = vi[k] * dt;
      quat_step(qi, phi, out);
      break;
    case MB_JOINT_FLOATING: /* (p, quat) ⊕ exp(twist dt) */
      for (int k = 0; k < 3; k++) u[k] = vi[k] * dt, phi[k] = vi[3 + k] * dt;
      free_step(qi, u, phi, out);
      break;
    case MB_JOINT_PLANAR: /* (x, y, θ) ⊕ exp(twist dt), SE(2) */
      for (int k = 0; k < 2; k++) u[k] = vi[k] * dt;
      planar_step(qi, u, vi[2] * dt, out);
      break;
    default: /* a vector space (mb_joint_quat < 0, nq = nv): q + v dt */
      for (int k = 0; k < nq; k++) out[k] = qi[k] + vi[k] * dt;
      break;
    }
    for (int k = 0; k < nq; k++) qout[m->iq[i] + k] = out[k];
    /* modal coordinates (flexible bodies): η + η̇ dt */
    for (int k = 0, nv = mb_joint_nv(m->jtype[i]); k < mb_body_nm(m, i); k++)
      qout[m->iq[i] + nq + k] = qi[nq + k] + vi[nv + k] * dt;
  }
  return mbs_finite(qout, (size_t)m->nq) ? MB_OK : MB_ENUMERIC;
}

/* φ = log(a⁻¹ ⊗ b): the rotation vector taking a to b in a's frame, the shorter of the two
 * (|φ| ≤ π). With r = a⁻¹ ⊗ b = (vec, w) (scaled by |a| |b|), the angle θ = atan2(2 n w, w² − n²),
 * n = |vec|, is wrapped to (−π, π] and φ = θ vec / n (its limit 2 vec / w as n → 0). */
static void quat_log_rel(const double *a, const double *b, double phi[3]) {
  double ai[4] = {-a[0], -a[1], -a[2], a[3]}, r[4];
  mbs_quat_mul(ai, b, r);
  double n = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]), w = r[3];
  double th = atan2(2.0 * n * w, w * w - n * n);
  double k = n > 1e-150 * fabs(w) ? th / n : 2.0 / w;
  for (int i = 0; i < 3; i++) phi[i] = k * r[i];
}

/* The SE(3) logarithm of (p0, a)⁻¹ (p1, b) as a body twist: φ as quat_log_rel, the translation
 * u = V(φ)⁻¹ R_aᵀ (p1 − p0), V⁻¹ = 1 − ½ φ× + C φ×², C = (1 − (θ/2) cot(θ/2)) / θ². */
static void free_log(const double *q0, const double *q1, double out[6]) {
  double R[9], d[3], t[3], c1[3], c2[3], phi[3];
  quat_log_rel(q0 + 3, q1 + 3, phi);
  double th2 = phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2], th = sqrt(th2);
  double C = th < 1e-4 ? 1.0 / 12.0 + th2 / 720.0
                       : (1.0 - 0.5 * th * cos(0.5 * th) / sin(0.5 * th)) / th2;
  for (int k = 0; k < 3; k++) d[k] = q1[k] - q0[k];
  mbs_quat_to_rot(q0 + 3, R);
  mbs_mat3_tmv(R, d, t);
  mbs_cross(phi, t, c1);
  mbs_cross(phi, c1, c2);
  for (int k = 0; k < 3; k++) out[k] = t[k] - 0.5 * c1[k] + C * c2[k], out[3 + k] = phi[k];
}

/* The inverse of planar_step with dt = 1: φ = θ1 − θ0 (θ is a coordinate, not wrapped: defined
 * for |φ| < 2π), t = V(φ)⁻¹ R(θ0)ᵀ (p1 − p0), V⁻¹ = [g h; −h g], h = φ/2, g = h cot h
 * (1 − h²/3 below |h| = 1e-4). */
static void planar_log(const double *q0, const double *q1, double out[3]) {
  double phi = q1[2] - q0[2], h = 0.5 * phi;
  double g = fabs(h) < 1e-4 ? 1.0 - h * h / 3.0 : h * cos(h) / sin(h);
  double dx = q1[0] - q0[0], dy = q1[1] - q0[1], ct = cos(q0[2]), st = sin(q0[2]);
  double a = ct * dx + st * dy, b = -st * dx + ct * dy;
  out[0] = g * a + h * b;
  out[1] = -h * a + g * b;
  out[2] = phi;
}

int mb_difference(const mb_model *m, const double *q0, const double *q1, double *v) {
  if (!m || !q0 || !q1 || !v) return MB_EINVAL;
  for (int i = 1; i <= m->nb; i++) {
    const double *a = q0 + m->iq[i], *b = q1 + m->iq[i];
    double *vi = v + m->iv[i];
    int nq = mb_joint_nq(m->jtype[i]), nv = mb_joint_nv(m->jtype[i]);
    switch (m->jtype[i]) {
    case MB_JOINT_SPHERICAL: quat_log_rel(a, b, vi); break;
    case MB_JOINT_FLOATING: free_log(a, b, vi); break;
    case MB_JOINT_PLANAR: planar_log(a, b, vi); break;
    default: /* a vector space: q1 − q0 */
      for (int k = 0; k < nv; k++) vi[k] = b[k] - a[k];
      break;
    }
    for (int k = 0; k < mb_body_nm(m, i); k++) vi[nv + k] = b[nq + k] - a[nq + k];
  }
  return mbs_finite(v, (size_t)m->nv) ? MB_OK : MB_ENUMERIC;
}
