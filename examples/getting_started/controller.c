/* file: ur5_controller/controller.c */
/* Computed-torque control of a UR5 on the functions mbdc generates from its URDF
 * (docs/getting-started.md). Every DT the controller reads q and v and applies
 *   tau = M(q) (qdd_d + KD (v_d - v) + KP (q_d - q)) + h(q, v)   (ur5_crba, ur5_nle),
 * held until the next sample. The plant is the articulated-body algorithm (ur5_aba: another
 * algorithm than the controller's) and semi-implicit Euler: v += qdd DT, then q advanced by
 * v DT on the configuration manifold (ur5_integrate; for revolute joints q += v DT).
 * The reference starts at rest at q_home, q_d = q_home + A (1 - cos w t); the arm starts at rest
 * Q_OFFSET away from it, so the error first decays as the critically damped PD says
 * (e(t) = e(0) (1 + wn t) exp(-wn t), wn = sqrt(KP)), then stays at the floor the time step
 * leaves. To first order in DT that floor is
 *   e = -DT / (2 KP) (KD qdd_d - qddd_d)
 * (the semi-implicit step sees the velocity half a step late), so |e| never exceeds
 *   floor = DT |A| w^2 sqrt(KD^2 + w^2) / (2 KP);
 * after T_SETTLE the transient is below 1e-7 of e(0) and the program fails (exit 1) if |e|
 * exceeds 1.2 floor (the margin: the closed loop's lag at w, w KD / KP ~ 0.3, shrinks
 * the floor by 5 %; 20 % leaves room for the second-order terms).
 *   controller [FILE]   FILE: every 10 ms, t (s), q_1 .. q_6, e_1 .. e_6, |e| and the floor
 *                       |DT / (2 KP) (KD qdd_d - qddd_d)| (rad) */
#include <math.h>
#include <stdio.h>

#include "ur5_dynamics.h"

#define NQ UR5_NQ
#define NV UR5_NV
#if NQ != NV
#error "q and v differ (a floating base, a ball joint): e = q_d - q becomes ur5_difference"
#endif
#define PI 3.14159265358979323846
#define DT 1e-3       /* control period and simulation step, s */
#define T_END 6.0     /* s */
#define T_SETTLE 1.0  /* s: (1 + wn t) exp(-wn t) = 4e-8 there */
#define KP 400.0      /* 1/s^2: wn = 20 rad/s */
#define KD 40.0       /* 1/s: 2 wn, critically damped */
#define PERIOD 2.0    /* s, of the reference */
#define Q_OFFSET 0.05 /* rad, the initial error of every joint */
#define LOG_EVERY 10  /* steps */

/* a folded posture (elbow up, tool pointing down) and the amplitudes of the reference, rad */
static const double q_home[NQ] = {0.0, -1.2, 1.5, -1.9, -1.57, 0.0};
static const double amp[NV] = {0.4, 0.3, 0.3, 0.4, 0.4, 0.5};

/* q_d(t) and its first three derivatives */
static void reference(double t, double qd[NQ], double vd[NV], double ad[NV], double jd[NV]) {
  const double w = 2 * PI / PERIOD;
  for (int i = 0; i < NV; i++) {
    qd[i] = q_home[i] + amp[i] * (1 - cos(w * t));
    vd[i] = amp[i] * w * sin(w * t);
    ad[i] = amp[i] * w * w * cos(w * t);
    jd[i] = -amp[i] * w * w * w * sin(w * t);
  }
}

static double norm(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return sqrt(s);
}

int main(int argc, char **argv) {
  FILE *out = NULL;
  if (argc > 1 && !(out = fopen(argv[1], "w"))) {
    perror(argv[1]);
    return 2;
  }
  const double w = 2 * PI / PERIOD;
  const double floor_max = DT * norm(amp, NV) * w * w * sqrt(KD * KD + w * w) / (2 * KP);
  double q[NQ], v[NV] = {0}, q_next[NQ];
  for (int i = 0; i < NQ; i++) q[i] = q_home[i] + Q_OFFSET;
  double e_max = 0, e_final = 0, tau_max = 0;
  int tau_joint = 0;
  const int steps = (int)(T_END / DT + 0.5);
  for (int k = 0; k <= steps; k++) {
    const double t = k * DT;
    double qd[NQ], vd[NV], ad[NV], jd[NV], e[NV], a[NV], M[NV * NV], h[NV], tau[NV], qdd[NV];
    reference(t, qd, vd, ad, jd);
    /* the controller */
    for (int i = 0; i < NV; i++) {
      e[i] = qd[i] - q[i];
      a[i] = ad[i] + KD * (vd[i] - v[i]) + KP * e[i];
    }
    ur5_crba(q, M);
    ur5_nle(q, v, h);
    for (int i = 0; i < NV; i++) {
      tau[i] = h[i];
      for (int j = 0; j < NV; j++) tau[i] += M[i * NV + j] * a[j];
    }
    /* what it achieved */
    for (int i = 0; i < NV; i++)
      if (fabs(tau[i]) > tau_max) {
        tau_max = fabs(tau[i]);
        tau_joint = i;
      }
    e_final = norm(e, NV);
    if (t >= T_SETTLE && e_final > e_max) e_max = e_final;
    if (out && k % LOG_EVERY == 0) {
      double f[NV];
      for (int i = 0; i < NV; i++) f[i] = DT / (2 * KP) * (KD * ad[i] - jd[i]);
      fprintf(out, "%.3f", t);
      for (int i = 0; i < NQ; i++) fprintf(out, " %.6f", q[i]);
      for (int i = 0; i < NV; i++) fprintf(out, " %.6e", e[i]);
      fprintf(out, " %.6e %.6e\n", e_final, norm(f, NV));
    }
    if (k == steps) break;
    /* the plant: one step of semi-implicit Euler */
    if (ur5_aba(q, v, tau, qdd) != 0) {
      fprintf(stderr, "ur5_aba failed at t = %.3f s\n", t);
      return 1;
    }
    for (int i = 0; i < NV; i++) v[i] += qdd[i] * DT;
    ur5_integrate(q, v, DT, q_next);
    for (int i = 0; i < NQ; i++) q[i] = q_next[i];
  }
  if (out) fclose(out);
  printf("UR5 computed-torque control, %.0f s at %.0f Hz\n", T_END, 1 / DT);
  printf("tracking error at t = %.0f s:         %.2e rad\n", T_END, e_final);
  printf("largest tracking error after %.0f s:  %.2e rad (bound %.2e rad)\n", T_SETTLE, e_max,
         1.2 * floor_max);
  printf("largest torque:                    %.1f N m (%s)\n", tau_max, ur5_joint_names[tau_joint]);
  if (!(e_max <= 1.2 * floor_max)) {
    printf("FAIL: the tracking error exceeds its bound\n");
    return 1;
  }
  return 0;
}
