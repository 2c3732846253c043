/* gen_prescribed.h — --prescribed LIST (gen_prescribed.c): the joints whose dofs the generated
 * hybrid_fixed prescribes, and the recipes' model.prescribed. */
#ifndef MBG_GEN_PRESCRIBED_H
#define MBG_GEN_PRESCRIBED_H

#include <stdio.h>

#include "emit/gen.h"

/* Parse g->opts->prescribed (comma-separated joint names) against the tree's moving joints into
 * g->prescribed ([nv] flags; NULL without the option). Returns 0, or 2 (a usage error) after
 * saying what is wrong. */
int mbg_gen_select_prescribed(mbg_gen *g, FILE *err);

/* Set model.prescribed (nv numbers, 1-based: 1 prescribed, 0 free; absent without the option) in
 * the table on top of L's stack. */
void mbg_gen_push_prescribed(const mbg_gen *g, lua_State *L);

#endif
