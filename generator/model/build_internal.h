/* build_internal.h — shared by the model builder's files (build*.c); not a public interface. */
#ifndef MBG_BUILD_INTERNAL_H
#define MBG_BUILD_INTERNAL_H

#include "model/build.h"
#include "model/names.h"

/* A constant's entry index while its own expression is being evaluated. */
enum { MBG_CONST_DEFINING = -2 };

typedef struct mbg_builder {
  mbg_diag *d;
  mbg_model *m;
  mbg_names names;
  int oom;
  int tree_incomplete; /* a joint was rejected or names an unknown body: the tree has holes */
  const mbd_stmt **joint_stmt; /* [njoints]: the statement declaring each joint */
} mbg_builder;

/* What a value is allowed to be. */
typedef enum mbg_unit_use { MBG_NOT_ANGLE, MBG_ANGLE } mbg_unit_use;

/* Evaluate an expression. Returns 1 and sets *v on success; on failure reports (once) and
 * returns 0. `use` says whether the unit `deg` may appear. */
int mbg_eval(mbg_builder *b, const mbd_expr *e, mbg_unit_use use, double *v);
/* Evaluate a list that must hold exactly `n` values (or, when n_alt > 0, n_alt values).
 * `what` names the property in messages ("'com'"). Returns the count read (n or n_alt), 0 on
 * error (reported, with a hint when a spacing-split '-' is the likely cause). */
int mbg_eval_list(mbg_builder *b, const mbd_exprs *l, mbg_loc where, const char *what, int n,
                  int n_alt, mbg_unit_use use, double *out);

/* build_body.c: items of a body (rigid and flexible). */
void mbg_build_body(mbg_builder *b, const mbd_stmt *s, int index);
/* build_flex.c: flexible-body data (beam preset or nodal data), and the rigid properties derived from it. */
void mbg_build_flex(mbg_builder *b, const mbd_stmt *s, int index);
/* build_joint.c: joints, loops and the `independent` statement. */
void mbg_build_joint(mbg_builder *b, const mbd_stmt *s, int index);
void mbg_build_loop(mbg_builder *b, const mbd_stmt *s, int index);
void mbg_read_independent(mbg_builder *b, const mbd_stmt *s, const mbd_stmt **seen);
/* build_jprops.c: a joint's properties (armature, damping, friction, stiffness, spring_ref, limit,
 * velocity_limit, effort_limit) into j, whose type is known; mbg_joint_prop_item: 1 if the item
 * is one of them (a joint's other items are build_joint.c's). */
void mbg_build_joint_props(mbg_builder *b, const mbd_stmt *s, mbg_joint *j);
int mbg_joint_prop_item(const mbd_item *it);
/* build_params.c: the `parameters` statement (bodies, all, gravity) into b->m. */
void mbg_read_parameters(mbg_builder *b, const mbd_stmt *s, const mbd_stmt **seen);
/* build_spring.c: springs, and the initial state of a joint (b->joint_stmt gives its type). */
void mbg_build_spring(mbg_builder *b, const mbd_stmt *s, int index);
void mbg_build_initial(mbg_builder *b, const mbd_stmt *s);
/* build_frame.c: an operational frame fixed on a body. */
void mbg_build_frame(mbg_builder *b, const mbd_stmt *s, int index);
/* build_tree.c: tree structure: parents, cycles, connection; masses when no error came before. */
void mbg_check_tree(mbg_builder *b, int errors_before);
/* build_flex.c: the uses of flexible bodies the dynamics do not cover yet, each an error. */
void mbg_check_flex_uses(mbg_builder *b);
/* build_inertia.c: the rotational inertia I (about the centre of mass) of a body of mass `mass`
 * must be positive semidefinite (an error), to 1e-9 of the body's scale, tr I + mass (1 mm)²;
 * principal moments that break the triangle inequality are warned about and kept: no mass
 * distribution has them, but the algorithms do not need them and real robots' URDFs have them
 * (placeholders, typing errors). The runtime's mb_model_check uses the same scale, about the body
 * origin (runtime/model.c). */
#define MBG_INERTIA_TOL 1e-9
#define MBG_INERTIA_LENGTH 1e-3
void mbg_check_inertia(mbg_builder *b, const double I[6], double mass, mbg_loc loc,
                       const char *whose);

/* A name of `kind` referenced at `loc`: its entry index, or -1 after reporting. */
int mbg_resolve(mbg_builder *b, const char *name, mbg_loc loc, mbg_name_kind kind);

/* The word that introduces an item ("mass", or the unknown word itself). */
const char *mbg_item_word(const mbd_item *it);

/* Report a second occurrence of an item that may appear once. Returns 1 if it is a duplicate. */
int mbg_once(mbg_builder *b, const mbd_item **seen, const mbd_item *it, const char *what);

#endif
