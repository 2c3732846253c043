/* joint_wrenches.c — the wrench transmitted across every joint (Featherstone, "Rigid Body
 * Dynamics Algorithms", 2008, ch. 5): RNEA's f_i after the backward pass, already at body i's
 * origin and in its frame (the child-side joint frame), [torque; force] of the parent on the
 * child. */
#include "mb.h"

int mb_joint_wrenches(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                      const double *a, double *wrench) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!q || !wrench) return MB_EINVAL;
  /* f_i = I_i a_i + v_i ×* I_i v_i + Σ_{children c} iX*_c f_c */
  mb_rnea(m, ws, q, v, a, NULL, ws->tau);
  for (int k = 0; k < 6; k++) wrench[k] = 0.0;
  for (int k = 6; k < 6 * (m->nb + 1); k++) wrench[k] = ws->f[k];
  return mbs_finite(wrench, 6 * ((size_t)m->nb + 1)) ? MB_OK : MB_ENUMERIC;
}
