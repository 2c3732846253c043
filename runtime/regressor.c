/* regressor.c — the dynamics as linear functions of the inertial parameters (mb.h "Inertial
 * parameters and regressors"): the joint-torque regressor τ = Y(q, v, q̈) π and the energy
 * regressors T = y_kᵀ π, U = y_pᵀ π; and the joints' friction, armature and offset columns.
 *
 * A body's spatial force f_i = I_i a_i + v_i ×* I_i v_i is linear in its ten parameters, so column
 * k of its 6 × 10 block A_i is that force for the unit parameter vector e_k (an exact evaluation:
 * the inertia is linear in π). τ_j = S_jᵀ Σ_{i in the subtree of j} jX*_i f_i, so body i's columns
 * of Y are S_jᵀ jX*_i A_i on the rows of every joint j from i up to the root, and zero elsewhere
 * (Atkeson, An & Hollerbach, "Estimation of inertial parameters of manipulator loads and links",
 * IJRR 5(3), 1986; the recursive form: Khalil & Dombre, "Modeling, Identification and Control of
 * Robots", 2002, ch. 12). This file is the reference the generated regressors are checked
 * against: it shares with mb_rnea only the spatial helpers, not the recursion. */
#include "flex_internal.h"

#include <math.h>
#include <string.h>

/* Pinocchio's order (Inertia::toDynamicParameters) → the model's 10-number form
 * [m, hx hy hz, ixx iyy izz ixy ixz iyz]. */
static const int PIN_TO_MODEL[MB_NPARAM] = {0, 1, 2, 3, 4, 7, 5, 8, 9, 6};

void mb_params_of_inertia(const double inertia[10], double pi[MB_NPARAM]) {
  for (int k = 0; k < MB_NPARAM; k++) pi[k] = inertia[PIN_TO_MODEL[k]];
}

void mb_inertia_of_params(const double pi[MB_NPARAM], double inertia[10]) {
  for (int k = 0; k < MB_NPARAM; k++) inertia[PIN_TO_MODEL[k]] = pi[k];
}

int mb_model_params(const mb_model *m, double *pi) {
  if (!m || !pi) return MB_EINVAL;
  for (int i = 1; i <= m->nb; i++)
    mb_params_of_inertia(m->inertia + 10 * i, pi + MB_NPARAM * (size_t)(i - 1));
  return MB_OK;
}

/* Body velocities and accelerations (gravity as the base's acceleration −g) into ws->v, ws->a;
 * a NULL means zero. mb_xup has run. */
static void forward(const mb_model *m, mb_workspace *ws, const double *v, const double *a) {
  for (int k = 0; k < 6; k++) ws->v[k] = 0.0, ws->a[k] = (k < 3) ? 0.0 : -m->gravity[k - 3];
  for (int i = 1; i <= m->nb; i++) {
    const double *E = ws->XE + 9 * i, *r = ws->Xr + 3 * i, *S = ws->S + 6 * m->iv[i];
    double *vi = ws->v + 6 * i, *ai = ws->a + 6 * i, vJ[6] = {0}, aJ[6] = {0}, t[6];
    int n = mb_joint_nv(m->jtype[i]), p = m->parent[i];
    for (int c = 0; c < n; c++)
      for (int k = 0; k < 6; k++) {
        vJ[k] += v ? S[6 * c + k] * v[m->iv[i] + c] : 0.0;
        aJ[k] += a ? S[6 * c + k] * a[m->iv[i] + c] : 0.0;
      }
    mbs_X_mv(E, r, ws->v + 6 * p, vi); /* v_i = iXλ v_λ + S q̇ */
    for (int k = 0; k < 6; k++) vi[k] += vJ[k];
    mbs_X_mv(E, r, ws->a + 6 * p, ai); /* a_i = iXλ a_λ + S q̈ + v_i × S q̇ + cJ */
    mbs_crm(vi, vJ, t);
    for (int k = 0; k < 6; k++) ai[k] += aJ[k] + t[k];
    mb_joint_cJ(m, i, S, v ? v + m->iv[i] : NULL, ai);
  }
}

/* A[6 × 10] (column k at A + 6 k): the force I(e_k) a + v ×* I(e_k) v of each unit parameter. */
static void body_block(const double v[6], const double a[6], double A[6 * MB_NPARAM]) {
  for (int k = 0; k < MB_NPARAM; k++) {
    double e[MB_NPARAM] = {0}, I[10], Ia[6], Iv[6], t[6];
    e[k] = 1.0;
    mb_inertia_of_params(e, I);
    mbs_I_mv(I, a, Ia);
    mbs_I_mv(I, v, Iv);
    mbs_crf(v, Iv, t);
    for (int r = 0; r < 6; r++) A[6 * k + r] = Ia[r] + t[r];
  }
}

int mb_regressor(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                 const double *a, double *Y) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!q || !Y || mbf_on(m)) return MB_EINVAL;
  size_t ncol = (size_t)MB_NPARAM * (size_t)m->nb;
  memset(Y, 0, sizeof *Y * (size_t)m->nv * ncol);
  mb_xup(m, ws, q);
  forward(m, ws, v, a);
  for (int i = 1; i <= m->nb; i++) {
    double F[6 * MB_NPARAM], t[6];
    size_t col = (size_t)MB_NPARAM * (size_t)(i - 1);
    body_block(ws->v + 6 * i, ws->a + 6 * i, F);
    /* up the tree: the rows of joint j get S_jᵀ F, then F moves into λ(j)'s frame */
    for (int j = i; j > 0; j = m->parent[j]) {
      const double *S = ws->S + 6 * m->iv[j];
      for (int c = 0; c < mb_joint_nv(m->jtype[j]); c++)
        for (int k = 0; k < MB_NPARAM; k++) {
          double s = 0.0;
          for (int r = 0; r < 6; r++) s += S[6 * c + r] * F[6 * k + r];
          Y[(size_t)(m->iv[j] + c) * ncol + col + (size_t)k] = s;
        }
      if (m->parent[j] == 0) break;
      for (int k = 0; k < MB_NPARAM; k++) {
        mbs_XT_fv(ws->XE + 9 * j, ws->Xr + 3 * j, F + 6 * k, t);
        memcpy(F + 6 * k, t, sizeof t);
      }
    }
  }
  return mbs_finite(Y, (size_t)m->nv * ncol) ? MB_OK : MB_ENUMERIC;
}

int mb_energy_regressor(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                        double *yk, double *yp) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!q || !yk || !yp || mbf_on(m)) return MB_EINVAL;
  mb_xup(m, ws, q);
  forward(m, ws, v, NULL);
  for (int i = 1; i <= m->nb; i++) {
    const double *vi = ws->v + 6 * i;
    double *E0 = ws->X0E + 9 * i, *r0 = ws->X0r + 3 * i, *k_i = yk + MB_NPARAM * (size_t)(i - 1);
    double *p_i = yp + MB_NPARAM * (size_t)(i - 1), Eg[3];
    /* world pose: X0_i = iXλ λX0 (E rotates world into body axes, r the origin in the world) */
    mbs_X_compose(ws->XE + 9 * i, ws->Xr + 3 * i, ws->X0E + 9 * m->parent[i],
                  ws->X0r + 3 * m->parent[i], E0, r0);
    for (int k = 0; k < MB_NPARAM; k++) { /* T_i = ½ v_iᵀ I(e_k) v_i */
      double e[MB_NPARAM] = {0}, I[10], Iv[6], s = 0.0;
      e[k] = 1.0;
      mb_inertia_of_params(e, I);
      mbs_I_mv(I, vi, Iv);
      for (int r = 0; r < 6; r++) s += vi[r] * Iv[r];
      k_i[k] = 0.5 * s;
    }
    /* U_i = −gᵀ (m p_i + R_i h_i): −gᵀ p_i for m, −(R_iᵀ g)_k = −(E g)_k for h_k */
    const double *g = m->gravity;
    for (int a = 0; a < 3; a++)
      Eg[a] = E0[3 * a] * g[0] + E0[3 * a + 1] * g[1] + E0[3 * a + 2] * g[2];
    memset(p_i, 0, sizeof *p_i * MB_NPARAM);
    p_i[0] = -(g[0] * r0[0] + g[1] * r0[1] + g[2] * r0[2]);
    for (int a = 0; a < 3; a++) p_i[1 + a] = -Eg[a];
  }
  size_t n = (size_t)MB_NPARAM * (size_t)m->nb;
  return mbs_finite(yk, n) && mbs_finite(yp, n) ? MB_OK : MB_ENUMERIC;
}

int mb_joint_count1(const mb_model *m) {
  int n = 0;
  for (int i = 1; m && i <= m->nb; i++) n += mb_joint_nv(m->jtype[i]) == 1;
  return n;
}

double mb_coulomb_sign(double v) { return v / fmax(fabs(v), MB_COULOMB_BAND); }

int mb_joint_regressor(const mb_model *m, const double *v, const double *a, double *Yj) {
  if (!m || !Yj) return MB_EINVAL;
  size_t ncol = 4 * (size_t)mb_joint_count1(m);
  memset(Yj, 0, sizeof *Yj * (size_t)m->nv * ncol);
  size_t col = 0;
  for (int i = 1; i <= m->nb; i++) {
    if (mb_joint_nv(m->jtype[i]) != 1) continue;
    double vi = v ? v[m->iv[i]] : 0.0, ai = a ? a[m->iv[i]] : 0.0;
    double *row = Yj + (size_t)m->iv[i] * ncol;
    row[col] = vi, row[col + 1] = mb_coulomb_sign(vi), row[col + 2] = ai, row[col + 3] = 1.0;
    col += 4;
  }
  return mbs_finite(Yj, (size_t)m->nv * ncol) ? MB_OK : MB_ENUMERIC;
}
