/* gen_roles.h — the parameter roles of a recipe (docs/templates.md): for each role, whether the
 * array is an output, how it is passed, what its size counts (gen_recipe.c makes it a number for
 * the model) and the size as the header writes it in the model's macros. One table for the
 * recipes' arrays (gen_recipe.c), the declarations the render templates write (gen_render.c) and
 * the signatures of `mbdc functions` (gen_signature.c). */
#ifndef MBG_GEN_ROLES_H
#define MBG_GEN_ROLES_H

#include <stddef.h>

/* What a parameter's size counts. */
typedef enum mbg_role_size {
  MBG_RS_NQ,       /* q */
  MBG_RS_NV,       /* v */
  MBG_RS_NVNV,     /* an nv x nv matrix */
  MBG_RS_NVWRENCH, /* nv x a wrench per body and the world: nv x 6 (nb + 1) */
  MBG_RS_WRENCHES, /* a wrench per body and the world: 6 (nb + 1) */
  MBG_RS_POSES,    /* a pose per body and the world: 12 (nb + 1) */
  MBG_RS_NC,       /* a loop constraint row each */
  MBG_RS_NCNV,     /* the loop Jacobian */
  MBG_RS_NODES,    /* a pose per node of the flexible bodies */
  MBG_RS_RCR,      /* p_rcr's selections x nc */
  MBG_RS_FRAMES,   /* a pose per operational frame */
  MBG_RS_FJAC,     /* a 6 x nv Jacobian per frame */
  MBG_RS_FVEC,     /* 6 per frame */
  MBG_RS_3,        /* the centre of mass */
  MBG_RS_3NV,      /* its Jacobian */
  MBG_RS_2,        /* the energies */
  MBG_RS_6,        /* the centroidal momentum */
  MBG_RS_6NV,      /* its matrix */
  MBG_RS_CONTACTS, /* one per contact (switches, mu) */
  MBG_RS_CROWS,    /* one per contact row (forces, impulses) */
  MBG_RS_CROWSNV,  /* a contact row's derivatives: ncrows x nv */
  MBG_RS_SCALAR,   /* a number passed by value (dt) */
  MBG_RS_SC,       /* the joint angles' sines and cosines (--trig-input) */
  MBG_RS_NVREG,    /* the regressor: nv x 10 nb */
  MBG_RS_REG,      /* a value per standard inertial parameter: 10 nb */
  MBG_RS_PARAMS,   /* the run-time inertial parameters (gen_params.h) */
  /* the sizes gen_base.c counts (mbg_gen_base_role_size) */
  MBG_RS_NVBASE,   /* the base regressor: nv x the base parameters */
  MBG_RS_BASE,     /* a value per base parameter */
  MBG_RS_NVJ1      /* the joints' regressor: nv x 4 per joint of one velocity coordinate */
} mbg_role_size;

typedef struct mbg_role {
  const char *name;  /* "q", "out_nvnv", ... */
  int is_output;
  int pass;          /* MBG_PASS_* (gen.h) */
  mbg_role_size size;
  const char *macro; /* the size in the header, '@' standing for the prefix in capitals */
} mbg_role;

/* The role called name, or NULL. */
const mbg_role *mbg_role_find(const char *name);
/* The size in the header with P the prefix in capitals ("ARM7_NV * ARM7_NV") into buf[n].
 * Returns its length (as snprintf: n or more when it does not fit). */
int mbg_role_macro(const mbg_role *r, const char *P, char *buf, size_t n);
/* Parameter name's declaration as the header writes it into buf[n]: "const double q[ARM7_NQ]",
 * "double tau[ARM7_NV]", "const int contacts[ARM7_NCONTACT]", "double dt". Returns its length
 * as snprintf. */
int mbg_role_decl(const mbg_role *r, const char *name, const char *scalar, const char *P,
                  char *buf, size_t n);

#endif
