/* test_mujoco.c — the generated dynamics of every example robot against MuJoCo 2.2.2 (Debian's
 * libmujoco-dev), an implementation no one here wrote.
 *
 * Reference: MuJoCo loading the same URDF (mujoco_peer/mujoco_model.c prepares the copy and maps
 * the coordinates, for the benchmarks too), with passive forces, constraints (limits, contacts,
 * the mimic equality) and actuation disabled and armature, damping and stiffness zero. On NSTATES random states it compares
 *   RNEA   tau = rnea(q, v, a)          with MuJoCo's mj_inverse (qfrc_inverse)
 *   M      crba(q)                      with mj_fullM of qM
 *   FD     qdd = aba(q, v, tau)         with mj_forward's qacc under qfrc_applied = tau
 *   frames frame_pose, frame_jacobian_world of every frame MuJoCo keeps as a body (its body
 *          frame: xpos, xmat; mj_jac at xpos), and com with subtree_com of the root moving body
 * as max |ours − MuJoCo| / max |MuJoCo| over the entries, worst over the states. Joints are
 * matched by name; a floating base maps between the conventions (docs/urdf.md): MuJoCo's free
 * joint has qpos [x y z, qw qx qy qz] and qvel [world-frame linear velocity; body-frame angular],
 * ours q [x y z, qx qy qz qw] and v [body-frame linear; body-frame angular], so with R the base
 * orientation: qvel = T v, T = diag(R, 1, ..., 1); qacc = T a + [R (ω × v_lin); 0];
 * tau_ours = Tᵀ tau_mj; M_ours = Tᵀ M_mj T.
 *
 * Two runs per robot:
 *   exact   every body's inertia set from the URDF, diagonalized here to rounding: everything
 *           must agree to 1e-9 (MuJoCo's algorithms against ours);
 *   mujoco  the inertias as MuJoCo's compiler made them (it re-diagonalizes every inertia with an
 *           eigen-solver tolerance near 1e-12; only the inertias that break the triangle
 *           inequality, which MuJoCo cannot compile, are set as in `exact`): the measured bound of
 *           each robot is stated below; the difference with `exact` is the cause. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mujoco_model.h"
#include "mujoco_robots.h"

enum { NSTATES = 100, MAXV = 64 };
static const double EXACT_BOUND = 1e-9;

/* Measured with MuJoCo's own inertias (worst of RNEA, M, FD over NSTATES states, rounded up to
 * the next 1, 2 or 5; "inertia" is the largest relative difference between a URDF inertia tensor
 * and the one MuJoCo compiled, the cause); robots not listed agree to 1e-9. */
static const struct {
  const char *stem;
  double rnea, crba, aba;
} mujoco_bounds[] = {
    {"anymal_b", 1e-9, 1e-9, 2e-9},    /* measured 1.1e-12 5.0e-12 1.5e-9; inertia 1.1e-8 */
    {"hyq", 1e-9, 5e-9, 1e-6},         /* measured 7.0e-10 3.5e-9 9.5e-7; inertia 1.0e-6 */
    {"panda", 5e-9, 5e-8, 5e-7},       /* measured 3.6e-9 4.3e-8 4.6e-7; inertia 6.5e-7 */
    {"romeo_small", 1e-9, 5e-9, 1e-7}, /* measured 6.0e-10 2.5e-9 8.0e-8; inertia 5.5e-7 */
};

static double uniform(unsigned long long *s, double lo, double hi) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return lo + (hi - lo) * (double)((*s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static double rel_error(const double *ours, const double *ref, int n) {
  double err = 0, scale = 0;
  for (int k = 0; k < n; k++) {
    double e = fabs(ours[k] - ref[k]);
    if (!(e <= err)) err = e;
    if (fabs(ref[k]) > scale) scale = fabs(ref[k]);
  }
  return scale > 0 ? err / scale : err;
}

/* The frames against MuJoCo's bodies of the same name at the state in d (after mj_forward): their
 * poses (xpos, xmat) and Jacobians (mj_jac at xpos; ours J = J_mj T column by column, T the
 * velocity map), and the centre of mass against subtree_com of the root moving body; the worst
 * relative error into *worst, the frames compared into *matched. */
static void compare_frames(const mbt_robot *r, const mjModel *m, mjData *d, const mujoco_map *map,
                           const double *q, const double *R, double *worst, int *matched) {
  int nv = r->nv, nf = r->nf;
  double *pose = malloc(sizeof(double) * 12 * (size_t)nf);
  double *J = malloc(sizeof(double) * 6 * (size_t)nv * (size_t)nf);
  double *jp = malloc(sizeof(double) * 3 * (size_t)m->nv), *jr = malloc(sizeof(double) * 3 * (size_t)m->nv);
  double e[MAXV], qv[MAXV + 6], c[3];
  if (!pose || !J || !jp || !jr) abort();
  r->frame_pose(q, pose);
  r->frame_jacobian_world(q, J);
  *matched = 0;
  for (int k = 0; k < nf; k++) {
    int id = mj_name2id(m, mjOBJ_BODY, r->frame_names[k]);
    if (id <= 0) continue; /* fused into its parent by MuJoCo, or the world */
    ++*matched;
    const double *P = pose + 12 * k, *Jk = J + 6 * (size_t)nv * (size_t)k;
    double dp[3], dm[9], mrow[6 * MAXV], mref[6 * MAXV];
    for (int a = 0; a < 3; a++) dp[a] = P[9 + a];
    for (int a = 0; a < 9; a++) dm[a] = P[a];
    double ep = rel_error(dp, d->xpos + 3 * id, 3), em = rel_error(dm, d->xmat + 9 * id, 9);
    if (!(ep <= *worst)) *worst = ep;
    if (!(em <= *worst)) *worst = em;
    mj_jac(m, d, jp, jr, d->xpos + 3 * id, id);
    for (int col = 0; col < nv; col++) {
      for (int j = 0; j < nv; j++) e[j] = j == col;
      mujoco_map_vel(map, R, e, qv);
      for (int a = 0; a < 3; a++) {
        double w = 0, u = 0;
        for (int j = 0; j < m->nv; j++) w += jr[m->nv * a + j] * qv[j], u += jp[m->nv * a + j] * qv[j];
        mref[nv * a + col] = w, mref[nv * (3 + a) + col] = u;
        mrow[nv * a + col] = Jk[nv * a + col], mrow[nv * (3 + a) + col] = Jk[nv * (3 + a) + col];
      }
    }
    double ej = rel_error(mrow, mref, 6 * nv);
    if (!(ej <= *worst)) *worst = ej;
  }
  int root = mj_name2id(m, mjOBJ_BODY, r->body_names[1]);
  if (root > 0) {
    r->com(q, c);
    double ec = rel_error(c, d->subtree_com + 3 * root, 3);
    if (!(ec <= *worst)) *worst = ec;
  } else {
    *matched = -1;
  }
  free(pose), free(J), free(jp), free(jr);
}

/* Worst relative errors of RNEA, M, FD and the frames over NSTATES random states. */
static int compare(const mbt_robot *r, const mjModel *m, mjData *d, double worst[4]) {
  mujoco_map map;
  char msg[256];
  if (mujoco_map_joints(m, r->nq, r->nv, r->nj, r->joint_names, r->joint_iq, r->joint_iv, &map, msg,
                        sizeof msg) != 0)
    return fprintf(stderr, "%s: %s\n", r->stem, msg), -1;
  int nv = r->nv;
  double q[MAXV + 7], v[MAXV], a[MAXV], tau[MAXV], out[MAXV], ref[MAXV], R[9];
  double *Mo = malloc(sizeof(double) * (size_t)(3 * nv * nv)), *Mm = Mo + nv * nv,
         *Mr = Mm + nv * nv;
  unsigned long long s = 20261121u;
  worst[0] = worst[1] = worst[2] = worst[3] = 0;
  int matched = 0;
  for (int n = 0; n < NSTATES; n++) {
    for (int j = 0; j < r->nj; j++) {
      double *qj = q + r->joint_iq[j];
      if (j == map.free_joint) {
        double n2;
        for (int k = 0; k < 3; k++) qj[k] = uniform(&s, -1, 1);
        do {
          n2 = 0;
          for (int k = 3; k < 7; k++) qj[k] = uniform(&s, -1, 1), n2 += qj[k] * qj[k];
        } while (n2 < 0.01 || n2 > 1);
        for (int k = 3; k < 7; k++) qj[k] /= sqrt(n2);
      } else {
        qj[0] = uniform(&s, -3.14159, 3.14159);
      }
    }
    for (int k = 0; k < nv; k++)
      v[k] = uniform(&s, -1, 1), a[k] = uniform(&s, -1, 1), tau[k] = uniform(&s, -1, 1);
    mujoco_map_base_R(&map, q, R); /* the floating base hangs from the world: its q is its pose */
    mujoco_map_qpos(&map, q, NULL, d->qpos);
    mujoco_map_vel(&map, R, v, d->qvel);
    /* RNEA: qacc = T a + Ṫ v; tau = Tᵀ qfrc_inverse */
    mujoco_map_acc(&map, R, v, a, d->qacc);
    mj_inverse(m, d);
    mujoco_unmap_force(&map, R, d->qfrc_inverse, ref);
    r->rnea(q, v, a, out);
    double e = rel_error(out, ref, nv);
    if (!(e <= worst[0])) worst[0] = e;
    /* M: Tᵀ M_mj T (qM is that of the state's q after mj_inverse) */
    mj_fullM(m, Mm, d->qM);
    mujoco_unmap_matrix(&map, R, Mm, Mr);
    r->crba(q, Mo);
    e = rel_error(Mo, Mr, nv * nv);
    if (!(e <= worst[1])) worst[1] = e;
    /* FD: qfrc_applied = T tau (T orthogonal: T⁻ᵀ = T); a = Tᵀ (qacc − Ṫ v) */
    mujoco_map_vel(&map, R, tau, d->qfrc_applied);
    mj_forward(m, d);
    mujoco_unmap_acc(&map, R, v, d->qacc, ref);
    if (r->aba(q, v, tau, out) != 0) worst[2] = INFINITY;
    e = rel_error(out, ref, nv);
    if (!(e <= worst[2])) worst[2] = e;
    compare_frames(r, m, d, &map, q, R, &worst[3], &matched);
    mju_zero(d->qfrc_applied, nv);
  }
  if (matched < r->nb) worst[3] = INFINITY; /* every moving body is a MuJoCo body */
  free(Mo);
  mujoco_map_free(&map);
  return 0;
}

/* Load the prepared copy, keep only the rigid-body dynamics, set inertias, compare. */
static int run(const mbt_robot *r, const char *urdf, const char *copy, int exact, double worst[4],
               int *changed, double *dev) {
  char err[1024] = "";
  mjModel *m = mj_loadXML(copy, NULL, err, sizeof err);
  if (!m) {
    fprintf(stderr, "%s: MuJoCo cannot load %s: %s\n", r->stem, copy, err);
    return -1;
  }
  m->opt.disableflags |= mjDSBL_CONSTRAINT | mjDSBL_PASSIVE | mjDSBL_ACTUATION;
  for (int i = 0; i < m->nv; i++) m->dof_armature[i] = m->dof_damping[i] = 0;
  for (int j = 0; j < m->njnt; j++) m->jnt_stiffness[j] = 0;
  int rc = mujoco_set_inertias(m, urdf, exact, changed, dev);
  if (m->opt.gravity[0] != 0 || m->opt.gravity[1] != 0 || m->opt.gravity[2] != -9.81) rc = -1;
  mjData *d = mj_makeData(m);
  if (rc == 0) rc = compare(r, m, d, worst);
  mj_deleteData(d);
  mj_deleteModel(m);
  return rc;
}

int main(void) {
  const char *src = getenv("MBDC_SOURCE_DIR"), *bin = getenv("MBDC_BINARY_DIR");
  if (!src || !bin) return fprintf(stderr, "MBDC_SOURCE_DIR and MBDC_BINARY_DIR must be set\n"), 2;
  int failed = 0;
  printf("%-16s %-6s %9s %9s %9s %9s %9s  %s\n", "robot", "run", "rnea", "M", "fd", "frames",
         "inertia", "set");
  for (int i = 0; i < mbt_nrobots; i++) {
    const mbt_robot *r = &mbt_robots[i];
    char urdf[1024], copy[1024];
    snprintf(urdf, sizeof urdf, "%s/examples/urdf/%s.urdf", src, r->stem);
    snprintf(copy, sizeof copy, "%s/mujoco_%s.urdf", bin, r->stem);
    if (r->nv > MAXV || mujoco_prepare_urdf(urdf, copy, r->floating_base) != 0) {
      printf("%s: cannot prepare %s\n", r->stem, copy);
      failed++;
      continue;
    }
    double bound[3] = {EXACT_BOUND, EXACT_BOUND, EXACT_BOUND};
    for (size_t k = 0; k < sizeof mujoco_bounds / sizeof *mujoco_bounds; k++)
      if (strcmp(mujoco_bounds[k].stem, r->stem) == 0)
        bound[0] = mujoco_bounds[k].rnea, bound[1] = mujoco_bounds[k].crba,
        bound[2] = mujoco_bounds[k].aba;
    for (int exact = 1; exact >= 0; exact--) {
      double worst[4], dev = 0;
      int changed = 0;
      if (run(r, urdf, copy, exact, worst, &changed, &dev) != 0) {
        printf("%s: FAIL (see above)\n", r->stem);
        failed++;
        continue;
      }
      const double *b = exact ? (double[3]){EXACT_BOUND, EXACT_BOUND, EXACT_BOUND} : bound;
      /* the frames' poses, Jacobians and the centre of mass do not depend on the inertia
       * tensors: EXACT_BOUND either way */
      int ok = worst[0] <= b[0] && worst[1] <= b[1] && worst[2] <= b[2] && worst[3] <= EXACT_BOUND;
      printf("%-16s %-6s %9.2e %9.2e %9.2e %9.2e %9.2e  %d%s\n", r->stem,
             exact ? "exact" : "mujoco", worst[0], worst[1], worst[2], worst[3], dev, changed,
             ok ? "" : "  FAIL");
      failed += !ok;
    }
  }
  printf("%s: %d robots against MuJoCo %s, %d states each\n", failed ? "FAIL" : "ok", mbt_nrobots,
         mj_versionString(), NSTATES);
  return failed ? 1 : 0;
}
