/* sym_parts.c — a long body cut into static functions (mbg_sym_emit_opts.split_above): the
 * plan, the values carried from part to part through the caller's scratch array, each part's
 * first and last lines, and the caller's calls. */
#include <stdlib.h>
#include <string.h>

#include "sym/sym_emit_internal.h"

/* Before a line that reads x (through its inline negations). In the dry run: x's last reading
 * part. When cut: x, made by an earlier part, loaded into its local unless this part has. */
void sym_need(emitter *m, const char *indent, mbg_sx x) {
  if (m->nparts <= 1) return;
  while (sym_inline_neg(m, x)) x = m->s->a[x];
  if (mbg_sym_is_leaf_op(m->s->op[x]) || (m->lanes && sym_in_batch(m, x))) return;
  if (m->recording) {
    if (m->use_last[x] < m->part) m->use_last[x] = m->part;
    return;
  }
  if (m->def_part[x] >= m->part || m->loaded[x] == m->part) return;
  m->loaded[x] = m->part;
  line l = {.n = 0};
  sym_put_str(&l, indent), sym_put_str(&l, m->fl ? "const float " : "const double ");
  sym_put_operand(m, &l, x);
  sym_put_str(&l, " = "), sym_put_str(&l, m->o->part_lv), sym_put_str(&l, "[");
  sym_put_int(&l, m->xslot[x]);
  if (m->lanes) sym_put_lane(m, &l, 1);
  sym_put_str(&l, "]");
  m->lv_used = 1;
  sym_put_end(m, &l);
}

/* After e's statement (or the batch, for a sine or a cosine). In the dry run: e's part. When
 * cut: e stored into its slot when a later part reads it. */
void sym_keep(emitter *m, const char *indent, mbg_sx e) {
  if (m->nparts <= 1 || (m->lanes && sym_in_batch(m, e))) return;
  if (m->recording) {
    m->def_part[e] = m->part;
    return;
  }
  if (m->xslot[e] < 0) return;
  line l = {.n = 0};
  sym_put_str(&l, indent), sym_put_str(&l, m->o->part_lv), sym_put_str(&l, "[");
  sym_put_int(&l, m->xslot[e]);
  if (m->lanes) sym_put_lane(m, &l, 1);
  sym_put_str(&l, "] = ");
  sym_put_operand(m, &l, e);
  m->lv_used = 1;
  sym_put_end(m, &l);
}

/* A line longer than struct line holds (a part's first line: its parameters), as is. */
static void put_long_line(emitter *m, const char *a, const char *b, const char *c) {
  if (m->recording) return;
  if (m->joined && m->started) fputc('\n', m->f);
  fputs(a, m->f), fputs(b, m->f), fputs(c, m->f);
  if (!m->joined) fputc('\n', m->f);
  m->started = 1;
}

/* "static void NAMEk(PARAMS, double *restrict LV) {" (with a blank line before all but the
 * first). */
void sym_part_open(emitter *m) {
  const mbg_sym_emit_opts *o = m->o;
  if (m->lanes) {
    sym_lane_open(m);
    return;
  }
  if (m->part > 0) put_long_line(m, "", "", "");
  char head[128], tail[128];
  snprintf(head, sizeof head, "static void %.80s%d(", o->part_name, (int)m->part);
  snprintf(tail, sizeof tail, ", %s *restrict %.80s) {", m->fl ? "float" : "double", o->part_lv);
  put_long_line(m, head, o->part_params, tail);
  memset(m->arr_used, 0, (size_t)m->s->narr + 1);
  m->lv_used = 0;
}

/* "(void)p;" for every parameter the part does not use, and "}". */
void sym_part_close(emitter *m, const char *indent) {
  const mbg_sym *s = m->s;
  if (m->lanes) {
    sym_lane_close(m);
    return;
  }
  for (const char *const *a = m->o->part_args; *a; a++) {
    int used = 0;
    for (int32_t i = 0; i < s->narr && !used; i++) used = m->arr_used[i] && !strcmp(s->arr[i], *a);
    char cast[128];
    snprintf(cast, sizeof cast, "(void)%.100s;", *a);
    if (!used) put_long_line(m, indent, cast, "");
  }
  char cast[128];
  snprintf(cast, sizeof cast, "(void)%.100s;", m->o->part_lv);
  if (!m->lv_used) put_long_line(m, indent, cast, "");
  put_long_line(m, "}", "", "");
}

/* The slots of the scratch array: every value a later part reads gets one, first fit among
 * those whose last reader is an earlier part than the value's own. 0, or -1 (memory). */
int sym_alloc_slots(emitter *m, const mbg_sx *order, int32_t len) {
  int32_t *until = malloc(((size_t)len + 1) * sizeof *until);
  if (!until) return -1;
  m->nxslot = 0;
  for (int32_t i = 0; i < len; i++) {
    mbg_sx e = order[i];
    m->xslot[e] = -1;
    if (m->def_part[e] < 0 || m->use_last[e] <= m->def_part[e]) continue;
    int32_t k = 0;
    while (k < m->nxslot && until[k] >= m->def_part[e]) k++;
    if (k == m->nxslot) m->nxslot++;
    m->xslot[e] = k, until[k] = m->use_last[e];
  }
  free(until);
  return 0;
}

/* The statements of the schedule (a temporary each). */
static int32_t count_statements(const emitter *m, const mbg_sx *order, int32_t len) {
  int32_t n = 0;
  for (int32_t i = 0; i < len; i++) {
    int op = m->s->op[order[i]];
    n += !sym_inline_neg(m, order[i]) && !(m->sincos && (op == MBG_SYM_SIN || op == MBG_SYM_COS));
  }
  return n;
}

/* The parts (m->nparts, m->part_size) for o; EINVAL when cut without the parts' options or
 * with an array that is not one of part_args. */
int sym_plan_parts(emitter *m, const mbg_sym_emit_opts *o, const mbg_sx *order, int32_t len) {
  int32_t n = count_statements(m, order, len);
  m->nparts = 1, m->part_size = n;
  if (o && o->lanes) { /* loops of lane_statements: their number is the run's (sym_lanes.c) */
    if (!o->part_lv) return MBG_SYM_EINVAL;
    m->nparts = 2, m->part_size = o->lane_statements > 0 ? o->lane_statements : 1;
    return 0;
  }
  if (!o || o->split_above <= 0 || n <= o->split_above) return 0;
  if (!o->part_name || !o->part_params || !o->part_args || !o->part_lv) return MBG_SYM_EINVAL;
  for (int32_t i = 0; i < m->s->narr; i++) {
    const char *const *a = o->part_args;
    while (*a && strcmp(*a, m->s->arr[i]) != 0) a++;
    if (!*a) return MBG_SYM_EINVAL;
  }
  int32_t size = o->part_size > 0 ? o->part_size : 1;
  m->nparts = (n + size - 1) / size;
  m->part_size = (n + m->nparts - 1) / m->nparts;
  return 0;
}

/* The caller's body of a cut function: the scratch array and one call per part. */
void sym_put_calls(emitter *m, const char *indent) {
  const mbg_sym_emit_opts *o = m->o;
  line l = {.n = 0};
  sym_put_str(&l, indent), sym_put_str(&l, m->fl ? "float " : "double "),
      sym_put_str(&l, o->part_lv);
  sym_put_str(&l, "["), sym_put_int(&l, m->nxslot > 0 ? m->nxslot : 1),
      sym_put_str(&l, "]"), sym_put_end(m, &l);
  for (int32_t k = 0; k < m->nparts; k++) {
    char head[128];
    snprintf(head, sizeof head, "%s%.80s%d(", indent, o->part_name, (int)k);
    if (m->joined && m->started) fputc('\n', m->f);
    fputs(head, m->f);
    for (const char *const *a = o->part_args; *a; a++) fputs(*a, m->f), fputs(", ", m->f);
    fputs(o->part_lv, m->f), fputs(");", m->f);
    if (!m->joined) fputc('\n', m->f);
    m->started = 1;
  }
}
