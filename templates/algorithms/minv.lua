-- minv.lua — M(q)⁻¹ by the operator factorization of Jain & Rodriguez, "Recursive Dynamics for
-- Flexible Multibody Systems Using Spatial Operators", JPL Publication 90-26, 1990 (Lemma 6.3),
-- in the two-sweep form of Carpentier 2018 (runtime/minv.c): the ABA on every column of the
-- identity at once, v = 0, no gravity; M is never formed. Body i computes row i of M⁻¹ from
-- column iv_i on; the rest is symmetry. Columns outside a body's subtree stay exactly 0 in the
-- backward sweep.
local sp = import "spatial"
local J = import "joints"
local CP = import "coupled"

local Mv = {
  name = "minv",
  summary = "inverse of the joint-space inertia matrix by the operator factorization",
  returns = "int",
  frames = true, -- world-aligned variants (--frame, reference.lua)
  params = {
    { name = "q", role = "q" },
    { name = "Minv", role = "out_nvnv" },
  },
}

-- M⁻¹ as rows Mi[r][c] (1-based dofs), both triangles (shared with aba_derivatives).
function Mv.matrix(model)
  local T, nv, zero = J.tree(model), model.nv, sp.zeros(6)
  local X, IA, jt, F, FE = {}, {}, {}, {}, {}
  local A, Mi, R = { [0] = {} }, {}, {}
  local PC, PE = J.modal_blocks(T) -- a flexible body's coupling and modal blocks
  for _, b in ipairs(T) do
    X[b.i], IA[b.i], F[b.i], FE[b.i], A[b.i] = J.Xup(b), sp.M6_from_I(b.I), {}, {}, {}
  end
  local base = J.base_references(T, X)
  for _, b in ipairs(T) do R[b.i] = { table.unpack(base[b.i]) } end
  for r = 1, nv do Mi[r] = {} end
  for i = #T, 1, -1 do
    local b, p = T[i], T[i].parent
    local d = b.nv + b.nm
    IA[i] = sp.name6(IA[i], "IA_" .. b.name)
    if b.nm > 0 then
      J.name_modal(PC, PE, b)
      jt[i] = J.articulated_modal(b, IA[i], PC[i], PE[i], R[i])
    else
      jt[i] = J.articulated(b, IA[i], R[i])
      if p > 0 then J.amplify(R[p], T[p], X[i], jt[i], base[i]) end
    end
    for j = b.iv + 1, nv do
      -- M⁻¹_ij = D⁻¹ (δ_ij − 𝓗 F_i[:, j]), 𝓗 F = [Sᵀ F; F_η] (the modes' part of a flexible body)
      local Fj, rhs = F[i][j] or zero, {}
      for k = 1, b.nv do rhs[k] = ((b.iv + k == j) and 1 or 0) - sp.dot(b.S[k], Fj) end
      for k = 1, b.nm do
        rhs[b.nv + k] = ((b.ie + k == j) and 1 or 0) - (FE[i][j] and FE[i][j][k] or 0)
      end
      local w = sp.ldl_solve(jt[i].F, rhs)
      for k = 1, d do Mi[b.iv + k][j] = w[k] end
      if p > 0 then
        -- F_λ[:, j] += λX*_i (F_i[:, j] + U M⁻¹_ij); a flexible parent's modes: Ψᵀ of it
        for k, Uk in ipairs(jt[i].U) do Fj = sp.add(Fj, sp.scale(Uk, w[k])) end
        local Fp = sp.XT_fv(X[i], Fj)
        F[p][j] = sp.add(F[p][j] or zero, Fp)
        if b.Psi then
          FE[p][j] = sp.add(FE[p][j] or sp.zeros(T[p].nm), J.cols_T(b.Psi, Fp))
        end
      end
    end
    -- IA_λ += λX*_i Ia iXλ (a flexible parent: PC_λ += A Ψ, PE_λ += Ψᵀ A Ψ)
    if p > 0 then
      local A6 = sp.M6_to_parent(X[i], jt[i].Ia)
      IA[p] = sp.M6_add(IA[p], A6)
      if b.Psi then J.add_section(PC[p], PE[p], b.Psi, function(x) return sp.M6_mv(A6, x) end) end
    end
  end
  for _, b in ipairs(T) do
    local i, p, d = b.i, b.parent, b.nv + b.nm
    -- A body without children needs no A_i: its rows of W iXλ (formed once) act on A_λ directly,
    -- M⁻¹_ij −= (W iXλ) A_λ[:, j] — six products per entry instead of a transform.
    local WX = (#b.children == 0 and p > 0 and not b.Psi) and J.W_rows(jt[i], X[i]) or nil
    for j = b.iv + 1, nv do
      if WX then
        local w = {}
        for k = 1, d do w[k] = sp.dot(WX[k], A[p][j]) end
        for k = 1, d do Mi[b.iv + k][j] = Mi[b.iv + k][j] - w[k] end
      else
        -- a' = iXλ (A_λ[:, j] + Ψ M⁻¹_ηλ,j) (A_0 = 0);  M⁻¹_ij −= W a';  A_i[:, j] = a' + S M⁻¹_ij
        local Ap = A[p][j] or zero
        if b.Psi then
          local P, eta = T[p], {}
          for k = 1, P.nm do eta[k] = Mi[P.ie + k][j] end
          Ap = J.cols_mv(b.Psi, eta, { table.unpack(Ap) })
        end
        local ap, m = (p > 0) and sp.X_mv(X[i], Ap) or zero, {}
        local w = J.W_mv(jt[i], ap)
        for k = 1, d do Mi[b.iv + k][j] = Mi[b.iv + k][j] - w[k] end
        for k = 1, b.nv do m[k] = Mi[b.iv + k][j] end
        A[i][j] = sp.add(ap, J.S_mv(b, m))
      end
    end
  end
  local full = {}
  for r = 1, nv do
    full[r] = {}
    for c = 1, nv do full[r][c] = (c >= r) and Mi[r][c] or Mi[c][r] end
  end
  return full
end

function Mv.build(model)
  if model.coupling then return CP.minv(model) end -- coupled joints: coupled.lua
  J.output_matrix("Minv", Mv.matrix(model), model.nv)
end

return Mv
