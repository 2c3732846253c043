/* spatial.c — spatial algebra on compact storage (Featherstone, "Rigid Body Dynamics
 * Algorithms", 2008, ch. 2).
 *
 * Transforms are (E, r) with X = [E 0; −E r× E]; inertias are 10 numbers [m, h, Ī]. Only the
 * articulated inertias (ABA, minv) are dense 6×6, and small SPD systems are solved by Cholesky. */
#include "mb.h"

#include <math.h>

void mbs_cross(const double a[3], const double b[3], double out[3]) {
  double x = a[1] * b[2] - a[2] * b[1];
  double y = a[2] * b[0] - a[0] * b[2];
  double z = a[0] * b[1] - a[1] * b[0];
  out[0] = x;
  out[1] = y;
  out[2] = z;
}

void mbs_mat3_mv(const double E[9], const double x[3], double out[3]) {
  for (int k = 0; k < 3; k++) out[k] = E[3 * k] * x[0] + E[3 * k + 1] * x[1] + E[3 * k + 2] * x[2];
}

void mbs_mat3_tmv(const double E[9], const double x[3], double out[3]) {
  for (int k = 0; k < 3; k++) out[k] = E[k] * x[0] + E[3 + k] * x[1] + E[6 + k] * x[2];
}

void mbs_mat3_mul(const double A[9], const double B[9], double out[9]) {
  double C[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
  for (int k = 0; k < 9; k++) out[k] = C[k];
}

void mbs_X_mv(const double E[9], const double r[3], const double m[6], double out[6]) {
  double rxw[3], t[3];
  /* [ω'; v'] = [E ω; E (v − r × ω)] */
  mbs_cross(r, m, rxw);
  for (int k = 0; k < 3; k++) t[k] = m[3 + k] - rxw[k];
  mbs_mat3_mv(E, m, out);
  mbs_mat3_mv(E, t, out + 3);
}

void mbs_Xinv_mv(const double E[9], const double r[3], const double m[6], double out[6]) {
  double rxw[3];
  /* [ω'; v'] = [Eᵀ ω; Eᵀ v + r × Eᵀ ω] */
  mbs_mat3_tmv(E, m, out);
  mbs_mat3_tmv(E, m + 3, out + 3);
  mbs_cross(r, out, rxw);
  for (int k = 0; k < 3; k++) out[3 + k] += rxw[k];
}

void mbs_X_fv(const double E[9], const double r[3], const double f[6], double out[6]) {
  double rxf[3], t[3];
  /* [n'; f'] = [E (n − r × f); E f] */
  mbs_cross(r, f + 3, rxf);
  for (int k = 0; k < 3; k++) t[k] = f[k] - rxf[k];
  mbs_mat3_mv(E, t, out);
  mbs_mat3_mv(E, f + 3, out + 3);
}

void mbs_XT_fv(const double E[9], const double r[3], const double f[6], double out[6]) {
  double rxf[3];
  /* [n'; f'] = [Eᵀ n + r × Eᵀ f; Eᵀ f] */
  mbs_mat3_tmv(E, f, out);
  mbs_mat3_tmv(E, f + 3, out + 3);
  mbs_cross(r, out + 3, rxf);
  for (int k = 0; k < 3; k++) out[k] += rxf[k];
}

void mbs_X_compose(const double E1[9], const double r1[3], const double E2[9], const double r2[3],
                   double E[9], double r[3]) {
  double t[3];
  /* X1 X2 = (E1 E2, r2 + E2ᵀ r1) */
  mbs_mat3_tmv(E2, r1, t);
  for (int k = 0; k < 3; k++) r[k] = r2[k] + t[k];
  mbs_mat3_mul(E1, E2, E);
}

void mbs_X_inv(const double E[9], const double r[3], double Einv[9], double rinv[3]) {
  double t[3];
  /* X⁻¹ = (Eᵀ, −E r) */
  mbs_mat3_mv(E, r, t);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) Einv[3 * i + j] = E[3 * j + i];
  for (int k = 0; k < 3; k++) rinv[k] = -t[k];
}

void mbs_crm(const double v[6], const double m[6], double out[6]) {
  double a[3], b[3], c[3];
  /* v × m = [ω × m_ω; ω × m_v + v_o × m_ω] */
  mbs_cross(v, m, a);
  mbs_cross(v, m + 3, b);
  mbs_cross(v + 3, m, c);
  for (int k = 0; k < 3; k++) {
    out[k] = a[k];
    out[3 + k] = b[k] + c[k];
  }
}

void mbs_crf(const double v[6], const double f[6], double out[6]) {
  double a[3], b[3], c[3];
  /* v ×* f = [ω × n + v_o × f; ω × f] */
  mbs_cross(v, f, a);
  mbs_cross(v + 3, f + 3, b);
  mbs_cross(v, f + 3, c);
  for (int k = 0; k < 3; k++) {
    out[k] = a[k] + b[k];
    out[3 + k] = c[k];
  }
}

void mbs_sym3_full(const double s[6], double out[9]) {
  out[0] = s[0], out[1] = s[3], out[2] = s[4];
  out[3] = s[3], out[4] = s[1], out[5] = s[5];
  out[6] = s[4], out[7] = s[5], out[8] = s[2];
}

void mbs_I_mv(const double I[10], const double m[6], double out[6]) {
  double Ib[9], hxv[3], hxw[3], t[3];
  /* I m = [Ī ω + h × v; m v − h × ω] */
  mbs_sym3_full(I + 4, Ib);
  mbs_mat3_mv(Ib, m, t);
  mbs_cross(I + 1, m + 3, hxv);
  mbs_cross(I + 1, m, hxw);
  for (int k = 0; k < 3; k++) {
    out[k] = t[k] + hxv[k];
    out[3 + k] = I[0] * m[3 + k] - hxw[k];
  }
}

void mbs_I_to_parent(const double E[9], const double r[3], const double I[10], double out[10]) {
  double Ib[9], EIb[9], R[9], y[3], m = I[0];
  /* y = Eᵀ h;  h' = y + m r */
  mbs_mat3_tmv(E, I + 1, y);
  /* R = Eᵀ Ī E */
  mbs_sym3_full(I + 4, Ib);
  mbs_mat3_mul(Ib, E, EIb);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      R[3 * i + j] = E[i] * EIb[j] + E[3 + i] * EIb[3 + j] + E[6 + i] * EIb[6 + j];
  /* Ī' = R − (r yᵀ + y rᵀ) + 2 (r·y) 1 − m (r rᵀ − |r|² 1) */
  double ry = r[0] * y[0] + r[1] * y[1] + r[2] * y[2];
  double rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
  static const int row[6] = {0, 1, 2, 0, 0, 1}, col[6] = {0, 1, 2, 1, 2, 2};
  for (int k = 0; k < 6; k++) {
    int i = row[k], j = col[k];
    double d = (i == j) ? 2.0 * ry + m * rr : 0.0;
    out[4 + k] = R[3 * i + j] - (r[i] * y[j] + y[i] * r[j]) - m * r[i] * r[j] + d;
  }
  for (int k = 0; k < 3; k++) out[1 + k] = y[k] + m * r[k];
  out[0] = m;
}

void mbs_quat_normalize(double q[4]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int k = 0; k < 4; k++) q[k] /= n;
}

void mbs_quat_to_rot(const double q[4], double R[9]) {
  double x = q[0], y = q[1], z = q[2], w = q[3];
  /* the rotation of q/|q|: R = 1 + s (w u× + u×²), s = 2/|q|², u×² = u uᵀ − |u|² 1 (one division,
   * no square root; |q| = 0 gives s = Inf and NaN entries) */
  double xx = x * x, yy = y * y, zz = z * z, s = 2.0 / (xx + yy + zz + w * w);
  R[0] = 1 - s * (yy + zz), R[1] = s * (x * y - z * w), R[2] = s * (x * z + y * w);
  R[3] = s * (x * y + z * w), R[4] = 1 - s * (xx + zz), R[5] = s * (y * z - x * w);
  R[6] = s * (x * z - y * w), R[7] = s * (y * z + x * w), R[8] = 1 - s * (xx + yy);
}

void mbs_quat_mul(const double a[4], const double b[4], double out[4]) {
  double c[3];
  /* a ⊗ b = [a_w b_u + b_w a_u + a_u × b_u;  a_w b_w − a_u·b_u] */
  mbs_cross(a, b, c);
  double w = a[3] * b[3] - (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
  for (int k = 0; k < 3; k++) c[k] += a[3] * b[k] + b[3] * a[k];
  out[0] = c[0], out[1] = c[1], out[2] = c[2], out[3] = w;
}

void mbs_quat_exp(const double w[3], double out[4]) {
  double th = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  /* exp(w) = [sin(θ/2)/θ · w; cos(θ/2)], θ = |w|; Taylor series near 0 */
  double s = (th < 1e-4) ? 0.5 - th * th / 48.0 : sin(0.5 * th) / th;
  out[0] = s * w[0], out[1] = s * w[1], out[2] = s * w[2];
  out[3] = cos(0.5 * th);
}

/* ---- mbs_axis_rotation (moved from the generator's topology/align.c, which calls it) ---- */

static void axis_identity(double R[9]) {
  for (int j = 0; j < 9; j++) R[j] = j % 4 == 0 ? 1.0 : 0.0;
}

/* 1 if a = s e_k exactly (s = ±1). */
static int is_coordinate_axis(const double a[3], int k, double s) {
  return a[k] == s && a[(k + 1) % 3] == 0.0 && a[(k + 2) % 3] == 0.0;
}

/* P = rotation by π about e_j, j = (k+1) mod 3: P = 2 e_j e_jᵀ − 1, so P e_k = −e_k. */
static void flip_about_next(int k, double P[9]) {
  int j = (k + 1) % 3;
  for (int x = 0; x < 9; x++) P[x] = 0.0;
  for (int x = 0; x < 3; x++) P[4 * x] = x == j ? 1.0 : -1.0;
}

/* Minimal rotation taking u (u_k > 0, |u| ≈ 1) to e_k, Rodrigues with v = u × e_k, n = |u|:
 * R = 1 + [v]×/n + [v]×²/(n (n + u_k)); row k is u/n exactly as written, so R u = n e_k. */
static void rodrigues_to_axis(const double u[3], int k, double R[9]) {
  double e[3] = {0.0, 0.0, 0.0}, v[3];
  e[k] = 1.0;
  v[0] = u[1] * e[2] - u[2] * e[1];
  v[1] = u[2] * e[0] - u[0] * e[2];
  v[2] = u[0] * e[1] - u[1] * e[0];
  double n = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]), d = n * (n + u[k]);
  double X[9] = {0.0, -v[2], v[1], v[2], 0.0, -v[0], -v[1], v[0], 0.0};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      if (i == j) continue;
      R[3 * i + j] = X[3 * i + j] / n + v[i] * v[j] / d;
    }
  /* diagonal: 1 − (|v|² − v_i²)/d, and R_kk = u_k/n (the same value, without cancellation) */
  for (int i = 0; i < 3; i++) {
    int p = (i + 1) % 3, q = (i + 2) % 3;
    R[4 * i] = 1.0 - (v[p] * v[p] + v[q] * v[q]) / d;
  }
  R[4 * k] = u[k] / n;
}

int mbs_axis_rotation(const double a[3], double R[9]) {
  for (int k = 0; k < 3; k++) {
    if (is_coordinate_axis(a, k, 1.0)) {
      axis_identity(R);
      return k;
    }
    if (is_coordinate_axis(a, k, -1.0)) {
      flip_about_next(k, R);
      return k;
    }
  }
  int k = 0;
  for (int j = 1; j < 3; j++)
    if (fabs(a[j]) > fabs(a[k])) k = j;
  if (a[k] > 0.0) {
    rodrigues_to_axis(a, k, R);
    return k;
  }
  /* a_k < 0: u = P a (exact sign flips, u_k > 0), R = Rod(u) P; P is diagonal, so column j of
   * Rod(u) is multiplied by P_jj */
  double P[9], u[3];
  flip_about_next(k, P);
  for (int j = 0; j < 3; j++) u[j] = P[4 * j] * a[j];
  rodrigues_to_axis(u, k, R);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) R[3 * i + j] *= P[4 * j];
  return k;
}

void mbs_rot_axis(const double a[3], double theta, double R[9]) {
  double s = sin(theta), c = 1.0 - cos(theta);
  /* R = 1 + sin θ a× + (1 − cos θ) a× a×,  a× a× = a aᵀ − 1 */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) R[3 * i + j] = c * a[i] * a[j] + (i == j ? 1.0 - c : 0.0);
  R[1] -= s * a[2], R[2] += s * a[1];
  R[3] += s * a[2], R[5] -= s * a[0];
  R[6] -= s * a[1], R[7] += s * a[0];
}

void mbs_I_mat(const double I[10], double out[36]) {
  double Ib[9];
  const double *h = I + 1;
  /* I = [Ī h×; h×ᵀ m 1] */
  mbs_sym3_full(I + 4, Ib);
  for (int k = 0; k < 36; k++) out[k] = 0.0;
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) out[6 * i + j] = Ib[3 * i + j];
    out[6 * (3 + i) + 3 + i] = I[0];
  }
  double hx[9] = {0, -h[2], h[1], h[2], 0, -h[0], -h[1], h[0], 0};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) out[6 * i + 3 + j] = out[6 * (3 + j) + i] = hx[3 * i + j];
}

void mbs_mat6_to_parent(const double E[9], const double r[3], const double A[36], double out[36]) {
  double AX[36], e[6], x[6], t[6];
  /* AX = A iXλ, one column X e_k at a time */
  for (int k = 0; k < 6; k++) {
    for (int l = 0; l < 6; l++) e[l] = (l == k);
    mbs_X_mv(E, r, e, x);
    for (int i = 0; i < 6; i++) {
      double s = 0.0;
      for (int l = 0; l < 6; l++) s += A[6 * i + l] * x[l];
      AX[6 * i + k] = s;
    }
  }
  /* out = λX*_i AX = iXλᵀ AX, column by column */
  for (int k = 0; k < 6; k++) {
    for (int i = 0; i < 6; i++) e[i] = AX[6 * i + k];
    mbs_XT_fv(E, r, e, t);
    for (int i = 0; i < 6; i++) out[6 * i + k] = t[i];
  }
}

/* Row i of an n × n matrix: the offset in size_t (n² exceeds an int from n = 46341: the CFA's
 * nc × nc system). */
#define ROW(A, n, i) ((A) + (size_t)(i) * (size_t)(n))

int mbs_chol(int n, double *A) { return mbs_chol_ref(n, A, NULL); }

int mbs_chol_ref(int n, double *A, const double *ref) {
  /* L_jj = √d, d = A_jj − Σ_k L_jk², accepted iff r > 0 and d > MB_PIVOT_EPS r, with r = A_jj
   * (still the original diagonal at step j) or, given references, r = ref_j + Σ_k (L_jk² / d_k)
   * ref_k (the rounding error of the earlier pivots d_k carried in by the unit factor L_jk/√d_k);
   * L_ij = (A_ij − Σ_k L_ik L_jk) / L_jj */
  for (int j = 0; j < n; j++) {
    double *Aj = ROW(A, n, j), d = Aj[j], r = ref ? ref[j] : d;
    for (int k = 0; k < j; k++) {
      double l2 = Aj[k] * Aj[k];
      d -= l2;
      if (ref) r += l2 / (ROW(A, n, k)[k] * ROW(A, n, k)[k]) * ref[k];
    }
    if (!(r > 0.0 && d > MB_PIVOT_EPS * r)) return -1 - j;
    Aj[j] = sqrt(d);
    for (int i = j + 1; i < n; i++) {
      double *Ai = ROW(A, n, i), x = Ai[j];
      for (int k = 0; k < j; k++) x -= Ai[k] * Aj[k];
      Ai[j] = x / Aj[j];
    }
  }
  return 0;
}

int mbs_finite(const double *x, size_t n) {
  /* x − x is 0 for a finite x and NaN for NaN or ±Inf: one sum, no branch per entry */
  double z = 0.0;
  for (size_t k = 0; k < n; k++) z += x[k] - x[k];
  return z == 0.0;
}

void mbs_chol_solve(int n, const double *L, double *x) {
  /* L y = x, then Lᵀ x = y */
  for (int i = 0; i < n; i++) {
    const double *Li = ROW(L, n, i);
    for (int k = 0; k < i; k++) x[i] -= Li[k] * x[k];
    x[i] /= Li[i];
  }
  for (int i = n - 1; i >= 0; i--) {
    for (int k = i + 1; k < n; k++) x[i] -= ROW(L, n, k)[i] * x[k];
    x[i] /= ROW(L, n, i)[i];
  }
}
#undef ROW

int mbs_is_rotation(const double E[9]) {
  double P[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double s = 0.0;
      for (int k = 0; k < 3; k++) s += E[3 * i + k] * E[3 * j + k];
      P[3 * i + j] = s - (i == j);
    }
  double det = E[0] * (E[4] * E[8] - E[5] * E[7]) - E[1] * (E[3] * E[8] - E[5] * E[6]) +
               E[2] * (E[3] * E[7] - E[4] * E[6]);
  for (int k = 0; k < 9; k++)
    if (!(fabs(P[k]) <= 1e-9)) return 0;
  return fabs(det - 1.0) <= 1e-9;
}
