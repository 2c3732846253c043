/* robot.c — the UR5 of examples/urdf/ur5.urdf as the identification sees it (ident.h): its
 * generated functions (ur5_dynamics.h: rnea, base_regressor, base_params, joint_regressor), the
 * "true" parameters, the noise and the limits. The only file that names the robot: another
 * robot needs another robot.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ident.h"
#include "ur5_dynamics.h"

#define NV UR5_NV
#define NB UR5_NBASE /* the base inertial parameters */
#define NJ (4 * UR5_NJ1) /* the joint columns: viscous, Coulomb, armature, offset per joint */
#define NALL (NB + NJ)
#define NSEL 40      /* random states stacked to find the dependent joint columns */
#define SEL_TOL 1e-8 /* relative distance below which a column depends on the others */
#define COULOMB_BAND 1e-3 /* ur5_joint_regressor's Coulomb column: v / max(|v|, 1e-3) */

/* The joints' "true" friction, rotor inertia and offset: values of the order of a UR5's
 * (assumed, not measured), N m s/rad, N m, kg m², N m. */
static const double f_viscous[NV] = {5.0, 5.0, 3.0, 1.0, 1.0, 1.0};
static const double f_coulomb[NV] = {7.0, 7.0, 4.0, 1.5, 1.5, 1.5};
static const double f_armature[NV] = {0.4, 0.4, 0.15, 0.05, 0.05, 0.05};
static const double f_offset[NV] = {0.3, -0.6, 0.4, 0.1, -0.1, 0.05};
/* Torque noise, N m (standard deviation, Gaussian, per joint: the wrist's sensors finer). */
static const double noise[NV] = {0.5, 0.5, 0.3, 0.1, 0.1, 0.1};
/* The trajectories: about q0 (the upper arm up, the elbow bent at a right angle), within 1.2 rad
 * of it, 1.5 rad/s (under half the URDF's 3.15 and 3.2) and 6 rad/s² (the URDF gives none). */
static const double limit_q0[NV] = {0.0, -1.5707963, 1.5707963, -1.5707963, -1.5707963, 0.0};
static const double limit_dq = 1.2, limit_v = 1.5, limit_a = 6.0;
/* The URDF's (examples/urdf/ur5.urdf). */
static const double urdf_q[NV] = {6.28318530718, 6.28318530718, 3.14159265359,
                                  6.28318530718, 6.28318530718, 6.28318530718};
static const double urdf_v[NV] = {3.15, 3.15, 3.15, 3.2, 3.2, 3.2};

/* Which of the offered columns (base, then joint) are kept, in order; the joint columns' names. */
static int kept[NALL];
static const char *const kind[4] = {"fv", "fc", "Ia", "tau0"};

/* [Yb | Yj] at one state, nv x NALL row-major. */
static void all_columns(const double *q, const double *v, const double *a, double *W) {
  double Yb[NV * NB], Yj[NV * NJ];
  ur5_base_regressor(q, v, a, Yb);
  ur5_joint_regressor(v, a, Yj);
  for (int i = 0; i < NV; i++) {
    memcpy(W + i * NALL, Yb + i * NB, sizeof(double) * NB);
    memcpy(W + i * NALL + NB, Yj + i * NJ, sizeof(double) * NJ);
  }
}

/* The standard parameter base parameter k is named after (ur5_dynamics.h lists the
 * combinations): the one K maps to beta[k] alone, with coefficient 1 (K from ur5_base_params of
 * the unit vectors); -1 if none. */
static int named_after(int k) {
  for (int i = 0; i < UR5_NREG; i++) {
    double e[UR5_NREG] = {0}, col[NB];
    e[i] = 1.0;
    ur5_base_params(e, col);
    int alone = col[k] == 1.0;
    for (int l = 0; l < NB && alone; l++) alone = l == k || col[l] == 0.0;
    if (alone) return i;
  }
  return -1;
}

static void set_labels(id_robot *r) {
  static const char *const param[10] = {"m", "mx", "my", "mz", "Ixx",
                                        "Ixy", "Iyy", "Ixz", "Iyz", "Izz"};
  for (int k = 0, c = 0; k < NALL; k++) {
    if (!kept[k]) continue;
    int i = k < NB ? named_after(k) : -1;
    if (i >= 0)
      snprintf(r->label[c++], sizeof r->label[0], "b%d %s.%s", k, ur5_body_names[1 + i / 10],
               param[i % 10]);
    else if (k < NB)
      snprintf(r->label[c++], sizeof r->label[0], "b%d", k);
    else
      snprintf(r->label[c++], sizeof r->label[0], "%s %s", kind[(k - NB) % 4],
               ur5_joint_names[(k - NB) / 4]);
  }
}

/* Stack [Yb | Yj] over NSEL random states, keep the independent columns in order (every base
 * column: they are independent) and fold each dropped column's true value into the kept ones
 * it is a combination of: p_kept += coef p_dropped. */
static int select_columns(id_robot *r, FILE *log) {
  double *W = malloc(sizeof(double) * NSEL * NV * NALL);
  double *coef = malloc(sizeof(double) * NALL * NALL), p[NALL];
  uint64_t seed = 7;
  int nk = -1;
  if (W && coef) {
    for (int s = 0; s < NSEL; s++) {
      double q[NV], v[NV], a[NV];
      for (int j = 0; j < NV; j++) {
        q[j] = 3.0 * (2.0 * id_uniform(&seed) - 1.0);
        v[j] = 2.0 * id_uniform(&seed) - 1.0;
        a[j] = 2.0 * id_uniform(&seed) - 1.0;
      }
      all_columns(q, v, a, W + s * NV * NALL);
    }
    nk = lsq_select(NSEL * NV, NALL, W, SEL_TOL, kept, coef);
  }
  for (int k = 0; k < NB && nk > 0; k++)
    if (!kept[k]) nk = -1;
  if (nk > 0 && nk <= ID_MAXCOL) {
    ur5_base_params(ur5_pi_all, p);
    for (int j = 0; j < NV; j++) {
      p[NB + 4 * j] = f_viscous[j], p[NB + 4 * j + 1] = f_coulomb[j];
      p[NB + 4 * j + 2] = f_armature[j], p[NB + 4 * j + 3] = f_offset[j];
    }
    r->ncol = 0, r->nbase = NB;
    for (int k = 0; k < NALL; k++) {
      if (!kept[k]) continue;
      double t = p[k];
      for (int d = 0; d < NALL; d++)
        if (!kept[d]) t += coef[d * NALL + k] * p[d];
      r->theta[r->ncol++] = t;
    }
    for (int d = NB; d < NALL && log; d++) {
      if (kept[d]) continue;
      fprintf(log, "%s %s: its column is a combination of the others, its value folded into"
              " theirs (", kind[(d - NB) % 4], ur5_joint_names[(d - NB) / 4]);
      for (int k = 0, c = 0; k < NALL; k++)
        if (kept[k] && fabs(coef[d * NALL + k]) > 1e-9)
          fprintf(log, "%s%+.6g b%d", c++ ? " " : "", coef[d * NALL + k], k);
      fprintf(log, ")\n");
    }
  }
  free(W);
  free(coef);
  return nk > 0 && nk <= ID_MAXCOL ? 0 : -1;
}

int robot_init(id_robot *r, FILE *log) {
  memset(r, 0, sizeof *r);
  r->name = "UR5";
  r->nv = NV;
  if (UR5_NJ1 != NV || select_columns(r, log) != 0) return -1;
  set_labels(r);
  for (int j = 0; j < NV; j++) {
    r->sigma[j] = noise[j];
    r->q0[j] = limit_q0[j], r->dq[j] = limit_dq, r->vmax[j] = limit_v, r->amax[j] = limit_a;
    r->qlo[j] = -urdf_q[j], r->qhi[j] = urdf_q[j], r->vlim[j] = urdf_v[j];
  }
  return 0;
}

void robot_row(const id_robot *r, const double *q, const double *v, const double *a, double *W) {
  double A[NV * NALL];
  all_columns(q, v, a, A);
  for (int i = 0; i < NV; i++)
    for (int k = 0, c = 0; k < NALL; k++)
      if (kept[k]) W[i * r->ncol + c++] = A[i * NALL + k];
}

/* rnea and the joints' terms written out, not through the regressors. */
void robot_torque(const id_robot *r, const double *q, const double *v, const double *a,
                  double *tau) {
  (void)r;
  ur5_rnea(q, v, a, tau);
  for (int j = 0; j < NV; j++) {
    double coulomb = v[j] / fmax(fabs(v[j]), COULOMB_BAND); /* sign(v), made continuous */
    tau[j] += f_viscous[j] * v[j] + f_coulomb[j] * coulomb + f_armature[j] * a[j] + f_offset[j];
  }
}
