/* mbt_simbody.h — a model of the runtime (mb_model, mb_loops, mb_springs) rebuilt in Simbody 3.7
 * (Debian's libsimbody-dev), GENERICALLY: any .mbd file loaded with mbt_loopmodel. Shared by the
 * cross-check tests/test_simbody.cpp and the benchmark bench/bench_loops.cpp
 * (docs/loops_simbody.md).
 *
 *   tree joints   revolute, continuous → MobilizedBody::Pin (rotation about the common z of the
 *                 mobilizer frames F, M), prismatic → Slider (along x), helical → Screw (about z,
 *                 translation pitch·q), spherical → Ball, floating → Free, fixed → Weld; F is the
 *                 joint frame turned so that its z (x for Slider) is the joint axis, M the same
 *                 turn in the child body, so the mobilizer's q is exactly ours;
 *   bodies        MassProperties(m, c, inertia about the body origin) from the 10-number inertia;
 *   gravity       Force::UniformGravity; τ through Force::DiscreteForces;
 *   springs       (mb.h "Springs") Force::TwoPointLinearSpring (k, free length L0) and
 *                 Force::TwoPointLinearDamper (c) between the same two points;
 *   loop rows     (mb.h "Closed loops") d2(u) → Constraint::PointInPlane (plane of normal u_a
 *                 through the loop origin, on body a; follower point the target origin on b),
 *                 d1(u, w) → Constraint::ConstantAngle at π/2, ss → Constraint::Rod; the x, y, z
 *                 rows of a loop all kept → one Constraint::Ball, the 6 rows of a fixed loop all
 *                 kept → Constraint::Weld. A kept helical `screw` row has no Simbody counterpart
 *                 with our θ: unsupported() says so.
 * The rows of a constraint differ from ours by a constant factor at most (Ball, PointInPlane,
 * Weld: the same functions in other bases; ConstantAngle: cos θ = u·w; Rod: |d| − D against
 * d·d − D²), so at an assembled state both define the same constraint space and the same q̈.
 *
 * Coordinates. Ours (mb.h): spherical q = [qx qy qz qw] (child → parent, i.e. R_FM), v = ω in the
 * child (M) frame; floating q = [p; quaternion], v = [linear; angular] in the child frame.
 * Simbody's Ball and Free u are ω_FM and v_FM expressed in F (MobilizedBody_Ball.h, _Free.h), so
 * with R = R_FM: u_ω = R ω, u_v = R v_lin, u̇_ω = R ω̇, u̇_v = R (v̇_lin + ω × v_lin); generalized
 * forces map as u (f_u = R τ). Scalar joints are identical. Simbody's own q/u layout is never
 * assumed: each mobilizer is set through its own accessors.
 *
 * Prescribed motion (mb_fd_loops_hybrid's mask = 1). Each joint whose velocity coordinates are
 * all flagged in `prescribed` gets a Motion::Custom at Motion::Acceleration level (method
 * Prescribed): u̇ is prescribed, q and u stay free state values (ours); the u̇ it returns is set
 * by prescribe() from our q̈ with the mapping above (Ball: u̇ = R ω̇; Free: u̇ = [R ω̇;
 * R (v̇ + ω × v)]). Simbody solves M u̇ + τ_p + Gᵀλ + f_inertial = f_applied
 * (SimbodyMatterSubsystem.h) for the free u̇, λ and the motion multipliers τ_p, so the force a
 * Motion applies to its mobilities is −τ_p (findMotionForces unpacks τ_p into u-space slots):
 * motion_forces() returns that, in our coordinates (τ = Rᵀ f_u). */
#ifndef MBT_SIMBODY_H
#define MBT_SIMBODY_H

#include <Simbody.h>

#include <string>
#include <vector>

#include "mbt_loopmodel.h"

class MbtSimbody {
public:
  /* S may be NULL (no springs), as may L be an mb_loops with no loops. prescribed: NULL, or nv
   * flags (0, 1): a joint with all its velocity coordinates flagged gets a prescribed-u̇ Motion;
   * a joint flagged in part makes unsupported() non-empty. */
  MbtSimbody(const mb_model *m, const mb_loops *L, const mb_springs *S,
             const int *prescribed = NULL);
  MbtSimbody(const MbtSimbody &) = delete; /* the Motions point into the object */
  MbtSimbody &operator=(const MbtSimbody &) = delete;

  /* Non-empty when a kept row has no Simbody counterpart (the mechanism is then incomplete). */
  const std::string &unsupported() const { return unsupported_; }
  int nmultipliers() const { return state_.getNMultipliers(); }

  /* Our (q, v, τ) into Simbody's state (Q, U and the mobility forces), not realized. */
  void load(const double *q, const double *v, const double *tau);
  /* load, then realize through Stage::Acceleration. */
  void set(const double *q, const double *v, const double *tau) {
    load(q, v, tau);
    system_.realize(state_, SimTK::Stage::Acceleration);
  }
  /* Simbody's q̈ in our velocity coordinates (after set()). */
  void qdd(const double *q, const double *v, double *out) const;
  /* The prescribed q̈ (our coordinates; only the flagged entries are read) at our (q, v), as the
   * Motions' u̇; call before set(). */
  void prescribe(const double *q, const double *v, const double *qdd);
  /* The generalized force each Motion applies, −findMotionForces, in our coordinates (after
   * set(); zero on the free coordinates). */
  void motion_forces(const double *q, double *out) const;
  /* Largest difference between Simbody's body poses and pose[] (mb_fk's layout). */
  double pose_error(const double *pose) const;
  /* Largest |constraint error| of Simbody at the state (after set()). */
  double qerr() const;

  /* For timing Simbody's own calls (bench/bench_loops.cpp). */
  const SimTK::MultibodySystem &system() const { return system_; }
  SimTK::State &state() { return state_; }
  const SimTK::Force::DiscreteForces &discrete() const { return discrete_; }

private:
  void add_body(int i);
  void add_loop(const mb_loops *L, int l);
  void add_spring(const mb_spring &s);
  void add_motion(int i, const int *prescribed);

  const mb_model *m_;
  SimTK::MultibodySystem system_;
  SimTK::SimbodyMatterSubsystem matter_;
  SimTK::GeneralForceSubsystem forces_;
  SimTK::Force::DiscreteForces discrete_;
  std::vector<SimTK::MobilizedBody> mob_; /* by our body number, [0] = Ground */
  SimTK::State state_;
  std::string unsupported_;
  /* The Motions' u̇ by our body number, in Simbody's u order (the Motions read them here). */
  std::vector<SimTK::Vec6> udot_;
};

#endif
