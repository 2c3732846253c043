/* loop_parts.c — the loops' independent parts and their models (loop_parts.h). */
#include "topology/loop_parts.h"

#include <stdlib.h>
#include <string.h>

static int find(int *up, int x) {
  while (up[x] != x) x = up[x] = up[up[x]];
  return x;
}

/* The part of every loop (union-find over the moving joints of their paths), numbered in the
 * order of each part's first loop. Returns the number of parts, -1 when out of memory. */
static int label(const mbg_topology *t, int *part) {
  int nl = t->nloops, n = 0;
  int *up = malloc(sizeof *up * (size_t)(nl + 1)), *id = malloc(sizeof *id * (size_t)(nl + 1));
  int *owner = malloc(sizeof *owner * (size_t)(t->nb + 1)); /* the first loop through a body */
  if (!up || !id || !owner) return free(up), free(id), free(owner), -1;
  for (int l = 0; l < nl; l++) up[l] = l;
  for (int i = 0; i <= t->nb; i++) owner[i] = -1;
  for (int l = 0; l < nl; l++)
    for (int k = 0; k < t->loop[l].npath; k++) {
      int i = t->loop[l].path[k];
      if (i <= 0 || t->body[i].nv + t->body[i].nm == 0) continue;
      if (owner[i] < 0) owner[i] = l;
      else up[find(up, l)] = find(up, owner[i]);
    }
  for (int l = 0; l < nl; l++) id[l] = -1; /* id[root]: the root's part */
  for (int l = 0; l < nl; l++)
    if (id[find(up, l)] < 0) id[find(up, l)] = n++;
  for (int l = 0; l < nl; l++) part[l] = id[find(up, l)];
  free(up), free(id), free(owner);
  return n;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The model of part p, bodies body[0 .. nb] (inv: their numbers in the part), packed. */
static int build_model(mbg_loop_part *p, const mb_model *m, const int *inv) {
  int nb = p->model.nb;
  size_t bytes = 0, n1 = (size_t)nb + 1;
#define PART_SIZE(type, name, per) bytes += sizeof(type) * (size_t)(per) * n1 + sizeof(double);
  MB_MODEL_ARRAYS(PART_SIZE)
#undef PART_SIZE
  bytes += sizeof(double) * 3 * n1; /* axis2: not one of MB_MODEL_ARRAYS (NULL without universal) */
  char *at = p->arrays = calloc(1, bytes);
  if (!at) return -1;
#define PART_COPY(type, name, per)                                                        \
  {                                                                                        \
    type *dst = (type *)(void *)at;                                                        \
    for (int j = 0; j <= nb; j++)                                                          \
      memcpy(dst + (size_t)(per) * (size_t)j, m->name + (size_t)(per) * (size_t)p->body[j], \
             sizeof(type) * (size_t)(per));                                                \
    p->model.name = dst;                                                                   \
    at += (sizeof(type) * (size_t)(per) * n1 + sizeof(double) - 1) / sizeof(double) *      \
          sizeof(double);                                                                  \
  }
  MB_MODEL_ARRAYS(PART_COPY)
#undef PART_COPY
  if (m->axis2) {
    double *dst = (double *)(void *)at;
    for (int j = 0; j <= nb; j++) memcpy(dst + 3 * j, m->axis2 + 3 * p->body[j], 3 * sizeof *dst);
    p->model.axis2 = dst;
  }
  int *parent = (int *)(void *)p->model.parent, *iq = (int *)(void *)p->model.iq;
  int *iv = (int *)(void *)p->model.iv, nq = 0, nv = 0;
  parent[0] = -1;
  for (int j = 1; j <= nb; j++) {
    parent[j] = inv[m->parent[p->body[j]]];
    iq[j] = nq, iv[j] = nv;
    nq += mb_joint_nq(p->model.jtype[j]), nv += mb_joint_nv(p->model.jtype[j]);
  }
  p->model.nq = nq, p->model.nv = nv;
  memcpy(p->model.gravity, m->gravity, sizeof m->gravity);
  p->model.flex = NULL;
  return 0;
}

/* Part p's bodies: its loops' ends and their ancestors (inv[] −1 for every body but the world on
 * entry and on return; list[] scratch); the whole model when one of them is flexible. */
static int build_part(mbg_loop_part *p, const mb_model *m, int *inv, int *list) {
  int n = 0, flexible = 0;
  for (int l = 0; l < p->nloops; l++)
    for (int side = 0; side < 2; side++)
      for (int i = side ? p->loop[l].b : p->loop[l].a; i > 0 && inv[i] < 0; i = m->parent[i])
        inv[i] = 0, list[n++] = i, flexible |= mb_body_nm(m, i) > 0;
  qsort(list, (size_t)n, sizeof *list, cmp_int);
  p->body = malloc(sizeof *p->body * (size_t)(flexible ? m->nb + 1 : n + 1));
  if (!p->body) return -1;
  if (flexible) { /* the whole model: modal data are not split */
    for (int k = 0; k < n; k++) inv[list[k]] = -1;
    for (int i = 0; i <= m->nb; i++) p->body[i] = i;
    p->model = *m, p->whole = 1;
    return 0;
  }
  p->body[0] = 0;
  for (int k = 0; k < n; k++) p->body[k + 1] = list[k], inv[list[k]] = k + 1;
  p->model.nb = n;
  for (int l = 0; l < p->nloops; l++)
    p->loop[l].a = inv[p->loop[l].a], p->loop[l].b = inv[p->loop[l].b];
  int rc = build_model(p, m, inv);
  for (int k = 0; k < n; k++) inv[list[k]] = -1;
  return rc;
}

int mbg_loop_parts(const mb_model *m, const mbg_rtloops *rl, const mbg_topology *t,
                   mbg_loop_part **parts) {
  int nl = t->nloops, np;
  int *part = malloc(sizeof *part * (size_t)(nl + 1));
  int *local = malloc(sizeof *local * (size_t)(nl + 1)); /* a loop's number in its part */
  int *inv = malloc(sizeof *inv * (size_t)(m->nb + 1));
  int *list = malloc(sizeof *list * (size_t)(m->nb + 1));
  *parts = NULL;
  if (!part || !local || !inv || !list || (np = label(t, part)) < 0)
    return free(part), free(local), free(inv), free(list), -1;
  mbg_loop_part *ps = *parts = calloc((size_t)np + 1, sizeof *ps);
  if (!ps) return free(part), free(local), free(inv), free(list), -1;
  int rc = 0;
  for (int l = 0; l < nl; l++) ps[part[l]].nloops++;
  for (int r = 0; r < rl->nrows; r++) ps[part[rl->row[r] / MB_LOOP_MAX_ROWS]].nrows++;
  for (int k = 0; k < np; k++) {
    mbg_loop_part *p = &ps[k];
    p->loop = malloc(sizeof *p->loop * (size_t)(p->nloops + 1));
    p->row = malloc(sizeof *p->row * (size_t)(p->nrows + 1));
    p->row_of = malloc(sizeof *p->row_of * (size_t)(p->nrows + 1));
    if (!p->loop || !p->row || !p->row_of) rc = -1;
    p->nloops = p->nrows = 0;
  }
  /* loops and rows in the whole model's order: each part's stay ascending */
  for (int l = 0; rc == 0 && l < nl; l++) {
    mbg_loop_part *p = &ps[part[l]];
    local[l] = p->nloops, p->loop[p->nloops++] = rl->loop[l];
  }
  for (int r = 0; rc == 0 && r < rl->nrows; r++) {
    int l = rl->row[r] / MB_LOOP_MAX_ROWS;
    mbg_loop_part *p = &ps[part[l]];
    p->row_of[p->nrows] = r;
    p->row[p->nrows++] = MB_LOOP_MAX_ROWS * local[l] + rl->row[r] % MB_LOOP_MAX_ROWS;
  }
  for (int i = 1; i <= m->nb; i++) inv[i] = -1;
  inv[0] = 0; /* the world is body 0 of every part */
  for (int k = 0; rc == 0 && k < np; k++) {
    mbg_loop_part *p = &ps[k];
    rc = build_part(p, m, inv, list);
    p->loops = (mb_loops){p->nloops, p->loop, p->nrows, p->row};
  }
  free(part), free(local), free(inv), free(list);
  if (rc) return mbg_loop_parts_free(ps, np), *parts = NULL, -1;
  return np;
}

void mbg_loop_parts_free(mbg_loop_part *parts, int n) {
  for (int k = 0; parts && k < n; k++)
    free(parts[k].body), free(parts[k].loop), free(parts[k].row), free(parts[k].row_of),
        free(parts[k].arrays);
  free(parts);
}

void mbg_loop_part_get(const mbg_loop_part *p, const mb_model *whole, const double *q,
                       double *qp) {
  for (int j = 1; j <= p->model.nb; j++)
    memcpy(qp + p->model.iq[j], q + whole->iq[p->body[j]],
           sizeof *q * (size_t)(mb_joint_nq(p->model.jtype[j]) + mb_body_nm(&p->model, j)));
}

void mbg_loop_part_put(const mbg_loop_part *p, const mb_model *whole, const double *qp,
                       double *q) {
  for (int j = 1; j <= p->model.nb; j++)
    memcpy(q + whole->iq[p->body[j]], qp + p->model.iq[j],
           sizeof *q * (size_t)(mb_joint_nq(p->model.jtype[j]) + mb_body_nm(&p->model, j)));
}
