/* test_frames.c — operational frames (docs/dsl.md "frame", runtime/frames.c): the frames of a
 * model (every body's own, merged ones included, then the `frame` statements), their runtime
 * data, mb_frame_pose and the .mbd writer.
 *
 * References:
 *   - mb_fk: a frame that is a moving body's own has that body's pose;
 *   - the model's numbers composed by hand: examples/arm7.mbd's tool is merged into link7 by a
 *     fixed joint at d_flange = 0.045 along z, and its frame tcp lies 0.12 further along z, so
 *     their poses are link7's rotation and link7's origin + R e_z 0.045 (+ 0.12); the Panda's
 *     panda_hand_tcp (examples/urdf/panda.urdf) is 0.1034 along the hand's z, the hand rotated
 *     by −π/4 about z at 0.107 along link7's z (panda_link8 and panda_hand_joint);
 *   - central differences: the world-aligned Jacobian against the poses at q ⊕ ±h e_k (origin and
 *     rotation), J̇ v against the world-aligned J v at q ⊕ ±h v; the identities J_local =
 *     diag(Rᵀ, Rᵀ) J_world and mb_frame_velocity = J_world v; on arm7, the Panda and Solo12 with a
 *     floating base (quaternion: q ⊕ x by mb_integrate);
 *   - mb_frames_check's contract (bodies in range, proper rotations, finite numbers);
 *   - the writer: a model with frames written as .mbd reads back with the same frames. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/mbd_write.h"
#include "load/load.h"
#include "mbt_contactsys.h"

/* rel (floating: with a floating base; mbt_csys_open) with its frames, which must pass
 * mb_frames_check. */
static void sys_open_opts(mbt_csys *s, const char *rel, int floating) {
  mbt_csys_open(s, rel, floating);
  char msg[128];
  if (mb_frames_check(&s->r.rt.model, &s->rf.frames, msg, sizeof msg)) fail_msg("%s", msg);
}

static void sys_open(mbt_csys *s, const char *rel) { sys_open_opts(s, rel, 0); }

/* A random configuration (revolute and prismatic joints only in these models). */
static void random_q(const mbt_csys *s, uint64_t *seed, double *q) {
  for (int k = 0; k < s->r.rt.model.nq; k++) {
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    q[k] = ((double)(*seed >> 11) / 9007199254740992.0 - 0.5) * 4.0;
  }
}

/* The pose P (12) of body pose B moved by d along its own z and rotated by R (row-major). */
static void offset(const double *B, double d, const double *R, double *P) {
  for (int a = 0; a < 3; a++) {
    for (int c = 0; c < 3; c++) {
      double x = 0.0;
      for (int j = 0; j < 3; j++) x += B[3 * a + j] * (R ? R[3 * j + c] : (j == c));
      P[3 * a + c] = x;
    }
    P[9 + a] = B[9 + a] + B[3 * a + 2] * d;
  }
}

static double diff(const double *a, const double *b, int n) {
  double e = 0.0;
  for (int k = 0; k < n; k++) e = fmax(e, fabs(a[k] - b[k]));
  return e;
}

static void test_arm7(void **state) {
  (void)state;
  mbt_csys s;
  sys_open(&s, "examples/arm7.mbd");
  const mb_model *M = &s.r.rt.model;
  assert_int_equal(s.r.t->nframes, 9); /* link1 ... link7, tool (merged), tcp (declared) */
  int tool = mbt_csys_frame(&s, "tool"), tcp = mbt_csys_frame(&s, "tcp");
  assert_int_equal(s.r.t->frame[tcp].model_frame, 0);
  assert_int_equal(s.r.t->frame[tool].model_body >= 0, 1);
  double q[16], fk[12 * 16], pose[12 * 16], want[12], worst = 0.0;
  uint64_t seed = 7;
  for (int n = 0; n < 50; n++) {
    random_q(&s, &seed, q);
    assert_int_equal(mb_fk(M, &s.ws, q, fk), MB_OK);
    assert_int_equal(mb_frame_pose(M, &s.rf.frames, &s.ws, q, pose), MB_OK);
    for (int k = 0; k < s.r.t->nframes; k++) { /* a moving body's own frame: its fk pose */
      const mbg_tree_frame *f = &s.r.t->frame[k];
      if (f->model_body >= 0 && s.r.t->body[f->body].model_body == f->model_body)
        worst = fmax(worst, diff(pose + 12 * k, fk + 12 * f->body, 12));
    }
    int l7 = s.r.t->frame[tool].body;
    offset(fk + 12 * l7, 0.045, NULL, want);
    worst = fmax(worst, diff(pose + 12 * tool, want, 12));
    offset(fk + 12 * l7, 0.045 + 0.12, NULL, want);
    worst = fmax(worst, diff(pose + 12 * tcp, want, 12));
  }
  printf("arm7: frame poses vs fk and the model's offsets: worst %.1e\n", worst);
  assert_true(worst <= 1e-14);
  mbt_csys_close(&s);
}

static void test_panda_tcp(void **state) {
  (void)state;
  mbt_csys s;
  sys_open(&s, "examples/urdf/panda.urdf");
  const mb_model *M = &s.r.rt.model;
  int hand = mbt_csys_frame(&s, "panda_hand"), tcp = mbt_csys_frame(&s, "panda_hand_tcp");
  int l7 = s.r.t->frame[hand].body;
  assert_int_equal(s.r.t->frame[tcp].body, l7); /* both merged into panda_link7 */
  const double c = cos(-0.7853981633974483), sn = sin(-0.7853981633974483); /* the URDF's rpy */
  const double Rz[9] = {c, -sn, 0, sn, c, 0, 0, 0, 1};
  double q[16], fk[12 * 16], pose[12 * 16], want[12], worst = 0.0;
  uint64_t seed = 11;
  for (int n = 0; n < 50; n++) {
    random_q(&s, &seed, q);
    assert_int_equal(mb_fk(M, &s.ws, q, fk), MB_OK);
    assert_int_equal(mb_frame_pose(M, &s.rf.frames, &s.ws, q, pose), MB_OK);
    offset(fk + 12 * l7, 0.107, Rz, want);
    worst = fmax(worst, diff(pose + 12 * hand, want, 12));
    offset(fk + 12 * l7, 0.107 + 0.1034, Rz, want);
    worst = fmax(worst, diff(pose + 12 * tcp, want, 12));
  }
  printf("panda: panda_hand and panda_hand_tcp vs the URDF's offsets: worst %.1e\n", worst);
  assert_true(worst <= 1e-14);
  mbt_csys_close(&s);
}

/* A random state: q = neutral ⊕ a random velocity (quaternions stay unit), v random in ±1. */
static void random_state(const mbt_csys *s, uint64_t *seed, double *q, double *v) {
  const mb_model *M = &s->r.rt.model;
  double dq[64];
  assert_int_equal(mb_neutral(M, q), MB_OK);
  random_q(s, seed, dq); /* nq ≥ nv entries, ±2 */
  assert_int_equal(mb_integrate(M, q, dq, 1.0, q), MB_OK);
  random_q(s, seed, v);
  for (int k = 0; k < M->nv; k++) v[k] *= 0.5;
}

/* The rotation vector of Rp Rmᵀ over 2h (small): the angular velocity in world axes. */
static void omega_fd(const double *Rp, const double *Rm, double h, double w[3]) {
  double D[9];
  for (int a = 0; a < 3; a++)
    for (int c = 0; c < 3; c++) {
      double x = 0.0;
      for (int j = 0; j < 3; j++) x += Rp[3 * a + j] * Rm[3 * c + j];
      D[3 * a + c] = x;
    }
  w[0] = (D[7] - D[5]) / (4 * h), w[1] = (D[2] - D[6]) / (4 * h), w[2] = (D[3] - D[1]) / (4 * h);
}

/* Jacobians, velocity and J̇v of every frame against differences and identities; the worst
 * relative errors into err[0..3] (Jacobian by differences, J̇v by differences, the local
 * identity, the velocity identity). */
static void kinematics(const char *rel, int floating, double *err) {
  mbt_csys s;
  sys_open_opts(&s, rel, floating);
  const mb_model *M = &s.r.rt.model;
  const mb_frames *F = &s.rf.frames;
  int nv = M->nv, nf = F->n;
  size_t nj = 6 * (size_t)nv * (size_t)nf;
  double q[64], v[64], qp[64], qm[64], e[64], h = 1e-6;
  double *J = calloc(nj, sizeof *J), *JL = calloc(nj, sizeof *JL), *Jp = calloc(nj, sizeof *Jp);
  double *Jm = calloc(nj, sizeof *Jm), *Pp = calloc(12 * (size_t)nf, sizeof *Pp);
  double *Pm = calloc(12 * (size_t)nf, sizeof *Pm), *P = calloc(12 * (size_t)nf, sizeof *P);
  double *vel = calloc(6 * (size_t)nf, sizeof *vel), *acc = calloc(6 * (size_t)nf, sizeof *acc);
  assert_true(J && JL && Jp && Jm && Pp && Pm && P && vel && acc && M->nq <= 64);
  uint64_t seed = 99;
  for (int t = 0; t < 4; t++) err[t] = 0.0;
  for (int n = 0; n < 5; n++) {
    random_state(&s, &seed, q, v);
    assert_int_equal(mb_frame_jacobian(M, F, &s.ws, q, 0, J), MB_OK);
    assert_int_equal(mb_frame_jacobian(M, F, &s.ws, q, 1, JL), MB_OK);
    assert_int_equal(mb_frame_pose(M, F, &s.ws, q, P), MB_OK);
    assert_int_equal(mb_frame_velocity(M, F, &s.ws, q, v, vel), MB_OK);
    assert_int_equal(mb_frame_acceleration_bias(M, F, &s.ws, q, v, acc), MB_OK);
    double scale = 1e-300;
    for (size_t x = 0; x < nj; x++) scale = fmax(scale, fabs(J[x]));
    for (int c = 0; c < nv; c++) { /* column c by differences of the poses */
      for (int k = 0; k < nv; k++) e[k] = k == c;
      assert_int_equal(mb_integrate(M, q, e, h, qp), MB_OK);
      assert_int_equal(mb_integrate(M, q, e, -h, qm), MB_OK);
      assert_int_equal(mb_frame_pose(M, F, &s.ws, qp, Pp), MB_OK);
      assert_int_equal(mb_frame_pose(M, F, &s.ws, qm, Pm), MB_OK);
      for (int k = 0; k < nf; k++) {
        double w[3], *Jk = J + 6 * (size_t)nv * (size_t)k;
        omega_fd(Pp + 12 * k, Pm + 12 * k, h, w);
        for (int a = 0; a < 3; a++) {
          err[0] = fmax(err[0], fabs(Jk[nv * a + c] - w[a]) / scale);
          double dp = (Pp[12 * k + 9 + a] - Pm[12 * k + 9 + a]) / (2 * h);
          err[0] = fmax(err[0], fabs(Jk[nv * (3 + a) + c] - dp) / scale);
        }
      }
    }
    /* J̇ v: d/dt (J v) along v */
    assert_int_equal(mb_integrate(M, q, v, h, qp), MB_OK);
    assert_int_equal(mb_integrate(M, q, v, -h, qm), MB_OK);
    assert_int_equal(mb_frame_jacobian(M, F, &s.ws, qp, 0, Jp), MB_OK);
    assert_int_equal(mb_frame_jacobian(M, F, &s.ws, qm, 0, Jm), MB_OK);
    double ascale = 1e-300;
    for (int x = 0; x < 6 * nf; x++) ascale = fmax(ascale, fabs(acc[x]));
    for (int k = 0; k < nf; k++)
      for (int r = 0; r < 6; r++) {
        double d = 0.0, jv = 0.0, rot = 0.0;
        const double *row = J + 6 * (size_t)nv * (size_t)k + (size_t)nv * (size_t)r;
        for (int c = 0; c < nv; c++) {
          d += (Jp[6 * (size_t)nv * (size_t)k + (size_t)nv * (size_t)r + (size_t)c] -
                Jm[6 * (size_t)nv * (size_t)k + (size_t)nv * (size_t)r + (size_t)c]) / (2 * h) * v[c];
          jv += row[c] * v[c];
        }
        err[1] = fmax(err[1], fabs(acc[6 * k + r] - d) / ascale);
        err[3] = fmax(err[3], fabs(vel[6 * k + r] - jv) / scale);
        /* the local Jacobian: Rᵀ times the world one, row r's block */
        for (int c = 0; c < nv; c++) {
          rot = 0.0;
          for (int j = 0; j < 3; j++)
            rot += P[12 * k + 3 * j + r % 3] *
                   J[6 * (size_t)nv * (size_t)k + (size_t)nv * (size_t)(3 * (r / 3) + j) + (size_t)c];
          err[2] = fmax(err[2], fabs(JL[6 * (size_t)nv * (size_t)k + (size_t)nv * (size_t)r + (size_t)c] - rot) / scale);
        }
      }
  }
  printf("%-28s nv %2d nf %2d: J vs differences %.1e, Jdot v vs differences %.1e, local %.1e, "
         "velocity %.1e\n", rel, nv, nf, err[0], err[1], err[2], err[3]);
  free(J), free(JL), free(Jp), free(Jm), free(Pp), free(Pm), free(P), free(vel), free(acc);
  mbt_csys_close(&s);
}

/* Differences with h = 1e-6: truncation O(h²) and rounding O(ε/h) ≈ 1e-10 relative; bounds 1e-8
 * (differences), 1e-14 (identities). */
static void test_kinematics(void **state) {
  (void)state;
  const struct { const char *rel; int floating; } models[] = {
      {"examples/arm7.mbd", 0}, {"examples/urdf/panda.urdf", 0}, {"examples/urdf/solo12.urdf", 1}};
  for (size_t k = 0; k < sizeof models / sizeof models[0]; k++) {
    double err[4];
    kinematics(models[k].rel, models[k].floating, err);
    assert_true(err[0] <= 1e-8 && err[1] <= 1e-8);
    assert_true(err[2] <= 1e-14 && err[3] <= 1e-14);
  }
}

static void test_check(void **state) {
  (void)state;
  mbt_csys s;
  sys_open(&s, "examples/arm7.mbd");
  mb_frame f = s.rf.frame[0];
  mb_frames F = {1, &f};
  char msg[128];
  assert_int_equal(mb_frames_check(&s.r.rt.model, &F, msg, sizeof msg), 0);
  f.body = s.r.rt.model.nb + 1;
  assert_int_equal(mb_frames_check(&s.r.rt.model, &F, msg, sizeof msg), -1);
  f = s.rf.frame[0], f.R[0] = 2.0;
  assert_int_equal(mb_frames_check(&s.r.rt.model, &F, msg, sizeof msg), -1);
  f = s.rf.frame[0], f.p[1] = NAN;
  assert_int_equal(mb_frames_check(&s.r.rt.model, &F, msg, sizeof msg), -1);
  F.n = 1, F.frame = NULL;
  assert_int_equal(mb_frames_check(&s.r.rt.model, &F, msg, sizeof msg), -1);
  double q[16] = {0}, pose[12];
  assert_int_equal(mb_frame_pose(&s.r.rt.model, NULL, &s.ws, q, pose), MB_EINVAL);
  mbt_csys_close(&s);
}

/* examples/arm7.mbd written as .mbd (its frame tcp among it) reads back with the same frames. */
static void test_write(void **state) {
  (void)state;
  mbt_csys s;
  sys_open(&s, "examples/arm7.mbd");
  char path[] = "/tmp/mbdc_frames_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  assert_non_null(f);
  /* the writer writes bodies, joints and frames (constants already evaluated) */
  assert_int_equal(mbg_mbd_write(f, s.r.m, "arm7.mbd"), 0);
  fclose(f);
  int errors = 0;
  int warnings = 0;
  mbg_model *m2 = mbg_load_mbd(path, stderr, &errors, &warnings);
  remove(path);
  assert_non_null(m2);
  assert_int_equal(m2->nframes, s.r.m->nframes);
  for (int k = 0; k < m2->nframes; k++) {
    assert_string_equal(m2->frames[k].name, s.r.m->frames[k].name);
    assert_int_equal(m2->frames[k].body, s.r.m->frames[k].body);
    assert_true(diff(m2->frames[k].xyz, s.r.m->frames[k].xyz, 3) == 0.0);
    assert_true(diff(m2->frames[k].rpy, s.r.m->frames[k].rpy, 3) == 0.0);
  }
  mbg_model_free(m2);
  mbt_csys_close(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arm7),
      cmocka_unit_test(test_panda_tcp),
      cmocka_unit_test(test_kinematics),
      cmocka_unit_test(test_check),
      cmocka_unit_test(test_write),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
