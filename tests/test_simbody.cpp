/* test_simbody.cpp — closed-loop forward dynamics against Simbody 3.7 (Debian's libsimbody-dev),
 * an implementation no one here wrote (docs/loops_simbody.md).
 *
 * Every model is built in Simbody GENERICALLY from the runtime's mb_model, mb_loops (the kept
 * rows of mbdc check) and mb_springs by tests/mbt_simbody.cpp (the mapping and the coordinates
 * are described in mbt_simbody.h), so any .mbd file can be added to the list below.
 *
 * On NSTATES random assembled states (a random step from the assembled configuration of mbdc
 * check, mb_project_q; random v, mb_project_v; random τ) each q̈ source below is compared with
 * Simbody's (realize(Stage::Acceleration), getUDotAsVector): max |ours − Simbody| / max |Simbody|
 * must stay below 1e-9. The body poses (mb_fk) and the constraint errors (Simbody's qErr) are
 * checked first, so a wrong mapping shows as such, not as a wrong q̈. */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mbt_loopmodel.h"
#include "mbt_simbody.h"
#ifdef MBT_HAVE_GEN_FIVE_BAR
#include "five_bar_dynamics.h"
#endif
#ifdef MBT_HAVE_GEN_QUARTER_CAR
#include "quarter_car_dynamics.h"
#endif

using namespace SimTK;

namespace {

const int NSTATES = 50;
const double BOUND = 1e-9;     /* q̈, relative to the largest |q̈| */
const double POSE_BOUND = 1e-12; /* poses, absolute (metres, rotation entries) */
const double QERR_BOUND = 1e-9;  /* Simbody's constraint errors at our assembled states */

/* ------------------------------------------------------------------ the q̈ sources compared */

/* A source of constrained q̈ for the model being tested: returns 0 on success. τ is the applied
 * force; every source adds its model's spring forces to it (its own implementation of them:
 * mb_passive_forces, the generated p_passive_forces), as Simbody has the springs as force
 * elements. To compare another implementation, add one entry to sources() below. */
typedef std::function<int(const double *q, const double *v, const double *tau, double *qdd)>
    QddFn;
struct Source {
  std::string name;
  QddFn fn;
};

/* The runtime's model and workspaces for one model. */
struct Runtime {
  const mb_model *m;
  const mb_loops *L;
  const mb_springs *S;
  std::vector<double> wbuf, lbuf, tau; /* tau: applied + passive */
  mb_workspace ws = {};
  mb_loop_workspace lw = {};
  Runtime(const mb_model *m_, const mb_loops *L_, const mb_springs *S_) : m(m_), L(L_), S(S_) {
    wbuf.resize(mb_workspace_size(m) / sizeof(double) + 1);
    lbuf.resize(mb_loop_workspace_size(m, L) / sizeof(double) + 1);
    tau.resize((size_t)m->nv + 1);
    mb_workspace_init(&ws, m, wbuf.data());
    mb_loop_workspace_init(&lw, m, L, lbuf.data());
  }
};

/* The generated p_fd_loops (and p_passive_forces) of the examples built by tests/generated.cmake
 * (targets five_bar_dynamics, quarter_car_dynamics; simbody.cmake defines MBT_HAVE_GEN_<STEM>
 * for those that exist). */
struct Generated {
  const char *model; /* as listed in main() */
  const char *name;
  int nv;
  int (*fd_loops)(const double *q, const double *v, const double *tau, double *qdd,
                  double *lambda);
  void (*passive)(const double *q, const double *v, double *tau); /* NULL: no springs */
};
const Generated generated[] = {
#ifdef MBT_HAVE_GEN_FIVE_BAR
    {"examples/five_bar.mbd", "five_bar_fd_loops", FIVE_BAR_NV, five_bar_fd_loops, NULL},
#endif
#ifdef MBT_HAVE_GEN_QUARTER_CAR
    {"examples/quarter_car.mbd", "quarter_car_fd_loops", QUARTER_CAR_NV, quarter_car_fd_loops,
     quarter_car_passive_forces},
#endif
    {NULL, NULL, 0, NULL, NULL}};

std::vector<Source> sources(Runtime &rt, const char *model) {
  std::vector<Source> s;
  s.push_back({"mb_fd_loops", [&rt](const double *q, const double *v, const double *tau,
                                     double *qdd) {
                 if (mb_passive_forces(rt.m, rt.S, &rt.ws, q, v, rt.tau.data()) != MB_OK) return -1;
                 for (int k = 0; k < rt.m->nv; k++) rt.tau[(size_t)k] += tau[k];
                 return mb_fd_loops(rt.m, rt.L, &rt.ws, &rt.lw, q, v, rt.tau.data(), qdd, NULL);
               }});
  for (const Generated *g = generated; g->model; g++) {
    if (std::string(model) != g->model) continue;
    if (g->nv != rt.m->nv) { /* a stale library: let the comparison fail by name */
      s.push_back({g->name, [](const double *, const double *, const double *, double *) {
                     return -1;
                   }});
      continue;
    }
    s.push_back({g->name, [g](const double *q, const double *v, const double *tau, double *qdd) {
                   std::vector<double> t((size_t)g->nv, 0.0), lambda((size_t)g->nv);
                   if (g->passive) g->passive(q, v, t.data());
                   for (int k = 0; k < g->nv; k++) t[(size_t)k] += tau[k];
                   return g->fd_loops(q, v, t.data(), qdd, lambda.data());
                 }});
  }
  return s;
}

/* ------------------------------------------------------------------ the comparison */

double uniform(unsigned long long *s, double lo, double hi) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return lo + (hi - lo) * (double)((*s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

double rel_error(const double *ours, const double *ref, int n) {
  double err = 0, scale = 0;
  for (int k = 0; k < n; k++) {
    double e = std::fabs(ours[k] - ref[k]);
    if (!(e <= err)) err = e;
    scale = std::fmax(scale, std::fabs(ref[k]));
  }
  return scale > 0 ? err / scale : err;
}

/* One model: 0 if every source agrees with Simbody within BOUND. */
int compare(const char *path, const char *name, int nc, double *worst_out) {
  mbt_loopmodel lm;
  if (mbt_loopmodel_load(path, &lm)) return std::fprintf(stderr, "%s: cannot load\n", path), 1;
  const mb_model *m = lm.model;
  const mb_loops *L = lm.loops;
  int nq = m->nq, nv = m->nv, failures = 0;
  if (L->nc != nc) {
    std::fprintf(stderr, "%s: %d rows kept, expected %d\n", name, L->nc, nc);
    mbt_loopmodel_free(&lm);
    return 1;
  }
  MbtSimbody sb(m, L, lm.springs);
  if (!sb.unsupported().empty()) {
    std::printf("%-30s skipped: %s\n", name, sb.unsupported().c_str());
    mbt_loopmodel_free(&lm);
    return 0;
  }
  if (sb.nmultipliers() != L->nc) {
    std::fprintf(stderr, "%s: Simbody has %d constraint equations, the kept rows are %d\n", path,
                 sb.nmultipliers(), L->nc);
    mbt_loopmodel_free(&lm);
    return 1;
  }
  Runtime rt(m, L, lm.springs);
  std::vector<Source> src = sources(rt, name);
  std::vector<double> q(nq), v(nv), dv(nv), tau(nv), ref(nv), out(nv), pose(12 * (m->nb + 1));
  std::vector<double> worst(src.size(), 0.0);
  double worst_pose = 0, worst_qerr = 0;
  unsigned long long seed = 20260521u;
  for (int n = 0; n < NSTATES; n++) {
    int tries = 0;
    for (;; tries++) {
      if (tries > 100) {
        std::fprintf(stderr, "%s: no assembled state found\n", path);
        mbt_loopmodel_free(&lm);
        return 1;
      }
      double step = L->nc > 0 ? 0.4 : 2.0;
      for (int k = 0; k < nv; k++) dv[k] = uniform(&seed, -step, step);
      if (mb_integrate(m, lm.q0, dv.data(), 1.0, q.data())) continue;
      if (L->nc > 0 && mb_project_q(m, L, &rt.ws, &rt.lw, q.data())) continue;
      for (int k = 0; k < nv; k++) v[k] = uniform(&seed, -1, 1), tau[k] = uniform(&seed, -2, 2);
      if (L->nc > 0 && mb_project_v(m, L, &rt.ws, &rt.lw, q.data(), v.data())) continue;
      break;
    }
    sb.set(q.data(), v.data(), tau.data());
    sb.qdd(q.data(), v.data(), ref.data());
    mb_fk(m, &rt.ws, q.data(), pose.data());
    worst_pose = std::fmax(worst_pose, sb.pose_error(pose.data()));
    worst_qerr = std::fmax(worst_qerr, sb.qerr());
    for (size_t s = 0; s < src.size(); s++) {
      if (src[s].fn(q.data(), v.data(), tau.data(), out.data()) != 0) {
        std::fprintf(stderr, "%s: %s failed at state %d\n", path, src[s].name.c_str(), n);
        failures++;
        continue;
      }
      worst[s] = std::fmax(worst[s], rel_error(out.data(), ref.data(), nv));
    }
  }
  std::printf("%-30s nv %2d, rows %2d of %2d: poses %.1e, Simbody qErr %.1e", name, nv, L->nc,
              lm.nrows, worst_pose, worst_qerr);
  if (!(worst_pose <= POSE_BOUND)) failures++;
  if (!(worst_qerr <= QERR_BOUND)) failures++;
  for (size_t s = 0; s < src.size(); s++) {
    std::printf(", %s %.1e", src[s].name.c_str(), worst[s]);
    if (!(worst[s] <= BOUND)) failures++;
    *worst_out = std::fmax(*worst_out, worst[s]);
  }
  std::printf("%s\n", failures ? "  FAIL" : "");
  mbt_loopmodel_free(&lm);
  return failures ? 1 : 0;
}

} // namespace

int main() {
  const char *src = std::getenv("MBDC_SOURCE_DIR");
  if (!src) return std::fprintf(stderr, "MBDC_SOURCE_DIR not set\n"), 1;
  /* Each model with the number of rows mbdc check keeps (the quarter car's rear bushing row
   * along the bushing axis vanishes identically: 8 of 9). */
  static const struct {
    const char *name;
    int nc;
  } models[] = {
      /* closed loops */
      {"examples/five_bar.mbd", 2},
      {"examples/quarter_car.mbd", 8},
      {"tests/models/rssr.mbd", 3},
      {"tests/models/loop_kinds.mbd", 11},
      /* trees: the mapping of joints, frames, inertias and coordinates alone */
      {"examples/double_pendulum.mbd", 0},
      {"examples/cart_pole.mbd", 0},
      {"examples/arm7.mbd", 0},
      {"examples/gimbal.mbd", 0},
      {"examples/quadruped.mbd", 0},
      {"examples/space_robot.mbd", 0}};
  int failures = 0;
  double worst = 0;
  for (const auto &model : models) {
    std::string path = std::string(src) + "/" + model.name;
    try {
      failures += compare(path.c_str(), model.name, model.nc, &worst);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "%s: Simbody: %s\n", model.name, e.what());
      failures++;
    }
  }
  std::printf("worst q̈ relative error %.1e (bound %.0e); %d failure(s)\n", worst, BOUND, failures);
  return failures ? 1 : 0;
}
