-- crba.lua — the joint-space inertia matrix by the composite-rigid-body algorithm (Featherstone,
-- "Rigid Body Dynamics Algorithms", 2008, ch. 6; Jain & Rodriguez, "Recursive Dynamics for
-- Flexible Multibody Systems Using Spatial Operators", JPL Publication 90-26, 1990, §5,
-- Lemma 5.1, eq. 5.5). C.mass_matrix is shared with crba_fd.
local sp = import "spatial"
local J = import "joints"

local C = {
  name = "crba",
  summary = "joint-space inertia matrix M(q), row-major, full symmetric",
  returns = "void",
  params = {
    { name = "q", role = "q" },
    { name = "M", role = "out_nvnv" },
  },
}

-- M as rows M[r][c] (1-based dofs), both triangles; structural zeros are 0.
function C.mass_matrix(model)
  local T, nv = J.tree(model), model.nv
  local X, IC, M = {}, {}, {}
  for r = 1, nv do M[r] = sp.zeros(nv) end
  for _, b in ipairs(T) do X[b.i], IC[b.i] = J.Xup(b), b.I end
  -- IC_i = I_i;  for i = N..1: IC_λ += λX*_i IC_i iXλ
  for i = #T, 1, -1 do
    local p = T[i].parent
    IC[i] = J.name(IC[i], "IC", T[i])
    if p > 0 then IC[p] = sp.I_add(IC[p], sp.I_to_parent(X[i], IC[i])) end
  end
  -- M_ji = M_ijᵀ = S_jᵀ F for j = i and every ancestor j of i
  local function block(j, i, F)
    for r, Sr in ipairs(j.S) do
      for c = 1, #F do
        local x = sp.dot(Sr, F[c])
        M[j.iv + r][i.iv + c], M[i.iv + c][j.iv + r] = x, x
      end
    end
  end
  for _, b in ipairs(T) do
    -- F = IC_i S_i;  M_ii = S_iᵀ F
    local F = {}
    for c, Sc in ipairs(b.S) do F[c] = sp.I_mv(IC[b.i], Sc) end
    block(b, b, F)
    -- while λ(j) ≠ 0:  F = λX*_j F;  j = λ(j);  M_ji = S_jᵀ F
    local j = b
    while j.parent > 0 do
      for c = 1, #F do F[c] = sp.XT_fv(X[j.i], F[c]) end
      j = T[j.parent]
      block(j, b, F)
    end
  end
  return M
end

function C.build(model)
  local M, nv = C.mass_matrix(model), model.nv
  for r = 1, nv do
    for c = 1, nv do sym.output("M", nv * (r - 1) + c - 1, M[r][c]) end
  end
end

return C
