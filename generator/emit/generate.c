/* generate.c — the stages of `mbdc generate` and `mbdc stats` in order. */
#include "emit/generate.h"

#include <lauxlib.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/digest.h"
#include "base/quote.h"
#include "base/readfile.h"
#include "emit/gen_base.h"
#include "emit/gen_cfa.h"
#include "emit/gen_contacts.h"
#include "emit/gen_coupled.h"
#include "emit/gen_prescribed.h"
#include "emit/gen_functions.h"
#include "emit/gen_fuse.h"
#include "emit/gen_model.h"
#include "emit/gen_names.h"
#include "emit/gen_params.h"
#include "emit/gen_recipe.h"
#include "emit/gen_render.h"
#include "emit/gen_templates.h"
#include "emit/gen_trig.h"
#include "load/load.h"
#include "lua/lua_recipes.h"
#include "model/build.h"
#include "model/names.h"
#include "topology/regular.h"

/* The prefix: --prefix or the model name; a C identifier, not reserved (gen_names.h). */
static int choose_prefix(mbg_gen *g, FILE *err) {
  const char *p = g->opts->prefix ? g->opts->prefix : g->model->name;
  char why[160], shown[160];
  if (!mbg_gen_prefix_ok(p, why, sizeof why)) {
    mbg_quote_comment_to(p, shown, sizeof shown); /* --prefix is any text: shown escaped */
    fprintf(err, "mbdc: error: prefix '%s' %s\n", shown, why);
    return 2;
  }
  strcpy(g->prefix, p);
  return 0;
}

/* "; did you mean ...? (the built-in functions: ...)" for a --functions name with no recipe. */
static void suggest_function(const char *name, FILE *err) {
  const char *all[64];
  mbg_gen_builtin_functions(all, 64);
  mbg_suggest_words(err, name, all, "the built-in functions");
}

int mbg_gen_builtin_functions(const char **names, int cap) {
  int n = 0;
  for (const mbg_fn *f = mbg_fns; f->name && n < cap - 1; f++)
    if (f->asked) names[n++] = f->name;
  names[n] = NULL;
  return n;
}

/* The functions not generated yet for a model with flexible bodies (docs/flexible.md). */
static const char *const flex_missing[] = {
    "cfa",    "frame_jacobian", "frame_jacobian_world", "frame_velocity", "frame_acceleration_bias",
    "com",    "com_jacobian",   "energy",               "centroidal_momentum", "ccrba",
    "centroidal_bias", "contact_fd", "contact_fd_reg", "impulse", "aba_wrenches",
    "rnea_derivatives", "rnea_ext_derivatives", "aba_derivatives", "aba_ext_derivatives", "contact_fd_derivatives",
    "impulse_derivatives", "contact_fd_reg_derivatives",
    "frame_velocity_derivatives",
    "frame_velocity_derivatives_local", "frame_acceleration_derivatives",
    "frame_acceleration_derivatives_local", "regressor", "energy_regressor", "base_regressor",
    "base_params", "hybrid", "hybrid_fixed", "fd_loops_hybrid", "gravity_derivatives", NULL};

/* The first tree body with modes, 0 if none. */
static int flexible_body(const mbg_gen *g) {
  for (int i = 1; i <= g->topo->nb; i++)
    if (g->topo->body[i].nm > 0) return i;
  return 0;
}

/* "MODEL: note: ..." on err, unless -q. */
static void note(const mbg_gen *g, FILE *err, const char *fmt, ...) MBG_PRINTF(3, 4);
static void note(const mbg_gen *g, FILE *err, const char *fmt, ...) {
  if (g->opts->quiet) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(err, "%s: note: ", g->opts->model_path);
  vfprintf(err, fmt, ap);
  fputc('\n', err);
  va_end(ap);
}

/* Leave out of the defaults (a note) or refuse on request (an error, returns 1) what is not
 * generated for flexible bodies yet. */
static int flex_functions(const mbg_gen *g, char **names, int *n, FILE *err) {
  int f = flexible_body(g);
  if (!f) return 0;
  const char *body = g->model->bodies[g->topo->body[f].model_body].name;
  for (int k = 0; k < *n; k++)
    for (int j = 0; flex_missing[j]; j++) {
      if (strcmp(names[k], flex_missing[j]) != 0) continue;
      if (g->opts->functions) {
        fprintf(err, "%s: error: --functions %s: %s is not generated for models with flexible "
                     "bodies yet ('%s' has modes)\n", g->opts->model_path, names[k], names[k], body);
        return 1;
      }
      note(g, err, "%s is not generated: not yet for models with flexible bodies ('%s' has modes)",
           names[k], body);
      free(names[k]);
      for (int i = k; i + 1 < *n; i++) names[i] = names[i + 1];
      names[--*n] = NULL;
      k--;
      break;
    }
  return 0;
}

/* The functions not generated with run-time inertial parameters (docs/parameters.md): cfa
 * inverts every body's inertia once, as constants, which is the point of its formulation; and
 * not with armature (docs/dsl.md "Joint properties"): cfa's formulation has no joint-space
 * inertia (docs/cfa.md). */
static const char *const params_missing[] = {"cfa", NULL};
static const char *const armature_missing[] = {"cfa", NULL};
/* Nor for a model with a universal joint (mb_has_varying_S): cfa's constraint bases T assume every
 * S constant in its child frame (runtime/mb.h, the same refusal). */
static const char *const universal_missing[] = {"cfa", NULL};
/* Nor hybrid with --passive-in-fd: which of its forces would be applied and which total is a
 * choice the caller makes (docs/analysis.md: add τ_passive to in). */
static const char *const passive_missing[] = {"hybrid", "hybrid_fixed", "fd_loops_hybrid", NULL};

/* Leave the functions of `list` out of the defaults (a note) or refuse them on request (an error,
 * returns 1), `why` saying when they are not generated. */
static int unsupported(const mbg_gen *g, char **names, int *n, FILE *err,
                       const char *const *list, const char *why) {
  for (int k = 0; k < *n; k++)
    for (int j = 0; list[j]; j++) {
      if (strcmp(names[k], list[j]) != 0) continue;
      if (g->opts->functions) {
        fprintf(err, "%s: error: --functions %s: %s is not generated %s\n", g->opts->model_path,
                names[k], names[k], why);
        return 1;
      }
      note(g, err, "%s is not generated: not %s", names[k], why);
      free(names[k]);
      for (int i = k; i + 1 < *n; i++) names[i] = names[i + 1];
      names[--*n] = NULL;
      k--;
      break;
    }
  return 0;
}

/* Leave out of the defaults (a note) or refuse on request what is not generated for a model with
 * coupled joints (gen_coupled.h). */
static int coupled_functions(const mbg_gen *g, char **names, int *n, FILE *err) {
  if (!g->topo->ncoupled) return 0;
  char name[64];
  const char *list[2] = {name, NULL};
  for (int k = 0; k < *n; k++) {
    if (mbg_gen_coupled_kind(g, names[k]) != MBG_COUPLED_NONE) continue;
    if (mbg_gen_fuse_find(g, names[k]) >= 0) /* asked for by --fuse: an error */
      return fprintf(err, "%s: error: --fuse %s: with coupled (mimic) joints a fused function's "
                          "parts must map their arrays alike (docs/dsl.md \"Coupled joints\": "
                          "all folded, all picked or all solved)\n",
                     g->opts->model_path, names[k]), 1;
    snprintf(name, sizeof name, "%s", names[k]); /* unsupported frees names[k] */
    if (unsupported(g, names, n, err, list, "for models with coupled (mimic) joints yet")) return 1;
    k--;
  }
  return 0;
}

/* What a model with coupled joints is not generated with yet: an error naming one coupled joint. */
static int coupled_model(const mbg_gen *g, FILE *err) {
  const mbg_topology *t = g->topo;
  if (!t->ncoupled) return 0;
  /* (loop joints with coupled joints are the model's error: model/mimic.c) */
  const char *what = flexible_body(g) ? "flexible bodies" : NULL;
  if (!what) return 0;
  const mbg_joint *J = NULL;
  for (int j = 0; j < g->model->njoints && !J; j++)
    if (g->model->joints[j].mimic) J = &g->model->joints[j];
  fprintf(err, "%s: error: coupled joints ('%s' mimics '%s') are not generated with %s yet\n",
          g->opts->model_path, J->name, g->model->joints[J->mimic - 1].name, what);
  return 1;
}

static int params_functions(const mbg_gen *g, char **names, int *n, FILE *err) {
  if (g->params &&
      unsupported(g, names, n, err, params_missing,
                  "with run-time inertial parameters (it inverts the bodies' inertias as "
                  "constants)"))
    return 1;
  if (mb_has_armature(&g->rt.model) &&
      unsupported(g, names, n, err, armature_missing, "for joints with armature yet"))
    return 1;
  if (mb_has_varying_S(&g->rt.model) &&
      unsupported(g, names, n, err, universal_missing, "for universal joints yet"))
    return 1;
  if (g->passive_in_fd &&
      unsupported(g, names, n, err, passive_missing,
                  "with --passive-in-fd yet (add the passive forces to its in)"))
    return 1;
  return 0;
}

/* The largest array of the generated interface: an nv × nv matrix or a pose per body, 12 (nb + 1)
 * numbers. Both the generator (its symbolic arrays) and the emitted code (sizes written as
 * NV * NV, an int expression) index it with an int. */
static int sizes_fit(const mbg_gen *g, FILE *err) {
  long long nv = g->topo->nv, nb1 = (long long)g->topo->nb + 1, nf = g->topo->nframes;
  long long big = nv * nv > 12 * nb1 ? nv * nv : 12 * nb1;
  if (6 * nv * nf > big) big = 6 * nv * nf;
  if (big <= INT_MAX) return 1;
  fprintf(err,
          "%s: error: the model is too large to generate: nv = %lld velocity coordinates, %lld "
          "bodies and %lld frames make arrays of %lld numbers (an nv x nv matrix, a pose per "
          "body, a Jacobian per frame), more than the %d that generated code indexes\n",
          g->opts->model_path, nv, nb1, nf, big, INT_MAX);
  return 0;
}

/* A limit option: 0 the default, < 0 none (0 for mbg_lua_set_limits). */
static double limit(double option, double default_value) {
  return option == 0 ? default_value : option < 0 ? 0 : option;
}

static int open_sym(lua_State *L) {
  mbg_lsym_open(L, lua_touserdata(L, 1));
  return 0;
}

/* The Lua host: limits set, the sym binding installed. Returns 0 or the exit status. */
static int open_lua(mbg_gen *g, FILE *err) {
  const mbg_gen_opts *o = g->opts;
  if (!(g->lua = mbg_lua_new(o->templates))) return fprintf(err, "mbdc: error: out of memory\n"), 2;
  long long mib = o->lua_memory_mib == 0 ? MBG_LUA_DEFAULT_MEMORY_MIB : o->lua_memory_mib;
  if (mib < 0 || mib > (LLONG_MAX >> 20)) mib = 0;
  mbg_lua_set_limits(g->lua, limit(o->lua_seconds, MBG_LUA_DEFAULT_SECONDS), mib << 20);
  g->sym_max_bytes = (size_t)mib << 20; /* the graph a recipe builds: the same limit again */
  if (mbg_lua_cpcall(g->lua, open_sym, &g->lsym, 0) != 0)
    return fprintf(err, "mbdc: error: %s\n", mbg_lua_error(g->lua)), 2;
  return 0;
}

/* The --templates directory checked; topology, alignment, working frames, runtime model, Lua
 * host and the recipes' model table of g->model. */
/* --frames LIST: keep only the named operational frames (in the model's order), each name once
 * and known. Returns 0, or 2 (a usage error, as an unknown --functions name) after saying which
 * name is wrong. */
static int select_frames(mbg_gen *g, FILE *err) {
  const char *spec = g->opts->frames;
  mbg_topology *t = g->topo;
  if (!spec) return 0;
  char *keep = calloc((size_t)t->nframes + 1, 1);
  if (!keep) return fprintf(err, "mbdc: error: out of memory\n"), 2;
  for (const char *p = spec; *p; p += strcspn(p, ","), p += *p == ',') {
    size_t len = strcspn(p, ",");
    if (len == 0) continue;
    int found = -1;
    for (int k = 0; k < t->nframes && found < 0; k++)
      if (strlen(t->frame[k].name) == len && strncmp(t->frame[k].name, p, len) == 0) found = k;
    if (found < 0 || keep[found]) {
      char name[80];
      snprintf(name, sizeof name, "%.*s", (int)(len < 79 ? len : 79), p);
      fprintf(err, "mbdc: error: --frames: %s '%s'", found < 0 ? "no frame" : "twice the frame",
              name);
      if (found < 0) {
        const char **all = calloc((size_t)t->nframes + 1, sizeof *all);
        for (int k = 0; all && k < t->nframes; k++) all[k] = t->frame[k].name;
        if (all) mbg_suggest_words(err, name, all, "the frames");
        free(all);
      }
      fputc('\n', err);
      free(keep);
      return 2;
    }
    keep[found] = 1;
  }
  int n = 0;
  for (int k = 0; k < t->nframes; k++)
    if (keep[k]) t->frame[n++] = t->frame[k];
  t->nframes = n;
  free(keep);
  if (n == 0) return fprintf(err, "mbdc: error: --frames names no frame\n"), 2;
  return 0;
}

static int prepare(mbg_gen *g, const char *source, size_t len, FILE *err) {
  int rc = choose_prefix(g, err);
  if (rc) return rc;
  if (g->opts->templates && (rc = mbg_gen_templates_check(g->opts->templates, err))) return rc;
  if (!(g->topo = mbg_topology_build(g->model)))
    return fprintf(err, "mbdc: error: out of memory\n"), 2;
  /* the loops close near the model's initial configuration; their independent rows (loop_rows.h) */
  rc = mbg_check_loops(g->model, g->topo, g->topo->q_initial, g->opts->model_path, source, len,
                       err, &g->loops);
  if (rc < 0) return fprintf(err, "mbdc: error: out of memory\n"), 2;
  if (rc > 0)
    return fprintf(err, "%s: %d error%s\n", g->opts->model_path, rc, rc > 1 ? "s" : ""), 1;
  rc = mbg_rcr_selections(g->model, g->topo, &g->loops, g->opts->model_path, source, len, err,
                          &g->rcr);
  if (rc < 0) return fprintf(err, "mbdc: error: out of memory\n"), 2;
  if (rc > 0)
    return fprintf(err, "%s: %d error%s\n", g->opts->model_path, rc, rc > 1 ? "s" : ""), 1;
  if ((rc = select_frames(g, err)) || (rc = mbg_gen_select_contacts(g, err)) ||
      (rc = mbg_gen_select_prescribed(g, err)))
    return rc;
  if (!sizes_fit(g, err)) return 1;
  if (mbg_align(g->topo, &g->aligned) != 0 ||
      mbg_dh_place(g->topo, &g->aligned, &g->dh) != 0 ||
      mbg_rtmodel_build(g->model, g->topo, &g->rt) != 0)
    return fprintf(err, "mbdc: error: out of memory\n"), 2;
  if (mbg_rtsprings_build(g->model, g->topo, &g->rtsprings) != 0 ||
      mbg_rtframes_build(g->topo, &g->rtframes) != 0)
    return fprintf(err, "mbdc: error: out of memory\n"), 2;
  if ((rc = mbg_gen_params_build(g, err)) != 0)
    return rc < 0 ? (fprintf(err, "mbdc: error: out of memory\n"), 2) : rc;
  if ((rc = open_lua(g, err))) return rc;
  g->passive_in_fd = g->opts->passive_in_fd && (g->topo->nsprings > 0 || g->rtsprings.joint);
  mbg_gen_coupled_init(g);
  if ((rc = coupled_model(g, err)) != 0) return rc;
  if (g->opts->passive_in_fd && !g->passive_in_fd)
    note(g, err, "--passive-in-fd changes nothing: the model has no springs and no joint with "
                 "damping, friction or stiffness");
  if (g->topo->nv == 0) {
    fprintf(err, "%s: error: the model has no moving joint: nothing to generate\n",
            g->opts->model_path);
    return 1;
  }
  if (mbg_gen_trig_slots(g) != 0) return fprintf(err, "mbdc: error: out of memory\n"), 2;
  if (mbg_gen_push_model(g) != 0)
    return fprintf(err, "mbdc: error: %s\n", mbg_lua_error(g->lua)), 2;
  return 0;
}

int mbg_gen_open(mbg_gen *g, const mbg_gen_opts *o, FILE *err) {
  int errors = 0, warnings = 0;
  size_t len;
  memset(g, 0, sizeof *g);
  const char *path = o->model_path;
  char *text = mbg_read_file(path, &len, err);
  mbg_load_opts lo = {.floating_base = o->floating_base, .couple_mimic = o->couple_mimic,
                      .quiet = o->quiet};
  mbg_model *m = text ? mbg_model_from_source(path, text, len, &lo, err, &errors, &warnings) : NULL;
  /* the model checks end with a mass matrix regular in a generic configuration (the same check
   * as `mbdc check`), before any recipe runs */
  if (m && (errors = mbg_check_regular(m, path, text, len, err)) != 0) {
    if (errors < 0) fprintf(err, "mbdc: error: out of memory\n"), errors = 1;
    mbg_model_free(m);
    m = NULL;
  }
  if (!m) {
    fprintf(err, "%s: %d error%s\n", path, errors ? errors : 1, errors > 1 ? "s" : "");
    free(text);
    return 1;
  }
  int rc = mbg_gen_open_model(g, o, m, text, len, err);
  free(text);
  return rc;
}

int mbg_gen_open_model(mbg_gen *g, const mbg_gen_opts *o, mbg_model *m, const char *source,
                       size_t len, FILE *err) {
  char hex[65];
  memset(g, 0, sizeof *g);
  g->opts = o;
  g->model_ref = LUA_NOREF;
  g->model = m;
  mbg_sha256_hex(source, len, hex); /* the bytes that were parsed */
  snprintf(g->digest, sizeof g->digest, "sha256:%s", hex);
  return prepare(g, source, len, err);
}

/* A default of the model: the table's defaults, its loop functions for a model with loops, its
 * contact functions with --contacts (gen_functions.h). */
static int is_default(const mbg_fn *f, int loops, int contacts) {
  return f->asked && (f->group == MBG_FN_DEFAULT || (loops && f->group == MBG_FN_LOOPS) ||
                      (contacts && f->group == MBG_FN_CONTACTS));
}

/* The names of --functions (or the defaults), malloc'ed; NULL when out of memory. Empty items
 * (",,") are skipped. */
static char **function_list(const char *spec, int loops, int contacts, int nfuse, int *n) {
  size_t cap = 3 + (size_t)nfuse; /* the final NULL, passive_forces and node_poses (add_passive),
                                     the --fuse functions */
  for (const char *p = spec; p && *p; p++) cap += *p == ',';
  for (const mbg_fn *f = mbg_fns; !spec && f->name; f++)
    cap += is_default(f, loops, contacts) != 0;
  char **names = calloc(cap, sizeof *names);
  int ok = names != NULL;
  *n = 0;
  for (const mbg_fn *f = mbg_fns; ok && !spec && f->name; f++)
    if (is_default(f, loops, contacts)) ok = (names[(*n)++] = strdup(f->name)) != NULL;
  for (const char *p = spec; ok && p && *p; p += strcspn(p, ","), p += *p == ',') {
    size_t len = strcspn(p, ",");
    if (len > 0) ok = (names[(*n)++] = strndup(p, len)) != NULL;
  }
  if (!ok && names) {
    for (int k = 0; k < *n; k++) free(names[k]);
    free(names);
    names = NULL;
  }
  return names;
}

/* The defaults of a model with springs or joints with damping, friction or stiffness also hold
 * passive_forces, of a model with flexible bodies node_poses (names has room for both). */
static int add_passive(const mbg_gen *g, char **names, int *n) {
  if (g->opts->functions) return 0;
  if ((g->topo->nsprings > 0 || g->rtsprings.joint) && !(names[(*n)++] = strdup("passive_forces")))
    return -1;
  if (g->rt.model.flex && g->rt.model.flex->nnodes > 0 && !(names[(*n)++] = strdup("node_poses")))
    return -1;
  return 0;
}

/* "rcr" stands for its parts: rcr_pivots, one variant per selection (rcr_0 ...) and its
 * refinement (rcr_refine_0 ...), over which the C template c/rcr.lua writes p_rcr. Returns the new list (names freed), or NULL. */
static char **expand_rcr(const mbg_gen *g, char **names, int *n, FILE *err) {
  int at = -1;
  for (int k = 0; k < *n; k++)
    if (strcmp(names[k], "rcr") == 0) at = k;
  if (at < 0 || g->rcr.nsel == 0) return names;
  if (g->opts->scalar == MBG_SYM_FLOAT && !g->opts->functions) {
    /* measured on tests/models/four_bar.mbd: float p_rcr differs from the double runtime by up
     * to 1e-4 relative, fd_loops by 2e-5 (docs/loops.md): not a default in float */
    note(g, err, "rcr is not generated by default in float (it loses about four times more "
                 "digits than fd_loops there; docs/loops.md): ask for it with --functions");
    free(names[at]);
    for (int k = at; k + 1 < *n; k++) names[k] = names[k + 1];
    names[--*n] = NULL;
    return names;
  }
  char **out = calloc((size_t)(*n + 2 * g->rcr.nsel + 2), sizeof *out);
  int m = 0, ok = out != NULL;
  for (int k = 0; ok && k < *n; k++) {
    if (k != at) {
      out[m++] = names[k], names[k] = NULL;
      continue;
    }
    ok = (out[m++] = strdup("rcr_pivots")) != NULL;
    for (int s = 0; ok && s < g->rcr.nsel; s++) {
      char buf[32];
      snprintf(buf, sizeof buf, "rcr_%d", s);
      ok = (out[m++] = strdup(buf)) != NULL;
      snprintf(buf, sizeof buf, "rcr_refine_%d", s);
      ok = ok && (out[m++] = strdup(buf)) != NULL;
    }
  }
  for (int k = 0; k < *n; k++) free(names[k]);
  free(names);
  if (!ok) {
    for (int k = 0; out && k < m; k++) free(out[k]);
    free(out);
    return NULL;
  }
  *n = m;
  return out;
}

int mbg_gen_check_recipe(mbg_gen *g, const char *name, const char *via, FILE *err) {
  char path[96], why[160];
  const char *c_why;
  if (!mbg_valid_c_name(name, &c_why)) {
    mbg_quote_comment_to(name, why, sizeof why); /* any text: shown escaped */
    fprintf(err, "mbdc: error: %s: no recipe for function '%s' (not a C identifier)\n", via, why);
    return 2;
  }
  if (g->loops.nc == 0 && mbg_fn_is(name, MBG_FN_LOOPS))
    return fprintf(err, "%s: error: %s %s: %s needs a model with loop joints ('loop' "
                        "statements); this one has none\n",
                   g->opts->model_path, via, name, name), 1;
  if (!g->prescribed && strcmp(name, "hybrid_fixed") == 0)
    return fprintf(err, "mbdc: error: %s %s: hybrid_fixed needs the joints it prescribes: "
                        "--prescribed JOINT,...\n", via, name), 2;
  if (g->ncontacts == 0 && mbg_fn_is(name, MBG_FN_CONTACTS))
    return fprintf(err, "mbdc: error: %s %s: %s needs the frames in contact: "
                        "--contacts FRAME[:3|:6],...\n", via, name, name), 2;
  int fb = flexible_body(g);
  for (int j = 0; fb && flex_missing[j]; j++)
    if (strcmp(name, flex_missing[j]) == 0)
      return fprintf(err, "%s: error: %s %s: %s is not generated for models with flexible "
                          "bodies yet ('%s' has modes)\n", g->opts->model_path, via, name, name,
                     g->model->bodies[g->topo->body[fb].model_body].name), 1;
  if (mbg_gen_base_check(g, name, via, err)) return 1; /* base_*, joint_regressor */
  if (g->passive_in_fd && g->topo->nsprings > 0 && strcmp(name, "aba_derivatives") == 0)
    return fprintf(err, "%s: error: %s %s: not generated with --passive-in-fd for a model with "
                        "springs yet (the derivatives of the springs' forces are not derived)\n",
                   g->opts->model_path, via, name), 1;
  const mbg_lua_recipe *none;
  if (!mbg_lua_has_recipe(g->lua, name) &&
      mbg_lua_find(g->lua, name, 0, path, sizeof path, &none) == MBG_LUA_FILE)
    return fprintf(err, "mbdc: error: %s: '%s' is not a recipe but a library the recipes "
                        "import (%s)\n", via, name, path), 2;
  if (!mbg_lua_has_recipe(g->lua, name)) {
    snprintf(path, sizeof path, "algorithms/%s.lua", name);
    fprintf(err, "mbdc: error: %s: no recipe for function '%s' (%s)", via, name, path);
    suggest_function(name, err);
    fprintf(err, "\n");
    return 2;
  }
  return 0;
}

int mbg_gen_run(mbg_gen *g, FILE *err) {
  int n, rc = 0;
  char **names = function_list(g->opts->functions, g->loops.nc > 0, g->ncontacts > 0,
                               g->opts->nfuse, &n);
  if (names && (add_passive(g, names, &n) != 0 || mbg_gen_fuse_names(g, names, &n) != 0)) {
    for (int k = 0; k < n; k++) free(names[k]);
    free(names), names = NULL;
  }
  if (names && g->loops.nc > 0) names = expand_rcr(g, names, &n, err);
  if (names) names = mbg_gen_trig_list(g, names, &n, err);
  if (!names) return fprintf(err, "mbdc: error: out of memory\n"), 2;
  char undefined[256];
  if (!g->opts->functions && !mbg_gen_cfa_defined(g, undefined, sizeof undefined)) {
    /* cfa is a default only where it is defined */
    note(g, err, "cfa is not generated: %s", undefined);
    for (int k = 0; k < n; k++)
      if (strcmp(names[k], "cfa") == 0) free(names[k]), names[k] = names[--n], names[n] = NULL;
  }
  if (flex_functions(g, names, &n, err) || params_functions(g, names, &n, err) ||
      coupled_functions(g, names, &n, err))
    rc = 1;
  mbg_ref fr = g->opts->frame;
  if (rc == 0 && flexible_body(g) && fr != MBG_REF_AUTO && fr != MBG_REF_BODY &&
      fr != MBG_REF_ALL)
    rc = (fprintf(err, "%s: error: --frame %s: the world-aligned frames are not available for "
                       "models with flexible bodies yet ('%s' has modes); use --frame body\n",
                  g->opts->model_path, mbg_ref_name(fr),
                  g->model->bodies[g->topo->body[flexible_body(g)].model_body].name), 1);
  if (rc == 0 && g->params && fr == MBG_REF_COM)
    rc = (fprintf(err, "mbdc: error: --frame com: not with run-time inertial parameters (its "
                       "frames sit at the centres of mass, which then move with pi); use --frame "
                       "auto, body, joint or world\n"), 2);
  if (rc == 0 && n == 0) rc = (fprintf(err, "mbdc: error: --functions lists no function\n"), 2);
  for (int k = 0; k < n && rc == 0; k++) {
    int fk = mbg_gen_fuse_find(g, names[k]);
    for (int j = 0; rc == 0 && j < k; j++)
      if (strcmp(names[j], names[k]) == 0)
        rc = (fprintf(err, mbg_gen_fuse_count(g, names[k]) > 1
                               ? "mbdc: error: --fuse %s: the name is given twice\n"
                               : "mbdc: error: --functions lists '%s' twice\n", names[k]), 2);
    if (rc == 0)
      rc = fk >= 0 ? mbg_gen_fuse_check(g, fk, err)
                   : mbg_gen_check_recipe(g, names[k], "--functions", err);
    char why[160];
    if (rc == 0 && !mbg_gen_function_name_ok(g->prefix, names[k], why, sizeof why))
      rc = (fprintf(err, "mbdc: error: function '%s' %s\n", names[k], why), 2);
  }
  if (rc == 0 && (n <= 0 || !(g->functions = calloc((size_t)n, sizeof *g->functions))))
    rc = (fprintf(err, "mbdc: error: out of memory\n"), 2);
  for (int k = 0; k < n && rc == 0; k++) {
    int is_cfa = strcmp(names[k], "cfa") == 0;
    rc = is_cfa ? mbg_gen_cfa(g, &g->functions[k], err)
                : mbg_gen_recipe(g, names[k], &g->functions[k], err);
    g->nfunctions = k + 1;
    if (rc == MBG_GEN_SINGULAR && is_cfa) {
      /* A positive definite in exact arithmetic, but singular to working precision for every
       * configuration (a body whose inertia is negligible against its neighbours'): like a body
       * without an inverse inertia, cfa is left out of the defaults and refused on request */
      fprintf(err, "%s: %s: %s: its constraint matrix is singular to working precision in every "
                   "configuration (%s)\n", g->opts->model_path,
              g->opts->functions ? "error" : "note",
              g->opts->functions ? "cannot generate cfa" : "cfa is not generated",
              g->lsym.singular_msg);
      mbg_gen_function_free(&g->functions[k]);
      g->nfunctions = k;
      rc = g->opts->functions ? 1 : 0;
      if (rc == 0) {
        free(names[k]);
        for (int j = k; j + 1 < n; j++) names[j] = names[j + 1];
        names[--n] = NULL;
        k--;
      }
    } else if (rc == MBG_GEN_SINGULAR) {
      rc = 1;
    }
  }
  for (int k = 0; k < n; k++) free(names[k]);
  free(names);
  if (rc == 0) rc = mbg_gen_trig_twins(g, err);
  return rc;
}

void mbg_gen_close(mbg_gen *g) {
  for (int k = 0; k < g->nfunctions; k++) mbg_gen_function_free(&g->functions[k]);
  free(g->functions);
  mbg_lsym_end(&g->lsym);
  mbg_lua_free(g->lua);
  mbg_rtmodel_free(&g->rt);
  mbg_loop_rows_free(&g->loops);
  mbg_rcr_sel_free(&g->rcr);
  mbg_rtsprings_free(&g->rtsprings);
  mbg_rtframes_free(&g->rtframes);
  free(g->contacts);
  free(g->prescribed);
  free(g->trig_slot);
  mbg_gen_base_free(g);
  mbg_gen_params_free(g->params);
  mbg_dh_free(&g->dh);
  mbg_aligned_free(&g->aligned);
  mbg_topology_free(g->topo);
  mbg_model_free(g->model);
  memset(g, 0, sizeof *g);
}

int mbg_generate(const mbg_gen_opts *o, FILE *err) {
  mbg_gen g;
  int rc = mbg_gen_open(&g, o, err);
  if (rc == 0) rc = mbg_gen_run(&g, err);
  if (rc == 0) rc = mbg_gen_render(&g, err);
  if (rc == 0) mbg_gen_templates_unused(&g, 1, err);
  mbg_gen_close(&g);
  return rc;
}

/* --frame all: function f's operations in every variant (mbg_sym_ops), "-" where not built,
 * the generated one starred; JSON: "frames": {"body": N, ...}. */
static void print_variants(const mbg_gen_function *f, int json, FILE *out) {
  for (int v = MBG_REF_BODY; v < MBG_NREFS; v++) {
    int tried = f->variant[v].tried;
    long ops = mbg_sym_ops(&f->variant[v].counts);
    if (json && tried)
      fprintf(out, "%s\"%s\": %ld", v == MBG_REF_BODY ? "" : ", ", mbg_ref_name((mbg_ref)v),
              ops);
    else if (json)
      fprintf(out, "%s\"%s\": null", v == MBG_REF_BODY ? "" : ", ", mbg_ref_name((mbg_ref)v));
    else if (tried)
      fprintf(out, " %8ld%c", ops, (int)f->frame == v ? '*' : ' ');
    else
      fprintf(out, " %8s ", "-");
  }
}

/* The width of the name column of `mbdc stats`: the longest function name, and the cfa
 * orders' labels (gen_cfa.c), at least 16. */
static int name_width(const mbg_gen *g) {
  int w = g->ncfa_rows > 0 ? (int)strlen("cfa[odd-even]") : 16;
  if (w < 16) w = 16;
  for (int k = 0; k < g->nfunctions; k++)
    if ((int)strlen(g->functions[k].name) > w) w = (int)strlen(g->functions[k].name);
  return w;
}

static void print_counts(const mbg_gen *g, int json, FILE *out) {
  int all = g->opts->frame == MBG_REF_ALL, w = name_width(g);
  if (json) fprintf(out, "{\"functions\": {");
  else {
    fprintf(out, "%-*s %8s %8s %6s %6s %6s %7s %9s %9s %-6s", w, "function", "mul", "add", "div",
            "sqrt", "trig", "live", "bytes", "code KiB", "frame");
    for (int v = MBG_REF_BODY; all && v < MBG_NREFS; v++)
      fprintf(out, " %8s ", mbg_ref_name((mbg_ref)v));
    fputc('\n', out);
  }
  long size = g->opts->scalar == MBG_SYM_FLOAT ? 4 : 8;
  for (int k = 0; k < g->nfunctions; k++) {
    const mbg_gen_function *f = &g->functions[k];
    const mbg_sym_counts *c = &f->counts;
    const char *fr = mbg_ref_name(f->frame ? f->frame : MBG_REF_BODY);
    if (json) {
      fprintf(out,
              "%s\"%s\": {\"mul\": %ld, \"add\": %ld, \"div\": %ld, \"sqrt\": %ld, "
              "\"trig\": %ld, \"live\": %ld, \"live_bytes\": %ld, \"code_bytes\": %ld, "
              "\"frame\": \"%s\"",
              k ? ", " : "", f->name, c->mul, c->add, c->div, c->sqrt, c->trig, f->live,
              f->live * size, f->code_bytes, fr);
      if (all) fprintf(out, ", \"frames\": {"), print_variants(f, 1, out), fputc('}', out);
      fputc('}', out);
    } else {
      fprintf(out, "%-*s %8ld %8ld %6ld %6ld %6ld %7ld %9ld %9.1f %-6s", w, f->name, c->mul,
              c->add, c->div, c->sqrt, c->trig, f->live, f->live * size,
              (double)f->code_bytes / 1024, fr);
      if (all) print_variants(f, 0, out);
      fputc('\n', out);
    }
  }
  if (json) fprintf(out, "}");
  mbg_gen_cfa_print(g, json, w, out);
  mbg_gen_base_print(g, json, out); /* NBASE, when computed */
  if (json) fprintf(out, "}\n");
}

int mbg_stats(const mbg_gen_opts *o, int json, FILE *out, FILE *err) {
  mbg_gen g;
  int rc = mbg_gen_open(&g, o, err);
  g.stats_only = 1;
  if (rc == 0) rc = mbg_gen_run(&g, err);
  if (rc == 0) {
    if (!json)
      fprintf(out, "%s: nq %d, nv %d, %d moving bod%s (sub counted as add; mul excludes div; "
              "live:\nthe most values live at once in the emitted order, bytes: their size, about "
              "the\nstack a function needs; code KiB: its machine code as estimated for x86-64 "
              "(over\n32 KiB, its zeros are stored first); frame: where it computes, --frame; "
              "with\n--frame all, each variant's mul + add + div + sqrt + trig, * the one "
              "generated)\n", g.prefix, g.topo->nq, g.topo->nv, g.topo->nb,
              g.topo->nb == 1 ? "y" : "ies");
    print_counts(&g, json, out);
    mbg_gen_templates_unused(&g, 0, err);
  }
  mbg_gen_close(&g);
  return rc;
}
