/* cfa_order.c — the CFA's elimination orders and their symbolic fill (see cfa_order.h).
 *
 * The graph is kept as a byte matrix over the unknowns ((nb + nhub + 1)² bytes): every step looks
 * at every unknown, so building an order is O(nb²), deterministic, and never walks a hash table. */
#include "emit/cfa_order.h"

#include <stdlib.h>
#include <string.h>

typedef struct graph {
  int n;              /* unknowns 1..n */
  unsigned char *adj; /* adj[(n + 1) j + k] */
} graph;

static unsigned char *at(graph *G, int j, int k) {
  return &G->adj[(size_t)(G->n + 1) * (size_t)j + (size_t)k];
}

void mbg_cfa_order_free(mbg_cfa_order *o) {
  free(o->body), free(o->round), free(o->nbr_start), free(o->nbr), free(o->edge);
  free(o->edge_kind), free(o->hub_body), free(o->rows);
  memset(o, 0, sizeof *o);
}

/* The cost model of one step: a block of d rows, remaining neighbours of sum rows in all, sq the
 * sum of their squares. */
static double step_flops(double d, double sum, double sq) {
  return d * d * d / 3 + d * d * sum + d * (sum * sum + sq) / 2;
}

double mbg_cfa_order_flops(const mbg_cfa_order *o) {
  double flops = 0;
  for (int s = 0; s < o->n; s++) {
    double sum = 0, sq = 0;
    for (int k = o->nbr_start[s]; k < o->nbr_start[s + 1]; k++) {
      double e = o->rows[o->nbr[k]];
      sum += e, sq += e * e;
    }
    flops += step_flops(o->rows[o->body[s]], sum, sq);
  }
  return flops;
}

/* The hubs of the tips order (cfa_order.h): every body p (not on the world with rows: those
 * joints go first) whose children's steps cost more with their siblings and p's own joint as
 * neighbours (children go in descending order, so child k's remaining siblings are the smaller
 * ones) than with the hub alone, plus the hub's own step (6 rows, p's joint its neighbour). Sets
 * hub_of[p] = nb + h and o->hub_body[h]. Returns 0, or -1 (memory). */
static int choose_hubs(int nb, const int *parent, const int *nt, int *hub_of, mbg_cfa_order *o) {
  size_t n1 = (size_t)nb + 1;
  double *pair = calloc(n1, sizeof *pair), *hub = calloc(n1, sizeof *hub);
  double *sum = calloc(n1, sizeof *sum), *sq = calloc(n1, sizeof *sq);
  int rc = -1;
  if (!pair || !hub || !sum || !sq) goto out;
  for (int k = 1; k <= nb; k++) {
    int p = parent[k];
    if (p <= 0 || nt[k] == 0 || (parent[p] == 0 && nt[p] > 0)) continue;
    double d = nt[k], alone = step_flops(d, 0, 0), e = nt[p];
    pair[p] += step_flops(d, sum[p] + e, sq[p] + e * e) - alone;
    hub[p] += step_flops(d, 6, 36) - alone;
    sum[p] += d, sq[p] += d * d;
  }
  for (int p = 1; p <= nb; p++)
    if (sum[p] > 0 && hub[p] + step_flops(6, nt[p], (double)nt[p] * nt[p]) < pair[p])
      o->hub_body[++o->nhub] = p, hub_of[p] = nb + o->nhub;
  rc = 0;
out:
  free(pair), free(hub), free(sum), free(sq);
  return rc;
}

const char *mbg_cfa_kind_name(mbg_cfa_kind kind) {
  return kind == MBG_CFA_TIPS ? "tips" : kind == MBG_CFA_ODD_EVEN ? "odd-even" : NULL;
}

int mbg_cfa_kind_parse(const char *name, mbg_cfa_kind *kind) {
  if (strcmp(name, "tips") == 0) return *kind = MBG_CFA_TIPS, 0;
  if (strcmp(name, "odd-even") == 0) return *kind = MBG_CFA_ODD_EVEN, 0;
  return -1;
}

/* The blocks before elimination: parent–child and siblings (both with rows, the common parent a
 * moving body), or joint–hub for a hub body's own joint and its children's. Fills G and o->edge
 * / o->edge_kind in ascending (j, k). */
static int build_edges(int nb, const int *parent, const int *nt, const int *hub_of, graph *G,
                       mbg_cfa_order *o) {
  for (int k = 1; k <= nb; k++) {
    int p = parent[k];
    if (nt[k] > 0 && hub_of[k]) *at(G, k, hub_of[k]) = *at(G, hub_of[k], k) = 1;
    if (nt[k] == 0 || p == 0) continue;
    if (hub_of[p]) {
      *at(G, k, hub_of[p]) = *at(G, hub_of[p], k) = 1;
      continue;
    }
    if (nt[p] > 0) *at(G, p, k) = *at(G, k, p) = 1;
    for (int j = k + 1; j <= nb; j++)
      if (parent[j] == p && nt[j] > 0) *at(G, j, k) = *at(G, k, j) = 1;
  }
  for (int j = 1; j <= G->n; j++)
    for (int k = j + 1; k <= G->n; k++) o->nedges += *at(G, j, k);
  o->edge = malloc(2 * (size_t)(o->nedges + 1) * sizeof *o->edge);
  o->edge_kind = malloc((size_t)(o->nedges + 1) * sizeof *o->edge_kind);
  if (!o->edge || !o->edge_kind) return -1;
  int e = 0;
  for (int j = 1; j <= G->n; j++)
    for (int k = j + 1; k <= G->n; k++)
      if (*at(G, j, k)) {
        o->edge[2 * e] = j, o->edge[2 * e + 1] = k;
        o->edge_kind[e++] = k > nb ? MBG_CFA_HUB : parent[k] == j ? MBG_CFA_CHILD : MBG_CFA_SIBLING;
      }
  return 0;
}

/* The joints on the world first (their pivots and their updates are constants: docs/cfa.md), then
 * the others from the leaves to the root, a hub as soon as its body's subtree is done (bodies
 * are numbered parents first). Every step eliminates an unknown whose remaining neighbours
 * share one body (a clique) or are its hub: zero fill. */
static void tips_order(int nb, const int *parent, const int *nt, const int *hub_of,
                       mbg_cfa_order *o) {
  for (int i = 1; i <= nb; i++)
    if (nt[i] > 0 && parent[i] == 0) o->body[o->n] = i, o->round[o->n++] = 0;
  for (int i = nb; i >= 1; i--) {
    if (hub_of[i]) o->body[o->n] = hub_of[i], o->round[o->n++] = 0;
    if (nt[i] > 0 && parent[i] > 0) o->body[o->n] = i, o->round[o->n++] = 0;
  }
}

/* Chain segments of the odd-even order: seg[] holds them back to back (inboard first), start[]
 * their beginnings; returns their number. node[i] marks the node set. */
static int segments(int nb, const int *parent, const int *nt, const int *vch, const int *fvc,
                    const unsigned char *node, int *seg, int *start) {
  int nseg = 0, len = 0;
  for (int i = 1; i <= nb; i++) {
    int p = parent[i];
    if (nt[i] == 0 || node[i] || (p > 0 && nt[p] > 0 && !node[p])) continue;
    start[nseg++] = len;
    for (int x = i; x > 0 && nt[x] > 0 && !node[x]; x = vch[x] == 1 ? fvc[x] : 0) seg[len++] = x;
  }
  start[nseg] = len;
  return nseg;
}

/* K rounds of odd-even elimination on every segment, then the rest (the node block). */
static int odd_even_order(int nb, const int *parent, const int *nt, mbg_cfa_order *o) {
  size_t n1 = (size_t)nb + 2;
  int *vch = calloc(n1, sizeof *vch), *fvc = calloc(n1, sizeof *fvc);
  int *seg = malloc(n1 * sizeof *seg), *start = malloc(n1 * sizeof *start);
  unsigned char *node = calloc(n1, 1), *done = calloc(n1, 1);
  int rc = -1;
  if (!vch || !fvc || !seg || !start || !node || !done) goto out;
  for (int i = nb; i >= 1; i--)
    if (nt[i] > 0 && parent[i] > 0) vch[parent[i]]++, fvc[parent[i]] = i;
  for (int i = 1; i <= nb; i++)
    node[i] = nt[i] > 0 && (vch[i] >= 2 || (parent[i] > 0 && vch[parent[i]] >= 2));
  int nseg = segments(nb, parent, nt, vch, fvc, node, seg, start);
  for (int s = 0; s < nseg; s++)
    if (start[s + 1] - start[s] > o->longest) o->longest = start[s + 1] - start[s];
  while ((1 << o->rounds) < o->longest) o->rounds++;
  for (int r = 1; r <= o->rounds; r++)
    for (int s = 0; s < nseg; s++) {
      /* the blocks still present, in segment order: eliminate the 1st, 3rd, ... */
      int k = 0;
      for (int x = start[s]; x < start[s + 1]; x++) {
        if (done[seg[x]]) continue;
        if (k++ % 2 == 0) done[seg[x]] = 1, o->body[o->n] = seg[x], o->round[o->n++] = r;
      }
    }
  for (int i = 1; i <= nb; i++)
    if (nt[i] > 0 && !done[i]) o->body[o->n] = i, o->round[o->n++] = o->rounds + 1, o->nnode++;
  rc = 0;
out:
  free(vch), free(fvc), free(seg), free(start), free(node), free(done);
  return rc;
}

/* Every step's remaining neighbours by step, the fill they create, the elimination tree. */
static int eliminate(graph *G, mbg_cfa_order *o) {
  int n = o->n, cap = 0;
  int *pos = malloc((size_t)(G->n + 1) * sizeof *pos), *list = malloc((size_t)(n + 1) * sizeof *list);
  int *h = calloc((size_t)n + 1, sizeof *h);
  o->nbr_start = malloc((size_t)(n + 1) * sizeof *o->nbr_start);
  if (!pos || !list || !h || !o->nbr_start) return free(pos), free(list), free(h), -1;
  for (int s = 0; s < n; s++) pos[o->body[s]] = s;
  o->nbr_start[0] = 0;
  for (int s = 0; s < n; s++) {
    int v = o->body[s], m = 0;
    /* the neighbours still present, by step (positions are distinct: mark and sweep) */
    for (int t = s + 1; t < n; t++)
      if (*at(G, v, o->body[t])) list[m++] = o->body[t];
    for (int a = 0; a < m; a++)
      for (int b = a + 1; b < m; b++)
        if (!*at(G, list[a], list[b])) *at(G, list[a], list[b]) = *at(G, list[b], list[a]) = 1, o->nfill++;
    if (o->nbr_start[s] + m > cap) {
      cap = 2 * (o->nbr_start[s] + m) + 16;
      int *grown = realloc(o->nbr, (size_t)cap * sizeof *grown);
      if (!grown) return free(pos), free(list), free(h), -1;
      o->nbr = grown;
    }
    if (m > 0) memcpy(o->nbr + o->nbr_start[s], list, (size_t)m * sizeof *list);
    o->nbr_start[s + 1] = o->nbr_start[s] + m;
    h[s] = h[s] > 0 ? h[s] : 1;
    if (m > 0 && h[pos[list[0]]] < h[s] + 1) h[pos[list[0]]] = h[s] + 1;
    if (h[s] > o->height) o->height = h[s];
  }
  free(pos), free(list), free(h);
  return 0;
}

int mbg_cfa_order_build(int nb, const int *parent, const int *nt, mbg_cfa_kind kind,
                        mbg_cfa_order *o) {
  size_t n1 = (size_t)nb + 1;
  int *hub_of = calloc(n1, sizeof *hub_of);
  graph G = {nb, NULL};
  memset(o, 0, sizeof *o);
  o->kind = kind;
  o->hub_body = calloc(n1 + 1, sizeof *o->hub_body);
  int rc = !hub_of || !o->hub_body ? -1 : 0;
  if (rc == 0 && kind == MBG_CFA_TIPS) rc = choose_hubs(nb, parent, nt, hub_of, o);
  if (rc == 0) {
    G.n = nb + o->nhub;
    size_t n = (size_t)G.n + 1;
    G.adj = calloc(n * n, 1);
    o->body = malloc(n * sizeof *o->body);
    o->round = malloc(n * sizeof *o->round);
    o->rows = malloc(n * sizeof *o->rows);
    if (!G.adj || !o->body || !o->round || !o->rows) rc = -1;
  }
  if (rc == 0) {
    for (int i = 0; i <= G.n; i++) o->rows[i] = i <= nb ? nt[i] : 6;
    rc = build_edges(nb, parent, nt, hub_of, &G, o);
  }
  if (rc == 0) {
    if (kind == MBG_CFA_ODD_EVEN) rc = odd_even_order(nb, parent, nt, o);
    else tips_order(nb, parent, nt, hub_of, o);
  }
  if (rc == 0) rc = eliminate(&G, o);
  free(G.adj), free(hub_of);
  if (rc != 0) mbg_cfa_order_free(o);
  return rc;
}
