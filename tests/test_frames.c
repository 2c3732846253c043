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
#include "topology/rtmodel.h"
#include "topology/topology.h"

typedef struct sys {
  mbg_model *m;
  mbg_topology *t;
  mbg_rtmodel rt;
  mbg_rtframes rf;
  mb_workspace ws;
  void *wbuf;
} sys;

static void sys_open(sys *s, const char *rel) {
  const char *src = getenv("MBDC_SOURCE_DIR");
  char path[4096];
  if (!src) fail_msg("MBDC_SOURCE_DIR is not set (run the test with ctest)");
  snprintf(path, sizeof path, "%s/%s", src, rel);
  memset(s, 0, sizeof *s);
  int errors = 0;
  mbg_load_opts o = {0};
  int warnings = 0;
  s->m = mbg_load(path, &o, stderr, &errors, &warnings);
  assert_non_null(s->m);
  assert_non_null(s->t = mbg_topology_build(s->m));
  assert_int_equal(mbg_rtmodel_build(s->m, s->t, &s->rt), 0);
  assert_int_equal(mbg_rtframes_build(s->t, &s->rf), 0);
  assert_non_null(s->wbuf = malloc(mb_workspace_size(&s->rt.model)));
  mb_workspace_init(&s->ws, &s->rt.model, s->wbuf);
  char msg[128];
  if (mb_frames_check(&s->rt.model, &s->rf.frames, msg, sizeof msg)) fail_msg("%s", msg);
}

static void sys_close(sys *s) {
  free(s->wbuf);
  mbg_rtframes_free(&s->rf);
  mbg_rtmodel_free(&s->rt);
  mbg_topology_free(s->t);
  mbg_model_free(s->m);
}

static int frame(const sys *s, const char *name) {
  for (int k = 0; k < s->t->nframes; k++)
    if (strcmp(s->t->frame[k].name, name) == 0) return k;
  fail_msg("no frame '%s'", name);
  return -1;
}

/* A random configuration (revolute and prismatic joints only in these models). */
static void random_q(const sys *s, uint64_t *seed, double *q) {
  for (int k = 0; k < s->rt.model.nq; k++) {
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
  sys s;
  sys_open(&s, "examples/arm7.mbd");
  const mb_model *M = &s.rt.model;
  assert_int_equal(s.t->nframes, 9); /* link1 ... link7, tool (merged), tcp (declared) */
  int tool = frame(&s, "tool"), tcp = frame(&s, "tcp");
  assert_int_equal(s.t->frame[tcp].model_frame, 0);
  assert_int_equal(s.t->frame[tool].model_body >= 0, 1);
  double q[16], fk[12 * 16], pose[12 * 16], want[12], worst = 0.0;
  uint64_t seed = 7;
  for (int n = 0; n < 50; n++) {
    random_q(&s, &seed, q);
    assert_int_equal(mb_fk(M, &s.ws, q, fk), MB_OK);
    assert_int_equal(mb_frame_pose(M, &s.rf.frames, &s.ws, q, pose), MB_OK);
    for (int k = 0; k < s.t->nframes; k++) { /* a moving body's own frame: its fk pose */
      const mbg_tree_frame *f = &s.t->frame[k];
      if (f->model_body >= 0 && s.t->body[f->body].model_body == f->model_body)
        worst = fmax(worst, diff(pose + 12 * k, fk + 12 * f->body, 12));
    }
    int l7 = s.t->frame[tool].body;
    offset(fk + 12 * l7, 0.045, NULL, want);
    worst = fmax(worst, diff(pose + 12 * tool, want, 12));
    offset(fk + 12 * l7, 0.045 + 0.12, NULL, want);
    worst = fmax(worst, diff(pose + 12 * tcp, want, 12));
  }
  printf("arm7: frame poses vs fk and the model's offsets: worst %.1e\n", worst);
  assert_true(worst <= 1e-14);
  sys_close(&s);
}

static void test_panda_tcp(void **state) {
  (void)state;
  sys s;
  sys_open(&s, "examples/urdf/panda.urdf");
  const mb_model *M = &s.rt.model;
  int hand = frame(&s, "panda_hand"), tcp = frame(&s, "panda_hand_tcp");
  int l7 = s.t->frame[hand].body;
  assert_int_equal(s.t->frame[tcp].body, l7); /* both merged into panda_link7 */
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
  sys_close(&s);
}

static void test_check(void **state) {
  (void)state;
  sys s;
  sys_open(&s, "examples/arm7.mbd");
  mb_frame f = s.rf.frame[0];
  mb_frames F = {1, &f};
  char msg[128];
  assert_int_equal(mb_frames_check(&s.rt.model, &F, msg, sizeof msg), 0);
  f.body = s.rt.model.nb + 1;
  assert_int_equal(mb_frames_check(&s.rt.model, &F, msg, sizeof msg), -1);
  f = s.rf.frame[0], f.R[0] = 2.0;
  assert_int_equal(mb_frames_check(&s.rt.model, &F, msg, sizeof msg), -1);
  f = s.rf.frame[0], f.p[1] = NAN;
  assert_int_equal(mb_frames_check(&s.rt.model, &F, msg, sizeof msg), -1);
  F.n = 1, F.frame = NULL;
  assert_int_equal(mb_frames_check(&s.rt.model, &F, msg, sizeof msg), -1);
  double q[16] = {0}, pose[12];
  assert_int_equal(mb_frame_pose(&s.rt.model, NULL, &s.ws, q, pose), MB_EINVAL);
  sys_close(&s);
}

/* examples/arm7.mbd written as .mbd (its frame tcp among it) reads back with the same frames. */
static void test_write(void **state) {
  (void)state;
  sys s;
  sys_open(&s, "examples/arm7.mbd");
  char path[] = "/tmp/mbdc_frames_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  assert_non_null(f);
  /* the writer writes bodies, joints and frames (constants already evaluated) */
  assert_int_equal(mbg_mbd_write(f, s.m, "arm7.mbd"), 0);
  fclose(f);
  int errors = 0;
  int warnings = 0;
  mbg_model *m2 = mbg_load_mbd(path, stderr, &errors, &warnings);
  remove(path);
  assert_non_null(m2);
  assert_int_equal(m2->nframes, s.m->nframes);
  for (int k = 0; k < m2->nframes; k++) {
    assert_string_equal(m2->frames[k].name, s.m->frames[k].name);
    assert_int_equal(m2->frames[k].body, s.m->frames[k].body);
    assert_true(diff(m2->frames[k].xyz, s.m->frames[k].xyz, 3) == 0.0);
    assert_true(diff(m2->frames[k].rpy, s.m->frames[k].rpy, 3) == 0.0);
  }
  mbg_model_free(m2);
  sys_close(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arm7),
      cmocka_unit_test(test_panda_tcp),
      cmocka_unit_test(test_check),
      cmocka_unit_test(test_write),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
