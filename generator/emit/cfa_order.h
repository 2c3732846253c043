/* cfa_order.h — elimination orders of the Constraint Force Algorithm's system A F_S = b and
 * their symbolic fill (Liu, Hu & Zhang, "Constraint force algorithm for tree-like multibody
 * system dynamics", Chinese Journal of Theoretical and Applied Mechanics 48(1), 2016, §3,
 * eqs. 30-44; docs/cfa.md).
 *
 * A has one block per joint with constraint rows (nt = 6 − nv > 0: every joint but a floating
 * one). Block (j, k) is structurally non-zero when j = k, when one joint's child body is the
 * other's parent body (parent–child), or when both joints leave the same moving body (siblings);
 * joints leaving the world are not coupled (α_0 = 0). The graph of A is the line graph of the
 * tree. A block LDLᵀ eliminates the blocks in some order; eliminating j couples all of its
 * remaining neighbours (fill). This module computes, in C and deterministically, the order and
 * for every step the neighbours still present, so a recipe builds exactly the non-zero blocks:
 *
 *   tips      the joints on the world first (ascending; their pivots and updates are constants
 *             in cfa.lua), then the others from the leaves to the root (descending body
 *             number): a perfect elimination order of the chordal line graph (every step's
 *             remaining neighbours share one body), zero fill, one step after another.
 *             Hubs: a body p couples its children's joints and its own pairwise through its
 *             inverse inertia G_p, a dense clique: A's blocks there are Q_jᵀ G_p Q_k with
 *             Q_k = (kX_p)ᵀ T_k for a child joint k and Q_p = −T_p for p's own. When the cost
 *             model says it is cheaper (a floating body with four revolute children, a body
 *             with three children and a revolute joint of its own, ...), the system is
 *             augmented by a hub unknown y_p (6 rows, p's body frame) with the blocks
 *             (y_p, y_p) = −I_p and (k, y_p) = Q_kᵀ, and without those pairwise terms: its Schur
 *             complement onto the joints is A again (−Q_jᵀ (−I_p)⁻¹ Q_k). Each child then has
 *             one neighbour (y_p) instead of its siblings and p's joint; y_p is eliminated once
 *             p's subtree is, before p's joint, its pivot −I_p − Σ (...) negative definite.
 *             Not for a body whose joint leaves the world with rows (it goes first).
 *   odd-even  the serial algorithm of Liu et al. 2016: the joints of nodes (bodies with several
 *             children that have rows) and of their children form the node set; the other joints
 *             form chain segments (paths in A). K = ⌈log₂ (longest segment)⌉ rounds of odd-even
 *             elimination on every segment (round r eliminates the 1st, 3rd, 5th ... block still
 *             present, inboard first), then the node set and the leftovers gathered into one block,
 *             eliminated last in ascending body order. Its elimination tree is O(log n) high on a
 *             chain. */
#ifndef MBG_CFA_ORDER_H
#define MBG_CFA_ORDER_H

typedef enum mbg_cfa_kind { MBG_CFA_AUTO = 0, MBG_CFA_TIPS, MBG_CFA_ODD_EVEN } mbg_cfa_kind;

/* The kinds of off-diagonal blocks. */
typedef enum mbg_cfa_edge {
  MBG_CFA_CHILD = 0, /* (j, k): j the parent joint of k */
  MBG_CFA_SIBLING,   /* (j, k): two joints leaving the same body */
  MBG_CFA_HUB        /* (k, y): joint k leaves the hub body of the unknown y */
} mbg_cfa_edge;

/* Unknowns are numbered: 1..nb the joints (by body number: the joint into body i), nb + h for
 * hub h (h = 1..nhub, on body hub_body[h]). */
typedef struct mbg_cfa_order {
  mbg_cfa_kind kind;
  int n;           /* blocks (joints with nt > 0, and the hubs) */
  int *body;       /* [n] step s eliminates the block of unknown body[s] */
  int *round;      /* [n] odd-even: 1..K on the chains, K + 1 for the node block; tips: 0 */
  int *nbr_start;  /* [n + 1] step s's remaining neighbours: nbr[nbr_start[s] .. nbr_start[s+1]) */
  int *nbr;        /* unknowns, by their elimination step */
  int nedges;      /* off-diagonal blocks (unordered pairs), before elimination */
  int *edge;       /* [2 nedges] pairs (j, k), j < k, ascending */
  int *edge_kind;  /* [nedges] mbg_cfa_edge */
  int nhub;        /* tips: hub unknowns; odd-even: 0 */
  int *hub_body;   /* [nhub + 1] the body of hub h (index 0 unused) */
  int *rows;       /* [nb + nhub + 1] rows of every unknown's block (nt, 6 for a hub) */
  int nfill;       /* off-diagonal blocks the elimination creates */
  int rounds;      /* odd-even: K; tips: 0 */
  int longest;     /* odd-even: the longest chain segment (blocks) */
  int nnode;       /* odd-even: blocks of the gathered node block */
  int height;      /* height of the elimination tree: the longest chain of dependent steps */
} mbg_cfa_order;

/* The order of the given kind (not AUTO) for a tree of nb bodies: parent[1..nb] (< i, 0 the
 * world), nt[1..nb] the constraint rows of each joint (index 0 unused). Returns 0, or -1 out of
 * memory (o is then empty). Free with mbg_cfa_order_free. */
int mbg_cfa_order_build(int nb, const int *parent, const int *nt, mbg_cfa_kind kind,
                        mbg_cfa_order *o);
void mbg_cfa_order_free(mbg_cfa_order *o);

/* Multiplications of the order's dense block LDLᵀ (o->rows the block sizes): per step with a
 * block of d rows and remaining neighbours of e_1 .. e_m rows, d³/3 + d² Σe + d Σ_{k≤l} e_k e_l
 * (factor, L = B D⁻¹, the Schur updates). A cost model, for choosing which orders are worth
 * generating and where a hub pays: the generated counts are lower (structural zeros fold). */
double mbg_cfa_order_flops(const mbg_cfa_order *o);

/* "tips", "odd-even" (NULL for AUTO); parse: 0 and *kind, or -1 for an unknown name. */
const char *mbg_cfa_kind_name(mbg_cfa_kind kind);
int mbg_cfa_kind_parse(const char *name, mbg_cfa_kind *kind);

#endif
