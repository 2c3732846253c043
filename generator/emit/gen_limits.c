/* gen_limits.c — the joints' limits for the render templates (gen_limits.h). */
#include "emit/gen_limits.h"

#include "base/numfmt.h"
#include "lua/lua_host.h"

/* A list of n C literals: x[k] formatted exactly, or "INFINITY" / "-INFINITY" where none[k]; the
 * coordinates of coupled joints (skip[k], when skip is not NULL) left out: they are not the
 * generated functions' (gen_coupled.h), and their limits are not carried onto the source's. */
static void push_list(lua_State *L, const char *key, const double *x, const unsigned char *none,
                      int n, int negative, const int *skip) {
  char buf[40];
  int at = 0;
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) {
    if (skip && skip[k]) continue;
    if (none[k]) {
      lua_pushstring(L, negative ? "-INFINITY" : "INFINITY");
    } else {
      mbg_fmt_double(x[k], buf);
      lua_pushstring(L, buf);
    }
    lua_rawseti(L, -2, ++at);
  }
  lua_setfield(L, -2, key);
}

void mbg_gen_limits_push_render(const mbg_gen *g, lua_State *L) {
  const mbg_topology *t = g->topo;
  int nq = t->nq, nv = t->nv;
  /* one buffer: values lo, hi (nq each), vmax, tmax (nv each), and their "none" flags */
  size_t n = 2 * (size_t)nq + 2 * (size_t)nv;
  double *x = lua_newuserdatauv(L, n * (sizeof *x + 1) + 1, 0);
  unsigned char *none = (unsigned char *)(x + n);
  double *lo = x, *hi = x + nq, *vmax = x + 2 * nq, *tmax = vmax + nv;
  unsigned char *nlo = none, *nhi = none + nq, *nv_ = none + 2 * nq, *nt = nv_ + nv;
  for (size_t k = 0; k < n; k++) x[k] = 0.0, none[k] = 1;
  for (int i = 1; i <= t->nb; i++) {
    const mbg_tree_body *b = &t->body[i];
    const mbg_joint *j = &g->model->joints[b->model_joint];
    if (j->has_range && b->nq == 1)
      lo[b->iq] = j->lower, hi[b->iq] = j->upper, nlo[b->iq] = nhi[b->iq] = 0;
    for (int c = 0; c < b->nv; c++) {
      if (j->velocity_limit > 0) vmax[b->iv + c] = j->velocity_limit, nv_[b->iv + c] = 0;
      if (j->effort_limit > 0) tmax[b->iv + c] = j->effort_limit, nt[b->iv + c] = 0;
    }
  }
  lua_createtable(L, 0, 4);
  push_list(L, "q_min", lo, nlo, nq, 1, t->q_coupled);
  push_list(L, "q_max", hi, nhi, nq, 0, t->q_coupled);
  push_list(L, "v_max", vmax, nv_, nv, 0, t->v_coupled);
  push_list(L, "tau_max", tmax, nt, nv, 0, t->v_coupled);
  lua_setfield(L, -3, "limits");
  lua_pop(L, 1); /* the buffer */
}
