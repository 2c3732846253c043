/* regular.h — the last model check: the mass matrix must be regular in a generic configuration.
 *
 * A model whose mass matrix M(q) is singular for every q (a joint that moves only a point mass on
 * its axis, a thin rod turning about itself, coaxial joints with a massless link between them, a
 * point mass carried by more joints than it has directions to move in, ...) passes every rule of
 * the model language but has no forward dynamics: its recipes would find a pivot that is the
 * constant 0, or its generated functions would return -1 in every state. det M(q) is an analytic
 * function of q, so it is either zero everywhere or zero only on a set of measure zero; this check
 * runs the articulated-body algorithm of the runtime (runtime/mb.h, the same pivot rule as the
 * generated code) at a few configurations drawn from a fixed seed and reports every joint whose
 * pivot fails in most of them. A model singular only at some configurations (an arm stretched
 * straight) passes: the generated functions return -1 there.
 *
 * `mbdc check` (cli/main.c) and `mbdc generate`/`stats` (emit/generate.c) call it after the model
 * is loaded and before anything else, so they accept and refuse the same models with the same
 * text. */
#ifndef MBG_REGULAR_H
#define MBG_REGULAR_H

#include <stddef.h>
#include <stdio.h>

#include "model/model.h"

/* Report every joint of the validated model m along which the mass matrix is singular in every
 * configuration: `path:line:col: error:` at the joint, a note at what it moves, the source line
 * quoted from text (may be NULL). Returns the number of errors (0: regular), or -1 when out of
 * memory. */
int mbg_check_regular(const mbg_model *m, const char *path, const char *text, size_t len,
                      FILE *out);

#endif
