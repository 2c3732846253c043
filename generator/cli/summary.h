/* summary.h — what `mbdc check MODEL` prints on success: sizes, the moving joints in tree order
 * with their coordinate offsets, the fixed joints merged away, chains, nodes, loops, gravity. */
#ifndef MBG_SUMMARY_H
#define MBG_SUMMARY_H

#include <stdio.h>

#include "model/model.h"
#include "topology/loop_rows.h"
#include "topology/rcr_select.h"
#include "topology/topology.h"

/* Plain, aligned, deterministic text. */
/* rows (may be NULL): the loops' independent rows (topology/loop_rows.h), printed per loop. */
void mbg_summary_print(FILE *out, const mbg_model *m, const mbg_topology *t,
                       const mbg_loop_rows *rows, mbg_rcr_sel *sel);

#endif
