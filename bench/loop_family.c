/* loop_family.c — writes one model of a family of planar closed-chain mechanisms (.mbd) to
 * stdout, for measuring how the constrained forward dynamics scale with the number of loops
 * (bench/loop_family.sh: p_fd_loops, Lagrange multipliers, against recursive coordinate
 * reduction).
 *
 * usage: loop_family ladder|tree|shared|hung K   (1 <= K <= 10000)
 *   ladder  K four-bar loops in series: loop 1 hangs from the world (crank_1 and rocker_1 from
 *           the world, coupler_1 from crank_1, the loop pin_1 closing rocker_1 -> coupler_1);
 *           loop i+1 hangs from coupler_i (crank_{i+1} and rocker_{i+1} from coupler_i). The
 *           loops share bodies but no joints, and loop i's path to the root passes through every
 *           earlier loop: n = 3K coordinates, m = 2K kept rows, K degrees of freedom.
 *   tree    a spine of K revolute links in series from the world (spine_1 ... spine_K), and one
 *           four-bar hanging from each spine link (crank_i, rocker_i from spine_i): n = 4K,
 *           m = 2K, 2K degrees of freedom.
 *   shared  two loops sharing a head segment (tests/models/nested_loops.mbd generalized): a spine
 *           of K revolute links in series from the world (spine_1 ... spine_K), and two two-link
 *           dyads from the spine's end, the outer one (outer_1, outer_2) closing to the world by
 *           pin_outer, the inner one (inner_1, inner_2) closing to spine_1 by pin_inner. The outer
 *           loop's path is its dyad and the whole spine, the inner loop's its dyad and
 *           j_spine_2 ... j_spine_K: the two loops share those K - 1 head joints (independent in
 *           both with the default selection, which takes the four dyad joints as dependent), so
 *           recursive coordinate reduction reduces them with one inertia per open base (Critchley
 *           & Anderson 2003, §5) rather than as one group (K = 1: the inner loop closes on
 *           spine_1, which it hangs from, and shares nothing). n = K + 4, m = 4, K degrees of
 *           freedom.
 *
 *   hung    two loops sharing one joint that carries a dependent coordinate (tests/models/
 *           hung_loops.mbd generalized): a four-bar (link_1 from the world, link_2, link_3 closed
 *           to the world by pin_outer) and, from link_2, a spine of K revolute links and a dyad
 *           closing to link_1 by pin_inner. The model's `independent j_link_3 j_spine_1 ...` makes
 *           j_link_1 and j_link_2 the outer loop's dependents (its tail holds the shared joint
 *           j_link_2) and the dyad the inner loop's: the inner loop hangs from the outer tail at
 *           link_2 with the spine as its head (Critchley & Anderson's §5 with eq. 45), where one
 *           group would make the whole spine tail independents of one dense K + 1 system.
 *           n = K + 5, m = 4, K + 1 degrees of freedom.
 *
 * Every loop of ladder and tree is the same generic four-bar, a trapezoid at the neutral
 * configuration (q = 0), where it closes exactly (to the printed digits): ground link 1.0
 * (pivots A = (0, 0), B = (1, 0) in the ground link's frame), crank A -> C = (0.1, -0.6)
 * (length 0.608), coupler C -> D = (0.7, -0.6) (0.6, parallel to the ground), rocker B -> D
 * (0.671). No two opposite sides are equal (not a parallelogram); the nearest change point
 * (the four pivots collinear, where the constraint rows turn dependent) is 0.32 away in the sum
 * of signed lengths (1 - 0.608 + 0.6 - 0.671), and the transmission angles at C and D are 80.5
 * and 63.4 degrees. The ladder alternates this loop (ground 1.0, coupler 0.6) with its mirror
 * image upside down (ground 0.6 — the previous coupler end to end —, coupler 1.0): every coupler
 * stays horizontal and the left pivot returns to the same x every two loops, so the ladder hangs
 * straight down, 0.6 per loop, without overlapping itself for any K. The tree's spine lies along
 * x, 1.4 per link, each four-bar hanging between x = 0.2 and 1.2 of its link.
 *
 * The shared family's spine lies along x from the origin to P = (2, 0) whatever K (each link
 * 2/K long), so its two dyads are the same for every K: the outer one runs P -> (1.5, -1.5) ->
 * W = (0, -1), W fixed in the world; the inner one, its mirror image in x, P -> (1.5, 1.5) ->
 * I = (0, 1), I fixed in spine_1's frame (which is the world frame at q = 0). Both are isosceles
 * with legs sqrt(2.5) = 1.581 and a right angle at the elbow (as far as a dyad gets from its
 * singular, stretched or folded, configurations), and their elbows lie 1.5 off the spine on
 * either side, so nothing crosses.
 *
 * The hung family's four-bar is tests/models/hung_loops.mbd's: link_1 along x to (1, 0), link_2
 * up to (1, 1), link_3 back to (0.2, 1), pinned to the world there. The spine runs along x from
 * link_2's midpoint (1, 0.5) to P = (2.5, 0.5) whatever K, and the dyad from P to I = (0.5, 0)
 * on link_1 is isosceles with a right angle at its elbow (1.75, -0.75).
 *
 * Gravity is -y (in the plane of the mechanism), every axis z. Each body is a rod of 2 kg/m
 * along its x axis with a 2 cm radius: mass 2L, centre L/2, inertia (m r^2/2, m L^2/12 +
 * m r^2/4, the same): positive definite. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DENSITY 2.0  /* kg/m */
#define RADIUS 0.02  /* m */
#define SPINE 1.4    /* tree: length of a spine link */
#define OFFSET 0.2   /* tree: the four-bar's left pivot on its spine link */
#define SHARED_SPAN 2.0 /* shared: the spine's length (K links of SHARED_SPAN / K) */

/* One four-bar in its ground link's frame: pivots (0, 0) and (ground, 0), the crank's end c, the
 * rocker's end d (the coupler runs from c to d, parallel to x). */
typedef struct fourbar {
  double ground, c[2], d[2];
} fourbar;

static const fourbar upright = {1.0, {0.1, -0.6}, {0.7, -0.6}};
/* upright's mirror image upside down: its ground is upright's coupler, its coupler upright's
 * ground, its left pivot (0, 0) what was c */
static const fourbar inverted = {0.6, {-0.1, -0.6}, {0.9, -0.6}};

static void rod(const char *name, int i, double len) {
  double m = DENSITY * len, r2 = RADIUS * RADIUS;
  printf("body %s_%d { mass %.17g; com %.17g 0 0; inertia %.17g %.17g %.17g; }\n", name, i, m,
         len / 2, m * r2 / 2, m * len * len / 12 + m * r2 / 4, m * len * len / 12 + m * r2 / 4);
}

/* Loop i: crank_i and rocker_i from `parent` (its pivots at x0 and x0 + ground on its x axis),
 * coupler_i from crank_i, closed by pin_i: rocker_i -> coupler_i. */
static void loop(int i, const char *parent, double x0, const fourbar *f) {
  double crank = hypot(f->c[0], f->c[1]), coupler = f->d[0] - f->c[0];
  double rocker = hypot(f->d[0] - f->ground, f->d[1]);
  double a_crank = atan2(f->c[1], f->c[0]), a_rocker = atan2(f->d[1], f->d[0] - f->ground);
  rod("crank", i, crank);
  rod("coupler", i, coupler);
  rod("rocker", i, rocker);
  printf("joint j_crank_%d revolute %s -> crank_%d { origin xyz %.17g 0 0 rpy 0 0 %.17g; "
         "axis 0 0 1; }\n", i, parent, i, x0, a_crank);
  printf("joint j_coupler_%d revolute crank_%d -> coupler_%d { origin xyz %.17g 0 0 rpy 0 0 "
         "%.17g; axis 0 0 1; }\n", i, i, i, crank, -a_crank);
  printf("joint j_rocker_%d revolute %s -> rocker_%d { origin xyz %.17g 0 0 rpy 0 0 %.17g; "
         "axis 0 0 1; }\n", i, parent, i, x0 + f->ground, a_rocker);
  printf("loop pin_%d revolute rocker_%d -> coupler_%d { origin xyz %.17g 0 0; target xyz %.17g "
         "0 0; axis 0 0 1; }\n", i, i, i, rocker, coupler);
}

/* The shared family's dyad `name` (name_1 from spine_k's end P = (SHARED_SPAN, 0), name_2 from
 * name_1's end e, its end closing to `base` at `target`, in base's frame); p, e and w in the world
 * frame at q = 0, where every spine frame is aligned with the world's. */
static void dyad(const char *name, int k, const double e[2], const char *base, const double w[2],
                 const double target[2]) {
  double p[2] = {SHARED_SPAN, 0.0};
  double l1 = hypot(e[0] - p[0], e[1] - p[1]), l2 = hypot(w[0] - e[0], w[1] - e[1]);
  double a1 = atan2(e[1] - p[1], e[0] - p[0]), a2 = atan2(w[1] - e[1], w[0] - e[0]);
  rod(name, 1, l1);
  rod(name, 2, l2);
  printf("joint j_%s_1 revolute spine_%d -> %s_1 { origin xyz %.17g 0 0 rpy 0 0 %.17g; "
         "axis 0 0 1; }\n", name, k, name, SHARED_SPAN / k, a1);
  printf("joint j_%s_2 revolute %s_1 -> %s_2 { origin xyz %.17g 0 0 rpy 0 0 %.17g; "
         "axis 0 0 1; }\n", name, name, name, l1, remainder(a2 - a1, 2 * acos(-1.0)));
  printf("loop pin_%s revolute %s_2 -> %s { origin xyz %.17g 0 0; target xyz %.17g %.17g 0; "
         "axis 0 0 1; }\n", name, name, base, l2, target[0], target[1]);
}

/* shared K: the spine, then the outer dyad to the world and the inner one to spine_1. */
static void shared(int k) {
  double h = SHARED_SPAN / k;
  for (int i = 1; i <= k; i++) {
    rod("spine", i, h);
    if (i == 1) printf("joint j_spine_1 revolute world -> spine_1 { axis 0 0 1; }\n");
    else
      printf("joint j_spine_%d revolute spine_%d -> spine_%d { origin xyz %.17g 0 0; "
             "axis 0 0 1; }\n", i, i - 1, i, h);
  }
  const double outer_e[2] = {1.5, -1.5}, outer_w[2] = {0.0, -1.0};
  const double inner_e[2] = {1.5, 1.5}, inner_w[2] = {0.0, 1.0};
  dyad("outer", k, outer_e, "world", outer_w, outer_w);
  dyad("inner", k, inner_e, "spine_1", inner_w, inner_w);
}

/* hung K: the four-bar, the spine from link_2 and the dyad back to link_1. */
static void hung(int k) {
  const double pi = acos(-1.0), span = 1.5, h = span / k;
  const double p[2] = {1.0 + span, 0.5}, e[2] = {1.75, -0.75}, w[2] = {0.5, 0.0};
  rod("link", 1, 1.0);
  rod("link", 2, 1.0);
  rod("link", 3, 0.8);
  printf("joint j_link_1 revolute world -> link_1 { axis 0 0 1; }\n");
  printf("joint j_link_2 revolute link_1 -> link_2 { origin xyz 1 0 0 rpy 0 0 %.17g; "
         "axis 0 0 1; }\n", pi / 2);
  printf("joint j_link_3 revolute link_2 -> link_3 { origin xyz 1 0 0 rpy 0 0 %.17g; "
         "axis 0 0 1; }\n", pi / 2);
  printf("loop pin_outer revolute link_3 -> world { origin xyz 0.8 0 0; target xyz 0.2 1 0; "
         "axis 0 0 1; }\n");
  for (int i = 1; i <= k; i++) {
    rod("spine", i, h);
    if (i == 1)
      printf("joint j_spine_1 revolute link_2 -> spine_1 { origin xyz 0.5 0 0 rpy 0 0 %.17g; "
             "axis 0 0 1; }\n", -pi / 2);
    else
      printf("joint j_spine_%d revolute spine_%d -> spine_%d { origin xyz %.17g 0 0; "
             "axis 0 0 1; }\n", i, i - 1, i, h);
  }
  double l1 = hypot(e[0] - p[0], e[1] - p[1]), l2 = hypot(w[0] - e[0], w[1] - e[1]);
  double a1 = atan2(e[1] - p[1], e[0] - p[0]), a2 = atan2(w[1] - e[1], w[0] - e[0]);
  rod("dyad", 1, l1);
  rod("dyad", 2, l2);
  printf("joint j_dyad_1 revolute spine_%d -> dyad_1 { origin xyz %.17g 0 0 rpy 0 0 %.17g; "
         "axis 0 0 1; }\n", k, h, a1);
  printf("joint j_dyad_2 revolute dyad_1 -> dyad_2 { origin xyz %.17g 0 0 rpy 0 0 %.17g; "
         "axis 0 0 1; }\n", l1, remainder(a2 - a1, 2 * pi));
  printf("loop pin_inner revolute dyad_2 -> link_1 { origin xyz %.17g 0 0; target xyz %.17g "
         "%.17g 0; axis 0 0 1; }\n", l2, w[0], w[1]);
  printf("independent j_link_3");
  for (int i = 1; i <= k; i++) printf(" j_spine_%d", i);
  printf(";\n");
}

int main(int argc, char **argv) {
  const char *usage = "usage: loop_family ladder|tree|shared|hung K    (1 <= K <= 10000)\n";
  if (argc != 3) return fputs(usage, stderr), 2;
  int ladder = strcmp(argv[1], "ladder") == 0, is_shared = strcmp(argv[1], "shared") == 0;
  int is_hung = strcmp(argv[1], "hung") == 0;
  if (!ladder && !is_shared && !is_hung && strcmp(argv[1], "tree") != 0)
    return fputs(usage, stderr), 2;
  char *end;
  errno = 0;
  long k = strtol(argv[2], &end, 10);
  if (errno || end == argv[2] || *end || k < 1 || k > 10000) return fputs(usage, stderr), 2;
  int n = (int)k;
  printf("# loop_family %s %d (bench/loop_family.c): %s\n", argv[1], n,
         ladder      ? "four-bar loops in series, each hanging from the previous coupler"
         : is_shared ? "a spine of revolute links, two dyads from its end closing to the world "
                       "and to its first link"
         : is_hung ? "a four-bar and a spine with a dyad from its coupler back to its crank, "
                     "hung from its tail"
                   : "a spine of revolute links, a four-bar hanging from each");
  printf("model %s_%d;\ngravity 0 -9.81 0;\n", argv[1], n);
  if (is_shared || is_hung) {
    is_shared ? shared(n) : hung(n);
    return 0;
  }
  char parent[32];
  for (int i = 1; i <= n; i++) {
    if (ladder) {
      if (i == 1) snprintf(parent, sizeof parent, "world");
      else snprintf(parent, sizeof parent, "coupler_%d", i - 1);
      loop(i, parent, 0.0, i % 2 ? &upright : &inverted);
    } else {
      rod("spine", i, SPINE);
      if (i == 1) printf("joint j_spine_1 revolute world -> spine_1 { axis 0 0 1; }\n");
      else
        printf("joint j_spine_%d revolute spine_%d -> spine_%d { origin xyz %.17g 0 0; "
               "axis 0 0 1; }\n", i, i - 1, i, SPINE);
      snprintf(parent, sizeof parent, "spine_%d", i);
      loop(i, parent, OFFSET, &upright);
    }
  }
  return 0;
}
