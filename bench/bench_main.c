/* bench_main.c — times one robot's generated dynamics against the generic runtime and MuJoCo.
 *
 * Compiled once per robot (bench/CMakeLists.txt) with BENCH_PREFIX (the generated code's prefix),
 * BENCH_HEADER ("bench_config.h": the generated header, and BENCH_HAVE_CFA when the robot's code
 * has cfa), BENCH_NAME and, for a URDF example, BENCH_URDF (its path) and BENCH_FLOATING_BASE (1
 * when generated with --floating-base). The three implementations see the same random states, in
 * the same process. The command line, the measurement and the output lines are bench_harness.h's
 * (bench/callgrind.sh reads the callgrind dumps "FUNC IMPL", bench/report.sh the output; the big
 * robots, whose slowest calls take 100 µs, are timed in seconds too), and:
 *   --write-urdf FILE                  keep the URDF MuJoCo read
 *   check FUNC IMPL REL_ERR bound B    worst relative error against the runtime over the states
 *   mujoco n/a REASON                  when MuJoCo cannot load the robot */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_harness.h"
#include "bench_peer.h"
#include "mb.h"
#include BENCH_HEADER

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define GEN(f) CAT(BENCH_PREFIX, f)
extern const mb_model GEN(model);
#define MODEL GEN(model)

#define NSTATES BENCH_NSTATES /* random states, cycled through by every implementation */
#define TOL_GEN 1e-10 /* generated vs runtime: the harness's tolerance */
/* MuJoCo vs runtime. MuJoCo keeps each body's inertia as principal moments and axes, which its
 * compiler finds only to ~1e-12 (off by up to ~1e-6 relative on panda, hyq, romeo_small,
 * anymal_b: docs/urdf.md); bench_mujoco.c sets them from the URDF to rounding, as test_mujoco's
 * "exact" run does, whose bound this is. What remains is rounding, amplified by M's condition
 * number in forward dynamics and M^-1; a real disagreement (a wrong frame or convention) is of
 * order 1. */
#define TOL_MJ 1e-9

struct bench {
  const mb_model *m;
  mb_workspace ws;
  bench_mj *mj;
  int nq, nv, nb;
  double *q, *v, *a, *tau; /* NSTATES states */
  double *out, *wrench;    /* outputs (nv·nv, 6(nb+1)) */
  int rc;                  /* sum of return codes, so they are used */
};

/* q in the joints' ranges of use; v, a, tau in [-1, 1) */
static void random_state(const mb_model *m, unsigned long long *s, double *q, double *v,
                         double *a, double *tau) {
  for (int i = 1; i <= m->nb; i++) {
    double *qi = q + m->iq[i];
    switch (m->jtype[i]) {
    case MB_JOINT_SPHERICAL: bench_random_quat(s, qi); break;
    case MB_JOINT_FLOATING:
      for (int k = 0; k < 3; k++) qi[k] = bench_uniform(s, -1, 1);
      bench_random_quat(s, qi + 3);
      break;
    case MB_JOINT_FIXED: break;
    case MB_JOINT_PRISMATIC: qi[0] = bench_uniform(s, -0.5, 0.5); break;
    case MB_JOINT_PLANAR: /* x, y, θ */
      qi[0] = bench_uniform(s, -1, 1), qi[1] = bench_uniform(s, -1, 1);
      qi[2] = bench_uniform(s, -3.14159, 3.14159);
      break;
    case MB_JOINT_CYLINDRICAL: /* θ, d */
      qi[0] = bench_uniform(s, -3.14159, 3.14159), qi[1] = bench_uniform(s, -0.5, 0.5);
      break;
    case MB_JOINT_UNIVERSAL: /* θ1, θ2 */
      qi[0] = bench_uniform(s, -3.14159, 3.14159), qi[1] = bench_uniform(s, -3.14159, 3.14159);
      break;
    default: qi[0] = bench_uniform(s, -3.14159, 3.14159); break;
    }
  }
  for (int k = 0; k < m->nv; k++)
    v[k] = bench_uniform(s, -1, 1), a[k] = bench_uniform(s, -1, 1),
    tau[k] = bench_uniform(s, -1, 1);
}

#define Q(s) (b->q + (s) * b->nq)
#define V(s) (b->v + (s) * b->nv)
#define A(s) (b->a + (s) * b->nv)
#define TAU(s) (b->tau + (s) * b->nv)

/* ---------------------------------------------------------------------------------------------
 * The timed calls: one kernel per (function, implementation), called through a pointer (the
 * same cost for all three), each writing its output to memory the compiler cannot see through. */
#define NOINLINE __attribute__((noinline))

static NOINLINE void gen_rnea(bench *b, int s) { GEN(rnea)(Q(s), V(s), A(s), b->out); }
static NOINLINE void gen_crba(bench *b, int s) { GEN(crba)(Q(s), b->out); }
static NOINLINE void gen_crba_fd(bench *b, int s) {
  b->rc += GEN(crba_fd)(Q(s), V(s), TAU(s), b->out);
}
static NOINLINE void gen_aba(bench *b, int s) { b->rc += GEN(aba)(Q(s), V(s), TAU(s), b->out); }
static NOINLINE void gen_minv(bench *b, int s) { b->rc += GEN(minv)(Q(s), b->out); }

static NOINLINE void rt_rnea(bench *b, int s) {
  mb_rnea(b->m, &b->ws, Q(s), V(s), A(s), NULL, b->out);
}
static NOINLINE void rt_crba(bench *b, int s) { mb_crba(b->m, &b->ws, Q(s), b->out); }
static NOINLINE void rt_crba_fd(bench *b, int s) {
  b->rc += mb_crba_fd(b->m, &b->ws, Q(s), V(s), TAU(s), b->out);
}
static NOINLINE void rt_aba(bench *b, int s) {
  b->rc += mb_aba(b->m, &b->ws, Q(s), V(s), TAU(s), NULL, b->out);
}
static NOINLINE void rt_minv(bench *b, int s) { b->rc += mb_minv(b->m, &b->ws, Q(s), b->out); }

static NOINLINE void mj_rnea_k(bench *b, int s) { bench_mj_rnea(b->mj, s, b->out); }
static NOINLINE void mj_crba_k(bench *b, int s) { bench_mj_crba(b->mj, s, b->out); }
static NOINLINE void mj_fd_k(bench *b, int s) { bench_mj_fd(b->mj, s, b->out); }
static NOINLINE void mj_minv_k(bench *b, int s) { bench_mj_minv(b->mj, s, b->out); }

#ifdef BENCH_HAVE_CFA
static NOINLINE void gen_cfa(bench *b, int s) {
  b->rc += GEN(cfa)(Q(s), V(s), TAU(s), b->out, b->wrench);
}
static NOINLINE void rt_cfa(bench *b, int s) {
  b->rc += mb_cfa(b->m, &b->ws, Q(s), V(s), TAU(s), b->out, b->wrench);
}
#endif

enum { IMPL_GEN, IMPL_RT, IMPL_MJ, NIMPL };
static const char *const impl_name[NIMPL] = {"generated", "runtime", "mujoco"};
/* What the output is, for the check's conversion from MuJoCo's coordinates. */
enum { OUT_FORCE, OUT_MATRIX, OUT_ACC };

static const struct function {
  const char *name;
  int out;
  bench_kernel k[NIMPL];
} functions[] = {
  {"rnea", OUT_FORCE, {gen_rnea, rt_rnea, mj_rnea_k}},
  {"crba", OUT_MATRIX, {gen_crba, rt_crba, mj_crba_k}},
  {"crba_fd", OUT_ACC, {gen_crba_fd, rt_crba_fd, mj_fd_k}},
  {"aba", OUT_ACC, {gen_aba, rt_aba, mj_fd_k}},
  {"minv", OUT_MATRIX, {gen_minv, rt_minv, mj_minv_k}},
#ifdef BENCH_HAVE_CFA
  {"cfa", OUT_ACC, {gen_cfa, rt_cfa, mj_fd_k}},
#endif
};
#define NFUNC ((int)(sizeof functions / sizeof functions[0]))

static int out_size(const bench *b, const struct function *f) {
  return f->out == OUT_MATRIX ? b->nv * b->nv : b->nv;
}

/* ---------------------------------------------------------------------------------------------
 * The check: every implementation against the runtime on every state. */
static int check(bench *b) {
  int n = b->nv * b->nv, failed = 0;
  double *ref = malloc((size_t)n * sizeof *ref), *got = malloc((size_t)n * sizeof *got);
  for (int f = 0; f < NFUNC; f++) {
    double worst[NIMPL] = {0, 0, 0};
    int size = out_size(b, &functions[f]);
    for (int s = 0; s < NSTATES; s++) {
      functions[f].k[IMPL_RT](b, s);
      memcpy(ref, b->out, (size_t)size * sizeof *ref);
      for (int i = 0; i < NIMPL; i++) {
        if (i == IMPL_RT || (i == IMPL_MJ && !b->mj)) continue;
        functions[f].k[i](b, s);
        if (i == IMPL_MJ) {
          if (functions[f].out == OUT_FORCE) bench_mj_force_to_mb(b->mj, s, b->out, got);
          if (functions[f].out == OUT_ACC) bench_mj_acc_to_mb(b->mj, s, b->out, got);
          if (functions[f].out == OUT_MATRIX) bench_mj_matrix_to_mb(b->mj, s, b->out, got);
        } else {
          memcpy(got, b->out, (size_t)size * sizeof *got);
        }
        double e = bench_rel_err(got, ref, size);
        if (!(e <= worst[i])) worst[i] = e;
      }
    }
    for (int i = 0; i < NIMPL; i++) {
      if (i == IMPL_RT || (i == IMPL_MJ && !b->mj)) continue;
      failed += bench_check(functions[f].name, impl_name[i], worst[i],
                            i == IMPL_MJ ? TOL_MJ : TOL_GEN);
    }
  }
  free(ref), free(got);
  return failed;
}

/* --write-urdf FILE (bench_option_fn): ctx is where FILE goes. */
static int write_urdf_option(int argc, char **argv, int k, void *ctx) {
  if (strcmp(argv[k], "--write-urdf") != 0) return 0;
  if (k + 1 >= argc) return -1;
  *(const char **)ctx = argv[k + 1];
  return 2;
}

#ifdef BENCH_URDF
#define URDF_PATH BENCH_URDF
#else
#define URDF_PATH NULL
#endif
#ifndef BENCH_FLOATING_BASE
#define BENCH_FLOATING_BASE 0
#endif

/* MuJoCo on the robot's URDF with the states of b (b->mj stays NULL, msg says why, when it is not
 * available), and a line saying what it loaded. */
static void open_peer(bench *b, const char *keep_urdf, char *msg, size_t n) {
  const mb_model *m = b->m;
  const char *urdf = URDF_PATH;
  int nj = 0, base = 0; /* moving joints; the floating base's body */
  for (int i = 1; i <= m->nb; i++) {
    nj += m->jtype[i] != MB_JOINT_FIXED;
    if (m->jtype[i] == MB_JOINT_FLOATING && !base) base = i;
  }
  bench_names names = {nj, GEN(joint_names), GEN(joint_iq), GEN(joint_iv), GEN(body_names)};
  b->mj = bench_mj_open(m, &names, urdf, BENCH_FLOATING_BASE, keep_urdf, NSTATES, msg, n);
  double *pose = malloc((size_t)(12 * (b->nb + 1)) * sizeof *pose);
  for (int s = 0; b->mj && pose && s < NSTATES; s++) {
    mb_fk(m, &b->ws, Q(s), pose); /* the base's world pose, whatever its joint's origin */
    bench_mj_set_state(b->mj, s, base ? pose + 12 * base : NULL, Q(s), V(s), A(s), TAU(s));
  }
  free(pose);
  if (b->mj)
    printf("# mujoco %s, loaded from %s\n", bench_mj_version(),
           urdf ? (BENCH_FLOATING_BASE ? "the example's URDF with a floating base"
                                       : "the example's URDF")
                : "a URDF written from the runtime model");
  else
    printf("mujoco n/a %s\n", msg);
}

int main(int argc, char **argv) {
  bench_options o;
  const char *keep_urdf = NULL;
  if (bench_parse_options(argc, argv, &o, write_urdf_option, &keep_urdf) != 0)
    return bench_usage("bench_" BENCH_NAME, "", " [--write-urdf FILE]");
  bench bb = {0}, *b = &bb;
  const mb_model *m = &MODEL;
  char msg[512];
  if (mb_model_check(m, msg, sizeof msg) != 0) return fprintf(stderr, "model: %s\n", msg), 2;
  b->m = m, b->nq = m->nq, b->nv = m->nv, b->nb = m->nb;
  void *wsbuf = malloc(mb_workspace_size(m));
  mb_workspace_init(&b->ws, m, wsbuf);
  b->q = calloc((size_t)(NSTATES * b->nq + 7), sizeof(double));
  b->v = malloc((size_t)(NSTATES * b->nv) * sizeof(double));
  b->a = malloc((size_t)(NSTATES * b->nv) * sizeof(double));
  b->tau = malloc((size_t)(NSTATES * b->nv) * sizeof(double));
  b->out = malloc((size_t)(b->nv * b->nv + 6 * (b->nb + 1)) * sizeof(double));
  b->wrench = malloc((size_t)(6 * (b->nb + 1)) * sizeof(double));
  unsigned long long seed = BENCH_SEED;
  for (int s = 0; s < NSTATES; s++) random_state(m, &seed, Q(s), V(s), A(s), TAU(s));

  printf("# robot %s: nq %d, nv %d, %d moving bodies; %d random states (seed %u)\n", BENCH_NAME,
         b->nq, b->nv, b->nb, NSTATES, BENCH_SEED);
  open_peer(b, keep_urdf, msg, sizeof msg);

  int failed = check(b);
  if (failed) {
    printf("# %d check(s) failed: not timing code that disagrees\n", failed);
  } else {
    bench_func funcs[NFUNC];
    for (int f = 0; f < NFUNC; f++)
      funcs[f] = (bench_func){functions[f].name, b->mj ? NIMPL : IMPL_MJ, functions[f].k};
    bench_measure(b, funcs, NFUNC, impl_name, &o, 1);
  }
  bench_mj_close(b->mj);
  free(wsbuf), free(b->q), free(b->v), free(b->a), free(b->tau), free(b->out), free(b->wrench);
  return failed ? 1 : 0;
}
