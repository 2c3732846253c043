/* topology.h — the numbered kinematic tree the algorithms walk, with the chains and nodes of
 * Liu, Hu & Zhang, "Constraint force algorithm for tree-like multibody system dynamics",
 * Chinese Journal of Theoretical and Applied Mechanics 48(1), 2016, §2.3.
 *
 * Built from a validated model. Fixed joints are merged away: a body attached by a fixed joint is
 * folded into its parent (its mass, COM and inertia combined exactly, its children re-attached
 * with the fixed transform composed into their tree transforms); a body fixed to the world
 * vanishes. What remains are the moving bodies, numbered regularly 1..nb: depth-first preorder,
 * children in the declaration order of their joints, so the parent comes before the child and
 * every subtree is a contiguous range. Index 0 of every per-body array is the world (body[0]:
 * parent -1, model_joint -1, zero inertia, is_node = world_is_node, chain -1). */
#ifndef MBG_TOPOLOGY_H
#define MBG_TOPOLOGY_H

#include "modal/modal.h"
#include "model/model.h"
#include "model/xform.h"

typedef struct mbg_tree_body {
  int model_body;   /* index into model->bodies */
  int model_joint;  /* index into model->joints: the joint from parent[i] to i */
  mbg_joint_type type;
  int parent;       /* λ(i) < i; 0 = world */
  int first_child;  /* first child's number, 0 if a leaf; siblings linked by next_sibling */
  int next_sibling;
  int nchildren;
  int subtree_end;  /* the subtree of i is [i, subtree_end) */
  int depth;        /* 1 for a child of the world */
  int iq, nq;       /* first position coordinate and count (the joint's) */
  int iv, nv;       /* first velocity coordinate and count (the joint's) */
  int nm;           /* modal coordinates of a flexible body: q and v from iq + nq and iv + nv */
  mbg_modal modal;  /* its modal data in its body frame (nm > 0) */
  double *psi;      /* [6 nm(parent)]: a joint on a flexible parent: the spatial motion of the
                       section it hangs from per unit modal rate (modal.h), parent body frame */
  mbg_xform XT;     /* tree transform: joint frame in the parent body's frame (fixed joints folded) */
  double axis[3];   /* unit joint axis in the joint frame */
  double axis2[3];  /* a universal joint's second axis, in the joint frame */
  double pitch;
  mbg_inertia I;    /* inertia of the body and everything merged into it, at the body origin */
  int chain;        /* chain index, or -1 if this body is a node */
  int is_node;      /* more than one child */
} mbg_tree_body;

/* A model body merged into a moving body (or into the world) by fixed joints. */
typedef struct mbg_merged {
  int model_body;
  int into;         /* tree body number it is rigidly part of (0 = world; -1 only for a body an
                       unvalidated model leaves unconnected to the world) */
  mbg_xform X;      /* its frame relative to that body's frame */
} mbg_merged;

/* A loop joint between tree bodies a and b; the path between them through the tree. */
typedef struct mbg_tree_loop {
  int model_loop;
  int a, b;           /* tree body numbers (0 = world) */
  mbg_xform Xa, Xb;   /* loop frame on a, target frame on b, relative to those bodies' frames */
  int ancestor;       /* nearest common ancestor of a and b */
  int npath;          /* joints on the path: a up to the ancestor, then down to b */
  int *path;          /* tree body numbers whose joints form the path, in that order */
} mbg_tree_loop;

/* A spring between tree bodies a and b (springs.c): its points re-expressed in the frames of the
 * moving bodies (or the world) the model bodies were merged into. A spring whose two ends end up
 * on one rigid body exerts no generalized force and is left out. */
typedef struct mbg_tree_spring {
  int model_spring;
  int a, b;            /* tree body numbers (0 = world), a ≠ b */
  double ra[3], rb[3]; /* the points in the (original, unaligned) frames of a and b */
} mbg_tree_spring;

/* An operational frame (frames.c): every model body but the world (its own frame; merged ones
 * included), then every `frame` statement, in model order. */
typedef struct mbg_tree_frame {
  const char *name;  /* the body's or the frame's (borrowed from the model) */
  int model_body;    /* the model body it is (−1 for a `frame` statement) */
  int model_frame;   /* the `frame` statement (−1 for a body) */
  int body;          /* the tree body it is fixed on (0: the world) */
  mbg_xform X;       /* its frame relative to that body's (original, unaligned) frame */
} mbg_tree_frame;

typedef struct mbg_topology {
  int nb;               /* moving bodies */
  int nq, nv;
  mbg_tree_body *body;  /* [nb + 1]; body[0] is the world */
  int nmerged;
  mbg_merged *merged;   /* [nmerged], every model body in model order, including the moving ones
                           (into = their own number, X = identity) and the world (into 0) */
  int *dof_parent;      /* [nv] expanded parent array: the previous DOF towards the root, or -1 */
  int *dof_body;        /* [nv] the tree body a DOF (joint or modal) belongs to */
  int nchains;
  int *chain_start;     /* [nchains + 1]: chain c is chain_body[chain_start[c] .. chain_start[c+1]) */
  int *chain_body;      /* bodies of each chain from inboard to outboard */
  int nnodes;
  int *node;            /* [nnodes] tree bodies with more than one child, ascending */
  int world_is_node;    /* the world has more than one child */
  int nloops;
  mbg_tree_loop *loop;
  int nsprings;
  mbg_tree_spring *spring; /* springs.c */
  double *q_initial;       /* [nq] the `initial` state in coordinate order (springs.c): neutral */
  double *v_initial;       /* [nv] (zeros, identity quaternions) and zero where none is given */
  int nframes;
  mbg_tree_frame *frame;   /* [nframes] the operational frames (frames.c) */
  /* Coupled (mimic) joints (coupling.c): ncoupled of them, whose coordinates follow independent
   * ones, q[k] = q_mult[k] q_ind[q_of[k]] + q_off[k] and v[k] = v_mult[k] v_ind[v_of[k]] (G, a
   * constant matrix of one nonzero per row); nq_ind, nv_ind the independent coordinates, the
   * generated functions' (docs/dsl.md "Coupled joints"). Without couplings ncoupled = 0, the
   * counts equal nq, nv and the arrays are NULL. */
  int ncoupled, nq_ind, nv_ind;
  int *q_of, *v_of;           /* [nq], [nv] */
  double *q_mult, *q_off;     /* [nq] */
  double *v_mult;             /* [nv] */
  int *q_coupled, *v_coupled; /* [nq], [nv] 1 for a coordinate of a coupled joint */
} mbg_topology;

/* coupling.c: the coupled coordinates' map of a topology built from m (called by
 * mbg_topology_build, after the coordinates are numbered). Returns 0, or -1 when out of memory. */
int mbg_topology_coupling(const mbg_model *m, mbg_topology *t);

/* springs.c: t->spring and t->q_initial, t->v_initial of a topology built from m (called by
 * mbg_topology_build). Returns 0, or -1 when out of memory. */
int mbg_topology_springs(const mbg_model *m, mbg_topology *t);
int mbg_topology_initial(const mbg_model *m, mbg_topology *t);

/* frames.c: t->frame of a topology built from m, after the merged list (called by
 * mbg_topology_build). Returns 0, or -1 when out of memory. */
int mbg_topology_frames(const mbg_model *m, mbg_topology *t);

/* flexible.c: the modal data of every flexible body (bodies merged into it by fixed joints
 * included) and the attachment shape of every joint hanging from one (called by
 * mbg_topology_build, after the merged list). Returns 0, or -1 when out of memory. */
int mbg_topology_modal(const mbg_model *m, mbg_topology *t);

/* Build the topology of a validated model. Returns NULL only when out of memory. */
mbg_topology *mbg_topology_build(const mbg_model *m);
void mbg_topology_free(mbg_topology *t);

/* 1 if tree body j supports tree body i (j is i or an ancestor of i); j = 0 supports all. */
int mbg_topology_supports(const mbg_topology *t, int j, int i);

#endif
