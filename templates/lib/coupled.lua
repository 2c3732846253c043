-- coupled.lua — forward dynamics and M⁻¹ of a model with coupled (mimic) joints (docs/dsl.md
-- "Coupled joints"). A coupled joint's coordinate follows an independent one, q = m q_s + o, so
-- the full velocities are v = G v_ind with G constant (one nonzero m per row). The equations of
-- motion in the independent coordinates are those of the full tree projected by virtual work:
--   (Gᵀ M G) q̈_ind = τ − Gᵀ h(q, v),   (Gᵀ M G)⁻¹ the inverse inertia,
-- with M and h of the full tree (crba, rnea at q̈ = 0; q and v are expanded as they are read:
-- lua_coupled.c). The tree recursions of aba and minv do not apply (a coupled pair ties two
-- joints' rows), so the reduced matrix is factored as Lᵀ D L, dense over the independent
-- coordinates from the last up; its structural zeros stay numbers and cost nothing.
local sp = import "spatial"
local J = import "joints"
local L = import "loops"
local crba = import "crba"
local rnea = import "rnea"
local PF = import "passive_forces"

local CP = {}

-- Gᵀ x for x over the full velocities (1-based)
function CP.fold_vector(model, x)
  local c, y = model.coupling, {}
  for r = 1, c.nv do y[r] = 0 end
  for k = 1, model.nv do
    local r = c.of[k] + 1
    y[r] = y[r] + c.mult[k] * x[k]
  end
  return y
end

-- Gᵀ A G for A over the full velocities (rows A[r][c], 1-based)
function CP.fold_matrix(model, A)
  local c, B = model.coupling, {}
  for r = 1, c.nv do
    B[r] = {}
    for k = 1, c.nv do B[r][k] = 0 end
  end
  for r = 1, model.nv do
    local R, mr = c.of[r] + 1, c.mult[r]
    for k = 1, model.nv do
      local x = A[r][k]
      if x ~= 0 then
        local K = c.of[k] + 1
        B[R][K] = B[R][K] + (mr * c.mult[k]) * x
      end
    end
  end
  return B
end

-- M = Lᵀ D L in place, eliminating from the last coordinate up as crba_fd does (Featherstone
-- 2005): L unit lower triangular below the diagonal, dinv[k] = 1 / D_k. A tree's M then fills in
-- nothing; a coupling adds only the entries between its two joints' branches. Each pivot is
-- checked against M's diagonal before elimination (the pivot rule of docs/generator.md).
local function factor(M, n)
  local dinv = {}
  for k = n, 1, -1 do
    local ref = M[k][k]
    local d = sym.name(M[k][k], "D_" .. (k - 1))
    sym.pivot(d, ref, "independent coordinate " .. (k - 1))
    dinv[k] = sym.name(1 / d, "Dinv_" .. (k - 1))
    for i = k - 1, 1, -1 do -- descending: M[k][j] for j ≤ i is not yet L's
      local x = M[k][i]
      if x ~= 0 then
        local a = sym.name(x * dinv[k], "L_" .. (k - 1) .. "_" .. (i - 1))
        for j = 1, i do
          if M[k][j] ~= 0 then M[i][j] = M[i][j] - a * M[k][j] end
        end
        M[k][i] = a
      end
    end
  end
  return dinv
end

-- x = M⁻¹ b with M factored by `factor`: Lᵀ y = b, y = D⁻¹ y, L x = y
local function solve(M, dinv, n, b)
  local x = {}
  for k = 1, n do x[k] = b[k] end
  for k = n, 1, -1 do
    for i = k - 1, 1, -1 do
      if M[k][i] ~= 0 then x[i] = x[i] - M[k][i] * x[k] end
    end
  end
  for k = 1, n do x[k] = x[k] * dinv[k] end
  for k = 1, n do
    for i = 1, k - 1 do
      if M[k][i] ~= 0 then x[k] = x[k] - M[k][i] * x[i] end
    end
  end
  return x
end

-- The reduced mass matrix Gᵀ M G, factored: { M = its L below the diagonal, dinv, n }.
function CP.factored(model)
  local n = model.coupling.nv
  local M = CP.fold_matrix(model, crba.mass_matrix(model))
  for r = 1, n do
    for k = 1, r do M[r][k] = sym.name(M[r][k], "Mr_" .. (r - 1) .. "_" .. (k - 1)) end
  end
  return { M = M, dinv = factor(M, n), n = n }
end

-- x = (Gᵀ M G)⁻¹ b
function CP.solve(F, b) return solve(F.M, F.dinv, F.n, b) end

-- (Gᵀ M G)⁻¹ as rows, both triangles (the lower solved column by column, mirrored)
function CP.inverse(F)
  local n, cols, Mi = F.n, {}, {}
  for c = 1, n do
    local e = {}
    for k = 1, n do e[k] = (k == c) and 1 or 0 end
    cols[c] = solve(F.M, F.dinv, n, e)
  end
  for r = 1, n do
    Mi[r] = {}
    for c = 1, n do Mi[r][c] = r >= c and cols[c][r] or cols[r][c] end
  end
  return Mi
end

-- q̈ (independent) = (Gᵀ M G)⁻¹ (τ − Gᵀ h), h with the external wrenches `fext` (an input's name;
-- nil: none) and, with --passive-in-fd, less the passive forces; F: the factored matrix, made
-- when nil. Returns q̈ and F.
function CP.qdd(model, fext, F)
  local n = model.coupling.nv
  local h, tp = rnea.passes(model, "v", nil, fext), PF.fd_passive(model)
  for k = 1, tp and model.nv or 0 do
    if sym.is_symbolic(tp[k]) or tp[k] ~= 0 then h[k] = h[k] - tp[k] end
  end
  local hr = CP.fold_vector(model, h)
  F = F or CP.factored(model)
  local b = {}
  for k = 1, n do b[k] = sym.input("tau", k - 1) - hr[k] end
  return CP.solve(F, b), F
end

-- The recipes' outputs: q̈ (aba, aba_ext, crba_fd) and M⁻¹ (minv).
function CP.forward(model, fext)
  local x = CP.qdd(model, fext)
  for k = 1, model.coupling.nv do sym.output("qdd", k - 1, x[k]) end
end

function CP.minv(model)
  J.output_matrix("Minv", CP.inverse(CP.factored(model)), model.coupling.nv)
end

-- Entry j (1-based) of a velocity-like input array of independent coordinates (read through its
-- own full coordinate: lua_coupled.c maps the reads of a recipe's full indices)
function CP.read(model, name, j) return sym.input(name, model.coupling.own[j]) end

-- Forward dynamics in contact and impacts (contact.lua's rows: a covector g on body a, the bias
-- dd; `on` the switches, mu the regularization or nil) in the independent coordinates: the rows
-- swept to the root as loops.lua's Jacobian rows, folded by G; then
--   q̈₀ = M_r⁻¹ (τ − h_r), Y = M_r⁻¹ J_rᵀ, (J_r Y + diag μ) f = −dd − J_r q̈₀, q̈ = q̈₀ + Y f
-- (impulse: (J_r Y) Λ = −J_r v⁻, v⁺ = v⁻ + Y Λ), with contact.lua's masking of the rows off.
-- sys(Phi, rows) factors the masked system (contact.lua's); returns the outputs' values.
function CP.contact(model, rows, K, on, mu, impulse, sys)
  local n, Jr, Y = model.coupling.nv, {}, {}
  local F = CP.factored(model)
  for r, row in ipairs(rows) do
    Jr[r] = CP.fold_vector(model, L.jacobian_row(model, K, row))
    for k = 1, n do Jr[r][k] = sym.name(Jr[r][k], "Jr_" .. (r - 1) .. "_" .. k - 1) end
    Y[r] = CP.solve(F, Jr[r])
  end
  local function dot(a, b)
    local s = 0
    for k = 1, n do if a[k] ~= 0 and b[k] ~= 0 then s = s + a[k] * b[k] end end
    return s
  end
  local x, gam = {}, {}
  if impulse then
    for k = 1, n do x[k] = CP.read(model, "v_minus", k) end
    for r, row in ipairs(rows) do gam[r] = on[row.k] * -dot(Jr[r], x) end
  else
    x = CP.qdd(model, nil, F)
    for r, row in ipairs(rows) do gam[r] = on[row.k] * -(row.dd + dot(Jr[r], x)) end
  end
  local Phi = {}
  for r = 1, #rows do
    Phi[r] = {}
    for c = 1, r do Phi[r][c] = dot(Jr[r], Y[c]) end
  end
  local f = sp.ldl_solve(sys(Phi, rows, on, mu), gam)
  for r = 1, #rows do
    for k = 1, n do x[k] = x[k] + f[r] * Y[r][k] end
  end
  return x, f
end

-- v_full = G v for an independent vector v (1-based), each entry a product at most
function CP.expand(model, v)
  local c, x = model.coupling, {}
  for k = 1, model.nv do
    local m = c.mult[k]
    x[k] = (m == 1) and v[c.of[k] + 1] or m * v[c.of[k] + 1]
  end
  return x
end

return CP
