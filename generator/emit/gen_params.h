/* gen_params.h — run-time inertial parameters (`--parameters`, the `parameters` statement;
 * docs/parameters.md): the bodies whose ten standard parameters, and optionally gravity, the
 * generated functions take as their first argument `pi` instead of folding them in as constants.
 *
 * π is made of blocks of ten, in Pinocchio's order (m, m cx, m cy, m cz, Ixx, Ixy, Iyy, Ixz, Iyz,
 * Izz: the first moment and the rotational inertia about the block's frame origin, in its axes),
 * then gravity's three world components when named. A block is
 *   - a moving body with every body fixed to it that is not a block of its own (its frame: the
 *     body's; `all` makes one of every moving body, in P_body_names order, so that π is laid out
 *     as P_pi_all), or
 *   - a body fixed to a moving one (a payload, a tool): its own ten, in its own frame. It is not
 *     frozen into the body it is fixed to: that body's inertia becomes its constant rest plus the
 *     block's ten carried into its frame at run time (exact: the map is linear with constant
 *     coefficients; the tree keeps its shape, so nothing else changes).
 * The recipes see each tree body's inertia as rest + Σ blocks (joints.lua), and every function
 * whose result reads a block gets the argument (gen_recipe.c). */
#ifndef MBG_GEN_PARAMS_H
#define MBG_GEN_PARAMS_H

#include <lua.h>
#include <stdio.h>

#include "emit/gen.h"

typedef struct mbg_param_block {
  int model_body; /* the body that names it */
  int tree_body;  /* the moving body it moves with */
  int whole;      /* 1: that moving body itself (with its fixed bodies not named); 0: one body
                     fixed to it */
  mbg_xform X;    /* the tree body's working frame → the block's frame (child from parent) */
  double A[100];  /* the block's π (10) → its share of the tree body's runtime inertia (10, the
                     model's order [m, h, ixx iyy izz ixy ixz iyz], original frame), row-major */
  double pi[10];  /* the model's values */
} mbg_param_block;

typedef struct mbg_gen_params {
  int npi;          /* 10 nblocks, + 3 with gravity */
  int nblocks;
  mbg_param_block *block;
  int gravity_at;   /* π index of gravity's x, or -1 */
  int *nblk;        /* [nb + 1]: blocks moving with tree body i */
  double *rest;     /* [10 (nb + 1)]: the constant rest of the tree bodies that have blocks, runtime
                       form (original frame, the model's order) */
} mbg_gen_params;

/* g->params from --parameters (which replaces the model's statement) or the `parameters`
 * statement; NULL when neither names anything. Returns 0; after an error printed on err 2 for the
 * option (a usage error) and 1 for the statement (an error of the model, located); -1 when out of
 * memory. */
int mbg_gen_params_build(mbg_gen *g, FILE *err);
void mbg_gen_params_free(mbg_gen_params *p);

/* In model.bodies[i] (the table on top of L): `inertia`, the rest in the working frame, and
 * `params`, a list of {at = π index of the block's first value, X = its transform}; nothing for a
 * body without blocks. */
void mbg_gen_params_push_body(const mbg_gen *g, lua_State *L, int i);

/* d.params for the render templates (on top of L: d): npi, names, the model's values and the
 * harness's map (blocks with tree body, A; the rests); nothing without parameters. */
void mbg_gen_params_push_render(const mbg_gen *g, lua_State *L);

#endif
