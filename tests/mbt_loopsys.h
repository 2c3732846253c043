/* mbt_loopsys.h — what the closed-loop runtime tests share (test_rcr.c, test_rcr_accuracy.c): a
 * deterministic random source, a loop model with both workspaces, and a random assembled state. */
#ifndef MBT_LOOPSYS_H
#define MBT_LOOPSYS_H

#include <stdint.h>

#include "mbt_loopmodel.h"

/* splitmix64: deterministic, the same draws on every platform. */
typedef struct mbt_rng {
  uint64_t s;
} mbt_rng;

/* Uniform in [lo, hi). */
double mbt_uni(mbt_rng *g, double lo, double hi);

/* A loop model (mbt_loopmodel) with its workspaces. */
typedef struct mbt_loopsys {
  mbt_loopmodel lm;
  const mb_model *m;
  const mb_loops *L;
  mb_workspace ws;
  mb_loop_workspace lw;
  void *wbuf, *lbuf;
  int nq, nv, nc;
} mbt_loopsys;

/* Load the .mbd at path (diagnostics to stderr) and lay out both workspaces. 0, or −1 if it does
 * not load or memory runs out (s is then empty; mbt_loopsys_close is harmless). */
int mbt_loopsys_open(const char *path, mbt_loopsys *s);
void mbt_loopsys_close(mbt_loopsys *s);

/* A random assembled state: q = q0 ⊕ dv, dv uniform in ±amp, projected onto φ = 0; v uniform in
 * ±1 projected onto K v = 0; τ uniform in ±2. 0, or −1 if no draw in 100 assembles. */
int mbt_loopsys_state(mbt_loopsys *s, mbt_rng *g, double amp, double *q, double *v, double *tau);

#endif
