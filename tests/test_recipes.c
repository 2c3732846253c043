/* test_recipes.c — every built-in recipe (templates/algorithms/) against the generic runtime
 * (runtime/, written independently): the expression graph a recipe builds is evaluated
 * numerically (mbg_sym_eval) on random states and compared with mb_rnea, mb_crba, mb_aba, ... to
 * 1e-10 relative. On seeded random trees with every joint type, generic and signed coordinate axes
 * (so joint-frame alignment is exercised), fixed joints, floating and spherical joints anywhere,
 * and on every example model. Fast: no C compiler involved (the compiled harness runs per example
 * in tests/matrix.txt). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emit/generate.h"
#include "mb.h"
#include "mb_randtree.h"
#include "mb_testutil.h"
#include "mbg_examples.h"
#include "mbg_randmodel.h"
#include "mbg_testmodel.h"
#include "topology/regular.h"

/* ---- seeded random numbers and models ------------------------------------------------------- */

static mbt_rng rng; /* tests/mb_randtree.c's generator */
static double urand(double lo, double hi) { return mbt_uniform(&rng, lo, hi); }
static int irand(int n) { return mbt_randint(&rng, 0, n - 1); }

/* Tree shapes (mbg_randmodel.h). */
enum { SHAPE_RANDOM = MBGT_SHAPE_RANDOM, SHAPE_CHAIN, SHAPE_BUSHY, SHAPE_DEEP };

/* n bodies of the given shape, every joint type (mbg_randmodel.c), from rng. */
static mbg_model *random_model(int n, int shape, int floating_root) {
  return mbgt_random_model(&rng, n, shape, floating_root);
}

/* ---- evaluating a generated function -------------------------------------------------------- */

typedef struct rstate {
  double q[64], v[64], a[64], tau[64], fext[6 * 65];
  double q1[64]; /* q ⊕ 0.9 a (difference's second configuration: rotations below π apart) */
} rstate;

#define RSTATE_DT 0.375 /* integrate's step */

static double input(void *ctx, const char *array, int index) {
  const rstate *s = ctx;
  if (strcmp(array, "q") == 0) return s->q[index];
  if (strcmp(array, "v") == 0) return s->v[index];
  if (strcmp(array, "a") == 0) return s->a[index];
  if (strcmp(array, "tau") == 0) return s->tau[index];
  if (strcmp(array, "fext") == 0) return s->fext[index];
  if (strcmp(array, "dt") == 0) return assert_int_equal(index, MBG_SYM_SCALAR), RSTATE_DT;
  if (strcmp(array, "q0") == 0) return s->q[index];
  if (strcmp(array, "q1") == 0) return s->q1[index];
  fail_msg("unknown input array %s", array);
  return 0;
}

/* Evaluate f's graph on s: the output elements of `array` (NULL: every array but the pivots and
 * their references) into out. */
static void evaluate(const mbg_gen_function *f, const rstate *s, const char *array_name,
                     double *out) {
  mbgt_eval_outputs(f->sym, input, (void *)s, array_name, out);
}

static void random_state(const mb_model *m, rstate *s) {
  for (int i = 1; i <= m->nb; i++) {
    double *q = s->q + m->iq[i], n = 0;
    int nq = mb_joint_nq(m->jtype[i]), quat = nq >= 4 ? nq - 4 : -1;
    for (int k = 0; k < nq; k++) q[k] = urand(-3, 3);
    if (quat < 0) continue;
    for (int k = 0; k < 4; k++) q[quat + k] = urand(-1, 1), n += q[quat + k] * q[quat + k];
    for (int k = 0; k < 4; k++) q[quat + k] /= sqrt(n);
  }
  for (int k = 0; k < m->nv; k++) s->v[k] = urand(-1, 1), s->a[k] = urand(-1, 1);
  for (int k = 0; k < m->nv; k++) s->tau[k] = urand(-1, 1);
  for (int k = 0; k < 6 * (m->nb + 1); k++) s->fext[k] = k < 6 ? 0 : urand(-1, 1);
  assert_int_equal(mb_integrate(m, s->q, s->a, 0.9, s->q1), MB_OK);
}

/* The springs and operational frames of the model being checked (check_all), for passive_forces
 * and frame_pose. */
static const mb_springs *springs;
static const mb_frames *frames;

/* The runtime's value of function `name` on s into ref; the number of outputs. */
static int reference(const char *name, const mb_model *m, mb_workspace *ws, const rstate *s,
                     double *ref) {
  int nv = m->nv, nb1 = m->nb + 1;
  if (!strcmp(name, "rnea")) return mb_rnea(m, ws, s->q, s->v, s->a, NULL, ref), nv;
  if (!strcmp(name, "rnea_ext")) return mb_rnea(m, ws, s->q, s->v, s->a, s->fext, ref), nv;
  if (!strcmp(name, "nle")) return mb_nle(m, ws, s->q, s->v, ref), nv;
  if (!strcmp(name, "gravity")) return mb_gravity(m, ws, s->q, ref), nv;
  if (!strcmp(name, "crba")) return mb_crba(m, ws, s->q, ref), nv * nv;
  if (!strcmp(name, "crba_fd"))
    return assert_int_equal(mb_crba_fd(m, ws, s->q, s->v, s->tau, ref), 0), nv;
  if (!strcmp(name, "aba"))
    return assert_int_equal(mb_aba(m, ws, s->q, s->v, s->tau, NULL, ref), 0), nv;
  if (!strcmp(name, "minv")) return assert_int_equal(mb_minv(m, ws, s->q, ref), 0), nv * nv;
  if (!strcmp(name, "joint_wrenches"))
    return mb_joint_wrenches(m, ws, s->q, s->v, s->a, ref), 6 * nb1;
  if (!strcmp(name, "fk")) return mb_fk(m, ws, s->q, ref), 12 * nb1;
  if (!strcmp(name, "node_poses"))
    return assert_int_equal(mb_node_poses(m, ws, s->q, ref), 0), 12 * m->flex->nnodes;
  if (!strcmp(name, "passive_forces"))
    return assert_int_equal(mb_passive_forces(m, springs, ws, s->q, s->v, ref), 0), nv;
  if (!strcmp(name, "frame_pose"))
    return assert_int_equal(mb_frame_pose(m, frames, ws, s->q, ref), 0), 12 * frames->n;
  if (!strncmp(name, "frame_jacobian", 14))
    return assert_int_equal(mb_frame_jacobian(m, frames, ws, s->q, !name[14], ref), 0),
           6 * nv * frames->n;
  if (!strcmp(name, "aba_ext"))
    return assert_int_equal(mb_aba(m, ws, s->q, s->v, s->tau, s->fext, ref), 0), nv;
  if (!strcmp(name, "nle_ext")) return mb_rnea(m, ws, s->q, s->v, NULL, s->fext, ref), nv;
  if (!strcmp(name, "com")) return assert_int_equal(mb_com(m, ws, s->q, ref), 0), 3;
  if (!strcmp(name, "com_jacobian"))
    return assert_int_equal(mb_com_jacobian(m, ws, s->q, ref), 0), 3 * nv;
  if (!strcmp(name, "energy")) return assert_int_equal(mb_energy(m, ws, s->q, s->v, ref), 0), 2;
  if (!strcmp(name, "integrate"))
    return assert_int_equal(mb_integrate(m, s->q, s->v, RSTATE_DT, ref), 0), m->nq;
  if (!strcmp(name, "difference"))
    return assert_int_equal(mb_difference(m, s->q, s->q1, ref), 0), nv;
  if (!strcmp(name, "centroidal_momentum"))
    return assert_int_equal(mb_centroidal_momentum(m, ws, s->q, s->v, ref), 0), 6;
  if (!strcmp(name, "ccrba")) return assert_int_equal(mb_ccrba(m, ws, s->q, ref), 0), 6 * nv;
  if (!strcmp(name, "centroidal_bias"))
    return assert_int_equal(mb_centroidal_bias(m, ws, s->q, s->v, ref), 0), 6;
  if (!strcmp(name, "frame_velocity"))
    return assert_int_equal(mb_frame_velocity(m, frames, ws, s->q, s->v, ref), 0), 6 * frames->n;
  if (!strcmp(name, "frame_acceleration_bias"))
    return assert_int_equal(mb_frame_acceleration_bias(m, frames, ws, s->q, s->v, ref), 0),
           6 * frames->n;
  fail_msg("no runtime reference for %s", name);
  return 0;
}

static void expect_close(const double *got, const double *ref, int n, const char *what,
                         const char *name, const char *reference_name) {
  size_t w;
  double err = mbt_max_diff(got, ref, (size_t)n, &w), scale = mbt_max_abs(ref, (size_t)n);
  if (!(err <= 1e-10 * fmax(scale, 1e-300)))
    fail_msg("%s, %s: |generated - %s| = %.3e (scale %.3e) at [%zu]: %.17g vs %.17g", what, name,
             reference_name, err, scale, w, got[w], ref[w]);
}

/* S_iᵀ w_i for every joint, w in the original joint frames (runtime/mb.h conventions). */
static void joint_ST_w(const mb_model *m, const double *w, double *out) {
  double S[36];
  for (int i = 1; i <= m->nb; i++) {
    int nv = mb_joint_nv(m->jtype[i]);
    mb_joint_S(m, i, S);
    for (int c = 0; c < nv; c++) {
      double x = 0;
      for (int k = 0; k < 6; k++) x += S[6 * c + k] * w[6 * i + k];
      out[m->iv[i] + c] = x;
    }
  }
}

/* cfa on s: q̈ = the runtime's ABA = the runtime's dense CFA; the wrenches = the runtime's
 * joint_wrenches(q, v, q̈); S_jᵀ w_j = τ_j; all to 1e-10 relative. */
static void check_cfa(const mbg_gen_function *f, const mb_model *m, mb_workspace *ws,
                      const rstate *s, const char *what) {
  int nv = m->nv, nw = 6 * (m->nb + 1);
  double qdd[64], ref[64], w[6 * 65], wref[6 * 65], tau[64];
  evaluate(f, s, "qdd", qdd);
  evaluate(f, s, "wrench", w);
  assert_int_equal(mb_aba(m, ws, s->q, s->v, s->tau, NULL, ref), 0);
  expect_close(qdd, ref, nv, what, "cfa qdd", "runtime aba");
  assert_int_equal(mb_cfa(m, ws, s->q, s->v, s->tau, ref, NULL), 0);
  expect_close(qdd, ref, nv, what, "cfa qdd", "runtime cfa");
  mb_joint_wrenches(m, ws, s->q, s->v, ref, wref);
  expect_close(w, wref, nw, what, "cfa wrench", "runtime joint_wrenches(q, v, qdd)");
  joint_ST_w(m, w, tau);
  double scale = fmax(mbt_max_abs(s->tau, (size_t)nv), mbt_max_abs(wref, (size_t)nw));
  for (int k = 0; k < nv; k++)
    if (!(fabs(tau[k] - s->tau[k]) <= 1e-10 * scale))
      fail_msg("%s: S^T w = %.17g, tau = %.17g at [%d]", what, tau[k], s->tau[k], k);
}

/* ---- the pivot rule (docs/generator.md) ------------------------------------------------------ */

/* The pivots of f and their references on s (f->npivots each); the number that fail the rule
 * d > 1e-12 r, r > 0. */
static int failing_pivots(const mbg_gen_function *f, const rstate *s, double *d, double *r) {
  int failing = 0;
  evaluate(f, s, "pivot", d);
  evaluate(f, s, "pivot_ref", r);
  for (int k = 0; k < f->npivots; k++) failing += !(r[k] > 0 && d[k] > 1e-12 * r[k]);
  return failing;
}

/* On the models of these tests (random physical inertias, the examples) every pivot passes, and
 * for aba, minv and crba_fd it is at most its reference (d ≤ D_ll ≤ r: runtime/mb.h). */
static void check_pivots(const mbg_gen_function *f, const rstate *s, const char *what) {
  double d[512], r[512];
  assert_true(f->npivots <= 512);
  if (f->npivots == 0) return;
  if (failing_pivots(f, s, d, r) != 0) fail_msg("%s, %s: a pivot fails the rule", what, f->name);
  for (int k = 0; k < f->npivots && strcmp(f->name, "cfa") != 0; k++)
    if (!(d[k] <= r[k] * (1 + 1e-12)))
      fail_msg("%s, %s: pivot %d = %.17g above its reference %.17g", what, f->name, k, d[k], r[k]);
}

/* Every function of g against the runtime on `nstates` random states. */
static void check_all(mbg_gen *g, int nstates, const char *what) {
  const mb_model *m = &g->rt.model;
  mb_workspace ws;
  void *buf = malloc(mb_workspace_size(m));
  size_t big = (size_t)(m->nv * m->nv + 12 * (m->nb + 1) + 6 * (m->nv + 2) * g->rtframes.frames.n);
  double *ref = calloc(big, sizeof *ref), *got = calloc(big, sizeof *got);
  rstate *s = calloc(1, sizeof *s);
  assert_true(buf && ref && got && s && m->nq <= 64 && m->nb < 64);
  mb_workspace_init(&ws, m, buf);
  springs = &g->rtsprings.springs;
  frames = &g->rtframes.frames;
  for (int n = 0; n < nstates; n++) {
    random_state(m, s);
    for (int k = 0; k < g->nfunctions; k++) {
      const mbg_gen_function *f = &g->functions[k];
      if (!strcmp(f->name, "cfa")) {
        check_pivots(f, s, what);
        check_cfa(f, m, &ws, s, what);
        continue;
      }
      /* the loop functions need the loops' rows (mb_loops): the generated harness compares them
       * with the runtime (tests/matrix.txt, five_bar_check) */
      if (!strcmp(f->name, "fd_loops") || !strncmp(f->name, "loop_", 5) ||
          !strncmp(f->name, "rcr", 3))
        continue; /* the loop functions: checked by the generated harness (check.lua) */
      check_pivots(f, s, what);
      int size = reference(f->name, m, &ws, s, ref);
      evaluate(f, s, NULL, got);
      size_t w;
      double err = mbt_max_diff(got, ref, (size_t)size, &w), scale = mbt_max_abs(ref, (size_t)size);
      /* J̇v (and Ȧ_G v, the same times masses) is of the order of |v|² times the tree's lengths
       * (and masses), 1 here, and zero but for rounding on a tree of prismatic joints (nothing
       * rotates): compared against that order, not its value */
      if (!strcmp(f->name, "frame_acceleration_bias") || !strcmp(f->name, "centroidal_bias"))
        scale = fmax(scale, 1.0);
      if (!(err <= 1e-10 * fmax(scale, 1e-300)))
        fail_msg("%s, %s: |generated - runtime| = %.3e (scale %.3e) at [%zu]: %.17g vs %.17g",
                 what, f->name, err, scale, w, got[w], ref[w]);
    }
  }
  free(buf), free(ref), free(got), free(s);
}

/* The functions with the choice of frames (--frame, docs/frames.md). */
static const char frame_functions[] =
    "rnea,rnea_ext,nle,nle_ext,gravity,crba,crba_fd,aba,aba_ext,minv,joint_wrenches";

/* Every function with the choice was built in `frame`, or for auto in the variant of fewest
 * operations of the four it counted (body on a tie), never more than body's. */
static void check_frames(const mbg_gen *g, mbg_ref frame, const char *what) {
  for (int k = 0; k < g->nfunctions; k++) {
    const mbg_gen_function *f = &g->functions[k];
    if (!f->frames) continue;
    if (frame != MBG_REF_AUTO) {
      if (f->frame != frame)
        fail_msg("%s, %s: built in %s, not %s", what, f->name, mbg_ref_name(f->frame),
                 mbg_ref_name(frame));
      continue;
    }
    long body = mbg_sym_ops(&f->variant[MBG_REF_BODY].counts), best = body;
    for (int v = MBG_REF_BODY; v < MBG_NREFS; v++) {
      assert_true(f->variant[v].tried);
      best = mbg_sym_ops(&f->variant[v].counts) < best ? mbg_sym_ops(&f->variant[v].counts) : best;
    }
    long chosen = mbg_sym_ops(&f->counts);
    if (chosen != best || chosen > body || (chosen == body && f->frame != MBG_REF_BODY))
      fail_msg("%s, %s: auto chose %s (%ld operations); the fewest are %ld, body's %ld", what,
               f->name, mbg_ref_name(f->frame), chosen, best, body);
  }
}

/* Returns the hubs of the generated cfa order (0 when cfa was not generated). */
static int check_model_in(mbg_model *m, int nstates, const char *what, const char *functions,
                          mbg_cfa_kind order, mbg_ref frame) {
  mbg_gen g;
  mbg_gen_opts o = {.model_path = what, .functions = functions, .cfa_order = order,
                    .frame = frame};
  FILE *err = tmpfile();
  int rc = mbg_gen_open_model(&g, &o, m, "", 0, err);
  g.keep_sym = 1;
  if (rc == 0) rc = mbg_gen_run(&g, err);
  if (rc != 0) {
    char msg[2048] = "";
    rewind(err);
    size_t n = fread(msg, 1, sizeof msg - 1, err);
    msg[n] = '\0';
    fail_msg("%s: generation failed (%d): %s", what, rc, msg);
  }
  fclose(err);
  check_frames(&g, frame, what);
  check_all(&g, nstates, what);
  int hubs = g.ncfa_rows > 0 ? g.cfa_rows[0].nhub : 0;
  mbg_gen_close(&g);
  return hubs;
}

static int check_model(mbg_model *m, int nstates, const char *what, const char *functions,
                       mbg_cfa_kind order) {
  return check_model_in(m, nstates, what, functions, order, MBG_REF_AUTO);
}

static void random_trees(void **state) {
  (void)state;
  for (int seed = 1; seed <= 24; seed++) {
    mbt_rng_seed(&rng, (uint64_t)seed);
    int n = 1 + seed % 12;
    char what[64];
    snprintf(what, sizeof what, "random tree seed %d (%d bodies)", seed, n);
    check_model(random_model(n, seed % 4 == 0, seed % 3 == 0), 3, what, NULL, MBG_CFA_AUTO);
  }
  for (int seed = 1; seed <= 16; seed++) { /* with planar and cylindrical joints */
    mbt_rng_seed(&rng, (uint64_t)(500 + seed));
    int n = 2 + seed % 10;
    char what[80];
    snprintf(what, sizeof what, "random tree, every joint type, seed %d (%d bodies)", seed, n);
    check_model(mbgt_random_model_all(&rng, n, seed % 4, seed % 3 == 0), 3, what, NULL,
                MBG_CFA_AUTO);
  }
}

/* The functions with the choice of frames in each world-aligned variant (docs/frames.md: the
 * joint points, the centres of mass, the world's origin) on random trees of every shape and
 * joint type, fixed and floating bases, against the runtime (body frames) and the pivot rule. */
static void random_trees_frames(void **state) {
  (void)state;
  static const char *shapes[] = {"random", "chain", "bushy", "deep"};
  for (int v = MBG_REF_JOINT; v < MBG_NREFS; v++)
    for (int seed = 1; seed <= 12; seed++) {
      mbt_rng_seed(&rng, (uint64_t)(4000 + 100 * v + seed));
      int shape = seed % 4, n = 1 + (seed * 5) % 13, floating = seed % 3 == 0;
      char what[96];
      snprintf(what, sizeof what, "--frame %s, %s tree seed %d (%d bodies%s)",
               mbg_ref_name((mbg_ref)v), shapes[shape], seed, n, floating ? ", floating base" : "");
      check_model_in(random_model(n, shape, floating), 3, what, frame_functions, MBG_CFA_AUTO,
                     (mbg_ref)v);
    }
}

/* cfa in both elimination orders on chains, random, bushy and deep trees, each with and without
 * a floating base (every joint type: spherical, prismatic, helical, revolute, fixed), up to 40
 * bodies: see check_cfa for the references. The bushy floating trees give the tips order hubs
 * (a floating body's children coupled through one 6-row unknown: cfa_order.h). */
static void cfa_random_trees(void **state) {
  (void)state;
  static const char *shapes[] = {"random", "chain", "bushy", "deep"};
  int with_hubs = 0;
  for (int order = MBG_CFA_TIPS; order <= MBG_CFA_ODD_EVEN; order++)
    for (int seed = 1; seed <= 24; seed++) {
      mbt_rng_seed(&rng, (uint64_t)(1000 + seed));
      int shape = seed % 4, n = seed == 24 ? 40 : 2 + (seed * 7) % 17;
      int floating = (seed + seed / 4) % 2;
      char what[96];
      snprintf(what, sizeof what, "cfa[%s], %s tree seed %d (%d bodies%s)",
               mbg_cfa_kind_name((mbg_cfa_kind)order), shapes[shape], seed, n,
               floating ? ", floating base" : "");
      int hubs = check_model(random_model(n, shape, floating), 3, what, "cfa", (mbg_cfa_kind)order);
      if (order == MBG_CFA_ODD_EVEN) assert_int_equal(hubs, 0);
      with_hubs += hubs > 0;
    }
  for (int seed = 1; seed <= 6; seed++) { /* more bushy floating trees, in the tips order */
    mbt_rng_seed(&rng, (uint64_t)(2000 + seed));
    int n = 6 + 4 * seed;
    char what[96];
    snprintf(what, sizeof what, "cfa[tips], bushy tree seed %d (%d bodies, floating base)", seed, n);
    with_hubs += check_model(random_model(n, SHAPE_BUSHY, 1), 3, what, "cfa", MBG_CFA_TIPS) > 0;
  }
  print_message("cfa: %d random trees with hubs\n", with_hubs);
  assert_true(with_hubs >= 4);
}

/* passive_forces on random trees (every joint type, fixed joints merged, frames aligned and
 * placed) with random springs between random bodies, the world included. */
static void springs_random_trees(void **state) {
  (void)state;
  for (int seed = 1; seed <= 16; seed++) {
    mbt_rng_seed(&rng, (uint64_t)(3000 + seed));
    int n = 2 + seed % 9;
    mbg_model *m = random_model(n, seed % 4, seed % 3 == 0);
    mbg_loc none = {0, 0, 0};
    for (int k = 0; k < 4; k++) {
      char name[16];
      snprintf(name, sizeof name, "s%d", k);
      int i = mbg_model_add_spring(m, name, none);
      assert_true(i >= 0);
      mbg_spring *sp = &m->springs[i];
      sp->body_a = irand(n + 1);
      sp->body_b = (sp->body_a + 1 + irand(n)) % (n + 1);
      for (int c = 0; c < 3; c++) sp->ra[c] = urand(-0.5, 0.5), sp->rb[c] = urand(-0.5, 0.5);
      sp->stiffness = k == 3 ? 0 : urand(1, 50);
      sp->damping = k == 2 ? 0 : urand(0, 3);
      sp->length = k % 2 ? 0 : urand(0, 1);
    }
    char what[64];
    snprintf(what, sizeof what, "springs, random tree seed %d (%d bodies)", seed, n);
    check_model(m, 3, what, "passive_forces", MBG_CFA_AUTO);
  }
}

static void example_models(void **state) {
  (void)state;
  const char *src = getenv("MBDC_SOURCE_DIR");
  char dir[1024], path[1400];
  snprintf(dir, sizeof dir, "%s/examples", src ? src : ".");
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".mbd") != 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    mbg_gen g;
    mbg_gen_opts o = {.model_path = path};
    FILE *err = tmpfile();
    int rc = mbg_gen_open(&g, &o, err);
    g.keep_sym = 1;
    if (rc == 0) rc = mbg_gen_run(&g, err);
    fclose(err);
    if (rc != 0) fail_msg("%s: generation failed (%d)", path, rc);
    check_all(&g, 5, path);
    mbg_gen_close(&g);
    n++;
  }
  closedir(d);
  assert_true(n >= 5);
}

/* One example (path) generated with the frame functions in `frame` and checked on 3 states; a
 * model with flexible bodies is refused (exit 1, nothing generated) instead. */
static void check_example_in(const char *path, int floating, mbg_ref frame) {
  mbg_gen g;
  mbg_gen_opts o = {.model_path = path, .functions = frame_functions, .frame = frame,
                    .floating_base = floating};
  FILE *err = tmpfile();
  int rc = mbg_gen_open(&g, &o, err);
  g.keep_sym = 1;
  int flexible = rc == 0 && g.rt.model.flex != NULL;
  if (rc == 0) rc = mbg_gen_run(&g, err);
  fclose(err);
  char what[1500];
  snprintf(what, sizeof what, "%s, --frame %s", path, mbg_ref_name(frame));
  if (flexible) {
    if (rc != 1) fail_msg("%s: a flexible model: exit %d, not 1", what, rc);
  } else {
    if (rc != 0) fail_msg("%s: generation failed (%d)", what, rc);
    check_frames(&g, frame, what);
    check_all(&g, 3, what);
  }
  mbg_gen_close(&g);
}

/* One example in each world-aligned variant (mbgt_each_example). */
static void example_frames(const char *path, int floating, void *ctx) {
  (void)ctx;
  for (int v = MBG_REF_JOINT; v < MBG_NREFS; v++) check_example_in(path, floating, (mbg_ref)v);
}

/* Every example model and robot (the floating bases of examples/urdf/floating_base.txt) in each
 * world-aligned variant against the runtime. */
static void example_models_frames(void **state) {
  (void)state;
  assert_true(mbgt_each_example(example_frames, NULL) >= 15);
}

/* Operation counts for a 7-DoF chain of revolute joints with generic axes, generic joint
 * placements and full inertias, at or below Featherstone's Table 10.1 (RBDA 2008) for n = 7:
 * RNEA 93n − 108 mul + 81n − 100 add, CRBA 10n² + 22n − 32 / 6n² + 37n − 43, ABA 224n − 259 /
 * 205n − 248. Featherstone counts divisions as multiplications: compare mul + div. Exact counts,
 * not timing (times are in docs/benchmarks.md). */
static void generic_chain_within_featherstone_bounds(void **state) {
  (void)state;
  const long n = 7;
  const struct {
    const char *name;
    long mul, add;
  } bounds[] = {{"rnea", 93 * n - 108, 81 * n - 100},
                {"crba", 10 * n * n + 22 * n - 32, 6 * n * n + 37 * n - 43},
                {"aba", 224 * n - 259, 205 * n - 248}};
  mbt_rng_seed(&rng, 7);
  mbg_model *m = random_model((int)n, 1, 0);
  for (int j = 0; j < m->njoints; j++) {
    mbg_joint *J = &m->joints[j];
    J->type = MBG_JOINT_REVOLUTE;
    double a[3] = {urand(-1, 1), urand(-1, 1), urand(-1, 1)};
    double r = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    for (int k = 0; k < 3; k++) J->axis[k] = a[k] / r;
  }
  mbg_gen g;
  mbg_gen_opts o = {.model_path = "chain7", .functions = "rnea,crba,aba"};
  assert_int_equal(mbg_gen_open_model(&g, &o, m, "", 0, stderr), 0);
  assert_int_equal(mbg_gen_run(&g, stderr), 0);
  for (int k = 0; k < 3; k++) {
    const mbg_sym_counts *c = &g.functions[k].counts;
    print_message("%-5s %5ld mul + %3ld div, %5ld add (bound %ld mul, %ld add)\n",
                  bounds[k].name, c->mul, c->div, c->add, bounds[k].mul, bounds[k].add);
    if (c->mul + c->div > bounds[k].mul || c->add > bounds[k].add)
      fail_msg("%s above Featherstone's bound", bounds[k].name);
  }
  mbg_gen_close(&g);
}

/* The dependency depth of cfa's solve (mbdc stats' "solve depth": from A's entries and the
 * right-hand side to the outputs) on chains of 8, 16, 32, 64 revolute joints: odd-even grows by
 * a constant per doubling (like log n: K = log₂ n rounds of block elimination, then as many of
 * back substitution), tips grows like n (one block after the other). Exact counts from the
 * expression graph, not timing. */
static void cfa_depth_on_chains(void **state) {
  (void)state;
  long depth[2][4], whole[2][4];
  for (int c = 0; c < 4; c++) {
    int n = 8 << c;
    for (int r = 0; r < 2; r++) { /* each order asked for: the automatic choice skips the dear */
      mbt_rng_seed(&rng, 77);
      mbg_model *m = random_model(n, SHAPE_CHAIN, 0);
      for (int j = 0; j < m->njoints; j++) m->joints[j].type = MBG_JOINT_REVOLUTE;
      mbg_gen g;
      mbg_gen_opts o = {.model_path = "chain", .functions = "cfa",
                        .cfa_order = r ? MBG_CFA_ODD_EVEN : MBG_CFA_TIPS};
      assert_int_equal(mbg_gen_open_model(&g, &o, m, "", 0, stderr), 0);
      assert_int_equal(mbg_gen_run(&g, stderr), 0);
      assert_int_equal(g.ncfa_rows, 1);
      assert_int_equal(g.cfa_rows[0].kind, o.cfa_order);
      depth[r][c] = g.cfa_rows[0].solve_depth, whole[r][c] = g.cfa_rows[0].depth;
      mbg_gen_close(&g);
    }
    print_message("chain of %2d: solve depth tips %4ld, odd-even %4ld (whole function: tips %ld, odd-even %ld)\n",
                  n, depth[0][c], depth[1][c], whole[0][c], whole[1][c]);
  }
  long step = depth[1][1] - depth[1][0];
  for (int c = 1; c < 4; c++) {
    /* odd-even: the same increment per doubling (within 25 %); tips: about doubling */
    long inc = depth[1][c] - depth[1][c - 1];
    assert_true(inc > 0 && 4 * labs(inc - step) <= step);
    assert_true(depth[0][c] >= 2 * depth[0][c - 1] - depth[0][0] / 2);
  }
  assert_true(depth[1][3] < depth[0][3] / 4);
}

/* A point mass carried in a plane by three parallel revolute joints and two massless links: its
 * mass matrix M = Jᵀ J (J the 2 × 3 Jacobian of the point) has rank 2 in every configuration. The
 * model checks reject it (topology/regular.h); generated around them (mbg_gen_open_model), aba,
 * minv and crba_fd have a pivot that fails the rule on every one of 1000 random states (before,
 * d > 0 let rounding noise of the zero pivot through about half of the time). */
static void singular_model_every_state(void **state) {
  (void)state;
  mbg_model *m = mbg_model_new("planar_point", "");
  assert_non_null(m);
  const char *names[3] = {"l1", "l2", "tip"};
  int b[3];
  for (int k = 0; k < 3; k++) {
    b[k] = mbgt_body(m, names[k], k == 2 ? 1.0 : 0.0);
    for (int c = 0; c < 6; c++) m->bodies[b[k]].inertia[c] = 0.0;
  }
  m->bodies[b[2]].com[0] = 0.7;
  double xyz[3][3] = {{0, 0, 0}, {1, 0, 0}, {0.8, 0.1, 0}};
  for (int k = 0; k < 3; k++) {
    char name[8];
    snprintf(name, sizeof name, "j%d", k + 1);
    int j = mbgt_joint(m, name, MBG_JOINT_REVOLUTE, k ? b[k - 1] : 0, b[k]);
    mbg_joint *J = &m->joints[j];
    J->axis[0] = J->axis[1] = 0, J->axis[2] = 1, J->node = -1;
    for (int c = 0; c < 3; c++) J->xyz[c] = xyz[k][c];
  }
  FILE *null = tmpfile();
  assert_int_equal(mbg_check_regular(m, "planar_point", NULL, 0, null), 1);
  fclose(null);
  mbg_gen g;
  mbg_gen_opts o = {.model_path = "planar_point", .functions = "aba,minv,crba_fd"};
  assert_int_equal(mbg_gen_open_model(&g, &o, m, "", 0, stderr), 0);
  g.keep_sym = 1;
  assert_int_equal(mbg_gen_run(&g, stderr), 0);
  rstate *s = calloc(1, sizeof *s);
  double d[64], r[64];
  mbt_rng_seed(&rng, 4242);
  for (int n = 0; n < 1000; n++) {
    random_state(&g.rt.model, s);
    for (int k = 0; k < g.nfunctions; k++)
      if (failing_pivots(&g.functions[k], s, d, r) == 0)
        fail_msg("%s accepted state %d of a singular model", g.functions[k].name, n);
  }
  free(s);
  mbg_gen_close(&g);
}

/* A recipe (written here, run with --templates) that outputs J.base_references (joints.lua): one
 * base reference per dof. */
static const char base_recipe[] =
    "local J = import \"joints\"\n"
    "return { name = \"pivot_bases\", summary = \"base references\", returns = \"void\",\n"
    "  params = { { name = \"q\", role = \"q\" }, { name = \"r\", role = \"out_nv\" } },\n"
    "  build = function(model)\n"
    "    local T, X = J.tree(model), {}\n"
    "    for _, b in ipairs(T) do X[b.i] = J.Xup(b) end\n"
    "    local base = J.base_references(T, X)\n"
    "    for _, b in ipairs(T) do\n"
    "      for l = 1, b.nv do sym.output(\"r\", b.iv + l - 1, base[b.i][l]) end\n"
    "    end\n"
    "  end }\n";

/* The base references of the recipes (J.base_references) against their definition evaluated
 * here in C over the same working frames (g->dh) at the same state: J_i = ½ tr Ī_i + Σ_c (√J_c +
 * √m_c |r_c|)², r_c = XT_c.r + XT_cᵀ (the joint's shift: q e_k, h q e_k, the floating position,
 * a cylindrical joint's d e_k, a planar one's x e_k+1 + y e_k+2),
 * r = 2J for a rotation, m for a translation, (√(2J) + |h| √m)² for a helical column; to 1e-12. */
static void check_base_references(mbg_model *m, const char *tpl, const char *what) {
  mbg_gen g;
  mbg_gen_opts o = {.model_path = what, .functions = "pivot_bases", .templates = tpl};
  assert_int_equal(mbg_gen_open_model(&g, &o, m, "", 0, stderr), 0);
  g.keep_sym = 1;
  assert_int_equal(mbg_gen_run(&g, stderr), 0);
  const mbg_topology *t = g.topo;
  rstate *s = calloc(1, sizeof *s);
  double got[64], J[65], ms[65], want[64];
  assert_true(t->nb < 65 && t->nv <= 64);
  for (int n = 0; n < 3; n++) {
    random_state(&g.rt.model, s);
    evaluate(&g.functions[0], s, "r", got);
    for (int i = 1; i <= t->nb; i++) {
      const mbg_inertia *I = &g.dh.body[i].I;
      J[i] = 0.5 * (I->I[0] + I->I[1] + I->I[2]), ms[i] = I->m;
    }
    for (int i = t->nb; i >= 1; i--) {
      const mbg_dh_body *w = &g.dh.body[i];
      const mbg_tree_body *tb = &t->body[i];
      const double *qi = s->q + tb->iq;
      double shift[3] = {0, 0, 0}, rc[3];
      int k = g.aligned.body[i].axis;
      if (tb->type == MBG_JOINT_PRISMATIC) shift[k] = qi[0];
      if (tb->type == MBG_JOINT_HELICAL) shift[k] = tb->pitch * qi[0];
      if (tb->type == MBG_JOINT_CYLINDRICAL) shift[k] = qi[1];
      if (tb->type == MBG_JOINT_PLANAR) shift[(k + 1) % 3] = qi[0], shift[(k + 2) % 3] = qi[1];
      if (tb->type == MBG_JOINT_FLOATING)
        for (int c = 0; c < 3; c++) shift[c] = qi[c];
      for (int c = 0; c < 3; c++)
        rc[c] = w->XT.r[c] + w->XT.E[c] * shift[0] + w->XT.E[3 + c] * shift[1] +
                w->XT.E[6 + c] * shift[2];
      double x = sqrt(J[i]) + sqrt(ms[i]) * sqrt(rc[0] * rc[0] + rc[1] * rc[1] + rc[2] * rc[2]);
      if (tb->parent > 0) J[tb->parent] += x * x, ms[tb->parent] += ms[i];
      /* the columns of S in the working frame */
      double *r = want + tb->iv, hh = fabs(tb->pitch);
      switch (tb->type) {
      case MBG_JOINT_PRISMATIC: r[0] = ms[i]; break;
      case MBG_JOINT_HELICAL: r[0] = pow(sqrt(2 * J[i]) + hh * sqrt(ms[i]), 2); break;
      case MBG_JOINT_SPHERICAL: r[0] = r[1] = r[2] = 2 * J[i]; break;
      case MBG_JOINT_FLOATING:
        r[0] = r[1] = r[2] = ms[i], r[3] = r[4] = r[5] = 2 * J[i];
        break;
      case MBG_JOINT_PLANAR: r[0] = r[1] = ms[i], r[2] = 2 * J[i]; break; /* u, w, then a */
      case MBG_JOINT_CYLINDRICAL: r[0] = 2 * J[i], r[1] = ms[i]; break;
      default: r[0] = 2 * J[i]; break;
      }
    }
    for (int k = 0; k < t->nv; k++)
      if (!(fabs(got[k] - want[k]) <= 1e-12 * want[k]))
        fail_msg("%s: base reference of dof %d: recipe %.17g, C %.17g", what, k, got[k], want[k]);
  }
  free(s);
  mbg_gen_close(&g);
}

static void base_references(void **state) {
  (void)state;
  char tpl[] = "/tmp/mbdc_refs_XXXXXX", dir[64], path[96];
  assert_non_null(mkdtemp(tpl));
  snprintf(dir, sizeof dir, "%s/algorithms", tpl);
  snprintf(path, sizeof path, "%s/pivot_bases.lua", dir);
  assert_int_equal(mkdir(dir, 0700), 0);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(base_recipe, f);
  fclose(f);
  for (int seed = 1; seed <= 12; seed++) {
    mbt_rng_seed(&rng, (uint64_t)(3000 + seed));
    char what[64];
    snprintf(what, sizeof what, "random tree seed %d", seed);
    check_base_references(random_model(2 + seed, seed % 4, seed % 2), tpl, what);
  }
  for (int seed = 1; seed <= 6; seed++) { /* with planar and cylindrical joints */
    mbt_rng_seed(&rng, (uint64_t)(3100 + seed));
    char what[80];
    snprintf(what, sizeof what, "random tree, every joint type, seed %d", seed);
    check_base_references(mbgt_random_model_all(&rng, 3 + seed, seed % 4, seed % 2), tpl, what);
  }
  remove(path), rmdir(dir), rmdir(tpl);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(singular_model_every_state),
    cmocka_unit_test(base_references),
    cmocka_unit_test(random_trees),
    cmocka_unit_test(random_trees_frames),
    cmocka_unit_test(cfa_random_trees),
    cmocka_unit_test(springs_random_trees),
    cmocka_unit_test(example_models),
    cmocka_unit_test(example_models_frames),
    cmocka_unit_test(generic_chain_within_featherstone_bounds),
    cmocka_unit_test(cfa_depth_on_chains),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
