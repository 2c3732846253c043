/* mbt_loopsys.c — mbt_loopsys.h. */
#include "mbt_loopsys.h"

#include <stdlib.h>
#include <string.h>

double mbt_uni(mbt_rng *g, double lo, double hi) {
  uint64_t z = (g->s += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  z ^= z >> 31;
  return lo + (hi - lo) * ((double)(z >> 11) * 0x1.0p-53);
}

int mbt_loopsys_open(const char *path, mbt_loopsys *s) {
  memset(s, 0, sizeof *s);
  if (mbt_loopmodel_load(path, &s->lm)) return memset(s, 0, sizeof *s), -1;
  s->m = s->lm.model, s->L = s->lm.loops;
  s->nq = s->m->nq, s->nv = s->m->nv, s->nc = s->L->nc;
  s->wbuf = malloc(mb_workspace_size(s->m));
  s->lbuf = malloc(mb_loop_workspace_size(s->m, s->L));
  if (!s->wbuf || !s->lbuf || mb_workspace_init(&s->ws, s->m, s->wbuf) != MB_OK ||
      mb_loop_workspace_init(&s->lw, s->m, s->L, s->lbuf) != MB_OK) {
    mbt_loopsys_close(s);
    return -1;
  }
  return 0;
}

void mbt_loopsys_close(mbt_loopsys *s) {
  free(s->wbuf), free(s->lbuf);
  if (s->m) mbt_loopmodel_free(&s->lm);
  memset(s, 0, sizeof *s);
}

int mbt_loopsys_state(mbt_loopsys *s, mbt_rng *g, double amp, double *q, double *v, double *tau) {
  double *dv = malloc(sizeof(double) * (size_t)(s->nv > 0 ? s->nv : 1));
  int rc = -1;
  for (int tries = 0; dv && rc && tries < 100; tries++) {
    for (int k = 0; k < s->nv; k++) dv[k] = mbt_uni(g, -amp, amp);
    if (mb_integrate(s->m, s->lm.q0, dv, 1.0, q)) continue;
    if (mb_project_q(s->m, s->L, &s->ws, &s->lw, q)) continue;
    for (int k = 0; k < s->nv; k++) v[k] = mbt_uni(g, -1, 1), tau[k] = mbt_uni(g, -2, 2);
    if (mb_project_v(s->m, s->L, &s->ws, &s->lw, q, v)) continue;
    rc = 0;
  }
  free(dv);
  return rc;
}
