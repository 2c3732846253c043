/* build_expr.c — evaluating the model's expressions and value lists, resolving names. */
#include <math.h>
#include <string.h>

#include "model/build_internal.h"

static const double PI = 3.14159265358979323846;

/* Whether `e` uses the unit deg anywhere (to refuse it outside angles). */
static const mbd_expr *find_deg(const mbd_expr *e) {
  if (!e) return NULL;
  if (e->kind == MBD_E_DEG) return e;
  const mbd_expr *a = find_deg(e->a);
  return a ? a : find_deg(e->b);
}

int mbg_resolve(mbg_builder *b, const char *name, mbg_loc loc, mbg_name_kind kind) {
  int i = mbg_names_find(&b->names, name);
  if (i >= 0 && b->names.entry[i].kind == kind) return i;
  if (i >= 0) {
    mbg_name_entry *e = &b->names.entry[i];
    mbg_diag_error(b->d, loc, "'%s' is a %s, not a %s", name, mbg_name_kind_text(e->kind),
                   mbg_name_kind_text(kind));
    if (e->loc.line > 0) mbg_diag_note(b->d, e->loc, "'%s' is declared here", name);
    return -1;
  }
  /* the search is linear in the names: only for the errors that are printed */
  const char *hint = mbg_diag_will_print(b->d) ? mbg_names_suggest(&b->names, name, kind) : NULL;
  if (hint)
    mbg_diag_error(b->d, loc, "unknown %s '%s'; did you mean '%s'?", mbg_name_kind_text(kind),
                   name, hint);
  else
    mbg_diag_error(b->d, loc, "unknown %s '%s'", mbg_name_kind_text(kind), name);
  return -1;
}

static int eval_name(mbg_builder *b, const mbd_expr *e, double *v) {
  int i = mbg_resolve(b, e->name, e->loc, MBG_NAME_CONST);
  if (i < 0) return 0;
  const mbg_name_entry *c = &b->names.entry[i];
  if (c->index == MBG_CONST_DEFINING) {
    mbg_diag_error(b->d, e->loc, "constant '%s' is defined in terms of itself", e->name);
    return 0;
  }
  if (c->index < 0) {
    mbg_diag_error(b->d, e->loc, "constant '%s' is used before its definition", e->name);
    mbg_diag_note(b->d, c->loc, "'%s' is defined here", e->name);
    return 0;
  }
  *v = c->value;
  return 1;
}

/* Check a result: finite, or an error at the operator. */
static int finite_or_error(mbg_builder *b, const mbd_expr *e, double v, const char *what) {
  if (isfinite(v)) return 1;
  mbg_diag_error(b->d, e->loc, "%s", what);
  return 0;
}

static int eval_node(mbg_builder *b, const mbd_expr *e, double *v) {
  double x = 0, y = 0;
  if (e->a && !eval_node(b, e->a, &x)) return 0;
  if (e->b && !eval_node(b, e->b, &y)) return 0;
  switch (e->kind) {
  case MBD_E_NUM: *v = e->num; return 1;
  case MBD_E_NAME: return eval_name(b, e, v);
  case MBD_E_PI: *v = PI; return 1;
  case MBD_E_NEG: *v = -x; return 1;
  case MBD_E_ADD: *v = x + y; return finite_or_error(b, e, *v, "the sum overflows");
  case MBD_E_SUB: *v = x - y; return finite_or_error(b, e, *v, "the difference overflows");
  case MBD_E_MUL: *v = x * y; return finite_or_error(b, e, *v, "the product overflows");
  case MBD_E_DIV:
    if (y == 0.0) {
      mbg_diag_error(b->d, e->loc, "division by zero");
      return 0;
    }
    *v = x / y;
    return finite_or_error(b, e, *v, "the quotient overflows");
  case MBD_E_POW:
    if (x < 0 && y != floor(y)) {
      mbg_diag_error(b->d, e->loc, "negative number (%g) raised to a non-integer power (%g)", x, y);
      return 0;
    }
    if (x == 0 && y < 0) {
      mbg_diag_error(b->d, e->loc, "zero raised to a negative power");
      return 0;
    }
    *v = pow(x, y);
    return finite_or_error(b, e, *v, "the power overflows");
  case MBD_E_SQRT:
    if (x < 0) {
      mbg_diag_error(b->d, e->loc, "square root of a negative number (%g)", x);
      return 0;
    }
    *v = sqrt(x);
    return 1;
  case MBD_E_SIN: *v = sin(x); return 1;
  case MBD_E_COS: *v = cos(x); return 1;
  case MBD_E_DEG: *v = x * (PI / 180.0); return 1;
  }
  return 0;
}

int mbg_eval(mbg_builder *b, const mbd_expr *e, mbg_unit_use use, double *v) {
  *v = 0.0;
  if (!e) return 0;
  if (use == MBG_NOT_ANGLE) {
    const mbd_expr *deg = find_deg(e);
    if (deg) {
      mbg_diag_error(b->d, deg->loc,
                     "unit 'deg' is only for angles (rpy and constants), not for this value");
      return 0;
    }
  }
  return eval_node(b, e, v);
}

/* The first value of the list that is a difference, if any: where a '-' joined two values. */
static const mbd_expr *joining_minus(const mbd_exprs *l) {
  for (int i = 0; i < l->n; i++)
    if (l->v[i]->kind == MBD_E_SUB) return l->v[i];
  return NULL;
}

/* The first value of the list that a spacing-split '-' started, if any. */
static const mbd_expr *split_minus(const mbd_exprs *l) {
  for (int i = 1; i < l->n; i++)
    if (l->v[i]->kind == MBD_E_NEG && l->v[i]->split_minus) return l->v[i];
  return NULL;
}

int mbg_eval_list(mbg_builder *b, const mbd_exprs *l, mbg_loc where, const char *what, int n,
                  int n_alt, mbg_unit_use use, double *out) {
  int count = l ? l->n : 0;
  if (count != n && (n_alt <= 0 || count != n_alt)) {
    char expect[48];
    if (n_alt > 0) snprintf(expect, sizeof expect, "%d or %d values", n, n_alt);
    else snprintf(expect, sizeof expect, "%d value%s", n, n == 1 ? "" : "s");
    mbg_diag_error(b->d, where, "%s expects %s, found %d", what, expect, count);
    const mbd_expr *minus = l && count > n ? split_minus(l) : NULL;
    if (minus)
      mbg_diag_note(b->d, minus->loc,
                    "a '-' after a space and directly before a value starts a new value; "
                    "write 'a - b' or 'a-b' for a difference");
    const mbd_expr *sub = l && count < n ? joining_minus(l) : NULL;
    if (sub)
      mbg_diag_note(b->d, sub->loc,
                    "this '-' subtracts, joining two values into one: a '-' starts a new value "
                    "only after a space and directly before the value ('0 0 -0.1', not "
                    "'0 0 - 0.1')");
    return 0;
  }
  int ok = 1;
  for (int i = 0; i < count; i++) ok &= mbg_eval(b, l->v[i], use, &out[i]);
  return ok ? count : 0;
}

int mbg_once(mbg_builder *b, const mbd_item **seen, const mbd_item *it, const char *what) {
  if (*seen) {
    mbg_diag_error(b->d, it->loc, "%s is given twice", what);
    mbg_diag_note(b->d, (*seen)->loc, "first given here");
    return 1;
  }
  *seen = it;
  return 0;
}

const char *mbg_item_word(const mbd_item *it) {
  switch (it->kind) {
  case MBD_I_MASS: return "mass";
  case MBD_I_COM: return "com";
  case MBD_I_INERTIA: return "inertia";
  case MBD_I_ORIGIN: return "origin";
  case MBD_I_TARGET: return "target";
  case MBD_I_AXIS: return "axis";
  case MBD_I_AXIS2: return "axis2";
  case MBD_I_PITCH: return "pitch";
  case MBD_I_DISTANCE: return "distance";
  case MBD_I_NODE: return "node";
  case MBD_I_BEAM: return "beam";
  case MBD_I_NODES: return "nodes";
  case MBD_I_MODES: return "modes";
  case MBD_I_STIFFNESS: return "stiffness";
  case MBD_I_DAMPING: return "damping";
  case MBD_I_LENGTH: return "length";
  case MBD_I_UNKNOWN: return it->name ? it->name : "?";
  default: return "item";
  }
}
