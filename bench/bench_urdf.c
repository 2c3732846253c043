/* bench_urdf.c — the URDF MuJoCo reads in the benchmarks of an example in .mbd: written from the
 * model the runtime uses (an example URDF is read as it is, mujoco_peer/ prepares both). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bench_peer.h"

static int fail(char *msg, size_t msgsize, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (msg) vsnprintf(msg, msgsize, fmt, ap);
  va_end(ap);
  return -1;
}

/* URDF's rpy of a rotation R (child → parent, row-major): R = Rz(yaw) Ry(pitch) Rx(roll). */
static void rot_to_rpy(const double R[9], double rpy[3]) {
  double c = hypot(R[0], R[3]);
  rpy[1] = atan2(-R[6], c);
  if (c > 1e-9) {
    rpy[0] = atan2(R[7], R[8]);
    rpy[2] = atan2(R[3], R[0]);
  } else { /* pitch ±pi/2: only roll ∓ yaw is defined; put it all in roll */
    rpy[0] = atan2(-R[5], R[4]);
    rpy[2] = 0.0;
  }
}

/* inertial: mass, COM c = h / m, rotational inertia about the COM (parallel-axis theorem on the
 * inertia about the body origin; tensor entries, as URDF's ixy... are). */
static void write_inertial(const double in[10], FILE *out) {
  double m = in[0], c[3] = {0, 0, 0};
  if (m > 0)
    for (int k = 0; k < 3; k++) c[k] = in[1 + k] / m;
  double ixx = in[4] - m * (c[1] * c[1] + c[2] * c[2]);
  double iyy = in[5] - m * (c[0] * c[0] + c[2] * c[2]);
  double izz = in[6] - m * (c[0] * c[0] + c[1] * c[1]);
  double ixy = in[7] + m * c[0] * c[1], ixz = in[8] + m * c[0] * c[2];
  double iyz = in[9] + m * c[1] * c[2];
  fprintf(out, "    <inertial>\n      <origin xyz=\"%.17g %.17g %.17g\" rpy=\"0 0 0\"/>\n", c[0],
          c[1], c[2]);
  fprintf(out, "      <mass value=\"%.17g\"/>\n", m);
  fprintf(out,
          "      <inertia ixx=\"%.17g\" iyy=\"%.17g\" izz=\"%.17g\" ixy=\"%.17g\" ixz=\"%.17g\" "
          "iyz=\"%.17g\"/>\n    </inertial>\n",
          ixx, iyy, izz, ixy, ixz, iyz);
}

int bench_urdf_from_model(const mb_model *m, const bench_names *names, FILE *out, char *msg,
                          size_t msgsize) {
  for (int i = 1; i <= m->nb; i++)
    if (m->jtype[i] == MB_JOINT_HELICAL || m->jtype[i] == MB_JOINT_SPHERICAL ||
        m->jtype[i] == MB_JOINT_CYLINDRICAL || m->jtype[i] == MB_JOINT_PLANAR)
      return fail(msg, msgsize, "URDF has no %s joint (body %s)%s", mb_joint_name(m->jtype[i]),
                  names->body[i],
                  m->jtype[i] == MB_JOINT_PLANAR ? " with mbdc's coordinates" : "");
  fprintf(out, "<?xml version=\"1.0\"?>\n<!-- written by mbdc's bench from the runtime model "
               "(the same data the generated code was checked against) -->\n");
  fprintf(out, "<robot name=\"mbdc_bench\">\n  <link name=\"world\"/>\n");
  int k = 0;
  for (int i = 1; i <= m->nb; i++) {
    fprintf(out, "  <link name=\"%s\">\n", names->body[i]);
    write_inertial(m->inertia + 10 * i, out);
    fprintf(out, "  </link>\n");
    static const char *const urdf_type[MB_JOINT_TYPE_COUNT] = {
      [MB_JOINT_FIXED] = "fixed",         [MB_JOINT_REVOLUTE] = "continuous",
      [MB_JOINT_CONTINUOUS] = "continuous", [MB_JOINT_PRISMATIC] = "prismatic",
      [MB_JOINT_FLOATING] = "floating"};
    const double *E = m->XT_E + 9 * i, *r = m->XT_r + 3 * i, *a = m->axis + 3 * i;
    double R[9] = {E[0], E[3], E[6], E[1], E[4], E[7], E[2], E[5], E[8]}, rpy[3];
    rot_to_rpy(R, rpy);
    if (m->jtype[i] == MB_JOINT_FIXED)
      fprintf(out, "  <joint name=\"%s_fixed\" type=\"fixed\">\n", names->body[i]);
    else
      fprintf(out, "  <joint name=\"%s\" type=\"%s\">\n", names->joint[k++],
              urdf_type[m->jtype[i]]);
    fprintf(out, "    <parent link=\"%s\"/>\n    <child link=\"%s\"/>\n",
            m->parent[i] == 0 ? "world" : names->body[m->parent[i]], names->body[i]);
    fprintf(out, "    <origin xyz=\"%.17g %.17g %.17g\" rpy=\"%.17g %.17g %.17g\"/>\n", r[0], r[1],
            r[2], rpy[0], rpy[1], rpy[2]);
    if (m->jtype[i] == MB_JOINT_REVOLUTE || m->jtype[i] == MB_JOINT_CONTINUOUS ||
        m->jtype[i] == MB_JOINT_PRISMATIC)
      fprintf(out, "    <axis xyz=\"%.17g %.17g %.17g\"/>\n", a[0], a[1], a[2]);
    if (m->jtype[i] == MB_JOINT_PRISMATIC)
      fprintf(out, "    <limit lower=\"-1e3\" upper=\"1e3\" effort=\"0\" velocity=\"0\"/>\n");
    fprintf(out, "  </joint>\n");
  }
  fprintf(out, "</robot>\n");
  return 0;
}
