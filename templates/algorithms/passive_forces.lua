-- passive_forces.lua — the generalized forces of the model's springs (docs/dsl.md "spring";
-- runtime/passive.c is the reference): τ = Σ J_aᵀ F_a + J_bᵀ F_b, to be added to the applied τ;
-- and the joints' own (docs/dsl.md "Joint properties"): −d q̇ − f q̇ / max(|q̇|, 10⁻³) (Coulomb
-- friction made linear inside the band, as runtime/mb.h mb_coulomb_sign) − k (q − q_ref).
--
-- A spring pulls the point ra of body a and rb of body b together with f = k (ℓ − L0) + c ℓ̇.
-- With d = p_b − p_a (world) and the zero-length rule of runtime/mb.h (u = d / ℓε,
-- ℓε = √(d·d + ε²), ε = model.spring_eps): F_a = k d − k L0 u + c (u·ḋ) u = −F_b. No branch: at
-- d = 0 the force is 0; L0 = 0 and c = 0 fold their terms away at generation time.
-- The points (model.springs[k].ra, rb) are in the working frames, as everything in the model
-- table; forces are applied as body wrenches and carried to the joints by the RNEA's backward pass.
local sp = import "spatial"
local J = import "joints"
local R = import "rnea"

local function top(x) return { x[1], x[2], x[3] } end
local function bottom(x) return { x[4], x[5], x[6] } end

-- iX0 and the body velocities v_i = [ω; v_o] (body coordinates) of every body.
local function kinematics(model)
  local T = J.tree(model)
  local X, X0, v = {}, { [0] = sp.identity() }, { [0] = sp.zeros(6) }
  for _, b in ipairs(T) do
    local i = b.i
    X[i] = J.Xup(b)
    X0[i] = sp.compose(X[i], X0[b.parent])
    X0[i].E = J.name(X0[i].E, "E0", b)
    X0[i].r = J.name(X0[i].r, "r0", b)
    v[i] = J.name(sp.add(sp.X_mv(X[i], v[b.parent]), J.S_mv(b, J.read(b, "v"))), "v", b)
  end
  return T, X, X0, v
end

-- World position and velocity of the point r of body i.
local function point(X0, v, i, r)
  local E = X0[i].E
  local p = sp.add(X0[i].r, sp.rotT(E, r))
  local vp = sp.rotT(E, sp.add(bottom(v[i]), sp.cross(top(v[i]), r)))
  return p, vp
end

-- τ += the joints' damping, friction and stiffness (their dofs; a flexible body's modes none).
local COULOMB_BAND = 1e-3 -- runtime/mb.h MB_COULOMB_BAND
local function joint_terms(T, tau)
  for _, b in ipairs(T) do
    for c = 1, b.nv do
      local k = b.iv + c
      local v, t = sym.input("v", k - 1), 0
      if b.damping ~= 0 then t = t - b.damping * v end
      if b.friction ~= 0 then t = t - b.friction * (v / sym.fmax(sym.fmax(v, -v), COULOMB_BAND)) end
      if b.stiffness ~= 0 and b.nq == 1 then
        t = t - b.stiffness * (sym.input("q", b.iq) - b.spring_ref)
      end
      tau[k] = tau[k] + t
    end
  end
end

-- The force on body a, world coordinates.
local function force(s, d, dd, eps)
  local l = sym.sqrt(sp.dot(d, d) + eps * eps)
  local u = sp.scale(d, 1 / l)
  local rate = sp.dot(u, dd)
  local F = {}
  for k = 1, 3 do
    F[k] = s.stiffness * d[k] - s.stiffness * s.length * u[k] + s.damping * rate * u[k]
  end
  return F
end

-- f_i += the wrench [r × F_i; F_i] of the world force sign·F at the point r of body i.
local function apply(f, X0, i, r, F, sign)
  if i == 0 then return end
  local Fb = sp.scale(sp.rot(X0[i].E, F), sign)
  local n = sp.cross(r, Fb)
  f[i] = sp.add(f[i], { n[1], n[2], n[3], Fb[1], Fb[2], Fb[3] })
end

return {
  name = "passive_forces",
  summary = "generalized forces of the springs and of the joints' damping, friction and "
    .. "stiffness: tau_passive (add to the applied tau)",
  returns = "void",
  params = {
    { name = "q", role = "q" },
    { name = "v", role = "v" },
    { name = "tau", role = "out_nv" },
  },
  build = function(model)
    local T, tau = J.tree(model), sp.zeros(model.nv)
    if #model.springs > 0 then
      local X, X0, v
      T, X, X0, v = kinematics(model)
      local f = {}
      for i = 1, model.nb do f[i] = sp.zeros(6) end
      for _, s in ipairs(model.springs) do
        local pa, va = point(X0, v, s.a, s.ra)
        local pb, vb = point(X0, v, s.b, s.rb)
        local d = sp.name(sp.sub(pb, pa), "d_" .. s.name)
        local F = sp.name(force(s, d, sp.sub(vb, va), model.spring_eps), "F_" .. s.name)
        apply(f, X0, s.a, s.ra, F, 1)
        apply(f, X0, s.b, s.rb, F, -1)
      end
      tau = R.backward(T, X, f)
    end
    joint_terms(T, tau)
    for k = 1, model.nv do sym.output("tau", k - 1, tau[k]) end
  end,
}
