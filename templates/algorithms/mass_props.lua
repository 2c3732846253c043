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
  local K, V, g = 0, 0, model.gravity
  for i, b in ipairs(T) do
    K = K + 0.5 * sp.dot(v[i], sp.I_mv(b.I, v[i]))
    V = V - sp.dot(g, mc[i])
  end
  sym.output("e", 0, K)
  sym.output("e", 1, V)
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
  energy = {
    summary = "e[0] the kinetic energy 1/2 v^T M v, e[1] the potential energy of gravity "
      .. "(0 with the centre of mass at the world origin)",
    params = { { name = "q", role = "q" }, { name = "v", role = "v" },
               { name = "e", role = "out_2" } },
    build = build_energy,
  },
}

-- The recipe called name (com.lua, com_jacobian.lua, energy.lua).
function C.recipe(name)
  local r = recipes[name]
  return { name = name, summary = r.summary, returns = "void", params = r.params, build = r.build }
end

return C
