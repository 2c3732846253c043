/* rcr_internal.h — what rcr_plan.c shares with rcr.c (not part of the API).
 *
 * The plan of recursive coordinate reduction for one selection of dependent coordinates. Loops
 * with kept rows that share a tree joint are one group (union-find over the joints of their
 * paths) — unless they can stay apart:
 *   coupled heads  every joint they share is in the head of each and has no dependent column
 *                  (Critchley & Anderson's §5): their heads overlap;
 *   hung           the joints group h shares with group g are the path from h's base c_h out to
 *                  a body b of g's tail (the shared joints carry g's dependents or tail: the
 *                  paper's §5 with eq. (45)), h's dependents all lie beyond, and h shares joints
 *                  with g alone, g with no group it hangs from: h is reduced onto b and c_h, whose
 *                  accelerations g's tail expresses (c_h in g's head but not its p: an open input
 *                  z of g's tail, carried down g's head to c_h);
 * as long as at most MB_RCR_MAX_OPEN maps are open on one body. A group has a base c (the common
 * ancestor of its loops' bodies), its joints (the paths from each loop's own common body out to
 * bodies a and b, less the shared path of a hung group: its outer group's), its rows, a chain
 * order of its velocity columns (loop after loop: out along a's path, back along b's), a head and
 * a tail:
 *   head  the path of the group's joints whose columns are all independent, from c (a hung group:
 *         from b) while the current body has exactly one group joint among its children and (but
 *         for the start) is not body a or b of a loop of the group; p is the last body (no head:
 *         p = c, or b for a hung group);
 *   tail  every other joint of the group: its dependent columns and its independent ones (n_I).
 * Every tail joint then hangs from c, p or a tail body. Body roles: 0 free (the plain
 * articulated-body algorithm), 1 head (of one group or more: nopen, open), 2 tail (a hub when
 * groups hang from it: nopen, open). Integers live in the loop workspace's rplan. */
#ifndef MB_RCR_INTERNAL_H
#define MB_RCR_INTERNAL_H

#include "mb.h"

typedef struct rcr_plan {
  int ng;
  int *grp;   /* [nb + 1] group of body i's joint, −1 */
  int *role;  /* [nb + 1] 0 free, 1 head, 2 tail */
  int *depid; /* [nv] index of a dependent column in its group's list, −1 */
  int *indid; /* [nv] index of a tail-independent column in its group's list, −1 */
  int *chain; /* [nv] position of a column in its group's chain, −1 */
  int *base, *p, *nI;       /* [nloops] per group */
  int *row0, *row;          /* rows of group g: row[row0[g] .. row0[g+1]) (indices < nc) */
  int *dep0, *dep;          /* dependent columns in chain order */
  int *ind0, *ind;          /* tail-independent columns in column order */
  int *head0, *head;        /* head bodies from c's child out to p ([(nb + 1) × MAX_OPEN]) */
  int *tail0, *tail;        /* tail bodies in body order */
  int *E0, *N0, *M0;        /* offsets of a group's maps in lw->rE, rN, rM */
  int *loopgrp;             /* [nloops] group of a loop, −1 (no kept rows) */
  int *lca;                 /* [nloops] a loop's own common body */
  int *tmp;                 /* [nb + 1] scratch */
  int *nopen, *open;        /* [nb + 1], [(nb + 1) × MB_RCR_MAX_OPEN] groups whose head holds i */
  int *first, *bad, *mark;  /* [nb + 1] scratch of the grouping */
  int *uf;                  /* [nloops] union-find of the loops */
  int *hkid;                /* [nb + 1] 1: a head body with a head body among its children */
  int *second, *hd, *mark2; /* [nb + 1] scratch of the grouping */
  int *nest, *att;          /* [nloops] the group a group hangs from (−1) and its body b there */
  int *nz, *zg;             /* [nloops], [nloops × MB_RCR_MAX_OPEN] a tail's open inputs: groups */
} rcr_plan;

/* Width of a group's tail columns x = [Â_p (6); q̈_I (n_I); z (6 per open input); 1], and of its
 * wrench maps' [A_c | Â_p | z | 1]. */
#define RCR_W(P, g) (7 + (P)->nI[g] + 6 * (P)->nz[g])
#define RCR_NW(P, g) (13 + 6 * (P)->nz[g])
#define RCR_NWMAX (13 + 6 * MB_RCR_MAX_OPEN)

/* Lay the plan's arrays out in lw->rplan and find the groups of loops that share a joint, their
 * bases, rows, joints (grp) and chain order (independent of the selection). MB_OK or MB_EINVAL
 * (a loop body out of range). */
int mb_rcr_groups_(const mb_model *m, const mb_loops *L, mb_loop_workspace *lw, rcr_plan *P);

/* The whole plan for selection dep[nc]: the groups of that selection (loops sharing only head
 * joints apart), their dependents (mb_rcr_take_), heads and tails (mb_rcr_split_) and the open
 * heads per body. MB_OK or MB_EINVAL (a bad body or selection). */
int mb_rcr_plan_(const mb_model *m, const mb_loops *L, mb_loop_workspace *lw, rcr_plan *P,
                 const int *dep);

/* The body whose joint owns velocity coordinate col (0 if none). */
int mb_rcr_col_body_(const mb_model *m, int col);

/* The group's dependents from selection dep[nc] into P (dep0/dep in chain order, depid), with
 * P->indid holding every column's group (mb_rcr_plan_ sets it): MB_OK, or MB_EINVAL if the
 * selection gives the group a different count or a column out of range. */
int mb_rcr_take_(const mb_model *m, const mb_loops *L, rcr_plan *P, int g, const int *dep);

/* The projector recursion over group g's dependents (from the chain's end) with the columns of
 * lw->K: leaves ρ_d = R c_d / piv_d in lw->rR (one row of m per dependent, in P->dep order) and
 * returns the smallest pivot ratio (0 for a zero column); ratio (may be NULL) per dependent. */
double mb_rcr_project_(const mb_loops *L, mb_loop_workspace *lw, const rcr_plan *P, int g,
                       double *ratio);

/* Head, tail, roles and offsets of group g for its current dependents. */
void mb_rcr_split_(const mb_model *m, const mb_loops *L, rcr_plan *P, int g);

/* ---- shared by rcr.c and rcr_heads.c ---------------------------------------------------------- */

/* Per dof of a joint: U (free joints) or Sᵀ times block b of the head's weighted map (b = 0: the
 * body's own acceleration, 1..: the open bases) at SL(b), the row of D's Cholesky factor. */
#define SL(lw, nv, b, o) ((lw)->rD + 6 * (size_t)(nv) * (size_t)(b) + 6 * (size_t)(o))
#define DFAC(lw, nv, o) SL(lw, nv, 1 + MB_RCR_MAX_OPEN, o)
/* A group's tail wrench maps in lw->rG, 6 × RCR_NW each (leading dimension RCR_NWMAX): Ŵ on p
 * (weighted), T on c (total) and Z_k on the base of open input k, [Λ_c | Λ_p | Λ_z | w]. */
#define WHAT(lw) ((lw)->rG + 6 * (size_t)(lw)->nc)
#define WTOT(lw) (WHAT(lw) + 6 * RCR_NWMAX)
#define WZ(lw, k) (WHAT(lw) + 6 * RCR_NWMAX * (2 + (size_t)(k)))
/* Body i's map s in lw->rH (rcr_heads.c: s = 0 Ĥ, 1.. Δ of its open groups): 1 + MB_RCR_MAX_OPEN
 * blocks of 6 × 6 (its own acceleration, then its open groups' bases'), then a bias at HBIAS. */
#define HMAP(lw, i, s) ((lw)->rH + (size_t)MB_RCR_HBODY * (size_t)(i) + (size_t)MB_RCR_HMAP * (size_t)(s))
#define HBIAS (36 * (1 + MB_RCR_MAX_OPEN))

/* x (n) ← (L Lᵀ)⁻¹ x for every column of X (n × c, leading dimension ld). */
void mb_rcr_chol_solve_cols_(int n, const double *L, double *X, int c, int ld);
/* Factor joint o's n × n D (row-major) into DFAC: 0, or −1 if not positive definite. */
int mb_rcr_factor_joint_(mb_loop_workspace *lw, int nv, int o, int n, const double *D);
/* That factor back into F (n × n). */
void mb_rcr_joint_factor_(const mb_loop_workspace *lw, int nv, int o, int n, double *F);

/* The heads (rcr_heads.c): zero body i's maps; a group's tail maps (WHAT, WTOT) into its p's;
 * head body i's joint eliminated (0, or −1 if its D is singular) and its maps passed to the
 * parent, the smallest of its pivot ratios (mb.h, MB_RCR_REFINE_HEAD) into *lo; the forward step
 * of head body i (q̈ and its absolute acceleration). */
void mb_rcr_head_clear_(mb_loop_workspace *lw, int i);
void mb_rcr_tail_to_head_(mb_loop_workspace *lw, const rcr_plan *P, int g);
int mb_rcr_head_body_(const mb_model *m, mb_loop_workspace *lw, const rcr_plan *P, int i,
                      const double *tau, double *lo);
void mb_rcr_head_forward_(const mb_model *m, mb_loop_workspace *lw, const rcr_plan *P, int i,
                          double *qdd);

#endif
