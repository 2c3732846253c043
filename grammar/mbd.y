/* mbd.y — the grammar of the model language (docs/dsl.md has the user's version of it).
 *
 * A pure, reentrant parser over the reentrant lexer of mbd.l. It builds the AST of ast.h with
 * locations and nothing else: names, counts and values are checked by generator/build.c. Every
 * owned semantic value has a %destructor, so error recovery leaks nothing. */
%define api.pure full
%define api.prefix {mbd_yy}
%define parse.error custom
%locations
%param {void *scanner}
%parse-param {struct mbd_lex_state *st}

%code requires {
#include "ast.h"
#include "lexstate.h"
}

%code provides {
int mbd_yylex(MBD_YYSTYPE *lval, MBD_YYLTYPE *lloc, void *scanner);
/* 1 when reading should stop (lexstate.h), said once; the lexer calls it before every token and
 * after each error of its own. */
int mbd_stop_reading(struct mbd_lex_state *st);
}

%code {
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void mbd_yyerror(MBD_YYLTYPE *loc, void *scanner, struct mbd_lex_state *st,
                        const char *msg);

/* A location of ours from Bison's. */
static mbg_loc L(MBD_YYLTYPE l) {
  mbg_loc r = {l.first_line, l.first_column, l.first_line == l.last_line ? l.last_column : 0};
  return r;
}

/* An operator node, refused (with one error per file) beyond MBD_MAX_EXPR_DEPTH. */
static mbd_expr *op(struct mbd_lex_state *st, mbd_expr_kind k, mbd_expr *a, mbd_expr *b,
                    MBD_YYLTYPE loc) {
  mbd_expr *e = mbd_expr_op(k, a, b, L(loc));
  if (!e) {
    st->out_of_memory = 1;
    return NULL;
  }
  if (e->depth > MBD_MAX_EXPR_DEPTH) {
    if (!st->depth_reported)
      mbg_diag_error(st->diag, L(loc),
                     "expression too long or too deeply nested (more than %d operators deep)",
                     MBD_MAX_EXPR_DEPTH);
    st->depth_reported = 1;
    mbd_expr_free(e);
    e = mbd_expr_num(0.0, L(loc));
  }
  return e;
}

static mbd_item *item(mbd_item_kind k, MBD_YYLTYPE loc, mbd_exprs *args) {
  mbd_item *it = mbd_item_new(k, L(loc));
  if (it) it->args = args;
  else mbd_exprs_free(args);
  return it;
}

static mbd_item *prepend(mbd_item *list, mbd_item *it) {
  if (!it) return list;
  it->next = list;
  return it;
}

static void add_stmt(struct mbd_lex_state *st, mbd_stmt *s) {
  if (!s) {
    st->out_of_memory = 1;
    return;
  }
  if (st->ast->last) st->ast->last->next = s;
  else st->ast->first = s;
  st->ast->last = s;
}

/* The text of a soft keyword used as a name. */
static char *word(struct mbd_lex_state *st, const char *w) {
  char *s = strdup(w);
  if (!s) st->out_of_memory = 1;
  return s;
}
}

%union {
  double num;
  char *str;
  mbd_expr *expr;
  mbd_exprs *exprs;
  mbd_rows *rows;
  mbd_item *item;
  mbd_stmt *stmt;
  mbd_name *name;
}

%token <str> IDENT "name"
%token <num> NUMBER "number"
%token MODEL "'model'" GRAVITY "'gravity'" CONST "'const'" BODY "'body'" JOINT "'joint'"
       LOOP "'loop'" INDEPENDENT "'independent'" PARAMETERS "'parameters'"
       MASS "'mass'" COM "'com'" INERTIA "'inertia'" ORIGIN "'origin'" TARGET "'target'"
       XYZ "'xyz'" RPY "'rpy'" AXIS "'axis'" AXIS2 "'axis2'" PITCH "'pitch'"
       DISTANCE "'distance'" FLEXIBLE "'flexible'" NODE "'node'"
       PI "'pi'" DEG "'deg'" SQRT "'sqrt'" SIN "'sin'" COS "'cos'"
       BEAM "'beam'" LENGTH "'length'" EI "'EI'" RHOA "'rhoA'" MODES "'modes'"
       NODES "'nodes'" STIFFNESS "'stiffness'" DAMPING "'damping'"
       SPRING "'spring'" INITIAL_KW "'initial'" VELOCITY "'velocity'" FRAME_KW "'frame'"
       ARROW "'->'" MINUS "'-'"
%token <num> UMINUS "unary '-'"  /* value 1 when unary only because of spacing: `a -b` */

%type <str> name param_name
%type <expr> expr
%type <exprs> exprs row_values
%type <rows> rows
%type <item> items item frame beam_params beam_param node_defs node_def node_props node_prop
             mode_defs mode_def shapes shape
%type <stmt> stmt joint_head spring_head initial_stmt
%type <name> names param_names

%destructor { free($$); } <str>
%destructor { mbd_expr_free($$); } <expr>
%destructor { mbd_exprs_free($$); } <exprs>
%destructor { mbd_rows_free($$); } <rows>
%destructor { mbd_item_free($$); } <item>
%destructor { mbd_stmt_free($$); } <stmt>
%destructor { mbd_name_free($$); } <name>

%left '+' MINUS
%left '*' '/'
%precedence NEG
%right '^'
%precedence DEG

%%

/* file: { statement | ';' } */
file:
    %empty
  | file stmt          { add_stmt(st, $2); }
  | file ';'
  | file error
  ;

/* statement: model | gravity | const | body | joint | loop | spring | initial | independent |
 * parameters | frame */
stmt:
    MODEL name ';'
      { $$ = mbd_stmt_new(MBD_S_MODEL, L(@1));
        if ($$) { $$->name = $2; $$->name_loc = L(@2); } else free($2); }
  | GRAVITY exprs ';'
      { $$ = mbd_stmt_new(MBD_S_GRAVITY, L(@1));
        if ($$) $$->args = $2; else mbd_exprs_free($2); }
  | CONST IDENT '=' expr ';'
      { $$ = mbd_stmt_new(MBD_S_CONST, L(@1));
        if ($$) { $$->name = $2; $$->name_loc = L(@2); $$->value = $4; }
        else { free($2); mbd_expr_free($4); } }
  | BODY name '{' items '}'
      { $$ = mbd_stmt_new(MBD_S_BODY, L(@1));
        if ($$) { $$->name = $2; $$->name_loc = L(@2); $$->items = mbd_item_reverse($4); }
        else { free($2); mbd_item_free($4); } }
  | BODY name FLEXIBLE '{' items '}'
      { $$ = mbd_stmt_new(MBD_S_BODY, L(@1));
        if ($$) { $$->name = $2; $$->name_loc = L(@2); $$->flexible = 1;
                  $$->flexible_loc = L(@3); $$->items = mbd_item_reverse($5); }
        else { free($2); mbd_item_free($5); } }
  | joint_head ';'
      { $$ = $1; }
  | joint_head '{' items '}'
      { $$ = $1; if ($$) $$->items = mbd_item_reverse($3); else mbd_item_free($3); }
  | INDEPENDENT names ';'
      { $$ = mbd_stmt_new(MBD_S_INDEPENDENT, L(@1));
        if ($$) $$->names = mbd_name_reverse($2); else mbd_name_free($2); }
  | PARAMETERS param_names ';'
      { $$ = mbd_stmt_new(MBD_S_PARAMETERS, L(@1));
        if ($$) $$->names = mbd_name_reverse($2); else mbd_name_free($2); }
  | spring_head '{' items '}'
      { $$ = $1; if ($$) $$->items = mbd_item_reverse($3); else mbd_item_free($3); }
  | initial_stmt ';'
      { $$ = $1; }
  | FRAME_KW name name ';'
      { $$ = mbd_stmt_new(MBD_S_FRAME, L(@1));
        if ($$) { $$->name = $2; $$->name_loc = L(@2); $$->parent = $3; $$->parent_loc = L(@3); }
        else { free($2); free($3); } }
  | FRAME_KW name name '{' items '}'
      { $$ = mbd_stmt_new(MBD_S_FRAME, L(@1));
        if ($$) { $$->name = $2; $$->name_loc = L(@2); $$->parent = $3; $$->parent_loc = L(@3);
                  $$->items = mbd_item_reverse($5); }
        else { free($2); free($3); mbd_item_free($5); } }
  ;

/* spring_head: 'spring' name body_a '->' body_b */
spring_head:
    SPRING name name ARROW name
      { $$ = mbd_stmt_new(MBD_S_SPRING, L(@1));
        if ($$) { $$->name = $2; $$->name_loc = L(@2); $$->parent = $3; $$->parent_loc = L(@3);
                  $$->child = $5; $$->child_loc = L(@5); }
        else { free($2); free($3); free($5); } }
  ;

/* initial_stmt: 'initial' joint [values] ['velocity' values] (at least one of the two lists) */
initial_stmt:
    INITIAL_KW name exprs
      { $$ = mbd_stmt_new(MBD_S_INITIAL, L(@1));
        if ($$) { $$->name = $2; $$->name_loc = L(@2); $$->args = $3; }
        else { free($2); mbd_exprs_free($3); } }
  | INITIAL_KW name VELOCITY exprs
      { $$ = mbd_stmt_new(MBD_S_INITIAL, L(@1));
        if ($$) { $$->name = $2; $$->name_loc = L(@2); $$->velocity = $4;
                  $$->velocity_loc = L(@3); }
        else { free($2); mbd_exprs_free($4); } }
  | INITIAL_KW name exprs VELOCITY exprs
      { $$ = mbd_stmt_new(MBD_S_INITIAL, L(@1));
        if ($$) { $$->name = $2; $$->name_loc = L(@2); $$->args = $3; $$->velocity = $5;
                  $$->velocity_loc = L(@4); }
        else { free($2); mbd_exprs_free($3); mbd_exprs_free($5); } }
  ;

/* joint_head: ('joint' | 'loop') name type parent '->' child */
joint_head:
    JOINT name name name ARROW name
      { $$ = mbd_stmt_new(MBD_S_JOINT, L(@1));
        if ($$) { $$->name = $2; $$->name_loc = L(@2); $$->type = $3; $$->type_loc = L(@3);
                  $$->parent = $4; $$->parent_loc = L(@4); $$->child = $6; $$->child_loc = L(@6); }
        else { free($2); free($3); free($4); free($6); } }
  | LOOP name name name ARROW name
      { $$ = mbd_stmt_new(MBD_S_LOOP, L(@1));
        if ($$) { $$->name = $2; $$->name_loc = L(@2); $$->type = $3; $$->type_loc = L(@3);
                  $$->parent = $4; $$->parent_loc = L(@4); $$->child = $6; $$->child_loc = L(@6); }
        else { free($2); free($3); free($4); free($6); } }
  ;

/* A name: an identifier, or a word that is a keyword only inside a flexible body. */
name:
    IDENT              { $$ = $1; }
  | BEAM               { $$ = word(st, "beam"); }
  | LENGTH             { $$ = word(st, "length"); }
  | EI                 { $$ = word(st, "EI"); }
  | RHOA               { $$ = word(st, "rhoA"); }
  | MODES              { $$ = word(st, "modes"); }
  | NODES              { $$ = word(st, "nodes"); }
  | STIFFNESS          { $$ = word(st, "stiffness"); }
  | DAMPING            { $$ = word(st, "damping"); }
  | SPRING             { $$ = word(st, "spring"); }
  | INITIAL_KW         { $$ = word(st, "initial"); }
  | VELOCITY           { $$ = word(st, "velocity"); }
  | FRAME_KW           { $$ = word(st, "frame"); }
  ;

names:
    name               { $$ = mbd_name_new($1, L(@1)); }
  | names name         { mbd_name *n = mbd_name_new($2, L(@2));
                         if (n) { n->next = $1; $$ = n; } else $$ = $1; }
  ;

/* param_names: { name | 'gravity' } (the `parameters` statement: bodies, all, gravity) */
param_name:
    name               { $$ = $1; }
  | GRAVITY            { $$ = word(st, "gravity"); }
  ;

param_names:
    param_name         { $$ = mbd_name_new($1, L(@1)); }
  | param_names param_name
                       { mbd_name *n = mbd_name_new($2, L(@2));
                         if (n) { n->next = $1; $$ = n; } else $$ = $1; }
  ;

/* items: { item }   (built in reverse, reversed by the enclosing rule) */
items:
    %empty             { $$ = NULL; }
  | items item         { $$ = prepend($1, $2); }
  | items error        { $$ = $1; }
  ;

/* item: a property of a body, joint or loop */
item:
    MASS exprs ';'               { $$ = item(MBD_I_MASS, @1, $2); }
  | COM exprs ';'                { $$ = item(MBD_I_COM, @1, $2); }
  | INERTIA exprs ';'            { $$ = item(MBD_I_INERTIA, @1, $2); }
  | AXIS exprs ';'               { $$ = item(MBD_I_AXIS, @1, $2); }
  | AXIS2 exprs ';'              { $$ = item(MBD_I_AXIS2, @1, $2); }
  | PITCH exprs ';'              { $$ = item(MBD_I_PITCH, @1, $2); }
  | DISTANCE exprs ';'           { $$ = item(MBD_I_DISTANCE, @1, $2); }
  | STIFFNESS exprs ';'          { $$ = item(MBD_I_STIFFNESS, @1, $2); }
  | DAMPING exprs ';'            { $$ = item(MBD_I_DAMPING, @1, $2); }
  | LENGTH exprs ';'             { $$ = item(MBD_I_LENGTH, @1, $2); }
  | ORIGIN frame ';'             { $$ = $2; if ($$) { $$->kind = MBD_I_ORIGIN; $$->loc = L(@1); } }
  | TARGET frame ';'             { $$ = $2; if ($$) { $$->kind = MBD_I_TARGET; $$->loc = L(@1); } }
  | NODE name ';'                { $$ = item(MBD_I_NODE, @1, NULL);
                                   if ($$) $$->name = $2; else free($2); }
  | BEAM beam_params ';'         { $$ = item(MBD_I_BEAM, @1, NULL);
                                   if ($$) $$->sub = mbd_item_reverse($2); else mbd_item_free($2); }
  | NODES '{' node_defs '}'      { $$ = item(MBD_I_NODES, @1, NULL);
                                   if ($$) $$->sub = mbd_item_reverse($3); else mbd_item_free($3); }
  | MODES '{' mode_defs '}'      { $$ = item(MBD_I_MODES, @1, NULL);
                                   if ($$) $$->sub = mbd_item_reverse($3); else mbd_item_free($3); }
  | STIFFNESS '{' rows '}'       { $$ = item(MBD_I_STIFFNESS, @1, NULL);
                                   if ($$) $$->rows = $3; else mbd_rows_free($3); }
  | DAMPING '{' rows '}'         { $$ = item(MBD_I_DAMPING, @1, NULL);
                                   if ($$) $$->rows = $3; else mbd_rows_free($3); }
  | IDENT exprs ';'              { $$ = item(MBD_I_UNKNOWN, @1, $2);
                                   if ($$) $$->name = $1; else free($1); }
  | IDENT ';'                    { $$ = item(MBD_I_UNKNOWN, @1, NULL);
                                   if ($$) $$->name = $1; else free($1); }
  ;

/* frame: 'xyz' x y z ['rpy' roll pitch yaw] | 'rpy' roll pitch yaw */
frame:
    XYZ exprs                    { $$ = item(MBD_I_ORIGIN, @1, $2); if ($$) $$->xyz_loc = L(@1); }
  | RPY exprs                    { $$ = item(MBD_I_ORIGIN, @1, NULL);
                                   if ($$) { $$->rpy = $2; $$->rpy_loc = L(@1); }
                                   else mbd_exprs_free($2); }
  | XYZ exprs RPY exprs          { $$ = item(MBD_I_ORIGIN, @1, $2);
                                   if ($$) { $$->rpy = $4; $$->rpy_loc = L(@3); $$->xyz_loc = L(@1); }
                                   else mbd_exprs_free($4); }
  ;

/* beam: 'beam' { ('length' | 'EI' | 'rhoA' | 'modes') value } */
beam_params:
    beam_param                   { $$ = $1; }
  | beam_params beam_param       { $$ = prepend($1, $2); }
  ;
beam_param:
    LENGTH expr                  { $$ = item(MBD_I_LENGTH, @1, mbd_exprs_append(NULL, $2)); }
  | EI expr                      { $$ = item(MBD_I_EI, @1, mbd_exprs_append(NULL, $2)); }
  | RHOA expr                    { $$ = item(MBD_I_RHOA, @1, mbd_exprs_append(NULL, $2)); }
  | MODES expr                   { $$ = item(MBD_I_NMODES, @1, mbd_exprs_append(NULL, $2)); }
  ;

/* nodes: 'nodes' '{' { name node_prop { node_prop } ';' } '}' */
node_defs:
    %empty                       { $$ = NULL; }
  | node_defs node_def           { $$ = prepend($1, $2); }
  | node_defs error              { $$ = $1; }
  ;
node_def:
    name node_props ';'          { $$ = item(MBD_I_NODEDEF, @1, NULL);
                                   if ($$) { $$->name = $1; $$->sub = mbd_item_reverse($2); }
                                   else { free($1); mbd_item_free($2); } }
  ;
node_props:
    node_prop                    { $$ = $1; }
  | node_props node_prop         { $$ = prepend($1, $2); }
  ;
node_prop:
    XYZ exprs                    { $$ = item(MBD_I_ORIGIN, @1, $2); }
  | MASS exprs                   { $$ = item(MBD_I_MASS, @1, $2); }
  | INERTIA exprs                { $$ = item(MBD_I_INERTIA, @1, $2); }
  ;

/* modes: 'modes' '{' { name '{' { node r1 r2 r3 t1 t2 t3 ';' } '}' } '}' */
mode_defs:
    %empty                       { $$ = NULL; }
  | mode_defs mode_def           { $$ = prepend($1, $2); }
  | mode_defs error              { $$ = $1; }
  ;
mode_def:
    name '{' shapes '}'          { $$ = item(MBD_I_MODEDEF, @1, NULL);
                                   if ($$) { $$->name = $1; $$->sub = mbd_item_reverse($3); }
                                   else { free($1); mbd_item_free($3); } }
  ;
shapes:
    %empty                       { $$ = NULL; }
  | shapes shape                 { $$ = prepend($1, $2); }
  | shapes error                 { $$ = $1; }
  ;
shape:
    name exprs ';'               { $$ = item(MBD_I_SHAPE, @1, $2);
                                   if ($$) $$->name = $1; else free($1); }
  ;

/* rows: { value { value } ';' } */
rows:
    %empty                       { $$ = mbd_rows_append(NULL, NULL);
                                   if (!$$) st->out_of_memory = 1; }
  | rows row_values ';'          { $$ = mbd_rows_append($1, $2); }
  | rows error                   { $$ = $1; }
  ;
row_values:
    exprs                        { $$ = $1; }
  ;

/* A list of values side by side: `0 0 -9.81`. */
exprs:
    expr                         { $$ = mbd_exprs_append(NULL, $1);
                                   if (!$$) st->out_of_memory = 1; }
  | exprs expr                   { $$ = mbd_exprs_append($1, $2); }
  ;

/* expr: number | name | 'pi' | '(' expr ')' | f '(' expr ')' | '-' expr | expr op expr | expr 'deg' */
expr:
    NUMBER                       { $$ = mbd_expr_num($1, L(@1)); if (!$$) st->out_of_memory = 1; }
  | IDENT                        { $$ = mbd_expr_name($1, L(@1)); if (!$$) st->out_of_memory = 1; }
  | PI                           { $$ = op(st, MBD_E_PI, NULL, NULL, @1); }
  | '(' expr ')'                 { $$ = $2; }
  | SQRT '(' expr ')'            { $$ = op(st, MBD_E_SQRT, $3, NULL, @1); }
  | SIN '(' expr ')'             { $$ = op(st, MBD_E_SIN, $3, NULL, @1); }
  | COS '(' expr ')'             { $$ = op(st, MBD_E_COS, $3, NULL, @1); }
  | UMINUS expr %prec NEG        { $$ = op(st, MBD_E_NEG, $2, NULL, @1);
                                   if ($$ && $$->kind == MBD_E_NEG) $$->split_minus = $1 != 0; }
  | expr '+' expr                { $$ = op(st, MBD_E_ADD, $1, $3, @2); }
  | expr MINUS expr              { $$ = op(st, MBD_E_SUB, $1, $3, @2); }
  | expr '*' expr                { $$ = op(st, MBD_E_MUL, $1, $3, @2); }
  | expr '/' expr                { $$ = op(st, MBD_E_DIV, $1, $3, @2); }
  | expr '^' expr                { $$ = op(st, MBD_E_POW, $1, $3, @2); }
  | expr DEG                     { $$ = op(st, MBD_E_DEG, $1, NULL, @2); }
  ;

%%

#include "mbd_lexer.h"

/* Human names of tokens, for "expected ..." lists. */
static const char *symbol_text(yysymbol_kind_t k) {
  switch (k) {
  case YYSYMBOL_YYEOF: return "end of file";
  case YYSYMBOL_IDENT: return "a name";
  case YYSYMBOL_NUMBER: return "a number";
  case YYSYMBOL_UMINUS: return "'-'";
  default: return yysymbol_name(k);
  }
}

static int is(yysymbol_kind_t k, const char *name) { return strcmp(yysymbol_name(k), name) == 0; }

/* What the parser could have accepted instead of the lookahead. */
typedef struct expected {
  int semicolon, rbrace, rparen, lparen, number, name, statement;
} expected;

static expected classify(const yysymbol_kind_t *exp, int n) {
  expected e = {0, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < n; i++) {
    e.semicolon |= is(exp[i], "';'");
    e.rbrace |= is(exp[i], "'}'");
    e.rparen |= is(exp[i], "')'");
    e.lparen |= is(exp[i], "'('");
    e.number |= exp[i] == YYSYMBOL_NUMBER;
    e.name |= exp[i] == YYSYMBOL_IDENT;
    e.statement |= exp[i] == YYSYMBOL_BODY;
  }
  return e;
}

static int starts_statement(yysymbol_kind_t k) {
  return k == YYSYMBOL_MODEL || k == YYSYMBOL_GRAVITY || k == YYSYMBOL_CONST ||
         k == YYSYMBOL_BODY || k == YYSYMBOL_JOINT || k == YYSYMBOL_LOOP ||
         k == YYSYMBOL_INDEPENDENT || k == YYSYMBOL_PARAMETERS || k == YYSYMBOL_SPRING ||
         k == YYSYMBOL_INITIAL_KW ||
         k == YYSYMBOL_FRAME_KW;
}

static void note_unless_same(struct mbd_lex_state *st, mbg_loc error_at, mbg_loc at,
                             const char *msg) {
  if (at.line != error_at.line || at.col != error_at.col) mbg_diag_note(st->diag, at, "%s", msg);
}

/* The fallback: "unexpected X; expected A, B or C" (the list only when it is short). */
static void report_list(struct mbd_lex_state *st, mbg_loc at, const char *what,
                        const yysymbol_kind_t *exp, int n) {
  enum { MAX_LISTED = 6 };
  char list[400] = "";
  size_t len = 0;
  for (int i = 0; n <= MAX_LISTED && i < n && len < sizeof list; i++)
    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                            symbol_text(exp[i]));
  if (len > 0) mbg_diag_error(st->diag, at, "unexpected %s; expected %s", what, list);
  else mbg_diag_error(st->diag, at, "unexpected %s", what);
}

int mbd_stop_reading(struct mbd_lex_state *st) {
  if (st->stopped) return 1;
  int errors = st->diag->errors - st->errors0;
  if (errors > st->errors_seen) { /* new errors, about where the lexer is */
    if (st->line != st->error_line) st->error_lines++, st->error_line = st->line;
    st->errors_seen = errors;
  }
  int none = st->ast->first == NULL; /* no statement read yet */
  if (errors < MBD_MAX_SYNTAX_ERRORS && !(none && st->error_lines >= MBD_NOT_A_MODEL_LINES))
    return 0;
  st->stopped = 1;
  mbg_loc file = {0, 0, 0};
  if (none && st->xml)
    mbg_diag_note(st->diag, file, "this looks like XML, not a .mbd model: mbdc reads a URDF from "
                                  "a file whose name ends in .urdf, an MJCF model from one that "
                                  "ends in .xml; stopped after %d errors",
                  errors);
  else if (none)
    mbg_diag_note(st->diag, file, "this does not look like a .mbd model (mbdc reads .mbd, .urdf "
                                  "and MJCF .xml files); stopped after %d errors", errors);
  else
    mbg_diag_note(st->diag, file, "too many syntax errors; stopped after %d, the rest of the "
                                  "file not read", errors);
  return 1;
}

/* A syntax error, said the way a person would fix it. The cases, most specific first. */
static int yyreport_syntax_error(const yypcontext_t *ctx, void *scanner,
                                 struct mbd_lex_state *st) {
  (void)scanner;
  if (st->stopped) return 0; /* the end of file the lexer returned after stopping */
  yysymbol_kind_t exp[YYNTOKENS];
  int n = yypcontext_expected_tokens(ctx, exp, YYNTOKENS);
  if (n < 0) n = 0;
  expected e = classify(exp, n);
  yysymbol_kind_t look = yypcontext_token(ctx);
  mbg_loc at = L(*yypcontext_location(ctx));
  int eof = look == YYSYMBOL_YYEOF;
  /* The last token before the error: at end of file the lexer's current one. */
  mbg_loc last = eof ? st->cur_loc : st->prev_loc;
  const char *last_text = eof ? st->cur_text : st->prev_text;
  int have_prev = last.line > 0;
  mbg_loc after = {last.line, last.last_col + 1, last.last_col + 1};
  char what[80];
  if (eof) snprintf(what, sizeof what, "end of file");
  else snprintf(what, sizeof what, "'%s'", st->cur_text);
  int keyword = !eof && look != YYSYMBOL_IDENT && look != YYSYMBOL_NUMBER &&
                ((st->cur_text[0] >= 'a' && st->cur_text[0] <= 'z') ||
                 (st->cur_text[0] >= 'A' && st->cur_text[0] <= 'Z'));
  int depth = st->brace_depth < 16 ? st->brace_depth : 16;
  /* Inside a block already reported as unclosed, everything is a consequence of it. */
  if (st->unclosed_level > 0 && st->brace_depth >= st->unclosed_level) return 0;
  if (st->brace_depth > 0 && (eof || (e.rbrace && !e.semicolon && starts_statement(look)))) {
    st->unclosed_level = st->brace_depth;
    mbg_loc where = eof && have_prev ? after : at;
    if (eof) mbg_diag_error(st->diag, where, "expected '}' at end of file");
    else mbg_diag_error(st->diag, where, "unexpected %s; expected '}'", what);
    note_unless_same(st, where, st->brace[depth - 1], "to close the block opened here");
  } else if (e.rparen && st->paren_depth > 0 && !e.number) {
    int p = st->paren_depth < 16 ? st->paren_depth : 16;
    mbg_diag_error(st->diag, at, "unexpected %s; expected ')'", what);
    note_unless_same(st, at, st->paren[p - 1], "to close the '(' here");
  } else if (!eof && is(look, "'('") && st->prev_tok == IDENT) {
    mbg_diag_error(st->diag, st->prev_loc,
                   "unknown function '%s'; the functions are sqrt, sin and cos", st->prev_text);
  } else if (e.statement) {
    mbg_diag_error(st->diag, at, "unexpected %s; expected a statement: model, gravity, const, "
                                 "body, joint, loop, spring, initial, independent, parameters or "
                                 "frame", what);
  } else if (e.semicolon && have_prev && (eof || at.line > last.line)) {
    mbg_diag_error(st->diag, after, "expected ';' after '%s'", last_text);
  } else if (e.semicolon) {
    mbg_diag_error(st->diag, at, "expected ';' before %s", what);
    if (look == YYSYMBOL_UMINUS && st->cur_split)
      mbg_diag_note(st->diag, at, "a '-' after a space and directly before a value starts a new "
                                  "value; write 'a - b' or 'a-b' for a difference");
  } else if (e.number) {
    mbg_diag_error(st->diag, at, "expected a value after '%s', found %s", last_text, what);
  } else if (e.name && e.rbrace) {
    mbg_diag_error(st->diag, at, "unexpected %s; expected a property (mass, origin, axis, ...) "
                                 "or '}'", what);
  } else if (e.name && keyword) {
    mbg_diag_error(st->diag, at, "'%s' is a reserved word and cannot be used as a name",
                   st->cur_text);
  } else if (e.name && have_prev) {
    mbg_diag_error(st->diag, at, "expected a name after '%s', found %s", last_text, what);
  } else if (e.lparen && n == 1) {
    mbg_diag_error(st->diag, at, "expected '(' after '%s'", last_text);
  } else {
    report_list(st, at, what, exp, n);
  }
  return 0;
}

static void mbd_yyerror(MBD_YYLTYPE *loc, void *scanner, struct mbd_lex_state *st,
                        const char *msg) {
  (void)scanner;
  if (st->stopped) return;
  if (strcmp(msg, "memory exhausted") == 0)
    mbg_diag_error(st->diag, L(*loc),
                   "input nested too deeply (more than %d levels of parentheses or signs)",
                   YYMAXDEPTH);
  else
    mbg_diag_error(st->diag, L(*loc), "%s", msg);
}

mbd_ast *mbd_parse(const char *text, size_t len, mbg_diag *diag) {
  struct mbd_lex_state st;
  memset(&st, 0, sizeof st);
  st.diag = diag;
  st.line = 1;
  st.col = 1;
  st.ast = calloc(1, sizeof *st.ast);
  if (!st.ast) return NULL;
  st.errors0 = diag->errors;
  size_t lead = 0; /* XML: '<' first, after white space and a UTF-8 byte order mark */
  if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) lead = 3;
  while (lead < len && (text[lead] == ' ' || text[lead] == '\t' || text[lead] == '\r' ||
                        text[lead] == '\n'))
    lead++;
  st.xml = lead < len && text[lead] == '<';
  yyscan_t scanner;
  if (mbd_yylex_init_extra(&st, &scanner) != 0) {
    free(st.ast);
    return NULL;
  }
  if (len > (size_t)INT32_MAX) len = (size_t)INT32_MAX; /* flex takes an int length */
  YY_BUFFER_STATE buf = mbd_yy_scan_bytes(text, (int)len, scanner);
  mbd_yyparse(scanner, &st);
  mbd_yy_delete_buffer(buf, scanner);
  mbd_yylex_destroy(scanner);
  if (st.out_of_memory) {
    mbd_ast_free(st.ast);
    return NULL;
  }
  return st.ast;
}
