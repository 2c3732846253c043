/* com.c — the centre of mass of the moving bodies, its Jacobian, and the energy (mb.h "Centre
 * of mass and energy"). Body i's inertia at its origin holds its mass m_i and first moment
 * h_i = m_i c_i (body coordinates); its centre of mass in world coordinates is p_i + R_i c_i. */
#include "mb.h"

double mb_mass(const mb_model *m) {
  double s = 0.0;
  for (int i = 1; m && i <= m->nb; i++) s += m->inertia[10 * i];
  return s;
}

/* ws->X0E/X0r from q; mw[4 i ..]: m_i and m_i times body i's centre of mass, world coordinates. */
static void moments(const mb_model *m, mb_workspace *ws, const double *q, double *mw) {
  mb_xup(m, ws, q);
  mb_x0(m, ws);
  for (int i = 1; i <= m->nb; i++) {
    const double *I = m->inertia + 10 * i, *r = ws->X0r + 3 * i;
    double h[3];
    mbs_mat3_tmv(ws->X0E + 9 * i, I + 1, h); /* R_i h_i */
    mw[4 * i] = I[0];
    for (int a = 0; a < 3; a++) mw[4 * i + 1 + a] = I[0] * r[a] + h[a];
  }
}

static int start(const mb_model *m, mb_workspace *ws, const double *q, const void *out) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!q || !out) return MB_EINVAL;
  if (mb_flex_count(m, 0) > 0) return MB_EINVAL; /* the modes move the mass: not covered yet */
  if (!(mb_mass(m) > 0.0)) return MB_ENUMERIC;
  return MB_OK;
}

int mb_com(const mb_model *m, mb_workspace *ws, const double *q, double *c) {
  int rc = start(m, ws, q, c);
  if (rc) return rc;
  double *mw = ws->IC; /* 10 per body: room for 4 */
  moments(m, ws, q, mw);
  double M = mb_mass(m), s[3] = {0, 0, 0};
  for (int i = 1; i <= m->nb; i++)
    for (int a = 0; a < 3; a++) s[a] += mw[4 * i + 1 + a];
  for (int a = 0; a < 3; a++) c[a] = s[a] / M;
  return mbs_finite(c, 3) ? MB_OK : MB_ENUMERIC;
}

int mb_com_jacobian(const mb_model *m, mb_workspace *ws, const double *q, double *Jc) {
  int rc = start(m, ws, q, Jc), nv = m->nv;
  if (rc) return rc;
  double *mw = ws->IC, M = mb_mass(m);
  moments(m, ws, q, mw);
  for (int i = m->nb; i >= 1; i--) /* subtree sums: mass and first moment, world coordinates */
    if (m->parent[i] > 0)
      for (int k = 0; k < 4; k++) mw[4 * m->parent[i] + k] += mw[4 * i + k];
  /* column of dof c of joint i: (m_sub v_0 + ω × (m c)_sub) / M, [ω; v_0] = 0X_i S (world) */
  for (int i = 1; i <= m->nb; i++) {
    const double *E = ws->X0E + 9 * i, *r = ws->X0r + 3 * i;
    for (int c = 0; c < mb_joint_nv(m->jtype[i]); c++) {
      const double *s = ws->S + 6 * (m->iv[i] + c);
      double w[3], u[3], x[3], mc[3];
      mbs_mat3_tmv(E, s, w);
      mbs_mat3_tmv(E, s + 3, u); /* the velocity of i's origin; at the world origin: u − ω × r */
      for (int a = 0; a < 3; a++) mc[a] = mw[4 * i + 1 + a] - mw[4 * i] * r[a];
      mbs_cross(w, mc, x); /* ω × (m c − m p_i) */
      for (int a = 0; a < 3; a++)
        Jc[(size_t)nv * (size_t)a + (size_t)(m->iv[i] + c)] = (mw[4 * i] * u[a] + x[a]) / M;
    }
  }
  return mbs_finite(Jc, 3 * (size_t)nv) ? MB_OK : MB_ENUMERIC;
}

int mb_energy(const mb_model *m, mb_workspace *ws, const double *q, const double *v, double *e) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!q || !v || !e) return MB_EINVAL;
  if (mb_flex_count(m, 0) > 0) return MB_EINVAL;
  double *mw = ws->IC, T = 0.0, V = 0.0;
  moments(m, ws, q, mw);
  mb_bias_pass(m, ws, v);
  for (int i = 1; i <= m->nb; i++) {
    double *vi = ws->v + 6 * i, Iv[6];
    mbs_I_mv(m->inertia + 10 * i, vi, Iv);
    for (int k = 0; k < 6; k++) T += 0.5 * vi[k] * Iv[k];
    for (int a = 0; a < 3; a++) V -= m->gravity[a] * mw[4 * i + 1 + a];
  }
  for (int k = 0; m->armature && k < m->nv; k++) T += 0.5 * m->armature[k] * v[k] * v[k];
  e[0] = T, e[1] = V;
  return mbs_finite(e, 2) ? MB_OK : MB_ENUMERIC;
}
