/* mbt_loopmodel.c — see mbt_loopmodel.h. */
#include "mbt_loopmodel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/load.h"
#include "topology/loop_rows.h"
#include "topology/rtloops.h"
#include "topology/rtmodel.h"

typedef struct priv {
  mbg_model *m;
  mbg_topology *t;
  mbg_rtmodel rt;
  mbg_rtloops rl;
  mbg_rtsprings rs;
  mbg_loop_rows rows;
  mb_loops loops;
  double *q0;
} priv;

int mbt_loopmodel_load(const char *path, mbt_loopmodel *out) {
  int errors = 0, warnings = 0;
  memset(out, 0, sizeof *out);
  priv *p = calloc(1, sizeof *p);
  if (!p) return -1;
  out->priv = p;
  if (!(p->m = mbg_load_mbd(path, stderr, &errors, &warnings))) return mbt_loopmodel_free(out), -1;
  if (!(p->t = mbg_topology_build(p->m))) return mbt_loopmodel_free(out), -1;
  if (mbg_rtmodel_build(p->m, p->t, &p->rt)) return mbt_loopmodel_free(out), -1;
  if (mbg_rtloops_build(p->m, p->t, &p->rl)) return mbt_loopmodel_free(out), -1;
  if (mbg_rtsprings_build(p->m, p->t, &p->rs)) return mbt_loopmodel_free(out), -1;
  if (mbg_check_loops(p->m, p->t, NULL, path, NULL, 0, stderr, &p->rows) != 0)
    return mbt_loopmodel_free(out), -1;
  const mb_model *rm = &p->rt.model;
  p->loops.nloops = p->rl.loops.nloops;
  p->loops.loop = p->rl.loops.loop;
  p->loops.nc = p->rows.nc;
  p->loops.row = p->rows.row;
  p->q0 = malloc(sizeof *p->q0 * (size_t)(rm->nq > 0 ? rm->nq : 1));
  if (!p->q0) return mbt_loopmodel_free(out), -1;
  if (p->rows.q)
    memcpy(p->q0, p->rows.q, sizeof *p->q0 * (size_t)rm->nq);
  else
    mb_neutral(rm, p->q0);
  out->model = rm;
  out->loops = &p->loops;
  out->q0 = p->q0;
  out->springs = &p->rs.springs;
  out->nrows = p->rl.nrows;
  return 0;
}

int mbt_loopmodel_body(const mbt_loopmodel *lm, const char *name) {
  const priv *p = lm->priv;
  int mb = p ? mbg_model_find_body(p->m, name) : -1;
  for (int i = 1; mb >= 0 && i <= p->t->nb; i++)
    if (p->t->body[i].model_body == mb) return i;
  return -1;
}

void mbt_loopmodel_free(mbt_loopmodel *lm) {
  priv *p = lm->priv;
  if (p) {
    free(p->q0);
    mbg_loop_rows_free(&p->rows);
    mbg_rtloops_free(&p->rl);
    mbg_rtsprings_free(&p->rs);
    mbg_rtmodel_free(&p->rt);
    if (p->t) mbg_topology_free(p->t);
    if (p->m) mbg_model_free(p->m);
    free(p);
  }
  memset(lm, 0, sizeof *lm);
}
