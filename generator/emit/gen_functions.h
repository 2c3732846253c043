/* gen_functions.h — the built-in functions of the generated code, in one table: every name, when
 * it is generated and what it computes in one line. generate.c takes from it the defaults, the
 * functions it adds for loops and contacts and the names --functions accepts; `mbdc generate
 * --help` and `mbdc functions` print it (their signatures: gen_signature.h). A function's recipe
 * is found by lua/lua_recipes.h; tests/test_functions.c checks that every built-in recipe has its
 * line here (but the parts of rcr) and every line its description. */
#ifndef MBG_GEN_FUNCTIONS_H
#define MBG_GEN_FUNCTIONS_H

/* When a function is generated. */
typedef enum mbg_fn_group {
  MBG_FN_DEFAULT,  /* without --functions, in the table's order (cfa where it is defined) */
  MBG_FN_LOOPS,    /* added to the defaults for a model with loop joints */
  MBG_FN_MODEL,    /* added for a model with spring-dampers or flexible bodies' nodes */
  MBG_FN_CONTACTS, /* added with --contacts */
  MBG_FN_TRIG,     /* added with --trig-input */
  MBG_FN_BY_NAME,  /* only when --functions names it */
  MBG_FN_NGROUPS
} mbg_fn_group;

typedef struct mbg_fn {
  const char *name;      /* P_<name> in the generated code; NULL ends the table */
  mbg_fn_group group;
  int asked;             /* a name --functions accepts (project_q and project_v are written
                            with loop_residual and loop_jacobian, never asked for) */
  const char *brief;     /* what it computes, one line */
  const char *prototype; /* NULL: made from its recipe (gen_signature.h); else the prototype the
                            C template writes (rcr, project_q, project_v), P the prefix, double */
} mbg_fn;

/* The table, grouped, the defaults in the order they are generated. */
extern const mbg_fn mbg_fns[];

/* The line of function name, or NULL. */
const mbg_fn *mbg_fn_find(const char *name);
/* 1 if name is a function of group g that --functions accepts. */
int mbg_fn_is(const char *name, mbg_fn_group g);
/* The group's key in JSON ("default", "loops", ...) and its title in the listings. */
const char *mbg_fn_group_key(mbg_fn_group g);
const char *mbg_fn_group_title(mbg_fn_group g);

#endif
