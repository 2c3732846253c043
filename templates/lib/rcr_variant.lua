-- rcr_variant.lua — forward dynamics by recursive coordinate reduction for one selection of
-- dependent coordinates (Critchley & Anderson, "A Generalized Recursive Coordinate Reduction
-- Method for Multibody System Dynamics", 2003, §3-5; docs/loops.md "Recursive coordinate
-- reduction"); the recipes rcr_0, rcr_1, rcr_2 are its instances, rcr_pivots chooses between
-- them and the C template c/rcr.lua writes p_rcr over both. The runtime's mb_rcr (runtime/rcr.c)
-- computes the same equations; the plan (groups, head, tail: runtime/rcr_internal.h) comes from
-- the generator as model.rcr.
--
-- Free joints take the articulated-body step in their body frames (aba.lua, bias-force form:
-- Δa = a − a0, a0 the accelerations at q̈ = 0 with −gravity). A group's tail is reduced in world
-- Plücker coordinates when the backward sweep reaches its p: its rows K_D q̈_D + K_I q̈_I + G Δâ_p
-- + K̇v = 0 are solved for the dependents with the projector recursion (ρ_d = R c_d / c_dᵀ R c_d
-- from the chain's end, no pivot below the rule); the tail bodies' Δa_k = Δa_c + Φ_k [Δâ_p; q̈_I;
-- 1]; the tail independents' reduced equations (M̂_M, n_I × n_I) give q̈_I; the tail's wrench maps
-- — weighted by Y = ∂Δa/∂Δâ_p for the head's equations, and total for c — go to p's head maps.
-- The heads (below: one inertia block per open base, the paper's §5 for coupled loops) are
-- reduced body by body down to c, where the loop closes like a child. A group hung from another's
-- tail (§5 with eq. 45) leaves its maps on the outer tail body b it hangs from (Heads:hub), which
-- the outer tail takes as inertia terms between its bodies and its open inputs (the hung bases
-- in its head short of p). A tail's M̂_M with a pivot ratio below P_RCR_REFINE sets bit 2 of the
-- variant's status (a hung group: always); rcr_refine_<s> (build_refine) then runs the same sweep
-- once more on the residuals (docs/loops.md "Accuracy").
local sp = import "spatial"
local J = import "joints"
local rnea = import "rnea"
local L = import "loops"
local Heads = import "rcr_heads"
local PF = import "passive_forces"

local V = {}
local ZERO = 1e-12 -- mb.h's MB_RCR_ZERO: a column of rounding noise is zero

-- ---- dense helpers: matrices are tables of rows ---------------------------------------------

local function mat(r, c)
  local A = {}
  for i = 1, r do
    A[i] = {}
    for j = 1, c do A[i][j] = 0 end
  end
  return A
end

local function M6_rows(M) -- a flat 6×6 (row-major) as rows
  local A = {}
  for i = 1, 6 do
    A[i] = {}
    for j = 1, 6 do A[i][j] = M[6 * (i - 1) + j] end
  end
  return A
end

local function matmul(A, B, r, k, c) -- A (r × k) B (k × c)
  local C = mat(r, c)
  for i = 1, r do
    for j = 1, c do
      local s = 0
      for l = 1, k do s = s + A[i][l] * B[l][j] end
      C[i][j] = s
    end
  end
  return C
end

local function name_mat(A, prefix)
  for i, row in ipairs(A) do
    for j = 1, #row do row[j] = sym.name(row[j], prefix .. "_" .. (i - 1) .. "_" .. (j - 1)) end
  end
  return A
end

-- An n × n symmetric system factored with its diagonal as the pivot references; ratio (unless
-- W.quiet, the refinement pass) is called as ratio(d, l, D_ll) on each pivot: the checks that
-- decide the refinement (bit 2; a tail's M̂_M, a head joint's D).
local function factorer(W)
  return function(D, n, what, ratio)
    local quiet = W.quiet
    local ref = {}
    for j = 1, n do ref[j] = D[j][j] end
    return sp.ldl(D, n, function(d, l, Rl)
      sym.pivot(d, Rl, what .. " " .. (l - 1))
      if ratio and not quiet then ratio(d, l, ref[l]) end
    end, ref)
  end
end

-- A tail's M̂_M: each pivot's ratio to its diagonal entry (l = 1: d is D₁₁, the ratio 1).
local function tail_ratio(d, l, Dll)
  if l > 1 then sym.refine_pivot(d, Dll) end
end

-- ---- the model in world coordinates ---------------------------------------------------------

-- col → { body, index of the column in its joint (1-based) }
local function columns(T)
  local cols = {}
  for _, b in ipairs(T) do
    for c = 1, b.nv do cols[b.iv + c - 1] = { body = b.i, c = c } end
  end
  return cols
end

local function is_ancestor(T, a, x) -- a is x or an ancestor of x (bodies; 0 the world)
  while x > 0 and x ~= a do x = T[x].parent end
  return x == a
end

-- The world transforms, the bias forces (with v: rnea's at q̈ = 0) and the rows (with K̇v); W.tau
-- (k) the generalized force on coordinate k (0-based), W.factor the factorizations.
function V.setup(model, dynamics)
  local qd = dynamics and "v" or nil
  local T, X, _, pA = rnea.forward(model, qd, nil)
  local K = L.kinematics(model, qd)
  local W = { T = T, X = X, pA = pA, rows = L.rows(model, K, dynamics), cols = columns(T) }
  W.X0, W.X0inv = { [0] = sp.identity() }, { [0] = sp.identity() }
  for _, b in ipairs(T) do
    W.X0[b.i] = sp.compose(X[b.i], W.X0[b.parent])
    W.X0inv[b.i] = sp.inverse(W.X0[b.i])
  end
  W.Sw = {} -- world columns of the bodies in groups, on demand
  local tp = dynamics and PF.fd_tau(model) -- τ + τ_passive with --passive-in-fd
  W.tau = function(k) return tp and tp[k + 1] or sym.input("tau", k) end
  W.factor, W.quiet = factorer(W), false
  return W
end

local function S_world(W, col)
  if not W.Sw[col] then
    local c = W.cols[col]
    local b = W.T[c.body]
    W.Sw[col] = sp.name(sp.X_mv(W.X0inv[b.i], b.S[c.c]), "sw_" .. b.name .. "_" .. (c.c - 1))
  end
  return W.Sw[col]
end

-- The world covectors of row r on bodies a and b (nil for the world).
local function covectors(W, r)
  local row, g = W.rows[r], {}
  for side, i in ipairs({ row.loop.a, row.loop.b }) do
    if i > 0 then
      local x = {}
      for k = 1, 6 do x[k] = row.g[6 * (side - 1) + k] end
      g[side] = sp.name(sp.XT_fv(W.X0[i], x), "gw" .. (r - 1) .. "_" .. side)
    end
  end
  return g
end

-- K_rk for column col of a group body: Σ over the row's bodies that col's joint moves.
local function K_entry(W, r, g, col)
  local row, body, s = W.rows[r], W.cols[col].body, 0
  for side, i in ipairs({ row.loop.a, row.loop.b }) do
    if i > 0 and is_ancestor(W.T, body, i) then s = s + sp.dot(g[side], S_world(W, col)) end
  end
  return s
end

-- The group's head covectors G and K̇v (κ) per row, and col(k): column k of the group's rows.
function V.group_rows(W, grp)
  local G, kap, gs = {}, {}, {}
  local c, p = grp.base, grp.p
  for a, r in ipairs(grp.rows) do
    gs[a] = covectors(W, r)
    G[a], kap[a] = sp.zeros(6), W.rows[r].dd or 0
    local row = W.rows[r]
    for side, e in ipairs({ row.loop.a, row.loop.b }) do
      if p ~= c and e > 0 and is_ancestor(W.T, p, e) then G[a] = sp.add(G[a], gs[a][side]) end
    end
  end
  local function col(k)
    local x = {}
    for a, r in ipairs(grp.rows) do x[a] = K_entry(W, r, gs[a], k) end
    return x
  end
  return G, kap, col
end

-- The projector recursion over the dependents (from the chain's end): ρ_d, with every pivot
-- c_dᵀ R c_d checked against |c_d|² (the pivot rule, and unless quiet the switch).
function V.project(grp, col, check, quiet)
  local m = #grp.rows
  local R, rho, piv, cc, cd = mat(m, m), {}, {}, {}, {}
  for i = 1, m do R[i][i] = 1 end
  local scale = 0 -- Σ |c_d|² over the dependents (the runtime's MB_RCR_ZERO rule)
  for d = 1, m do
    local c = col(grp.dep[d])
    for a = 1, m do scale = scale + c[a] * c[a] end
  end
  for d = m, 1, -1 do
    local c = col(grp.dep[d])
    cd[d] = c
    local w, p, n2 = {}, 0, 0
    for a = 1, m do
      local s = 0
      for b2 = 1, m do s = s + R[a][b2] * c[b2] end
      w[a] = s
      p, n2 = p + c[a] * s, n2 + c[a] * c[a]
    end
    piv[d], cc[d] = sym.name(p, "piv_" .. (d - 1)), n2 + ZERO * scale
    if check then
      sym.pivot(piv[d], cc[d], "the dependent coordinate " .. grp.dep[d])
      if not quiet then sym.switch_pivot(piv[d], cc[d]) end -- below P_RCR_SWITCH: bit 1
      rho[d] = {}
      for a = 1, m do rho[d][a] = sym.name(w[a] / piv[d], "rho_" .. (d - 1) .. "_" .. (a - 1)) end
      if d > 1 then
        for a = 1, m do
          for b2 = 1, m do R[a][b2] = R[a][b2] - w[a] * rho[d][b2] end
        end
      end
    else
      for a = 1, m do
        for b2 = 1, m do R[a][b2] = R[a][b2] - w[a] * w[b2] / piv[d] end
      end
    end
  end
  return rho, piv, cc, cd
end

-- ---- one group ------------------------------------------------------------------------------

-- The columns of a group's tail, x = [Δâ_p (6); q̈_I (n_I); z (6 per open input); 1]: its width.
local function width(grp) return 7 + #grp.ind + 6 * #grp.zg end

-- Step 1: the dependents' accelerations q̈_D = E x (no part in z: the rows are the group's), in
-- chain order.
local function tail_dependents(W, grp, tag)
  local m, nI = #grp.rows, #grp.ind
  local Wd = width(grp)
  local G, kap, col = V.group_rows(W, grp)
  local rho, _, _, cd = V.project(grp, col, true, W.quiet)
  -- Rhs = [G | K_I | 0 | κ]; q̈_D = E x in chain order
  local Rhs = mat(m, Wd)
  for a = 1, m do
    for k = 1, 6 do Rhs[a][k] = G[a][k] end
    Rhs[a][Wd] = kap[a]
  end
  for i, k in ipairs(grp.ind) do
    local x = col(k)
    for a = 1, m do Rhs[a][6 + i] = x[a] end
  end
  local E = {}
  for d = 1, m do
    E[d] = {}
    for k = 1, Wd do
      local s = 0
      for a = 1, m do s = s + rho[d][a] * Rhs[a][k] end
      E[d][k] = sym.name(-s, "E" .. tag .. "_" .. (d - 1) .. "_" .. (k - 1))
    end
    for a = 1, m do
      for k = 1, Wd do Rhs[a][k] = Rhs[a][k] + cd[d][a] * E[d][k] end
    end
  end
  return E
end

-- Step 2: Φ_k of every tail body, Δa_k = Δa_c + Φ_k x.
local function tail_maps(W, grp, E, tag)
  local nI = #grp.ind
  local Wd = width(grp)
  local depid, indid = {}, {}
  for d, k in ipairs(grp.dep) do depid[k] = d end
  for i, k in ipairs(grp.ind) do indid[k] = i end
  local Phi, intail = {}, {}
  for _, k in ipairs(grp.tail) do intail[k] = true end
  for _, k in ipairs(grp.tail) do
    local b, pi = W.T[k], W.T[k].parent
    local F = mat(6, Wd)
    if intail[pi] then
      for r = 1, 6 do for q = 1, Wd do F[r][q] = Phi[pi][r][q] end end
    elseif pi == grp.p and grp.p ~= grp.base then
      for r = 1, 6 do F[r][r] = 1 end
    end
    for c = 1, b.nv do
      local colk = b.iv + c - 1
      local s = S_world(W, colk)
      if indid[colk] then
        for r = 1, 6 do F[r][6 + indid[colk]] = F[r][6 + indid[colk]] + s[r] end
      else
        local e = E[depid[colk]]
        for r = 1, 6 do
          for q = 1, Wd do F[r][q] = F[r][q] + s[r] * e[q] end
        end
      end
    end
    Phi[k] = name_mat(F, "Phi" .. tag .. "_" .. b.name)
  end
  return Phi
end

-- Where the tail puts body y, or open input zk: Δa_y = C Δa_c + Φ x; returns Φ and C (false for
-- an open input, whose Φ is the identity on its columns).
local function tail_pos(grp, Phi, y, zk)
  local nI, Wd = #grp.ind, width(grp)
  local F = mat(6, Wd)
  if zk then
    for r = 1, 6 do F[r][6 + nI + 6 * (zk - 1) + r] = 1 end
    return F, false
  end
  if y == grp.base then return F, true end
  if y == grp.p then
    for r = 1, 6 do F[r][r] = 1 end
    return F, true
  end
  assert(Phi[y], "rcr: a hub's handle is no body of the tail")
  return Phi[y], true
end

-- One term of the tail's reduced inertia, "the wrench B Δa_2 (+ h) on body 1" (6 × 6 rows B;
-- F1, F2 and C1, C2 the bodies' tail_pos): Q += F1ᵀ B F2 (upper triangle), Ft += B F2 where C1,
-- SI += B where both.
local function couple(acc, F1, C1, B, F2, C2, h)
  local Wd, n = acc.W, acc.n
  local BF = matmul(B, F2, 6, 6, Wd)
  if h then for r = 1, 6 do BF[r][Wd] = BF[r][Wd] + h[r] end end
  for a = 1, n do
    for c = a, Wd do
      local s = 0
      for r = 1, 6 do s = s + F1[r][a] * BF[r][c] end
      acc.Q[a][c] = acc.Q[a][c] + s
    end
  end
  if C1 then
    for r = 1, 6 do
      for c = 1, Wd do acc.Ft[r][c] = acc.Ft[r][c] + BF[r][c] end
      if C2 then for c = 1, 6 do acc.SI[r][c] = acc.SI[r][c] + B[r][c] end end
    end
  end
end

-- Steps 3-4 from the tail's reduced inertia: every tail body's own term (IA_k and pA_k on k from
-- k) and those of the groups hung from it (a hub: the maps Heads keeps there, Ĥ on the hub and Δ
-- on every hung group's base, each affine in the hub's Δa and the bases'). The weighted wrenches
-- are Σ Φᵀ W_k = Ftᵀ Δa_c + Q x; Q is symmetric but for its last column.
local function tail_inertia(grp, IAw, pAw, Phi, H)
  local Wd = width(grp)
  local n = Wd - 1
  local acc = { W = Wd, n = n, Q = mat(n, Wd), Ft = mat(6, Wd), SI = mat(6, 6) }
  local zk = {}
  for k, g in ipairs(grp.zg) do zk[g] = k end
  for _, k in ipairs(grp.tail) do
    couple(acc, Phi[k], true, IAw[k], Phi[k], true, pAw[k])
    local hub = H:hub(k)
    if hub then
      local F, C = { [0] = Phi[k] }, { [0] = true }
      for _, g in ipairs(hub.groups) do F[g], C[g] = tail_pos(grp, Phi, hub.base(g), zk[g]) end
      for _, s in ipairs(hub.keys) do
        local map = hub.maps[s]
        for _, bl in ipairs(hub.keys) do
          local B = bl == 0 and map.cur or map.blk[bl]
          if B then couple(acc, F[s], C[s], B, F[bl], C[bl], bl == 0 and map.x or nil) end
        end
      end
    end
  end
  local Q = acc.Q
  for a = 1, n do for c = 1, a - 1 do Q[a][c] = Q[c][a] end end
  return Q, acc.Ft, acc.SI
end

-- Step 3: the tail independents, q̈_I = N [Δa_c; Δâ_p; z; 1] (rows of 13 + 6 per open input):
-- their reduced equations Σ_k H_kᵀ W_k = τ_I + E_Iᵀ τ_D, the paper's M̂_M = Q_II.
local function tail_solve(W, grp, E, Q, Ft, tag)
  local nI, nz6 = #grp.ind, 6 * #grp.zg
  local Wd, NW = width(grp), 13 + nz6
  local N = mat(nI, NW)
  if nI > 0 then
    local M = mat(nI, nI)
    for i = 1, nI do
      for j = 1, nI do M[i][j] = Q[6 + i][6 + j] end
      for j = 1, 6 do N[i][j], N[i][6 + j] = Ft[j][6 + i], Q[6 + i][j] end
      for j = 1, nz6 do N[i][12 + j] = Q[6 + i][6 + nI + j] end
      N[i][NW] = Q[6 + i][Wd]
    end
    for i, k in ipairs(grp.ind) do
      local s = W.tau(k)
      for d, kd in ipairs(grp.dep) do s = s + E[d][6 + i] * W.tau(kd) end
      N[i][NW] = N[i][NW] - s
    end
    local Fm = W.factor(name_mat(M, "MM" .. tag), nI, "the tail independents", tail_ratio)
    for j = 1, NW do
      local col2 = {}
      for i = 1, nI do col2[i] = N[i][j] end
      local x = sp.ldl_solve(Fm, col2)
      for i = 1, nI do N[i][j] = -x[i] end
    end
    name_mat(N, "N" .. tag)
  end
  return N
end

-- Step 4: the tail's wrench maps [Δa_c | Δâ_p | z | 1], 6 × (13 + 6 per open input), q̈_I = N […]
-- substituted: on p weighed by Y (Wh = Σ Yᵀ W_k − E_pᵀ τ_D, the Δâ_p rows), on c the total (Wt =
-- Σ W_k) and on the base of every open input (Wz[k], its rows of Q).
local function tail_wrench(W, grp, E, Q, Ft, SI, N)
  local nI, nz = #grp.ind, #grp.zg
  local Wd, NW = width(grp), 13 + 6 * nz
  local function map(row) -- the map conjugate to row of x (nil: the total)
    local M = mat(6, NW)
    for r = 1, 6 do
      local R = row and Q[row + r] or nil
      for q = 1, 6 do M[r][q] = R and Ft[q][row + r] or SI[r][q] end
      for q = 1, 6 do M[r][6 + q] = R and R[q] or Ft[r][q] end
      for q = 1, 6 * nz do M[r][12 + q] = R and R[6 + nI + q] or Ft[r][6 + nI + q] end
      M[r][NW] = R and R[Wd] or Ft[r][Wd]
      for i = 1, nI do
        local a = R and R[6 + i] or Ft[r][6 + i]
        for q = 1, NW do M[r][q] = M[r][q] + a * N[i][q] end
      end
    end
    return M
  end
  local Wh, Wt, Wz = map(0), map(nil), {}
  for k = 1, nz do Wz[k] = map(6 + nI + 6 * (k - 1)) end
  for d, kd in ipairs(grp.dep) do
    for r = 1, 6 do Wh[r][NW] = Wh[r][NW] - E[d][r] * W.tau(kd) end
  end
  return Wh, Wt, Wz
end

-- The rotors of the group's coordinates (b.arm, mb_model.armature; runtime/rcr.c
-- group_tail_rotors): coordinate j's q̈_j = r_j · x (r_j the unit row 6 + i of independent i, row
-- d of E for dependent d) adds a_j r_jᵀ r_j to Q (upper triangle and last column, mirrored).
local function tail_rotors(W, grp, E, Q)
  local arm, n, Wd = {}, width(grp) - 1, width(grp)
  for _, b in ipairs(W.T) do
    for c = 1, b.nv do arm[b.iv + c - 1] = b.arm end
  end
  for i, k in ipairs(grp.ind) do
    if arm[k] ~= 0 then Q[6 + i][6 + i] = Q[6 + i][6 + i] + arm[k] end
  end
  for d, kd in ipairs(grp.dep) do
    if arm[kd] ~= 0 then
      for a = 1, n do
        local t = arm[kd] * E[d][a]
        for c = a, Wd do
          Q[a][c] = Q[a][c] + t * E[d][c]
          if c ~= a and c <= n then Q[c][a] = Q[a][c] end
        end
      end
    end
  end
end

-- Steps 1-4: the group's state for the head and the forward pass (H: the heads, for the hubs).
local function group_tail(W, grp, IAw, pAw, H, tag)
  local E = tail_dependents(W, grp, tag)
  local Phi = tail_maps(W, grp, E, tag)
  local Q, Ft, SI = tail_inertia(grp, IAw, pAw, Phi, H)
  tail_rotors(W, grp, E, Q)
  local N = tail_solve(W, grp, E, Q, Ft, tag)
  local Wh, Wt, Wz = tail_wrench(W, grp, E, Q, Ft, SI, N)
  return { E = E, N = N, Wh = Wh, Wt = Wt, Wz = Wz, nI = #grp.ind }
end

-- The group's tail forward given Δa_c, Δâ_p and the open inputs' Δa (world): q̈_I and q̈_D into
-- qdd (0-based).
local function group_forward(grp, st, Ac, Ap, Z, qdd)
  local nz = #grp.zg
  local NW = 13 + 6 * nz
  local inp, xv = {}, {}
  for q = 1, 6 do inp[q], inp[6 + q], xv[q] = Ac[q], Ap[q], Ap[q] end
  for k = 1, nz do
    for q = 1, 6 do
      inp[12 + 6 * (k - 1) + q] = Z[k][q]
      xv[6 + st.nI + 6 * (k - 1) + q] = Z[k][q]
    end
  end
  inp[NW] = 1
  for i = 1, st.nI do
    local s = 0
    for q = 1, NW do s = s + st.N[i][q] * inp[q] end
    xv[6 + i] = s
    qdd[grp.ind[i]] = s
  end
  xv[width(grp)] = 1
  for d, kd in ipairs(grp.dep) do
    local s = 0
    for k = 1, width(grp) do s = s + st.E[d][k] * xv[k] end
    qdd[kd] = s
  end
end

-- ---- the recipe -------------------------------------------------------------------------------

-- The reduction of selection sel over W (V.setup): the accelerations (0-based table).
local function sweep(W, sel)
  local T, X, pA = W.T, W.X, W.pA
  local role = sel.role
  local IA, base, jt, u = {}, J.base_references(T, X), {}, {}
  for _, b in ipairs(T) do IA[b.i] = sp.M6_from_I(b.I) end
  local H = Heads.new(W, sel, { mat = mat, name_mat = name_mat, factor = W.factor, S_world = S_world })
  local byp, states = {}, {}
  for gi, grp in ipairs(sel.groups) do
    byp[grp.p] = byp[grp.p] or {}
    table.insert(byp[grp.p], gi)
  end
  local IAw, pAw = {}, {}
  local function world(k)
    IAw[k] = M6_rows(sp.M6_to_parent(W.X0[k], sp.name6(IA[k], "IA_" .. T[k].name)))
    pAw[k] = sp.XT_fv(W.X0[k], J.name(pA[k], "pA", T[k]))
  end
  for i = #T, 0, -1 do
    for _, gi in ipairs(byp[i] or {}) do
      local grp = sel.groups[gi]
      for _, k in ipairs(grp.tail) do world(k) end
      local st = group_tail(W, grp, IAw, pAw, H, tostring(gi - 1))
      states[gi] = st
      H:tail(gi, st)
    end
    H:fold(i, IA, pA) -- after the tails whose p is i: a loop based on i closes there
    local b = T[i]
    if i > 0 and role[i + 1] == 1 then
      world(i)
      H:body(i, IAw[i], pAw[i])
    elseif i > 0 and role[i + 1] == 0 then
      IA[i], pA[i] = sp.name6(IA[i], "IA_" .. b.name), J.name(pA[i], "pA", b)
      jt[i] = J.articulated(b, IA[i], base[i])
      local t = {}
      for c = 1, b.nv do t[c] = W.tau(b.iv + c - 1) end
      u[i] = J.name(sp.sub(t, J.ST(b, pA[i])), "u", b)
      local p = b.parent
      if p > 0 then
        local pa = sp.add(pA[i], J.WT_mv(jt[i], u[i]))
        IA[p] = sp.M6_add(IA[p], sp.M6_to_parent(X[i], jt[i].Ia))
        pA[p] = sp.add(pA[p], sp.XT_fv(X[i], pa))
      end
    end
  end
  -- forward: da in body frames; wa (world) for the heads and the groups' bases
  local qdd, da, wa = {}, { [0] = sp.zeros(6) }, { [0] = sp.zeros(6) }
  local function world_da(i)
    if not wa[i] then wa[i] = sp.X_mv(W.X0inv[i], da[i]) end
    return wa[i]
  end
  local function groups_at(i)
    for _, gi in ipairs(byp[i] or {}) do
      local grp = sel.groups[gi]
      local Ac, Ap, Z = world_da(grp.base), sp.zeros(6), {}
      if grp.p ~= grp.base then Ap = sp.sub(world_da(grp.p), Ac) end
      for k, g in ipairs(grp.zg) do Z[k] = world_da(sel.groups[g].base) end
      group_forward(grp, states[gi], Ac, Ap, Z, qdd)
    end
  end
  groups_at(0)
  for _, b in ipairs(T) do
    local i = b.i
    local ap = sp.X_mv(X[i], da[b.parent])
    if role[i + 1] == 0 then
      local x = sp.sub(sp.ldl_solve(jt[i].F, u[i]), J.W_mv(jt[i], ap))
      for c = 1, b.nv do qdd[b.iv + c - 1] = x[c] end
    elseif role[i + 1] == 1 then
      wa[i] = H:forward(i, world_da(b.parent), function(g) return world_da(sel.groups[g].base) end, qdd)
    end
    local y = {}
    for c = 1, b.nv do y[c] = qdd[b.iv + c - 1] end
    da[i] = J.name(sp.add(ap, J.S_mv(b, y)), "da", b)
    groups_at(i)
  end
  return qdd
end

local function build(model, s)
  L.require_loops(model, "rcr")
  local sel = model.rcr.sel[s + 1]
  for _, grp in ipairs(sel.groups) do
    if grp.nest then sym.refine_always() end -- a hung group: refined once, always (mb_rcr too)
  end
  local qdd = sweep(V.setup(model, true), sel)
  for k = 0, model.nv - 1 do sym.output("qdd", k, qdd[k]) end
end

-- One step of iterative refinement of a0 (the input a, selection s's answer): the residuals
-- r = τ − (M a0 + h) (inverse dynamics, with gravity) and c = K a0 + K̇v go through the same
-- reduction without bias terms (no velocity products, no gravity), qdd = a0 + δ.
local function build_refine(model, s)
  L.require_loops(model, "rcr")
  local tr = rnea.passes(model, "v", "a")
  local r, tp = {}, PF.fd_tau(model)
  for k = 0, model.nv - 1 do
    r[k] = sym.name((tp and tp[k + 1] or sym.input("tau", k)) - tr[k + 1], "r_" .. k)
  end
  local K = L.kinematics(model, "v")
  local rows = L.rows(model, K, true)
  local still = setmetatable({ gravity = { 0, 0, 0 } }, { __index = model })
  local W = V.setup(still, false)
  for i, row in ipairs(rows) do
    local Kr, x = L.jacobian_row(model, K, row), row.dd or 0
    for k = 1, model.nv do x = x + Kr[k] * sym.input("a", k - 1) end
    W.rows[i].dd = sym.name(x, "c_" .. (i - 1))
  end
  W.tau = function(k) return r[k] end
  W.quiet = true
  local d = sweep(W, model.rcr.sel[s + 1])
  for k = 0, model.nv - 1 do sym.output("qdd", k, sym.input("a", k) + d[k]) end
end

-- The recipe of selection s: functions rcr_0 ... (the registry: generator/lua/lua_recipes.c).
function V.recipe(s)
  return {
    name = "rcr_" .. s,
    summary = "forward dynamics by recursive coordinate reduction with the dependent coordinates "
      .. "of selection " .. s .. " (p_rcr chooses); 1 when a pivot ratio of its dependent "
      .. "coordinates is below P_RCR_SWITCH (qdd is still its answer)",
    returns = "int",
    params = {
      { name = "q", role = "q" },
      { name = "v", role = "v" },
      { name = "tau", role = "tau" },
      { name = "qdd", role = "out_nv" },
    },
    build = function(model) build(model, s) end,
  }
end

-- The refinement of selection s's answer: functions rcr_refine_0 ... (the registry).
function V.refine_recipe(s)
  return {
    name = "rcr_refine_" .. s,
    summary = "one step of iterative refinement of a, the answer of rcr_" .. s .. ", against the "
      .. "equations of motion and the loops' acceleration constraints (p_rcr calls it where a "
      .. "tail's reduced mass matrix is ill-conditioned)",
    returns = "int",
    params = {
      { name = "q", role = "q" },
      { name = "v", role = "v" },
      { name = "tau", role = "tau" },
      { name = "a", role = "a" },
      { name = "qdd", role = "out_nv" },
    },
    build = function(model) build_refine(model, s) end,
  }
end

return V
