/* xform.c — rigid transforms and spatial inertias in the model's conventions (pure functions). */
#include "model/xform.h"

#include <math.h>
#include <string.h>

void mbg_xform_identity(mbg_xform *X) {
  memset(X, 0, sizeof *X);
  X->E[0] = X->E[4] = X->E[8] = 1.0;
}

/* R = Rz(yaw) Ry(pitch) Rx(roll), columns = the joint frame's axes in parent coordinates; E = Rᵀ. */
/* sin and cos of an angle, exact for the quarter turns: pi/2 in double is not exactly a quarter
 * turn, so cos(pi/2) = 6e-17; a model that writes `rpy pi/2 0 0` means the exact rotation, and
 * exact zeros are what lets the generator drop whole products (sin or cos below 1e-15 in
 * magnitude is set to 0 and its partner to ±1). */
static void quarter_exact_sincos(double angle, double *s, double *c) {
  *s = sin(angle), *c = cos(angle);
  if (fabs(*s) < 1e-15) *s = 0.0, *c = *c > 0 ? 1.0 : -1.0;
  if (fabs(*c) < 1e-15) *c = 0.0, *s = *s > 0 ? 1.0 : -1.0;
}

void mbg_xform_from_xyz_rpy(const double xyz[3], const double rpy[3], mbg_xform *X) {
  double cr, sr, cp, sp, cy, sy;
  quarter_exact_sincos(rpy[0], &sr, &cr);
  quarter_exact_sincos(rpy[1], &sp, &cp);
  quarter_exact_sincos(rpy[2], &sy, &cy);
  double R[9] = {cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr,
                 sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr,
                 -sp,     cp * sr,                cp * cr};
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) X->E[3 * i + k] = R[3 * k + i];
  for (int i = 0; i < 3; i++) X->r[i] = xyz[i];
}

/* X = B A:  E = E_B E_A;  r = r_A + E_Aᵀ r_B (B's origin, given in mid coordinates, moved to the
 * parent's). Safe when X aliases A or B. */
void mbg_xform_inverse(const mbg_xform *X, mbg_xform *out) {
  mbg_xform o;
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) o.E[3 * i + k] = X->E[3 * k + i];
  for (int i = 0; i < 3; i++)
    o.r[i] = -(X->E[3 * i] * X->r[0] + X->E[3 * i + 1] * X->r[1] + X->E[3 * i + 2] * X->r[2]);
  *out = o;
}

void mbg_xform_compose(const mbg_xform *B, const mbg_xform *A, mbg_xform *X) {
  mbg_xform out;
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) {
      double s = 0.0;
      for (int l = 0; l < 3; l++) s += B->E[3 * i + l] * A->E[3 * l + k];
      out.E[3 * i + k] = s;
    }
  for (int i = 0; i < 3; i++) {
    double s = A->r[i];
    for (int l = 0; l < 3; l++) s += A->E[3 * l + i] * B->r[l];
    out.r[i] = s;
  }
  *X = out;
}

/* Symmetric 3×3 from (xx yy zz xy xz yz) and back. */
static void sym_unpack(const double s[6], double M[9]) {
  M[0] = s[0], M[4] = s[1], M[8] = s[2];
  M[1] = M[3] = s[3];
  M[2] = M[6] = s[4];
  M[5] = M[7] = s[5];
}

static void sym_pack(const double M[9], double s[6]) {
  s[0] = M[0], s[1] = M[4], s[2] = M[8];
  s[3] = 0.5 * (M[1] + M[3]);
  s[4] = 0.5 * (M[2] + M[6]);
  s[5] = 0.5 * (M[5] + M[7]);
}

/* h = m c;  I_o = I_c + m (|c|² 1 − c cᵀ). */
void mbg_inertia_from_body(const mbg_body *b, mbg_inertia *I) {
  const double *c = b->com;
  double m = b->mass, cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
  double M[9];
  sym_unpack(b->inertia, M);
  I->m = m;
  for (int i = 0; i < 3; i++) {
    I->h[i] = m * c[i];
    for (int k = 0; k < 3; k++) M[3 * i + k] += m * ((i == k ? cc : 0.0) - c[i] * c[k]);
  }
  sym_pack(M, I->I);
}

/* With R = Eᵀ and g = R h (the first moment in parent axes, still about the child origin):
 * m' = m;  h' = m r + g;  I' = R I Rᵀ + (2 r·g + m |r|²) 1 − (g rᵀ + r gᵀ) − m r rᵀ. */
void mbg_inertia_to_parent(const mbg_xform *X, const mbg_inertia *child, mbg_inertia *out) {
  const double *E = X->E, *r = X->r;
  double C[9], T[9], P[9], g[3];
  sym_unpack(child->I, C);
  for (int i = 0; i < 3; i++)
    g[i] = E[i] * child->h[0] + E[3 + i] * child->h[1] + E[6 + i] * child->h[2];
  for (int i = 0; i < 3; i++) /* T = C E */
    for (int k = 0; k < 3; k++)
      T[3 * i + k] = C[3 * i] * E[k] + C[3 * i + 1] * E[3 + k] + C[3 * i + 2] * E[6 + k];
  double m = child->m, rg = r[0] * g[0] + r[1] * g[1] + r[2] * g[2];
  double rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) {
      double p = E[i] * T[k] + E[3 + i] * T[3 + k] + E[6 + i] * T[6 + k]; /* Eᵀ C E */
      p += (i == k ? 2.0 * rg + m * rr : 0.0) - g[i] * r[k] - r[i] * g[k] - m * r[i] * r[k];
      P[3 * i + k] = p;
    }
  out->m = m;
  for (int i = 0; i < 3; i++) out->h[i] = m * r[i] + g[i];
  sym_pack(P, out->I);
}
