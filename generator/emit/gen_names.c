/* gen_names.c — the rules of gen_names.h. */
#include "emit/gen_names.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "model/build.h"

/* Identifiers containing an '_' (not first) of the C library headers the generated files
 * include (<math.h>, <stdio.h>, <stdlib.h>, <float.h>, <stddef.h>; ISO C99 and C11), and the
 * POSIX ones of the same headers a non-strict compilation sees. P_<name> must not be one. */
static const char *const libc_names[] = {
  /* <float.h> */
  "FLT_RADIX", "FLT_ROUNDS", "FLT_EVAL_METHOD", "DECIMAL_DIG", "FLT_MANT_DIG", "DBL_MANT_DIG",
  "LDBL_MANT_DIG", "FLT_DIG", "DBL_DIG", "LDBL_DIG", "FLT_MIN_EXP", "DBL_MIN_EXP",
  "LDBL_MIN_EXP", "FLT_MIN_10_EXP", "DBL_MIN_10_EXP", "LDBL_MIN_10_EXP", "FLT_MAX_EXP",
  "DBL_MAX_EXP", "LDBL_MAX_EXP", "FLT_MAX_10_EXP", "DBL_MAX_10_EXP", "LDBL_MAX_10_EXP", "FLT_MAX",
  "DBL_MAX", "LDBL_MAX", "FLT_EPSILON", "DBL_EPSILON", "LDBL_EPSILON", "FLT_MIN", "DBL_MIN",
  "LDBL_MIN", "FLT_DECIMAL_DIG", "DBL_DECIMAL_DIG", "LDBL_DECIMAL_DIG", "FLT_HAS_SUBNORM",
  "DBL_HAS_SUBNORM", "LDBL_HAS_SUBNORM", "FLT_TRUE_MIN", "DBL_TRUE_MIN", "LDBL_TRUE_MIN",
  /* <math.h> */
  "float_t", "double_t", "HUGE_VAL", "HUGE_VALF", "HUGE_VALL", "FP_INFINITE", "FP_NAN",
  "FP_NORMAL", "FP_SUBNORMAL", "FP_ZERO", "FP_FAST_FMA", "FP_FAST_FMAF", "FP_FAST_FMAL",
  "FP_ILOGB0", "FP_ILOGBNAN", "MATH_ERRNO", "MATH_ERREXCEPT", "math_errhandling", "M_E",
  "M_LOG2E", "M_LOG10E", "M_LN2", "M_LN10", "M_PI", "M_PI_2", "M_PI_4", "M_1_PI", "M_2_PI",
  "M_2_SQRTPI", "M_SQRT2", "M_SQRT1_2",
  /* <stdio.h> */
  "size_t", "fpos_t", "FOPEN_MAX", "FILENAME_MAX", "L_tmpnam", "SEEK_CUR", "SEEK_END",
  "SEEK_SET", "TMP_MAX", "L_ctermid", "P_tmpdir", "off_t", "ssize_t", "va_list",
  /* <stdlib.h> */
  "wchar_t", "div_t", "ldiv_t", "lldiv_t", "EXIT_FAILURE", "EXIT_SUCCESS", "RAND_MAX",
  "MB_CUR_MAX", "quick_exit", "at_quick_exit", "aligned_alloc",
  /* <stddef.h> */
  "ptrdiff_t", "max_align_t",
};

int mbg_gen_is_libc_name(const char *id) {
  for (size_t k = 0; k < sizeof libc_names / sizeof *libc_names; k++)
    if (strcmp(id, libc_names[k]) == 0) return 1;
  return 0;
}

/* s equals word, or begins with word followed by '_', ignoring case. */
static int family(const char *s, const char *word) {
  size_t n = strlen(word);
  for (size_t k = 0; k < n; k++)
    if (tolower((unsigned char)s[k]) != word[k]) return 0;
  return s[n] == '\0' || s[n] == '_';
}

int mbg_gen_prefix_ok(const char *P, char *why, size_t n) {
  const char *c_why;
  if (!mbg_valid_c_name(P, &c_why)) return snprintf(why, n, "%s", c_why), 0;
  if (family(P, "mb") || family(P, "mbs") || family(P, "mbg"))
    return snprintf(why, n, "is reserved: the runtime's names are mb_*, mbs_* and MB_* (choose "
                            "another with --prefix)"), 0;
  if (P[0] == '_' && (isalpha((unsigned char)P[1]) || P[1] == '_' || P[1] == '\0'))
    return snprintf(why, n, "is reserved: after '_' comes %s, so its names would start with '__' "
                            "or its macros with '_' and a capital (choose another with --prefix)",
                    P[1] ? "a letter" : "'_'"), 0;
  return 1;
}

/* The functions' neighbours: P_<these> are tables (and the loop projections, written by the
 * render templates), PU_<THESE> macros. */
const char *const mbg_gen_header_tables[] = {
    "model",      "joint_names", "joint_iq",         "joint_iv",  "body_names",
    "coord_names", "coord_iq",   "q_initial",        "v_initial", "springs",
    "loops",      "constraint_names", "q_assembled", "project_q", "project_v", "node_names", "rcr_dep",
    "assemble",   "initvel",
    "frame_names", "frames", "contacts", "trig_iq", "trig_theta", "rcr_sc", "rcr_finish",
    "rcr_finish_sc", "pi_all", "pi_model", "pi_names", "q_min", "q_max", "v_max", "tau_max", NULL};
const char *const mbg_gen_header_macros[] = {"NQ",        "NV",         "NB",           "NJ",
                                             "NC",        "SET_ID",     "PIVOT_EPS",    "DYNAMICS_H",
                                             "PROJECT_TOL", "PROJECT_MAXIT", "NNODES", "RCR_NSEL",
                                             "ASSEMBLE_MAXIT", "INITVEL_TOL",
                                             "RCR_SWITCH", "MODEL_H", "NF", "MASS", "NSC",
                                             "NCONTACT", "NCROWS", "RCR_REFINE",
                                             "RCR_REFINE_HEAD", "NREG", "NPI", "NBASE", "NJ1",
                                             NULL};
/* The families of name macros, PU_<FAMILY><name> (a body's, joint's or frame's name as in the
 * model). */
const char *const mbg_gen_header_name_macros[] = {"BODY_", "JOINT_", "IQ_", "IV_", "FRAME_", NULL};

int mbg_gen_function_name_ok(const char *P, const char *name, char *why, size_t n) {
  char upper[80], id[160];
  size_t k = 0;
  for (; name[k] && k + 1 < sizeof upper; k++) upper[k] = (char)toupper((unsigned char)name[k]);
  upper[k] = '\0';
  for (const char *const *t = mbg_gen_header_tables; *t; t++)
    if (strcmp(name, *t) == 0) return snprintf(why, n, "would collide with the table %s_%s", P, *t), 0;
  for (const char *const *t = mbg_gen_header_macros; *t; t++)
    if (strcmp(upper, *t) == 0)
      return snprintf(why, n, "would collide with the macro of the same name in capitals"), 0;
  if (strncmp(upper, "HAVE_", 5) == 0)
    return snprintf(why, n, "would collide with the feature macros *_HAVE_<NAME>"), 0;
  for (const char *const *t = mbg_gen_header_name_macros; *t; t++)
    if (strncmp(name, *t, strlen(*t)) == 0) /* P_<name> is PU_<name> when P has no lowercase */
      return snprintf(why, n, "would collide with the index macros *_%s<name>", *t), 0;
  const char *part = strstr(name, "_part");
  while (part && strstr(part + 1, "_part")) part = strstr(part + 1, "_part");
  if (part && part[5] && strspn(part + 5, "0123456789") == strlen(part + 5))
    return snprintf(why, n, "would collide with the parts of a long function (P_<f>_part<k>, "
                            "--parts)"), 0;
  snprintf(id, sizeof id, "%s_%s", P, name);
  if (mbg_gen_is_libc_name(id))
    return snprintf(why, n, "would be %s, a name of the C library", id), 0;
  return 1;
}
