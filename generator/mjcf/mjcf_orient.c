/* mjcf_orient.c — MJCF orientations and poses (MuJoCo's "frame orientations": quat, axisangle,
 * euler with compiler/eulerseq, xyaxes, zaxis; angles in degrees unless compiler/angle is
 * "radian"), and the quaternion and pose arithmetic the importer composes frames with. Quaternions
 * are MuJoCo's, w first. */
#include <math.h>
#include <string.h>

#include "mjcf/mjcf_internal.h"

void mbg_mjcf_quat_mul(const double a[4], const double b[4], double out[4]) {
  double r[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                 a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                 a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                 a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
  memcpy(out, r, sizeof r);
}

void mbg_mjcf_quat_to_mat(const double q[4], double R[9]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
}

void mbg_mjcf_quat_rotate(const double q[4], const double v[3], double out[3]) {
  double R[9], r[3];
  mbg_mjcf_quat_to_mat(q, R);
  for (int i = 0; i < 3; i++) r[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
  memcpy(out, r, sizeof r);
}

/* Shepperd's method: the largest of w, x, y, z is computed first. */
void mbg_mjcf_mat_to_quat(const double R[9], double q[4]) {
  double t = R[0] + R[4] + R[8];
  if (t > 0) {
    double s = 2 * sqrt(1 + t);
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
  if (q[0] < 0)
    for (int k = 0; k < 4; k++) q[k] = -q[k];
}

void mbg_mjcf_axis_angle(const double a[3], double angle, double q[4]) {
  double s = sin(angle / 2);
  q[0] = cos(angle / 2), q[1] = s * a[0], q[2] = s * a[1], q[3] = s * a[2];
}

int mbg_mjcf_z_to(const double v[3], double q[4]) {
  double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (!(n > 1e-14)) return 0;
  double a[3] = {-v[1] / n, v[0] / n, 0}; /* z × v */
  double s = sqrt(a[0] * a[0] + a[1] * a[1]);
  if (s < 1e-10) { /* along z: none, or half a turn about x */
    a[0] = 1, a[1] = 0;
  } else {
    a[0] /= s, a[1] /= s;
  }
  mbg_mjcf_axis_angle(a, atan2(s, v[2] / n), q);
  return 1;
}

static int normalize(double *v, int n) {
  double s = 0;
  for (int k = 0; k < n; k++) s += v[k] * v[k];
  s = sqrt(s);
  if (!(s > 1e-14)) return 0;
  for (int k = 0; k < n; k++) v[k] /= s;
  return 1;
}

/* euler: three rotations about the axes of compiler/eulerseq, each after the ones before it:
 * about the moving axes (lower case: post-multiplied) or the fixed ones (upper case: pre-). */
static void from_euler(const mbg_mjcf *mj, const double e[3], double q[4]) {
  double f = mj->degree ? MBG_MJCF_PI / 180 : 1;
  q[0] = 1, q[1] = q[2] = q[3] = 0;
  for (int i = 0; i < 3; i++) {
    char c = mj->eulerseq[i];
    int axis = (c | 0x20) - 'x';
    double r[4] = {cos(f * e[i] / 2), 0, 0, 0};
    r[1 + axis] = sin(f * e[i] / 2);
    if (c >= 'a')
      mbg_mjcf_quat_mul(q, r, q);
    else
      mbg_mjcf_quat_mul(r, q, q);
  }
}

/* xyaxes: x, then y made orthogonal to it, z = x × y: the columns of the rotation. */
static int from_xyaxes(const double v[6], double q[4]) {
  double x[3] = {v[0], v[1], v[2]}, y[3] = {v[3], v[4], v[5]};
  if (!normalize(x, 3)) return 0;
  double d = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
  for (int k = 0; k < 3; k++) y[k] -= d * x[k];
  if (!normalize(y, 3)) return 0;
  double z[3] = {x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]};
  double R[9] = {x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2]};
  mbg_mjcf_mat_to_quat(R, q);
  return 1;
}

static const char *const orient_attrs[] = {"quat", "axisangle", "euler", "xyaxes", "zaxis"};
static const int orient_counts[] = {4, 4, 3, 6, 3};

/* The orientation from attribute k of orient_attrs with values v. 0 when degenerate. */
static int orient_from(const mbg_mjcf *mj, int k, double v[6], double q[4]) {
  switch (k) {
  case 0:
    memcpy(q, v, 4 * sizeof *q);
    return normalize(q, 4);
  case 1:
    if (!normalize(v, 3)) return 0;
    mbg_mjcf_axis_angle(v, mj->degree ? v[3] * MBG_MJCF_PI / 180 : v[3], q);
    return 1;
  case 2:
    from_euler(mj, v, q);
    return 1;
  case 3:
    return from_xyaxes(v, q);
  default:
    return mbg_mjcf_z_to(v, q);
  }
}

int mbg_mjcf_orient(mbg_mjcf *mj, xmlNodePtr el, int cls, double q[4]) {
  int given = -1;
  q[0] = 1, q[1] = q[2] = q[3] = 0;
  for (int k = 0; k < 5; k++) {
    /* the element's own orientation replaces any a class gives (MuJoCo keeps one per element) */
    if (!mbg_urdf_attr(el, orient_attrs[k])) continue;
    if (given >= 0) {
      mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, el, orient_attrs[k]),
                     "<%s> gives its orientation twice, as '%s' and as '%s'",
                     (const char *)el->name, orient_attrs[given], orient_attrs[k]);
      return 0;
    }
    given = k;
  }
  for (int k = 0; given < 0 && k < 5; k++)
    if (mbg_mjcf_get(mj, el, cls, orient_attrs[k]).s) given = k;
  if (given < 0) return 1;
  double v[6];
  int n = orient_counts[given];
  if (mbg_mjcf_nums(mj, el, cls, orient_attrs[given], n, n, v) != n) return 0;
  if (orient_from(mj, given, v, q)) return 1;
  mbg_mjcf_val at = mbg_mjcf_get(mj, el, cls, orient_attrs[given]);
  mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, at.at, orient_attrs[given]),
                 "'%s' of <%s> is degenerate (a zero vector, or parallel axes)",
                 orient_attrs[given], (const char *)el->name);
  return 0;
}

int mbg_mjcf_read_pose(mbg_mjcf *mj, xmlNodePtr el, int cls, mbg_mjcf_pose *P) {
  mbg_mjcf_pose_identity(P);
  int ok = mbg_mjcf_nums(mj, el, cls, "pos", 3, 3, P->p) != 0;
  return mbg_mjcf_orient(mj, el, cls, P->q) && ok;
}

void mbg_mjcf_pose_identity(mbg_mjcf_pose *P) {
  memset(P, 0, sizeof *P);
  P->q[0] = 1;
}

void mbg_mjcf_pose_apply(const mbg_mjcf_pose *A, const double x[3], double out[3]) {
  double r[3];
  mbg_mjcf_quat_rotate(A->q, x, r);
  for (int k = 0; k < 3; k++) out[k] = A->p[k] + r[k];
}

void mbg_mjcf_pose_mul(const mbg_mjcf_pose *A, const mbg_mjcf_pose *B, mbg_mjcf_pose *out) {
  mbg_mjcf_pose r;
  mbg_mjcf_pose_apply(A, B->p, r.p);
  mbg_mjcf_quat_mul(A->q, B->q, r.q);
  normalize(r.q, 4);
  *out = r;
}

void mbg_mjcf_pose_inv(const mbg_mjcf_pose *A, mbg_mjcf_pose *out) {
  mbg_mjcf_pose r;
  r.q[0] = A->q[0], r.q[1] = -A->q[1], r.q[2] = -A->q[2], r.q[3] = -A->q[3];
  mbg_mjcf_quat_rotate(r.q, A->p, r.p);
  for (int k = 0; k < 3; k++) r.p[k] = -r.p[k];
  *out = r;
}

/* R = Rz(yaw) Ry(pitch) Rx(roll): R[6] = −sin pitch; at pitch ±90° roll is taken 0. */
void mbg_mjcf_pose_xyz_rpy(const mbg_mjcf_pose *P, double xyz[3], double rpy[3]) {
  double R[9];
  memcpy(xyz, P->p, 3 * sizeof *xyz);
  mbg_mjcf_quat_to_mat(P->q, R);
  double c = sqrt(R[0] * R[0] + R[3] * R[3]);
  rpy[1] = atan2(-R[6], c);
  if (c > 1e-12) {
    rpy[0] = atan2(R[7], R[8]);
    rpy[2] = atan2(R[3], R[0]);
  } else {
    rpy[0] = 0;
    rpy[2] = atan2(-R[1], R[4]);
  }
  for (int k = 0; k < 3; k++)
    if (rpy[k] == 0) rpy[k] = 0; /* no −0 in the model */
}

void mbg_mjcf_rotate_inertia(const double q[4], double I[6]) {
  if (q[0] == 1 && q[1] == 0 && q[2] == 0 && q[3] == 0) return; /* exactly as written */
  double R[9], A[9] = {I[0], I[3], I[4], I[3], I[1], I[5], I[4], I[5], I[2]}, T[9], B[9];
  mbg_mjcf_quat_to_mat(q, R);
  for (int i = 0; i < 3; i++) /* T = A Rᵀ, B = R T */
    for (int k = 0; k < 3; k++)
      T[3 * i + k] =
          A[3 * i] * R[3 * k] + A[3 * i + 1] * R[3 * k + 1] + A[3 * i + 2] * R[3 * k + 2];
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++)
      B[3 * i + k] = R[3 * i] * T[k] + R[3 * i + 1] * T[3 + k] + R[3 * i + 2] * T[6 + k];
  I[0] = B[0], I[1] = B[4], I[2] = B[8];
  I[3] = 0.5 * (B[1] + B[3]), I[4] = 0.5 * (B[2] + B[6]), I[5] = 0.5 * (B[5] + B[7]);
}
