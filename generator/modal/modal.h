/* modal.h — the modal body of a flexible body: the coupling of its modes with its rigid motion,
 * their mass, stiffness and damping (Jain & Rodriguez, "Recursive Dynamics for Flexible Multibody
 * Systems Using Spatial Operators", JPL Publication 90-26, 1990, §3), in its body frame.
 *
 * Spatial vectors are angular first ([ω; v], Featherstone, "Rigid Body Dynamics Algorithms",
 * 2008), at the body origin, in body axes. A node's small displacement per unit modal coordinate
 * η_k is its shape [r; t] (rotation r, translation t of the node); as a spatial motion at the
 * body origin it is Ψ = [r; t + p × r], p the node's position: the velocity at the origin of the
 * section moving rigidly with the node is t − r × p.
 *
 * The beam preset bends in the body's x-y plane (deflection along y, section rotation about z),
 * Euler-Bernoulli (no shear, no rotary inertia of the sections, no axial or torsional modes),
 * with the cantilever modes of modal/beam.h: η_k is mode k's tip deflection. Its modal data are
 * the continuous limit of lumped nodes of mass ρA dx at (x, 0, 0) with r = (0, 0, φ_k'(x)) and
 * t = (0, φ_k(x), 0), as its rigid inertia (a thin rod) is of the same nodes. */
#ifndef MBG_MODAL_H
#define MBG_MODAL_H

#include "model/model.h"

typedef struct mbg_modal {
  int nm;     /* modes */
  double *Mc; /* [6 nm]: column k at Mc + 6k: the coupling Σ_j I_j Ψ_jk (I_j node j's spatial
               * inertia at the body origin) */
  double *Mee; /* [nm nm] row-major: Σ_j Ψ_jᵀ I_j Ψ_j, the modal mass */
  double *K;   /* [nm nm] modal stiffness */
  double *D;   /* [nm nm] modal damping (zeros when the model gives none) */
  double *Q;   /* [36 nm]: mode k's 6×6 symmetric form at Q + 36k (row-major): the velocity-product
                * load of the undeformed body on mode k is vᵀ Q_k v, v the body frame's spatial
                * velocity (Jain & Rodriguez's b_m⁰): Q_k = Σ_j ½ (crm(Ψ_jk)ᵀ I_j + I_j crm(Ψ_jk)) */
} mbg_modal;

/* A lumped inertia I (6×6 row-major, at the body origin) moving with the section of shapes psi
 * (6 nm): Mc += I Ψ, Mee += Ψᵀ I Ψ, Q_k += ½ (crm(Ψ_k)ᵀ I + I crm(Ψ_k)) — a node. */
void mbg_modal_add_lumped(mbg_modal *m, const double I[36], const double *psi);

/* Beam preset: Mc column k = ρA [0, 0, ∫xφ_k; 0, ∫φ_k, 0], Mee = ρA ∫φ_iφ_j = ρA L/4 δ_ij,
 * K = diag(EI (β_k L)⁴/(4 L³)), D = 0. Nodal data: I_j Ψ_jk = [J_j r + m_j p_j × t; m_j t]
 * (J_j the node's rotational inertia about itself), so Mee_kl = Σ_j m_j t_k·t_l + r_kᵀ J_j r_l;
 * K and D copied. Returns 0, or -1 out of memory (out then holds nothing to free). */
int mbg_modal_build(const mbg_flex *f, mbg_modal *out);
void mbg_modal_free(mbg_modal *m);

/* The spatial motion (6 nm doubles, column k at out + 6k) of the body section an attached point
 * moves with, per unit η_k: nodal data: node `node`'s Ψ (xyz unused); beam: the section at
 * x = xyz[0] (0 ≤ x ≤ L is the caller's check; node unused),
 * Ψ = [0, 0, φ'(x); 0, φ(x) − x φ'(x), 0]. */
void mbg_modal_attach_shape(const mbg_flex *f, int node, const double xyz[3], double *out);

#endif
