/* gen_limits.h — the joints' limits as the generated header's tables (docs/dsl.md "Joint
 * properties"): P_q_min, P_q_max per position coordinate, P_v_max, P_tau_max per velocity
 * coordinate; ±INFINITY where the model gives none (a continuous joint, a quaternion, a floating
 * base's position, a flexible body's modes). Data for the controller: no generated function reads
 * them. */
#ifndef MBG_GEN_LIMITS_H
#define MBG_GEN_LIMITS_H

#include <lua.h>

#include "emit/gen.h"

/* d.limits (on top of L: d) = {q_min, q_max, v_max, tau_max}, each a list of C literals. */
void mbg_gen_limits_push_render(const mbg_gen *g, lua_State *L);

#endif
