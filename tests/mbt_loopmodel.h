/* mbt_loopmodel.h — a .mbd file loaded in-process into the runtime's model, loops and springs,
 * the loops with the independent rows mbdc check selects (generator/topology/loop_rows.h), for
 * tests that run the runtime's closed-loop dynamics on a model file. A plain C interface, so C++
 * tests (the Simbody cross-check, bench_loops) need not include the generator's headers. */
#ifndef MBT_LOOPMODEL_H
#define MBT_LOOPMODEL_H

#ifdef __cplusplus
extern "C" {
#endif

#include "mb.h" /* no C++ guard of its own */

typedef struct mbt_loopmodel {
  const mb_model *model;
  const mb_loops *loops; /* the kept rows (nc = 0 for a tree) */
  const double *q0;      /* [nq]: an assembled configuration (the neutral one for a tree) */
  const mb_springs *springs; /* the model's spring-dampers (n = 0 if none) */
  int nrows;             /* all rows of all loops, kept or not */
  void *priv;
} mbt_loopmodel;

/* Load `path` (.mbd); diagnostics go to stderr. 0, or -1 on any failure. */
int mbt_loopmodel_load(const char *path, mbt_loopmodel *out);
void mbt_loopmodel_free(mbt_loopmodel *lm);

/* The runtime body (its index in lm->model) of the model's body name; -1 if none. */
int mbt_loopmodel_body(const mbt_loopmodel *lm, const char *name);

#ifdef __cplusplus
}
#endif

#endif
