/* gen_body.c — a generated function's body: the emission options of its statements (the batch
 * of sines and cosines, the zero local, the zeros stored first, the parts of a long body and
 * their parameters) and the statements themselves, streamed from its graph. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/gen_body.h"

/* The L1 instruction cache of the x86-64 and AArch64 cores the code is tuned for: a function
 * estimated larger stores its zeros first, as vectors (mbg_sym_emit_opts.zeros_first_above;
 * measured in docs/generator.md, "Code size and the instruction cache"). */
#define MBG_GEN_L1I_BYTES 32768

/* By default (--parts), a function body of more than 3 times this many statements is cut into
 * parts of about as many (mbg_sym_emit_opts.split_above; measured in docs/generator.md, "Long
 * functions"). */
#define MBG_GEN_PART_SIZE 4000

/* By default, the derivative functions (every name with "_derivatives": rnea_derivatives,
 * aba_derivatives, the contact ones, ..., and their twins), the longest mbdc writes, are cut past
 * the same length but into parts of about this many:
 * romeo_small's two then compile in about 26 s of processor time at -O2 instead of 30 s, at the
 * same instructions per call within 1 % (docs/derivatives.md, "Compile time"). */
#define MBG_GEN_PART_SIZE_DERIV 2000

/* --batch: the statements of one loop over the lanes (mbg_sym_emit_opts.lane_statements;
 * measured in docs/batch.md). */
#define MBG_GEN_LANE_STATEMENTS 32

/* The parts' parameters (mbg_sym_emit_opts.part_params, part_args): f's own, as pointers, then
 * the pivots' arrays of an int function (source.lua), malloc'ed. */
typedef struct part_params {
  char *decl;
  const char *args[MBG_LSYM_MAX_ARRAYS + 9];
  char name[160];
} part_params;

static void part_params_free(part_params *pp) { free(pp->decl), pp->decl = NULL; }

/* eo for f's body (its statements: mbg_sym_emit_c), pp holding the parts' parameters. 0, or -1
 * (memory). */
static int body_opts(const mbg_gen *g, const mbg_gen_function *f, const char *const *reserved,
                     mbg_sym_emit_opts *eo, part_params *pp) {
  static const char *const pivots[] = {"pivot",           "pivot_ref",        "pivot_switch",
                                       "pivot_switch_ref", "pivot_refine",    "pivot_refine_ref",
                                       "pivot_head",      "pivot_head_ref"};
  const char *scalar = g->opts->scalar == MBG_SYM_FLOAT ? "float" : "double";
  long part = g->opts->part_size == 0 ? MBG_GEN_PART_SIZE : g->opts->part_size < 0 ? 0
                                                                              : g->opts->part_size;
  long split = 3 * part;
  if (g->opts->part_size == 0 && strstr(f->name, "_derivatives"))
    part = MBG_GEN_PART_SIZE_DERIV;
  *eo = (mbg_sym_emit_opts){.indent = "  ", .scalar = g->opts->scalar, .no_final_newline = 1,
                            .reserved = reserved,
                            .sincos = g->opts->trig_libm ? NULL : "mbdc_sincos",
                            .zero = "mbdc_zero", .zeros_first_above = MBG_GEN_L1I_BYTES,
                            .split_above = split, .part_size = (int32_t)part,
                            .part_lv = "mbdc_lv", .part_args = pp->args};
  snprintf(pp->name, sizeof pp->name, "%.80s_%.64s_part", g->prefix, f->name);
  eo->part_name = pp->name;
  size_t cap = 64, n = 0;
  for (int k = 0; k < f->nparams; k++) cap += strlen(f->params[k].name) + 32;
  pp->decl = malloc(cap + 8 * 40);
  if (!pp->decl) return -1;
  pp->decl[0] = 0;
  int na = 0;
  int have[4] = {f->npivots > 0, f->nswitch > 0, f->nrefine > 0, f->nhead > 0};
  for (int k = 0; k < f->nparams + 8; k++) {
    const mbg_gen_param *p = k < f->nparams ? &f->params[k] : NULL;
    if (!p && !have[(k - f->nparams) / 2]) continue;
    const char *name = p ? p->name : pivots[k - f->nparams];
    if (!p) n += (size_t)sprintf(pp->decl + n, "%s%s *%s", n ? ", " : "", scalar, name);
    else if (p->pass == MBG_PASS_VALUE)
      n += (size_t)sprintf(pp->decl + n, "%s%s %s", n ? ", " : "", scalar, name);
    else
      n += (size_t)sprintf(pp->decl + n, "%s%s%s *%s", n ? ", " : "", p->is_output ? "" : "const ",
                           p->pass == MBG_PASS_INT_ARRAY ? "int" : scalar, name);
    pp->args[na++] = name;
  }
  pp->args[na] = NULL;
  eo->part_params = pp->decl;
  return 0;
}

/* Function f's statements, emitted from its graph straight into out, without the final
 * newline (a function of a large model has millions of them: they are never held as text).
 * Returns 0, or -1 (memory, or a write error). */
int mbg_gen_put_body(const mbg_gen *g, const mbg_gen_function *f, FILE *out,
                    const char *const *reserved, int parts) {
  static const char *const pivots[] = {"pivot",        "pivot_ref",        "pivot_switch",
                                       "pivot_switch_ref", "pivot_refine", "pivot_refine_ref",
                                       "pivot_head",   "pivot_head_ref",   NULL};
  char lanes[80], loop[80];
  mbg_sym_emit_opts eo;
  part_params pp;
  int rc = body_opts(g, f, reserved, &eo, &pp);
  eo.emit_parts = parts == 1;
  if (parts == 2) { /* --batch: the lanes (source.lua's P_LANES, n the caller's states) */
    size_t k = 0;
    for (; g->prefix[k] && k < 63; k++) lanes[k] = (char)toupper((unsigned char)g->prefix[k]);
    snprintf(lanes + k, sizeof lanes - k, "_LANES");
    memcpy(loop, lanes, k), snprintf(loop + k, sizeof loop - k, "_LANE_LOOP");
    eo.lanes = lanes, eo.lane_stride = "n", eo.lane_local = pivots; /* batch.lua's */
    eo.lane_loop = loop;
    eo.lane_statements = MBG_GEN_LANE_STATEMENTS;
  }
  if (rc == 0) rc = f->sym && mbg_sym_emit_c(f->sym, out, &eo) == 0 ? 0 : -1;
  part_params_free(&pp);
  return rc;
}

int32_t mbg_gen_parts(const mbg_gen *g, const mbg_gen_function *f, int32_t *slots) {
  mbg_sym_emit_opts eo;
  part_params pp;
  int32_t n = body_opts(g, f, NULL, &eo, &pp) == 0 ? mbg_sym_emit_parts(f->sym, &eo, slots) : -1;
  part_params_free(&pp);
  return n;
}
