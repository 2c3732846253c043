-- crba_fd.lua — forward dynamics by the mass matrix (Jain & Rodriguez, "Recursive Dynamics for
-- Flexible Multibody Systems Using Spatial Operators", JPL Publication 90-26, 1990, §5, eq. 5.1):
-- M q̈ = τ − h with M from the CRBA, h from the RNEA at q̈ = 0, and M = Lᵀ D L factored without
-- fill-in along the expanded parent array λ (Featherstone 2005; runtime/ltdl.c): L_ki ≠ 0 only
-- for i an ancestor of k, so only the branch-induced non-zeros are ever computed.
local J = import "joints"
local crba = import "crba"
local rnea = import "rnea"
local CP = import "coupled"
local PF = import "passive_forces"

return {
  name = "crba_fd",
  summary = "forward dynamics by the mass matrix: M(q) qdd = tau - h(q, v), sparse L^T D L",
  returns = "int",
  frames = true, -- world-aligned variants (--frame, reference.lua)
  params = {
    { name = "q", role = "q" },
    { name = "v", role = "v" },
    { name = "tau", role = "tau" },
    { name = "qdd", role = "out_nv" },
  },
  build = function(model)
    if model.coupling then return CP.forward(model, nil) end -- coupled joints: coupled.lua
    local T, n = J.tree(model), model.nv
    local M, h = crba.mass_matrix(model), rnea.passes(model, "v", nil)
    local X = {}
    for _, b in ipairs(T) do X[b.i] = J.Xup(b) end
    local base_of, base, R = J.base_references(T, X), {}, {}
    -- λ(k): the previous dof of the same body, else the last dof of the parent body (0: none)
    local lam, body = {}, {}
    -- (a flexible body's modes follow its joint's dofs; their base reference is M's diagonal)
    for _, b in ipairs(T) do
      for c = 1, b.nv + b.nm do
        local p = T[b.parent]
        lam[b.iv + c] = (c > 1) and b.iv + c - 1 or (p and p.iv + p.nv + p.nm or 0)
        body[b.iv + c] = b
        base[b.iv + c] = c <= b.nv and base_of[b.i][c] or M[b.iv + c][b.iv + c]
        R[b.iv + c] = base[b.iv + c]
      end
    end
    -- for k = n..1, i = λ(k), λ(λ(k)), ...:  a = M_ki / M_kk;  M_ij −= a M_kj (j = i, λ(i), ...);
    -- M_ki = a;  the reference of d_i gains the error of d_k carried by L_ki:  R_i += a² base_k
    local dinv = {}
    for k = n, 1, -1 do
      local d = sym.name(M[k][k], "D_" .. body[k].name .. "_" .. (k - 1 - body[k].iv))
      sym.pivot(d, R[k], "joint '" .. body[k].joint .. "'")
      dinv[k] = 1 / d
      local i = lam[k]
      while i > 0 do
        local a = M[k][i] * dinv[k]
        R[i] = R[i] + (a * a) * base[k]
        local j = i
        while j > 0 do
          M[i][j] = M[i][j] - a * M[k][j]
          j = lam[j]
        end
        M[k][i] = sym.name(a, "L_" .. (k - 1) .. "_" .. (i - 1))
        i = lam[i]
      end
    end
    -- x = τ − h;  Lᵀ y = x;  y = D⁻¹ y;  L q̈ = y
    local x, tau = {}, PF.fd_tau(model) -- τ, or τ + τ_passive (--passive-in-fd)
    for k = 1, n do x[k] = (tau and tau[k] or sym.input("tau", k - 1)) - h[k] end
    for k = n, 1, -1 do
      local i = lam[k]
      while i > 0 do x[i], i = x[i] - M[k][i] * x[k], lam[i] end
    end
    for k = 1, n do x[k] = x[k] * dinv[k] end
    for k = 1, n do
      local i = lam[k]
      while i > 0 do x[k], i = x[k] - M[k][i] * x[i], lam[i] end
      sym.output("qdd", k - 1, x[k])
    end
  end,
}
