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
 * The command line, the measurement and the output lines are bench_harness.h's, each line's label
 * "MODEL FUNC", one function measured after the other (callgrind dumps "MODEL FUNC IMPL", for
 * bench/loops.sh), and:
 *   check MODEL FUNC IMPL REL_ERR bound B   worst max|x − Simbody| / max|Simbody| over the states
 *                                       (q̈ in our coordinates; simbody_dyn: its U̇ against simbody's)
 * (instr lines come from bench/loops.sh, not from here). */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_harness.h"
#include "mbt_loopmodel.h"
#include "mbt_simbody.h"

#include "five_bar_dynamics.h"
#include "quarter_car_dynamics.h"

using namespace SimTK;

namespace {

const int NSTATES = BENCH_NSTATES;
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

/* One function of one model: its Simbody mechanism and its states in Simbody's coordinates. */
struct Func {
  std::string name;
  bool springs;
  std::unique_ptr<MbtSimbody> sb;
  std::vector<Vector> Q, U, F; /* per state */
  std::vector<State> pre;      /* per state, realized through Velocity (simbody_dyn) */
};

} // namespace

struct bench {
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

namespace {

#define Q(s) (b->q.data() + (size_t)(s) * (size_t)b->nq)
#define V(s) (b->v.data() + (size_t)(s) * (size_t)b->nv)
#define TAU(s) (b->tau.data() + (size_t)(s) * (size_t)b->nv)
#define NOINLINE __attribute__((noinline))

/* ------------------------------------------------------------------------- the timed calls */
NOINLINE void gen_k(bench *b, int s) {
  const double *tau = TAU(s);
  if (b->f->springs) {
    b->def->passive(Q(s), V(s), b->t.data());
    for (int k = 0; k < b->nv; k++) b->t[(size_t)k] += tau[k];
    tau = b->t.data();
  }
  b->rc += b->def->fd_loops(Q(s), V(s), tau, b->out.data(), b->lambda.data());
}

NOINLINE void rt_k(bench *b, int s) {
  const double *tau = TAU(s);
  if (b->f->springs) {
    b->rc += mb_passive_forces(b->m, b->S, &b->ws, Q(s), V(s), b->t.data());
    for (int k = 0; k < b->nv; k++) b->t[(size_t)k] += tau[k];
    tau = b->t.data();
  }
  b->rc += mb_fd_loops(b->m, b->L, &b->ws, &b->lw, Q(s), V(s), tau, b->out.data(),
                       b->lambda.data());
}

NOINLINE void sb_k(bench *b, int s) {
  Func *f = b->f;
  State &st = f->sb->state();
  st.updQ() = f->Q[(size_t)s];
  st.updU() = f->U[(size_t)s];
  f->sb->discrete().setAllMobilityForces(st, f->F[(size_t)s]);
  f->sb->system().realize(st, Stage::Acceleration);
  const Vector &ud = st.getUDot();
  for (int k = 0; k < ud.size(); k++) b->out[(size_t)k] = ud[k];
}

NOINLINE void sb_dyn_k(bench *b, int s) {
  State &st = b->f->pre[(size_t)s];
  b->f->sb->discrete().setAllMobilityForces(st, b->f->F[(size_t)s]); /* invalidates Dynamics */
  b->f->sb->system().realize(st, Stage::Acceleration);
  const Vector &ud = st.getUDot();
  for (int k = 0; k < ud.size(); k++) b->out[(size_t)k] = ud[k];
}

enum { IMPL_GEN, IMPL_RT, IMPL_SB, IMPL_SB_DYN, NIMPL };
const char *const impl_name[NIMPL] = {"generated", "runtime", "simbody", "simbody_dyn"};
const bench_kernel kernels[NIMPL] = {gen_k, rt_k, sb_k, sb_dyn_k};

/* ------------------------------------------------------------------------- setup */

/* The model, its states and its functions; false (and a message) on failure. */
bool open_model(bench *b, const ModelDef *def, const char *srcdir, std::vector<Func> &funcs) {
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
  unsigned long long seed = BENCH_SEED;
  for (int s = 0; s < NSTATES; s++) {
    for (int tries = 0;; tries++) {
      if (tries > 100) return std::fprintf(stderr, "%s: no assembled state\n", def->name), false;
      for (int k = 0; k < b->nv; k++) dv[(size_t)k] = bench_uniform(&seed, -0.4, 0.4);
      if (mb_integrate(b->m, b->lm.q0, dv.data(), 1.0, Q(s))) continue;
      if (mb_project_q(b->m, b->L, &b->ws, &b->lw, Q(s))) continue;
      for (int k = 0; k < b->nv; k++) V(s)[k] = bench_uniform(&seed, -1, 1);
      for (int k = 0; k < b->nv; k++) TAU(s)[k] = bench_uniform(&seed, -2, 2);
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
int check(bench *b, std::vector<Func> &funcs) {
  int failed = 0;
  size_t nu = 0;
  std::string label;
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
          e = bench_rel_err(u.data(), uref.data(), (int)nu);
        } else {
          e = b->rc != 0 ? NAN : bench_rel_err(b->out.data(), ref.data(), b->nv);
        }
        if (!(e <= worst[i])) worst[i] = e;
      }
    }
    label = std::string(b->def->name) + " " + f.name;
    for (int i = 0; i < NIMPL; i++)
      if (i != IMPL_SB) failed += bench_check(label.c_str(), impl_name[i], worst[i], TOL);
  }
  return failed;
}

/* ------------------------------------------------------------------------- measurement */

/* One function after the other (the kernels read b->f); header: the mode's line first. */
void measure(bench *b, std::vector<Func> &funcs, const bench_options *o, bool header) {
  for (Func &f : funcs) {
    b->f = &f;
    std::string label = std::string(b->def->name) + " " + f.name;
    bench_func func = {label.c_str(), NIMPL, kernels};
    bench_measure(b, &func, 1, impl_name, o, header);
    header = false;
  }
}

} // namespace

int main(int argc, char **argv) {
  bench_options o;
  if (bench_parse_options(argc, argv, &o, NULL, NULL) != 0)
    return bench_usage("bench_loops", "", "");
  const char *srcdir = std::getenv("MBDC_SOURCE_DIR");
  if (!srcdir) srcdir = BENCH_SOURCE_DIR;

  std::printf("# bench_loops: %d random assembled states per model (seed %u); Simbody %s\n",
              NSTATES, BENCH_SEED, "3.7");
  bool header = true;
  int failed = 0;
  for (const ModelDef &def : model_defs) {
    bench bb = bench(), *b = &bb;
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
      if (bad) {
        std::printf("# %s: %d check(s) failed: not timing code that disagrees\n", def.name, bad);
      } else {
        measure(b, funcs, &o, header);
        header = false;
      }
    } catch (const std::exception &e) {
      std::fprintf(stderr, "%s: Simbody: %s\n", def.name, e.what());
      failed++;
    }
    funcs.clear();
    mbt_loopmodel_free(&b->lm);
  }
  return failed ? 1 : 0;
}
