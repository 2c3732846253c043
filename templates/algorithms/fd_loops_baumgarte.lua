-- fd_loops_baumgarte.lua — fd_loops with Baumgarte's stabilization (Baumgarte, "Stabilization of
-- constraints and integrals of motion in dynamical systems", Computer Methods in Applied
-- Mechanics and Engineering 1, 1972): M q̈ + h = τ + Kᵀλ with the acceleration constraint
-- K q̈ = −K̇v − 2α K v − β² φ(q), so every row obeys φ̈ + 2α φ̇ + β² φ = 0 and a drift off the
-- constraint manifold decays (docs/analysis.md, "Stabilization and the DAE residual"). The same
-- articulated-body sweeps as fd_loops (fd_loops.lua's F.solve); α, β are run-time inputs, α = β
-- = 0 gives fd_loops' answer. The runtime's mb_fd_loops_baumgarte is its reference.
local FL = import "fd_loops"

local F = {
  name = "fd_loops_baumgarte",
  summary = "fd_loops with Baumgarte stabilization: K qdd = -Kdot v - 2 alpha K v - beta^2 phi",
  returns = "int",
  frames = true,
  params = {
    { name = "q", role = "q" },
    { name = "v", role = "v" },
    { name = "tau", role = "tau" },
    { name = "alpha", role = "dt" }, -- 1/s, ≥ 0: the damping term 2α φ̇
    { name = "beta", role = "dt" },  -- 1/s, ≥ 0: the natural frequency of φ's decay
    { name = "qdd", role = "out_nv" },
    { name = "lambda", role = "out_nc" },
  },
}

function F.build(model)
  local qdd, lambda = FL.solve(model, "fd_loops_baumgarte", nil, nil,
                               { alpha = sym.input("alpha", 0), beta = sym.input("beta", 0) })
  for k = 1, model.nv do sym.output("qdd", k - 1, qdd[k]) end
  for r = 1, #lambda do sym.output("lambda", r - 1, lambda[r]) end
end

return F
