/* rtwork.c — lean runtime workspaces for the model checks (rtwork.h). */
#include "topology/rtwork.h"

#include <stdlib.h>
#include <string.h>

/* The arrays kept, by their names in mb.h's lists. */
static int wanted(const char *name, const char *const *list) {
  for (; *list; list++)
    if (strcmp(name, *list) == 0) return 1;
  return 0;
}

static const char *const WS[] = {"S",  "XE", "Xr", "v",     "a",     "X0E",  "X0r", "IA",
                                 "U",  "D",  "Dref", "Dbase", "Jsub", "msub", NULL};
static const char *const LWS[] = {"pose", "vel", "acc", "bv", "ba", "g",  "phi",
                                  "kb",   "K",   "Phi", "lam", "dq", "q0", NULL};

double *mbg_lean_workspace(const mb_model *m, mb_workspace *ws) {
  size_t n = 0;
  if (mb_flex_count(m, 0) > 0) { /* flexible bodies: their offsets and blocks, the whole one */
    double *whole = malloc(mb_workspace_size(m));
    if (whole) mb_workspace_init(ws, m, whole);
    return whole;
  }
#define LEAN_SIZE(name, count) \
  if (wanted(#name, WS)) n += (size_t)(count);
  MB_WORKSPACE_ARRAYS(LEAN_SIZE)
#undef LEAN_SIZE
  double *buf = calloc(n > 0 ? n : 1, sizeof *buf), *p = buf;
  if (!buf) return NULL;
  memset(ws, 0, sizeof *ws);
  ws->model = m, ws->tag = MB_WS_TAG, ws->nb = m->nb, ws->nq = m->nq, ws->nv = m->nv;
#define LEAN_LAYOUT(name, count) \
  if (wanted(#name, WS)) ws->name = p, p += (size_t)(count);
  MB_WORKSPACE_ARRAYS(LEAN_LAYOUT)
#undef LEAN_LAYOUT
  for (int i = 1; i <= m->nb; i++) mb_joint_S(m, i, ws->S + 6 * m->iv[i]);
  /* the world's rotations are the identity (mb_workspace_init) */
  for (int k = 0; k < 9; k += 4) ws->XE[k] = ws->X0E[k] = 1.0;
  return buf;
}

static size_t loop_size(const mb_model *m, const mb_loops *L, const char *const *list) {
  size_t n = 0;
#define LEAN_SIZE(name, count) \
  if (wanted(#name, list)) n += (size_t)(count);
  MB_LOOP_WORKSPACE_ARRAYS(LEAN_SIZE)
#undef LEAN_SIZE
  return (n > 0 ? n : 1) * sizeof(double);
}

static void loop_layout(mb_loop_workspace *lw, const mb_model *m, const mb_loops *L, void *buffer,
                        const char *const *list) {
  double *p = buffer;
  memset(lw, 0, sizeof *lw);
  lw->model = m, lw->loops = L, lw->tag = MB_LWS_TAG, lw->nv = m->nv, lw->nc = L->nc;
#define LEAN_LAYOUT(name, count) \
  if (wanted(#name, list)) lw->name = p, p += (size_t)(count);
  MB_LOOP_WORKSPACE_ARRAYS(LEAN_LAYOUT)
#undef LEAN_LAYOUT
}

size_t mbg_lean_loop_size(const mb_model *m, const mb_loops *L) { return loop_size(m, L, LWS); }

void mbg_lean_loop_layout(mb_loop_workspace *lw, const mb_model *m, const mb_loops *L,
                          void *buffer) {
  loop_layout(lw, m, L, buffer, LWS);
}

static const char *const PLAN[] = {"rplan", NULL};

size_t mbg_plan_loop_size(const mb_model *m, const mb_loops *L) { return loop_size(m, L, PLAN); }

void mbg_plan_loop_layout(mb_loop_workspace *lw, const mb_model *m, const mb_loops *L,
                          void *buffer) {
  loop_layout(lw, m, L, buffer, PLAN);
}
