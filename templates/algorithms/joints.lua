-- joints.lua — joint models (jcalc, S) and the working frames the recipes compute in.
--
-- The model table is aligned: every 1-dof joint moves about or along +e_k of its frame. A 1-dof
-- joint also commutes with every screw about its own axis, so each such body frame may be turned
-- about and slid along its axis for free; J.tree uses that to put consecutive 1-dof axes in
-- modified Denavit-Hartenberg position (ALGORITHMS.md §0: "re-express each joint frame"): body
-- λ's frame is turned so that the common normal with its principal child's axis is a coordinate
-- axis e_j, and slid to the foot of its own parent's normal; the child's tree transform is then
-- a rotation about e_j and a shift along e_j and e_kλ (the DH α, a, d), the cheapest constant
-- transform there is. The turn left between the child's frame and its parent's normal is folded
-- into the joint: XJ(q + θ0). Everything here is exact but for rounding: a placement is only used
-- when the transform it gives is sparse to 1e-14, and entries below 1e-15 of the model's
-- rotations (cos 90° of an rpy) are taken as the zeros they stand for.
--
-- A working body b (J.tree(model)[i]) has
--   i, name, joint, parent, children, type, k (axis), h (pitch), iq, nq, iv, nv
--   XT       constant transform, parent working frame → this joint's (before XJ)
--   I        10-number inertia in the working frame
--   S        nv columns, each a 6-vector of constants (a column of 1 for every coordinate axis)
--   Yo       constant transform, original body frame → working frame (fext, wrenches, poses)
-- and iXλ = J.Xup(b) = XJ(q_i) XT, kept factored.
local sp = import "spatial"
local J = {}

local ONE_DOF = { revolute = true, continuous = true, prismatic = true, helical = true }
J.ONE_DOF = ONE_DOF
-- Joints whose child origin is a fixed point of the parent (no relative translation).
J.FIXED_ORIGIN = { revolute = true, continuous = true, spherical = true }

-- ---- numbers of the model (never symbolic) --------------------------------------------------

local function snap(x, tol)
  tol = tol or 1e-15
  if math.abs(x) < tol then return 0.0 end
  if math.abs(x - 1) < tol then return 1.0 end
  if math.abs(x + 1) < tol then return -1.0 end
  return x
end

local function copy(t, n, tol)
  local c = {}
  for k = 1, n do c[k] = tol and snap(t[k], tol) or t[k] end
  return c
end

local function unit(k) local e = { 0, 0, 0 }; e[k] = 1; return e end

-- The screw about axis k with rotation (c, s) and shift t along e_k, as a transform.
local function screw(k, Y)
  local r = { 0, 0, 0 }
  r[k] = Y.t
  return { E = sp.planar(k, Y.c, Y.s), r = r }
end

local function is_identity(Y) return Y.c == 1 and Y.s == 0 and Y.t == 0 end
local IDENTITY = { c = 1, s = 0, t = 0 }

local function nonzeros(X)
  local n = 0
  for k = 1, 9 do if X.E[k] ~= 0 then n = n + 1 end end
  for k = 1, 3 do if X.r[k] ~= 0 then n = n + 1 end end
  return n
end

-- Tag X as a rotation about the coordinate axis l when it is one (exactly, but for 1e-15 in the
-- 2×2 block) and the angle is not a multiple of 90° (those fold as they are).
local function tag_planar(X)
  local E = X.E
  for l = 1, 3 do
    local l1, l2 = sp.next_axes(l)
    local function e(i, j) return E[3 * i - 3 + j] end
    if e(l, l) == 1 and e(l, l1) == 0 and e(l, l2) == 0 and e(l1, l) == 0 and e(l2, l) == 0 then
      local c, s = e(l1, l1), e(l1, l2)
      local exact = math.abs(e(l2, l2) - c) < 1e-15 and math.abs(e(l2, l1) + s) < 1e-15
      if c ~= 0 and s ~= 0 and exact then
        X.E, X.k, X.c, X.s = sp.planar(l, c, s), l, c, s
      end
      return X
    end
  end
  return X
end

-- Denavit-Hartenberg placement of body b's frame (Y, a screw about e_p) for its principal child c
-- (D, a screw about e_kc of the child's frame), so that D XT_c Y⁻¹ is a screw about e_j: the
-- common normal of the two axes is e_j, from b's origin to c's. Returns nothing when the result
-- is not sparse to rounding (nearly parallel axes).
local function dh(b, c)
  local p, kc, E, r = b.k, c.k, c.XT0.E, c.XT0.r
  local p1, p2 = sp.next_axes(p)
  local u = { E[3 * kc - 2], E[3 * kc - 1], E[3 * kc] } -- child axis, parent coordinates
  local n = sp.cross(unit(p), u)
  local nn = math.sqrt(sp.dot(n, n))
  local tp, tc
  if nn > 1e-6 then -- feet of the common normal: tp e_p and r + tc u
    local bb, d1, d2 = u[p], r[p], sp.dot(r, u)
    tp, tc = (d1 - bb * d2) / (1 - bb * bb), (bb * d1 - d2) / (1 - bb * bb)
  else -- parallel: the normal through the child's origin
    n = { r[1], r[2], r[3] }
    n[p] = 0
    nn = math.sqrt(sp.dot(n, n))
    if nn < 1e-12 then n, nn = unit(p1), 1 end
    tp, tc = r[p], 0
  end
  n = sp.scale(n, 1 / nn)
  local j = (kc ~= p1) and p1 or p2
  -- the rotation about axis k taking the unit vector x (⊥ e_k) to e_j, j one of the next axes
  local function towards(k, x)
    local k1, k2 = sp.next_axes(k)
    if j == k1 then return x[k1], x[k2] end
    return x[k2], -x[k1]
  end
  local scale = 1 + math.abs(tp) + math.abs(tc) + math.sqrt(sp.dot(r, r))
  local Y, D = { t = snap(tp, 1e-15 * scale) }, { t = snap(tc, 1e-15 * scale) }
  Y.c, Y.s = towards(p, n)
  D.c, D.s = towards(kc, sp.rot(E, n))
  Y.c, Y.s, D.c, D.s = snap(Y.c), snap(Y.s), snap(D.c), snap(D.s)
  local X = sp.compose(screw(kc, D), sp.compose(c.XT0, sp.inverse(screw(p, Y))))
  local j1, j2 = sp.next_axes(j)
  for l = 1, 3 do
    if l ~= j and (math.abs(X.E[3 * j - 3 + l]) > 1e-14 or math.abs(X.E[3 * l - 3 + j]) > 1e-14
                   or math.abs(X.r[l]) > 1e-14 * scale) then
      return nil
    end
  end
  local ca, sa = snap(X.E[3 * j1 - 3 + j1]), snap(X.E[3 * j1 - 3 + j2])
  local rj = { 0, 0, 0 }
  rj[j] = snap(X.r[j], 1e-15 * scale)
  return Y, D, tag_planar({ E = sp.planar(j, ca, sa), r = rj })
end

-- ---- the working tree ---------------------------------------------------------------------------

local cache = setmetatable({}, { __mode = "k" })

function J.tree(model)
  if cache[model] then return cache[model] end
  local T = {}
  for i = 1, model.nb do
    local m = model.bodies[i]
    local I0 = copy(m.inertia, 10)
    local big = 0
    for k = 1, 10 do big = math.max(big, math.abs(I0[k])) end
    for k = 2, 10 do if math.abs(I0[k]) < 1e-15 * big then I0[k] = 0.0 end end
    T[i] = { i = i, name = m.name, joint = m.joint, parent = m.parent, type = m.type, k = m.axis,
             h = m.pitch or 0, iq = m.iq, nq = m.nq, iv = m.iv, nv = m.nv, children = {},
             size = 1, XT0 = { E = copy(m.XT.E, 9, 1e-15), r = copy(m.XT.r, 3) }, I0 = I0,
             R = copy(m.R, 9), Y = IDENTITY, D = IDENTITY }
  end
  for i = #T, 1, -1 do
    local p = T[i].parent
    if p > 0 then
      table.insert(T[p].children, 1, i)
      T[p].size = T[p].size + T[i].size
    end
  end
  -- DH pairs: every 1-dof body with its principal child (the 1-dof child of largest subtree)
  -- unless the child's XT0 is already that sparse
  for _, b in ipairs(T) do
    local c
    for _, ci in ipairs(ONE_DOF[b.type] and b.children or {}) do
      if ONE_DOF[T[ci].type] and (not c or T[ci].size > c.size) then c = T[ci] end
    end
    if c and nonzeros(c.XT0) > 6 then
      local Y, D, XT = dh(b, c)
      if Y then b.Y, b.turned, c.D, c.XT, c.foot = Y, true, D, XT, Y.t end
    end
  end
  -- the working frame: turned as Y (as D without a principal child), at the origin of D (the foot
  -- of the parent's normal), so only the turn Y D⁻¹ is left to fold into the joint; the principal
  -- child's XT takes the shift between the two feet on this axis
  for _, b in ipairs(T) do
    local turn = b.turned and b.Y or b.D
    b.Y = { c = turn.c, s = turn.s, t = b.D.t }
  end
  for _, c in ipairs(T) do
    if c.foot and c.foot ~= T[c.parent].Y.t then
      local r = { c.XT.r[1], c.XT.r[2], c.XT.r[3] }
      r[T[c.parent].k] = c.foot - T[c.parent].Y.t
      c.XT = { E = c.XT.E, r = r, k = c.XT.k, c = c.XT.c, s = c.XT.s }
    end
  end
  for _, b in ipairs(T) do
    local p, k = b.parent, b.k
    -- XT = D XT0 Y_λ⁻¹ (D = 1 off the DH pairs), the turn Y D⁻¹ folded into the joint
    if not b.XT then
      local X = b.XT0
      if p > 0 and not is_identity(T[p].Y) then
        X = sp.compose(X, sp.inverse(screw(T[p].k, T[p].Y)))
        X = { E = copy(X.E, 9, 1e-15), r = X.r }
      end
      b.XT = tag_planar(X)
    end
    local Y, D = b.Y, b.D
    b.cz, b.sz = snap(Y.c * D.c + Y.s * D.s), snap(Y.s * D.c - Y.c * D.s)
    b.theta = math.atan(b.sz, b.cz)
    if b.theta == 0 then b.cz = 1 end
    -- inertia and the original frame in the working frame: x_working = Y R x_original
    local Yx = is_identity(Y) and sp.identity() or screw(k, Y)
    b.I = is_identity(Y) and b.I0 or sp.I_to_parent(sp.inverse(Yx), b.I0)
    b.Yo = sp.compose(Yx, { E = b.R, r = { 0, 0, 0 } })
    b.S, b.J = J.S(b), sp.second_moment(b.I)
  end
  cache[model] = T
  return T
end

-- The motion subspace: nv columns of 6 constants.
function J.S(b)
  local function e(l, x) local c = sp.zeros(6); c[l] = x or 1; return c end
  local t, k = b.type, b.k
  if t == "revolute" or t == "continuous" then return { e(k) } end
  if t == "prismatic" then return { e(3 + k) } end
  if t == "helical" then local c = e(k); c[3 + k] = b.h; return { c } end
  if t == "spherical" then return { e(1), e(2), e(3) } end
  return { e(4), e(5), e(6), e(1), e(2), e(3) } -- floating: [v_lin; ω] ↦ [ω; v]
end

-- The constrained directions T (ALGORITHMS.md §4): 6 − nv constant columns with Sᵀ T = 0 that
-- complete S to a basis of R⁶: the unit coordinate columns S does not touch, and for a helical
-- joint of pitch h ≠ 0 also [−h e_k; e_k].
function J.T(b)
  local used, cols = {}, {}
  for _, c in ipairs(b.S) do
    for l = 1, 6 do if c[l] ~= 0 then used[l] = true end end
  end
  for l = 1, 6 do
    if not used[l] then local e = sp.zeros(6); e[l] = 1; cols[#cols + 1] = e end
  end
  if b.type == "helical" and b.h ~= 0 then
    local e = sp.zeros(6)
    e[b.k], e[3 + b.k] = -b.h, 1
    cols[#cols + 1] = e
  end
  return cols
end

-- ---- joint transforms -------------------------------------------------------------------------

-- E = R(quat)ᵀ with R exactly as runtime/spatial.c mbs_quat_to_rot (not renormalized).
local function quat_E(x, y, z, w)
  local R = { 1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
              2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
              2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y) }
  return sp.transpose3(R)
end

-- XJ(q_i) of body b in its working frame (with the folded turn θ0 about its axis).
function J.jcalc(b)
  local t, k = b.type, b.k
  local function q(l) return sym.input("q", b.iq + l) end
  local r = { 0, 0, 0 }
  if t == "revolute" or t == "continuous" or t == "helical" then
    -- rotation q + θ0 about e_k (helical: and the shift h q along e_k)
    local s, c = sym.sincos(q(0) + b.theta)
    r[k] = (t == "helical") and b.h * q(0) or 0
    return { E = sp.planar(k, c, s), r = r, k = k, c = c, s = s }
  elseif t == "prismatic" then
    -- rotation θ0 about e_k, shift q e_k
    r[k] = q(0)
    local X = { E = sp.planar(k, b.cz, b.sz), r = r }
    if b.cz ~= 0 and b.sz ~= 0 then X.k, X.c, X.s = k, b.cz, b.sz end
    return X
  elseif t == "spherical" then
    return { E = quat_E(q(0), q(1), q(2), q(3)), r = r }
  end
  return { E = quat_E(q(3), q(4), q(5), q(6)), r = { q(0), q(1), q(2) } } -- floating
end

-- iXλ = XJ(q_i) XT(i), factored.
function J.Xup(b) return sp.product(J.jcalc(b), b.XT) end

-- ---- joint-space quantities -------------------------------------------------------------------

-- The nv entries of body b in the input array `name` (zeros when name is nil).
function J.read(b, name)
  local x = {}
  for c = 1, b.nv do x[c] = name and sym.input(name, b.iv + c - 1) or 0 end
  return x
end

-- S x
function J.S_mv(b, x)
  local m = sp.zeros(6)
  for c, col in ipairs(b.S) do
    for l = 1, 6 do m[l] = m[l] + col[l] * x[c] end
  end
  return m
end

-- Sᵀ f
function J.ST(b, f)
  local y = {}
  for c, col in ipairs(b.S) do y[c] = sp.dot(col, f) end
  return y
end

-- ---- the articulated-body step (ALGORITHMS.md §3; aba, minv) ---------------------------------

-- Body b with articulated inertia IA: U = IA S;  D = Sᵀ U = L diag(d) Lᵀ (every d a pivot);
-- W = D⁻¹ Uᵀ (W S = 1: exact where S selects a coordinate);  Ia = IA − U W, exactly zero in the
-- rows and columns S selects (Ia S = 0). W[l] is column l of W (n entries).
function J.articulated(b, IA)
  local U, D, n = {}, {}, b.nv
  for c, Sc in ipairs(b.S) do U[c] = J.name(sp.M6_mv(IA, Sc), "U" .. (c - 1), b) end
  for r = 1, n do
    D[r] = {}
    for c = 1, r do D[r][c] = sp.dot(b.S[r], U[c]) end
  end
  local npiv = 0
  local F = sp.ldl(D, n, function(d)
    sym.pivot(sym.name(d, "D_" .. b.name .. "_" .. npiv))
    npiv = npiv + 1
  end)
  local W, zero = {}, {}
  for l = 1, 6 do
    local row = {}
    for c = 1, n do row[c] = U[c][l] end
    W[l] = sp.ldl_solve(F, row)
  end
  for c, Sc in ipairs(b.S) do
    local nz, at = 0, 0
    for l = 1, 6 do if Sc[l] ~= 0 then nz, at = nz + 1, l end end
    if nz == 1 and Sc[at] == 1 then
      zero[at] = true
      for c2 = 1, n do W[at][c2] = (c2 == c) and 1 or 0 end
    end
  end
  local Ia = sp.sym6(function(i, j)
    if zero[i] or zero[j] then return 0 end
    local s = IA[sp.at6(i, j)]
    for c = 1, n do s = s - U[c][i] * W[j][c] end
    return s
  end)
  return { U = U, F = F, W = W, Ia = Ia }
end

-- W x = D⁻¹ Uᵀ x (n values, x a 6-vector) and Wᵀ y = U D⁻¹ y (a 6-vector, y n values).
function J.W_mv(jt, x)
  local y = {}
  for c = 1, #jt.U do
    local s = 0
    for l = 1, 6 do s = s + jt.W[l][c] * x[l] end
    y[c] = s
  end
  return y
end

function J.WT_mv(jt, y)
  local x = {}
  for l = 1, 6 do x[l] = sp.dot(jt.W[l], y) end
  return x
end

-- The working-frame wrench of the input `name` (one [n; f] per body in its original frame).
function J.fext(b, name)
  local f = {}
  for l = 1, 6 do f[l] = sym.input(name, 6 * b.i + l - 1) end
  return sp.X_fv(b.Yo, f)
end

-- A working-frame wrench in the original frame: Yoᵀ f.
function J.wrench_out(b, f) return sp.XT_fv(b.Yo, f) end

-- The original frame's pose (R body → world, p) from iX0 of the working frame.
function J.pose(b, X0)
  local X = sp.compose(sp.inverse(b.Yo), X0)
  return sp.transpose3(X.E), X.r
end

-- a0 = −gravity
function J.a0(model)
  local g = model.gravity
  return { 0, 0, 0, -g[1], -g[2], -g[3] }
end

-- sym.name the entries of vector x as sym_body_0, sym_body_1, ...
function J.name(x, symbol, b) return sp.name(x, symbol .. "_" .. b.name) end

return J
