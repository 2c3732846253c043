/* gen_coupled.h — the generated functions of a model with coupled (mimic) joints (docs/dsl.md
 * "Coupled joints"). Every function takes and returns the independent coordinates; its recipe
 * runs in the full ones, through the index maps of lua/lua_sym.h:
 *   FOLD   inputs expanded (x = G x_ind + o), force outputs folded by Gᵀ, Jacobians by G, inertia
 *          and derivative matrices as Gᵀ A G (rnea, crba, the kinematics, centroidal, ...);
 *   PICK   inputs expanded, configurations and velocities picked (integrate, difference), and
 *          their Jacobians' independent rows and columns (integrate_jacobians, ...);
 *   SOLVE  q and v expanded, the rest in the independent coordinates: the recipe folds M and h
 *          and solves (aba, aba_ext, crba_fd, minv: templates/lib/coupled.lua).
 * The others are not generated yet for such a model (a note, or an error when asked for). */
#ifndef MBG_GEN_COUPLED_H
#define MBG_GEN_COUPLED_H

#include "emit/gen.h"

typedef enum mbg_coupled_kind {
  MBG_COUPLED_NONE,
  MBG_COUPLED_FOLD,
  MBG_COUPLED_PICK,
  MBG_COUPLED_SOLVE
} mbg_coupled_kind;

/* The kind of built-in function `name`, or of a --fuse NAME whose parts are all of one kind (NONE
 * for one not generated with coupled joints, for a --fuse of mixed kinds, and for a name that is
 * neither). */
mbg_coupled_kind mbg_gen_coupled_kind(const mbg_gen *g, const char *name);
/* The map of a parameter of `role` in a function of `kind`; its full (recipe's) size in *full. */
mbg_lsym_map mbg_gen_coupled_map(const mbg_gen *g, mbg_coupled_kind kind, const char *role,
                                 int size, int *full);
/* g->cpl from the topology (a no-op without coupled joints). */
void mbg_gen_coupled_init(mbg_gen *g);

#endif
