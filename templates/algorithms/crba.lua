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
  frames = true, -- world-aligned variants (--frame, reference.lua)
  params = {
    { name = "q", role = "q" },
    { name = "M", role = "out_nvnv" },
  },
}

-- Composite inertias: IC_i = I_i;  for i = N..1: IC_λ += λX*_i IC_i iXλ. A flexible body also
-- has the coupling PC (nm columns) and modal block PE of its composite modal inertia: PC = Mc,
-- PE = Me, and a child locked to it moves with its section, so with A = λX*_i IC_i iXλ:
-- PC_λ += A Ψ_i,  PE_λ += Ψ_iᵀ A Ψ_i (Jain & Rodriguez 1990, §5, eq. 5.5). final(b, IC, PC, PE)
-- runs when body b's blocks are final, before they are added to its parent's.
local function composites(T, X, final)
  local IC, PC, PE = {}, J.modal_blocks(T)
  for _, b in ipairs(T) do IC[b.i] = b.I end
  for i = #T, 1, -1 do
    local b, p = T[i], T[i].parent
    IC[i] = J.name(IC[i], "IC", b)
    J.name_modal(PC, PE, b)
    final(b, IC, PC, PE)
    if p > 0 then
      local A = sp.I_to_parent(X[i], IC[i])
      IC[p] = sp.I_add(IC[p], A)
      if b.Psi then J.add_section(PC[p], PE[p], b.Psi, function(x) return sp.I_mv(A, x) end) end
    end
  end
end

-- M as rows M[r][c] (1-based dofs), both triangles; structural zeros are 0.
function C.mass_matrix(model)
  local T, nv = J.tree(model), model.nv
  local X, M = {}, {}
  for r = 1, nv do M[r] = sp.zeros(nv) end
  for _, b in ipairs(T) do X[b.i] = J.Xup(b) end
  local function set(r, c, x) M[r][c], M[c][r] = x, x end
  -- M_jc = S_jᵀ F for body j's joint, F the force of column c (cols[k] the column of F[k])
  local function block(j, cols, F)
    for r, Sr in ipairs(j.S) do
      for k = 1, #F do set(j.iv + r, cols[k], sp.dot(Sr, F[k])) end
    end
  end
  -- the rows of every ancestor: while λ(j) ≠ 0:  F = λX*_j F;  j = λ(j);  M_jc = S_jᵀ F, and
  -- the modes of a flexible λ(j): Ψ_jᵀ F
  local function up(b, cols, F)
    local j = b
    while j.parent > 0 do
      for k = 1, #F do F[k] = sp.XT_fv(X[j.i], F[k]) end
      if j.Psi then
        for k = 1, #F do
          for r, x in ipairs(J.cols_T(j.Psi, F[k])) do set(T[j.parent].ie + r, cols[k], x) end
        end
      end
      j = T[j.parent]
      block(j, cols, F)
    end
  end
  -- body b's columns, as soon as its composite inertia is final (in the backward sweep, as
  -- Featherstone states the algorithm): the other subtrees' composites are not held meanwhile
  local function columns(b, IC, PC, PE)
    -- F = IC_i S_i;  M_ii = S_iᵀ F;  a flexible body's modal rows: PCᵀ S_i
    local F, cols = {}, {}
    for c, Sc in ipairs(b.S) do
      F[c], cols[c] = sp.I_mv(IC[b.i], Sc), b.iv + c
      for r = 1, b.nm do set(b.ie + r, b.iv + c, sp.dot(PC[b.i][r], Sc)) end
    end
    block(b, cols, F)
    up(b, cols, F)
    -- its modes: F = PC e_c, M_ηη = PE
    if b.nm > 0 then
      local Fm, cm = {}, {}
      for c = 1, b.nm do
        Fm[c], cm[c] = { table.unpack(PC[b.i][c]) }, b.ie + c
        for r = 1, b.nm do set(b.ie + r, b.ie + c, PE[b.i][r][c]) end
      end
      block(b, cm, Fm)
      up(b, cm, Fm)
    end
  end
  composites(T, X, columns)
  J.add_armature(T, M)
  return M
end

function C.build(model)
  J.output_matrix("M", C.mass_matrix(model), model.nv)
end

return C
