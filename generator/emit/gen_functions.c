/* gen_functions.c — the built-in functions (gen_functions.h). */
#include "emit/gen_functions.h"

#include <string.h>

#define FN(name, group, brief) {name, group, 1, brief, NULL}

const mbg_fn mbg_fns[] = {
    FN("rnea", MBG_FN_DEFAULT, "inverse dynamics: tau = M(q) a + C(q, v) v + g(q)"),
    FN("rnea_ext", MBG_FN_DEFAULT, "rnea with an external wrench on every body"),
    FN("nle", MBG_FN_DEFAULT, "the bias forces h = C(q, v) v + g(q)"),
    FN("nle_ext", MBG_FN_DEFAULT, "nle with an external wrench on every body"),
    FN("gravity", MBG_FN_DEFAULT, "the gravity torques g(q)"),
    FN("crba", MBG_FN_DEFAULT, "the joint-space inertia matrix M(q)"),
    FN("crba_fd", MBG_FN_DEFAULT, "forward dynamics by factoring M: qdd = M^-1 (tau - h)"),
    FN("aba", MBG_FN_DEFAULT, "forward dynamics by the articulated-body algorithm"),
    FN("aba_ext", MBG_FN_DEFAULT, "aba with an external wrench on every body"),
    FN("minv", MBG_FN_DEFAULT, "the inverse of the inertia matrix, M(q)^-1"),
    FN("joint_wrenches", MBG_FN_DEFAULT, "the wrench every joint transmits at (q, v, a)"),
    FN("fk", MBG_FN_DEFAULT, "forward kinematics: every body's world pose"),
    FN("frame_pose", MBG_FN_DEFAULT, "every operational frame's world pose"),
    FN("frame_jacobian", MBG_FN_DEFAULT, "every operational frame's Jacobian, in its own axes"),
    FN("frame_jacobian_world", MBG_FN_DEFAULT, "every operational frame's Jacobian, in world axes"),
    FN("frame_velocity", MBG_FN_DEFAULT, "every operational frame's velocity J v, world axes"),
    FN("frame_acceleration_bias", MBG_FN_DEFAULT,
       "every operational frame's Jdot v (acceleration at qdd = 0), world axes"),
    FN("com", MBG_FN_DEFAULT, "the centre of mass of the moving bodies"),
    FN("com_jacobian", MBG_FN_DEFAULT, "the Jacobian of the centre of mass"),
    FN("energy", MBG_FN_DEFAULT, "the kinetic and the potential energy"),
    FN("centroidal_momentum", MBG_FN_DEFAULT, "the momentum about the centre of mass"),
    FN("ccrba", MBG_FN_DEFAULT, "the centroidal momentum matrix A(q): momentum = A v"),
    FN("centroidal_bias", MBG_FN_DEFAULT, "Adot v, the momentum's rate at qdd = 0"),
    FN("integrate", MBG_FN_DEFAULT, "q + v dt on the configuration manifold"),
    FN("difference", MBG_FN_DEFAULT, "q1 - q0 on the configuration manifold, integrate's inverse"),
    FN("cfa", MBG_FN_DEFAULT, "forward dynamics and joint wrenches by the constraint force "
                              "algorithm"),
    FN("loop_residual", MBG_FN_LOOPS, "the loop-closure residual phi(q)"),
    FN("loop_jacobian", MBG_FN_LOOPS, "the loop constraint Jacobian K(q): K v = d phi / dt"),
    FN("fd_loops", MBG_FN_LOOPS, "forward dynamics closed by the loops (Lagrange multipliers)"),
    {"rcr", MBG_FN_LOOPS, 1, "forward dynamics closed by the loops, recursive coordinate "
                             "reduction",
     "int P_rcr(const double q[P_NQ], const double v[P_NV], const double tau[P_NV], "
     "double qdd[P_NV], int *used);"},
    {"project_q", MBG_FN_LOOPS, 0, "q moved onto phi(q) = 0 (with loop_residual and "
                                   "loop_jacobian)",
     "int P_project_q(double q[P_NQ]);"},
    {"project_v", MBG_FN_LOOPS, 0, "v projected onto K(q) v = 0 (with loop_residual and "
                                   "loop_jacobian)",
     "int P_project_v(const double q[P_NQ], double v[P_NV]);"},
    {"assemble", MBG_FN_LOOPS, 0, "q onto phi(q) = 0 by the unlocked coordinates, least moved",
     "int P_assemble(double q[P_NQ], const int lock[P_NV]);"},
    {"initvel", MBG_FN_LOOPS, 0, "v onto K(q) v = 0 by the unlocked velocities, least moved",
     "int P_initvel(const double q[P_NQ], double v[P_NV], const int lock[P_NV]);"},
    FN("passive_forces", MBG_FN_MODEL, "the springs' and joints' passive forces, to add to tau"),
    FN("node_poses", MBG_FN_MODEL, "the world pose of every node of the flexible bodies"),
    FN("contact_fd", MBG_FN_CONTACTS, "forward dynamics in contact, and the contact forces"),
    FN("contact_fd_reg", MBG_FN_CONTACTS, "contact_fd regularized: compliant or redundant "
                                          "contacts"),
    FN("impulse", MBG_FN_CONTACTS, "an inelastic impact at the contacts switched on"),
    FN("contact_fd_derivatives", MBG_FN_BY_NAME,
       "contact_fd and its derivatives: dqdd and dforce by q, v, tau"),
    FN("contact_fd_reg_derivatives", MBG_FN_BY_NAME,
       "contact_fd_reg and its derivatives: compliant contacts"),
    FN("fd_loops_hybrid", MBG_FN_BY_NAME,
       "fd_loops with prescribed coordinates: hybrid's run-time mask"),
    FN("fd_loops_derivatives", MBG_FN_BY_NAME,
       "fd_loops and its derivatives: dqdd and dlambda by q, v, tau"),
    FN("fd_loops_baumgarte", MBG_FN_BY_NAME,
       "fd_loops stabilized: K qdd = -Kdot v - 2 alpha K v - beta^2 phi"),
    FN("impulse_derivatives", MBG_FN_BY_NAME,
       "impulse and its derivatives: dv_plus and dimpulse by q, v_minus"),
    FN("trig", MBG_FN_TRIG, "the joint angles' sines and cosines, for the P_f_sc functions"),
    FN("dynamics", MBG_FN_BY_NAME, "M, h and qdd from one function (crba, nle and aba fused)"),
    FN("aba_wrenches", MBG_FN_BY_NAME, "qdd as aba, with every joint's wrench"),
    FN("hybrid", MBG_FN_BY_NAME, "hybrid dynamics: each dof's qdd or tau given (run-time mask)"),
    FN("hybrid_fixed", MBG_FN_BY_NAME, "hybrid with the joints of --prescribed prescribed"),
    FN("rnea_derivatives", MBG_FN_BY_NAME, "the derivatives of rnea: dtau/dq, dtau/dv and M"),
    FN("gravity_derivatives", MBG_FN_BY_NAME, "dg/dq, the gravity torques' derivative"),
    FN("rnea_ext_derivatives", MBG_FN_BY_NAME,
       "rnea_derivatives with external wrenches, and dtau/dfext"),
    FN("aba_derivatives", MBG_FN_BY_NAME, "the derivatives of aba: dqdd/dq, dqdd/dv and M^-1"),
    FN("aba_ext_derivatives", MBG_FN_BY_NAME,
       "aba_derivatives with external wrenches, and dqdd/dfext"),
    FN("integrate_jacobians", MBG_FN_BY_NAME,
       "the Jacobians of integrate: d(q + v dt)/dq and /dv, tangent spaces"),
    FN("difference_jacobians", MBG_FN_BY_NAME,
       "the Jacobians of difference: d(q1 - q0)/dq0 and /dq1, tangent spaces"),
    FN("frame_velocity_derivatives", MBG_FN_BY_NAME,
       "dV/dq and dV/dv = J of every frame's V = J v, world axes"),
    FN("frame_velocity_derivatives_local", MBG_FN_BY_NAME,
       "dV/dq and dV/dv = J of V = J v in the frame's axes"),
    FN("frame_acceleration_derivatives", MBG_FN_BY_NAME,
       "dA/dq, dA/dv, dA/da = J of A = J a + Jdot v, world axes"),
    FN("frame_acceleration_derivatives_local", MBG_FN_BY_NAME,
       "dA/dq, dA/dv, dA/da of J a + Jdot v, frame axes"),
    FN("regressor", MBG_FN_BY_NAME, "tau = Y(q, v, a) pi, pi the inertial parameters"),
    FN("energy_regressor", MBG_FN_BY_NAME, "the energies as yk . pi (kinetic), yp . pi (potential)"),
    FN("base_regressor", MBG_FN_BY_NAME, "tau = Yb(q, v, a) beta: the independent columns of Y"),
    FN("base_params", MBG_FN_BY_NAME, "beta = K pi: the base parameters (P_NBASE of them)"),
    FN("joint_regressor", MBG_FN_BY_NAME, "tau_j += Yj(v, a) phi: friction, armature, offset"),
    {NULL, MBG_FN_DEFAULT, 0, NULL, NULL}};

const mbg_fn *mbg_fn_find(const char *name) {
  for (const mbg_fn *f = mbg_fns; f->name; f++)
    if (strcmp(f->name, name) == 0) return f;
  return NULL;
}

int mbg_fn_is(const char *name, mbg_fn_group g) {
  const mbg_fn *f = mbg_fn_find(name);
  return f && f->asked && f->group == g;
}

static const struct {
  const char *key, *title;
} groups[MBG_FN_NGROUPS] = {
    {"default", "generated by default, without --functions (cfa where every body has an "
                "inverse inertia)"},
    {"loops", "added for a model with loop joints"},
    {"model", "added for a model with spring-dampers, or with nodes on its flexible bodies"},
    {"contacts", "added with --contacts"},
    {"trig_input", "added with --trig-input, and P_f_sc(q, sc, ...) of every f that uses it"},
    {"by_name", "generated only when --functions names them"},
};

const char *mbg_fn_group_key(mbg_fn_group g) {
  return (unsigned)g < MBG_FN_NGROUPS ? groups[g].key : "?";
}

const char *mbg_fn_group_title(mbg_fn_group g) {
  return (unsigned)g < MBG_FN_NGROUPS ? groups[g].title : "?";
}
