/* lua_sym.h — the symbolic engine as a Lua value type (the `sym` global of docs/templates.md).
 *
 * A symbolic scalar is a light userdata encoding a node id of the current engine; arithmetic
 * metamethods (+ − · / unary −) build nodes, and every result the engine folds to a constant
 * comes back as a plain Lua number, so structural zeros are 0 in the recipes. The engine of one
 * generated function is swapped in with mbg_lsym_begin; values kept from an earlier function are
 * refused. The arrays a function may read and write are declared first: sym.input and
 * sym.output check names, bounds and that every output element is written exactly once. */
#ifndef MBG_LUA_SYM_H
#define MBG_LUA_SYM_H

#include <lua.h>

#include "sym/sym.h"

/* How an array's indices map when the model has coupled (mimic) joints (lua_coupled.c): the
 * recipe indexes the full coordinates, the generated function's array holds the independent ones
 * (x_full = G x + o). Inputs: q-like (MBG_MAP_Q, with the offsets) and velocity-like (MBG_MAP_V)
 * entries of a coupled coordinate are read as m x[of] (+ o). Outputs: forces fold by Gᵀ, motion
 * columns by G: the nv index of the columns (COLS: rows × nv), of the rows (ROWS: nv × k), or of
 * both (BOTH: nv × nv, Gᵀ A G); configurations and velocities are picked (PICK_Q, PICK_V: a
 * coupled coordinate's entry dropped), and an nv × nv matrix's rows and columns of the independent
 * coordinates (PICK_VV: integrate's and difference's Jacobians). */
typedef enum mbg_lsym_map {
  MBG_MAP_NONE,
  MBG_MAP_Q,
  MBG_MAP_V,
  MBG_MAP_COLS,
  MBG_MAP_ROWS,
  MBG_MAP_BOTH,
  MBG_MAP_PICK_Q,
  MBG_MAP_PICK_V,
  MBG_MAP_PICK_VV
} mbg_lsym_map;

/* The coupled coordinates (topology.h): full counts, independent counts, and the map. */
typedef struct mbg_lsym_coupling {
  int nq, nv, nq_ind, nv_ind;
  const int *q_of, *v_of;
  const double *q_mult, *q_off, *v_mult;
  const int *q_coupled, *v_coupled; /* 1 for a coupled joint's coordinate */
} mbg_lsym_coupling;

typedef struct mbg_lsym_array {
  char name[32];
  int size;
  int is_output;
  mbg_lsym_map map;        /* with coupled joints; MBG_MAP_NONE otherwise */
  int full;                /* mapped: the size the recipe indexes (size: the function's) */
  struct mbg_sx_pending *pending; /* mapped outputs: the sums being folded [size] */
  int scalar;              /* an input passed by value (size 1, read as index 0) */
  int params;              /* the run-time inertial parameters (emit/gen_params.h), sym.param */
  unsigned char *written;  /* outputs: [size] flags */
} mbg_lsym_array;

enum { MBG_LSYM_MAX_ARRAYS = 16 };

/* The pivot rule (docs/generator.md): a pivot d is accepted iff r > 0 and d > ε r. */
#define MBG_PIVOT_EPS_DOUBLE 1e-12
#define MBG_PIVOT_EPS_FLOAT 1e-5

typedef struct mbg_lsym {
  mbg_sym *s;             /* the engine of the function being built */
  unsigned generation;    /* bumped by every mbg_lsym_begin */
  int narrays;
  mbg_lsym_array arrays[MBG_LSYM_MAX_ARRAYS];
  int npivots;            /* sym.pivot calls checked at run time: pivot[k], pivot_ref[k] */
  int nswitch;            /* sym.switch_pivot calls: pivot_switch[k], pivot_switch_ref[k] */
  int nrefine;            /* sym.refine_pivot calls: pivot_refine[k], pivot_refine_ref[k] */
  int nhead;              /* sym.refine_head_pivot calls: pivot_head[k], pivot_head_ref[k] */
  int refine_always;      /* sym.refine_always called: the status always has bit 2 */
  int trig_input;         /* sym.trig_input(): the joint angles' sines and cosines are inputs
                             (sc); set by the caller after mbg_lsym_begin */
  const char *frame;      /* sym.frame(): the reference of the working quantities, "body",
                             "joint", "com" or "world" (docs/frames.md); NULL = "body"; set by
                             the caller after mbg_lsym_begin */
  double pivot_eps;       /* ε of the generated scalar type (set by the caller; 0: double's) */
  const mbg_lsym_coupling *cpl; /* the model's coupled coordinates; NULL: none (set by the
                                   caller after mbg_lsym_begin) */
  int singular;           /* a sym.pivot whose d and r are numbers failed the rule (double's ε) */
  char singular_msg[256]; /* then: where and what, for the caller's message */
} mbg_lsym;

/* Install the `sym` global in L, bound to ctx (which must outlive L). */
void mbg_lsym_open(lua_State *L, mbg_lsym *ctx);
/* Start a function: engine s (owned by the caller), no arrays, no pivots, not singular. */
void mbg_lsym_begin(mbg_lsym *ctx, mbg_sym *s);
/* Declare an array of the function. Returns 0, or -1 (too many, bad name, out of memory). */
int mbg_lsym_array_add(mbg_lsym *ctx, const char *name, int size, int is_output);
/* Map the array declared last (lua_coupled.c): map and the size the recipe indexes. Returns 0, or
 * -1 when out of memory. */
int mbg_lsym_array_map(mbg_lsym *ctx, mbg_lsym_map map, int full);
/* A mapped input's element i (full index), and a mapped output's element i folded into its sum
 * (lua_coupled.c); mbg_lsym_flush writes every folded sum as an output. -1: out of memory. */
mbg_sx mbg_lsym_mapped_input(mbg_lsym *ctx, const mbg_lsym_array *a, int i);
int mbg_lsym_mapped_output(mbg_lsym *ctx, mbg_lsym_array *a, int i, mbg_sx e);
int mbg_lsym_flush(mbg_lsym *ctx);
/* After the recipe: the first output element not written, as "array[index]" into buf; returns
 * 1 if one is missing, 0 if all were written. */
int mbg_lsym_missing(const mbg_lsym *ctx, char *buf, size_t bufsize);
/* Free the written flags. */
void mbg_lsym_end(mbg_lsym *ctx);

#endif
