/* dh_frames.h — the working frames the recipes compute in: the aligned joint frames (align.h)
 * turned about and slid along their axes into modified Denavit-Hartenberg position
 * (docs/generator.md, "Working frames").
 *
 * A 1-dof joint moves about or along +e_k of its aligned frame and commutes with every screw
 * about that axis, so each such body frame may be turned about and slid along its axis for free.
 * Body λ's frame is turned so that the common normal with its principal child's axis (the 1-dof
 * child of largest subtree, the first on ties) is a coordinate axis e_j, and slid to the foot of
 * its own parent's normal; the child's tree transform is then a rotation about e_j and a shift
 * along e_j and e_kλ (the DH α, a, d), the cheapest constant transform there is. The turn left
 * between the child's frame and its parent's normal is folded into the joint: XJ(q + θ0).
 *
 * Everything is exact but for rounding: a placement is only used when the tree transform it gives
 * is sparse to 1e-14 (relative to the lengths involved), and is skipped when the child's aligned
 * XT already has at most 6 nonzeros; entries below 1e-15 of the model's rotations (cos 90° of an
 * rpy) are taken as the zeros they stand for (and ±1 within 1e-15 as ±1), as are inertia entries
 * below 1e-15 of the largest. Spherical and floating bodies are never turned (their working frame
 * is the aligned one); a model whose consecutive 1-dof axes are already in DH position keeps its
 * aligned XT (but for the snapping above).
 *
 * With Y_i the screw (turn about e_k, slide along e_k) taking body i's aligned frame to its working
 * frame (x_working = Y_i x_aligned), D_i the screw its parent's placement chose for it (1 off the
 * DH pairs; Y_i slides as D_i does) and XJ commuting with both:
 *   Y_i XJ(q) XT_aligned,i Y_λ⁻¹ = XJ(q + θ0) XT_i,  XT_i = D_i XT_aligned,i Y_λ⁻¹,
 *   θ0 = the turn of Y_i D_i⁻¹;  I_i = the aligned inertia in the working frame;  Yo_i = Y_i R_i.
 */
#ifndef MBG_DH_FRAMES_H
#define MBG_DH_FRAMES_H

#include "topology/align.h"

typedef struct mbg_dh_body {
  mbg_xform XT;  /* working parent frame -> this joint's frame, before XJ(q + θ0) */
  int planar;    /* XT.E is the rotation about e_planar (0, 1, 2) by (c, s), an angle that is not
                    a multiple of 90°; -1 otherwise */
  double c, s;   /* that rotation: x'_k1 = c x_k1 + s x_k2 (k1, k2 the next axes); else 1, 0 */
  mbg_inertia I; /* inertia at the working origin, in the working frame */
  double theta;  /* θ0 = atan2(sin_theta, cos_theta), the turn folded into the joint */
  double cos_theta, sin_theta;
  mbg_xform Yo; /* original body frame -> working frame: E rotates original coordinates into
                   working ones, r is the working origin in original coordinates */
  int placed;   /* this body's frame was turned or slid (Y_i ≠ 1) */
} mbg_dh_body;

typedef struct mbg_dh {
  int nb;
  mbg_dh_body *body; /* [nb + 1], body[0] = world, identity */
} mbg_dh;

/* The working frames of every body of the aligned topology. Returns 0, or -1 when out of memory
 * (out is then empty and safe to free). */
int mbg_dh_place(const mbg_topology *t, const mbg_aligned *a, mbg_dh *out);
void mbg_dh_free(mbg_dh *d);

#endif
