/* sym_emit.c — the live graph as C statements: temporaries in schedule order, leaves inlined,
 * each output stored right after its value. Names of temporaries are made C identifiers and
 * unique here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/numfmt.h"
#include "sym/sym_emit_internal.h"

/* Words a temporary may not take: C99 keywords, the math functions we call and the object-like
 * macros of <math.h> (ISO C and POSIX), which would replace the name. */
static const char *const reserved[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "_Bool", "_Complex", "_Imaginary", "sqrt",
    "sin", "cos", "sqrtf", "sinf", "cosf", "fmax", "fmaxf", "HUGE_VAL", "HUGE_VALF", "HUGE_VALL",
    "INFINITY", "NAN", "FP_INFINITE", "FP_NAN", "FP_NORMAL", "FP_SUBNORMAL", "FP_ZERO",
    "FP_FAST_FMA", "FP_FAST_FMAF", "FP_FAST_FMAL", "FP_ILOGB0", "FP_ILOGBNAN", "MATH_ERRNO",
    "MATH_ERREXCEPT",
    "math_errhandling", "M_E", "M_LOG2E", "M_LOG10E", "M_LN2", "M_LN10", "M_PI", "M_PI_2",
    "M_PI_4", "M_1_PI", "M_2_PI", "M_2_SQRTPI", "M_SQRT2", "M_SQRT1_2", "NULL"};
#define NRESERVED (sizeof reserved / sizeof *reserved)

/* ---- emission ----------------------------------------------------------------------------- */


void sym_put_str(line *l, const char *p) {
  size_t k = strlen(p);
  if (k > sizeof l->buf - 1 - l->n) k = sizeof l->buf - 1 - l->n; /* cannot happen; stay safe */
  memcpy(l->buf + l->n, p, k);
  l->n += k;
}

void sym_put_int(line *l, long v) {
  char tmp[24];
  int k = 0;
  unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
  do tmp[k++] = (char)('0' + u % 10), u /= 10;
  while (u);
  if (v < 0) tmp[k++] = '-';
  while (k > 0 && l->n < sizeof l->buf - 1) l->buf[l->n++] = tmp[--k];
}

/* A negation written inline in its consumers ("-t3 - t4"), without a temporary. */
int sym_inline_neg(const emitter *m, mbg_sx e) {
  return m->s->op[e] == MBG_SYM_NEG && !m->need[e];
}

/* An array name a temporary could shadow or clash with (a keyword, a math function, tN), or
 * longer than 64 characters. */
static int bad_array_name(const char *a) {
  if (strlen(a) > 64) return 1; /* keeps every statement within struct line */
  for (size_t i = 0; i < NRESERVED; i++)
    if (strcmp(a, reserved[i]) == 0) return 1;
  return a[0] == 't' && a[1] && strspn(a + 1, "0123456789") == strlen(a + 1);
}

/* Every live constant finite in the chosen scalar type, and no bad array name (in lanes, none
 * named l or as the stride). */
static int check_graph(const mbg_sym *s, int fl, const unsigned char *live,
                       const mbg_sym_emit_opts *o) {
  const char *stride = o && o->lanes ? (o->lane_stride ? o->lane_stride : "") : NULL;
  for (int32_t i = 0; i < s->narr; i++)
    if (bad_array_name(s->arr[i]) ||
        (stride && (strcmp(s->arr[i], "l") == 0 || strcmp(s->arr[i], stride) == 0)))
      return MBG_SYM_EINVAL;
  for (int32_t e = 0; e < s->n; e++)
    if (live[e] && s->op[e] == MBG_SYM_CONST &&
        !(fl ? isfinite((float)mbg_sym_kval(s, e)) : isfinite(mbg_sym_kval(s, e))))
      return MBG_SYM_ENONFINITE;
  return 0;
}

/* The literal of every live constant, formatted once ("0.5", "0.5f"). */
static int format_literals(emitter *m, const unsigned char *live) {
  const mbg_sym *s = m->s;
  size_t n = 0, cap = 0;
  for (int32_t e = 0; e < s->n; e++) {
    if (!live[e] || s->op[e] != MBG_SYM_CONST) continue;
    if (n + 40 > cap) {
      cap = cap ? cap * 2 : 4096;
      char *p = realloc(m->lit, cap);
      if (!p) return MBG_SYM_ENOMEM;
      m->lit = p;
    }
    char buf[32];
    if (m->fl) mbg_fmt_float((float)mbg_sym_kval(s, e), buf);
    else mbg_fmt_double(mbg_sym_kval(s, e), buf);
    m->ref[e] = (int32_t)n;
    size_t k = strlen(buf);
    memcpy(m->lit + n, buf, k);
    n += k;
    if (m->fl) m->lit[n++] = 'f';
    m->lit[n++] = 0;
  }
  return 0;
}

/* Names the scheduled nodes in schedule order: a preferred name made unique (keywords, math
 * functions and array names taken first), else t0, t1, ... */
static int assign_names(emitter *m, const mbg_sx *order, int32_t len,
                        const char *const *more) {
  const mbg_sym *s = m->s;
  size_t named = 0, nmore = 0;
  for (int32_t i = 0; i < len; i++) named += s->name[order[i]] != 0;
  while (more && more[nmore]) nmore++;
  if (sym_set_init(&m->names,
                   NRESERVED + nmore + (size_t)s->narr + named + (size_t)m->nparts + 10))
    return MBG_SYM_ENOMEM;
  for (size_t i = 0; i < NRESERVED; i++)
    if (sym_set_add(&m->names, sym_set_slot(&m->names, reserved[i]), reserved[i]) < 0)
      return MBG_SYM_ENOMEM;
  static const char *const trig_suffix[] = {"", "f", "_x", "_s", "_c"};
  for (int i = 0; m->sincos && i < 5; i++) { /* the batch function's names */
    char name[96];
    snprintf(name, sizeof name, "%.80s%s", m->sincos, trig_suffix[i]);
    uint32_t j = sym_set_slot(&m->names, name);
    if (m->names.slot[j] < 0 && sym_set_add(&m->names, j, name) < 0) return MBG_SYM_ENOMEM;
  }
  for (int i = 0; m->zero && i < 2; i++) { /* the zero's local and its volatile source */
    char name[96];
    snprintf(name, sizeof name, "%.80s%s", m->zero, i ? "_src" : "");
    uint32_t j = sym_set_slot(&m->names, name);
    if (m->names.slot[j] < 0 && sym_set_add(&m->names, j, name) < 0) return MBG_SYM_ENOMEM;
  }
  for (int i = 0; m->lanes && i < 4; i++) { /* the lane index, stride, count, loop's macro */
    const char *name = i == 0 ? "l" : i == 1 ? m->stride : i == 2 ? m->lanes : m->o->lane_loop;
    if (!name) continue;
    uint32_t j = sym_set_slot(&m->names, name);
    if (m->names.slot[j] < 0 && sym_set_add(&m->names, j, name) < 0) return MBG_SYM_ENOMEM;
  }
  for (size_t i = 0; i < nmore; i++) {
    uint32_t j = sym_set_slot(&m->names, more[i]);
    if (m->names.slot[j] < 0 && sym_set_add(&m->names, j, more[i]) < 0) return MBG_SYM_ENOMEM;
  }
  for (int32_t i = 0; i < s->narr; i++) {
    uint32_t j = sym_set_slot(&m->names, s->arr[i]);
    if (m->names.slot[j] < 0 && sym_set_add(&m->names, j, s->arr[i]) < 0) return MBG_SYM_ENOMEM;
  }
  int32_t last = m->lanes ? 0 : m->nparts; /* lanes: the scratch array's name alone */
  for (int32_t k = m->nparts > 1 ? -1 : m->nparts; k < last; k++) { /* the parts' names */
    char name[96];
    if (k < 0) snprintf(name, sizeof name, "%.80s", m->o->part_lv);
    else snprintf(name, sizeof name, "%.80s%d", m->o->part_name, (int)k);
    uint32_t j = sym_set_slot(&m->names, name);
    if (m->names.slot[j] < 0 && sym_set_add(&m->names, j, name) < 0) return MBG_SYM_ENOMEM;
  }
  int32_t tn = 0;
  for (int32_t i = 0; i < len; i++) {
    mbg_sx e = order[i];
    if (sym_inline_neg(m, e)) continue;
    /* N_s[i]; in parts, a local of a later part loads it */
    if (m->sincos && (m->nparts <= 1 || m->lanes) &&
        (s->op[e] == MBG_SYM_SIN || s->op[e] == MBG_SYM_COS))
      continue;
    if (!s->name[e]) {
      m->ref[e] = tn++;
      continue;
    }
    int32_t k = sym_unique_name(&m->names, s->pool + s->name[e] - 1);
    if (k < 0) return MBG_SYM_ENOMEM;
    m->ref[e] = -k - 1;
  }
  return 0;
}

/* With sincos, x (a sine or a cosine) is read from the batch's arrays: in the batch's part (in
 * lanes, in every one). */
int sym_in_batch(const emitter *m, mbg_sx x) {
  const mbg_sym *s = m->s;
  return m->sincos && (s->op[x] == MBG_SYM_SIN || s->op[x] == MBG_SYM_COS) &&
         (m->nparts <= 1 || m->lanes || m->part == m->trig_part);
}

void sym_put_operand(emitter *m, line *l, mbg_sx x) {
  const mbg_sym *s = m->s;
  while (sym_inline_neg(m, x)) { /* −(−x) never exists: the engine folds it */
    sym_put_str(l, "-");
    x = s->a[x];
  }
  if (s->op[x] == MBG_SYM_CONST) {
    sym_put_str(l, m->lit + m->ref[x]);
  } else if (s->op[x] == MBG_SYM_INPUT) {
    if (m->arr_used) m->arr_used[s->a[x]] = 1;
    sym_put_str(l, s->arr[s->a[x]]);
    if (s->b[x] != MBG_SYM_SCALAR) {
      sym_put_str(l, "[");
      sym_put_int(l, s->b[x]);
      if (m->lanes) sym_put_lane(m, l, m->local[s->a[x]]);
      sym_put_str(l, "]");
    } else if (m->lanes) {
      sym_put_str(l, "[l]");
    }
  } else if (sym_in_batch(m, x)) {
    sym_put_str(l, m->sincos), sym_put_str(l, s->op[x] == MBG_SYM_SIN ? "_s[" : "_c[");
    sym_put_int(l, m->slot[x]);
    if (m->lanes) sym_put_lane(m, l, 1);
    sym_put_str(l, "]");
  } else if (m->ref[x] >= 0) {
    sym_put_str(l, "t");
    sym_put_int(l, m->ref[x]);
  } else {
    sym_put_str(l, m->names.str[-m->ref[x] - 1]);
  }
}

/* In lanes, after an element's index: its lane, " * S + l" (S the stride of the caller's
 * arrays) or, in the function's own arrays (local), " * L + l". */
void sym_put_lane(emitter *m, line *l, int local) {
  sym_put_str(l, " * "), sym_put_str(l, local ? m->lanes : m->stride), sym_put_str(l, " + l");
}

/* Ends a line with end (";", or "" after a brace) and writes it, with its newline, or with
 * no_final_newline the newline goes before the next. */
static void put_end_with(emitter *m, line *l, const char *end) {
  if (m->recording) return;
  sym_put_str(l, end);
  if (!m->joined) sym_put_str(l, "\n");
  if (m->joined && m->started) fputc('\n', m->f);
  fwrite(l->buf, 1, l->n, m->f);
  m->started = 1;
}

void sym_put_end(emitter *m, line *l) { put_end_with(m, l, ";"); }

/* Ends a line without the ";" (a brace). */
static void put_end_bare(emitter *m, line *l) { put_end_with(m, l, ""); }

static void put_statement(emitter *m, const char *indent, mbg_sx e) {
  static const char *const binop[] = {" + ", " - ", " * ", " / "};
  static const char *const fn[2][5] = {{"sqrt(", "sin(", "cos(", "atan2(", "fmax("},
                                       {"sqrtf(", "sinf(", "cosf(", "atan2f(", "fmaxf("}};
  const mbg_sym *s = m->s;
  int op = s->op[e];
  sym_need(m, indent, s->a[e]);
  if (mbg_sym_is_binary_op(op) || mbg_sym_is_call2(op)) sym_need(m, indent, s->b[e]);
  line l = {.n = 0};
  sym_put_str(&l, indent);
  sym_put_str(&l, m->fl ? "const float " : "const double ");
  sym_put_operand(m, &l, e);
  sym_put_str(&l, " = ");
  if (mbg_sym_is_binary_op(op)) {
    sym_put_operand(m, &l, s->a[e]);
    sym_put_str(&l, binop[op - MBG_SYM_ADD]);
    sym_put_operand(m, &l, s->b[e]);
  } else if (op == MBG_SYM_NEG) {
    sym_put_str(&l, "-");
    sym_put_operand(m, &l, s->a[e]);
  } else {
    sym_put_str(&l, fn[m->fl][op - MBG_SYM_SQRT]);
    sym_put_operand(m, &l, s->a[e]);
    if (mbg_sym_is_call2(op)) sym_put_str(&l, ", "), sym_put_operand(m, &l, s->b[e]);
    sym_put_str(&l, ")");
  }
  sym_put_end(m, &l);
  sym_keep(m, indent, e);
}

/* With opts.sincos, after the sines' and cosines' arguments (scheduled first): every one of them
 * in one call, "const double N_x[n] = {...};", "double N_s[n], N_c[n];", "N(n, N_x, N_s, N_c);"
 * (N_s[i], N_c[i] are then the operands), the initializer eight arguments a line. n is padded
 * with zeros to 16 bytes, the vector width every x86-64 (SSE2) and AArch64 (NEON) processor has:
 * two doubles, four floats. A compiler vectorizes a loop whose count is a multiple of its
 * vectors without a scalar remainder (at -O2, GCC only such a loop). */
static void put_trig_batch(emitter *m, const char *indent, const mbg_sx *arg) {
  int32_t width = m->fl ? 4 : 2, n = (m->nslot + width - 1) / width * width;
  for (int32_t i = 0; i < m->nslot; i++) sym_need(m, indent, arg[i]);
  line l = {.n = 0};
  sym_put_str(&l, indent), sym_put_str(&l, m->fl ? "const float " : "const double ");
  sym_put_str(&l, m->sincos), sym_put_str(&l, "_x["), sym_put_int(&l, n), sym_put_str(&l, "] = {");
  for (int32_t i = 0; i < n; i++) {
    if (i % 8 == 0) put_end_bare(m, &l), l.n = 0, sym_put_str(&l, indent), sym_put_str(&l, "    ");
    if (i < m->nslot) sym_put_operand(m, &l, arg[i]);
    else sym_put_str(&l, m->fl ? "0.0f" : "0.0");
    if (i + 1 < n) sym_put_str(&l, i % 8 == 7 ? "," : ", ");
  }
  put_end_bare(m, &l);
  l.n = 0, sym_put_str(&l, indent), sym_put_str(&l, "}"), sym_put_end(m, &l);
  l.n = 0, sym_put_str(&l, indent), sym_put_str(&l, m->fl ? "float " : "double ");
  sym_put_str(&l, m->sincos), sym_put_str(&l, "_s["), sym_put_int(&l, n), sym_put_str(&l, "], ");
  sym_put_str(&l, m->sincos), sym_put_str(&l, "_c["), sym_put_int(&l, n), sym_put_str(&l, "]");
  sym_put_end(m, &l);
  l.n = 0, sym_put_str(&l, indent), sym_put_str(&l, m->sincos), sym_put_str(&l, m->fl ? "f(" : "(");
  sym_put_int(&l, n), sym_put_str(&l, ", "), sym_put_str(&l, m->sincos), sym_put_str(&l, "_x, ");
  sym_put_str(&l, m->sincos), sym_put_str(&l, "_s, "), sym_put_str(&l, m->sincos),
      sym_put_str(&l, "_c)");
  sym_put_end(m, &l);
}

/* The batch slot of every live sine and cosine in schedule order (m->slot, m->nslot), and the
 * slots' arguments (*arg, malloc'ed); 0, or -1 (memory). */
static int slot_trig(emitter *m, const mbg_sx *order, int32_t len, mbg_sx **arg) {
  const mbg_sym *s = m->s;
  size_t n = (size_t)s->n + 1;
  int32_t *of_arg = malloc(n * sizeof *of_arg);
  m->slot = malloc(n * sizeof *m->slot);
  *arg = malloc(n * sizeof **arg);
  if (!of_arg || !m->slot || !*arg) {
    free(of_arg);
    return -1;
  }
  for (size_t e = 0; e < n; e++) of_arg[e] = -1;
  m->nslot = 0;
  for (int32_t i = 0; i < len; i++) {
    mbg_sx e = order[i];
    if (s->op[e] != MBG_SYM_SIN && s->op[e] != MBG_SYM_COS) continue;
    if (of_arg[s->a[e]] < 0) (*arg)[m->nslot] = s->a[e], of_arg[s->a[e]] = m->nslot++;
    m->slot[e] = of_arg[s->a[e]];
  }
  free(of_arg);
  return 0;
}

/* Per node its outputs, as a chain: first[e] the first output index, next[k] the following one
 * (in call order), -1 at the end. 0, or -1 (memory). */
static int chain_outputs(const mbg_sym *s, int32_t **first, int32_t **next) {
  *first = malloc(((size_t)s->n + 1) * sizeof **first);
  *next = malloc(((size_t)s->nout + 1) * sizeof **next);
  if (!*first || !*next) return -1;
  for (int32_t e = 0; e < s->n; e++) (*first)[e] = -1;
  for (int32_t i = s->nout - 1; i >= 0; i--)
    (*next)[i] = (*first)[s->out_e[i]], (*first)[s->out_e[i]] = i;
  return 0;
}

/* An output whose value has no statement of its own (a leaf, or a negation written inline):
 * stored after every statement. */
static int stored_last(const emitter *m, mbg_sx e) {
  return mbg_sym_is_leaf_op(m->s->op[e]) || sym_inline_neg(m, e);
}

/* e is the constant 0 (the engine has no -0: mbg_sym_const). */
static int is_zero(const mbg_sym *s, mbg_sx e) {
  return s->op[e] == MBG_SYM_CONST && mbg_sym_kval(s, e) == 0;
}

static void put_output(emitter *m, const char *indent, int32_t i);

/* "volatile double Z_src = 0.0;" and "const double Z = Z_src;" (in the part being written). */
static void put_zero_local(emitter *m, const char *indent) {
  const char *type = m->fl ? "float " : "double ", *zero = m->zero;
  line l = {.n = 0};
  sym_put_str(&l, indent), sym_put_str(&l, "volatile "), sym_put_str(&l, type),
      sym_put_str(&l, zero);
  sym_put_str(&l, "_src = "), sym_put_str(&l, m->fl ? "0.0f" : "0.0"), sym_put_end(m, &l);
  l.n = 0, sym_put_str(&l, indent), sym_put_str(&l, "const "), sym_put_str(&l, type),
      sym_put_str(&l, zero);
  sym_put_str(&l, " = "), sym_put_str(&l, zero), sym_put_str(&l, "_src"), sym_put_end(m, &l);
  m->zero_part = m->part;
}

/* With opts.zero: the zero's local when at least MBG_SYM_ZERO_MIN outputs are 0 (then
 * m->zero_used is set), else nothing; then, when the code is estimated larger than
 * opts.zeros_first_above, every output of 0 (m->zeros_first is set). 0, or -1 (memory). */
static int put_zero(emitter *m, const char *indent, long zeros_first_above) {
  const char *zero = m->zero;
  int32_t n = 0;
  for (int32_t i = 0; zero && i < m->s->nout; i++) n += is_zero(m->s, m->s->out_e[i]);
  if (n < MBG_SYM_ZERO_MIN) return 0;
  long bytes = zeros_first_above > 0 ? mbg_sym_code_bytes(m->s) : 0;
  if (bytes < 0) return -1;
  /* in parts, each declares its own before its first zero (put_output) */
  if (m->nparts <= 1) put_zero_local(m, indent);
  m->zero_used = 1;
  for (int32_t i = 0; bytes > zeros_first_above && i < m->s->nout; i++)
    if (is_zero(m->s, m->s->out_e[i])) put_output(m, indent, i);
  m->zeros_first = bytes > zeros_first_above;
  return 0;
}

static void put_output(emitter *m, const char *indent, int32_t i) {
  const mbg_sym *s = m->s;
  if (m->lanes && !m->local[s->out_arr[i]]) return; /* after the loops (sym_lane_outputs) */
  if (m->zeros_first && is_zero(s, s->out_e[i])) return; /* stored already (put_zero) */
  int zero = m->zero_used && is_zero(s, s->out_e[i]);
  if (zero && m->zero_part != m->part) put_zero_local(m, indent); /* a later part's own */
  if (!zero) sym_need(m, indent, s->out_e[i]);
  if (m->arr_used) m->arr_used[s->out_arr[i]] = 1;
  line l = {.n = 0};
  sym_put_str(&l, indent);
  sym_put_str(&l, s->arr[s->out_arr[i]]);
  sym_put_str(&l, "[");
  sym_put_int(&l, s->out_idx[i]);
  if (m->lanes) sym_put_lane(m, &l, m->local[s->out_arr[i]]);
  sym_put_str(&l, "] = ");
  if (zero) sym_put_str(&l, m->zero);
  else sym_put_operand(m, &l, s->out_e[i]);
  sym_put_end(m, &l);
}

/* Output k, then the outputs after it in call order whose values are leaves (up to the next one
 * with a statement). Keeping the call order around the constants matters beyond readability: a
 * long run of stores of one constant to consecutive elements (a Jacobian's structural zeros, all
 * at the end) is what compilers turn into a call of the C library's memset, which the generated
 * code must not need. */
static void put_outputs_from(emitter *m, const char *indent, int32_t k) {
  put_output(m, indent, k);
  for (int32_t i = k + 1; i < m->s->nout && stored_last(m, m->s->out_e[i]); i++)
    put_output(m, indent, i);
}

/* The statements, each node's outputs after it (see mbg_sym_emit_c), into parts when cut. */
static int run(emitter *m, const char *indent, const mbg_sx *order, int32_t len,
                const int32_t *first_out, const int32_t *next_out, const mbg_sx *arg,
               int32_t last_trig) {
  const mbg_sym *s = m->s;
  const char *outer = indent;
  m->part = 0, m->zero_part = -1, m->zero_used = 0, m->zeros_first = 0, m->started = 0;
  if (m->lanes) indent = sym_lanes_begin(m, indent); /* the loops' statements, indented */
  if (m->nparts > 1) sym_part_open(m);
  int32_t in_part = 0, alone = 0;
  if (put_zero(m, indent, m->o ? m->o->zeros_first_above : 0)) return MBG_SYM_ENOMEM;
  for (int32_t k = 0; k < s->nout && stored_last(m, s->out_e[k]); k++) put_output(m, indent, k);
  for (int32_t i = 0; i < len; i++) {
    mbg_sx e = order[i];
    int trig = s->op[e] == MBG_SYM_SIN || s->op[e] == MBG_SYM_COS;
    if (!sym_inline_neg(m, e) && !(m->sincos && trig)) {
      /* lanes: a loop of part_size statements, a call (sqrt, ...) in a loop of its own */
      int lone = m->lanes && sym_lane_alone(m, e);
      int cut = m->lanes ? in_part > 0 && (in_part >= m->part_size || alone || lone)
                         : m->nparts > 1 && in_part >= m->part_size && m->part < m->nparts - 1;
      if (cut) {
        sym_part_close(m, indent);
        m->part++, in_part = 0;
        m->lane_alone = lone;
        sym_part_open(m);
        m->lane_alone = 0;
      }
      alone = lone;
      put_statement(m, indent, e);
      in_part++;
      for (int32_t k = first_out[e]; k >= 0; k = next_out[k]) put_outputs_from(m, indent, k);
    }
    if (m->sincos && i == last_trig && m->lanes) { /* (their outputs: sym_lane_outputs) */
      sym_trig_lanes(m, outer, indent, arg);
      m->part++, in_part = 0, alone = 0;
    } else if (m->sincos && i == last_trig) {
      put_trig_batch(m, indent, arg);
      m->trig_part = m->part;
      for (int32_t j = 0; j <= i; j++)
        if (s->op[order[j]] == MBG_SYM_SIN || s->op[order[j]] == MBG_SYM_COS) {
          sym_keep(m, indent, order[j]);
          for (int32_t k = first_out[order[j]]; k >= 0; k = next_out[k])
            put_outputs_from(m, indent, k);
        }
    }
  }
  if (m->nparts > 1) sym_part_close(m, indent);
  if (m->lanes) sym_lane_outputs(m, outer);
  return 0;
}



/* The dry run that records which part makes and reads every value, then its slots. */
static int record_parts(emitter *m, const char *indent, const mbg_sx *order, int32_t len,
                        const int32_t *first_out, const int32_t *next_out, const mbg_sx *arg,
                        int32_t last_trig) {
  size_t n = (size_t)m->s->n + 1;
  m->def_part = malloc(n * sizeof *m->def_part), m->use_last = malloc(n * sizeof *m->use_last);
  m->xslot = malloc(n * sizeof *m->xslot), m->loaded = malloc(n * sizeof *m->loaded);
  m->arr_used = malloc((size_t)m->s->narr + 1);
  if (!m->def_part || !m->use_last || !m->xslot || !m->loaded || !m->arr_used)
    return MBG_SYM_ENOMEM;
  for (size_t e = 0; e < n; e++) m->def_part[e] = m->use_last[e] = m->loaded[e] = -1;
  m->recording = 1;
  int rc = run(m, indent, order, len, first_out, next_out, arg, last_trig);
  m->recording = 0;
  if (rc) return rc;
  return sym_alloc_slots(m, order, len) ? MBG_SYM_ENOMEM : 0;
}


/* Lanes: m->lanes, m->stride, and per array whether it is one of o->lane_local. */
static int setup_lanes(emitter *m, const mbg_sym_emit_opts *o) {
  if (!o->lane_stride || !*o->lanes || !*o->lane_stride) return MBG_SYM_EINVAL;
  m->lanes = o->lanes, m->stride = o->lane_stride;
  m->local = calloc((size_t)m->s->narr + 1, 1);
  if (!m->local) return MBG_SYM_ENOMEM;
  for (int32_t i = 0; i < m->s->narr; i++)
    for (const char *const *a = o->lane_local; a && *a; a++)
      if (strcmp(*a, m->s->arr[i]) == 0) m->local[i] = 1;
  return 0;
}

/* What mbg_sym_emit_c and mbg_sym_emit_parts share: m set up for s and o, the schedule in
 * *order (its length in *len), the batch's arguments in *arg. */
static int setup(emitter *m, const mbg_sym *s, const mbg_sym_emit_opts *o, mbg_sx **order,
                 int32_t *len, mbg_sx **arg) {
  unsigned char *live = malloc((size_t)s->n + 1);
  m->need = calloc((size_t)s->n + 1, 1);
  int rc = live && m->need ? 0 : MBG_SYM_ENOMEM;
  if (!rc) mbg_sym_live(s, live), rc = check_graph(s, m->fl, live, o);
  if (!rc) mbg_sym_needed_negs(s, live, m->need);
  if (!rc) m->ref = malloc(((size_t)s->n + 1) * sizeof *m->ref), rc = m->ref ? 0 : MBG_SYM_ENOMEM;
  if (!rc) rc = format_literals(m, live);
  free(live);
  if (!rc && o && o->lanes) rc = setup_lanes(m, o);
  /* the sines and cosines first: by libm calls, before any other temporary is live; by the
   * batch function, all in one call */
  if (!rc) *len = mbg_sym_schedule(s, order), rc = *len < 0 ? MBG_SYM_ENOMEM : 0;
  if (!rc && m->sincos) rc = slot_trig(m, *order, *len, arg) ? MBG_SYM_ENOMEM : 0;
  if (!rc) rc = sym_plan_parts(m, o, *order, *len);
  return rc;
}

static void teardown(emitter *m) {
  if (m->names.slot || m->names.str) sym_set_free(&m->names);
  free(m->ref), free(m->need), free(m->lit), free(m->slot);
  free(m->def_part), free(m->use_last), free(m->xslot), free(m->loaded), free(m->arr_used);
  free(m->local);
}

/* What the emission needs after setup: the names, the last sine or cosine (*last_trig), the
 * outputs' chains, and for a cut body the dry run that gives every value crossing parts its
 * slot. Each output is stored right after its value (it then dies unless used again: the
 * caller's arrays do not overlap, sym.h); the outputs of the batch's sines and cosines after
 * it; an output whose value is a leaf right after the output before it in call order (the
 * first ones before every statement). */
static int plan(emitter *m, const char *indent, const mbg_sx *order, int32_t len,
                const mbg_sx *arg, int32_t **first_out, int32_t **next_out, int32_t *last_trig) {
  const mbg_sym *s = m->s;
  int rc = assign_names(m, order, len, m->o ? m->o->reserved : NULL);
  *last_trig = -1;
  for (int32_t i = 0; !rc && i < len; i++)
    if (s->op[order[i]] == MBG_SYM_SIN || s->op[order[i]] == MBG_SYM_COS) *last_trig = i;
  if (!rc) rc = chain_outputs(s, first_out, next_out) ? MBG_SYM_ENOMEM : 0;
  if (!rc && m->nparts > 1)
    rc = record_parts(m, indent, order, len, *first_out, *next_out, arg, *last_trig);
  return rc;
}

int mbg_sym_emit_c(const mbg_sym *s, FILE *out, const mbg_sym_emit_opts *o) {
  if (!s || s->failed || !out) return MBG_SYM_EINVAL;
  const char *indent = o && o->indent ? o->indent : "  ";
  if (strlen(indent) > 64) return MBG_SYM_EINVAL;
  emitter m = {.s = s, .f = out, .fl = o && o->scalar == MBG_SYM_FLOAT,
               .joined = o && o->no_final_newline, .sincos = o ? o->sincos : NULL,
               .zero = o && !o->lanes ? o->zero : NULL, .o = o};
  mbg_sx *order = NULL, *arg = NULL;
  int32_t len = -1, last_trig = -1, *next_out = NULL, *first_out = NULL;
  int rc = setup(&m, s, o, &order, &len, &arg);
  if (!rc) rc = plan(&m, indent, order, len, arg, &first_out, &next_out, &last_trig);
  int parts = o && o->emit_parts && !m.lanes;
  if (!rc && m.lanes) rc = run(&m, indent, order, len, first_out, next_out, arg, last_trig);
  else if (!rc && m.nparts > 1 && !parts) sym_put_calls(&m, indent);
  else if (!rc && (m.nparts > 1) == parts)
    rc = run(&m, indent, order, len, first_out, next_out, arg, last_trig);
  free(first_out), free(next_out);
  if (!rc && ferror(out)) rc = MBG_SYM_EIO;
  teardown(&m);
  free(order), free(arg);
  return rc;
}

int32_t mbg_sym_emit_parts(const mbg_sym *s, const mbg_sym_emit_opts *o, int32_t *slots) {
  if (!s || s->failed) return -1;
  emitter m = {.s = s, .fl = o && o->scalar == MBG_SYM_FLOAT,
               .sincos = o ? o->sincos : NULL, .zero = o && !o->lanes ? o->zero : NULL, .o = o};
  mbg_sx *order = NULL, *arg = NULL;
  int32_t len = -1, last_trig = -1, *next_out = NULL, *first_out = NULL;
  int rc = setup(&m, s, o, &order, &len, &arg);
  if (slots) *slots = 0;
  if (!rc && slots && m.nparts > 1) { /* the slots: mbg_sym_emit_c's plan, nothing written */
    rc = plan(&m, o && o->indent ? o->indent : "  ", order, len, arg, &first_out, &next_out,
              &last_trig);
    if (!rc) *slots = m.nxslot;
  }
  free(first_out), free(next_out);
  teardown(&m);
  free(order), free(arg);
  return rc ? -1 : m.nparts;
}

int mbg_sym_emit_check(const mbg_sym *s, const mbg_sym_emit_opts *o) {
  if (!s || s->failed) return MBG_SYM_EINVAL;
  if (o && o->indent && strlen(o->indent) > 64) return MBG_SYM_EINVAL;
  unsigned char *live = malloc((size_t)s->n + 1);
  if (!live) return MBG_SYM_ENOMEM;
  mbg_sym_live(s, live);
  int rc = check_graph(s, o && o->scalar == MBG_SYM_FLOAT, live, o);
  free(live);
  return rc;
}

const char *mbg_sym_strerror(int code) {
  switch (code) {
  case 0: return "no error";
  case MBG_SYM_ENOMEM: return "out of memory";
  case MBG_SYM_ENONFINITE: return "a constant is NaN or infinite";
  case MBG_SYM_EIO: return "write error";
  case MBG_SYM_EINVAL: return "invalid expression graph or argument";
  }
  return "unknown error";
}
