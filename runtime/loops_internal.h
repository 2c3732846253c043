/* loops_internal.h — what loops.c shares with fd_loops.c and project.c (not part of the API). */
#ifndef MB_LOOPS_INTERNAL_H
#define MB_LOOPS_INTERNAL_H

#include "mb.h"

/* Checks both workspaces, then leaves in lw the residual (phi), the row covectors (g), the
 * Jacobian (K) and, if v is not NULL, the bias K̇v (kb). A status of mb.h. */
int mb_loop_all_(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                 const double *q, const double *v);

/* Row r of |K|: bounds of the terms K_rk is summed from, carried to the root without cancellation
 * (the norms of g's moment and force parts, the moment growing by |r| |f| at every joint). A row
 * of K that vanishes identically (a redundant row) is rounding noise of ε times this size, so it
 * gives Φ's pivots their references. Reads lw->g and ws->S, ws->Xr (mb_xup at the same q). */
void mb_loop_kabs_row_(const mb_model *m, const mb_loops *L, const mb_workspace *ws,
                       const mb_loop_workspace *lw, int r, double *out);

/* Φ = lw->Phi (n × n) factored in place under the pivot rule, with the references ref (NULL: Φ's
 * own diagonal), and x solved: 0, or -1 with lw->singular = 1 + the failing row. */
int mb_loop_spd_solve_(mb_loop_workspace *lw, int n, const double *ref, double *x);

#endif
