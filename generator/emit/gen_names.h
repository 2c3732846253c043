/* gen_names.h — the names the generated files declare, and the rules that keep them apart from
 * each other, from the runtime and from the C library (docs/generator.md "Names").
 *
 * With prefix P (upper case PU), the files declare: the functions P_<name> (one per recipe), the
 * tables P_joint_names, P_joint_iq, P_joint_iv, P_body_names, P_q_initial, P_v_initial,
 * P_model, P_springs, and the macros PU_NQ, PU_NV, PU_NB, PU_NJ, PU_SET_ID, PU_PIVOT_EPS,
 * PU_DYNAMICS_H and PU_HAVE_<NAME>. */
#ifndef MBG_GEN_NAMES_H
#define MBG_GEN_NAMES_H

#include <stddef.h>

/* Whether P may be a prefix: a C identifier (mbg_valid_c_name) that is not reserved — the
 * runtime's families mb, mbs, mbg (any case, alone or followed by '_': its functions are mb_*,
 * mbs_*, its macros MB_*), '_' alone (its names would begin with "__") and '_' followed by a
 * letter (the macros would begin with '_' and a capital); '_' and a digit stays allowed (a file
 * named 2dof.urdf gives _2dof). Returns 1, or 0 with the reason in why[n]. */
int mbg_gen_prefix_ok(const char *P, char *why, size_t n);

/* Whether function `name` (a C identifier) may be generated with prefix P: P_<name> and
 * PU_HAVE_<NAME> must not be one of the other generated names (model, joint_names, ..., NQ, ...
 * in any case, HAVE_*; BODY_*, JOINT_*, IQ_*, IV_* as written; <f>_part<k>, the parts of a long
 * function) nor an identifier of the C library headers the files include. Returns 1, or 0 with
 * the reason in why[n]. */
int mbg_gen_function_name_ok(const char *P, const char *name, char *why, size_t n);

/* The header's macros after "PU_" (NQ, NV, ...), NULL-terminated, and its tables after "P_". */
extern const char *const mbg_gen_header_macros[];
extern const char *const mbg_gen_header_tables[];
/* The families of index macros PU_<FAMILY><name> (BODY_, JOINT_, IQ_, IV_), NULL-terminated:
 * BODY_ for every body, the others for every moving joint (templates/c/header.lua). */
extern const char *const mbg_gen_header_name_macros[];

/* Whether `id` is an identifier (with an '_', not leading) of <math.h>, <stdio.h>, <stdlib.h>,
 * <float.h>, <stddef.h> in ISO C99/C11, or a common POSIX one of them (M_PI, P_tmpdir, ...). */
int mbg_gen_is_libc_name(const char *id);

#endif
