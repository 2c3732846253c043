-- rcr_heads.lua — the heads of recursive coordinate reduction (rcr_variant.lua; Critchley &
-- Anderson 2003, eqs. 57-64 and §5 for coupled loops; docs/loops.md "Coupled loops"), the same
-- sweep as the runtime's rcr_heads.c.
--
-- A head body i holds the weighted wrench map Ĥ of everything beyond its joint and, per group g
-- open at i (g's head holds i), Δ_g = T_g − Ŵ_g: the total wrench of g's tail less its weighted
-- one. Every map is affine in the world accelerations Δa of i (cur) and of the open groups' bases
-- (blk[g]): Ĥ = X_cur Δa_i + Σ_g X_g Δa_{c_g} + x; joint i's equation is Sᵀ Ĥ = τ. A group not
-- open at the body a map reaches closes there (its base is that body): its block becomes the
-- body's own and its Δ joins Ĥ. A body that is no head gathers what reaches it in world
-- coordinates (pend), added to its articulated inertia and bias force.
--
-- The pivots of a head joint decide the refinement (bit 2, as the runtime's MB_RCR_REFINE_HEAD):
-- for dof a, d_a against s_aᵀ C s_a, C the head body's world inertia (with its free subtrees)
-- plus the tails' Λ_p there plus its head children's C — the head's mass before the heads' own
-- eliminations. A head body without head children takes its joint's diagonal instead (the same
-- in exact arithmetic), whose first ratio is 1: no check.

local sp = import "spatial"

local Heads = {}
Heads.__index = Heads

local function newmap(mat) return { cur = mat(6, 6), blk = {}, x = sp.zeros(6) } end

-- The heads of selection sel over W (rcr_variant.lua's V.setup); u: its helpers mat, name_mat,
-- factor, S_world. The maps open on each body come from the plan (sel.open): the heads', and on
-- a tail body a group hangs from (a hub) and on the head bodies its base's open input crosses.
function Heads.new(W, sel, u)
  local H = setmetatable({ W = W, sel = sel, u = u, open = {}, acc = {}, pend = {}, steps = {},
    C = {}, hkid = {} }, Heads)
  for i = 0, #W.T do
    local gs = sel.open[i + 1]
    if #gs > 0 then
      H.open[i] = gs
      H.acc[i] = { [0] = newmap(u.mat) }
      for _, g in ipairs(gs) do H.acc[i][g] = newmap(u.mat) end
      H.C[i] = u.mat(6, 6)
    end
  end
  for i = 1, #W.T do -- a head body with a head body among its children
    local lam = W.T[i].parent
    if sel.role[i + 1] == 1 and sel.role[lam + 1] == 1 then H.hkid[lam] = true end
  end
  return H
end

-- The maps gathered on tail body k when groups hang from it, for its group's tail (rcr_variant's
-- tail_inertia): maps[0] = Ĥ (the wrench on k), maps[g] = Δ_g (on g's base); keys {0, g...};
-- nil when k is no hub.
function Heads:hub(k)
  if not self.open[k] or self.sel.role[k + 1] ~= 2 then return nil end
  local keys = { 0 }
  for _, g in ipairs(self.open[k]) do keys[#keys + 1] = g end
  local sel = self.sel
  return { groups = self.open[k], keys = keys, maps = self.acc[k],
    base = function(g) return sel.groups[g].base end }
end

function Heads:is_open(i, g)
  for _, x in ipairs(self.open[i] or {}) do if x == g then return true end end
  return false
end

-- Add sign · M (6 × 6 rows, or nil) and sign · x (or nil) into body i's map of group gm (nil: Ĥ)
-- as the block of group gb's base (nil: i's own).
function Heads:add(i, gm, gb, M, x, sign)
  local mat = self.u.mat
  local T
  if not self.open[i] then
    self.pend[i] = self.pend[i] or { M = mat(6, 6), x = sp.zeros(6) }
    T = { M = self.pend[i].M, x = self.pend[i].x }
  else
    local map = (gm and self:is_open(i, gm)) and self.acc[i][gm] or self.acc[i][0]
    local blk = map.cur
    if gb and self:is_open(i, gb) then
      map.blk[gb] = map.blk[gb] or mat(6, 6)
      blk = map.blk[gb]
    end
    T = { M = blk, x = map.x }
  end
  if M then
    for r = 1, 6 do for q = 1, 6 do T.M[r][q] = T.M[r][q] + sign * M[r][q] end end
  end
  if x then
    for r = 1, 6 do T.x[r] = T.x[r] + sign * x[r] end
  end
end

-- The tail's maps of group gi at p ([Δa_c | Δâ_p | z | w], Δâ_p = Δa_p − Δa_c): Ĥ += Ŵ,
-- Δ += T − Ŵ, and the map of every open input (a group hung from the tail, based in the head)
-- into that group's Δ.
function Heads:tail(gi, st)
  local mat = self.u.mat
  local grp = self.sel.groups[gi]
  local p, zg = grp.p, grp.zg
  local NW = 13 + 6 * #zg
  local function cols(Wm, o)
    local M = mat(6, 6)
    for r = 1, 6 do for q = 1, 6 do M[r][q] = Wm[r][o + q] end end
    return M
  end
  if self:is_open(p, gi) then -- the pivot reference: C += Λ_p (symmetrized)
    local C = self.C[p]
    for r = 1, 6 do
      for q = 1, 6 do C[r][q] = C[r][q] + 0.5 * (st.Wh[r][6 + q] + st.Wh[q][6 + r]) end
    end
  end
  local parts = { { st.Wh, nil, 1 }, { st.Wt, gi, 1 }, { st.Wh, gi, -1 } }
  for k, g in ipairs(zg) do parts[#parts + 1] = { st.Wz[k], g, 1 } end
  for _, part in ipairs(parts) do
    local Wm, gm, sign = part[1], part[2], part[3]
    local x = {}
    for r = 1, 6 do x[r] = Wm[r][NW] end
    self:add(p, gm, gi, cols(Wm, 0), nil, sign)
    self:add(p, gm, gi, cols(Wm, 6), nil, -sign)
    self:add(p, gm, nil, cols(Wm, 6), x, sign)
    for k, g in ipairs(zg) do self:add(p, gm, g, cols(Wm, 12 + 6 * (k - 1)), nil, sign) end
  end
end

-- What reached a body that is no head (world coordinates): into its IA and pA (body frame).
function Heads:fold(i, IA, pA)
  local pd = self.pend[i]
  if not pd or i == 0 then return end
  local Lc = sp.sym6(function(r, q) return (pd.M[r][q] + pd.M[q][r]) / 2 end)
  IA[i] = sp.M6_add(IA[i], sp.M6_to_parent(self.W.X0inv[i], Lc))
  pA[i] = sp.add(pA[i], sp.X_fv(self.W.X0[i], pd.x))
end

-- Head body i (IAw, pAw: its world inertia and bias force): its joint's equation solved for q̈
-- (kept for the forward pass), substituted into every map, which goes on to the parent.
function Heads:body(i, IAw, pAw)
  local h = self.u
  local mat, name_mat, factor, S_world = h.mat, h.name_mat, h.factor, h.S_world
  local W, b = self.W, self.W.T[i]
  local acc, gs, lam = self.acc[i], self.open[i], b.parent
  local tag = b.name
  self:add(i, nil, nil, IAw, pAw, 1)
  local H = acc[0]
  for _, g in ipairs(gs) do H.blk[g] = H.blk[g] or mat(6, 6) end
  local n, S = b.nv, {}
  for c = 1, n do S[c] = S_world(W, b.iv + c - 1) end
  local function StM(M) -- Sᵀ M (n × 6)
    local R = {}
    for a = 1, n do
      R[a] = {}
      for q = 1, 6 do
        local x = 0
        for r = 1, 6 do x = x + S[a][r] * M[r][q] end
        R[a][q] = x
      end
    end
    return R
  end
  name_mat(H.cur, "Hc_" .. tag)
  local SL = { cur = StM(H.cur) }
  for _, g in ipairs(gs) do SL[g] = StM(name_mat(H.blk[g], "Hb" .. (g - 1) .. "_" .. tag)) end
  local u = {}
  for a = 1, n do
    local s = W.tau(b.iv + a - 1)
    for r = 1, 6 do s = s - S[a][r] * H.x[r] end
    u[a] = sym.name(s, "u_" .. tag .. "_" .. (a - 1))
  end
  local D = {}
  for a = 1, n do
    D[a] = {}
    for c = 1, a do D[a][c] = sp.dot(SL.cur[a], S[c]) end
    if b.arm ~= 0 then D[a][a] = D[a][a] + b.arm end -- Sᵀ Ĥ + a q̈ = τ (the rotor)
  end
  local C = self.C[i]
  for r = 1, 6 do for q = 1, 6 do C[r][q] = C[r][q] + IAw[r][q] end end
  local hkid = self.hkid[i]
  local F = factor(D, n, "joint '" .. b.joint .. "'", function(d, l, Dll)
    if hkid then
      local ref = b.arm -- the rotor, as in D
      for r = 1, 6 do for q = 1, 6 do ref = ref + S[l][r] * C[r][q] * S[l][q] end end
      sym.refine_head_pivot(d, ref)
    elseif l > 1 then
      sym.refine_head_pivot(d, Dll)
    end
  end)
  if self.open[lam] then
    local Cl = self.C[lam]
    for r = 1, 6 do for q = 1, 6 do Cl[r][q] = Cl[r][q] + C[r][q] end end
  end
  local maps = { { 0, H } }
  for _, g in ipairs(gs) do maps[#maps + 1] = { g, acc[g] } end
  for _, mp in ipairs(maps) do
    local key, M = mp[1], mp[2]
    local K = {}
    for r = 1, 6 do
      local x = {}
      for a = 1, n do x[a] = sp.dot(M.cur[r], S[a]) end
      K[r] = sp.ldl_solve(F, x)
    end
    local function sub(B, SLb)
      local R = mat(6, 6)
      for r = 1, 6 do
        for q = 1, 6 do
          local v = B[r][q]
          for a = 1, n do v = v - K[r][a] * SLb[a][q] end
          R[r][q] = v
        end
      end
      return R
    end
    local x = {}
    for r = 1, 6 do
      local v = M.x[r]
      for a = 1, n do v = v + K[r][a] * u[a] end
      x[r] = v
    end
    local gm = key ~= 0 and key or nil
    self:add(lam, gm, nil, sub(M.cur, SL.cur), x, 1)
    for _, g in ipairs(gs) do
      if M.blk[g] then self:add(lam, gm, g, sub(M.blk[g], SL[g]), nil, 1)
      else self:add(lam, gm, g, sub(mat(6, 6), SL[g]), nil, 1) end
    end
  end
  self.steps[i] = { S = S, SL = SL, u = u, F = F }
end

-- Forward: head body i's q̈ from the world Δa of its parent (Al) and of the open bases (base(g)).
function Heads:forward(i, Al, base, qdd)
  local stp, b = self.steps[i], self.W.T[i]
  local y = {}
  for a = 1, #stp.u do
    local v = stp.u[a] - sp.dot(stp.SL.cur[a], Al)
    for _, g in ipairs(self.open[i]) do v = v - sp.dot(stp.SL[g][a], base(g)) end
    y[a] = v
  end
  local x = sp.ldl_solve(stp.F, y)
  local A = { table.unpack(Al) }
  for a = 1, #x do
    qdd[b.iv + a - 1] = x[a]
    for r = 1, 6 do A[r] = A[r] + stp.S[a][r] * x[a] end
  end
  return sp.name(A, "wa_" .. b.name)
end

return Heads
