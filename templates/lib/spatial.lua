-- spatial.lua — the spatial algebra of Featherstone ("Rigid Body Dynamics Algorithms", 2008,
-- ch. 2) over scalars (Lua numbers or symbolic values: only + − · / and unary − are applied to
-- them, so structural zeros fold by themselves).
--
--   motion vector   m = {ωx, ωy, ωz, vx, vy, vz}       force vector f = {nx, ny, nz, fx, fy, fz}
--   transform       X = {E = {9}, r = {3}} = BXA = [E 0; −E r× E]: E (row-major) rotates A
--                   coordinates into B coordinates, r is B's origin in A coordinates. When E is
--                   the rotation about the coordinate axis k, x'_k1 = c x_k1 + s x_k2,
--                   x'_k2 = −s x_k1 + c x_k2 (k1, k2 the next axes), X also holds k, c, s and
--                   congruences use the half-angle form (Eᵀ A E of a symmetric 2×2 block: 4 mul).
--   product         sp.product(X1, X2, ...) = X1 X2 ... kept factored (X2 acts first on motion
--                   vectors): a symbolic joint rotation and a constant tree transform applied one
--                   after the other cost less than their product.
--   inertia         {m, hx, hy, hz, ixx, iyy, izz, ixy, ixz, iyz} at the origin, h = m c:
--                   I = [Ī h×; h×ᵀ m 1]
--   articulated     symmetric 6×6, 36 entries row-major; both halves hold the same values and
--                   only the upper triangle is ever computed.
local sp = {}

-- ---- 3-vectors, 3×3 matrices ----------------------------------------------------------------

local function cross(a, b)
  return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] }
end

-- E x
local function rot(E, x)
  return { E[1] * x[1] + E[2] * x[2] + E[3] * x[3], E[4] * x[1] + E[5] * x[2] + E[6] * x[3],
           E[7] * x[1] + E[8] * x[2] + E[9] * x[3] }
end

-- Eᵀ x
local function rotT(E, x)
  return { E[1] * x[1] + E[4] * x[2] + E[7] * x[3], E[2] * x[1] + E[5] * x[2] + E[8] * x[3],
           E[3] * x[1] + E[6] * x[2] + E[9] * x[3] }
end

-- A B
local function mat3_mul(A, B)
  local C = {}
  for i = 0, 2 do
    for j = 1, 3 do
      C[3 * i + j] = A[3 * i + 1] * B[j] + A[3 * i + 2] * B[3 + j] + A[3 * i + 3] * B[6 + j]
    end
  end
  return C
end

local function transpose3(E)
  return { E[1], E[4], E[7], E[2], E[5], E[8], E[3], E[6], E[9] }
end

local function top(m) return { m[1], m[2], m[3] } end
local function bottom(m) return { m[4], m[5], m[6] } end
local function join(a, b) return { a[1], a[2], a[3], b[1], b[2], b[3] } end

sp.cross, sp.rot, sp.rotT, sp.mat3_mul, sp.transpose3 = cross, rot, rotT, mat3_mul, transpose3
-- a 6-vector's first and last three entries ([ω; v]: the angular and the linear part)
sp.top, sp.bottom = top, bottom

-- ---- vectors of any length --------------------------------------------------------------------

function sp.zeros(n)
  local z = {}
  for k = 1, n do z[k] = 0 end
  return z
end

function sp.add(a, b)
  local c = {}
  for k = 1, #a do c[k] = a[k] + b[k] end
  return c
end

function sp.sub(a, b)
  local c = {}
  for k = 1, #a do c[k] = a[k] - b[k] end
  return c
end

function sp.scale(a, s)
  local c = {}
  for k = 1, #a do c[k] = a[k] * s end
  return c
end

function sp.dot(a, b)
  local s = 0
  for k = 1, #a do s = s + a[k] * b[k] end
  return s
end

-- sym.name every entry of a vector: prefix_0, prefix_1, ... (numbers are left alone).
function sp.name(a, prefix)
  for k = 1, #a do a[k] = sym.name(a[k], prefix .. "_" .. (k - 1)) end
  return a
end

-- ---- transforms -------------------------------------------------------------------------------

-- The next two coordinate axes after k (cyclic): k1 = k % 3 + 1, k2 = k1 % 3 + 1.
local function next_axes(k) return k % 3 + 1, (k + 1) % 3 + 1 end
sp.next_axes = next_axes

-- Row-major rotation about the coordinate axis k (see the header for the sign convention).
function sp.planar(k, c, s)
  local E = { 0, 0, 0, 0, 0, 0, 0, 0, 0 }
  local k1, k2 = next_axes(k)
  E[4 * k - 3] = 1
  E[3 * k1 - 3 + k1], E[3 * k1 - 3 + k2] = c, s
  E[3 * k2 - 3 + k1], E[3 * k2 - 3 + k2] = -s, c
  return E
end

function sp.identity() return { E = { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, r = { 0, 0, 0 } } end

function sp.product(...) return { prod = true, ... } end

-- X m = [E ω; E (v − r × ω)]
local function X_mv1(X, m)
  local w, rw = top(m), cross(X.r, top(m))
  return join(rot(X.E, w), rot(X.E, { m[4] - rw[1], m[5] - rw[2], m[6] - rw[3] }))
end

-- X* f = [E (n − r × f); E f]
local function X_fv1(X, f)
  local g, rg = bottom(f), cross(X.r, bottom(f))
  return join(rot(X.E, { f[1] - rg[1], f[2] - rg[2], f[3] - rg[3] }), rot(X.E, g))
end

-- Xᵀ f = [Eᵀ n + r × Eᵀ f; Eᵀ f]
local function XT_fv1(X, f)
  local n, g = rotT(X.E, top(f)), rotT(X.E, bottom(f))
  local rg = cross(X.r, g)
  return { n[1] + rg[1], n[2] + rg[2], n[3] + rg[3], g[1], g[2], g[3] }
end

-- Apply op to the factors of X in the order a motion vector meets them (last first), or the
-- reverse (transposes).
local function apply(op, X, x, transposed)
  if not X.prod then return op(X, x) end
  if transposed then
    for i = 1, #X do x = op(X[i], x) end
  else
    for i = #X, 1, -1 do x = op(X[i], x) end
  end
  return x
end

function sp.X_mv(X, m) return apply(X_mv1, X, m) end          -- X m
function sp.X_fv(X, f) return apply(X_fv1, X, f) end          -- X* f = X⁻ᵀ f
function sp.XT_fv(X, f) return apply(XT_fv1, X, f, true) end  -- Xᵀ f = λX*_i f for X = iXλ

-- E x for the rotation E of X (a product: its factors' rotations, last first).
function sp.rot_of(X, x) return apply(function(Y, y) return rot(Y.E, y) end, X, x) end

-- The origin of X's frame B in A coordinates (r of the product: r_2 + E_2ᵀ r_1 for X1 X2).
function sp.origin(X)
  if not X.prod then return X.r end
  local p = X[1].r
  for i = 2, #X do p = sp.add(X[i].r, rotT(X[i].E, p)) end
  return p
end

-- A B = (E_A E_B, r_B + E_Bᵀ r_A); a product A is multiplied in from its last factor.
local function compose1(A, B)
  local t = rotT(B.E, A.r)
  return { E = mat3_mul(A.E, B.E), r = { B.r[1] + t[1], B.r[2] + t[2], B.r[3] + t[3] } }
end

function sp.flatten(X)
  if not X.prod then return X end
  local Y = X[#X]
  for i = #X - 1, 1, -1 do Y = compose1(X[i], Y) end
  return Y
end

function sp.compose(A, B) return apply(compose1, A, sp.flatten(B)) end

-- X⁻¹ = (Eᵀ, −E r)
function sp.inverse(X)
  X = sp.flatten(X)
  local t = rot(X.E, X.r)
  return { E = transpose3(X.E), r = { -t[1], -t[2], -t[3] } }
end

-- ---- cross products ---------------------------------------------------------------------------

-- v × m = crm(v) m = [ω × m_ω; ω × m_v + v_o × m_ω]
function sp.crm(v, m)
  local w, vo = top(v), bottom(v)
  return join(cross(w, top(m)), sp.add(cross(w, bottom(m)), cross(vo, top(m))))
end

-- v ×* f = crf(v) f = [ω × n + v_o × f; ω × f]
function sp.crf(v, f)
  local w, vo = top(v), bottom(v)
  return join(sp.add(cross(w, top(f)), cross(vo, bottom(f))), cross(w, bottom(f)))
end

-- ---- rigid-body inertias (10 numbers) ---------------------------------------------------------

-- Symmetric 3×3 as {xx, yy, zz, xy, xz, yz}: the index of entry (i, j).
local SYM = { { 1, 4, 5 }, { 4, 2, 6 }, { 5, 6, 3 } }

local function sym_mv(S, x)
  return { S[1] * x[1] + S[4] * x[2] + S[5] * x[3], S[4] * x[1] + S[2] * x[2] + S[6] * x[3],
           S[5] * x[1] + S[6] * x[2] + S[3] * x[3] }
end

local function inertia_parts(I)
  return I[1], { I[2], I[3], I[4] }, { I[5], I[6], I[7], I[8], I[9], I[10] }
end

-- I m = [Ī ω + h × v; m v − h × ω]
function sp.I_mv(I, x)
  local m, h, S = inertia_parts(I)
  local w, v = top(x), bottom(x)
  local Iw, hv, hw = sym_mv(S, w), cross(h, v), cross(h, w)
  return { Iw[1] + hv[1], Iw[2] + hv[2], Iw[3] + hv[3],
           m * v[1] - hw[1], m * v[2] - hw[2], m * v[3] - hw[3] }
end

function sp.I_add(A, B) return sp.add(A, B) end

-- 3×3 (row-major) times a 3-vector.
sp.mat3_mv = rot

-- U = ω̇× + ω×ω× = ω̇× + ω ωᵀ − |ω|² 1: the acceleration of a body point x is a_c + U x.
function sp.U(w, wd)
  local s1, s2, s3 = w[1] * w[1], w[2] * w[2], w[3] * w[3]
  local w12, w13, w23 = w[1] * w[2], w[1] * w[3], w[2] * w[3]
  return { -(s2 + s3), w12 - wd[3], w13 + wd[2],
           w12 + wd[3], -(s1 + s3), w23 - wd[1],
           w13 - wd[2], w23 + wd[1], -(s1 + s2), sq = { s1, s2, s3 } }
end

-- The second moment J = ∫ x xᵀ dm = ½ tr(Ī) 1 − Ī of a 10-number inertia, symmetric (6 numbers).
function sp.second_moment(I)
  local t = (I[5] + I[6] + I[7]) / 2
  return { t - I[5], t - I[6], t - I[7], -I[8], -I[9], -I[10] }
end

-- The body force I a + v ×* I v from the classical acceleration a_c of the origin and U (Jm the
-- second moment):  f = m a_c + U h,   n = ∫ x × (U x) dm + h × a_c = vect(U J − J Uᵀ) + h × a_c
-- (= Ī ω̇ + ω × Ī ω + h × a_c). Component i of vect(U J − J Uᵀ), (i, j, k) cyclic, is
-- U_ki J_ij − U_ji J_ik + U_kj J_jj − U_jk J_kk + (U_kk − U_jj) J_jk, with U_kk − U_jj =
-- ω_k² − ω_j².
function sp.newton_euler_U(I, Jm, ac, U)
  local m, h, n = I[1], { I[2], I[3], I[4] }, {}
  local function u(r, c) return U[3 * r - 3 + c] end
  local function Jx(r, c) return Jm[SYM[r][c]] end
  for i = 1, 3 do
    local j, k = next_axes(i)
    n[i] = u(k, i) * Jx(i, j) - u(j, i) * Jx(i, k) + u(k, j) * Jx(j, j) - u(j, k) * Jx(k, k)
           + (U.sq[k] - U.sq[j]) * Jx(j, k)
  end
  return join(sp.add(n, cross(h, ac)), sp.add(sp.scale(ac, m), rot(U, h)))
end

-- The per-rotation constants of the half-angle congruences (X.P when the caller computed them).
local function planar_consts(X)
  if X.P then return X.P end
  local c, s = X.c, X.s
  local SS, CC, SC = s * s, c * c, s * c
  return { c = c, s = s, SS = SS, CC = CC, SC = SC, C2 = CC - SS, S2 = SC + SC }
end

-- Eᵀ S E for a symmetric S (6 numbers).
local function sym_congruence(X, S)
  local E = X.E
  if X.k then
    -- the 2×2 block [a b; b d] over (k1, k2):  u = (a − d) s² + 2 b s c,
    -- a' = a − u, d' = d + u, b' = (a − d) s c + b (c² − s²); the column (x, y) off the plane
    -- rotates as (c x − s y, s x + c y)
    local P, k = planar_consts(X), X.k
    local k1, k2 = next_axes(k)
    local a, d, b = S[SYM[k1][k1]], S[SYM[k2][k2]], S[SYM[k1][k2]]
    local x, y = S[SYM[k][k1]], S[SYM[k][k2]]
    local e = a - d
    local u = e * P.SS + b * P.S2
    local R = {}
    R[SYM[k][k]] = S[SYM[k][k]]
    R[SYM[k1][k1]], R[SYM[k2][k2]], R[SYM[k1][k2]] = a - u, d + u, e * P.SC + b * P.C2
    R[SYM[k][k1]], R[SYM[k][k2]] = P.c * x - P.s * y, P.s * x + P.c * y
    return R
  end
  -- M = S E, then the upper triangle of Eᵀ M
  local M = {}
  for i = 1, 3 do
    for j = 1, 3 do
      M[3 * i - 3 + j] = S[SYM[i][1]] * E[j] + S[SYM[i][2]] * E[3 + j] + S[SYM[i][3]] * E[6 + j]
    end
  end
  local R = {}
  for i = 1, 3 do
    for j = i, 3 do
      R[SYM[i][j]] = E[i] * M[j] + E[3 + i] * M[3 + j] + E[6 + i] * M[6 + j]
    end
  end
  return R
end

-- Eᵀ B E for a general 3×3 B (row-major).
local function mat_congruence(X, B)
  local E = X.E
  if X.k then
    -- the 2×2 block [p q; r t]: with e = p − t, u = e s² + (q + r) s c:  p' = p − u, t' = t + u,
    -- q' = e s c + q c² − r s², r' = e s c − q s² + r c²; row and column k off the plane rotate
    local P, k = planar_consts(X), X.k
    local k1, k2 = next_axes(k)
    local function at(i, j) return 3 * i - 3 + j end
    local p, q, r, t = B[at(k1, k1)], B[at(k1, k2)], B[at(k2, k1)], B[at(k2, k2)]
    local e = p - t
    local u, f = e * P.SS + (q + r) * P.SC, e * P.SC
    local R = {}
    R[at(k, k)] = B[at(k, k)]
    R[at(k1, k1)], R[at(k2, k2)] = p - u, t + u
    R[at(k1, k2)], R[at(k2, k1)] = f + q * P.CC - r * P.SS, f - q * P.SS + r * P.CC
    local x, y = B[at(k, k1)], B[at(k, k2)]
    R[at(k, k1)], R[at(k, k2)] = P.c * x - P.s * y, P.s * x + P.c * y
    x, y = B[at(k1, k)], B[at(k2, k)]
    R[at(k1, k)], R[at(k2, k)] = P.c * x - P.s * y, P.s * x + P.c * y
    return R
  end
  return mat3_mul(transpose3(E), mat3_mul(B, E))
end

-- λX*_i I iXλ for a 10-number inertia I in the child frame and X = iXλ: rotate, then shift by r
-- (y = Eᵀ h, R = Eᵀ Ī E):  h' = y + m r,
--   Ī'_ii = R_ii + Σ_{l≠i} (m r_l² + 2 r_l y_l),   Ī'_ij = R_ij − m r_i r_j − (r_i y_j + y_i r_j)
local function I_to_parent1(X, I)
  local m, h, S = inertia_parts(I)
  local y, R, r = rotT(X.E, h), sym_congruence(X, S), X.r
  local out = { m, y[1] + m * r[1], y[2] + m * r[2], y[3] + m * r[3] }
  for i = 1, 3 do
    local d = R[i]
    for l = 1, 3 do
      if l ~= i then d = d + m * (r[l] * r[l]) + (2 * r[l]) * y[l] end
    end
    out[4 + i] = d
  end
  for _, ij in ipairs({ { 1, 2 }, { 1, 3 }, { 2, 3 } }) do
    local i, j = ij[1], ij[2]
    out[4 + SYM[i][j]] = R[SYM[i][j]] - m * (r[i] * r[j]) - (r[i] * y[j] + y[i] * r[j])
  end
  return out
end

function sp.I_to_parent(X, I) return apply(I_to_parent1, X, I, true) end

-- ---- articulated inertias (symmetric 6×6) -----------------------------------------------------

local function at6(i, j) return 6 * (i - 1) + j end
sp.at6 = at6

-- A full symmetric 6×6 from a function of (i, j), i ≤ j.
local function sym6(fn)
  local A = {}
  for i = 1, 6 do
    for j = i, 6 do
      local x = fn(i, j)
      A[at6(i, j)], A[at6(j, i)] = x, x
    end
  end
  return A
end
sp.sym6 = sym6

-- The 6×6 matrix of a 10-number inertia: [Ī h×; h×ᵀ m 1].
function sp.M6_from_I(I)
  local m, h, S = inertia_parts(I)
  local hx = { 0, -h[3], h[2], h[3], 0, -h[1], -h[2], h[1], 0 }
  return sym6(function(i, j)
    if j <= 3 then return S[SYM[i][j]] end
    if i <= 3 then return hx[3 * i - 3 + j - 3] end
    return (i == j) and m or 0
  end)
end

-- sym.name the upper triangle of a symmetric 6×6.
function sp.name6(M, prefix)
  for i = 1, 6 do
    for j = i, 6 do
      M[at6(i, j)] = sym.name(M[at6(i, j)], prefix .. "_" .. (6 * i + j - 7))
    end
    for j = 1, i - 1 do M[at6(i, j)] = M[at6(j, i)] end
  end
  return M
end

function sp.M6_add(A, B)
  return sym6(function(i, j) return A[at6(i, j)] + B[at6(i, j)] end)
end

function sp.M6_mv(A, x)
  local y = {}
  for i = 1, 6 do
    local s = 0
    for j = 1, 6 do s = s + A[at6(i, j)] * x[j] end
    y[i] = s
  end
  return y
end

-- Xᵀ A X for X = [E 0; 0 E][1 0; −r× 1]: rotate the blocks [P B; Bᵀ C] (P' = Eᵀ P E, ...),
-- then shift:  C' = C,  B' = B + r× C,  P' = P + K + Kᵀ − r× C r×  with K = r× Bᵀ.
local function M6_to_parent1(X, A)
  local P = sym_congruence(X, { A[1], A[8], A[15], A[2], A[3], A[9] })
  local C = sym_congruence(X, { A[22], A[29], A[36], A[23], A[24], A[30] })
  local B = {}
  for i = 1, 3 do
    for j = 1, 3 do B[3 * i - 3 + j] = A[at6(i, 3 + j)] end
  end
  B = mat_congruence(X, B)
  local r = X.r
  local rx = { 0, -r[3], r[2], r[3], 0, -r[1], -r[2], r[1], 0 }
  local Cf = {}
  for i = 1, 3 do
    for j = 1, 3 do Cf[3 * i - 3 + j] = C[SYM[i][j]] end
  end
  local N = mat3_mul(rx, Cf)                 -- r× C
  local K = mat3_mul(rx, transpose3(B))      -- r× Bᵀ
  local NR = mat3_mul(N, rx)                 -- r× C r×
  return sym6(function(i, j)
    if i <= 3 and j <= 3 then
      local kij = 3 * i - 3 + j
      return P[SYM[i][j]] + K[kij] + K[3 * j - 3 + i] - NR[kij]
    elseif i <= 3 then
      local kij = 3 * i - 3 + j - 3
      return B[kij] + N[kij]
    end
    return C[SYM[i - 3][j - 3]]
  end)
end

function sp.M6_to_parent(X, A) return apply(M6_to_parent1, X, A, true) end

-- ---- small symmetric positive definite systems ----------------------------------------------

-- D = L diag(d) Lᵀ for an n×n symmetric D (D[i][j], i ≥ j read), L unit lower triangular; pivot
-- is called as pivot(d_j, j, R_j) on every d_j (the Cholesky diagonal before its square root).
-- With references r (a list of n, the pivot rule's base references of D's rows), R_j = r_j +
-- Σ_{k<j} L_jk² r_k: the rounding error of each earlier pivot (up to about ε_mach r_k) reaches d_j
-- multiplied by L_jk²; without, R_j is nil. Returns {L, dinv, n}.
function sp.ldl(D, n, pivot, r)
  local L, d, dinv = {}, {}, {}
  for j = 1, n do
    L[j] = L[j] or {}
    local x, R = D[j][j], r and r[j]
    for k = 1, j - 1 do
      x = x - L[j][k] * (L[j][k] * d[k])
      if r then R = R + (L[j][k] * L[j][k]) * r[k] end
    end
    d[j] = x
    pivot(x, j, R)
    dinv[j] = 1 / x
    for i = j + 1, n do
      L[i] = L[i] or {}
      local y = D[i][j]
      for k = 1, j - 1 do y = y - L[i][k] * (L[j][k] * d[k]) end
      L[i][j] = y * dinv[j]
    end
  end
  return { L = L, dinv = dinv, n = n }
end

-- D⁻¹ b given sp.ldl(D): L y = b, y = diag(d)⁻¹ y, Lᵀ x = y.
function sp.ldl_solve(F, b)
  local L, n, x = F.L, F.n, {}
  for i = 1, n do
    local s = b[i]
    for k = 1, i - 1 do s = s - L[i][k] * x[k] end
    x[i] = s
  end
  for i = 1, n do x[i] = x[i] * F.dinv[i] end
  for i = n, 1, -1 do
    local s = x[i]
    for k = i + 1, n do s = s - L[k][i] * x[k] end
    x[i] = s
  end
  return x
end

return sp
