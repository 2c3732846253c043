/* model.h — the validated model: what a .mbd (or URDF) file says, checked and in SI units.
 *
 * Produced by mbg_model_build() from the parser's AST (or by the URDF importer), consumed by
 * the topology stage. Everything here is in declaration order; numbering happens later.
 * Body 0 is always the fixed `world`. */
#ifndef MBG_MODEL_H
#define MBG_MODEL_H

#include "base/diag.h"
#include "mb.h"

/* The joint types of the model language: the runtime's tree joint types (mb.h MB_JOINT_TYPES; the
 * same values, so MBG_JOINT_REVOLUTE == MB_JOINT_REVOLUTE), then Haug's basic constraints, as
 * tabulated by Kang & Yoon, "On the improvement of a fully recursive formulation for the dynamic
 * analysis of multibody systems", KSME International Journal, Tables 1-4 (mb.h
 * MB_LOOP_BASIC_TYPES): loop joints only. d1: an axis on the first body perpendicular to an axis
 * on the second; d2: an axis on the first body perpendicular to the separation of the two points;
 * s: two points coincide; ss: two points at a fixed distance. */
typedef enum mbg_joint_type {
#define MBG_JOINT_TREE(NAME, name, nq, nv, axis, angle, pitch, fixed_origin, quat) \
  MBG_JOINT_##NAME = MB_JOINT_##NAME,
#define MBG_JOINT_BASIC(NAME, name, axis, axis2, distance) MBG_JOINT_##NAME,
  MB_JOINT_TYPES(MBG_JOINT_TREE)
  MB_LOOP_BASIC_TYPES(MBG_JOINT_BASIC)
#undef MBG_JOINT_TREE
#undef MBG_JOINT_BASIC
  MBG_JOINT_TYPE_COUNT
} mbg_joint_type;

/* The types' properties (an invalid type: "?", 0, -1). Name as written in the language
 * ("revolute", "d1", ...). */
const char *mbg_joint_type_name(mbg_joint_type t);
/* 1 for a tree joint type (a runtime mb_joint_type), 0 for a basic constraint. */
int mbg_joint_type_is_tree(mbg_joint_type t);
/* The runtime's type of a tree joint type; MB_JOINT_TYPE_COUNT for a basic constraint. */
mb_joint_type mbg_joint_type_runtime(mbg_joint_type t);
/* The runtime's loop type, MB_LOOP_TYPE_COUNT for a type that cannot close a loop (floating). */
mb_loop_type mbg_joint_type_loop(mbg_joint_type t);
/* Position and velocity coordinates of a tree joint type (0 for the basic constraints). */
int mbg_joint_type_nq(mbg_joint_type t);
int mbg_joint_type_nv(mbg_joint_type t);
/* The parameters a joint or loop of this type takes: an axis (revolute, continuous, prismatic,
 * helical, planar, cylindrical, universal, d1, d2), a pitch (helical), an axis2 (universal, d1),
 * a distance (ss). */
int mbg_joint_type_has_axis(mbg_joint_type t);
int mbg_joint_type_has_pitch(mbg_joint_type t);
int mbg_joint_type_has_axis2(mbg_joint_type t);
int mbg_joint_type_has_distance(mbg_joint_type t);
/* mb.h MB_JOINT_TYPES' angle and quat of a tree joint type (0 and -1 for the basic constraints). */
int mbg_joint_type_is_angle(mbg_joint_type t);
int mbg_joint_type_quat(mbg_joint_type t);

/* A lumped node of a flexible body. */
typedef struct mbg_node {
  char *name;
  mbg_loc loc;
  double xyz[3];     /* position in the body frame */
  double mass;       /* lumped mass */
  double inertia[6]; /* ixx iyy izz ixy ixz iyz about the node */
} mbg_node;

/* Assumed-modes data of a flexible body (Jain & Rodriguez, "Recursive Dynamics for Flexible
 * Multibody Systems Using Spatial Operators", JPL Publication 90-26, 1990, §3). Either the
 * uniform Euler-Bernoulli beam preset (is_beam: length, EI, rhoA along the body x axis,
 * cantilever modes; the modal data are computed by a later stage) or explicit nodal data. */
typedef struct mbg_flex {
  int is_beam;
  double length, EI, rhoA; /* beam preset */
  int nmodes;
  int nnodes;              /* explicit data: */
  mbg_node *nodes;         /* [nnodes] */
  char **mode_names;       /* [nmodes] */
  double *shapes;          /* [nmodes][nnodes][6]: [rotation; translation] of each node */
  double *stiffness;       /* [nmodes][nmodes], symmetric positive definite */
  double *damping;         /* [nmodes][nmodes] or NULL */
} mbg_flex;

typedef struct mbg_body {
  char *name;
  mbg_loc loc;
  double mass;
  double com[3];     /* centre of mass in the body frame (origin at its joint) */
  double inertia[6]; /* ixx iyy izz ixy ixz iyz about the COM, body axes */
  mbg_flex *flex;    /* NULL for a rigid body */
} mbg_body;

typedef struct mbg_joint {
  char *name;
  mbg_loc loc;
  mbg_joint_type type;
  int parent, child; /* body indices; 0 is the world */
  mbg_loc parent_loc, child_loc;
  double xyz[3], rpy[3]; /* joint frame in the parent frame: translation, then R = Rz Ry Rx */
  double axis[3];        /* unit, in the joint frame (revolute, continuous, prismatic, helical) */
  double axis2[3];       /* universal: the second axis (fixed in the child), unit, ⟂ axis */
  double pitch;          /* helical: metres of translation per radian */
  int node;              /* parent flexible: index of the node the joint is attached to, else -1 */
  /* `initial`: the joint's initial coordinates (nq values, a quaternion normalized) and
   * velocities (nv values); without them the neutral configuration (zeros, identity quaternion)
   * and zero velocity. */
  int has_q0, has_v0;
  double q0[7], v0[6];
  mbg_loc initial_loc; /* the `initial` statement; line 0 without one */
  /* Joint properties (docs/dsl.md "Joint properties"), each dof of the joint alike; 0 = none:
   * armature, the rotor inertia added to M's diagonal (kg m² or kg); damping d, the viscous
   * force −d q̇; friction f, Coulomb's (|τ| ≤ f; MuJoCo's frictionloss); stiffness k toward the
   * reference position spring_ref, −k (q − spring_ref) (1-dof joints). */
  double armature, damping, friction, stiffness, spring_ref;
  /* limits (1-dof joints): the position range [lower, upper] when has_range; the velocity and
   * effort limits when positive (0: none given) */
  int has_range;
  double lower, upper, velocity_limit, effort_limit;
  /* a coupled (mimic) joint (docs/dsl.md "Coupled joints"): its coordinate is
   * q = mimic_mult q_source + mimic_off and is removed from the model's coordinates; mimic is the
   * source joint's index + 1, 0 for an independent joint */
  int mimic;
  double mimic_mult, mimic_off;
  mbg_loc mimic_loc;
} mbg_joint;

/* A loop (cut) joint between two bodies of the tree. The joint frame is `origin` on body a; it
 * must coincide with the frame `target` on body b (up to the joint's free motion). */
typedef struct mbg_loop {
  char *name;
  mbg_loc loc;
  mbg_joint_type type;
  int body_a, body_b;
  double xyz[3], rpy[3];               /* origin on body a */
  double target_xyz[3], target_rpy[3]; /* target on body b */
  double axis[3];                      /* in the joint frame on a */
  double axis_b[3];                    /* d1: second axis, in the target frame on b */
  double pitch;
  double distance;                     /* ss */
} mbg_loop;

/* A linear point-to-point spring-damper between two bodies (either may be the world): the point
 * `ra` of body a and `rb` of body b (body frames), force f = k (ℓ − L0) + c ℓ̇ along the line,
 * tension positive, ℓ the distance between the points (docs/dsl.md "spring"). */
typedef struct mbg_spring {
  char *name;
  mbg_loc loc;
  int body_a, body_b;
  double ra[3], rb[3];
  double stiffness, damping, length; /* k ≥ 0, c ≥ 0, L0 ≥ 0 */
} mbg_spring;

/* An operational frame: a named frame fixed on a body (docs/dsl.md "frame"), `origin` in that
 * body's frame. Every body is an operational frame of its own too (topology/frames.c). */
typedef struct mbg_frame {
  char *name;
  mbg_loc loc;
  int body;              /* model body index (0: the world) */
  double xyz[3], rpy[3]; /* the frame in the body frame: translation, then R = Rz Ry Rx */
} mbg_frame;

typedef struct mbg_model {
  char *name;
  mbg_loc name_loc;
  char *path; /* the model file as given on the command line */
  double gravity[3];
  int nbodies; /* including the world, bodies[0] */
  mbg_body *bodies;
  int njoints;
  mbg_joint *joints;
  int nloops;
  mbg_loop *loops;
  int nsprings;
  mbg_spring *springs;
  int nframes;
  mbg_frame *frames; /* the `frame` statements, in order */
  int nindependent;
  int *independent; /* joint indices named by `independent` */
  mbg_loc independent_loc; /* the `independent` statement */
  /* the `parameters` statement (docs/parameters.md): run-time inertial parameters */
  int has_parameters;      /* given */
  mbg_loc parameters_loc;  /* where */
  int param_all;           /* `all`: every moving body */
  int param_gravity;       /* `gravity` */
  int nparam_bodies;
  int *param_bodies;       /* [nparam_bodies] model body indices named, in the order given */
} mbg_model;

/* Normalize an axis in place; returns its length as given. A vector within 1e-15 of unit length
 * is kept as it is, so that normalizing twice changes nothing (a URDF's axis, normalized on
 * import, reads back from the written .mbd as the same numbers). */
double mbg_axis_normalize(double a[3]);

/* mimic.c: every coupled (mimic) joint against its source: not itself, not a chain, both of one
 * scalar coordinate, no `initial` of its own; each problem an error at the joint's `mimic`. */
void mbg_check_mimic(const mbg_model *m, mbg_diag *d);

/* Index of a body or joint by name, or -1. */
int mbg_model_find_body(const mbg_model *m, const char *name);
int mbg_model_find_joint(const mbg_model *m, const char *name);

/* An empty model holding only the world, with default gravity (0 0 -9.81). Returns NULL when out
 * of memory. mbg_model_add_body/joint append and return the new index (or -1, out of memory). */
mbg_model *mbg_model_new(const char *name, const char *path);
int mbg_model_add_body(mbg_model *m, const char *name, mbg_loc loc);
int mbg_model_add_joint(mbg_model *m, const char *name, mbg_loc loc);
int mbg_model_add_loop(mbg_model *m, const char *name, mbg_loc loc);
int mbg_model_add_spring(mbg_model *m, const char *name, mbg_loc loc);
int mbg_model_add_frame(mbg_model *m, const char *name, mbg_loc loc);
void mbg_model_free(mbg_model *m);

#endif
