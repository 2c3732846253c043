/* test_flex_beam.c — the runtime's flexible beam against Euler-Bernoulli beam theory: the
 * clamped and the pinned-free natural frequencies, the static sag of a cantilever under its own
 * weight, and the nodal route (the beam sampled at lumped nodes) against the beam preset. The
 * beam: L = 1.2 m, EI = 350 N m², ρA = 2.7 kg/m. References: Meirovitch, "Fundamentals of
 * Vibrations", 2001; Blevins, "Formulas for Natural Frequency and Mode Shape", 1979; Timoshenko &
 * Gere, "Mechanics of Materials", 1972 (the cantilever's deflection). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mbt_flex.h"
#include "modal/beam.h"

enum { MAXV = 32 };

static const double L = 1.2, EI = 350, RHOA = 2.7, G = 9.81;

/* The beam on a revolute joint about z at the world, bending in the x-y plane. */
static void load_beam(int modes, double gy, mbt_fm *F) {
  char src[512];
  snprintf(src, sizeof src,
           "body beam flexible { beam length %.17g EI %.17g rhoA %.17g modes %d; }\n"
           "joint pin revolute world -> beam { axis 0 0 1; }\n"
           "gravity 0 %.17g 0;\n",
           L, EI, RHOA, modes, gy);
  mbt_fm_text("beam.mbd", src, F);
  assert_int_equal(F->nv, 1 + modes);
}

/* ω₀ = √(EI/(ρA L⁴)): a uniform beam's frequencies are (β_i L)² ω₀ (Meirovitch 2001, §8.9). */
static double omega0(void) { return sqrt(EI / (RHOA * L * L * L * L)); }

/* The joint locked: the modal rows and columns of M and the modal stiffness K (the rtmodel's).
 * The exact cantilever modes are orthogonal in mass and stiffness (Meirovitch 2001, §8.5), so
 * Rayleigh-Ritz in them is diagonal and returns the exact eigenvalues, ω_i = (β_i L)² ω₀, up to
 * rounding: asserted to 1e-9 (the 0.1 % of the textbook's 5-digit roots also). */
void test_flex_clamped(void **state) {
  (void)state;
  static const double book[3] = {1.8751, 4.6941, 7.8548}; /* Blevins 1979, table 8-1 */
  mbt_fm F;
  load_beam(3, 0, &F);
  unsigned long long seed = 5;
  double q[MAXV], M[MAXV * MAXV], Mm[9], w[3];
  mbt_random_q(F.model, &seed, 0.05, q);
  assert_int_equal(mb_crba(F.model, &F.ws, q, M), MB_OK);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) Mm[3 * r + c] = M[4 * (1 + r) + 1 + c];
  assert_int_equal(mbt_gen_eig(3, F.rt.K, Mm, w), 0);
  for (int i = 0; i < 3; i++) {
    double om = sqrt(w[i]), B = mbg_beam_root(i + 1), want = B * B * omega0();
    print_message("  clamped mode %d: omega %.12f rad/s, (beta L)^2 w0 %.12f, rel %.1e\n", i + 1,
                  om, want, fabs(om / want - 1));
    assert_true(fabs(om / want - 1) < 1e-9);
    assert_true(fabs(om / (book[i] * book[i] * omega0()) - 1) < 1e-3);
  }
  mbt_fm_free(&F);
}

/* β L of the pinned-free beam's first elastic mode: the root of tan x = tanh x near 3.9266
 * (Blevins 1979, table 8-1), by Newton's method on sin x cosh x − cos x sinh x. */
static double pinned_free_root(void) {
  double x = 3.9266;
  for (int it = 0; it < 20; it++) {
    double f = sin(x) * cosh(x) - cos(x) * sinh(x), df = 2 * sin(x) * sinh(x);
    x -= f / df;
  }
  return x;
}

/* The free joint (no hub: the pin at x = 0), the full M (joint and modes) with K padded by a
 * zero row and column: the frequencies are Rayleigh-Ritz upper bounds in nested subspaces
 * (Meirovitch 2001, §8.14), so the first elastic one decreases monotonically to
 * (3.9266)² ω₀ as clamped modes are added (the pinned end's zero moment is a natural boundary
 * condition, which the trial functions need not meet: it holds in the limit). */
void test_flex_pinned_free(void **state) {
  (void)state;
  static const int counts[] = {1, 2, 4, 8, 12, 16, 20};
  double B = pinned_free_root(), want = B * B * omega0(), prev = INFINITY, err = 1;
  assert_true(fabs(B - 3.92660231) < 1e-8);
  print_message("  pinned-free, first elastic mode, exact %.10f rad/s (beta L = %.12f)\n"
                "    modes   omega [rad/s]      rel. error\n", want, B);
  for (size_t t = 0; t < sizeof counts / sizeof *counts; t++) {
    int nm = counts[t], n = nm + 1;
    mbt_fm F;
    load_beam(nm, 0, &F);
    double q[MAXV] = {0}, M[MAXV * MAXV], K[MAXV * MAXV] = {0}, w[MAXV];
    assert_int_equal(mb_crba(F.model, &F.ws, q, M), MB_OK);
    for (int r = 0; r < nm; r++)
      for (int c = 0; c < nm; c++) K[n * (1 + r) + 1 + c] = F.rt.K[nm * r + c];
    assert_int_equal(mbt_gen_eig(n, K, M, w), 0);
    assert_true(fabs(w[0]) < 1e-9 * w[1]); /* the rigid rotation */
    double om = sqrt(w[1]);
    err = om / want - 1;
    print_message("    %5d   %.10f   %.3e\n", nm, om, err);
    assert_true(om < prev && err > -1e-12);
    prev = om;
    mbt_fm_free(&F);
  }
  assert_true(err < 1e-3);
}

/* The cantilever (joint locked) under its own weight, gravity −9.81 along the body's y: RNEA's
 * modal rows at η = 0, rest, give minus the modal load, so K η = −rnea. The tip deflection is
 * Σ η_k (tip normalization) → −q L⁴/(8 EI), q = ρA g (Timoshenko & Gere 1972, the cantilever
 * under a uniform load); the modal series converges like Σ 1/(β_k L)⁵. */
void test_flex_sag(void **state) {
  (void)state;
  static const int counts[] = {1, 2, 3, 4, 6, 8, 10, 15, 20};
  double want = -RHOA * G * L * L * L * L / (8 * EI), err10 = 1;
  print_message("  cantilever sag, exact tip deflection %.12f m\n"
                "    modes   tip [m]           rel. error\n", want);
  for (size_t t = 0; t < sizeof counts / sizeof *counts; t++) {
    int nm = counts[t];
    mbt_fm F;
    load_beam(nm, -G, &F);
    double q[MAXV] = {0}, r[MAXV], Kc[MAXV * MAXV], tip = 0;
    assert_int_equal(mb_rnea(F.model, &F.ws, q, NULL, NULL, NULL, r), MB_OK);
    memcpy(Kc, F.rt.K, (size_t)nm * (size_t)nm * sizeof *Kc);
    assert_int_equal(mbt_chol(nm, Kc), 0);
    double *eta = r + 1; /* the modal rows */
    for (int k = 0; k < nm; k++) eta[k] = -eta[k];
    mbt_chol_solve(nm, Kc, eta);
    for (int k = 0; k < nm; k++) tip += eta[k];
    double err = tip / want - 1;
    if (nm == 10) err10 = err;
    print_message("    %5d   %.12f   %+.3e\n", nm, tip, err);
    mbt_fm_free(&F);
  }
  assert_true(fabs(err10) < 5e-3);
}

/* A payload of mass P/g hanging from the cantilever at x = a on a (locked) revolute joint, its
 * centre of mass c further along x, gravity −g along y: the payload's weight reaches the modal
 * rows through the attachment shape Ψ as a point load P at a and a moment P c there, so the tip
 * deflects by the beam's own sag (above) plus P a²(3L − a)/(6 EI) + P c a (2L − a)/(2 EI)
 * (Timoshenko & Gere 1972, the cantilever under a point load and under a moment). The modal
 * series of a concentrated load converges like Σ 1/(β_k L)³ (the moment's; the force's like
 * Σ 1/(β_k L)⁴): < 0.5 % at 20 modes. */
void test_flex_point_load(void **state) {
  (void)state;
  static const double at[2][2] = {{1.2, 0.15}, {0.7, 0.0}}; /* (a, c) */
  const double mp = 0.9, P = mp * G;
  for (int t = 0; t < 2; t++) {
    double a = at[t][0], c = at[t][1], err = 1, tip = 0;
    double want = -(RHOA * G * L * L * L * L / (8 * EI) + P * a * a * (3 * L - a) / (6 * EI) +
                    P * c * a * (2 * L - a) / (2 * EI));
    print_message("  payload at x = %.2f (com %.2f beyond), exact tip deflection %.12f m\n"
                  "    modes   tip [m]           rel. error\n", a, c, want);
    for (int nm = 5; nm <= 20; nm += 5) {
      char src[512];
      snprintf(src, sizeof src,
               "body beam flexible { beam length %.17g EI %.17g rhoA %.17g modes %d; }\n"
               "body pay { mass %.17g; com %.17g 0 0; inertia 1e-4 1e-4 1e-4; }\n"
               "joint pin revolute world -> beam { axis 0 0 1; }\n"
               "joint wrist revolute beam -> pay { origin xyz %.17g 0 0; axis 0 0 1; }\n"
               "gravity 0 %.17g 0;\n",
               L, EI, RHOA, nm, mp, c, a, -G);
      mbt_fm F;
      mbt_fm_text("payload.mbd", src, &F);
      double q[MAXV] = {0}, r[MAXV], Kc[MAXV * MAXV];
      assert_int_equal(mb_rnea(F.model, &F.ws, q, NULL, NULL, NULL, r), MB_OK);
      memcpy(Kc, F.rt.K, (size_t)nm * (size_t)nm * sizeof *Kc);
      assert_int_equal(mbt_chol(nm, Kc), 0);
      double *eta = r + 1; /* the beam's modal rows; r[1 + nm] is the wrist's */
      for (int k = 0; k < nm; k++) eta[k] = -eta[k];
      mbt_chol_solve(nm, Kc, eta);
      tip = 0;
      for (int k = 0; k < nm; k++) tip += eta[k];
      err = tip / want - 1;
      print_message("    %5d   %.12f   %+.3e\n", nm, tip, err);
      mbt_fm_free(&F);
    }
    assert_true(fabs(err) < 5e-3);
  }
}

/* ------------------------------------------------------- nodal data against the beam preset */

enum { NODAL_MODES = 3 };

/* Node j of N: n0, n1, ..., and the last one "tip". */
static const char *node_name(int j, int N) {
  static char buf[16];
  if (j == N - 1) return "tip";
  snprintf(buf, sizeof buf, "n%d", j);
  return buf;
}

/* The payload on a revolute joint at the tip, on the beam preset or on nodal data at N nodes:
 * node masses ρA dx (trapezoid: half at the ends), no node inertia, mode k's shape translation
 * y = φ_k(x), rotation z = φ_k'(x), stiffness diag(EI (β_k L)⁴/(4 L³)). */
static char *payload_model(int N) {
  mbt_text t = {0};
  if (N == 0) {
    mbt_text_printf(&t, "body arm flexible { beam length %.17g EI %.17g rhoA %.17g modes %d; }\n",
                    L, EI, RHOA, NODAL_MODES);
  } else {
    double dx = L / (N - 1);
    mbt_text_printf(&t, "body arm flexible {\n  nodes {\n");
    for (int j = 0; j < N; j++)
      mbt_text_printf(&t, "    %s xyz %.17g 0 0 mass %.17g;\n", node_name(j, N), j * dx,
                      RHOA * dx * (j == 0 || j == N - 1 ? 0.5 : 1));
    mbt_text_printf(&t, "  }\n  modes {\n");
    for (int k = 1; k <= NODAL_MODES; k++) {
      mbt_text_printf(&t, "    bend%d {\n", k);
      for (int j = 1; j < N; j++) {
        double s[3];
        mbg_beam_shape(k, L, j * dx, s);
        mbt_text_printf(&t, "      %s 0 0 %.17g 0 %.17g 0;\n", node_name(j, N), s[1], s[0]);
      }
      mbt_text_printf(&t, "    }\n");
    }
    mbt_text_printf(&t, "  }\n  stiffness {");
    for (int r = 1; r <= NODAL_MODES; r++)
      for (int c = 1; c <= NODAL_MODES; c++)
        mbt_text_printf(&t, " %.17g%s", r == c ? mbg_beam_stiffness(r, L, EI) : 0.0,
                        c == NODAL_MODES ? ";" : "");
    mbt_text_printf(&t, " }\n}\n");
  }
  mbt_text_printf(&t, "body pay { mass 0.8; com 0.05 0.02 0; inertia 0.002 0.003 0.004; }\n"
                      "joint pin revolute world -> arm { axis 0 0 1; }\n"
                      "joint wrist revolute arm -> pay { origin xyz %.17g 0 0 rpy 0.2 0.1 0;%s }\n"
                      "gravity 0.5 -9.81 -3;\n",
                  L, N ? " node tip;" : "");
  return mbt_text_take(&t);
}

/* M and RNEA of the nodal models (N = 25, 50, 100) against the preset's at random states:
 * the node sums are the trapezoid rule of the preset's integrals, so the error falls like
 * dx² (Davis & Rabinowitz, "Methods of Numerical Integration", 1984, the trapezoid rule's
 * Euler-Maclaurin error), by ((N₂ − 1)/(N₁ − 1))² ≈ 4 per doubling; < 1e-3 at N = 100. RNEA is
 * compared at η = 0 (with nonzero η̇, η̈): both models have the same K, and in the ruthlessly
 * linearized model η enters only through K η, which would swamp the comparison. */
void test_flex_nodal_vs_beam(void **state) {
  (void)state;
  static const int Ns[] = {25, 50, 100};
  char *src = payload_model(0);
  mbt_fm P;
  mbt_fm_text("preset.mbd", src, &P);
  free(src);
  int n = P.nv;
  double e[3][2];
  print_message("  nodal beam vs preset (3 modes, tip payload), max rel. error over 5 states\n"
                "        N   M            rnea         ratio M  ratio rnea\n");
  for (int t = 0; t < 3; t++) {
    src = payload_model(Ns[t]);
    mbt_fm F;
    mbt_fm_text("nodal.mbd", src, &F);
    free(src);
    assert_int_equal(F.nv, n);
    unsigned long long seed = 21;
    e[t][0] = e[t][1] = 0;
    for (int s = 0; s < 5; s++) {
      double q[MAXV], v[MAXV], a[MAXV], x[2][MAXV * MAXV];
      mbt_random_q(P.model, &seed, 0, q);
      mbt_random_v(n, &seed, v);
      mbt_random_v(n, &seed, a);
      assert_int_equal(mb_crba(P.model, &P.ws, q, x[0]), MB_OK);
      assert_int_equal(mb_crba(F.model, &F.ws, q, x[1]), MB_OK);
      size_t nn = (size_t)n * (size_t)n;
      e[t][0] = fmax(e[t][0], mbt_maxdiff(x[0], x[1], nn) / mbt_maxabs(x[0], nn));
      assert_int_equal(mb_rnea(P.model, &P.ws, q, v, a, NULL, x[0]), MB_OK);
      assert_int_equal(mb_rnea(F.model, &F.ws, q, v, a, NULL, x[1]), MB_OK);
      e[t][1] = fmax(e[t][1], mbt_maxdiff(x[0], x[1], (size_t)n) / mbt_maxabs(x[0], (size_t)n));
    }
    mbt_fm_free(&F);
    if (t == 0) print_message("    %5d   %.3e    %.3e\n", Ns[t], e[t][0], e[t][1]);
    else print_message("    %5d   %.3e    %.3e    %.2f     %.2f\n", Ns[t], e[t][0], e[t][1],
                       e[t - 1][0] / e[t][0], e[t - 1][1] / e[t][1]);
  }
  for (int t = 1; t < 3; t++)
    for (int k = 0; k < 2; k++) {
      double h = (double)(Ns[t] - 1) / (Ns[t - 1] - 1), ratio = e[t - 1][k] / e[t][k];
      assert_true(fabs(ratio / (h * h) - 1) < 0.15); /* dx², to the next term's dx⁴ */
    }
  assert_true(e[2][0] < 1e-3 && e[2][1] < 1e-3);
  mbt_fm_free(&P);
}

/* Node poses against the beam's own kinematics: the beam preset's node is its tip, tip-normalized,
 * so at any q its position is the forearm frame's origin + R (L, Σ η_k, 0) and its rotation is
 * R Rz(2 atan(φ_z/2)), φ_z = Σ φ_k'(L) η_k (the section's slope; the rotation of the quaternion
 * (0, 0, φ_z/2, 1)). Reference: mb_fk (the body's pose) and modal/beam.h (φ_k'(L)). */
void test_flex_node_poses(void **state) {
  (void)state;
  mbt_fm F;
  mbt_fm_file("examples/flexible_arm.mbd", &F);
  const mb_model *m = F.model;
  assert_int_equal(m->flex->nnodes, 1);
  int i = m->flex->node_body[0], nm = m->flex->nm[i], iq = mbt_mode_iq(m, i);
  double q[64], body[12 * 8], node[12], len = 1.0, worst = 0; /* the forearm's length */
  unsigned long long s = 99;
  for (int trial = 0; trial < 20; trial++) {
    mbt_random_q(m, &s, 0.05, q);
    assert_int_equal(mb_fk(m, &F.ws, q, body), MB_OK);
    assert_int_equal(mb_node_poses(m, &F.ws, q, node), MB_OK);
    double defl = 0, slope = 0, sh[3];
    for (int k = 0; k < nm; k++) {
      mbg_beam_shape(k + 1, len, len, sh);
      defl += q[iq + k], slope += sh[1] * q[iq + k];
    }
    const double *R = body + 12 * i, *p = R + 9;
    double a = 2 * atan(slope / 2), c = cos(a), sn = sin(a);
    double Rz[9] = {c, -sn, 0, sn, c, 0, 0, 0, 1}, want[12], x[3] = {len, defl, 0};
    for (int r = 0; r < 3; r++) {
      for (int k = 0; k < 3; k++)
        want[3 * r + k] = R[3 * r] * Rz[k] + R[3 * r + 1] * Rz[3 + k] + R[3 * r + 2] * Rz[6 + k];
      want[9 + r] = p[r] + R[3 * r] * x[0] + R[3 * r + 1] * x[1] + R[3 * r + 2] * x[2];
    }
    double d = mbt_maxdiff(node, want, 12);
    worst = d > worst ? d : worst;
  }
  print_message("node poses: worst |tip pose - beam kinematics| = %.3g\n", worst);
  assert_true(worst < 1e-14);
  mbt_fm_free(&F);
}

/* A beam clamped by a fixed joint (to the world, and to a rigid body on a floating joint: a
 * spacecraft appendage): the body stays in the tree with its modes as its only coordinates. Held
 * by the world, M is the modal mass and the frequencies of (K, M) are the cantilever's exactly,
 * (β_i L)² ω₀ (reference: beam theory, Meirovitch 2001, §8.9); on the floating bus, the
 * identities crba = rnea columns and aba = crba_fd hold (reference: the definition of M). */
void test_flex_fixed_joint(void **state) {
  (void)state;
  char src[512];
  snprintf(src, sizeof src,
           "body beam flexible { beam length %.17g EI %.17g rhoA %.17g modes 3; }\n"
           "joint clamp fixed world -> beam { origin rpy 0.3 0.2 0.1; }\n",
           L, EI, RHOA);
  mbt_fm F;
  mbt_fm_text("clamped.mbd", src, &F);
  assert_int_equal(F.nv, 3);
  double q[3] = {0.01, -0.02, 0.003}, M[9], w[3];
  assert_int_equal(mb_crba(F.model, &F.ws, q, M), MB_OK);
  assert_int_equal(mbt_gen_eig(3, F.rt.K, M, w), 0);
  for (int i = 0; i < 3; i++) {
    double B = mbg_beam_root(i + 1);
    assert_true(fabs(sqrt(w[i]) / (B * B * omega0()) - 1) < 1e-9);
  }
  mbt_fm_free(&F);
  snprintf(src, sizeof src,
           "gravity 0 0 0;\nbody bus { mass 500; inertia 190 190 150; }\n"
           "body panel flexible { beam length %.17g EI %.17g rhoA %.17g modes 3; }\n"
           "joint base floating world -> bus;\n"
           "joint clamp fixed bus -> panel { origin xyz 0.8 0 0.1 rpy 0.1 0 0; }\n",
           L, EI, RHOA);
  mbt_fm_text("bus.mbd", src, &F);
  assert_int_equal(F.nv, 9);
  unsigned long long s = 17;
  double x[10], v[9], tau[9], h[9], a1[9], a2[9], Mb[81], col[9], e[9]; /* nq 10, nv 9 */
  mbt_random_q(F.model, &s, 0.05, x);
  mbt_random_v(9, &s, v);
  mbt_random_v(9, &s, tau);
  assert_int_equal(mb_crba(F.model, &F.ws, x, Mb), MB_OK);
  assert_int_equal(mb_gravity(F.model, &F.ws, x, h), MB_OK);
  for (int c = 0; c < 9; c++) {
    for (int k = 0; k < 9; k++) e[k] = k == c;
    assert_int_equal(mb_rnea(F.model, &F.ws, x, NULL, e, NULL, col), MB_OK);
    for (int r = 0; r < 9; r++) assert_true(fabs(col[r] - h[r] - Mb[9 * r + c]) < 1e-10 * 500);
  }
  assert_int_equal(mb_aba(F.model, &F.ws, x, v, tau, NULL, a1), MB_OK);
  assert_int_equal(mb_crba_fd(F.model, &F.ws, x, v, tau, a2), MB_OK);
  assert_true(mbt_maxdiff(a1, a2, 9) < 1e-10 * (1 + mbt_maxabs(a1, 9)));
  mbt_fm_free(&F);
}

/* A payload fixed to the beam (a fixed joint: merged into the beam as a lumped attachment that
 * moves with its section, like a node) against the same payload on a revolute joint that does not
 * move (reference: locking a joint removes its row and column from M, from the static forces
 * g(q) and from the bias h(q, v) when it does not move). Both at the tip and mid-span, payload
 * offset and turned. With the modes moving the bias differs by design: a node of the modal body
 * drops the terms in η̇ that a body on a joint keeps (docs/flexible.md), so h is compared with
 * the modes at rest. */
void test_flex_fixed_payload(void **state) {
  (void)state;
  const char *fmt =
      "gravity 0.5 -9.81 0.2;\n"
      "body beam flexible { beam length %.17g EI %.17g rhoA %.17g modes 3; }\n"
      "body load { mass 0.4; com 0.05 0.01 0; inertia 0.002 0.003 0.004; }\n"
      "joint pin revolute world -> beam { axis 0 0 1; }\n"
      "joint hold %s beam -> load { origin xyz %.17g 0.02 0 rpy 0.1 0.2 0.3;%s }\n";
  for (int at = 0; at < 2; at++) {
    double x = at ? L : 0.6 * L, worst = 0;
    char a[768], b[768];
    snprintf(a, sizeof a, fmt, L, EI, RHOA, "fixed", x, "");
    snprintf(b, sizeof b, fmt, L, EI, RHOA, "revolute", x, " axis 0 1 0;");
    mbt_fm A, B;
    mbt_fm_text("fixed_payload.mbd", a, &A);
    mbt_fm_text("revolute_payload.mbd", b, &B);
    assert_int_equal(A.nv, 4);
    assert_int_equal(B.nv, 5);
    unsigned long long s = 23;
    for (int trial = 0; trial < 10; trial++) {
      double qa[4], qb[5], Ma[16], Mb[25], ha[4], hb[5], va[4] = {0}, vb[5] = {0}, na[4], nb[5];
      mbt_random_q(A.model, &s, 0.05, qa);
      memcpy(qb, qa, sizeof qa);
      qb[4] = 0;
      va[0] = vb[0] = mbt_rand(&s); /* the pin turning, the modes at rest */
      assert_int_equal(mb_nle(A.model, &A.ws, qa, va, na), MB_OK);
      assert_int_equal(mb_nle(B.model, &B.ws, qb, vb, nb), MB_OK);
      for (int r = 0; r < 4; r++) worst = fmax(worst, fabs(na[r] - nb[r]) / 100);
      assert_int_equal(mb_crba(A.model, &A.ws, qa, Ma), MB_OK);
      assert_int_equal(mb_crba(B.model, &B.ws, qb, Mb), MB_OK);
      assert_int_equal(mb_gravity(A.model, &A.ws, qa, ha), MB_OK);
      assert_int_equal(mb_gravity(B.model, &B.ws, qb, hb), MB_OK);
      for (int r = 0; r < 4; r++) {
        for (int c = 0; c < 4; c++) worst = fmax(worst, fabs(Ma[4 * r + c] - Mb[5 * r + c]));
        worst = fmax(worst, fabs(ha[r] - hb[r]) / 100);
      }
    }
    print_message("payload fixed at x = %.2f: worst |M, g/100 - locked revolute| = %.3g\n", x,
                  worst);
    assert_true(worst < 1e-13);
    mbt_fm_free(&A);
    mbt_fm_free(&B);
  }
}

/* The velocity-product load of the undeformed body on the modes (Jain & Rodriguez's b_m⁰) against
 * beam theory: an arm spinning at a constant rate ω about the shoulder with the elbow at 90°, so
 * the forearm (the beam, along the body x) is tangential at distance l1 from the axis: every
 * section feels the centrifugal acceleration ω² l1 across the beam (along body −y), a uniform load
 * q = ρA ω² l1, so the static tip deflection is −q L⁴ / (8 EI) (Euler-Bernoulli cantilever under
 * a uniform load). The uniform spin has zero spatial acceleration, so the modal rows of
 * rnea(q, v, 0) at η = 0 are that load: η = −K⁻¹ (modal rows), the tip deflection Σ η_k. */
void test_flex_centrifugal(void **state) {
  (void)state;
  const double l1 = 0.5, om = 3.0;
  char src[512];
  snprintf(src, sizeof src,
           "gravity 0 0 0;\nbody upper { mass 1.5; com 0.25 0 0; inertia 0.001 0.03 0.03; }\n"
           "body fore flexible { beam length %.17g EI %.17g rhoA %.17g modes 8; }\n"
           "joint shoulder revolute world -> upper { axis 0 0 1; }\n"
           "joint elbow revolute upper -> fore { origin xyz %.17g 0 0; axis 0 0 1; }\n",
           L, EI, RHOA, l1);
  mbt_fm F;
  mbt_fm_text("spin.mbd", src, &F);
  double q[10] = {0.3, 1.5707963267948966}, v[10] = {om}, tau[10], tip = 0; /* elbow π/2 */
  assert_int_equal(mb_rnea(F.model, &F.ws, q, v, NULL, NULL, tau), MB_OK);
  for (int k = 0; k < 8; k++) tip -= tau[2 + k] / F.rt.K[9 * k];
  double want = -RHOA * om * om * l1 * L * L * L * L / (8 * EI);
  print_message("  spinning arm, elbow 90 deg: tip deflection %.9e m, q L^4/(8 EI) %.9e m, rel %.1e\n",
                tip, want, fabs(tip / want - 1));
  assert_true(fabs(tip / want - 1) < 1e-5);
  mbt_fm_free(&F);
}
