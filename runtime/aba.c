/* aba.c — forward dynamics by the articulated-body algorithm (Featherstone, "Rigid Body Dynamics
 * Algorithms", 2008, ch. 7; Critchley & Anderson, "A Generalized Recursive Coordinate Reduction
 * Method for Multibody System Dynamics", International Journal for Multiscale Computational
 * Engineering, 2003, eqs. 9-22; Jain & Rodriguez, "Recursive Dynamics for Flexible Multibody
 * Systems Using Spatial Operators", JPL Publication 90-26, 1990, §6-7, eqs. 6.1, 7.2-7.3). A joint
 * of n dofs has an n×n D = Sᵀ U, factored by Cholesky; a fixed joint (n = 0) passes its
 * articulated inertia on unchanged. */
#include "aba_internal.h"
#include "flex_internal.h"

#include <assert.h>
#include <math.h>

void mb_pivot_refs(const mb_model *m, mb_workspace *ws) {
  double *J = ws->Jsub, *ms = ws->msub;
  /* J_i = ½ tr Ī_i + Σ_c (√J_c + √m_c |r_c|)² (Minkowski's inequality: a bound of ∫ |p|² dm over
   * i's subtree, p measured from i's origin along the tree's offsets r_c = ws->Xr); m_i the
   * subtree's mass */
  for (int i = 1; i <= m->nb; i++) {
    const double *I = m->inertia + 10 * i;
    J[i] = 0.5 * (I[4] + I[5] + I[6]), ms[i] = I[0];
  }
  J[0] = ms[0] = 0.0;
  for (int i = m->nb; i >= 1; i--) {
    const double *r = ws->Xr + 3 * i;
    double s = sqrt(J[i]) + sqrt(ms[i]) * sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    J[m->parent[i]] += s * s, ms[m->parent[i]] += ms[i];
    /* r = (|s_ω| √(2J) + |s_v| √m)² for every column s = [s_ω; s_v] of S_i */
    for (int l = 0, o = m->iv[i]; l < mb_joint_nv(m->jtype[i]); l++) {
      const double *c = ws->S + 6 * (o + l);
      double x = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]) * sqrt(2.0 * J[i]) +
                 sqrt(c[3] * c[3] + c[4] * c[4] + c[5] * c[5]) * sqrt(ms[i]);
      ws->Dref[o + l] = ws->Dbase[o + l] = x * x + mb_armature(m, o + l);
    }
  }
}

/* Body i's pivots amplified into the references of its nearest moving ancestor a (through fixed
 * joints; aba_internal.h). The lock term of a's dof l (what locking joint i would add to D_a) is
 * y D_i⁻¹ y =
 * Σ_m z_m², y = U_iᵀ X S_a,l the components of U_i along a's dof (U_i carried to a's frame as
 * forces, X = aXᵢ), z = L⁻¹ y with D_i = L Lᵀ, d_m = L_mm². A pivot d_m of D_i carries a rounding
 * error up to about ε_mach r_m (its base reference); through U_i D_i⁻¹ U_iᵀ that error reaches D_a
 * multiplied by the lock term over d_m: r_a,l += Σ_m z_m² r_m / d_m. */
void mb_aba_amplify(const mb_model *m, mb_workspace *ws, int i, int n, const double *U,
                    const double *L, const double *r) {
  int a = i;
  double Y[36], t[6];
  if (n == 0) return;
  for (int k = 0; k < 6 * n; k++) Y[k] = U[k];
  do {
    for (int c = 0; c < n; c++) {
      mbs_XT_fv(ws->XE + 9 * a, ws->Xr + 3 * a, Y + 6 * c, t);
      for (int k = 0; k < 6; k++) Y[6 * c + k] = t[k];
    }
    a = m->parent[a];
  } while (a > 0 && mb_joint_nv(m->jtype[a]) == 0);
  if (a == 0) return;
  const double *Sa = ws->S + 6 * m->iv[a];
  for (int l = 0; l < mb_joint_nv(m->jtype[a]); l++) {
    double z[6], sum = 0.0;
    for (int c = 0; c < n; c++) {
      double x = 0.0;
      for (int k = 0; k < 6; k++) x += Sa[6 * l + k] * Y[6 * c + k];
      for (int k = 0; k < c; k++) x -= L[n * c + k] * z[k];
      z[c] = x / L[n * c + c];
      sum += z[c] * z[c] * (r[c] / (L[n * c + c] * L[n * c + c]));
    }
    ws->Dref[m->iv[a] + l] += sum;
  }
}

int mb_aba_joint(const mb_model *m, mb_workspace *ws, int i, double Ia[36]) {
  assert(m && ws && Ia && i >= 1 && i <= m->nb);
  int n = mb_joint_nv(m->jtype[i]), o = m->iv[i];
  const double *IA = ws->IA + 36 * i, *S = ws->S + 6 * o;
  double *U = ws->U + 6 * o, *D = ws->D + 6 * o, W[36];
  /* U = IA S;  D = Sᵀ U = L Lᵀ, pivots against the references ws->Dref (mb_pivot_refs) */
  for (int c = 0; c < n; c++)
    for (int k = 0; k < 6; k++) {
      double s = 0.0;
      for (int l = 0; l < 6; l++) s += IA[6 * k + l] * S[6 * c + l];
      U[6 * c + k] = s;
    }
  for (int l = 0; l < n; l++)
    for (int c = 0; c <= l; c++) {
      double s = 0.0;
      for (int k = 0; k < 6; k++) s += S[6 * l + k] * U[6 * c + k];
      D[n * l + c] = s + (l == c ? mb_armature(m, o + l) : 0.0); /* the rotor's inertia */
    }
  if (mbs_chol_ref(n, D, ws->Dref + o)) return ws->singular = i, -1;
  /* W = D⁻¹ Uᵀ (n × 6, column k at n k);  Ia = IA − U W */
  for (int k = 0; k < 6; k++) {
    for (int c = 0; c < n; c++) W[n * k + c] = U[6 * c + k];
    mbs_chol_solve(n, D, W + n * k);
  }
  for (int l = 0; l < 6; l++)
    for (int k = 0; k < 6; k++) {
      double s = IA[6 * l + k];
      for (int c = 0; c < n; c++) s -= U[6 * c + l] * W[n * k + c];
      Ia[6 * l + k] = s;
    }
  mb_aba_amplify(m, ws, i, n, U, D, ws->Dbase + o);
  return 0;
}

/* Forward pass: v_i = iXλ v_λ + S q̇;  c_i = v_i × vJ + cJ;  IA_i = I_i;
 * pA_i = v_i ×* I_i v_i − fext_i */
void mb_aba_velocities(const mb_model *m, mb_workspace *ws, const double *v,
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
    mb_joint_cJ(m, i, S, v ? v + o : NULL, ws->c + 6 * i);
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
  mb_pivot_refs(m, ws);
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
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!q || !tau || !qdd) return MB_EINVAL;
  if (mbf_on(m)) return mbf_aba(m, ws, q, v, tau, fext, qdd);
  ws->singular = 0;
  mb_xup(m, ws, q);
  mb_aba_velocities(m, ws, v, fext);
  if (aba_articulated(m, ws, tau)) return MB_ENUMERIC;
  aba_accelerations(m, ws, qdd);
  return mbs_finite(qdd, (size_t)m->nv) ? MB_OK : MB_ENUMERIC;
}
