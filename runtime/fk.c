/* fk.c — forward kinematics: every body's world pose. */
#include "mb.h"

void mb_x0(const mb_model *m, mb_workspace *ws) {
  for (int k = 0; k < 9; k++) ws->X0E[k] = k % 4 == 0 ? 1.0 : 0.0;
  for (int k = 0; k < 3; k++) ws->X0r[k] = 0.0;
  for (int i = 1; i <= m->nb; i++) { /* iX0 = iXλ λX0 */
    int p = m->parent[i];
    mbs_X_compose(ws->XE + 9 * i, ws->Xr + 3 * i, ws->X0E + 9 * p, ws->X0r + 3 * p,
                  ws->X0E + 9 * i, ws->X0r + 3 * i);
  }
}

/* v_i = iXλ v_λ + S_i q̇_i, a_i = iXλ a_λ + v_i × S_i q̇_i + cJ_i (cJ = Ṡ q̇: mb_joint_cJ). */
void mb_bias_pass(const mb_model *m, mb_workspace *ws, const double *v) {
  for (int k = 0; k < 6; k++) ws->v[k] = ws->a[k] = 0.0;
  for (int i = 1; i <= m->nb; i++) {
    int p = m->parent[i], o = m->iv[i], n = mb_joint_nv(m->jtype[i]);
    double vj[6] = {0, 0, 0, 0, 0, 0}, t[6];
    for (int c = 0; c < n; c++)
      for (int k = 0; k < 6; k++) vj[k] += ws->S[6 * (o + c) + k] * v[o + c];
    mbs_X_mv(ws->XE + 9 * i, ws->Xr + 3 * i, ws->v + 6 * p, ws->v + 6 * i);
    for (int k = 0; k < 6; k++) ws->v[6 * i + k] += vj[k];
    mbs_X_mv(ws->XE + 9 * i, ws->Xr + 3 * i, ws->a + 6 * p, ws->a + 6 * i);
    mbs_crm(ws->v + 6 * i, vj, t);
    for (int k = 0; k < 6; k++) ws->a[6 * i + k] += t[k];
    mb_joint_cJ(m, i, ws->S + 6 * o, v + o, ws->a + 6 * i);
  }
}
int mb_fk(const mb_model *m, mb_workspace *ws, const double *q, double *pose) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!q || !pose) return MB_EINVAL;
  mb_xup(m, ws, q);
  mb_x0(m, ws);
  for (int k = 0; k < 12; k++) pose[k] = (k < 9 && k % 4 == 0) ? 1.0 : 0.0;
  for (int i = 1; i <= m->nb; i++) {
    double *E = ws->X0E + 9 * i, *r = ws->X0r + 3 * i, *P = pose + 12 * i;
    /* pose = (R, p) = (Eᵀ, r): body → world rotation, body origin in world coordinates */
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) P[3 * a + b] = E[3 * b + a];
    for (int k = 0; k < 3; k++) P[9 + k] = r[k];
  }
  return mbs_finite(pose, 12 * ((size_t)m->nb + 1)) ? MB_OK : MB_ENUMERIC;
}
