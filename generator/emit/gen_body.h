/* gen_body.h — a generated function's body: its statements, streamed from its graph, and the
 * parts a long one is cut into. */
#ifndef MBG_GEN_BODY_H
#define MBG_GEN_BODY_H

#include <stdint.h>
#include <stdio.h>

#include "emit/gen.h"

/* f's statements into out, without the final newline; parts: 1, the static functions its body is
 * cut into (nothing when it is not), 0, the body itself (when cut: the scratch array and the
 * calls), 2, the body over P_LANES states of --batch (never cut: mbg_sym_emit_opts.lanes, its
 * caller's arrays with stride n, the pivots' with stride P_LANES). reserved: the names a
 * temporary must not take (NULL-terminated). Returns 0, or -1 (memory, or a write error). */
int mbg_gen_put_body(const mbg_gen *g, const mbg_gen_function *f, FILE *out,
                     const char *const *reserved, int parts);
/* How many parts f's body is cut into when written (1: one function; -1: out of memory): with
 * --parts N (default 4000; the derivative functions 2000, past 12 000 still: gen_body.c), a
 * body of more than 3 N statements, in parts of about N
 * (mbg_sym_emit_opts); *slots (when slots is not NULL): the length of the scratch array that
 * carries values between them (0 when not cut). */
int32_t mbg_gen_parts(const mbg_gen *g, const mbg_gen_function *f, int32_t *slots);

#endif
