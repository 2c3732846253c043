/* graph.c — Graphviz DOT of a model (see graph.h).
 *
 * Nodes are named b<model body index> so no user text is ever an identifier; every user string
 * goes through dot_text(), inside double quotes. Bodies and joints are printed in model order. */
#include "cli/graph.h"

/* Chain fills (ColorBrewer Set3, light enough for black text), cycled by chain index. */
static const char *const palette[] = {"#8dd3c7", "#bebada", "#80b1d3", "#b3de69", "#fccde5",
                                      "#ccebc5", "#bc80bd", "#ffed6f", "#fb8072"};
#define PALETTE_SIZE ((int)(sizeof palette / sizeof palette[0]))
#define NODE_FILL "#fdb462"
#define WORLD_FILL "#d9d9d9"
#define FIXED_COLOR "grey55"

/* The text of a DOT double-quoted string, without the quotes: `"` and `\` escaped (so no user
 * text can form a label escape such as \N), control characters replaced by spaces. */
static void dot_text(FILE *out, const char *s) {
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
    else if (c < 0x20 || c == 0x7f) fputc(' ', out);
    else fputc(c, out);
  }
}

/* Fill colour of tree body i: a node's colour, its chain's colour, or the world's. */
static const char *tree_fill(const mbg_topology *t, int i) {
  if (i <= 0 || i > t->nb) return WORLD_FILL;
  if (t->body[i].is_node || t->body[i].chain < 0) return NODE_FILL;
  return palette[t->body[i].chain % PALETTE_SIZE];
}

/* The tree body a model body belongs to (itself when moving), or -1. */
static int tree_of(const mbg_topology *t, int b) {
  if (b >= 0 && b < t->nmerged && t->merged[b].model_body == b) return t->merged[b].into;
  return -1;
}

static void print_body(FILE *out, const mbg_model *m, const mbg_topology *t, int b) {
  const mbg_body *B = &m->bodies[b];
  fprintf(out, "  b%d [label=\"", b);
  dot_text(out, B->name);
  if (b == 0) {
    fprintf(out, "\", shape=box, style=\"filled,bold\", fillcolor=\"%s\"];\n", WORLD_FILL);
    return;
  }
  fprintf(out, "\\n%g kg\"", B->mass);
  int i = tree_of(t, b);
  if (i > 0 && t->body[i].model_body == b && t->body[i].is_node)
    fprintf(out, ", shape=doubleoctagon, fillcolor=\"%s\"];\n", NODE_FILL);
  else if (i > 0 && t->body[i].model_body == b)
    fprintf(out, ", fillcolor=\"%s\"];\n", tree_fill(t, i));
  else /* merged into tree body i: its colour, a dashed grey outline */
    fprintf(out, ", style=\"filled,dashed\", color=\"%s\", fillcolor=\"%s\"];\n", FIXED_COLOR,
            tree_fill(t, i));
}

static void print_edge_label(FILE *out, const char *name, mbg_joint_type type) {
  fprintf(out, "label=\"");
  dot_text(out, name);
  fprintf(out, "\\n%s\"", mbg_joint_type_name(type));
}

static void print_joint(FILE *out, const mbg_model *m, int j) {
  const mbg_joint *J = &m->joints[j];
  if (J->parent < 0 || J->parent >= m->nbodies || J->child < 0 || J->child >= m->nbodies) return;
  fprintf(out, "  b%d -> b%d [", J->parent, J->child);
  print_edge_label(out, J->name, J->type);
  if (J->type == MBG_JOINT_FIXED)
    fprintf(out, ", color=\"%s\", fontcolor=\"%s\"", FIXED_COLOR, FIXED_COLOR);
  fprintf(out, "];\n");
}

static void print_loop(FILE *out, const mbg_model *m, int l) {
  const mbg_loop *L = &m->loops[l];
  if (L->body_a < 0 || L->body_a >= m->nbodies || L->body_b < 0 || L->body_b >= m->nbodies)
    return;
  fprintf(out, "  b%d -> b%d [", L->body_a, L->body_b);
  print_edge_label(out, L->name, L->type);
  fprintf(out, ", style=dashed, constraint=false];\n");
}

void mbg_graph_dot(FILE *out, const mbg_model *m, const mbg_topology *t) {
  fprintf(out, "digraph \"");
  dot_text(out, m->name);
  fprintf(out, "\" {\n");
  fprintf(out, "  graph [rankdir=TB, label=\"");
  dot_text(out, m->name);
  fprintf(out, "\", labelloc=t, fontname=\"Helvetica\"];\n");
  fprintf(out, "  node [shape=ellipse, style=filled, fontname=\"Helvetica\"];\n");
  fprintf(out, "  edge [fontname=\"Helvetica\", fontsize=10];\n");
  for (int b = 0; b < m->nbodies; b++) print_body(out, m, t, b);
  for (int j = 0; j < m->njoints; j++) print_joint(out, m, j);
  for (int l = 0; l < m->nloops; l++) print_loop(out, m, l);
  fprintf(out, "}\n");
}
