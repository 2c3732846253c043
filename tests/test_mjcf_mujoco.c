/* test_mjcf_mujoco.c — MJCF import against MuJoCo 2.2.2 (Debian's libmujoco-dev) loading the same
 * file: the four MuJoCo Menagerie models of examples/mjcf/ (their meshes stripped so that 2.2.2
 * loads them without assets; every body has an <inertial>).
 *
 * Reference: MuJoCo's mj_fullM (the joint-space mass matrix, armature on its diagonal) and
 * mj_inverse (qfrc_inverse = M qacc + bias forces) with passive forces and constraints disabled
 * (mjDSBL_PASSIVE, mjDSBL_CONSTRAINT: Cassie's connect equalities are loops, which the tree's M
 * and RNEA leave out, as MuJoCo's qM does). Ours: the runtime (runtime/mb.h, which every generated
 * function is checked against) on the model mbdc reads, with its armature (mb_model.armature: on
 * M's diagonal and armature · q̈ in τ) and with damping, friction and stiffness zeroed (MuJoCo's
 * passive forces are disabled). On NSTATES random states:
 *   M     crba(q), armature included          against mj_fullM
 *   RNEA  rnea(q, v, a), armature included    against qfrc_inverse
 *   bias  rnea(q, v, 0)                        against qfrc_bias
 * as max |ours − MuJoCo| / max |MuJoCo|, which must stay below 1e-9. Joints are matched by name:
 * the model's name is MuJoCo's with every character that is not a letter, digit or '_' made '_'
 * (docs/mjcf.md "Names"); MuJoCo's unnamed free joint is BODY_joint. Coordinates: hinges and
 * slides one to one (the reader folds ref into the joint frame: the model's q is qpos); a ball
 * joint's quaternion is [w x y z] in MuJoCo, [x y z w] here, its velocity the child frame's
 * angular velocity in both; a free joint as tests/test_mujoco.c and mujoco_peer/mujoco_model.h
 * say (qvel = T v, T = diag(R, 1₃), qacc = T a + [R (ω × v_lin); 0], τ = Tᵀ qfrc,
 * M = Tᵀ M_mj T). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "load/load.h"
#include "topology/rtmodel.h"
#include "topology/topology.h"

enum { NSTATES = 50, MAXV = 64 };
static const double BOUND = 1e-9;

typedef struct cmap {
  int nv, nq, nj;
  int iq[MAXV], iv[MAXV], qadr[MAXV], vadr[MAXV], kind[MAXV]; /* kind: mjtJoint */
  double arm[MAXV];                                             /* per dof, ours */
  int free_iq;
} cmap;

static double uniform(unsigned long long *s, double lo, double hi) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return lo + (hi - lo) * (double)((*s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static void c_ident(const char *in, char *out, size_t size) {
  size_t n = 0;
  for (const char *p = in; *p && n + 1 < size; p++) {
    char c = *p;
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out[n++] = ok ? c : '_';
  }
  out[n] = '\0';
}

/* MuJoCo's joint of our model joint `name`, or -1. */
static int mj_joint(const mjModel *m, const char *name) {
  char id[256], body[240];
  for (int j = 0; j < m->njnt; j++) {
    const char *n = m->names + m->name_jntadr[j];
    if (*n) {
      c_ident(n, id, sizeof id);
    } else {
      c_ident(m->names + m->name_bodyadr[m->jnt_bodyid[j]], body, sizeof body);
      snprintf(id, sizeof id, "%s_joint", body);
    }
    if (strcmp(id, name) == 0) return j;
  }
  return -1;
}

static int build_map(const mbg_model *mm, const mbg_topology *t, const mjModel *m, cmap *c) {
  memset(c, 0, sizeof *c);
  c->nq = t->nq, c->nv = t->nv, c->free_iq = -1;
  if (t->nv != m->nv || t->nq != m->nq || t->nv > MAXV)
    return fprintf(stderr, "nq/nv %d/%d against MuJoCo's %d/%d\n", t->nq, t->nv, m->nq, m->nv), -1;
  for (int i = 1; i <= t->nb; i++) {
    const mbg_joint *J = &mm->joints[t->body[i].model_joint];
    int j = mj_joint(m, J->name), k = c->nj++;
    if (j < 0) return fprintf(stderr, "joint %s: not in MuJoCo's model\n", J->name), -1;
    c->iq[k] = t->body[i].iq, c->iv[k] = t->body[i].iv;
    c->qadr[k] = m->jnt_qposadr[j], c->vadr[k] = m->jnt_dofadr[j], c->kind[k] = m->jnt_type[j];
    if (c->kind[k] == mjJNT_FREE) c->free_iq = c->iq[k];
    for (int d = 0; d < t->body[i].nv; d++) c->arm[c->iv[k] + d] = J->armature;
  }
  return 0;
}

/* R (row-major, body to world) of the free joint's quaternion [x y z w] in q; identity without. */
static void base_R(const cmap *c, const double *q, double R[9]) {
  double w = 1, x = 0, y = 0, z = 0;
  if (c->free_iq >= 0) {
    const double *u = q + c->free_iq + 3;
    double n = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2] + u[3] * u[3]);
    x = u[0] / n, y = u[1] / n, z = u[2] / n, w = u[3] / n;
  }
  double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                 2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                 2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)};
  memcpy(R, r, sizeof r);
}

static void to_qpos(const cmap *c, const double *q, double *qpos) {
  for (int k = 0; k < c->nj; k++) {
    const double *u = q + c->iq[k];
    double *p = qpos + c->qadr[k];
    if (c->kind[k] == mjJNT_FREE) {
      double v[7] = {u[0], u[1], u[2], u[6], u[3], u[4], u[5]};
      memcpy(p, v, sizeof v);
    } else if (c->kind[k] == mjJNT_BALL) {
      double v[4] = {u[3], u[0], u[1], u[2]};
      memcpy(p, v, sizeof v);
    } else {
      p[0] = u[0];
    }
  }
}

/* out = T x (forward: velocities, forces) or Tᵀ x (back), dof vectors; + bias when given. */
static void map_dofs(const cmap *c, const double R[9], const double *x, double *out, int back) {
  for (int k = 0; k < c->nj; k++) {
    int n = c->kind[k] == mjJNT_FREE ? 6 : c->kind[k] == mjJNT_BALL ? 3 : 1;
    const double *a = x + (back ? c->vadr[k] : c->iv[k]);
    double *b = out + (back ? c->iv[k] : c->vadr[k]);
    for (int d = 0; d < n; d++) b[d] = a[d];
    if (c->kind[k] != mjJNT_FREE) continue;
    for (int i = 0; i < 3; i++)
      b[i] = back ? R[i] * a[0] + R[3 + i] * a[1] + R[6 + i] * a[2]
                  : R[3 * i] * a[0] + R[3 * i + 1] * a[1] + R[3 * i + 2] * a[2];
  }
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

/* Cyclic Jacobi: A (symmetric 3 × 3, row-major) = V diag(l) Vᵀ, V a rotation (det +1). */
static void jacobi3(const double A0[9], double l[3], double V[9]) {
  double A[9];
  memcpy(A, A0, sizeof A);
  for (int i = 0; i < 9; i++) V[i] = i % 4 == 0;
  for (int sweep = 0; sweep < 50; sweep++) {
    double off = fabs(A[1]) + fabs(A[2]) + fabs(A[5]);
    if (off == 0) break;
    for (int p = 0; p < 2; p++)
      for (int q = p + 1; q < 3; q++) {
        double apq = A[3 * p + q];
        if (apq == 0) continue;
        double th = (A[3 * q + q] - A[3 * p + p]) / (2 * apq);
        double t = (th >= 0 ? 1 : -1) / (fabs(th) + sqrt(th * th + 1));
        double c = 1 / sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < 3; k++) { /* A = Jᵀ A J, V = V J */
          double akp = A[3 * k + p], akq = A[3 * k + q];
          A[3 * k + p] = c * akp - s * akq, A[3 * k + q] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; k++) {
          double apk = A[3 * p + k], aqk = A[3 * q + k];
          A[3 * p + k] = c * apk - s * aqk, A[3 * q + k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 3; k++) {
          double vkp = V[3 * k + p], vkq = V[3 * k + q];
          V[3 * k + p] = c * vkp - s * vkq, V[3 * k + q] = s * vkp + c * vkq;
        }
      }
  }
  for (int k = 0; k < 3; k++) l[k] = A[4 * k];
  double det = V[0] * (V[4] * V[8] - V[5] * V[7]) - V[1] * (V[3] * V[8] - V[5] * V[6]) +
               V[2] * (V[3] * V[7] - V[4] * V[6]);
  if (det < 0)
    for (int k = 0; k < 3; k++) V[3 * k + 2] = -V[3 * k + 2];
}

/* "exact": MuJoCo's principal inertias and axes set from the model mbdc read, diagonalized here
 * to rounding, instead of those its compiler made (it diagonalizes a fullinertia with an
 * eigen-solver tolerance near 1e-12, which is the whole difference measured "as compiled").
 * Needs MuJoCo's bodies in the model's order (no body of several joints). 0, or -1. */
static int set_inertias(const mbg_model *mm, mjModel *m) {
  if (mm->nbodies != m->nbody) return -1;
  for (int b = 1; b < m->nbody; b++) {
    const double *I = mm->bodies[b].inertia;
    double A[9] = {I[0], I[3], I[4], I[3], I[1], I[5], I[4], I[5], I[2]}, l[3], V[9];
    jacobi3(A, l, V);
    mjtNum mat[9], quat[4];
    for (int k = 0; k < 9; k++) mat[k] = V[k];
    mju_mat2Quat(quat, mat);
    for (int k = 0; k < 4; k++) m->body_iquat[4 * b + k] = quat[k];
    for (int k = 0; k < 3; k++) m->body_inertia[3 * b + k] = l[k];
  }
  return 0;
}

/* Tᵀ X T of MuJoCo's matrix X into ours (both nv × nv, row-major). */
static void map_matrix(const cmap *c, const double R[9], const double *X, double *out) {
  int n = c->nv;
  double *A = malloc(sizeof(double) * (size_t)(n * n)), col[MAXV], res[MAXV];
  if (!A) abort();
  for (int j = 0; j < n; j++) { /* A = Tᵀ X, column by column */
    for (int i = 0; i < n; i++) col[i] = X[n * i + j];
    map_dofs(c, R, col, res, 1);
    for (int i = 0; i < n; i++) A[n * i + j] = res[i];
  }
  for (int i = 0; i < n; i++) map_dofs(c, R, A + n * i, out + n * i, 1); /* (Tᵀ Aᵀ)ᵀ = A T */
  free(A);
}

/* A random state: q on the joints' manifolds, v and a in [-1, 1]. */
static void random_state(const cmap *c, unsigned long long *s, double *q, double *v, double *a) {
  for (int k = 0; k < c->nj; k++) {
    double *u = q + c->iq[k], n2;
    if (c->kind[k] == mjJNT_FREE || c->kind[k] == mjJNT_BALL) {
      int o = c->kind[k] == mjJNT_FREE ? 3 : 0;
      for (int i = 0; i < o; i++) u[i] = uniform(s, -1, 1);
      do {
        n2 = 0;
        for (int i = o; i < o + 4; i++) u[i] = uniform(s, -1, 1), n2 += u[i] * u[i];
      } while (n2 < 0.01 || n2 > 1);
      for (int i = o; i < o + 4; i++) u[i] /= sqrt(n2);
    } else {
      u[0] = uniform(s, -3.14159, 3.14159) * (c->kind[k] == mjJNT_SLIDE ? 0.1 : 1);
    }
  }
  for (int k = 0; k < c->nv; k++) v[k] = uniform(s, -1, 1), a[k] = uniform(s, -1, 1);
}

/* MuJoCo's qacc of our (v, a): T a + [R (ω × v_lin); 0] on the free joint. */
static void to_qacc(const cmap *c, const double R[9], const double *v, const double *a,
                    double *qacc) {
  map_dofs(c, R, a, qacc, 0);
  for (int k = 0; k < c->nj; k++) {
    if (c->kind[k] != mjJNT_FREE) continue;
    const double *l = v + c->iv[k], *w = l + 3;
    double x[3] = {w[1] * l[2] - w[2] * l[1], w[2] * l[0] - w[0] * l[2], w[0] * l[1] - w[1] * l[0]};
    for (int i = 0; i < 3; i++)
      qacc[c->vadr[k] + i] += R[3 * i] * x[0] + R[3 * i + 1] * x[1] + R[3 * i + 2] * x[2];
  }
}

typedef struct runtime {
  mbg_model *m;
  mbg_topology *t;
  mbg_rtmodel rt;
  mb_workspace ws;
  void *buf;
} runtime;

static int load_ours(const char *path, runtime *r) {
  int errors = 0, warnings = 0;
  mbg_load_opts o = {.quiet = 1};
  r->m = mbg_load(path, &o, stderr, &errors, &warnings);
  if (!r->m) return -1;
  mbg_model copy = *r->m; /* the joints' passive properties zeroed: the armature is kept */
  mbg_joint *joints = malloc(sizeof *joints * (size_t)(r->m->njoints + 1));
  if (!joints) abort();
  memcpy(joints, r->m->joints, sizeof *joints * (size_t)r->m->njoints);
  for (int j = 0; j < r->m->njoints; j++)
    joints[j].damping = joints[j].friction = joints[j].stiffness = 0; /* MuJoCo's are disabled */
  copy.joints = joints;
  r->t = mbg_topology_build(&copy);
  int ok = r->t && mbg_rtmodel_build(&copy, r->t, &r->rt) == 0;
  free(joints);
  if (!ok) return -1;
  r->buf = malloc(mb_workspace_size(&r->rt.model));
  if (!r->buf) abort();
  memset(&r->ws, 0, sizeof r->ws);
  return mb_workspace_init(&r->ws, &r->rt.model, r->buf) == MB_OK ? 0 : -1;
}

static void free_ours(runtime *r) {
  mbg_rtmodel_free(&r->rt);
  mbg_topology_free(r->t);
  mbg_model_free(r->m);
  free(r->buf);
}

/* The worst relative errors of M, RNEA and bias over NSTATES states. */
static int compare(runtime *r, mjModel *m, mjData *d, double worst[3]) {
  cmap c;
  if (build_map(r->m, r->t, m, &c) != 0) return -1;
  int nv = c.nv;
  for (int k = 0; k < nv; k++) /* the runtime's armature is the file's, dof by dof */
    if (mb_armature(&r->rt.model, k) != c.arm[k]) return -1;
  double q[MAXV + 8], v[MAXV], a[MAXV], zero[MAXV] = {0}, tau[MAXV], ref[MAXV], R[9];
  double *Mo = malloc(sizeof(double) * (size_t)(3 * nv * nv)), *Mm = Mo + nv * nv,
         *Mr = Mm + nv * nv;
  if (!Mo) abort();
  unsigned long long s = 20260411u;
  worst[0] = worst[1] = worst[2] = 0;
  for (int n = 0; n < NSTATES; n++) {
    random_state(&c, &s, q, v, a);
    base_R(&c, q, R);
    for (int pass = 0; pass < 2; pass++) { /* RNEA, then the bias forces (a = 0) */
      const double *acc = pass ? zero : a;
      to_qpos(&c, q, d->qpos);
      map_dofs(&c, R, v, d->qvel, 0);
      to_qacc(&c, R, v, acc, d->qacc);
      mj_inverse(m, d);
      map_dofs(&c, R, d->qfrc_inverse, ref, 1);
      if (mb_rnea(&r->rt.model, &r->ws, q, v, acc, NULL, tau) != MB_OK) return free(Mo), -1;
      double e = rel_error(tau, ref, nv);
      if (!(e <= worst[1 + pass])) worst[1 + pass] = e;
    }
    mj_fullM(m, Mm, d->qM);
    map_matrix(&c, R, Mm, Mr);
    if (mb_crba(&r->rt.model, &r->ws, q, Mo) != MB_OK) return free(Mo), -1;
    double e = rel_error(Mo, Mr, nv * nv);
    if (!(e <= worst[0])) worst[0] = e;
  }
  free(Mo);
  return 0;
}

static const char *const models[] = {"agility_cassie/cassie.xml", "franka_emika_panda/panda.xml",
                                     "unitree_go1/go1.xml", "unitree_h1/h1.xml"};

/* The bound with MuJoCo's own inertias, per model (measured, rounded up to 1, 2 or 5: see
 * docs/mjcf.md): Cassie's and the Panda's inertias are fullinertia, which MuJoCo diagonalizes. */
static const double compiled[] = {1e-9, 1e-7, 1e-9, 1e-9};

int main(void) {
  const char *src = getenv("MBDC_SOURCE_DIR");
  int failed = 0;
  for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
    char path[1024], err[1000] = "";
    snprintf(path, sizeof path, "%s/examples/mjcf/%s", src && *src ? src : ".", models[i]);
    runtime r;
    memset(&r, 0, sizeof r);
    mjModel *m = mj_loadXML(path, NULL, err, sizeof err);
    if (!m || load_ours(path, &r) != 0) {
      printf("FAIL %s: %s\n", models[i], m ? "mbdc cannot load it" : err);
      failed = 1;
      if (m) mj_deleteModel(m);
      continue;
    }
    m->opt.disableflags |= mjDSBL_PASSIVE | mjDSBL_CONSTRAINT;
    mjData *d = mj_makeData(m);
    double w[3], c[3];
    int rc = compare(&r, m, d, c); /* as MuJoCo compiled the inertias */
    rc |= set_inertias(r.m, m);
    rc |= compare(&r, m, d, w); /* exact */
    int ok = rc == 0 && w[0] <= BOUND && w[1] <= BOUND && w[2] <= BOUND && c[0] <= compiled[i] &&
             c[1] <= compiled[i] && c[2] <= compiled[i];
    printf("%s %-28s nq %2d nv %2d  exact: M %.1e RNEA %.1e bias %.1e (bound %.0e); as "
           "compiled: %.1e %.1e %.1e (bound %.0e)\n", ok ? "ok  " : "FAIL", models[i], m->nq,
           m->nv, w[0], w[1], w[2], BOUND, c[0], c[1], c[2], compiled[i]);
    failed |= !ok;
    mj_deleteData(d);
    mj_deleteModel(m);
    free_ours(&r);
  }
  return failed;
}
