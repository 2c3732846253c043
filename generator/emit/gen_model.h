/* gen_model.h — the model table the recipes read (docs/templates.md), built from the stages' data. */
#ifndef MBG_GEN_MODEL_H
#define MBG_GEN_MODEL_H

#include "emit/gen.h"

/* Push the recipes' model table, frozen (read-only), and keep it in g->model_ref; 0 or -1. */
int mbg_gen_push_model(mbg_gen *g);
/* The slot of moving body i's joint angle in sc (--trig-input: sc[2 slot] and sc[2 slot + 1] its
 * sine and cosine), in body order over the revolute, continuous and helical joints; -1 for any
 * other joint (g->trig_slot, from mbg_gen_trig_slots). */
int mbg_gen_trig_slot(const mbg_gen *g, int i);
/* Numbers the joint angles once: g->trig_slot[i] per body, g->ntrig of them. 0, or -1 (memory). */
int mbg_gen_trig_slots(mbg_gen *g);

#endif
