/* rtmodel.h — the runtime's model (runtime/mb.h) built from a validated model's topology, so the
 * generic solver can run any .mbd file. Loops and flexibility are not part of it: it is the
 * rigid spanning tree, fixed joints merged; its springs are a separate mb_springs. */
#ifndef MBG_RTMODEL_H
#define MBG_RTMODEL_H

#include "mb.h"
#include "topology/topology.h"

typedef struct mbg_rtmodel {
  mb_model model; /* points into the arrays below */
  int *parent, *iq, *iv;
  mb_joint_type *jtype;
  double *XT_E, *XT_r, *axis, *pitch, *inertia;
  double *armature; /* [nv] the joints' rotor inertias; NULL (model.armature too) when all 0 */
  double *axis2;    /* [3 (nb + 1)] universal joints' second axes; NULL when there is none */
  mb_flex flex; /* model.flex points here when some body has modes (packed as mb.h says) */
  int *nm;
  double *Mc, *Me, *K, *D, *Psi, *Q;
  int *node_body;       /* the nodes: nodal data's nodes, a beam's tip (rtmodel.c) */
  double *node_r, *node_shape;
  char **node_name;     /* [nnodes] "body.node" ("body.tip" for a beam), malloc'ed */
} mbg_rtmodel;

/* Fill `out` from the topology (gravity from the model). Returns 0, or -1 when out of memory. */
int mbg_rtmodel_build(const mbg_model *m, const mbg_topology *t, mbg_rtmodel *out);
void mbg_rtmodel_free(mbg_rtmodel *r);

/* The runtime's springs (mb_springs) of a topology: the tree springs, points in the runtime's
 * body frames (the topology's, unaligned). */
typedef struct mbg_rtsprings {
  mb_springs springs; /* points into spring and the joints' arrays */
  mb_spring *spring;
  double *joint;      /* [4 nv] damping, friction, stiffness, q_ref (NULL when every one is 0) */
} mbg_rtsprings;

/* Fill `out` from t->spring and the model's constants. Returns 0, or -1 when out of memory. */
int mbg_rtsprings_build(const mbg_model *m, const mbg_topology *t, mbg_rtsprings *out);
void mbg_rtsprings_free(mbg_rtsprings *r);

/* The runtime's operational frames (mb_frames) of a topology: every frame of t->frame, on the
 * runtime's bodies (the topology's numbering and original frames). */
typedef struct mbg_rtframes {
  mb_frames frames; /* points into frame */
  mb_frame *frame;
} mbg_rtframes;

/* Fill `out` from t->frame. Returns 0, or -1 when out of memory. */
int mbg_rtframes_build(const mbg_topology *t, mbg_rtframes *out);
void mbg_rtframes_free(mbg_rtframes *r);

#endif
