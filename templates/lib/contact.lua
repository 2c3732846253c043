-- contact.lua — contact-constrained dynamics at the frames of --contacts (model.contacts): the
-- recipes contact_fd, contact_fd_reg and impulse are its instances; the runtime's mb_contact_fd
-- and mb_impulse (runtime/contact.c) compute the same through the mass matrix.
--
-- A contact at frame f on body i holds rows of the frame's world-aligned Jacobian: a point contact
-- (dim 3) the velocity of the frame's origin along the world axes e_a, a welded frame (dim 6) its
-- angular velocity too. With n = E0_i e_a (world axis a in body i's working frame) and r the
-- frame's origin on the body, row a is the covector g = [r × n; n] (velocity of the origin) or
-- [n; 0] (angular) of the body's spatial velocity: e_a · (v_o + ω × r) = g · v_i. Its bias is the
-- world component of the origin's classical acceleration (or of ω̇) at q̈ = 0 (frames.lua).
--
-- The rows are swept through the articulated-body backward pass as fd_loops.lua's (Featherstone,
-- "Rigid Body Dynamics Algorithms", 2008, ch. 8: Φ = Jc M⁻¹ Jcᵀ from the innovations; Kang & Yoon
-- for the sweep): contact_fd solves M q̈ + h = τ + Jcᵀ f, Jc q̈ = −J̇c v; contact_fd_reg the same
-- with Φ + diag(μ) (Jc q̈ + J̇c v = −μ f: a compliant contact, defined for redundant contacts);
-- impulse an inelastic impact, M (v⁺ − v⁻) = Jcᵀ Λ, Jc v⁺ = 0 (ch. 11).
--
-- contacts[k] (0 or 1; the C function refuses anything else) switches contact k on: an inactive
-- contact's rows become Φ_rr = 1 (+ μ), Φ_rc = 0 and right-hand side 0, so its force is exactly 0
-- and it constrains nothing. The arithmetic is the same for every mask.
local sp = import "spatial"
local rnea = import "rnea"
local aba = import "aba"
local PF = import "passive_forces"
local FL = import "fd_loops"
local FR = import "frames"
local L = import "loops"
local CP = import "coupled"

local C = {}

-- The rows of every contact: { loop = { a = body, b = 0 }, g (12: body a's covector, then zeros),
-- dd (the row's acceleration at q̈ = 0; nil without wd and ac), k (the contact, 1-based) }.
local function rows_of(model, X0, v, wd, ac)
  if #(model.contacts or {}) == 0 then
    error("the contact functions need the frames in contact: --contacts FRAME[:3|:6],...", 0)
  end
  local rows = {}
  for k, c in ipairs(model.contacts) do
    local f = model.frames[c.frame]
    local i, r = f.body, f.X.r
    local E = X0[i].E
    local w, acc, alpha = { v[i][1], v[i][2], v[i][3] }, nil, nil
    if wd then -- the biases (impulse has none)
      acc = sp.rotT(E, sp.add(ac[i], sp.mat3_mv(sp.U(w, wd[i]), r)))
      alpha = sp.rotT(E, wd[i])
    end
    for a = 1, c.dim do
      local lin = c.dim == 3 or a > 3
      local ax = c.dim == 3 and a or (lin and a - 3 or a)
      local e = { 0, 0, 0 }
      e[ax] = 1
      local n = sp.rot(E, e)
      local top = lin and sp.cross(r, n) or n
      local bot = lin and n or { 0, 0, 0 }
      local g = { top[1], top[2], top[3], bot[1], bot[2], bot[3], 0, 0, 0, 0, 0, 0 }
      local dd = wd and (lin and acc[ax] or alpha[ax]) or nil
      rows[#rows + 1] = { loop = { a = i, b = 0 }, g = g, dd = dd, k = k }
    end
  end
  return rows
end

-- g · x on body a's side (x a spatial vector of body a).
local function row_dot(row, x)
  local s = 0
  for c = 1, 6 do s = s + row.g[c] * x[c] end
  return s
end

-- (Φ + diag μ) with the mask, factored; Φ_rc = entry(r, c) (c ≤ r).
local function masked_system(entry, rows, on, mu)
  local Phi, ref = {}, {}
  for r = 1, #rows do
    Phi[r] = {}
    for c = 1, r do
      local s = entry(r, c)
      local kr, kc = rows[r].k, rows[c].k
      if r == c then
        s = on[kr] * s + (1 - on[kr])
        if mu then s = s + mu[kr] end
      else
        s = (on[kr] * on[kc]) * s
      end
      Phi[r][c] = sym.name(s, "Phi_" .. (r - 1) .. "_" .. (c - 1))
    end
    ref[r] = Phi[r][r]
  end
  return sp.ldl(Phi, #rows, function(d, l, Rl)
    sym.pivot(d, Rl, "contact row " .. (l - 1))
  end, ref)
end

-- Φ_rc = Σ_i u_r,iᵀ D_i⁻¹ u_c,i as fd_loops.lua's.
local function system(T, jt, ur, rows, on, mu)
  return masked_system(function(r, c) return FL.phi_entry(T, jt, ur, r, c) end, rows, on, mu)
end

-- With coupled joints (coupled.lua): Φ given, J_r M_r⁻¹ J_rᵀ.
local function given_system(Phi, rows, on, mu)
  return masked_system(function(r, c) return Phi[r][c] end, rows, on, mu)
end

local function mask(model)
  local on = {}
  for k = 1, #model.contacts do on[k] = sym.input("contacts", k - 1) end
  return on
end

-- q̈ (by dof, 1-based) and the force rows f of contact_fd (regularized: contact_fd_reg's, with the
-- input mu); with coupled joints q̈ in the independent coordinates.
function C.solve_fd(model, regularized)
  local _, X0 = FR.world(model)
  local _, _, v, wd, ac = FR.still_pass(model)
  local rows = rows_of(model, X0, v, wd, ac)
  local on, mu = mask(model), nil
  if regularized then
    mu = {}
    for k = 1, #model.contacts do mu[k] = sym.input("mu", k - 1) end
  end
  if model.coupling then -- coupled joints: in the independent coordinates (coupled.lua)
    return CP.contact(model, rows, L.kinematics(model, nil), on, mu, false, given_system)
  end
  local T, X, _, pA = rnea.forward(model, "v", nil)
  local jt, u, ur = FL.backward(T, X, pA, rows, PF.fd_tau(model))
  local qdd0, da = aba.forward(T, X, jt, u, "da")
  local gam = {}
  for r, row in ipairs(rows) do gam[r] = on[row.k] * -(row.dd + row_dot(row, da[row.loop.a])) end
  local f = sp.ldl_solve(system(T, jt, ur, rows, on, mu), gam)
  local qddl = aba.forward(T, X, jt, FL.innovations(T, ur, f), "dal")
  local qdd = {}
  for _, b in ipairs(T) do
    for c = 1, b.nv do qdd[b.iv + c] = qdd0[b.i][c] + qddl[b.i][c] end
  end
  return qdd, f
end

local function build_fd(model, regularized)
  local qdd, f = C.solve_fd(model, regularized)
  for k, x in ipairs(qdd) do sym.output("qdd", k - 1, x) end
  for r = 1, #f do sym.output("force", r - 1, f[r]) end
end

-- v⁺ (by dof, 1-based) and the impulse rows Λ of impulse; with coupled joints v⁺ in the
-- independent coordinates.
function C.solve_impulse(model)
  if model.coupling then -- coupled joints: in the independent coordinates (coupled.lua)
    local _, X0 = FR.world(model)
    local _, _, v = rnea.forward(setmetatable({ gravity = { 0, 0, 0 } }, { __index = model }),
                                 "v_minus", nil)
    local rows = rows_of(model, X0, v, nil, nil)
    return CP.contact(model, rows, L.kinematics(model, nil), mask(model), nil, true,
                      given_system)
  end
  local still = setmetatable({ gravity = { 0, 0, 0 } }, { __index = model })
  local T, X, v = rnea.forward(still, "v_minus", nil)
  local _, X0 = FR.world(model)
  local rows = rows_of(model, X0, v, nil, nil)
  local on = mask(model)
  local pA = {}
  for _, b in ipairs(T) do pA[b.i] = sp.zeros(6) end
  local jt, _, ur = FL.backward(T, X, pA, rows, false)
  local gam = {}
  for r, row in ipairs(rows) do gam[r] = on[row.k] * -row_dot(row, v[row.loop.a]) end
  local lambda = sp.ldl_solve(system(T, jt, ur, rows, on, nil), gam)
  local dv = aba.forward(T, X, jt, FL.innovations(T, ur, lambda), "dv")
  local vplus = {}
  for _, b in ipairs(T) do
    for c = 1, b.nv do vplus[b.iv + c] = sym.input("v_minus", b.iv + c - 1) + dv[b.i][c] end
  end
  return vplus, lambda
end

local function build_impulse(model)
  local vplus, lambda = C.solve_impulse(model)
  for k, x in ipairs(vplus) do sym.output("v_plus", k - 1, x) end
  for r = 1, #lambda do sym.output("impulse", r - 1, lambda[r]) end
end

local recipes = {
  contact_fd = {
    summary = "forward dynamics in contact at the frames of --contacts: M qdd + h = tau + Jc^T "
      .. "force, Jc qdd = -Jcdot v over the contacts switched on (contacts[k] 0 or 1); force per "
      .. "contact in world axes (3: the force at the frame origin; 6: [moment; force])",
    params = { { name = "q", role = "q" }, { name = "v", role = "v" }, { name = "tau", role = "tau" },
               { name = "contacts", role = "contacts" }, { name = "qdd", role = "out_nv" },
               { name = "force", role = "out_cforce" } },
    build = function(model) build_fd(model, false) end,
  },
  contact_fd_reg = {
    summary = "contact_fd regularized: (Jc M^-1 Jc^T + diag(mu)) force = ..., so that Jc qdd + "
      .. "Jcdot v = -mu force (mu >= 0 per contact: compliant contacts; defined for redundant ones)",
    params = { { name = "q", role = "q" }, { name = "v", role = "v" }, { name = "tau", role = "tau" },
               { name = "contacts", role = "contacts" }, { name = "mu", role = "contact_mu" },
               { name = "qdd", role = "out_nv" }, { name = "force", role = "out_cforce" } },
    build = function(model) build_fd(model, true) end,
  },
  impulse = {
    summary = "inelastic impact at the contacts switched on: M (v_plus - v_minus) = Jc^T impulse, "
      .. "Jc v_plus = 0; impulse per contact in world axes as contact_fd's force",
    params = { { name = "q", role = "q" }, { name = "v_minus", role = "v" },
               { name = "contacts", role = "contacts" }, { name = "v_plus", role = "out_nv" },
               { name = "impulse", role = "out_cforce" } },
    build = build_impulse,
  },
}

-- The recipe of function name: contact_fd, contact_fd_reg, impulse (the registry:
-- generator/lua/lua_recipes.c).
function C.recipe(name)
  local r = recipes[name]
  return { name = name, summary = r.summary, returns = "int", params = r.params, build = r.build }
end

return C
