/* gen_render.h — the render templates over the generated functions: the output files, written as
 * one set. */
#ifndef MBG_GEN_RENDER_H
#define MBG_GEN_RENDER_H

#include <stdio.h>

#include "emit/gen.h"

/* Render every file and write them to g->opts->outdir; 0 or exit status. */
int mbg_gen_render(mbg_gen *g, FILE *err);

#endif
