-- cfa_blocks.lua — the pieces of the Constraint Force Algorithm (ALGORITHMS.md §4; seed 000
-- eqs. 16-38): constant inverse inertias, the three sparse sweeps z = Pᵀ I⁻¹ P F, the non-zero
-- blocks of A = Tᵀ Pᵀ I⁻¹ P T, and the block LDLᵀ of A under the elimination order the
-- generator computed (model.cfa: the steps and, for each, the neighbours still present).
--
-- Blocks are tables of rows; A.get(j, k) is the block of the joints into bodies j and k
-- (nt_j × nt_k), stored with its transpose so either orientation is a lookup.
local sp = import "spatial"
local J = import "joints"
local C = {}

-- ---- inverse inertias (numbers: I⁻¹ is constant in the body frame) ---------------------------

-- I⁻¹ of a 10-number inertia as {c, minv, Ici}: c the centre of mass, 1/m, Ic⁻¹ row-major with
-- Ic = Ī − m (|c|² 1 − c cᵀ) the rotational inertia about the centre of mass.
function C.inverse_inertia(I)
  local m = I[1]
  local c = { I[2] / m, I[3] / m, I[4] / m }
  local cc = sp.dot(c, c)
  local S = { { I[5], I[8], I[9] }, { I[8], I[6], I[10] }, { I[9], I[10], I[7] } }
  local a = {}
  for i = 1, 3 do
    a[i] = {}
    for k = 1, 3 do a[i][k] = S[i][k] - m * ((i == k and cc or 0) - c[i] * c[k]) end
  end
  local function cof(i, k)
    local i1, i2, k1, k2 = i % 3 + 1, (i + 1) % 3 + 1, k % 3 + 1, (k + 1) % 3 + 1
    return a[i1][k1] * a[i2][k2] - a[i1][k2] * a[i2][k1]
  end
  local det = a[1][1] * cof(1, 1) + a[1][2] * cof(1, 2) + a[1][3] * cof(1, 3)
  assert(m > 0 and det > 0, "the CFA needs every body to have a positive mass and inertia")
  local Ici = {}
  for i = 1, 3 do
    for k = 1, 3 do Ici[3 * i - 3 + k] = cof(k, i) / det end
  end
  return { c = c, minv = 1 / m, Ici = Ici }
end

-- α = I⁻¹ y:  ω = Ic⁻¹ (n − c × f),  v = f / m + c × ω
function C.Iinv_mv(G, y)
  local n, f = { y[1], y[2], y[3] }, { y[4], y[5], y[6] }
  local w = sp.mat3_mv(G.Ici, sp.sub(n, sp.cross(G.c, f)))
  local v = sp.add(sp.scale(f, G.minv), sp.cross(G.c, w))
  return { w[1], w[2], w[3], v[1], v[2], v[3] }
end

-- ---- the three sweeps -------------------------------------------------------------------------

-- z = Pᵀ I⁻¹ P F for the joint forces F[i] (6-vectors, nil for zero), in three passes:
--   y_j = F_j − Σ_c jX*_c F_c;   α_j = I_j⁻¹ y_j;   z_j = α_j − jXλ α_λ  (α_0 = 0).
-- prefix names α (nil: unnamed).
function C.sweeps(T, X, G, F, prefix)
  local y, alpha, z = {}, { [0] = false }, {}
  for i = 1, #T do y[i] = F[i] or sp.zeros(6) end
  for i = #T, 1, -1 do
    local p = T[i].parent
    if p > 0 and F[i] then y[p] = sp.sub(y[p], sp.XT_fv(X[i], F[i])) end
  end
  for _, b in ipairs(T) do
    local i, p = b.i, b.parent
    alpha[i] = C.Iinv_mv(G[i], y[i])
    if prefix then alpha[i] = J.name(alpha[i], prefix, b) end
    z[i] = p > 0 and sp.sub(alpha[i], sp.X_mv(X[i], alpha[p])) or alpha[i]
  end
  return z
end

-- ---- the blocks of A --------------------------------------------------------------------------

local function transpose(M, nr, nc)
  local R = {}
  for c = 1, nc do
    R[c] = {}
    for r = 1, nr do R[c][r] = M[r][c] end
  end
  return R
end

-- An empty block store for the joints' row counts nt.
function C.store(nt)
  local A, blocks = {}, {}
  function A.get(j, k) return blocks[j .. "," .. k] end
  function A.set(j, k, M)
    blocks[j .. "," .. k] = M
    if j ~= k then blocks[k .. "," .. j] = transpose(M, nt[j], nt[k]) end
  end
  function A.zeros(j, k)
    local M = {}
    for r = 1, nt[j] do M[r] = sp.zeros(nt[k]) end
    return M
  end
  return A
end

local function name_block(M, bj, bk, symmetric)
  for r = 1, #M do
    for c = symmetric and r or 1, #M[r] do
      M[r][c] = sym.name(M[r][c], "A_" .. bj.name .. "_" .. bk.name .. "_" .. (r - 1) .. (c - 1))
      if symmetric then M[c][r] = M[r][c] end
    end
  end
  return M
end

-- The constant 6×6 (columns) N = XT_j M XT_kᵀ for a matrix M given by its action mv on vectors
-- (numbers: the tree transforms and the inverse inertias are constants).
local function const_between(XTj, mv, XTk)
  local N = {}
  for c = 1, 6 do
    local e = sp.zeros(6)
    e[c] = 1
    local u = XTk and sp.XT_fv(XTk, e) or e
    u = mv(u)
    N[c] = XTj and sp.X_mv(XTj, u) or u
  end
  return N
end

local function N_mv(N, u)
  local y = sp.zeros(6)
  for c = 1, 6 do
    if u[c] ~= 0 then
      for r = 1, 6 do y[r] = y[r] + N[c][r] * u[c] end
    end
  end
  return y
end

-- Tlᵀ XJl N XJrᵀ Tr (XJl or XJr nil: the identity), column by column: each column of Tr is a
-- unit or sparse vector, XJrᵀ of it has few non-zeros, N is a constant.
local function rotated_block(Tl, XJl, N, XJr, Tr, sign, upper)
  local M = {}
  for r = 1, #Tl do M[r] = {} end
  for c, t in ipairs(Tr) do
    local u = XJr and sp.XT_fv(XJr, t) or t
    u = N_mv(N, u)
    if XJl then u = sp.X_mv(XJl, u) end
    for r = 1, upper and c or #Tl do M[r][c] = sign * sp.dot(Tl[r], u) end
  end
  return M
end

-- A's blocks that are not zero (eqs. 31-38 in ALGORITHMS.md's notation). With iXλ = XJ_i XT_i
-- and the constants G_j = I_j⁻¹ (in body j), C_j = XT_j G_p XT_jᵀ (the parent's inverse inertia
-- at joint j before its motion), N_pj = XT_j G_p, N_jk = XT_j G_p XT_kᵀ:
--   A_jj = T_jᵀ G_j T_j + T_jᵀ XJ_j C_j XJ_jᵀ T_j     (the second term when p is a body)
--   A_jp = −T_jᵀ XJ_j N_pj T_p                          (j a child of p)
--   A_jk = T_jᵀ XJ_j N_jk XJ_kᵀ T_k                     (j, k siblings on p)
-- blocks is model.cfa.blocks, the off-diagonal pattern the generator computed.
function C.assemble(T, G, Tc, nt, blocks)
  local A, XJ = C.store(nt), {}
  local function Gmv(i) return function(u) return C.Iinv_mv(G[i], u) end end
  for _, b in ipairs(T) do
    local j, p = b.i, b.parent
    XJ[j] = J.jcalc(b)
    if nt[j] > 0 then
      local D = rotated_block(Tc[j], nil, const_between(nil, Gmv(j), nil), nil, Tc[j], 1, true)
      if p > 0 then
        local R = rotated_block(Tc[j], XJ[j], const_between(b.XT, Gmv(p), b.XT), XJ[j], Tc[j], 1,
                                true)
        for r = 1, nt[j] do
          for c = r, nt[j] do D[r][c] = D[r][c] + R[r][c] end
        end
      end
      A.set(j, j, name_block(D, b, b, true))
    end
  end
  for _, e in ipairs(blocks) do
    local j, k = e[1], e[2]
    if e.sibling then
      local N = const_between(T[j].XT, Gmv(T[j].parent), T[k].XT)
      A.set(j, k, name_block(rotated_block(Tc[j], XJ[j], N, XJ[k], Tc[k], 1), T[j], T[k]))
    else -- A_kj, k the child
      local N = const_between(T[k].XT, Gmv(j), nil)
      A.set(k, j, name_block(rotated_block(Tc[k], XJ[k], N, nil, Tc[j], -1), T[k], T[j]))
    end
  end
  return A
end

-- ---- block LDLᵀ under the generator's elimination order ---------------------------------------

-- y = L⁻¹ b and x = L⁻ᵀ y for a factor of sp.ldl.
local function lower_solve(F, b)
  local y = {}
  for i = 1, F.n do
    local s = b[i]
    for k = 1, i - 1 do s = s - F.L[i][k] * y[k] end
    y[i] = s
  end
  return y
end

local function upper_solve(F, y)
  local x = {}
  for i = F.n, 1, -1 do
    local s = y[i]
    for k = i + 1, F.n do s = s - F.L[k][i] * x[k] end
    x[i] = s
  end
  return x
end

-- Eliminate the blocks step by step: D_j = L diag(d) Lᵀ (every d a pivot); for the remaining
-- neighbours k, l of j:  Z_jk = L⁻¹ A_jk,  Zs_jk = diag(d)⁻¹ Z_jk,  A_kl −= Z_jkᵀ Zs_jl
-- (A_kl a fill block when it did not exist). Returns the factors {F, Z, Zs} by body.
function C.factor(T, A, nt, steps)
  local fac = {}
  for _, st in ipairs(steps) do
    local j, b = st.body, T[st.body]
    local l = 0
    local F = sp.ldl(A.get(j, j), nt[j], function(d)
      sym.pivot(sym.name(d, "D_" .. b.name .. "_" .. l))
      l = l + 1
    end)
    local Z, Zs = {}, {}
    for _, k in ipairs(st.nbr) do
      local Ajk = A.get(j, k)
      Z[k], Zs[k] = {}, {}
      local cols = {}
      for c = 1, nt[k] do
        local col = {}
        for r = 1, nt[j] do col[r] = Ajk[r][c] end
        cols[c] = lower_solve(F, col)
      end
      for r = 1, nt[j] do
        Z[k][r], Zs[k][r] = {}, {}
        for c = 1, nt[k] do Z[k][r][c], Zs[k][r][c] = cols[c][r], cols[c][r] * F.dinv[r] end
      end
    end
    for a, k in ipairs(st.nbr) do
      for e = a, #st.nbr do
        local m = st.nbr[e]
        local M = A.get(k, m) or A.zeros(k, m)
        for r = 1, nt[k] do
          for c = (k == m) and r or 1, nt[m] do
            local s = M[r][c]
            for i = 1, nt[j] do s = s - Z[k][i][r] * Zs[m][i][c] end
            M[r][c] = s
            if k == m then M[c][r] = s end
          end
        end
        A.set(k, m, M)
      end
    end
    fac[j] = { F = F, Z = Z, Zs = Zs }
  end
  return fac
end

-- A x = rhs given C.factor: forward (e_j = diag⁻¹ L⁻¹ b_j, b_k −= Z_jkᵀ e_j), then backward
-- (x_j = L⁻ᵀ (e_j − Σ_k Zs_jk x_k)). rhs is consumed; returns x by body.
function C.solve(fac, nt, steps, rhs)
  local e, x = {}, {}
  for _, st in ipairs(steps) do
    local j, f = st.body, fac[st.body]
    e[j] = lower_solve(f.F, rhs[j])
    for r = 1, nt[j] do e[j][r] = e[j][r] * f.F.dinv[r] end
    for _, k in ipairs(st.nbr) do
      for c = 1, nt[k] do
        local s = rhs[k][c]
        for r = 1, nt[j] do s = s - f.Z[k][r][c] * e[j][r] end
        rhs[k][c] = s
      end
    end
  end
  for s = #steps, 1, -1 do
    local j, f = steps[s].body, fac[steps[s].body]
    local t = {}
    for r = 1, nt[j] do
      local v = e[j][r]
      for _, k in ipairs(steps[s].nbr) do
        for c = 1, nt[k] do v = v - f.Zs[k][r][c] * x[k][c] end
      end
      t[r] = v
    end
    x[j] = upper_solve(f.F, t)
  end
  return x
end

return C
