/* aba.c — forward dynamics by the articulated-body algorithm (ALGORITHMS.md §3; seed 001
 * eqs. 9-22; seed 003 §6-7, eqs. 6.1, 7.2-7.3). A joint of n dofs has an n×n D = Sᵀ U, factored
 * by Cholesky; a fixed joint (n = 0) passes its articulated inertia on unchanged. */
#include "mb.h"

int mb_aba_joint(const mb_model *m, mb_workspace *ws, int i, double Ia[36]) {
  int n = mb_joint_nv(m->jtype[i]), o = m->iv[i];
  const double *IA = ws->IA + 36 * i, *S = ws->S + 6 * o;
  double *U = ws->U + 6 * o, *D = ws->D + 6 * o, W[36];
  /* U = IA S;  D = Sᵀ U = L Lᵀ */
  for (int c = 0; c < n; c++)
    for (int r = 0; r < 6; r++) {
      double s = 0.0;
      for (int k = 0; k < 6; k++) s += IA[6 * r + k] * S[6 * c + k];
      U[6 * c + r] = s;
    }
  for (int r = 0; r < n; r++)
    for (int c = 0; c <= r; c++) {
      double s = 0.0;
      for (int k = 0; k < 6; k++) s += S[6 * r + k] * U[6 * c + k];
      D[n * r + c] = s;
    }
  if (mbs_chol(n, D)) return -1;
  /* W = D⁻¹ Uᵀ (n × 6, column k at n k);  Ia = IA − U W */
  for (int k = 0; k < 6; k++) {
    for (int c = 0; c < n; c++) W[n * k + c] = U[6 * c + k];
    mbs_chol_solve(n, D, W + n * k);
  }
  for (int r = 0; r < 6; r++)
    for (int k = 0; k < 6; k++) {
      double s = IA[6 * r + k];
      for (int c = 0; c < n; c++) s -= U[6 * c + r] * W[n * k + c];
      Ia[6 * r + k] = s;
    }
  return 0;
}

/* Forward pass: v_i = iXλ v_λ + S q̇;  c_i = v_i × vJ;  IA_i = I_i;
 * pA_i = v_i ×* I_i v_i − fext_i */
static void aba_velocities(const mb_model *m, mb_workspace *ws, const double *v,
                           const double *fext) {
  double vJ[6], Iv[6];
  for (int k = 0; k < 6; k++) ws->v[k] = 0.0;
  for (int i = 1; i <= m->nb; i++) {
    int n = mb_joint_nv(m->jtype[i]), o = m->iv[i], p = m->parent[i];
    const double *S = ws->S + 6 * o, *I = m->inertia + 10 * i;
    double *vi = ws->v + 6 * i, *pA = ws->pA + 6 * i;
    for (int k = 0; k < 6; k++) vJ[k] = 0.0;
    for (int c = 0; c < n && v; c++)
      for (int k = 0; k < 6; k++) vJ[k] += S[6 * c + k] * v[o + c];
    mbs_X_mv(ws->XE + 9 * i, ws->Xr + 3 * i, ws->v + 6 * p, vi);
    for (int k = 0; k < 6; k++) vi[k] += vJ[k];
    mbs_crm(vi, vJ, ws->c + 6 * i);
    mbs_I_mat(I, ws->IA + 36 * i);
    mbs_I_mv(I, vi, Iv);
    mbs_crf(vi, Iv, pA);
    for (int k = 0; k < 6 && fext; k++) pA[k] -= fext[6 * i + k];
  }
}

/* Backward pass: U, D, u = τ − Sᵀ pA;  IA_λ += λX*_i Ia iXλ;
 * pA_λ += λX*_i (pA + Ia c + U D⁻¹ u) */
static int aba_articulated(const mb_model *m, mb_workspace *ws, const double *tau) {
  double Ia[36], pa[6], Du[6], t[6];
  for (int i = m->nb; i >= 1; i--) {
    int n = mb_joint_nv(m->jtype[i]), o = m->iv[i], p = m->parent[i];
    const double *S = ws->S + 6 * o, *U = ws->U + 6 * o, *pA = ws->pA + 6 * i, *c = ws->c + 6 * i;
    if (mb_aba_joint(m, ws, i, Ia)) return -1;
    for (int r = 0; r < n; r++) {
      double s = tau[o + r];
      for (int k = 0; k < 6; k++) s -= S[6 * r + k] * pA[k];
      ws->u[o + r] = Du[r] = s;
    }
    if (p == 0) continue;
    mbs_chol_solve(n, ws->D + 6 * o, Du);
    for (int r = 0; r < 6; r++) {
      double s = pA[r];
      for (int k = 0; k < 6; k++) s += Ia[6 * r + k] * c[k];
      for (int k = 0; k < n; k++) s += U[6 * k + r] * Du[k];
      pa[r] = s;
    }
    mbs_mat6_to_parent(ws->XE + 9 * i, ws->Xr + 3 * i, Ia, Ia);
    mbs_XT_fv(ws->XE + 9 * i, ws->Xr + 3 * i, pa, t);
    for (int k = 0; k < 36; k++) ws->IA[36 * p + k] += Ia[k];
    for (int k = 0; k < 6; k++) ws->pA[6 * p + k] += t[k];
  }
  return 0;
}

/* Forward pass: a' = iXλ a_λ + c;  q̈ = D⁻¹ (u − Uᵀ a');  a_i = a' + S q̈;  a_0 = −gravity */
static void aba_accelerations(const mb_model *m, mb_workspace *ws, double *qdd) {
  for (int k = 0; k < 6; k++) ws->a[k] = (k < 3) ? 0.0 : -m->gravity[k - 3];
  for (int i = 1; i <= m->nb; i++) {
    int n = mb_joint_nv(m->jtype[i]), o = m->iv[i], p = m->parent[i];
    const double *S = ws->S + 6 * o, *U = ws->U + 6 * o, *c = ws->c + 6 * i;
    double *ai = ws->a + 6 * i;
    mbs_X_mv(ws->XE + 9 * i, ws->Xr + 3 * i, ws->a + 6 * p, ai);
    for (int k = 0; k < 6; k++) ai[k] += c[k];
    for (int r = 0; r < n; r++) {
      double s = ws->u[o + r];
      for (int k = 0; k < 6; k++) s -= U[6 * r + k] * ai[k];
      qdd[o + r] = s;
    }
    mbs_chol_solve(n, ws->D + 6 * o, qdd + o);
    for (int r = 0; r < n; r++)
      for (int k = 0; k < 6; k++) ai[k] += S[6 * r + k] * qdd[o + r];
  }
}

int mb_aba(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
           const double *tau, const double *fext, double *qdd) {
  mb_xup(m, ws, q);
  aba_velocities(m, ws, v, fext);
  if (aba_articulated(m, ws, tau)) return -1;
  aba_accelerations(m, ws, qdd);
  return 0;
}
