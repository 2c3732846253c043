/* mbd_write.h — a model written in the model language (.mbd), as `mbdc import` does.
 *
 * Names are the model's, numbers the shortest text that reads back as the same double (numfmt.h),
 * so reading the written file gives the same model: the same bodies and joints in the same order
 * with the same numbers, hence the same generated code. */
#ifndef MBG_MBD_WRITE_H
#define MBG_MBD_WRITE_H

#include <stdio.h>

#include "model/model.h"

/* Write m (rigid bodies, tree joints, springs and the initial state) to f; `source` names the file it came
 * from in the header comment (its base name only). Returns 0, or -1 with a message on stderr for
 * what the language writer does not cover (flexible bodies, loops) or a write error. */
int mbg_mbd_write(FILE *f, const mbg_model *m, const char *source);

#endif
