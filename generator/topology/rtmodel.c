/* rtmodel.c — topology → runtime model: per-body arrays of nb + 1 entries, the world at 0. */
#include "topology/rtmodel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modal/beam.h"

/* Body i's nodes: nodal data's, or the beam's tip (x = L) with its shape [0, 0, φ'(L); 0, 1, 0]
 * per mode. With out NULL only counts them (return: nodes, or -1 out of memory). */
static int body_nodes(const mbg_model *m, const mbg_topology *t, int i, mbg_rtmodel *out,
                      int k0, size_t off) {
  const mbg_body *B = &m->bodies[t->body[i].model_body];
  const mbg_flex *f = B->flex;
  int n = f->is_beam ? 1 : f->nnodes, nm = t->body[i].nm;
  for (int k = 0; out && k < n; k++) {
    const char *node = f->is_beam ? "tip" : f->nodes[k].name;
    size_t len = strlen(B->name) + strlen(node) + 2;
    if (!(out->node_name[k0 + k] = malloc(len))) return -1;
    snprintf(out->node_name[k0 + k], len, "%s.%s", B->name, node);
    out->node_body[k0 + k] = i;
    double *r = out->node_r + 3 * (k0 + k), *sh = out->node_shape + off + 6 * (size_t)(k * nm);
    for (int c = 0; c < nm; c++) {
      double phi[3];
      if (f->is_beam) {
        mbg_beam_shape(c + 1, f->length, f->length, phi);
        const double col[6] = {0, 0, phi[1], 0, phi[0], 0};
        memcpy(sh + 6 * c, col, sizeof col);
      } else {
        memcpy(sh + 6 * c, f->shapes + 6 * ((size_t)c * (size_t)f->nnodes + (size_t)k),
               6 * sizeof *sh);
      }
    }
    if (f->is_beam) r[0] = f->length, r[1] = r[2] = 0.0;
    else memcpy(r, f->nodes[k].xyz, sizeof f->nodes[k].xyz);
  }
  return n;
}

/* The nodes of every flexible body with modes, in body order. */
static int build_nodes(const mbg_model *m, const mbg_topology *t, mbg_rtmodel *out) {
  int n = 0;
  size_t nsh = 0;
  for (int i = 1; i <= t->nb; i++)
    if (t->body[i].nm > 0) {
      int k = body_nodes(m, t, i, NULL, 0, 0);
      n += k, nsh += 6 * (size_t)k * (size_t)t->body[i].nm;
    }
  out->node_body = calloc((size_t)n + 1, sizeof *out->node_body);
  out->node_r = calloc(3 * (size_t)n + 1, sizeof *out->node_r);
  out->node_shape = calloc(nsh + 1, sizeof *out->node_shape);
  out->node_name = calloc((size_t)n + 1, sizeof *out->node_name);
  if (!out->node_body || !out->node_r || !out->node_shape || !out->node_name) return -1;
  int k = 0;
  size_t off = 0;
  for (int i = 1; i <= t->nb; i++) {
    if (t->body[i].nm == 0) continue;
    int c = body_nodes(m, t, i, out, k, off);
    if (c < 0) return -1;
    off += 6 * (size_t)c * (size_t)t->body[i].nm, k += c;
  }
  out->flex.nnodes = n;
  out->flex.node_body = out->node_body;
  out->flex.node_r = out->node_r;
  out->flex.node_shape = out->node_shape;
  return 0;
}

/* The modal data, packed body after body (mb.h, mb_flex), when some body has modes. */
static int build_flex(const mbg_topology *t, mbg_rtmodel *out) {
  size_t ne = 0, ne2 = 0, nps = 0;
  for (int i = 1; i <= t->nb; i++) {
    size_t nm = (size_t)t->body[i].nm;
    ne += nm, ne2 += nm * nm, nps += 6 * (size_t)t->body[t->body[i].parent].nm;
  }
  if (ne == 0) return 0;
  out->nm = calloc((size_t)t->nb + 1, sizeof *out->nm);
  out->Mc = calloc(6 * ne, sizeof *out->Mc);
  out->Me = calloc(ne2, sizeof *out->Me);
  out->K = calloc(ne2, sizeof *out->K);
  out->D = calloc(ne2, sizeof *out->D);
  out->Psi = calloc(nps + 1, sizeof *out->Psi);
  out->Q = calloc(36 * ne, sizeof *out->Q);
  if (!out->nm || !out->Mc || !out->Me || !out->K || !out->D || !out->Psi || !out->Q) return -1;
  size_t e = 0, e2 = 0, ps = 0;
  for (int i = 1; i <= t->nb; i++) {
    const mbg_tree_body *b = &t->body[i];
    size_t nm = (size_t)b->nm, np = (size_t)t->body[b->parent].nm;
    out->nm[i] = b->nm;
    if (nm > 0) {
      memcpy(out->Mc + 6 * e, b->modal.Mc, 6 * nm * sizeof *out->Mc);
      memcpy(out->Me + e2, b->modal.Mee, nm * nm * sizeof *out->Me);
      memcpy(out->K + e2, b->modal.K, nm * nm * sizeof *out->K);
      memcpy(out->D + e2, b->modal.D, nm * nm * sizeof *out->D);
      memcpy(out->Q + 36 * e, b->modal.Q, 36 * nm * sizeof *out->Q);
    }
    if (np > 0) memcpy(out->Psi + ps, b->psi, 6 * np * sizeof *out->Psi);
    e += nm, e2 += nm * nm, ps += 6 * np;
  }
  out->flex = (mb_flex){out->nm, out->Mc, out->Me, out->K, out->D, out->Psi, 0, NULL, NULL, NULL,
                        out->Q};
  out->model.flex = &out->flex;
  return 0;
}

/* The joints' armature per velocity coordinate (each dof of a joint alike, a flexible body's modes
 * none), only when some joint has one. 0, or -1 when out of memory. */
static int build_armature(const mbg_model *m, const mbg_topology *t, mbg_rtmodel *out) {
  int any = 0;
  for (int i = 1; i <= t->nb; i++) any |= m->joints[t->body[i].model_joint].armature != 0.0;
  if (!any || t->nv == 0) return 0;
  if (!(out->armature = calloc((size_t)t->nv, sizeof *out->armature))) return -1;
  for (int i = 1; i <= t->nb; i++)
    for (int c = 0; c < t->body[i].nv; c++)
      out->armature[t->body[i].iv + c] = m->joints[t->body[i].model_joint].armature;
  out->model.armature = out->armature;
  return 0;
}

/* The universal joints' second axes (mb.h mb_model.axis2), only when some joint is universal. 0,
 * or -1 when out of memory. */
static int build_axis2(const mbg_topology *t, mbg_rtmodel *out) {
  int any = 0;
  for (int i = 1; i <= t->nb; i++) any |= t->body[i].type == MBG_JOINT_UNIVERSAL;
  if (!any) return 0;
  if (!(out->axis2 = calloc(3 * ((size_t)t->nb + 1), sizeof *out->axis2))) return -1;
  for (int i = 1; i <= t->nb; i++)
    if (t->body[i].type == MBG_JOINT_UNIVERSAL)
      memcpy(out->axis2 + 3 * i, t->body[i].axis2, sizeof t->body[i].axis2);
  out->model.axis2 = out->axis2;
  return 0;
}

int mbg_rtmodel_build(const mbg_model *m, const mbg_topology *t, mbg_rtmodel *out) {
  memset(out, 0, sizeof *out);
  size_t n = (size_t)t->nb + 1;
  out->parent = calloc(n, sizeof *out->parent);
  out->iq = calloc(n, sizeof *out->iq);
  out->iv = calloc(n, sizeof *out->iv);
  out->jtype = calloc(n, sizeof *out->jtype);
  out->XT_E = calloc(9 * n, sizeof *out->XT_E);
  out->XT_r = calloc(3 * n, sizeof *out->XT_r);
  out->axis = calloc(3 * n, sizeof *out->axis);
  out->pitch = calloc(n, sizeof *out->pitch);
  out->inertia = calloc(10 * n, sizeof *out->inertia);
  if (!out->parent || !out->iq || !out->iv || !out->jtype || !out->XT_E || !out->XT_r ||
      !out->axis || !out->pitch || !out->inertia) {
    mbg_rtmodel_free(out);
    return -1;
  }
  out->parent[0] = -1;
  out->jtype[0] = MB_JOINT_FIXED;
  out->XT_E[0] = out->XT_E[4] = out->XT_E[8] = 1.0;
  for (int i = 1; i <= t->nb; i++) {
    const mbg_tree_body *b = &t->body[i];
    out->parent[i] = b->parent;
    out->iq[i] = b->iq;
    out->iv[i] = b->iv;
    out->jtype[i] = mbg_joint_type_runtime(b->type);
    memcpy(out->XT_E + 9 * i, b->XT.E, sizeof b->XT.E);
    memcpy(out->XT_r + 3 * i, b->XT.r, sizeof b->XT.r);
    memcpy(out->axis + 3 * i, b->axis, sizeof b->axis);
    out->pitch[i] = b->pitch;
    out->inertia[10 * i] = b->I.m;
    memcpy(out->inertia + 10 * i + 1, b->I.h, sizeof b->I.h);
    memcpy(out->inertia + 10 * i + 4, b->I.I, sizeof b->I.I);
  }
  mb_model *r = &out->model;
  r->nb = t->nb;
  r->nq = t->nq;
  r->nv = t->nv;
  r->parent = out->parent;
  r->jtype = out->jtype;
  r->iq = out->iq;
  r->iv = out->iv;
  r->XT_E = out->XT_E;
  r->XT_r = out->XT_r;
  r->axis = out->axis;
  r->pitch = out->pitch;
  r->inertia = out->inertia;
  memcpy(r->gravity, m->gravity, sizeof r->gravity);
  if (build_armature(m, t, out) != 0 || build_axis2(t, out) != 0 || build_flex(t, out) != 0 ||
      (out->model.flex && build_nodes(m, t, out) != 0)) {
    mbg_rtmodel_free(out);
    return -1;
  }
  return 0;
}

void mbg_rtmodel_free(mbg_rtmodel *r) {
  free(r->parent);
  free(r->iq);
  free(r->iv);
  free(r->jtype);
  free(r->XT_E);
  free(r->XT_r);
  free(r->axis);
  free(r->pitch);
  free(r->inertia);
  free(r->armature);
  free(r->axis2);
  free(r->nm);
  free(r->Mc);
  free(r->Me);
  free(r->K);
  free(r->D);
  free(r->Psi);
  free(r->Q);
  for (int k = 0; r->node_name && k < r->flex.nnodes; k++) free(r->node_name[k]);
  free(r->node_name);
  free(r->node_body);
  free(r->node_r);
  free(r->node_shape);
  memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------------- springs */

/* The joints' damping, friction, stiffness and q_ref per velocity coordinate (mb.h mb_springs),
 * when some joint has one. 0, or -1 when out of memory. */
static int rtsprings_joints(const mbg_model *m, const mbg_topology *t, mbg_rtsprings *out) {
  int any = 0, nv = t->nv;
  for (int i = 1; i <= t->nb; i++) {
    const mbg_joint *j = &m->joints[t->body[i].model_joint];
    any |= j->damping != 0.0 || j->friction != 0.0 || j->stiffness != 0.0;
  }
  if (!any || nv == 0) return 0;
  if (!(out->joint = calloc(4 * (size_t)nv, sizeof *out->joint))) return -1;
  for (int i = 1; i <= t->nb; i++) {
    const mbg_joint *j = &m->joints[t->body[i].model_joint];
    for (int c = 0; c < t->body[i].nv; c++) {
      int k = t->body[i].iv + c;
      out->joint[k] = j->damping, out->joint[nv + k] = j->friction;
      out->joint[2 * nv + k] = j->stiffness, out->joint[3 * nv + k] = j->spring_ref;
    }
  }
  out->springs.damping = out->joint, out->springs.friction = out->joint + nv;
  out->springs.stiffness = out->joint + 2 * nv, out->springs.q_ref = out->joint + 3 * nv;
  return 0;
}

int mbg_rtsprings_build(const mbg_model *m, const mbg_topology *t, mbg_rtsprings *out) {
  memset(out, 0, sizeof *out);
  out->spring = calloc((size_t)(t->nsprings > 0 ? t->nsprings : 1), sizeof *out->spring);
  if (!out->spring) return -1;
  for (int k = 0; k < t->nsprings; k++) {
    const mbg_tree_spring *ts = &t->spring[k];
    const mbg_spring *s = &m->springs[ts->model_spring];
    mb_spring *r = &out->spring[k];
    r->a = ts->a;
    r->b = ts->b;
    memcpy(r->ra, ts->ra, sizeof r->ra);
    memcpy(r->rb, ts->rb, sizeof r->rb);
    r->stiffness = s->stiffness;
    r->damping = s->damping;
    r->length = s->length;
  }
  out->springs.n = t->nsprings;
  out->springs.spring = out->spring;
  return rtsprings_joints(m, t, out);
}

void mbg_rtsprings_free(mbg_rtsprings *r) {
  free(r->spring);
  free(r->joint);
  memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------------- frames */

int mbg_rtframes_build(const mbg_topology *t, mbg_rtframes *out) {
  memset(out, 0, sizeof *out);
  out->frame = calloc((size_t)(t->nframes > 0 ? t->nframes : 1), sizeof *out->frame);
  if (!out->frame) return -1;
  for (int k = 0; k < t->nframes; k++) {
    const mbg_tree_frame *tf = &t->frame[k];
    mb_frame *f = &out->frame[k];
    f->body = tf->body;
    for (int a = 0; a < 3; a++) /* R (frame → body) = Eᵀ, E body → frame */
      for (int c = 0; c < 3; c++) f->R[3 * a + c] = tf->X.E[3 * c + a];
    memcpy(f->p, tf->X.r, sizeof f->p);
  }
  out->frames.n = t->nframes;
  out->frames.frame = out->frame;
  return 0;
}

void mbg_rtframes_free(mbg_rtframes *r) {
  free(r->frame);
  memset(r, 0, sizeof *r);
}
