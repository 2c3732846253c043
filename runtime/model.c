/* model.c — model validation and the workspace layout. */
#include "flex_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int fail(char *msg, size_t msgsize, const char *fmt, ...) {
  if (msg && msgsize > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msgsize, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* 1 if E is a proper rotation: E Eᵀ = 1 and det E = +1, to 1e-9. */
static int is_rotation(const double E[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double d = E[3 * i] * E[3 * j] + E[3 * i + 1] * E[3 * j + 1] + E[3 * i + 2] * E[3 * j + 2];
      if (!(fabs(d - (i == j)) < 1e-9)) return 0;
    }
  double c[3];
  mbs_cross(E, E + 3, c);
  return c[0] * E[6] + c[1] * E[7] + c[2] * E[8] > 0.0;
}

/* 1 if the inertia is usable: m ≥ 0 (h = 0 if m = 0) and Ic ⪰ 0, with Ic the rotational inertia
 * about the COM, which makes the spatial inertia positive semidefinite (its Schur complement on
 * m·1 is Ic). A physical body also has Σ = tr(Ic)/2·1 − Ic = ∫ρ x xᵀ ⪰ 0 (the triangle
 * inequalities); the algorithms do not need it, and real robots' URDFs break it, so the front end
 * checks it (an error in a .mbd, a warning in a URDF) and the runtime does not.
 * "⪰ 0" is to 1e-9 of the body's scale s = tr Ī + m (1 mm)², Ī about the body origin: the front
 * end's rule (generator/model/build_inertia.c, about the COM, so never more lenient than this),
 * which takes data noise (iCub's ±2.4e-35 on a 1.3 kg body) as zero at any scale and covers the
 * rounding of Ic = Ī − m c× c×ᵀ (~eps·tr Ī); a point mass has no inertia of its own, hence the
 * millimetre. */
static int is_physical(const double I[10]) {
  double m = I[0], Ic[9];
  if (!(m >= 0.0) || !isfinite(m)) return 0;
  mbs_sym3_full(I + 4, Ic);
  double sc = fabs(Ic[0]) + fabs(Ic[4]) + fabs(Ic[8]) + m * 1e-6, tol = 1e-9 * sc;
  /* Ic = Ī + h× h× / m,  h× h× = h hᵀ − |h|² 1 */
  double hh = I[1] * I[1] + I[2] * I[2] + I[3] * I[3];
  if (m == 0.0 && hh != 0.0) return 0;
  for (int i = 0; i < 3 && m > 0.0; i++)
    for (int j = 0; j < 3; j++) Ic[3 * i + j] += (I[1 + i] * I[1 + j] - (i == j) * hh) / m;
  for (int k = 0; k < 9; k++)
    if (!isfinite(Ic[k]) || !isfinite(sc)) return 0;
  /* every principal minor of Ic is ≥ 0: an eigenvalue ≥ −tol moves a k×k minor by ≥ −tol·s^(k−1) */
  for (int i = 0; i < 3; i++) {
    if (!(Ic[4 * i] >= -tol)) return 0;
    int j = (i + 1) % 3;
    if (!(Ic[4 * i] * Ic[4 * j] - Ic[3 * i + j] * Ic[3 * i + j] >= -tol * sc)) return 0;
  }
  double c[3];
  mbs_cross(Ic, Ic + 3, c);
  return c[0] * Ic[6] + c[1] * Ic[7] + c[2] * Ic[8] >= -tol * sc * sc;
}

/* The workspace in doubles, counted in floating point (exact far beyond size_t's range on 64-bit
 * machines, and never wrapping): whether size_t holds its bytes. nb must be in range. */
static int workspace_fits(const mb_model *m) {
  double nb1 = (double)m->nb + 1, nv = (double)m->nv, nc = (double)mb_cfa_nc(m), n = 0;
  double ne = (double)mb_flex_count(m, 0), ne2 = (double)mb_flex_count(m, 1);
  double nfd = (double)mb_flex_count(m, 2);
#undef MB_WS_NB1
#undef MB_WS_NV
#undef MB_WS_NC
#undef MB_WS_NE
#undef MB_WS_NE2
#undef MB_WS_NFD
#define MB_WS_NB1 nb1
#define MB_WS_NV nv
#define MB_WS_NC nc
#define MB_WS_NE ne
#define MB_WS_NE2 ne2
#define MB_WS_NFD nfd
#define MB_WS_COUNT(name, count) n += (count);
  MB_WORKSPACE_ARRAYS(MB_WS_COUNT)
#undef MB_WS_COUNT
#undef MB_WS_NB1
#undef MB_WS_NV
#undef MB_WS_NC
#undef MB_WS_NE
#undef MB_WS_NE2
#undef MB_WS_NFD
#define MB_WS_NB1 ((size_t)m->nb + 1)
#define MB_WS_NV ((size_t)m->nv)
#define MB_WS_NC mb_cfa_nc(m)
#define MB_WS_NE mb_flex_count(m, 0)
#define MB_WS_NE2 mb_flex_count(m, 1)
#define MB_WS_NFD mb_flex_count(m, 2)
  return n * (double)sizeof(double) < (double)SIZE_MAX;
}

/* A universal joint's second axis: given, unit and perpendicular to its axis (to 1e-9). */
static int universal_axis2(const mb_model *m, int i, char *msg, size_t msgsize) {
  if (!m->axis2) return fail(msg, msgsize, "body %d: a universal joint and no axis2 array", i);
  const double *a = m->axis + 3 * i, *b = m->axis2 + 3 * i;
  double n = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
  if (!(fabs(n - 1.0) < 1e-9))
    return fail(msg, msgsize, "body %d: universal joint axis2 is not a unit vector", i);
  if (!(fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) < 1e-9))
    return fail(msg, msgsize, "body %d: universal joint axes are not perpendicular", i);
  return 0;
}

int mb_model_check(const mb_model *m, char *msg, size_t msgsize) {
  if (!m) return fail(msg, msgsize, "model is NULL");
  if (m->nb < 0 || m->nq < 0 || m->nv < 0) return fail(msg, msgsize, "negative size");
  if (m->nb > MB_MAX_BODIES)
    return fail(msg, msgsize, "%d bodies, more than the %d whose offsets an int holds", m->nb,
                MB_MAX_BODIES);
#define MB_CHECK_FIELD(type, name, per_body) \
  if (!m->name) return fail(msg, msgsize, "array " #name " is NULL");
  MB_MODEL_ARRAYS(MB_CHECK_FIELD)
#undef MB_CHECK_FIELD
  for (int i = 1; i <= m->nb; i++) {
    if (m->parent[i] < 0 || m->parent[i] >= i)
      return fail(msg, msgsize, "body %d: parent %d is not in [0, %d)", i, m->parent[i], i);
    if ((unsigned)m->jtype[i] >= MB_JOINT_TYPE_COUNT)
      return fail(msg, msgsize, "body %d: invalid joint type %d", i, (int)m->jtype[i]);
  }
  if (m->flex && mbf_check(m, msg, msgsize)) return -1;
  /* modes count in long long: nb MB_MAX_MODES of them overflow an int */
  long long ne = (long long)mb_flex_count(m, 0);
  if (m->nv > 6 * m->nb + ne || m->nq > 7 * m->nb + ne)
    return fail(msg, msgsize, "nq/nv = %d/%d, more than %d bodies can have", m->nq, m->nv, m->nb);
  long long nq = 0, nv = 0;
  for (int i = 1; i <= m->nb; i++) {
    mb_joint_type t = m->jtype[i];
    if (m->iq[i] != nq || m->iv[i] != nv)
      return fail(msg, msgsize, "body %d: iq/iv = %d/%d, expected %lld/%lld", i, m->iq[i],
                  m->iv[i], nq, nv);
    nq += mb_joint_nq(t) + mb_body_nm(m, i), nv += mb_joint_nv(t) + mb_body_nm(m, i);
    const double *a = m->axis + 3 * i;
    if (mb_joint_has_axis(t) && !(fabs(sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) - 1.0) < 1e-9))
      return fail(msg, msgsize, "body %d: joint axis is not a unit vector", i);
    if (t == MB_JOINT_UNIVERSAL && universal_axis2(m, i, msg, msgsize)) return -1;
    if (!isfinite(m->pitch[i]) || !isfinite(m->XT_r[3 * i]) || !isfinite(m->XT_r[3 * i + 1]) ||
        !isfinite(m->XT_r[3 * i + 2]))
      return fail(msg, msgsize, "body %d: non-finite pitch or joint origin", i);
    if (!is_rotation(m->XT_E + 9 * i))
      return fail(msg, msgsize, "body %d: XT rotation is not a proper rotation", i);
    if (!is_physical(m->inertia + 10 * i))
      return fail(msg, msgsize, "body %d: inertia is not physically consistent", i);
  }
  if (nq != m->nq || nv != m->nv)
    return fail(msg, msgsize, "nq/nv = %d/%d, joints and modes give %lld/%lld", m->nq, m->nv, nq,
                nv);
  if (!workspace_fits(m))
    return fail(msg, msgsize, "the workspace of nb = %d, nv = %d does not fit in size_t", m->nb,
                m->nv);
  for (int k = 0; k < 3; k++)
    if (!isfinite(m->gravity[k])) return fail(msg, msgsize, "gravity is not finite");
  for (int k = 0; m->armature && k < m->nv; k++)
    if (!(m->armature[k] >= 0 && m->armature[k] < HUGE_VAL))
      return fail(msg, msgsize, "armature[%d] is not finite and >= 0", k);
  return 0;
}

double mb_armature(const mb_model *m, int k) { return m->armature ? m->armature[k] : 0.0; }

void mb_add_armature(const mb_model *m, double *M) {
  size_t nv = (size_t)m->nv;
  for (size_t k = 0; m->armature && k < nv; k++) M[k * nv + k] += m->armature[k];
}

int mb_has_varying_S(const mb_model *m) {
  for (int i = 1; i <= m->nb; i++)
    if (mb_joint_S_varies(m->jtype[i])) return 1;
  return 0;
}

int mb_has_armature(const mb_model *m) {
  for (int k = 0; m->armature && k < m->nv; k++)
    if (m->armature[k] != 0.0) return 1;
  return 0;
}

size_t mb_workspace_size(const mb_model *m) {
  if (!m) return 0;
  if (m->nb < 0 || m->nb > MB_MAX_BODIES || m->nv < 0 ||
      m->nv > 6 * (long long)m->nb + (long long)mb_flex_count(m, 0) || !workspace_fits(m))
    return SIZE_MAX;
  size_t n = 0;
#define MB_WS_SIZE(name, count) n += (size_t)(count);
  MB_WORKSPACE_ARRAYS(MB_WS_SIZE)
#undef MB_WS_SIZE
  return n * sizeof(double);
}

int mb_workspace_init(mb_workspace *ws, const mb_model *m, void *buffer) {
  double *p = buffer;
  if (!ws || !m || !buffer) return MB_EINVAL;
  memset(buffer, 0, mb_workspace_size(m));
  ws->model = m;
  ws->tag = MB_WS_TAG;
  ws->nb = m->nb, ws->nq = m->nq, ws->nv = m->nv;
  ws->singular = 0;
#define MB_WS_LAYOUT(name, count) \
  ws->name = p;                   \
  p += (size_t)(count);
  MB_WORKSPACE_ARRAYS(MB_WS_LAYOUT)
#undef MB_WS_LAYOUT
  for (int i = 1; i <= m->nb; i++) {
    int n = mb_joint_nv(m->jtype[i]) + mb_body_nm(m, i), o = m->iv[i], a = m->parent[i];
    mb_joint_S(m, i, ws->S + 6 * o);
    mb_joint_T(m, i, ws->T + 36 * i);
    /* λ(k): the previous dof of the same body (its joint's, then its modes), else the last dof of
     * the nearest ancestor that has dofs */
    while (a > 0 && mb_joint_nv(m->jtype[a]) + mb_body_nm(m, a) == 0) a = m->parent[a];
    int last = a > 0 ? m->iv[a] + mb_joint_nv(m->jtype[a]) + mb_body_nm(m, a) - 1 : -1;
    for (int k = 0; k < n; k++) ws->lam[o + k] = (k > 0) ? o + k - 1 : last;
  }
  mbf_offsets(m, ws);
  /* the world's rotations are the identity, so per-body arrays read at index 0 are valid */
  for (int k = 0; k < 9; k += 4) ws->XE[k] = ws->X0E[k] = 1.0;
  return MB_OK;
}

int mb_workspace_check(const mb_model *m, const mb_workspace *ws) {
  if (!m || !ws) return MB_EINVAL;
  /* the tag first: an uninitialised workspace fails there before its pointers are compared */
  if (ws->tag != MB_WS_TAG || ws->model != m || ws->nb != m->nb || ws->nq != m->nq ||
      ws->nv != m->nv)
    return MB_EWORKSPACE;
  return MB_OK;
}
