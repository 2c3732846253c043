-- fd_loops_hybrid.lua — forward dynamics closed by the loop joints with prescribed coordinates
-- (SD/FAST's prescribed joints in closed-loop systems): M q̈ + h = τ + Kᵀλ, K q̈ = −K̇v, where
-- mask[k] = 1 the acceleration is given (q̈_k = in[k]) and τ_k computed, where mask[k] = 0 the
-- force is given (τ_k = in[k]) and q̈_k computed; λ the multipliers. fd_loops.lua's sweeps with
-- hybrid.lua's articulated step: the prescribed dofs' innovations are zero, so Φ = K_F M_FF⁻¹
-- K_Fᵀ (the free coordinates' response) and Φ λ = −K̇v − K q̈₀ with q̈₀ the hybrid answer without
-- the loops (its prescribed part in it); the last pass adds the multipliers' response to the free
-- dofs only. A prescribed dof's force is the articulated-body equation of its subtree with the
-- rows' wrenches: τ_c = U_cᵀ Δa + S_cᵀ (pA + Σ_r λ_r P_r) + armature in_c, Δa the bodies'
-- accelerations of both passes and P_r the row's share of the articulated bias (fd_loops.lua).
-- Where the prescribed coordinates leave the loops' rows dependent (every coordinate of a loop
-- prescribed, or a mechanism driven past its mobility), Φ is singular: the status is -1.
local sp = import "spatial"
local F = import "fd_loops"
local H = import "hybrid"

local R = {
  name = "fd_loops_hybrid",
  summary = "forward dynamics closed by the loop joints with prescribed coordinates: qdd[k] = "
    .. "in[k] given and tau[k] computed where mask[k] = 1, tau[k] = in[k] given and qdd[k] "
    .. "computed where mask[k] = 0; M qdd + h = tau + K^T lambda, K qdd = -Kdot v",
  returns = "int",
  frames = true,
  params = {
    { name = "q", role = "q" },
    { name = "v", role = "v" },
    { name = "mask", role = "mask" },
    { name = "in", role = "tau" },
    { name = "qdd", role = "out_nv" },
    { name = "tau", role = "out_nv" },
    { name = "lambda", role = "out_nc" },
  },
}

function R.build(model)
  -- (refused before: coupled joints, flexible bodies, --passive-in-fd; generate.c)
  local qdd, lambda, s = F.solve(model, "fd_loops_hybrid", "in", H.step)
  for _, b in ipairs(s.T) do
    local t, i = s.jt[b.i], b.i
    local bias = s.pA[i]
    for r = 1, #lambda do
      if s.P[r][i] then bias = sp.add(bias, sp.scale(s.P[r][i], lambda[r])) end
    end
    for c = 1, b.nv do
      local k, g = b.iv + c - 1, sym.input("in", b.iv + c - 1)
      local given = sp.dot(t.U[c], s.da[i]) + sp.dot(b.S[c], bias) + b.arm * g
      sym.output("qdd", k, qdd[k + 1])
      sym.output("tau", k, H.blend(t.m[c], given, g))
    end
  end
  for r = 1, #lambda do sym.output("lambda", r - 1, lambda[r]) end
end

return R
