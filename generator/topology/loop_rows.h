/* loop_rows.h — the loops' check: can they be assembled near the model's configuration, and which
 * of their rows are independent (docs/loops.md).
 *
 * A loop joint of type revolute has 5 rows (mb.h "Closed loops"), but a planar loop closed by it
 * has only 2 independent ones: the other 3 vanish identically (or are combinations of the first
 * ones) in every configuration the mechanism can reach, and kept they would make the constraint
 * system singular everywhere. The rows are found numerically, with the runtime: the mechanism is
 * assembled from its model configuration by Newton's method on every row (mb_project_q), then at
 * that configuration and at up to four assembled configurations drawn near it from a fixed seed
 * the rows of K are taken in order and a row is kept when it is independent of the rows kept
 * before it (relative residual above 1e-6 after projection on their span, rows scaled to unit
 * length) in at least one of them. A row dependent only at special configurations is kept (the
 * generated functions return -1 there); a row dependent in all of them is dropped and counted as
 * redundant for its loop. The draw is deterministic: the same model gives the same rows. */
#ifndef MBG_LOOP_ROWS_H
#define MBG_LOOP_ROWS_H

#include <stddef.h>
#include <stdio.h>

#include "model/model.h"
#include "topology/topology.h"

typedef struct mbg_loop_rows {
  int nc;     /* rows kept */
  int *row;   /* [nc]: MB_LOOP_MAX_ROWS · loop + k (loop = topology loop index), ascending */
  int *nrows; /* [nloops]: rows of each loop */
  int *nkept; /* [nloops]: independent rows of each loop */
  double *q;  /* [nq]: the assembled configuration */
  int nsamples; /* configurations the selection used */
} mbg_loop_rows;

/* Check the loops of a validated model m with topology t: every loop joins two bodies that are
 * not rigidly connected, and the loops can be assembled near the model configuration q0 (nq
 * values; NULL: the neutral one). Errors are reported at the loop (`path:line:col: error:`, the
 * source line quoted from text, which may be NULL). With no error and rows not NULL, rows gets
 * the selection (free it with mbg_loop_rows_free). Returns the number of errors, or -1 when out
 * of memory. A model without loops has no error and an empty selection. */
int mbg_check_loops(const mbg_model *m, const mbg_topology *t, const double *q0,
                    const char *path, const char *text, size_t len, FILE *out,
                    mbg_loop_rows *rows);
void mbg_loop_rows_free(mbg_loop_rows *r);

#endif
