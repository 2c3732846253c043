/* loop_check.h — what loop_rows.c and loop_assembly.c share: the state of one loops' check,
 * worked part by part (loop_parts.h). Internal to topology/. */
#ifndef MBG_LOOP_CHECK_H
#define MBG_LOOP_CHECK_H

#include <stdint.h>

#include "base/diag.h"
#include "topology/loop_parts.h"
#include "topology/rtloops.h"
#include "topology/rtmodel.h"

enum { NSAMPLES = 5 };

typedef struct lc_ctx {
  mbg_rtmodel rm;
  mbg_rtloops rl;   /* every row of every loop */
  mbg_loop_part *part;
  int nparts;
  int *part_of;     /* [nloops]: the part of each loop */
  char *keep;       /* [rl.nrows]: the row was kept (row selection) */
  double *qs;       /* the samples: NSAMPLES × nq of the whole model; qs[0] the assembled one */
  int nsamples;
  double kmax[NSAMPLES]; /* the largest row of all loops at each sample */
  int nQ[NSAMPLES], ok[NSAMPLES];
  double *K, *Q;    /* one part's rows × its nv, per sample; an orthonormal basis of its kept */
  double *qp, *v, *phi; /* one part's coordinates (2 × its nq), a velocity, residuals */
} lc_ctx;

/* The runtime workspaces of one part (rtwork.h), for its model and every row of its loops. */
typedef struct lc_work {
  const mb_model *m;
  mb_workspace ws;
  double *wbuf;
  void *lbuf;
} lc_work;
int lc_open(lc_work *w, const mbg_loop_part *p);
void lc_close(lc_work *w);

/* Part k's rows: which = -1 all, 1 the kept ones, 0 the dropped ones; buf holds the codes (at
 * least the part's nrows). */
mb_loops lc_rows(const lc_ctx *c, int k, int which, int *buf);
/* Project the whole model's q onto rows of part k (its coordinates only); *start (may be NULL):
 * their largest residual before. The runtime status, -100 when out of memory. */
int lc_project(lc_ctx *c, int k, lc_work *w, const mb_loops *rows, double *q, double *start);
/* splitmix64: a uniform number in [lo, hi) */
double lc_uniform(uint64_t *s, double lo, double hi);

/* Every part assembled at a regular point of its constraints (loop_assembly.c): errors at the
 * loops of those that are not, their count; -1 when out of memory. */
int lc_check_regular_assembly(lc_ctx *c, const mbg_model *m, const mbg_topology *t, mbg_diag *d);

#endif
