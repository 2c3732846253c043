/* summary.c — the text `mbdc check MODEL` prints on success (see summary.h).
 *
 * Every table is printed in two passes: measure the widest cell of each column, then print padded
 * rows. Order is tree order or model order, never anything else, so the text is deterministic. */
#include "cli/summary.h"

#include <math.h>
#include <string.h>

#include "modal/beam.h"
#include "topology/base_params.h"
#include "topology/rtloops.h"
#include "topology/rtmodel.h"

static const char *body_name(const mbg_model *m, int b) {
  return b >= 0 && b < m->nbodies ? m->bodies[b].name : "?";
}

static const char *joint_name(const mbg_model *m, int j) {
  return j >= 0 && j < m->njoints ? m->joints[j].name : "?";
}

static int widest(int w, const char *s) {
  int n = (int)strlen(s);
  return n > w ? n : w;
}

/* Model bodies (not the world) that are not moving bodies of their own. */
static int count_merged(const mbg_topology *t) {
  int n = 0;
  for (int k = 0; k < t->nmerged; k++) {
    const mbg_merged *mb = &t->merged[k];
    if (mb->model_body == 0) continue;
    if (mb->into <= 0 || t->body[mb->into].model_body != mb->model_body) n++;
  }
  return n;
}

static void print_header(FILE *out, const mbg_model *m, const mbg_topology *t) {
  fprintf(out, "model %s\n", m->name);
  if (m->path && m->path[0]) fprintf(out, "  file          %s\n", m->path);
  fprintf(out, "  coordinates   nq = %d, nv = %d\n", t->nq, t->nv);
  if (t->ncoupled) { /* docs/dsl.md "Coupled joints" */
    fprintf(out, "  independent   nq = %d, nv = %d (the generated functions'; %d coupled joint%s:",
            t->nq_ind, t->nv_ind, t->ncoupled, t->ncoupled > 1 ? "s" : "");
    const char *sep = " ";
    for (int j = 0; j < m->njoints; j++) {
      const mbg_joint *J = &m->joints[j];
      if (!J->mimic) continue;
      fprintf(out, "%s%s = %g %s", sep, J->name, J->mimic_mult, m->joints[J->mimic - 1].name);
      if (J->mimic_off != 0) fprintf(out, " %+g", J->mimic_off);
      sep = ", ";
    }
    fprintf(out, ")\n");
  }
  fprintf(out, "  bodies        %d moving, %d merged (%d in the model, with the world)\n", t->nb,
          count_merged(t), m->nbodies);
  fprintf(out, "  gravity       %g %g %g\n", m->gravity[0], m->gravity[1], m->gravity[2]);
}

/* Column widths of the joint table: joint, type, parent, child. */
static void joint_widths(const mbg_model *m, const mbg_topology *t, int w[4]) {
  w[0] = widest(0, "joint"), w[1] = widest(0, "type");
  w[2] = widest(0, "parent"), w[3] = widest(0, "child");
  for (int i = 1; i <= t->nb; i++) {
    const mbg_tree_body *tb = &t->body[i];
    int j = tb->model_joint;
    w[0] = widest(w[0], joint_name(m, j));
    w[1] = widest(w[1], mbg_joint_type_name(tb->type));
    w[2] = widest(w[2], body_name(m, j >= 0 && j < m->njoints ? m->joints[j].parent : -1));
    w[3] = widest(w[3], body_name(m, tb->model_body));
  }
}

static void print_joints(FILE *out, const mbg_model *m, const mbg_topology *t) {
  int w[4];
  joint_widths(m, t, w);
  fprintf(out, "\nmoving joints, in tree order (%d)\n", t->nb);
  fprintf(out, "  %3s  %-*s  %-*s  %-*s    %-*s  %4s %3s  %4s %3s\n", "#", w[0], "joint", w[1],
          "type", w[2], "parent", w[3], "child", "iq", "nq", "iv", "nv");
  for (int i = 1; i <= t->nb; i++) {
    const mbg_tree_body *tb = &t->body[i];
    int j = tb->model_joint;
    const char *parent = body_name(m, j >= 0 && j < m->njoints ? m->joints[j].parent : -1);
    fprintf(out, "  %3d  %-*s  %-*s  %-*s -> %-*s  %4d %3d  %4d %3d\n", i, w[0], joint_name(m, j),
            w[1], mbg_joint_type_name(tb->type), w[2], parent, w[3], body_name(m, tb->model_body),
            tb->iq, tb->nq, tb->iv, tb->nv);
  }
}

/* The model body a merged body ended up in, by name ("world" for the world). */
static const char *host_name(const mbg_model *m, const mbg_topology *t, int b) {
  if (b < 0 || b >= t->nmerged || t->merged[b].into < 0) return "?";
  return body_name(m, t->body[t->merged[b].into].model_body);
}

/* A fixed joint whose child stays a body of the tree (a flexible body) is not merged. */
static int merged_away(const mbg_topology *t, int child) {
  return child < 0 || child >= t->nmerged || t->merged[child].into < 0 ||
         t->body[t->merged[child].into].model_body != child;
}

static void print_fixed(FILE *out, const mbg_model *m, const mbg_topology *t) {
  int n = 0, w[2] = {0, 0};
  for (int j = 0; j < m->njoints; j++) {
    if (m->joints[j].type != MBG_JOINT_FIXED || !merged_away(t, m->joints[j].child)) continue;
    n++;
    w[0] = widest(w[0], m->joints[j].name);
    w[1] = widest(w[1], body_name(m, m->joints[j].child));
  }
  if (n == 0) return;
  fprintf(out, "\nfixed joints merged (%d)\n", n);
  for (int j = 0; j < m->njoints; j++) {
    const mbg_joint *J = &m->joints[j];
    if (J->type != MBG_JOINT_FIXED || !merged_away(t, J->child)) continue;
    fprintf(out, "  %-*s  %-*s  into %s\n", w[0], J->name, w[1], body_name(m, J->child),
            host_name(m, t, J->child));
  }
}

/* The operational frames (topology/frames.c), numbered as P_FRAME_<name> numbers them: every
 * body's own (merged ones marked) and the `frame` statements, each with the moving body (or the
 * world) it is fixed on. */
static void print_frames(FILE *out, const mbg_model *m, const mbg_topology *t) {
  if (t->nframes == 0) return;
  int w = 5, nd = 0;
  for (int k = 0; k < t->nframes; k++)
    w = widest(w, t->frame[k].name), nd += t->frame[k].model_frame >= 0;
  int own = t->nframes - nd;
  fprintf(out, "\nframes (%d: %d %s own, %d declared)\n", t->nframes, own,
          own == 1 ? "body's" : "bodies'", nd);
  fprintf(out, "    #  %-*s  on\n", w, "frame");
  for (int k = 0; k < t->nframes; k++) {
    const mbg_tree_frame *f = &t->frame[k];
    const char *on = f->body == 0 ? "world" : body_name(m, t->body[f->body].model_body);
    const char *how = f->model_frame >= 0 ? "  (declared)"
                      : t->merged[f->model_body].into != 0 &&
                              t->body[t->merged[f->model_body].into].model_body == f->model_body
                          ? ""
                          : "  (merged)";
    fprintf(out, "  %3d  %-*s  %s%s\n", k, w, f->name, on, how);
  }
}

static void print_chains(FILE *out, const mbg_model *m, const mbg_topology *t) {
  fprintf(out, "\nchains (%d)\n", t->nchains);
  for (int c = 0; c < t->nchains; c++) {
    fprintf(out, "  %3d ", c);
    for (int k = t->chain_start[c]; k < t->chain_start[c + 1]; k++)
      fprintf(out, "%s%s", k > t->chain_start[c] ? " -> " : " ",
              body_name(m, t->body[t->chain_body[k]].model_body));
    fprintf(out, "\n");
  }
  fprintf(out, "\nnodes (%d)", t->nnodes);
  for (int k = 0; k < t->nnodes; k++)
    fprintf(out, "%s%s", k > 0 ? ", " : "  ", body_name(m, t->body[t->node[k]].model_body));
  fprintf(out, "%s\n", t->world_is_node ? "  (the world has more than one child)" : "");
}

/* "q5: 5 rows, 2 independent, 3 redundant (kept: ...; redundant: ...)" */
static void print_rows(FILE *out, const mbg_model *m, const mbg_topology *t,
                       const mbg_loop_rows *rows, int k) {
  mb_loop_type type = mbg_joint_type_loop(m->loops[t->loop[k].model_loop].type);
  int nr = mb_loop_nrows(type), r = 0;
  fprintf(out, "      %s: %d row%s, %d independent, %d redundant", m->loops[t->loop[k].model_loop].name,
          nr, nr == 1 ? "" : "s", rows->nkept[k], rows->nrows[k] - rows->nkept[k]);
  for (int pass = 0; pass < 2; pass++) {
    int any = 0;
    for (int j = 0; j < nr; j++) {
      int code = MB_LOOP_MAX_ROWS * k + j, kept = 0;
      for (r = 0; r < rows->nc; r++) kept |= rows->row[r] == code;
      if (kept != (pass == 0)) continue;
      fprintf(out, "%s%s", any ? " " : pass ? "; redundant: " : " (kept: ", mb_loop_row_name(type, j));
      any = 1;
    }
    if (pass == 0 && !any) fprintf(out, " (kept: none");
  }
  fprintf(out, ")\n");
}

/* The groups of selection s (mbg_rcr_plan): their loops, base, the group and body they hang
 * from, head joints and the number of tail independents (the size of the group's dense system);
 * heads that hold a body of another group's head are coupled loops reduced apart (Critchley &
 * Anderson's §5), and so are groups hung from another's tail (§5 with eq. 45). */
static void print_rcr_groups(FILE *out, const mbg_model *m, const mbg_topology *t,
                             mbg_rcr_sel *sel, int s) {
  mbg_rcr_plan_view v;
  if (mbg_rcr_plan(sel, s, &v) != 0) return;
  int shared = 0, joined = 0, hung = 0;
  for (int g = 0; g < v.ng; g++) {
    fprintf(out, "      group %d:", g);
    int last = -1, nloops = 0;
    for (int r = v.row0[g]; r < v.row0[g + 1]; r++) {
      int l = v.kept[v.row[r]] / MB_LOOP_MAX_ROWS;
      if (l != last) fprintf(out, " %s", m->loops[t->loop[l].model_loop].name), nloops++;
      last = l;
    }
    joined |= nloops > 1;
    fprintf(out, "; base %s", body_name(m, t->body[v.base[g]].model_body));
    if (v.nest[g] >= 0)
      fprintf(out, "; hung from group %d at %s", v.nest[g], body_name(m, t->body[v.att[g]].model_body));
    hung |= v.nest[g] >= 0;
    fprintf(out, "; head");
    if (v.head0[g] == v.head0[g + 1]) fprintf(out, " (none)");
    for (int h = v.head0[g]; h < v.head0[g + 1]; h++) {
      fprintf(out, " %s", joint_name(m, t->body[v.head[h]].model_joint));
      for (int g2 = 0; g2 < v.ng; g2++)
        for (int h2 = v.head0[g2]; g2 != g && h2 < v.head0[g2 + 1]; h2++) shared |= v.head[h2] == v.head[h];
    }
    fprintf(out, "; %d tail independent%s\n", v.ind0[g + 1] - v.ind0[g],
            v.ind0[g + 1] - v.ind0[g] == 1 ? "" : "s");
  }
  if (shared)
    fprintf(out, "      (coupled loops: the groups share head joints, reduced with one inertia per "
                 "open base)\n");
  if (hung)
    fprintf(out, "      (coupled loops: a group hangs from another's tail, where the joints they "
                 "share carry\n       the other's dependents; reduced onto its two bodies there, "
                 "refined once on every call)\n");
  if (joined)
    fprintf(out, "      (coupled loops in one group: they share a dependent or tail joint and "
                 "neither can hang\n       from the other with profit, or more than %d maps would "
                 "be open on one body; reduced\n       together, with one dense system of the "
                 "tail independents)\n",
            MB_RCR_MAX_OPEN);
}

/* The selections of dependent coordinates p_rcr switches between (topology/rcr_select.h). */
static void print_rcr(FILE *out, const mbg_model *m, const mbg_topology *t,
                      mbg_rcr_sel *sel) {
  static const char *const origin[] = {"the model's 'independent'", "from the chains' ends",
                                       "from the chains' starts"};
  fprintf(out, "  recursive coordinate reduction (rcr): %d selection%s of dependent coordinates\n",
          sel->nsel, sel->nsel == 1 ? "" : "s");
  for (int s = 0; s < sel->nsel; s++) {
    fprintf(out, "    %d (%s):", s, origin[sel->origin[s]]);
    for (int k = 0; k < sel->nc; k++) {
      int col = sel->dep[s * sel->nc + k], i = 1;
      while (i < t->nb && !(col >= t->body[i].iv && col < t->body[i].iv + t->body[i].nv)) i++;
      if (t->body[i].nv > 1)
        fprintf(out, " %s[%d]", joint_name(m, t->body[i].model_joint), col - t->body[i].iv);
      else
        fprintf(out, " %s", joint_name(m, t->body[i].model_joint));
    }
    fprintf(out, "; pivot ratio %.3g at the assembled configuration\n", sel->ratio[s]);
    print_rcr_groups(out, m, t, sel, s);
  }
}

static void print_loops(FILE *out, const mbg_model *m, const mbg_topology *t,
                        const mbg_loop_rows *rows, mbg_rcr_sel *sel) {
  if (m->nloops == 0) return;
  int w[2] = {0, 0};
  for (int l = 0; l < m->nloops; l++) {
    w[0] = widest(w[0], m->loops[l].name);
    w[1] = widest(w[1], mbg_joint_type_name(m->loops[l].type));
  }
  fprintf(out, "\nloops (%d)\n", m->nloops);
  for (int k = 0; k < t->nloops; k++) {
    const mbg_tree_loop *L = &t->loop[k];
    const mbg_loop *ml = &m->loops[L->model_loop];
    fprintf(out, "  %-*s  %-*s  %s -- %s, path:", w[0], ml->name, w[1],
            mbg_joint_type_name(ml->type), body_name(m, ml->body_a), body_name(m, ml->body_b));
    for (int p = 0; p < L->npath; p++)
      fprintf(out, " %s", joint_name(m, t->body[L->path[p]].model_joint));
    fprintf(out, " (through %s)\n", body_name(m, t->body[L->ancestor].model_body));
    if (rows && rows->nrows) print_rows(out, m, t, rows, k);
  }
  if (rows && rows->nrows) {
    int dof = t->nv - rows->nc;
    fprintf(out, "  mobility: %d velocity coordinate%s - %d independent constraint row%s = %d "
                 "degree%s of freedom\n", t->nv, t->nv == 1 ? "" : "s", rows->nc,
            rows->nc == 1 ? "" : "s", dof, dof == 1 ? "" : "s");
  }
  if (sel && sel->nsel > 0) print_rcr(out, m, t, sel);
}

/* The springs as the topology keeps them: bodies (tree names), k, c, L0; those between two
 * parts of one rigid body are said to be left out. */
static void print_springs(FILE *out, const mbg_model *m, const mbg_topology *t) {
  if (m->nsprings == 0) return;
  int w[3] = {0, 0, 0};
  for (int k = 0; k < m->nsprings; k++) {
    w[0] = widest(w[0], m->springs[k].name);
    w[1] = widest(w[1], body_name(m, m->springs[k].body_a));
    w[2] = widest(w[2], body_name(m, m->springs[k].body_b));
  }
  fprintf(out, "\nsprings (%d)\n", m->nsprings);
  for (int k = 0, i = 0; k < m->nsprings; k++) {
    const mbg_spring *s = &m->springs[k];
    fprintf(out, "  %-*s  %-*s -- %-*s  k %g, c %g, L0 %g", w[0], s->name, w[1],
            body_name(m, s->body_a), w[2], body_name(m, s->body_b), s->stiffness, s->damping,
            s->length);
    if (i < t->nsprings && t->spring[i].model_spring == k) {
      const mbg_tree_spring *ts = &t->spring[i++];
      fprintf(out, "  (on %s, %s)\n", body_name(m, t->body[ts->a].model_body),
              body_name(m, t->body[ts->b].model_body));
    } else {
      fprintf(out, "  (both ends on one rigid body: no force, left out)\n");
    }
  }
}

/* The joints given an initial state, in tree order, with their values. */
static void print_initial(FILE *out, const mbg_model *m, const mbg_topology *t) {
  int n = 0;
  for (int i = 1; i <= t->nb; i++) n += m->joints[t->body[i].model_joint].initial_loc.line > 0;
  if (n == 0) return;
  fprintf(out, "\ninitial state (%d joint%s; the others neutral, at rest)\n", n, n > 1 ? "s" : "");
  for (int i = 1; i <= t->nb; i++) {
    const mbg_tree_body *tb = &t->body[i];
    const mbg_joint *J = &m->joints[tb->model_joint];
    if (J->initial_loc.line == 0) continue;
    fprintf(out, "  %s  q", J->name);
    for (int k = 0; k < tb->nq; k++) fprintf(out, " %g", t->q_initial[tb->iq + k]);
    fprintf(out, "  v");
    for (int k = 0; k < tb->nv; k++) fprintf(out, " %g", t->v_initial[tb->iv + k]);
    fprintf(out, "\n");
  }
}

/* The flexible bodies: their data, modal coordinates and nodes; the beam preset's clamped
 * natural frequencies (β_k L)² √(EI / (ρA L⁴)), exact for its modes (docs/flexible.md). */
static void print_flexible(FILE *out, const mbg_model *m, const mbg_topology *t) {
  int n = 0;
  for (int i = 1; i <= t->nb; i++) n += m->bodies[t->body[i].model_body].flex != NULL;
  if (n == 0) return;
  fprintf(out, "\nflexible bodies (%d)\n", n);
  for (int i = 1; i <= t->nb; i++) {
    const mbg_tree_body *tb = &t->body[i];
    const mbg_body *B = &m->bodies[tb->model_body];
    const mbg_flex *f = B->flex;
    if (!f) continue;
    if (f->is_beam)
      fprintf(out, "  %s  beam L %g, EI %g, rhoA %g", B->name, f->length, f->EI, f->rhoA);
    else
      fprintf(out, "  %s  nodal data, %d node%s", B->name, f->nnodes, f->nnodes == 1 ? "" : "s");
    if (tb->nm == 0) {
      fprintf(out, ", 0 modes: the rigid body\n");
      continue;
    }
    fprintf(out, ", %d mode%s: q %d..%d, v %d..%d\n", tb->nm, tb->nm > 1 ? "s" : "",
            tb->iq + tb->nq, tb->iq + tb->nq + tb->nm - 1, tb->iv + tb->nv,
            tb->iv + tb->nv + tb->nm - 1);
    if (!f->is_beam) continue;
    fprintf(out, "    clamped natural frequencies (rad/s):");
    for (int k = 1; k <= tb->nm; k++) {
      double bl = mbg_beam_root(k);
      fprintf(out, " %.4g", bl * bl * sqrt(f->EI / (f->rhoA * pow(f->length, 4))));
    }
    fprintf(out, "\n");
  }
}

/* The inertial parameters: the standard ones and the base ones (topology/base_params.h). */
static void print_params(FILE *out, const mbg_model *m, const mbg_topology *t) {
  mbg_rtmodel rt;
  mbg_base_params b;
  if (t->nb == 0 || mbg_rtmodel_build(m, t, &rt) != 0) return;
  /* a loop's constraints couple the tree's torques: the tree's base set is not the mechanism's */
  int rc = t->nloops > 0 ? 2 : mbg_base_params_compute(&rt.model, &b);
  if (rc == 2) memset(&b, 0, sizeof b);
  fprintf(out, "\ninertial parameters\n");
  fprintf(out, "  standard  %d (10 per moving body; the regressor: mbdc generate --functions "
               "regressor)\n", 10 * t->nb);
  if (rc == 0)
    fprintf(out, "  base      %d (the combinations the joint torques identify; "
                 "docs/identification.md)\n", b.nbase);
  else if (rc == 1)
    fprintf(out, "  base      not computed (%s)\n", mb_flex_count(&rt.model, 0) > 0
                                                        ? "a model with flexible bodies"
                                                        : "more than 60 moving bodies");
  else if (rc == 2)
    fprintf(out, "  base      not computed (a model with closed loops: the constraints couple the "
                 "torques, not yet taken into account)\n");
  if (m->has_parameters) { /* the `parameters` statement (docs/parameters.md) */
    int n = 10 * (m->param_all ? t->nb : 0) + 10 * m->nparam_bodies + 3 * m->param_gravity;
    fprintf(out, "  run-time  %s", m->param_all ? "all" : "");
    for (int k = 0; k < m->nparam_bodies; k++)
      fprintf(out, "%s%s", k || m->param_all ? ", " : "", m->bodies[m->param_bodies[k]].name);
    fprintf(out, "%s%s: the first argument pi of the generated functions (at most %d numbers; "
                 "docs/parameters.md)\n", m->param_gravity && (m->param_all || m->nparam_bodies)
                                             ? ", " : "", m->param_gravity ? "gravity" : "", n);
  }
  mbg_base_params_free(&b);
  mbg_rtmodel_free(&rt);
}

/* The joints' properties (docs/dsl.md "Joint properties"): those of the moving joints that have
 * any, one line each, "-" for none. */
static void print_jprops(FILE *out, const mbg_model *m, const mbg_topology *t) {
  int n = 0, w = 5;
  for (int i = 1; i <= t->nb; i++) {
    const mbg_joint *j = &m->joints[t->body[i].model_joint];
    int any = j->armature != 0 || j->damping != 0 || j->friction != 0 || j->stiffness != 0 ||
              j->has_range || j->velocity_limit > 0 || j->effort_limit > 0;
    if (any) n++, w = widest(w, j->name);
  }
  if (n == 0) return;
  fprintf(out, "\njoint properties (%d)\n", n);
  fprintf(out, "  %-*s  %-8s %-8s %-8s %-14s %-22s %-8s %s\n", w, "joint", "armature", "damping",
          "friction", "stiffness @ q", "limits", "velocity", "effort");
  for (int i = 1; i <= t->nb; i++) {
    const mbg_joint *j = &m->joints[t->body[i].model_joint];
    if (!(j->armature != 0 || j->damping != 0 || j->friction != 0 || j->stiffness != 0 ||
          j->has_range || j->velocity_limit > 0 || j->effort_limit > 0))
      continue;
    char k[48] = "-", r[64] = "-", v[24] = "-", e[24] = "-";
    if (j->stiffness != 0) snprintf(k, sizeof k, "%g @ %g", j->stiffness, j->spring_ref);
    if (j->has_range) snprintf(r, sizeof r, "[%g, %g]", j->lower, j->upper);
    if (j->velocity_limit > 0) snprintf(v, sizeof v, "%g", j->velocity_limit);
    if (j->effort_limit > 0) snprintf(e, sizeof e, "%g", j->effort_limit);
    fprintf(out, "  %-*s  %-8g %-8g %-8g %-14s %-22s %-8s %s\n", w, j->name, j->armature,
            j->damping, j->friction, k, r, v, e);
  }
}

void mbg_summary_print(FILE *out, const mbg_model *m, const mbg_topology *t,
                       const mbg_loop_rows *rows, mbg_rcr_sel *sel) {
  print_header(out, m, t);
  print_joints(out, m, t);
  print_jprops(out, m, t);
  print_fixed(out, m, t);
  print_frames(out, m, t);
  print_chains(out, m, t);
  print_loops(out, m, t, rows, sel);
  print_springs(out, m, t);
  print_flexible(out, m, t);
  print_initial(out, m, t);
  print_params(out, m, t);
}
