/* ast.h — the syntax tree of a .mbd file, with the location of every construct.
 *
 * The parser builds it and nothing else: no evaluation, no validation. generator/build.c turns
 * it into a validated model. Lists keep source order. */
#ifndef MBD_AST_H
#define MBD_AST_H

#include <stddef.h>

#include "base/diag.h"

typedef enum mbd_expr_kind {
  MBD_E_NUM,   /* num */
  MBD_E_NAME,  /* a constant: name */
  MBD_E_PI,
  MBD_E_NEG,   /* -a */
  MBD_E_ADD,   /* a + b */
  MBD_E_SUB,
  MBD_E_MUL,
  MBD_E_DIV,
  MBD_E_POW,   /* a ^ b */
  MBD_E_SQRT,  /* sqrt(a) */
  MBD_E_SIN,
  MBD_E_COS,
  MBD_E_DEG    /* a deg: a·π/180 */
} mbd_expr_kind;

typedef struct mbd_expr {
  mbd_expr_kind kind;
  mbg_loc loc;
  double num;
  char *name;
  struct mbd_expr *a, *b;
  int depth;       /* nesting depth of this tree (1 for a leaf) */
  int split_minus; /* a NEG that starts a new value only because of spacing: `a -b` */
} mbd_expr;

/* A juxtaposed list of values: `0 0 -9.81`. */
typedef struct mbd_exprs {
  int n, cap;
  mbd_expr **v;
  mbg_loc loc; /* of the first value */
} mbd_exprs;

/* A list of rows `{ a b; c d; }` (stiffness, damping). */
typedef struct mbd_rows {
  int n, cap;
  mbd_exprs **row;
} mbd_rows;

/* A name with its location (references, `independent` lists). */
typedef struct mbd_name {
  char *name;
  mbg_loc loc;
  struct mbd_name *next;
} mbd_name;

typedef enum mbd_item_kind {
  MBD_I_MASS,
  MBD_I_COM,
  MBD_I_INERTIA,
  MBD_I_ORIGIN,    /* xyz / rpy */
  MBD_I_TARGET,    /* xyz / rpy */
  MBD_I_AXIS,
  MBD_I_AXIS2,
  MBD_I_PITCH,
  MBD_I_DISTANCE,
  MBD_I_NODE,      /* name */
  MBD_I_BEAM,      /* sub: LENGTH, EI, RHOA, MODES items */
  MBD_I_LENGTH,    /* in a beam; and a spring's rest length */
  MBD_I_EI,
  MBD_I_RHOA,
  MBD_I_NMODES,
  MBD_I_NODES,     /* sub: NODEDEF items */
  MBD_I_NODEDEF,   /* name, xyz, sub: MASS, INERTIA */
  MBD_I_MODES,     /* sub: MODEDEF items */
  MBD_I_MODEDEF,   /* name, sub: SHAPE items */
  MBD_I_SHAPE,     /* name (a node), args: 6 values */
  MBD_I_STIFFNESS, /* rows (flexible body); args (spring) */
  MBD_I_DAMPING,   /* rows (flexible body); args (spring) */
  MBD_I_UNKNOWN    /* name: a word that is no property (reported by the checker) */
} mbd_item_kind;

typedef struct mbd_item {
  mbd_item_kind kind;
  mbg_loc loc;        /* of the keyword (or of the name for NODEDEF, MODEDEF, SHAPE) */
  mbd_exprs *args;    /* values; for ORIGIN/TARGET/NODEDEF: the xyz part */
  mbg_loc xyz_loc;    /* ORIGIN/TARGET: the xyz keyword */
  mbd_exprs *rpy;     /* ORIGIN/TARGET: the rpy part */
  mbg_loc rpy_loc;
  char *name;         /* NODE, NODEDEF, MODEDEF, SHAPE */
  mbd_rows *rows;     /* STIFFNESS, DAMPING */
  struct mbd_item *sub;  /* nested items */
  struct mbd_item *next;
} mbd_item;

typedef enum mbd_stmt_kind {
  MBD_S_MODEL,
  MBD_S_GRAVITY,
  MBD_S_CONST,
  MBD_S_BODY,
  MBD_S_JOINT,
  MBD_S_LOOP,
  MBD_S_INDEPENDENT,
  MBD_S_PARAMETERS, /* names: bodies, `all`, `gravity` (run-time inertial parameters) */
  MBD_S_SPRING,  /* name, parent (body A), child (body B), items */
  MBD_S_INITIAL, /* name (a joint), args (positions, may be NULL), velocity (may be NULL) */
  MBD_S_FRAME    /* name, parent (the body it is fixed on), items (origin) */
} mbd_stmt_kind;

typedef struct mbd_stmt {
  mbd_stmt_kind kind;
  mbg_loc loc;           /* of the leading keyword */
  char *name;            /* MODEL, CONST, BODY, JOINT, LOOP, SPRING, FRAME */
  mbg_loc name_loc;
  mbd_expr *value;       /* CONST */
  mbd_exprs *args;       /* GRAVITY, INITIAL (positions) */
  mbd_exprs *velocity;   /* INITIAL: the values after 'velocity' */
  mbg_loc velocity_loc;  /* INITIAL: the 'velocity' keyword */
  int flexible;          /* BODY */
  mbg_loc flexible_loc;
  char *type;            /* JOINT, LOOP */
  mbg_loc type_loc;
  char *parent, *child;  /* JOINT, LOOP, SPRING; FRAME: parent (its body) */
  mbg_loc parent_loc, child_loc;
  mbd_item *items;       /* BODY, JOINT, LOOP, SPRING, FRAME */
  mbd_name *names;       /* INDEPENDENT */
  struct mbd_stmt *next;
} mbd_stmt;

typedef struct mbd_ast {
  mbd_stmt *first, *last;
} mbd_ast;

/* Constructors: each takes ownership of its arguments; NULL when out of memory (the arguments
 * are then freed). */
mbd_expr *mbd_expr_num(double v, mbg_loc loc);
mbd_expr *mbd_expr_name(char *name, mbg_loc loc);
mbd_expr *mbd_expr_op(mbd_expr_kind kind, mbd_expr *a, mbd_expr *b, mbg_loc loc);
mbd_exprs *mbd_exprs_append(mbd_exprs *list, mbd_expr *e);
mbd_rows *mbd_rows_append(mbd_rows *rows, mbd_exprs *row);
mbd_name *mbd_name_new(char *name, mbg_loc loc);
mbd_item *mbd_item_new(mbd_item_kind kind, mbg_loc loc);
mbd_stmt *mbd_stmt_new(mbd_stmt_kind kind, mbg_loc loc);
/* Lists are built by prepending (O(1)) and reversed once complete. */
mbd_item *mbd_item_reverse(mbd_item *list);
mbd_name *mbd_name_reverse(mbd_name *list);

void mbd_expr_free(mbd_expr *e);
void mbd_exprs_free(mbd_exprs *l);
void mbd_rows_free(mbd_rows *r);
void mbd_name_free(mbd_name *n);
void mbd_item_free(mbd_item *it);
void mbd_stmt_free(mbd_stmt *s);
void mbd_ast_free(mbd_ast *ast);

/* Deepest expression tree the parser builds; deeper input is an error, so that evaluating and
 * freeing expressions (recursive) stays within a small, bounded stack. */
enum { MBD_MAX_EXPR_DEPTH = 200 };

/* Parse `len` bytes of `text` (need not be NUL-terminated). Syntax errors go to `diag` (counted;
 * the parser recovers and continues). Returns the AST — possibly partial when there were errors —
 * or NULL when out of memory. */
mbd_ast *mbd_parse(const char *text, size_t len, mbg_diag *diag);

#endif
