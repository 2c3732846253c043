/* bench_controller.c — the controller functions of two real robots, generated code against the
 * generic runtime and MuJoCo 2.2.2, in one process on the same random states
 * (bench/CMakeLists.txt, docs/benchmarks.md "Controller functions"):
 *
 *   tcp_jacobian       the Franka Panda's TCP Jacobian in world axes, 6 x 9, rows [ω; v of the
 *                      TCP origin], kinematics included (bench model bench_panda_tcp: the one
 *                      frame panda_hand_tcp):
 *                        generated  panda_tcp_frame_jacobian_world(q, J)
 *                        runtime    mb_frame_jacobian(&panda_tcp_model, &panda_tcp_frames, ws, q,
 *                                   0, J)
 *                        MuJoCo     copy q in; mj_kinematics, mj_comPos, the TCP origin from
 *                                   panda_link7's xpos and xmat, mj_jac(that point, panda_link7)
 *   tcp_pose_jacobian  the same and the TCP's world pose: generated frame_pose and
 *                      frame_jacobian_world, mb_frame_pose and mb_frame_jacobian, MuJoCo's call
 *                      above and the TCP's rotation xmat R_tcp — what a controller reads per
 *                      step; informative, not an issue target
 *   contact_fd         Solo12's forward dynamics with its four feet held (point contacts; bench
 *                      model bench_solo_contact, --floating-base, frames and contacts the feet):
 *                        generated  solo_ct_contact_fd(q, v, tau, all four on, qdd, f)
 *                        runtime    mb_contact_fd(&solo_ct_model, &solo_ct_frames,
 *                                   &solo_ct_contacts, ws, scratch, q, v, tau, NULL, NULL, qdd, f)
 *                        MuJoCo     four `connect` equalities, mj_forward's stages (peer_contact)
 *
 * MuJoCo reads each robot from its URDF with links on fixed joints merged into their parents, as
 * mbdc merges them; Solo12's feet are held by connect equalities added through an MJCF round trip
 * (bench_controller_mujoco.c: the MuJoCo peer, its models, states and timed calls).
 *
 * The states: the Panda's q uniform in its joints' URDF ranges; Solo12's base position in
 * [-1, 1)^3, a random unit quaternion, joint angles in [-π, π), τ in [-1, 1) on every dof, and v
 * drawn in [-1, 1) then projected onto Jc v = 0 (the feet at rest: the states a controller with
 * its feet held sees). MuJoCo's constraint dynamics are soft and leave out J̇c v (its reference
 * acceleration is −b Jc v − k r, zero here): its q̈ is not the KKT answer of contact_fd, so its
 * agreement is reported, not held to rounding — on the timed states and at v = 0, where J̇c v
 * vanishes and only the softness remains.
 *
 *   bench_controller                check, then time: R repetitions; in each, for every function,
 *                                   K batches of each implementation interleaved, up to B calls
 *                                   each (as many as fit in T ns of the slowest implementation);
 *                                   median and minimum ns per call over the R·K batches
 *   bench_controller --smoke        check, then a few calls of everything (a ctest)
 *   bench_controller --check        only the check
 *   bench_controller --callgrind N  N calls of every (function, implementation) between
 *                                   callgrind client requests (dumps named "FUNC IMPL")
 *   options: --reps R --batches K --batch B --batch-ns T (defaults 7, 100, 1000, 10^6)
 *
 * Output lines (after '#' comments), as bench_main.c's:
 *   check FUNC IMPL REL_ERR [bound B] [FAIL]    worst relative difference from the generated code
 *   batch FUNC CALLS / time FUNC IMPL MEDIAN_NS MIN_NS / ratio FUNC IMPL MEDIAN_RATIO
 *   mujoco n/a REASON */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_controller_mujoco.h"
#include "mb.h"
#include "panda_tcp_model.h"
#include "solo_ct_model.h"

#ifdef BENCH_HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(s) (void)(s)
#endif

#define NSTATES 64 /* random states per robot, cycled through by every implementation */
#define SEED 20261121u
#define TOL_GEN 1e-10   /* runtime vs generated: the harness's tolerance */
#define TOL_JAC_MJ 1e-9 /* MuJoCo's Jacobian vs generated: rounding (test_mujoco: 4.8e-15) */
/* MuJoCo's contact q̈ vs generated, a loose bound. Measured (64 states, seed above): 7.4e-3 at
 * worst on the timed states, 4.5e-3 at v = 0 — MuJoCo's softness: its constraint force solves
 * (A + R) f = aref − J q̈_smooth with R = (1 − d)/d · diagApprox(A), d = 0.9999 at most (solimp
 * 0.999 gives 4.4e-2, ten times as much), and on the timed states the J̇c v it leaves out. A
 * wrong frame, anchor or convention is of order 1. */
#define TOL_CT_MJ 5e-2
#define TOL_SMOOTH_MJ 1e-9 /* MuJoCo's unconstrained q̈ (qacc_smooth) vs generated aba */

#define PNQ PANDA_TCP_NQ
#define PNV PANDA_TCP_NV
#define SNQ SOLO_CT_NQ
#define SNV SOLO_CT_NV
#define SNR SOLO_CT_NCROWS

typedef struct bench {
  mb_workspace pws, sws;       /* the Panda's and Solo12's runtime workspaces */
  void *pbuf, *sbuf, *scratch; /* their memory; mb_contact_fd's scratch */
  double pq[NSTATES * PNQ];    /* Panda states */
  double sq[NSTATES * SNQ], sv[NSTATES * SNV], stau[NSTATES * SNV]; /* Solo12 states */
  double feet[NSTATES * 12]; /* Solo12's feet in the world per state (MuJoCo's anchors) */
  double out[6 * PNV + 12 + SNV + SNR]; /* outputs */
  mjpeer *panda, *solo;
  int rc; /* sum of return codes, so they are used */
} bench;

/* xorshift64*, as the generated harness: uniform in [lo, hi). */
static double uniform(unsigned long long *s, double lo, double hi) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return lo + (hi - lo) * (double)((*s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static double rel_err(const double *x, const double *ref, int n) {
  double err = 0, scale = 0;
  for (int k = 0; k < n; k++) {
    double e = fabs(x[k] - ref[k]);
    if (!(e <= err)) err = e; /* NaN counts as the worst */
    if (fabs(ref[k]) > scale) scale = fabs(ref[k]);
  }
  return scale > 0 ? err / scale : err;
}

/* ---------------------------------------------------------------------------------------------
 * The states. */

/* The Panda's joint ranges (examples/urdf/panda.urdf, <limit lower upper>). */
static const struct range {
  const char *joint;
  double lo, hi;
} panda_ranges[] = {
    {"panda_joint1", -2.8973, 2.8973}, {"panda_joint2", -1.7628, 1.7628},
    {"panda_joint3", -2.8973, 2.8973}, {"panda_joint4", -3.0718, -0.0698},
    {"panda_joint5", -2.8973, 2.8973}, {"panda_joint6", -0.0175, 3.7525},
    {"panda_joint7", -2.8973, 2.8973}, {"panda_finger_joint1", 0, 0.04},
    {"panda_finger_joint2", 0, 0.04},
};

static int panda_states(bench *b, unsigned long long *seed) {
  for (int s = 0; s < NSTATES; s++)
    for (int j = 0; j < PANDA_TCP_NJ; j++) {
      const struct range *r = NULL;
      for (size_t k = 0; k < sizeof panda_ranges / sizeof *panda_ranges; k++)
        if (strcmp(panda_ranges[k].joint, panda_tcp_joint_names[j]) == 0) r = &panda_ranges[k];
      if (!r) return fprintf(stderr, "no range for %s\n", panda_tcp_joint_names[j]), -1;
      b->pq[s * PNQ + panda_tcp_joint_iq[j]] = uniform(seed, r->lo, r->hi);
    }
  return 0;
}

/* Solve A x = y (n x n, row-major, overwritten) in place by Gaussian elimination with partial
 * pivoting. */
static void gauss(double *A, double *y, int n) {
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int r = c + 1; r < n; r++)
      if (fabs(A[r * n + c]) > fabs(A[p * n + c])) p = r;
    for (int k = 0; k < n; k++) {
      double t = A[c * n + k];
      A[c * n + k] = A[p * n + k], A[p * n + k] = t;
    }
    double t = y[c];
    y[c] = y[p], y[p] = t;
    for (int r = c + 1; r < n; r++) {
      double f = A[r * n + c] / A[c * n + c];
      for (int k = c; k < n; k++) A[r * n + k] -= f * A[c * n + k];
      y[r] -= f * y[c];
    }
  }
  for (int c = n - 1; c >= 0; c--) {
    for (int k = c + 1; k < n; k++) y[c] -= A[c * n + k] * y[k];
    y[c] /= A[c * n + c];
  }
}

/* v ← v − Jcᵀ (Jc Jcᵀ)⁻¹ Jc v: the feet at rest. Jc: the rows of the feet's origin velocities
 * (rows 3..5 of each frame's world-aligned Jacobian). Returns |Jc v| after, relative to |v|. */
static double feet_at_rest(bench *b, const double *q, double *v) {
  double J[6 * SNV * SOLO_CT_NF], Jc[SNR * SNV], A[SNR * SNR], y[SNR];
  b->rc += mb_frame_jacobian(&solo_ct_model, &solo_ct_frames, &b->sws, q, 0, J);
  for (int c = 0; c < SOLO_CT_NCONTACT; c++)
    memcpy(Jc + 3 * c * SNV, J + (6 * solo_ct_contacts.contact[c].frame + 3) * SNV,
           3 * SNV * sizeof(double));
  for (int r = 0; r < SNR; r++) {
    y[r] = 0;
    for (int k = 0; k < SNV; k++) y[r] += Jc[r * SNV + k] * v[k];
    for (int c = 0; c < SNR; c++) {
      A[r * SNR + c] = 0;
      for (int k = 0; k < SNV; k++) A[r * SNR + c] += Jc[r * SNV + k] * Jc[c * SNV + k];
    }
  }
  gauss(A, y, SNR);
  double vn = 0, res = 0;
  for (int k = 0; k < SNV; k++) {
    for (int r = 0; r < SNR; r++) v[k] -= Jc[r * SNV + k] * y[r];
    vn += v[k] * v[k];
  }
  for (int r = 0; r < SNR; r++) {
    double x = 0;
    for (int k = 0; k < SNV; k++) x += Jc[r * SNV + k] * v[k];
    res += x * x;
  }
  return sqrt(res / vn);
}

/* Solo12's states (its floating joint's q is q[0..6], checked by setup), its feet's world
 * positions; the worst |Jc v| / |v| left. */
static double solo_states(bench *b, unsigned long long *seed) {
  double worst = 0, pose[12 * SOLO_CT_NF];
  for (int s = 0; s < NSTATES; s++) {
    double *q = b->sq + s * SNQ, *v = b->sv + s * SNV, n2;
    for (int k = 0; k < 3; k++) q[k] = uniform(seed, -1, 1);
    do { /* a uniform random unit quaternion, x y z w */
      n2 = 0;
      for (int k = 3; k < 7; k++) q[k] = uniform(seed, -1, 1), n2 += q[k] * q[k];
    } while (n2 < 0.01 || n2 > 1);
    for (int k = 3; k < 7; k++) q[k] /= sqrt(n2);
    for (int k = 7; k < SNQ; k++) q[k] = uniform(seed, -3.14159, 3.14159);
    for (int k = 0; k < SNV; k++)
      v[k] = uniform(seed, -1, 1), b->stau[s * SNV + k] = uniform(seed, -1, 1);
    double e = feet_at_rest(b, q, v);
    if (!(e <= worst)) worst = e;
    b->rc += mb_frame_pose(&solo_ct_model, &solo_ct_frames, &b->sws, q, pose);
    for (int c = 0; c < SOLO_CT_NCONTACT; c++)
      memcpy(b->feet + 12 * s + 3 * c, pose + 12 * solo_ct_contacts.contact[c].frame + 9,
             3 * sizeof(double));
  }
  return worst;
}

/* ---------------------------------------------------------------------------------------------
 * The timed calls: one kernel per (function, implementation), called through a pointer, each
 * writing to memory the compiler cannot see through. */
typedef void (*kernel)(bench *b, int s);
#define NOINLINE __attribute__((noinline))
#define PQ(s) (b->pq + (s)*PNQ)
#define SQ(s) (b->sq + (s)*SNQ)
#define SV(s) (b->sv + (s)*SNV)
#define STAU(s) (b->stau + (s)*SNV)
static const int all_on[SOLO_CT_NCONTACT] = {1, 1, 1, 1};

static NOINLINE void gen_jac(bench *b, int s) { panda_tcp_frame_jacobian_world(PQ(s), b->out); }
static NOINLINE void rt_jac(bench *b, int s) {
  b->rc += mb_frame_jacobian(&panda_tcp_model, &panda_tcp_frames, &b->pws, PQ(s), 0, b->out);
}
static NOINLINE void mjk_jac(bench *b, int s) { peer_tcp(b->panda, s, b->out); }

static NOINLINE void gen_pose_jac(bench *b, int s) {
  panda_tcp_frame_pose(PQ(s), b->out + 6 * PNV);
  panda_tcp_frame_jacobian_world(PQ(s), b->out);
}
static NOINLINE void rt_pose_jac(bench *b, int s) {
  b->rc += mb_frame_pose(&panda_tcp_model, &panda_tcp_frames, &b->pws, PQ(s), b->out + 6 * PNV);
  b->rc += mb_frame_jacobian(&panda_tcp_model, &panda_tcp_frames, &b->pws, PQ(s), 0, b->out);
}
static NOINLINE void mjk_pose_jac(bench *b, int s) {
  peer_tcp(b->panda, s, b->out);
  peer_tcp_pose(b->panda, b->out + 6 * PNV);
}

static NOINLINE void gen_ct(bench *b, int s) {
  b->rc += solo_ct_contact_fd(SQ(s), SV(s), STAU(s), all_on, b->out, b->out + SNV);
}
static NOINLINE void rt_ct(bench *b, int s) {
  b->rc += mb_contact_fd(&solo_ct_model, &solo_ct_frames, &solo_ct_contacts, &b->sws, b->scratch,
                         SQ(s), SV(s), STAU(s), NULL, NULL, b->out, b->out + SNV);
}
static NOINLINE void mjk_ct(bench *b, int s) { peer_contact(b->solo, b->feet, s); }

enum { IMPL_GEN, IMPL_RT, IMPL_MJ, NIMPL };
static const char *const impl_name[NIMPL] = {"generated", "runtime", "mujoco"};

static const struct function {
  const char *name;
  int solo; /* 0: the Panda, 1: Solo12 */
  kernel k[NIMPL];
} functions[] = {
    {"tcp_jacobian", 0, {gen_jac, rt_jac, mjk_jac}},
    {"tcp_pose_jacobian", 0, {gen_pose_jac, rt_pose_jac, mjk_pose_jac}},
    {"contact_fd", 1, {gen_ct, rt_ct, mjk_ct}},
};
#define NFUNC ((int)(sizeof functions / sizeof functions[0]))

static int has_mj(const bench *b, const struct function *f) {
  return f->solo ? !!b->solo : !!b->panda;
}

/* ---------------------------------------------------------------------------------------------
 * The checks: every implementation against the generated code on every state. */
static int report(const char *func, const char *impl, double err, double bound) {
  int bad = !(err <= bound);
  printf("check %s %s %.2e bound %.0e%s\n", func, impl, err, bound, bad ? " FAIL" : "");
  return bad;
}

/* The Panda: Jacobian (6 x 9) and Jacobian with pose (+ 12). */
static int check_panda(bench *b) {
  double ref[6 * PNV + 12], got[6 * PNV + 12], mj[6 * PNV + 12];
  double worst[2][NIMPL] = {{0}};
  for (int f = 0; f < 2; f++)
    for (int s = 0; s < NSTATES; s++) {
      int n = f ? 6 * PNV + 12 : 6 * PNV;
      functions[f].k[IMPL_GEN](b, s);
      memcpy(ref, b->out, (size_t)n * sizeof *ref);
      functions[f].k[IMPL_RT](b, s);
      double e = rel_err(b->out, ref, n);
      if (!(e <= worst[f][IMPL_RT])) worst[f][IMPL_RT] = e;
      if (!b->panda) continue;
      functions[f].k[IMPL_MJ](b, s);
      memcpy(mj, b->out, (size_t)n * sizeof *mj);
      peer_tcp_to_mb(b->panda, mj, got);
      memcpy(got + 6 * PNV, mj + 6 * PNV, 12 * sizeof(double));
      e = rel_err(got, ref, n);
      if (!(e <= worst[f][IMPL_MJ])) worst[f][IMPL_MJ] = e;
    }
  int failed = 0;
  for (int f = 0; f < 2; f++) {
    failed += report(functions[f].name, "runtime", worst[f][IMPL_RT], TOL_GEN);
    if (b->panda) failed += report(functions[f].name, "mujoco", worst[f][IMPL_MJ], TOL_JAC_MJ);
  }
  return failed;
}

/* Solo12 on the states of b: the worst difference of the runtime's q̈ and f, MuJoCo's q̈, and
 * MuJoCo's unconstrained q̈ from the generated code's (MuJoCo's constraint rows counted into
 * *nefc). */
static void solo_errors(bench *b, double worst[4], int *nefc) {
  double ref[SNV + SNR], aba[SNV], got[SNV];
  for (int s = 0; s < NSTATES; s++) {
    gen_ct(b, s);
    memcpy(ref, b->out, sizeof ref);
    rt_ct(b, s);
    double e = rel_err(b->out, ref, SNV), ef = rel_err(b->out + SNV, ref + SNV, SNR);
    if (!(e <= worst[0])) worst[0] = e;
    if (!(ef <= worst[0])) worst[0] = ef;
    if (!b->solo) continue;
    mjk_ct(b, s);
    *nefc = peer_nefc(b->solo);
    peer_acc_to_mb(b->solo, s, SV(s), peer_qacc(b->solo), got);
    e = rel_err(got, ref, SNV);
    if (!(e <= worst[1])) worst[1] = e;
    b->rc += solo_ct_aba(SQ(s), SV(s), STAU(s), aba);
    peer_acc_to_mb(b->solo, s, SV(s), peer_qacc_smooth(b->solo), got);
    e = rel_err(got, aba, SNV);
    if (!(e <= worst[2])) worst[2] = e;
  }
}

/* Solo12: on the timed states, then at v = 0 (the states restored after). */
static int check_solo(bench *b) {
  double w[4] = {0}, rest[4] = {0}, *v = malloc(sizeof b->sv);
  int nefc = 0, failed = 0;
  solo_errors(b, w, &nefc);
  memcpy(v, b->sv, sizeof b->sv);
  memset(b->sv, 0, sizeof b->sv);
  if (b->solo) peer_states(b->solo, b->sq, b->sv, b->stau);
  solo_errors(b, rest, &nefc);
  memcpy(b->sv, v, sizeof b->sv);
  if (b->solo) peer_states(b->solo, b->sq, b->sv, b->stau);
  free(v);
  failed += report("contact_fd", "runtime", w[0], TOL_GEN);
  if (b->solo) {
    printf("# mujoco: %d constraint rows (4 connect equalities)\n", nefc);
    failed += nefc != SNR;
    failed += report("contact_fd", "mujoco", w[1], TOL_CT_MJ);
    failed += report("contact_fd_rest", "mujoco", rest[1], TOL_CT_MJ);
    failed += report("aba_smooth", "mujoco", w[2] > rest[2] ? w[2] : rest[2], TOL_SMOOTH_MJ);
  }
  return failed;
}

/* ---------------------------------------------------------------------------------------------
 * Timing, as bench_main.c. */
static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* ns per call of one batch of n calls, cycling through the states */
static double batch(bench *b, kernel k, int n) {
  double t0 = now_ns();
  for (int c = 0; c < n; c++) {
    k(b, c & (NSTATES - 1));
    __asm__ volatile("" ::: "memory");
  }
  return (now_ns() - t0) / n;
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, c = *(const double *)y;
  return (a > c) - (a < c);
}

/* Calls per batch of function f: as many as fit in batch_ns of its slowest implementation
 * (after a warm-up of up to 10^4 calls or ~10 batches' time of each), at most calls. */
static int batch_calls(bench *b, int f, int nimpl, int calls, double batch_ns) {
  double slowest = 0;
  for (int i = 0; i < nimpl; i++) {
    double per_call = batch(b, functions[f].k[i], 10), warm = 10 * batch_ns / per_call;
    per_call = batch(b, functions[f].k[i], warm > 10000 ? 10000 : warm < 10 ? 10 : (int)warm);
    if (per_call > slowest) slowest = per_call;
  }
  double fit = batch_ns / slowest;
  return fit >= calls ? calls : fit < 10 ? (calls < 10 ? calls : 10) : (int)fit;
}

static void time_all(bench *b, int reps, int batches, int calls, double batch_ns) {
  int n = reps * batches, fcalls[NFUNC];
  double *t = malloc((size_t)(NFUNC * NIMPL * n) * sizeof *t);
  for (int f = 0; f < NFUNC; f++)
    fcalls[f] = batch_calls(b, f, has_mj(b, &functions[f]) ? NIMPL : IMPL_MJ, calls, batch_ns);
  for (int r = 0; r < reps; r++)
    for (int f = 0; f < NFUNC; f++)
      for (int k = 0; k < batches; k++)
        for (int i = 0; i < (has_mj(b, &functions[f]) ? NIMPL : IMPL_MJ); i++)
          t[(f * NIMPL + i) * n + r * batches + k] = batch(b, functions[f].k[i], fcalls[f]);
  for (int f = 0; f < NFUNC; f++) {
    int nimpl = has_mj(b, &functions[f]) ? NIMPL : IMPL_MJ;
    double median[NIMPL];
    printf("batch %s %d\n", functions[f].name, fcalls[f]);
    for (int i = 0; i < nimpl; i++) {
      double *x = t + (f * NIMPL + i) * n;
      qsort(x, (size_t)n, sizeof *x, cmp_double);
      median[i] = n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
      printf("time %s %s %.1f %.1f\n", functions[f].name, impl_name[i], median[i], x[0]);
    }
    for (int i = IMPL_RT; i < nimpl; i++)
      printf("ratio %s %s %.2f\n", functions[f].name, impl_name[i], median[i] / median[IMPL_GEN]);
  }
  free(t);
}

/* N calls of every (function, implementation) between callgrind's client requests: the dump
 * named "FUNC IMPL" holds the instructions of exactly those calls. */
static void callgrind(bench *b, int calls) {
  char name[64];
  for (int f = 0; f < NFUNC; f++)
    for (int i = 0; i < (has_mj(b, &functions[f]) ? NIMPL : IMPL_MJ); i++) {
      batch(b, functions[f].k[i], calls); /* warm-up: lazy binding of libm and libmujoco */
      snprintf(name, sizeof name, "%s %s", functions[f].name, impl_name[i]);
      CALLGRIND_ZERO_STATS;
      batch(b, functions[f].k[i], calls);
      CALLGRIND_DUMP_STATS_AT(name);
    }
  printf("callgrind %d calls per dump\n", calls);
}

/* ---------------------------------------------------------------------------------------------
 * The command line. */
typedef struct options {
  int reps, batches, calls, mode_check, cg_calls;
  double batch_ns;
} options;

static int usage(void) {
  fprintf(stderr, "usage: bench_controller [--smoke | --check | --callgrind N] [--reps R] "
                  "[--batches K] [--batch B] [--batch-ns T]\n");
  return 2;
}

/* Fills o from argv. Returns 0, or -1 for a usage error. */
static int parse_options(int argc, char **argv, options *o) {
  *o = (options){7, 100, 1000, 0, 0, 1e6};
  for (int k = 1; k < argc; k++) {
    const char *a = argv[k], *val = k + 1 < argc ? argv[k + 1] : NULL;
    if (strcmp(a, "--smoke") == 0)
      o->reps = 1, o->batches = 2, o->calls = 10;
    else if (strcmp(a, "--check") == 0)
      o->mode_check = 1;
    else if (strcmp(a, "--callgrind") == 0 && val)
      o->cg_calls = atoi(val), k++;
    else if (strcmp(a, "--reps") == 0 && val)
      o->reps = atoi(val), k++;
    else if (strcmp(a, "--batches") == 0 && val)
      o->batches = atoi(val), k++;
    else if (strcmp(a, "--batch") == 0 && val)
      o->calls = atoi(val), k++;
    else if (strcmp(a, "--batch-ns") == 0 && val)
      o->batch_ns = atof(val), k++;
    else
      return -1;
  }
  return o->reps < 1 || o->batches < 1 || o->calls < 1 || o->cg_calls < 0 || !(o->batch_ns > 0) ? -1
                                                                                                : 0;
}

/* Workspaces, states and peers. Returns 0, or -1 (a message printed). */
static int setup(bench *b) {
  char msg[512];
  if (mb_model_check(&panda_tcp_model, msg, sizeof msg) != 0 ||
      mb_model_check(&solo_ct_model, msg, sizeof msg) != 0)
    return fprintf(stderr, "model: %s\n", msg), -1;
  if (solo_ct_model.jtype[1] != MB_JOINT_FLOATING || solo_ct_model.iq[1] != 0 ||
      SNR != 3 * SOLO_CT_NCONTACT)
    return fprintf(stderr, "solo_ct: not a floating base on point contacts\n"), -1;
  b->pbuf = malloc(mb_workspace_size(&panda_tcp_model));
  b->sbuf = malloc(mb_workspace_size(&solo_ct_model));
  b->scratch = malloc(mb_contact_scratch_size(&solo_ct_model, &solo_ct_contacts));
  if (!b->pbuf || !b->sbuf || !b->scratch) return fprintf(stderr, "out of memory\n"), -1;
  mb_workspace_init(&b->pws, &panda_tcp_model, b->pbuf);
  mb_workspace_init(&b->sws, &solo_ct_model, b->sbuf);
  unsigned long long seed = SEED;
  if (panda_states(b, &seed) != 0) return -1;
  double rest = solo_states(b, &seed);
  printf("# panda_tcp: nq %d, nv %d, frame panda_hand_tcp; solo_ct: nq %d, nv %d, %d contact "
         "rows; %d random states each (seed %u); feet at rest: |Jc v| / |v| <= %.1e\n",
         PNQ, PNV, SNQ, SNV, SNR, NSTATES, SEED, rest);
  b->panda = peer_open(0, NSTATES, b->pq, NULL, NULL, msg, sizeof msg);
  if (!b->panda) printf("mujoco n/a panda: %s\n", msg);
  b->solo = peer_open(1, NSTATES, b->sq, b->sv, b->stau, msg, sizeof msg);
  if (!b->solo) printf("mujoco n/a solo12: %s\n", msg);
  if (b->panda || b->solo)
    printf("# mujoco %s: bodies with the world: Panda %d, Solo12 %d\n", peer_version(),
           peer_nbody(b->panda), peer_nbody(b->solo));
  return 0;
}

int main(int argc, char **argv) {
  options o;
  if (parse_options(argc, argv, &o) != 0) return usage();
  bench *b = calloc(1, sizeof *b);
  if (!b || setup(b) != 0) return 2;
  int failed = check_panda(b) + check_solo(b);
  if (failed) {
    printf("# %d check(s) failed: not timing code that disagrees\n", failed);
  } else if (o.cg_calls > 0) {
    callgrind(b, o.cg_calls);
  } else if (!o.mode_check) {
    printf("# timing: %d repetitions x %d batches per implementation and function, each of up to "
           "%d calls and about %.0f us of the slowest implementation\n",
           o.reps, o.batches, o.calls, o.batch_ns / 1e3);
    time_all(b, o.reps, o.batches, o.calls, o.batch_ns);
  }
  if (b->rc != 0) printf("# nonzero return codes: %d\n", b->rc), failed++;
  peer_close(b->panda), peer_close(b->solo);
  free(b->pbuf), free(b->sbuf), free(b->scratch), free(b);
  return failed ? 1 : 0;
}
