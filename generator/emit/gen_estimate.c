/* gen_estimate.c — estimated expression-graph sizes (gen_estimate.h).
 *
 * nodes = cL L + cN N + cD D + cV V, with the model's
 *   L  moving bodies,
 *   N  Σᵢ nvᵢ bᵢ: the pairs of a dof and a body it is carried by (bᵢ the bodies from the root to
 *      i), the walks up the tree that crba and the Jacobians make (on a chain of 1-dof joints,
 *      the entries of the mass matrix's lower triangle),
 *   D  Σᵢ nvᵢ (aᵢ + nvᵢ)²: the work of factoring it without fill-in,
 *   V  nv²: a dense nv × nv output.
 * The coefficients are least-squares fits of the graphs the built-in recipes build (--frame body)
 * on serial chains of 50, 100 and 200 revolute links (bench/urdf_chain.sh), every fit within 2 %
 * of the three (crba at 400 and 800 links: 0.5 % and 0.6 % above it); on the robots of examples/
 * the estimates are 0.6 to 2.8 times the graphs built (their small constant terms, joints on
 * coordinate axes). docs/generator.md, "Model size and memory". */
#include "emit/gen_estimate.h"

#include <stdlib.h>
#include <string.h>

typedef struct coef {
  const char *name;
  double L, N, D, V;
} coef;

static const coef COEF[] = {
    {"aba", 440.7, 0, 0, 0},
    {"aba_derivatives", 1283.7, 0, 0, 86.26},
    {"aba_ext", 452.8, 0, 0, 0},
    {"ccrba", 165.2, 0, 0, 0},
    {"centroidal_bias", 245.6, 0, 0, 0},
    {"centroidal_momentum", 275.2, 0, 0, 0},
    {"cfa", 894.4, 0, 0, 0},
    {"com", 58.2, 0, 0, 0},
    {"com_jacobian", 77.1, 0, 0, 0},
    {"crba", 31.8, 29.79, 0, 0},
    {"crba_fd", 142.0, 38.89, 0.99, 0},
    {"difference", 3.0, 0, 0, 0},
    {"energy", 237.2, 0, 0, 0},
    {"fk", 46.6, 0, 0, 0},
    {"frame_acceleration_bias", 211.5, 0, 0, 0},
    {"frame_jacobian", 73.4, 39.65, 0, 0},
    {"frame_jacobian_world", 73.9, 12.01, 0, 0},
    {"frame_pose", 46.6, 0, 0, 0},
    {"frame_velocity", 212.0, 0, 0, 0},
    {"gravity", 57.2, 0, 0, 0},
    {"integrate", 4.0, 0, 0, 0},
    {"joint_wrenches", 179.3, 0, 0, 0},
    {"minv", 136.2, 0, 0, 46.71},
    {"nle", 176.9, 0, 0, 0},
    {"nle_ext", 189.0, 0, 0, 0},
    {"passive_forces", 78.5, 0, 0, 0},
    {"rnea", 179.3, 0, 0, 0},
    {"rnea_derivatives", 930.3, 0, 0, 39.53},
    {"rnea_ext", 191.3, 0, 0, 0},
    {NULL, 0, 0, 0, 0}};

/* The bytes sym.c holds for n nodes: node arrays of 13 bytes an entry grown by doubling from 256,
 * a hash table of 8-byte slots, a power of two at least twice n. */
static double graph_bytes(double n) {
  double cap = 256.0, slots = 2.0;
  while (cap < n) cap *= 2.0;
  while (slots < 2.0 * n) slots *= 2.0;
  return 13.0 * cap + 8.0 * slots;
}

int mbg_gen_estimate(const mbg_topology *t, const char *name, mbg_gen_size *out) {
  const coef *c = COEF;
  while (c->name && strcmp(c->name, name) != 0) c++;
  if (!c->name) return -1;
  double L = t->nb, N = 0.0, D = 0.0, nv = 0.0;
  /* above[2i]: aᵢ + nvᵢ, the dofs from the root to i; above[2i + 1]: the bodies */
  double *above = malloc(2 * sizeof *above * (size_t)(t->nb + 1));
  if (!above) return -1;
  above[0] = above[1] = 0.0;
  for (int i = 1; i <= t->nb; i++) {
    int p = t->body[i].parent;
    double n = t->body[i].nv + t->body[i].nm, a = above[2 * p];
    above[2 * i] = a + n, above[2 * i + 1] = above[2 * p + 1] + 1.0, nv += n;
    N += n * above[2 * i + 1], D += n * (a + n) * (a + n);
  }
  free(above);
  out->nodes = c->L * L + c->N * N + c->D * D + c->V * nv * nv;
  /* the fits' drift: +0.5 % at 400 links, +0.6 % at 800 (crba), so 2 % more for the bytes, whose
   * doubling growth makes a few nodes more cost twice the memory */
  out->bytes = graph_bytes(1.02 * out->nodes);
  out->measure = c->D > 0   ? "the work of factoring the mass matrix"
                 : c->N > 0 ? "the dofs' walks up the tree"
                 : c->V > 0 ? "the square of the velocity coordinates"
                            : "the bodies";
  out->units = c->D > 0 ? D : c->N > 0 ? N : c->V > 0 ? nv * nv : L;
  return 0;
}
