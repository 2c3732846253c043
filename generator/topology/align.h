/* align.h — joint frames re-expressed so every joint axis is a positive coordinate axis.
 *
 * The generator rotates each revolute, continuous, prismatic, helical, cylindrical and planar
 * joint frame (= the child body's frame) by R_i so that its axis (a planar joint's normal)
 * becomes +e_k; S is then columns of the identity and most products vanish. The rotation is
 * folded into the tree transforms and the inertias; the joint coordinates keep their meaning
 * (same q, v, τ, M):
 *   E_i' = R_i E_i R_λᵀ,  r_i' = R_λ r_i,  m' = m,  h' = R_i h,  Ī' = R_i Ī R_iᵀ   (R_0 = 1).
 * Choice of R_i for a unit axis a:
 *   a = +e_k exactly        R = identity (the model is left bit for bit as it was);
 *   a = −e_k exactly        R = rotation by π about e_{(k+1) mod 3}: diagonal, entries exactly ±1;
 *   otherwise               k = the largest |a_k| (ties to the lower index); if a_k > 0 the minimal
 *                           rotation taking a to e_k (Rodrigues); if a_k < 0 that rotation applied
 *                           after the π rotation above (which makes a_k positive: the minimal
 *                           rotation from a nearly −e_k axis is ill-conditioned, this one is not
 *                           and it is continuous with the exact −e_k case).
 * R is the runtime's mbs_axis_rotation (which also gives a planar joint its plane's axes: rows
 * k+1, k+2 of R, so they are e_{k+1}, e_{k+2} of the aligned frame).
 * A universal joint's R also takes its second axis to e_{(k+1) mod 3} (a turn about e_k after the
 * R above; align.c align_universal).
 * Spherical and floating joints keep R = identity (their quaternions are defined in the original
 * frames). When R_i and R_λ are signed permutations every product above is exact.
 *
 * Consumers in the original frames (docs/templates.md "The model table"): an
 * external wrench f on body i enters as blockdiag(R_i, R_i) f; a joint wrench w' comes back as
 * blockdiag(R_iᵀ, R_iᵀ) w'; a world pose is R_world←orig = R_world←aligned · R_i, same origin
 * (the recipes get R_i composed with the placement of the working frames: Yo, dh_frames.h).
 * Frames given relative to a body's original frame (topology merged[].X, loop Xa/Xb) are not
 * rotated here. */
#ifndef MBG_ALIGN_H
#define MBG_ALIGN_H

#include "topology/topology.h"

typedef struct mbg_aligned_body {
  mbg_xform XT;  /* aligned tree transform: aligned parent frame -> aligned joint frame */
  mbg_inertia I; /* inertia at the body origin in the aligned body frame */
  int axis;      /* 0, 1, 2 = x, y, z for the joints with an axis (mb_joint_has_axis); else -1 */
  double R[9];   /* x_aligned = R x_original, row-major; identity when not rotated */
  int rotated;   /* R is not exactly the identity */
} mbg_aligned_body;

typedef struct mbg_aligned {
  int nb;
  mbg_aligned_body *body; /* [nb + 1], body[0] = world, identity */
} mbg_aligned;

/* Align every joint frame of the topology. Returns 0, or -1 when out of memory (out is then
 * empty and safe to free). */
int mbg_align(const mbg_topology *t, mbg_aligned *out);
void mbg_aligned_free(mbg_aligned *a);

/* The alignment rotation of one unit axis a (rules above): fills R (row-major, R a = +e_k) and
 * returns k. */
int mbg_align_axis(const double a[3], double R[9]);

#endif
