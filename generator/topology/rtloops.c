/* rtloops.c — topology loops → runtime loops (frames relative to the tree bodies' frames). */
#include "topology/rtloops.h"

#include <stdlib.h>
#include <string.h>

int mbg_rtloops_build(const mbg_model *m, const mbg_topology *t, mbg_rtloops *out) {
  memset(out, 0, sizeof *out);
  size_t n = (size_t)(t->nloops > 0 ? t->nloops : 1);
  out->loop = calloc(n, sizeof *out->loop);
  out->row = calloc(n * MB_LOOP_MAX_ROWS, sizeof *out->row);
  if (!out->loop || !out->row) {
    mbg_rtloops_free(out);
    return -1;
  }
  for (int l = 0; l < t->nloops; l++) {
    const mbg_tree_loop *tl = &t->loop[l];
    const mbg_loop *ml = &m->loops[tl->model_loop];
    mb_loop *r = &out->loop[l];
    r->type = mbg_joint_type_loop(ml->type); /* never MB_LOOP_TYPE_COUNT: the model's checks */
    r->a = tl->a, r->b = tl->b;
    memcpy(r->Ea, tl->Xa.E, sizeof r->Ea), memcpy(r->ra, tl->Xa.r, sizeof r->ra);
    memcpy(r->Eb, tl->Xb.E, sizeof r->Eb), memcpy(r->rb, tl->Xb.r, sizeof r->rb);
    memcpy(r->axis, ml->axis, sizeof r->axis);
    memcpy(r->axis2, ml->axis_b, sizeof r->axis2);
    r->pitch = ml->pitch, r->distance = ml->distance;
    for (int k = 0; k < mb_loop_nrows(r->type); k++)
      out->row[out->nrows++] = MB_LOOP_MAX_ROWS * l + k;
  }
  out->loops.nloops = t->nloops;
  out->loops.loop = out->loop;
  out->loops.nc = out->nrows;
  out->loops.row = out->row;
  return 0;
}

void mbg_rtloops_free(mbg_rtloops *r) {
  free(r->loop);
  free(r->row);
  memset(r, 0, sizeof *r);
}
