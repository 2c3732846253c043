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
