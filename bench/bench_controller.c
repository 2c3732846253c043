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
 * The command line, the measurement (callgrind dumps "FUNC IMPL") and the output lines are
 * bench_harness.h's (bench/controller.sh reads them), and:
 *   check FUNC IMPL REL_ERR bound B [FAIL]   worst relative difference from the generated code
 *   mujoco n/a REASON */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_controller_mujoco.h"
#include "bench_harness.h"
#include "mb.h"
#include "panda_tcp_model.h"
#include "solo_ct_model.h"

#define NSTATES BENCH_NSTATES /* random states per robot, cycled through by every implementation */
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

struct bench {
  mb_workspace pws, sws;       /* the Panda's and Solo12's runtime workspaces */
  void *pbuf, *sbuf, *scratch; /* their memory; mb_contact_fd's scratch */
  double pq[NSTATES * PNQ];    /* Panda states */
  double sq[NSTATES * SNQ], sv[NSTATES * SNV], stau[NSTATES * SNV]; /* Solo12 states */
  double feet[NSTATES * 12]; /* Solo12's feet in the world per state (MuJoCo's anchors) */
  double out[6 * PNV + 12 + SNV + SNR]; /* outputs */
  mjpeer *panda, *solo;
  int rc; /* sum of return codes, so they are used */
};

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
      b->pq[s * PNQ + panda_tcp_joint_iq[j]] = bench_uniform(seed, r->lo, r->hi);
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
    double *q = b->sq + s * SNQ, *v = b->sv + s * SNV;
    for (int k = 0; k < 3; k++) q[k] = bench_uniform(seed, -1, 1);
    bench_random_quat(seed, q + 3); /* x y z w */
    for (int k = 7; k < SNQ; k++) q[k] = bench_uniform(seed, -3.14159, 3.14159);
    for (int k = 0; k < SNV; k++)
      v[k] = bench_uniform(seed, -1, 1), b->stau[s * SNV + k] = bench_uniform(seed, -1, 1);
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
  bench_kernel k[NIMPL];
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
      double e = bench_rel_err(b->out, ref, n);
      if (!(e <= worst[f][IMPL_RT])) worst[f][IMPL_RT] = e;
      if (!b->panda) continue;
      functions[f].k[IMPL_MJ](b, s);
      memcpy(mj, b->out, (size_t)n * sizeof *mj);
      peer_tcp_to_mb(b->panda, mj, got);
      memcpy(got + 6 * PNV, mj + 6 * PNV, 12 * sizeof(double));
      e = bench_rel_err(got, ref, n);
      if (!(e <= worst[f][IMPL_MJ])) worst[f][IMPL_MJ] = e;
    }
  int failed = 0;
  for (int f = 0; f < 2; f++) {
    failed += bench_check(functions[f].name, "runtime", worst[f][IMPL_RT], TOL_GEN);
    if (b->panda) failed += bench_check(functions[f].name, "mujoco", worst[f][IMPL_MJ], TOL_JAC_MJ);
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
    double e = bench_rel_err(b->out, ref, SNV), ef = bench_rel_err(b->out + SNV, ref + SNV, SNR);
    if (!(e <= worst[0])) worst[0] = e;
    if (!(ef <= worst[0])) worst[0] = ef;
    if (!b->solo) continue;
    mjk_ct(b, s);
    *nefc = peer_nefc(b->solo);
    peer_acc_to_mb(b->solo, s, SV(s), peer_qacc(b->solo), got);
    e = bench_rel_err(got, ref, SNV);
    if (!(e <= worst[1])) worst[1] = e;
    b->rc += solo_ct_aba(SQ(s), SV(s), STAU(s), aba);
    peer_acc_to_mb(b->solo, s, SV(s), peer_qacc_smooth(b->solo), got);
    e = bench_rel_err(got, aba, SNV);
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
  failed += bench_check("contact_fd", "runtime", w[0], TOL_GEN);
  if (b->solo) {
    printf("# mujoco: %d constraint rows (4 connect equalities)\n", nefc);
    failed += nefc != SNR;
    failed += bench_check("contact_fd", "mujoco", w[1], TOL_CT_MJ);
    failed += bench_check("contact_fd_rest", "mujoco", rest[1], TOL_CT_MJ);
    failed += bench_check("aba_smooth", "mujoco", w[2] > rest[2] ? w[2] : rest[2], TOL_SMOOTH_MJ);
  }
  return failed;
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
  unsigned long long seed = BENCH_SEED;
  if (panda_states(b, &seed) != 0) return -1;
  double rest = solo_states(b, &seed);
  printf("# panda_tcp: nq %d, nv %d, frame panda_hand_tcp; solo_ct: nq %d, nv %d, %d contact "
         "rows; %d random states each (seed %u); feet at rest: |Jc v| / |v| <= %.1e\n",
         PNQ, PNV, SNQ, SNV, SNR, NSTATES, BENCH_SEED, rest);
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
  bench_options o;
  if (bench_parse_options(argc, argv, &o, NULL, NULL) != 0)
    return bench_usage("bench_controller", "", "");
  bench *b = calloc(1, sizeof *b);
  if (!b || setup(b) != 0) return 2;
  int failed = check_panda(b) + check_solo(b);
  if (failed) {
    printf("# %d check(s) failed: not timing code that disagrees\n", failed);
  } else {
    bench_func funcs[NFUNC];
    for (int f = 0; f < NFUNC; f++)
      funcs[f] = (bench_func){functions[f].name, has_mj(b, &functions[f]) ? NIMPL : IMPL_MJ,
                              functions[f].k};
    bench_measure(b, funcs, NFUNC, impl_name, &o, 1);
  }
  if (b->rc != 0) printf("# nonzero return codes: %d\n", b->rc), failed++;
  peer_close(b->panda), peer_close(b->solo);
  free(b->pbuf), free(b->sbuf), free(b->scratch), free(b);
  return failed ? 1 : 0;
}
