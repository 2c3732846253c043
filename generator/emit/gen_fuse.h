/* gen_fuse.h — --fuse NAME=f1,f2,...: one generated function computing the outputs of several
 * recipes from one expression graph, their common subexpressions once (templates/lib/fuse.lua
 * builds its recipe). NAME is generated with the other functions; the harness checks
 * each part's outputs against that part's reference. */
#ifndef MBG_GEN_FUSE_H
#define MBG_GEN_FUSE_H

#include <stdio.h>

#include "emit/gen.h"

/* The --fuse option whose NAME is name, or -1. */
int mbg_gen_fuse_find(const mbg_gen *g, const char *name);
/* How many --fuse options are named name (more than one is an error). */
int mbg_gen_fuse_count(const mbg_gen *g, const char *name);
/* Appends every --fuse NAME to names (room for g->opts->nfuse more) that is not among the *n
 * already there (--functions may list a fused function by name). 0, or -1 (memory). */
int mbg_gen_fuse_names(const mbg_gen *g, char **names, int *n);
/* Checks --fuse option k: NAME a C identifier that is not a recipe's name or another --fuse's,
 * two or more parts, none twice, each a recipe this model can generate (mbg_gen_check_recipe)
 * that is not cfa (generated in C), trig, p_rcr's parts or another --fuse. 0, or the exit
 * status after the error on err. */
int mbg_gen_fuse_check(mbg_gen *g, int k, FILE *err);
/* Pushes the recipe table of --fuse option k onto the Lua stack (fuse.lua with NAME and the
 * parts). 0, or -1 with the error in mbg_lua_error. */
int mbg_gen_fuse_push(mbg_gen *g, int k);

#endif
