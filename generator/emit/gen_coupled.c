/* gen_coupled.c — coupled (mimic) coordinates in the generated functions (gen_coupled.h). */
#include "emit/gen_coupled.h"

#include <string.h>

static const struct {
  const char *name;
  mbg_coupled_kind kind;
} kinds[] = {
    {"rnea", MBG_COUPLED_FOLD},
    {"rnea_ext", MBG_COUPLED_FOLD},
    {"nle", MBG_COUPLED_FOLD},
    {"nle_ext", MBG_COUPLED_FOLD},
    {"gravity", MBG_COUPLED_FOLD},
    {"crba", MBG_COUPLED_FOLD},
    {"joint_wrenches", MBG_COUPLED_FOLD},
    {"fk", MBG_COUPLED_FOLD},
    {"frame_pose", MBG_COUPLED_FOLD},
    {"frame_jacobian", MBG_COUPLED_FOLD},
    {"frame_jacobian_world", MBG_COUPLED_FOLD},
    {"frame_velocity", MBG_COUPLED_FOLD},
    {"frame_acceleration_bias", MBG_COUPLED_FOLD},
    /* columns times G: the q-tangent of a coupled scalar coordinate is G's column, as v's */
    {"frame_velocity_derivatives", MBG_COUPLED_FOLD},
    {"frame_velocity_derivatives_local", MBG_COUPLED_FOLD},
    {"frame_acceleration_derivatives", MBG_COUPLED_FOLD},
    {"frame_acceleration_derivatives_local", MBG_COUPLED_FOLD},
    {"com", MBG_COUPLED_FOLD},
    {"com_jacobian", MBG_COUPLED_FOLD},
    {"energy", MBG_COUPLED_FOLD},
    {"centroidal_momentum", MBG_COUPLED_FOLD},
    {"ccrba", MBG_COUPLED_FOLD},
    {"centroidal_bias", MBG_COUPLED_FOLD},
    {"passive_forces", MBG_COUPLED_FOLD},
    {"rnea_derivatives", MBG_COUPLED_FOLD},
    {"regressor", MBG_COUPLED_FOLD},
    {"energy_regressor", MBG_COUPLED_FOLD},
    {"trig", MBG_COUPLED_FOLD},
    {"integrate", MBG_COUPLED_PICK},
    {"difference", MBG_COUPLED_PICK},
    {"integrate_jacobians", MBG_COUPLED_PICK}, /* the independent joints' blocks */
    {"difference_jacobians", MBG_COUPLED_PICK},
    {"aba", MBG_COUPLED_SOLVE},
    {"aba_ext", MBG_COUPLED_SOLVE},
    {"crba_fd", MBG_COUPLED_SOLVE},
    {"minv", MBG_COUPLED_SOLVE},
    {"aba_derivatives", MBG_COUPLED_SOLVE},
    {"contact_fd", MBG_COUPLED_SOLVE},
    {"contact_fd_reg", MBG_COUPLED_SOLVE},
    {"impulse", MBG_COUPLED_SOLVE},
};

static mbg_coupled_kind kind_of(const char *name, size_t len) {
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    if (strlen(kinds[k].name) == len && strncmp(kinds[k].name, name, len) == 0)
      return kinds[k].kind;
  return MBG_COUPLED_NONE;
}

mbg_coupled_kind mbg_gen_coupled_kind(const mbg_gen *g, const char *name) {
  mbg_coupled_kind kind = kind_of(name, strlen(name));
  if (kind != MBG_COUPLED_NONE || !g) return kind;
  /* a --fuse NAME=f1,f2,...: its parts' kind when they all have the same (one function maps its
   * arrays one way) */
  for (int k = 0; k < g->opts->nfuse; k++) {
    const char *o = g->opts->fuse[k], *eq = strchr(o, '=');
    if (!eq || (size_t)(eq - o) != strlen(name) || strncmp(o, name, strlen(name)) != 0) continue;
    mbg_coupled_kind all = MBG_COUPLED_NONE;
    for (const char *p = eq + 1; *p;) {
      size_t len = strcspn(p, ",");
      mbg_coupled_kind part = kind_of(p, len);
      if (part == MBG_COUPLED_NONE || (all != MBG_COUPLED_NONE && part != all))
        return MBG_COUPLED_NONE;
      all = part;
      p += len + (p[len] == ',');
    }
    return all;
  }
  return MBG_COUPLED_NONE;
}

mbg_lsym_map mbg_gen_coupled_map(const mbg_gen *g, mbg_coupled_kind kind, const char *role,
                                 int size, int *full) {
  const mbg_topology *t = g->topo;
  int nv = t->nv, ni = t->nv_ind;
  *full = size;
  if (!t->ncoupled || kind == MBG_COUPLED_NONE) return MBG_MAP_NONE;
  int in_q = !strcmp(role, "q") || !strcmp(role, "q2");
  int in_v = !strcmp(role, "v") || !strcmp(role, "a");
  if (in_q) return *full = t->nq, MBG_MAP_Q;
  if (in_v) return *full = nv, MBG_MAP_V;
  if (kind == MBG_COUPLED_SOLVE) return MBG_MAP_NONE; /* tau, qdd, Minv: independent */
  if (kind == MBG_COUPLED_PICK) {
    if (!strcmp(role, "out_nq")) return *full = t->nq, MBG_MAP_PICK_Q;
    if (!strcmp(role, "out_nv")) return *full = nv, MBG_MAP_PICK_V;
    /* the Jacobians of integrate and difference: a coupled joint is scalar (its block 1, dt or
     * ±1, zero elsewhere), so the independent coordinates' Jacobian is the full one's rows and
     * columns of the independent coordinates */
    if (!strcmp(role, "out_nvnv")) return *full = nv * nv, MBG_MAP_PICK_VV;
    return MBG_MAP_NONE;
  }
  if (!strcmp(role, "out_nvnv")) return *full = nv * nv, MBG_MAP_BOTH;
  if (!strcmp(role, "out_nvreg")) return *full = size / ni * nv, MBG_MAP_ROWS;
  if (!strcmp(role, "out_nv") || !strcmp(role, "out_fjac") || !strcmp(role, "out_3nv") ||
      !strcmp(role, "out_6nv") || !strcmp(role, "out_ncnv"))
    return *full = size / ni * nv, MBG_MAP_COLS;
  return MBG_MAP_NONE;
}

void mbg_gen_coupled_init(mbg_gen *g) {
  const mbg_topology *t = g->topo;
  memset(&g->cpl, 0, sizeof g->cpl);
  if (!t->ncoupled) return;
  g->cpl = (mbg_lsym_coupling){t->nq, t->nv, t->nq_ind, t->nv_ind, t->q_of, t->v_of,
                               t->q_mult, t->q_off, t->v_mult, t->q_coupled, t->v_coupled};
}
