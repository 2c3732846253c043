-- cfa_ldl.lua — the block LDLᵀ of the CFA's system Ã F̃_S = b̃ under the generator's elimination
-- order (model.cfa), on the blocks cfa_blocks.lua assembles (docs/cfa.md, "Frames").
--
-- Every joint j has a canonical frame for its unknowns (F.canon[j]: "pred", the frame fixed in
-- the parent at the joint, or "body", the child's frame; "body" for a joint on the world). A
-- block side or a vector may instead be kept in the joint's other frame, tagged "body": its
-- canonical value is then R_j⁻¹ times it (R_j⁻¹ = F.Rinv[j], nt × nt). Tags travel with the
-- factors, so in the tips order no block is ever converted: the body-frame contributions to a
-- pivot are summed and turned once (F.rotate), the solution is turned once per joint.
local sp = import "spatial"
local C = {}

-- ---- small dense helpers ------------------------------------------------------------------

-- y = L⁻¹ b and x = L⁻ᵀ y for a factor of sp.ldl.
local function lower_solve(L, n, b)
  local y = {}
  for i = 1, n do
    local s = b[i]
    for k = 1, i - 1 do s = s - L[i][k] * y[k] end
    y[i] = s
  end
  return y
end

local function upper_solve(L, n, y)
  local x = {}
  for i = n, 1, -1 do
    local s = y[i]
    for k = i + 1, n do s = s - L[k][i] * x[k] end
    x[i] = s
  end
  return x
end

local function mat_vec(M, x, nr, nc)
  local y = {}
  for r = 1, nr do
    local s = 0
    for c = 1, nc do s = s + M[r][c] * x[c] end
    y[r] = s
  end
  return y
end

local function matT_vec(M, x, nr, nc)
  local y = {}
  for c = 1, nc do
    local s = 0
    for r = 1, nr do s = s + M[r][c] * x[r] end
    y[c] = s
  end
  return y
end

local function sub_into(acc, u)
  if not acc then
    local r = {}
    for i = 1, #u do r[i] = -u[i] end
    return r
  end
  for i = 1, #u do acc[i] = acc[i] - u[i] end
  return acc
end

-- ---- the block store ----------------------------------------------------------------------

-- Off-diagonal blocks {M, tj, tk} (nt_j × nt_k, the tags of both sides), stored with their
-- transposes; diagonal blocks as two symmetric accumulators by tag.
function C.store(nt)
  local S, off, diag = {}, {}, {}
  function S.get(j, k) return off[j .. "," .. k] end
  function S.set(j, k, M, tj, tk)
    off[j .. "," .. k] = { M = M, tj = tj, tk = tk }
    local R = {}
    for c = 1, nt[k] do
      R[c] = {}
      for r = 1, nt[j] do R[c][r] = M[r][c] end
    end
    off[k .. "," .. j] = { M = R, tj = tk, tk = tj }
  end
  function S.diag(j) diag[j] = diag[j] or {}; return diag[j] end
  return S
end

-- M with its left side (joint j, tag t) turned canonical: R_j⁻¹ M when t is "body" and j's
-- canonical frame is "pred".
local function left_canon(F, j, M, t, nc)
  if t == F.canon[j] then return M end
  assert(t == "body", "cfa: a block in the pred frame of a joint on the world")
  local R, n, out = F.Rinv[j], F.nt[j], {}
  for r = 1, n do
    out[r] = {}
    for c = 1, nc do
      local s = 0
      for k = 1, n do s = s + R[r][k] * M[k][c] end
      out[r][c] = s
    end
  end
  return out
end

local function transpose(M, nr, nc)
  local R = {}
  for c = 1, nc do
    R[c] = {}
    for r = 1, nr do R[c][r] = M[r][c] end
  end
  return R
end

-- Subtract U (tags tk, tm) from the block (k, m), converting to canonical where tags differ.
local function update_block(F, S, k, m, U, tk, tm)
  local nt = F.nt
  local B = S.get(k, m)
  if B and (B.tj ~= tk or B.tk ~= tm) then
    local function canon(M, a, b)
      M = left_canon(F, k, M, a, nt[m])
      return transpose(left_canon(F, m, transpose(M, nt[k], nt[m]), b, nt[k]), nt[m], nt[k])
    end
    B = { M = canon(B.M, B.tj, B.tk), tj = F.canon[k], tk = F.canon[m] }
    U, tk, tm = canon(U, tk, tm), F.canon[k], F.canon[m]
  end
  local M = B and B.M or {}
  for r = 1, nt[k] do
    M[r] = M[r] or {}
    for c = 1, nt[m] do M[r][c] = (M[r][c] or 0) - U[r][c] end
  end
  S.set(k, m, M, tk, tm)
end

-- ---- factorization ------------------------------------------------------------------------

-- The pivot of joint j: its canonical accumulator plus its body-frame one turned (F.rotate).
local function pivot_block(F, S, j)
  local d, n = S.diag(j), F.nt[j]
  local D = d[F.canon[j]]
  if F.canon[j] == "pred" and d.body then
    local R = F.rotate(j, d.body)
    if D then
      for r = 1, n do
        for c = 1, n do R[r][c] = R[r][c] + D[r][c] end
      end
    end
    D = R
  end
  assert(D, "cfa: a joint without a diagonal block")
  return D
end

-- Eliminate the blocks step by step: D_j = L diag(d) Lᵀ (every d a pivot); for the remaining
-- neighbours k, m of j:  Z_jk = L⁻¹ Ã_jk (k's side keeps its tag),  Zs_jk = diag(d)⁻¹ Z_jk,
-- Ã_km −= Z_jkᵀ Zs_jm. Returns the factors {F, Z, Zs, tag} by body.
function C.factor(F, S, steps)
  local fac, nt = {}, F.nt
  for _, st in ipairs(steps) do
    local j = st.body
    -- the pivots against the diagonal of Ã before elimination (F.ref); a hub's are checked as −d
    local LD = sp.ldl(pivot_block(F, S, j), nt[j], function(d, l)
      sym.pivot(F.sign[j] * sym.name(d, "D_" .. F.name[j] .. "_" .. (l - 1)), F.sign[j] * F.ref[j][l],
                "the constraint forces of '" .. F.name[j] .. "'")
    end)
    local Z, Zs, tag = {}, {}, {}
    for _, k in ipairs(st.nbr) do
      local B = S.get(j, k)
      local M = left_canon(F, j, B.M, B.tj, nt[k])
      local cols = {}
      for c = 1, nt[k] do
        local col = {}
        for r = 1, nt[j] do col[r] = M[r][c] end
        cols[c] = lower_solve(LD.L, nt[j], col)
      end
      Z[k], Zs[k], tag[k] = {}, {}, B.tk
      for r = 1, nt[j] do
        Z[k][r], Zs[k][r] = {}, {}
        for c = 1, nt[k] do Z[k][r][c], Zs[k][r][c] = cols[c][r], cols[c][r] * LD.dinv[r] end
      end
    end
    for a, k in ipairs(st.nbr) do
      for e = a, #st.nbr do
        local m = st.nbr[e]
        local U = {}
        for r = 1, nt[k] do U[r] = {} end
        for r = 1, nt[k] do
          for c = (k == m) and r or 1, nt[m] do
            local s = 0
            for i = 1, nt[j] do s = s + Z[k][i][r] * Zs[m][i][c] end
            U[r][c] = s
            if k == m then U[c][r] = s end
          end
        end
        if k == m then
          local d = S.diag(k)
          d[tag[k]] = d[tag[k]] or {}
          for r = 1, nt[k] do
            d[tag[k]][r] = d[tag[k]][r] or {}
            for c = 1, nt[k] do d[tag[k]][r][c] = (d[tag[k]][r][c] or 0) - U[r][c] end
          end
        else
          update_block(F, S, k, m, U, tag[k], tag[m])
        end
      end
    end
    fac[j] = { LD = LD, Z = Z, Zs = Zs, tag = tag }
  end
  return fac
end

-- ---- solve --------------------------------------------------------------------------------

-- Ã x̃ = b̃ given C.factor; rhs[j] = {body = ..., pred = ...} (vectors by tag, nil for zero; no
-- entry at all for a zero right-hand side, as a hub's).
-- Forward: e_j = diag⁻¹ L⁻¹ b̃_j, b_k −= Z_jkᵀ e_j (into k's accumulator of Z_jk's tag); back:
-- x̃_j = L⁻ᵀ (e_j − Σ_k Zs_jk x_k), x_k in the frame of the tag. Returns the unknowns in the
-- body frames (F_S,j = R_j⁻ᵀ x̃_j).
function C.solve(F, fac, steps, rhs)
  local nt, e, x, xb = F.nt, {}, {}, {}
  local function body_of(j)
    if not xb[j] then
      xb[j] = F.canon[j] == "body" and x[j] or matT_vec(F.Rinv[j], x[j], nt[j], nt[j])
    end
    return xb[j]
  end
  for _, st in ipairs(steps) do
    local j, f, r = st.body, fac[st.body], rhs[st.body] or {}
    local v = r[F.canon[j]] or sp.zeros(nt[j])
    if F.canon[j] == "pred" and r.body then v = sp.add(v, mat_vec(F.Rinv[j], r.body, nt[j], nt[j])) end
    e[j] = lower_solve(f.LD.L, nt[j], v)
    for i = 1, nt[j] do e[j][i] = e[j][i] * f.LD.dinv[i] end
    for _, k in ipairs(st.nbr) do
      local t = f.tag[k]
      rhs[k] = rhs[k] or {}
      rhs[k][t] = sub_into(rhs[k][t], matT_vec(f.Z[k], e[j], nt[j], nt[k]))
    end
  end
  for s = #steps, 1, -1 do
    local j, f = steps[s].body, fac[steps[s].body]
    local t = e[j]
    for _, k in ipairs(steps[s].nbr) do
      assert(f.tag[k] == F.canon[k] or f.tag[k] == "body", "cfa: a pred tag on a world joint")
      local xk = f.tag[k] == F.canon[k] and x[k] or body_of(k)
      t = sp.sub(t, mat_vec(f.Zs[k], xk, nt[j], nt[k]))
    end
    x[j] = upper_solve(f.LD.L, nt[j], t)
  end
  local out = {}
  for _, st in ipairs(steps) do out[st.body] = body_of(st.body) end
  return out
end

return C
