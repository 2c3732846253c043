/* jcalc.c — joint models: XJ(q) and S for every joint type (docs/runtime.md, the joint table),
 * and the columns of the joint-type table (mb.h MB_JOINT_TYPES).
 *
 * S is constant in the child frame for every joint but the universal one, so cJ = 0 (a planar
 * joint's v is its child frame's for that: mb.h); a universal joint's first column turns with θ2
 * (mb_joint_S_at, mb_joint_cJ). Axes are arbitrary unit vectors in the joint frame. */
#include "mb.h"

#include <assert.h>
#include <math.h>

/* mb.h MB_JOINT_TYPES as data; "?" for an invalid type. */
typedef struct joint_type_row {
  const char *name;
  int nq, nv, axis, angle, pitch, fixed_origin, quat;
} joint_type_row;

static const joint_type_row *joint_type(mb_joint_type t) {
  static const joint_type_row invalid = {"?", 0, 0, 0, 0, 0, 0, -1};
  static const joint_type_row rows[MB_JOINT_TYPE_COUNT] = {
#define MB_JOINT_ROW(NAME, name, nq, nv, axis, angle, pitch, fixed_origin, quat)                   \
  {#name, nq, nv, axis, angle, pitch, fixed_origin, quat},
      MB_JOINT_TYPES(MB_JOINT_ROW)
#undef MB_JOINT_ROW
  };
  return (unsigned)t < MB_JOINT_TYPE_COUNT ? &rows[t] : &invalid;
}

const char *mb_joint_name(mb_joint_type t) { return joint_type(t)->name; }
int mb_joint_nq(mb_joint_type t) { return joint_type(t)->nq; }
int mb_joint_nv(mb_joint_type t) { return joint_type(t)->nv; }
int mb_joint_has_axis(mb_joint_type t) { return joint_type(t)->axis; }
int mb_joint_is_angle(mb_joint_type t) { return joint_type(t)->angle; }
int mb_joint_has_pitch(mb_joint_type t) { return joint_type(t)->pitch; }
int mb_joint_fixed_origin(mb_joint_type t) { return joint_type(t)->fixed_origin; }
int mb_joint_quat(mb_joint_type t) { return joint_type(t)->quat; }

static void identity(double E[9], double r[3]) {
  for (int k = 0; k < 9; k++) E[k] = (k % 4 == 0) ? 1.0 : 0.0;
  r[0] = r[1] = r[2] = 0.0;
}

/* E = R(quat)ᵀ: R maps child to parent coordinates, E parent to child. */
static void quat_E(const double *quat, double E[9]) {
  double R[9];
  mbs_quat_to_rot(quat, R);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) E[3 * i + j] = R[3 * j + i];
}

void mb_jcalc(const mb_model *m, int i, const double *q, double E[9], double r[3]) {
  assert(m && q && E && r && i >= 1 && i <= m->nb);
  const double *a = m->axis + 3 * i, *qi = q + m->iq[i];
  double R[9];
  identity(E, r);
  switch (m->jtype[i]) {
  case MB_JOINT_REVOLUTE:
  case MB_JOINT_CONTINUOUS: /* XJ = rot(a, q) */
  case MB_JOINT_HELICAL:    /* XJ = rot(a, q), then translation h q a (rot keeps a fixed) */
    mbs_rot_axis(a, qi[0], R);
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 3; k++) E[3 * j + k] = R[3 * k + j];
    if (m->jtype[i] == MB_JOINT_HELICAL)
      for (int k = 0; k < 3; k++) r[k] = m->pitch[i] * qi[0] * a[k];
    break;
  case MB_JOINT_PRISMATIC: /* XJ = xlt(q a) */
    for (int k = 0; k < 3; k++) r[k] = qi[0] * a[k];
    break;
  case MB_JOINT_SPHERICAL: /* XJ = rot(quat) */
    quat_E(qi, E);
    break;
  case MB_JOINT_FLOATING: /* XJ = rot(quat) xlt(p) */
    quat_E(qi + 3, E);
    for (int k = 0; k < 3; k++) r[k] = qi[k];
    break;
  case MB_JOINT_PLANAR: { /* XJ = rot(a, θ) xlt(x u + y w) */
    double u[3], w[3];
    mb_planar_axes(a, u, w);
    mbs_rot_axis(a, qi[2], R);
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 3; k++) E[3 * j + k] = R[3 * k + j];
    for (int k = 0; k < 3; k++) r[k] = qi[0] * u[k] + qi[1] * w[k];
    break;
  }
  case MB_JOINT_CYLINDRICAL: /* XJ = rot(a, θ) xlt(d a) */
    mbs_rot_axis(a, qi[0], R);
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 3; k++) E[3 * j + k] = R[3 * k + j];
    for (int k = 0; k < 3; k++) r[k] = qi[1] * a[k];
    break;
  case MB_JOINT_UNIVERSAL: { /* XJ = rot(a, θ1) rot(a2, θ2): E = (R1 R2)ᵀ */
    double R2[9];
    mbs_rot_axis(a, qi[0], R);
    mbs_rot_axis(m->axis2 + 3 * i, qi[1], R2);
    mbs_mat3_mul(R, R2, R2);
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 3; k++) E[3 * j + k] = R2[3 * k + j];
    break;
  }
  case MB_JOINT_FIXED:
  case MB_JOINT_TYPE_COUNT:
    break;
  }
}

void mb_joint_S(const mb_model *m, int i, double *S) {
  const double *a = m->axis + 3 * i;
  int n = mb_joint_nv(m->jtype[i]);
  for (int k = 0; k < 6 * n; k++) S[k] = 0.0;
  switch (m->jtype[i]) {
  case MB_JOINT_REVOLUTE:
  case MB_JOINT_CONTINUOUS: /* S = [a; 0] */
    for (int k = 0; k < 3; k++) S[k] = a[k];
    break;
  case MB_JOINT_PRISMATIC: /* S = [0; a] */
    for (int k = 0; k < 3; k++) S[3 + k] = a[k];
    break;
  case MB_JOINT_HELICAL: /* S = [a; h a] */
    for (int k = 0; k < 3; k++) S[k] = a[k], S[3 + k] = m->pitch[i] * a[k];
    break;
  case MB_JOINT_SPHERICAL: /* S = [1₃; 0] */
    for (int k = 0; k < 3; k++) S[6 * k + k] = 1.0;
    break;
  case MB_JOINT_FLOATING: /* S [v_lin; ω] = [ω; v_lin]: column k < 3 is e_{3+k}, k ≥ 3 is e_{k−3} */
    for (int k = 0; k < 3; k++) S[6 * k + 3 + k] = 1.0, S[6 * (3 + k) + k] = 1.0;
    break;
  case MB_JOINT_PLANAR: { /* S = [0 0 a; u w 0] */
    double u[3], w[3];
    mb_planar_axes(a, u, w);
    for (int k = 0; k < 3; k++) S[3 + k] = u[k], S[9 + k] = w[k], S[12 + k] = a[k];
    break;
  }
  case MB_JOINT_CYLINDRICAL: /* S = [a 0; 0 a] */
    for (int k = 0; k < 3; k++) S[k] = a[k], S[9 + k] = a[k];
    break;
  case MB_JOINT_UNIVERSAL: /* S(0) = [a a2; 0 0] */
    for (int k = 0; k < 3; k++) S[k] = a[k], S[6 + k] = m->axis2[3 * i + k];
    break;
  case MB_JOINT_FIXED:
  case MB_JOINT_TYPE_COUNT:
    break;
  }
}

int mb_joint_S_varies(mb_joint_type t) { return t == MB_JOINT_UNIVERSAL; }

void mb_joint_S_at(const mb_model *m, int i, const double *q, double *S) {
  mb_joint_S(m, i, S);
  if (m->jtype[i] != MB_JOINT_UNIVERSAL) return;
  /* universal: the first column R2ᵀ a, a seen from the child (R2 = rot(a2, θ2)) */
  double R2[9];
  mbs_rot_axis(m->axis2 + 3 * i, q[m->iq[i] + 1], R2);
  mbs_mat3_tmv(R2, m->axis + 3 * i, S);
}

void mb_joint_cJ(const mb_model *m, int i, const double *S, const double *qd, double out[6]) {
  if (m->jtype[i] != MB_JOINT_UNIVERSAL || !qd) return;
  /* d/dt (R2ᵀ a) = (R2ᵀ a) × a2 θ̇2, so Ṡ q̇ = [θ̇1 θ̇2 (s1 × a2); 0] */
  double w[3];
  mbs_cross(S, S + 6, w);
  for (int k = 0; k < 3; k++) out[k] += qd[0] * qd[1] * w[k];
}

void mb_planar_axes(const double a[3], double u[3], double w[3]) {
  double R[9];
  int k = mbs_axis_rotation(a, R), k1 = (k + 1) % 3, k2 = (k + 2) % 3;
  for (int j = 0; j < 3; j++) u[j] = R[3 * k1 + j], w[j] = R[3 * k2 + j];
}

void mb_xup(const mb_model *m, mb_workspace *ws, const double *q) {
  double EJ[9], rJ[3];
  assert(mb_workspace_check(m, ws) == MB_OK && q);
  /* iXλ = XJ(q_i) XT(i) */
  for (int i = 1; i <= m->nb; i++) {
    mb_jcalc(m, i, q, EJ, rJ);
    mbs_X_compose(EJ, rJ, m->XT_E + 9 * i, m->XT_r + 3 * i, ws->XE + 9 * i, ws->Xr + 3 * i);
    if (mb_joint_S_varies(m->jtype[i])) mb_joint_S_at(m, i, q, ws->S + 6 * m->iv[i]);
  }
}

int mb_neutral(const mb_model *m, double *q) {
  if (!m || !q) return MB_EINVAL;
  for (int k = 0; k < m->nq; k++) q[k] = 0.0;
  for (int i = 1; i <= m->nb; i++) {
    int k = mb_joint_quat(m->jtype[i]);
    if (k >= 0) q[m->iq[i] + k + 3] = 1.0; /* the identity quaternion [0 0 0 1] */
  }
  return MB_OK;
}

void mb_joint_T(const mb_model *m, int i, double *T) {
  double B[36], S[36];
  int n = mb_joint_nv(m->jtype[i]), nB = 0, used[6] = {0};
  mb_joint_S(m, i, S);
  /* B = orthonormalized columns of S, then of the unit vectors e_k, largest residual first */
  for (int col = 0; col < 6; col++) {
    double w[6] = {0}, best = -1.0;
    int pick = -1;
    for (int k = 0; k < 6; k++) {
      double x[6], s = 0.0;
      if (col < n)
        for (int l = 0; l < 6; l++) x[l] = S[6 * col + l];
      else if (used[k])
        continue;
      else
        for (int l = 0; l < 6; l++) x[l] = (l == k);
      /* x −= B Bᵀ x, twice (re-orthogonalization) */
      for (int pass = 0; pass < 2; pass++)
        for (int b = 0; b < nB; b++) {
          double d = 0.0;
          for (int l = 0; l < 6; l++) d += B[6 * b + l] * x[l];
          for (int l = 0; l < 6; l++) x[l] -= d * B[6 * b + l];
        }
      for (int l = 0; l < 6; l++) s += x[l] * x[l];
      if (s > best) {
        best = s, pick = k;
        for (int l = 0; l < 6; l++) w[l] = x[l];
      }
      if (col < n) break;
    }
    if (col >= n) used[pick] = 1;
    double s = sqrt(best);
    for (int l = 0; l < 6; l++) B[6 * nB + l] = w[l] / s;
    nB++;
  }
  for (int k = 0; k < 6 * (6 - n); k++) T[k] = B[6 * n + k];
}
