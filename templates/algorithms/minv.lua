-- minv.lua — M(q)⁻¹ by the operator factorization of Jain & Rodriguez, "Recursive Dynamics for
-- Flexible Multibody Systems Using Spatial Operators", JPL Publication 90-26, 1990 (Lemma 6.3),
-- in the two-sweep form of Carpentier 2018 (runtime/minv.c): the ABA on every column of the
-- identity at once, v = 0, no gravity; M is never formed. Body i computes row i of M⁻¹ from
-- column iv_i on; the rest is symmetry. Columns outside a body's subtree stay exactly 0 in the
-- backward sweep.
local sp = import "spatial"
local J = import "joints"

return {
  name = "minv",
  summary = "inverse of the joint-space inertia matrix by the operator factorization",
  returns = "int",
  params = {
    { name = "q", role = "q" },
    { name = "Minv", role = "out_nvnv" },
  },
  build = function(model)
    local T, nv, zero = J.tree(model), model.nv, sp.zeros(6)
    local X, IA, jt, F, A, Mi, R = {}, {}, {}, {}, { [0] = {} }, {}, {}
    for _, b in ipairs(T) do
      X[b.i], IA[b.i], F[b.i], A[b.i] = J.Xup(b), sp.M6_from_I(b.I), {}, {}
    end
    local base = J.base_references(T, X)
    for _, b in ipairs(T) do R[b.i] = { table.unpack(base[b.i]) } end
    for r = 1, nv do Mi[r] = {} end
    for i = #T, 1, -1 do
      local b, p = T[i], T[i].parent
      IA[i] = sp.name6(IA[i], "IA_" .. b.name)
      jt[i] = J.articulated(b, IA[i], R[i])
      if p > 0 then J.amplify(R[p], T[p], X[i], jt[i], base[i]) end
      for j = b.iv + 1, nv do
        -- M⁻¹_ij = D⁻¹ (δ_ij − Sᵀ F_i[:, j])
        local Fj, rhs = F[i][j] or zero, {}
        for k = 1, b.nv do rhs[k] = ((b.iv + k == j) and 1 or 0) - sp.dot(b.S[k], Fj) end
        local w = sp.ldl_solve(jt[i].F, rhs)
        for k = 1, b.nv do Mi[b.iv + k][j] = w[k] end
        if p > 0 then
          -- F_λ[:, j] += λX*_i (F_i[:, j] + U M⁻¹_ij)
          for k, Uk in ipairs(jt[i].U) do Fj = sp.add(Fj, sp.scale(Uk, w[k])) end
          F[p][j] = sp.add(F[p][j] or zero, sp.XT_fv(X[i], Fj))
        end
      end
      -- IA_λ += λX*_i Ia iXλ
      if p > 0 then IA[p] = sp.M6_add(IA[p], sp.M6_to_parent(X[i], jt[i].Ia)) end
    end
    for _, b in ipairs(T) do
      local i, p = b.i, b.parent
      -- A body without children needs no A_i: its rows of W iXλ (formed once) act on A_λ directly,
      -- M⁻¹_ij −= (W iXλ) A_λ[:, j] — six products per entry instead of a transform.
      local WX = (#b.children == 0 and p > 0) and J.W_rows(jt[i], X[i]) or nil
      for j = b.iv + 1, nv do
        if WX then
          local w = {}
          for k = 1, b.nv do w[k] = sp.dot(WX[k], A[p][j]) end
          for k = 1, b.nv do Mi[b.iv + k][j] = Mi[b.iv + k][j] - w[k] end
        else
          -- a' = iXλ A_λ[:, j] (A_0 = 0);  M⁻¹_ij −= W a' (= D⁻¹ Uᵀ a');  A_i[:, j] = a' + S M⁻¹_ij
          local ap, m = (p > 0) and sp.X_mv(X[i], A[p][j]) or zero, {}
          local w = J.W_mv(jt[i], ap)
          for k = 1, b.nv do
            Mi[b.iv + k][j] = Mi[b.iv + k][j] - w[k]
            m[k] = Mi[b.iv + k][j]
          end
          A[i][j] = sp.add(ap, J.S_mv(b, m))
        end
      end
    end
    for r = 1, nv do
      for c = 1, nv do
        sym.output("Minv", nv * (r - 1) + c - 1, (c >= r) and Mi[r][c] or Mi[c][r])
      end
    end
  end,
}
