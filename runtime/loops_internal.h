/* loops_internal.h — what loops.c shares with fd_loops.c, project.c and
 * loop_derivatives.c (not part of the API). */
#ifndef MB_LOOPS_INTERNAL_H
#define MB_LOOPS_INTERNAL_H

#include "mb.h"

/* Checks both workspaces, then leaves in lw the residual (phi), the row covectors (g), the
 * Jacobian (K) and, if v is not NULL, the bias K̇v (kb). A status of mb.h. */
int mb_loop_all_(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                 const double *q, const double *v);

/* The kinds of row (Haug's basic constraints): d1 = u · w (u on the loop frame, w on the target
 * frame), d2 = u · (p_b − p_a), ss = |p_b − p_a|² − D², screw = d2 along the axis − pitch θ. */
enum row_kind { ROW_D1, ROW_D2, ROW_SS, ROW_SCREW };

/* Row k of loop l (k in range): its kind, u in loop-frame coordinates and, for a d1 row, w in
 * target-frame coordinates (for the other kinds w means nothing). */
int mb_loop_row_def_(const mb_loop *l, int k, double u[3], double w[3]);
/* u1: the coordinate axis least aligned with a made orthogonal to a; u2 = a × u1. */
void mb_loop_perp_(const double a[3], double u1[3], double u2[3]);

/* Row r of |K|: bounds of the terms K_rk is summed from, carried to the root without cancellation
 * (the norms of g's moment and force parts, the moment growing by |r| |f| at every joint). A row
 * of K that vanishes identically (a redundant row) is rounding noise of ε times this size, so it
 * gives Φ's pivots their references. Reads lw->g and ws->S, ws->Xr (mb_xup at the same q). */
void mb_loop_kabs_row_(const mb_model *m, const mb_loops *L, const mb_workspace *ws,
                       const mb_loop_workspace *lw, int r, double *out);

/* The pivot references of Φ's rows into lw->phi: |K_r| M⁻¹ |K_r|ᵀ (mb_loop_kabs_row_ rows, M⁻¹
 * by the factors in ws->M: mb_ltdl). Uses lw->dq and lw->q0. A status of mb_ltdl_solve. */
int mb_loop_phi_refs_(const mb_model *m, const mb_loops *L, mb_workspace *ws,
                      mb_loop_workspace *lw);

/* Φ = lw->Phi (n × n) factored in place under the pivot rule, with the references ref (NULL: Φ's
 * own diagonal), and x solved: 0, or -1 with lw->singular = 1 + the failing row. */
int mb_loop_spd_solve_(mb_loop_workspace *lw, int n, const double *ref, double *x);

#endif
