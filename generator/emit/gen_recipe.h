/* gen_recipe.h — one recipe run over the symbolic engine: a function's expression graph. */
#ifndef MBG_GEN_RECIPE_H
#define MBG_GEN_RECIPE_H

#include <stdio.h>

#include "emit/gen.h"

/* Run the recipe `name` into f (its parameters, pivots, counts and graph); 0 or exit status. */
int mbg_gen_recipe(mbg_gen *g, const char *name, mbg_gen_function *f, FILE *err);
void mbg_gen_function_free(mbg_gen_function *f);

#endif
