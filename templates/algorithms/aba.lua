-- aba.lua — forward dynamics by the articulated-body algorithm (ALGORITHMS.md §3; seed 001
-- eqs. 9-22; seed 003 §6-7, eqs. 6.1, 7.2-7.3), in its bias-force form: with a_i = a0_i + Δa_i,
-- a0 the accelerations at q̈ = 0 (gravity and velocity products: a0_i = iXλ a0_λ + c_i), the
-- articulated bias starts from the RNEA's body forces at q̈ = 0, pA_i = I_i a0_i + v_i ×* I_i v_i,
-- the term Ia c drops out of pa, and the last pass carries Δa_i = iXλ Δa_λ + S q̈ from Δa_0 = 0.
-- A.joint is shared with minv.
local sp = import "spatial"
local J = import "joints"
local rnea = import "rnea"

local A = {
  name = "aba",
  summary = "forward dynamics by the articulated-body algorithm: qdd = M(q)^-1 (tau - h(q, v))",
  returns = "int",
  params = {
    { name = "q", role = "q" },
    { name = "v", role = "v" },
    { name = "tau", role = "tau" },
    { name = "qdd", role = "out_nv" },
  },
}

-- sym.name the upper triangle of a symmetric 6×6.
function A.name6(M, prefix)
  for i = 1, 6 do
    for j = i, 6 do
      M[sp.at6(i, j)] = sym.name(M[sp.at6(i, j)], prefix .. "_" .. (6 * i + j - 7))
    end
    for j = 1, i - 1 do M[sp.at6(i, j)] = M[sp.at6(j, i)] end
  end
  return M
end

-- One backward step of body b: U = IA S;  D = Sᵀ U = L diag(d) Lᵀ (every d a pivot);
-- W = D⁻¹ Uᵀ (W S = 1: exact where S selects a coordinate); Ia = IA − U W, exactly zero in the
-- rows and columns S selects (Ia S = 0). W[l] is row l of Wᵀ (n entries).
function A.joint(b, IA)
  local U, D, n = {}, {}, b.nv
  for c, Sc in ipairs(b.S) do U[c] = J.name(sp.M6_mv(IA, Sc), "U" .. (c - 1), b) end
  for r = 1, n do
    D[r] = {}
    for c = 1, r do D[r][c] = sp.dot(b.S[r], U[c]) end
  end
  local npiv = 0
  local F = sp.ldl(D, n, function(d)
    sym.pivot(sym.name(d, "D_" .. b.name .. "_" .. npiv))
    npiv = npiv + 1
  end)
  local W, zero = {}, {}
  for l = 1, 6 do
    local row = {}
    for c = 1, n do row[c] = U[c][l] end
    W[l] = sp.ldl_solve(F, row)
  end
  for c, Sc in ipairs(b.S) do
    local nz, at = 0, 0
    for l = 1, 6 do if Sc[l] ~= 0 then nz, at = nz + 1, l end end
    if nz == 1 and Sc[at] == 1 then
      zero[at] = true
      for c2 = 1, n do W[at][c2] = (c2 == c) and 1 or 0 end
    end
  end
  local Ia = sp.sym6(function(i, j)
    if zero[i] or zero[j] then return 0 end
    local s = IA[sp.at6(i, j)]
    for c = 1, n do s = s - U[c][i] * W[j][c] end
    return s
  end)
  return { U = U, F = F, W = W, Ia = Ia }
end

-- W x = D⁻¹ Uᵀ x (n values, x a 6-vector) and Wᵀ y = U D⁻¹ y (a 6-vector, y n values).
function A.W_mv(jt, x)
  local y = {}
  for c = 1, #jt.U do
    local s = 0
    for l = 1, 6 do s = s + jt.W[l][c] * x[l] end
    y[c] = s
  end
  return y
end

function A.WT_mv(jt, y)
  local x = {}
  for l = 1, 6 do x[l] = sp.dot(jt.W[l], y) end
  return x
end

function A.build(model)
  -- v_i, pA_i = I_i a0_i + v_i ×* I_i v_i: the RNEA's forward pass at q̈ = 0
  local T, X, _, pA = rnea.forward(model, "v", nil)
  local IA, jt, u = {}, {}, {}
  for _, b in ipairs(T) do IA[b.i] = sp.M6_from_I(b.I) end
  for i = #T, 1, -1 do
    local b, p = T[i], T[i].parent
    IA[i], pA[i] = A.name6(IA[i], "IA_" .. b.name), J.name(pA[i], "pA", b)
    -- U = IA S;  D = Sᵀ U;  W = D⁻¹ Uᵀ;  u = τ − Sᵀ pA
    jt[i] = A.joint(b, IA[i])
    u[i] = J.name(sp.sub(J.read(b, "tau"), J.ST(b, pA[i])), "u", b)
    if p > 0 then
      -- pa = pA + U D⁻¹ u;  IA_λ += λX*_i Ia iXλ;  pA_λ += λX*_i pa
      local pa = sp.add(pA[i], A.WT_mv(jt[i], u[i]))
      IA[p] = sp.M6_add(IA[p], sp.M6_to_parent(X[i], jt[i].Ia))
      pA[p] = sp.add(pA[p], sp.XT_fv(X[i], pa))
    end
  end
  local da = { [0] = sp.zeros(6) }
  for _, b in ipairs(T) do
    local i = b.i
    -- a' = iXλ Δa_λ;  q̈ = D⁻¹ u − W a';  Δa_i = a' + S q̈
    local ap = sp.X_mv(X[i], da[b.parent])
    local qdd = sp.sub(sp.ldl_solve(jt[i].F, u[i]), A.W_mv(jt[i], ap))
    for k = 1, b.nv do sym.output("qdd", b.iv + k - 1, qdd[k]) end
    da[i] = J.name(sp.add(ap, J.S_mv(b, qdd)), "da", b)
  end
end

return A
