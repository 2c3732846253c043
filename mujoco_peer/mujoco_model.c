/* mujoco_model.c — MuJoCo 2.2.2 as the reference of tests/test_mujoco.c and bench/: a copy of a
 * URDF that MuJoCo reads as the same rigid-body system, the inertias of its bodies set exactly,
 * and the map between mbdc's coordinates and MuJoCo's.
 *
 * The copy (written with libxml2 beside the build): <visual> and <collision> removed (their meshes
 * are not here, and MuJoCo would derive inertias from geoms); a <mujoco><compiler> element that
 * keeps every link a body of its own (fusestatic="false"), takes inertias only from <inertial>
 * (inertiafromgeom="false"), and balances only the inertias MuJoCo cannot represent otherwise
 * (balanceinertia="true": those breaking the triangle inequality, which mujoco_set_inertia then
 * sets back to the URDF's); with a floating base, a link `world` and a `floating` joint
 * `root_joint` to the root link (MuJoCo makes it a free joint). */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mujoco_model.h"

static int is_elem(xmlNodePtr n, const char *name) {
  return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static xmlNodePtr child(xmlNodePtr n, const char *name) {
  for (xmlNodePtr c = n->children; c; c = c->next)
    if (is_elem(c, name)) return c;
  return NULL;
}

static void numbers(xmlNodePtr n, const char *attr, double *v, int count) {
  xmlChar *s = n ? xmlGetProp(n, (const xmlChar *)attr) : NULL;
  char *p = (char *)s;
  for (int k = 0; p && k < count; k++) v[k] = strtod(p, &p);
  xmlFree(s);
}

/* The root link: the first link that is no joint's child. */
static xmlChar *root_link(xmlNodePtr robot) {
  for (xmlNodePtr l = robot->children; l; l = l->next) {
    if (!is_elem(l, "link")) continue;
    xmlChar *name = xmlGetProp(l, (const xmlChar *)"name");
    int is_child = 0;
    for (xmlNodePtr j = robot->children; j && !is_child; j = j->next) {
      xmlNodePtr c = is_elem(j, "joint") ? child(j, "child") : NULL;
      xmlChar *cn = c ? xmlGetProp(c, (const xmlChar *)"link") : NULL;
      is_child = cn && xmlStrEqual(cn, name);
      xmlFree(cn);
    }
    if (!is_child) return name;
    xmlFree(name);
  }
  return NULL;
}

int mujoco_prepare_urdf(const char *in, const char *out, int floating_base) {
  xmlDocPtr doc = xmlReadFile(in, NULL, XML_PARSE_NONET | XML_PARSE_NOBLANKS);
  if (!doc) return -1;
  xmlNodePtr robot = xmlDocGetRootElement(doc);
  for (xmlNodePtr l = robot->children; l; l = l->next) {
    if (!is_elem(l, "link")) continue;
    for (xmlNodePtr c = l->children, next; c; c = next) {
      next = c->next;
      if (is_elem(c, "visual") || is_elem(c, "collision")) {
        xmlUnlinkNode(c);
        xmlFreeNode(c);
      }
    }
  }
  xmlNodePtr mj = xmlNewNode(NULL, (const xmlChar *)"mujoco");
  xmlNodePtr comp = xmlNewChild(mj, NULL, (const xmlChar *)"compiler", NULL);
  xmlNewProp(comp, (const xmlChar *)"fusestatic", (const xmlChar *)"false");
  xmlNewProp(comp, (const xmlChar *)"inertiafromgeom", (const xmlChar *)"false");
  xmlNewProp(comp, (const xmlChar *)"balanceinertia", (const xmlChar *)"true");
  xmlNewProp(comp, (const xmlChar *)"discardvisual", (const xmlChar *)"true");
  if (robot->children)
    xmlAddPrevSibling(robot->children, mj);
  else
    xmlAddChild(robot, mj);
  if (floating_base) {
    xmlChar *root = root_link(robot);
    xmlNodePtr w = xmlNewChild(robot, NULL, (const xmlChar *)"link", NULL);
    xmlNewProp(w, (const xmlChar *)"name", (const xmlChar *)"world");
    xmlNodePtr j = xmlNewChild(robot, NULL, (const xmlChar *)"joint", NULL);
    xmlNewProp(j, (const xmlChar *)"name", (const xmlChar *)"root_joint");
    xmlNewProp(j, (const xmlChar *)"type", (const xmlChar *)"floating");
    xmlNewProp(xmlNewChild(j, NULL, (const xmlChar *)"parent", NULL), (const xmlChar *)"link",
               (const xmlChar *)"world");
    xmlNewProp(xmlNewChild(j, NULL, (const xmlChar *)"child", NULL), (const xmlChar *)"link", root);
    xmlFree(root);
  }
  int rc = xmlSaveFormatFile(out, doc, 1) < 0 ? -1 : 0;
  xmlFreeDoc(doc);
  return rc;
}

/* ----------------------------------------------------------------------------- inertias */

/* Eigen-decomposition of a symmetric 3x3 A = V diag(lam) Vᵀ by cyclic Jacobi rotations, to
 * rounding: V's columns are the eigenvectors, det V = +1. */
static void jacobi3(const double A0[9], double lam[3], double V[9]) {
  double A[9];
  memcpy(A, A0, sizeof A);
  for (int k = 0; k < 9; k++) V[k] = (k % 4 == 0);
  for (int sweep = 0; sweep < 50; sweep++) {
    double off = fabs(A[1]) + fabs(A[2]) + fabs(A[5]);
    if (off == 0.0) break;
    for (int p = 0; p < 2; p++)
      for (int q = p + 1; q < 3; q++) {
        double apq = A[3 * p + q];
        if (apq == 0.0) continue;
        double theta = (A[3 * q + q] - A[3 * p + p]) / (2 * apq);
        double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
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
  for (int k = 0; k < 3; k++) lam[k] = A[4 * k];
  double det = V[0] * (V[4] * V[8] - V[5] * V[7]) - V[1] * (V[3] * V[8] - V[5] * V[6]) +
               V[2] * (V[3] * V[7] - V[4] * V[6]);
  if (det < 0)
    for (int k = 0; k < 3; k++) V[3 * k + 2] = -V[3 * k + 2];
}

/* Rotation matrix (row-major) → unit quaternion w x y z. */
static void mat2quat(const double R[9], double q[4]) {
  double tr = R[0] + R[4] + R[8];
  if (tr > 0) {
    double s = 2 * sqrt(tr + 1);
    q[0] = s / 4, q[1] = (R[7] - R[5]) / s, q[2] = (R[2] - R[6]) / s, q[3] = (R[3] - R[1]) / s;
  } else if (R[0] > R[4] && R[0] > R[8]) {
    double s = 2 * sqrt(1 + R[0] - R[4] - R[8]);
    q[0] = (R[7] - R[5]) / s, q[1] = s / 4, q[2] = (R[1] + R[3]) / s, q[3] = (R[2] + R[6]) / s;
  } else if (R[4] > R[8]) {
    double s = 2 * sqrt(1 + R[4] - R[0] - R[8]);
    q[0] = (R[2] - R[6]) / s, q[1] = (R[1] + R[3]) / s, q[2] = s / 4, q[3] = (R[5] + R[7]) / s;
  } else {
    double s = 2 * sqrt(1 + R[8] - R[0] - R[4]);
    q[0] = (R[3] - R[1]) / s, q[1] = (R[2] + R[6]) / s, q[2] = (R[5] + R[7]) / s, q[3] = s / 4;
  }
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int k = 0; k < 4; k++) q[k] /= n;
}

/* R = Rz(y) Ry(p) Rx(r), row-major (URDF's rpy). */
static void rpy2mat(const double rpy[3], double R[9]) {
  double cr = cos(rpy[0]), sr = sin(rpy[0]), cp = cos(rpy[1]), sp = sin(rpy[1]);
  double cy = cos(rpy[2]), sy = sin(rpy[2]);
  double M[9] = {cy * cp,
                 cy * sp * sr - sy * cr,
                 cy * sp * cr + sy * sr,
                 sy * cp,
                 sy * sp * sr + cy * cr,
                 sy * sp * cr - cy * sr,
                 -sp,
                 cp * sr,
                 cp * cr};
  memcpy(R, M, sizeof M);
}

/* The URDF tensor of a link in link axes, R I Rᵀ, against MuJoCo's body frame Q diag(λ) Qᵀ: the
 * largest entry difference relative to the largest entry. */
static double deviation(const mjModel *m, int b, const double R[9], const double A[9]) {
  double Q[9], U[9], B[9], err = 0, scale = 0;
  mju_quat2Mat(Q, m->body_iquat + 4 * b);
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) {
      double x = 0, y = 0;
      for (int l = 0; l < 3; l++) x += Q[3 * i + l] * m->body_inertia[3 * b + l] * Q[3 * k + l];
      U[3 * i + k] = x;
      for (int l = 0; l < 3; l++)
        for (int n = 0; n < 3; n++) y += R[3 * i + l] * A[3 * l + n] * R[3 * k + n];
      B[3 * i + k] = y;
    }
  for (int k = 0; k < 9; k++) {
    if (fabs(U[k] - B[k]) > err) err = fabs(U[k] - B[k]);
    if (fabs(B[k]) > scale) scale = fabs(B[k]);
  }
  return scale > 0 ? err / scale : err;
}

int mujoco_set_inertias(mjModel *m, const char *urdf, int all, int *changed, double *dev) {
  xmlDocPtr doc = xmlReadFile(urdf, NULL, XML_PARSE_NONET);
  if (!doc) return -1;
  *changed = 0;
  *dev = 0;
  int rc = 0;
  for (xmlNodePtr l = xmlDocGetRootElement(doc)->children; l; l = l->next) {
    xmlNodePtr in = is_elem(l, "link") ? child(l, "inertial") : NULL;
    if (!in) continue;
    xmlChar *name = xmlGetProp(l, (const xmlChar *)"name");
    int b = mj_name2id(m, mjOBJ_BODY, (const char *)name);
    xmlFree(name);
    if (b <= 0) {
      rc = b == 0 ? rc : -1; /* a link named world is MuJoCo's world */
      continue;
    }
    double xyz[3] = {0, 0, 0}, rpy[3] = {0, 0, 0}, mass = 0, I[6] = {0, 0, 0, 0, 0, 0};
    numbers(child(in, "origin"), "xyz", xyz, 3);
    numbers(child(in, "origin"), "rpy", rpy, 3);
    numbers(child(in, "mass"), "value", &mass, 1);
    static const char *const attr[6] = {"ixx", "iyy", "izz", "ixy", "ixz", "iyz"};
    for (int k = 0; k < 6; k++) numbers(child(in, "inertia"), attr[k], &I[k], 1);
    double A[9] = {I[0], I[3], I[4], I[3], I[1], I[5], I[4], I[5], I[2]}, lam[3], V[9], R[9], F[9];
    jacobi3(A, lam, V);
    int sorted[3] = {0, 1, 2}; /* ascending, so the triangle test reads lam[0] + lam[1] < lam[2] */
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2 - i; j++)
        if (lam[sorted[j]] > lam[sorted[j + 1]]) {
          int t = sorted[j];
          sorted[j] = sorted[j + 1], sorted[j + 1] = t;
        }
    int violates = lam[sorted[0]] + lam[sorted[1]] < lam[sorted[2]];
    rpy2mat(rpy, R);
    if (!all && !violates) {
      double e = deviation(m, b, R, A);
      if (e > *dev) *dev = e;
      continue;
    }
    for (int i = 0; i < 3; i++) /* F = R V: the principal axes in link coordinates */
      for (int k = 0; k < 3; k++)
        F[3 * i + k] = R[3 * i] * V[k] + R[3 * i + 1] * V[3 + k] + R[3 * i + 2] * V[6 + k];
    m->body_mass[b] = mass;
    for (int k = 0; k < 3; k++)
      m->body_ipos[3 * b + k] = xyz[k], m->body_inertia[3 * b + k] = lam[k];
    mat2quat(F, m->body_iquat + 4 * b);
    (*changed)++;
  }
  xmlFreeDoc(doc);
  return rc;
}

/* ----------------------------------------------------------------------------- coordinates */

static int map_fail(char *msg, size_t msgsize, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (msg) vsnprintf(msg, msgsize, fmt, ap);
  va_end(ap);
  return -1;
}

int mujoco_map_joints(const mjModel *m, int nq, int nv, int nj, const char *const *names,
                      const int *iq, const int *iv, mujoco_map *map, char *msg, size_t msgsize) {
  memset(map, 0, sizeof *map);
  map->free_joint = -1;
  if (m->nv != nv || m->nq != nq)
    return map_fail(msg, msgsize, "MuJoCo has nq %d, nv %d; mbdc %d, %d", m->nq, m->nv, nq, nv);
  size_t n = nj > 0 ? (size_t)nj : 1;
  map->nq = nq, map->nv = nv, map->nj = nj;
  map->iq = malloc(n * sizeof(int)), map->iv = malloc(n * sizeof(int));
  map->qadr = malloc(n * sizeof(int)), map->vadr = malloc(n * sizeof(int));
  map->dof_joint = malloc((nv > 0 ? (size_t)nv : 1) * sizeof(int));
  for (int j = 0; j < nj; j++) {
    int id = mj_name2id(m, mjOBJ_JOINT, names[j]);
    if (id < 0)
      return mujoco_map_free(map), map_fail(msg, msgsize, "MuJoCo has no joint '%s'", names[j]);
    int ndof = (j + 1 < nj ? iv[j + 1] : nv) - iv[j];
    int type = m->jnt_type[id];
    int want = type == mjJNT_FREE ? 6 : type == mjJNT_BALL ? 3 : 1;
    if (ndof != want || type == mjJNT_BALL) /* URDF has no spherical joint */
      return mujoco_map_free(map), map_fail(msg, msgsize, "joint '%s': the types differ", names[j]);
    if (type == mjJNT_FREE) map->free_joint = j;
    map->iq[j] = iq[j], map->iv[j] = iv[j];
    map->qadr[j] = m->jnt_qposadr[id], map->vadr[j] = m->jnt_dofadr[id];
    for (int k = 0; k < ndof; k++) map->dof_joint[iv[j] + k] = j;
  }
  return 0;
}

void mujoco_map_free(mujoco_map *map) {
  free(map->iq), free(map->iv), free(map->qadr), free(map->vadr), free(map->dof_joint);
  map->iq = map->iv = map->qadr = map->vadr = map->dof_joint = NULL;
}

void mujoco_map_base_R(const mujoco_map *map, const double *q, double R[9]) {
  if (map->free_joint < 0) {
    for (int k = 0; k < 9; k++) R[k] = (k % 4 == 0);
    return;
  }
  const double *qj = q + map->iq[map->free_joint] + 3;
  double x = qj[0], y = qj[1], z = qj[2], w = qj[3];
  double M[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                 2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                 2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  memcpy(R, M, sizeof M);
}

void mujoco_map_qpos(const mujoco_map *map, const double *q, const double *base, double *qpos) {
  for (int j = 0; j < map->nj; j++) {
    const double *qj = q + map->iq[j];
    double *mq = qpos + map->qadr[j];
    if (j != map->free_joint) {
      mq[0] = qj[0];
    } else if (base) {
      for (int k = 0; k < 3; k++) mq[k] = base[9 + k];
      mat2quat(base, mq + 3);
    } else {
      mq[0] = qj[0], mq[1] = qj[1], mq[2] = qj[2];
      mq[3] = qj[6], mq[4] = qj[3], mq[5] = qj[4], mq[6] = qj[5]; /* w x y z */
    }
  }
}

/* Column i of T (our dof i): its n MuJoCo dofs idx and weights w. */
static int column(const mujoco_map *map, const double R[9], int i, int idx[3], double w[3]) {
  int j = map->dof_joint[i], c = i - map->iv[j];
  if (j == map->free_joint && c < 3) {
    for (int a = 0; a < 3; a++) idx[a] = map->vadr[j] + a, w[a] = R[3 * a + c];
    return 3;
  }
  idx[0] = map->vadr[j] + c, w[0] = 1;
  return 1;
}

void mujoco_map_vel(const mujoco_map *map, const double R[9], const double *v, double *qvel) {
  int idx[3];
  double w[3];
  for (int k = 0; k < map->nv; k++) qvel[k] = 0;
  for (int i = 0; i < map->nv; i++)
    for (int n = column(map, R, i, idx, w), a = 0; a < n; a++) qvel[idx[a]] += w[a] * v[i];
}

/* Ṫ v: R (ω × v_lin) on the free joint's linear dofs, in MuJoCo's dofs (zero elsewhere). */
static void tdot_v(const mujoco_map *map, const double R[9], const double *v, double *out) {
  for (int k = 0; k < map->nv; k++) out[k] = 0;
  if (map->free_joint < 0) return;
  const double *vl = v + map->iv[map->free_joint], *om = vl + 3;
  double c[3] = {om[1] * vl[2] - om[2] * vl[1], om[2] * vl[0] - om[0] * vl[2],
                 om[0] * vl[1] - om[1] * vl[0]};
  for (int a = 0; a < 3; a++)
    out[map->vadr[map->free_joint] + a] =
        R[3 * a] * c[0] + R[3 * a + 1] * c[1] + R[3 * a + 2] * c[2];
}

void mujoco_map_acc(const mujoco_map *map, const double R[9], const double *v, const double *a,
                    double *qacc) {
  int idx[3];
  double w[3];
  tdot_v(map, R, v, qacc);
  for (int i = 0; i < map->nv; i++)
    for (int n = column(map, R, i, idx, w), k = 0; k < n; k++) qacc[idx[k]] += w[k] * a[i];
}

void mujoco_unmap_force(const mujoco_map *map, const double R[9], const double *qfrc, double *tau) {
  int idx[3];
  double w[3];
  for (int i = 0; i < map->nv; i++) {
    double x = 0;
    for (int n = column(map, R, i, idx, w), a = 0; a < n; a++) x += w[a] * qfrc[idx[a]];
    tau[i] = x;
  }
}

void mujoco_unmap_acc(const mujoco_map *map, const double R[9], const double *v, const double *qacc,
                      double *a) {
  int idx[3];
  double w[3], *t = malloc((map->nv > 0 ? (size_t)map->nv : 1) * sizeof *t);
  tdot_v(map, R, v, t);
  for (int i = 0; i < map->nv; i++) {
    double x = 0;
    for (int n = column(map, R, i, idx, w), k = 0; k < n; k++)
      x += w[k] * (qacc[idx[k]] - t[idx[k]]);
    a[i] = x;
  }
  free(t);
}

void mujoco_unmap_matrix(const mujoco_map *map, const double R[9], const double *X, double *out) {
  int nv = map->nv, ri[3], ci[3];
  double rw[3], cw[3];
  for (int i = 0; i < nv; i++) {
    int rn = column(map, R, i, ri, rw);
    for (int j = 0; j < nv; j++) {
      int cn = column(map, R, j, ci, cw);
      double x = 0;
      for (int a = 0; a < rn; a++)
        for (int b = 0; b < cn; b++) x += rw[a] * X[ri[a] * nv + ci[b]] * cw[b];
      out[i * nv + j] = x;
    }
  }
}
