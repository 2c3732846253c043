/* gen_roles.c — the parameter roles (gen_roles.h). */
#include "emit/gen_roles.h"

#include <stdio.h>
#include <string.h>

#include "emit/gen.h"

static const mbg_role roles[] = {
    {"q", 0, MBG_PASS_ARRAY, MBG_RS_NQ, "@_NQ"},
    {"v", 0, MBG_PASS_ARRAY, MBG_RS_NV, "@_NV"},
    {"a", 0, MBG_PASS_ARRAY, MBG_RS_NV, "@_NV"},
    {"tau", 0, MBG_PASS_ARRAY, MBG_RS_NV, "@_NV"},
    {"fext", 0, MBG_PASS_ARRAY, MBG_RS_WRENCHES, "6 * (@_NB + 1)"},
    {"out_nv", 1, MBG_PASS_ARRAY, MBG_RS_NV, "@_NV"},
    {"out_nvnv", 1, MBG_PASS_ARRAY, MBG_RS_NVNV, "@_NV * @_NV"},
    {"out_nvwrench", 1, MBG_PASS_ARRAY, MBG_RS_NVWRENCH, "@_NV * 6 * (@_NB + 1)"},
    {"out_wrench", 1, MBG_PASS_ARRAY, MBG_RS_WRENCHES, "6 * (@_NB + 1)"},
    {"out_pose", 1, MBG_PASS_ARRAY, MBG_RS_POSES, "12 * (@_NB + 1)"},
    {"out_nc", 1, MBG_PASS_ARRAY, MBG_RS_NC, "@_NC"},
    {"out_ncnv", 1, MBG_PASS_ARRAY, MBG_RS_NCNV, "@_NC * @_NV"},
    {"out_nodes", 1, MBG_PASS_ARRAY, MBG_RS_NODES, "12 * @_NNODES"},
    {"out_rcr", 1, MBG_PASS_ARRAY, MBG_RS_RCR, "@_RCR_NSEL * @_NC"},
    {"out_frames", 1, MBG_PASS_ARRAY, MBG_RS_FRAMES, "12 * @_NF"},
    {"out_fjac", 1, MBG_PASS_ARRAY, MBG_RS_FJAC, "6 * @_NV * @_NF"},
    {"out_fvec", 1, MBG_PASS_ARRAY, MBG_RS_FVEC, "6 * @_NF"},
    {"out_3", 1, MBG_PASS_ARRAY, MBG_RS_3, "3"},
    {"out_3nv", 1, MBG_PASS_ARRAY, MBG_RS_3NV, "3 * @_NV"},
    {"out_2", 1, MBG_PASS_ARRAY, MBG_RS_2, "2"},
    {"out_6", 1, MBG_PASS_ARRAY, MBG_RS_6, "6"},
    {"out_6nv", 1, MBG_PASS_ARRAY, MBG_RS_6NV, "6 * @_NV"},
    /* the contacts' switches are ints (0 or 1; the function refuses anything else) */
    {"contacts", 0, MBG_PASS_INT_ARRAY, MBG_RS_CONTACTS, "@_NCONTACT"},
    /* hybrid's prescribed dofs: ints, 0 or 1 (the function refuses anything else) */
    {"mask", 0, MBG_PASS_INT_ARRAY, MBG_RS_NV, "@_NV"},
    {"contact_mu", 0, MBG_PASS_ARRAY, MBG_RS_CONTACTS, "@_NCONTACT"},
    {"out_cforce", 1, MBG_PASS_ARRAY, MBG_RS_CROWS, "@_NCROWS"},
    {"out_cforcenv", 1, MBG_PASS_ARRAY, MBG_RS_CROWSNV, "@_NCROWS * @_NV"},
    {"dt", 0, MBG_PASS_VALUE, MBG_RS_SCALAR, "1"},
    {"q2", 0, MBG_PASS_ARRAY, MBG_RS_NQ, "@_NQ"},
    {"out_nq", 1, MBG_PASS_ARRAY, MBG_RS_NQ, "@_NQ"},
    {"sc", 0, MBG_PASS_ARRAY, MBG_RS_SC, "@_NSC"},
    {"out_sc", 1, MBG_PASS_ARRAY, MBG_RS_SC, "@_NSC"},
    {"out_nvreg", 1, MBG_PASS_ARRAY, MBG_RS_NVREG, "@_NV * @_NREG"},
    {"out_reg", 1, MBG_PASS_ARRAY, MBG_RS_REG, "@_NREG"},
    {"pi", 0, MBG_PASS_ARRAY, MBG_RS_REG, "@_NREG"},
    {"params", 0, MBG_PASS_ARRAY, MBG_RS_PARAMS, "@_NPI"},
    {"out_nvbase", 1, MBG_PASS_ARRAY, MBG_RS_NVBASE, "@_NV * @_NBASE"},
    {"out_base", 1, MBG_PASS_ARRAY, MBG_RS_BASE, "@_NBASE"},
    {"out_nvj1", 1, MBG_PASS_ARRAY, MBG_RS_NVJ1, "@_NV * 4 * @_NJ1"},
};

const mbg_role *mbg_role_find(const char *name) {
  for (size_t k = 0; k < sizeof roles / sizeof roles[0]; k++)
    if (strcmp(roles[k].name, name) == 0) return &roles[k];
  return NULL;
}

int mbg_role_macro(const mbg_role *r, const char *P, char *buf, size_t n) {
  size_t len = 0, plen = strlen(P);
  for (const char *c = r->macro; *c; c++) {
    const char *piece = *c == '@' ? P : c;
    size_t k = *c == '@' ? plen : 1;
    if (len + k < n) memcpy(buf + len, piece, k);
    len += k;
  }
  if (n > 0) buf[len < n ? len : n - 1] = '\0';
  return (int)len;
}

int mbg_role_decl(const mbg_role *r, const char *name, const char *scalar, const char *P,
                  char *buf, size_t n) {
  const char *type = r->pass == MBG_PASS_INT_ARRAY ? "int" : scalar;
  if (r->pass == MBG_PASS_VALUE) return snprintf(buf, n, "%s %s", type, name);
  char size[256];
  if (mbg_role_macro(r, P, size, sizeof size) >= (int)sizeof size) return (int)n; /* too long */
  return snprintf(buf, n, "%s%s %s[%s]", r->is_output ? "" : "const ", type, name, size);
}
