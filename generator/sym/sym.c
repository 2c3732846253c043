/* sym.c — the expression arena: hash-consed nodes, folding at construction, outputs and names.
 * Liveness, scheduling, counts and evaluation are in sym_sched.c; C text in sym_emit.c. */
#define _DEFAULT_SOURCE /* madvise(MADV_HUGEPAGE) */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "sym/sym_internal.h"

#define MAX_NODES (INT32_MAX / 4)

mbg_sym *mbg_sym_new(void) {
  mbg_sym *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->slot_bits = 10;
  s->nslot = 1u << s->slot_bits;
  s->slot = malloc(s->nslot * sizeof *s->slot);
  if (!s->slot) {
    free(s);
    return NULL;
  }
  memset(s->slot, 0xff, s->nslot * sizeof *s->slot); /* empty everywhere */
  return s;
}

void mbg_sym_free(mbg_sym *s) {
  if (!s) return;
  free(s->op), free(s->a), free(s->b), free(s->name), free(s->slot);
  for (int32_t i = 0; i < s->narr; i++) free(s->arr[i]);
  free(s->arr), free(s->out_arr), free(s->out_idx), free(s->out_e), free(s->pool);
  free(s);
}

int mbg_sym_failed(const mbg_sym *s) { return !s || s->failed; }

void mbg_sym_set_max_bytes(mbg_sym *s, size_t bytes) {
  if (s) s->max_bytes = bytes;
}

size_t mbg_sym_max_bytes(const mbg_sym *s) { return s ? s->max_bytes : 0; }

int mbg_sym_over_limit(const mbg_sym *s) { return s && s->over_limit; }

/* 1 (and the flag set) if node arrays of cap entries (op, a, b, name: 13 bytes each) and a hash
 * table of nslot slots (8 bytes) would pass the limit. */
static int past_limit(mbg_sym *s, size_t cap, size_t nslot) {
  if (!s->max_bytes || cap * 13 + nslot * 8 <= s->max_bytes) return 0;
  s->over_limit = 1;
  return 1;
}
int32_t mbg_sym_size(const mbg_sym *s) { return s ? s->n : 0; }
int mbg_sym_output_count(const mbg_sym *s) { return s ? s->nout : 0; }

static mbg_sx fail(mbg_sym *s) {
  s->failed = 1;
  return -1;
}

/* realloc *p to n elements of size z; 0, or -1 leaving *p valid. */
static int grow(void *p, size_t n, size_t z) {
  void *q = realloc(*(void **)p, n * z);
  if (!q) return -1;
  *(void **)p = q;
  return 0;
}

/* ---- hashing ---------------------------------------------------------------------------- */

static uint64_t mix(uint64_t h) { /* splitmix64 finalizer */
  h ^= h >> 30, h *= 0xbf58476d1ce4e5b9u;
  h ^= h >> 27, h *= 0x94d049bb133111ebu;
  return h ^ (h >> 31);
}

static uint64_t key_hash(int op, int32_t a, int32_t b) {
  return mix(mix(((uint64_t)(uint32_t)a << 32 | (uint32_t)b)) ^ (uint64_t)op);
}

#define EMPTY UINT64_MAX
#define SLOT_ID(x) ((int32_t)(uint32_t)(x))
#define SLOT_TAG(h) ((h) & 0xffffffff00000000u)

/* A large array's pages as transparent huge pages where Linux offers them: the hash table and
 * the node arrays are read at random, and with 4 KiB pages nearly every probe of a large graph
 * also missed the TLB. Only a hint: nothing changes where it is not honoured. */
static void huge_pages(void *p, size_t n) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const uintptr_t huge = (uintptr_t)2 << 20;
  uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + n) & ~(huge - 1);
  if (hi > lo) madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
  (void)p, (void)n;
#endif
}

/* The home slot of a tag in a table of 2^bits slots (bits <= 32). */
static uint32_t home(uint64_t tag, int bits) { return (uint32_t)(tag >> (64 - bits)); }

/* Doubles the table. Keys keep their order (homes are the tag's top bits), so walking the old
 * table from the start of a probe run writes the new one almost sequentially. */
static int rehash(mbg_sym *s) {
  if (s->slot_bits >= 32) return -1;
  int bits = s->slot_bits + 1;
  uint32_t n = 1u << bits, mask = n - 1, old = s->nslot;
  if (past_limit(s, (size_t)s->cap, n)) return -1;
  uint64_t *slot = malloc((size_t)n * sizeof *slot);
  if (!slot) return -1;
  huge_pages(slot, (size_t)n * sizeof *slot);
  memset(slot, 0xff, (size_t)n * sizeof *slot);
  uint32_t start = 0; /* an empty old slot: no probe run wraps past it */
  while (s->slot[start] != EMPTY) start++;
  for (uint32_t k = 1; k <= old; k++) {
    uint64_t x = s->slot[(start + k) & (old - 1)];
    if (x == EMPTY) continue;
    uint32_t i = home(x, bits);
    while (slot[i] != EMPTY) i = (i + 1) & mask;
    slot[i] = x;
  }
  free(s->slot);
  s->slot = slot, s->nslot = n, s->slot_bits = bits;
  return 0;
}

static int reserve_node(mbg_sym *s) {
  if (s->n < s->cap) return 0;
  if (s->cap >= MAX_NODES) return -1;
  size_t c = s->cap ? (size_t)s->cap * 2 : 256;
  if (past_limit(s, c, s->nslot)) return -1;
  if (grow(&s->op, c, 1) || grow(&s->a, c, 4) || grow(&s->b, c, 4) || grow(&s->name, c, 4))
    return -1; /* the arrays already grown stay valid, only larger */
  s->cap = (int32_t)c;
  huge_pages(s->op, c), huge_pages(s->a, 4 * c), huge_pages(s->b, 4 * c);
  return 0;
}

/* The node (op, a, b): found, or appended. */
static mbg_sx node(mbg_sym *s, int op, int32_t a, int32_t b) {
  if ((uint32_t)s->n * 2 >= s->nslot && rehash(s)) return fail(s);
  uint64_t tag = SLOT_TAG(key_hash(op, a, b));
  uint32_t i = home(tag, s->slot_bits);
  for (; s->slot[i] != EMPTY; i = (i + 1) & (s->nslot - 1)) {
    mbg_sx e = SLOT_ID(s->slot[i]);
    if (SLOT_TAG(s->slot[i]) == tag && s->a[e] == a && s->b[e] == b && s->op[e] == op) return e;
  }
  if (reserve_node(s)) return fail(s);
  mbg_sx e = s->n++;
  s->op[e] = (uint8_t)op, s->a[e] = a, s->b[e] = b, s->name[e] = 0;
  s->slot[i] = tag | (uint32_t)e;
  return e;
}

/* The node (op, a, b) when it exists, else -1 (nothing appended). */
static mbg_sx find(const mbg_sym *s, int op, int32_t a, int32_t b) {
  uint64_t tag = SLOT_TAG(key_hash(op, a, b));
  for (uint32_t i = home(tag, s->slot_bits); s->slot[i] != EMPTY; i = (i + 1) & (s->nslot - 1)) {
    mbg_sx e = SLOT_ID(s->slot[i]);
    if (SLOT_TAG(s->slot[i]) == tag && s->a[e] == a && s->b[e] == b && s->op[e] == op) return e;
  }
  return -1;
}

/* ---- leaves ----------------------------------------------------------------------------- */

mbg_sx mbg_sym_const(mbg_sym *s, double v) {
  if (!s) return -1;
  uint64_t bits;
  v = v == 0.0 ? 0.0 : v; /* −0.0 → 0.0 */
  memcpy(&bits, &v, sizeof bits);
  uint32_t c = (uint32_t)((bits * 0x9e3779b97f4a7c15u) >> 54) & (MBG_SYM_KCACHE - 1);
  if (s->kid[c] && s->kbits[c] == bits) return s->kid[c] - 1;
  mbg_sx e = node(s, MBG_SYM_CONST, (int32_t)(uint32_t)bits, (int32_t)(uint32_t)(bits >> 32));
  if (e >= 0) s->kbits[c] = bits, s->kid[c] = e + 1;
  return e;
}

static int is_ident(const char *p) {
  if (!p || !(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) return 0;
  for (; *p; p++)
    if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
          (*p >= '0' && *p <= '9')))
      return 0;
  return 1;
}

/* Id of an array name (interned on first use), or -1. */
static int32_t array_id(mbg_sym *s, const char *name) {
  if (!is_ident(name)) return -1;
  for (int32_t i = 0; i < s->narr; i++)
    if (strcmp(s->arr[i], name) == 0) return i;
  if (s->narr == s->caparr) {
    size_t c = s->caparr ? (size_t)s->caparr * 2 : 8;
    if (grow(&s->arr, c, sizeof *s->arr)) return -1;
    s->caparr = (int32_t)c;
  }
  char *copy = malloc(strlen(name) + 1);
  if (!copy) return -1;
  strcpy(copy, name);
  s->arr[s->narr] = copy;
  return s->narr++;
}

mbg_sx mbg_sym_input(mbg_sym *s, const char *array, int index) {
  if (!s) return -1;
  int32_t id = array_id(s, array);
  if (id < 0 || index < MBG_SYM_SCALAR) return fail(s);
  return node(s, MBG_SYM_INPUT, id, index);
}

/* ---- folding helpers -------------------------------------------------------------------- */

static int valid(const mbg_sym *s, mbg_sx e) { return e >= 0 && e < s->n; }

int mbg_sym_is_const(const mbg_sym *s, mbg_sx e, double *value) {
  if (!s || !valid(s, e) || s->op[e] != MBG_SYM_CONST) return 0;
  if (value) *value = mbg_sym_kval(s, e);
  return 1;
}

static int is_neg(const mbg_sym *s, mbg_sx e) { return s->op[e] == MBG_SYM_NEG; }

/* A constant for a folded value when it is finite, else -2 (keep the operation). */
static mbg_sx folded(mbg_sym *s, double v) { return isfinite(v) ? mbg_sym_const(s, v) : -2; }

/* Checks operands: 0 when usable, else the id to return (-1, failure recorded). */
static int bad_args(mbg_sym *s, mbg_sx a, mbg_sx b, int binary) {
  if (!s) return 1;
  if (!valid(s, a) || (binary && !valid(s, b))) {
    s->failed = 1;
    return 1;
  }
  return 0;
}

/* ---- operations ------------------------------------------------------------------------- */

static mbg_sx mul_k(mbg_sym *s, mbg_sx x, double c);
static double exact_reciprocal(double c);

/* e = x·k with k a constant (mul_k's nodes are MUL(x, k) or MUL(k, x)): 1 with *x and *k. */
static int scaled(const mbg_sym *s, mbg_sx e, mbg_sx *x, double *k) {
  if (s->op[e] != MBG_SYM_MUL) return 0;
  if (mbg_sym_is_const(s, s->b[e], k)) return *x = s->a[e], 1;
  if (mbg_sym_is_const(s, s->a[e], k)) return *x = s->b[e], 1;
  return 0;
}


mbg_sx mbg_sym_add(mbg_sym *s, mbg_sx a, mbg_sx b) {
  if (bad_args(s, a, b, 1)) return -1;
  double ka = 0.0, kb = 0.0;
  mbg_sx f;
  int ca = mbg_sym_is_const(s, a, &ka), cb = mbg_sym_is_const(s, b, &kb);
  if (ca && cb && (f = folded(s, ka + kb)) != -2) return f;
  if (ca && ka == 0.0) return b;
  if (cb && kb == 0.0) return a;
  if (is_neg(s, a)) return mbg_sym_sub(s, b, s->a[a]); /* (−x) + b = b − x */
  if (is_neg(s, b)) return mbg_sym_sub(s, a, s->a[b]); /* a + (−y) = a − y */
  if (cb && kb < 0) return mbg_sym_sub(s, a, mbg_sym_const(s, -kb));
  if (ca && ka < 0) return mbg_sym_sub(s, b, mbg_sym_const(s, -ka));
  if (a == b) return mul_k(s, a, 2.0); /* x + x = 2x, exactly */
  return a <= b ? node(s, MBG_SYM_ADD, a, b) : node(s, MBG_SYM_ADD, b, a);
}

mbg_sx mbg_sym_sub(mbg_sym *s, mbg_sx a, mbg_sx b) {
  if (bad_args(s, a, b, 1)) return -1;
  double ka = 0.0, kb = 0.0;
  mbg_sx f;
  int ca = mbg_sym_is_const(s, a, &ka), cb = mbg_sym_is_const(s, b, &kb);
  if (ca && cb && (f = folded(s, ka - kb)) != -2) return f;
  if (cb && kb == 0.0) return a;
  if (ca && ka == 0.0) return mbg_sym_neg(s, b);
  if (a == b) return mbg_sym_const(s, 0.0);
  if (is_neg(s, b)) return mbg_sym_add(s, a, s->a[b]); /* a − (−y) = a + y */
  if (cb && kb < 0) return mbg_sym_add(s, a, mbg_sym_const(s, -kb));
  mbg_sx ba = find(s, MBG_SYM_SUB, b, a); /* a − b = −(b − a), exactly: one node for both */
  if (ba >= 0) return mbg_sym_neg(s, ba);
  return node(s, MBG_SYM_SUB, a, b);
}

/* x · c for a constant c (x not constant). A negative c gives −(x·|c|), exactly the same, so
 * x·c and x·(−c) are one product (the negation folds into the sums that use it); (y·k)·c is
 * y·(k c) when c is a power of two (exact). */
static mbg_sx mul_k(mbg_sym *s, mbg_sx x, double c) {
  if (c == 0.0) return mbg_sym_const(s, 0.0);
  if (c == 1.0) return x;
  if (c == -1.0) return mbg_sym_neg(s, x);
  if (is_neg(s, x)) return mul_k(s, s->a[x], -c); /* (−x)·c = x·(−c) */
  if (c < 0) return mbg_sym_neg(s, mul_k(s, x, -c));
  mbg_sx y;
  double ky, r;
  if (scaled(s, x, &y, &ky) && exact_reciprocal(c) != 0.0 && isfinite(r = ky * c) && r != 0.0 &&
      fabs(r) >= DBL_MIN)
    return mul_k(s, y, r);
  mbg_sx k = mbg_sym_const(s, c);
  if (k < 0) return -1;
  return x <= k ? node(s, MBG_SYM_MUL, x, k) : node(s, MBG_SYM_MUL, k, x);
}

mbg_sx mbg_sym_mul(mbg_sym *s, mbg_sx a, mbg_sx b) {
  if (bad_args(s, a, b, 1)) return -1;
  double ka = 0.0, kb = 0.0;
  mbg_sx f;
  int ca = mbg_sym_is_const(s, a, &ka), cb = mbg_sym_is_const(s, b, &kb);
  if (ca && cb && (f = folded(s, ka * kb)) != -2) return f;
  if (cb && !ca) return mul_k(s, a, kb);
  if (ca && !cb) return mul_k(s, b, ka);
  if (!ca && !cb) {
    int na = is_neg(s, a), nb = is_neg(s, b);
    if (na && nb) return mbg_sym_mul(s, s->a[a], s->a[b]);
    if (na) return mbg_sym_neg(s, mbg_sym_mul(s, s->a[a], b)); /* (−x)·y = −(x·y) */
    if (nb) return mbg_sym_neg(s, mbg_sym_mul(s, a, s->a[b]));
  }
  return a <= b ? node(s, MBG_SYM_MUL, a, b) : node(s, MBG_SYM_MUL, b, a);
}

/* 1/c when it is an exact power of two (then x/c = x·(1/c) exactly), else 0. */
static double exact_reciprocal(double c) {
  int e;
  if (!isfinite(c) || c == 0.0 || fabs(frexp(c, &e)) != 0.5) return 0.0;
  double r = 1.0 / c;
  return isfinite(r) && fabs(frexp(r, &e)) == 0.5 ? r : 0.0;
}

mbg_sx mbg_sym_div(mbg_sym *s, mbg_sx a, mbg_sx b) {
  if (bad_args(s, a, b, 1)) return -1;
  double ka = 0.0, kb = 0.0, r;
  mbg_sx f;
  int ca = mbg_sym_is_const(s, a, &ka), cb = mbg_sym_is_const(s, b, &kb);
  int na = is_neg(s, a), nb = is_neg(s, b);
  if (ca && cb && (f = folded(s, ka / kb)) != -2) return f;
  if (cb && kb == 1.0) return a;
  if (cb && kb == -1.0) return mbg_sym_neg(s, a);
  if (cb && na) return mbg_sym_div(s, s->a[a], mbg_sym_const(s, -kb)); /* (−x)/c = x/(−c) */
  if (cb && !ca && (r = exact_reciprocal(kb)) != 0.0) return mul_k(s, a, r);
  if (ca && ka == 0.0 && !(cb && kb == 0.0)) return mbg_sym_const(s, 0.0);
  if (ca && nb) return mbg_sym_div(s, mbg_sym_const(s, -ka), s->a[b]); /* c/(−y) = (−c)/y */
  if (na && nb) return mbg_sym_div(s, s->a[a], s->a[b]);
  if (na) return mbg_sym_neg(s, mbg_sym_div(s, s->a[a], b)); /* (−x)/y = −(x/y) */
  if (nb) return mbg_sym_neg(s, mbg_sym_div(s, a, s->a[b]));
  return node(s, MBG_SYM_DIV, a, b);
}

mbg_sx mbg_sym_neg(mbg_sym *s, mbg_sx a) {
  if (bad_args(s, a, -1, 0)) return -1;
  double k;
  int op = s->op[a];
  if (op == MBG_SYM_CONST) return mbg_sym_const(s, -mbg_sym_kval(s, a));
  if (op == MBG_SYM_NEG) return s->a[a];
  /* −(x·k): x·(−k) when k < 0 (mul_k keeps its constants positive, so only a product built
   * before that rule has one), else a negation that folds into its consumers */
  if (op == MBG_SYM_MUL && mbg_sym_is_const(s, s->a[a], &k) && k < 0) return mul_k(s, s->b[a], -k);
  if (op == MBG_SYM_MUL && mbg_sym_is_const(s, s->b[a], &k) && k < 0) return mul_k(s, s->a[a], -k);
  if (op == MBG_SYM_DIV && (mbg_sym_is_const(s, s->a[a], &k) || mbg_sym_is_const(s, s->b[a], &k))) {
    mbg_sx x = s->a[a], y = s->b[a]; /* −(c/y) = (−c)/y, −(x/c) = x/(−c) */
    return s->op[x] == MBG_SYM_CONST ? mbg_sym_div(s, mbg_sym_const(s, -k), y)
                                     : mbg_sym_div(s, x, mbg_sym_const(s, -k));
  }
  return node(s, MBG_SYM_NEG, a, -1);
}

/* sqrt, sin, cos: constants folded when the result is finite. */
static mbg_sx unary(mbg_sym *s, int op, mbg_sx a) {
  if (bad_args(s, a, -1, 0)) return -1;
  double k;
  if (mbg_sym_is_const(s, a, &k)) {
    mbg_sx f = folded(s, op == MBG_SYM_SQRT ? sqrt(k) : op == MBG_SYM_SIN ? sin(k) : cos(k));
    if (f != -2) return f;
  }
  return node(s, op, a, -1);
}

mbg_sx mbg_sym_sqrt(mbg_sym *s, mbg_sx a) { return unary(s, MBG_SYM_SQRT, a); }
mbg_sx mbg_sym_sin(mbg_sym *s, mbg_sx a) { return unary(s, MBG_SYM_SIN, a); }
mbg_sx mbg_sym_cos(mbg_sym *s, mbg_sx a) { return unary(s, MBG_SYM_COS, a); }

mbg_sx mbg_sym_atan2(mbg_sym *s, mbg_sx y, mbg_sx x) {
  if (bad_args(s, y, x, 1)) return -1;
  double ky, kx;
  if (mbg_sym_is_const(s, y, &ky) && mbg_sym_is_const(s, x, &kx)) {
    mbg_sx f = folded(s, atan2(ky, kx));
    if (f != -2) return f;
  }
  return node(s, MBG_SYM_ATAN2, y, x);
}

mbg_sx mbg_sym_fmax(mbg_sym *s, mbg_sx a, mbg_sx b) {
  if (bad_args(s, a, b, 1)) return -1;
  double ka, kb;
  if (a == b) return a;
  if (mbg_sym_is_const(s, a, &ka) && mbg_sym_is_const(s, b, &kb)) {
    mbg_sx f = folded(s, fmax(ka, kb));
    if (f != -2) return f;
  }
  return node(s, MBG_SYM_FMAX, a < b ? a : b, a < b ? b : a); /* commutative: one node */
}

void mbg_sym_sincos(mbg_sym *s, mbg_sx x, mbg_sx *sin_x, mbg_sx *cos_x) {
  mbg_sx sn = mbg_sym_sin(s, x), cs = mbg_sym_cos(s, x);
  if (sin_x) *sin_x = sn;
  if (cos_x) *cos_x = cs;
}

/* ---- inspection ------------------------------------------------------------------------- */

mbg_sym_op mbg_sym_op_of(const mbg_sym *s, mbg_sx e) { return (mbg_sym_op)s->op[e]; }

mbg_sx mbg_sym_arg(const mbg_sym *s, mbg_sx e, int k) {
  if (!s || !valid(s, e) || mbg_sym_is_leaf_op(s->op[e]) || k < 0 || k > 1) return -1;
  return k == 0 ? s->a[e] : s->b[e];
}

const char *mbg_sym_input_of(const mbg_sym *s, mbg_sx e, int *index) {
  if (!s || !valid(s, e) || s->op[e] != MBG_SYM_INPUT) return NULL;
  if (index) *index = s->b[e];
  return s->arr[s->a[e]];
}

/* ---- outputs and names ------------------------------------------------------------------ */

int mbg_sym_output(mbg_sym *s, const char *array, int index, mbg_sx e) {
  if (!s) return -1;
  int32_t id = array_id(s, array);
  if (id < 0 || index < 0 || !valid(s, e)) return fail(s);
  if (s->nout == s->capout) {
    size_t c = s->capout ? (size_t)s->capout * 2 : 64;
    if (c > MAX_NODES || grow(&s->out_arr, c, 4) || grow(&s->out_idx, c, 4) ||
        grow(&s->out_e, c, 4))
      return fail(s);
    s->capout = (int32_t)c;
  }
  s->out_arr[s->nout] = id, s->out_idx[s->nout] = index, s->out_e[s->nout] = e;
  s->nout++;
  return 0;
}

mbg_sx mbg_sym_output_at(const mbg_sym *s, int k, const char **array, int *index) {
  if (!s || k < 0 || k >= s->nout) return -1;
  if (array) *array = s->arr[s->out_arr[k]];
  if (index) *index = s->out_idx[k];
  return s->out_e[k];
}

int mbg_sym_name(mbg_sym *s, mbg_sx e, const char *name) {
  if (!s) return -1;
  if (!valid(s, e) || !name) return fail(s);
  if (mbg_sym_is_leaf_op(s->op[e]) || s->name[e]) return 0;
  size_t len = strlen(name) + 1;
  if (s->npool + len > s->cappool) {
    size_t c = s->cappool ? s->cappool : 1024;
    while (c < s->npool + len) c *= 2;
    if (c > (size_t)INT32_MAX || grow(&s->pool, c, 1)) return fail(s);
    s->cappool = c;
  }
  memcpy(s->pool + s->npool, name, len);
  s->name[e] = (int32_t)s->npool + 1;
  s->npool += len;
  return 0;
}
