/* test_topology_random.c — invariants of the numbered tree (generator/topology.c) on 300 seeded
 * random trees of up to 60 bodies, every tree joint type including fixed, bodies and joints
 * declared in random orders, a few loops: regular numbering, subtree ranges, supports(), offsets,
 * expanded parents, chains and nodes, exact fixed-joint merging, merged frames, loop paths. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "topology/topology.h"

#include "mb_randtree.h"
#include "mbg_testmodel.h"

static const mbg_loc noloc = {0, 0, 0};


/* ---------------------------------------------------------------- seeded random trees */

static mbt_rng rng; /* tests/mb_randtree.c's generator */
static double urand(double lo, double hi) { return mbt_uniform(&rng, lo, hi); }
static int irand(int n) { return mbt_randint(&rng, 0, n - 1); }

static void shuffle(int *a, int n) {
  for (int i = n - 1; i > 0; i--) {
    int k = irand(i + 1), x = a[i];
    a[i] = a[k], a[k] = x;
  }
}

/* A pose in the world: R's columns are the frame's axes, p its origin. */
typedef struct pose {
  double R[9], p[3];
} pose;

static void matmul(const double A[9], const double B[9], double C[9]) {
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++)
      C[3 * i + k] = A[3 * i] * B[k] + A[3 * i + 1] * B[3 + k] + A[3 * i + 2] * B[6 + k];
}

/* R = Rz(yaw) Ry(pitch) Rx(roll), as a product of the three elementary rotations. */
static void rot_rpy(const double rpy[3], double R[9]) {
  double cr = cos(rpy[0]), sr = sin(rpy[0]), cp = cos(rpy[1]), sp = sin(rpy[1]);
  double cy = cos(rpy[2]), sy = sin(rpy[2]), T[9];
  double Rx[9] = {1, 0, 0, 0, cr, -sr, 0, sr, cr}, Ry[9] = {cp, 0, sp, 0, 1, 0, -sp, 0, cp};
  double Rz[9] = {cy, -sy, 0, sy, cy, 0, 0, 0, 1};
  matmul(Ry, Rx, T);
  matmul(Rz, T, R);
}

/* The frame at (R_rel, p_rel) relative to `base`. */
static pose pose_rel(const pose *base, const double Rrel[9], const double prel[3]) {
  pose out;
  matmul(base->R, Rrel, out.R);
  for (int i = 0; i < 3; i++)
    out.p[i] = base->p[i] + base->R[3 * i] * prel[0] + base->R[3 * i + 1] * prel[1] +
               base->R[3 * i + 2] * prel[2];
  return out;
}

static pose pose_xyz_rpy(const pose *base, const double xyz[3], const double rpy[3]) {
  double R[9];
  rot_rpy(rpy, R);
  return pose_rel(base, R, xyz);
}

static pose pose_xform(const pose *base, const mbg_xform *X) { /* R_rel = Eᵀ, p_rel = r */
  double Rt[9];
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) Rt[3 * i + k] = X->E[3 * k + i];
  return pose_rel(base, Rt, X->r);
}

static void assert_pose(const pose *a, const pose *b, double tol) {
  for (int k = 0; k < 9; k++) assert_near(a->R[k], b->R[k], tol);
  for (int k = 0; k < 3; k++) assert_near(a->p[k], b->p[k], tol);
}

typedef struct rtree {
  mbg_model *m;
  pose world[64];   /* every model body's pose at q = 0, composed joint by joint */
  int on_world[64]; /* 1 if only fixed joints lead from the world to the body */
} rtree;

static void random_joint(mbg_joint *J) {
  static const mbg_joint_type moving[] = {MBG_JOINT_REVOLUTE,  MBG_JOINT_CONTINUOUS,
                                          MBG_JOINT_PRISMATIC, MBG_JOINT_HELICAL,
                                          MBG_JOINT_SPHERICAL, MBG_JOINT_FLOATING};
  J->type = irand(10) < 3 ? MBG_JOINT_FIXED : moving[irand(6)];
  for (int k = 0; k < 3; k++) J->xyz[k] = urand(-1, 1), J->rpy[k] = urand(-PI, PI);
  J->pitch = urand(-0.1, 0.1);
}

static void random_body(mbg_body *b) {
  b->mass = urand(0.1, 5);
  for (int k = 0; k < 3; k++) b->com[k] = urand(-0.5, 0.5), b->inertia[k] = urand(0.01, 1);
  for (int k = 3; k < 6; k++) b->inertia[k] = urand(-0.005, 0.005);
}

static void random_loops(rtree *r) {
  mbg_model *m = r->m;
  for (int n = irand(4); n > 0; n--) {
    char name[16];
    snprintf(name, sizeof name, "l%d", m->nloops);
    int l = mbg_model_add_loop(m, name, noloc);
    assert_true(l >= 0);
    mbg_loop *L = &m->loops[l];
    L->type = MBG_JOINT_S;
    L->body_a = irand(m->nbodies), L->body_b = irand(m->nbodies);
    for (int k = 0; k < 3; k++) {
      L->xyz[k] = urand(-1, 1), L->rpy[k] = urand(-PI, PI);
      L->target_xyz[k] = urand(-1, 1), L->target_rpy[k] = urand(-PI, PI);
    }
  }
}

/* A hidden tree (parent of hidden body k drawn among 0..k-1), declared with bodies and joints in
 * independent random orders. */
static void random_tree(rtree *r) {
  int n = 1 + irand(60), map[64], hparent[64], jorder[64];
  mbg_model *m = r->m = mbg_model_new("random", "");
  assert_non_null(m);
  map[0] = 0;
  for (int k = 1; k <= n; k++) map[k] = k, hparent[k] = irand(k), jorder[k - 1] = k;
  shuffle(map + 1, n);
  shuffle(jorder, n);
  for (int b = 1; b <= n; b++) {
    char name[16];
    snprintf(name, sizeof name, "b%d", b);
    int k = mbgt_body(m, name, 1); /* the call may move m->bodies */
    random_body(&m->bodies[k]);
  }
  for (int s = 0; s < n; s++) {
    int k = jorder[s];
    char name[16];
    snprintf(name, sizeof name, "j%d", k);
    int j = mbgt_joint(m, name, MBG_JOINT_FIXED, map[hparent[k]], map[k]);
    random_joint(&m->joints[j]);
  }
  memset(&r->world[0], 0, sizeof r->world[0]);
  r->world[0].R[0] = r->world[0].R[4] = r->world[0].R[8] = 1.0;
  r->on_world[0] = 1;
  for (int k = 1; k <= n; k++) { /* parents first: hidden order */
    const mbg_joint *J = &m->joints[0];
    for (int j = 0; j < m->njoints; j++)
      if (m->joints[j].child == map[k]) J = &m->joints[j];
    r->world[map[k]] = pose_xyz_rpy(&r->world[J->parent], J->xyz, J->rpy);
    r->on_world[map[k]] = r->on_world[J->parent] && J->type == MBG_JOINT_FIXED;
  }
  random_loops(r);
}

/* 1 if j is i or an ancestor of i, by walking the parent array. */
static int walk_supports(const mbg_topology *t, int j, int i) {
  for (; i > 0; i = t->body[i].parent)
    if (i == j) return 1;
  return j == 0;
}

/* Numbering, subtree ranges, children lists, supports(), offsets. */
static void check_structure(const mbg_topology *t, const mbg_model *m) {
  int nq = 0, nv = 0;
  for (int i = 0; i <= t->nb; i++) {
    const mbg_tree_body *tb = &t->body[i];
    if (i > 0) {
      const mbg_joint *J = &m->joints[tb->model_joint];
      assert_true(tb->parent >= 0 && tb->parent < i);
      assert_int_equal(tb->depth, t->body[tb->parent].depth + 1);
      assert_int_equal(J->child, tb->model_body);
      assert_true(J->type != MBG_JOINT_FIXED && J->type == tb->type);
      assert_int_equal(tb->iq, nq);
      assert_int_equal(tb->iv, nv);
      assert_int_equal(tb->nq, mbg_joint_type_nq(J->type));
      assert_int_equal(tb->nv, mbg_joint_type_nv(J->type));
      nq += tb->nq, nv += tb->nv;
    }
    assert_true(tb->subtree_end > i && tb->subtree_end <= t->nb + 1);
    int n = 0, prev = i, prevj = -1;
    for (int c = tb->first_child; c != 0; c = t->body[c].next_sibling, n++) {
      assert_int_equal(t->body[c].parent, i);
      assert_int_equal(c, n == 0 ? i + 1 : t->body[prev].subtree_end); /* preorder */
      assert_true(t->body[c].model_joint > prevj);                   /* declaration order */
      prev = c, prevj = t->body[c].model_joint;
    }
    assert_int_equal(n, tb->nchildren);
    for (int k = 0; k <= t->nb; k++) {
      assert_int_equal(mbg_topology_supports(t, i, k), walk_supports(t, i, k));
      if (k > 0 && t->body[k].parent == i) n--;
    }
    assert_int_equal(n, 0);
  }
  assert_int_equal(t->nq, nq);
  assert_int_equal(t->nv, nv);
}

static void check_dofs(const mbg_topology *t) {
  for (int d = 0; d < t->nv; d++) {
    int b = t->dof_body[d], p = t->body[b].parent;
    assert_true(b >= 1 && b <= t->nb && d >= t->body[b].iv && d < t->body[b].iv + t->body[b].nv);
    int want = d > t->body[b].iv ? d - 1 : (p > 0 ? t->body[p].iv + t->body[p].nv - 1 : -1);
    assert_int_equal(t->dof_parent[d], want);
  }
}

/* Chains and nodes partition the moving bodies; each chain is a maximal parent-child run. */
static void check_chains(const mbg_topology *t) {
  int seen[64] = {0}, nworld = t->body[0].nchildren;
  for (int k = 0; k < t->nnodes; k++) {
    int i = t->node[k];
    assert_true(t->body[i].nchildren > 1 && t->body[i].is_node && t->body[i].chain == -1);
    assert_true(k == 0 || t->node[k - 1] < i);
    seen[i]++;
  }
  assert_int_equal(t->chain_start[0], 0);
  for (int c = 0; c < t->nchains; c++) {
    int s = t->chain_start[c], e = t->chain_start[c + 1];
    assert_true(e > s);
    int first = t->chain_body[s], last = t->chain_body[e - 1];
    assert_true(t->body[first].parent == 0 || t->body[t->body[first].parent].is_node);
    assert_true(t->body[last].nchildren == 0 || t->body[t->body[last].first_child].is_node);
    for (int k = s; k < e; k++) {
      int i = t->chain_body[k];
      assert_true(!t->body[i].is_node && t->body[i].chain == c && t->body[i].nchildren <= 1);
      if (k > s) assert_int_equal(t->body[i].parent, t->chain_body[k - 1]);
      seen[i]++;
    }
  }
  for (int i = 1; i <= t->nb; i++) assert_int_equal(seen[i], 1);
  assert_int_equal(t->world_is_node, nworld > 1);
}

/* Add a body of mass m, world COM c and rotational inertia Ic (6 numbers, about the COM, body
 * axes R) to acc = [m, m c (3), inertia about the world origin (6)]. */
static void add_mass(double acc[10], double m, const double c[3], const double R[9],
                     const double Ic[6]) {
  double I[9] = {Ic[0], Ic[3], Ic[4], Ic[3], Ic[1], Ic[5], Ic[4], Ic[5], Ic[2]}, T[9], J[9];
  double Rt[9] = {R[0], R[3], R[6], R[1], R[4], R[7], R[2], R[5], R[8]};
  double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
  matmul(R, I, T);
  matmul(T, Rt, J);
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) J[3 * i + k] += m * ((i == k ? cc : 0.0) - c[i] * c[k]);
  double packed[6] = {J[0], J[4], J[8], J[1], J[2], J[5]};
  acc[0] += m;
  for (int k = 0; k < 3; k++) acc[1 + k] += m * c[k];
  for (int k = 0; k < 6; k++) acc[4 + k] += packed[k];
}

/* Merging preserves total mass, COM and rotational inertia about the world origin at q = 0. The
 * reference comes from the unmerged model: every model body's world pose is composed joint by
 * joint from its (xyz, rpy) (rtree.world); bodies fixed to the world are left out (the world
 * does not move). The merged side composes the tree transforms XT and reads I back as a COM. */
static void check_mass(const mbg_topology *t, const rtree *r, const pose *tree) {
  double ref[10] = {0}, got[10] = {0};
  for (int b = 1; b < r->m->nbodies; b++) {
    const mbg_body *B = &r->m->bodies[b];
    if (r->on_world[b]) continue;
    pose c = pose_rel(&r->world[b], (double[9]){1, 0, 0, 0, 1, 0, 0, 0, 1}, B->com);
    add_mass(ref, B->mass, c.p, r->world[b].R, B->inertia);
  }
  for (int i = 1; i <= t->nb; i++) {
    const mbg_inertia *I = &t->body[i].I;
    double c[3] = {I->h[0] / I->m, I->h[1] / I->m, I->h[2] / I->m}, cc = 0, Ic[6];
    for (int k = 0; k < 3; k++) cc += c[k] * c[k];
    for (int k = 0; k < 3; k++) Ic[k] = I->I[k] - I->m * (cc - c[k] * c[k]);
    Ic[3] = I->I[3] + I->m * c[0] * c[1];
    Ic[4] = I->I[4] + I->m * c[0] * c[2];
    Ic[5] = I->I[5] + I->m * c[1] * c[2];
    pose cw = pose_rel(&tree[i], (double[9]){1, 0, 0, 0, 1, 0, 0, 0, 1}, c);
    add_mass(got, I->m, cw.p, tree[i].R, Ic);
  }
  for (int k = 0; k < 10; k++) assert_near(got[k], ref[k], 1e-10 * (1.0 + fabs(ref[k])));
  assert_near(t->body[0].I.m, 0.0, 0.0);
}

/* Every model body's frame through merged[] and every loop frame through Xa/Xb match the
 * unmerged poses; loop paths climb from a to the ancestor and descend to b. */
static void check_frames_and_loops(const mbg_topology *t, const rtree *r, const pose *tree) {
  const mbg_model *m = r->m;
  assert_int_equal(t->nmerged, m->nbodies);
  for (int b = 0; b < m->nbodies; b++) {
    const mbg_merged *mb = &t->merged[b];
    assert_int_equal(mb->model_body, b);
    assert_true(mb->into >= 0 && (mb->into == 0) == r->on_world[b]);
    pose p = pose_xform(&tree[mb->into], &mb->X);
    assert_pose(&p, &r->world[b], 1e-9);
  }
  assert_int_equal(t->nloops, m->nloops);
  for (int l = 0; l < t->nloops; l++) {
    const mbg_tree_loop *L = &t->loop[l];
    const mbg_loop *ml = &m->loops[L->model_loop];
    assert_int_equal(L->model_loop, l);
    assert_int_equal(L->a, t->merged[ml->body_a].into);
    assert_int_equal(L->b, t->merged[ml->body_b].into);
    pose want = pose_xyz_rpy(&r->world[ml->body_a], ml->xyz, ml->rpy);
    pose got = pose_xform(&tree[L->a], &L->Xa);
    assert_pose(&got, &want, 1e-9);
    want = pose_xyz_rpy(&r->world[ml->body_b], ml->target_xyz, ml->target_rpy);
    got = pose_xform(&tree[L->b], &L->Xb);
    assert_pose(&got, &want, 1e-9);
    int anc = L->ancestor, da = t->body[L->a].depth, db = t->body[L->b].depth;
    assert_true(mbg_topology_supports(t, anc, L->a) && mbg_topology_supports(t, anc, L->b));
    for (int c = t->body[anc].first_child; c != 0; c = t->body[c].next_sibling)
      assert_false(mbg_topology_supports(t, c, L->a) && mbg_topology_supports(t, c, L->b));
    assert_int_equal(L->npath, da + db - 2 * t->body[anc].depth);
    int up = da - t->body[anc].depth, x = L->a;
    for (int k = 0; k < up; k++, x = t->body[x].parent) assert_int_equal(L->path[k], x);
    x = L->b;
    for (int k = L->npath - 1; k >= up; k--, x = t->body[x].parent) assert_int_equal(L->path[k], x);
  }
}

static void test_random_trees(void **state) {
  (void)state;
  for (int seed = 1; seed <= 300; seed++) {
    rtree r;
    mbt_rng_seed(&rng, (uint64_t)seed);
    random_tree(&r);
    mbg_topology *t = mbg_topology_build(r.m);
    assert_non_null(t);
    pose tree[64];
    tree[0] = r.world[0];
    for (int i = 1; i <= t->nb; i++) tree[i] = pose_xform(&tree[t->body[i].parent], &t->body[i].XT);
    check_structure(t, r.m);
    check_dofs(t);
    check_chains(t);
    check_mass(t, &r, tree);
    check_frames_and_loops(t, &r, tree);
    mbg_topology_free(t);
    mbg_model_free(r.m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_random_trees),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
