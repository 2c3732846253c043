/* test_mujoco.c — the generated dynamics of every example robot against MuJoCo 2.2.2 (Debian's
 * libmujoco-dev), an implementation no one here wrote.
 *
 * Reference: MuJoCo loading the same URDF (mujoco_peer/mujoco_model.c prepares the copy and maps
 * the coordinates, for the benchmarks too), with passive forces, constraints (limits, contacts,
 * the mimic equality) and actuation disabled and armature, damping and stiffness zero. On NSTATES random states it compares
 *   RNEA   tau = rnea(q, v, a)          with MuJoCo's mj_inverse (qfrc_inverse)
 *   M      crba(q)                      with mj_fullM of qM
 *   FD     qdd = aba(q, v, tau)         with mj_forward's qacc under qfrc_applied = tau
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

/* Worst relative errors of RNEA, M and FD over NSTATES random states. */
static int compare(const mbt_robot *r, const mjModel *m, mjData *d, double worst[3]) {
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
  worst[0] = worst[1] = worst[2] = 0;
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
    mju_zero(d->qfrc_applied, nv);
  }
  free(Mo);
  mujoco_map_free(&map);
  return 0;
}

/* Load the prepared copy, keep only the rigid-body dynamics, set inertias, compare. */
static int run(const mbt_robot *r, const char *urdf, const char *copy, int exact, double worst[3],
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
  printf("%-16s %-6s %9s %9s %9s %9s  %s\n", "robot", "run", "rnea", "M", "fd", "inertia", "set");
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
      double worst[3], dev = 0;
      int changed = 0;
      if (run(r, urdf, copy, exact, worst, &changed, &dev) != 0) {
        printf("%s: FAIL (see above)\n", r->stem);
        failed++;
        continue;
      }
      const double *b = exact ? (double[3]){EXACT_BOUND, EXACT_BOUND, EXACT_BOUND} : bound;
      int ok = worst[0] <= b[0] && worst[1] <= b[1] && worst[2] <= b[2];
      printf("%-16s %-6s %9.2e %9.2e %9.2e %9.2e  %d%s\n", r->stem, exact ? "exact" : "mujoco",
             worst[0], worst[1], worst[2], dev, changed, ok ? "" : "  FAIL");
      failed += !ok;
    }
  }
  printf("%s: %d robots against MuJoCo %s, %d states each\n", failed ? "FAIL" : "ok", mbt_nrobots,
         mj_versionString(), NSTATES);
  return failed ? 1 : 0;
}
