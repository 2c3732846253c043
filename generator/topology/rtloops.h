/* rtloops.h — the runtime's loops (runtime/mb.h "Closed loops") built from a topology's loop
 * joints, every row of every loop kept (loop_rows.h chooses the independent ones). */
#ifndef MBG_RTLOOPS_H
#define MBG_RTLOOPS_H

#include "mb.h"
#include "topology/topology.h"

typedef struct mbg_rtloops {
  mb_loops loops; /* points into the arrays below */
  mb_loop *loop;
  int *row;
  int nrows; /* all rows: loops.nc = nrows until a selection replaces row[] */
} mbg_rtloops;

/* Fill `out` from the topology. Returns 0, or -1 when out of memory. */
int mbg_rtloops_build(const mbg_model *m, const mbg_topology *t, mbg_rtloops *out);
void mbg_rtloops_free(mbg_rtloops *r);

#endif
