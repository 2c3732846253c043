/* test_modal.c — generator/modal/: the exact cantilever modes (roots, shapes, closed-form
 * integrals) against textbook values and quadrature, and the modal body (coupling, modal mass,
 * stiffness, damping) of the beam preset and of nodal data: the nodal route converging to the
 * beam, a hand-computed two-node example, and rigid "modes" against the rigid inertia of
 * model/xform.c. References: Meirovitch, "Fundamentals of Vibrations", 2001; Blevins, "Formulas
 * for Natural Frequency and Mode Shape", 1979; Jain & Rodriguez, "Recursive Dynamics for Flexible
 * Multibody Systems Using Spatial Operators", JPL Publication 90-26, 1990. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "load/load.h"
#include "modal/beam.h"
#include "modal/modal.h"
#include "model/xform.h"

#define assert_near(got, want, tol) assert_near_at((got), (want), (tol), #got, __FILE__, __LINE__)
static void assert_near_at(double got, double want, double tol, const char *what,
                           const char *file, int line) {
  if (!(fabs(got - want) <= tol)) {
    print_error("%s = %.17g, want %.17g (tolerance %g)\n", what, got, want, tol);
    _fail(file, line);
  }
}

static const double PI = 3.14159265358979323846;

/* Textbook roots of 1 + cos x cosh x = 0 (Blevins 1979; Meirovitch 2001), 1e-12 relative; every
 * root 1..20 satisfies the equation to working precision relative to cosh x (|g| ≤ a few ulps of
 * x, g = cos x + 1/cosh x, |g'| ≈ 1); from mode 5 on, the asymptote (2i−1)π/2 plus its
 * exponential correction (−1)^{i+1} 2 e^{−(2i−1)π/2} agrees to 1e-10. */
static void test_roots(void **state) {
  (void)state;
  static const double book[4] = {1.8751040687119611, 4.6940911329741745, 7.8547574382376126,
                                 10.995540734875467};
  for (int i = 1; i <= 4; i++) assert_near(mbg_beam_root(i), book[i - 1], 1e-12 * book[i - 1]);
  double prev = 0;
  for (int i = 1; i <= 20; i++) {
    double x = mbg_beam_root(i);
    assert_true(x > prev);
    prev = x;
    assert_near(cos(x) + 1 / cosh(x), 0.0, 4 * DBL_EPSILON * (1 + x));
    double x0 = (2 * i - 1) * PI / 2;
    if (i >= 5) assert_near(x, x0 + (i % 2 ? 2 : -2) * exp(-x0), 1e-10);
  }
  assert_true(isnan(mbg_beam_root(0)));
}

/* φ'''(x) by the second-order one-sided difference of φ'' at x (steps back from x). */
static double third_derivative_at(int i, double L, double x, double h) {
  double a[3], b[3], c[3];
  mbg_beam_shape(i, L, x, a);
  mbg_beam_shape(i, L, x - h, b);
  mbg_beam_shape(i, L, x - 2 * h, c);
  return (3 * a[2] - 4 * b[2] + c[2]) / (2 * h);
}

/* The boundary conditions of the clamped-free beam and the normalization, modes 1..20:
 * φ(0) = φ'(0) = 0, φ(L) = 1, φ''(L) = 0, φ'''(L) = 0 (one-sided differences, step 1e-4/β), each
 * relative to its scale β^k; and the derivatives against central differences with φ'''' = β⁴φ
 * at interior points. */
static void test_shapes(void **state) {
  (void)state;
  const double L = 1.3;
  for (int i = 1; i <= 20; i++) {
    double beta = mbg_beam_root(i) / L, s[3];
    mbg_beam_shape(i, L, 0.0, s);
    assert_near(s[0], 0.0, 1e-12);
    assert_near(s[1] / beta, 0.0, 1e-12);
    mbg_beam_shape(i, L, L, s);
    assert_near(s[0], 1.0, 1e-12);
    assert_near(s[2] / (beta * beta), 0.0, 1e-12);
    assert_near(third_derivative_at(i, L, L, 1e-4 / beta) / (beta * beta * beta), 0.0, 1e-6);
    for (int k = 1; k <= 4; k++) {
      double x = L * k / 5, h = 1e-3 / beta, p[3], m[3];
      mbg_beam_shape(i, L, x, s);
      mbg_beam_shape(i, L, x + h, p);
      mbg_beam_shape(i, L, x - h, m);
      assert_near((p[0] - m[0]) / (2 * h) / beta, s[1] / beta, 1e-6);
      assert_near((p[1] - m[1]) / (2 * h) / (beta * beta), s[2] / (beta * beta), 1e-6);
      double d4 = (p[2] - 2 * s[2] + m[2]) / (h * h);
      assert_near(d4 / pow(beta, 4), s[0], 1e-6);
    }
  }
}

/* Composite Gauss-Legendre quadrature: 8 nodes per panel, computed by Newton's method on P_8. */
enum { GL_N = 8, GL_PANELS = 400 };
static double gl_x[GL_N], gl_w[GL_N];

static void gl_init(void) {
  for (int k = 0; k < GL_N; k++) {
    double x = cos(PI * (k + 0.75) / (GL_N + 0.5)), dp = 0;
    for (int it = 0; it < 100; it++) {
      double p0 = 1, p1 = x;
      for (int n = 2; n <= GL_N; n++) {
        double p2 = ((2 * n - 1) * x * p1 - (n - 1) * p0) / n;
        p0 = p1, p1 = p2;
      }
      dp = GL_N * (x * p1 - p0) / (x * x - 1);
      double dx = p1 / dp;
      x -= dx;
      if (fabs(dx) < 1e-16) break;
    }
    gl_x[k] = x;
    gl_w[k] = 2 / ((1 - x * x) * dp * dp);
  }
}

/* ∫₀ᴸ x^xpow φ_i^(di) φ_j^(dj) dx (j = 0: no second factor). */
static double quad(int i, int di, int j, int dj, int xpow, double L) {
  double sum = 0, h = L / GL_PANELS;
  for (int p = 0; p < GL_PANELS; p++)
    for (int k = 0; k < GL_N; k++) {
      double x = h * (p + 0.5 + 0.5 * gl_x[k]), a[3], b[3] = {1, 1, 1};
      mbg_beam_shape(i, L, x, a);
      if (j) mbg_beam_shape(j, L, x, b);
      sum += 0.5 * h * gl_w[k] * (xpow ? x : 1.0) * a[di] * b[dj];
    }
  return sum;
}

/* The closed forms against 400 panels × 8 points, 1e-10 relative (orthogonal pairs 1e-10 of
 * L/4), modes 1..20. */
static void test_integrals(void **state) {
  (void)state;
  const double L = 1.3, EI = 7.5;
  gl_init();
  for (int i = 1; i <= 20; i++) {
    double v = mbg_beam_int_phi(i, L);
    assert_near(quad(i, 0, 0, 0, 0, L), v, 1e-10 * fabs(v));
    v = mbg_beam_int_xphi(i, L);
    assert_near(quad(i, 0, 0, 0, 1, L), v, 1e-10 * fabs(v));
    v = mbg_beam_stiffness(i, L, EI);
    assert_near(EI * quad(i, 2, i, 2, 0, L), v, 1e-10 * v);
    for (int j = 1; j <= i; j++) {
      v = mbg_beam_int_phiphi(i, j, L);
      assert_near(v, i == j ? L / 4 : 0.0, 0.0);
      assert_near(quad(i, 0, j, 0, 0, L), v, 1e-10 * L / 4);
    }
  }
}

static const double BEAM_L = 1.2, BEAM_EI = 350, BEAM_RHOA = 2.7;

/* The beam preset: Mee and K diagonal, so the generalized eigenvalues of (K, Mee) are
 * K_kk/Mee_kk, which must be the Euler-Bernoulli ω_k² = (β_k L)⁴ EI/(ρA L⁴); Mee = ρA L/4; D = 0;
 * Mc from the closed-form integrals; the attached section's motion from the shape. */
static void test_beam_preset(void **state) {
  (void)state;
  mbg_flex f = {.is_beam = 1, .length = BEAM_L, .EI = BEAM_EI, .rhoA = BEAM_RHOA, .nmodes = 6};
  mbg_modal m;
  assert_int_equal(mbg_modal_build(&f, &m), 0);
  assert_int_equal(m.nm, 6);
  for (int k = 0; k < 6; k++) {
    for (int l = 0; l < 6; l++) {
      if (l != k) assert_near(m.Mee[k * 6 + l], 0.0, 0.0);
      if (l != k) assert_near(m.K[k * 6 + l], 0.0, 0.0);
      assert_near(m.D[k * 6 + l], 0.0, 0.0);
    }
    double B = mbg_beam_root(k + 1);
    double omega2 = pow(B, 4) * BEAM_EI / (BEAM_RHOA * pow(BEAM_L, 4));
    assert_near(m.Mee[k * 7], BEAM_RHOA * BEAM_L / 4, 1e-15);
    assert_near(m.K[k * 7] / m.Mee[k * 7], omega2, 1e-13 * omega2);
    const double want[6] = {0, 0, BEAM_RHOA * mbg_beam_int_xphi(k + 1, BEAM_L),
                            0, BEAM_RHOA * mbg_beam_int_phi(k + 1, BEAM_L), 0};
    for (int r = 0; r < 6; r++) assert_near(m.Mc[6 * k + r], want[r], 1e-15);
  }
  double xyz[3] = {0.7, 0, 0}, psi[36];
  mbg_modal_attach_shape(&f, -1, xyz, psi);
  for (int k = 0; k < 6; k++) {
    double s[3];
    mbg_beam_shape(k + 1, BEAM_L, 0.7, s);
    const double want[6] = {0, 0, s[1], 0, s[0] - 0.7 * s[1], 0};
    for (int r = 0; r < 6; r++) assert_near(psi[6 * k + r], want[r], 0.0);
  }
  mbg_modal_free(&m);
}

/* The beam of test_beam_preset lumped on n nodes (spacing h = L/(n−1), trapezoid masses ρA h
 * inside and ρA h/2 at the ends, no node inertia), each mode sampled as rotation φ' about z and
 * translation φ along y. Fills f (caller frees nodes and shapes). */
static void lumped_beam(int n, int nm, mbg_flex *f) {
  double h = BEAM_L / (n - 1);
  memset(f, 0, sizeof *f);
  f->nmodes = nm;
  f->nnodes = n;
  f->nodes = calloc((size_t)n, sizeof *f->nodes);
  f->shapes = calloc((size_t)(nm * n * 6), sizeof *f->shapes);
  assert_non_null(f->nodes);
  assert_non_null(f->shapes);
  for (int j = 0; j < n; j++) {
    f->nodes[j].xyz[0] = j * h;
    f->nodes[j].mass = BEAM_RHOA * h * (j == 0 || j == n - 1 ? 0.5 : 1.0);
    for (int k = 0; k < nm; k++) {
      double s[3], *sh = f->shapes + (k * n + j) * 6;
      mbg_beam_shape(k + 1, BEAM_L, j * h, s);
      sh[2] = s[1];
      sh[4] = s[0];
    }
  }
}

/* max |a − b| / max |b| over n entries. */
static double rel_err(const double *a, const double *b, int n) {
  double e = 0, s = 0;
  for (int i = 0; i < n; i++) e = fmax(e, fabs(a[i] - b[i])), s = fmax(s, fabs(b[i]));
  return e / s;
}

/* The nodal route converges to the beam preset (the continuous limit of the same lumped masses):
 * the trapezoid rule's error is ∝ h², so each doubling of the nodes divides the relative errors
 * of Mc and Mee by about 4, and at 200 nodes they are below 1e-3. The lumped rigid inertia
 * converges the same way to the thin rod build_flex.c gives the beam body. */
static void test_nodal_converges(void **state) {
  (void)state;
  mbg_flex beam = {.is_beam = 1, .length = BEAM_L, .EI = BEAM_EI, .rhoA = BEAM_RHOA, .nmodes = 3};
  mbg_modal ref;
  assert_int_equal(mbg_modal_build(&beam, &ref), 0);
  /* the rod of build_flex.c, at the body origin: m, first moment m L/2, Izz = Iyy = m L²/3 */
  double mass = BEAM_RHOA * BEAM_L, rod[3] = {mass, mass * BEAM_L / 2, mass * BEAM_L * BEAM_L / 3};
  const int ns[3] = {50, 100, 200};
  double emc[3], eme[3], erig[3];
  for (int t = 0; t < 3; t++) {
    mbg_flex f;
    mbg_modal m;
    lumped_beam(ns[t], 3, &f);
    assert_int_equal(mbg_modal_build(&f, &m), 0);
    emc[t] = rel_err(m.Mc, ref.Mc, 18);
    eme[t] = rel_err(m.Mee, ref.Mee, 9);
    double lump[3] = {0, 0, 0};
    for (int j = 0; j < f.nnodes; j++) {
      double x = f.nodes[j].xyz[0], mj = f.nodes[j].mass;
      lump[0] += mj, lump[1] += mj * x, lump[2] += mj * x * x;
    }
    erig[t] = fabs(lump[2] - rod[2]) / rod[2];
    assert_near(lump[0], rod[0], 1e-12 * rod[0]);
    assert_near(lump[1], rod[1], 1e-12 * rod[1]);
    print_message("nodal route, %3d nodes: Mc %.3e, Mee %.3e, rigid Izz %.3e (relative)\n",
                  ns[t], emc[t], eme[t], erig[t]);
    mbg_modal_free(&m);
    free(f.nodes);
    free(f.shapes);
  }
  for (int t = 1; t < 3; t++) {
    assert_true(emc[t - 1] / emc[t] > 3.6 && emc[t - 1] / emc[t] < 4.4);
    assert_true(eme[t - 1] / eme[t] > 3.6 && eme[t - 1] / eme[t] < 4.4);
    assert_true(erig[t - 1] / erig[t] > 3.6 && erig[t - 1] / erig[t] < 4.4);
  }
  assert_true(emc[2] <= 1e-3 && eme[2] <= 1e-3);
  mbg_modal_free(&ref);
}

static mbg_model *parse(const char *src) {
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  assert_non_null(out);
  int errors = -1, warnings = -1;
  mbg_model *m = mbg_model_from_text("test.mbd", src, strlen(src), out, &errors, &warnings);
  fclose(out);
  if (errors != 0 || !m) print_error("%d errors for:\n%s\n---- output ----\n%s", errors, src, buf);
  free(buf);
  assert_int_equal(errors, 0);
  assert_non_null(m);
  return m;
}

/* The beam body's rigid inertia (build_flex.c: a thin rod) is the one test_nodal_converges's
 * lumped nodes converge to: m = ρA L, first moment m L/2 along x, at the origin Ixx = 0 and
 * Iyy = Izz = m L²/12 + m (L/2)² = m L²/3. */
static void test_beam_rigid_inertia(void **state) {
  (void)state;
  mbg_model *mod = parse("body arm flexible { beam length 1.2 EI 350 rhoA 2.7 modes 3; }\n"
                         "joint j revolute world -> arm;\n");
  const mbg_body *b = &mod->bodies[1];
  assert_non_null(b->flex);
  mbg_inertia I;
  mbg_inertia_from_body(b, &I);
  double m = BEAM_RHOA * BEAM_L;
  assert_near(I.m, m, 1e-15);
  assert_near(I.h[0], m * BEAM_L / 2, 1e-15);
  assert_near(I.h[1], 0, 0);
  assert_near(I.h[2], 0, 0);
  const double want[6] = {0, m * BEAM_L * BEAM_L / 3, m * BEAM_L * BEAM_L / 3, 0, 0, 0};
  for (int k = 0; k < 6; k++) assert_near(I.I[k], want[k], 1e-14);
  mbg_model_free(mod);
}

/* Two nodes, two modes, by hand (I Ψ = [J r + m p × t; m t], Mee_kl = Σ m t_k·t_l + r_kᵀ J r_l):
 *   node 0: p = (1, 0, 0), m = 2, J = 0;
 *   node 1: p = (0, 2, 0), m = 3, J = [0.4 0.1 0.05; 0.1 0.5 0; 0.05 0 0.6]
 *           (ixx iyy izz ixy ixz iyz = 0.4 0.5 0.6 0.1 0.05 0).
 *   mode 0: node 0 r = 0, t = (0, 1, 0);        node 1 r = (0, 0, 2), t = (1, 0, 0);
 *   mode 1: node 0 r = 0, t = (0, 0.5, 0.5);    node 1 r = (1, 0, 0), t = (0, 0, 1).
 * Ψ = [r; t + p × r]: node 1 mode 0: p × r = (4, 0, 0), Ψ = [0 0 2; 5 0 0] (the origin, 2 m from
 * the node, is carried at 2·2 m/s along x besides t); node 1 mode 1: p × r = (0, 0, −2),
 * Ψ = [1 0 0; 0 0 −1]; node 0: Ψ = [0; t].
 * I Ψ: node 0 mode 0: p × t = (0, 0, 1) → [0 0 2; 0 2 0]; node 0 mode 1: p × t = (0, −0.5, 0.5)
 *   → [0 −1 1; 0 1 1]; node 1 mode 0: J r = (0.1, 0, 1.2), p × t = (0, 0, −2) →
 *   [0.1 0 −4.8; 3 0 0]; node 1 mode 1: J r = (0.4, 0.1, 0.05), p × t = (2, 0, 0) →
 *   [6.4 0.1 0.05; 0 0 3].
 * Mc: column 0 = [0.1 0 −2.8; 3 2 0], column 1 = [6.4 −0.9 1.05; 0 1 4].
 * Mee: 00 = 2·1 + 3·1 + 2·1.2 = 7.4; 01 = 2·0.5 + 3·0 + (0,0,2)·(0.4,0.1,0.05) = 1.1;
 *   11 = 2·0.5 + 3·1 + 0.4 = 4.4 (the same as Σ Ψᵀ(IΨ): node 1 mode 0: −9.6 + 15 = 5.4).
 * K and D copied; the attached shape of node 1 is its Ψ. */
static void test_nodal_two_nodes(void **state) {
  (void)state;
  mbg_node nodes[2] = {{.xyz = {1, 0, 0}, .mass = 2},
                       {.xyz = {0, 2, 0}, .mass = 3, .inertia = {0.4, 0.5, 0.6, 0.1, 0.05, 0}}};
  double shapes[2 * 2 * 6] = {0, 0, 0, 0, 1, 0,   0, 0, 2, 1, 0, 0,   /* mode 0: nodes 0, 1 */
                              0, 0, 0, 0, 0.5, 0.5, 1, 0, 0, 0, 0, 1}; /* mode 1 */
  double K[4] = {100, 10, 10, 400}, D[4] = {0.5, 0.1, 0.1, 2};
  mbg_flex f = {.nmodes = 2, .nnodes = 2, .nodes = nodes, .shapes = shapes, .stiffness = K,
                .damping = D};
  mbg_modal m;
  assert_int_equal(mbg_modal_build(&f, &m), 0);
  const double mc[12] = {0.1, 0, -2.8, 3, 2, 0, 6.4, -0.9, 1.05, 0, 1, 4};
  const double mee[4] = {7.4, 1.1, 1.1, 4.4};
  for (int k = 0; k < 12; k++) assert_near(m.Mc[k], mc[k], 1e-14);
  for (int k = 0; k < 4; k++) {
    assert_near(m.Mee[k], mee[k], 1e-14);
    assert_near(m.K[k], K[k], 0);
    assert_near(m.D[k], D[k], 0);
  }
  double psi[12];
  const double want[12] = {0, 0, 2, 5, 0, 0, 1, 0, 0, 0, 0, -1};
  mbg_modal_attach_shape(&f, 1, NULL, psi);
  for (int k = 0; k < 12; k++) assert_near(psi[k], want[k], 0);
  mbg_modal_free(&m);
  f.damping = NULL; /* no damping in the model: zeros */
  assert_int_equal(mbg_modal_build(&f, &m), 0);
  for (int k = 0; k < 4; k++) assert_near(m.D[k], 0, 0);
  mbg_modal_free(&m);
}

static void cross3(const double a[3], const double b[3], double c[3]) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* A rigid motion V = [w; v] at the origin as a "mode" (every node: r = w, t = v + w × p, so
 * Ψ = V): the coupling must be the body's rigid spatial inertia times V, and Mee = Vᵀ I V, with
 * the inertia build_flex.c derives from the same nodes and model/xform.c moves to the origin —
 * the products of inertia (tensor entries, off-axis nodes) enter with the same signs. */
static void test_rigid_mode(void **state) {
  (void)state;
  mbg_model *mod = parse(
      "body plate flexible {\n"
      "  nodes {\n"
      "    a xyz 0.3 -0.2 0.1 mass 1.5 inertia 0.02 0.03 0.04 0.005 -0.004 0.003;\n"
      "    b xyz -0.1 0.4 0.25 mass 0.7 inertia 0.01 0.012 0.015 -0.002 0.001 0.0015;\n"
      "    c xyz 0.5 0.1 -0.3 mass 2.0;\n"
      "  }\n"
      "  modes { m1 { b 0 0 0 0 1 0; } }\n"
      "  stiffness { 100; }\n"
      "}\n"
      "joint j revolute world -> plate;\n");
  mbg_body *b = &mod->bodies[1];
  mbg_flex *f = b->flex;
  const double w[3] = {0.3, -0.7, 1.1}, v[3] = {0.5, 0.2, -0.4};
  for (int j = 0; j < f->nnodes; j++) {
    double *s = f->shapes + 6 * j, *p = f->nodes[j].xyz;
    double wp[3];
    cross3(w, p, wp);
    for (int i = 0; i < 3; i++) s[i] = w[i], s[3 + i] = v[i] + wp[i];
  }
  mbg_modal m;
  assert_int_equal(mbg_modal_build(f, &m), 0);
  mbg_inertia I;
  mbg_inertia_from_body(b, &I);
  const double *h = I.h, *J = I.I;
  double Jw[3] = {J[0] * w[0] + J[3] * w[1] + J[4] * w[2], J[3] * w[0] + J[1] * w[1] + J[5] * w[2],
                  J[4] * w[0] + J[5] * w[1] + J[2] * w[2]};
  double hv[3], hw[3];
  cross3(h, v, hv);
  cross3(h, w, hw);
  double IV[6], e = 0; /* I V = [J w + h × v; m v − h × w] */
  for (int i = 0; i < 3; i++) IV[i] = Jw[i] + hv[i], IV[3 + i] = I.m * v[i] - hw[i];
  for (int i = 0; i < 3; i++) e += w[i] * IV[i] + v[i] * IV[3 + i];
  for (int i = 0; i < 6; i++) assert_near(m.Mc[i], IV[i], 1e-14);
  assert_near(m.Mee[0], e, 1e-14);
  mbg_modal_free(&m);
  mbg_model_free(mod);
}

/* examples/flexible_arm_nodal.mbd states its 4-node modal mass, [0.6157 0.1473; 0.1473 0.8512]
 * (against ρA L/4 = 0.54 for the continuous beam), to 4 decimals; its stiffness and damping are
 * copied. The wrist hangs on the tip node n3: Ψ there is [0 0 φ'(L); 0 φ(L) − L φ'(L) 0] with the
 * sampled slope of each mode (1.376505 and 4.780778). */
static void test_example_nodal(void **state) {
  (void)state;
  char path[1024];
  const char *src = getenv("MBDC_SOURCE_DIR");
  snprintf(path, sizeof path, "%s/examples/flexible_arm_nodal.mbd", src ? src : ".");
  int errors = -1, warnings = -1;
  mbg_model *mod = mbg_load_mbd(path, stderr, &errors, &warnings);
  assert_non_null(mod);
  const mbg_flex *f = mod->bodies[mbg_model_find_body(mod, "forearm")].flex;
  assert_non_null(f);
  mbg_modal m;
  assert_int_equal(mbg_modal_build(f, &m), 0);
  const double mee[4] = {0.6157, 0.1473, 0.1473, 0.8512};
  for (int k = 0; k < 4; k++) {
    assert_near(m.Mee[k], mee[k], 5e-5);
    assert_near(m.K[k], f->stiffness[k], 0);
    assert_near(m.D[k], f->damping[k], 0);
  }
  double psi[12];
  const double slope[2] = {1.376505, 4.780778};
  mbg_modal_attach_shape(f, 3, NULL, psi);
  for (int k = 0; k < 2; k++) {
    const double want[6] = {0, 0, slope[k], 0, 1 - slope[k], 0};
    for (int r = 0; r < 6; r++) assert_near(psi[6 * k + r], want[r], 1e-15);
  }
  mbg_modal_free(&m);
  mbg_model_free(mod);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_roots),
    cmocka_unit_test(test_shapes),
    cmocka_unit_test(test_integrals),
    cmocka_unit_test(test_beam_preset),
    cmocka_unit_test(test_nodal_converges),
    cmocka_unit_test(test_beam_rigid_inertia),
    cmocka_unit_test(test_nodal_two_nodes),
    cmocka_unit_test(test_rigid_mode),
    cmocka_unit_test(test_example_nodal),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
