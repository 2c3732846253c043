/* bench_mujoco.c — MuJoCo (Debian's libmujoco-dev, 2.2.2) as a peer of the generated code.
 *
 * MuJoCo reads the robot from URDF (mj_loadXML): the example's own URDF, or one written from the
 * runtime model (bench_urdf.c), prepared as tests/test_mujoco.c prepares it and with the same
 * coordinate map (mujoco_peer/mujoco_model.h: meshes removed, every link a body, a floating base
 * as MuJoCo's free joint). Its passive terms are zeroed (armature, damping, stiffness) and its
 * gravity set to the model's, so it computes the same rigid-body dynamics; every body's inertia is
 * set from the URDF diagonalized to rounding (test_mujoco's "exact" run), because MuJoCo's
 * compiler re-diagonalizes inertias only to ~1e-12 and leaves some tensors off by up to ~1e-6
 * relative (panda, hyq, romeo_small, anymal_b: docs/urdf.md). That changes numbers, not work.
 *
 * What each timed quantity costs in MuJoCo (the smooth-dynamics stages of mj_forward, no
 * collision, no constraints, no passive forces):
 *   RNEA  τ = M a + h    copy q, v, a in; mj_kinematics, mj_comPos, mj_comVel, mj_rne(flg_acc=1)
 *   M                    copy q in; mj_kinematics, mj_comPos, mj_crb, mj_fullM (sparse → dense)
 *   forward dynamics     copy q, v in; mj_kinematics, mj_comPos, mj_comVel, mj_crb, mj_factorM,
 *                        mj_rne(flg_acc=0) (h), τ − h, mj_solveM
 *   M⁻¹                  copy q in; mj_kinematics, mj_comPos, mj_crb, mj_factorM,
 *                        mj_solveM on the nv columns of the identity
 * ("copy in": the state goes into mjData, nq + 2 nv doubles at most; it is part of the call.) */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_peer.h"

#ifdef BENCH_HAVE_MUJOCO
#include "mujoco_model.h"

static int fail(char *msg, size_t msgsize, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (msg) vsnprintf(msg, msgsize, fmt, ap);
  va_end(ap);
  return -1;
}

struct bench_mj {
  mjModel *m;
  mjData *d;
  mujoco_map map;
  int nq, nv, nstates;
  double *qpos, *qvel, *qacc, *qfrc; /* per state slot: nq, nv, nv, nv */
  double *R;                         /* per slot: the floating base's rotation (9) */
  double *v;                         /* per slot: mbdc's v (for the base's acceleration) */
  double *eye;                       /* nv × nv identity */
};

const char *bench_mj_version(void) { return mj_versionString(); }

/* A temporary file name (created, empty) in name[size]. */
static int temp_name(char *name, size_t size, const char *what) {
  const char *dir = getenv("TMPDIR");
  snprintf(name, size, "%s/mbdc_bench_%s_XXXXXX", dir && *dir ? dir : "/tmp", what);
  int fd = mkstemp(name);
  if (fd < 0) return -1;
  close(fd);
  return 0;
}

/* The prepared URDF at path: from the example (floating base added on request) or from the
 * model. */
static int write_urdf(const mb_model *mb, const bench_names *names, const char *urdf,
                      int floating_base, const char *path, char *msg, size_t msgsize) {
  if (urdf) {
    if (mujoco_prepare_urdf(urdf, path, floating_base) != 0)
      return fail(msg, msgsize, "cannot prepare %s for MuJoCo", urdf);
    return 0;
  }
  char raw[512];
  if (temp_name(raw, sizeof raw, "model") != 0) return fail(msg, msgsize, "no temporary file");
  FILE *f = fopen(raw, "w");
  int rc = f ? bench_urdf_from_model(mb, names, f, msg, msgsize)
             : fail(msg, msgsize, "cannot write %s", raw);
  if (f && fclose(f) != 0 && rc == 0) rc = fail(msg, msgsize, "cannot write %s", raw);
  if (rc == 0 && mujoco_prepare_urdf(raw, path, 0) != 0)
    rc = fail(msg, msgsize, "cannot prepare the URDF written from the model");
  remove(raw);
  return rc;
}

bench_mj *bench_mj_open(const mb_model *mb, const bench_names *names, const char *urdf,
                        int floating_base, const char *keep_urdf, int nstates, char *msg,
                        size_t msgsize) {
  char tmp[512];
  const char *path = keep_urdf;
  if (!path) {
    if (temp_name(tmp, sizeof tmp, "mujoco") != 0)
      return fail(msg, msgsize, "no temporary file"), NULL;
    path = tmp;
  }
  mjModel *m = NULL;
  int rc = write_urdf(mb, names, urdf, floating_base, path, msg, msgsize);
  if (rc == 0) {
    char err[1000] = "";
    m = mj_loadXML(path, NULL, err, sizeof err);
    if (!m) {
      for (char *c = err; *c; c++)
        if (*c == '\n') *c = ' ';
      rc = fail(msg, msgsize, "MuJoCo does not load it: %s", err);
    }
  }
  int changed = 0;
  double dev = 0;
  if (rc == 0 && mujoco_set_inertias(m, path, 1, &changed, &dev) != 0)
    rc = fail(msg, msgsize, "a link of the URDF is no body of MuJoCo's");
  if (!keep_urdf) remove(tmp);
  if (rc != 0) {
    mj_deleteModel(m);
    return NULL;
  }
  /* the same rigid-body dynamics: no rotor inertia, no joint damping, friction or stiffness */
  m->opt.disableflags |= mjDSBL_CONSTRAINT | mjDSBL_PASSIVE | mjDSBL_ACTUATION;
  for (int k = 0; k < m->nv; k++)
    m->dof_armature[k] = 0, m->dof_damping[k] = 0, m->dof_frictionloss[k] = 0;
  for (int j = 0; j < m->njnt; j++) m->jnt_stiffness[j] = 0;
  for (int k = 0; k < 3; k++) m->opt.gravity[k] = mb->gravity[k];

  bench_mj *b = calloc(1, sizeof *b);
  b->m = m;
  if (mujoco_map_joints(m, mb->nq, mb->nv, names->nj, names->joint, names->iq, names->iv, &b->map,
                        msg, msgsize) != 0) {
    mj_deleteModel(m);
    free(b);
    return NULL;
  }
  int nv = m->nv, nq = m->nq;
  b->nq = nq, b->nv = nv, b->nstates = nstates;
  b->qpos = malloc((size_t)(nstates * nq) * sizeof(double));
  b->qvel = malloc((size_t)(nstates * nv) * sizeof(double));
  b->qacc = malloc((size_t)(nstates * nv) * sizeof(double));
  b->qfrc = malloc((size_t)(nstates * nv) * sizeof(double));
  b->R = malloc((size_t)(nstates * 9) * sizeof(double));
  b->v = malloc((size_t)(nstates * nv) * sizeof(double));
  b->eye = calloc((size_t)(nv * nv), sizeof(double));
  b->d = mj_makeData(m);
  for (int k = 0; k < nv; k++) b->eye[k * nv + k] = 1;
  return b;
}

void bench_mj_close(bench_mj *b) {
  if (!b) return;
  mj_deleteData(b->d);
  mj_deleteModel(b->m);
  mujoco_map_free(&b->map);
  free(b->qpos), free(b->qvel), free(b->qacc), free(b->qfrc), free(b->R), free(b->v);
  free(b->eye);
  free(b);
}

void bench_mj_set_state(bench_mj *b, int s, const double *base, const double *q, const double *v,
                        const double *a, const double *tau) {
  int nv = b->nv;
  double *R = b->R + 9 * s;
  if (base)
    memcpy(R, base, 9 * sizeof(double));
  else
    mujoco_map_base_R(&b->map, q, R);
  memcpy(b->v + s * nv, v, (size_t)nv * sizeof(double));
  mujoco_map_qpos(&b->map, q, base, b->qpos + s * b->nq);
  mujoco_map_vel(&b->map, R, v, b->qvel + s * nv);
  mujoco_map_acc(&b->map, R, v, a, b->qacc + s * nv);
  mujoco_map_vel(&b->map, R, tau, b->qfrc + s * nv); /* qfrc = T tau */
}

void bench_mj_rnea(bench_mj *b, int s, double *tau) {
  const mjModel *m = b->m;
  mjData *d = b->d;
  memcpy(d->qpos, b->qpos + s * b->nq, (size_t)b->nq * sizeof(double));
  memcpy(d->qvel, b->qvel + s * b->nv, (size_t)b->nv * sizeof(double));
  memcpy(d->qacc, b->qacc + s * b->nv, (size_t)b->nv * sizeof(double));
  mj_kinematics(m, d);
  mj_comPos(m, d);
  mj_comVel(m, d);
  mj_rne(m, d, 1, tau);
}

void bench_mj_crba(bench_mj *b, int s, double *M) {
  const mjModel *m = b->m;
  mjData *d = b->d;
  memcpy(d->qpos, b->qpos + s * b->nq, (size_t)b->nq * sizeof(double));
  mj_kinematics(m, d);
  mj_comPos(m, d);
  mj_crb(m, d);
  mj_fullM(m, M, d->qM);
}

void bench_mj_fd(bench_mj *b, int s, double *qdd) {
  const mjModel *m = b->m;
  mjData *d = b->d;
  const double *qfrc = b->qfrc + s * b->nv;
  memcpy(d->qpos, b->qpos + s * b->nq, (size_t)b->nq * sizeof(double));
  memcpy(d->qvel, b->qvel + s * b->nv, (size_t)b->nv * sizeof(double));
  mj_kinematics(m, d);
  mj_comPos(m, d);
  mj_comVel(m, d);
  mj_crb(m, d);
  mj_factorM(m, d);
  mj_rne(m, d, 0, d->qfrc_bias);
  for (int k = 0; k < b->nv; k++) qdd[k] = qfrc[k] - d->qfrc_bias[k];
  mj_solveM(m, d, qdd, qdd, 1);
}

void bench_mj_minv(bench_mj *b, int s, double *Minv) {
  const mjModel *m = b->m;
  mjData *d = b->d;
  memcpy(d->qpos, b->qpos + s * b->nq, (size_t)b->nq * sizeof(double));
  mj_kinematics(m, d);
  mj_comPos(m, d);
  mj_crb(m, d);
  mj_factorM(m, d);
  mj_solveM(m, d, Minv, b->eye, b->nv);
}

void bench_mj_force_to_mb(const bench_mj *b, int s, const double *in, double *out) {
  mujoco_unmap_force(&b->map, b->R + 9 * s, in, out);
}

void bench_mj_acc_to_mb(const bench_mj *b, int s, const double *in, double *out) {
  mujoco_unmap_acc(&b->map, b->R + 9 * s, b->v + s * b->nv, in, out);
}

/* M and M⁻¹ alike: Tᵀ X T (T orthogonal). */
void bench_mj_matrix_to_mb(const bench_mj *b, int s, const double *in, double *out) {
  mujoco_unmap_matrix(&b->map, b->R + 9 * s, in, out);
}

#else /* without MuJoCo: the column says so */

const char *bench_mj_version(void) { return "none"; }
bench_mj *bench_mj_open(const mb_model *mb, const bench_names *names, const char *urdf,
                        int floating_base, const char *keep_urdf, int nstates, char *msg,
                        size_t msgsize) {
  (void)mb, (void)names, (void)urdf, (void)floating_base, (void)keep_urdf, (void)nstates;
  snprintf(msg, msgsize, "built without MuJoCo (Debian package libmujoco-dev)");
  return NULL;
}
void bench_mj_close(bench_mj *b) { (void)b; }
void bench_mj_set_state(bench_mj *b, int s, const double *base, const double *q, const double *v,
                        const double *a, const double *tau) {
  (void)b, (void)s, (void)base, (void)q, (void)v, (void)a, (void)tau;
}
void bench_mj_rnea(bench_mj *b, int s, double *tau) { (void)b, (void)s, (void)tau; }
void bench_mj_crba(bench_mj *b, int s, double *M) { (void)b, (void)s, (void)M; }
void bench_mj_fd(bench_mj *b, int s, double *qdd) { (void)b, (void)s, (void)qdd; }
void bench_mj_minv(bench_mj *b, int s, double *Minv) { (void)b, (void)s, (void)Minv; }
void bench_mj_force_to_mb(const bench_mj *b, int s, const double *in, double *out) {
  (void)b, (void)s, (void)in, (void)out;
}
void bench_mj_acc_to_mb(const bench_mj *b, int s, const double *in, double *out) {
  (void)b, (void)s, (void)in, (void)out;
}
void bench_mj_matrix_to_mb(const bench_mj *b, int s, const double *in, double *out) {
  (void)b, (void)s, (void)in, (void)out;
}
#endif
