/* mb.h — the mbdc runtime: a generic, model-interpreting solver of the rigid-body algorithms.
 *
 * The reference every generated function is checked against, and a library for models known only
 * at run time. Plain C11, libm only, no allocation: every algorithm works in a caller-provided
 * workspace laid out once by mb_workspace_init().
 *
 * Notation (Featherstone, "Rigid Body Dynamics Algorithms", 2008, ch. 2). Spatial motion vectors
 * are m = [ω; v], force vectors f = [n; f] (angular first). A transform X = (E, r) is
 * Featherstone's BXA = [E 0; −E r× E]: E (3×3, row-major) rotates A coordinates into B
 * coordinates and r is the origin of B in A coordinates.
 * Inertias are 10 numbers at the body origin: [m, hx hy hz, ixx iyy izz ixy ixz iyz] with h = m c
 * the first moment and the rotational inertia about the body origin, the symmetric matrix
 * [ixx ixy ixz; ixy iyy iyz; ixz iyz izz] (tensor entries, not negated products), so
 * I = [Ī h×; h×ᵀ m·1].
 *
 * Numbering is regular: bodies 1..nb, parent λ(i) < i, body 0 the fixed world. Every per-body
 * array, in the model, in the workspace and in the API (fext, pose, wrench), has nb + 1 entries
 * indexed by body number; entry 0 is the world (ignored on input, identity or zero on output).
 * Body i's frame is the child-side frame of joint i; iXλ = XJ(q_i) XT(i).
 *
 * Coordinates (Pinocchio's conventions; docs/runtime.md, the joint table):
 *   revolute, continuous  q = angle about the unit axis a (joint frame); S = [a; 0]
 *   prismatic             q = displacement along a;                    S = [0; a]
 *   helical, pitch h      rotation q about a and translation h q along a; S = [a; h a]
 *   spherical             q = quaternion [qx qy qz qw] (child→parent rotation of q/|q|),
 *                         v = angular velocity in the child frame;    S = [1₃; 0]
 *   floating              q = [x y z qx qy qz qw]: child origin in parent coordinates and the
 *                         child→parent rotation; v = [linear; angular] of the child frame in child
 *                         coordinates; S maps [lin; ang] to [ω; v]; its τ is [force; torque]
 *   planar                q = [x y θ]: the child origin at x u + y w in the joint frame, then a
 *                         rotation θ about the plane's unit normal a; (u, w, a) right-handed, u, w
 *                         the axes e_{k+1}, e_{k+2} of mbs_axis_rotation(a) (for a = e_k exactly
 *                         those axes: z → x, y); v = [v_u v_w ω] in the child frame (Pinocchio's
 *                         JointModelPlanar), so q̇ ≠ v;                S = [0 0 a; u w 0]
 *   cylindrical           q = [θ d]: rotation θ about a and translation d along a; S = [a 0; 0 a]
 *   universal             q = [θ1 θ2]: rotation θ1 about a (the joint frame's), then θ2 about
 *                         a2 ⟂ a (mb_model.axis2, fixed in the child): XJ = rot(a, θ1) rot(a2, θ2);
 *                         S(q) = [R2ᵀa a2; 0 0] with R2 = rot(a2, θ2): S turns with θ2, so the joint
 *                         has the bias acceleration cJ = Ṡ q̇ = [θ̇1 θ̇2 (R2ᵀa × a2); 0] (mb_xup
 *                         refreshes its columns of ws->S; mb_joint_cJ)
 *   fixed                 no coordinates, XJ = identity
 * Quaternions store q_w last. Gravity enters as a fictitious base acceleration a0 = −gravity.
 * Joint wrenches are [torque; force] of the parent on the child, at the joint origin, in the joint
 * (= child body) frame. */
#ifndef MB_H
#define MB_H

#include <stddef.h>

/* ---------------------------------------------------------------------------------------------
 * The contract. Every entry point that takes a workspace, and every one that can fail, returns an
 * int status; the building blocks (mb_jcalc, mb_joint_S, mb_joint_T, mb_xup, mb_aba_joint and the
 * mbs_* utilities) trust their arguments and check them with assert() in debug builds only.
 *
 *   MB_OK         success; every output is finite.
 *   MB_ENUMERIC   no finite answer: the system is singular to working precision (a pivot failed the
 *                 relative test below; ws->singular names the joint), or an output is NaN or ±Inf
 *                 (a NaN or Inf input, an overflow, a zero quaternion). The outputs are then
 *                 undefined (they may hold NaN); the call had no other effect.
 *   MB_EINVAL     a required pointer argument is NULL (nothing was computed or written).
 *   MB_EWORKSPACE ws was not laid out by mb_workspace_init for this model (another model, a model
 *                 whose sizes changed since, or an uninitialised workspace: detected through a tag
 *                 and the model pointer the workspace keeps; zero-initialise workspaces,
 *                 `mb_workspace ws = {0};`, to make the last case certain). Nothing was written.
 *
 * The pivot rule (the same in the generated code, its P_PIVOT_EPS): a pivot d of a factorization
 * is accepted iff r > 0 and d > MB_PIVOT_EPS · r, with r a reference of the same units that bounds
 * the rounding noise of d:
 *   mb_ltdl, mb_crba_fd   r = M_kk, the diagonal entry of M the pivot came from;
 *   mb_aba, mb_minv       r_l = the l-th diagonal entry of Sᵀ (I_i + Σ_c cXᵢᵀ IA_c cXᵢ) S, the
 *                         projection D = Sᵀ IA S with the child joints c locked one level (D_ll
 *                         plus Σ_c yᵀ D_c⁻¹ y, y = U_cᵀ cXᵢ S_l: docs/runtime.md, "Pivots");
 *   mb_cfa                r = the diagonal entry of the constraint matrix A before elimination
 *                         (and of every body's rotational inertia about its centre of mass).
 * r bounds every term the pivot is the difference of, so a pivot below 1e-12 r has lost all but
 * three or four of its sixteen digits to cancellation: the system is singular to working
 * precision. r ≤ 0 means the joint moves nothing even with the joints beyond it locked. */
enum mb_status { MB_OK = 0, MB_ENUMERIC = -1, MB_EINVAL = -2, MB_EWORKSPACE = -3 };
#define MB_PIVOT_EPS 1e-12

/* The joint types, listed once: the runtime's enum, the generator's (model/model.h), the model
 * language's keywords, the C spelling the generated models use and every property code outside a
 * joint's mathematics asks about come from this table (docs/architecture.md, "Adding a joint
 * type"). One row per type, X(NAME, name, nq, nv, axis, angle, pitch, fixed_origin, quat):
 *   NAME          the enumerator MB_JOINT_NAME; rows keep their order (a type's value is stored
 *                 in models and tests), a new type goes last
 *   name          its keyword in the model language, and its name in messages
 *   nq, nv        position and velocity coordinates
 *   axis          1: it moves about or along the unit axis a (mb_model.axis)
 *   angle         1: its first coordinate is an angle about a (written in angle units; the
 *                 generated code takes its sine and cosine)
 *   pitch         1: it takes a pitch (mb_model.pitch)
 *   fixed_origin  1: the child's origin stays where the parent's joint frame puts it (XJ has
 *                 r = 0)
 *   quat          where its unit quaternion [x y z w] starts in its q (-1: none): the identity is
 *                 q[quat + 3] = 1, and its q is not a vector space
 * A planar joint's q is not a vector space either (its v is the child frame's: mb_integrate). */
#define MB_JOINT_TYPES(X)                           \
  X(FIXED,       fixed,       0, 0, 0, 0, 0, 1, -1) \
  X(REVOLUTE,    revolute,    1, 1, 1, 1, 0, 1, -1) \
  X(CONTINUOUS,  continuous,  1, 1, 1, 1, 0, 1, -1) \
  X(PRISMATIC,   prismatic,   1, 1, 1, 0, 0, 0, -1) \
  X(HELICAL,     helical,     1, 1, 1, 1, 1, 0, -1) \
  X(SPHERICAL,   spherical,   4, 3, 0, 0, 0, 1,  0) \
  X(FLOATING,    floating,    7, 6, 0, 0, 0, 0,  3) \
  X(PLANAR,      planar,      3, 3, 1, 0, 0, 0, -1) \
  X(CYLINDRICAL, cylindrical, 2, 2, 1, 1, 0, 0, -1) \
  X(UNIVERSAL,   universal,   2, 2, 1, 1, 0, 1, -1)

typedef enum mb_joint_type {
#define MB_JOINT_ENUM(NAME, name, nq, nv, axis, angle, pitch, fixed_origin, quat) MB_JOINT_##NAME,
  MB_JOINT_TYPES(MB_JOINT_ENUM)
#undef MB_JOINT_ENUM
  MB_JOINT_TYPE_COUNT
} mb_joint_type;

/* The table's columns (jcalc.c); for an invalid type "?", 0, and quat -1. */
const char *mb_joint_name(mb_joint_type t);
int mb_joint_nq(mb_joint_type t);
int mb_joint_nv(mb_joint_type t);
int mb_joint_has_axis(mb_joint_type t);
int mb_joint_is_angle(mb_joint_type t);
int mb_joint_has_pitch(mb_joint_type t);
int mb_joint_fixed_origin(mb_joint_type t);
int mb_joint_quat(mb_joint_type t);

/* ---------------------------------------------------------------------------------------------
 * The model: struct of const arrays, so a generated <p>_model.c can hold it in static const data:
 *
 *   static const int parent[] = {-1, 0, 1};  ...
 *   const mb_model p_model = {2, 2, 2, parent, jtype, iq, iv, XT_E, XT_r, axis, pitch, inertia,
 *                             {0, 0, -9.81}, NULL, NULL};     (no flexible body, no armature)
 *
 * MB_MODEL_ARRAYS lists every per-body array once: X(type, name, doubles or ints per body). */
#define MB_MODEL_ARRAYS(X)                                                                      \
  X(int, parent, 1)            /* λ(i) < i; parent[0] = -1 */                                   \
  X(mb_joint_type, jtype, 1)   /* joint i from λ(i) to i; jtype[0] = MB_JOINT_FIXED */          \
  X(int, iq, 1)                /* first position coordinate of joint i (consecutive, from 0) */ \
  X(int, iv, 1)                /* first velocity coordinate of joint i (consecutive, from 0) */ \
  X(double, XT_E, 9)           /* tree transform XT(i): rotation parent → joint frame */        \
  X(double, XT_r, 3)           /* tree transform XT(i): joint origin in parent coordinates */   \
  X(double, axis, 3)           /* unit joint axis in the joint frame (1-dof joints) */          \
  X(double, pitch, 1)          /* helical pitch, metres per radian */                           \
  X(double, inertia, 10)       /* m, h = m c, Ī about the body origin (see above) */

/* Flexible bodies (flex.c; Jain & Rodriguez, "Recursive Dynamics for Flexible Multibody Systems
 * Using Spatial Operators", JPL Publication 90-26, 1990, §3 and §8: assumed modes, the ruthlessly
 * linearized model). Body i has nm[i] modal coordinates η_i; they follow its joint's coordinates
 * in q and in v (q: iq[i] + nq_joint ..., v: iv[i] + nv_joint ...). Its modal mass matrix, in its
 * body frame, with the modal velocity [v_i; η̇_i] (v_i the spatial velocity of the body frame),
 * is constant: [I_i, Mc_i; Mc_iᵀ, Me_i], I_i the body's rigid inertia (inertia[] above); the
 * modes also feel the velocity-product load of the undeformed body, vᵢᵀ Q_ik vᵢ. A joint
 * on a flexible parent p hangs from a section of it that moves, per unit η̇_p, with the spatial
 * velocity Ψ_i (p's frame, at p's origin): body i sees its parent move with v_p + Ψ_i η̇_p.
 * The elastic and damping forces K_i η_i + D_i η̇_i act on the modal rows. Arrays are packed body
 * after body (bodies with nm = 0 take no room): with e_i = Σ_{j<i} nm[j], Mc_i (nm[i] columns of
 * 6) at 6 e_i; Me_i, K_i, D_i (nm[i]², row-major) at Σ_{j<i} nm[j]²; Ψ_i (nm[parent[i]] columns of
 * 6) at 6 Σ_{j<i} nm[parent[j]]. docs/flexible.md. */
typedef struct mb_flex {
  const int *nm;     /* [nb + 1] modes of every body, nm[0] = 0 */
  const double *Mc;  /* coupling of the body frame's motion with the modes */
  const double *Me;  /* modal mass */
  const double *K;   /* modal stiffness */
  const double *D;   /* modal damping */
  const double *Psi; /* attachment shapes of the joints on flexible parents */
  /* Nodes (mb_node_poses): node k of body node_body[k] at node_r[3k] (body frame) moves per unit
   * η with the shape [r; t] (small rotation, translation of the node; nm[node_body[k]] columns of
   * 6, packed node after node in node_shape). */
  int nnodes;
  const int *node_body;
  const double *node_r;
  const double *node_shape;
  /* The velocity-product load of the undeformed body on its modes (Jain & Rodriguez's b_m⁰): on
   * mode k of body i, vᵢᵀ Q_ik vᵢ, Q_ik a symmetric 6×6 (row-major, 36 per mode at 36 e_i + 36 k).
   * NULL: none. */
  const double *Q;
} mb_flex;

typedef struct mb_model {
  int nb; /* moving bodies; per-body arrays have nb + 1 entries */
  int nq, nv;
#define MB_MODEL_FIELD(type, name, per_body) const type *name;
  MB_MODEL_ARRAYS(MB_MODEL_FIELD)
#undef MB_MODEL_FIELD
  double gravity[3]; /* in world coordinates, e.g. {0, 0, -9.81} */
  const mb_flex *flex; /* NULL: every body rigid */
  /* [nv] each dof's armature: the rotor inertia (kg m² or kg, ≥ 0) added to M's diagonal, to the
   * articulated body's D and to inverse dynamics (τ += armature q̈), as MuJoCo and Pinocchio do
   * (joint velocity coordinates only; a flexible body's modes have none); NULL: none. */
  const double *armature;
  /* [3 (nb + 1)] the second unit axis a2 of every universal joint, in its joint frame and
   * perpendicular to its axis (other bodies' entries unused); NULL: the model has none. */
  const double *axis2;
} mb_model;

/* Flexible bodies are supported by mb_rnea, mb_nle, mb_gravity, mb_crba, mb_ltdl, mb_crba_fd,
 * mb_aba, mb_minv, mb_joint_wrenches, mb_fk (the bodies' reference frames), mb_integrate,
 * mb_difference and their Jacobians (mb_integrate_jacobians, mb_difference_jacobians);
 * mb_cfa, mb_fd_loops, mb_passive_forces, mb_rnea_derivatives and mb_aba_derivatives return
 * MB_EINVAL for a model with modes. */

/* Modes of body i (0 for a rigid model). */
int mb_body_nm(const mb_model *m, int i);
/* The armature of velocity coordinate k (0 without armature or for a modal coordinate); 1 if
 * any is nonzero. mb_cfa returns MB_EINVAL for a model with armature (its formulation inverts
 * the bodies' inertias and has no joint-space inertia to put a rotor in: docs/cfa.md); every
 * other dynamics function includes it (mb_rcr: in its free and head joints' D and in its tails'
 * reduced inertia). */
double mb_armature(const mb_model *m, int k);
int mb_has_armature(const mb_model *m);
/* 1 if some joint's S varies with q (mb_joint_S_varies: a universal joint). mb_cfa returns
 * MB_EINVAL for such a model (not yet: its constraint bases T assume S constant in the child
 * frame); every other algorithm takes it. */
int mb_has_varying_S(const mb_model *m);
/* M += diag(armature) for an nv × nv row-major M. */
void mb_add_armature(const mb_model *m, double *M);

/* Coupled (mimic) coordinates (coupling.c; the generator's docs/dsl.md "Coupled joints"). A
 * coupled joint's coordinate follows an independent one: with the model's (full) coordinates
 * q_full[k] = q_mult[k] q[q_of[k]] + q_off[k] and v_full[k] = v_mult[k] v[v_of[k]], q and v the
 * nq, nv independent ones (v_full = G v, G constant, one nonzero per row). Every algorithm runs on
 * the full model; these map its inputs and outputs: forces fold by Gᵀ, Jacobian columns by G,
 * M and the inverse-dynamics derivatives as Gᵀ A G, and forward dynamics solves
 * (Gᵀ M G) q̈ = τ − Gᵀ h (the tree recursions of aba do not apply). */
typedef struct mb_coupling {
  int nq, nv;            /* the independent coordinates */
  const int *q_of;       /* [model nq] */
  const double *q_mult;  /* [model nq] */
  const double *q_off;   /* [model nq] */
  const int *v_of;       /* [model nv] */
  const double *v_mult;  /* [model nv] */
} mb_coupling;

/* 0 if c fits m (indices in range, every independent coordinate followed by itself with factor 1
 * and offset 0, finite nonzero factors); -1 and a one-line reason in msg otherwise. */
int mb_coupling_check(const mb_model *m, const mb_coupling *c, char *msg, size_t msgsize);
/* q_full, v_full from the independent q, v (either of each pair may be NULL to skip it). */
void mb_coupled_expand(const mb_model *m, const mb_coupling *c, const double *q, const double *v,
                       double *q_full, double *v_full);
/* The independent entries of a full configuration (q) and velocity (v): either may be NULL. */
void mb_coupled_pick(const mb_model *m, const mb_coupling *c, const double *q_full,
                     const double *v_full, double *q, double *v);
/* out = A G for A rows × (model nv), row-major (rows = 1: a force's Gᵀ f is the same as a row);
 * out = Gᵀ A for A (model nv) × cols; out = Gᵀ A G for A (model nv)²: out must not alias A. */
void mb_coupled_fold_columns(const mb_model *m, const mb_coupling *c, int rows, const double *A,
                             double *out);
void mb_coupled_fold_rows(const mb_model *m, const mb_coupling *c, int cols, const double *A,
                          double *out);
void mb_coupled_fold_matrix(const mb_model *m, const mb_coupling *c, const double *A,
                            double *out);

/* Validate a model: sizes (nb ≤ MB_MAX_BODIES, a workspace size that size_t holds), pointers,
 * regular numbering, consecutive iq/iv summing to nq/nv, unit axes, proper rotations XT_E, usable
 * inertias (m ≥ 0, rotational inertia about the COM positive semidefinite to 1e-9 of the body's
 * scale tr Ī + m (1 mm)²; the triangle inequalities of a physical body are the front end's to
 * check, not needed by the algorithms). Returns 0 if valid; otherwise
 * -1 and, if msg is not NULL, a one-line reason in msg[msgsize]. */
int mb_model_check(const mb_model *m, char *msg, size_t msgsize);

/* The most bodies a model may have: every per-body offset (at most 36 (nb + 1)) and nq, nv are
 * ints; offsets into the nv × nv matrices, the minv scratch (6 nv (nb + 1)) and the CFA's nc × nc
 * system are computed in size_t. */
#define MB_MAX_BODIES (0x7fffffff / 36 - 1)

/* ---------------------------------------------------------------------------------------------
 * The workspace: one caller-provided buffer, laid out once per model (like MuJoCo's arena).
 *
 *   mb_workspace ws;
 *   void *buf = malloc(mb_workspace_size(&model));   (or any double-aligned storage)
 *   mb_workspace_init(&ws, &model, buf);
 *
 * MB_WORKSPACE_ARRAYS lists every array once: X(name, count), count the number of doubles as an
 * expression in the model `m` (the table is only expanded where `const mb_model *m` is in scope),
 * written with MB_WS_NB1 (nb + 1, one entry per body and the world), MB_WS_NV (nv) and MB_WS_NC
 * (the CFA's unknowns). Algorithms leave their results in it (after mb_rnea: XE/Xr, v, a, f). To
 * add an algorithm's scratch, add one line here (e.g. X(IA, 36 * MB_WS_NB1)); size and layout
 * follow, nothing else changes. An algorithm owns its scratch arrays; the shared ones (XE, Xr, S,
 * v, a, f) are recomputed by every algorithm that uses them. */
#define MB_WS_NB1 ((size_t)m->nb + 1)
#define MB_WS_NV ((size_t)m->nv)
#define MB_WS_NC mb_cfa_nc(m)
#define MB_WS_NE mb_flex_count(m, 0)
#define MB_WS_NE2 mb_flex_count(m, 1)
#define MB_WS_NFD mb_flex_count(m, 2)
#define MB_WORKSPACE_ARRAYS(X)                                                                  \
  X(S, 6 * MB_WS_NV) /* motion subspaces: 6 doubles per dof column, body frame; set at init */     \
  X(XE, 9 * MB_WS_NB1) /* iXλ = XJ XT: rotation E */                                               \
  X(Xr, 3 * MB_WS_NB1) /* iXλ: origin of body i in λ(i) coordinates */                             \
  X(v, 6 * MB_WS_NB1) /* body spatial velocity, body frame */                                      \
  X(a, 6 * MB_WS_NB1) /* body spatial acceleration (including −gravity), body frame */             \
  X(f, 6 * MB_WS_NB1) /* RNEA body force; after the backward pass the joint wrench */              \
  X(IC, 10 * MB_WS_NB1) /* CRBA composite inertia, 10-number form */                               \
  X(X0E, 9 * MB_WS_NB1) /* FK: iX0 rotation (world → body) */                                      \
  X(X0r, 3 * MB_WS_NB1) /* FK: body origin in world coordinates */                                 \
  X(tau, MB_WS_NV) /* scratch joint-space vector */                                                \
  X(lam, MB_WS_NV) /* expanded parent λ(k) of every dof, −1 for none (exact integers); init */     \
  X(T, 36 * MB_WS_NB1) /* CFA: orthonormal complement of S, 6 − nv_i columns of 6; set at init */  \
  X(IA, 36 * MB_WS_NB1) /* ABA, minv: articulated inertia, 6×6 row-major */                        \
  X(pA, 6 * MB_WS_NB1) /* ABA: articulated bias force */                                           \
  X(c, 6 * MB_WS_NB1) /* ABA: velocity-product acceleration c = v × vJ */                          \
  X(U, 6 * MB_WS_NV) /* ABA, minv: U = IA S, one 6-column per dof */                               \
  X(D, 6 * MB_WS_NV) /* ABA, minv: Cholesky factor of D = Sᵀ U, nv_i × nv_i at 6·iv_i */           \
  X(Dref, MB_WS_NV) /* pivot references r of every dof (the pivot rule) */                         \
  X(Dbase, MB_WS_NV) /* their base part (mb_pivot_refs; mb_ltdl: M's diagonal) */                  \
  X(Jsub, MB_WS_NB1) /* mb_pivot_refs: J_i, a bound of ∫ |p|² dm over body i's subtree */          \
  X(msub, MB_WS_NB1) /* mb_pivot_refs: the mass of body i's subtree */                             \
  X(u, MB_WS_NV) /* ABA: u = τ − Sᵀ pA */                                                          \
  X(M, MB_WS_NV * MB_WS_NV) /* crba_fd: the mass matrix, then its LᵀDL factors */                  \
  X(F, 6 * MB_WS_NV * MB_WS_NB1) /* minv: F_i (6 × nv, 6 per column), then the accelerations */    \
  X(Ii, 12 * MB_WS_NB1) /* CFA: COM c and Ic⁻¹ (3×3 row-major) of every body */                    \
  X(Fc, 6 * MB_WS_NB1) /* CFA: joint wrench increments F_j */                                      \
  X(y, 6 * MB_WS_NB1) /* CFA: net body force y = P F, then α = I⁻¹ y */                            \
  X(z, 6 * MB_WS_NB1) /* CFA: relative accelerations z = Pᵀ α */                                   \
  X(xS, 6 * MB_WS_NB1) /* CFA: right-hand side, then F_S (nc ≤ 6 nb entries) */                    \
  X(A, MB_WS_NC * MB_WS_NC) /* CFA: nc × nc, then its Cholesky factor */                       \
  X(fo, 4 * MB_WS_NB1) /* flex: offsets of body i's blocks (e_i, Σnm², Ψ, FD); set at init */      \
  X(fe, MB_WS_NE) /* flex RNEA: modal forces */                                                    \
  X(PC, 6 * MB_WS_NE) /* flex CRBA, ABA: coupling block of the composite/articulated inertia */   \
  X(PE, MB_WS_NE2) /* flex CRBA, ABA: its modal block */                                           \
  X(pe, MB_WS_NE) /* flex ABA: modal bias forces */                                                \
  X(FD, MB_WS_NFD) /* flex ABA: Cholesky factor of D_i, (nv_i + nm_i)² for a flexible body */   \
  X(dS, 24 * MB_WS_NV) /* derivatives: per dof S, Ψ̇, Ψ̈, A (world frame at the origin) */          \
  X(dI, 36 * MB_WS_NB1) /* derivatives: composite inertia, world frame, 6×6 */                     \
  X(dB, 36 * MB_WS_NB1) /* derivatives: composite B (velocity terms), world frame, 6×6 */          \
  X(dF, 18 * MB_WS_NB1) /* derivatives: v, a, and the subtree force F, world frame */               \
  X(dx, 2 * MB_WS_NV) /* derivatives: q̈ and a column of the product with M⁻¹ */

typedef struct mb_workspace {
  const mb_model *model; /* the model it was laid out for (the tag below holds its sizes) */
  unsigned tag;          /* MB_WS_TAG once laid out */
  int nb, nq, nv;
  int singular; /* after MB_ENUMERIC: the body whose joint's pivot failed, 0 if none did */
#define MB_WORKSPACE_FIELD(name, count) double *name;
  MB_WORKSPACE_ARRAYS(MB_WORKSPACE_FIELD)
#undef MB_WORKSPACE_FIELD
} mb_workspace;

#define MB_WS_TAG 0x6d627773u /* "mbws" */

/* flex.c: Σ nm_i (what = 0), Σ nm_i² (1), Σ (nv_i + nm_i)² over the flexible bodies (2); 0 for
 * a rigid model. */
size_t mb_flex_count(const mb_model *m, int what);
/* Σ (6 − nv_i) over the bodies: the constraint-force unknowns of the CFA (cfa.c). */
size_t mb_cfa_nc(const mb_model *m);
/* Bytes of buffer a model's workspace needs: 0 for NULL; SIZE_MAX when size_t cannot hold it or
 * nb is out of range (mb_model_check rejects such a model; malloc(SIZE_MAX) fails). */
size_t mb_workspace_size(const mb_model *m);
/* Lay out ws in buffer (mb_workspace_size(m) bytes, aligned for double), zero it, fill the
 * constant motion subspaces S and tag ws with m and its sizes. The model must outlive the
 * workspace and keep its sizes. MB_OK, or MB_EINVAL if an argument is NULL. */
int mb_workspace_init(mb_workspace *ws, const mb_model *m, void *buffer);
/* MB_OK if ws was laid out by mb_workspace_init for m; MB_EINVAL if either is NULL; else
 * MB_EWORKSPACE. Every algorithm below starts with this check. */
int mb_workspace_check(const mb_model *m, const mb_workspace *ws);

/* ---------------------------------------------------------------------------------------------
 * Spatial algebra (spatial.c): pure functions on compact storage, never dense 6×6.
 * Transforms are (E, r) as above; out may not alias the input unless stated. */
void mbs_cross(const double a[3], const double b[3], double out[3]);   /* a × b */
void mbs_mat3_mv(const double E[9], const double x[3], double out[3]);  /* E x */
void mbs_mat3_tmv(const double E[9], const double x[3], double out[3]); /* Eᵀ x */
void mbs_mat3_mul(const double A[9], const double B[9], double out[9]); /* A B */

/* X m;  X⁻¹ m = X*ᵀ m;  X* f;  Xᵀ f = X*⁻¹ f */
void mbs_X_mv(const double E[9], const double r[3], const double m[6], double out[6]);
void mbs_Xinv_mv(const double E[9], const double r[3], const double m[6], double out[6]);
void mbs_X_fv(const double E[9], const double r[3], const double f[6], double out[6]);
void mbs_XT_fv(const double E[9], const double r[3], const double f[6], double out[6]);
/* X = X1 X2 (first X2, then X1); out may alias either input. */
void mbs_X_compose(const double E1[9], const double r1[3], const double E2[9], const double r2[3],
                   double E[9], double r[3]);
/* X⁻¹ = (Eᵀ, −E r). */
void mbs_X_inv(const double E[9], const double r[3], double Einv[9], double rinv[3]);

void mbs_crm(const double v[6], const double m[6], double out[6]); /* v × m  = crm(v) m */
void mbs_crf(const double v[6], const double f[6], double out[6]); /* v ×* f = crf(v) f */
void mbs_I_mv(const double I[10], const double m[6], double out[6]); /* I m */
/* out = λX*_i I iXλ: inertia I given in the child frame, (E, r) = iXλ; out may alias I. */
void mbs_I_to_parent(const double E[9], const double r[3], const double I[10], double out[10]);
/* 3×3 rotational inertia (symmetric, 6 numbers) expanded to a full row-major matrix. */
void mbs_sym3_full(const double s[6], double out[9]);

/* Articulated inertias (not rigid-body inertias) are dense symmetric 6×6, row-major. */
void mbs_I_mat(const double I[10], double out[36]); /* the 6×6 matrix of a 10-number inertia */
/* out = λX*_i A iXλ for a 6×6 A given in the child frame, (E, r) = iXλ; out may alias A. */
void mbs_mat6_to_parent(const double E[9], const double r[3], const double A[36], double out[36]);

/* Small dense symmetric positive definite systems, n×n row-major. mbs_chol overwrites the lower
 * triangle of A with L, A = L Lᵀ (the strict upper triangle is neither read nor written); it
 * returns 0, or −1 − j if the pivot d_j (L_jj², before the square root) of row j fails the pivot
 * rule against its diagonal entry A_jj (A not positive definite to working precision). mbs_chol_ref is the
 * same with the references r_j = ref[j] instead. mbs_chol_solve overwrites x with (L Lᵀ)⁻¹ x. */
int mbs_chol(int n, double *A);
int mbs_chol_ref(int n, double *A, const double *ref);
/* 1 if every x[k], k < n, is finite (not NaN, not ±Inf). */
int mbs_finite(const double *x, size_t n);
/* 1 if E (row-major) is a proper rotation to 1e-9 (E Eᵀ = 1 entry by entry, det E = 1). */
int mbs_is_rotation(const double E[9]);
void mbs_chol_solve(int n, const double *L, double *x);

/* Quaternions [x y z w], q_w last. The rotation matrix R(q) maps child to parent coordinates:
 * the rotation of q/|q|, R = 1 + (2/|q|²)(w u× + u×²) with u = (x, y, z), so any nonzero finite
 * quaternion stands for a rotation, and the zero quaternion gives NaN (2/0 times 0). */
void mbs_quat_normalize(double q[4]);
void mbs_quat_to_rot(const double q[4], double R[9]);
void mbs_quat_mul(const double a[4], const double b[4], double out[4]); /* a ⊗ b; may alias */
void mbs_quat_exp(const double w[3], double out[4]); /* rotation by the vector w (angle |w|) */
/* Rotation matrix of angle theta about unit axis a (child → parent, right-handed). */
void mbs_rot_axis(const double a[3], double theta, double R[9]);
/* The rotation R (row-major) that turns the unit axis a into +e_k, k returned (the generator's
 * joint-frame alignment, generator/topology/align.h, which says how R is chosen): identity for
 * a = e_k exactly, the rotation by π about e_{k+1} for a = −e_k, else the minimal rotation to the
 * largest component's axis. A planar joint's plane axes are rows k+1 and k+2 (mod 3) of R. */
int mbs_axis_rotation(const double a[3], double R[9]);

/* ---------------------------------------------------------------------------------------------
 * Joints (jcalc.c). Building blocks: arguments checked by assert() in debug builds only. */
/* XJ(q_i) = (E, r) of body i's joint, q the full position vector. */
void mb_jcalc(const mb_model *m, int i, const double *q, double E[9], double r[3]);
/* The 6×nv_i motion subspace of body i's joint, column-major (6 doubles per column); for a joint
 * whose S turns with q (mb_joint_S_varies: universal) its value at q_i = 0. */
void mb_joint_S(const mb_model *m, int i, double *S);
/* 1 if the type's S depends on q (universal); every other type's S is constant in its child frame
 * and its cJ zero. */
int mb_joint_S_varies(mb_joint_type t);
/* S of body i's joint at q (q the full position vector); mb_xup writes it into ws->S. */
void mb_joint_S_at(const mb_model *m, int i, const double *q, double *S);
/* cJ = Ṡ q̇ of body i's joint from its current columns S (ws->S + 6 iv_i, after mb_xup) and its
 * velocity coordinates qd (nv_i of them; NULL: zero), added to out; nothing for a constant S. */
void mb_joint_cJ(const mb_model *m, int i, const double *S, const double *qd, double out[6]);
/* T_i: an orthonormal basis of the complement of span S_i (6 − nv_i columns of 6, column-major),
 * Sᵀ T = 0: Gram-Schmidt of the unit vectors against S, the best-conditioned first. */
void mb_joint_T(const mb_model *m, int i, double *T);
/* The in-plane axes u, w of a planar joint of unit normal a (rows k+1, k+2 of mbs_axis_rotation;
 * (u, w, a) right-handed). */
void mb_planar_axes(const double a[3], double u[3], double w[3]);
/* ws->XE, ws->Xr = iXλ = XJ(q_i) XT(i) for every body, and ws->S at q for the joints whose S
 * varies (mb_joint_S_varies). */
void mb_xup(const mb_model *m, mb_workspace *ws, const double *q);
/* ws->X0E, ws->X0r = iX0 of every body (world → body) from ws->XE, ws->Xr (fk.c). */
void mb_x0(const mb_model *m, mb_workspace *ws);
/* ws->v, ws->a: every body's spatial velocity and its acceleration at q̈ = 0 without gravity (the
 * velocity-product terms), body coordinates, from ws->XE, ws->Xr and v (fk.c; rigid bodies). */
void mb_bias_pass(const mb_model *m, mb_workspace *ws, const double *v);
/* q = the neutral configuration (zeros, identity quaternions). MB_OK, or MB_EINVAL. */
int mb_neutral(const mb_model *m, double *q);

/* ---------------------------------------------------------------------------------------------
 * Algorithms. Sizes: q[nq], v/a/tau[nv], M[nv·nv], per-body arrays [(nb+1)·k]. A quaternion in q
 * stands for the rotation of q/|q| (any nonzero finite quaternion; mb_integrate keeps them unit);
 * a zero quaternion makes the outputs NaN. Every function returns a status (above): MB_OK,
 * MB_ENUMERIC when an output is not finite (and, for the solvers, when the system is singular),
 * MB_EINVAL when a required pointer is NULL (the ones not said to be optional), MB_EWORKSPACE. */

/* Inverse dynamics τ = M(q) a + C(q,v) v + g(q) − Σ Jᵢᵀ fextᵢ (rnea.c). fext is NULL or one
 * wrench [n; f] per body, acting on the body, at its origin, in its frame. v or a NULL means zero.
 * Leaves iXλ in ws->XE/Xr, v_i, a_i in ws->v/a and the joint wrenches in ws->f. */
int mb_rnea(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
            const double *a, const double *fext, double *tau);
/* Bias forces h = C(q,v) v + g(q) (v NULL: zero), and gravity torques g(q) (rnea.c). */
int mb_nle(const mb_model *m, mb_workspace *ws, const double *q, const double *v, double *h);
int mb_gravity(const mb_model *m, mb_workspace *ws, const double *q, double *g);

/* Joint-space inertia matrix, row-major, full symmetric (crba.c). */
int mb_crba(const mb_model *m, mb_workspace *ws, const double *q, double *M);

/* Coupled coordinates (coupling.c, mb_coupling above): */
/* Doubles of scratch mb_coupled_fd and mb_coupled_minv need. */
size_t mb_coupled_scratch_size(const mb_model *m, const mb_coupling *c);
/* Forward dynamics in the independent coordinates: (Gᵀ M G) q̈ = τ − Gᵀ h(q, v, fext) (q, v, τ,
 * q̈ independent; fext as mb_rnea's, may be NULL), and its inverse inertia (Gᵀ M G)⁻¹, nv × nv,
 * by a dense Cholesky factorization. MB_OK, MB_EINVAL (NULL arguments), MB_EWORKSPACE,
 * MB_ENUMERIC (a pivot not positive, or an output not finite). */
int mb_coupled_fd(const mb_model *m, const mb_coupling *c, mb_workspace *ws, double *scratch,
                  const double *q, const double *v, const double *tau, const double *fext,
                  double *qdd);
int mb_coupled_minv(const mb_model *m, const mb_coupling *c, mb_workspace *ws, double *scratch,
                    const double *q, double *Minv);
/* The derivatives of mb_coupled_fd (fext NULL) in the independent coordinates: q̈ as it, then
 * dqdd_dq = −Minv Gᵀ (∂τ/∂q) G and dqdd_dv = −Minv Gᵀ (∂τ/∂v) G with mb_rnea_derivatives of the
 * full tree at (q_full, v_full, G q̈), and Minv = (Gᵀ M G)⁻¹; each nv × nv. Returns as
 * mb_coupled_fd (MB_EINVAL also for a model with flexible bodies). */
int mb_coupled_fd_derivatives(const mb_model *m, const mb_coupling *c, mb_workspace *ws,
                              double *scratch, const double *q, const double *v,
                              const double *tau, double *dqdd_dq, double *dqdd_dv, double *Minv);

/* M = Lᵀ D L in place with no fill-in (ltdl.c; Featherstone 2005): L unit lower triangular with
 * L_ki ≠ 0 only for i an ancestor of k in the expanded parent array λ (ws->lam). On return M's
 * diagonal holds D, its strict lower triangle L; the strict upper triangle is untouched; ws->Dref
 * M's diagonal. MB_OK, or MB_ENUMERIC if a pivot D_k fails the pivot rule against M_kk or is not
 * finite. mb_ltdl_solve overwrites x with M⁻¹ x given the factors (MB_ENUMERIC if x is then not
 * finite). */
int mb_ltdl(const mb_model *m, mb_workspace *ws, double *M);
int mb_ltdl_solve(const mb_model *m, const mb_workspace *ws, const double *LD, double *x);
/* Forward dynamics by the mass matrix: h = mb_nle, M = mb_crba (into ws->M), factor, solve
 * M q̈ = τ − h (ltdl.c; v NULL: zero). MB_OK, or MB_ENUMERIC if M is singular to working
 * precision or q̈ is not finite. */
int mb_crba_fd(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
               const double *tau, double *qdd);

/* M(q)⁻¹, nv×nv row-major, full symmetric, by the operator factorization of Jain & Rodriguez,
 * "Recursive Dynamics for Flexible Multibody Systems Using Spatial Operators", JPL Publication
 * 90-26, 1990, Lemma 6.3 (minv.c; Carpentier 2018): one backward and one forward sweep over the
 * columns, M is never formed. MB_OK, or MB_ENUMERIC if some joint's D fails the pivot rule (M
 * singular to working precision) or an entry is not finite. */
int mb_minv(const mb_model *m, mb_workspace *ws, const double *q, double *Minv);

/* Forward dynamics by the articulated-body algorithm (aba.c): q̈ with M q̈ = τ − h(q, v) +
 * Σ Jᵢᵀ fextᵢ (fext as in mb_rnea, or NULL; v NULL: zero). MB_OK, or MB_ENUMERIC if some joint's
 * D = Sᵀ IA S fails the pivot rule (e.g. a massless leaf body) or q̈ is not finite; qdd is then
 * undefined. Leaves v_i, a_i in ws->v/a, the articulated inertias, U, the factors of D and the
 * pivot references in ws->IA/U/D/Dref. */
int mb_aba(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
           const double *tau, const double *fext, double *qdd);
/* The pivot references of every dof (the pivot rule) into ws->Dref, from ws->Xr (mb_xup): for a
 * column s = [s_ω; s_v] of S_i, r = (|s_ω| √(2 J_i) + |s_v| √m_i)², m_i the mass of i's subtree and
 * J_i = ½ tr Ī_i + Σ_c (√J_c + √m_c |r_c|)² over the children c (r_c their origins in i's frame),
 * a bound of ∫ |p|² dm over the subtree with p measured from i's origin along the tree's offsets:
 * every term the articulated or composite inertia of the subtree is summed from is bounded by 2J
 * (rotation), √(2J m) (coupling) or m (translation). Used by mb_aba, mb_minv and mb_crba_fd. */
void mb_pivot_refs(const mb_model *m, mb_workspace *ws);
/* One backward step of the ABA for body i, given ws->IA[i] and the references ws->Dref
 * (mb_pivot_refs): U_i = IA_i S_i, D_i = S_iᵀ U_i factored by Cholesky into ws->D at 6·iv_i under
 * the pivot rule, and Ia = IA_i − U_i D_i⁻¹ U_iᵀ. Returns 0, or -1 (and ws->singular = i) if a
 * pivot fails. Shared by mb_aba and mb_minv. mb_xup, mb_pivot_refs and mb_aba_joint read and write
 * only ws->S, XE, Xr, IA, U, D, Dref, Dbase, Jsub and msub (and the tag): a caller that runs just
 * the articulated-body steps may lay out a workspace of those arrays alone. */
int mb_aba_joint(const mb_model *m, mb_workspace *ws, int i, double Ia[36]);

/* The derivatives of inverse dynamics (derivatives.c; Carpentier & Mansard, "Analytical
 * Derivatives of Rigid Body Dynamics Algorithms", RSS 2018, in the world frame): at (q, v, a),
 * dtau_dq = ∂τ/∂q, dtau_dv = ∂τ/∂v and M = ∂τ/∂a = M(q), nv × nv row-major (v, a NULL: zero; M
 * may be NULL). A derivative with respect to q is taken along the tangent space: column k is
 * d/dε τ(q ⊕ ε e_k) at ε = 0, ⊕ as mb_integrate with dt = 1 (a quaternion turns in its child
 * frame), so every matrix is nv × nv. MB_OK; MB_EINVAL for a model with flexible bodies;
 * MB_ENUMERIC if an output is not finite. */
int mb_rnea_derivatives(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                        const double *a, double *dtau_dq, double *dtau_dv, double *M);
/* The derivatives of forward dynamics at (q, v, τ): q̈ = mb_aba(q, v, τ), then dqdd_dq = −M⁻¹
 * ∂τ/∂q and dqdd_dv = −M⁻¹ ∂τ/∂v at (q, v, q̈), and Minv = M⁻¹ = ∂q̈/∂τ (mb_minv); same tangent
 * space and layout as mb_rnea_derivatives. MB_OK; MB_EINVAL as there; MB_ENUMERIC if the ABA or
 * M⁻¹ fails the pivot rule or an output is not finite. */
int mb_aba_derivatives(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                       const double *tau, double *dqdd_dq, double *dqdd_dv, double *Minv);
/* The same with external wrenches fext (mb_rnea's: one [n; f] per body, on it, at its origin, in
 * its frame; NULL: none): the q-derivatives hold fext fixed on its body (it turns with it, as
 * Pinocchio's fext in the joint frames), and dtau_dfext = ∂τ/∂fext = −Jᵀ per body, resp.
 * dqdd_dfext = ∂q̈/∂fext = M⁻¹ Jᵀ, nv × 6 (nb + 1) row-major (column 6 j + l: entry l of body
 * j's wrench; the columns of body 0 zero), J the body's Jacobian in its frame; either may be NULL.
 * Returns as mb_rnea_derivatives, mb_aba_derivatives. */
int mb_rnea_ext_derivatives(const mb_model *m, mb_workspace *ws, const double *q,
                            const double *v, const double *a, const double *fext,
                            double *dtau_dq, double *dtau_dv, double *M, double *dtau_dfext);
int mb_aba_ext_derivatives(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                           const double *tau, const double *fext, double *dqdd_dq,
                           double *dqdd_dv, double *Minv, double *dqdd_dfext);

/* Forward dynamics and the joint wrenches by the Constraint Force Algorithm (cfa.c; Liu, Hu &
 * Zhang, "Constraint force algorithm for tree-like multibody system dynamics", Chinese Journal of
 * Theoretical and Applied Mechanics 48(1), 2016, eqs. 22-29), dense: q̈ as mb_aba (no fext), and if
 * wrench is not NULL the wrench transmitted across every joint in the mb_joint_wrenches convention
 * (wrench[0..5] = 0). Every body needs an invertible inertia: m > 0 and a positive definite
 * rotational inertia about the COM (under the pivot rule). MB_OK; MB_ENUMERIC if a body's inertia
 * is not invertible, if the constraint matrix A is singular to working precision, or if an output
 * is not finite (wrench may be NULL). Works in ws->A (nc × nc, nc = mb_cfa_nc) and the CFA scratch
 * arrays. */
int mb_cfa(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
           const double *tau, double *qdd, double *wrench);

/* Every body's world pose, 12 doubles per body: R (row-major, body → world coordinates) then
 * the body origin p in world coordinates (fk.c). pose[0..11] is the world's identity. */
int mb_fk(const mb_model *m, mb_workspace *ws, const double *q, double *pose);

/* Operational frames (frames.c; docs/runtime.md): named frames fixed on bodies — the tool frame of
 * a hand, the sole of a foot, an IMU. Frame k is fixed on body `body` (0: the world, a fixed
 * frame), R its rotation (frame → body coordinates, row-major) and p its origin in body
 * coordinates. */
typedef struct mb_frame {
  int body;
  double R[9], p[3];
} mb_frame;

typedef struct mb_frames {
  int n;
  const mb_frame *frame; /* [n]; may be NULL when n = 0 */
} mb_frames;

/* Validate frames against a model: bodies in range, R a proper rotation to 1e-9, finite p. 0, or
 * -1 and a one-line reason in msg (if not NULL). */
int mb_frames_check(const mb_model *m, const mb_frames *F, char *msg, size_t msgsize);

/* Every frame's world pose, 12 doubles per frame as in mb_fk: R (frame → world, row-major) and the
 * frame origin in world coordinates. MB_OK; MB_EINVAL (NULL arguments); MB_ENUMERIC if an output
 * is not finite. */
int mb_frame_pose(const mb_model *m, const mb_frames *F, mb_workspace *ws, const double *q,
                  double *pose);
/* Every frame's Jacobian, 6 × nv row-major per frame (J + 6 nv k), rows [ω; v]: the frame's
 * angular velocity and the velocity of its origin, in the frame's axes (local ≠ 0: Pinocchio's
 * LOCAL but for the row order) or in world axes (local = 0: LOCAL_WORLD_ALIGNED). Columns of
 * joints that do not move the frame are zero. mb_frame_velocity: the same two vectors J v in world
 * axes (6 per frame); mb_frame_acceleration_bias: the frame's angular acceleration and the
 * classical acceleration of its origin at q̈ = 0, J̇ v, in world axes (6 per frame; gravity not
 * included). MB_OK; MB_EINVAL (NULL arguments, or a model with flexible bodies: not covered yet);
 * MB_ENUMERIC if an output is not finite. */
int mb_frame_jacobian(const mb_model *m, const mb_frames *F, mb_workspace *ws, const double *q,
                      int local, double *J);
int mb_frame_velocity(const mb_model *m, const mb_frames *F, mb_workspace *ws, const double *q,
                      const double *v, double *vel);
int mb_frame_acceleration_bias(const mb_model *m, const mb_frames *F, mb_workspace *ws,
                               const double *q, const double *v, double *acc);
/* The derivatives of every frame's velocity V(q, v) = J v and acceleration A(q, v, a) = J a + J̇ v
 * (frame_derivatives.c; docs/derivatives.md "Frame kinematics derivatives"): rows [ω; v] as
 * mb_frame_velocity and [ω̇; the classical acceleration of the origin] as mb_frame_jacobian a +
 * mb_frame_acceleration_bias (no gravity), in world axes (local = 0) or in the frame's axes
 * (local ≠ 0: Rᵀ times the world vectors, R differentiated too). Each output is 6 × nv row-major
 * per frame (+ 6 nv k), as mb_frame_jacobian; ∂/∂q along the tangent space (column c is d/dε at
 * mb_integrate(q, e_c, ε), as mb_rnea_derivatives); dV_dv = dA_da = mb_frame_jacobian. Any output
 * may be NULL (not computed); v or a NULL means zero. MB_OK; MB_EINVAL (NULL frames or q, or a
 * model with flexible bodies); MB_ENUMERIC if an output is not finite. */
int mb_frame_velocity_derivatives(const mb_model *m, const mb_frames *F, mb_workspace *ws,
                                  const double *q, const double *v, int local, double *dV_dq,
                                  double *dV_dv);
int mb_frame_acceleration_derivatives(const mb_model *m, const mb_frames *F, mb_workspace *ws,
                                      const double *q, const double *v, const double *a,
                                      int local, double *dA_dq, double *dA_dv, double *dA_da);

/* Centre of mass and energy (com.c). mb_mass: the total mass of the moving bodies (bodies merged
 * into the world do not move and are not counted; 0 for NULL). mb_com: their centre of mass in
 * world coordinates (3); mb_com_jacobian: its Jacobian, 3 × nv row-major (ċ = Jc v); mb_energy:
 * e[0] the kinetic energy ½ vᵀ M v, e[1] the potential energy of gravity −Σ m_i gᵀ c_i (0 at
 * the world origin). MB_OK; MB_EINVAL (NULL arguments, or a model with flexible bodies: not
 * covered yet); MB_ENUMERIC for a massless model or an output not finite. */
double mb_mass(const mb_model *m);
int mb_com(const mb_model *m, mb_workspace *ws, const double *q, double *c);
int mb_com_jacobian(const mb_model *m, mb_workspace *ws, const double *q, double *Jc);
int mb_energy(const mb_model *m, mb_workspace *ws, const double *q, const double *v, double *e);

/* Inertial parameters and regressors (regressor.c). A body's ten standard parameters π, in
 * Pinocchio's order (Inertia::toDynamicParameters): m, m cx, m cy, m cz, Ixx, Ixy, Iyy, Ixz, Iyz,
 * Izz — the first moment and the rotational inertia about the body frame's origin, in body axes
 * (the model's inertia[] reordered). Every function below covers all moving bodies 1..nb, body i's
 * parameters at π[10 (i − 1) ...], so NREG = 10 nb. The dynamics are linear in them:
 *   mb_regressor         τ = Y(q, v, q̈) π, Y nv × NREG row-major: mb_rnea(q, v, q̈) for the
 *                        model's own π (mb_model_params); joint j's row has body i's columns only
 *                        if i is j's body or a descendant; a floating base's six rows are its
 *                        [force; torque] (v, a NULL: zero);
 *   mb_energy_regressor  T = y_k · π (kinetic, ½ vᵀ M v) and U = y_p · π (gravity's potential,
 *                        −Σ m_i gᵀ c_i, 0 at the world origin): mb_energy's e[0] and e[1].
 * MB_OK; MB_EINVAL (NULL arguments, or a model with flexible bodies: not covered);
 * MB_EWORKSPACE; MB_ENUMERIC if an output is not finite. */
#define MB_NPARAM 10
void mb_params_of_inertia(const double inertia[10], double pi[MB_NPARAM]);
void mb_inertia_of_params(const double pi[MB_NPARAM], double inertia[10]);
int mb_model_params(const mb_model *m, double *pi); /* π[10 nb] of the model's bodies */
int mb_regressor(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                 const double *a, double *Y);
int mb_energy_regressor(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                        double *yk, double *yp);
/* The joints' own columns: for each joint of one velocity coordinate (revolute, continuous,
 * prismatic, helical), in body order, four columns on its row: viscous friction v_j, Coulomb
 * friction mb_coulomb_sign(v_j), armature (rotor inertia) q̈_j, and a constant offset 1, so that
 * τ_j = Y π + f_v v_j + f_c sign(v_j) + I_a q̈_j + τ_off. Yj is nv × 4 mb_joint_count1(m) row-major
 * (the rows of multi-dof joints zero); v, a NULL: zero. mb_coulomb_sign is sign(v) smoothed
 * linearly inside |v| < MB_COULOMB_BAND (rad/s or m/s): v / max(|v|, band), continuous, and
 * exactly ±1 outside the band. MB_OK; MB_EINVAL (NULL m or Yj); MB_ENUMERIC (an input not
 * finite). */
#define MB_COULOMB_BAND 1e-3
int mb_joint_count1(const mb_model *m); /* joints of one velocity coordinate (0 for NULL) */
double mb_coulomb_sign(double v);
/* d mb_coulomb_sign / dv: 1 / MB_COULOMB_BAND inside |v| < MB_COULOMB_BAND, 0 outside and on
 * the band's edge. */
double mb_coulomb_sign_dv(double v);
int mb_joint_regressor(const mb_model *m, const double *v, const double *a, double *Yj);

/* Centroidal momentum (centroidal.c; Orin & Goswami 2008): the momentum of the moving bodies about
 * their centre of mass G, in world axes, h_G = [k_G; p] — the angular momentum about G, then the
 * linear momentum m ċ (the runtime's wrench order; Pinocchio's hg is [linear; angular]).
 * mb_ccrba: the centroidal momentum matrix A_G, 6 × nv row-major, h_G = A_G v; mb_centroidal_bias:
 * Ȧ_G v, the rate of h_G at q̈ = 0 without gravity (so that ḣ_G = A_G q̈ + Ȧ_G v is the net
 * external wrench about G less the weight's). Errors as mb_com. */
int mb_centroidal_momentum(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                           double *h);
int mb_ccrba(const mb_model *m, mb_workspace *ws, const double *q, double *Ag);
int mb_centroidal_bias(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                       double *b);

/* Contacts (contact.c; docs/runtime.md "Contacts"; Featherstone, "Rigid Body Dynamics
 * Algorithms", 2008, ch. 8 and ch. 11): bilateral contacts on operational frames. Contact k holds
 * frame `frame` (an index in mb_frames, on a moving body): dim 3 a point contact, a force at the
 * frame's origin in world axes, its rows those of the origin's velocity (rows 3..5 of the
 * world-aligned mb_frame_jacobian) and its bias the classical acceleration of the origin (entries
 * 3..5 of mb_frame_acceleration_bias); dim 6 the frame welded, a wrench [moment about the
 * origin; force] in world axes, all six rows [ω; v] and the whole bias [ω̇; a]. The rows of contact
 * k start at Σ_{j<k} dim_j; force and impulse have that layout, mb_contact_rows(C) entries. */
typedef struct mb_contact {
  int frame; /* index in mb_frames */
  int dim;   /* 3: point contact; 6: welded */
} mb_contact;

typedef struct mb_contacts {
  int n;
  const mb_contact *contact; /* [n]; may be NULL when n = 0 */
} mb_contacts;

/* Validate contacts against a model and its frames: a count ≥ 0 (at most INT_MAX / 6), frames in
 * range, dim 3 or 6, no frame on the world (body 0) and frame bodies in range. The same frame may
 * appear in several contacts (redundant rows: see mu below). 0, or -1 and a one-line reason in
 * msg (if not NULL). */
int mb_contacts_check(const mb_model *m, const mb_frames *F, const mb_contacts *C, char *msg,
                      size_t msgsize);
/* Σ dim over the contacts: the rows of force and impulse. 0 for NULL; -1 for an invalid set (a
 * negative count, a NULL array, a dim other than 3 or 6, more than INT_MAX / 6 contacts). */
int mb_contact_rows(const mb_contacts *C);
/* Bytes of scratch mb_contact_fd and mb_impulse need, aligned for double: (2 nr nv + nr² + 2 nr +
 * 6 nv) doubles, nr = mb_contact_rows(C). 0 for NULL; SIZE_MAX when size_t cannot hold it or the
 * set is invalid (malloc(SIZE_MAX) fails). */
size_t mb_contact_scratch_size(const mb_model *m, const mb_contacts *C);

/* Contact-constrained forward dynamics: q̈ and f with
 *   M q̈ + h = τ + Jcᵀ f,   Jc q̈ + J̇c v = −μ f
 * over the active contacts (Jc their rows, f their forces; μ = 0: rigid contacts), through the
 * mass matrix as mb_fd_loops: q̈₀ = M⁻¹ (τ − h) (mb_nle, mb_crba into ws->M, mb_ltdl), Y = M⁻¹ Jcᵀ,
 * Φ = Jc Y, (Φ + diag μ) f = −J̇c v − Jc q̈₀, q̈ = q̈₀ + Y f. active NULL: every contact; else
 * active[k] is 1 (active) or 0 (inactive: its force entries are exactly 0 and it constrains
 * nothing). mu NULL: 0; else mu[k] ≥ 0 (finite) is added to the diagonal of each of contact k's
 * rows: the regularized (compliant) contact, which makes redundant contacts solvable. Φ + diag μ is
 * factored by Cholesky under the pivot rule with the references diag(Φ + μ). No active contact:
 * q̈ = mb_aba's answer. force may be NULL; qdd may not alias the inputs. scratch: a buffer of
 * mb_contact_scratch_size(m, C) bytes, aligned for double. MB_OK; MB_EINVAL (a NULL argument, a
 * misaligned scratch, contacts failing mb_contacts_check, an active[k] other than 0 or 1, a mu[k]
 * negative or not finite, a model with flexible bodies); MB_EWORKSPACE; MB_ENUMERIC if M is
 * singular (ws->singular: the body) or Φ + diag μ is (redundant contacts with μ = 0; ws->singular
 * 0), or an output is not finite. No allocation. */
int mb_contact_fd(const mb_model *m, const mb_frames *F, const mb_contacts *C, mb_workspace *ws,
                  void *scratch, const double *q, const double *v, const double *tau,
                  const int *active, const double *mu, double *qdd, double *force);
/* An inelastic impact on the active contacts (the same rows): the impulse Λ and the velocity after
 * it with M (v⁺ − v⁻) = Jcᵀ Λ, Jc v⁺ = 0: Φ Λ = −Jc v⁻, v⁺ = v⁻ + M⁻¹ Jcᵀ Λ (Φ as mb_contact_fd,
 * without μ). impulse (may be NULL) has force's layout, zero for the inactive contacts; v_plus
 * may alias v_minus. No active contact: v⁺ = v⁻. Errors as mb_contact_fd. */
int mb_impulse(const mb_model *m, const mb_frames *F, const mb_contacts *C, mb_workspace *ws,
               void *scratch, const double *q, const double *v_minus, const int *active,
               double *v_plus, double *impulse);
/* Their derivatives (contact_derivatives.c; docs/derivatives.md): the answers of mb_contact_fd
 * (qdd, force) and mb_impulse (v_plus, impulse) as those functions give them, and
 *   dqdd_dq, dqdd_dv, dqdd_dtau  ∂q̈/∂q, ∂q̈/∂v, ∂q̈/∂τ, nv × nv;
 *   dforce_dq, dforce_dv, dforce_dtau  ∂f/∂q, ..., nr × nv (nr = mb_contact_rows(C), the layout
 *     of force; the inactive contacts' rows zero);
 *   dvplus_dq, dvplus_dv  ∂v⁺/∂q, ∂v⁺/∂v⁻ (nv × nv), dimpulse_dq, dimpulse_dv  ∂Λ/∂q, ∂Λ/∂v⁻;
 * all row-major, the q-columns along the tangent space as mb_rnea_derivatives'; the contacts'
 * forces keep their world directions and act at the frames' origins. The force derivatives may be
 * NULL (not computed), the others not; v_plus may not alias v_minus here. scratch: a buffer of
 * mb_contact_derivatives_scratch_size(m, C) bytes (more than mb_contact_scratch_size), aligned
 * for double. No active contact: mb_aba_derivatives' answers, zero force derivatives (impacts:
 * ∂v⁺/∂v⁻ = 1, the rest zero). Returns as mb_contact_fd and mb_impulse. */
size_t mb_contact_derivatives_scratch_size(const mb_model *m, const mb_contacts *C);
int mb_contact_fd_derivatives(const mb_model *m, const mb_frames *F, const mb_contacts *C,
                              mb_workspace *ws, void *scratch, const double *q, const double *v,
                              const double *tau, const int *active, const double *mu,
                              double *qdd, double *force, double *dqdd_dq, double *dqdd_dv,
                              double *dqdd_dtau, double *dforce_dq, double *dforce_dv,
                              double *dforce_dtau);
int mb_impulse_derivatives(const mb_model *m, const mb_frames *F, const mb_contacts *C,
                           mb_workspace *ws, void *scratch, const double *q,
                           const double *v_minus, const int *active, double *v_plus,
                           double *impulse, double *dvplus_dq, double *dvplus_dv,
                           double *dimpulse_dq, double *dimpulse_dv);
/* The same in the independent coordinates of a model with coupled joints (coupled_contact.c,
 * mb_coupling): q, v, τ, q̈, v⁻, v⁺ independent; M, h and the contact rows of the full tree
 * projected (Gᵀ M G, Gᵀ h, Jc G), dense. scratch: mb_coupled_contact_scratch_size(m, c, C)
 * doubles. Returns as mb_contact_fd and mb_impulse (MB_EINVAL also for a coupling that does not
 * fit). */
size_t mb_coupled_contact_scratch_size(const mb_model *m, const mb_coupling *c,
                                       const mb_contacts *C);
int mb_coupled_contact_fd(const mb_model *m, const mb_coupling *c, const mb_frames *F,
                          const mb_contacts *C, mb_workspace *ws, double *scratch,
                          const double *q, const double *v, const double *tau, const int *active,
                          const double *mu, double *qdd, double *force);
int mb_coupled_impulse(const mb_model *m, const mb_coupling *c, const mb_frames *F,
                       const mb_contacts *C, mb_workspace *ws, double *scratch, const double *q,
                       const double *v_minus, const int *active, double *v_plus,
                       double *impulse);

/* The world pose of every node of the flexible bodies (flex_nodes.c), 12 doubles per node as in
 * mb_fk: the body's pose composed with the node's deflection, its position p + R (r + t η) and
 * rotation R Rot(φ), φ = r_shape η its small rotation, Rot(φ) the rotation of the quaternion
 * (φ/2, 1)/|(φ/2, 1)| (exp(φ×) to second order, and a proper rotation for every φ). MB_OK,
 * MB_EINVAL (no nodes: a rigid model), MB_ENUMERIC if not finite. */
int mb_node_poses(const mb_model *m, mb_workspace *ws, const double *q, double *pose);

/* qout = q ⊕ v dt on the joint manifolds (integrate.c): scalars add, quaternions are multiplied
 * on the right by exp(ω dt) and stay unit, a floating joint moves along the screw of its body
 * twist (SE(3) exponential), a planar joint along that of its body twist in its plane (SE(2):
 * θ += ω dt, [x y] += R(θ) V(ω dt) [v_u v_w] dt). qout may alias q. MB_OK, MB_EINVAL, or MB_ENUMERIC if qout is not
 * finite (then qout may have been partly written). */
int mb_integrate(const mb_model *m, const double *q, const double *v, double dt, double *qout);
/* v = q1 ⊖ q0, the inverse of mb_integrate: mb_integrate(m, q0, v, 1, q) gives q1 (integrate.c;
 * Pinocchio's difference). Scalars subtract; a quaternion's rotation vector is the shorter one
 * (|φ| ≤ π, the logarithm of q0⁻¹ ⊗ q1 in q0's frame); a floating joint's [linear; angular] is the
 * body twist whose SE(3) exponential takes q0 to q1, a planar joint's the SE(2) twist (its θ1 − θ0
 * not wrapped: defined for |θ1 − θ0| < 2π). MB_OK, MB_EINVAL (NULL), MB_ENUMERIC (not
 * finite). */
int mb_difference(const mb_model *m, const double *q0, const double *q1, double *v);
/* The Jacobians of mb_integrate and mb_difference along the tangent spaces (manifold_jacobians.c;
 * Pinocchio's dIntegrate and dDifference; docs/derivatives.md, "The manifold Jacobians"), each
 * nv × nv row-major and block-diagonal per joint (every other entry written 0):
 *   Jq column k = d/dε [(q ⊕ ε e_k) ⊕ v dt], Jv column k = d/dε [q ⊕ (v + ε e_k) dt] (dt
 *   included), both at ε = 0 and measured in the tangent at qout = q ⊕ v dt, i.e. through
 *   mb_difference(qout, ·); they depend on v dt only;
 *   J0 column k = d/dε [q1 ⊖ (q0 ⊕ ε e_k)], J1 column k = d/dε [(q1 ⊕ ε e_k) ⊖ q0].
 * ⊕ is mb_integrate with dt = 1. Scalars and modal coordinates give 1, dt 1, −1, 1; a spherical,
 * floating or planar joint the SO(3), SE(3) ([linear; angular]) or SE(2) adjoint and right
 * Jacobians. Jq, Jv, J0, J1 may each be NULL (not computed). mb_difference_jacobians keeps q1 ⊖ q0
 * in its output while it works: J0 and J1 must not overlap. MB_OK, MB_EINVAL (m, q, v, q0 or q1
 * NULL), MB_ENUMERIC (an output, or q1 ⊖ q0, not finite). */
int mb_integrate_jacobians(const mb_model *m, const double *q, const double *v, double dt,
                           double *Jq, double *Jv);
int mb_difference_jacobians(const mb_model *m, const double *q0, const double *q1, double *J0,
                            double *J1);

/* The wrench [torque; force] transmitted across every joint, parent on child, at the joint origin,
 * in the joint frame: RNEA's f_i after the backward pass (joint_wrenches.c). wrench[0..5] = 0. */
int mb_joint_wrenches(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                      const double *a, double *wrench);

/* ---------------------------------------------------------------------------------------------
 * Closed loops (loops.c, fd_loops.c, project.c; docs/loops.md). A loop (cut) joint closes a
 * kinematic loop of the tree: its frame, fixed in body a, must coincide with a target frame fixed
 * in body b up to the joint's own motion. Every loop type is a list of rows, each one of Haug's
 * basic constraints (Haug 1989; Kang & Yoon) on the loop frame F_a (axes x_a y_a z_a, origin p_a)
 * and the target frame F_b, with d = p_b − p_a in world coordinates and u1, u2 two unit vectors
 * of the loop frame orthogonal to the axis a (u1 the coordinate axis least aligned with a,
 * Gram-Schmidt; u2 = a × u1); a vector on b is the same loop-frame components in the target frame:
 *
 *   d1(u, w) = u_a · w_b        (perpendicular vectors)     d2(u) = u_a · d  (u ⟂ separation)
 *   ss       = d · d − D²       (points at distance D)     screw = a_a · d − h θ
 *
 *   type        rows (names)
 *   revolute,   x y z tilt1 tilt2      d2(x) d2(y) d2(z) d1(u1, a) d1(u2, a)
 *   continuous
 *   prismatic   tilt1 tilt2 twist slide1 slide2   d1(u1, a) d1(u2, a) d1(u1, u2) d2(u1) d2(u2)
 *   helical     tilt1 tilt2 slide1 slide2 screw   d1(u1, a) d1(u2, a) d2(u1) d2(u2) screw
 *   spherical,s x y z                  d2(x) d2(y) d2(z)
 *   fixed       x y z tilt1 tilt2 twist   d2(x) d2(y) d2(z) d1(x, z) d1(y, z) d1(x, y)
 *   planar      tilt1 tilt2 normal     d1(u1, a) d1(u2, a) d2(a)   (a: the plane's normal)
 *   cylindrical tilt1 tilt2 slide1 slide2   d1(u1, a) d1(u2, a) d2(u1) d2(u2)
 *   universal   x y z cross            d2(x) d2(y) d2(z) d1(a, axis2)   (axis2 in the target frame:
 *                                      Haug's universal joint, the origins together, a ⟂ axis2)
 *   d1          d1                     d1(a, axis2)   (axis2 given in the target frame)
 *   d2          d2                     d2(a)
 *   ss          ss                     d · d − D²
 *
 * θ (helical) is the rotation of F_b about a relative to F_a, atan2(u2_a · u1_b, u1_a · u1_b),
 * in (−π, π]: a helical loop's residual is defined within half a turn of its assembled position.
 * Rows are exact functions of q; K = ∂φ/∂q in velocity coordinates (K v = φ̇ exactly, everywhere)
 * and K̇v = φ̈ at q̈ = 0. A d1 row is zero at a right angle, so it also vanishes when the joint is
 * turned by half a turn: the mechanism is assembled near its model configuration. */
/* The loop types, enumerated in this order: the joint types that can close a loop, X(NAME) for
 * MB_JOINT_NAME (its axis and pitch as MB_JOINT_TYPES says; its rows in loops.c), then the basic
 * constraints X(NAME, name, axis, axis2, distance), 1 where it takes mb_loop's axis, axis2 or
 * distance. A joint type that learns to close a loop goes last in MB_LOOP_JOINT_TYPES (the basic
 * constraints move up one; generated models name them, so only a rebuild follows). */
#define MB_LOOP_JOINT_TYPES(X)                                             \
  X(REVOLUTE) X(CONTINUOUS) X(PRISMATIC) X(HELICAL) X(SPHERICAL) X(FIXED) \
  X(PLANAR) X(CYLINDRICAL) X(UNIVERSAL)
#define MB_LOOP_BASIC_TYPES(X) \
  X(D1, d1, 1, 1, 0)           \
  X(D2, d2, 1, 0, 0)           \
  X(S, s, 0, 0, 0)             \
  X(SS, ss, 0, 0, 1)

typedef enum mb_loop_type {
#define MB_LOOP_JOINT_ENUM(NAME) MB_LOOP_##NAME,
#define MB_LOOP_BASIC_ENUM(NAME, name, axis, axis2, distance) MB_LOOP_##NAME,
  MB_LOOP_JOINT_TYPES(MB_LOOP_JOINT_ENUM)
  MB_LOOP_BASIC_TYPES(MB_LOOP_BASIC_ENUM)
#undef MB_LOOP_JOINT_ENUM
#undef MB_LOOP_BASIC_ENUM
  MB_LOOP_TYPE_COUNT
} mb_loop_type;

#define MB_LOOP_MAX_ROWS 6

typedef struct mb_loop {
  mb_loop_type type;
  int a, b;               /* bodies (0 = world), a ≠ b */
  double Ea[9], ra[3];    /* loop frame relative to body a: E rotates a coordinates into loop-frame
                             coordinates, r is the loop frame's origin in a coordinates */
  double Eb[9], rb[3];    /* target frame relative to body b, likewise */
  double axis[3];         /* unit, loop-frame coordinates (revolute ... helical, d1, d2) */
  double axis2[3];        /* d1: unit, target-frame coordinates */
  double pitch;           /* helical: metres per radian */
  double distance;        /* ss: D > 0 */
} mb_loop;

/* The loops of a model and the rows kept (the independent ones: the generator drops the rows that
 * are identically dependent, docs/loops.md). row[r] = MB_LOOP_MAX_ROWS · l + k is row k of loop
 * l, strictly ascending. */
typedef struct mb_loops {
  int nloops;
  const mb_loop *loop;
  int nc;
  const int *row;
} mb_loops;

/* Rows of a loop type (revolute 5, ..., 0 if invalid) and the name of row k ("tilt1"; NULL if
 * out of range). */
int mb_loop_nrows(mb_loop_type t);
const char *mb_loop_row_name(mb_loop_type t, int k);
/* Validate loops against a model: bodies in range and distinct, unit axes (and an axis2 for d1),
 * proper rotations, D > 0 for ss, rows ascending and existing. 0, or -1 and a reason in msg. */
int mb_loops_check(const mb_model *m, const mb_loops *L, char *msg, size_t msgsize);

/* The loops' scratch, laid out like the model's workspace (NR = L->nc). */
#define MB_LWS_NR ((size_t)L->nc)
#define MB_RCR_PLAN_INTS                                                                        \
  ((12 + 2 * MB_RCR_MAX_OPEN) * MB_WS_NB1 + 6 * MB_WS_NV +                                    \
   (17 + MB_RCR_MAX_OPEN) * ((size_t)L->nloops + 1) + 2 * MB_LWS_NR + 16)
/* RCR: the widest tail: 7 + n_I + 6 per open input */
#define MB_RCR_TW (7 + MB_WS_NV + 6 * MB_RCR_MAX_OPEN)
/* RCR: per body, the head's wrench maps (1 + MB_RCR_MAX_OPEN maps of 1 + MB_RCR_MAX_OPEN 6 × 6
 * blocks and a bias) */
#define MB_RCR_HMAP (6 + 36 * (1 + MB_RCR_MAX_OPEN))
#define MB_RCR_HBODY ((1 + MB_RCR_MAX_OPEN) * MB_RCR_HMAP)
#define MB_LOOP_WORKSPACE_ARRAYS(X)                                                             \
  X(pose, 12 * MB_WS_NB1) /* R (body → world, row-major), p: world pose of every body */          \
  X(vel, 6 * MB_WS_NB1) /* ω and the origin's velocity, world coordinates */                     \
  X(acc, 6 * MB_WS_NB1) /* α and the origin's classical acceleration at q̈ = 0, world */         \
  X(bv, 6 * MB_WS_NB1) /* body spatial velocity, body coordinates */                             \
  X(ba, 6 * MB_WS_NB1) /* body spatial acceleration at q̈ = 0 without gravity, body coordinates */ \
  X(phi, MB_LWS_NR) /* residual */                                                               \
  X(g, 12 * MB_LWS_NR) /* row covectors: φ̇_r = g_a · v_a + g_b · v_b, body coordinates */        \
  X(kb, MB_LWS_NR) /* K̇v */                                                                      \
  X(K, MB_LWS_NR * MB_WS_NV) /* constraint Jacobian, row-major */                               \
  X(Y, MB_LWS_NR * MB_WS_NV) /* M⁻¹ Kᵀ (row r: M⁻¹ K_rᵀ) */                                      \
  X(Phi, MB_LWS_NR * MB_LWS_NR) /* K M⁻¹ Kᵀ or K Kᵀ, then its Cholesky factor */                 \
  X(lam, MB_LWS_NR) /* multipliers, Newton right-hand sides */                                  \
  X(dq, MB_WS_NV) /* Newton step, scratch */                                                     \
  X(q0, 7 * MB_WS_NB1) /* projection: the configuration iterated */                           \
  X(rplan, MB_RCR_PLAN_INTS / 2 + 1) /* RCR: the plan of the groups (ints; rcr_plan.c) */        \
  X(rI, 36 * MB_WS_NB1) /* RCR: articulated inertias, world Plücker coordinates */               \
  X(rp, 6 * MB_WS_NB1) /* RCR: articulated bias forces, world */                                 \
  X(rab, 6 * MB_WS_NB1) /* RCR: bias accelerations (q̈ = 0, with −gravity), world */             \
  X(racc, 6 * MB_WS_NB1) /* RCR: accelerations of the bodies (absolute; head: relative), world */ \
  X(rS, 6 * MB_WS_NV) /* RCR: motion subspace columns, world */                                  \
  X(rD, (12 + 6 * MB_RCR_MAX_OPEN) * MB_WS_NV) /* RCR: per dof: U or Sᵀ of the head's maps, D */  \
  X(rH, MB_RCR_HBODY * MB_WS_NB1) /* RCR: the head's wrench maps per body (rcr.c) */           \
  X(rC, 36 * MB_WS_NB1) /* RCR: the heads' pivot references C per body (rcr_heads.c) */      \
  X(ru, MB_WS_NV) /* RCR: per dof: τ − Sᵀ(bias) */                                               \
  X(rPhi, 6 * MB_WS_NB1 * MB_RCR_TW) /* RCR: tail bodies' accelerations, affine maps */          \
  X(rE, MB_LWS_NR * MB_RCR_TW) /* RCR: dependent accelerations, affine maps */                  \
  X(rR, 2 * MB_LWS_NR * MB_LWS_NR + 2 * MB_LWS_NR) /* RCR: the projector recursion's R and ρ */      \
  X(rN, (13 + 6 * MB_RCR_MAX_OPEN) * MB_WS_NV + 1) /* RCR: tail independents' q̈, affine maps */ \
  X(rM, MB_WS_NV * MB_WS_NV + 1) /* RCR: the tail independents' mass matrices, factored */       \
  X(rQ, (5 + MB_RCR_TW) * MB_RCR_TW + 36) /* RCR: a tail's reduced inertia Q, Σ IA Φ, Σ IA */     \
  X(rG, 6 * MB_LWS_NR + 6 * (2 + MB_RCR_MAX_OPEN) * (13 + 6 * MB_RCR_MAX_OPEN) + 24) /* RCR: maps */

typedef struct mb_loop_workspace {
  const mb_model *model;
  const mb_loops *loops;
  unsigned tag; /* MB_LWS_TAG once laid out */
  int nv, nc;
  int singular; /* after MB_ENUMERIC from a constraint solve: 1 + the row whose pivot failed */
#define MB_LOOP_WORKSPACE_FIELD(name, count) double *name;
  MB_LOOP_WORKSPACE_ARRAYS(MB_LOOP_WORKSPACE_FIELD)
#undef MB_LOOP_WORKSPACE_FIELD
} mb_loop_workspace;

#define MB_LWS_TAG 0x6d626c77u /* "mblw" */

/* Bytes the loops' workspace needs (0 for NULL, SIZE_MAX if size_t cannot hold it), and its
 * layout in buffer (aligned for double). MB_OK or MB_EINVAL. */
size_t mb_loop_workspace_size(const mb_model *m, const mb_loops *L);
int mb_loop_workspace_init(mb_loop_workspace *lw, const mb_model *m, const mb_loops *L,
                           void *buffer);

/* φ(q) [nc], K(q) [nc × nv, row-major], and K̇v [nc] (loops.c). Each also leaves in lw the
 * poses (and, for the bias, the velocities) it computed. MB_OK, MB_EINVAL, MB_EWORKSPACE (either
 * workspace), MB_ENUMERIC if an output is not finite. */
int mb_loop_residual(const mb_model *m, const mb_loops *L, mb_workspace *ws,
                     mb_loop_workspace *lw, const double *q, double *phi);
int mb_loop_jacobian(const mb_model *m, const mb_loops *L, mb_workspace *ws,
                     mb_loop_workspace *lw, const double *q, double *K);
int mb_loop_bias(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                 const double *q, const double *v, double *kb);

/* Constrained forward dynamics (fd_loops.c): q̈ and λ with M q̈ + h = τ + Kᵀλ, K q̈ = −K̇v, by the
 * mass matrix (M = Lᵀ D L without fill, Y = M⁻¹ Kᵀ, Φ = K Y, Φ λ = −K̇v − K q̈₀ with q̈₀ the
 * unconstrained accelerations). lambda may be NULL. MB_OK; MB_ENUMERIC if M or Φ is singular to
 * working precision (lw->singular: 1 + the row of Φ whose pivot failed) or an output is not
 * finite. */
int mb_fd_loops(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                const double *q, const double *v, const double *tau, double *qdd,
                double *lambda);

/* The derivatives of mb_fd_loops (loop_derivatives.c; docs/derivatives.md "Closed loops"):
 * ∂q̈/∂q, ∂q̈/∂v, ∂q̈/∂τ (nv × nv) and ∂λ/∂q, ∂λ/∂v, ∂λ/∂τ (nc × nv), row-major, ∂/∂q along the
 * tangent space (as mb_rnea_derivatives), from differentiating M q̈ + h − Kᵀλ = τ and
 * K q̈ + K̇v = 0 at the solution; q̈ and λ are written too (qdd, lambda and the dlam outputs may be
 * NULL). scratch: mb_fd_loops_derivatives_scratch_size(m, L) bytes, aligned for double. Where Φ is
 * regular (mb_fd_loops succeeds) the derivatives exist; the q-columns cost nv passes over the
 * rows (a reference, not a fast path). MB_OK; mb_fd_loops' statuses; MB_EINVAL for a NULL
 * output or scratch; MB_ENUMERIC if an output is not finite. */
size_t mb_fd_loops_derivatives_scratch_size(const mb_model *m, const mb_loops *L);
int mb_fd_loops_derivatives(const mb_model *m, const mb_loops *L, mb_workspace *ws,
                            mb_loop_workspace *lw, void *scratch, const double *q,
                            const double *v, const double *tau, double *qdd, double *lambda,
                            double *dqdd_dq, double *dqdd_dv, double *dqdd_dtau, double *dlam_dq,
                            double *dlam_dv, double *dlam_dtau);

/* Projection onto the constraint manifold (project.c): Newton's method on φ(q) = 0 with the
 * minimum-norm step Δv = −Kᵀ (K Kᵀ + μ 1)⁻¹ φ (μ = 1e-10 · max diag K Kᵀ: redundant rows are
 * harmless), applied with mb_integrate (quaternions stay unit), until max |φ_r| ≤ MB_PROJECT_TOL,
 * at most MB_PROJECT_MAXIT iterations; then v is replaced by its orthogonal projection
 * v − Kᵀ (K Kᵀ)⁻¹ K v onto K v = 0. MB_OK; MB_ENUMERIC if the iteration does not converge or
 * K Kᵀ is singular (q, v are then left as they were on entry). */
#define MB_PROJECT_TOL 1e-12
#define MB_PROJECT_MAXIT 30
int mb_project_q(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                 double *q);
int mb_project_v(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                 const double *q, double *v);

/* Forward dynamics by recursive coordinate reduction (rcr_plan.c, rcr.c; Critchley & Anderson,
 * "A Generalized Recursive Coordinate Reduction Method for Multibody System Dynamics", 2003;
 * docs/loops.md "Recursive coordinate reduction"): the q̈ of mb_fd_loops (the same equations, on
 * the constraint manifold) without multipliers, in O(n + m). Loops that share tree joints form a
 * group, unless every joint they share is in each one's head (independent coordinates on the path
 * out of its base): such coupled loops stay apart and their heads are reduced together, one
 * inertia per open base (the paper's §5), or the joints they share are a path from one's base out
 * to the other's tail and carry only the other's dependents: the first hangs from the second's
 * tail (§5 with eq. 45; rcr_internal.h). At most MB_RCR_MAX_OPEN maps are open on one body,
 * beyond which the loops are grouped. A group's rows are solved for its dependent coordinates. A selection is nc dependent
 * velocity coordinates (every group gets as many as it has rows); dep holds nsel alternatives
 * (row-major nsel × nc) in order of preference. The pivot ratio of a dependent column c is
 * |R c|² / (|c|² + MB_RCR_ZERO Σ|c_d|²), R the projector that removes the columns eliminated
 * before it (from the chain's end) and the sum over the group's dependents (a column of rounding
 * noise counts as zero); a selection's ratio is the smallest over all its groups. The first selection whose ratio
 * is ≥ MB_RCR_SWITCH is used; if none, the one with the largest ratio, if that is above
 * MB_PIVOT_EPS. used (may be NULL) receives the index of the selection used. MB_OK; MB_EINVAL (a
 * NULL argument, nsel < 1, a selection that does not give every group as many dependents as rows,
 * or a coordinate out of range or repeated); MB_ENUMERIC when no selection is regular at q
 * (lw->singular: 1 + the first row of the worst group of the first selection), when a tail's or a
 * head joint's mass matrix fails the pivot rule, or when q̈ is not finite. The generated p_rcr
 * follows the same rule.
 *
 * The reduction's error is ε times the condition of a tail's reduced mass matrix (the paper's
 * M̂_M), which the selection's pivot ratio does not bound. When the smallest pivot ratio of those
 * matrices' Cholesky factors (L_ii² / M̂_ii) is below MB_RCR_REFINE, or that of a head joint
 * below MB_RCR_REFINE_HEAD, or when the plan hangs a loop from another's tail (whatever the
 * ratios: that order of elimination loses more digits), q̈ is refined once against the
 * equations themselves: the residuals
 * r = τ − (M q̈ + h) (mb_rnea) and c = K q̈ + K̇v go through the same reduction without bias terms,
 * and q̈ += δ. A head joint's ratio for its dof a is L_aa² / s_aᵀ C s_a, L the Cholesky factor of
 * its joint's reduced matrix and C its body's inertia (world, with its free subtrees' articulated
 * inertias) plus the tails' Λ_p at that body plus the C of its head children: the head's mass
 * before the heads' own eliminations. A head body without head children takes its joint's
 * diagonal (the same in exact arithmetic; its first dof's ratio is then 1). The generated p_rcr
 * does the same. */
#define MB_RCR_SWITCH 1e-2
#define MB_RCR_REFINE 1e-2
#define MB_RCR_REFINE_HEAD 1e-1
#define MB_RCR_ZERO 1e-12
#define MB_RCR_MAX_OPEN 4
int mb_rcr(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
           int nsel, const int *dep, const double *q, const double *v, const double *tau,
           double *qdd, int *used);
/* A selection regular at q (into dep[nc]): per group, the velocity coordinates taken greedily along
 * each loop's chain (its path from the loops' common body out to body a, then from body b back),
 * from the chain's end (from_start = 0: the paper's default, the last coordinates of the opened
 * loop) or from its start (1); a coordinate is taken if its column keeps a pivot ratio ≥
 * MB_RCR_SWITCH against those taken before (the sum in its ratio over all the group's columns),
 * never if keep (NULL, or nv flags) marks it. MB_OK,
 * MB_EINVAL, or MB_ENUMERIC if some group cannot be completed (lw->singular as above). */
int mb_rcr_select(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                  const double *q, int from_start, const int *keep, int *dep);
/* The pivot ratio of every dependent of the selection dep[nc] at q (ratio[nc], in dep's order),
 * each group eliminated from its chain's end. The smallest ratio into *min (may be NULL). MB_OK,
 * MB_EINVAL (as mb_rcr), MB_ENUMERIC if a ratio is not finite. */
int mb_rcr_pivots(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                  const double *q, const int *dep, double *ratio, double *min);

/* ---------------------------------------------------------------------------------------------
 * Springs (passive.c; docs/dsl.md "spring"). A linear point-to-point spring-damper between the
 * point ra of body a and rb of body b (body coordinates; body 0 is the world, a ≠ b). With
 * d = p_b − p_a in world coordinates, ℓ = |d| and ḋ its rate, the spring pulls the two points
 * together with f = k (ℓ − L0) + c ℓ̇ (tension positive): +f u on a, −f u on b, u = d/ℓ.
 *
 * The zero-length rule: the direction is taken as u = d / ℓε with ℓε = √(d·d + MB_SPRING_EPS²),
 * so the force vector on a is F = k d − k L0 u + c (u·ḋ) u. For ℓ ≫ MB_SPRING_EPS (1e-12 m) this
 * is the law above to a relative 0.5 (ε/ℓ)² (1e-12 at ℓ = 1 µm); at ℓ = 0, where the direction
 * is undefined, F = 0: never NaN for finite inputs, no branch, and continuous in d (with L0 = 0,
 * F = k d + c (u·ḋ) u is also exact everywhere but for the damper's direction). The generated
 * p_passive_forces computes the same expressions. */
#define MB_SPRING_EPS 1e-12

typedef struct mb_spring {
  int a, b;                           /* bodies, 0 = world, a ≠ b */
  double ra[3], rb[3];                /* attachment points in body coordinates of a and b */
  double stiffness, damping, length;  /* k ≥ 0 (N/m), c ≥ 0 (N·s/m), L0 ≥ 0 (m) */
} mb_spring;

typedef struct mb_springs {
  int n;
  const mb_spring *spring; /* [n]; may be NULL when n = 0 */
  /* The joints' own passive forces (docs/dsl.md "Joint properties"), per velocity coordinate k,
   * each array [nv] or NULL for none: −damping[k] q̇_k − friction[k] mb_coulomb_sign(q̇_k) (Coulomb
   * friction made linear inside MB_COULOMB_BAND, continuous: a forward simulation can integrate
   * it) and, for a joint of one coordinate q_j, −stiffness[k] (q_j − q_ref[k]). */
  const double *damping, *friction, *stiffness, *q_ref;
} mb_springs;

/* Validate springs against a model: bodies in range and distinct, finite points, k, c, L0 finite
 * and ≥ 0, the joints' coefficients finite and ≥ 0 (stiffness only on joints of one coordinate).
 * 0, or -1 and a one-line reason in msg (if not NULL). */
int mb_springs_check(const mb_model *m, const mb_springs *S, char *msg, size_t msgsize);

/* τ_passive = Σ J_aᵀ F_a + J_bᵀ F_b [nv], the generalized forces of every spring, plus the
 * joints' damping, friction and stiffness (above), to be ADDED to the applied τ (M q̈ + h = τ +
 * τ_passive). With flexible bodies only the joints' terms (MB_EINVAL with springs). v NULL means zero. Uses ws->XE/Xr, X0E/X0r, v and f.
 * MB_OK, MB_EINVAL (a NULL model, springs, q or tau), MB_EWORKSPACE, MB_ENUMERIC if an output is
 * not finite. No allocation. */
int mb_passive_forces(const mb_model *m, const mb_springs *S, mb_workspace *ws, const double *q,
                      const double *v, double *tau);
/* Forward dynamics with the passive forces (the generator's --passive-in-fd; docs/dsl.md "Joint
 * properties"): out = τ + τ_passive(q, v) [nv] (out may alias tau), the joint forces to hand to
 * mb_aba, mb_crba_fd, mb_fd_loops, mb_contact_fd, mb_rcr or mb_cfa. Uses what mb_passive_forces
 * uses and ws->dx. Returns as mb_passive_forces (MB_EINVAL also for a NULL tau or out). */
int mb_passive_tau(const mb_model *m, const mb_springs *S, mb_workspace *ws, const double *q,
                   const double *v, const double *tau, double *out);
/* The derivatives of q̈ = mb_aba(q, v, τ + τ_passive(q, v)) (τ the applied forces), as
 * mb_aba_derivatives: its answer at τ + τ_passive plus M⁻¹ ∂τ_passive/∂q and M⁻¹ ∂τ_passive/∂v,
 * the joints' terms' being diagonal: −stiffness on ∂/∂q, −damping − friction
 * mb_coulomb_sign_dv(q̇) on ∂/∂v. MB_EINVAL with springs (S->n > 0: their derivatives are not
 * computed) and as mb_aba_derivatives; otherwise as it. */
int mb_aba_derivatives_passive(const mb_model *m, const mb_springs *S, mb_workspace *ws,
                               const double *q, const double *v, const double *tau,
                               double *dqdd_dq, double *dqdd_dv, double *Minv);
/* The same in the independent coordinates of a model with coupled joints (mb_coupling): tau_out
 * = τ + Gᵀ τ_passive(q_full, v_full) (nv_ind; the forces to hand to mb_coupled_fd and
 * mb_coupled_contact_fd), then mb_coupled_fd_derivatives at it plus M_r⁻¹ Gᵀ (∂τ_passive/∂x) G
 * (the joints' terms; x = q, v). scratch as mb_coupled_fd's. MB_EINVAL with springs, else as
 * mb_coupled_fd_derivatives. */
int mb_coupled_fd_derivatives_passive(const mb_model *m, const mb_coupling *c,
                                      const mb_springs *S, mb_workspace *ws, double *scratch,
                                      const double *q, const double *v, const double *tau,
                                      double *tau_out, double *dqdd_dq, double *dqdd_dv,
                                      double *Minv);
/* The springs' potential energy Σ ½ k (ℓ − L0)² (ℓ = |d|, exact), or NaN when an argument is
 * NULL or ws is not laid out for m. Uses ws->XE/Xr and X0E/X0r. */
double mb_spring_energy(const mb_model *m, const mb_springs *S, mb_workspace *ws,
                        const double *q);

/* ---------------------------------------------------------------------------------------------
 * Analyses (docs/analysis.md): hybrid dynamics, prescribed motion, assembly with locks, static
 * equilibrium, stabilization and residuals, integration with error control, contact inverse
 * dynamics. */

/* --- analysis: hybrid dynamics (hybrid.c) --- */
/* Hybrid dynamics (hybrid.c; Featherstone, "Rigid Body Dynamics Algorithms", 2008, §9.2): for
 * every velocity coordinate k with mask[k] = 1 the acceleration is prescribed, q̈_k = in[k], and
 * its force τ_k computed; for mask[k] = 0 the force is given, τ_k = in[k], and q̈_k computed, so
 * that M q̈ + h = τ + Σ Jᵢᵀ fextᵢ holds (fext as mb_rnea's, may be NULL; v NULL: zero). Each dof
 * is switched alone, the dofs of a multi-dof joint too (a floating base's six are the components
 * of its body-frame acceleration). All prescribed: τ = mb_rnea(q, v, in); none: q̈ = mb_aba(q, v,
 * in); a floating base free and its joints prescribed: the base's acceleration and the joint
 * torques of a floating robot given its joint accelerations. qdd[nv] and tau[nv] receive every
 * entry (the prescribed q̈ and the given τ copied); they may not alias in. MB_OK; MB_EINVAL for a
 * NULL argument, a mask entry other than 0 or 1, or a model with flexible bodies; MB_ENUMERIC
 * when the free dofs' D fails the pivot rule (ws->singular: the body) or an output is not
 * finite. Uses the ABA's arrays of ws. */
int mb_hybrid(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
              const int *mask, const double *in, const double *fext, double *qdd,
              double *tau);
/* The same with closed loops (fd_loops_hybrid.c; SD/FAST's prescribed joints in closed-loop
 * systems): M q̈ + h = τ + Kᵀλ, K q̈ = −K̇v with q̈_k = in[k] where mask[k] = 1 (τ_k computed) and
 * τ_k = in[k] where mask[k] = 0 (q̈_k computed); λ [nc] the multipliers (may be NULL). Through the
 * mass matrix as mb_fd_loops, on the free coordinates (the prescribed rows and columns of M
 * replaced by the identity's, K's prescribed columns moved to the right-hand side), then τ on
 * the prescribed coordinates by mb_rnea at q̈ less Kᵀλ. Every dof free: mb_fd_loops' answer. The
 * prescribed accelerations must be consistent with the loops where the free coordinates cannot
 * absorb them. MB_OK; MB_EINVAL as mb_hybrid; MB_ENUMERIC as mb_fd_loops, in particular when Φ =
 * K_F M_FF⁻¹ K_Fᵀ is singular (the free coordinates cannot close a row: lw->singular 1 + that
 * row), e.g. a loop with every coordinate prescribed. */
int mb_fd_loops_hybrid(const mb_model *m, const mb_loops *L, mb_workspace *ws,
                       mb_loop_workspace *lw, const double *q, const double *v, const int *mask,
                       const double *in, double *qdd, double *tau, double *lambda);

/* --- analysis: assembly, initial velocity, stabilization, DAE residual --- */

/* Assembly with locked coordinates (assemble.c; SD/FAST's sdassemble; docs/analysis.md). lock is
 * NULL (nothing locked) or nv flags, 0 or 1, over the velocity coordinates: a multi-dof joint's
 * dofs one by one, a quaternion joint's tangent dofs (body-frame rotation, and for a floating
 * joint its body-frame translation). q is moved onto φ(q) = 0 (max |φ_r| ≤ MB_PROJECT_TOL) by the
 * unlocked coordinates only: Levenberg–Marquardt on ½|φ|² over the free columns F of K, steps
 * Δv_F = −K_Fᵀ (K_F K_Fᵀ + μ 1)⁻¹ φ (μ = λ max diag K_F K_Fᵀ, λ ≥ 1e-10 by Nielsen's update:
 * small while steps reduce |φ|² as predicted, raised when they do not), applied with
 * mb_integrate. Each step is the least-norm one; their sum is the least-distance correction to
 * first order (exactly so as the correction goes to zero: SD/FAST's "approximate least
 * distance"), not the global nearest point. A locked scalar coordinate (a joint with nq = nv
 * other than planar), and every coordinate of a joint whose dofs are all locked, keeps its value
 * bit for bit; a locked dof of a partly locked spherical, floating or planar joint does not move
 * in any step (its tangent component is 0). At most MB_ASSEMBLE_MAXIT evaluations of φ. MB_OK;
 * MB_EINVAL (a flag not 0 or 1, or as mb_project_q); MB_ENUMERIC when the free coordinates
 * cannot close the loops — the iterate reaches a least-squares point with φ ≠ 0 (|K_Fᵀ φ| ≤
 * 1e-8 |K_F| |φ|, or no step reduces |φ|² even at λ = 1e10), or the evaluations run out — with
 * lw->singular = 1 + r, r the kept row with the largest remaining |φ_r| at the best
 * configuration reached (rows in metres, metres² for ss, or dimensionless; rows within 1e-3
 * of the largest tie and the first wins, so a symmetric mechanism's tie names the same row in
 * the runtime and the generated P_assemble whatever the rounding): row r is row
 * L->row[r] % MB_LOOP_MAX_ROWS (mb_loop_row_name) of loop L->row[r] / MB_LOOP_MAX_ROWS, the
 * generated code's P_constraint_names[r]. q is unchanged on failure. Uses ws->IA as scratch. */
#define MB_ASSEMBLE_MAXIT 100
int mb_assemble(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                const int *lock, double *q);
/* Initial velocity with locked coordinates (assemble.c; SD/FAST's sdinitvel): v's unlocked
 * entries moved the least (minimum |Δv|) so that K(q) v = 0, the locked ones kept bit for bit:
 * Δv_F = −K_Fᵀ (K_F K_Fᵀ + μ 1)⁻¹ K v (μ = 1e-10 max diag), refined against K v while the worst
 * ratio |(K v)_r| / (Σ_k |K_rk| max_k |v_k|) halves (at most MB_PROJECT_MAXIT passes); then every
 * row must have |(K v)_r| ≤ MB_INITVEL_TOL Σ_k |K_rk| max_k |v_k|. lock as in mb_assemble.
 * MB_OK; MB_EINVAL (NULL
 * v, a bad flag, as mb_project_v); MB_ENUMERIC when the locked velocities leave K v = 0
 * unsatisfiable (the residual stalls above the tolerance: the least-squares point) or an output
 * is not finite, lw->singular = 1 + the row with the largest remaining |(K v)_r| (as
 * mb_assemble's); v is unchanged on failure. */
#define MB_INITVEL_TOL 1e-10
int mb_initvel(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
               const int *lock, const double *q, double *v);

/* mb_fd_loops with Baumgarte's stabilization (fd_loops.c; Baumgarte, "Stabilization of
 * constraints and integrals of motion in dynamical systems", Computer Methods in Applied
 * Mechanics and Engineering 1, 1972): the acceleration constraint K q̈ = −K̇v − 2α K v − β² φ(q),
 * i.e. φ̈ + 2α φ̇ + β² φ = 0 row by row (φ̇ = K v, φ̈ = K q̈ + K̇v), so a drift decays as a damped
 * oscillator of natural frequency β (1/s) and damping ratio α/β (α = β: critically damped,
 * φ(t) = (φ₀ + (φ̇₀ + β φ₀) t) e^{−βt}). α, β ≥ 0 and finite (else MB_EINVAL); α = β = 0 is
 * mb_fd_loops bit for bit. Statuses and lw->singular as mb_fd_loops'. */
int mb_fd_loops_baumgarte(const mb_model *m, const mb_loops *L, mb_workspace *ws,
                          mb_loop_workspace *lw, const double *q, const double *v,
                          const double *tau, double alpha, double beta, double *qdd,
                          double *lambda);
/* The residual of the loop-closed equations of motion as a DAE, for implicit integrators
 * (fd_loops.c): res[nv + 2 nc] = [M q̈ + h − τ − Kᵀλ (nv); φ(q) (nc); K v (nc)], at any (q, v, q̈,
 * λ, τ); zero (to rounding) at mb_fd_loops' q̈, λ on the manifold (φ = 0, K v = 0). With the
 * kinematic equation q̇ = v the integrator owns: the first two blocks are the index-3 form, the
 * first and third the index-2 form, all three with an extra multiplier μ in q̇ = v + Kᵀμ (μ = 0
 * at the solution) the stabilized index-2 form of Gear, Leimkuhler & Gupta, "GGL" ("Automatic
 * integration of Euler-Lagrange equations with constraints", 1985); an index-1 integrator takes
 * the first block with K q̈ + K̇v = 0 (mb_loop_bias) and keeps φ and K v as invariants
 * (mb_assemble, mb_initvel or the projections). τ is every applied force (add
 * mb_passive_forces). MB_OK, MB_EINVAL (a NULL argument, flexible bodies), MB_EWORKSPACE,
 * MB_ENUMERIC if res is not finite. */
int mb_loops_residual_dae(const mb_model *m, const mb_loops *L, mb_workspace *ws,
                          mb_loop_workspace *lw, const double *q, const double *v,
                          const double *qdd, const double *lambda, const double *tau,
                          double *res);

/* --- analysis: static equilibrium (static.c) --- */

/* Static equilibrium (static.c; docs/analysis.md "Static equilibrium"): q with
 *   r(q) = g(q) − τ_passive(q, 0) − τ = 0   (g = mb_gravity, τ_passive = mb_passive_forces at
 * v = 0: the springs and the joints' stiffness; τ the applied forces, constant) on the unlocked
 * velocity coordinates, and with loops r(q) − K(q)ᵀλ = 0, φ(q) = 0 for q and λ (the sign of
 * mb_fd_loops: there M q̈ + h = τ + τ_passive + Kᵀλ, so q̈ = 0 at the answer). Newton's method
 * along the tangent space (steps by mb_integrate: quaternions stay unit) with a backtracking line
 * search on the merit ½|r − Kᵀλ|² + ½|φ|² (Armijo, halving). The Newton matrix is the stiffness
 * H = ∂r/∂q (mb_static_stiffness) on the unlocked coordinates, for loops the KKT matrix
 * [W −Kᵀ; K 0] with W = H − ∂(Kᵀλ)/∂q at fixed λ, the Hessian of the Lagrangian (included, for
 * quadratic convergence; by central differences of mb_loop_jacobian along the tangent space, step
 * fd_step). Newton finds any root, minima, saddles and maxima alike: the result reports the
 * inertia of the potential's Hessian at the answer (of sym W on the unlocked coordinates, for
 * loops on the null space of K, computed by a symmetric LDLᵀ with Bunch-Kaufman pivoting:
 * Sylvester's law of inertia), and an unstable equilibrium is flagged, not hidden. */
typedef struct mb_static_options {
  double tol;      /* converged when |r − Kᵀλ|∞ ≤ tol · max(1, s) (s = |g|∞ + |τ_passive|∞ +
                      |τ|∞ + |Kᵀλ|∞ on the unlocked coordinates) and |φ|∞ ≤ tol; > 0 */
  int max_iter;    /* Newton steps at most; ≥ 0 */
  double fd_step;  /* central-difference step (radians, metres) of the springs' and the loops'
                      derivatives; > 0 */
  double zero_tol; /* a pivot of the inertia's LDLᵀ with |d| ≤ zero_tol · max |W| counts as a
                      zero eigenvalue; ≥ 0 */
  double *trace;   /* NULL, or max_iter + 1 doubles: |F|∞ = max(|r − Kᵀλ|∞, |φ|∞) at each iterate
                      (written for the iterates reached; entry 0 the start) */
  /* NULL: r and H from the runtime (mb_gravity, mb_passive_forces with S, mb_static_stiffness);
   * else the caller's: r = g(q) − τ_passive(q, 0) [nv] and, when H is not NULL, H = ∂r/∂q
   * [nv × nv, row-major, along the tangent space], e.g. the generated p_gravity, p_passive_forces
   * (v = 0) and p_gravity_derivatives (its dg_dq; a joint's own spring adds its stiffness to the
   * diagonal). Returns 0, or a failure status (< 0) that stops the solve; S is then unread. */
  int (*forces)(void *ctx, const double *q, double *r, double *H);
  void *ctx;       /* handed to forces */
} mb_static_options;
#define MB_STATIC_DEFAULTS {1e-10, 50, 1e-5, 1e-8, NULL, NULL, NULL}

typedef struct mb_static_result {
  int iterations;  /* Newton steps taken */
  double residual; /* |F|∞ at the last iterate (unscaled: N, N·m; φ in its rows' units) */
  int npos, nneg, nzero; /* the Hessian's inertia: counts of positive, negative, zero eigenvalues
                            (on the unlocked coordinates; with loops on the null space of K) */
  int stable;      /* nneg = nzero = 0: a strict local minimum of the potential */
  int saddle;      /* nneg > 0 and npos > 0 */
  int maximum;     /* nneg > 0 and npos = 0: a local maximum (unstable every way) */
  int singular;    /* after MB_ENUMERIC from a singular Newton matrix: 1 + the unknown whose pivot
                      failed (a velocity coordinate k < nv, or nv + r for row r's multiplier) */
} mb_static_result;

/* Bytes of scratch mb_static and mb_static_stiffness need (L may be NULL; SIZE_MAX if size_t
 * cannot hold it); aligned for double. */
size_t mb_static_scratch_size(const mb_model *m, const mb_loops *L);
/* H = ∂(g(q) − τ_passive(q, 0))/∂q [nv × nv, row-major], column k along the tangent space as
 * mb_rnea_derivatives': ∂g/∂q = mb_rnea_derivatives at v = 0, q̈ = 0, minus ∂τ_passive/∂q: a
 * joint's own spring adds its stiffness to the diagonal, the point springs' slope is taken by
 * central differences of mb_passive_forces along the tangent space, step h (> 0; read only if
 * S->n > 0).
 * For scalar joints H is the potential's Hessian (symmetric); along a quaternion's tangent it
 * is so at an equilibrium. S may be NULL (gravity only). MB_OK; MB_EINVAL (NULL m, q, H or
 * scratch, h ≤ 0 with springs, a model with flexible bodies); MB_EWORKSPACE; MB_ENUMERIC. */
int mb_static_stiffness(const mb_model *m, const mb_springs *S, mb_workspace *ws, void *scratch,
                        double h, const double *q, double *H);
/* The equilibrium from the start q [nq], written back into q (and λ [nc] into lambda, may be
 * NULL) only on MB_OK. S: NULL for none; L: NULL or nc = 0 for a tree (lw then unused, may be
 * NULL); tau [nv]: NULL for zero; lock [nv]: NULL, or flags, nonzero = the coordinate is held at
 * its value (its equation dropped; the lock's reaction is its r_k − (Kᵀλ)_k); opt NULL: the
 * defaults; res (may be NULL) is filled on MB_OK and on MB_ENUMERIC. A floating base with no
 * spring and no loop holding it has no equilibrium under gravity (its translation leaves g
 * unchanged and its weight unbalanced): lock its six dofs, else its columns of H are zero and the
 * solve stops with MB_ENUMERIC, res->singular naming the first of its coordinates (so does any
 * coordinate the potential does not depend on: a balanced wheel's spin). Statuses:
 * MB_OK (converged); MB_EINVAL (NULL m, ws, scratch or q, lw NULL with loops, an option out of
 * range, a model with flexible bodies); MB_EWORKSPACE (either workspace); MB_ENUMERIC: the Newton
 * matrix is singular (res->singular; also for rank-deficient or redundant loop rows, and a
 * degenerate equilibrium), the line search cannot lower the merit (the iterates ran into a local
 * minimum of ½|F|² that is not a root: start elsewhere), max_iter is reached, or a value is not
 * finite. Generated code does the same with p_gravity, p_passive_forces (v = 0) and
 * p_rnea_derivatives at v = 0, q̈ = 0 (its ∂τ/∂q is ∂g/∂q); docs/analysis.md. */
int mb_static(const mb_model *m, const mb_springs *S, const mb_loops *L, mb_workspace *ws,
              mb_loop_workspace *lw, void *scratch, const mb_static_options *opt,
              const double *tau, const int *lock, double *q, double *lambda,
              mb_static_result *res);

/* --- analysis: integration with error control (simulate.c) --- */

/* Integration with error control (simulate.c; docs/analysis.md "Integration with error
 * control"): the explicit Runge-Kutta pair of Dormand & Prince, "A family of embedded Runge-Kutta
 * formulae" (J. Comp. Appl. Math. 6(1), 1980), order 5 with an embedded order-4 estimate, FSAL,
 * and the step control of Hairer, Nørsett & Wanner, "Solving Ordinary Differential Equations I"
 * (1993), §II.4: h_new = h·min(5, max(0.2, 0.9·err^(−1/5))) (facmax 1 right after a rejection),
 * their starting-step heuristic when opt->h0 = 0. The positions stay on the joint manifolds by the
 * Munthe-Kaas form (RKMK): stage i is at q ⊕ Θ_i (mb_integrate), Θ_i = h Σ_j a_ij dexp⁻¹_{Θ_j}(V_j)
 * with dexp⁻¹_Θ = Jr(Θ)⁻¹, Jr the right Jacobian of the exponential (mb_integrate_jacobians'
 * Jv, inverted block by block for the spherical, floating and planar joints; the identity for
 * every other coordinate), so the method keeps its order 5 on SO(3), SE(3) and SE(2).
 *
 * The error of a step is the RMS over the 2 nv components of (the tangent increment's error
 * h Σ (b_j − b̂_j) Θ̇_j, the velocity's h Σ (b_j − b̂_j) q̈_j), each divided by atol + rtol·|y|,
 * |y| the larger of its magnitude at the step's start and end: |v_k| for a velocity; for a
 * position direction |q_k| of a scalar coordinate (a modal one too), |p| (the origin's distance)
 * for a floating joint's linear ones and planar joint's x, y, and 1 (radian) for a quaternion's
 * rotation. A step is accepted when the error is ≤ 1. The quadrature states w (below) are
 * integrated by the same stages but are not in the error. */

/* q̈ = f(t, q, v) (nv): e.g. a wrapper of mb_aba, mb_fd_loops, mb_contact_fd or a generated
 * p_aba, p_fd_loops, p_contact_fd. Returns 0, or a failure status (< 0, e.g. MB_ENUMERIC at a
 * singular configuration): the step is then rejected and retried at half its length; when that
 * would go below opt->hmin (or below 16 ulp of max(|t|, |tend|)) the run stops with that status
 * (a positive value is returned as MB_ENUMERIC). */
typedef int (*mb_sim_accel)(void *ctx, double t, const double *q, const double *v, double *qdd);
/* After each accepted step, q and v in place (e.g. mb_project_q then mb_project_v, or the
 * generated p_project_q, p_project_v): 0, or a failure status that stops the run (q, v must then
 * be left at a usable state; mb_simulate returns the status, < 0, a positive one as MB_ENUMERIC).
 * The next step reuses the last stage's q̈ (FSAL) from before the projection: the projection moves
 * the state by the order of the local error, and that q̈ enters the next step times h. */
typedef int (*mb_sim_project)(void *ctx, double t, double *q, double *v);
/* After each accepted step and its projection, with the caller's q, v (and w) holding the state at
 * t: an observer, and the place to handle events (contact switching). Returns MB_OK to go on,
 * MB_SIM_STOP to stop the run there, MB_SIM_RESET when it changed q or v (or the dynamics the
 * accel callback computes): q̈ is evaluated afresh at t before the next step (one more accel
 * call); a status < 0 stops the run and is returned (another positive value: MB_EINVAL). */
typedef int (*mb_sim_event)(void *ctx, double t, double *q, double *v);
/* Quadrature states: ẇ = g(t, q, v) (nw entries), e.g. the work of a force or the energy a damper
 * dissipates, called at every stage with the accel callback. 0, or a failure as accel's. */
typedef int (*mb_sim_quad)(void *ctx, double t, const double *q, const double *v, double *dw);

#define MB_SIM_STOP 1     /* event: stop the run; mb_simulate's result after an event's stop */
#define MB_SIM_RESET 2    /* event: the state or the dynamics changed, evaluate q̈ afresh */
#define MB_SIM_MAXSTEPS 3 /* mb_simulate's result when opt->max_steps were taken before tend */
#define MB_SIM_MAX_QUAD 8 /* the most quadrature states */

typedef struct mb_sim_system {
  mb_sim_accel accel;     /* required */
  mb_sim_project project; /* NULL: none */
  mb_sim_event event;     /* NULL: none */
  mb_sim_quad quad;       /* NULL: none (then nw must be 0) */
  int nw;                 /* quadrature states, 0..MB_SIM_MAX_QUAD */
  void *ctx;              /* handed to every callback */
} mb_sim_system;

typedef struct mb_sim_options {
  double rtol, atol; /* ≥ 0, not both 0 */
  double h0;         /* the first step; 0: Hairer-Nørsett-Wanner's heuristic (one accel call;
                      * none with fixed steps) */
  double hmin;       /* ≥ 0: no step is shorter (but the last, to land on tend); a step of hmin
                      * is accepted whatever its error (stats->forced): hmin = hmax is fixed-step */
  double hmax;       /* 0: tend − t0 */
  long max_steps;    /* accepted steps at most; 0: no limit */
} mb_sim_options;

typedef struct mb_sim_stats {
  long accepted, rejected; /* steps (rejected: by the error or by a failed callback) */
  long forced;             /* accepted at hmin with an error > 1 */
  long naccel;             /* accel calls (= quad calls when there are quadratures) */
  double t;                /* where the run ended: the state q, v, w is at t */
  double h;                /* the last accepted step */
  double h_next;           /* the step proposed for the next one (e.g. opt->h0 to go on) */
} mb_sim_stats;

/* Bytes of scratch mb_simulate needs for m: (2 nq + 19 nv + 8 MB_SIM_MAX_QUAD) doubles, plus
 * nv² when m has a spherical, floating or planar joint (the exponential's Jacobian); 0 for NULL. */
size_t mb_simulate_scratch_size(const mb_model *m);
/* Integrates (q, v) (and w) from t0 to tend (≥ t0) in place: q̈ from sys->accel, q on the joint
 * manifolds, the step chosen by the error estimate (above). opt NULL: rtol 1e-6, atol 1e-9, the
 * rest 0. A step that would end within 1 % of a step short of tend is stretched or cut to land on
 * it. On every return q, v, w hold the last accepted state, at stats->t (stats may be NULL).
 * scratch: mb_simulate_scratch_size(m) bytes, aligned for double. Deterministic; no allocation.
 * MB_OK (at tend); MB_SIM_STOP (the event callback stopped the run); MB_SIM_MAXSTEPS; MB_EINVAL
 * (a NULL m, sys, accel, q, v or scratch, misaligned scratch, nw out of range or w NULL with nw
 * > 0, a tolerance or step negative or not finite, t0 or tend not finite, rtol = atol = 0,
 * hmin > hmax > 0, tend < t0, max_steps < 0); a callback's failure status; MB_ENUMERIC when the
 * step would fall below 16 ulp of max(|t|, |tend|) (and hmin = 0), e.g. as the stages stay
 * non-finite (a non-finite q̈ or error estimate fails the step as a failed accel does). */
int mb_simulate(const mb_model *m, const mb_sim_system *sys, const mb_sim_options *opt, double t0,
                double tend, double *q, double *v, double *w, void *scratch, mb_sim_stats *stats);

/* --- analysis: contact inverse dynamics (contact_id.c) --- */
/* Contact inverse dynamics (docs/analysis.md "Contact inverse dynamics"): given q, v, q̈ and the
 * active contacts (mb_contact_fd's rows Jc, world-aligned, force in its layout), the joint forces
 * τ [nv] and contact forces f with
 *   M q̈ + h = τ + Jcᵀ f,   τ_u = 0 on the unactuated coordinates u,
 * minimizing ½ Σ_a weight_a τ_a² + ½ Σ_r reg_k(r) f_r² over the actuated coordinates a and the
 * active rows r: with b = mb_rnea(q, v, q̈), the least squares min over f of
 * ½ |W^½ (b − Jcᵀ f)_a|² + ½ fᵀ R f subject to (Jcᵀ f)_u = b_u, solved by the null-space method
 * with Householder QR under the pivot rule; among several minimizers (redundant contacts, zero
 * weights) the one of least |f| (the limit of R = ε·1, ε → 0⁺). unactuated: nv flags 0 or 1, or
 * NULL: the coordinates of every floating joint (a floating base's six; none on a fixed base).
 * weight: nv entries ≥ 0 (the unactuated ones unread), or NULL: 1; all zero: the least-norm forces
 * that balance the unactuated rows (f = 0 and τ = mb_rnea on a fully actuated robot). reg: one
 * R_k ≥ 0 per contact, on each of its rows (mb_contact_fd's mu layout), or NULL: 0. active as
 * mb_contact_fd's (an inactive contact's force entries exactly 0); force may be NULL. Round trip:
 * if q̈ = mb_contact_fd(q, v, τ₀) with rigid contacts of independent rows (τ₀_u = 0), the τ, f
 * returned give back that q̈ and this f through mb_contact_fd(q, v, τ) (f = f₀ when the
 * unactuated rows determine f); with reg = mu, mb_contact_fd(q, v, τ, mu) gives back q̈ only if
 * Jc q̈ + J̇c v = −μ f happens to hold. scratch: mb_contact_id_scratch_size(m, C) bytes, aligned
 * for double. MB_OK (τ_u exactly 0); MB_EINVAL (a NULL argument, a misaligned scratch, contacts
 * failing mb_contacts_check, a flag other than 0 or 1, a weight or reg negative or not finite, a
 * model with flexible bodies); MB_EWORKSPACE; MB_ENUMERIC when an output is not finite
 * (ws->singular 0) or the contacts cannot balance the unactuated rows: some |τ_u| > √MB_PIVOT_EPS
 * times the sizes of its terms (|h_u| + Σ |M_uj q̈_j| + Σ |Jc_ru f_r|), e.g. a floating robot
 * without an active contact and a base acceleration other than free flight's; then τ_u holds that
 * unbalanced (base) wrench, the rest of τ and f as computed, and ws->singular the body of the
 * worst row's joint. Uses ws->M. tau and force may not alias the inputs. No allocation. */
size_t mb_contact_id_scratch_size(const mb_model *m, const mb_contacts *C);
int mb_contact_id(const mb_model *m, const mb_frames *F, const mb_contacts *C, mb_workspace *ws,
                  void *scratch, const double *q, const double *v, const double *qdd,
                  const int *active, const int *unactuated, const double *weight,
                  const double *reg, double *tau, double *force);


#endif
