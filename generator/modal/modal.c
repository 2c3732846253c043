/* modal.c — the modal body of a flexible body (Jain & Rodriguez, "Recursive Dynamics for Flexible
 * Multibody Systems Using Spatial Operators", JPL Publication 90-26, 1990, §3): coupling, modal
 * mass, stiffness and damping, from the beam preset or from nodal data. */
#include "modal/modal.h"

#include <stdlib.h>
#include <string.h>

#include "modal/beam.h"

static void cross(const double a[3], const double b[3], double c[3]) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* ½ (crm(ψ)ᵀ I + I crm(ψ)) added to Q: with crm(ψ) = [ω×, 0; v×, ω×] for ψ = [ω; v], the
 * velocity-product load ψᵀ crf(v) I v of a node of spatial inertia I (crf = −crmᵀ, and
 * crm(v) ψ = −crm(ψ) v) is vᵀ crm(ψ)ᵀ I v, whose symmetric part this is. */
static void add_q(const double I[36], const double psi[6], double Q[36]) {
  double C[36] = {0}, A[36];
  const double *w = psi, *v = psi + 3;
  const double wx[9] = {0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0};
  const double vx[9] = {0, -v[2], v[1], v[2], 0, -v[0], -v[1], v[0], 0};
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      C[6 * r + c] = C[6 * (r + 3) + c + 3] = wx[3 * r + c];
      C[6 * (r + 3) + c] = vx[3 * r + c];
    }
  for (int r = 0; r < 6; r++) /* A = Cᵀ I */
    for (int c = 0; c < 6; c++) {
      double x = 0;
      for (int k = 0; k < 6; k++) x += C[6 * k + r] * I[6 * k + c];
      A[6 * r + c] = x;
    }
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 6; c++) Q[6 * r + c] += 0.5 * (A[6 * r + c] + A[6 * c + r]);
}

/* The spatial inertia (6×6 row-major) at the origin of mass m at p with rotational inertia J
 * (ixx iyy izz ixy ixz iyz, tensor entries) about p: [J + m (|p|² 1 − p pᵀ), m p×; −m p×, m 1]. */
static void point_inertia(double m, const double p[3], const double *J, double I[36]) {
  double pp = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
  const double Jf[9] = {J[0], J[3], J[4], J[3], J[1], J[5], J[4], J[5], J[2]};
  const double px[9] = {0, -p[2], p[1], p[2], 0, -p[0], -p[1], p[0], 0};
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      I[6 * r + c] = Jf[3 * r + c] + m * ((r == c) * pp - p[r] * p[c]);
      I[6 * r + c + 3] = m * px[3 * r + c];
      I[6 * (r + 3) + c] = -m * px[3 * r + c];
      I[6 * (r + 3) + c + 3] = m * (r == c);
    }
}

void mbg_modal_add_lumped(mbg_modal *m, const double I[36], const double *psi) {
  int nm = m->nm;
  for (int k = 0; k < nm; k++) {
    double h[6];
    for (int r = 0; r < 6; r++) {
      h[r] = 0;
      for (int c = 0; c < 6; c++) h[r] += I[6 * r + c] * psi[6 * k + c];
      m->Mc[6 * k + r] += h[r];
    }
    for (int l = 0; l < nm; l++) {
      double e = 0;
      for (int r = 0; r < 6; r++) e += psi[6 * l + r] * h[r];
      m->Mee[l * nm + k] += e;
    }
    add_q(I, psi + 6 * k, m->Q + 36 * k);
  }
}

/* Node j's shape [r; t] in mode k (mbg_flex.shapes is [nmodes][nnodes][6]). */
static const double *node_shape(const mbg_flex *f, int k, int j) {
  return f->shapes + ((size_t)k * (size_t)f->nnodes + (size_t)j) * 6;
}

/* Ψ = [r; t + p × r]. */
static void node_psi(const mbg_flex *f, int k, int j, double psi[6]) {
  const double *s = node_shape(f, k, j), *p = f->nodes[j].xyz;
  double pr[3];
  cross(p, s, pr);
  for (int i = 0; i < 3; i++) psi[i] = s[i], psi[3 + i] = s[3 + i] + pr[i];
}

/* I Ψ for a node of mass m at p with rotational inertia J about itself, I = [J + m p× p×ᵀ, m p×;
 * m p×ᵀ, m 1] (Featherstone, "Rigid Body Dynamics Algorithms", 2008), and Ψ = [r; v],
 * v = t + p × r: linear m (v − p × r) = m t, angular J r − m p × (p × r) + m p × v = J r +
 * m p × t. The node's momentum per unit η_k: [J r + m p × t; m t]. The 6 numbers
 * ixx iyy izz ixy ixz iyz are the tensor's entries (as model/xform.c reads them). */
static void node_momentum(const mbg_node *n, const double s[6], double h[6]) {
  const double *J = n->inertia, *r = s, *t = s + 3;
  double pt[3];
  cross(n->xyz, t, pt);
  h[0] = J[0] * r[0] + J[3] * r[1] + J[4] * r[2] + n->mass * pt[0];
  h[1] = J[3] * r[0] + J[1] * r[1] + J[5] * r[2] + n->mass * pt[1];
  h[2] = J[4] * r[0] + J[5] * r[1] + J[2] * r[2] + n->mass * pt[2];
  for (int i = 0; i < 3; i++) h[3 + i] = n->mass * t[i];
}

static void build_nodal(const mbg_flex *f, mbg_modal *m) {
  int nm = m->nm;
  for (int k = 0; k < nm; k++)
    for (int j = 0; j < f->nnodes; j++) {
      double h[6];
      node_momentum(&f->nodes[j], node_shape(f, k, j), h);
      for (int i = 0; i < 6; i++) m->Mc[6 * k + i] += h[i];
      for (int l = 0; l < nm; l++) { /* Ψ_lᵀ I Ψ_k */
        double psi[6], e = 0;
        node_psi(f, l, j, psi);
        for (int i = 0; i < 6; i++) e += psi[i] * h[i];
        m->Mee[l * nm + k] += e;
      }
    }
  for (int k = 0; k < nm; k++) /* symmetric to rounding; make it exactly so */
    for (int l = 0; l < k; l++) {
      double e = 0.5 * (m->Mee[k * nm + l] + m->Mee[l * nm + k]);
      m->Mee[k * nm + l] = m->Mee[l * nm + k] = e;
    }
  for (int j = 0; j < f->nnodes; j++) { /* the velocity-product forms */
    double I[36];
    point_inertia(f->nodes[j].mass, f->nodes[j].xyz, f->nodes[j].inertia, I);
    for (int k = 0; k < nm; k++) {
      double psi[6];
      node_psi(f, k, j, psi);
      add_q(I, psi, m->Q + 36 * k);
    }
  }
  size_t n2 = (size_t)nm * (size_t)nm;
  if (f->stiffness) memcpy(m->K, f->stiffness, n2 * sizeof *m->K);
  if (f->damping) memcpy(m->D, f->damping, n2 * sizeof *m->D);
}

/* The beam's velocity-product forms: its sections as nodes of mass ρA dx at (x, 0, 0) with the
 * shape [0, 0, φ'; 0, φ − x φ', 0], integrated by Gauss-Legendre quadrature (the integrands are
 * smooth: 256 panels of 8 points resolve mode 20's ten wavelengths to rounding). */
static void beam_q(const mbg_flex *f, mbg_modal *m) {
  static const double gx[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267,
                               0.9602898564975363};
  static const double gw[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745,
                               0.1012285362903763};
  const int panels = 256;
  const double zero[6] = {0, 0, 0, 0, 0, 0}, L = f->length, h = L / panels;
  for (int p = 0; p < panels; p++)
    for (int g = 0; g < 8; g++) {
      double x = h * (p + 0.5 + 0.5 * (g < 4 ? -gx[g] : gx[g - 4])), I[36];
      double w = 0.5 * h * gw[g < 4 ? g : g - 4], pos[3] = {x, 0, 0};
      point_inertia(f->rhoA * w, pos, zero, I);
      for (int k = 0; k < m->nm; k++) {
        double s[3];
        mbg_beam_shape(k + 1, L, x, s);
        const double psi[6] = {0, 0, s[1], 0, s[0] - x * s[1], 0};
        add_q(I, psi, m->Q + 36 * k);
      }
    }
}

static void build_beam(const mbg_flex *f, mbg_modal *m) {
  int nm = m->nm;
  double L = f->length, rhoA = f->rhoA;
  for (int k = 0; k < nm; k++) {
    m->Mc[6 * k + 2] = rhoA * mbg_beam_int_xphi(k + 1, L);
    m->Mc[6 * k + 4] = rhoA * mbg_beam_int_phi(k + 1, L);
    for (int l = 0; l < nm; l++) m->Mee[k * nm + l] = rhoA * mbg_beam_int_phiphi(k + 1, l + 1, L);
    m->K[k * nm + k] = mbg_beam_stiffness(k + 1, L, f->EI);
  }
  beam_q(f, m);
}

int mbg_modal_build(const mbg_flex *f, mbg_modal *out) {
  memset(out, 0, sizeof *out);
  int nm = f->nmodes > 0 ? f->nmodes : 0;
  size_t n2 = (size_t)nm * (size_t)nm + 1;
  out->nm = nm;
  out->Mc = calloc(6 * (size_t)nm + 1, sizeof *out->Mc);
  out->Mee = calloc(n2, sizeof *out->Mee);
  out->K = calloc(n2, sizeof *out->K);
  out->D = calloc(n2, sizeof *out->D);
  out->Q = calloc(36 * (size_t)nm + 1, sizeof *out->Q);
  if (!out->Mc || !out->Mee || !out->K || !out->D || !out->Q) {
    mbg_modal_free(out);
    return -1;
  }
  if (f->is_beam) build_beam(f, out);
  else build_nodal(f, out);
  return 0;
}

void mbg_modal_free(mbg_modal *m) {
  if (!m) return;
  free(m->Mc);
  free(m->Mee);
  free(m->K);
  free(m->D);
  free(m->Q);
  memset(m, 0, sizeof *m);
}

void mbg_modal_attach_shape(const mbg_flex *f, int node, const double xyz[3], double *out) {
  for (int k = 0; k < f->nmodes; k++) {
    double *psi = out + 6 * k;
    if (f->is_beam) {
      double x = xyz[0], s[3];
      mbg_beam_shape(k + 1, f->length, x, s);
      memset(psi, 0, 6 * sizeof *psi);
      psi[2] = s[1];
      psi[4] = s[0] - x * s[1];
    } else {
      node_psi(f, k, node, psi);
    }
  }
}
