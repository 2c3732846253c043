/* mjcf_internal.h — shared by the MJCF importer's files (mjcf*.c); not a public interface.
 *
 * The XML layer is the URDF reader's (urdf/urdf_internal.h, urdf_xml.c): the same parse (no
 * network, no DTD read, entity and attribute-default declarations refused), the same element
 * locations and the same C-identifier names (urdf_names.c); an mbg_urdf holds that state here. */
#ifndef MBG_MJCF_INTERNAL_H
#define MBG_MJCF_INTERNAL_H

#include "mjcf/mjcf.h"
#include "urdf/urdf_internal.h"

#define MBG_MJCF_PI 3.14159265358979323846

/* A rigid pose: position and unit quaternion, w first (MuJoCo's convention), of a child frame in
 * its parent's: x_parent = p + q x_child q*. */
typedef struct mbg_mjcf_pose {
  double p[3], q[4];
} mbg_mjcf_pose;

/* A <default> class; class 0 is "main", the top-level <default> (node NULL without one). */
typedef struct mbg_mjcf_class {
  const char *name;
  xmlNodePtr node;
  int parent; /* -1 for main */
} mbg_mjcf_class;

/* The joint kinds of MJCF. */
enum { MBG_MJ_FREE, MBG_MJ_BALL, MBG_MJ_SLIDE, MBG_MJ_HINGE };

/* A joint of the document, in MuJoCo's order (bodies depth-first, joints as written). */
typedef struct mbg_mjcf_joint {
  xmlNodePtr node;
  int cls;         /* its default class */
  int kind;        /* MBG_MJ_* */
  int body;        /* the MJCF body (index in bodies) */
  int model_joint; /* the model's joint, -1 before it is made */
  char *cname;     /* its name in the model */
  double pos[3], axis[3]; /* in the body's MJCF frame; axis unit */
  double ref;      /* hinge (radians), slide: qpos0 */
  int limited;
  double range[2]; /* radians for a hinge */
  double armature, damping, friction, stiffness, springref;
} mbg_mjcf_joint;

/* A <body> of the document; bodies[0] is the <worldbody>. */
typedef struct mbg_mjcf_body {
  xmlNodePtr node;
  const char *name; /* as written, or NULL */
  int parent;       /* index in bodies, -1 for the world */
  int childclass;   /* the class its elements take by default */
  mbg_mjcf_pose local;  /* its frame in its parent's (MJCF frames) */
  mbg_mjcf_pose world0; /* its frame in the world at qpos0 (every joint at its ref) */
  double off[3];    /* a point's model-body coordinates = its MJCF coordinates + off */
  int body;         /* the model body carrying its frame (0: the world) */
  int first_joint, njoints; /* its joints in joints[] */
  char *cname;      /* its name in the model */
} mbg_mjcf_body;

/* A value of an attribute: on the element or from its class; NULL when absent. */
typedef struct mbg_mjcf_val {
  const char *s;
  xmlNodePtr at; /* the element it was written on */
} mbg_mjcf_val;

typedef struct mbg_mjcf {
  mbg_urdf x; /* the XML layer and the names (see above) */
  mbg_diag *d;
  mbg_model *m;
  /* <compiler> */
  int degree, autolimits, inertiafromgeom; /* inertiafromgeom: 0 false, 1 true, 2 auto */
  int group_lo, group_hi;
  char eulerseq[4];
  int nclasses, cclasses;
  mbg_mjcf_class *classes;
  mbg_names class_names;
  int nbodies, cbodies;
  mbg_mjcf_body *bodies;
  int njoints, cjoints;
  mbg_mjcf_joint *joints;
  char **owned; /* every name made (the name table borrows them), freed at the end */
  int nowned, cowned;
} mbg_mjcf;

/* mjcf_xml.c — attributes, with the default classes; numbers and words. */
/* Attribute `attr` of el, or of the first class up from `cls` whose <el-name> default gives it. */
mbg_mjcf_val mbg_mjcf_get(const mbg_mjcf *mj, xmlNodePtr el, int cls, const char *attr);
/* Where a value is (its attribute's place, or el's tag when absent). */
mbg_loc mbg_mjcf_loc(const mbg_mjcf *mj, mbg_mjcf_val v, xmlNodePtr el, const char *attr);
/* Between min and max finite numbers of attribute `attr` (classes from cls; -1: none) into out.
 * out has room for max. Returns the count, 0 after reporting a problem (out may be partly
 * written), -1 when absent (out untouched). */
int mbg_mjcf_nums(mbg_mjcf *mj, xmlNodePtr el, int cls, const char *attr, int min, int max,
                  double *out);
/* One of the NULL-terminated words: its index, `dflt` when absent, -1 after reporting. */
int mbg_mjcf_word(mbg_mjcf *mj, xmlNodePtr el, int cls, const char *attr,
                  const char *const *words, int dflt);
/* The class of an element: its `class` (an error when unknown), else `inherited`. */
int mbg_mjcf_class_of(mbg_mjcf *mj, xmlNodePtr el, int inherited);
/* A name: attribute `name`, or NULL when absent or empty. */
const char *mbg_mjcf_name(xmlNodePtr el);
/* A model name for a document name (or, when NULL, for `fallback`), unique (urdf_names.c);
 * owned by mj until the end (the name table borrows it), NULL when out of memory. */
char *mbg_mjcf_c_name(mbg_mjcf *mj, const char *name, const char *fallback, const char *what,
                      mbg_loc loc);

/* mjcf_defaults.c — the <default> classes. Returns 1, or 0 after errors. */
int mbg_mjcf_defaults(mbg_mjcf *mj, xmlNodePtr root);

/* mjcf_orient.c — orientations and poses. */
/* The orientation of el (quat, axisangle, euler, xyaxes or zaxis; at most one; classes from
 * cls) as a unit quaternion into q (identity when none). Returns 1, or 0 after reporting. */
int mbg_mjcf_orient(mbg_mjcf *mj, xmlNodePtr el, int cls, double q[4]);
/* A pose from el's `pos` and orientation. Returns 1, or 0 after reporting. */
int mbg_mjcf_read_pose(mbg_mjcf *mj, xmlNodePtr el, int cls, mbg_mjcf_pose *P);
void mbg_mjcf_quat_mul(const double a[4], const double b[4], double out[4]);
void mbg_mjcf_quat_rotate(const double q[4], const double v[3], double out[3]);
/* The rotation matrix (row-major, child to parent) of a unit quaternion. */
void mbg_mjcf_quat_to_mat(const double q[4], double R[9]);
/* The unit quaternion of a rotation matrix (w >= 0). */
void mbg_mjcf_mat_to_quat(const double R[9], double q[4]);
/* The minimal rotation taking z to the direction v (MuJoCo's zaxis). 0 when v is zero. */
int mbg_mjcf_z_to(const double v[3], double q[4]);
/* The rotation of `angle` about the unit axis a. */
void mbg_mjcf_axis_angle(const double a[3], double angle, double q[4]);
void mbg_mjcf_pose_identity(mbg_mjcf_pose *P);
/* out = A B (B's frame given in A's). */
void mbg_mjcf_pose_mul(const mbg_mjcf_pose *A, const mbg_mjcf_pose *B, mbg_mjcf_pose *out);
void mbg_mjcf_pose_inv(const mbg_mjcf_pose *A, mbg_mjcf_pose *out);
void mbg_mjcf_pose_apply(const mbg_mjcf_pose *A, const double x[3], double out[3]);
/* The model's xyz and rpy (R = Rz Ry Rx) of a pose. */
void mbg_mjcf_pose_xyz_rpy(const mbg_mjcf_pose *P, double xyz[3], double rpy[3]);
/* I' = R I Rᵀ of an inertia (ixx iyy izz ixy ixz iyz), R the rotation of q. */
void mbg_mjcf_rotate_inertia(const double q[4], double I[6]);

/* mjcf_geom.c — mass properties from the geoms of a body (compiler inertiafromgeom), in its
 * MJCF frame: mass, centre of mass, inertia about it. Returns 1, or 0 after reporting. */
int mbg_mjcf_geom_mass(mbg_mjcf *mj, xmlNodePtr body, int cls, double *mass, double com[3],
                       double I[6]);
/* The mass properties of one primitive geom of MuJoCo's type `type` ("sphere", ...) and `size`
 * (its count as MuJoCo takes it), solid of the given density, or of the given mass when mass >=
 * 0: the volume, mass, and principal moments about its centre in its frame. 0 for a type without
 * a primitive volume. */
int mbg_mjcf_primitive(const char *type, const double size[3], double density, double mass,
                       double *volume, double *m, double I[3]);

/* mjcf_tree.c — the bodies and joints of <worldbody>, collected and checked (pass 1), then
 * named (joints first, so that a joint keeps its name when a body has the same one). Returns 1,
 * or 0 after errors. */
int mbg_mjcf_collect(mbg_mjcf *mj, xmlNodePtr worldbody);
/* mjcf_joint.c — one <joint> or <freejoint> read into j (kind, frame, limits, properties). */
int mbg_mjcf_read_joint(mbg_mjcf *mj, xmlNodePtr n, int cls, mbg_mjcf_joint *j);
/* mjcf_build.c — the model's bodies, joints, mass properties and frames (pass 2). */
void mbg_mjcf_build_tree(mbg_mjcf *mj);

/* mjcf_equality.c — <equality> as loops, <keyframe> as the initial state. */
void mbg_mjcf_equality(mbg_mjcf *mj, xmlNodePtr equality);
void mbg_mjcf_keyframe(mbg_mjcf *mj, xmlNodePtr keyframe);
/* The initial state without a keyframe: qpos0 (free joints at their bodies' poses, hinges and
 * slides at their ref). */
void mbg_mjcf_qpos0(mbg_mjcf *mj);

#endif
