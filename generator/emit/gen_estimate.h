/* gen_estimate.h — the size of a built-in function's expression graph, estimated from the model's
 * shape before the recipe runs, so that a function the memory limit cannot hold (--lua-memory,
 * which bounds the graph too: sym.h mbg_sym_set_max_bytes) is refused at once with the estimate,
 * instead of after the minutes of building it takes to reach the limit (crba of a 3000-link chain:
 * about 15 minutes to 4 GiB). docs/generator.md, "Model size and memory". */
#ifndef MBG_GEN_ESTIMATE_H
#define MBG_GEN_ESTIMATE_H

#include <stddef.h>

#include "topology/topology.h"

typedef struct mbg_gen_size {
  double nodes;        /* the graph's nodes */
  double bytes;        /* what the graph engine allocates for them (sym.c's growth) */
  const char *measure; /* what the size grows with, for messages */
  double units;        /* that quantity for this model */
} mbg_gen_size;

/* The estimate for built-in function `name` (0), or -1 for a function it has no estimate for (a
 * user's recipe, a fused function, the loop and contact functions). */
int mbg_gen_estimate(const mbg_topology *t, const char *name, mbg_gen_size *out);

#endif
