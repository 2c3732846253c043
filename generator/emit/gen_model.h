/* gen_model.h — the model table the recipes read (docs/templates.md), built from the stages' data. */
#ifndef MBG_GEN_MODEL_H
#define MBG_GEN_MODEL_H

#include "emit/gen.h"

/* Push the recipes' model table, frozen (read-only), and keep it in g->model_ref; 0 or -1. */
int mbg_gen_push_model(mbg_gen *g);

#endif
