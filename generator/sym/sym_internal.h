/* sym_internal.h — the arena behind mbg_sym, shared by sym.c (construction), sym_sched.c
 * (liveness, schedule, counts, evaluation) and sym_emit.c (C text). Not for other modules. */
#ifndef MBG_SYM_INTERNAL_H
#define MBG_SYM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sym/sym.h"

/* Struct of arrays, indexed by node id. CONST: a, b = the low and high 32 bits of the value
 * (mbg_sym_kval). INPUT: a = array id, b = index. Unary ops: a = operand, b = -1. Binary ops:
 * a, b = operands (add, mul: a <= b). (op, a, b) is the whole key of a node. */
#define MBG_SYM_KCACHE 1024

struct mbg_sym {
  int32_t n, cap;
  uint8_t *op;
  int32_t *a, *b;
  int32_t *name; /* offset + 1 into pool, 0 = unnamed */
  /* Hash of (op, a, b): open addressing with linear probing; a slot holds the upper 32 bits of
   * the key's hash (its tag: most probes never touch the node arrays) and the node id; empty
   * slots are all ones. A key's home slot is the top log2(nslot) bits of its tag, so the table
   * doubles by one pass over the old slots, without rehashing a key or reading a node. */
  uint64_t *slot;
  uint32_t nslot; /* power of two, at least twice n */
  int slot_bits;  /* log2(nslot) */
  /* The constants met last, direct-mapped by their bits: most operands are a few constants (0,
   * 1, the model's numbers), found here without hashing into the table. */
  uint64_t kbits[MBG_SYM_KCACHE];
  int32_t kid[MBG_SYM_KCACHE]; /* node id + 1, 0 = empty */
  /* Array names (inputs and outputs), interned in first-use order. */
  char **arr;
  int32_t narr, caparr;
  /* Outputs in call order. */
  int32_t nout, capout;
  int32_t *out_arr, *out_idx;
  mbg_sx *out_e;
  /* Preferred temporary names, NUL-terminated, back to back. */
  char *pool;
  size_t npool, cappool;
  int failed;
  size_t max_bytes; /* 0: none */
  int over_limit;   /* a node failed for max_bytes */
};

/* The value of a constant node. */
static inline double mbg_sym_kval(const struct mbg_sym *s, int32_t e) {
  uint64_t bits = (uint64_t)(uint32_t)s->b[e] << 32 | (uint32_t)s->a[e];
  double v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

static inline int mbg_sym_is_leaf_op(int op) { return op == MBG_SYM_CONST || op == MBG_SYM_INPUT; }
static inline int mbg_sym_is_binary_op(int op) { return op >= MBG_SYM_ADD && op <= MBG_SYM_DIV; }
/* A function of two arguments, emitted as a call: atan2, fmax. */
static inline int mbg_sym_is_call2(int op) { return op == MBG_SYM_ATAN2 || op == MBG_SYM_FMAX; }

/* need[e] = 1 for the live negations whose value itself is needed: outputs and arguments of
 * sqrt/sin/cos. They count as an add and get a temporary; the other negations fold into their
 * consumers (−a − b; see sym.h) and are written inline. need is zeroed by the caller. */
void mbg_sym_needed_negs(const mbg_sym *s, const unsigned char *live, unsigned char *need);

/* sym_greedy.c: the live operations in a list schedule that keeps few values live (into out,
 * room for every node), after the npre operations already in out (operands first); returns the
 * length, or -1 when out of memory. */
int32_t mbg_sym_greedy_order(const mbg_sym *s, const unsigned char *live, mbg_sx *out,
                             int32_t npre);

#endif
