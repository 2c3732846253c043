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
  size_t n2 = (size_t)nm * (size_t)nm;
  if (f->stiffness) memcpy(m->K, f->stiffness, n2 * sizeof *m->K);
  if (f->damping) memcpy(m->D, f->damping, n2 * sizeof *m->D);
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
  if (!out->Mc || !out->Mee || !out->K || !out->D) {
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
