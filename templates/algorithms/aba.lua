-- aba.lua — forward dynamics by the articulated-body algorithm (ALGORITHMS.md §3; seed 001
-- eqs. 9-22; seed 003 §6-7, eqs. 6.1, 7.2-7.3). A.joint is shared with minv.
local sp = import "spatial"
local J = import "joints"

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
-- Ia = IA − U D⁻¹ Uᵀ, exactly zero in the rows and columns S selects (Ia S = 0).
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
  for _, Sc in ipairs(b.S) do
    local nz, at = 0, 0
    for l = 1, 6 do if Sc[l] ~= 0 then nz, at = nz + 1, l end end
    if nz == 1 and Sc[at] == 1 then zero[at] = true end
  end
  local Ia = sp.sym6(function(i, j)
    if zero[i] or zero[j] then return 0 end
    local s = IA[sp.at6(i, j)]
    for c = 1, n do s = s - U[c][i] * W[j][c] end
    return s
  end)
  return { U = U, F = F, Ia = Ia }
end

function A.build(model)
  local T = J.tree(model)
  local X, v, c, IA, pA, jt, u = {}, { [0] = sp.zeros(6) }, {}, {}, {}, {}, {}
  for _, b in ipairs(T) do
    local i = b.i
    X[i] = J.Xup(b)
    -- v_i = iXλ v_λ + vJ;  c_i = v_i × vJ;  IA_i = I_i;  pA_i = v_i ×* I_i v_i
    local vJ = J.S_mv(b, J.read(b, "v"))
    v[i] = J.name(sp.add(sp.X_mv(X[i], v[b.parent]), vJ), "v", b)
    c[i] = J.name(sp.crm(v[i], vJ), "c", b)
    IA[i] = sp.M6_from_I(b.I)
    pA[i] = sp.newton_euler(b.I, sp.zeros(6), v[i])
  end
  for i = #T, 1, -1 do
    local b, p = T[i], T[i].parent
    IA[i], pA[i] = A.name6(IA[i], "IA_" .. b.name), J.name(pA[i], "pA", b)
    -- U = IA S;  D = Sᵀ U;  u = τ − Sᵀ pA
    jt[i] = A.joint(b, IA[i])
    u[i] = J.name(sp.sub(J.read(b, "tau"), J.ST(b, pA[i])), "u", b)
    if p > 0 then
      -- pa = pA + Ia c + U D⁻¹ u;  IA_λ += λX*_i Ia iXλ;  pA_λ += λX*_i pa
      local pa, Du = sp.add(pA[i], sp.M6_mv(jt[i].Ia, c[i])), sp.ldl_solve(jt[i].F, u[i])
      for k, Uk in ipairs(jt[i].U) do pa = sp.add(pa, sp.scale(Uk, Du[k])) end
      IA[p] = sp.M6_add(IA[p], sp.M6_to_parent(X[i], jt[i].Ia))
      pA[p] = sp.add(pA[p], sp.XT_fv(X[i], pa))
    end
  end
  local a = { [0] = J.a0(model) }
  for _, b in ipairs(T) do
    local i, U = b.i, jt[b.i].U
    -- a' = iXλ a_λ + c;  q̈ = D⁻¹ (u − Uᵀ a');  a_i = a' + S q̈
    local ap, rhs = sp.add(sp.X_mv(X[i], a[b.parent]), c[i]), {}
    for k = 1, b.nv do rhs[k] = u[i][k] - sp.dot(U[k], ap) end
    local qdd = sp.ldl_solve(jt[i].F, rhs)
    for k = 1, b.nv do sym.output("qdd", b.iv + k - 1, qdd[k]) end
    a[i] = J.name(sp.add(ap, J.S_mv(b, qdd)), "a", b)
  end
end

return A
