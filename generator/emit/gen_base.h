/* gen_base.h — the base inertial parameters in a generation (docs/identification.md): computed
 * (topology/base_params.h) only when something asks for them — the functions base_regressor and
 * base_params, a recipe calling model.base_params() or having a parameter of role out_nvbase or
 * out_base — and then kept in g->base for the recipes (model.base_params()), the sizes of those
 * roles, the render templates (d.base: P_NBASE and the header's list of the combinations) and
 * `mbdc stats`. The set is the open tree's: for a model with loop joints, the base parameters of
 * the spanning tree's joint torques, as P_regressor is the tree's (the loops' constraint forces
 * are not in it). Not computed for flexible bodies, nor past MBG_BASE_MAX_PARAMS standard
 * parameters (an error saying so). */
#ifndef MBG_GEN_BASE_H
#define MBG_GEN_BASE_H

#include <stdio.h>

#include <lua.h>

#include "emit/gen.h"
#include "topology/base_params.h"

/* The base parameters of g's model, computed on the first call; NULL (with the reason in
 * mbg_gen_base_why) when they cannot be: flexible bodies, too many parameters, memory. */
const mbg_base_params *mbg_gen_base_get(mbg_gen *g);
/* Why mbg_gen_base_get returned NULL ("" otherwise). */
const char *mbg_gen_base_why(const mbg_gen *g);
/* 1 if the built-in function `name` needs the base parameters (base_regressor, base_params). */
int mbg_gen_base_needed(const char *name);
/* Before function `name` is generated (via: "--functions"): the base parameters computed if it
 * needs them, and joint_regressor refused for a model without a joint of one velocity
 * coordinate (its output would have no column); 0, or 1 after an error on err. */
int mbg_gen_base_check(mbg_gen *g, const char *name, const char *via, FILE *err);
/* The size of a role that gen_base.c counts (gen_roles.h: MBG_RS_NVBASE, MBG_RS_BASE,
 * MBG_RS_NVJ1); -1 for any other, or when the base parameters cannot be computed; -2 when the
 * size passes an int. */
int mbg_gen_base_role_size(const mbg_gen *g, int size);
/* The joints of one velocity coordinate (revolute, continuous, prismatic, helical): the
 * joint_regressor's four columns each (mb_joint_count1). */
int mbg_gen_base_nj1(const mbg_gen *g);
/* model.base_params, a function (docs/templates.md), into the table on the stack top. Raises Lua
 * errors (memory; the call raises when the set cannot be computed). */
void mbg_gen_base_push_model(mbg_gen *g, lua_State *L);
/* d.nj1 and, once computed, d.base (docs/templates.md) into the table on the stack top. */
void mbg_gen_base_push_render(mbg_gen *g, lua_State *L);
/* `mbdc stats`: the count of base parameters when computed (text: a line; JSON: the members
 * "nreg" and "nbase" after a comma). */
void mbg_gen_base_print(const mbg_gen *g, int json, FILE *out);
void mbg_gen_base_free(mbg_gen *g);

#endif
