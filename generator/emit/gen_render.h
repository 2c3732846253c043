/* gen_render.h — the render templates over the generated functions: the output files, written as
 * one set. */
#ifndef MBG_GEN_RENDER_H
#define MBG_GEN_RENDER_H

#include <stdio.h>

#include "emit/gen.h"

/* Render every file and write them to g->opts->outdir; 0 or exit status. */
int mbg_gen_render(mbg_gen *g, FILE *err);
/* The same five files rendered into `out` one after another, the file system untouched (the set
 * identifier is zero): for the whole-pipeline fuzz target and tests. 0 or exit status. */
int mbg_gen_render_to(mbg_gen *g, FILE *out, FILE *err);

#endif
