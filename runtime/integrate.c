/* integrate.c — q ⊕ v dt on the joint manifolds (R for scalars and modal coordinates, S³ for
 * quaternions, SE(3) for a floating joint), the counterpart of Pinocchio's integrate. */
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
    case MB_JOINT_REVOLUTE:
    case MB_JOINT_CONTINUOUS:
    case MB_JOINT_PRISMATIC:
    case MB_JOINT_HELICAL: /* q + v dt */
      out[0] = qi[0] + vi[0] * dt;
      break;
    case MB_JOINT_FIXED:
    case MB_JOINT_TYPE_COUNT:
      break;
    }
    for (int k = 0; k < nq; k++) qout[m->iq[i] + k] = out[k];
    /* modal coordinates (flexible bodies): η + η̇ dt */
    for (int k = 0, nv = mb_joint_nv(m->jtype[i]); k < mb_body_nm(m, i); k++)
      qout[m->iq[i] + nq + k] = qi[nq + k] + vi[nv + k] * dt;
  }
  return mbs_finite(qout, (size_t)m->nq) ? MB_OK : MB_ENUMERIC;
}
