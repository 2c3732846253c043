/* rcr_select.h — the dependent coordinates of recursive coordinate reduction (docs/loops.md
 * "Recursive coordinate reduction"): the selections p_rcr switches between, chosen once at the
 * loops' assembled configuration with the runtime (mb_rcr_select, mb_rcr_pivots).
 *
 * Selection 0 is the model's `independent` statement when it has one (every loop coordinate not
 * named there is dependent; it must give exactly as many dependents as independent rows, and be
 * regular at the assembled configuration: pivot ratio ≥ MB_RCR_SWITCH, else a located error);
 * otherwise the paper's default, taken greedily from the end of every loop's chain. The
 * alternatives follow: the greedy selection from the chain's end, then from its start (the loop
 * worked in the opposite direction), each kept if it differs from the selections before it.
 *
 * Each is found part by part (loop_parts.h: loops that share no moving joint), on the part's
 * smaller model with a loops' workspace of its size: an `independent` statement must give every
 * part as many dependents as its rows (else a located error naming one of its loops); time and
 * memory are linear in the number of independent loops. */
#ifndef MBG_RCR_SELECT_H
#define MBG_RCR_SELECT_H

#include <stddef.h>
#include <stdio.h>

#include "mb.h"
#include "model/model.h"
#include "topology/loop_rows.h"
#include "topology/topology.h"

typedef struct mbg_rcr_sel {
  int nsel;      /* selections (0: the model has no loop rows) */
  int nc;        /* dependents per selection: the kept rows */
  int *dep;      /* [nsel × nc] velocity coordinates, each selection in mb_rcr_take_'s order */
  double *ratio; /* [nsel] smallest pivot ratio at the assembled configuration */
  int user;      /* 1 if selection 0 is the model's `independent` statement */
  int origin[3]; /* per selection: 0 `independent`, 1 greedy from the end, 2 from the start */
  void *priv;    /* the runtime objects the plans are laid out with */
} mbg_rcr_sel;

/* Choose the selections of a model whose loops passed mbg_check_loops (rows: its kept rows and
 * assembled configuration). Errors about `independent` are reported at the statement. Returns
 * the number of errors, or -1 when out of memory. */
int mbg_rcr_selections(const mbg_model *m, const mbg_topology *t, const mbg_loop_rows *rows,
                       const char *path, const char *text, size_t len, FILE *out,
                       mbg_rcr_sel *sel);

/* The plan of selection s (runtime/rcr_internal.h's rcr_plan, as ints): valid until the next call.
 * Fields: ng groups; per group g base, p, and lists (rows, dependents in chain order, tail
 * independents, head bodies, tail bodies), the group it hangs from and its open inputs; per body
 * its role, group and open maps. NULL on a bad s. */
typedef struct mbg_rcr_plan_view {
  int ng;
  const int *base, *p, *row0, *row, *dep0, *dep, *ind0, *ind, *head0, *head, *tail0, *tail;
  const int *nest, *att, *nz, *zg; /* per group: the group it hangs from (−1), its body there,
                                     * its tail's open inputs (zg[MB_RCR_MAX_OPEN g + k]: groups) */
  const int *role, *grp;            /* per body */
  const int *nopen, *open;          /* per body: the groups open there (open[MB_RCR_MAX_OPEN i + k]) */
  const int *kept;       /* [nc] the kept rows: MB_LOOP_MAX_ROWS · loop + row (row indexes this) */
} mbg_rcr_plan_view;
int mbg_rcr_plan(mbg_rcr_sel *sel, int s, mbg_rcr_plan_view *out);

void mbg_rcr_sel_free(mbg_rcr_sel *sel);

#endif
