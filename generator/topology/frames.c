/* frames.c — the operational frames of a topology (topology.h): every model body but the world is
 * a frame (its own body frame, wherever fixed-joint merging put it), then every `frame`
 * statement, each as a fixed transform on the tree body it ends up on. */
#include <stdlib.h>

#include "topology/topology.h"

int mbg_topology_frames(const mbg_model *m, mbg_topology *t) {
  int n = (m->nbodies - 1) + m->nframes;
  t->nframes = 0;
  t->frame = calloc((size_t)(n > 0 ? n : 1), sizeof *t->frame);
  if (!t->frame) return -1;
  for (int k = 1; k < m->nbodies && k < t->nmerged; k++) {
    if (t->merged[k].into < 0) continue; /* unconnected: an invalid model */
    mbg_tree_frame *f = &t->frame[t->nframes++];
    f->name = m->bodies[k].name, f->model_body = k, f->model_frame = -1;
    f->body = t->merged[k].into, f->X = t->merged[k].X;
  }
  for (int k = 0; k < m->nframes; k++) {
    const mbg_frame *mf = &m->frames[k];
    if (mf->body < 0 || mf->body >= t->nmerged || t->merged[mf->body].into < 0) continue;
    mbg_tree_frame *f = &t->frame[t->nframes++];
    mbg_xform Xf;
    mbg_xform_from_xyz_rpy(mf->xyz, mf->rpy, &Xf);
    f->name = mf->name, f->model_body = -1, f->model_frame = k;
    f->body = t->merged[mf->body].into;
    mbg_xform_compose(&Xf, &t->merged[mf->body].X, &f->X);
  }
  return 0;
}
