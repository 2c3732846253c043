/* flex_nodes.c — the world poses of the flexible bodies' nodes: the body's pose (forward
 * kinematics of the reference frames) composed with the node's deflection (Jain & Rodriguez,
 * "Recursive Dynamics for Flexible Multibody Systems Using Spatial Operators", JPL Publication
 * 90-26, 1990, §3: the node's displacement is its mode shapes times η). */
#include "flex_internal.h"

int mb_node_poses(const mb_model *m, mb_workspace *ws, const double *q, double *pose) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!q || !pose || !m->flex || m->flex->nnodes <= 0) return MB_EINVAL;
  const mb_flex *F = m->flex;
  mb_xup(m, ws, q);
  for (int i = 1; i <= m->nb; i++) /* iX0 = iXλ λX0 */
    mbs_X_compose(ws->XE + 9 * i, ws->Xr + 3 * i, ws->X0E + 9 * m->parent[i],
                  ws->X0r + 3 * m->parent[i], ws->X0E + 9 * i, ws->X0r + 3 * i);
  for (int k = 0, off = 0; k < F->nnodes; k++) {
    int i = F->node_body[k], nm = mb_body_nm(m, i);
    const double *sh = F->node_shape + off, *eta = q + m->iq[i] + mb_joint_nq(m->jtype[i]);
    const double *E = ws->X0E + 9 * i;
    double phi[3] = {0, 0, 0}, x[3], quat[4], Rd[9], R[9], *P = pose + 12 * k;
    for (int a = 0; a < 3; a++) x[a] = F->node_r[3 * k + a];
    for (int c = 0; c < nm; c++)
      for (int a = 0; a < 3; a++) phi[a] += sh[6 * c + a] * eta[c], x[a] += sh[6 * c + 3 + a] * eta[c];
    off += 6 * nm;
    for (int a = 0; a < 3; a++) quat[a] = 0.5 * phi[a];
    quat[3] = 1.0;
    mbs_quat_to_rot(quat, Rd); /* the rotation of quat/|quat| */
    for (int a = 0; a < 3; a++) /* R = Eᵀ (body → world) */
      for (int b = 0; b < 3; b++) R[3 * a + b] = E[3 * b + a];
    mbs_mat3_mul(R, Rd, P);
    mbs_mat3_mv(R, x, P + 9);
    for (int a = 0; a < 3; a++) P[9 + a] += ws->X0r[3 * i + a];
  }
  return mbs_finite(pose, 12 * (size_t)F->nnodes) ? MB_OK : MB_ENUMERIC;
}
