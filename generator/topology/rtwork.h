/* rtwork.h — lean runtime workspaces for the model checks.
 *
 * mb_workspace_init's and mb_loop_workspace_init's layouts and tags, with only the arrays the
 * checks' runtime calls read and write. A whole mb_workspace also holds the CFA's dense nc × nc
 * matrix, minv's 6 nv × nb and crba_fd's nv × nv, and a whole loops' workspace RCR's 6 nb × nv:
 * quadratic in the bodies (about 800 MB for 1200 bodies), which made `mbdc check` of a model with
 * many independent loops quadratic in memory. The arrays left out are NULL, so only the calls
 * named below may be given these workspaces (a runtime change that reads another array there
 * fails the tests that run the checks). */
#ifndef MBG_RTWORK_H
#define MBG_RTWORK_H

#include "mb.h"

/* A workspace for mb_xup, mb_pivot_refs, mb_aba_joint (topology/regular.c), mb_loop_residual,
 * mb_loop_jacobian, mb_project_q and mb_project_v (with a lean loops' workspace below), and
 * mb_regressor (topology/base_params.c), mb_rcr_select and mb_rcr_pivots (with a whole loops'
 * workspace for one part of the loops: rcr_select.c), laid out and zeroed, S filled (a whole
 * one for a model with flexible bodies). Returns the buffer (free it), NULL when out of memory. */
double *mbg_lean_workspace(const mb_model *m, mb_workspace *ws);

/* A loops' workspace for rows L of m for mb_loop_residual, mb_loop_jacobian, mb_project_q and
 * mb_project_v, in a buffer of mbg_lean_loop_size(m, L) bytes (not zeroed: those calls write
 * what they read); the buffer may be reused for another row set of no more bytes. */
size_t mbg_lean_loop_size(const mb_model *m, const mb_loops *L);
void mbg_lean_loop_layout(mb_loop_workspace *lw, const mb_model *m, const mb_loops *L,
                          void *buffer);

/* A loops' workspace holding only RCR's plan (rplan), for mb_rcr_groups_ and mb_rcr_plan_
 * (runtime/rcr_internal.h): the plans of the whole model's loops, linear in its size. */
size_t mbg_plan_loop_size(const mb_model *m, const mb_loops *L);
void mbg_plan_loop_layout(mb_loop_workspace *lw, const mb_model *m, const mb_loops *L,
                          void *buffer);

#endif
