/* gen_recipe.h — one recipe run over the symbolic engine: a function's expression graph. */
#ifndef MBG_GEN_RECIPE_H
#define MBG_GEN_RECIPE_H

#include <stdio.h>

#include "emit/gen.h"

/* What mbg_gen_recipe returns when a pivot of the recipe is a constant that fails the pivot rule
 * (the model is singular in every configuration; g->lsym.singular_msg says where). The message
 * was printed, as an internal error, unless the function is cfa (gen_cfa.c reports it). */
enum { MBG_GEN_SINGULAR = 3 };

/* Run the recipe `name` into f (its parameters, pivots, counts and graph); 0, an exit status, or
 * MBG_GEN_SINGULAR. */
int mbg_gen_recipe(mbg_gen *g, const char *name, mbg_gen_function *f, FILE *err);
void mbg_gen_function_free(mbg_gen_function *f);

/* The epilogue minus_minv_product's pattern (source.lua): in each column k of the outputs
 * dqdd_dq (k < nv) and dqdd_dv (column k - nv) of graph s, the runs of consecutive rows l whose
 * entry is not the constant 0, as (nv l_first, nv (l_last + 1)) pairs into runs[start[k] ..
 * start[k + 1]) (start has 2 nv + 1 entries; either may be NULL to count). Returns the number of
 * runs, or -1 (memory). */
int mbg_gen_minv_runs(const mbg_sym *s, int nv, int *runs, int *start);
/* The nv of those outputs (each nv × nv; the generated P_NV), 0 when f has no dqdd_dq. */
int mbg_gen_minv_nv(const mbg_gen_function *f);

#endif
