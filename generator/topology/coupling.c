/* coupling.c — the map of coupled (mimic) coordinates (topology.h). The independent coordinates
 * are the model's in their order with the coupled joints' left out; a coupled joint's single
 * coordinate follows its source's (model/mimic.c has checked that both are scalar joints and that
 * the source is independent). */
#include <stdlib.h>

#include "topology/topology.h"

/* The tree body whose joint is model joint j, 0 if none (merged: fixed). */
static int body_of_joint(const mbg_topology *t, int j) {
  for (int i = 1; i <= t->nb; i++)
    if (t->body[i].model_joint == j) return i;
  return 0;
}

int mbg_topology_coupling(const mbg_model *m, mbg_topology *t) {
  t->ncoupled = 0, t->nq_ind = t->nq, t->nv_ind = t->nv;
  for (int i = 1; i <= t->nb; i++) t->ncoupled += m->joints[t->body[i].model_joint].mimic != 0;
  if (t->ncoupled == 0) return 0;
  size_t nq = (size_t)t->nq + 1, nv = (size_t)t->nv + 1;
  t->q_of = calloc(nq, sizeof *t->q_of), t->v_of = calloc(nv, sizeof *t->v_of);
  t->q_mult = calloc(nq, sizeof *t->q_mult), t->q_off = calloc(nq, sizeof *t->q_off);
  t->v_mult = calloc(nv, sizeof *t->v_mult), t->q_coupled = calloc(nq, sizeof *t->q_coupled);
  t->v_coupled = calloc(nv, sizeof *t->v_coupled);
  if (!t->q_of || !t->v_of || !t->q_mult || !t->q_off || !t->v_mult || !t->q_coupled ||
      !t->v_coupled)
    return -1;
  /* independent coordinates first: numbered in order */
  int kq = 0, kv = 0;
  for (int i = 1; i <= t->nb; i++) {
    const mbg_tree_body *b = &t->body[i];
    int coupled = m->joints[b->model_joint].mimic != 0;
    /* the joint's coordinates, then its modes (a flexible body's stay independent) */
    for (int c = 0; c < b->nq + b->nm; c++)
      t->q_of[b->iq + c] = (coupled && c < b->nq) ? -1 : kq++, t->q_mult[b->iq + c] = 1;
    for (int c = 0; c < b->nv + b->nm; c++)
      t->v_of[b->iv + c] = (coupled && c < b->nv) ? -1 : kv++, t->v_mult[b->iv + c] = 1;
  }
  t->nq_ind = kq, t->nv_ind = kv;
  /* then each coupled coordinate onto its source's */
  for (int i = 1; i <= t->nb; i++) {
    const mbg_tree_body *b = &t->body[i];
    const mbg_joint *J = &m->joints[b->model_joint];
    if (!J->mimic) continue;
    const mbg_tree_body *s = &t->body[body_of_joint(t, J->mimic - 1)];
    t->q_of[b->iq] = t->q_of[s->iq], t->q_mult[b->iq] = J->mimic_mult;
    t->q_off[b->iq] = J->mimic_off, t->q_coupled[b->iq] = 1;
    t->v_of[b->iv] = t->v_of[s->iv], t->v_mult[b->iv] = J->mimic_mult;
    t->v_coupled[b->iv] = 1;
    /* the initial state follows the source's (topology_initial ran before) */
    if (t->q_initial) t->q_initial[b->iq] = J->mimic_mult * t->q_initial[s->iq] + J->mimic_off;
    if (t->v_initial) t->v_initial[b->iv] = J->mimic_mult * t->v_initial[s->iv];
  }
  return 0;
}
