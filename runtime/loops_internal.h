/* loops_internal.h — what loops.c shares with fd_loops.c and project.c (not part of the API). */
#ifndef MB_LOOPS_INTERNAL_H
#define MB_LOOPS_INTERNAL_H

#include "mb.h"

/* Checks both workspaces, then leaves in lw the residual (phi), the row covectors (g), the
 * Jacobian (K) and, if v is not NULL, the bias K̇v (kb). A status of mb.h. */
int mb_loop_all_(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                 const double *q, const double *v);

/* Φ = lw->Phi (n × n) factored in place under the pivot rule and x solved: 0, or -1 with
 * lw->singular = 1 + the failing row. */
int mb_loop_spd_solve_(mb_loop_workspace *lw, int n, double *x);

#endif
