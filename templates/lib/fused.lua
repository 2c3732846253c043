-- fused.lua — several outputs from one expression graph, their common subexpressions computed
-- once: the recipes dynamics (M, h and q̈ at one state, Pinocchio's computeAllTerms) and
-- aba_wrenches (forward dynamics with the joint reactions, SD/FAST's sdderiv with sdreac).
local sp = import "spatial"
local J = import "joints"
local rnea = import "rnea"
local aba = import "aba"
local PF = import "passive_forces"
local crba = import "crba"
local nle = import "nle"

local F = {}

-- aba_wrenches: q̈ by the articulated-body algorithm (aba.lua), then every joint's wrench from the
-- articulated-body equation of the subtree it carries, f_i = IA_i Δa_i + pA_i (Featherstone,
-- "Rigid Body Dynamics Algorithms", 2008, ch. 7, in aba.lua's bias-force form: pA_i is the subtree's
-- force at q̈ = 0 and Δa_i the acceleration q̈ adds), instead of a second Newton-Euler pass; in the
-- original joint frames, as joint_wrenches.lua returns them.
local function build_aba_wrenches(model)
  local T, X, _, pA = rnea.forward(model, "v", nil)
  local jt, u, IA = aba.backward(T, X, pA, nil, nil, PF.fd_tau(model))
  local qdd, da = aba.forward(T, X, jt, u, "da")
  for k = 0, 5 do sym.output("wrench", k, 0) end
  for i, b in ipairs(T) do
    for k = 1, b.nv do sym.output("qdd", b.iv + k - 1, qdd[i][k]) end
    local f = sp.add(sp.M6_mv(IA[i], da[i]), pA[i])
    for k, x in ipairs(J.wrench_out(b, f)) do sym.output("wrench", 6 * i + k - 1, x) end
  end
end

local recipes = {
  dynamics = {
    summary = "M(q), h(q, v) and qdd = M^-1 (tau - h) at one state (crba, nle and aba sharing "
      .. "their common terms; Pinocchio's computeAllTerms)",
    params = { { name = "q", role = "q" }, { name = "v", role = "v" }, { name = "tau", role = "tau" },
               { name = "M", role = "out_nvnv" }, { name = "h", role = "out_nv" },
               { name = "qdd", role = "out_nv" } },
    build = function(model)
      crba.build(model)
      nle.build(model)
      aba.build(model)
    end,
  },
  aba_wrenches = {
    summary = "forward dynamics with the joint reactions: qdd as aba, and every joint's wrench "
      .. "[torque; force] of parent on child in its joint frame as joint_wrenches(q, v, qdd)",
    params = { { name = "q", role = "q" }, { name = "v", role = "v" }, { name = "tau", role = "tau" },
               { name = "qdd", role = "out_nv" }, { name = "wrench", role = "out_wrench" } },
    build = build_aba_wrenches,
  },
}

-- The recipe of function name: dynamics, aba_wrenches (the registry: generator/lua/lua_recipes.c).
function F.recipe(name)
  local r = recipes[name]
  return { name = name, summary = r.summary, returns = "int", frames = true, params = r.params,
           build = r.build }
end

return F
