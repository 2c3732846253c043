/* xform.h — rigid transforms and spatial inertias in the model's conventions: what the URDF reader
 * needs to express an inertia in a link's frame and the topology to fold fixed joints (all pure). */
#ifndef MBG_XFORM_H
#define MBG_XFORM_H

#include "model/model.h"

/* A rigid transform: rotation E (row-major, maps parent coordinates to child coordinates, as in
 * Featherstone's BXA = [E 0; -E r× E]) and r, the child origin in parent coordinates. */
typedef struct mbg_xform {
  double E[9];
  double r[3];
} mbg_xform;

/* Spatial inertia as 10 numbers at the body origin: mass, first moment h = m c, and the
 * rotational inertia about the body origin (ixx iyy izz ixy ixz iyz). */
typedef struct mbg_inertia {
  double m;
  double h[3];
  double I[6];
} mbg_inertia;

void mbg_xform_identity(mbg_xform *X);
/* From a translation and roll-pitch-yaw angles (R = Rz Ry Rx); quarter turns are exact. */
void mbg_xform_from_xyz_rpy(const double xyz[3], const double rpy[3], mbg_xform *X);
/* X = B A: first A (parent→mid), then B (mid→child). */
void mbg_xform_compose(const mbg_xform *B, const mbg_xform *A, mbg_xform *X);
/* The inverse: child→parent (E transposed, r the parent's origin in child coordinates). */
void mbg_xform_inverse(const mbg_xform *X, mbg_xform *out);

/* Inertia of a body given mass, COM and rotational inertia about the COM (model conventions),
 * expressed at the body origin. */
void mbg_inertia_from_body(const mbg_body *b, mbg_inertia *I);
/* Express an inertia given in a child frame in the parent frame, X = child-from-parent. */
void mbg_inertia_to_parent(const mbg_xform *X, const mbg_inertia *child, mbg_inertia *out);

#endif
