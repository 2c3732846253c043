/* test_cfa_order.c — the CFA's elimination orders (generator/cfa_order.c): the blocks of A are
 * the line graph of the tree (parent–child and siblings, none through the world); every order
 * eliminates every block once; the fill it reports is the fill of its steps, checked against an
 * independent elimination on a dense pattern; tips has zero fill on random trees (a perfect
 * elimination order of a chordal graph); odd-even takes K = ⌈log₂ longest chain⌉ rounds, gathers
 * the node joints (and their children) last, and its elimination tree is O(log n) high on a
 * chain, where tips' is n − 1. Hubs (tips only): a floating body's children coupled through one
 * 6-row unknown instead of pairwise, where the cost model says so; the blocks and the fill are
 * then checked on the augmented pattern. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/cfa_order.h"
#include "mb_randtree.h"

enum { MAXB = 80 };

/* A random tree: shape 0 random parents, 1 chain, 2 bushy; nt from {5, 5, 3, 0} (revolute,
 * prismatic, spherical, floating), body 1 floating when floating != 0. */
static void random_tree(mbt_rng *g, int nb, int shape, int floating, int *parent, int *nt) {
  static const int kinds[] = {5, 5, 5, 3, 0};
  parent[0] = -1, nt[0] = 0;
  for (int i = 1; i <= nb; i++) {
    parent[i] = shape == 1 ? i - 1 : mbt_randint(g, 0, shape == 2 ? (i < 3 ? i - 1 : 2) : i - 1);
    nt[i] = (i == 1 && floating) ? 0 : kinds[mbt_randint(g, 0, 4)];
  }
}

/* The pattern of A by definition (augmented by o's hubs: a hub body's children and its own joint
 * are coupled to its hub unknown instead of to each other), and the fill of o's order by a dense
 * elimination. */
static int reference_fill(int nb, const int *parent, const int *nt, const mbg_cfa_order *o) {
  enum { N = 2 * MAXB + 1 };
  static unsigned char adj[N][N];
  int hub_of[MAXB + 1] = {0}, n = nb + o->nhub;
  memset(adj, 0, sizeof adj);
  for (int h = 1; h <= o->nhub; h++) {
    int p = o->hub_body[h];
    assert_true(p >= 1 && p <= nb && (nt[p] == 0 || parent[p] > 0) && hub_of[p] == 0);
    hub_of[p] = nb + h;
  }
  int nedges = 0;
  for (int j = 1; j <= nb; j++)
    for (int k = j + 1; k <= nb; k++) {
      int pc = parent[k] == j && !hub_of[j];
      int sib = parent[j] == parent[k] && parent[j] > 0 && !hub_of[parent[j]];
      adj[j][k] = adj[k][j] = nt[j] > 0 && nt[k] > 0 && (pc || sib);
      nedges += adj[j][k];
    }
  for (int k = 1; k <= nb; k++) {
    if (nt[k] > 0 && parent[k] > 0 && hub_of[parent[k]])
      adj[k][hub_of[parent[k]]] = adj[hub_of[parent[k]]][k] = 1, nedges++;
    if (nt[k] > 0 && hub_of[k]) adj[k][hub_of[k]] = adj[hub_of[k]][k] = 1, nedges++;
  }
  assert_int_equal(o->nedges, nedges);
  for (int e = 0; e < o->nedges; e++) {
    int j = o->edge[2 * e], k = o->edge[2 * e + 1];
    assert_true(j < k && adj[j][k]);
    assert_int_equal(o->edge_kind[e], k > nb               ? MBG_CFA_HUB
                                      : parent[k] == j ? MBG_CFA_CHILD
                                                       : MBG_CFA_SIBLING);
  }
  int fill = 0;
  unsigned char gone[N] = {0};
  for (int s = 0; s < o->n; s++) {
    int v = o->body[s], m = 0;
    assert_false(gone[v]);
    gone[v] = 1;
    for (int u = 1; u <= n; u++) m += adj[v][u] && !gone[u];
    assert_int_equal(o->nbr_start[s + 1] - o->nbr_start[s], m);
    for (int a = o->nbr_start[s]; a < o->nbr_start[s + 1]; a++) {
      assert_true(adj[v][o->nbr[a]] && !gone[o->nbr[a]]);
      for (int b = a + 1; b < o->nbr_start[s + 1]; b++)
        if (!adj[o->nbr[a]][o->nbr[b]]) adj[o->nbr[a]][o->nbr[b]] = adj[o->nbr[b]][o->nbr[a]] = 1, fill++;
    }
  }
  return fill;
}

static int blocks(int nb, const int *nt) {
  int n = 0;
  for (int i = 1; i <= nb; i++) n += nt[i] > 0;
  return n;
}

/* Children of p with rows; with exactly `rows` rows. */
static int children_with_rows(int nb, const int *parent, const int *nt, int p) {
  int n = 0;
  for (int c = 1; c <= nb; c++) n += parent[c] == p && nt[c] > 0;
  return n;
}

static int children_of_rows(int nb, const int *parent, const int *nt, int p, int rows) {
  int n = 0;
  for (int c = 1; c <= nb; c++) n += parent[c] == p && nt[c] == rows;
  return n;
}

static void random_trees(void **state) {
  (void)state;
  mbt_rng g;
  int parent[MAXB + 1], nt[MAXB + 1];
  for (int seed = 1; seed <= 60; seed++) {
    mbt_rng_seed(&g, (uint64_t)seed);
    int nb = mbt_randint(&g, 1, MAXB);
    random_tree(&g, nb, seed % 3, seed % 2, parent, nt);
    for (int kind = MBG_CFA_TIPS; kind <= MBG_CFA_ODD_EVEN; kind++) {
      mbg_cfa_order o;
      assert_int_equal(mbg_cfa_order_build(nb, parent, nt, (mbg_cfa_kind)kind, &o), 0);
      assert_int_equal(o.n, blocks(nb, nt) + o.nhub);
      assert_int_equal(reference_fill(nb, parent, nt, &o), o.nfill);
      if (kind == MBG_CFA_TIPS) assert_int_equal(o.nfill, 0); /* perfect elimination order */
      if (kind == MBG_CFA_ODD_EVEN) assert_int_equal(o.nhub, 0);
      /* a hub couples at least three joints (below that the pairwise blocks are cheaper);
       * four and more 5-row joints on a floating body always get one (legged, below) */
      for (int h = 1; h <= o.nhub; h++)
        assert_true(children_with_rows(nb, parent, nt, o.hub_body[h]) >= 3);
      for (int i = 1; i <= nb; i++)
        if (nt[i] == 0 && i > 0 && children_with_rows(nb, parent, nt, i) >= 4 &&
            children_with_rows(nb, parent, nt, i) == children_of_rows(nb, parent, nt, i, 5)) {
          int is_hub = 0;
          for (int h = 1; h <= o.nhub; h++) is_hub |= o.hub_body[h] == i;
          assert_true(kind != MBG_CFA_TIPS || is_hub);
        }
      if (kind == MBG_CFA_ODD_EVEN) {
        int K = 0;
        while ((1 << K) < o.longest) K++;
        assert_int_equal(o.rounds, K);
        for (int s = 1; s < o.n; s++) assert_true(o.round[s] >= o.round[s - 1]);
        /* the node block comes last: joints of bodies with several children with rows, and of
         * their children */
        for (int s = 0; s < o.n; s++) {
          int i = o.body[s], vch = 0, vsib = 0;
          for (int c = 1; c <= nb; c++) vch += parent[c] == i && nt[c] > 0;
          for (int c = 1; c <= nb; c++) vsib += parent[i] > 0 && parent[c] == parent[i] && nt[c] > 0;
          if (vch >= 2 || vsib >= 2) assert_int_equal(o.round[s], o.rounds + 1);
        }
      }
      mbg_cfa_order_free(&o);
    }
  }
}

/* On a chain of n revolute joints: tips' elimination tree is the chain but for the joint on the
 * world, eliminated first (height n − 1, at least 2 from n = 2), odd-even's is ⌈log₂ n⌉ + 1 high,
 * with one fill block per block eliminated inside the chain. */
static void chains(void **state) {
  (void)state;
  int parent[MAXB + 1], nt[MAXB + 1];
  for (int n = 1; n <= 64; n++) {
    for (int i = 0; i <= n; i++) parent[i] = i - 1, nt[i] = i ? 5 : 0;
    mbg_cfa_order t, o;
    assert_int_equal(mbg_cfa_order_build(n, parent, nt, MBG_CFA_TIPS, &t), 0);
    assert_int_equal(mbg_cfa_order_build(n, parent, nt, MBG_CFA_ODD_EVEN, &o), 0);
    int K = 0;
    while ((1 << K) < n) K++;
    assert_int_equal(t.height, n == 1 ? 1 : n > 3 ? n - 1 : 2);
    assert_int_equal(t.body[0], 1);
    assert_int_equal(o.rounds, K);
    assert_int_equal(o.longest, n);
    assert_true(o.height <= K + 1);
    assert_int_equal(o.nnode, n == (1 << K) ? 1 : 0);
    /* the cost model, analytic for tips on a chain: n − 1 steps with one 5-row neighbour
     * (5³/3 + 5²·5 + 5·(5² + 5²)/2 multiplications), then the last block alone (5³/3) */
    assert_true(fabs(mbg_cfa_order_flops(&t) - ((n - 1) * (125.0 / 3 + 250) + 125.0 / 3)) <
                1e-9 * n * 300);
    assert_true(n < 4 || mbg_cfa_order_flops(&o) > mbg_cfa_order_flops(&t)); /* fill */
    if (n == 8 || n == 64)
      print_message("chain of %2d: tips height %2d, odd-even height %d (K = %d), fill %d\n", n,
                    t.height, o.height, o.rounds, o.nfill);
    mbg_cfa_order_free(&t);
    mbg_cfa_order_free(&o);
  }
}

/* The space robot of Liu, Hu & Zhang, "Constraint force algorithm for tree-like multibody system
 * dynamics", Chinese Journal of Theoretical and Applied Mechanics 48(1), 2016, §4
 * (examples/space_robot.mbd): a floating hub (no rows) with two 3-joint arms. The arms' first
 * joints are siblings (coupled through the hub), the rest chains; the world couples nothing. */
static void space_robot(void **state) {
  (void)state;
  int parent[] = {-1, 0, 1, 2, 3, 1, 5, 6}, nt[] = {0, 0, 5, 5, 5, 5, 5, 5};
  mbg_cfa_order o;
  assert_int_equal(mbg_cfa_order_build(7, parent, nt, MBG_CFA_ODD_EVEN, &o), 0);
  int edges[] = {2, 3, 2, 5, 3, 4, 5, 6, 6, 7};
  assert_int_equal(o.nedges, 5);
  assert_memory_equal(o.edge, edges, sizeof edges);
  assert_int_equal(o.edge_kind[0], MBG_CFA_CHILD);
  assert_int_equal(o.edge_kind[1], MBG_CFA_SIBLING);
  /* the arms' first links 2 and 5 are the node set; segments {3, 4} and {6, 7}: one round
   * eliminates 3 and 6, the node block gathers 2, 4, 5, 7 */
  int order[] = {3, 6, 2, 4, 5, 7};
  assert_int_equal(o.longest, 2);
  assert_int_equal(o.rounds, 1);
  assert_int_equal(o.nnode, 4);
  assert_memory_equal(o.body, order, sizeof order);
  mbg_cfa_order_free(&o);
  assert_int_equal(mbg_cfa_order_build(7, parent, nt, MBG_CFA_TIPS, &o), 0);
  int tips[] = {7, 6, 5, 4, 3, 2};
  assert_memory_equal(o.body, tips, sizeof tips);
  assert_int_equal(o.nfill, 0);
  assert_int_equal(o.nhub, 0); /* two arms: the one sibling block is cheaper than a hub */
  mbg_cfa_order_free(&o);
}

/* A floating trunk with k legs of two revolute joints. The cost model of the trunk's clique, per
 * leg's first joint eliminated with m siblings left (5 rows each) against with the hub alone (6
 * rows): Σ_m 5²·5m + 5·(25m² + 25m)/2 against k (5²·6 + 5·(36 + 36)/2) + 6³/3. k = 3: 875
 * against 1062, no hub; k = 4: 2000 against 1392, a hub, after which every first joint has the
 * hub as its only neighbour, and the hub none. */
static void legged(void **state) {
  (void)state;
  for (int k = 2; k <= 6; k++) {
    int nb = 1 + 2 * k, parent[MAXB + 1], nt[MAXB + 1];
    parent[0] = -1, nt[0] = 0, parent[1] = 0, nt[1] = 0;
    for (int l = 0; l < k; l++) {
      parent[2 + 2 * l] = 1, parent[3 + 2 * l] = 2 + 2 * l;
      nt[2 + 2 * l] = nt[3 + 2 * l] = 5;
    }
    mbg_cfa_order o;
    assert_int_equal(mbg_cfa_order_build(nb, parent, nt, MBG_CFA_TIPS, &o), 0);
    assert_int_equal(reference_fill(nb, parent, nt, &o), 0);
    assert_int_equal(o.nhub, k >= 4);
    if (o.nhub) {
      assert_int_equal(o.hub_body[1], 1);
      assert_int_equal(o.rows[nb + 1], 6);
      assert_int_equal(o.body[o.n - 1], nb + 1); /* the hub last, after the whole tree */
      for (int s = 0; s < o.n; s++)
        if (o.body[s] <= nb && parent[o.body[s]] == 1) {
          assert_int_equal(o.nbr_start[s + 1] - o.nbr_start[s], 1);
          assert_int_equal(o.nbr[o.nbr_start[s]], nb + 1);
        }
    }
    mbg_cfa_order_free(&o);
  }
}

/* A wrist of two revolute joints and a palm with k fingers of two revolute joints. The palm's
 * clique (its joint and the fingers' first joints, 5 rows each), by the cost model: with m
 * siblings left a finger's step has 5m + 5 neighbour rows, Σ_m 5²(5m + 5) + 5((5m + 5)² +
 * 25(m + 1))/2, against k (5²·6 + 5·72/2) + 6³/3 + 6²·5 + 6·50/2 with the hub: k = 2: 875
 * against 1062, no hub; k = 3: 2000 against 1392, a hub, eliminated just before the palm's
 * joint, whose only neighbours were the fingers' first joints and the wrist's first joint. */
static void hand(void **state) {
  (void)state;
  for (int k = 2; k <= 5; k++) {
    int nb = 2 + 2 * k, parent[MAXB + 1], nt[MAXB + 1];
    parent[0] = -1, nt[0] = 0, parent[1] = 0, parent[2] = 1, nt[1] = nt[2] = 5;
    for (int l = 0; l < k; l++) {
      parent[3 + 2 * l] = 2, parent[4 + 2 * l] = 3 + 2 * l;
      nt[3 + 2 * l] = nt[4 + 2 * l] = 5;
    }
    mbg_cfa_order o;
    assert_int_equal(mbg_cfa_order_build(nb, parent, nt, MBG_CFA_TIPS, &o), 0);
    assert_int_equal(reference_fill(nb, parent, nt, &o), 0);
    assert_int_equal(o.nhub, k >= 3);
    if (o.nhub) {
      assert_int_equal(o.hub_body[1], 2);
      /* ... the hub, the palm's joint (2), the wrist's (1) went first: on the world */
      assert_int_equal(o.body[0], 1);
      assert_int_equal(o.body[o.n - 2], nb + 1);
      assert_int_equal(o.body[o.n - 1], 2);
      assert_int_equal(o.nbr_start[o.n - 1] - o.nbr_start[o.n - 2], 1); /* the hub: joint 2 */
      assert_int_equal(o.nbr[o.nbr_start[o.n - 2]], 2);
    }
    mbg_cfa_order_free(&o);
  }
}

static void names(void **state) {
  (void)state;
  mbg_cfa_kind k;
  assert_int_equal(mbg_cfa_kind_parse("tips", &k), 0);
  assert_int_equal(k, MBG_CFA_TIPS);
  assert_int_equal(mbg_cfa_kind_parse("odd-even", &k), 0);
  assert_int_equal(k, MBG_CFA_ODD_EVEN);
  assert_int_equal(mbg_cfa_kind_parse("oddeven", &k), -1);
  assert_string_equal(mbg_cfa_kind_name(MBG_CFA_ODD_EVEN), "odd-even");
  assert_null(mbg_cfa_kind_name(MBG_CFA_AUTO));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(random_trees),
    cmocka_unit_test(chains),
    cmocka_unit_test(space_robot),
    cmocka_unit_test(legged),
    cmocka_unit_test(hand),
    cmocka_unit_test(names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
