/* flex_internal.h — what the flexible-body algorithms (flex*.c) share: the offsets of a body's
 * blocks, which mb_workspace_init keeps in ws->fo as exact integers. */
#ifndef MB_FLEX_INTERNAL_H
#define MB_FLEX_INTERNAL_H

#include "mb.h"

/* The most modes a body may have (the algorithms keep a body's (6 + nm)-vectors on the stack). */
#define MB_MAX_MODES 64

/* Offsets of body i: e = Σ_{j<i} nm_j (its η block in ws->fe, pe and, ×6, PC and Mc), e2 =
 * Σ_{j<i} nm_j² (its Me, K, D and ws->PE), ps = 6 Σ_{j<i} nm_{parent j} (its Ψ), fd (ws->FD). */
static inline int mbf_e(const mb_workspace *ws, int i) { return (int)ws->fo[4 * i]; }
static inline int mbf_e2(const mb_workspace *ws, int i) { return (int)ws->fo[4 * i + 1]; }
static inline int mbf_ps(const mb_workspace *ws, int i) { return (int)ws->fo[4 * i + 2]; }
static inline int mbf_fd(const mb_workspace *ws, int i) { return (int)ws->fo[4 * i + 3]; }

/* Joint dofs of body i, and the first of its modal coordinates in v. */
static inline int mbf_nj(const mb_model *m, int i) { return mb_joint_nv(m->jtype[i]); }
static inline int mbf_ie(const mb_model *m, int i) { return m->iv[i] + mb_joint_nv(m->jtype[i]); }

/* 1 if some body of m has modes: the algorithms then take the flexible route. */
static inline int mbf_on(const mb_model *m) { return m->flex && mb_flex_count(m, 0) > 0; }

/* vᵀ Q v for mode k of body i (0 without Q). */
double mbf_q_form(const mb_model *m, const mb_workspace *ws, int i, int k, const double v[6]);

/* Set ws->fo (mb_workspace_init). */
void mbf_offsets(const mb_model *m, mb_workspace *ws);
/* Validate m->flex (mb_model_check): sizes, finiteness, symmetry, a positive semidefinite modal
 * mass matrix [I, Mc; Mcᵀ, Me], K and D. 0, or -1 with the reason in msg. */
int mbf_check(const mb_model *m, char *msg, size_t msgsize);
/* out += Ψ_i x (x: nm_parent values; out: 6) and out += Ψ_iᵀ f (f: 6, out: nm_parent). */
void mbf_psi_mv(const mb_model *m, const mb_workspace *ws, int i, const double *x, double out[6]);
void mbf_psiT_fv(const mb_model *m, const mb_workspace *ws, int i, const double f[6], double *out);

/* A child i locked to its flexible parent p's section, A its inertia (6×6 row-major, composite
 * or articulated) in p's frame: PC_p += A Ψ_i, PE_p += Ψ_iᵀ A Ψ_i (ws->PC, ws->PE). */
void mbf_add_section(const mb_model *m, mb_workspace *ws, int i, const double A[36]);

/* The algorithms for models with flexible bodies (flex_rnea.c, flex_crba.c, flex_aba.c). */
int mbf_rnea(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
             const double *a, const double *fext, double *tau);
int mbf_crba(const mb_model *m, mb_workspace *ws, const double *q, double *M);
int mbf_aba(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
            const double *tau, const double *fext, double *qdd);
int mbf_minv(const mb_model *m, mb_workspace *ws, const double *q, double *Minv);

#endif
