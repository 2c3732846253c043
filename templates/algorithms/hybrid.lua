-- hybrid.lua — hybrid dynamics (Featherstone, "Rigid Body Dynamics Algorithms", 2008, §9.2): for
-- each dof with mask[k] = 1 the acceleration is prescribed (in[k]) and its force computed; for
-- mask[k] = 0 the force is given (in[k]) and the acceleration computed. The mask is read at run
-- time and enters as arithmetic (m = mask[k], f = 1 − m, both exactly 0 or 1: the C function
-- refuses other values), so one function serves every pattern. On aba.lua's bias-force ABA:
--   w = m in (the prescribed q̈), pA' = pA + Σ U_c w_c (the prescribed motion's share of the
--   body's force: f = IA Δa + pA with Δa = a' + S_F q̈_F + S_P q̈_P);
--   Ũ_c = f_c U_c, D̃_rc = f_r f_c Sᵀ_r U_c (r ≠ c), D̃_rr = f_r (Sᵀ_r U_r + armature) + m_r R_r:
--   the free columns' D and a unit pivot of reference weight on each prescribed one, so the
--   factor of D̃ holds the free columns' factor exactly (the couplings are exact zeros);
--   u_c = f_c (τ_c − Sᵀ_c pA'), W = D̃⁻¹ Ũᵀ, Ia = IA − Ũ W, pa = pA' + Ũ D̃⁻¹ u (a joint whose
--   dofs are all prescribed passes IA on whole: a weld moving as prescribed);
--   q̈ = D̃⁻¹ u − W a' + w (the prescribed entries are in[k] exactly);
--   τ_c = m_c (U_cᵀ Δa + Sᵀ_c pA + armature in_c) + f_c in_c: Sᵀ (IA Δa + pA), the articulated
--   body equation of the subtree, for a prescribed dof; the given force for a free one.
local sp = import "spatial"
local J = import "joints"
local rnea = import "rnea"
local A = import "aba"

local H = {
  name = "hybrid",
  summary = "hybrid dynamics: qdd[k] = in[k] given and tau[k] computed where mask[k] = 1, tau[k] "
    .. "= in[k] given and qdd[k] computed where mask[k] = 0",
  returns = "int",
  frames = true,
  params = {
    { name = "q", role = "q" },
    { name = "v", role = "v" },
    { name = "mask", role = "mask" },
    { name = "in", role = "tau" },
    { name = "qdd", role = "out_nv" },
    { name = "tau", role = "out_nv" },
  },
}

-- A 1-dof joint along a coordinate axis without a rotor: the axis' row (1..6), else nil.
local function unit_axis(b)
  if b.nv ~= 1 or b.arm ~= 0 then return nil end
  local nz, at = 0, nil
  for l = 1, 6 do if b.S[1][l] ~= 0 then nz, at = nz + 1, l end end
  if nz == 1 and b.S[1][at] == 1 then return at end
  return nil
end

-- Body b's articulated step with its dofs' masks (aba.lua's A.backward calls it). Ũ = f U enters
-- only through W = D̃⁻¹ Ũᵀ, whose prescribed columns are zero; then Ũ W = U W (f² = f) and the
-- factors keep U itself (jt.U: the pivots' amplification, J.amplify, weighs each column by f).
-- D̃ is block diagonal between the free and the prescribed columns (exact zeros), so D̃⁻¹ (f x) =
-- f (D̃⁻¹ x): a 1-dof joint's W is U f/D̃, one product per entry as in aba.
function H.step(b, IA, R, pA, tau, mask)
  local m, f, w, U, D = mask or J.read(b, "mask"), {}, {}, {}, {}
  local pAp = pA
  for c, Sc in ipairs(b.S) do
    f[c] = J.name({ 1 - m[c] }, "f" .. (c - 1), b)[1]
    w[c] = J.name({ m[c] * tau[c] }, "w" .. (c - 1), b)[1]
    U[c] = J.name(sp.M6_mv(IA, Sc), "U" .. (c - 1), b)
    pAp = sp.add(pAp, sp.scale(U[c], w[c]))
  end
  pAp = J.name(pAp, "pAh", b)
  for r = 1, b.nv do
    D[r] = {}
    for c = 1, r - 1 do D[r][c] = f[r] * (sp.dot(b.S[r], U[c]) * f[c]) end
    D[r][r] = f[r] * (sp.dot(b.S[r], U[r]) + b.arm) + m[r] * R[r]
    if m[r] == 1 then D[r][r] = 1 end -- a prescribed dof fixed at generation: no pivot
  end
  local F = sp.ldl(D, b.nv, function(d, l, Rl)
    if type(d) == "number" then return end
    sym.pivot(sym.name(d, "D_" .. b.name .. "_" .. (l - 1)), Rl, "joint '" .. b.joint .. "'")
  end, R)
  local W, fd = {}, b.nv == 1 and f[1] * F.dinv[1]
  for l = 1, 6 do
    if fd then
      W[l] = { U[1][l] * fd }
    else
      local row = {}
      for c = 1, b.nv do row[c] = U[c][l] end
      W[l] = sp.ldl_solve(F, row)
      for c = 1, b.nv do W[l][c] = f[c] * W[l][c] end
    end
  end
  local at = unit_axis(b)
  if at then W[at][1] = f[1] end -- W[at] = f U[at] / D̃ = f (U[at] = D)
  local Ia = sp.sym6(function(i, j)
    if i == at or j == at then return m[1] * IA[sp.at6(i, j)] end -- 0 free, IA prescribed
    local s = IA[sp.at6(i, j)]
    for c = 1, b.nv do s = s - U[c][i] * W[j][c] end
    return s
  end)
  local u = {}
  for c, Sc in ipairs(b.S) do u[c] = f[c] * (tau[c] - sp.dot(Sc, pAp)) end
  return { U = U, F = F, W = W, Ia = Ia, pA = pAp, w = w, f = f, m = m }, J.name(u, "u", b)
end

-- τ = m given + (1 − m) g as g + m (given − g); a mask fixed at generation picks one (exactly).
function H.blend(m, given, g)
  if type(m) == "number" then return m == 1 and given or g end
  return g + m * (given - g)
end

-- The outputs qdd and tau of the hybrid ABA with the articulated step step (H.step: the mask read
-- at run time; hybrid_fixed.lua's: the mask of --prescribed as constants).
function H.run(model, step)
  local T, X, _, pA = rnea.forward(model, "v", nil)
  local jt, u = A.backward(T, X, pA, nil, nil, "in", step)
  local qdd, da = A.forward(T, X, jt, u, "da")
  for _, b in ipairs(T) do
    local t, g = jt[b.i], J.read(b, "in")
    for c = 1, b.nv do
      local k = b.iv + c - 1
      local given = sp.dot(t.U[c], da[b.i]) + sp.dot(b.S[c], pA[b.i]) + b.arm * g[c]
      sym.output("qdd", k, qdd[b.i][c])
      sym.output("tau", k, H.blend(t.m[c], given, g[c]))
    end
  end
end

function H.build(model)
  -- (refused before: coupled joints, flexible bodies, --passive-in-fd; generate.c)
  H.run(model, H.step)
end

return H
