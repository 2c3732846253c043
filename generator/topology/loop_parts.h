/* loop_parts.h — the loops of a model split into independent parts, each with the smaller model
 * that carries it, so that the loops' check (loop_rows.c) costs time and memory linear in the
 * number of independent loops.
 *
 * Two loops are in one part when their paths share a moving joint (a coordinate): the rows of
 * different parts then have their nonzero entries in different columns, and each part can be
 * assembled, its rows chosen and its assembly checked on its own. A part's model holds the bodies
 * its loops' ends reach and all their ancestors, renumbered in the whole model's order (parents
 * first), with their coordinates packed; its loops' ends and rows are renumbered to match. The
 * whole model stands in for a part that reaches a flexible body (modal data are not split). */
#ifndef MBG_LOOP_PARTS_H
#define MBG_LOOP_PARTS_H

#include "mb.h"
#include "topology/rtloops.h"
#include "topology/topology.h"

typedef struct mbg_loop_part {
  mb_model model; /* points into the arrays below (or is the whole model) */
  int *body;      /* [model.nb + 1]: the whole model's number of each body (body[0] = 0) */
  mb_loop *loop;  /* its loops, ends renumbered */
  int nloops;
  int nrows;
  int *row;    /* [nrows]: its rows, MB_LOOP_MAX_ROWS · (loop in this part) + k, ascending */
  int *row_of; /* [nrows]: the index of each in the whole row list (mbg_rtloops.row) */
  mb_loops loops; /* {nloops, loop, nrows, row} */
  int whole;      /* 1: model is the whole model (body[] is the identity) */
  void *arrays;   /* the model's arrays, one allocation */
} mbg_loop_part;

/* The parts of the loops rl (every row) of m, the runtime model of topology t. Returns the number
 * of parts (0 for no loops), -1 when out of memory; *parts is freed with mbg_loop_parts_free. */
int mbg_loop_parts(const mb_model *m, const mbg_rtloops *rl, const mbg_topology *t,
                   mbg_loop_part **parts);
void mbg_loop_parts_free(mbg_loop_part *parts, int n);

/* A part's coordinates from the whole model's q (get), and back into q (put). */
void mbg_loop_part_get(const mbg_loop_part *p, const mb_model *whole, const double *q,
                       double *qp);
void mbg_loop_part_put(const mbg_loop_part *p, const mb_model *whole, const double *qp,
                       double *q);

#endif
