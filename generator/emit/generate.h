/* generate.h — `mbdc generate` and `mbdc stats`: model → recipes → flat C files.
 *
 * Stages: load and check the model (load/), build its topology, align the joint frames and place
 * the working frames (topology/), run one recipe per function in the embedded Lua (lua/) over the
 * symbolic engine (sym/; gen_recipe.c, gen_cfa.c), then the render templates over one prepared
 * read-only table (gen_render.c); the files are written as one set that replaces the old one
 * whole (base/outset.h). Deterministic: the same model and options give the same bytes. */
#ifndef MBG_GENERATE_H
#define MBG_GENERATE_H

#include <stdio.h>

#include "emit/gen.h"

/* mbdc generate: returns the exit status (0, 1 model or recipe errors, 2 I/O). */
int mbg_generate(const mbg_gen_opts *o, FILE *err);
/* mbdc stats: operation counts of every function, as a table or as JSON. Exit status as above. */
int mbg_stats(const mbg_gen_opts *o, int json, FILE *out, FILE *err);

/* Stages, for the tests. mbg_gen_open loads the model, topology, alignment, runtime model and
 * Lua host (messages on err); mbg_gen_open_model does the same from a validated model it takes
 * over (the digest is that of source[0..len), the text it was built from); mbg_gen_run runs the recipes of
 * o->functions. All return 0 or the exit status. mbg_gen_close frees everything. */
int mbg_gen_open(mbg_gen *g, const mbg_gen_opts *o, FILE *err);
int mbg_gen_open_model(mbg_gen *g, const mbg_gen_opts *o, mbg_model *m, const char *source,
                       size_t len, FILE *err);
int mbg_gen_run(mbg_gen *g, FILE *err);
/* Whether the recipe name can be generated for this model: a C identifier with a recipe (the
 * user's, a registry line or algorithms/NAME.lua: lua/lua_recipes.h), the loops or contacts it
 * needs present, not one of the functions not generated for flexible bodies yet. 0, or the exit
 * status after the error on err; via names the option that asked ("--functions", "--fuse
 * NAME"). */
int mbg_gen_check_recipe(mbg_gen *g, const char *name, const char *via, FILE *err);
/* The built-in functions a user may ask for by name (those of gen_functions.h that
 * --functions accepts, in its order) into names (at most cap - 1 of them, then NULL). Returns
 * how many. */
int mbg_gen_builtin_functions(const char **names, int cap);
void mbg_gen_close(mbg_gen *g);

#endif
