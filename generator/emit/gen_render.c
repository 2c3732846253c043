/* gen_render.c — the render table `d` (docs/templates.md "The render table") and the output
 * files: every template's text rendered first, then the five files written as one set
 * (base/outset.h) that replaces the old one whole. Numbers are formatted here, in C (shortest
 * round-trip), never by Lua; text from outside (paths, the command line, summaries) reaches the
 * table as comment text (base/quote.h). */
#include <ctype.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "emit/gen_prescribed.h"
#include "emit/gen_render.h"

#include "base/numfmt.h"
#include "base/outset.h"
#include "base/quote.h"
#include "emit/gen_base.h"
#include "emit/gen_body.h"
#include "emit/gen_model.h"
#include "emit/gen_limits.h"
#include "emit/gen_names.h"
#include "emit/gen_params.h"
#include "emit/gen_recipe.h"
#include "emit/gen_roles.h"
#include "topology/rtloops.h"

/* t[key] = {C literals of x[0..n)} */
static void set_doubles(lua_State *L, const char *key, const double *x, int n) {
  char buf[40];
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) {
    mbg_fmt_double(x[k], buf);
    lua_pushstring(L, buf);
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, key);
}

/* set_doubles of the entries k with !skip[k] (all when skip is NULL): the independent ones */
static void set_picked(lua_State *L, const char *key, const double *x, const int *skip, int n) {
  char buf[40];
  int at = 0;
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) {
    if (skip && skip[k]) continue;
    mbg_fmt_double(x[k], buf);
    lua_pushstring(L, buf);
    lua_rawseti(L, -2, ++at);
  }
  lua_setfield(L, -2, key);
}

static void set_ints(lua_State *L, const char *key, const int *x, int n) {
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) {
    lua_pushfstring(L, "%d", x[k]);
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, key);
}

/* t[key] = text from outside (a path, the command line, a recipe's summary) as comment text
 * (base/quote.h): nothing of it can end a comment or start a line of code. */
static void set_comment(lua_State *L, const char *key, const char *text) {
  luaL_Buffer b;
  size_t n = mbg_quote_comment_to(text, NULL, 0);
  char *p = luaL_buffinitsize(L, &b, n + 1);
  mbg_quote_comment_to(text, p, n + 1);
  luaL_pushresultsize(&b, n);
  lua_setfield(L, -2, key);
}

/* The marker that stands for function k's statements in the render table, and the one that
 * stands for the set's identifier (d.set_id); put_text replaces them by the statements and by
 * the identifier's placeholder (STX is never in a name, a number or a summary we produce: a
 * summary is comment text, base/quote.h). */
#define BODY_MARK "\002mbdc-body-"
#define PARTS_MARK "\002mbdc-parts-"
#define LANES_MARK "\002mbdc-lanes-"
#define SET_MARK "\002mbdc-set\002"

/* f.minv_runs = {start = {2 nv + 1}, runs = {...}}: the epilogue minus_minv_product's runs of
 * nonzero rows per column (mbg_gen_minv_runs); not set when out of memory (source.lua fails). */
static void push_minv_runs(mbg_gen *g, lua_State *L, const mbg_gen_function *f) {
  (void)g;
  int nv = mbg_gen_minv_nv(f), n = mbg_gen_minv_runs(f->sym, nv, NULL, NULL);
  int *runs = n >= 0 ? malloc(sizeof *runs * (size_t)(2 * n + 1)) : NULL;
  int *start = malloc(sizeof *start * (size_t)(2 * nv + 1));
  if (runs && start && mbg_gen_minv_runs(f->sym, nv, runs, start) == n) {
    lua_createtable(L, 0, 2);
    set_ints(L, "start", start, 2 * nv + 1);
    set_ints(L, "runs", runs, 2 * n);
    lua_setfield(L, -2, "minv_runs");
  }
  free(runs);
  free(start);
}

static void push_function(mbg_gen *g, lua_State *L, int index, const char *P) {
  const mbg_gen_function *f = &g->functions[index];
  const char *scalar = g->opts->scalar == MBG_SYM_FLOAT ? "float" : "double";
  lua_createtable(L, 0, 10);
  mbg_lua_set_string(L, "name", f->name);
  lua_pushfstring(L, "%s_%s", g->prefix, f->name);
  lua_setfield(L, -2, "cname");
  if (f->twin_of > 0) { /* a twin of --trig-input: says where its sines and cosines come from */
    size_t n = strlen(f->summary) + strlen(g->prefix) + 80;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s, with the joint angles' sines and cosines from sc (%s_trig)",
                    f->summary, g->prefix);
    set_comment(L, "summary", s ? s : f->summary);
    free(s);
  } else {
    set_comment(L, "summary", f->summary);
  }
  mbg_lua_set_string(L, "returns", f->returns_int ? "int" : "void");
  mbg_lua_set_int(L, "npivots", f->npivots);
  mbg_lua_set_int(L, "nswitch", f->nswitch);
  mbg_lua_set_int(L, "nrefine", f->nrefine);
  mbg_lua_set_int(L, "nhead", f->nhead);
  mbg_lua_set_int(L, "refine_always", f->refine_always);
  lua_pushfstring(L, BODY_MARK "%d\002", index);
  lua_setfield(L, -2, "body");
  lua_pushfstring(L, PARTS_MARK "%d\002", index);
  lua_setfield(L, -2, "parts");
  if (f->sym) { /* --batch: the statements over P_LANES states (source.lua) */
    lua_pushfstring(L, LANES_MARK "%d\002", index);
    lua_setfield(L, -2, "lanes");
  }
  int32_t slots = 0, nparts = f->sym ? mbg_gen_parts(g, f, &slots) : 1;
  mbg_lua_set_int(L, "nparts", nparts);
  mbg_lua_set_int(L, "part_slots", slots);
  lua_createtable(L, f->nparams, 0);
  for (int k = 0; k < f->nparams; k++) {
    const mbg_gen_param *p = &f->params[k];
    lua_createtable(L, 0, 6);
    mbg_lua_set_string(L, "name", p->name);
    mbg_lua_set_string(L, "role", p->role);
    /* the size and the declaration as the header writes them (gen_roles.h; a 63-character
     * prefix takes 130 characters in a size); the role was checked by gen_recipe.c */
    const mbg_role *r = mbg_role_find(p->role);
    char text[512];
    if (r && mbg_role_macro(r, P, text, sizeof text) < (int)sizeof text)
      mbg_lua_set_string(L, "size", text);
    if (r && mbg_role_decl(r, p->name, scalar, P, text, sizeof text) < (int)sizeof text)
      mbg_lua_set_string(L, "decl", text);
    lua_pushboolean(L, p->used || p->is_output);
    lua_setfield(L, -2, "used");
    lua_pushboolean(L, p->is_output);
    lua_setfield(L, -2, "is_output");
    if (p->part[0]) mbg_lua_set_string(L, "part", p->part); /* --fuse: its recipe */
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "params");
  if (f->twin_of > 0) mbg_lua_set_string(L, "twin_of", g->functions[f->twin_of - 1].name);
  if (f->frames || f->fixed_frame) /* --frame's variant, or the recipe's own frame */
    mbg_lua_set_string(L, "frame", mbg_ref_name(f->frame));
  if (f->epilogue[0]) mbg_lua_set_string(L, "epilogue", f->epilogue);
  if (strcmp(f->epilogue, "minus_minv_product") == 0 && f->sym) push_minv_runs(g, L, f);
  if (f->fixed_frame) {
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "fixed_frame");
  }
  lua_createtable(L, 0, 6);
  mbg_lua_set_int(L, "mul", f->counts.mul);
  mbg_lua_set_int(L, "add", f->counts.add);
  mbg_lua_set_int(L, "div", f->counts.div);
  mbg_lua_set_int(L, "sqrt", f->counts.sqrt);
  mbg_lua_set_int(L, "trig", f->counts.trig);
  mbg_lua_set_int(L, "sincos", f->counts.sincos);
  mbg_lua_set_int(L, "live", f->live);
  lua_setfield(L, -2, "counts");
}

/* d.trig_slots (--trig-input, else empty): per slot of sc, {iq, theta} of its joint angle, theta
 * the folded turn as a C literal. */
static void push_trig_slots(mbg_gen *g, lua_State *L) {
  int n = g->opts->trig_input ? g->ntrig : 0;
  lua_createtable(L, n, 0);
  for (int i = 1; n > 0 && i <= g->topo->nb; i++) {
    int slot = mbg_gen_trig_slot(g, i);
    if (slot < 0) continue;
    char buf[40];
    mbg_fmt_double(g->dh.body[i].theta, buf);
    lua_createtable(L, 0, 2);
    mbg_lua_set_int(L, "iq", g->topo->body[i].iq);
    mbg_lua_set_string(L, "theta", buf);
    lua_rawseti(L, -2, slot + 1);
  }
  lua_setfield(L, -2, "trig_slots");
}

/* d.rt: the runtime model as C literals, world entry first. */
static void push_rt(mbg_gen *g, lua_State *L) {
  const mb_model *m = &g->rt.model;
  int n = m->nb + 1;
  static const char *const jtype[] = { /* the enumerators' C spelling (mb.h MB_JOINT_TYPES) */
#define MBG_JTYPE_C(NAME, name, nq, nv, axis, angle, pitch, fixed_origin, quat) "MB_JOINT_" #NAME,
      MB_JOINT_TYPES(MBG_JTYPE_C)
#undef MBG_JTYPE_C
  };
  lua_createtable(L, 0, 14);
  mbg_lua_set_int(L, "nb", m->nb);
  mbg_lua_set_int(L, "nq", m->nq);
  mbg_lua_set_int(L, "nv", m->nv);
  set_doubles(L, "gravity", m->gravity, 3);
  set_ints(L, "parent", m->parent, n);
  set_ints(L, "iq", m->iq, n);
  set_ints(L, "iv", m->iv, n);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_pushstring(L, jtype[m->jtype[i]]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "jtype");
  set_doubles(L, "XT_E", m->XT_E, 9 * n);
  set_doubles(L, "XT_r", m->XT_r, 3 * n);
  set_doubles(L, "axis", m->axis, 3 * n);
  set_doubles(L, "pitch", m->pitch, n);
  set_doubles(L, "inertia", m->inertia, 10 * n);
  if (m->armature) set_doubles(L, "armature", m->armature, m->nv);
  if (m->axis2) set_doubles(L, "axis2", m->axis2, 3 * n);
  if (m->flex) { /* rt.flex: the packed modal arrays (mb.h mb_flex) */
    int ne = (int)mb_flex_count(m, 0), ne2 = (int)mb_flex_count(m, 1), nps = 0;
    for (int i = 1; i < n; i++) nps += 6 * m->flex->nm[m->parent[i]];
    lua_createtable(L, 0, 6);
    set_ints(L, "nm", m->flex->nm, n);
    set_doubles(L, "Mc", m->flex->Mc, 6 * ne);
    set_doubles(L, "Me", m->flex->Me, ne2);
    set_doubles(L, "K", m->flex->K, ne2);
    set_doubles(L, "D", m->flex->D, ne2);
    set_doubles(L, "Psi", m->flex->Psi, nps);
    set_doubles(L, "Q", m->flex->Q, 36 * ne);
    int nn = m->flex->nnodes, nsh = 0;
    for (int k = 0; k < nn; k++) nsh += 6 * m->flex->nm[m->flex->node_body[k]];
    mbg_lua_set_int(L, "nnodes", nn);
    set_ints(L, "node_body", m->flex->node_body, nn);
    set_doubles(L, "node_r", m->flex->node_r, 3 * nn);
    set_doubles(L, "node_shape", m->flex->node_shape, nsh);
    lua_setfield(L, -2, "flex");
  }
  lua_setfield(L, -2, "rt");
}

/* d.nc, d.constraints (the names of the independent rows, "loop.row"), d.q_assembled (the model's
 * configuration with the loops closed) and d.rt.loops / d.rt.rows (the runtime's mb_loops): set
 * only for a model with loop rows. */
static void push_loops(mbg_gen *g, lua_State *L) {
  static const char *const ltype[] = { /* the enumerators' C spelling (mb.h MB_LOOP_*_TYPES) */
#define MBG_LTYPE_C(NAME) "MB_LOOP_" #NAME,
#define MBG_LTYPE_BASIC_C(NAME, name, axis, axis2, distance) "MB_LOOP_" #NAME,
      MB_LOOP_JOINT_TYPES(MBG_LTYPE_C) MB_LOOP_BASIC_TYPES(MBG_LTYPE_BASIC_C)
#undef MBG_LTYPE_C
#undef MBG_LTYPE_BASIC_C
  };
  const mbg_loop_rows *lr = &g->loops;
  mbg_lua_set_int(L, "nc", lr->nc);
  if (lr->nc == 0) return;
  lua_createtable(L, lr->nc, 0);
  for (int r = 0; r < lr->nc; r++) {
    int l = lr->row[r] / MB_LOOP_MAX_ROWS, k = lr->row[r] % MB_LOOP_MAX_ROWS;
    const mbg_loop *ml = &g->model->loops[g->topo->loop[l].model_loop];
    lua_pushfstring(L, "%s.%s", ml->name, mb_loop_row_name(mbg_joint_type_loop(ml->type), k));
    lua_rawseti(L, -2, r + 1);
  }
  lua_setfield(L, -2, "constraints");
  set_doubles(L, "q_assembled", lr->q, g->topo->nq);
  /* d.rcr_nsel, d.rcr_dep: p_rcr's selections of dependent coordinates (topology/rcr_select.h) */
  mbg_lua_set_int(L, "rcr_nsel", g->rcr.nsel);
  lua_createtable(L, g->rcr.nsel * g->rcr.nc, 0);
  for (int k = 0; k < g->rcr.nsel * g->rcr.nc; k++) {
    lua_pushinteger(L, g->rcr.dep[k]);
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "rcr_dep");
  lua_getfield(L, -1, "rt");
  lua_createtable(L, g->topo->nloops, 0);
  for (int l = 0; l < g->topo->nloops; l++) {
    const mbg_tree_loop *tl = &g->topo->loop[l];
    const mbg_loop *ml = &g->model->loops[tl->model_loop];
    double num[2] = {ml->pitch, ml->distance};
    lua_createtable(L, 0, 12);
    mbg_lua_set_string(L, "type", ltype[mbg_joint_type_loop(ml->type)]);
    mbg_lua_set_int(L, "a", tl->a);
    mbg_lua_set_int(L, "b", tl->b);
    set_doubles(L, "Ea", tl->Xa.E, 9);
    set_doubles(L, "ra", tl->Xa.r, 3);
    set_doubles(L, "Eb", tl->Xb.E, 9);
    set_doubles(L, "rb", tl->Xb.r, 3);
    set_doubles(L, "axis", ml->axis, 3);
    set_doubles(L, "axis2", ml->axis_b, 3);
    set_doubles(L, "pitch_distance", num, 2);
    mbg_lua_set_string(L, "name", ml->name);
    lua_rawseti(L, -2, l + 1);
  }
  lua_setfield(L, -2, "loops");
  set_ints(L, "rows", lr->row, lr->nc);
  lua_pop(L, 1);
}

/* d.rt.springs[k] (the runtime's springs as C literals: a, b, ra {3}, rb {3}, stiffness,
 * damping, length), d.rt.frames[k] (the runtime's frames: body, R {9}, p {3}), d.frames[k]
 * (name), and d.q_initial, d.v_initial (the `initial` state in coordinate order). */
static void push_springs_initial(mbg_gen *g, lua_State *L) {
  const mb_springs *S = &g->rtsprings.springs;
  char buf[40];
  lua_getfield(L, -1, "rt");
  lua_createtable(L, S->n, 0);
  for (int k = 0; k < S->n; k++) {
    const mb_spring *s = &S->spring[k];
    lua_createtable(L, 0, 8);
    lua_pushfstring(L, "%d", s->a);
    lua_setfield(L, -2, "a");
    lua_pushfstring(L, "%d", s->b);
    lua_setfield(L, -2, "b");
    set_doubles(L, "ra", s->ra, 3);
    set_doubles(L, "rb", s->rb, 3);
    const double kcl[3] = {s->stiffness, s->damping, s->length};
    const char *const key[3] = {"stiffness", "damping", "length"};
    for (int j = 0; j < 3; j++) {
      mbg_fmt_double(kcl[j], buf);
      lua_pushstring(L, buf);
      lua_setfield(L, -2, key[j]);
    }
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "springs");
  if (g->rtsprings.joint) /* d.rt.joint_passive: damping, friction, stiffness, q_ref, nv each */
    set_doubles(L, "joint_passive", g->rtsprings.joint, 4 * g->topo->nv);
  const mb_frames *F = &g->rtframes.frames; /* d.rt.frames[k]: body, R {9}, p {3} */
  lua_createtable(L, F->n, 0);
  for (int k = 0; k < F->n; k++) {
    lua_createtable(L, 0, 3);
    lua_pushfstring(L, "%d", F->frame[k].body);
    lua_setfield(L, -2, "body");
    set_doubles(L, "R", F->frame[k].R, 9);
    set_doubles(L, "p", F->frame[k].p, 3);
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "frames");
  lua_pop(L, 1);
  lua_createtable(L, g->topo->nframes, 0); /* d.frames[k]: name */
  for (int k = 0; k < g->topo->nframes; k++) {
    lua_createtable(L, 0, 1);
    mbg_lua_set_string(L, "name", g->topo->frame[k].name);
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "frames");
  lua_createtable(L, g->ncontacts, 0); /* d.contacts[k]: name, frame (0-based), dim */
  for (int k = 0; k < g->ncontacts; k++) {
    lua_createtable(L, 0, 3);
    mbg_lua_set_string(L, "name", g->topo->frame[g->contacts[k].frame].name);
    mbg_lua_set_int(L, "frame", g->contacts[k].frame);
    mbg_lua_set_int(L, "dim", g->contacts[k].dim);
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "contacts");
  mbg_lua_set_int(L, "ncrows", g->ncrows);
  mbg_gen_push_prescribed(g, L); /* d.prescribed: nv flags (--prescribed), nil without */
  set_picked(L, "q_initial", g->topo->q_initial, g->topo->q_coupled, g->topo->nq);
  set_picked(L, "v_initial", g->topo->v_initial, g->topo->v_coupled, g->topo->nv);
}

/* d.coupling (coupled joints; nil without): the runtime's mb_coupling (model.lua) and the
 * harness's expansion (check.lua): nq, nv (full), nq_ind, nv_ind, q_of, q_mult, q_off, v_of,
 * v_mult (C literals). */
static void push_coupling(mbg_gen *g, lua_State *L) {
  const mbg_topology *t = g->topo;
  if (!t->ncoupled) return;
  lua_createtable(L, 0, 9);
  mbg_lua_set_int(L, "nq", t->nq);
  mbg_lua_set_int(L, "nv", t->nv);
  mbg_lua_set_int(L, "nq_ind", t->nq_ind);
  mbg_lua_set_int(L, "nv_ind", t->nv_ind);
  set_ints(L, "q_of", t->q_of, t->nq);
  set_ints(L, "v_of", t->v_of, t->nv);
  set_doubles(L, "q_mult", t->q_mult, t->nq);
  set_doubles(L, "q_off", t->q_off, t->nq);
  set_doubles(L, "v_mult", t->v_mult, t->nv);
  lua_setfield(L, -2, "coupling");
}

static void push_joints(mbg_gen *g, lua_State *L) {
  const mbg_topology *t = g->topo;
  lua_createtable(L, g->topo->nb, 0);
  for (int i = 1; i <= g->topo->nb; i++) {
    const mbg_tree_body *b = &g->topo->body[i];
    lua_createtable(L, 0, 6);
    mbg_lua_set_string(L, "name", g->model->joints[b->model_joint].name);
    mbg_lua_set_string(L, "type", mbg_joint_type_name(b->type));
    mbg_lua_set_int(L, "iq", t->ncoupled ? t->q_of[b->iq] : b->iq); /* independent */
    mbg_lua_set_int(L, "iv", t->ncoupled ? t->v_of[b->iv] : b->iv);
    if (t->ncoupled) { /* the runtime's (full) ones, and a coupled joint's source */
      mbg_lua_set_int(L, "full_iq", b->iq);
      mbg_lua_set_int(L, "full_iv", b->iv);
      const mbg_joint *J = &g->model->joints[b->model_joint];
      if (J->mimic) mbg_lua_set_string(L, "mimics", g->model->joints[J->mimic - 1].name);
    }
    mbg_lua_set_int(L, "nq", b->nq);
    mbg_lua_set_int(L, "nv", b->nv);
    mbg_lua_set_int(L, "nm", b->nm); /* the child's modes follow the joint's coordinates */
    mbg_lua_set_string(L, "body", g->model->bodies[b->model_body].name);
    lua_rawseti(L, -2, i);
  }
  lua_setfield(L, -2, "joints");
  lua_createtable(L, g->topo->nb, 0);
  for (int i = 1; i <= g->topo->nb; i++) {
    lua_createtable(L, 0, 1);
    mbg_lua_set_string(L, "name", g->model->bodies[g->topo->body[i].model_body].name);
    lua_rawseti(L, -2, i);
  }
  lua_setfield(L, -2, "bodies");
}

/* The render table d, frozen, on the stack. */
static int push_d(lua_State *L) {
  mbg_gen *g = lua_touserdata(L, 1);
  char P[64];
  size_t k = 0;
  for (; g->prefix[k] && k + 1 < sizeof P; k++) P[k] = (char)toupper((unsigned char)g->prefix[k]);
  P[k] = '\0';
  lua_createtable(L, 0, 20);
  mbg_lua_set_string(L, "tool", "mbdc");
  mbg_lua_set_string(L, "version", MBDC_VERSION);
  set_comment(L, "model_file", g->opts->model_shown ? g->opts->model_shown : g->opts->model_path);
  mbg_lua_set_string(L, "digest", g->digest);
  mbg_lua_set_string(L, "set_id", SET_MARK);
  set_comment(L, "command", g->opts->command ? g->opts->command : "mbdc generate");
  mbg_lua_set_string(L, "prefix", g->prefix);
  if (g->passive_in_fd) { /* --passive-in-fd: check.lua, header.lua */
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "passive_in_fd");
  }
  if (g->opts->batch) { /* --batch: source.lua, header.lua, check.lua */
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "batch");
  }
  mbg_lua_set_string(L, "PREFIX", P);
  mbg_lua_set_string(L, "scalar", g->opts->scalar == MBG_SYM_FLOAT ? "float" : "double");
  mbg_lua_set_string(L, "trig", g->opts->trig_libm ? "libm" : "builtin");
  push_trig_slots(g, L);
  mbg_lua_set_int(L, "nq", g->topo->nq_ind); /* the generated functions' (gen_coupled.h) */
  mbg_lua_set_int(L, "nv", g->topo->nv_ind);
  push_coupling(g, L);
  mbg_lua_set_int(L, "nb", g->topo->nb);
  mbg_lua_set_int(L, "nj", g->topo->nb);
  mbg_lua_set_int(L, "nf", g->topo->nframes);
  char mass[40]; /* the moving bodies' total mass, as the runtime's mb_mass sums it */
  mbg_fmt_double(mb_mass(&g->rt.model), mass);
  mbg_lua_set_string(L, "mass", mass);
  int nn = g->rt.model.flex ? g->rt.model.flex->nnodes : 0;
  mbg_lua_set_int(L, "nnodes", nn);
  lua_createtable(L, nn, 0);
  for (int n = 0; n < nn; n++) {
    lua_pushstring(L, g->rt.node_name[n]);
    lua_rawseti(L, -2, n + 1);
  }
  lua_setfield(L, -2, "node_names");
  push_joints(g, L);
  lua_createtable(L, g->nfunctions, 0);
  for (int f = 0; f < g->nfunctions; f++) {
    push_function(g, L, f, P);
    lua_rawseti(L, -2, f + 1);
  }
  lua_setfield(L, -2, "functions");
  push_rt(g, L);
  push_loops(g, L);
  push_springs_initial(g, L);
  mbg_gen_base_push_render(g, L); /* d.nj1, d.base (gen_base.h) */
  mbg_gen_params_push_render(g, L); /* d.params (gen_params.h) */
  mbg_gen_limits_push_render(g, L); /* d.limits (gen_limits.h) */
  mbg_lua_freeze(L, -1);
  return 1;
}

/* Run template `name` with d (on the stack): its text, malloc'ed, in *text. Returns 0 or 1. */
static int render_one(mbg_gen *g, const char *name, char **text, size_t *len, FILE *err) {
  lua_State *L = mbg_lua_state(g->lua);
  int d = lua_gettop(L);
  if (mbg_lua_run(g->lua, name) != 0)
    return fprintf(err, "mbdc: error: %s\n", mbg_lua_error(g->lua)), 1;
  if (!lua_isfunction(L, -1)) {
    lua_settop(L, d);
    return fprintf(err, "mbdc: error: %s: must return a function render(d)\n", name), 1;
  }
  lua_pushvalue(L, d);
  if (mbg_lua_call(g->lua, 1, 1) != 0)
    return fprintf(err, "mbdc: error: %s\n", mbg_lua_error(g->lua)), 1;
  if (lua_type(L, -1) != LUA_TSTRING) {
    lua_settop(L, d);
    return fprintf(err, "mbdc: error: %s: render(d) must return a string\n", name), 1;
  }
  const char *s = lua_tolstring(L, -1, len);
  *text = malloc(*len + 1);
  if (*text) memcpy(*text, s, *len + 1);
  lua_settop(L, d);
  return *text ? 0 : (fprintf(err, "mbdc: error: out of memory\n"), 1);
}

/* a "_" b, malloc'ed (NULL when out of memory); upper case when up. */
static char *joined(const char *a, const char *b, int up) {
  size_t n = strlen(a) + strlen(b) + 2;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s_%s", a, b);
  for (char *c = s; up && c && *c; c++) *c = (char)toupper((unsigned char)*c);
  return s;
}

/* The names a temporary of a function body must not take, malloc'ed, NULL-terminated (NULL
 * when out of memory): the macros and globals the headers declare (gen_names.h) and the locals
 * source.lua gives an int function (pivot, pivot_ref, pivot_switch, pivot_switch_ref,
 * pivot_refine, pivot_refine_ref, pivot_head, pivot_head_ref, k). */
static char **body_reserved(const mbg_gen *g, const char *P) {
  size_t NM = 0, NT = 0, NF = 0;
  while (mbg_gen_header_macros[NM]) NM++;
  while (mbg_gen_header_tables[NT]) NT++;
  while (mbg_gen_header_name_macros[NF]) NF++;
  int nb = g->topo->nb;
  size_t n = NM + NT + 2 * (size_t)g->nfunctions + NF * (size_t)(nb + g->topo->nframes) + 9, k = 0;
  char **r = calloc(n + 1, sizeof *r);
  int ok = r != NULL;
  for (size_t i = 0; ok && i < NM; i++)
    ok = (r[k++] = joined(P, mbg_gen_header_macros[i], 0)) != NULL;
  for (size_t i = 0; ok && i < NT; i++)
    ok = (r[k++] = joined(g->prefix, mbg_gen_header_tables[i], 0)) != NULL;
  for (int f = 0; ok && f < g->nfunctions; f++) {
    const char *name = g->functions[f].name;
    ok = (r[k++] = joined(g->prefix, name, 0)) != NULL;
    char *have = ok ? joined(P, "HAVE", 0) : NULL;
    ok = ok && have && (r[k++] = joined(have, name, 1)) != NULL;
    free(have);
  }
  /* the index macros: PU_BODY_<body> for every body, PU_JOINT_, _IQ_, _IV_<joint> per joint,
   * PU_FRAME_<frame> per frame */
  for (size_t i = 0; ok && i < NF; i++) {
    int frames = strcmp(mbg_gen_header_name_macros[i], "FRAME_") == 0;
    for (int b = frames ? 0 : 1; ok && b < (frames ? g->topo->nframes : nb + 1); b++) {
      const mbg_tree_body *tb = &g->topo->body[frames ? 0 : b];
      const char *name = frames ? g->topo->frame[b].name
                         : i == 0 ? g->model->bodies[tb->model_body].name
                                  : g->model->joints[tb->model_joint].name;
      size_t len = strlen(P) + strlen(mbg_gen_header_name_macros[i]) + strlen(name) + 2;
      ok = (r[k] = malloc(len)) != NULL;
      if (ok) snprintf(r[k++], len, "%s_%s%s", P, mbg_gen_header_name_macros[i], name);
    }
  }
  if (ok)
    ok = (r[k++] = strdup("pivot")) && (r[k++] = strdup("pivot_ref")) && (r[k++] = strdup("k")) &&
         (r[k++] = strdup("pivot_switch")) && (r[k++] = strdup("pivot_switch_ref")) &&
         (r[k++] = strdup("pivot_refine")) && (r[k++] = strdup("pivot_refine_ref")) &&
         (r[k++] = strdup("pivot_head")) && (r[k++] = strdup("pivot_head_ref"));
  if (!ok && r) {
    for (size_t i = 0; i < n; i++) free(r[i]);
    free(r);
    r = NULL;
  }
  return r;
}

/* text to out, every body marker replaced by its function's statements and every set marker by
 * the identifier's placeholder. Returns 0, or -1. */
static int put_text(mbg_gen *g, mbg_outset *set, const char *const *reserved, const char *text,
                    size_t len, FILE *out) {
  const size_t nmark = sizeof BODY_MARK - 1, nset = sizeof SET_MARK - 1;
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *m = memchr(p, BODY_MARK[0], (size_t)(end - p));
    if (!m) m = end;
    if (fwrite(p, 1, (size_t)(m - p), out) != (size_t)(m - p)) return -1;
    if (m == end) break;
    char *stop;
    long k = (size_t)(end - m) > nmark && memcmp(m, BODY_MARK, nmark) == 0
                 ? strtol(m + nmark, &stop, 10) : -1;
    const size_t nparts = sizeof PARTS_MARK - 1, nlanes = sizeof LANES_MARK - 1;
    long kp = k < 0 && (size_t)(end - m) > nparts && memcmp(m, PARTS_MARK, nparts) == 0
                  ? strtol(m + nparts, &stop, 10) : -1;
    long kl = k < 0 && kp < 0 && (size_t)(end - m) > nlanes && memcmp(m, LANES_MARK, nlanes) == 0
                  ? strtol(m + nlanes, &stop, 10) : -1;
    if (k >= 0 && k < g->nfunctions && *stop == BODY_MARK[0]) {
      if (mbg_gen_put_body(g, &g->functions[k], out, reserved, 0) != 0) return -1;
      p = stop + 1;
    } else if (kp >= 0 && kp < g->nfunctions && *stop == PARTS_MARK[0]) {
      if (mbg_gen_put_body(g, &g->functions[kp], out, reserved, 1) != 0) return -1;
      p = stop + 1;
    } else if (kl >= 0 && kl < g->nfunctions && *stop == LANES_MARK[0]) {
      if (mbg_gen_put_body(g, &g->functions[kl], out, reserved, 2) != 0) return -1;
      p = stop + 1;
    } else if ((size_t)(end - m) >= nset && memcmp(m, SET_MARK, nset) == 0) {
      /* without a set (mbg_gen_render_to) the identifier is zero, in the same width */
      if (set ? mbg_outset_stamp(set, out) != 0 : fputs("0x000000000000", out) == EOF) return -1;
      p = m + nset;
    } else { /* not a marker: the byte itself */
      if (fputc(*m, out) == EOF) return -1;
      p = m + 1;
    }
  }
  return 0;
}

/* The output files: the template of each, and the file name after the prefix. */
static const char *const files[][2] = {{"c/header.lua", "_dynamics.h"},
                                       {"c/source.lua", "_dynamics.c"},
                                       {"c/model.lua", "_model.c"},
                                       {"c/model_header.lua", "_model.h"},
                                       {"c/check.lua", "_check.c"}};
enum { NFILES = sizeof files / sizeof files[0] };

/* Every template run (none writes anything): their texts, and the names a function body must not
 * take. Returns 0 or the exit status; what is allocated is freed by rendered_free either way. */
typedef struct rendered {
  char *text[NFILES];
  size_t len[NFILES];
  char **reserved;
} rendered;

static void rendered_free(rendered *r) {
  for (size_t k = 0; k < NFILES; k++) free(r->text[k]);
  for (char **s = r->reserved; s && *s; s++) free(*s);
  free(r->reserved);
}

static int render_all(mbg_gen *g, rendered *r, FILE *err) {
  memset(r, 0, sizeof *r);
  if (mbg_lua_cpcall(g->lua, push_d, g, 1) != 0)
    return fprintf(err, "mbdc: error: %s\n", mbg_lua_error(g->lua)), 1;
  int rc = 0;
  for (size_t k = 0; k < NFILES && rc == 0; k++)
    rc = render_one(g, files[k][0], &r->text[k], &r->len[k], err);
  lua_settop(mbg_lua_state(g->lua), 0);
  char P[64];
  size_t n = 0;
  for (; g->prefix[n] && n + 1 < sizeof P; n++) P[n] = (char)toupper((unsigned char)g->prefix[n]);
  P[n] = '\0';
  if (rc == 0 && !(r->reserved = body_reserved(g, P)))
    rc = (fprintf(err, "mbdc: error: out of memory\n"), 2);
  return rc;
}

int mbg_gen_render(mbg_gen *g, FILE *err) {
  /* every template first, then the files: a failing template leaves no file changed */
  rendered r;
  int rc = render_all(g, &r, err);
  /* then the files as one set (base/outset.h): all replaced, or none */
  mbg_outset set;
  if (rc == 0 && mbg_outset_begin(&set, g->opts->outdir, 1, err) != 0) rc = 2;
  for (size_t k = 0; k < NFILES && rc == 0; k++) {
    char name[96];
    snprintf(name, sizeof name, "%s%s", g->prefix, files[k][1]);
    FILE *out = mbg_outset_add(&set, name);
    if (!out) rc = 2;
    else if (put_text(g, &set, (const char *const *)r.reserved, r.text[k], r.len[k], out) != 0)
      rc = (fprintf(err, "%s/%s: error: cannot write\n", set.dir, name), 2);
    if (rc) mbg_outset_abort(&set);
  }
  if (rc == 0 && mbg_outset_commit(&set) != 0) rc = 2;
  rendered_free(&r);
  return rc;
}

int mbg_gen_render_to(mbg_gen *g, FILE *out, FILE *err) {
  rendered r;
  int rc = render_all(g, &r, err);
  for (size_t k = 0; k < NFILES && rc == 0; k++)
    if (put_text(g, NULL, (const char *const *)r.reserved, r.text[k], r.len[k], out) != 0)
      rc = (fprintf(err, "mbdc: error: cannot write the rendered text\n"), 2);
  rendered_free(&r);
  return rc;
}
