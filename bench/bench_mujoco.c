/* bench_mujoco.c — MuJoCo (Debian's libmujoco-dev, 2.2.2) as a peer of the generated code.
 *
 * MuJoCo reads the robot from URDF (mj_loadXML): the example's own URDF without meshes, or one
 * written from the runtime model (bench_urdf.c). Its passive terms are zeroed (armature, damping,
 * friction loss) and its gravity set to the model's, so it computes the same rigid-body dynamics.
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

#include "bench_peer.h"

#ifdef BENCH_HAVE_MUJOCO
#include <mujoco/mujoco.h>

struct bench_mj {
  const mb_model *mb;
  mjModel *m;
  mjData *d;
  int nq, nv, nj, nstates;
  int *jtype, *iq, *iv, *body; /* per moving joint of mbdc, in coordinate order */
  int *qadr, *dadr;            /* the same joint's first qpos and dof in MuJoCo */
  double *qpos, *qvel, *qacc, *qfrc; /* per state slot: nq, nv, nv, nv */
  double *R;                   /* per slot and joint: a free joint's body rotation (9) */
  double *v;                   /* per slot: mbdc's v (for the free joint's acceleration) */
  double *eye, *J, *tmp;       /* nv × nv: identity; coordinate change; scratch */
  mb_workspace ws;
  void *wsbuf;
  double *pose;
};

static int fail(char *msg, size_t msgsize, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (msg) vsnprintf(msg, msgsize, fmt, ap);
  va_end(ap);
  return -1;
}

const char *bench_mj_version(void) { return mj_versionString(); }

/* Write the URDF MuJoCo will read into path (a temporary file unless the caller keeps it). */
static int write_urdf(const mb_model *mb, const bench_names *names, const char *urdf, FILE *f,
                      char *msg, size_t msgsize) {
  if (!urdf) return bench_urdf_from_model(mb, names, f, msg, msgsize);
  const char *floating = NULL;
  if (mb->nb >= 1 && mb->jtype[1] == MB_JOINT_FLOATING && mb->parent[1] == 0)
    floating = names->joint[0];
  return bench_urdf_strip(urdf, floating, f, msg, msgsize);
}

static mjModel *load(const mb_model *mb, const bench_names *names, const char *urdf,
                     const char *keep, char *msg, size_t msgsize) {
  char tmp[] = "/tmp/mbdc_bench_XXXXXX";
  const char *path = keep;
  FILE *f;
  if (keep) {
    f = fopen(keep, "w");
  } else {
    int fd = mkstemp(tmp);
    f = fd >= 0 ? fdopen(fd, "w") : NULL;
    path = tmp;
  }
  if (!f) return fail(msg, msgsize, "cannot write a temporary URDF"), NULL;
  int rc = write_urdf(mb, names, urdf, f, msg, msgsize);
  if (fclose(f) != 0 && rc == 0) rc = fail(msg, msgsize, "cannot write %s", path);
  mjModel *m = NULL;
  if (rc == 0) {
    char err[1000] = "";
    m = mj_loadXML(path, NULL, err, sizeof err);
    if (!m) {
      for (char *c = err; *c; c++)
        if (*c == '\n') *c = ' ';
      fail(msg, msgsize, "MuJoCo does not load it: %s", err);
    }
  }
  if (!keep) remove(tmp);
  return m;
}

bench_mj *bench_mj_open(const mb_model *mb, const bench_names *names, const char *urdf,
                        const char *keep_urdf, int nstates, char *msg, size_t msgsize) {
  mjModel *m = load(mb, names, urdf, keep_urdf, msg, msgsize);
  if (!m) return NULL;
  if (m->nq != mb->nq || m->nv != mb->nv) {
    fail(msg, msgsize, "MuJoCo has nq %d, nv %d; mbdc %d, %d", m->nq, m->nv, mb->nq, mb->nv);
    mj_deleteModel(m);
    return NULL;
  }
  /* the same rigid-body dynamics: no rotor inertia, no joint damping or friction */
  for (int k = 0; k < m->nv; k++)
    m->dof_armature[k] = 0, m->dof_damping[k] = 0, m->dof_frictionloss[k] = 0;
  for (int k = 0; k < 3; k++) m->opt.gravity[k] = mb->gravity[k];

  bench_mj *b = calloc(1, sizeof *b);
  int nv = m->nv, nq = m->nq, nb = mb->nb;
  b->mb = mb, b->m = m, b->nq = nq, b->nv = nv, b->nstates = nstates;
  b->jtype = malloc((size_t)nb * sizeof(int)), b->iq = malloc((size_t)nb * sizeof(int));
  b->iv = malloc((size_t)nb * sizeof(int)), b->body = malloc((size_t)nb * sizeof(int));
  b->qadr = malloc((size_t)nb * sizeof(int)), b->dadr = malloc((size_t)nb * sizeof(int));
  b->qpos = malloc((size_t)(nstates * nq) * sizeof(double));
  b->qvel = malloc((size_t)(nstates * nv) * sizeof(double));
  b->qacc = malloc((size_t)(nstates * nv) * sizeof(double));
  b->qfrc = malloc((size_t)(nstates * nv) * sizeof(double));
  b->R = calloc((size_t)(nstates * nb * 9), sizeof(double));
  b->v = malloc((size_t)(nstates * nv) * sizeof(double));
  b->eye = calloc((size_t)(nv * nv), sizeof(double));
  b->J = malloc((size_t)(nv * nv) * sizeof(double));
  b->tmp = malloc((size_t)(nv * nv) * sizeof(double));
  b->wsbuf = malloc(mb_workspace_size(mb));
  b->pose = malloc((size_t)(12 * (nb + 1)) * sizeof(double));
  b->d = mj_makeData(m);
  for (int k = 0; k < nv; k++) b->eye[k * nv + k] = 1;
  mb_workspace_init(&b->ws, mb, b->wsbuf);

  /* mbdc's joints by name in MuJoCo, with matching types */
  int rc = 0;
  for (int i = 1; i <= nb && rc == 0; i++) {
    if (mb->jtype[i] == MB_JOINT_FIXED) continue;
    int k = b->nj++, want;
    const char *name = names->joint[k];
    int id = mj_name2id(m, mjOBJ_JOINT, name);
    b->jtype[k] = mb->jtype[i], b->iq[k] = mb->iq[i], b->iv[k] = mb->iv[i], b->body[k] = i;
    switch (mb->jtype[i]) {
    case MB_JOINT_REVOLUTE:
    case MB_JOINT_CONTINUOUS: want = mjJNT_HINGE; break;
    case MB_JOINT_PRISMATIC: want = mjJNT_SLIDE; break;
    case MB_JOINT_FLOATING: want = mjJNT_FREE; break;
    default: want = -1; break;
    }
    if (id < 0)
      rc = fail(msg, msgsize, "MuJoCo has no joint '%s'", name);
    else if ((int)m->jnt_type[id] != want)
      rc = fail(msg, msgsize, "MuJoCo's joint '%s' has another type", name);
    else if (want == mjJNT_FREE && mb->parent[i] != 0)
      rc = fail(msg, msgsize, "floating joint '%s' not on the world", name);
    else
      b->qadr[k] = m->jnt_qposadr[id], b->dadr[k] = m->jnt_dofadr[id];
  }
  if (rc != 0) {
    bench_mj_close(b);
    return NULL;
  }
  return b;
}

void bench_mj_close(bench_mj *b) {
  if (!b) return;
  mj_deleteData(b->d);
  mj_deleteModel(b->m);
  free(b->jtype), free(b->iq), free(b->iv), free(b->body), free(b->qadr), free(b->dadr);
  free(b->qpos), free(b->qvel), free(b->qacc), free(b->qfrc), free(b->R), free(b->v);
  free(b->eye), free(b->J), free(b->tmp), free(b->wsbuf), free(b->pose);
  free(b);
}

static void cross(const double a[3], const double x[3], double out[3]) {
  out[0] = a[1] * x[2] - a[2] * x[1];
  out[1] = a[2] * x[0] - a[0] * x[2];
  out[2] = a[0] * x[1] - a[1] * x[0];
}

void bench_mj_set_state(bench_mj *b, int s, const double *q, const double *v, const double *a,
                        const double *tau) {
  int nq = b->nq, nv = b->nv;
  double *qpos = b->qpos + s * nq, *qvel = b->qvel + s * nv, *qacc = b->qacc + s * nv;
  double *qfrc = b->qfrc + s * nv;
  mb_fk(b->mb, &b->ws, q, b->pose);
  memcpy(b->v + s * nv, v, (size_t)nv * sizeof(double));
  for (int k = 0; k < b->nj; k++) {
    int iq = b->iq[k], iv = b->iv[k], qa = b->qadr[k], da = b->dadr[k];
    if (b->jtype[k] != MB_JOINT_FLOATING) {
      qpos[qa] = q[iq], qvel[da] = v[iv], qacc[da] = a[iv], qfrc[da] = tau[iv];
      continue;
    }
    /* free joint: the body's world pose; world-frame linear velocity, force and the derivative
     * of the world-frame velocity d/dt (R v) = R (v̇ + ω × v); body-frame angular parts */
    const double *R = b->pose + 12 * b->body[k], *p = R + 9;
    double *Rs = b->R + 9 * (s * b->mb->nb + k), wxv[3], al[3];
    memcpy(Rs, R, 9 * sizeof(double));
    for (int c = 0; c < 3; c++) qpos[qa + c] = p[c];
    mju_mat2Quat(qpos + qa + 3, R);
    cross(v + iv + 3, v + iv, wxv);
    for (int c = 0; c < 3; c++) al[c] = a[iv + c] + wxv[c];
    mju_mulMatVec(qvel + da, R, v + iv, 3, 3);
    mju_mulMatVec(qacc + da, R, al, 3, 3);
    mju_mulMatVec(qfrc + da, R, tau + iv, 3, 3);
    for (int c = 3; c < 6; c++)
      qvel[da + c] = v[iv + c], qacc[da + c] = a[iv + c], qfrc[da + c] = tau[iv + c];
  }
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
  for (int k = 0; k < b->nj; k++) {
    int iv = b->iv[k], da = b->dadr[k];
    if (b->jtype[k] != MB_JOINT_FLOATING) {
      out[iv] = in[da];
      continue;
    }
    mju_mulMatTVec(out + iv, b->R + 9 * (s * b->mb->nb + k), in + da, 3, 3);
    for (int c = 3; c < 6; c++) out[iv + c] = in[da + c];
  }
}

void bench_mj_acc_to_mb(const bench_mj *b, int s, const double *in, double *out) {
  bench_mj_force_to_mb(b, s, in, out); /* Rᵀ on the free joint's linear part ... */
  for (int k = 0; k < b->nj; k++) {    /* ... minus ω × v there */
    if (b->jtype[k] != MB_JOINT_FLOATING) continue;
    const double *v = b->v + s * b->nv + b->iv[k];
    double wxv[3];
    cross(v + 3, v, wxv);
    for (int c = 0; c < 3; c++) out[b->iv[k] + c] -= wxv[c];
  }
}

/* qvel = J v with J a permutation, and R on a free joint's linear block: out = Jᵀ in J (J is
 * orthogonal, so this maps both M and M⁻¹). */
void bench_mj_matrix_to_mb(const bench_mj *b, int s, const double *in, double *out) {
  int nv = b->nv;
  double *J = b->J, *T = b->tmp;
  memset(J, 0, (size_t)(nv * nv) * sizeof(double));
  for (int k = 0; k < b->nj; k++) {
    int iv = b->iv[k], da = b->dadr[k];
    if (b->jtype[k] != MB_JOINT_FLOATING) {
      J[da * nv + iv] = 1;
      continue;
    }
    const double *R = b->R + 9 * (s * b->mb->nb + k);
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) J[(da + r) * nv + iv + c] = R[3 * r + c];
    for (int r = 3; r < 6; r++) J[(da + r) * nv + iv + r] = 1;
  }
  for (int i = 0; i < nv; i++) /* T = in J */
    for (int j = 0; j < nv; j++) {
      double x = 0;
      for (int k = 0; k < nv; k++) x += in[i * nv + k] * J[k * nv + j];
      T[i * nv + j] = x;
    }
  for (int i = 0; i < nv; i++) /* out = Jᵀ T */
    for (int j = 0; j < nv; j++) {
      double x = 0;
      for (int k = 0; k < nv; k++) x += J[k * nv + i] * T[k * nv + j];
      out[i * nv + j] = x;
    }
}

#else /* without MuJoCo: the column says so */

const char *bench_mj_version(void) { return "none"; }
bench_mj *bench_mj_open(const mb_model *mb, const bench_names *names, const char *urdf,
                        const char *keep_urdf, int nstates, char *msg, size_t msgsize) {
  (void)mb, (void)names, (void)urdf, (void)keep_urdf, (void)nstates;
  snprintf(msg, msgsize, "built without MuJoCo (Debian package libmujoco-dev)");
  return NULL;
}
void bench_mj_close(bench_mj *b) { (void)b; }
void bench_mj_set_state(bench_mj *b, int s, const double *q, const double *v, const double *a,
                        const double *tau) {
  (void)b, (void)s, (void)q, (void)v, (void)a, (void)tau;
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
