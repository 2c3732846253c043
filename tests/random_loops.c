/* random_loops.c — writes a seeded random closed-chain model (.mbd) to stdout, for
 * random_loops_test.sh: the generated loop functions of every such model must agree with the
 * runtime in the generated harness.
 *
 * usage: random_loops SEED KIND
 *   planar   a planar chain of 3-6 revolute joints (one prismatic sometimes) closed to the ground
 *            by a revolute loop: 2 of the loop's 5 rows independent
 *   spatial  a spatial chain of 4-7 joints (revolute, prismatic, spherical, skew axes) closed to
 *            the ground by a spherical loop
 *   coupled  two spatial branches from the ground joined by a spherical loop, and the first
 *            branch's tip closed to the ground by an ss (distance) loop: two coupled loops
 *   headed   the same two branches and loops on a spatial chain of 2 links from the ground: the
 *            chain is the loops' head (independent joints between the base and the branches)
 * The loops' targets are the neutral configuration's end points moved by up to 5 cm: mbdc closes
 * them by Newton's method from there. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;

static double uniform(double lo, double hi) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return lo + (hi - lo) * ((double)(z >> 11) / 9007199254740992.0);
}

/* R = Rz(y) Ry(p) Rx(r), row-major */
static void rpy_matrix(const double a[3], double R[9]) {
  double cr = cos(a[0]), sr = sin(a[0]), cp = cos(a[1]), sp = sin(a[1]), cy = cos(a[2]),
         sy = sin(a[2]);
  double M[9] = {cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr,
                 sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr,
                 -sp,     cp * sr,                cp * cr};
  memcpy(R, M, sizeof M);
}

typedef struct frame {
  double R[9], p[3]; /* body frame in world, at the neutral configuration */
} frame;

/* child = parent · (xyz, rpy) */
static void advance(const frame *parent, const double xyz[3], const double rpy[3], frame *child) {
  double E[9];
  rpy_matrix(rpy, E);
  for (int i = 0; i < 3; i++) {
    child->p[i] = parent->p[i];
    for (int k = 0; k < 3; k++) child->p[i] += parent->R[3 * i + k] * xyz[k];
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int k = 0; k < 3; k++) s += parent->R[3 * i + k] * E[3 * k + j];
      child->R[3 * i + j] = s;
    }
  }
}

static void body(const char *name, double len) {
  double m = uniform(0.5, 2.0);
  printf("body %s { mass %.6g; com %.6g %.6g %.6g; inertia %.6g %.6g %.6g; }\n", name, m,
         len / 2, uniform(-0.02, 0.02), uniform(-0.02, 0.02), m * uniform(0.002, 0.01),
         m * (len * len / 12 + 0.002), m * (len * len / 12 + 0.003));
}

/* One joint of the chain from `parent` to `name`, of length len along the child's x; returns the
 * child's neutral frame. type: 0 revolute, 1 prismatic, 2 spherical. planar: axes along z. */
static void joint(const char *name, const char *parent, const frame *pf, double plen, int type,
                  int planar, frame *out) {
  double xyz[3] = {plen, 0, 0}, rpy[3] = {0, 0, uniform(-1.2, 1.2)}, ax[3] = {0, 0, 1};
  if (!planar) {
    rpy[0] = uniform(-1, 1), rpy[1] = uniform(-1, 1);
    ax[0] = uniform(-1, 1), ax[1] = uniform(-1, 1), ax[2] = uniform(-1, 1);
  }
  if (type == 1) ax[0] = 1, ax[1] = 0, ax[2] = 0; /* telescoping along the link */
  static const char *const types[] = {"revolute", "prismatic", "spherical"};
  printf("joint j_%s %s %s -> %s { origin xyz %.6g 0 0 rpy %.6g %.6g %.6g;", name, types[type],
         parent, name, xyz[0], rpy[0], rpy[1], rpy[2]);
  if (type != 2) printf(" axis %.6g %.6g %.6g;", ax[0], ax[1], ax[2]);
  printf(" }\n");
  advance(pf, xyz, rpy, out);
}

/* A chain of n links from `from` (frame f, link length flen), names prefix0..; returns the tip's
 * frame, its length in *len and its name in tip. */
static void chain(const char *prefix, const char *from, const frame *f, double flen, int n,
                  int planar, frame *tipf, double *len, char *tip) {
  frame cur = *f;
  char parent[32];
  double plen = flen;
  snprintf(parent, sizeof parent, "%s", from);
  for (int k = 0; k < n; k++) {
    char name[32];
    snprintf(name, sizeof name, "%s%d", prefix, k + 1);
    double l = uniform(0.3, 0.8);
    int type = planar ? (uniform(0, 1) < 0.2 && k > 0 ? 1 : 0)
                      : (uniform(0, 1) < 0.2 ? 2 : uniform(0, 1) < 0.2 ? 1 : 0);
    body(name, l);
    frame next;
    joint(name, parent, &cur, plen, type, planar, &next);
    cur = next, plen = l;
    snprintf(parent, sizeof parent, "%s", name);
  }
  *tipf = cur, *len = plen;
  strcpy(tip, parent);
}

/* The point at x = len on the tip's x axis, in world coordinates. */
static void tip_point(const frame *f, double len, double out[3]) {
  for (int i = 0; i < 3; i++) out[i] = f->p[i] + f->R[3 * i] * len;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return fprintf(stderr, "usage: random_loops SEED planar|spatial|coupled|headed\n"), 2;
  state = strtoull(argv[1], NULL, 10) * 7919u + 17u;
  const char *kind = argv[2];
  int planar = strcmp(kind, "planar") == 0;
  frame world = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}}, tipf, tipg;
  double len, glen, p[3], g[3];
  char tip[32], tip2[32];
  printf("# random_loops %s %s (tests/random_loops.c)\nmodel random_%s;\ngravity 0 %s;\n",
         argv[1], kind, kind, planar ? "-9.81 0" : "0 -9.81");
  int headed = strcmp(kind, "headed") == 0;
  if (strcmp(kind, "coupled") == 0 || headed) {
    frame root = world;
    double rlen = 0;
    char rname[32] = "world";
    if (headed) chain("h", "world", &world, 0, 2, 0, &root, &rlen, rname);
    chain("a", rname, &root, rlen, 3 + (int)uniform(0, 3), 0, &tipf, &len, tip);
    frame base2 = root;
    double off = uniform(0.3, 0.6);
    for (int i = 0; i < 3; i++) base2.p[i] += root.R[3 * i] * off;
    chain("b", rname, &base2, rlen + off, 3 + (int)uniform(0, 3), 0, &tipg, &glen, tip2);
    tip_point(&tipf, len, p), tip_point(&tipg, glen, g);
    /* the loop's target on b's tip, where a's tip point is (in b's tip frame) */
    double d[3] = {p[0] - tipg.p[0], p[1] - tipg.p[1], p[2] - tipg.p[2]}, t[3];
    for (int i = 0; i < 3; i++) t[i] = tipg.R[i] * d[0] + tipg.R[3 + i] * d[1] + tipg.R[6 + i] * d[2];
    printf("loop join s %s -> %s { origin xyz %.6g 0 0; target xyz %.6g %.6g %.6g; }\n", tip,
           tip2, len, t[0] + uniform(-0.05, 0.05), t[1] + uniform(-0.05, 0.05),
           t[2] + uniform(-0.05, 0.05));
    /* a's second link held at a distance from a ground point */
    double r = 0.5;
    printf("loop tether ss a2 -> world { origin xyz 0.1 0 0; target xyz %.6g %.6g %.6g; "
           "distance %.6g; }\n", p[0] + 0.3, p[1] + 0.4, p[2], r + uniform(0.3, 0.6));
    return 0;
  }
  int n = planar ? 3 + (int)uniform(0, 4) : 4 + (int)uniform(0, 4);
  chain("l", "world", &world, 0, n, planar, &tipf, &len, tip);
  tip_point(&tipf, len, p);
  if (planar)
    printf("loop close revolute %s -> world { origin xyz %.6g 0 0; target xyz %.6g %.6g 0; "
           "axis 0 0 1; }\n", tip, len, p[0] + uniform(-0.05, 0.05), p[1] + uniform(-0.05, 0.05));
  else
    printf("loop close spherical %s -> world { origin xyz %.6g 0 0; target xyz %.6g %.6g %.6g; }\n",
           tip, len, p[0] + uniform(-0.05, 0.05), p[1] + uniform(-0.05, 0.05),
           p[2] + uniform(-0.05, 0.05));
  return 0;
}
