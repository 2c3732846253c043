/* lua_coupled.c — the index maps of coupled (mimic) coordinates (lua_sym.h mbg_lsym_map). The
 * recipes index every array in the full coordinates, where a coupled joint has a coordinate of
 * its own; the generated function's arrays hold the independent ones. With x = G x_ind + o (G one
 * nonzero m per row): an input entry of a coupled coordinate reads m x_ind[of] (+ o for
 * positions), an output of forces is Gᵀ f, a Jacobian J G, an inertia-like matrix Gᵀ A G — each
 * entry a sum built as the recipe writes the full entries and written once at the end. */
#include <stdlib.h>
#include <string.h>

#include "lua/lua_sym.h"

struct mbg_sx_pending {
  mbg_sx sum;
  int has;
};

int mbg_lsym_array_map(mbg_lsym *ctx, mbg_lsym_map map, int full) {
  mbg_lsym_array *a = &ctx->arrays[ctx->narrays - 1];
  a->map = map, a->full = full;
  if (!a->is_output) return 0;
  free(a->written);
  a->written = calloc((size_t)(full > 0 ? full : 1), 1);
  a->pending = calloc((size_t)(a->size > 0 ? a->size : 1), sizeof *a->pending);
  return a->written && a->pending ? 0 : -1;
}

mbg_sx mbg_lsym_mapped_input(mbg_lsym *ctx, const mbg_lsym_array *a, int i) {
  const mbg_lsym_coupling *c = ctx->cpl;
  int q = a->map == MBG_MAP_Q;
  int of = q ? c->q_of[i] : c->v_of[i];
  double m = q ? c->q_mult[i] : c->v_mult[i], o = q ? c->q_off[i] : 0;
  mbg_sx x = mbg_sym_input(ctx->s, a->name, of);
  if (m != 1) x = mbg_sym_mul(ctx->s, mbg_sym_const(ctx->s, m), x);
  if (o != 0) x = mbg_sym_add(ctx->s, x, mbg_sym_const(ctx->s, o));
  return x;
}

/* Where full entry i of a mapped output lands and with which factor; -1: dropped. */
static int fold_index(const mbg_lsym_coupling *c, const mbg_lsym_array *a, int i, double *m) {
  int nv = c->nv, ni = c->nv_ind, r, k;
  *m = 1;
  switch (a->map) {
  case MBG_MAP_COLS: /* rows × nv, row-major */
    r = i / nv, k = i % nv;
    *m = c->v_mult[k];
    return r * ni + c->v_of[k];
  case MBG_MAP_ROWS: /* nv × k */
    k = a->full / nv, r = i / k;
    *m = c->v_mult[r];
    return c->v_of[r] * k + i % k;
  case MBG_MAP_BOTH:
    r = i / nv, k = i % nv;
    *m = c->v_mult[r] * c->v_mult[k];
    return c->v_of[r] * ni + c->v_of[k];
  case MBG_MAP_PICK_Q: return c->q_coupled[i] ? -1 : c->q_of[i];
  case MBG_MAP_PICK_V: return c->v_coupled[i] ? -1 : c->v_of[i];
  case MBG_MAP_PICK_VV: /* nv × nv: the independent rows and columns */
    r = i / nv, k = i % nv;
    return c->v_coupled[r] || c->v_coupled[k] ? -1 : c->v_of[r] * ni + c->v_of[k];
  default: return -1;
  }
}

int mbg_lsym_mapped_output(mbg_lsym *ctx, mbg_lsym_array *a, int i, mbg_sx e) {
  double m;
  int at = fold_index(ctx->cpl, a, i, &m);
  if (at < 0) return 0;
  struct mbg_sx_pending *p = &a->pending[at];
  if (m != 1) e = mbg_sym_mul(ctx->s, mbg_sym_const(ctx->s, m), e);
  p->sum = p->has ? mbg_sym_add(ctx->s, p->sum, e) : e;
  p->has = 1;
  return p->sum < 0 ? -1 : 0;
}

int mbg_lsym_flush(mbg_lsym *ctx) {
  for (int k = 0; k < ctx->narrays; k++) {
    mbg_lsym_array *a = &ctx->arrays[k];
    if (!a->is_output || !a->map) continue;
    for (int i = 0; i < a->size; i++) {
      /* every independent entry is its own full entry's sum at least */
      mbg_sx e = a->pending[i].has ? a->pending[i].sum : mbg_sym_const(ctx->s, 0);
      if (e < 0 || mbg_sym_output(ctx->s, a->name, i, e) != 0) return -1;
    }
  }
  return 0;
}
