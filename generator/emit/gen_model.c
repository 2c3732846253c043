/* gen_model.c — the recipes' read-only `model` table (docs/templates.md "The model table"):
 * the numbered tree after fixed-joint merging, joint-frame alignment and the DH placement of
 * the working frames. */
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "emit/gen_model.h"

#include "emit/gen_base.h"
#include "emit/gen_contacts.h"
#include "emit/gen_prescribed.h"
#include "emit/gen_params.h"

#include "emit/cfa_order.h"

static void push_numbers(lua_State *L, const double *x, int n) {
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) {
    lua_pushnumber(L, x[k]);
    lua_rawseti(L, -2, k + 1);
  }
}

static void push_xform(lua_State *L, const mbg_xform *X) {
  lua_createtable(L, 0, 5);
  push_numbers(L, X->E, 9);
  lua_setfield(L, -2, "E");
  push_numbers(L, X->r, 3);
  lua_setfield(L, -2, "r");
}

/* A spatial vector at tree body i's original origin, in its original axes, re-expressed at its
 * working frame's origin in working axes (Yo: E, r the working origin in original coordinates):
 * a motion [ω; v] becomes [E ω; E (v + ω × r)], a force [n; f] becomes [E (n − r × f); E f]. */
static void working_vector(const mbg_gen *g, int i, const double x[6], int force, double out[6]) {
  const mbg_xform *Y = &g->dh.body[i].Yo;
  const double *r = Y->r;
  double a[3] = {x[0], x[1], x[2]}, b[3] = {x[3], x[4], x[5]};
  const double *u = force ? b : a; /* the moving part: r × f or ω × r */
  double c[3] = {r[1] * u[2] - r[2] * u[1], r[2] * u[0] - r[0] * u[2], r[0] * u[1] - r[1] * u[0]};
  for (int k = 0; k < 3; k++) {
    if (force) a[k] -= c[k];
    else b[k] -= c[k]; /* ω × r = −(r × ω) */
  }
  for (int k = 0; k < 3; k++) {
    out[k] = Y->E[3 * k] * a[0] + Y->E[3 * k + 1] * a[1] + Y->E[3 * k + 2] * a[2];
    out[3 + k] = Y->E[3 * k] * b[0] + Y->E[3 * k + 1] * b[1] + Y->E[3 * k + 2] * b[2];
  }
}

/* n columns of 6 as a list of 6-vectors in body i's working frame. */
static void push_columns(const mbg_gen *g, lua_State *L, int i, const double *x, int n, int force) {
  lua_createtable(L, n, 0);
  for (int c = 0; c < n; c++) {
    double w[6];
    working_vector(g, i, x + 6 * c, force, w);
    push_numbers(L, w, 6);
    lua_rawseti(L, -2, c + 1);
  }
}

/* An n × n row-major matrix as a list of rows. */
static void push_matrix(lua_State *L, const double *A, int n) {
  lua_createtable(L, n, 0);
  for (int r = 0; r < n; r++) {
    push_numbers(L, A + (size_t)n * (size_t)r, n);
    lua_rawseti(L, -2, r + 1);
  }
}

/* The velocity-product forms Q_k (6×6, on motion vectors) in body i's working frame: with F the
 * force transform (working_vector), v_orig = Fᵀ v_work, so Q' = F Q Fᵀ. A list of nm flat 36s. */
static void push_forms(const mbg_gen *g, lua_State *L, int i, const double *Q, int nm) {
  lua_createtable(L, nm, 0);
  for (int k = 0; k < nm; k++) {
    double A[36], B[36], col[6], out[6];
    for (int c = 0; c < 6; c++) { /* A = F Q, column by column */
      for (int r = 0; r < 6; r++) col[r] = Q[36 * k + 6 * r + c];
      working_vector(g, i, col, 1, out);
      for (int r = 0; r < 6; r++) A[6 * r + c] = out[r];
    }
    for (int r = 0; r < 6; r++) { /* B = A Fᵀ = (F Aᵀ)ᵀ: row r of B is F (row r of A) */
      working_vector(g, i, A + 6 * r, 1, out);
      for (int c = 0; c < 6; c++) B[6 * r + c] = out[c];
    }
    push_numbers(L, B, 36);
    lua_rawseti(L, -2, k + 1);
  }
}

/* A flexible body's modes (docs/templates.md "The model table"): nm, and with nm > 0 the
 * coupling Mc (nm force columns), Me, K, D (rows), Q (nm velocity-product forms, 36 each,
 * row-major); a joint on a flexible parent: Psi (nm of the
 * parent motion columns, in the parent's working frame). */
static void push_modal(mbg_gen *g, lua_State *L, int i) {
  const mbg_tree_body *b = &g->topo->body[i];
  int np = g->topo->body[b->parent].nm;
  mbg_lua_set_int(L, "nm", b->nm);
  if (b->nm > 0) {
    push_columns(g, L, i, b->modal.Mc, b->nm, 1);
    lua_setfield(L, -2, "Mc");
    push_matrix(L, b->modal.Mee, b->nm);
    lua_setfield(L, -2, "Me");
    push_matrix(L, b->modal.K, b->nm);
    lua_setfield(L, -2, "K");
    push_matrix(L, b->modal.D, b->nm);
    lua_setfield(L, -2, "D");
    push_forms(g, L, i, b->modal.Q, b->nm);
    lua_setfield(L, -2, "Q");
  }
  if (b->parent > 0 && np > 0) {
    push_columns(g, L, b->parent, b->psi, np, 0);
    lua_setfield(L, -2, "Psi");
  }
}

/* model.nodes[k]: the flexible bodies' nodes (mb.h mb_flex): body, name, position r and shape
 * columns [rotation; translation] per mode, in the body's original frame (node_poses composes
 * them with the original frame's pose). */
static void push_nodes(mbg_gen *g, lua_State *L) {
  const mb_flex *F = g->rt.model.flex;
  int n = F ? F->nnodes : 0;
  lua_createtable(L, n, 0);
  for (int k = 0, off = 0; k < n; k++) {
    int i = F->node_body[k], nm = F->nm[i];
    lua_createtable(L, 0, 4);
    mbg_lua_set_int(L, "body", i);
    mbg_lua_set_string(L, "name", g->rt.node_name[k]);
    push_numbers(L, F->node_r + 3 * k, 3);
    lua_setfield(L, -2, "r");
    lua_createtable(L, nm, 0);
    for (int c = 0; c < nm; c++) {
      push_numbers(L, F->node_shape + off + 6 * c, 6);
      lua_rawseti(L, -2, c + 1);
    }
    lua_setfield(L, -2, "shape");
    off += 6 * nm;
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "nodes");
}

int mbg_gen_trig_slot(const mbg_gen *g, int i) {
  return g->trig_slot && i >= 1 && i <= g->topo->nb ? g->trig_slot[i] : -1;
}

int mbg_gen_trig_slots(mbg_gen *g) {
  free(g->trig_slot);
  g->ntrig = 0;
  if (!(g->trig_slot = malloc(((size_t)g->topo->nb + 1) * sizeof *g->trig_slot))) return -1;
  g->trig_slot[0] = -1;
  for (int i = 1; i <= g->topo->nb; i++) {
    g->trig_slot[i] = mbg_joint_type_is_angle(g->topo->body[i].type) ? g->ntrig++ : -1;
  }
  return 0;
}

/* model.bodies[i]: one moving body of the tree, in its working frame (dh_frames.h). */
static void push_body(mbg_gen *g, lua_State *L, int i) {
  const mbg_tree_body *b = &g->topo->body[i];
  const mbg_aligned_body *a = &g->aligned.body[i];
  const mbg_dh_body *w = &g->dh.body[i];
  lua_createtable(L, 0, 20);
  mbg_lua_set_string(L, "name", g->model->bodies[b->model_body].name);
  mbg_lua_set_string(L, "joint", g->model->joints[b->model_joint].name);
  mbg_lua_set_int(L, "parent", b->parent);
  lua_createtable(L, b->nchildren, 0);
  int n = 0;
  for (int c = b->first_child; c; c = g->topo->body[c].next_sibling) {
    lua_pushinteger(L, c);
    lua_rawseti(L, -2, ++n);
  }
  lua_setfield(L, -2, "children");
  mbg_lua_set_string(L, "type", mbg_joint_type_name(b->type));
  mbg_lua_set_int(L, "iq", b->iq);
  mbg_lua_set_int(L, "nq", b->nq);
  mbg_lua_set_int(L, "iv", b->iv);
  mbg_lua_set_int(L, "nv", b->nv);
  if (a->axis >= 0) mbg_lua_set_int(L, "axis", a->axis + 1);
  lua_pushnumber(L, mbg_joint_type_has_pitch(b->type) ? b->pitch : 0.0);
  lua_setfield(L, -2, "pitch");
  push_xform(L, &w->XT);
  if (w->planar >= 0) {
    mbg_lua_set_int(L, "k", w->planar + 1);
    lua_pushnumber(L, w->c);
    lua_setfield(L, -2, "c");
    lua_pushnumber(L, w->s);
    lua_setfield(L, -2, "s");
  }
  lua_setfield(L, -2, "XT");
  double I[10] = {w->I.m, w->I.h[0], w->I.h[1], w->I.h[2]};
  memcpy(I + 4, w->I.I, sizeof w->I.I);
  push_numbers(L, I, 10);
  lua_setfield(L, -2, "inertia");
  const mbg_joint *jp = &g->model->joints[b->model_joint];
  /* the joint's properties (docs/dsl.md "Joint properties"; joints.lua b.arm, b.damping, ...) */
  const double props[5] = {jp->armature, jp->damping, jp->friction, jp->stiffness, jp->spring_ref};
  static const char *const keys[5] = {"armature", "damping", "friction", "stiffness", "spring_ref"};
  for (int k = 0; k < 5; k++)
    if (props[k] != 0.0) {
      lua_pushnumber(L, props[k]);
      lua_setfield(L, -2, keys[k]);
    }
  lua_pushnumber(L, w->theta);
  lua_setfield(L, -2, "theta");
  int slot = mbg_gen_trig_slot(g, i);
  if (slot >= 0) mbg_lua_set_int(L, "trig", slot);
  lua_pushnumber(L, w->cos_theta);
  lua_setfield(L, -2, "cos_theta");
  lua_pushnumber(L, w->sin_theta);
  lua_setfield(L, -2, "sin_theta");
  push_xform(L, &w->Yo);
  lua_setfield(L, -2, "Yo");
  mbg_gen_params_push_body(g, L, i); /* a body with run-time parameters: its rest and blocks */
  push_modal(g, L, i);
}

static void push_ints(lua_State *L, const int *x, int n) {
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) {
    lua_pushinteger(L, x[k]);
    lua_rawseti(L, -2, k + 1);
  }
}

/* model.cfa: the elimination order g->cfa_kind (tips when AUTO) of the CFA's system, its
 * off-diagonal blocks before elimination and every step's remaining neighbours (cfa_order.h). */
static void push_cfa(mbg_gen *g, lua_State *L) {
  const mbg_topology *t = g->topo;
  int nb = t->nb, *parent = malloc((size_t)(nb + 1) * sizeof *parent);
  int *nt = malloc((size_t)(nb + 1) * sizeof *nt);
  mbg_cfa_order o;
  mbg_cfa_kind kind = g->cfa_kind == MBG_CFA_AUTO ? MBG_CFA_TIPS : g->cfa_kind;
  if (!parent || !nt) free(parent), free(nt), luaL_error(L, "out of memory");
  for (int i = 0; i <= nb; i++) parent[i] = t->body[i].parent, nt[i] = 6 - t->body[i].nv;
  int rc = mbg_cfa_order_build(nb, parent, nt, kind, &o);
  free(parent), free(nt);
  if (rc != 0) luaL_error(L, "out of memory");
  lua_createtable(L, 0, 10);
  mbg_lua_set_string(L, "order", mbg_cfa_kind_name(kind));
  mbg_lua_set_int(L, "rounds", o.rounds);
  mbg_lua_set_int(L, "longest", o.longest);
  mbg_lua_set_int(L, "nnode", o.nnode);
  mbg_lua_set_int(L, "fill", o.nfill);
  mbg_lua_set_int(L, "height", o.height);
  lua_createtable(L, o.nedges, 0);
  for (int e = 0; e < o.nedges; e++) {
    push_ints(L, o.edge + 2 * e, 2);
    lua_pushboolean(L, o.edge_kind[e] == MBG_CFA_SIBLING);
    lua_setfield(L, -2, "sibling");
    lua_pushboolean(L, o.edge_kind[e] == MBG_CFA_HUB);
    lua_setfield(L, -2, "hub");
    lua_rawseti(L, -2, e + 1);
  }
  lua_setfield(L, -2, "blocks");
  /* hubs[u] = the body of hub unknown u (u = nb + h) */
  lua_createtable(L, 0, o.nhub);
  for (int h = 1; h <= o.nhub; h++) {
    lua_pushinteger(L, o.hub_body[h]);
    lua_rawseti(L, -2, nb + h);
  }
  lua_setfield(L, -2, "hubs");
  lua_createtable(L, o.n, 0);
  for (int s = 0; s < o.n; s++) {
    lua_createtable(L, 0, 3);
    mbg_lua_set_int(L, "body", o.body[s]);
    mbg_lua_set_int(L, "round", o.round[s]);
    int first = o.nbr_start[s], n = o.nbr_start[s + 1] - first;
    push_ints(L, n > 0 ? o.nbr + first : NULL, n); /* o.nbr is NULL when no block has one */
    lua_setfield(L, -2, "nbr");
    lua_rawseti(L, -2, s + 1);
  }
  lua_setfield(L, -2, "steps");
  mbg_cfa_order_free(&o);
  lua_setfield(L, -2, "cfa");
}

/* The point p of tree body i (original frame) in its working frame: Yo.E (p − Yo.r). */
static void working_point(const mbg_gen *g, int i, const double p[3], double out[3]) {
  const mbg_xform *Y = &g->dh.body[i].Yo;
  double d[3] = {p[0] - Y->r[0], p[1] - Y->r[1], p[2] - Y->r[2]};
  for (int k = 0; k < 3; k++)
    out[k] = Y->E[3 * k] * d[0] + Y->E[3 * k + 1] * d[1] + Y->E[3 * k + 2] * d[2];
}

/* A frame X given relative to tree body i's original frame, re-expressed relative to its working
 * frame: X · Yo⁻¹, i.e. E = X.E Yo.Eᵀ and the origin as working_point. */
static void working_frame(const mbg_gen *g, int i, const mbg_xform *X, mbg_xform *out) {
  const double *Y = g->dh.body[i].Yo.E;
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      out->E[3 * a + b] =
          X->E[3 * a] * Y[3 * b] + X->E[3 * a + 1] * Y[3 * b + 1] + X->E[3 * a + 2] * Y[3 * b + 2];
  working_point(g, i, X->r, out->r);
}

/* A list of ints [from, to) as a Lua array (1-based), each plus add. */
static void push_intl(lua_State *L, const int *x, int from, int to, int add) {
  lua_createtable(L, to - from > 0 ? to - from : 0, 0);
  for (int k = from; k < to; k++) {
    lua_pushinteger(L, x[k] + add);
    lua_rawseti(L, -2, k - from + 1);
  }
}

/* model.rcr: the selections of recursive coordinate reduction (topology/rcr_select.h) and, per
 * selection, the plan of every group (runtime/rcr_internal.h): base body, p, the rows (1-based
 * constraint indices), the dependents in chain order and the tail independents (velocity
 * coordinates, 0-based), the head and tail bodies, the group it hangs from (nest, att) and its
 * tail's open inputs (zg); per body its role and the groups open there. */
static void push_rcr(mbg_gen *g, lua_State *L) {
  mbg_rcr_sel *sel = &g->rcr;
  lua_createtable(L, 0, 4);
  mbg_lua_set_int(L, "nsel", sel->nsel);
  lua_pushnumber(L, MB_RCR_SWITCH);
  lua_setfield(L, -2, "switch");
  lua_createtable(L, sel->nsel, 0);
  for (int s = 0; s < sel->nsel; s++) {
    mbg_rcr_plan_view v;
    if (mbg_rcr_plan(sel, s, &v) != 0) break;
    lua_createtable(L, 0, 2);
    push_intl(L, sel->dep, s * sel->nc, (s + 1) * sel->nc, 0);
    lua_setfield(L, -2, "dep");
    lua_createtable(L, v.ng, 0);
    for (int k = 0; k < v.ng; k++) {
      lua_createtable(L, 0, 8);
      mbg_lua_set_int(L, "base", v.base[k]);
      mbg_lua_set_int(L, "p", v.p[k]);
      push_intl(L, v.row, v.row0[k], v.row0[k + 1], 1);
      lua_setfield(L, -2, "rows");
      push_intl(L, v.dep, v.dep0[k], v.dep0[k + 1], 0);
      lua_setfield(L, -2, "dep");
      push_intl(L, v.ind, v.ind0[k], v.ind0[k + 1], 0);
      lua_setfield(L, -2, "ind");
      push_intl(L, v.head, v.head0[k], v.head0[k + 1], 0);
      lua_setfield(L, -2, "head");
      push_intl(L, v.tail, v.tail0[k], v.tail0[k + 1], 0);
      lua_setfield(L, -2, "tail");
      if (v.nest[k] >= 0) { /* hung from group nest (1-based) at body att */
        mbg_lua_set_int(L, "nest", v.nest[k] + 1);
        mbg_lua_set_int(L, "att", v.att[k]);
      }
      push_intl(L, v.zg, MB_RCR_MAX_OPEN * k, MB_RCR_MAX_OPEN * k + v.nz[k], 1);
      lua_setfield(L, -2, "zg"); /* the tail's open inputs: groups (1-based) */
      lua_rawseti(L, -2, k + 1);
    }
    lua_setfield(L, -2, "groups");
    push_intl(L, v.role, 0, g->topo->nb + 1, 0);
    lua_setfield(L, -2, "role"); /* role[i + 1] of body i */
    lua_createtable(L, g->topo->nb + 1, 0); /* open[i + 1]: the groups open on body i (1-based) */
    for (int i = 0; i <= g->topo->nb; i++) {
      push_intl(L, v.open, MB_RCR_MAX_OPEN * i, MB_RCR_MAX_OPEN * i + v.nopen[i], 1);
      lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "open");
    lua_rawseti(L, -2, s + 1);
  }
  lua_setfield(L, -2, "sel");
  lua_setfield(L, -2, "rcr");
}

/* model.loops[l]: every loop joint, frames in the working frames of its bodies; model.constraints:
 * the independent rows kept (topology/loop_rows.h), in order. */
static void push_loops(mbg_gen *g, lua_State *L) {
  const mbg_topology *t = g->topo;
  lua_createtable(L, t->nloops, 0);
  for (int l = 0; l < t->nloops; l++) {
    const mbg_tree_loop *tl = &t->loop[l];
    const mbg_loop *ml = &g->model->loops[tl->model_loop];
    mbg_xform Xa, Xb;
    working_frame(g, tl->a, &tl->Xa, &Xa);
    working_frame(g, tl->b, &tl->Xb, &Xb);
    lua_createtable(L, 0, 10);
    mbg_lua_set_string(L, "name", ml->name);
    mbg_lua_set_string(L, "type", mbg_joint_type_name(ml->type));
    mbg_lua_set_int(L, "a", tl->a);
    mbg_lua_set_int(L, "b", tl->b);
    push_xform(L, &Xa);
    lua_setfield(L, -2, "Xa");
    push_xform(L, &Xb);
    lua_setfield(L, -2, "Xb");
    push_numbers(L, ml->axis, 3);
    lua_setfield(L, -2, "axis");
    push_numbers(L, ml->axis_b, 3);
    lua_setfield(L, -2, "axis2");
    lua_pushnumber(L, ml->pitch);
    lua_setfield(L, -2, "pitch");
    lua_pushnumber(L, ml->distance);
    lua_setfield(L, -2, "distance");
    lua_rawseti(L, -2, l + 1);
  }
  lua_setfield(L, -2, "loops");
  lua_createtable(L, g->loops.nc, 0);
  for (int r = 0; r < g->loops.nc; r++) {
    int l = g->loops.row[r] / MB_LOOP_MAX_ROWS, k = g->loops.row[r] % MB_LOOP_MAX_ROWS;
    lua_createtable(L, 0, 2);
    mbg_lua_set_int(L, "loop", l + 1);
    mbg_lua_set_int(L, "row", k + 1);
    lua_rawseti(L, -2, r + 1);
  }
  lua_setfield(L, -2, "constraints");
  mbg_lua_set_int(L, "nc", g->loops.nc);
  push_rcr(g, L);
}

/* model.springs[k]: the tree's springs, attachment points in the working frames; and
 * model.spring_eps, the zero-length rule's ε (mb.h MB_SPRING_EPS). */
static void push_springs(mbg_gen *g, lua_State *L) {
  const mbg_topology *t = g->topo;
  lua_createtable(L, t->nsprings, 0);
  for (int k = 0; k < t->nsprings; k++) {
    const mbg_tree_spring *ts = &t->spring[k];
    const mbg_spring *s = &g->model->springs[ts->model_spring];
    double ra[3], rb[3];
    working_point(g, ts->a, ts->ra, ra);
    working_point(g, ts->b, ts->rb, rb);
    lua_createtable(L, 0, 8);
    mbg_lua_set_string(L, "name", s->name);
    mbg_lua_set_int(L, "a", ts->a);
    mbg_lua_set_int(L, "b", ts->b);
    push_numbers(L, ra, 3);
    lua_setfield(L, -2, "ra");
    push_numbers(L, rb, 3);
    lua_setfield(L, -2, "rb");
    lua_pushnumber(L, s->stiffness);
    lua_setfield(L, -2, "stiffness");
    lua_pushnumber(L, s->damping);
    lua_setfield(L, -2, "damping");
    lua_pushnumber(L, s->length);
    lua_setfield(L, -2, "length");
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "springs");
  lua_pushnumber(L, MB_SPRING_EPS);
  lua_setfield(L, -2, "spring_eps");
}

/* model.frames[k]: the operational frames (topology/frames.c), k = 1..P_NF: name, the tree body
 * they are fixed on (0: the world) and X, the frame relative to that body's working frame (E
 * body → frame, r its origin in body coordinates). */
static void push_frames(mbg_gen *g, lua_State *L) {
  const mbg_topology *t = g->topo;
  lua_createtable(L, t->nframes, 0);
  for (int k = 0; k < t->nframes; k++) {
    const mbg_tree_frame *f = &t->frame[k];
    mbg_xform X;
    working_frame(g, f->body, &f->X, &X);
    lua_createtable(L, 0, 3);
    mbg_lua_set_string(L, "name", f->name);
    mbg_lua_set_int(L, "body", f->body);
    push_xform(L, &X);
    lua_setfield(L, -2, "X");
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "frames");
}

/* model.joint_types[name]: the joint-type table (mb.h MB_JOINT_TYPES) for every tree joint type,
 * so recipes ask it rather than list types: nq, nv; axis, angle, pitch, fixed_origin (booleans);
 * quat, the 0-based offset of the unit quaternion in the joint's q (nil: none). */
static void push_joint_types(lua_State *L) {
  lua_createtable(L, 0, MB_JOINT_TYPE_COUNT);
  for (int k = 0; k < MB_JOINT_TYPE_COUNT; k++) {
    mb_joint_type t = (mb_joint_type)k;
    const struct {
      const char *key;
      int value;
    } flags[] = {{"axis", mb_joint_has_axis(t)},
                 {"angle", mb_joint_is_angle(t)},
                 {"pitch", mb_joint_has_pitch(t)},
                 {"fixed_origin", mb_joint_fixed_origin(t)}};
    lua_createtable(L, 0, 7);
    mbg_lua_set_int(L, "nq", mb_joint_nq(t));
    mbg_lua_set_int(L, "nv", mb_joint_nv(t));
    for (size_t f = 0; f < sizeof flags / sizeof *flags; f++) {
      lua_pushboolean(L, flags[f].value);
      lua_setfield(L, -2, flags[f].key);
    }
    if (mb_joint_quat(t) >= 0) mbg_lua_set_int(L, "quat", mb_joint_quat(t));
    lua_setfield(L, -2, mb_joint_name(t));
  }
  lua_setfield(L, -2, "joint_types");
}

/* model.coupling (coupled joints, gen_coupled.h; nil without): nv the independent velocities,
 * of[k] the independent velocity (0-based) full velocity k (1-based list) follows, mult[k] its
 * factor: v_full = G v, G[k][of[k] + 1] = mult[k]; own[j] the full velocity (0-based) that is
 * independent velocity j itself. */
static void push_coupling(mbg_gen *g, lua_State *L) {
  const mbg_topology *t = g->topo;
  if (!t->ncoupled) return;
  lua_createtable(L, 0, 4);
  mbg_lua_set_int(L, "nv", t->nv_ind);
  push_ints(L, t->v_of, t->nv);
  lua_setfield(L, -2, "of");
  push_numbers(L, t->v_mult, t->nv);
  lua_setfield(L, -2, "mult");
  lua_createtable(L, t->nv_ind, 0);
  for (int k = 0; k < t->nv; k++) {
    if (t->v_coupled[k]) continue;
    lua_pushinteger(L, k);
    lua_rawseti(L, -2, t->v_of[k] + 1);
  }
  lua_setfield(L, -2, "own");
  lua_setfield(L, -2, "coupling");
}

/* The model table, frozen, kept in the registry (g->model_ref, replacing the previous one). */
static int push_model(lua_State *L) {
  mbg_gen *g = lua_touserdata(L, 1);
  lua_createtable(L, 0, 8);
  mbg_lua_set_string(L, "name", g->prefix);
  mbg_lua_set_int(L, "nb", g->topo->nb);
  mbg_lua_set_int(L, "nq", g->topo->nq);
  mbg_lua_set_int(L, "nv", g->topo->nv);
  push_numbers(L, g->model->gravity, 3);
  if (g->params && g->params->gravity_at >= 0) /* run-time gravity: pi[param], 1, 2 */
    mbg_lua_set_int(L, "param", g->params->gravity_at);
  lua_setfield(L, -2, "gravity");
  lua_createtable(L, g->topo->nb, 0);
  for (int i = 1; i <= g->topo->nb; i++) {
    push_body(g, L, i);
    lua_rawseti(L, -2, i);
  }
  lua_setfield(L, -2, "bodies");
  push_joint_types(L);
  push_cfa(g, L);
  push_loops(g, L);
  push_springs(g, L);
  push_frames(g, L);
  mbg_gen_push_contacts(g, L);
  mbg_gen_push_prescribed(g, L);
  push_nodes(g, L);
  push_coupling(g, L);
  mbg_gen_base_push_model(g, L); /* model.base_params() (gen_base.h) */
  if (g->passive_in_fd) { /* --passive-in-fd (passive_forces.lua P.fd_tau) */
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "passive_in_fd");
  }
  mbg_lua_freeze(L, -1);
  if (g->model_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, g->model_ref);
  g->model_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return 0;
}

int mbg_gen_push_model(mbg_gen *g) { return mbg_lua_cpcall(g->lua, push_model, g, 0); }
