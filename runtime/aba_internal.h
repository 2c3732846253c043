/* aba_internal.h — the articulated-body passes aba.c shares with hybrid.c. */
#ifndef MB_ABA_INTERNAL_H
#define MB_ABA_INTERNAL_H

#include "mb.h"

/* The ABA's first pass (rigid bodies; ws->XE/Xr from mb_xup): v_i = iXλ v_λ + S q̇ into ws->v,
 * c_i = v_i × vJ + cJ into ws->c, IA_i = I_i into ws->IA and pA_i = v_i ×* I_i v_i − fext_i into
 * ws->pA (v NULL: zero; fext NULL: none). */
void mb_aba_velocities(const mb_model *m, mb_workspace *ws, const double *v, const double *fext);
/* Body i's pivots amplified into the pivot references ws->Dref of its nearest moving ancestor:
 * n columns U (6 n, column c at 6 c) of IA_i S_i, the Cholesky factor L (n × n, row-major, lower)
 * of their D and the pivots' base references r[n]. */
void mb_aba_amplify(const mb_model *m, mb_workspace *ws, int i, int n, const double *U,
                    const double *L, const double *r);

#endif
