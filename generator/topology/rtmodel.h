/* rtmodel.h — the runtime's model (runtime/mb.h) built from a validated model's topology, so the
 * generic solver can run any .mbd file. Loops and flexibility are not part of it: it is the
 * rigid spanning tree, fixed joints merged. */
#ifndef MBG_RTMODEL_H
#define MBG_RTMODEL_H

#include "mb.h"
#include "topology/topology.h"

typedef struct mbg_rtmodel {
  mb_model model; /* points into the arrays below */
  int *parent, *iq, *iv;
  mb_joint_type *jtype;
  double *XT_E, *XT_r, *axis, *pitch, *inertia;
} mbg_rtmodel;

/* Fill `out` from the topology (gravity from the model). Returns 0, or -1 when out of memory. */
int mbg_rtmodel_build(const mbg_model *m, const mbg_topology *t, mbg_rtmodel *out);
void mbg_rtmodel_free(mbg_rtmodel *r);

#endif
