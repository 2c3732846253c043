/* sym_lanes.c — the body over L states at once (mbg_sym_emit_opts.lanes): its statements in
 * loops over the lanes, each a part of sym_parts.c's kind (values crossing loops in the local
 * array part_lv, slot k of lane l at k * L + l), the sines and cosines of every lane in one
 * call between two loops. */
#include <stdio.h>
#include <string.h>

#include "sym/sym_emit_internal.h"

static void put_line(emitter *m, const char *indent, const char *a, const char *b,
                     const char *c) {
  line l = {.n = 0};
  sym_put_str(&l, indent), sym_put_str(&l, a), sym_put_str(&l, b), sym_put_str(&l, c);
  if (m->recording) return;
  if (m->joined && m->started) fputc('\n', m->f);
  fwrite(l.buf, 1, l.n, m->f);
  if (!m->joined) fputc('\n', m->f);
  m->started = 1;
}

/* "double LV[n * L];" when values cross loops, and "double N_x[k * L], N_s[..], N_c[..];" for the
 * sines and cosines; the loops' indent (two spaces deeper). */
const char *sym_lanes_begin(emitter *m, const char *indent) {
  snprintf(m->lane_outer, sizeof m->lane_outer, "%s", indent);
  snprintf(m->lane_indent, sizeof m->lane_indent, "%s  ", indent);
  const char *type = m->fl ? "float " : "double ";
  line l = {.n = 0};
  if (m->nxslot > 0) {
    sym_put_str(&l, indent), sym_put_str(&l, type), sym_put_str(&l, m->o->part_lv);
    sym_put_str(&l, "["), sym_put_int(&l, m->nxslot), sym_put_str(&l, " * ");
    sym_put_str(&l, m->lanes), sym_put_str(&l, "]");
    sym_put_end(m, &l);
  }
  if (m->sincos && m->nslot > 0) {
    static const char *const arrays[] = {"_x[", "_s[", "_c["};
    l.n = 0, sym_put_str(&l, indent), sym_put_str(&l, type);
    for (int k = 0; k < 3; k++) {
      sym_put_str(&l, m->sincos), sym_put_str(&l, arrays[k]), sym_put_int(&l, m->nslot);
      sym_put_str(&l, " * "), sym_put_str(&l, m->lanes), sym_put_str(&l, k < 2 ? "], " : "]");
    }
    sym_put_end(m, &l);
  }
  return m->lane_indent;
}

void sym_lane_open(emitter *m) {
  const char *pragma = m->lane_alone ? NULL : m->o->lane_loop;
  char head[96];
  snprintf(head, sizeof head, "%.64s%sfor (int l = 0; l < ", pragma ? pragma : "",
           pragma ? " " : "");
  put_line(m, m->lane_outer, head, m->lanes, "; l++) {");
}

void sym_lane_close(emitter *m) { put_line(m, m->lane_outer, "}", "", ""); }

/* A statement that calls what a compiler does not vectorize under C's default rules (sqrt may
 * set errno, fmax's NaN rule, atan2, the C library's sin and cos): its loop is its own. */
int sym_lane_alone(const emitter *m, mbg_sx e) {
  int op = m->s->op[e];
  return op == MBG_SYM_SQRT || op == MBG_SYM_ATAN2 || op == MBG_SYM_FMAX ||
         (!m->sincos && (op == MBG_SYM_SIN || op == MBG_SYM_COS));
}

/* In the open loop, every argument into N_x[k * L + l]; the loop closed; "N(k * L, N_x, N_s,
 * N_c);"; the next loop opened (the caller counts it). */
void sym_trig_lanes(emitter *m, const char *outer, const char *indent, const mbg_sx *arg) {
  line l;
  for (int32_t i = 0; i < m->nslot; i++) {
    sym_need(m, indent, arg[i]);
    l.n = 0, sym_put_str(&l, indent), sym_put_str(&l, m->sincos), sym_put_str(&l, "_x[");
    sym_put_int(&l, i), sym_put_lane(m, &l, 1), sym_put_str(&l, "] = ");
    sym_put_operand(m, &l, arg[i]), sym_put_end(m, &l);
  }
  sym_lane_close(m);
  l.n = 0, sym_put_str(&l, outer), sym_put_str(&l, m->sincos), sym_put_str(&l, m->fl ? "f(" : "(");
  sym_put_int(&l, m->nslot), sym_put_str(&l, " * "), sym_put_str(&l, m->lanes);
  sym_put_str(&l, ", "), sym_put_str(&l, m->sincos), sym_put_str(&l, "_x, ");
  sym_put_str(&l, m->sincos), sym_put_str(&l, "_s, "), sym_put_str(&l, m->sincos);
  sym_put_str(&l, "_c)"), sym_put_end(m, &l);
  sym_lane_open(m);
}

/* After the last loop (a part of its own, past every loop, m->part), every output into the
 * caller's arrays, each a loop over the lanes of one line: its value from the scratch array (its
 * slot lives until here), a sine or cosine from the batch, a leaf itself. Stores into one array
 * at distances k n apart, n unknown to the compiler, would keep it from vectorizing a loop that
 * holds two of them (it would have to prove that they never overlap); one by one they are a
 * vector store each. In the dry run: every such value is read in this part. */
void sym_lane_outputs(emitter *m, const char *outer) {
  const mbg_sym *s = m->s;
  m->part++;
  for (int32_t i = 0; i < s->nout; i++) {
    if (m->local[s->out_arr[i]]) continue;
    mbg_sx x = s->out_e[i];
    line l = {.n = 0};
    sym_put_str(&l, outer), sym_put_str(&l, "for (int l = 0; l < "), sym_put_str(&l, m->lanes);
    sym_put_str(&l, "; l++) "), sym_put_str(&l, s->arr[s->out_arr[i]]), sym_put_str(&l, "[");
    sym_put_int(&l, s->out_idx[i]), sym_put_lane(m, &l, 0), sym_put_str(&l, "] = ");
    while (sym_inline_neg(m, x)) sym_put_str(&l, "-"), x = s->a[x];
    if (mbg_sym_is_leaf_op(s->op[x]) || sym_in_batch(m, x)) {
      sym_put_operand(m, &l, x);
    } else if (m->recording) {
      if (m->use_last[x] < m->part) m->use_last[x] = m->part;
    } else {
      sym_put_str(&l, m->o->part_lv), sym_put_str(&l, "["), sym_put_int(&l, m->xslot[x]);
      sym_put_lane(m, &l, 1), sym_put_str(&l, "]");
    }
    sym_put_end(m, &l);
  }
}
