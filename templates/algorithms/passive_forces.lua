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
local function joint_terms(T, tau)
  for _, b in ipairs(T) do
    for c = 1, b.nv do
      local k = b.iv + c
      local v, t = sym.input("v", k - 1), 0
      if b.damping ~= 0 then t = t - b.damping * v end
      if b.friction ~= 0 then t = t - b.friction * J.coulomb_sign(v) end
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

-- τ_passive (1-based, nv entries; numbers 0 where nothing acts), in the body frames.
local function forces(model)
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
  return tau
end

local P = {
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
    local tau = forces(model)
    for k = 1, model.nv do sym.output("tau", k - 1, tau[k]) end
  end,
}

-- With --passive-in-fd: τ_passive(q, v) of the full coordinates as a 1-based list of nv (built in
-- the body frames whatever the function's); nil without the option. A model with coupled joints
-- folds it with its bias forces (coupled.lua).
function P.fd_passive(model)
  if not model.passive_in_fd then return nil end
  return J.in_body_frames(function() return forces(model) end)
end

-- The joint forces forward dynamics computes with (--passive-in-fd, model.passive_in_fd: aba,
-- crba_fd, fd_loops, the contact functions, rcr, cfa, aba_derivatives; docs/dsl.md "Joint
-- properties"): τ + τ_passive(q, v) as a 1-based list of nv, τ_passive exactly passive_forces'
-- (built in the body frames whatever the function's, J.in_body_frames). nil without the option:
-- the recipes then read the input τ as they always have.
function P.fd_tau(model)
  local tp = P.fd_passive(model)
  if not tp then return nil end
  local t = {}
  for k = 1, model.nv do
    local x = sym.input("tau", k - 1)
    if sym.is_symbolic(tp[k]) or tp[k] ~= 0 then
      x = sym.name(x + sym.name(tp[k], "tau_passive_" .. (k - 1)), "tau_fd_" .. (k - 1))
    end
    t[k] = x
  end
  return t
end

-- With --passive-in-fd, ∂τ/∂q and ∂τ/∂v (1-based nv × nv, the inverse-dynamics derivatives
-- aba_derivatives multiplies by −M⁻¹) less ∂τ_passive: + K on ∂τ/∂q (stiffness), + D + F
-- d(sign)/dv on ∂τ/∂v (damping, smoothed Coulomb friction: J.coulomb_sign_dv). The joints' terms
-- only: with springs an error (their derivatives are not derived yet; the runtime's
-- mb_aba_derivatives_passive refuses them too).
function P.fd_derivatives(model, dq, dv)
  if not model.passive_in_fd then return end
  if #model.springs > 0 then
    error("aba_derivatives is not generated with --passive-in-fd for a model with springs yet "
      .. "(the derivatives of the springs' forces are not derived; the joints' damping, friction "
      .. "and stiffness are)", 0)
  end
  for _, b in ipairs(J.in_body_frames(function() return J.tree(model) end)) do
    for c = 1, b.nv do
      local k = b.iv + c
      local v = sym.input("v", k - 1)
      if b.stiffness ~= 0 and b.nq == 1 then dq[k][k] = dq[k][k] + b.stiffness end
      local d = b.damping
      if b.friction ~= 0 then d = d + b.friction * J.coulomb_sign_dv(v) end
      if sym.is_symbolic(d) or d ~= 0 then dv[k][k] = dv[k][k] + d end
    end
  end
end

return P
