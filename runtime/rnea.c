/* rnea.c — inverse dynamics by the recursive Newton-Euler algorithm (Featherstone, "Rigid Body
 * Dynamics Algorithms", 2008, ch. 5; Jain & Rodriguez, "Recursive Dynamics for Flexible Multibody
 * Systems Using Spatial Operators", JPL Publication 90-26, 1990, §4, eqs. 4.1-4.2), and the bias
 * and gravity terms it gives with a = 0. */
#include "flex_internal.h"

/* out = S qd for the n columns of S (qd NULL means zero). */
static void S_mul(const double *S, int n, const double *qd, double out[6]) {
  for (int k = 0; k < 6; k++) out[k] = 0.0;
  for (int j = 0; j < n && qd; j++)
    for (int k = 0; k < 6; k++) out[k] += S[6 * j + k] * qd[j];
}

/* Forward pass: body velocities, accelerations and forces, gravity as a0 = −g. */
static void rnea_forward(const mb_model *m, mb_workspace *ws, const double *v, const double *a,
                         const double *fext) {
  double vJ[6], aS[6], t[6], Iv[6];
  for (int k = 0; k < 6; k++) ws->v[k] = 0.0, ws->a[k] = (k < 3) ? 0.0 : -m->gravity[k - 3];
  for (int i = 1; i <= m->nb; i++) {
    const double *E = ws->XE + 9 * i, *r = ws->Xr + 3 * i, *S = ws->S + 6 * m->iv[i];
    const double *I = m->inertia + 10 * i;
    double *vi = ws->v + 6 * i, *ai = ws->a + 6 * i, *fi = ws->f + 6 * i;
    int n = mb_joint_nv(m->jtype[i]), p = m->parent[i];
    /* vJ = S q̇;  v_i = iXλ v_λ + vJ */
    S_mul(S, n, v ? v + m->iv[i] : NULL, vJ);
    mbs_X_mv(E, r, ws->v + 6 * p, vi);
    for (int k = 0; k < 6; k++) vi[k] += vJ[k];
    /* a_i = iXλ a_λ + S q̈ + v_i × vJ + cJ */
    S_mul(S, n, a ? a + m->iv[i] : NULL, aS);
    mbs_X_mv(E, r, ws->a + 6 * p, ai);
    mbs_crm(vi, vJ, t);
    for (int k = 0; k < 6; k++) ai[k] += aS[k] + t[k];
    mb_joint_cJ(m, i, S, v ? v + m->iv[i] : NULL, ai);
    /* f_i = I a_i + v_i ×* I v_i − fext_i */
    mbs_I_mv(I, ai, fi);
    mbs_I_mv(I, vi, Iv);
    mbs_crf(vi, Iv, t);
    for (int k = 0; k < 6; k++) fi[k] += t[k] - (fext ? fext[6 * i + k] : 0.0);
  }
}

/* Backward pass: τ_i = S_iᵀ f_i;  f_λ += λX*_i f_i. */
static void rnea_backward(const mb_model *m, mb_workspace *ws, double *tau) {
  double t[6];
  for (int k = 0; k < 6; k++) ws->f[k] = 0.0;
  for (int i = m->nb; i >= 1; i--) {
    const double *S = ws->S + 6 * m->iv[i], *fi = ws->f + 6 * i;
    int n = mb_joint_nv(m->jtype[i]), p = m->parent[i];
    for (int j = 0; j < n; j++) {
      double s = 0.0;
      for (int k = 0; k < 6; k++) s += S[6 * j + k] * fi[k];
      tau[m->iv[i] + j] = s;
    }
    if (p == 0) continue;
    mbs_XT_fv(ws->XE + 9 * i, ws->Xr + 3 * i, fi, t);
    for (int k = 0; k < 6; k++) ws->f[6 * p + k] += t[k];
  }
}

/* The rotor inertias' torques: τ += armature ⊙ q̈ (mb.h mb_model.armature). */
static void armature_torques(const mb_model *m, const double *a, double *tau) {
  for (int k = 0; m->armature && a && k < m->nv; k++) tau[k] += m->armature[k] * a[k];
}

int mb_rnea(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
            const double *a, const double *fext, double *tau) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!q || !tau) return MB_EINVAL;
  if (mbf_on(m)) {
    rc = mbf_rnea(m, ws, q, v, a, fext, tau);
    if (rc == MB_OK) armature_torques(m, a, tau);
    return rc == MB_OK && !mbs_finite(tau, (size_t)m->nv) ? MB_ENUMERIC : rc;
  }
  mb_xup(m, ws, q);
  rnea_forward(m, ws, v, a, fext);
  rnea_backward(m, ws, tau);
  armature_torques(m, a, tau);
  return mbs_finite(tau, (size_t)m->nv) ? MB_OK : MB_ENUMERIC;
}

int mb_nle(const mb_model *m, mb_workspace *ws, const double *q, const double *v, double *h) {
  /* h = rnea(q, v, 0) */
  return mb_rnea(m, ws, q, v, NULL, NULL, h);
}

int mb_gravity(const mb_model *m, mb_workspace *ws, const double *q, double *g) {
  /* g = rnea(q, 0, 0) */
  return mb_rnea(m, ws, q, NULL, NULL, NULL, g);
}
