/* graph.h — Graphviz DOT of a model: every body (merged ones included) as a node, every tree
 * joint as an edge parent -> child, loop joints dashed. Fixed joints are grey, node bodies (more
 * than one child) double octagons, the bodies of each chain share a fill colour, the world is a
 * box. Deterministic output. */
#ifndef MBG_GRAPH_H
#define MBG_GRAPH_H

#include <stdio.h>

#include "model/model.h"
#include "topology/topology.h"

void mbg_graph_dot(FILE *out, const mbg_model *m, const mbg_topology *t);

#endif
