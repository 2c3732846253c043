/* flexible.c — the modal data of the topology's flexible bodies (Jain & Rodriguez, "Recursive
 * Dynamics for Flexible Multibody Systems Using Spatial Operators", JPL Publication 90-26, 1990,
 * §3): each one's modal body (modal/modal.h), the rigid bodies fixed to it added as lumped
 * attachments, and the section every joint hanging from it moves with.
 *
 * A rigid body b fixed (through a chain of fixed joints) to a flexible body moves with the section
 * of the first joint of that chain, Ψ per unit η̇ (modal.h): with I_b its spatial inertia at the
 * flexible body's origin (already in the body's rigid inertia, topology.c), it is a node of the
 * modal body (mbg_modal_add_lumped: I_b Ψ in the coupling, Ψᵀ I_b Ψ in the modal mass, its
 * velocity-product form). A moving joint on b hangs from the same section. */
#include <stdlib.h>
#include <string.h>

#include "topology/topology.h"

#include "mb.h"

/* The joint whose parent is model body `host` on the chain of joints up from `joint` (joint
 * itself when its parent is host; the others on the way are fixed); -1 if none. */
static int section_joint(const mbg_model *m, int host, int joint) {
  for (int n = 0; joint >= 0 && n <= m->njoints; n++) {
    int p = m->joints[joint].parent, next = -1;
    if (p == host) return joint;
    for (int j = 0; j < m->njoints && next < 0; j++)
      if (m->joints[j].child == p && m->joints[j].type == MBG_JOINT_FIXED) next = j;
    joint = next;
  }
  return -1;
}

/* The section shape (6 nm) of model joint j on flexible model body host. */
static void section_shape(const mbg_model *m, int host, int j, double *psi) {
  const mbg_joint *J = &m->joints[j];
  mbg_modal_attach_shape(m->bodies[host].flex, J->node, J->xyz, psi);
}

/* Rigid model body b, merged into flexible tree body i: its lumped contribution. */
static int add_attached(const mbg_model *m, mbg_topology *t, const mbg_merged *mb) {
  mbg_tree_body *tb = &t->body[mb->into];
  int nm = tb->nm, host = tb->model_body, j = -1;
  for (int k = 0; k < m->njoints && j < 0; k++)
    if (m->joints[k].child == mb->model_body) j = k;
  j = j >= 0 ? section_joint(m, host, j) : -1;
  if (j < 0) return 0; /* not reached for a validated model */
  double *psi = malloc(6 * (size_t)nm * sizeof *psi), A[36];
  if (!psi) return -1;
  mbg_inertia own, I;
  mbg_inertia_from_body(&m->bodies[mb->model_body], &own);
  mbg_inertia_to_parent(&mb->X, &own, &I);
  double I10[10] = {I.m, I.h[0], I.h[1], I.h[2]}; /* the runtime's 10-number form */
  memcpy(I10 + 4, I.I, sizeof I.I);
  mbs_I_mat(I10, A);
  section_shape(m, host, j, psi);
  mbg_modal_add_lumped(&tb->modal, A, psi);
  free(psi);
  return 0;
}

int mbg_topology_modal(const mbg_model *m, mbg_topology *t) {
  for (int i = 1; i <= t->nb; i++) {
    mbg_tree_body *tb = &t->body[i];
    if (tb->nm > 0 && mbg_modal_build(m->bodies[tb->model_body].flex, &tb->modal) != 0) return -1;
  }
  for (int b = 0; b < t->nmerged; b++) {
    const mbg_merged *mb = &t->merged[b];
    if (mb->into <= 0 || t->body[mb->into].model_body == mb->model_body) continue;
    if (t->body[mb->into].nm > 0 && add_attached(m, t, mb) != 0) return -1;
  }
  for (int i = 1; i <= t->nb; i++) {
    mbg_tree_body *tb = &t->body[i];
    const mbg_tree_body *p = &t->body[tb->parent];
    if (tb->parent == 0 || p->nm == 0) continue;
    int j = section_joint(m, p->model_body, tb->model_joint);
    tb->psi = calloc(6 * (size_t)p->nm, sizeof *tb->psi);
    if (!tb->psi) return -1;
    if (j >= 0) section_shape(m, p->model_body, j, tb->psi);
  }
  return 0;
}
