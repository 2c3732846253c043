/* centroidal.c — centroidal momentum (mb.h "Centroidal momentum"; Orin & Goswami, "Centroidal
 * momentum matrix of a humanoid robot: structure and properties", IROS 2008): the momentum of the
 * moving bodies about their centre of mass G in world axes, h_G = [k_G; p] (the angular part
 * first, as the runtime's wrenches), its matrix A_G (h_G = A_G v) and the bias Ȧ_G v. */
#include "mb.h"

/* A force-like vector f = [n; g] of body i (its coordinates, at its origin) in world axes at the
 * point c: [R n + (p_i − c) × R g; R g]. */
static void at_centroid(const mb_workspace *ws, int i, const double c[3], const double f[6],
                        double out[6]) {
  const double *E = ws->X0E + 9 * i, *p = ws->X0r + 3 * i;
  double n[3], g[3], d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]}, t[3];
  mbs_mat3_tmv(E, f, n);
  mbs_mat3_tmv(E, f + 3, g);
  mbs_cross(d, g, t);
  for (int a = 0; a < 3; a++) out[a] = n[a] + t[a], out[3 + a] = g[a];
}

/* Checks; the centre of mass into c, the transforms in ws (mb_com). */
static int start(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                 int need_v, const void *out, double c[3]) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!q || !out || (need_v && !v)) return MB_EINVAL;
  return mb_com(m, ws, q, c); /* MB_EINVAL for flexible models, MB_ENUMERIC if massless */
}

int mb_centroidal_momentum(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                           double *h) {
  double c[3];
  int rc = start(m, ws, q, v, 1, h, c);
  if (rc) return rc;
  mb_bias_pass(m, ws, v);
  for (int k = 0; k < 6; k++) h[k] = 0.0;
  for (int i = 1; i <= m->nb; i++) {
    double Iv[6], x[6];
    mbs_I_mv(m->inertia + 10 * i, ws->v + 6 * i, Iv);
    at_centroid(ws, i, c, Iv, x);
    for (int k = 0; k < 6; k++) h[k] += x[k];
  }
  return mbs_finite(h, 6) ? MB_OK : MB_ENUMERIC;
}

int mb_ccrba(const mb_model *m, mb_workspace *ws, const double *q, double *Ag) {
  double c[3];
  int rc = start(m, ws, q, NULL, 0, Ag, c), nv = m->nv;
  if (rc) return rc;
  /* composite inertias IC_λ += λX*_i IC_i iXλ; the subtree of joint j moves rigidly with q̇_j,
   * so its momentum per unit q̇_j is IC_j S_j */
  for (int k = 0; k < 10 * (m->nb + 1); k++) ws->IC[k] = m->inertia[k];
  for (int i = m->nb; i >= 1; i--) {
    double t[10];
    int p = m->parent[i];
    mbs_I_to_parent(ws->XE + 9 * i, ws->Xr + 3 * i, ws->IC + 10 * i, t);
    for (int k = 0; p > 0 && k < 10; k++) ws->IC[10 * p + k] += t[k];
  }
  for (int i = 1; i <= m->nb; i++)
    for (int d = 0; d < mb_joint_nv(m->jtype[i]); d++) {
      double F[6], x[6];
      size_t col = (size_t)(m->iv[i] + d);
      mbs_I_mv(ws->IC + 10 * i, ws->S + 6 * col, F);
      at_centroid(ws, i, c, F, x);
      for (size_t r = 0; r < 6; r++) Ag[(size_t)nv * r + col] = x[r];
    }
  return mbs_finite(Ag, 6 * (size_t)nv) ? MB_OK : MB_ENUMERIC;
}

int mb_centroidal_bias(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                       double *b) {
  double c[3];
  int rc = start(m, ws, q, v, 1, b, c);
  if (rc) return rc;
  /* ḣ_G at q̈ = 0 without gravity: the net force on the bodies, f_i = I_i a_i + v_i ×* I_i v_i
   * (a_i the velocity-product accelerations), about G */
  mb_bias_pass(m, ws, v);
  for (int k = 0; k < 6; k++) b[k] = 0.0;
  for (int i = 1; i <= m->nb; i++) {
    double Ia[6], Iv[6], vf[6], f[6], x[6];
    mbs_I_mv(m->inertia + 10 * i, ws->a + 6 * i, Ia);
    mbs_I_mv(m->inertia + 10 * i, ws->v + 6 * i, Iv);
    mbs_crf(ws->v + 6 * i, Iv, vf);
    for (int k = 0; k < 6; k++) f[k] = Ia[k] + vf[k];
    at_centroid(ws, i, c, f, x);
    for (int k = 0; k < 6; k++) b[k] += x[k];
  }
  return mbs_finite(b, 6) ? MB_OK : MB_ENUMERIC;
}
