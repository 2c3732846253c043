/* gen_trig.h — --trig-input (gen_trig.c): p_trig(q, sc), the joint angles' sines and cosines
 * once, and the _sc twin of every function that would compute them. */
#ifndef MBG_GEN_TRIG_H
#define MBG_GEN_TRIG_H

#include <stdio.h>

#include "emit/gen.h"

/* With --trig-input and joint angles in the model: "trig" appended to names (reallocated, room
 * for one more; *n updated) unless listed. Returns names, or NULL when out of memory (names
 * freed). */
char **mbg_gen_trig_list(mbg_gen *g, char **names, int *n, FILE *err);

/* With --trig-input: the twin name_sc of every generated function that reads sines or cosines
 * of the joint angles, appended to g->functions (twin_of set). Returns 0, or the generation's
 * error code after saying what is wrong. */
int mbg_gen_trig_twins(mbg_gen *g, FILE *err);

#endif
