/* ast.c — construction and destruction of the syntax tree. */
#include "ast.h"

#include <stdlib.h>
#include <string.h>

mbd_expr *mbd_expr_num(double v, mbg_loc loc) {
  mbd_expr *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  e->kind = MBD_E_NUM;
  e->num = v;
  e->loc = loc;
  e->depth = 1;
  return e;
}

mbd_expr *mbd_expr_name(char *name, mbg_loc loc) {
  mbd_expr *e = calloc(1, sizeof *e);
  if (!e) {
    free(name);
    return NULL;
  }
  e->kind = MBD_E_NAME;
  e->name = name;
  e->loc = loc;
  e->depth = 1;
  return e;
}

mbd_expr *mbd_expr_op(mbd_expr_kind kind, mbd_expr *a, mbd_expr *b, mbg_loc loc) {
  mbd_expr *e = calloc(1, sizeof *e);
  if (!e) {
    mbd_expr_free(a);
    mbd_expr_free(b);
    return NULL;
  }
  e->kind = kind;
  e->a = a;
  e->b = b;
  e->loc = loc;
  int da = a ? a->depth : 0, db = b ? b->depth : 0;
  e->depth = 1 + (da > db ? da : db);
  return e;
}

mbd_exprs *mbd_exprs_append(mbd_exprs *list, mbd_expr *e) {
  if (!list) {
    list = calloc(1, sizeof *list);
    if (!list) {
      mbd_expr_free(e);
      return NULL;
    }
    if (e) list->loc = e->loc;
  }
  if (!e) return list;
  if (list->n == list->cap) {
    int cap = list->cap ? list->cap * 2 : 4;
    mbd_expr **v = realloc(list->v, (size_t)cap * sizeof *v);
    if (!v) {
      mbd_expr_free(e);
      return list;
    }
    list->v = v;
    list->cap = cap;
  }
  list->v[list->n++] = e;
  return list;
}

mbd_rows *mbd_rows_append(mbd_rows *rows, mbd_exprs *row) {
  if (!rows) {
    rows = calloc(1, sizeof *rows);
    if (!rows) {
      mbd_exprs_free(row);
      return NULL;
    }
  }
  if (!row) return rows;
  if (rows->n == rows->cap) {
    int cap = rows->cap ? rows->cap * 2 : 4;
    mbd_exprs **r = realloc(rows->row, (size_t)cap * sizeof *r);
    if (!r) {
      mbd_exprs_free(row);
      return rows;
    }
    rows->row = r;
    rows->cap = cap;
  }
  rows->row[rows->n++] = row;
  return rows;
}

mbd_name *mbd_name_new(char *name, mbg_loc loc) {
  mbd_name *n = calloc(1, sizeof *n);
  if (!n) {
    free(name);
    return NULL;
  }
  n->name = name;
  n->loc = loc;
  return n;
}

mbd_item *mbd_item_new(mbd_item_kind kind, mbg_loc loc) {
  mbd_item *it = calloc(1, sizeof *it);
  if (!it) return NULL;
  it->kind = kind;
  it->loc = loc;
  return it;
}

mbd_stmt *mbd_stmt_new(mbd_stmt_kind kind, mbg_loc loc) {
  mbd_stmt *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->kind = kind;
  s->loc = loc;
  return s;
}

mbd_item *mbd_item_reverse(mbd_item *list) {
  mbd_item *out = NULL;
  while (list) {
    mbd_item *next = list->next;
    list->next = out;
    out = list;
    list = next;
  }
  return out;
}

mbd_name *mbd_name_reverse(mbd_name *list) {
  mbd_name *out = NULL;
  while (list) {
    mbd_name *next = list->next;
    list->next = out;
    out = list;
    list = next;
  }
  return out;
}

void mbd_expr_free(mbd_expr *e) {
  if (!e) return;
  mbd_expr_free(e->a);
  mbd_expr_free(e->b);
  free(e->name);
  free(e);
}

void mbd_exprs_free(mbd_exprs *l) {
  if (!l) return;
  for (int i = 0; i < l->n; i++) mbd_expr_free(l->v[i]);
  free(l->v);
  free(l);
}

void mbd_rows_free(mbd_rows *r) {
  if (!r) return;
  for (int i = 0; i < r->n; i++) mbd_exprs_free(r->row[i]);
  free(r->row);
  free(r);
}

void mbd_name_free(mbd_name *n) {
  while (n) {
    mbd_name *next = n->next;
    free(n->name);
    free(n);
    n = next;
  }
}

void mbd_item_free(mbd_item *it) {
  while (it) {
    mbd_item *next = it->next;
    mbd_exprs_free(it->args);
    mbd_exprs_free(it->rpy);
    free(it->name);
    mbd_rows_free(it->rows);
    mbd_item_free(it->sub);
    free(it);
    it = next;
  }
}

void mbd_stmt_free(mbd_stmt *s) {
  while (s) {
    mbd_stmt *next = s->next;
    free(s->name);
    mbd_expr_free(s->value);
    mbd_exprs_free(s->args);
    mbd_exprs_free(s->velocity);
    free(s->type);
    free(s->parent);
    free(s->child);
    mbd_item_free(s->items);
    mbd_name_free(s->names);
    free(s);
    s = next;
  }
}

void mbd_ast_free(mbd_ast *ast) {
  if (!ast) return;
  mbd_stmt_free(ast->first);
  free(ast);
}
