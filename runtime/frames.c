/* frames.c — operational frames (mb.h "Operational frames"): named frames fixed on bodies, and
 * their world poses. */
#include <math.h>
#include <stdio.h>

#include "mb.h"

static int fail(char *msg, size_t msgsize, const char *why, int k) {
  if (msg && msgsize > 0) snprintf(msg, msgsize, "frame %d: %s", k, why);
  return -1;
}

int mb_frames_check(const mb_model *m, const mb_frames *F, char *msg, size_t msgsize) {
  if (!m || !F) return fail(msg, msgsize, "NULL model or frames", -1);
  if (F->n < 0 || (F->n > 0 && !F->frame)) return fail(msg, msgsize, "bad count or NULL array", -1);
  for (int k = 0; k < F->n; k++) {
    const mb_frame *f = &F->frame[k];
    if (f->body < 0 || f->body > m->nb) return fail(msg, msgsize, "body out of range", k);
    if (!mbs_finite(f->R, 9) || !mbs_is_rotation(f->R)) return fail(msg, msgsize, "R is no rotation", k);
    if (!mbs_finite(f->p, 3)) return fail(msg, msgsize, "p not finite", k);
  }
  return 0;
}

int mb_frame_pose(const mb_model *m, const mb_frames *F, mb_workspace *ws, const double *q,
                  double *pose) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!F || !q || !pose || F->n < 0 || (F->n > 0 && !F->frame)) return MB_EINVAL;
  mb_xup(m, ws, q);
  mb_x0(m, ws);
  for (int k = 0; k < F->n; k++) {
    const mb_frame *f = &F->frame[k];
    const double *E = ws->X0E + 9 * f->body, *r = ws->X0r + 3 * f->body; /* bX0 */
    double *P = pose + 12 * (size_t)k, x[3];
    /* R_w←f = R_w←b R_b←f = Eᵀ R;  p_w = r + Eᵀ p */
    for (int a = 0; a < 3; a++)
      for (int c = 0; c < 3; c++) {
        double s = 0.0;
        for (int j = 0; j < 3; j++) s += E[3 * j + a] * f->R[3 * j + c];
        P[3 * a + c] = s;
      }
    mbs_mat3_tmv(E, f->p, x);
    for (int a = 0; a < 3; a++) P[9 + a] = r[a] + x[a];
  }
  return mbs_finite(pose, 12 * (size_t)F->n) ? MB_OK : MB_ENUMERIC;
}

/* ---------------------------------------------------------------------------------- velocities */

/* The common start: checks, joint transforms and world transforms; MB_EINVAL for a model with
 * flexible bodies (their modes move the frames beyond them: not covered yet). */
static int start(const mb_model *m, const mb_frames *F, mb_workspace *ws, const double *q,
                 const void *out) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!F || !q || !out || F->n < 0 || (F->n > 0 && !F->frame)) return MB_EINVAL;
  if (mb_flex_count(m, 0) > 0) return MB_EINVAL;
  mb_xup(m, ws, q);
  mb_x0(m, ws);
  return MB_OK;
}

/* Frame f's origin in world coordinates. */
static void origin_world(const mb_workspace *ws, const mb_frame *f, double p[3]) {
  const double *E = ws->X0E + 9 * f->body, *r = ws->X0r + 3 * f->body;
  mbs_mat3_tmv(E, f->p, p);
  for (int a = 0; a < 3; a++) p[a] += r[a];
}

/* x (3) ← Rᵀ x with R the frame's world rotation Eᵀ R_f: the world-aligned vector in frame axes. */
static void to_local(const mb_workspace *ws, const mb_frame *f, double x[3]) {
  double y[3], z[3];
  mbs_mat3_mv(ws->X0E + 9 * f->body, x, y); /* body axes */
  mbs_mat3_tmv(f->R, y, z);                 /* frame axes: R_f maps frame → body */
  for (int a = 0; a < 3; a++) x[a] = z[a];
}

int mb_frame_jacobian(const mb_model *m, const mb_frames *F, mb_workspace *ws, const double *q,
                      int local, double *J) {
  int rc = start(m, F, ws, q, J), nv = m->nv;
  if (rc) return rc;
  for (int k = 0; k < F->n; k++) {
    const mb_frame *f = &F->frame[k];
    double *Jk = J + 6 * (size_t)nv * (size_t)k, pf[3];
    for (int e = 0; e < 6 * nv; e++) Jk[e] = 0.0;
    origin_world(ws, f, pf);
    for (int j = f->body; j > 0; j = m->parent[j]) { /* the joints that move the frame */
      const double *E = ws->X0E + 9 * j, *pj = ws->X0r + 3 * j;
      double d[3] = {pf[0] - pj[0], pf[1] - pj[1], pf[2] - pj[2]};
      for (int c = 0; c < mb_joint_nv(m->jtype[j]); c++) {
        const double *s = ws->S + 6 * (m->iv[j] + c);
        double w[3], u[3], x[3];
        mbs_mat3_tmv(E, s, w);     /* ω, world axes */
        mbs_mat3_tmv(E, s + 3, u); /* the velocity of j's origin, world axes */
        mbs_cross(w, d, x);        /* moved to the frame's origin */
        for (int a = 0; a < 3; a++) u[a] += x[a];
        if (local) to_local(ws, f, w), to_local(ws, f, u);
        size_t col = (size_t)(m->iv[j] + c);
        for (size_t a = 0; a < 3; a++) {
          Jk[(size_t)nv * a + col] = w[a];
          Jk[(size_t)nv * (3 + a) + col] = u[a];
        }
      }
    }
  }
  return mbs_finite(J, 6 * (size_t)nv * (size_t)F->n) ? MB_OK : MB_ENUMERIC;
}

int mb_frame_velocity(const mb_model *m, const mb_frames *F, mb_workspace *ws, const double *q,
                      const double *v, double *vel) {
  int rc = start(m, F, ws, q, vel);
  if (rc) return rc;
  if (!v) return MB_EINVAL;
  mb_bias_pass(m, ws, v);
  for (int k = 0; k < F->n; k++) {
    const mb_frame *f = &F->frame[k];
    const double *vb = ws->v + 6 * f->body, *E = ws->X0E + 9 * f->body;
    double w[3], u[3]; /* ω and the velocity of the frame's origin, body axes */
    mbs_cross(vb, f->p, u);
    for (int a = 0; a < 3; a++) w[a] = vb[a], u[a] += vb[3 + a];
    mbs_mat3_tmv(E, w, vel + 6 * (size_t)k);
    mbs_mat3_tmv(E, u, vel + 6 * (size_t)k + 3);
  }
  return mbs_finite(vel, 6 * (size_t)F->n) ? MB_OK : MB_ENUMERIC;
}

int mb_frame_acceleration_bias(const mb_model *m, const mb_frames *F, mb_workspace *ws,
                               const double *q, const double *v, double *acc) {
  int rc = start(m, F, ws, q, acc);
  if (rc) return rc;
  if (!v) return MB_EINVAL;
  mb_bias_pass(m, ws, v);
  for (int k = 0; k < F->n; k++) {
    const mb_frame *f = &F->frame[k];
    const double *vb = ws->v + 6 * f->body, *ab = ws->a + 6 * f->body, *E = ws->X0E + 9 * f->body;
    /* at the point r = p_f: a_cl = a_o + α × r + ω × (v_o + ω × r), body axes */
    double vp[3], ap[3], t[3];
    mbs_cross(vb, f->p, vp);
    for (int a = 0; a < 3; a++) vp[a] += vb[3 + a];
    mbs_cross(ab, f->p, ap);
    mbs_cross(vb, vp, t);
    for (int a = 0; a < 3; a++) ap[a] += ab[3 + a] + t[a];
    mbs_mat3_tmv(E, ab, acc + 6 * (size_t)k);
    mbs_mat3_tmv(E, ap, acc + 6 * (size_t)k + 3);
  }
  return mbs_finite(acc, 6 * (size_t)F->n) ? MB_OK : MB_ENUMERIC;
}
