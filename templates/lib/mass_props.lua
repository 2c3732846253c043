-- mass_props.lua — the centre of mass of the moving bodies, its Jacobian, and the energy (the
-- recipes com, com_jacobian and energy are its instances; the runtime's mb_com, mb_com_jacobian
-- and mb_energy, runtime/com.c, compute the same). A body's inertia (working frame) holds its mass
-- m and first moment h = m c; m c in world coordinates is m p + R h with (R, p) its world pose.
local sp = import "spatial"
local J = import "joints"
local rnea = import "rnea"

local C = {}

-- The world transforms and every body's m c (world), and the total mass M.
local function moments(model)
  local T = J.tree(model)
  local X0, mc, M = { [0] = sp.identity() }, {}, 0
  for i, b in ipairs(T) do
    X0[i] = sp.compose(J.Xup(b), X0[b.parent])
    X0[i].E = J.name(X0[i].E, "E0", b)
    X0[i].r = J.name(X0[i].r, "r0", b)
    local h = sp.rotT(X0[i].E, { b.I[2], b.I[3], b.I[4] })
    mc[i] = J.name(sp.add(sp.scale(X0[i].r, b.I[1]), h), "mc", b)
    M = M + b.I[1]
  end
  return T, X0, mc, M
end

local function build_com(model)
  local T, _, mc, M = moments(model)
  local s = sp.zeros(3)
  for i = 1, #T do s = sp.add(s, mc[i]) end
  for a = 1, 3 do sym.output("c", a - 1, s[a] / M) end
end

-- Column of dof c of joint i: (m_sub u + ω × (mc_sub − m_sub p_i)) / M, ω and u (the velocity of
-- i's origin) the dof's motion in world axes; the subtree sums gathered from the leaves.
local function build_com_jacobian(model)
  local T, X0, mc, M = moments(model)
  local msub, csub = {}, {}
  for i = 1, #T do msub[i], csub[i] = T[i].I[1], mc[i] end
  for i = #T, 1, -1 do
    csub[i] = sp.name(csub[i], "mcs_" .. T[i].name)
    local p = T[i].parent
    if p > 0 then msub[p], csub[p] = msub[p] + msub[i], sp.add(csub[p], csub[i]) end
  end
  local nv = model.nv
  for i, b in ipairs(T) do
    local E, r = X0[i].E, X0[i].r
    local d = sp.sub(csub[i], sp.scale(r, msub[i]))
    for c = 1, b.nv do
      local s = b.S[c]
      local w, u = sp.rotT(E, { s[1], s[2], s[3] }), sp.rotT(E, { s[4], s[5], s[6] })
      local x = sp.add(sp.scale(u, msub[i]), sp.cross(w, d))
      for a = 1, 3 do sym.output("Jc", nv * (a - 1) + b.iv + c - 1, x[a] / M) end
    end
  end
end

local function build_energy(model)
  local T, _, mc = moments(model)
  local still = setmetatable({ gravity = { 0, 0, 0 } }, { __index = model })
  local _, _, v = rnea.forward(still, "v", nil)
  local K, V, g = 0, 0, J.gravity(model)
  for i, b in ipairs(T) do
    K = K + 0.5 * sp.dot(v[i], sp.I_mv(b.I, v[i]))
    V = V - sp.dot(g, mc[i])
    for c = 1, b.arm ~= 0 and b.nv or 0 do -- the rotors' ½ armature q̇²
      local x = sym.input("v", b.iv + c - 1)
      K = K + 0.5 * b.arm * x * x
    end
  end
  sym.output("e", 0, K)
  sym.output("e", 1, V)
end

-- Centroidal momentum (Orin & Goswami, "Centroidal momentum matrix of a humanoid robot: structure
-- and properties", IROS 2008), the runtime's runtime/centroidal.c: a body's force-like [n; g]
-- (its working frame, at its origin) in world axes at the centre of mass c:
-- [R n + (p − c) × R g; R g].
local function at_centroid(X0i, c, f)
  local n, g = sp.rotT(X0i.E, { f[1], f[2], f[3] }), sp.rotT(X0i.E, { f[4], f[5], f[6] })
  local t = sp.cross(sp.sub(X0i.r, c), g)
  return { n[1] + t[1], n[2] + t[2], n[3] + t[3], g[1], g[2], g[3] }
end

local function centre(T, mc, M)
  local s = sp.zeros(3)
  for i = 1, #T do s = sp.add(s, mc[i]) end
  return sp.name({ s[1] / M, s[2] / M, s[3] / M }, "com")
end

-- h_G = Σ [I_i v_i at c] (kind "h"), or Ȧ_G v = Σ [(I_i a_i + v_i ×* I_i v_i) at c] (kind "b"), a_i
-- the velocity-product accelerations: the forward pass at q̈ = 0 without gravity.
local function build_centroidal(model, kind)
  local T, X0, mc, M = moments(model)
  local c = centre(T, mc, M)
  local still = setmetatable({ gravity = { 0, 0, 0 } }, { __index = model })
  local _, _, v, f = rnea.forward(still, "v", nil)
  local h = sp.zeros(6)
  for i, b in ipairs(T) do
    local x = kind == "h" and sp.I_mv(b.I, v[i]) or f[i]
    h = sp.add(h, at_centroid(X0[i], c, x))
  end
  for r = 1, 6 do sym.output(kind, r - 1, h[r]) end
end

-- A_G: column of dof d of joint i, IC_i S_d at c (IC the composite inertias, working frames).
local function build_ccrba(model)
  local T, X0, mc, M = moments(model)
  local c = centre(T, mc, M)
  local IC = {}
  for i, b in ipairs(T) do IC[i] = b.I end
  for i = #T, 1, -1 do
    IC[i] = J.name(IC[i], "IC", T[i])
    local p = T[i].parent
    if p > 0 then IC[p] = sp.I_add(IC[p], sp.I_to_parent(J.Xup(T[i]), IC[i])) end
  end
  local nv = model.nv
  for i, b in ipairs(T) do
    for d = 1, b.nv do
      local x = at_centroid(X0[i], c, sp.I_mv(IC[i], b.S[d]))
      for r = 1, 6 do sym.output("Ag", nv * (r - 1) + b.iv + d - 1, x[r]) end
    end
  end
end

local recipes = {
  com = {
    summary = "the centre of mass of the moving bodies, world coordinates (P_MASS their mass)",
    params = { { name = "q", role = "q" }, { name = "c", role = "out_3" } },
    build = build_com,
  },
  com_jacobian = {
    summary = "the Jacobian of the centre of mass, 3 x P_NV row-major: cdot = Jc v",
    params = { { name = "q", role = "q" }, { name = "Jc", role = "out_3nv" } },
    build = build_com_jacobian,
  },
  centroidal_momentum = {
    summary = "the centroidal momentum h = [angular momentum about the centre of mass; linear "
      .. "momentum], world axes (Pinocchio's hg is [linear; angular])",
    params = { { name = "q", role = "q" }, { name = "v", role = "v" },
               { name = "h", role = "out_6" } },
    build = function(model) build_centroidal(model, "h") end,
  },
  ccrba = {
    summary = "the centroidal momentum matrix A, 6 x P_NV row-major: h = A v (rows as "
      .. "centroidal_momentum's)",
    params = { { name = "q", role = "q" }, { name = "Ag", role = "out_6nv" } },
    build = build_ccrba,
  },
  centroidal_bias = {
    summary = "Adot v, the rate of the centroidal momentum at qdd = 0 without gravity",
    params = { { name = "q", role = "q" }, { name = "v", role = "v" },
               { name = "b", role = "out_6" } },
    build = function(model) build_centroidal(model, "b") end,
  },
  energy = {
    summary = "e[0] the kinetic energy 1/2 v^T M v, e[1] the potential energy of gravity "
      .. "(0 with the centre of mass at the world origin)",
    params = { { name = "q", role = "q" }, { name = "v", role = "v" },
               { name = "e", role = "out_2" } },
    build = build_energy,
  },
}

-- The recipe of function name: com, com_jacobian, energy, centroidal_momentum, ccrba,
-- centroidal_bias (the registry: generator/lua/lua_recipes.c).
function C.recipe(name)
  local r = recipes[name]
  return { name = name, summary = r.summary, returns = "void", params = r.params, build = r.build }
end

return C
