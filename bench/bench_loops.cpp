/* bench_loops.cpp — closed-loop forward dynamics, the generated p_fd_loops against the runtime's
 * mb_fd_loops and Simbody 3.7, on the loop examples (five_bar, quarter_car), in one process on the
 * same states (docs/benchmarks.md "Closed loops").
 *
 * The mechanism in Simbody is the runtime's model, loops and springs rebuilt by tests/mbt_simbody
 * (the Simbody cross-check's mapping, docs/loops_simbody.md). The states are those of that check:
 * NSTATES random assembled states (a random step from the assembled configuration, mb_project_q;
 * random v, mb_project_v; random τ in [-2, 2)), cycled through by every implementation.
 *
 * Functions (per model):
 *   fd_loops          q̈ (and λ) from q, v, τ; no spring anywhere (Simbody built without it)
 *   fd_loops_spring   the same with the model's springs (only for a model with springs): the
 *                     generated p_passive_forces + τ then p_fd_loops, mb_passive_forces + τ then
 *                     mb_fd_loops, and Simbody with Force::TwoPointLinearSpring + TwoPointLinearDamper
 * Implementations:
 *   generated         <p>_fd_loops (after <p>_passive_forces for fd_loops_spring)
 *   runtime           mb_fd_loops (after mb_passive_forces)
 *   simbody           forward dynamics from a new state: Q, U and the mobility forces (τ) set on
 *                     the State (Simbody's own coordinates, converted once before timing), then
 *                     realize(state, Stage::Acceleration), then getUDot() copied out. Setting Q
 *                     invalidates Stage::Position, so this realizes Position, Velocity, Dynamics and
 *                     Acceleration: the same work as p_fd_loops, which starts from q, v, τ.
 *   simbody_dyn       only Dynamics and Acceleration: one State per random state, realized through
 *                     Velocity beforehand; each call invalidateAllCacheAtOrAbove(Stage::Dynamics),
 *                     realize(Acceleration), getUDot(). A lower bound of Simbody's cost, reached only
 *                     when q and v do not change (never in a simulation); not the target's measure.
 *
 *   bench_loops                 check, then time (as bench_main.c: R repetitions; in each, for
 *                               every function, K batches of each implementation, interleaved batch
 *                               by batch, of up to B calls, as many as fit in T ns of the slowest
 *                               implementation; median and minimum ns per call over R·K batches;
 *                               unlike bench_main.c, a batch goes on through the states where the
 *                               last one stopped, so short batches do not time the first states only)
 *   bench_loops --smoke         check, then a few calls of everything (the ctest)
 *   bench_loops --check         only the check
 *   bench_loops --callgrind N   N calls of each (model, function, implementation) between callgrind
 *                               client requests, dumps named "MODEL FUNC IMPL" (bench/loops.sh)
 *   options: --reps R --batches K --batch B --batch-ns T (defaults 7, 100, 1000, 10^6)
 *
 * Output, after '#' comments:
 *   check MODEL FUNC IMPL REL_ERR       worst max|x − Simbody| / max|Simbody| over the states
 *                                       (q̈ in our coordinates; simbody_dyn: its U̇ against simbody's)
 *   batch MODEL FUNC CALLS
 *   time MODEL FUNC IMPL MEDIAN_NS MIN_NS
 *   ratio MODEL FUNC IMPL RATIO         median(IMPL) / median(generated), from this run
 *   instr lines come from bench/loops.sh, not from here. */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "mbt_loopmodel.h"
#include "mbt_simbody.h"

#include "five_bar_dynamics.h"
#include "quarter_car_dynamics.h"

#ifdef BENCH_HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(s) (void)(s)
#endif

using namespace SimTK;

namespace {

const int NSTATES = 64; /* a power of two: the batches cycle with & (NSTATES - 1) */
const unsigned long long SEED = 20261121u;
const double TOL = 1e-9; /* the Simbody cross-check's bound (test_simbody) */

typedef int (*FdLoopsFn)(const double *, const double *, const double *, double *, double *);
typedef void (*PassiveFn)(const double *, const double *, double *);

struct ModelDef {
  const char *name, *path; /* path relative to the source tree */
  int nq, nv, nc;          /* the generated code's sizes, checked against the runtime's */
  FdLoopsFn fd_loops;
  PassiveFn passive; /* NULL: no springs */
};
const ModelDef model_defs[] = {
    {"five_bar", "examples/five_bar.mbd", FIVE_BAR_NQ, FIVE_BAR_NV, FIVE_BAR_NC, five_bar_fd_loops,
#ifdef FIVE_BAR_HAVE_PASSIVE_FORCES
     five_bar_passive_forces
#else
     NULL
#endif
    },
    {"quarter_car", "examples/quarter_car.mbd", QUARTER_CAR_NQ, QUARTER_CAR_NV, QUARTER_CAR_NC,
     quarter_car_fd_loops,
#ifdef QUARTER_CAR_HAVE_PASSIVE_FORCES
     quarter_car_passive_forces
#else
     NULL
#endif
    },
};

double uniform(unsigned long long *s, double lo, double hi) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return lo + (hi - lo) * (double)((*s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

double rel_error(const double *x, const double *ref, int n) {
  double err = 0, scale = 0;
  for (int k = 0; k < n; k++) {
    double e = std::fabs(x[k] - ref[k]);
    if (!(e <= err)) err = e; /* NaN counts as the worst */
    scale = std::fmax(scale, std::fabs(ref[k]));
  }
  return scale > 0 ? err / scale : err;
}

/* One function of one model: its Simbody mechanism and its states in Simbody's coordinates. */
struct Bench;
struct Func {
  std::string name;
  bool springs;
  std::unique_ptr<MbtSimbody> sb;
  std::vector<Vector> Q, U, F; /* per state */
  std::vector<State> pre;      /* per state, realized through Velocity (simbody_dyn) */
};

struct Bench {
  const ModelDef *def;
  mbt_loopmodel lm;
  const mb_model *m;
  const mb_loops *L;
  const mb_springs *S;
  mb_springs none; /* n = 0 */
  std::vector<double> wbuf, lbuf;
  mb_workspace ws;
  mb_loop_workspace lw;
  int nq, nv, nc;
  std::vector<double> q, v, tau;     /* NSTATES states */
  std::vector<double> t, out, lambda; /* scratch τ + τ_passive, outputs */
  Func *f;                           /* the function being called */
  int rc;                            /* sum of return codes, so they are used */
};

#define Q(s) (b->q.data() + (size_t)(s) * (size_t)b->nq)
#define V(s) (b->v.data() + (size_t)(s) * (size_t)b->nv)
#define TAU(s) (b->tau.data() + (size_t)(s) * (size_t)b->nv)
#define NOINLINE __attribute__((noinline))

/* ------------------------------------------------------------------------- the timed calls */
typedef void (*Kernel)(Bench *b, int s);

NOINLINE void gen_k(Bench *b, int s) {
  const double *tau = TAU(s);
  if (b->f->springs) {
    b->def->passive(Q(s), V(s), b->t.data());
    for (int k = 0; k < b->nv; k++) b->t[(size_t)k] += tau[k];
    tau = b->t.data();
  }
  b->rc += b->def->fd_loops(Q(s), V(s), tau, b->out.data(), b->lambda.data());
}

NOINLINE void rt_k(Bench *b, int s) {
  const double *tau = TAU(s);
  if (b->f->springs) {
    b->rc += mb_passive_forces(b->m, b->S, &b->ws, Q(s), V(s), b->t.data());
    for (int k = 0; k < b->nv; k++) b->t[(size_t)k] += tau[k];
    tau = b->t.data();
  }
  b->rc += mb_fd_loops(b->m, b->L, &b->ws, &b->lw, Q(s), V(s), tau, b->out.data(),
                       b->lambda.data());
}

NOINLINE void sb_k(Bench *b, int s) {
  Func *f = b->f;
  State &st = f->sb->state();
  st.updQ() = f->Q[(size_t)s];
  st.updU() = f->U[(size_t)s];
  f->sb->discrete().setAllMobilityForces(st, f->F[(size_t)s]);
  f->sb->system().realize(st, Stage::Acceleration);
  const Vector &ud = st.getUDot();
  for (int k = 0; k < ud.size(); k++) b->out[(size_t)k] = ud[k];
}

NOINLINE void sb_dyn_k(Bench *b, int s) {
  State &st = b->f->pre[(size_t)s];
  b->f->sb->discrete().setAllMobilityForces(st, b->f->F[(size_t)s]); /* invalidates Dynamics */
  b->f->sb->system().realize(st, Stage::Acceleration);
  const Vector &ud = st.getUDot();
  for (int k = 0; k < ud.size(); k++) b->out[(size_t)k] = ud[k];
}

enum { IMPL_GEN, IMPL_RT, IMPL_SB, IMPL_SB_DYN, NIMPL };
const char *const impl_name[NIMPL] = {"generated", "runtime", "simbody", "simbody_dyn"};
const Kernel kernels[NIMPL] = {gen_k, rt_k, sb_k, sb_dyn_k};

/* ------------------------------------------------------------------------- setup */

/* The model, its states and its functions; false (and a message) on failure. */
bool open_model(Bench *b, const ModelDef *def, const char *srcdir, std::vector<Func> &funcs) {
  b->def = def;
  std::string path = std::string(srcdir) + "/" + def->path;
  if (mbt_loopmodel_load(path.c_str(), &b->lm))
    return std::fprintf(stderr, "%s: cannot load\n", path.c_str()), false;
  b->m = b->lm.model, b->L = b->lm.loops, b->S = b->lm.springs;
  b->none.n = 0, b->none.spring = NULL;
  b->nq = b->m->nq, b->nv = b->m->nv, b->nc = b->L->nc;
  if (b->nq != def->nq || b->nv != def->nv || b->nc != def->nc ||
      (b->S->n > 0) != (def->passive != NULL))
    return std::fprintf(stderr, "%s: the generated code is not this model's (regenerate)\n",
                        def->name),
           false;
  b->wbuf.resize(mb_workspace_size(b->m) / sizeof(double) + 1);
  b->lbuf.resize(mb_loop_workspace_size(b->m, b->L) / sizeof(double) + 1);
  mb_workspace_init(&b->ws, b->m, b->wbuf.data());
  mb_loop_workspace_init(&b->lw, b->m, b->L, b->lbuf.data());
  b->q.resize((size_t)(NSTATES * b->nq)), b->v.resize((size_t)(NSTATES * b->nv));
  b->tau.resize((size_t)(NSTATES * b->nv));
  b->t.resize((size_t)b->nv), b->out.resize((size_t)b->nv), b->lambda.resize((size_t)b->nc + 1);
  std::vector<double> dv((size_t)b->nv);
  unsigned long long seed = SEED;
  for (int s = 0; s < NSTATES; s++) {
    for (int tries = 0;; tries++) {
      if (tries > 100) return std::fprintf(stderr, "%s: no assembled state\n", def->name), false;
      for (int k = 0; k < b->nv; k++) dv[(size_t)k] = uniform(&seed, -0.4, 0.4);
      if (mb_integrate(b->m, b->lm.q0, dv.data(), 1.0, Q(s))) continue;
      if (mb_project_q(b->m, b->L, &b->ws, &b->lw, Q(s))) continue;
      for (int k = 0; k < b->nv; k++) V(s)[k] = uniform(&seed, -1, 1);
      for (int k = 0; k < b->nv; k++) TAU(s)[k] = uniform(&seed, -2, 2);
      if (mb_project_v(b->m, b->L, &b->ws, &b->lw, Q(s), V(s))) continue;
      break;
    }
  }
  funcs.clear();
  funcs.resize(b->S->n > 0 ? 2 : 1);
  for (size_t i = 0; i < funcs.size(); i++) {
    Func &f = funcs[i];
    f.springs = i == 1;
    f.name = f.springs ? "fd_loops_spring" : "fd_loops";
    f.sb.reset(new MbtSimbody(b->m, b->L, f.springs ? b->S : &b->none));
    if (!f.sb->unsupported().empty() || f.sb->nmultipliers() != b->nc)
      return std::fprintf(stderr, "%s: Simbody cannot model it\n", def->name), false;
    for (int s = 0; s < NSTATES; s++) {
      f.sb->load(Q(s), V(s), TAU(s));
      State &st = f.sb->state();
      f.Q.push_back(st.getQ());
      f.U.push_back(st.getU());
      f.F.push_back(f.sb->discrete().getAllMobilityForces(st));
      f.pre.push_back(st);
      f.sb->system().realize(f.pre.back(), Stage::Velocity);
    }
  }
  return true;
}

/* ------------------------------------------------------------------------- the check */

/* Every implementation against simbody on every state; the number of failures. */
int check(Bench *b, std::vector<Func> &funcs) {
  int failed = 0;
  size_t nu = 0;
  std::vector<double> ref((size_t)b->nv), got((size_t)b->nv), uref, u;
  for (Func &f : funcs) {
    b->f = &f;
    double worst[NIMPL] = {0, 0, 0, 0};
    for (int s = 0; s < NSTATES; s++) {
      sb_k(b, s);
      f.sb->qdd(Q(s), V(s), ref.data()); /* simbody's U̇ in our coordinates */
      nu = (size_t)f.sb->state().getNU();
      uref.assign(b->out.begin(), b->out.begin() + (long)nu);
      for (int i = 0; i < NIMPL; i++) {
        if (i == IMPL_SB) continue;
        b->rc = 0;
        kernels[i](b, s);
        double e;
        if (i == IMPL_SB_DYN) {
          u.assign(b->out.begin(), b->out.begin() + (long)nu);
          e = rel_error(u.data(), uref.data(), (int)nu);
        } else {
          e = b->rc != 0 ? NAN : rel_error(b->out.data(), ref.data(), b->nv);
        }
        if (!(e <= worst[i])) worst[i] = e;
      }
    }
    for (int i = 0; i < NIMPL; i++) {
      if (i == IMPL_SB) continue;
      bool bad = !(worst[i] <= TOL);
      failed += bad;
      std::printf("check %s %s %s %.2e%s\n", b->def->name, f.name.c_str(), impl_name[i], worst[i],
                  bad ? " FAIL" : "");
    }
  }
  return failed;
}

/* ------------------------------------------------------------------------- timing */

double now_ns() {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* ns per call of n calls, cycling through the states from *pos on (and advancing it): each
 * implementation has its own position, all reset together, and makes the same numbers of calls,
 * so all see the same sequence of states even when a batch holds fewer than NSTATES calls. */
double batch(Bench *b, Kernel k, int n, unsigned *pos) {
  unsigned p = *pos;
  double t0 = now_ns();
  for (int c = 0; c < n; c++, p++) {
    k(b, (int)(p & (NSTATES - 1)));
    __asm__ volatile("" ::: "memory");
  }
  double t = (now_ns() - t0) / n;
  *pos = p;
  return t;
}

int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, c = *(const double *)y;
  return (a > c) - (a < c);
}

void time_all(Bench *b, std::vector<Func> &funcs, int reps, int batches, int calls,
              double batch_ns) {
  int n = reps * batches;
  for (Func &f : funcs) {
    b->f = &f;
    double slowest = 0;
    unsigned pos[NIMPL] = {0, 0, 0, 0};
    for (int i = 0; i < NIMPL; i++) { /* warm-up, then the calls per batch from the slowest */
      double per_call = batch(b, kernels[i], 10, &pos[i]), warm = 10 * batch_ns / per_call;
      per_call = batch(b, kernels[i], warm > 10000 ? 10000 : warm < 10 ? 10 : (int)warm, &pos[i]);
      slowest = std::fmax(slowest, per_call);
    }
    for (int i = 0; i < NIMPL; i++) pos[i] = 0;
    double fit = batch_ns / slowest;
    int fcalls = fit >= calls ? calls : fit < 10 ? (calls < 10 ? calls : 10) : (int)fit;
    std::vector<double> t((size_t)(NIMPL * n));
    for (int r = 0; r < reps; r++)
      for (int k = 0; k < batches; k++)
        for (int i = 0; i < NIMPL; i++)
          t[(size_t)(i * n + r * batches + k)] = batch(b, kernels[i], fcalls, &pos[i]);
    std::printf("batch %s %s %d\n", b->def->name, f.name.c_str(), fcalls);
    double median[NIMPL];
    for (int i = 0; i < NIMPL; i++) {
      double *x = t.data() + (size_t)(i * n);
      std::qsort(x, (size_t)n, sizeof *x, cmp_double);
      median[i] = n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
      std::printf("time %s %s %s %.1f %.1f\n", b->def->name, f.name.c_str(), impl_name[i],
                  median[i], x[0]);
    }
    for (int i = IMPL_RT; i < NIMPL; i++)
      std::printf("ratio %s %s %s %.2f\n", b->def->name, f.name.c_str(), impl_name[i],
                  median[i] / median[IMPL_GEN]);
    std::fflush(stdout);
  }
}

void callgrind(Bench *b, std::vector<Func> &funcs, int calls) {
  char name[128];
  for (Func &f : funcs) {
    b->f = &f;
    for (int i = 0; i < NIMPL; i++) {
      unsigned pos = 0;
      batch(b, kernels[i], calls, &pos); /* warm-up: lazy binding */
      std::snprintf(name, sizeof name, "%s %s %s", b->def->name, f.name.c_str(), impl_name[i]);
      pos = 0;
      CALLGRIND_ZERO_STATS;
      batch(b, kernels[i], calls, &pos);
      CALLGRIND_DUMP_STATS_AT(name);
    }
  }
}

int usage() {
  std::fprintf(stderr, "usage: bench_loops [--smoke | --check | --callgrind N] [--reps R] "
                       "[--batches K] [--batch B] [--batch-ns T]\n");
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  int reps = 7, batches = 100, calls = 1000, mode_check = 0, cg_calls = 0;
  double batch_ns = 1e6;
  for (int k = 1; k < argc; k++) {
    const char *a = argv[k], *val = k + 1 < argc ? argv[k + 1] : NULL;
    if (std::strcmp(a, "--smoke") == 0)
      reps = 1, batches = 2, calls = 10;
    else if (std::strcmp(a, "--check") == 0)
      mode_check = 1;
    else if (std::strcmp(a, "--callgrind") == 0 && val)
      cg_calls = std::atoi(val), k++;
    else if (std::strcmp(a, "--reps") == 0 && val)
      reps = std::atoi(val), k++;
    else if (std::strcmp(a, "--batches") == 0 && val)
      batches = std::atoi(val), k++;
    else if (std::strcmp(a, "--batch") == 0 && val)
      calls = std::atoi(val), k++;
    else if (std::strcmp(a, "--batch-ns") == 0 && val)
      batch_ns = std::atof(val), k++;
    else
      return usage();
  }
  if (reps < 1 || batches < 1 || calls < 1 || cg_calls < 0 || !(batch_ns > 0)) return usage();
  const char *srcdir = std::getenv("MBDC_SOURCE_DIR");
  if (!srcdir) srcdir = BENCH_SOURCE_DIR;

  std::printf("# bench_loops: %d random assembled states per model (seed %llu); Simbody %s\n",
              NSTATES, SEED, "3.7");
  if (!mode_check && cg_calls == 0)
    std::printf("# timing: %d repetitions x %d batches per implementation and function, each of "
                "up to %d calls and about %.0f us of the slowest implementation\n",
                reps, batches, calls, batch_ns / 1e3);
  int failed = 0;
  for (const ModelDef &def : model_defs) {
    Bench bb = Bench(), *b = &bb;
    std::vector<Func> funcs;
    try {
      if (!open_model(b, &def, srcdir, funcs)) {
        failed++;
        mbt_loopmodel_free(&b->lm);
        continue;
      }
      std::printf("# model %s (%s): nq %d, nv %d, %d constraint rows, %d spring(s)\n", def.name,
                  def.path, b->nq, b->nv, b->nc, b->S->n);
      int bad = check(b, funcs);
      failed += bad;
      if (bad)
        std::printf("# %s: %d check(s) failed: not timing code that disagrees\n", def.name, bad);
      else if (cg_calls > 0)
        callgrind(b, funcs, cg_calls);
      else if (!mode_check)
        time_all(b, funcs, reps, batches, calls, batch_ns);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "%s: Simbody: %s\n", def.name, e.what());
      failed++;
    }
    funcs.clear();
    mbt_loopmodel_free(&b->lm);
  }
  if (cg_calls > 0) std::printf("callgrind %d calls per dump\n", cg_calls);
  return failed ? 1 : 0;
}
