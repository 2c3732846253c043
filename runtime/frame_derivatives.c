/* frame_derivatives.c — the derivatives of the operational frames' velocity and acceleration
 * (mb.h "Operational frames"; docs/derivatives.md "Frame kinematics derivatives"), with the
 * bodies' quantities in the world frame at the world's origin as in derivatives.c.
 *
 * A frame fixed on body b has the world velocity V = [ω; v_p] (v_p = v + ω × p: the velocity of
 * its origin p from b's spatial velocity [ω; v] at the world's origin) and the acceleration
 * A = [α; a_p], a_p = a + α × p + ω × v_p (the classical acceleration of the origin from b's
 * spatial acceleration [α; a], no gravity). A tangent step of dof c (world column S_c = [ω_c; ·],
 * joint k ⪯ b) moves k's subtree rigidly: every world 3-vector of the frame turns by ω_c ×, and
 * b's spatial quantities change intrinsically by δv_b = Ψ̇_c and δa_b = Ψ̈_c + Ψ̇_c × v_b
 * (Ψ̇_c = v_λ × S_c, Ψ̈_c = a_λ × S_c + v_λ × Ψ̇_c, λ = λ(k); a universal joint's second column
 * hangs from its cross, derivatives.c). With P(x) = x_v + x_ω × p the linear part of a spatial
 * vector x at p:
 *   ∂ω/∂q_c = ω_c × ω + Ψ̇_ω,   ∂v_p/∂q_c = ω_c × v_p + P(Ψ̇),
 *   ∂α/∂q_c = ω_c × α + y_ω,   ∂a_p/∂q_c = ω_c × a_p + P(y) + Ψ̇_ω × v_p + ω × P(Ψ̇),
 * y = Ψ̈_c + Ψ̇_c × v_b. For the velocity coordinate, ∂v_b = S_c and ∂a_b = z = A_c + S_c × v_b
 * (A_c = Ψ̇_c + v_k × S_c): ∂V/∂v_c = [S_ω; P(S_c)] = J's column = ∂A/∂a_c, and
 *   ∂α/∂v_c = z_ω,   ∂a_p/∂v_c = P(z) + S_ω × v_p + ω × P(S_c).
 * In the frame's axes (Rᵀ x, R frame → world, δR = ω_c× R) the terms ω_c × · drop out of ∂/∂q
 * and every column is rotated by Rᵀ. Columns of dofs that do not move the frame are zero. */
#include "derivatives_internal.h"
#include "flex_internal.h"

/* What one frame's columns need: its body's world v, its origin p, ω, v_p, α, a_p, and R. */
typedef struct frame_state {
  const double *vb;
  double p[3], w[3], vp[3], al[3], ap[3], R[9];
  int local;
} frame_state;

/* P(x) = x_v + x_ω × p */
static void at_point(const frame_state *s, const double x[6], double out[3]) {
  mbs_cross(x, s->p, out);
  for (int a = 0; a < 3; a++) out[a] += x[3 + a];
}

static void frame_state_init(const mb_model *m, const mb_workspace *ws, const mb_frame *f,
                             int local, frame_state *s) {
  const double *E = ws->X0E + 9 * f->body, *r = ws->X0r + 3 * f->body;
  const double *ab = ws->dF + 6 * ((size_t)m->nb + 1) + 6 * f->body;
  double x[3];
  s->vb = ws->dF + 6 * f->body, s->local = local;
  mbs_mat3_tmv(E, f->p, s->p);
  for (int a = 0; a < 3; a++) s->p[a] += r[a];
  for (int a = 0; a < 3; a++) /* R = Eᵀ R_f: frame → world */
    for (int c = 0; c < 3; c++) {
      double sum = 0.0;
      for (int j = 0; j < 3; j++) sum += E[3 * j + a] * f->R[3 * j + c];
      s->R[3 * a + c] = sum;
    }
  for (int a = 0; a < 3; a++) s->w[a] = s->vb[a], s->al[a] = ab[a];
  at_point(s, s->vb, s->vp);
  at_point(s, ab, s->ap);
  mbs_cross(s->w, s->vp, x);
  for (int a = 0; a < 3; a++) s->ap[a] += x[a];
}

/* Column col of a 6 × nv block D: rows [x; y], in the frame's axes if local (Rᵀ), after adding
 * ω_c × (x0, y0) in world axes (wc NULL: nothing to add). */
static void put(const frame_state *s, double *D, int nv, int col, const double x[3],
                const double y[3], const double *wc, const double x0[3], const double y0[3]) {
  double u[6];
  for (int a = 0; a < 3; a++) u[a] = x[a], u[3 + a] = y[a];
  if (wc && !s->local) {
    double t[3];
    mbs_cross(wc, x0, t);
    for (int a = 0; a < 3; a++) u[a] += t[a];
    mbs_cross(wc, y0, t);
    for (int a = 0; a < 3; a++) u[3 + a] += t[a];
  }
  if (s->local) {
    double t[6];
    mbs_mat3_tmv(s->R, u, t), mbs_mat3_tmv(s->R, u + 3, t + 3);
    for (int a = 0; a < 6; a++) u[a] = t[a];
  }
  for (size_t r = 0; r < 6; r++) D[(size_t)nv * r + (size_t)col] = u[r];
}

/* The columns of dof col (its ws->dS block D) for one frame, into the non-NULL outputs. */
static void frame_column(const frame_state *s, const double *D, int nv, int col, double *dVq,
                         double *dVv, double *dAq, double *dAv, double *dAa) {
  const double *S = D, *Pd = D + 6, *Pdd = D + 12, *Ac = D + 18;
  double PS[3], PP[3], y[6], Py[3], x[3], t[3];
  at_point(s, S, PS);
  at_point(s, Pd, PP);
  if (dVq) put(s, dVq, nv, col, Pd, PP, S, s->w, s->vp);
  if (dVv) put(s, dVv, nv, col, S, PS, NULL, NULL, NULL);
  if (dAa) put(s, dAa, nv, col, S, PS, NULL, NULL, NULL);
  if (dAq) { /* y = Ψ̈ + Ψ̇ × v_b;  a_p: P(y) + Ψ̇_ω × v_p + ω × P(Ψ̇) */
    mbs_crm(Pd, s->vb, y);
    for (int k = 0; k < 6; k++) y[k] += Pdd[k];
    at_point(s, y, Py);
    mbs_cross(Pd, s->vp, x), mbs_cross(s->w, PP, t);
    for (int a = 0; a < 3; a++) Py[a] += x[a] + t[a];
    put(s, dAq, nv, col, y, Py, S, s->al, s->ap);
  }
  if (dAv) { /* z = A_c + S × v_b;  a_p: P(z) + S_ω × v_p + ω × P(S) */
    mbs_crm(S, s->vb, y);
    for (int k = 0; k < 6; k++) y[k] += Ac[k];
    at_point(s, y, Py);
    mbs_cross(S, s->vp, x), mbs_cross(s->w, PS, t);
    for (int a = 0; a < 3; a++) Py[a] += x[a] + t[a];
    put(s, dAv, nv, col, y, Py, NULL, NULL, NULL);
  }
}

void mbd_frame_blocks(const mb_model *m, mb_workspace *ws, const mb_frame *f, int local,
                      double *out[5], double val[24]) {
  int nv = m->nv;
  frame_state s;
  frame_state_init(m, ws, f, local, &s);
  for (int o = 0; o < 5; o++)
    for (size_t e = 0; out[o] && e < 6 * (size_t)nv; e++) out[o][e] = 0.0;
  for (int j = f->body; j > 0; j = m->parent[j])
    for (int c = 0; c < mb_joint_nv(m->jtype[j]); c++)
      frame_column(&s, ws->dS + 24 * (m->iv[j] + c), nv, m->iv[j] + c, out[0], out[1], out[2],
                   out[3], out[4]);
  if (!val) return;
  for (int a = 0; a < 9; a++) val[a] = s.R[a];
  for (int a = 0; a < 3; a++)
    val[9 + a] = s.p[a], val[12 + a] = s.w[a], val[15 + a] = s.vp[a], val[18 + a] = s.al[a],
            val[21 + a] = s.ap[a];
}

/* Every frame's blocks (6 × nv each at 6 nv k; NULL outputs skipped), zero where a dof does not
 * move the frame. */
static void frame_derivatives(const mb_model *m, const mb_frames *F, mb_workspace *ws, int local,
                              double *out[5]) {
  size_t blk = 6 * (size_t)m->nv;
  for (int k = 0; k < F->n; k++) {
    double *o[5];
    for (int l = 0; l < 5; l++) o[l] = out[l] ? out[l] + blk * (size_t)k : NULL;
    mbd_frame_blocks(m, ws, &F->frame[k], local, o, NULL);
  }
}

static int run(const mb_model *m, const mb_frames *F, mb_workspace *ws, const double *q,
               const double *v, const double *a, int local, double *out[5]) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!F || !q || F->n < 0 || (F->n > 0 && !F->frame)) return MB_EINVAL;
  if (mbf_on(m)) return MB_EINVAL;
  mb_xup(m, ws, q);
  mb_x0(m, ws);
  mbd_world_kinematics(m, ws, v, a, 0); /* a frame's acceleration: no gravity */
  frame_derivatives(m, F, ws, local, out);
  size_t n = 6 * (size_t)m->nv * (size_t)F->n;
  for (int o = 0; o < 5; o++)
    if (out[o] && !mbs_finite(out[o], n)) return MB_ENUMERIC;
  return MB_OK;
}

int mb_frame_velocity_derivatives(const mb_model *m, const mb_frames *F, mb_workspace *ws,
                                  const double *q, const double *v, int local, double *dV_dq,
                                  double *dV_dv) {
  double *out[5] = {dV_dq, dV_dv, NULL, NULL, NULL};
  return run(m, F, ws, q, v, NULL, local, out);
}

int mb_frame_acceleration_derivatives(const mb_model *m, const mb_frames *F, mb_workspace *ws,
                                      const double *q, const double *v, const double *a,
                                      int local, double *dA_dq, double *dA_dv, double *dA_da) {
  double *out[5] = {NULL, NULL, dA_dq, dA_dv, dA_da};
  return run(m, F, ws, q, v, a, local, out);
}
