-- cfa_blocks.lua — the pieces of the Constraint Force Algorithm (Liu, Hu & Zhang, "Constraint
-- force algorithm for tree-like multibody system dynamics", Chinese Journal of Theoretical and
-- Applied Mechanics 48(1), 2016, eqs. 16-38): constant inverse inertias, the three sparse
-- sweeps z = Pᵀ I⁻¹ (P F − f0), the joints' two frames and the non-zero blocks of
-- A = Tᵀ Pᵀ I⁻¹ P T in them (all constants), for the block LDLᵀ of cfa_ldl.lua. Blocks are
-- tables of rows, named by the joints' body numbers.
local sp = import "spatial"
local J = import "joints"
local LDL = import "cfa_ldl"
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

-- z = Pᵀ I⁻¹ (P F − f0) for the joint forces F[i] (6-vectors, nil for zero) and the body
-- forces f0[i] (nil: none), in three passes:
--   y_j = F_j − f0_j − Σ_c jX*_c F_c;   α_j = I_j⁻¹ y_j;   z_j = α_j − jXλ α_λ  (α_0 = 0).
-- prefix names α (nil: unnamed).
function C.sweeps(T, X, G, F, f0, prefix)
  local y, alpha, z = {}, { [0] = false }, {}
  for i = 1, #T do
    y[i] = F[i] or sp.zeros(6)
    if f0 then y[i] = sp.sub(y[i], f0[i]) end
  end
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

-- ---- the joints' two frames ---------------------------------------------------------------

-- Per joint with constraint rows: T (columns), nt, canon ("body" on the world, else "pred"),
-- Rinv = R_j⁻¹ = (T_jᵀ XJ_j⁻¹ T_j)(T_jᵀ T_j)⁻¹ (T_jᵀ XJ_j = R_j T_jᵀ: XJ_j maps S_j into span S_j),
-- and rotate(j, M) = R_j⁻¹ M R_j⁻ᵀ for a symmetric M (a table of rows): for a revolute joint the
-- half-angle congruence of spatial.lua (XJ⁻¹ = XJᵀ = diag(Eᵀ, Eᵀ), T unit columns), else dense
-- products with Rinv (the engine folds its zeros). The hub unknowns of the order (hubs[u] = the
-- body p: cfa_order.h) have 6 rows in p's body frame (canon "body"), hub_of[p] = u; name[j] names
-- every unknown (the joint's body, or hub_<body>) and sign[j] is −1 for a hub (its pivots are
-- negative: the block is −I_p).
function C.frames(T, Tc, hubs)
  local F = { T = Tc, nt = {}, canon = {}, Rinv = {}, XJ = {}, planar = {}, name = {}, sign = {},
              hub_of = {} }
  local u = #T + 1
  while hubs[u] do
    local p = hubs[u]
    F.nt[u], F.canon[u], F.name[u], F.sign[u] = 6, "body", "hub_" .. T[p].name, -1
    F.hub_of[p], u = u, u + 1
  end
  for _, b in ipairs(T) do
    local j, t = b.i, Tc[b.i]
    F.nt[j], F.name[j], F.sign[j] = #t, b.name, 1
    if #t > 0 then
      F.canon[j] = b.parent == 0 and "body" or "pred"
      local XJ = J.jcalc(b)
      local Xi, R = sp.inverse(XJ), {}
      for r = 1, #t do R[r] = {} end
      for c, tc in ipairs(t) do
        local u, g = sp.X_mv(Xi, tc), sp.dot(tc, tc)
        for r, tr in ipairs(t) do
          local d = sp.dot(tr, u)
          R[r][c] = g == 1 and d or d / g
        end
      end
      F.Rinv[j], F.XJ[j] = R, XJ
      F.planar[j] = b.angle and b.fixed_origin and XJ.k ~= nil -- XJ: a turn about e_k, no shift
      if F.planar[j] then
        -- the half-angle constants, named A_R_* (the q-dependent entries of Ã: mbdc stats'
        -- solve depth starts from them and from the right-hand side)
        local c, s = XJ.c, XJ.s
        local function nm(x, w) return sym.name(x, "A_R_" .. b.name .. "_" .. w) end
        local SS, CC, SC = nm(s * s, "ss"), nm(c * c, "cc"), nm(s * c, "sc")
        XJ.P = { c = c, s = s, SS = SS, CC = CC, SC = SC, C2 = CC - SS, S2 = SC + SC }
      end
    end
  end
  function F.rotate(j, M) return C.rotate(F, j, M) end
  return F
end

-- The index (1..6) of each unit column of T, or nil when a column is not a unit vector.
local function unit_index(t)
  local at
  for l = 1, 6 do
    if t[l] ~= 0 then
      if at or t[l] ~= 1 then return nil end
      at = l
    end
  end
  return at
end

function C.rotate(F, j, M)
  local t, n = F.T[j], F.nt[j]
  if F.planar[j] then
    local idx, A = {}, {}
    for c = 1, n do idx[c] = unit_index(t[c]) end
    for l = 1, 36 do A[l] = 0 end
    for r = 1, n do
      for c = 1, n do A[sp.at6(idx[r], idx[c])] = M[r][c] end
    end
    local B, out = sp.M6_to_parent(F.XJ[j], A), {}
    for r = 1, n do
      out[r] = {}
      for c = 1, n do out[r][c] = B[sp.at6(idx[r], idx[c])] end
    end
    return out
  end
  local R, RM, out = F.Rinv[j], {}, {}
  for r = 1, n do
    RM[r], out[r] = {}, {}
    for c = 1, n do
      local s = 0
      for k = 1, n do s = s + R[r][k] * M[k][c] end
      RM[r][c] = s
    end
  end
  for r = 1, n do
    for c = r, n do
      local s = 0
      for k = 1, n do s = s + RM[r][k] * R[c][k] end
      out[r][c], out[c][r] = s, s
    end
  end
  return out
end

-- ---- the blocks of Ã (constants) ----------------------------------------------------------

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

-- Tlᵀ N Tr for the columns N of a constant 6×6 (numbers).
local function restrict(Tl, N, Tr, sign)
  local M = {}
  for r, tl in ipairs(Tl) do
    M[r] = {}
    for c, tr in ipairs(Tr) do
      local u = sp.zeros(6)
      for l = 1, 6 do
        if tr[l] ~= 0 then
          for i = 1, 6 do u[i] = u[i] + N[l][i] * tr[l] end
        end
      end
      M[r][c] = sign * sp.dot(tl, u)
    end
  end
  return M
end

-- Ã's blocks before elimination, every one a constant (Liu et al. 2016, eqs. 31-38, with the
-- unknowns of joint j in its pred frame, F_S,j = R_j⁻ᵀ F̃_j; docs/cfa.md "Frames"). With
-- G_j = I_j⁻¹, the parts of Ã_jj are  T_jᵀ G_j T_j  (body frame: Ã_jj gets R_j⁻¹ (·) R_j⁻ᵀ) and
-- T_jᵀ XT_j G_p XT_jᵀ T_j (pred); Ã_kp = −T_kᵀ XT_k G_p T_p (k a child of the joint p; p's
-- side in p's body frame) and Ã_jk = T_jᵀ XT_j G_p XT_kᵀ T_k (siblings on p): in the frames
-- fixed in the body they share, the joint motions drop out of every coupling. A hub u of body p
-- (cfa_order.h) replaces every term through G_p (the pred parts of its children's pivots, the
-- body part of p's own, the sibling blocks, the blocks of p's joint with its children): its own
-- block is −I_p, its block with a child joint k is T_kᵀ XT_k (rows (XT_kᵀ t)ᵀ) and with p's joint
-- −T_pᵀ, so that eliminating it gives those terms back (−Q_jᵀ (−I_p)⁻¹ Q_k).
--
-- F.ref[j][l] is the pivot reference of row l of unknown j (the pivot rule, docs/generator.md):
-- the diagonal entry of Ã before elimination, counted as if there were no hub (a hub's elimination
-- gives the terms through G_p back to p's own joint), and −I_p's for a hub's rows.
function C.assemble(T, G, F, blocks)
  local S = LDL.store(F.nt)
  local function Gmv(i) return function(u) return C.Iinv_mv(G[i], u) end end
  F.ref = {}
  for _, b in ipairs(T) do
    local j, p, t = b.i, b.parent, F.T[b.i]
    if #t > 0 then
      local d = S.diag(j)
      local B = restrict(t, const_between(nil, Gmv(j), nil), t, 1)
      local P = p > 0 and restrict(t, const_between(b.XT, Gmv(p), b.XT), t, 1) or nil
      local Bc, ref = F.canon[j] == "pred" and F.rotate(j, B) or B, {}
      for l = 1, #t do ref[l] = Bc[l][l] + (P and P[l][l] or 0) end
      F.ref[j] = ref
      if not F.hub_of[j] then d.body = B end
      if P and not F.hub_of[p] then d.pred = P end
    end
    local u = F.hub_of[j]
    if u then
      local I, M = sp.M6_from_I(b.I), {}
      for r = 1, 6 do
        M[r] = {}
        for c = 1, 6 do M[r][c] = -I[sp.at6(r, c)] end
      end
      S.diag(u).body = M
      F.ref[u] = {}
      for l = 1, 6 do F.ref[u][l] = M[l][l] end
    end
  end
  for _, e in ipairs(blocks) do
    local j, k = e[1], e[2]
    if e.hub and F.hub_of[j] == k then -- Ã_ju, j the hub body's own joint: rows −t
      local M = {}
      for r, t in ipairs(F.T[j]) do M[r] = sp.scale(t, -1) end
      S.set(j, k, M, "body", "body")
    elseif e.hub then -- Ã_ju, j a child joint of the hub body: rows (XT_jᵀ t)ᵀ
      local M = {}
      for r, t in ipairs(F.T[j]) do M[r] = sp.XT_fv(T[j].XT, t) end
      S.set(j, k, M, "pred", "body")
    elseif e.sibling then
      local N = const_between(T[j].XT, Gmv(T[j].parent), T[k].XT)
      S.set(j, k, restrict(F.T[j], N, F.T[k], 1), "pred", "pred")
    else -- Ã_kj, k the child
      local N = const_between(T[k].XT, Gmv(j), nil)
      S.set(k, j, restrict(F.T[k], N, F.T[j], -1), "pred", "body")
    end
  end
  return S
end

return C
