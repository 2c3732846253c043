/* coupling_internal.h — shared by coupling.c and coupled_contact.c (the runtime's coupled
 * coordinates, mb.h mb_coupling); not a public interface. */
#ifndef MB_COUPLING_INTERNAL_H
#define MB_COUPLING_INTERNAL_H

#include "mb.h"

/* The reduced inertia Gᵀ M G at the independent q, Cholesky-factored (mbs_chol: the lower
 * triangle, the pivot rule against its diagonal) in scratch (mb_coupled_scratch_size's layout,
 * coupling.c), *Mr pointing at it; q_full is left at scratch's start. MB_OK, a status of mb_crba,
 * or MB_ENUMERIC (a pivot failed). */
int mb_coupled_factor_(const mb_model *m, const mb_coupling *c, mb_workspace *ws,
                       double *scratch, const double *q, double **Mr);

#endif
