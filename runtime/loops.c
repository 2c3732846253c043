/* loops.c — loop (cut) joint constraints: the residual φ(q), the Jacobian K(q) and the bias K̇v
 * (mb.h "Closed loops"; Haug's basic constraints as used by Kang & Yoon, eqs. 37-41).
 *
 * Every row is a scalar function of world vectors that move with body a or body b. A moving vector
 * is carried with its time derivatives and its velocity map: u̇ = G_a v_a + G_b v_b (G 3×6, v the
 * bodies' spatial velocities in body coordinates), so a row s = u · w has the covector
 * g_x = uᵀ G_w,x + wᵀ G_u,x on each side x, and s̈ at q̈ = 0 = ü · w + 2 u̇ · ẇ + u · ẅ. K's row
 * is then the generalized force of the "wrenches" g_a on a and g_b on b: carried to the root like
 * the RNEA's backward pass, K_rk = S_kᵀ (kX*_x g_x). */
#include "mb.h"
#include "loops_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ----------------------------------------------------------------------------- row catalogue */

/* vectors a row uses, in loop-frame (or target-frame) coordinates */
enum vec { V_X, V_Y, V_Z, V_AXIS, V_U1, V_U2, V_AXIS2 };

typedef struct row_def {
  const char *name;
  enum row_kind kind;
  enum vec u, w; /* d1: u on a, w on b;  d2: u on a */
} row_def;

static const row_def rows_revolute[] = {{"x", ROW_D2, V_X, 0},         {"y", ROW_D2, V_Y, 0},
                                        {"z", ROW_D2, V_Z, 0},         {"tilt1", ROW_D1, V_U1, V_AXIS},
                                        {"tilt2", ROW_D1, V_U2, V_AXIS}};
static const row_def rows_prismatic[] = {
    {"tilt1", ROW_D1, V_U1, V_AXIS}, {"tilt2", ROW_D1, V_U2, V_AXIS}, {"twist", ROW_D1, V_U1, V_U2},
    {"slide1", ROW_D2, V_U1, 0},     {"slide2", ROW_D2, V_U2, 0}};
static const row_def rows_helical[] = {{"tilt1", ROW_D1, V_U1, V_AXIS}, {"tilt2", ROW_D1, V_U2, V_AXIS},
                                       {"slide1", ROW_D2, V_U1, 0},     {"slide2", ROW_D2, V_U2, 0},
                                       {"screw", ROW_SCREW, 0, 0}};
static const row_def rows_s[] = {{"x", ROW_D2, V_X, 0}, {"y", ROW_D2, V_Y, 0}, {"z", ROW_D2, V_Z, 0}};
static const row_def rows_fixed[] = {{"x", ROW_D2, V_X, 0},        {"y", ROW_D2, V_Y, 0},
                                     {"z", ROW_D2, V_Z, 0},        {"tilt1", ROW_D1, V_X, V_Z},
                                     {"tilt2", ROW_D1, V_Y, V_Z}, {"twist", ROW_D1, V_X, V_Y}};
static const row_def rows_planar[] = {{"tilt1", ROW_D1, V_U1, V_AXIS},
                                      {"tilt2", ROW_D1, V_U2, V_AXIS},
                                      {"normal", ROW_D2, V_AXIS, 0}};
static const row_def rows_cylindrical[] = {{"tilt1", ROW_D1, V_U1, V_AXIS},
                                           {"tilt2", ROW_D1, V_U2, V_AXIS},
                                           {"slide1", ROW_D2, V_U1, 0},
                                           {"slide2", ROW_D2, V_U2, 0}};
static const row_def rows_universal[] = {{"x", ROW_D2, V_X, 0},
                                         {"y", ROW_D2, V_Y, 0},
                                         {"z", ROW_D2, V_Z, 0},
                                         {"cross", ROW_D1, V_AXIS, V_AXIS2}};
static const row_def rows_d1[] = {{"d1", ROW_D1, V_AXIS, V_AXIS2}};
static const row_def rows_d2[] = {{"d2", ROW_D2, V_AXIS, 0}};
static const row_def rows_ss[] = {{"ss", ROW_SS, 0, 0}};

static const row_def *loop_rows(mb_loop_type t, int *n) {
#define ROWS(a) (*n = (int)(sizeof a / sizeof a[0]), a)
  switch (t) {
  case MB_LOOP_REVOLUTE:
  case MB_LOOP_CONTINUOUS: return ROWS(rows_revolute);
  case MB_LOOP_PRISMATIC: return ROWS(rows_prismatic);
  case MB_LOOP_HELICAL: return ROWS(rows_helical);
  case MB_LOOP_SPHERICAL:
  case MB_LOOP_S: return ROWS(rows_s);
  case MB_LOOP_FIXED: return ROWS(rows_fixed);
  case MB_LOOP_PLANAR: return ROWS(rows_planar);
  case MB_LOOP_CYLINDRICAL: return ROWS(rows_cylindrical);
  case MB_LOOP_UNIVERSAL: return ROWS(rows_universal);
  case MB_LOOP_D1: return ROWS(rows_d1);
  case MB_LOOP_D2: return ROWS(rows_d2);
  case MB_LOOP_SS: return ROWS(rows_ss);
  default: *n = 0; return NULL;
  }
#undef ROWS
}

int mb_loop_nrows(mb_loop_type t) {
  int n;
  loop_rows(t, &n);
  return n;
}

const char *mb_loop_row_name(mb_loop_type t, int k) {
  int n;
  const row_def *r = loop_rows(t, &n);
  return (k >= 0 && k < n) ? r[k].name : NULL;
}

/* The parameters a loop type takes (mb.h MB_LOOP_JOINT_TYPES, MB_LOOP_BASIC_TYPES): a joint
 * type's axis and pitch as the joint table says, a basic constraint's as its row says. */
typedef struct loop_params {
  int axis, axis2, pitch, distance;
} loop_params;

static loop_params loop_type_params(mb_loop_type t) {
  loop_params p = {0, 0, 0, 0};
  switch (t) {
#define MB_LOOP_JOINT_PARAMS(NAME)                  \
  case MB_LOOP_##NAME:                              \
    p.axis = mb_joint_has_axis(MB_JOINT_##NAME);    \
    p.axis2 = MB_JOINT_##NAME == MB_JOINT_UNIVERSAL; \
    p.pitch = mb_joint_has_pitch(MB_JOINT_##NAME);  \
    break;
#define MB_LOOP_BASIC_PARAMS(NAME, name, axis_, axis2_, distance_) \
  case MB_LOOP_##NAME:                                              \
    p.axis = axis_, p.axis2 = axis2_, p.distance = distance_;       \
    break;
    MB_LOOP_JOINT_TYPES(MB_LOOP_JOINT_PARAMS)
    MB_LOOP_BASIC_TYPES(MB_LOOP_BASIC_PARAMS)
#undef MB_LOOP_JOINT_PARAMS
#undef MB_LOOP_BASIC_PARAMS
  case MB_LOOP_TYPE_COUNT: break;
  }
  return p;
}

/* u1: the coordinate axis least aligned with a, made orthogonal to a (the first of equals) */
static void loop_perp(const double a[3], double u1[3], double u2[3]) {
  int k = 0;
  for (int j = 1; j < 3; j++)
    if (fabs(a[j]) < fabs(a[k])) k = j;
  double d = a[k], n = 0.0;
  for (int j = 0; j < 3; j++) u1[j] = (j == k ? 1.0 : 0.0) - d * a[j], n += u1[j] * u1[j];
  n = sqrt(n);
  for (int j = 0; j < 3; j++) u1[j] /= n;
  mbs_cross(a, u1, u2);
}

void mb_loop_perp_(const double a[3], double u1[3], double u2[3]) { loop_perp(a, u1, u2); }

static void loop_vec(const mb_loop *l, enum vec v, double out[3]) {
  double u1[3], u2[3];
  for (int j = 0; j < 3; j++) out[j] = 0.0;
  switch (v) {
  case V_X: out[0] = 1.0; break;
  case V_Y: out[1] = 1.0; break;
  case V_Z: out[2] = 1.0; break;
  case V_AXIS: memcpy(out, l->axis, sizeof l->axis); break;
  case V_AXIS2: memcpy(out, l->axis2, sizeof l->axis2); break;
  case V_U1: loop_perp(l->axis, out, u2); break;
  case V_U2: loop_perp(l->axis, u1, out); break;
  }
}

static int unit(const double a[3]) {
  return fabs(sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) - 1.0) <= 1e-9;
}


static int fail(char *msg, size_t n, const char *what, int l) {
  if (msg && n) snprintf(msg, n, "loop %d: %s", l, what);
  return -1;
}

int mb_loops_check(const mb_model *m, const mb_loops *L, char *msg, size_t msgsize) {
  if (!m || !L) return fail(msg, msgsize, "NULL model or loops", -1);
  if (L->nloops < 0 || (L->nloops > 0 && !L->loop) || L->nc < 0 || (L->nc > 0 && !L->row))
    return fail(msg, msgsize, "bad sizes or NULL arrays", -1);
  if (L->nloops > 0 && mb_flex_count(m, 0) > 0)
    return fail(msg, msgsize, "loops in a model with flexible bodies are not supported", -1);
  for (int l = 0; l < L->nloops; l++) {
    const mb_loop *p = &L->loop[l];
    if ((int)p->type < 0 || p->type >= MB_LOOP_TYPE_COUNT) return fail(msg, msgsize, "bad type", l);
    if (p->a < 0 || p->a > m->nb || p->b < 0 || p->b > m->nb || p->a == p->b)
      return fail(msg, msgsize, "bodies out of range or equal", l);
    if (!mbs_is_rotation(p->Ea) || !mbs_is_rotation(p->Eb)) return fail(msg, msgsize, "not a rotation", l);
    loop_params takes = loop_type_params(p->type);
    if (takes.axis && !unit(p->axis)) return fail(msg, msgsize, "axis not unit", l);
    if (takes.axis2 && !unit(p->axis2)) return fail(msg, msgsize, "axis2 not unit", l);
    if (takes.distance && !(p->distance > 0.0 && isfinite(p->distance)))
      return fail(msg, msgsize, "distance not positive", l);
    if (takes.pitch && !isfinite(p->pitch)) return fail(msg, msgsize, "pitch not finite", l);
  }
  for (int r = 0; r < L->nc; r++) {
    int l = L->row[r] / MB_LOOP_MAX_ROWS, k = L->row[r] % MB_LOOP_MAX_ROWS;
    if (L->row[r] < 0 || l >= L->nloops || k >= mb_loop_nrows(L->loop[l].type) ||
        (r > 0 && L->row[r] <= L->row[r - 1]))
      return fail(msg, msgsize, "row list not ascending or a row that does not exist", l);
  }
  return 0;
}

/* ---------------------------------------------------------------------------------- workspace */

size_t mb_loop_workspace_size(const mb_model *m, const mb_loops *L) {
  if (!m || !L) return 0;
  if (m->nb < 0 || m->nb > MB_MAX_BODIES || L->nc < 0 || L->nc > 6 * (m->nb + 1) + 6 * L->nloops)
    return SIZE_MAX;
  size_t n = 0;
#define MB_LWS_SIZE(name, count) n += (size_t)(count);
  MB_LOOP_WORKSPACE_ARRAYS(MB_LWS_SIZE)
#undef MB_LWS_SIZE
  return n > SIZE_MAX / sizeof(double) ? SIZE_MAX : n * sizeof(double);
}

int mb_loop_workspace_init(mb_loop_workspace *lw, const mb_model *m, const mb_loops *L,
                           void *buffer) {
  double *p = buffer;
  if (!lw || !m || !L || !buffer) return MB_EINVAL;
  size_t size = mb_loop_workspace_size(m, L);
  if (size == SIZE_MAX) return MB_EINVAL; /* nc < 0 or too large: no layout */
  memset(buffer, 0, size);
  lw->model = m, lw->loops = L, lw->tag = MB_LWS_TAG;
  lw->nv = m->nv, lw->nc = L->nc, lw->singular = 0;
#define MB_LWS_LAYOUT(name, count) \
  lw->name = p;                    \
  p += (size_t)(count);
  MB_LOOP_WORKSPACE_ARRAYS(MB_LWS_LAYOUT)
#undef MB_LWS_LAYOUT
  return MB_OK;
}

static int lws_check(const mb_model *m, const mb_loops *L, const mb_workspace *ws,
                     const mb_loop_workspace *lw) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!L || !lw) return MB_EINVAL;
  if (lw->tag != MB_LWS_TAG || lw->model != m || lw->loops != L || lw->nv != m->nv ||
      lw->nc != L->nc)
    return MB_EWORKSPACE;
  return MB_OK;
}

/* -------------------------------------------------------------------------------- kinematics */

/* World poses into lw->pose; with v, the world velocities and the q̈ = 0 accelerations too. */
static void loop_kinematics(const mb_model *m, mb_workspace *ws, mb_loop_workspace *lw,
                            const double *q, const double *v) {
  mb_xup(m, ws, q);
  for (int k = 0; k < 12; k++) lw->pose[k] = (k < 9 && k % 4 == 0) ? 1.0 : 0.0;
  for (int k = 0; k < 6; k++) lw->bv[k] = lw->ba[k] = lw->vel[k] = lw->acc[k] = 0.0;
  for (int i = 1; i <= m->nb; i++) {
    double *E = ws->X0E + 9 * i, *r = ws->X0r + 3 * i, *P = lw->pose + 12 * i;
    int p = m->parent[i];
    mbs_X_compose(ws->XE + 9 * i, ws->Xr + 3 * i, ws->X0E + 9 * p, ws->X0r + 3 * p, E, r);
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) P[3 * a + b] = E[3 * b + a];
    for (int k = 0; k < 3; k++) P[9 + k] = r[k];
    if (!v) continue;
    /* v_i = iXλ v_λ + S q̇;  a_i = iXλ a_λ + v_i × S q̇ + cJ  (q̈ = 0, no gravity) */
    int n = mb_joint_nv(m->jtype[i]), o = m->iv[i];
    double vJ[6] = {0}, t[6], *bv = lw->bv + 6 * i, *ba = lw->ba + 6 * i;
    for (int c = 0; c < n; c++)
      for (int k = 0; k < 6; k++) vJ[k] += ws->S[6 * (o + c) + k] * v[o + c];
    mbs_X_mv(ws->XE + 9 * i, ws->Xr + 3 * i, lw->bv + 6 * p, bv);
    for (int k = 0; k < 6; k++) bv[k] += vJ[k];
    mbs_X_mv(ws->XE + 9 * i, ws->Xr + 3 * i, lw->ba + 6 * p, ba);
    mbs_crm(bv, vJ, t);
    for (int k = 0; k < 6; k++) ba[k] += t[k];
    mb_joint_cJ(m, i, ws->S + 6 * o, v + o, ba);
    /* world: ω, v_o = R v;  α = R ω̇;  classical a_o = R (a_lin + ω × v_lin) */
    double w[6];
    mbs_cross(bv, bv + 3, t);
    for (int k = 0; k < 3; k++) w[k] = ba[k], w[3 + k] = ba[3 + k] + t[k];
    for (int a = 0; a < 3; a++) {
      double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (int b = 0; b < 3; b++) {
        s0 += P[3 * a + b] * bv[b], s1 += P[3 * a + b] * bv[3 + b];
        s2 += P[3 * a + b] * w[b], s3 += P[3 * a + b] * w[3 + b];
      }
      lw->vel[6 * i + a] = s0, lw->vel[6 * i + 3 + a] = s1;
      lw->acc[6 * i + a] = s2, lw->acc[6 * i + 3 + a] = s3;
    }
  }
}

/* A world vector moving with the bodies: value, u̇, ü (q̈ = 0), and u̇ = G[0] v_a + G[1] v_b. */
typedef struct mvec {
  double u[3], du[3], ddu[3];
  double G[2][18]; /* 3×6 row-major, against [ω; v] in body coordinates */
} mvec;

/* c (body coordinates) fixed in body `body` (side 0 = a, 1 = b); as a point if point != 0. */
static void mvec_body(const mb_loop_workspace *lw, int body, int side, const double c[3],
                      int point, mvec *x) {
  const double *R = lw->pose + 12 * body, *w = lw->vel + 6 * body, *al = lw->acc + 6 * body;
  double rho[3], t[3], s[3];
  memset(x, 0, sizeof *x);
  mbs_mat3_mv(R, c, rho);
  /* u̇ = ω × ρ (+ v_o);  ü = α × ρ + ω × (ω × ρ) (+ a_o) */
  mbs_cross(w, rho, x->du);
  mbs_cross(al, rho, x->ddu);
  mbs_cross(w, x->du, t);
  for (int k = 0; k < 3; k++) {
    x->u[k] = rho[k] + (point ? R[9 + k] : 0.0);
    x->ddu[k] += t[k] + (point ? al[3 + k] : 0.0);
    x->du[k] += point ? w[3 + k] : 0.0;
  }
  if (body == 0) return;
  /* ω_world × ρ = −ρ× R ω_body;  v_o = R v_body */
  double *G = x->G[side];
  for (int r = 0; r < 3; r++)
    for (int k = 0; k < 3; k++) {
      double e[3] = {R[k], R[3 + k], R[6 + k]}; /* column k of R: R e_k */
      mbs_cross(rho, e, s);
      G[6 * r + k] = -s[r];
      G[6 * r + 3 + k] = point ? R[3 * r + k] : 0.0;
    }
}

/* A row's value, covectors g_a, g_b (body coordinates) and φ̈ at q̈ = 0. */
typedef struct srow {
  double val, g[12], dd;
} srow;

static void dot_row(const mvec *u, const mvec *w, srow *s) {
  s->val = s->dd = 0.0;
  for (int k = 0; k < 3; k++) {
    s->val += u->u[k] * w->u[k];
    s->dd += u->ddu[k] * w->u[k] + 2.0 * u->du[k] * w->du[k] + u->u[k] * w->ddu[k];
  }
  for (int side = 0; side < 2; side++)
    for (int j = 0; j < 6; j++) {
      double x = 0.0;
      for (int k = 0; k < 3; k++)
        x += u->u[k] * w->G[side][6 * k + j] + w->u[k] * u->G[side][6 * k + j];
      s->g[6 * side + j] = x;
    }
}

static void mvec_sub(const mvec *p, const mvec *q, mvec *d) {
  for (int k = 0; k < 3; k++)
    d->u[k] = p->u[k] - q->u[k], d->du[k] = p->du[k] - q->du[k], d->ddu[k] = p->ddu[k] - q->ddu[k];
  for (int s = 0; s < 2; s++)
    for (int k = 0; k < 18; k++) d->G[s][k] = p->G[s][k] - q->G[s][k];
}

/* A loop-frame vector (or, on b, target-frame vector) in body coordinates: Eᵀ c. */
static void frame_vec(const double E[9], const double c[3], double out[3]) {
  mbs_mat3_tmv(E, c, out);
}

/* θ of a helical loop with its covector and θ̈ at q̈ = 0 (atan2 of two d1 rows). */
static void screw_angle(const mb_loop_workspace *lw, const mb_loop *l, srow *th) {
  double u1[3], u2[3], c[3];
  mvec a1, a2, b1;
  srow x, y;
  loop_perp(l->axis, u1, u2);
  frame_vec(l->Ea, u1, c), mvec_body(lw, l->a, 0, c, 0, &a1);
  frame_vec(l->Ea, u2, c), mvec_body(lw, l->a, 0, c, 0, &a2);
  frame_vec(l->Eb, u1, c), mvec_body(lw, l->b, 1, c, 0, &b1);
  dot_row(&a1, &b1, &x), dot_row(&a2, &b1, &y);
  double rho = x.val * x.val + y.val * y.val, xd = 0.0, yd = 0.0;
  th->val = atan2(y.val, x.val);
  /* θ̇ = (x ẏ − y ẋ)/ρ: the covector, and θ̈ = (x ÿ − y ẍ)/ρ − 2 (x ẏ − y ẋ)(x ẋ + y ẏ)/ρ² with
   * ẋ, ẏ at the current velocities (their covectors applied to the body velocities) */
  for (int j = 0; j < 12; j++) th->g[j] = (x.val * y.g[j] - y.val * x.g[j]) / rho;
  for (int j = 0; j < 6; j++) {
    const double *va = lw->bv + 6 * l->a, *vb = lw->bv + 6 * l->b;
    xd += x.g[j] * va[j] + x.g[6 + j] * vb[j];
    yd += y.g[j] * va[j] + y.g[6 + j] * vb[j];
  }
  double num = x.val * yd - y.val * xd;
  th->dd = (x.val * y.dd - y.val * x.dd) / rho - 2.0 * num * (x.val * xd + y.val * yd) / (rho * rho);
}

int mb_loop_row_def_(const mb_loop *l, int k, double u[3], double w[3]) {
  int n;
  const row_def *def = loop_rows(l->type, &n) + k;
  loop_vec(l, def->u, u), loop_vec(l, def->w, w);
  return (int)def->kind;
}

/* Row k of loop l. */
static void loop_row(const mb_loop_workspace *lw, const mb_loop *l, int k, srow *s) {
  int n;
  const row_def *def = loop_rows(l->type, &n) + k;
  double c[3], e[3];
  mvec u, w, pa, pb, d;
  mvec_body(lw, l->a, 0, l->ra, 1, &pa);
  mvec_body(lw, l->b, 1, l->rb, 1, &pb);
  mvec_sub(&pb, &pa, &d);
  switch (def->kind) {
  case ROW_D1:
    loop_vec(l, def->u, e), frame_vec(l->Ea, e, c), mvec_body(lw, l->a, 0, c, 0, &u);
    loop_vec(l, def->w, e), frame_vec(l->Eb, e, c), mvec_body(lw, l->b, 1, c, 0, &w);
    dot_row(&u, &w, s);
    break;
  case ROW_D2:
    loop_vec(l, def->u, e), frame_vec(l->Ea, e, c), mvec_body(lw, l->a, 0, c, 0, &u);
    dot_row(&u, &d, s);
    break;
  case ROW_SS:
    dot_row(&d, &d, s);
    s->val -= l->distance * l->distance;
    break;
  case ROW_SCREW: {
    srow th;
    frame_vec(l->Ea, l->axis, c), mvec_body(lw, l->a, 0, c, 0, &u);
    dot_row(&u, &d, s);
    screw_angle(lw, l, &th);
    s->val -= l->pitch * th.val, s->dd -= l->pitch * th.dd;
    for (int j = 0; j < 12; j++) s->g[j] -= l->pitch * th.g[j];
    break;
  }
  }
}

/* Every kept row into lw->phi, lw->g and (with v) lw->kb. */
static void loop_rows_eval(const mb_loops *L, mb_loop_workspace *lw, int bias) {
  for (int r = 0; r < L->nc; r++) {
    const mb_loop *l = &L->loop[L->row[r] / MB_LOOP_MAX_ROWS];
    srow s;
    loop_row(lw, l, L->row[r] % MB_LOOP_MAX_ROWS, &s);
    lw->phi[r] = s.val;
    for (int j = 0; j < 12; j++) lw->g[12 * r + j] = s.g[j];
    if (bias) lw->kb[r] = s.dd;
  }
}

/* K row r += the generalized force of the wrench g on body i: carried to the root. */
static void jacobian_add(const mb_model *m, const mb_workspace *ws, int i, const double g[6],
                         double *Krow) {
  double f[6], t[6];
  memcpy(f, g, sizeof f);
  for (; i > 0; i = m->parent[i]) {
    for (int c = 0, o = m->iv[i]; c < mb_joint_nv(m->jtype[i]); c++) {
      const double *S = ws->S + 6 * (o + c);
      for (int k = 0; k < 6; k++) Krow[o + c] += S[k] * f[k];
    }
    mbs_XT_fv(ws->XE + 9 * i, ws->Xr + 3 * i, f, t);
    memcpy(f, t, sizeof f);
  }
}

static double norm3(const double x[3]) { return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]); }

void mb_loop_kabs_row_(const mb_model *m, const mb_loops *L, const mb_workspace *ws,
                       const mb_loop_workspace *lw, int r, double *out) {
  const mb_loop *l = &L->loop[L->row[r] / MB_LOOP_MAX_ROWS];
  for (int k = 0; k < m->nv; k++) out[k] = 0.0;
  for (int side = 0; side < 2; side++) {
    const double *g = lw->g + 12 * r + 6 * side;
    double n = norm3(g), f = norm3(g + 3);
    /* λX*ᵢ (n, f) = (Eᵀ n + r × Eᵀ f, Eᵀ f): |n'| ≤ |n| + |r| |f|, |f'| = |f| */
    for (int i = side ? l->b : l->a; i > 0; i = m->parent[i]) {
      for (int c = 0, o = m->iv[i]; c < mb_joint_nv(m->jtype[i]); c++) {
        const double *S = ws->S + 6 * (o + c);
        out[o + c] += norm3(S) * n + norm3(S + 3) * f;
      }
      n += norm3(ws->Xr + 3 * i) * f;
    }
  }
}

static void loop_jacobian_fill(const mb_model *m, const mb_loops *L, const mb_workspace *ws,
                               const mb_loop_workspace *lw, double *K) {
  for (int r = 0; r < L->nc; r++) {
    const mb_loop *l = &L->loop[L->row[r] / MB_LOOP_MAX_ROWS];
    double *Kr = K + (size_t)r * (size_t)m->nv;
    for (int k = 0; k < m->nv; k++) Kr[k] = 0.0;
    jacobian_add(m, ws, l->a, lw->g + 12 * r, Kr);
    jacobian_add(m, ws, l->b, lw->g + 12 * r + 6, Kr);
  }
}

int mb_loop_residual(const mb_model *m, const mb_loops *L, mb_workspace *ws,
                     mb_loop_workspace *lw, const double *q, double *phi) {
  int rc = lws_check(m, L, ws, lw);
  if (rc) return rc;
  if (!q || !phi) return MB_EINVAL;
  loop_kinematics(m, ws, lw, q, NULL);
  loop_rows_eval(L, lw, 0);
  memcpy(phi, lw->phi, sizeof *phi * (size_t)L->nc);
  return mbs_finite(phi, (size_t)L->nc) ? MB_OK : MB_ENUMERIC;
}

int mb_loop_jacobian(const mb_model *m, const mb_loops *L, mb_workspace *ws,
                     mb_loop_workspace *lw, const double *q, double *K) {
  int rc = lws_check(m, L, ws, lw);
  if (rc) return rc;
  if (!q || !K) return MB_EINVAL;
  loop_kinematics(m, ws, lw, q, NULL);
  loop_rows_eval(L, lw, 0);
  loop_jacobian_fill(m, L, ws, lw, K);
  return mbs_finite(K, (size_t)L->nc * (size_t)m->nv) ? MB_OK : MB_ENUMERIC;
}

int mb_loop_bias(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                 const double *q, const double *v, double *kb) {
  int rc = lws_check(m, L, ws, lw);
  if (rc) return rc;
  if (!q || !v || !kb) return MB_EINVAL;
  loop_kinematics(m, ws, lw, q, v);
  loop_rows_eval(L, lw, 1);
  memcpy(kb, lw->kb, sizeof *kb * (size_t)L->nc);
  return mbs_finite(kb, (size_t)L->nc) ? MB_OK : MB_ENUMERIC;
}

int mb_loop_all_(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                 const double *q, const double *v) {
  int rc = lws_check(m, L, ws, lw);
  if (rc) return rc;
  if (!q) return MB_EINVAL;
  loop_kinematics(m, ws, lw, q, v);
  loop_rows_eval(L, lw, v != NULL);
  loop_jacobian_fill(m, L, ws, lw, lw->K);
  return MB_OK;
}
