/* sym_sched.c — the live graph: liveness, emission order, operation counts, evaluation.
 * Operands have smaller ids than their nodes, so one sweep down the ids marks liveness and one
 * sweep up evaluates: everything here is O(nodes), without recursion. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sym/sym_internal.h"

void mbg_sym_live(const mbg_sym *s, unsigned char *live) {
  if (!s) return;
  memset(live, 0, (size_t)s->n);
  for (int32_t i = 0; i < s->nout; i++) live[s->out_e[i]] = 1;
  for (int32_t e = s->n - 1; e >= 0; e--) {
    if (!live[e] || mbg_sym_is_leaf_op(s->op[e])) continue;
    live[s->a[e]] = 1;
    if (s->b[e] >= 0) live[s->b[e]] = 1;
  }
}

/* Operand k (0, 1) of e when it is a non-leaf node, else -1. */
static mbg_sx inner_arg(const mbg_sym *s, mbg_sx e, int k) {
  mbg_sx x = k == 0 ? s->a[e] : s->b[e];
  return x >= 0 && !mbg_sym_is_leaf_op(s->op[x]) ? x : -1;
}

/* Appends root's unscheduled cone to out, depth-first, operands first; stage[e]: 0 unseen,
 * 1 first operand pushed, 2 second operand pushed, 3 scheduled. A DAG has no cycles, so a
 * pushed operand is unseen. */
static void schedule_cone(const mbg_sym *s, mbg_sx root, unsigned char *stage, mbg_sx *stack,
                          mbg_sx *out, int32_t *len) {
  if (mbg_sym_is_leaf_op(s->op[root]) || stage[root]) return;
  int32_t sp = 0;
  stack[sp++] = root;
  while (sp > 0) {
    mbg_sx e = stack[sp - 1], x;
    if (stage[e] < 2) {
      x = inner_arg(s, e, stage[e]++);
      if (x >= 0 && !stage[x]) stack[sp++] = x;
    } else {
      stage[e] = 3, out[(*len)++] = e, sp--;
    }
  }
}

/* Appends to out every live sine's and cosine's cone, in id order. */
static void trig_cones(const mbg_sym *s, const unsigned char *live, unsigned char *stage,
                       mbg_sx *stack, mbg_sx *out, int32_t *len) {
  for (mbg_sx e = 0; e < s->n; e++)
    if (live[e] && (s->op[e] == MBG_SYM_SIN || s->op[e] == MBG_SYM_COS))
      schedule_cone(s, e, stage, stack, out, len);
}

/* Schedule into out (room for every node): the live sines and cosines' cones first, in id
 * order (a libm call in the middle of the arithmetic would spill every live temporary around
 * it; the built-in batch takes them all at once); then, kind 1, every other
 * live operation in id order — the order the recipe built them in, which follows the
 * algorithm's own sweeps —, kind 0, each output's cone depth-first in output order, kind 2, the
 * greedy list schedule. Returns the length, or -1 (memory). */
static int32_t order_into(const mbg_sym *s, int kind, const unsigned char *live,
                          unsigned char *stage, mbg_sx *stack, mbg_sx *out) {
  int32_t len = 0;
  memset(stage, 0, (size_t)s->n + 1);
  trig_cones(s, live, stage, stack, out, &len);
  if (kind == 2) return mbg_sym_greedy_order(s, live, out, len);
  for (mbg_sx e = 0; kind == 1 && e < s->n; e++) /* operands have smaller ids */
    if (live[e] && !mbg_sym_is_leaf_op(s->op[e]) && stage[e] != 3) stage[e] = 3, out[len++] = e;
  for (int32_t i = 0; i < s->nout; i++) schedule_cone(s, s->out_e[i], stage, stack, out, &len);
  return len;
}

int32_t mbg_sym_order(const mbg_sym *s, int kind, mbg_sx **order) {
  *order = NULL;
  if (!s) return -1;
  size_t n = (size_t)s->n + 1;
  unsigned char *stage = malloc(n), *live = malloc(n);
  mbg_sx *stack = malloc(n * sizeof *stack), *out = malloc(n * sizeof *out);
  if (live) mbg_sym_live(s, live);
  int ok = stage && live && stack && out;
  int32_t len = ok ? order_into(s, kind, live, stage, stack, out) : -1;
  free(stage), free(live), free(stack);
  if (len < 0) free(out), out = NULL;
  *order = out;
  return len;
}

int32_t mbg_sym_schedule(const mbg_sym *s, mbg_sx **order) {
  /* the orders, and the one that keeps fewest values live at once (the registers and stack
   * slots the code asks for; ties to the earlier one) */
  int32_t len = -1;
  long best = -1;
  *order = NULL;
  for (int kind = 0; kind < 3; kind++) {
    mbg_sx *alt = NULL;
    int32_t alen = mbg_sym_order(s, kind, &alt);
    long peak = alen >= 0 ? mbg_sym_order_peak(s, alt, alen) : -1;
    if (peak < 0) {
      free(*order), free(alt);
      *order = NULL;
      return -1;
    }
    if (best < 0 || peak < best) {
      free(*order);
      *order = alt, len = alen, best = peak;
    } else {
      free(alt);
    }
  }
  return len;
}

void mbg_sym_needed_negs(const mbg_sym *s, const unsigned char *live, unsigned char *need) {
  for (int32_t i = 0; i < s->nout; i++)
    if (s->op[s->out_e[i]] == MBG_SYM_NEG) need[s->out_e[i]] = 1;
  for (int32_t e = 0; e < s->n; e++)
    if (live[e] && s->op[e] >= MBG_SYM_SQRT) {
      if (s->op[s->a[e]] == MBG_SYM_NEG) need[s->a[e]] = 1;
      if (mbg_sym_is_call2(s->op[e]) && s->op[s->b[e]] == MBG_SYM_NEG) need[s->b[e]] = 1;
    }
}

int mbg_sym_count(const mbg_sym *s, mbg_sym_counts *c) {
  memset(c, 0, sizeof *c);
  if (!s) return -1;
  unsigned char *live = malloc((size_t)s->n + 1), *need = calloc((size_t)s->n + 1, 1);
  if (!live || !need) {
    free(live), free(need);
    return -1;
  }
  mbg_sym_live(s, live);
  mbg_sym_needed_negs(s, live, need);
  for (int32_t e = 0; e < s->n; e++) {
    if (!live[e]) continue;
    switch ((mbg_sym_op)s->op[e]) {
    case MBG_SYM_ADD:
    case MBG_SYM_SUB: c->add++; break;
    case MBG_SYM_MUL: c->mul++; break;
    case MBG_SYM_DIV: c->div++; break;
    case MBG_SYM_NEG: c->add += need[e]; break;
    case MBG_SYM_SQRT: c->sqrt++; break;
    case MBG_SYM_SIN:
    case MBG_SYM_COS: c->trig++, c->sincos++; break;
    case MBG_SYM_ATAN2: c->trig++; break;
    case MBG_SYM_FMAX: c->add++; break;
    case MBG_SYM_CONST:
    case MBG_SYM_INPUT: break;
    }
  }
  free(live), free(need);
  return 0;
}

long mbg_sym_ops(const mbg_sym_counts *c) { return c->mul + c->add + c->div + c->sqrt + c->trig; }

long mbg_sym_code_bytes(const mbg_sym *s) {
  mbg_sym_counts c;
  if (mbg_sym_count(s, &c) != 0) return -1;
  return MBG_SYM_OP_BYTES * (mbg_sym_ops(&c) + s->nout);
}

long mbg_sym_order_peak(const mbg_sym *s, const mbg_sx *order, int32_t len) {
  size_t n = (size_t)s->n + 1;
  int32_t *pos = malloc(n * sizeof *pos), *last = malloc(n * sizeof *last);
  long *delta = calloc((size_t)len + 2, sizeof *delta), peak = 0;
  unsigned char *live = malloc(n), *need = calloc(n, 1);
  int rc = pos && last && delta && live && need ? 0 : -1;
  if (rc == 0) {
    mbg_sym_live(s, live);
    mbg_sym_needed_negs(s, live, need);
    /* an output is stored right after its statement: it lives to its last use as an operand */
    for (int32_t i = 0; i < len; i++) pos[order[i]] = last[order[i]] = i;
    for (int32_t i = 0; i < len; i++) { /* operands are scheduled before their users */
      mbg_sx e = order[i];
      for (int k = 0; k < 2; k++) {
        mbg_sx x = inner_arg(s, e, k);
        if (x >= 0 && last[x] < i) last[x] = i;
      }
    }
    /* a folded negation: its operand lives as long as it would (users come later: downwards) */
    for (int32_t i = len - 1; i >= 0; i--) {
      mbg_sx e = order[i], x = s->a[e];
      if (s->op[e] == MBG_SYM_NEG && !need[e] && !mbg_sym_is_leaf_op(s->op[x]) &&
          last[x] < last[e])
        last[x] = last[e];
    }
    for (int32_t i = 0; i < len; i++) {
      mbg_sx e = order[i];
      if (s->op[e] == MBG_SYM_NEG && !need[e]) continue;
      delta[pos[e]]++, delta[last[e] + 1]--;
    }
    long now = 0;
    for (int32_t i = 0; i <= len; i++)
      if ((now += delta[i]) > peak) peak = now;
  }
  free(pos), free(last), free(delta), free(live), free(need);
  return rc ? -1 : peak;
}

int mbg_sym_peak_live(const mbg_sym *s, long *peak) {
  *peak = 0;
  if (!s) return -1;
  mbg_sx *order = NULL;
  int32_t len = mbg_sym_schedule(s, &order);
  long p = len >= 0 ? mbg_sym_order_peak(s, order, len) : -1;
  free(order);
  if (p < 0) return -1;
  *peak = p;
  return 0;
}

/* One node in double arithmetic, operands already evaluated. */
static double eval_double(const mbg_sym *s, mbg_sx e, const double *v, mbg_sym_input_fn in,
                          void *ctx) {
  double x = 0.0, y = 0.0;
  if (!mbg_sym_is_leaf_op(s->op[e])) x = v[s->a[e]];
  if (mbg_sym_is_binary_op(s->op[e]) || mbg_sym_is_call2(s->op[e])) y = v[s->b[e]];
  switch ((mbg_sym_op)s->op[e]) {
  case MBG_SYM_CONST: return mbg_sym_kval(s, e);
  case MBG_SYM_INPUT: return in(ctx, s->arr[s->a[e]], s->b[e]);
  case MBG_SYM_ADD: return x + y;
  case MBG_SYM_SUB: return x - y;
  case MBG_SYM_MUL: return x * y;
  case MBG_SYM_DIV: return x / y;
  case MBG_SYM_NEG: return -x;
  case MBG_SYM_SQRT: return sqrt(x);
  case MBG_SYM_SIN: return sin(x);
  case MBG_SYM_COS: return cos(x);
  case MBG_SYM_ATAN2: return atan2(x, y);
  case MBG_SYM_FMAX: return fmax(x, y);
  }
  return NAN;
}

/* The same in float arithmetic, as the emitted float code computes. */
static float eval_float(const mbg_sym *s, mbg_sx e, const float *v, mbg_sym_input_fn in,
                        void *ctx) {
  float x = 0.0f, y = 0.0f;
  if (!mbg_sym_is_leaf_op(s->op[e])) x = v[s->a[e]];
  if (mbg_sym_is_binary_op(s->op[e]) || mbg_sym_is_call2(s->op[e])) y = v[s->b[e]];
  switch ((mbg_sym_op)s->op[e]) {
  case MBG_SYM_CONST: return (float)mbg_sym_kval(s, e);
  case MBG_SYM_INPUT: return (float)in(ctx, s->arr[s->a[e]], s->b[e]);
  case MBG_SYM_ADD: return x + y;
  case MBG_SYM_SUB: return x - y;
  case MBG_SYM_MUL: return x * y;
  case MBG_SYM_DIV: return x / y;
  case MBG_SYM_NEG: return -x;
  case MBG_SYM_SQRT: return sqrtf(x);
  case MBG_SYM_SIN: return sinf(x);
  case MBG_SYM_COS: return cosf(x);
  case MBG_SYM_ATAN2: return atan2f(x, y);
  case MBG_SYM_FMAX: return fmaxf(x, y);
  }
  return NAN;
}

int mbg_sym_eval(const mbg_sym *s, mbg_sym_input_fn input, void *ctx, double *values) {
  unsigned char *live = s ? malloc((size_t)s->n + 1) : NULL;
  if (!live) return -1;
  mbg_sym_live(s, live);
  for (int32_t e = 0; e < s->n; e++)
    values[e] = live[e] ? eval_double(s, e, values, input, ctx) : NAN;
  free(live);
  return 0;
}

int mbg_sym_eval_float(const mbg_sym *s, mbg_sym_input_fn input, void *ctx, float *values) {
  unsigned char *live = s ? malloc((size_t)s->n + 1) : NULL;
  if (!live) return -1;
  mbg_sym_live(s, live);
  for (int32_t e = 0; e < s->n; e++)
    values[e] = live[e] ? eval_float(s, e, values, input, ctx) : NAN;
  free(live);
  return 0;
}

/* Longest path in operations from the leaves (or, with cut, from the nodes named cut...) to the
 * outputs: a NEG adds nothing (it folds into its consumer), every other operation one level. */
int mbg_sym_depth(const mbg_sym *s, const char *cut, long *depth) {
  *depth = 0;
  long *d = s ? malloc(((size_t)s->n + 1) * sizeof *d) : NULL;
  unsigned char *down = s ? malloc((size_t)s->n + 1) : NULL;
  if (!d || !down) {
    free(d), free(down);
    return -1;
  }
  size_t len = cut ? strlen(cut) : 0;
  for (int32_t e = 0; e < s->n; e++) {
    d[e] = 0, down[e] = cut == NULL;
    if (mbg_sym_is_leaf_op(s->op[e])) continue;
    if (cut && s->name[e] && strncmp(s->pool + s->name[e] - 1, cut, len) == 0) {
      down[e] = 1;
      continue;
    }
    mbg_sx a = s->a[e], b = s->b[e];
    down[e] = down[a] || (b >= 0 && down[b]);
    long m = d[a] > (b >= 0 ? d[b] : 0) ? d[a] : (b >= 0 ? d[b] : 0);
    if (down[e]) d[e] = m + (s->op[e] != MBG_SYM_NEG);
  }
  for (int32_t i = 0; i < s->nout; i++)
    if (d[s->out_e[i]] > *depth) *depth = d[s->out_e[i]];
  free(d), free(down);
  return 0;
}
