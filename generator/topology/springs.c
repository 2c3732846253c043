/* springs.c — the springs and the initial state of a topology (topology.h): what the tree's
 * numbering and fixed-joint merging make of the model's `spring` and `initial` statements. */
#include <stdlib.h>
#include <string.h>

#include "topology/topology.h"

/* The point p of model body mb in the frame of the tree body it is part of: r + Eᵀ p with
 * (E, r) the body's frame relative to that one (merged[].X). Returns the tree body, or -1. */
static int on_tree(const mbg_topology *t, int mb, const double p[3], double out[3]) {
  if (mb < 0 || mb >= t->nmerged || t->merged[mb].into < 0) return -1;
  const mbg_xform *X = &t->merged[mb].X;
  for (int k = 0; k < 3; k++)
    out[k] = X->r[k] + X->E[k] * p[0] + X->E[3 + k] * p[1] + X->E[6 + k] * p[2];
  return t->merged[mb].into;
}

int mbg_topology_springs(const mbg_model *m, mbg_topology *t) {
  t->nsprings = 0;
  t->spring = calloc((size_t)(m->nsprings > 0 ? m->nsprings : 1), sizeof *t->spring);
  if (!t->spring) return -1;
  for (int k = 0; k < m->nsprings; k++) {
    const mbg_spring *s = &m->springs[k];
    mbg_tree_spring *ts = &t->spring[t->nsprings];
    ts->model_spring = k;
    ts->a = on_tree(t, s->body_a, s->ra, ts->ra);
    ts->b = on_tree(t, s->body_b, s->rb, ts->rb);
    if (ts->a >= 0 && ts->b >= 0 && ts->a != ts->b) t->nsprings++;
  }
  return 0;
}

int mbg_topology_initial(const mbg_model *m, mbg_topology *t) {
  t->q_initial = calloc((size_t)t->nq + 1, sizeof *t->q_initial);
  t->v_initial = calloc((size_t)t->nv + 1, sizeof *t->v_initial);
  if (!t->q_initial || !t->v_initial) return -1;
  for (int i = 1; i <= t->nb; i++) {
    const mbg_tree_body *b = &t->body[i];
    const mbg_joint *J = &m->joints[b->model_joint];
    double *q = t->q_initial + b->iq, *v = t->v_initial + b->iv;
    int k = mbg_joint_type_quat(b->type);
    if (J->has_q0) memcpy(q, J->q0, (size_t)b->nq * sizeof *q);
    else if (k >= 0) q[k + 3] = 1.0; /* the identity quaternion [0 0 0 1] */
    if (J->has_v0) memcpy(v, J->v0, (size_t)b->nv * sizeof *v);
  }
  return 0;
}
