/* identify.c — identification of a UR5's base inertial parameters and joint friction from
 * simulated torques, end to end (README.md beside this file; docs/identification.md, "The
 * identification example").
 *
 *   1. An exciting trajectory: a finite Fourier series per joint (ID_NH harmonics, period 10 s)
 *      within the limits of robot.c, its coefficients searched (fixed seed, EXCITE_BUDGET
 *      evaluations) to lower the condition number of the stacked regressor W = [Yb Yj].
 *   2. The "measured" torques: the generated rnea with the model's own inertias plus the joints'
 *      friction, armature and offset, at 100 Hz over one period, plus Gaussian noise (robot.c's
 *      sigma per joint, fixed seed).
 *   3. Ordinary least squares, then weighted least squares with each joint's rows divided by
 *      the standard deviation of its OLS residual (Gautier, "Dynamic identification of robots
 *      with power model", ICRA 1997; Gautier & Poignet 2001).
 *   4. Each estimate's error against the standard deviation the estimator predicts, and the
 *      torques of a second, different trajectory predicted with the WLS estimate.
 *
 *   identify [OUTDIR]   writes OUTDIR/validation.dat and OUTDIR/validation.svg (default .)
 * Exit 0 if every check (the bounds below) holds, 1 otherwise. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ident.h"

#define PI 3.14159265358979323846
#define PERIOD 10.0       /* s, the trajectories' period (wf = 2 pi / PERIOD) */
#define RATE 100          /* samples per second */
#define NS (int)(PERIOD * RATE)
#define EXCITE_SAMPLES 100 /* samples per period while searching the coefficients */
#define EXCITE_BUDGET 300  /* evaluations of the condition number */
#define SEED_EXCITE 1
#define SEED_NOISE 2
#define SEED_VALID 3
#define SEED_VALID_NOISE 4
/* The checks (checks()): every OLS and WLS estimate within MAX_SIGMAS standard deviations of its true
 * value, the RMS of WLS's errors in standard deviations below MAX_RMS_SIGMAS (1 expected), WLS's
 * standard deviations within a factor MAX_SD_CRB of the Cramér-Rao bound; on the validation
 * trajectory each joint's RMS of measured - predicted within VALID_NOISE times the noise, and of
 * true - predicted within VALID_MODEL times the noise. */
#define MAX_SIGMAS 4.5
#define MAX_RMS_SIGMAS 1.5
#define MAX_SD_CRB 1.1
#define VALID_NOISE 1.15
#define VALID_MODEL 0.5

/* A trajectory sampled: time, the stacked W (ns nv x ncol), the noise-free and noisy torques. */
typedef struct data {
  int ns;
  double *t, *W, *tau, *meas;
  double qdev, vmax, amax; /* the largest |q - q0| / dq, |v| / vmax, |a| / amax */
  double urdf;             /* the largest |q| / URDF limit and |v| / URDF limit */
  double consistency;      /* max |W theta - tau| */
} data;

/* An estimate: the parameters, their standard deviations, the residual per joint. */
typedef struct estimate {
  double x[ID_MAXCOL], sd[ID_MAXCOL];
  double sigma_joint[ID_MAXV]; /* the residual's standard deviation per joint, N m */
} estimate;

static int data_alloc(data *d, int ns, const id_robot *r) {
  memset(d, 0, sizeof *d);
  d->ns = ns;
  d->t = malloc(sizeof(double) * (size_t)ns);
  d->W = malloc(sizeof(double) * (size_t)(ns * r->nv * r->ncol));
  d->tau = malloc(sizeof(double) * (size_t)(ns * r->nv));
  d->meas = malloc(sizeof(double) * (size_t)(ns * r->nv));
  return d->t && d->W && d->tau && d->meas ? 0 : -1;
}

static void data_free(data *d) {
  free(d->t);
  free(d->W);
  free(d->tau);
  free(d->meas);
}

/* Sample f at RATE over one period: W, the torques, the noise, the limits reached. */
static void simulate(const id_fourier *f, const id_robot *r, uint64_t seed, data *d) {
  int nv = r->nv, nc = r->ncol;
  for (int k = 0; k < d->ns; k++) {
    double q[ID_MAXV], v[ID_MAXV], a[ID_MAXV];
    double *W = d->W + (size_t)k * (size_t)(nv * nc), *tau = d->tau + k * nv;
    d->t[k] = (double)k / RATE;
    fourier_eval(f, d->t[k], q, v, a);
    robot_row(r, q, v, a, W);
    robot_torque(r, q, v, a, tau);
    for (int j = 0; j < nv; j++) {
      double y = 0.0;
      for (int c = 0; c < nc; c++) y += W[j * nc + c] * r->theta[c];
      d->consistency = fmax(d->consistency, fabs(y - tau[j]));
      d->meas[k * nv + j] = tau[j] + r->sigma[j] * id_gauss(&seed);
      d->qdev = fmax(d->qdev, fabs(q[j] - r->q0[j]) / r->dq[j]);
      d->vmax = fmax(d->vmax, fabs(v[j]) / r->vmax[j]);
      d->amax = fmax(d->amax, fabs(a[j]) / r->amax[j]);
      d->urdf = fmax(d->urdf, fmax(fabs(v[j]) / r->vlim[j],
                                   fmax(q[j] / r->qhi[j], q[j] / r->qlo[j])));
    }
  }
}

/* Each joint's residual standard deviation s_j² = |r_j|² / (ns - c_j), c_j the parameters that act
 * on joint j (the columns not zero on its rows). */
static void joint_residuals(const data *d, const id_robot *r, estimate *e) {
  int nv = r->nv, nc = r->ncol;
  for (int j = 0; j < nv; j++) {
    double ss = 0.0;
    int cj = 0;
    for (int c = 0; c < nc; c++) {
      int acts = 0;
      for (int k = 0; k < d->ns && !acts; k++) acts = d->W[(k * nv + j) * nc + c] != 0.0;
      cj += acts;
    }
    for (int k = 0; k < d->ns; k++) {
      double y = 0.0;
      for (int c = 0; c < nc; c++) y += d->W[(k * nv + j) * nc + c] * e->x[c];
      ss += (d->meas[k * nv + j] - y) * (d->meas[k * nv + j] - y);
    }
    e->sigma_joint[j] = sqrt(ss / (d->ns - cj));
  }
}

/* Least squares on joint j's rows divided by w[j]: OLS (w NULL), WLS (w the OLS residuals' s_j),
 * or the Cramér-Rao bound (w the true noise, known). The standard deviations of the estimate:
 *   OLS: sqrt(diag((WᵀW)⁻¹ Wᵀ S W (WᵀW)⁻¹)), S the rows' variances s_j² (the noise differs from
 *        joint to joint, so that s² (WᵀW)⁻¹ with one s² would not do);
 *   WLS: sqrt(diag(s² (AᵀA)⁻¹)), A the weighted W, s² = |A x - b|² / (rows - columns) (≈ 1);
 *   known: sqrt(diag((Wᵀ Σ⁻¹ W)⁻¹)), the bound of an unbiased estimate for the true Σ. */
static int solve(const data *d, const id_robot *r, const double *w, int known, estimate *e) {
  int nv = r->nv, nc = r->ncol, m = d->ns * nv, rc = -1;
  double *A = malloc(sizeof(double) * (size_t)(m * nc)), *b = malloc(sizeof(double) * (size_t)m);
  double *Rinv = malloc(sizeof(double) * (size_t)(nc * nc)), var[ID_MAXCOL], res = 0.0;
  if (A && b && Rinv) {
    for (int i = 0; i < m; i++) {
      double s = w ? 1.0 / w[i % nv] : 1.0;
      for (int c = 0; c < nc; c++) A[i * nc + c] = s * d->W[i * nc + c];
      b[i] = s * d->meas[i];
    }
    rc = lsq_solve(m, nc, A, b, e->x, Rinv, &res);
  }
  if (rc == 0) {
    joint_residuals(d, r, e);
    double s2 = known ? 1.0 : res * res / (m - nc);
    if (w) {
      lsq_var(nc, Rinv, var);
      for (int c = 0; c < nc; c++) var[c] *= s2;
    } else {
      for (int i = 0; i < m; i++) b[i] = e->sigma_joint[i % nv] * e->sigma_joint[i % nv];
      lsq_sandwich(m, nc, A, Rinv, b, var);
    }
    for (int c = 0; c < nc; c++) e->sd[c] = sqrt(var[c]);
  }
  free(A);
  free(b);
  free(Rinv);
  return rc;
}

/* What report() finds: the largest |error| / sd of OLS and WLS, the RMS of WLS's, the largest
 * ratio of WLS's sd to the Cramér-Rao bound, the well-determined parameters (sd < 10 % of the
 * true value) and their largest relative error. */
typedef struct summary {
  double worst_ols, worst_wls, rms_wls, sd_crb;
  int ngood;
  double rel_good;
} summary;

static void report(const id_robot *r, const estimate *ols, const estimate *wls,
                   const estimate *crb, summary *S) {
  printf("\n%-24s %11s %11s %9s %6s %11s %9s %6s %9s %8s\n", "parameter", "true", "OLS", "sd",
         "err/sd", "WLS", "sd", "err/sd", "CR bound", "rel.err");
  memset(S, 0, sizeof *S);
  for (int c = 0; c < r->ncol; c++) {
    double t = r->theta[c], eo = (ols->x[c] - t) / ols->sd[c], ew = (wls->x[c] - t) / wls->sd[c];
    S->worst_ols = fmax(S->worst_ols, fabs(eo)), S->worst_wls = fmax(S->worst_wls, fabs(ew));
    S->rms_wls += ew * ew;
    S->sd_crb = fmax(S->sd_crb, fmax(wls->sd[c] / crb->sd[c], crb->sd[c] / wls->sd[c]));
    char rel[16] = "-";
    if (fabs(t) > 1e-9) snprintf(rel, sizeof rel, "%.1e", fabs(wls->x[c] - t) / fabs(t));
    if (wls->sd[c] < 0.1 * fabs(t))
      S->ngood++, S->rel_good = fmax(S->rel_good, fabs(wls->x[c] - t) / fabs(t));
    printf("%-24s %11.4g %11.4g %9.2e %6.2f %11.4g %9.2e %6.2f %9.2e %8s\n", r->label[c],
           fabs(t) < 1e-12 ? 0.0 : t, /* (a zero of K pi, to rounding) */
           ols->x[c], ols->sd[c], eo, wls->x[c], wls->sd[c], ew, crb->sd[c], rel);
  }
  S->rms_wls = sqrt(S->rms_wls / r->ncol);
  printf("(err = estimate - true; sd its standard deviation; rel.err = |WLS - true| / |true|)\n");
  printf("%d of %d parameters with sd < 10 %% of |true|: their largest relative error %.1e\n",
         S->ngood, r->ncol, S->rel_good);
}

/* Predict the validation torques with x; the RMS per joint of measured - predicted and of
 * true - predicted; the data file and the plot. */
static int validate(const data *d, const id_robot *r, const double *x, const char *dir,
                    double *rms_meas, double *rms_true) {
  int nv = r->nv, nc = r->ncol, rc = 0;
  double *pred = malloc(sizeof(double) * (size_t)(d->ns * nv));
  char path[4096];
  if (!pred) return -1;
  snprintf(path, sizeof path, "%s/validation.dat", dir);
  FILE *f = fopen(path, "w");
  if (f) fprintf(f, "# t, measured tau_1..%d, predicted tau_1..%d (N m)\n", nv, nv);
  for (int j = 0; j < nv; j++) rms_meas[j] = rms_true[j] = 0.0;
  for (int k = 0; k < d->ns; k++) {
    if (f) fprintf(f, "%.3f", d->t[k]);
    for (int j = 0; j < nv; j++) {
      double y = 0.0;
      for (int c = 0; c < nc; c++) y += d->W[(k * nv + j) * nc + c] * x[c];
      pred[k * nv + j] = y;
      rms_meas[j] += (d->meas[k * nv + j] - y) * (d->meas[k * nv + j] - y);
      rms_true[j] += (d->tau[k * nv + j] - y) * (d->tau[k * nv + j] - y);
      if (f) fprintf(f, " %.5f", d->meas[k * nv + j]);
    }
    for (int j = 0; f && j < nv; j++) fprintf(f, " %.5f", pred[k * nv + j]);
    if (f) fprintf(f, "\n");
  }
  for (int j = 0; j < nv; j++) {
    rms_meas[j] = sqrt(rms_meas[j] / d->ns);
    rms_true[j] = sqrt(rms_true[j] / d->ns);
  }
  if (!f || fclose(f) != 0) rc = -1;
  snprintf(path, sizeof path, "%s/validation.svg", dir);
  if (svg_plot(path, "UR5, validation trajectory: torques", d->ns, nv, d->t, d->meas, pred) != 0)
    rc = -1;
  if (rc) fprintf(stderr, "identify: cannot write %s/validation.{dat,svg}\n", dir);
  free(pred);
  return rc;
}

/* One line per check; the number that failed. */
static int check(const char *what, int ok) {
  printf("  %-66s %s\n", what, ok ? "ok" : "FAILED");
  return !ok;
}

static void print_trajectory(const char *name, const data *d) {
  printf("%s: %d samples over %.0f s; max |q - q0| / dq %.3f, |v| / vmax %.3f, "
         "|a| / amax %.3f, of the URDF's limits %.3f\n", name, d->ns, PERIOD, d->qdev, d->vmax,
         d->amax, d->urdf);
}

/* The identification trajectory, optimised, and the validation one, random; both simulated.
 * 0; -1 if the search did not lower the condition number; -2 out of memory. */
static int trajectories(const id_robot *r, data *id, data *val) {
  id_fourier f, g;
  uint64_t seed = SEED_EXCITE;
  double cond0;
  fourier_random(&f, r, 2.0 * PI / PERIOD, &seed);
  double cond1 = fourier_optimise(&f, r, EXCITE_SAMPLES, EXCITE_BUDGET, &seed, &cond0);
  printf("exciting trajectory: %d harmonics, period %.0f s; cond(W) over %d samples: %.1f "
         "(random start) -> %.1f (%d evaluations)\n", ID_NH, PERIOD, EXCITE_SAMPLES, cond0,
         cond1, EXCITE_BUDGET);
  seed = SEED_VALID;
  fourier_random(&g, r, 2.0 * PI / PERIOD, &seed);
  int rc = data_alloc(id, NS, r), rcv = data_alloc(val, NS, r);
  if (rc || rcv) return -2;
  simulate(&f, r, SEED_NOISE, id);
  simulate(&g, r, SEED_VALID_NOISE, val);
  print_trajectory("identification", id);
  print_trajectory("validation", val);
  return cond1 < cond0 ? 0 : -1; /* (-1: a failed check, the rest goes on) */
}

/* The validation errors, then every check; the number that failed. */
static int checks(const id_robot *r, const data *id, const data *val, const summary *S,
                  const double *rms_meas, const double *rms_true) {
  printf("\nvalidation trajectory, WLS estimate: RMS torque error per joint (N m)\n");
  printf("  %-20s", "measured - predicted");
  for (int j = 0; j < r->nv; j++) printf(" %7.3f", rms_meas[j]);
  printf("\n  %-20s", "true - predicted");
  for (int j = 0; j < r->nv; j++) printf(" %7.3f", rms_true[j]);
  printf("\n  %-20s", "noise sigma");
  for (int j = 0; j < r->nv; j++) printf(" %7.3f", r->sigma[j]);
  double vm = 0.0, vt = 0.0, lim = 1.0 + 1e-12;
  for (int j = 0; j < r->nv; j++)
    vm = fmax(vm, rms_meas[j] / r->sigma[j]), vt = fmax(vt, rms_true[j] / r->sigma[j]);
  printf("\n\nchecks\n");
  char line[128];
  int failed = check("the columns reproduce rnea + friction (max |W theta - tau| < 1e-9 N m)",
                     id->consistency < 1e-9 && val->consistency < 1e-9);
  failed += check("both trajectories within the limits",
                  fmax(id->qdev, val->qdev) <= lim && fmax(id->vmax, val->vmax) <= lim &&
                      fmax(id->amax, val->amax) <= lim && fmax(id->urdf, val->urdf) < 1.0);
  snprintf(line, sizeof line, "every OLS estimate within %.1f sd (worst %.2f)", MAX_SIGMAS,
           S->worst_ols);
  failed += check(line, S->worst_ols <= MAX_SIGMAS);
  snprintf(line, sizeof line, "every WLS estimate within %.1f sd (worst %.2f; RMS %.2f < %.1f)",
           MAX_SIGMAS, S->worst_wls, S->rms_wls, MAX_RMS_SIGMAS);
  failed += check(line, S->worst_wls <= MAX_SIGMAS && S->rms_wls < MAX_RMS_SIGMAS);
  snprintf(line, sizeof line, "WLS sd within %.0f %% of the Cramer-Rao bound (worst %.1f %%)",
           100.0 * (MAX_SD_CRB - 1.0), 100.0 * (S->sd_crb - 1.0));
  failed += check(line, S->sd_crb <= MAX_SD_CRB);
  snprintf(line, sizeof line, "validation: measured - predicted <= %.2f sigma (worst %.3f)",
           VALID_NOISE, vm);
  failed += check(line, vm <= VALID_NOISE);
  snprintf(line, sizeof line, "validation: true - predicted <= %.2f sigma (worst %.3f)",
           VALID_MODEL, vt);
  failed += check(line, vt <= VALID_MODEL);
  return failed;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  static id_robot r;
  static estimate ols, wls, crb;
  data id, val;
  if (robot_init(&r, stdout) != 0) {
    fprintf(stderr, "identify: cannot set up the robot's columns\n");
    return 1;
  }
  printf("%s: %d joints; %d parameters identified: %d base inertial parameters, %d joint "
         "(friction, armature, offset)\n", r.name, r.nv, r.ncol, r.nbase, r.ncol - r.nbase);
  printf("torque noise sigma (N m):");
  for (int j = 0; j < r.nv; j++) printf(" %.2f", r.sigma[j]);
  printf("\n");
  int rc = trajectories(&r, &id, &val), failed = rc != 0;
  if (rc == 0 || rc == -1) {
    double cond = lsq_cond(id.ns * r.nv, r.ncol, id.W);
    printf("cond(W), W the stacked [base regressor | joint columns], %d x %d: %.1f\n",
           id.ns * r.nv, r.ncol, cond);
    rc = solve(&id, &r, NULL, 0, &ols) || solve(&id, &r, ols.sigma_joint, 0, &wls) ||
         solve(&id, &r, r.sigma, 1, &crb);
    if (rc) fprintf(stderr, "identify: least squares failed\n");
  }
  if (rc == 0) {
    printf("OLS residual per joint (N m):");
    for (int j = 0; j < r.nv; j++) printf(" %.3f", ols.sigma_joint[j]);
    printf("  (the WLS weights)\n");
    summary S;
    double rms_meas[ID_MAXV], rms_true[ID_MAXV];
    report(&r, &ols, &wls, &crb, &S);
    failed |= validate(&val, &r, wls.x, dir, rms_meas, rms_true) != 0;
    failed |= checks(&r, &id, &val, &S, rms_meas, rms_true) != 0;
  }
  failed |= rc != 0;
  printf("identification: %s\n", failed ? "FAILED" : "passed");
  data_free(&id);
  data_free(&val);
  return failed ? 1 : 0;
}
