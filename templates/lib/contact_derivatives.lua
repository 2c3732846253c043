-- contact_derivatives.lua — the derivatives of contact-constrained forward dynamics and of
-- impacts: the recipes contact_fd_derivatives, contact_fd_reg_derivatives and impulse_derivatives
-- (runtime/contact_derivatives.c computes the same, docs/derivatives.md has the derivation).
--
-- contact_fd solves M q̈ − Jcᵀ f = τ − h, Jc q̈ = −J̇c v over the active contacts. Along x ∈ {q, v,
-- τ}: M ∂q̈ − Jcᵀ ∂f = −∂R, Jc ∂q̈ = −∂a, with R = rnea(q, v, q̈) − Jcᵀ f − τ at q̈, f held and
-- a = Jc q̈ + J̇c v at q̈ held. The graph computes what depends on the robot's structure: q̈ and f
-- (contact.lua), ∂R/∂q and ∂R/∂v (derivatives.lua with the forces as world-frame wrenches, plus
-- what holding their directions fixed in the world adds: −(J_pᵀ [λ]× J_ω + J_ωᵀ [n]× J_ω) per
-- contact), ∂a/∂q and ∂a/∂v (frame_derivatives.lua), M and Jc; the epilogue
-- (templates/c/epilogue_contact.lua, C loops after the graph) then factors M and Φ = Jc M⁻¹ Jcᵀ
-- over the active rows and solves: u = −M⁻¹ ∂R, (Φ) ∂f = −Jc u − ∂a, ∂q̈ = u + M⁻¹ Jcᵀ ∂f.
local sp = import "spatial"
local J = import "joints"
local D = import "derivatives"
local CT = import "contact"
local FD = import "frame_derivatives"

local CD = {}

local top, bottom = sp.top, sp.bottom

-- The contacts: frame (the model's, with its 1-based index k), dim, first row (1-based).
local function contact_list(model)
  local list, row = {}, 1
  for k, c in ipairs(model.contacts or {}) do
    list[k] = { f = model.frames[c.frame], k = c.frame, dim = c.dim, row = row }
    row = row + c.dim
  end
  if #list == 0 then
    error("the contact functions need the frames in contact: --contacts FRAME[:3|:6],...", 0)
  end
  return list, row - 1
end

-- A contact's force λ (world axes, at the frame's origin) and moment n (0 for a point contact).
local function load_of(c, f)
  local lam = { f[c.row + c.dim - 3], f[c.row + c.dim - 2], f[c.row + c.dim - 1] }
  local n = c.dim == 6 and { f[c.row], f[c.row + 1], f[c.row + 2] } or { 0, 0, 0 }
  return lam, n
end

-- The frame's origin in world coordinates in the world tree T.
local function origin(T, c)
  local b = T[c.f.body]
  return sp.add(b.d, sp.rot(b.R, c.f.X.r))
end

-- ∂R/∂q += −(J_pᵀ [λ]× J_ω + J_ωᵀ [n]× J_ω) over the contact's chain (cols: its columns [ω; J_p]
-- by 0-based dof, nil off the chain).
local function world_directions(dq, cols, lam, n, nv)
  for c = 0, nv - 1 do
    local xc = cols[c]
    if xc then
      local wc = top(xc)
      local lw, nw = sp.cross(lam, wc), sp.cross(n, wc)
      for r = 0, nv - 1 do
        local xr = cols[r]
        if xr then
          local s = sp.dot(bottom(xr), lw) + sp.dot(top(xr), nw)
          dq[r + 1][c + 1] = dq[r + 1][c + 1] - s
        end
      end
    end
  end
end

-- The graph's part of the derivatives at the solution: ∂R/∂q and ∂R/∂v (R = rnea(q, v, acc) −
-- Jcᵀ f, the forces f held in world directions; gravity unless still), ∂a/∂q and ∂a/∂v of the
-- rows' acceleration a = Jc acc_rows + J̇c v, M and the rows Jc. vel: the velocities (a list, or
-- nil: zero); acc_rows nil: acc.
local function derivative_parts(model, contacts, f, vel, acc, still, acc_rows)
  local nv = model.nv
  local qd = vel or {}
  if not vel then for k = 1, nv do qd[k] = 0 end end
  -- the forces as world-frame wrenches at the world's origin, [o × λ + n; λ], per body
  local T0 = J.in_frames("world", function() return J.tree(model) end)
  local function ext(b)
    local w = sp.zeros(6)
    for _, c in ipairs(contacts) do
      if c.f.body == b.i then
        local lam, n = load_of(c, f)
        local t = sp.cross(origin(T0, c), lam)
        w = sp.add(w, { n[1] + t[1], n[2] + t[2], n[3] + t[3], lam[1], lam[2], lam[3] })
      end
    end
    return w
  end
  local m = still and setmetatable({ gravity = { 0, 0, 0 } }, { __index = model }) or model
  local dq, dv, M, _, T = D.rnea(m, qd, acc, ext)
  J.add_armature(J.tree(model), M)
  -- the contact rows' acceleration derivatives at acc (no gravity: a frame's acceleration), Jc
  local V, Acc, fdof = FD.forward(T, qd, acc_rows or acc)
  local want = { dq = true, dv = true, da = true }
  local Aq, Av, Jc = {}, {}, {}
  for _, c in ipairs(contacts) do
    local cols = FD.frame_columns(T, c.f, c.k, V, Acc, fdof, true, want, nil)
    local lam, n = load_of(c, f)
    world_directions(dq, cols.da, lam, n, nv)
    for a = 1, c.dim do
      local e = 6 - c.dim + a -- the 6-vector's entry: dim 3 the linear part only
      local r = c.row + a - 1
      Aq[r], Av[r], Jc[r] = {}, {}, {}
      for col = 0, nv - 1 do
        local xq, xv, xa = cols.dq[col], cols.dv[col], cols.da[col]
        Aq[r][col + 1] = xq and xq[e] or 0
        Av[r][col + 1] = xv and xv[e] or 0
        Jc[r][col + 1] = xa and xa[e] or 0
      end
    end
  end
  return dq, dv, M, Aq, Av, Jc
end

local output_rows = D.output_rows

local function refuse_passive(model, name)
  if model.passive_in_fd then
    error(name .. " is not generated with --passive-in-fd yet (the runtime's reference has no "
      .. "passive forces)", 0)
  end
end

local function build_fd(model, regularized)
  refuse_passive(model, regularized and "contact_fd_reg_derivatives" or "contact_fd_derivatives")
  local nv = model.nv
  local contacts, nr = contact_list(model)
  local qdd, f = CT.solve_fd(model, regularized)
  for k = 1, nv do qdd[k] = sym.name(qdd[k], "qdd_" .. (k - 1)) end
  for r = 1, nr do f[r] = sym.name(f[r], "force_" .. (r - 1)) end
  local qd = {}
  for k = 1, nv do qd[k] = sym.input("v", k - 1) end
  local dq, dv, M, Aq, Av, Jc = derivative_parts(model, contacts, f, qd, qdd, false)
  for k = 1, nv do sym.output("qdd", k - 1, qdd[k]) end
  for r = 1, nr do sym.output("force", r - 1, f[r]) end
  J.output_matrix("dqdd_dq", dq, nv)
  J.output_matrix("dqdd_dv", dv, nv)
  J.output_matrix("dqdd_dtau", M, nv)
  output_rows("dforce_dq", Aq, nv)
  output_rows("dforce_dv", Av, nv)
  output_rows("dforce_dtau", Jc, nv)
end

-- impulse: M (v⁺ − v⁻) − Jcᵀ Λ = 0, Jc v⁺ = 0. ∂R/∂q by the recursion at v = 0, q̈ = v⁺ − v⁻
-- without gravity (M(q) (v⁺ − v⁻) − Jcᵀ Λ), ∂R/∂v⁻ = −M; a = Jc v⁺: ∂a/∂q the rows' at v = 0,
-- q̈ = v⁺; the epilogue takes M from dvplus_dv and Jc from dimpulse_dv.
local function build_impulse(model)
  refuse_passive(model, "impulse_derivatives")
  local nv = model.nv
  local contacts, nr = contact_list(model)
  local vplus, lam = CT.solve_impulse(model)
  local dvel = {}
  for k = 1, nv do
    vplus[k] = sym.name(vplus[k], "v_plus_" .. (k - 1))
    dvel[k] = vplus[k] - sym.input("v_minus", k - 1)
  end
  for r = 1, nr do lam[r] = sym.name(lam[r], "impulse_" .. (r - 1)) end
  local dq, _, M, Aq, _, Jc = derivative_parts(model, contacts, lam, nil, dvel, true, vplus)
  for k = 1, nv do sym.output("v_plus", k - 1, vplus[k]) end
  for r = 1, nr do sym.output("impulse", r - 1, lam[r]) end
  J.output_matrix("dvplus_dq", dq, nv)
  J.output_matrix("dvplus_dv", M, nv)
  output_rows("dimpulse_dq", Aq, nv)
  output_rows("dimpulse_dv", Jc, nv)
end

local TANGENT = "; d/dq along the tangent space (column k: d/de at integrate(q, e_k, e))"

local recipes = {
  contact_fd_derivatives = {
    summary = "contact_fd and its derivatives: qdd and force as contact_fd's; dqdd_dq, dqdd_dv, "
      .. "dqdd_dtau (nv x nv) and dforce_dq, dforce_dv, dforce_dtau (ncrows x nv, zero rows for "
      .. "the contacts switched off), row-major; the forces keep their world directions"
      .. TANGENT,
    params = { { name = "q", role = "q" }, { name = "v", role = "v" },
               { name = "tau", role = "tau" },
               { name = "contacts", role = "contacts" }, { name = "qdd", role = "out_nv" },
               { name = "force", role = "out_cforce" },
               { name = "dqdd_dq", role = "out_nvnv" }, { name = "dqdd_dv", role = "out_nvnv" },
               { name = "dqdd_dtau", role = "out_nvnv" },
               { name = "dforce_dq", role = "out_cforcenv" },
               { name = "dforce_dv", role = "out_cforcenv" },
               { name = "dforce_dtau", role = "out_cforcenv" } },
    build = function(model) build_fd(model, false) end,
    epilogue = "contact_derivatives",
  },
  contact_fd_reg_derivatives = {
    summary = "contact_fd_reg and its derivatives (mu >= 0 per contact: Jc qdd + Jcdot v = -mu "
      .. "force), the outputs as contact_fd_derivatives'" .. TANGENT,
    params = { { name = "q", role = "q" }, { name = "v", role = "v" },
               { name = "tau", role = "tau" },
               { name = "contacts", role = "contacts" }, { name = "mu", role = "contact_mu" },
               { name = "qdd", role = "out_nv" }, { name = "force", role = "out_cforce" },
               { name = "dqdd_dq", role = "out_nvnv" }, { name = "dqdd_dv", role = "out_nvnv" },
               { name = "dqdd_dtau", role = "out_nvnv" },
               { name = "dforce_dq", role = "out_cforcenv" },
               { name = "dforce_dv", role = "out_cforcenv" },
               { name = "dforce_dtau", role = "out_cforcenv" } },
    build = function(model) build_fd(model, true) end,
    epilogue = "contact_reg_derivatives",
  },
  impulse_derivatives = {
    summary = "impulse and its derivatives: v_plus and impulse as impulse's; dvplus_dq, "
      .. "dvplus_dv (by v_minus; nv x nv) and dimpulse_dq, dimpulse_dv (ncrows x nv, zero rows "
      .. "for the contacts switched off), row-major" .. TANGENT,
    params = { { name = "q", role = "q" }, { name = "v_minus", role = "v" },
               { name = "contacts", role = "contacts" }, { name = "v_plus", role = "out_nv" },
               { name = "impulse", role = "out_cforce" },
               { name = "dvplus_dq", role = "out_nvnv" }, { name = "dvplus_dv", role = "out_nvnv" },
               { name = "dimpulse_dq", role = "out_cforcenv" },
               { name = "dimpulse_dv", role = "out_cforcenv" } },
    build = build_impulse,
    epilogue = "impulse_derivatives",
  },
}

-- The recipe of function name: contact_fd_derivatives, contact_fd_reg_derivatives,
-- impulse_derivatives (the registry: generator/lua/lua_recipes.c).
function CD.recipe(name)
  local r = recipes[name]
  return { name = name, summary = r.summary, returns = "int", params = r.params,
           frame = "world", epilogue = r.epilogue, build = r.build }
end

return CD
