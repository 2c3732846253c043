/* derivatives_internal.h — what the derivative files (derivatives.c, contact_derivatives.c,
 * frame_derivatives.c, loop_derivatives.c) share: the world-frame kinematics and the
 * inverse-dynamics derivatives without the public checks. */
#ifndef MB_DERIVATIVES_INTERNAL_H
#define MB_DERIVATIVES_INTERNAL_H

#include "mb.h"

/* ∂τ/∂q, ∂τ/∂v and M (NULL: not wanted) at (q, v, a) (v, a NULL: zero) with the body-fixed
 * wrenches fext (NULL: none; mb_rnea's layout), with gravity or without (gravity 0), every matrix
 * nv × nv row-major, the q-columns along the tangent space. A rigid model and a checked
 * workspace; leaves the world poses in ws->X0E/X0r and the world columns S in ws->dS. */
void mbd_rnea_derivatives(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                          const double *a, const double *fext, int gravity, double *dq,
                          double *dv, double *M);
/* The world-frame kinematics at (v, a) (NULL: zero), the world poses in ws->X0E/X0r already set
 * (mb_xup, mb_x0): every dof's world column S and Ψ̇ = v_λ × S, Ψ̈ = a_λ × S + v_λ × Ψ̇ and
 * A = Ψ̇ + v_k × S (ws->dS, 24 per dof: S, Ψ̇, Ψ̈, A), every body's world spatial velocity
 * (ws->dF at 6 i) and acceleration (ws->dF at 6 (nb + 1) + 6 i), with the fictitious −gravity
 * (gravity 1) or without it (0). A universal joint is the chain of its two revolutes through a
 * massless cross (derivatives.c). */
void mbd_world_kinematics(const mb_model *m, mb_workspace *ws, const double *v, const double *a,
                          int gravity);
/* D = −Minv D for D nv × cols row-major, column by column (x: nv scratch). */
void mbd_minus_minv(size_t nv, size_t cols, const double *Minv, double *D, double *x);
/* ∂τ/∂fext = −Jᵀ per body (nv × 6 (nb + 1), row-major, block 0 zero): column 6 j + l is
 * −(X_j S_r)_l for every dof r of j and of its ancestors, X_j = jX0, from ws->dS and the world
 * poses that mbd_rnea_derivatives left. */
void mbd_fext_columns(const mb_model *m, const mb_workspace *ws, double *dfext);

/* One frame's derivative blocks after mbd_world_kinematics (mb_frame_velocity_derivatives and
 * mb_frame_acceleration_derivatives without the checks): out[0..4] = dV/dq, dV/dv, dA/dq, dA/dv,
 * dA/da, 6 × nv each (NULL: skipped), zero where a dof does not move the frame; and with val
 * (NULL: not wanted) the frame's world values: R (frame → world, row-major), its origin p, ω, the
 * origin's velocity v_p, α and the origin's classical acceleration a_p (24 doubles). */
void mbd_frame_blocks(const mb_model *m, mb_workspace *ws, const mb_frame *f, int local,
                      double *out[5], double val[24]);

#endif
