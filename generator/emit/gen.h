/* gen.h — the state of one generation, shared by the files of emit/: the options, the model
 * through every earlier stage (model, topology, aligned and working frames, runtime model), the
 * Lua host, and the functions generated so far. Data only; each stage has its own header. */
#ifndef MBG_GEN_H
#define MBG_GEN_H

#include <stdio.h>

#include "emit/cfa_order.h"
#include "emit/gen_reference.h"
#include "lua/lua_host.h"
#include "lua/lua_sym.h"
#include "sym/sym.h"
#include "topology/align.h"
#include "topology/dh_frames.h"
#include "topology/loop_rows.h"
#include "topology/rcr_select.h"
#include "topology/rtmodel.h"
#include "topology/topology.h"

enum { MBG_GEN_MAX_FUSE = 16 }; /* --fuse options at most */

typedef struct mbg_gen_opts {
  const char *model_path;
  const char *outdir;    /* NULL = "." */
  const char *prefix;    /* NULL = the model's name */
  mbg_sym_scalar scalar; /* double or float */
  const char *functions; /* comma-separated list, NULL = the defaults (gen_functions.h) */
  const char *frames;    /* --frames: comma-separated operational frames to keep, NULL = all */
  const char *contacts;  /* --contacts: comma-separated FRAME or FRAME:3 / FRAME:6, NULL = none */
  const char *prescribed; /* --prescribed: comma-separated joints hybrid_fixed prescribes */
  const char *templates; /* --templates DIR, or NULL */
  const char *command;   /* the command line to print in the banner */
  const char *model_shown; /* the model's path in the banner (NULL = model_path) */
  mbg_cfa_kind cfa_order; /* --cfa-order; AUTO = the cheaper by operation count */
  mbg_ref frame;          /* --frame (gen_reference.h); AUTO (0) = the cheapest per function */
  int floating_base;      /* --floating-base (URDF) */
  int couple_mimic;       /* --couple-mimic (URDF): <mimic> joints coupled */
  int trig_libm;          /* --trig libm: sin and cos of the C library, not mbdc_sincos */
  int trig_input;         /* --trig-input: p_trig(q, sc) and a twin p_f_sc(q, sc, ...) of every
                             function f that takes sines or cosines of the joint angles */
  int quiet;              /* -q: warnings and notes not printed, errors are */
  const char *fuse[MBG_GEN_MAX_FUSE]; /* --fuse NAME=f1,f2,... (gen_fuse.h), nfuse of them */
  int nfuse;
  double lua_seconds;       /* --lua-time, CPU seconds per template run: 0 the default, < 0 none */
  long long lua_memory_mib; /* --lua-memory, MiB in all: 0 the default, < 0 none */
  long part_size;           /* --parts, statements per part: 0 the default, < 0 never cut */
  const char *parameters;   /* --parameters: bodies, all, gravity (gen_params.h); NULL = the
                               model's `parameters` statement, if any */
  int passive_in_fd;        /* --passive-in-fd: forward dynamics with tau + passive_forces */
  int batch;                /* --batch: p_f_batch of every function (source.lua, docs/batch.md) */
} mbg_gen_opts;

/* A contact of --contacts (gen_contacts.c): an operational frame (index into topo->frame, after
 * --frames) in contact, dim 3 (a point: a force at its origin) or 6 (welded: a wrench). */
typedef struct mbg_gen_contact {
  int frame, dim;
} mbg_gen_contact;

/* One generated function, as prepared for the render templates. */
typedef struct mbg_gen_param {
  char name[32];
  char role[16];
  int size;
  int is_output;
  int used;
  int pass; /* MBG_PASS_ARRAY, MBG_PASS_INT_ARRAY (the contacts' switches), MBG_PASS_VALUE (dt) */
  char part[32]; /* an output of a --fuse function: the recipe it comes from; else "" */
} mbg_gen_param;

enum { MBG_PASS_ARRAY, MBG_PASS_INT_ARRAY, MBG_PASS_VALUE };

typedef struct mbg_gen_function {
  char *name, *summary;
  int returns_int;
  int nparams;
  mbg_gen_param params[MBG_LSYM_MAX_ARRAYS];
  int npivots, nswitch, nrefine, nhead; /* sym.pivot, switch_pivot, refine_pivot and
                                         * refine_head_pivot checks (lua_sym.h) */
  int refine_always;                    /* sym.refine_always: status bit 2 always */
  mbg_sym_counts counts;
  long live; /* the most temporaries live at once (mbg_sym_peak_live) */
  long code_bytes; /* the estimated machine code (mbg_sym_code_bytes) */
  int frames;       /* the recipe has the choice of frames (its table's frames = true) */
  mbg_ref frame;    /* the variant generated (BODY for a recipe without the choice) */
  char epilogue[32]; /* a step in C after the graph (its table's epilogue; source.lua): "" none */
  mbg_ref fixed_frame; /* where a recipe without the choice computes (its table's frame, e.g.
                        * "world" for the derivatives); AUTO (0): not said, body frames */
  struct {
    int tried;
    mbg_sym_counts counts;
  } variant[MBG_NREFS];
  int twin_of; /* --trig-input: the _sc twin of functions[twin_of - 1]; 0: not a twin */
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
  mbg_loop_rows loops; /* the loops' independent rows and assembled configuration */
  mbg_rcr_sel rcr;     /* the selections of dependent coordinates of p_rcr */
  mbg_rtsprings rtsprings; /* the runtime's springs (the harness's reference) */
  mbg_rtframes rtframes;   /* the runtime's operational frames */
  int ncontacts, ncrows;     /* --contacts: the contacts and their rows (sum of dims) */
  mbg_gen_contact *contacts; /* [ncontacts] */
  unsigned char *prescribed; /* --prescribed: [nv] flags, 1 prescribed (NULL: not given) */
  char prefix[64];
  char digest[72]; /* "sha256:<hex>" */
  mbg_lua *lua;
  size_t sym_max_bytes; /* the limit of one function's expression graph (--lua-memory; 0: none) */
  mbg_lsym lsym;
  int model_ref; /* registry reference of the frozen model table */
  int nfunctions;
  mbg_gen_function *functions;
  int ntrig;             /* the joint angles (revolute, continuous, helical) */
  int *trig_slot;        /* [nb + 1]: body i's angle's slot in sc, or -1 (mbg_gen_trig_slots) */
  int trig_twin;         /* the function being generated reads their sines and cosines from
                            sc (--trig-input) */
  int keep_sym;          /* keep every function's graph (for evaluating it in tests) */
  int stats_only;        /* count only: no statements emitted (mbdc stats) */
  mbg_cfa_kind cfa_kind; /* the order model.cfa describes (AUTO: tips) */
  int ncfa_rows;         /* the orders cfa was generated in, the one kept first */
  mbg_gen_cfa_row cfa_rows[2];
  struct mbg_gen_base *base; /* the base parameters, once asked for (gen_base.h); NULL before */
  struct mbg_gen_params *params; /* run-time inertial parameters (gen_params.h); NULL: none */
  int passive_in_fd; /* forward dynamics adds passive_forces (--passive-in-fd, and the model has
                        springs or joints' damping, friction or stiffness): model.passive_in_fd
                        of the recipes, d.passive_in_fd of the render templates */
  mbg_lsym_coupling cpl; /* coupled (mimic) coordinates (gen_coupled.h); zeros: none */
} mbg_gen;

/* Whether a function's graph outlives its recipe: for writing the files, or for tests. */
static inline int mbg_gen_keeps_graph(const mbg_gen *g) { return g->keep_sym || !g->stats_only; }

#endif
