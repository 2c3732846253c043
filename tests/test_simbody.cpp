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
 * checked first, so a wrong mapping shows as such, not as a wrong q̈.
 *
 * Prescribed motion (compare_prescribed): for each model's prescription cases (the joints of
 * named bodies; a tree's odd-, then even-numbered bodies' joints) Simbody gets a prescribed-u̇
 * Motion on those mobilizers (mbt_simbody.h). On NSTATES assembled states with random
 * prescribed q̈ (the same on both sides) and random τ on the free coordinates, each hybrid
 * source (mb_fd_loops_hybrid, the generated p_fd_loops_hybrid, for trees mb_hybrid) must give
 * Simbody's q̈, and on the prescribed coordinates its τ less its own spring forces must give
 * the Motions' forces (−findMotionForces; Simbody has no applied force there), each within
 * BOUND of the largest |Simbody value|. */
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
#ifdef MBT_HAVE_GEN_FIVE_BAR_H
#include "five_bar_h_dynamics.h"
#endif
#ifdef MBT_HAVE_GEN_QUARTER_CAR_H
#include "quarter_car_h_dynamics.h"
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

/* ------------------------------------------------------------------ the hybrid sources */

/* A source of hybrid dynamics: in[k] is the prescribed q̈_k where mask[k] = 1 and the applied
 * force τ_k where mask[k] = 0; it returns q̈ [nv] and, on the prescribed coordinates, the force
 * the prescription needs less the springs' share (its τ_k − τ_passive,k: what a Motion applies).
 * Every source adds its own spring forces to the free coordinates' τ (as QddFn's). */
typedef std::function<int(const double *q, const double *v, const int *mask, const double *in,
                          double *qdd, double *tau)>
    HybridFn;
struct HybridSource {
  std::string name;
  HybridFn fn;
};

/* The generated p_fd_loops_hybrid of matrix.txt's rows hybrid_five_bar and hybrid_quarter_car
 * (targets hybrid_five_bar_dynamics, hybrid_quarter_car_dynamics; simbody.cmake defines
 * MBT_HAVE_GEN_FIVE_BAR_H, MBT_HAVE_GEN_QUARTER_CAR_H). Neither library has passive_forces:
 * the springs come from quarter_car_dynamics' when it is linked, else from the runtime's. */
struct GeneratedHybrid {
  const char *model;
  const char *name;
  int nv;
  int (*fn)(const double *q, const double *v, const int *mask, const double *in, double *qdd,
            double *tau, double *lambda);
  void (*passive)(const double *q, const double *v, double *tau); /* NULL: the runtime's */
};
const GeneratedHybrid generated_hybrid[] = {
#ifdef MBT_HAVE_GEN_FIVE_BAR_H
    {"examples/five_bar.mbd", "five_bar_h_fd_loops_hybrid", FIVE_BAR_H_NV,
     five_bar_h_fd_loops_hybrid, NULL},
#endif
#ifdef MBT_HAVE_GEN_QUARTER_CAR_H
    {"examples/quarter_car.mbd", "quarter_car_h_fd_loops_hybrid", QUARTER_CAR_H_NV,
     quarter_car_h_fd_loops_hybrid,
#ifdef MBT_HAVE_GEN_QUARTER_CAR
     quarter_car_passive_forces},
#else
     NULL},
#endif
#endif
    {NULL, NULL, 0, NULL, NULL}};

/* in with the springs' forces added to its free entries (passive: the source's own, NULL: the
 * runtime's), then τ less them on the prescribed entries: around a hybrid solve. */
int with_springs(Runtime &rt, void (*passive)(const double *, const double *, double *),
                 const double *q, const double *v, const int *mask, const double *in,
                 double *tau, const std::function<int(const double *)> &solve) {
  int nv = rt.m->nv;
  std::vector<double> p((size_t)nv, 0.0), t((size_t)nv);
  if (passive) passive(q, v, p.data());
  else if (mb_passive_forces(rt.m, rt.S, &rt.ws, q, v, p.data()) != MB_OK) return -1;
  for (int k = 0; k < nv; k++) t[(size_t)k] = mask[k] ? in[k] : in[k] + p[(size_t)k];
  int rc = solve(t.data());
  for (int k = 0; k < nv; k++)
    if (mask[k]) tau[k] -= p[(size_t)k];
  return rc;
}

std::vector<HybridSource> hybrid_sources(Runtime &rt, const char *model) {
  std::vector<HybridSource> s;
  s.push_back({"mb_fd_loops_hybrid", [&rt](const double *q, const double *v, const int *mask,
                                           const double *in, double *qdd, double *tau) {
                 return with_springs(rt, NULL, q, v, mask, in, tau, [&](const double *t) {
                   return mb_fd_loops_hybrid(rt.m, rt.L, &rt.ws, &rt.lw, q, v, mask, t, qdd,
                                             tau, NULL);
                 });
               }});
  if (rt.L->nc == 0) /* a tree: the articulated-body hybrid dynamics too */
    s.push_back({"mb_hybrid", [&rt](const double *q, const double *v, const int *mask,
                                    const double *in, double *qdd, double *tau) {
                   return with_springs(rt, NULL, q, v, mask, in, tau, [&](const double *t) {
                     return mb_hybrid(rt.m, &rt.ws, q, v, mask, t, NULL, qdd, tau);
                   });
                 }});
  for (const GeneratedHybrid *g = generated_hybrid; g->model; g++) {
    if (std::string(model) != g->model) continue;
    if (g->nv != rt.m->nv) { /* a stale library: let the comparison fail by name */
      s.push_back({g->name, [](const double *, const double *, const int *, const double *,
                               double *, double *) { return -1; }});
      continue;
    }
    s.push_back({g->name, [&rt, g](const double *q, const double *v, const int *mask,
                                   const double *in, double *qdd, double *tau) {
                   return with_springs(rt, g->passive, q, v, mask, in, tau,
                                       [&](const double *t) {
                                         std::vector<double> lambda((size_t)rt.L->nc + 1);
                                         return g->fn(q, v, mask, t, qdd, tau, lambda.data());
                                       });
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

/* A random assembled state: a random step from lm.q0 projected with mb_project_q, a random v
 * projected with mb_project_v, a random τ. 0, or 1 when 100 tries fail. */
int assembled_state(const mbt_loopmodel &lm, Runtime &rt, unsigned long long *seed, double *q,
                    double *v, double *tau) {
  const mb_model *m = lm.model;
  const mb_loops *L = lm.loops;
  int nv = m->nv;
  std::vector<double> dv((size_t)nv);
  for (int tries = 0; tries <= 100; tries++) {
    double step = L->nc > 0 ? 0.4 : 2.0;
    for (int k = 0; k < nv; k++) dv[(size_t)k] = uniform(seed, -step, step);
    if (mb_integrate(m, lm.q0, dv.data(), 1.0, q)) continue;
    if (L->nc > 0 && mb_project_q(m, L, &rt.ws, &rt.lw, q)) continue;
    for (int k = 0; k < nv; k++) v[k] = uniform(seed, -1, 1), tau[k] = uniform(seed, -2, 2);
    if (L->nc > 0 && mb_project_v(m, L, &rt.ws, &rt.lw, q, v)) continue;
    return 0;
  }
  return 1;
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
  std::vector<double> q(nq), v(nv), tau(nv), ref(nv), out(nv), pose(12 * (m->nb + 1));
  std::vector<double> worst(src.size(), 0.0);
  double worst_pose = 0, worst_qerr = 0;
  unsigned long long seed = 20260521u;
  for (int n = 0; n < NSTATES; n++) {
    if (assembled_state(lm, rt, &seed, q.data(), v.data(), tau.data())) {
      std::fprintf(stderr, "%s: no assembled state found\n", path);
      mbt_loopmodel_free(&lm);
      return 1;
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

/* The velocity coordinates of the joints carrying the named bodies (space-separated), or with
 * "odd" ("even") those of the odd- (even-) numbered bodies, flagged in mask. 0, or 1 for an
 * unknown body. */
int prescription(const mbt_loopmodel &lm, const char *bodies, std::vector<int> &mask) {
  const mb_model *m = lm.model;
  mask.assign((size_t)m->nv, 0);
  std::vector<int> which;
  bool odd = std::string(bodies) == "odd", even = std::string(bodies) == "even";
  for (int i = odd ? 1 : 2; (odd || even) && i <= m->nb; i += 2) which.push_back(i);
  for (const char *p = bodies; !odd && !even && *p;) {
    const char *e = p;
    while (*e && *e != ' ') e++;
    int i = mbt_loopmodel_body(&lm, std::string(p, (size_t)(e - p)).c_str());
    if (i < 1) return 1;
    which.push_back(i);
    p = *e ? e + 1 : e;
  }
  for (int i : which)
    for (int k = 0; k < mb_joint_nv(m->jtype[i]); k++) mask[(size_t)(m->iv[i] + k)] = 1;
  return 0;
}

/* One model with the joints of `bodies` prescribed: 0 if every hybrid source agrees with
 * Simbody's q̈ and Motion forces within BOUND. worst_out: [0] q̈, [1] forces. */
int compare_prescribed(const char *path, const char *name, const char *bodies,
                       double *worst_out) {
  mbt_loopmodel lm;
  if (mbt_loopmodel_load(path, &lm)) return std::fprintf(stderr, "%s: cannot load\n", path), 1;
  const mb_model *m = lm.model;
  const mb_loops *L = lm.loops;
  int nq = m->nq, nv = m->nv, failures = 0;
  std::vector<int> mask;
  if (prescription(lm, bodies, mask)) {
    std::fprintf(stderr, "%s: no body among \"%s\"\n", name, bodies);
    mbt_loopmodel_free(&lm);
    return 1;
  }
  MbtSimbody sb(m, L, lm.springs, mask.data());
  if (!sb.unsupported().empty()) {
    std::printf("%-30s prescribed %s: skipped: %s\n", name, bodies, sb.unsupported().c_str());
    mbt_loopmodel_free(&lm);
    return 0;
  }
  Runtime rt(m, L, lm.springs);
  std::vector<HybridSource> src = hybrid_sources(rt, name);
  std::vector<double> q(nq), v(nv), tau(nv), in(nv), tsb(nv), ref(nv), fref(nv), out(nv),
      fout(nv), pq(nv), pf(nv);
  std::vector<double> worst_q(src.size(), 0.0), worst_f(src.size(), 0.0);
  double worst_presc = 0;
  int np = 0;
  for (int k = 0; k < nv; k++) np += mask[(size_t)k];
  unsigned long long seed = 20260607u;
  for (int n = 0; n < NSTATES; n++) {
    if (assembled_state(lm, rt, &seed, q.data(), v.data(), tau.data())) {
      std::fprintf(stderr, "%s: no assembled state found\n", path);
      mbt_loopmodel_free(&lm);
      return 1;
    }
    /* in: the prescribed q̈ (arbitrary, rad/s² or m/s²) or the applied τ; Simbody has no
     * applied force on a prescribed coordinate, so its Motion's force is the whole actuation */
    for (int k = 0; k < nv; k++) {
      in[k] = mask[(size_t)k] ? uniform(&seed, -2, 2) : tau[k];
      tsb[k] = mask[(size_t)k] ? 0.0 : tau[k];
    }
    sb.prescribe(q.data(), v.data(), in.data());
    sb.set(q.data(), v.data(), tsb.data());
    sb.qdd(q.data(), v.data(), ref.data());
    sb.motion_forces(q.data(), fref.data());
    for (int k = 0; k < nv; k++)
      if (mask[(size_t)k])
        worst_presc = std::fmax(worst_presc, std::fabs(ref[k] - in[k]) /
                                                 std::fmax(1.0, std::fabs(in[k])));
    int j = 0;
    for (int k = 0; k < nv; k++)
      if (mask[(size_t)k]) pf[(size_t)j++] = fref[k];
    for (size_t s = 0; s < src.size(); s++) {
      if (src[s].fn(q.data(), v.data(), mask.data(), in.data(), out.data(), fout.data()) != 0) {
        std::fprintf(stderr, "%s: %s failed at state %d\n", path, src[s].name.c_str(), n);
        failures++;
        continue;
      }
      worst_q[s] = std::fmax(worst_q[s], rel_error(out.data(), ref.data(), nv));
      j = 0;
      for (int k = 0; k < nv; k++)
        if (mask[(size_t)k]) pq[(size_t)j++] = fout[k];
      worst_f[s] = std::fmax(worst_f[s], rel_error(pq.data(), pf.data(), np));
    }
  }
  std::printf("%-30s prescribed %s (%d of %d): Simbody's q̈_P %.1e", name, bodies, np, nv,
              worst_presc);
  if (!(worst_presc <= BOUND)) failures++;
  for (size_t s = 0; s < src.size(); s++) {
    std::printf(", %s q̈ %.1e τ_P %.1e", src[s].name.c_str(), worst_q[s], worst_f[s]);
    if (!(worst_q[s] <= BOUND) || !(worst_f[s] <= BOUND)) failures++;
    worst_out[0] = std::fmax(worst_out[0], worst_q[s]);
    worst_out[1] = std::fmax(worst_out[1], worst_f[s]);
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
  /* The prescription cases: the joints of the named bodies (the loops' free coordinates must
   * be able to close them: not, e.g., the quarter car's spherical lca_front, whose loop rows
   * the lower arm alone carries); for a tree "odd" and "even", the joints of its odd- and
   * even-numbered bodies (the floating bases of quadruped and space_robot prescribed, then
   * free with some joints prescribed; gimbal's helical nut, then its Ball). */
  static const struct {
    const char *name;
    int nc;
    const char *prescribed[3];
  } models[] = {
      /* closed loops */
      {"examples/five_bar.mbd", 2, {"bar1", "bar4", "bar1 bar4"}},
      {"examples/quarter_car.mbd", 8, {"uca", "wheel", "uca wheel"}},
      {"tests/models/rssr.mbd", 3, {"crank", "rocker", NULL}},
      {"tests/models/loop_kinds.mbd", 11, {"arm slider nut", "crank", NULL}},
      /* trees: the mapping of joints, frames, inertias and coordinates alone */
      {"examples/double_pendulum.mbd", 0, {"odd", "even", NULL}},
      {"examples/cart_pole.mbd", 0, {"odd", "even", NULL}},
      {"examples/arm7.mbd", 0, {"odd", "even", NULL}},
      {"examples/gimbal.mbd", 0, {"odd", "even", NULL}},
      {"examples/quadruped.mbd", 0, {"odd", "even", NULL}},
      {"examples/space_robot.mbd", 0, {"odd", "even", NULL}}};
  int failures = 0;
  double worst = 0, worst_h[2] = {0, 0};
  for (const auto &model : models) {
    std::string path = std::string(src) + "/" + model.name;
    try {
      failures += compare(path.c_str(), model.name, model.nc, &worst);
      for (const char *bodies : model.prescribed)
        if (bodies) failures += compare_prescribed(path.c_str(), model.name, bodies, worst_h);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "%s: Simbody: %s\n", model.name, e.what());
      failures++;
    }
  }
  std::printf("worst q̈ relative error %.1e; prescribed: q̈ %.1e, τ_P %.1e (bound %.0e); "
              "%d failure(s)\n", worst, worst_h[0], worst_h[1], BOUND, failures);
  return failures ? 1 : 0;
}
