/* generate.h — `mbdc generate` and `mbdc stats`: model → recipes → flat C files.
 *
 * Stages: load and check the model, build its topology, align the joint frames (align.h), place
 * the working frames (dh_frames.h), run one recipe per function in the embedded Lua over the
 * symbolic engine (gen_recipe.c), then the render templates over one prepared read-only table
 * (gen_render.c); every file is written to a temporary name and renamed. Deterministic: the same
 * model and options give the same bytes. */
#ifndef MBG_GENERATE_H
#define MBG_GENERATE_H

#include <stdio.h>

#include "align.h"
#include "cfa_order.h"
#include "dh_frames.h"
#include "lua_host.h"
#include "lua_sym.h"
#include "rtmodel.h"
#include "sym.h"
#include "topology.h"

/* The functions generated when --functions is not given, in this order. */
extern const char *const mbg_default_functions[];

typedef struct mbg_gen_opts {
  const char *model_path;
  const char *outdir;    /* NULL = "." */
  const char *prefix;    /* NULL = the model's name */
  mbg_sym_scalar scalar; /* double or float */
  const char *functions; /* comma-separated list, NULL = mbg_default_functions */
  const char *templates; /* --templates DIR, or NULL */
  const char *command;   /* the command line to print in the banner */
  mbg_cfa_kind cfa_order; /* --cfa-order; AUTO = the cheaper by operation count */
  int floating_base;      /* --floating-base (URDF) */
} mbg_gen_opts;

/* One generated function, as prepared for the render templates. */
typedef struct mbg_gen_param {
  char name[32];
  char role[16];
  int size;
  int is_output;
  int used;
} mbg_gen_param;

typedef struct mbg_gen_function {
  char *name, *summary;
  int returns_int;
  int nparams;
  mbg_gen_param params[MBG_LSYM_MAX_ARRAYS];
  int npivots;
  mbg_sym_counts counts;
  /* The expression graph: kept for writing the files (its statements are emitted straight into
   * the output, never held as text) or when mbg_gen.keep_sym (tests); NULL for stats. */
  mbg_sym *sym;
} mbg_gen_function;

/* The cfa function in one elimination order (gen_cfa.c), for `mbdc stats`. */
typedef struct mbg_gen_cfa_row {
  mbg_cfa_kind kind;
  mbg_sym_counts counts;
  long depth;       /* dependency depth of the whole function */
  long solve_depth; /* of the work after A and its right-hand side are assembled */
  int rounds, longest, nnode, fill, height, nhub; /* of the order (cfa_order.h) */
  double estimate; /* mbg_cfa_order_flops: the cost model that decides what is generated */
  int generated;   /* 0: skipped, its estimate far above the cheapest order's */
} mbg_gen_cfa_row;

/* Everything a generation works on: the model through every stage, and the Lua host. */
typedef struct mbg_gen {
  const mbg_gen_opts *opts;
  mbg_model *model;
  mbg_topology *topo;
  mbg_aligned aligned;
  mbg_dh dh; /* the working frames of the recipes */
  mbg_rtmodel rt;
  char prefix[64];
  char digest[72]; /* "sha256:<hex>" */
  mbg_lua *lua;
  mbg_lsym lsym;
  int model_ref; /* registry reference of the frozen model table */
  int nfunctions;
  mbg_gen_function *functions;
  int keep_sym;          /* keep every function's graph (for evaluating it in tests) */
  int stats_only;        /* count only: no statements emitted (mbdc stats) */
  mbg_cfa_kind cfa_kind; /* the order model.cfa describes (AUTO: tips) */
  int ncfa_rows;         /* the orders cfa was generated in, the one kept first */
  mbg_gen_cfa_row cfa_rows[2];
} mbg_gen;

/* Whether a function's graph outlives its recipe: for writing the files, or for tests. */
static inline int mbg_gen_keeps_graph(const mbg_gen *g) { return g->keep_sym || !g->stats_only; }

/* mbdc generate: returns the exit status (0, 1 model or recipe errors, 2 I/O). */
int mbg_generate(const mbg_gen_opts *o, FILE *err);
/* mbdc stats: operation counts of every function, as a table or as JSON. Exit status as above. */
int mbg_stats(const mbg_gen_opts *o, int json, FILE *out, FILE *err);

/* Stages, for the tests. mbg_gen_open loads the model, topology, alignment, runtime model and
 * Lua host (messages on err); mbg_gen_open_model does the same from a validated model it takes
 * over (the digest is that of source[0..len), the text it was built from); mbg_gen_run runs the recipes of
 * o->functions. All return 0 or the exit status. mbg_gen_close frees everything. */
int mbg_gen_open(mbg_gen *g, const mbg_gen_opts *o, FILE *err);
int mbg_gen_open_model(mbg_gen *g, const mbg_gen_opts *o, mbg_model *m, const char *source,
                       size_t len, FILE *err);
int mbg_gen_run(mbg_gen *g, FILE *err);
void mbg_gen_close(mbg_gen *g);

/* Internal stages (gen_model.c, gen_recipe.c, gen_render.c). */
int mbg_gen_push_model(mbg_gen *g);   /* the recipes' model table, frozen; 0 or -1 */
int mbg_gen_recipe(mbg_gen *g, const char *name, mbg_gen_function *f, FILE *err);
int mbg_gen_render(mbg_gen *g, FILE *err);
void mbg_gen_function_free(mbg_gen_function *f);
/* 1 when every body has an inverse inertia (the CFA is defined), else 0 with the reason. */
int mbg_gen_cfa_defined(const mbg_gen *g, char *why, size_t n);
/* cfa in --cfa-order, or in both orders keeping the cheaper (gen_cfa.c); 0 or exit status. */
int mbg_gen_cfa(mbg_gen *g, mbg_gen_function *f, FILE *err);
/* The cfa rows of `mbdc stats` (text lines, or the JSON member "cfa": {...} with its comma). */
void mbg_gen_cfa_print(const mbg_gen *g, int json, FILE *out);

#endif
