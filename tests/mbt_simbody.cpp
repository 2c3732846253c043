/* mbt_simbody.cpp — see mbt_simbody.h. */
#include "mbt_simbody.h"

#include <cmath>

using namespace SimTK;

namespace {

/* ------------------------------------------------------------------ the loop rows (mb.h) */

enum RowKind { D1, D2, SS, SCREW };
enum LoopVec { VX, VY, VZ, VAXIS, VU1, VU2, VAXIS2 };
struct RowDef {
  RowKind kind;
  LoopVec u, w; /* d1: u on a, w on b; d2: u on a */
};

/* The catalogue of mb.h "Closed loops" (the runtime's runtime/loops.c), row k of type t. */
RowDef row_def(mb_loop_type t, int k) {
  static const RowDef revolute[] = {{D2, VX, VX}, {D2, VY, VX}, {D2, VZ, VX}, {D1, VU1, VAXIS},
                                    {D1, VU2, VAXIS}};
  static const RowDef prismatic[] = {{D1, VU1, VAXIS}, {D1, VU2, VAXIS}, {D1, VU1, VU2},
                                     {D2, VU1, VX},    {D2, VU2, VX}};
  static const RowDef helical[] = {{D1, VU1, VAXIS}, {D1, VU2, VAXIS}, {D2, VU1, VX},
                                   {D2, VU2, VX},    {SCREW, VX, VX}};
  static const RowDef s[] = {{D2, VX, VX}, {D2, VY, VX}, {D2, VZ, VX}};
  static const RowDef fixed[] = {{D2, VX, VX}, {D2, VY, VX}, {D2, VZ, VX},
                                 {D1, VX, VZ}, {D1, VY, VZ}, {D1, VX, VY}};
  static const RowDef d1 = {D1, VAXIS, VAXIS2}, d2 = {D2, VAXIS, VX}, ss = {SS, VX, VX};
  switch (t) {
  case MB_LOOP_REVOLUTE:
  case MB_LOOP_CONTINUOUS: return revolute[k];
  case MB_LOOP_PRISMATIC: return prismatic[k];
  case MB_LOOP_HELICAL: return helical[k];
  case MB_LOOP_SPHERICAL:
  case MB_LOOP_S: return s[k];
  case MB_LOOP_FIXED: return fixed[k];
  case MB_LOOP_D1: return d1;
  case MB_LOOP_D2: return d2;
  default: return ss;
  }
}

/* u1: the coordinate axis least aligned with a (the first of equals), Gram-Schmidt; u2 = a × u1. */
void loop_perp(const double a[3], Vec3 &u1, Vec3 &u2) {
  int k = 0;
  for (int j = 1; j < 3; j++)
    if (std::fabs(a[j]) < std::fabs(a[k])) k = j;
  Vec3 av(a[0], a[1], a[2]), e(0);
  e[k] = 1.0;
  u1 = e - a[k] * av;
  u1 /= u1.norm();
  u2 = av % u1;
}

/* A loop vector in loop-frame (= target-frame) components. */
Vec3 loop_vec(const mb_loop &l, LoopVec v) {
  Vec3 u1, u2;
  switch (v) {
  case VX: return Vec3(1, 0, 0);
  case VY: return Vec3(0, 1, 0);
  case VZ: return Vec3(0, 0, 1);
  case VAXIS: return Vec3(l.axis[0], l.axis[1], l.axis[2]);
  case VAXIS2: return Vec3(l.axis2[0], l.axis2[1], l.axis2[2]);
  case VU1: loop_perp(l.axis, u1, u2); return u1;
  default: loop_perp(l.axis, u1, u2); return u2;
  }
}

/* E rotates body coordinates into frame coordinates (mb.h): the frame's axes in the body are
 * the rows of E, R_body,frame = Eᵀ. */
Rotation frame_rotation(const double *E) {
  Mat33 R;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) R(i, j) = E[3 * j + i];
  return Rotation(R);
}

Vec3 vec3(const double *p) { return Vec3(p[0], p[1], p[2]); }

Rotation quat_rotation(const double *q) { /* ours [x y z w] */
  return Rotation(Quaternion(q[3], q[0], q[1], q[2]));
}

/* A mobilizer's u̇ prescribed (Motion::Acceleration, method Prescribed): q and u stay free state
 * values; the values are read from *udot, which MbtSimbody::prescribe sets. */
class PrescribedUDot : public Motion::Custom::Implementation {
public:
  explicit PrescribedUDot(const Vec6 *udot) : udot_(udot) {}
  Implementation *clone() const override { return new PrescribedUDot(*this); }
  Motion::Level getLevel(const State &) const override { return Motion::Acceleration; }
  void calcPrescribedAcceleration(const State &, int nu, Real *udot) const override {
    for (int k = 0; k < nu; k++) udot[k] = (*udot_)[k];
  }

private:
  const Vec6 *udot_;
};

} // namespace

MbtSimbody::MbtSimbody(const mb_model *m, const mb_loops *L, const mb_springs *S,
                       const int *prescribed)
    : m_(m), matter_(system_), forces_(system_), discrete_(forces_, matter_),
      udot_((size_t)m->nb + 1, Vec6(0)) {
  mob_.push_back(matter_.Ground());
  for (int i = 1; i <= m->nb; i++) add_body(i);
  for (int i = 1; prescribed && i <= m->nb; i++) add_motion(i, prescribed);
  Force::UniformGravity(forces_, matter_, vec3(m->gravity));
  for (int l = 0; L && l < L->nloops; l++) add_loop(L, l);
  for (int k = 0; S && k < S->n; k++) add_spring(S->spring[k]);
  state_ = system_.realizeTopology();
  system_.realizeModel(state_);
  system_.realize(state_, Stage::Instance); // the constraint equations are counted here
}

void MbtSimbody::load(const double *q, const double *v, const double *tau) {
  for (int i = 1; i <= m_->nb; i++) {
    const MobilizedBody &b = mob_[(size_t)i];
    const double *qi = q + m_->iq[i], *vi = v + m_->iv[i], *ti = tau + m_->iv[i];
    switch (m_->jtype[i]) {
    case MB_JOINT_SPHERICAL: {
      Rotation R = quat_rotation(qi);
      b.setQToFitRotation(state_, R);
      b.setUToFitAngularVelocity(state_, R * vec3(vi));
      Vec3 f = R * vec3(ti);
      for (int k = 0; k < 3; k++) discrete_.setOneMobilityForce(state_, b, MobilizerUIndex(k), f[k]);
      break;
    }
    case MB_JOINT_FLOATING: {
      Rotation R = quat_rotation(qi + 3);
      b.setQToFitTransform(state_, Transform(R, vec3(qi)));
      b.setUToFitVelocity(state_, SpatialVec(R * vec3(vi + 3), R * vec3(vi)));
      Vec3 n = R * vec3(ti + 3), f = R * vec3(ti); /* u = [ω; v] */
      for (int k = 0; k < 3; k++) {
        discrete_.setOneMobilityForce(state_, b, MobilizerUIndex(k), n[k]);
        discrete_.setOneMobilityForce(state_, b, MobilizerUIndex(3 + k), f[k]);
      }
      break;
    }
    case MB_JOINT_FIXED: break;
    default: /* one coordinate, or a universal joint's two (Simbody's u = q̇ as ours) */
      for (int k = 0; k < mb_joint_nv(m_->jtype[i]); k++) {
        b.setOneQ(state_, k, qi[k]);
        b.setOneU(state_, k, vi[k]);
        discrete_.setOneMobilityForce(state_, b, MobilizerUIndex(k), ti[k]);
      }
    }
  }
}

void MbtSimbody::qdd(const double *q, const double *v, double *out) const {
  for (int i = 1; i <= m_->nb; i++) {
    Vector ud = mob_[(size_t)i].getUDotAsVector(state_);
    const double *vi = v + m_->iv[i];
    double *o = out + m_->iv[i];
    switch (m_->jtype[i]) {
    case MB_JOINT_SPHERICAL: {
      Vec3 w = ~quat_rotation(q + m_->iq[i]) * Vec3(ud[0], ud[1], ud[2]);
      for (int k = 0; k < 3; k++) o[k] = w[k];
      break;
    }
    case MB_JOINT_FLOATING: {
      Rotation R = quat_rotation(q + m_->iq[i] + 3);
      Vec3 w = ~R * Vec3(ud[0], ud[1], ud[2]);
      Vec3 a = ~R * Vec3(ud[3], ud[4], ud[5]) - vec3(vi + 3) % vec3(vi);
      for (int k = 0; k < 3; k++) o[k] = a[k], o[3 + k] = w[k];
      break;
    }
    case MB_JOINT_FIXED: break;
    default:
      for (int k = 0; k < mb_joint_nv(m_->jtype[i]); k++) o[k] = ud[k];
    }
  }
}

void MbtSimbody::prescribe(const double *q, const double *v, const double *qdd) {
  for (int i = 1; i <= m_->nb; i++) {
    const double *qi = q + m_->iq[i], *vi = v + m_->iv[i], *ai = qdd + m_->iv[i];
    Vec6 &u = udot_[(size_t)i];
    switch (m_->jtype[i]) {
    case MB_JOINT_SPHERICAL: {
      Vec3 w = quat_rotation(qi) * vec3(ai);
      for (int k = 0; k < 3; k++) u[k] = w[k];
      break;
    }
    case MB_JOINT_FLOATING: { /* u = [ω; v] in F: u̇ = [R ω̇; R (v̇ + ω × v)] */
      Rotation R = quat_rotation(qi + 3);
      Vec3 w = R * vec3(ai + 3), a = R * (vec3(ai) + vec3(vi + 3) % vec3(vi));
      for (int k = 0; k < 3; k++) u[k] = w[k], u[3 + k] = a[k];
      break;
    }
    case MB_JOINT_FIXED: break;
    default:
      for (int k = 0; k < mb_joint_nv(m_->jtype[i]); k++) u[k] = ai[k];
    }
  }
  state_.invalidateAllCacheAtOrAbove(Stage::Dynamics); /* the Motions' u̇ are computed there */
}

void MbtSimbody::motion_forces(const double *q, double *out) const {
  Vector f;
  matter_.findMotionForces(state_, f);
  for (int i = 1; i <= m_->nb; i++) {
    const MobilizedBody &b = mob_[(size_t)i];
    int nu = b.getNumU(state_);
    Vec6 fu(0);
    for (int k = 0; k < nu; k++) fu[k] = -b.getOneFromUPartition(state_, k, f);
    double *o = out + m_->iv[i];
    switch (m_->jtype[i]) {
    case MB_JOINT_SPHERICAL: {
      Vec3 t = ~quat_rotation(q + m_->iq[i]) * Vec3(fu[0], fu[1], fu[2]);
      for (int k = 0; k < 3; k++) o[k] = t[k];
      break;
    }
    case MB_JOINT_FLOATING: {
      Rotation R = quat_rotation(q + m_->iq[i] + 3);
      Vec3 n = ~R * Vec3(fu[0], fu[1], fu[2]), t = ~R * Vec3(fu[3], fu[4], fu[5]);
      for (int k = 0; k < 3; k++) o[k] = t[k], o[3 + k] = n[k];
      break;
    }
    case MB_JOINT_FIXED: break;
    default:
      for (int k = 0; k < nu; k++) o[k] = fu[k];
    }
  }
}

double MbtSimbody::pose_error(const double *pose) const {
  double err = 0;
  for (int i = 1; i <= m_->nb; i++) {
    const Transform &X = mob_[(size_t)i].getBodyTransform(state_);
    const double *P = pose + 12 * i;
    for (int r = 0; r < 3; r++) {
      for (int c = 0; c < 3; c++) err = std::fmax(err, std::fabs(X.R()[r][c] - P[3 * r + c]));
      err = std::fmax(err, std::fabs(X.p()[r] - P[9 + r]));
    }
  }
  return err;
}

double MbtSimbody::qerr() const {
  const Vector &e = state_.getQErr();
  double err = 0;
  for (int k = 0; k < e.size(); k++) err = std::fmax(err, std::fabs(e[k]));
  return err;
}

void MbtSimbody::add_body(int i) {
  const double *I = m_->inertia + 10 * i;
  double mass = I[0];
  Vec3 com = mass > 0 ? Vec3(I[1], I[2], I[3]) / mass : Vec3(0);
  Body::Rigid body(MassProperties(mass, com, Inertia(I[4], I[5], I[6], I[7], I[8], I[9])));
  MobilizedBody &parent = mob_[(size_t)m_->parent[i]];
  Rotation R_PJ = frame_rotation(m_->XT_E + 9 * i);
  Vec3 r = vec3(m_->XT_r + 3 * i);
  UnitVec3 a(vec3(m_->axis + 3 * i));
  switch (m_->jtype[i]) {
  case MB_JOINT_REVOLUTE:
  case MB_JOINT_CONTINUOUS: {
    Rotation R_JF(a, ZAxis);
    mob_.push_back(MobilizedBody::Pin(parent, Transform(R_PJ * R_JF, r), body, Transform(R_JF)));
    break;
  }
  case MB_JOINT_PRISMATIC: {
    Rotation R_JF(a, XAxis);
    mob_.push_back(
        MobilizedBody::Slider(parent, Transform(R_PJ * R_JF, r), body, Transform(R_JF)));
    break;
  }
  case MB_JOINT_HELICAL: {
    Rotation R_JF(a, ZAxis);
    mob_.push_back(MobilizedBody::Screw(parent, Transform(R_PJ * R_JF, r), body,
                                        Transform(R_JF), m_->pitch[i]));
    break;
  }
  case MB_JOINT_SPHERICAL:
    mob_.push_back(MobilizedBody::Ball(parent, Transform(R_PJ, r), body, Transform()));
    break;
  case MB_JOINT_FLOATING:
    mob_.push_back(MobilizedBody::Free(parent, Transform(R_PJ, r), body, Transform()));
    break;
  case MB_JOINT_UNIVERSAL: { /* Simbody's: about F's x, then about the new y: F = (a, a2, a × a2) */
    Rotation R_JF(a, XAxis, vec3(m_->axis2 + 3 * i), YAxis);
    mob_.push_back(
        MobilizedBody::Universal(parent, Transform(R_PJ * R_JF, r), body, Transform(R_JF)));
    break;
  }
  default: mob_.push_back(MobilizedBody::Weld(parent, Transform(R_PJ, r), body, Transform()));
  }
}

/* A prescribed-u̇ Motion on body i's mobilizer when all its velocity coordinates are flagged. */
void MbtSimbody::add_motion(int i, const int *prescribed) {
  int nv = mb_joint_nv(m_->jtype[i]), n = 0;
  for (int k = 0; k < nv; k++) n += prescribed[m_->iv[i] + k] != 0;
  if (n == 0) return;
  if (n < nv) {
    unsupported_ = "a multi-dof joint prescribed in part (a Motion drives all its mobilities)";
    return;
  }
  Motion::Custom(mob_[(size_t)i], new PrescribedUDot(&udot_[(size_t)i]));
}

void MbtSimbody::add_loop(const mb_loops *L, int l) {
  const mb_loop &lp = L->loop[l];
  bool kept[MB_LOOP_MAX_ROWS] = {false};
  for (int r = 0; r < L->nc; r++)
    if (L->row[r] / MB_LOOP_MAX_ROWS == l) kept[L->row[r] % MB_LOOP_MAX_ROWS] = true;
  MobilizedBody &A = mob_[(size_t)lp.a], &B = mob_[(size_t)lp.b];
  Rotation R_aL = frame_rotation(lp.Ea), R_bT = frame_rotation(lp.Eb);
  Vec3 ra = vec3(lp.ra), rb = vec3(lp.rb);
  bool point = lp.type == MB_LOOP_REVOLUTE || lp.type == MB_LOOP_CONTINUOUS ||
               lp.type == MB_LOOP_SPHERICAL || lp.type == MB_LOOP_S || lp.type == MB_LOOP_FIXED;
  int first = 0;
  if (lp.type == MB_LOOP_FIXED && kept[0] && kept[1] && kept[2] && kept[3] && kept[4] &&
      kept[5]) {
    Constraint::Weld(A, Transform(R_aL, ra), B, Transform(R_bT, rb));
    return;
  }
  if (point && kept[0] && kept[1] && kept[2]) {
    Constraint::Ball(A, ra, B, rb);
    first = 3;
  }
  for (int k = first; k < mb_loop_nrows(lp.type); k++) {
    if (!kept[k]) continue;
    RowDef d = row_def(lp.type, k);
    switch (d.kind) {
    case D2: {
      UnitVec3 n(R_aL * loop_vec(lp, d.u));
      Constraint::PointInPlane(A, n, ~n * ra, B, rb);
      break;
    }
    case D1:
      Constraint::ConstantAngle(A, UnitVec3(R_aL * loop_vec(lp, d.u)), B,
                                UnitVec3(R_bT * loop_vec(lp, d.w)), Pi / 2);
      break;
    case SS: Constraint::Rod(A, ra, B, rb, lp.distance); break;
    case SCREW: unsupported_ = "a helical loop's screw row"; break;
    }
  }
}

/* f = k (ℓ − L0) + c ℓ̇ pulling the points together (mb.h "Springs"): Simbody's spring (f =
 * k (x − x0) along the line) plus its damper (c times the rate of separation, opposing it). The
 * runtime's zero-length rule (u = d / √(d·d + ε²)) differs by a relative (ε/ℓ)²/2, nothing at
 * the lengths of the examples. */
void MbtSimbody::add_spring(const mb_spring &s) {
  const MobilizedBody &A = mob_[(size_t)s.a], &B = mob_[(size_t)s.b];
  if (s.stiffness != 0)
    Force::TwoPointLinearSpring(forces_, A, vec3(s.ra), B, vec3(s.rb), s.stiffness, s.length);
  if (s.damping != 0) Force::TwoPointLinearDamper(forces_, A, vec3(s.ra), B, vec3(s.rb), s.damping);
}

