/* sym_emit_internal.h — what the emitter's files share: sym_emit.c (the statements),
 * sym_names.c (the names of temporaries) and sym_parts.c (a long body cut into parts). Not for
 * other modules. */
#ifndef MBG_SYM_EMIT_INTERNAL_H
#define MBG_SYM_EMIT_INTERNAL_H

#include <stdio.h>

#include "sym/sym_internal.h"

/* A set of names, each with the next suffix to try (sym_names.c). */
typedef struct name_set {
  char **str; /* owned */
  int32_t *next;
  int32_t n;
  uint32_t nslot; /* power of two, > 2 * capacity */
  int32_t *slot;  /* index into str, -1 = empty */
} name_set;

/* An empty set for cap names; 0, or -1 (memory). */
int sym_set_init(name_set *t, size_t cap);
void sym_set_free(name_set *t);
/* The slot of name: t->slot[i] < 0 when it is not in t. */
uint32_t sym_set_slot(const name_set *t, const char *name);
/* name added at slot i (sym_set_slot's); its index, or -1 (memory). */
int32_t sym_set_add(name_set *t, uint32_t i, const char *name);
/* Index in t of a unique identifier made from raw, or -1 (memory). */
int32_t sym_unique_name(name_set *t, const char *raw);

typedef struct emitter {
  const mbg_sym *s;
  FILE *f;
  int fl;              /* float code */
  int32_t *ref;        /* per node: >= 0 → "t<ref>", < 0 → names.str[-ref - 1]; constants: the
                          offset of their literal in lit */
  unsigned char *need; /* negations with a temporary (the others are written inline) */
  int joined;          /* no_final_newline: a newline before every line but the first */
  int started;         /* a line was written */
  name_set names;
  char *lit; /* the literals of the live constants, NUL-terminated, back to back */
  const char *sincos; /* the batch function (mbg_sym_emit_opts.sincos), or NULL: libm */
  int32_t *slot;      /* with sincos: per live sine and cosine, its argument's index in the
                         batch (a sine and a cosine of the same argument share it) */
  int32_t nslot;      /* with sincos: the distinct arguments */
  const char *zero;   /* the name of the local holding 0 (mbg_sym_emit_opts.zero), or NULL */
  int zero_used;      /* the body declares it (put_zero): the outputs of 0 store it */
  int zeros_first;    /* ... all of them right after it (opts.zeros_first_above) */
  /* parts (mbg_sym_emit_opts.split_above): nparts > 1 when the body is cut */
  const mbg_sym_emit_opts *o;
  int32_t nparts, part, part_size; /* the parts, the one being written, statements per part */
  int recording;            /* the dry run: nothing written, the parts' uses recorded */
  int32_t *def_part;        /* per node: the part of its statement (a batch's sines: its part) */
  int32_t *use_last;        /* per node: the last part that reads it */
  int32_t *xslot;           /* per node: its slot in the scratch array, or -1 */
  int32_t *loaded;          /* per node: the last part that has it as a local */
  int32_t nxslot;           /* the scratch array's length */
  unsigned char *arr_used;  /* per array of the graph: the part being written refers to it */
  int lv_used;              /* ... to the scratch array */
  int32_t zero_part;        /* the part that declared the zero's local, or -1 */
  int32_t trig_part;        /* the part of the batch of sines and cosines */
  /* lanes (mbg_sym_emit_opts.lanes): every statement over L states */
  const char *lanes;        /* L, or NULL: scalar code */
  const char *stride;       /* the caller's arrays' stride */
  unsigned char *local;     /* per array of the graph: indexed with stride L (lane_local) */
  char lane_outer[72], lane_indent[72]; /* the body's indent, the loops' statements' */
  int lane_alone;           /* the loop being opened holds a call (sym_lane_alone): no lane_loop */
} emitter;

/* One statement is built here and written with one fwrite: an operand is at most a name (50
 * characters and a suffix), a literal (32) or an input (array name and index). */
typedef struct line {
  char buf[512];
  size_t n;
} line;

/* sym_emit.c: a line's pieces, an operand (a leaf inline, a sine of the batch, a temporary's
 * name), the end of a statement; a negation written inline in its consumers. */
void sym_put_str(line *l, const char *p);
void sym_put_int(line *l, long v);
void sym_put_operand(emitter *m, line *l, mbg_sx x);
void sym_put_lane(emitter *m, line *l, int local);
int sym_in_batch(const emitter *m, mbg_sx x);

/* sym_lanes.c (mbg_sym_emit_opts.lanes): the body's local arrays and the loops' indent
 * (returned), a loop's first and last lines, a statement that takes a loop of its own, the
 * sines' and cosines' batch between two loops (closes the loop and opens the next), the stores
 * into the caller's arrays after the last loop. */
const char *sym_lanes_begin(emitter *m, const char *indent);
void sym_lane_open(emitter *m);
void sym_lane_close(emitter *m);
int sym_lane_alone(const emitter *m, mbg_sx e);
void sym_trig_lanes(emitter *m, const char *outer, const char *indent, const mbg_sx *arg);
void sym_lane_outputs(emitter *m, const char *outer);
void sym_put_end(emitter *m, line *l);
int sym_inline_neg(const emitter *m, mbg_sx e);

/* sym_parts.c: the plan (m->nparts, m->part_size; EINVAL when cut without the parts' options or
 * with an array that is not a parameter), the loads and stores around a line, a part's first and
 * last lines, the scratch array's slots, the caller's calls. */
int sym_plan_parts(emitter *m, const mbg_sym_emit_opts *o, const mbg_sx *order, int32_t len);
void sym_need(emitter *m, const char *indent, mbg_sx x);
void sym_keep(emitter *m, const char *indent, mbg_sx e);
void sym_part_open(emitter *m);
void sym_part_close(emitter *m, const char *indent);
int sym_alloc_slots(emitter *m, const mbg_sx *order, int32_t len);
void sym_put_calls(emitter *m, const char *indent);

#endif
