/* test_mujoco.c — the generated dynamics of every example robot against MuJoCo 2.2.2 (Debian's
 * libmujoco-dev), an implementation no one here wrote (DESIGN.md, the validation ladder, step 4).
 *
 * Reference: MuJoCo loading the same URDF (mujoco_model.c prepares the copy), with passive
 * forces, constraints (limits, contacts, the mimic equality) and actuation disabled and armature,
 * damping and stiffness zero. On NSTATES random states it compares
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

/* How our coordinates map to MuJoCo's. */
typedef struct mapping {
  int nv;
  int free_joint; /* our index of the floating joint, or -1 */
  int qadr[MAXV]; /* per our joint: MuJoCo qpos address */
  int vadr[MAXV]; /* per our joint: MuJoCo dof address */
} mapping;

static int map_joints(const mbt_robot *r, const mjModel *m, mapping *map) {
  map->nv = r->nv;
  map->free_joint = -1;
  if (m->nv != r->nv || m->nq != r->nq) {
    fprintf(stderr, "%s: MuJoCo has nq %d nv %d, ours %d %d\n", r->stem, m->nq, m->nv, r->nq,
            r->nv);
    return -1;
  }
  for (int j = 0; j < r->nj; j++) {
    int id = mj_name2id(m, mjOBJ_JOINT, r->joint_names[j]);
    if (id < 0) {
      fprintf(stderr, "%s: MuJoCo has no joint '%s'\n", r->stem, r->joint_names[j]);
      return -1;
    }
    map->qadr[j] = m->jnt_qposadr[id];
    map->vadr[j] = m->jnt_dofadr[id];
    int nv = (j + 1 < r->nj ? r->joint_iv[j + 1] : r->nv) - r->joint_iv[j];
    int want = m->jnt_type[id] == mjJNT_FREE ? 6 : m->jnt_type[id] == mjJNT_BALL ? 3 : 1;
    if (nv != want)
      return fprintf(stderr, "%s: joint '%s' types differ\n", r->stem, r->joint_names[j]), -1;
    if (m->jnt_type[id] == mjJNT_FREE) map->free_joint = j;
  }
  return 0;
}

/* R (row-major, base to world) of our quaternion qx qy qz qw. */
static void quat_R(const double *q, double R[9]) {
  double x = q[0], y = q[1], z = q[2], w = q[3];
  double M[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                 2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                 2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  memcpy(R, M, sizeof M);
}

/* T (MuJoCo dof × our dof, dense) and, for the free joint, R and the offsets. */
static void build_T(const mbt_robot *r, const mapping *map, const double *q, double *T,
                    double R[9]) {
  int nv = r->nv;
  memset(T, 0, (size_t)nv * (size_t)nv * sizeof *T);
  for (int k = 0; k < 9; k++) R[k] = (k % 4 == 0);
  for (int j = 0; j < r->nj; j++) {
    int iv = r->joint_iv[j], mv = map->vadr[j];
    if (j == map->free_joint) {
      quat_R(q + r->joint_iq[j] + 3, R);
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) T[(mv + a) * nv + iv + b] = R[3 * a + b];
      for (int a = 3; a < 6; a++) T[(mv + a) * nv + iv + a] = 1;
    } else {
      T[mv * nv + iv] = 1;
    }
  }
}

static void to_mujoco_state(const mbt_robot *r, const mapping *map, const double *q,
                            const double *v, const double *T, mjData *d) {
  int nv = r->nv;
  for (int j = 0; j < r->nj; j++) {
    const double *qj = q + r->joint_iq[j];
    double *mq = d->qpos + map->qadr[j];
    if (j == map->free_joint) {
      mq[0] = qj[0], mq[1] = qj[1], mq[2] = qj[2];
      mq[3] = qj[6], mq[4] = qj[3], mq[5] = qj[4], mq[6] = qj[5]; /* w x y z */
    } else {
      mq[0] = qj[0];
    }
  }
  for (int i = 0; i < nv; i++) {
    double s = 0;
    for (int k = 0; k < nv; k++) s += T[i * nv + k] * v[k];
    d->qvel[i] = s;
  }
}

/* Ṫ v: the free joint's R (ω × v_lin), in MuJoCo's dofs. */
static void Tdot_v(const mbt_robot *r, const mapping *map, const double R[9], const double *v,
                   double *out) {
  memset(out, 0, (size_t)r->nv * sizeof *out);
  if (map->free_joint < 0) return;
  const double *vl = v + r->joint_iv[map->free_joint], *w = vl + 3;
  double c[3] = {w[1] * vl[2] - w[2] * vl[1], w[2] * vl[0] - w[0] * vl[2],
                 w[0] * vl[1] - w[1] * vl[0]};
  for (int a = 0; a < 3; a++)
    out[map->vadr[map->free_joint] + a] =
        R[3 * a] * c[0] + R[3 * a + 1] * c[1] + R[3 * a + 2] * c[2];
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
  mapping map;
  if (map_joints(r, m, &map)) return -1;
  int nv = r->nv;
  double q[MAXV + 7], v[MAXV], a[MAXV], tau[MAXV], out[MAXV], ref[MAXV], tmp[MAXV], R[9];
  double *T = malloc(sizeof(double) * (size_t)(4 * nv * nv));
  double *Mo = T + nv * nv, *Mm = Mo + nv * nv, *Mr = Mm + nv * nv;
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
    build_T(r, &map, q, T, R);
    to_mujoco_state(r, &map, q, v, T, d);
    /* RNEA: qacc = T a + Ṫ v; tau = Tᵀ qfrc_inverse */
    Tdot_v(r, &map, R, v, tmp);
    for (int i = 0; i < nv; i++) {
      double x = tmp[i];
      for (int k = 0; k < nv; k++) x += T[i * nv + k] * a[k];
      d->qacc[i] = x;
    }
    mj_inverse(m, d);
    for (int k = 0; k < nv; k++) {
      double x = 0;
      for (int i = 0; i < nv; i++) x += T[i * nv + k] * d->qfrc_inverse[i];
      ref[k] = x;
    }
    r->rnea(q, v, a, out);
    double e = rel_error(out, ref, nv);
    if (!(e <= worst[0])) worst[0] = e;
    /* M: Tᵀ M_mj T (qM is that of the state's q after mj_inverse) */
    mj_fullM(m, Mm, d->qM);
    for (int i = 0; i < nv; i++)
      for (int k = 0; k < nv; k++) {
        double x = 0;
        for (int l = 0; l < nv; l++) x += Mm[i * nv + l] * T[l * nv + k];
        Mo[i * nv + k] = x; /* M_mj T */
      }
    for (int i = 0; i < nv; i++)
      for (int k = 0; k < nv; k++) {
        double x = 0;
        for (int l = 0; l < nv; l++) x += T[l * nv + i] * Mo[l * nv + k];
        Mr[i * nv + k] = x;
      }
    r->crba(q, Mo);
    e = rel_error(Mo, Mr, nv * nv);
    if (!(e <= worst[1])) worst[1] = e;
    /* FD: qfrc_applied = T tau (T orthogonal: T⁻ᵀ = T); a = Tᵀ (qacc − Ṫ v) */
    for (int i = 0; i < nv; i++) {
      double x = 0;
      for (int k = 0; k < nv; k++) x += T[i * nv + k] * tau[k];
      d->qfrc_applied[i] = x;
    }
    mj_forward(m, d);
    for (int k = 0; k < nv; k++) {
      double x = 0;
      for (int i = 0; i < nv; i++) x += T[i * nv + k] * (d->qacc[i] - tmp[i]);
      ref[k] = x;
    }
    if (r->aba(q, v, tau, out) != 0) worst[2] = INFINITY;
    e = rel_error(out, ref, nv);
    if (!(e <= worst[2])) worst[2] = e;
    mju_zero(d->qfrc_applied, nv);
  }
  free(T);
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
