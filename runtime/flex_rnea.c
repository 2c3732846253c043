/* flex_rnea.c — inverse dynamics of a model with flexible bodies: the recursive Newton-Euler
 * algorithm with modal bodies (Jain & Rodriguez, "Recursive Dynamics for Flexible Multibody
 * Systems Using Spatial Operators", JPL Publication 90-26, 1990, §4, eq. 4.2, in the ruthlessly
 * linearized model of §8, eq. 8.1: the modal mass matrix constant in the body frame). Body i's
 * modal velocity is [v_i; η̇_i]; its parent p moves the attachment with ṽ = v_p + Ψ_i η̇_p:
 *
 *   v_i = iXλ ṽ + S θ̇_i                    a_i = iXλ (a_p + Ψ_i η̈_p) + S θ̈_i + v_i × S θ̇_i
 *   f_i = I_i a_i + Mc_i η̈_i + v_i ×* (I_i v_i + Mc_i η̇_i) − fext_i
 *   g_i = Mc_iᵀ a_i + Me_i η̈_i + K_i η_i + D_i η̇_i + [v_iᵀ Q_ik v_i]_k
 *   τ_θ = Sᵀ f_i,  τ_η = g_i;   f_p += λX*_i f_i,  g_p += Ψ_iᵀ λX*_i f_i
 *
 * (the Euler-Poincaré equations of the kinetic energy ½ [v; η̇]ᵀ M_m [v; η̇], and the
 * velocity-product load of the undeformed body on the modes, b_m⁰ of eq. 8.1: vᵀ Q_k v, which
 * does work: docs/flexible.md). Gravity enters as a_0 = −g. */
#include "flex_internal.h"

/* out += A x, A 6 × n in columns of 6 */
static void cols_mv(const double *A, int n, const double *x, double out[6]) {
  for (int c = 0; c < n && x; c++)
    for (int k = 0; k < 6; k++) out[k] += A[6 * c + k] * x[c];
}

static void forward(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                    const double *a, const double *fext) {
  const mb_flex *F = m->flex;
  double vJ[6], t[6], h[6], ap[6], vp[6];
  for (int k = 0; k < 6; k++) ws->v[k] = 0.0, ws->a[k] = (k < 3) ? 0.0 : -m->gravity[k - 3];
  for (int i = 1; i <= m->nb; i++) {
    int n = mbf_nj(m, i), o = m->iv[i], p = m->parent[i], nm = mb_body_nm(m, i);
    int ie = mbf_ie(m, i), ip = mbf_ie(m, p);
    const double *S = ws->S + 6 * o, *E = ws->XE + 9 * i, *r = ws->Xr + 3 * i;
    double *vi = ws->v + 6 * i, *ai = ws->a + 6 * i, *fi = ws->f + 6 * i;
    /* ṽ = v_p + Ψ η̇_p,  ã = a_p + Ψ η̈_p */
    for (int k = 0; k < 6; k++) vp[k] = ws->v[6 * p + k], ap[k] = ws->a[6 * p + k];
    if (p > 0 && v) mbf_psi_mv(m, ws, i, v + ip, vp);
    if (p > 0 && a) mbf_psi_mv(m, ws, i, a + ip, ap);
    for (int k = 0; k < 6; k++) vJ[k] = 0.0;
    cols_mv(S, n, v ? v + o : NULL, vJ);
    mbs_X_mv(E, r, vp, vi);
    for (int k = 0; k < 6; k++) vi[k] += vJ[k];
    mbs_X_mv(E, r, ap, ai);
    cols_mv(S, n, a ? a + o : NULL, ai);
    mbs_crm(vi, vJ, t);
    for (int k = 0; k < 6; k++) ai[k] += t[k];
    mb_joint_cJ(m, i, S, v ? v + o : NULL, ai);
    /* f_i = I a + Mc η̈ + v ×* (I v + Mc η̇) − fext */
    const double *Mc = nm ? F->Mc + 6 * mbf_e(ws, i) : NULL;
    mbs_I_mv(m->inertia + 10 * i, ai, fi);
    mbs_I_mv(m->inertia + 10 * i, vi, h);
    if (nm) cols_mv(Mc, nm, a ? a + ie : NULL, fi);
    if (nm) cols_mv(Mc, nm, v ? v + ie : NULL, h);
    mbs_crf(vi, h, t);
    for (int k = 0; k < 6; k++) fi[k] += t[k] - (fext ? fext[6 * i + k] : 0.0);
    /* g_i = Mcᵀ a + Me η̈ + K η + D η̇ */
    double *g = ws->fe + mbf_e(ws, i);
    const double *Me = nm ? F->Me + mbf_e2(ws, i) : NULL, *K = nm ? F->K + mbf_e2(ws, i) : NULL;
    const double *D = nm ? F->D + mbf_e2(ws, i) : NULL, *eta = q + m->iq[i] + mb_joint_nq(m->jtype[i]);
    for (int r2 = 0; r2 < nm; r2++) {
      double s = v ? mbf_q_form(m, ws, i, r2, vi) : 0.0;
      for (int k = 0; k < 6; k++) s += Mc[6 * r2 + k] * ai[k];
      for (int c = 0; c < nm; c++) {
        s += K[nm * r2 + c] * eta[c];
        if (a) s += Me[nm * r2 + c] * a[ie + c];
        if (v) s += D[nm * r2 + c] * v[ie + c];
      }
      g[r2] = s;
    }
  }
}

/* τ_θ = Sᵀ f_i, τ_η = g_i;  f_p += λX*_i f_i;  g_p += Ψ_iᵀ λX*_i f_i */
static void backward(const mb_model *m, mb_workspace *ws, double *tau) {
  double t[6];
  for (int k = 0; k < 6; k++) ws->f[k] = 0.0;
  for (int i = m->nb; i >= 1; i--) {
    int n = mbf_nj(m, i), o = m->iv[i], p = m->parent[i], nm = mb_body_nm(m, i);
    const double *S = ws->S + 6 * o, *fi = ws->f + 6 * i;
    for (int j = 0; j < n; j++) {
      double s = 0.0;
      for (int k = 0; k < 6; k++) s += S[6 * j + k] * fi[k];
      tau[o + j] = s;
    }
    for (int j = 0; j < nm; j++) tau[o + n + j] = ws->fe[mbf_e(ws, i) + j];
    if (p == 0) continue;
    mbs_XT_fv(ws->XE + 9 * i, ws->Xr + 3 * i, fi, t);
    for (int k = 0; k < 6; k++) ws->f[6 * p + k] += t[k];
    mbf_psiT_fv(m, ws, i, t, ws->fe + mbf_e(ws, p));
  }
}

int mbf_rnea(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
             const double *a, const double *fext, double *tau) {
  mb_xup(m, ws, q);
  forward(m, ws, q, v, a, fext);
  backward(m, ws, tau);
  return mbs_finite(tau, (size_t)m->nv) ? MB_OK : MB_ENUMERIC;
}
