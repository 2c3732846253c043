-- fd_loops.lua — forward dynamics of the tree closed by its loop joints, with Lagrange
-- multipliers: M q̈ + h = τ + Kᵀλ, K q̈ = −K̇v (Kang & Yoon's fully recursive formulation with cut
-- joints, eqs. 37-43; docs/loops.md). The constraint Jacobian is carried through the
-- articulated-body sweeps instead of forming M⁻¹:
--   backward: every row r is the generalized force of the wrenches g_a on body a and g_b on body b
--     (loops.lua); swept inward like an external force, it leaves at each joint i the innovation
--     u_r,i = −S_iᵀ P_r,i, P_r,λ += λX*_i (P_r,i + U_i D_i⁻¹ u_r,i) (P starts at −g);
--   the m × m system: Φ = K M⁻¹ Kᵀ = Σ_i u_iᵀ D_i⁻¹ u_i (the innovations factorization
--     M⁻¹ = [1 − HψK]* D⁻¹ [1 − HψK]), Φ λ = −K̇v − K q̈₀ with q̈₀ the articulated-body answer and
--     K q̈₀ = g_a · Δa_a + g_b · Δa_b (Δa the accelerations q̈₀ causes);
--   forward: q̈ = q̈₀ + the articulated-body forward pass of the innovations Σ_r λ_r u_r.
-- Only the bodies between the loop bodies and the root carry the rows: O(n + n_path m + m³).
local sp = import "spatial"
local J = import "joints"
local rnea = import "rnea"
local aba = import "aba"
local L = import "loops"
local PF = import "passive_forces"

local F = {
  name = "fd_loops",
  summary = "forward dynamics closed by the loop joints: M qdd + h = tau + K^T lambda, "
    .. "K qdd = -Kdot v",
  returns = "int",
  frames = true, -- world-aligned variants (--frame, reference.lua)
  params = {
    { name = "q", role = "q" },
    { name = "v", role = "v" },
    { name = "tau", role = "tau" },
    { name = "qdd", role = "out_nv" },
    { name = "lambda", role = "out_nc" },
  },
}

-- The constraint rows swept through the articulated-body backward pass (aba.lua): the innovations
-- ur[r][i] of every row r at every body i on its paths to the root. tau as aba.backward's (the
-- contact recipes, contact.lua, sweep their rows here too); step as aba.backward's (hybrid.lua's:
-- a prescribed dof's innovations are zero, f u). Returns jt, u, ur and P, each row's share of the
-- articulated bias forces (P[r][i], nil where the row does not reach), and with step the rows'
-- weight on the prescribed dofs, Σ m y² / D̃ (y = −Sᵀ P unmasked; D̃ = R there: hybrid.lua).
local function backward(T, X, pA, rows, tau, step)
  local P, ur, held = {}, {}, {}
  for r, row in ipairs(rows) do
    held[r] = 0
    P[r], ur[r] = {}, {}
    for side, i in ipairs({ row.loop.a, row.loop.b }) do
      if i > 0 then
        local g = {}
        for k = 1, 6 do g[k] = -row.g[6 * (side - 1) + k] end
        P[r][i] = P[r][i] and sp.add(P[r][i], g) or g
      end
    end
  end
  local jt, u = aba.backward(T, X, pA, function(i, jti)
    local b, p = T[i], T[i].parent
    for r = 1, #rows do
      if P[r][i] then
        local y = J.ST(b, P[r][i])
        for c = 1, #y do
          if jti.f then held[r] = held[r] + jti.m[c] * (y[c] * y[c]) * jti.F.dinv[c] end
          y[c] = jti.f and -(jti.f[c] * y[c]) or -y[c]
        end
        ur[r][i] = sp.name(y, "u_c" .. (r - 1) .. "_" .. b.name)
        if p > 0 then
          local pa = sp.XT_fv(X[i], sp.add(P[r][i], J.WT_mv(jti, ur[r][i])))
          P[r][p] = P[r][p] and sp.add(P[r][p], pa) or pa
        end
      end
    end
  end, nil, tau, step)
  return jt, u, ur, P, step and held
end
F.backward = backward

-- Φ_rc = Σ_i u_r,iᵀ D_i⁻¹ u_c,i over the bodies both rows reach.
function F.phi_entry(T, jt, ur, r, c)
  local s = 0
  for _, b in ipairs(T) do
    local x, y = ur[r][b.i], ur[c][b.i]
    if x and y then s = s + sp.dot(x, sp.ldl_solve(jt[b.i].F, y)) end
  end
  return s
end

-- Σ_r λ_r u_r per body: the innovations of the multipliers, for the last forward pass.
function F.innovations(T, ur, lambda)
  local ul = {}
  for _, b in ipairs(T) do
    for r = 1, #lambda do
      if ur[r][b.i] then
        local x = sp.scale(ur[r][b.i], lambda[r])
        ul[b.i] = ul[b.i] and sp.add(ul[b.i], x) or x
      end
    end
  end
  return ul
end

-- Φ (lower triangle) and its factors; the pivots against Φ's diagonal (plus held[r], the row's
-- weight on prescribed dofs, when given: a row they alone carry is singular, not 1/ε).
local function constraint_system(T, jt, ur, n, held)
  local Phi = {}
  for r = 1, n do
    Phi[r] = {}
    for c = 1, r do
      Phi[r][c] = sym.name(F.phi_entry(T, jt, ur, r, c), "Phi_" .. (r - 1) .. "_" .. (c - 1))
    end
  end
  local ref = {}
  for r = 1, n do ref[r] = held and Phi[r][r] + held[r] or Phi[r][r] end
  return sp.ldl(Phi, n, function(d, l, Rl)
    sym.pivot(d, Rl, "constraint row " .. (l - 1))
  end, ref)
end

-- q̈ (by dof, 1-based) and λ (by row) of the loop-closed forward dynamics, as symbols; with
-- step (hybrid.lua's), the prescribed dofs' q̈ given (the joint forces from input tau), and a
-- third result: the sweeps' T, jt, pA, P and Δa = Δa₀ + Δa_λ per body (fd_loops_hybrid.lua);
-- with stab = {alpha, beta} (symbols), Baumgarte's acceleration constraint K q̈ = −K̇v − 2α K v
-- − β² φ instead of K q̈ = −K̇v (fd_loops_baumgarte.lua).
function F.solve(model, name, tau, step, stab)
  L.require_loops(model, name or "fd_loops")
  local T, X, _, pA = rnea.forward(model, "v", nil)
  -- the rows from the body frames' kinematics; their wrenches carried to T's frames (--frame)
  local rows = J.in_body_frames(function()
    local kin = L.kinematics(model, "v")
    local rs = L.rows(model, kin, true)
    for _, row in ipairs(stab and rs or {}) do row.kv = L.apply(kin, row.loop, row.g) end -- φ̇
    return rs
  end)
  for _, row in ipairs(rows) do
    for side, i in ipairs({ row.loop.a, row.loop.b }) do
      if i > 0 then
        local at, g = 6 * (side - 1), {}
        for k = 1, 6 do g[k] = row.g[at + k] end
        for k, x in ipairs(J.to_frame(T[i], g)) do row.g[at + k] = x end
      end
    end
  end
  local jt, u, ur, P, held = backward(T, X, pA, rows, tau or PF.fd_tau(model), step)
  local qdd0, da = aba.forward(T, X, jt, u, "da")
  -- γ̄_r = −K̇v_r − K_r q̈₀ (− 2α φ̇_r − β² φ_r)
  local gam = {}
  for r, row in ipairs(rows) do
    local s = row.dd
    if stab then s = s + 2 * stab.alpha * row.kv + stab.beta * stab.beta * row.val end
    for side, i in ipairs({ row.loop.a, row.loop.b }) do
      if i > 0 then
        for k = 1, 6 do s = s + row.g[6 * (side - 1) + k] * da[i][k] end
      end
    end
    gam[r] = -s
  end
  local lambda = sp.ldl_solve(constraint_system(T, jt, ur, #rows, held), gam)
  local qddl, dal = aba.forward(T, X, jt, F.innovations(T, ur, lambda), "dal", true)
  local qdd = {}
  for _, b in ipairs(T) do
    for c = 1, b.nv do qdd[b.iv + c] = qdd0[b.i][c] + qddl[b.i][c] end
  end
  if not step then return qdd, lambda end
  local dat = {}
  for _, b in ipairs(T) do dat[b.i] = sp.add(da[b.i], dal[b.i]) end
  return qdd, lambda, { T = T, jt = jt, pA = pA, P = P, da = dat }
end

function F.build(model)
  local qdd, lambda = F.solve(model)
  for k = 1, model.nv do sym.output("qdd", k - 1, qdd[k]) end
  for r = 1, #lambda do sym.output("lambda", r - 1, lambda[r]) end
end

return F
