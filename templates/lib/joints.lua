-- joints.lua — joint models (jcalc, S) and the working frames the recipes compute in.
--
-- The model table is in the working frames the C core placed (generator/dh_frames.h): every
-- 1-dof joint moves about or along +e_k of its frame, consecutive 1-dof axes are in modified
-- Denavit-Hartenberg position (docs/generator.md, "Working frames"), and the turn
-- θ0 left between a child's frame and its parent's normal is folded into the joint: XJ(q + θ0).
-- J.tree only copies those numbers into plain tables and adds the joint models.
--
-- A working body b (J.tree(model)[i]) has
--   i, name, joint, parent, children, type, k (axis), h (pitch), iq, nq, iv, nv
--   angle, fixed_origin   from its type's row of the joint-type table (model.joint_types): q is
--            an angle about e_k; the child's origin is a fixed point of the parent (XJ has r = 0)
--   XT       constant transform, parent working frame → this joint's (before XJ); with k, c, s
--            when it is a rotation about a coordinate axis (spatial.lua)
--   I        10-number inertia in the working frame
--   theta, cz, sz   θ0 and its cosine and sine
--   S        nv columns, each a 6-vector of constants (a column of 1 for every coordinate axis);
--            a universal joint's first column turns with θ2 (symbols of the function being
--            built: J.tree copies those bodies per call), and it has the bias J.cJ
--   Yo       constant transform, original body frame → working frame (fext, wrenches, poses)
--   arm      the joint's armature (rotor inertia) on each of its dofs, 0 for none (J.add_armature)
--   damping, friction, stiffness, spring_ref   its passive forces (passive_forces.lua), 0: none
--   params   with run-time inertial parameters (--parameters, docs/parameters.md): the blocks of
--            the function's pi that move with the body, each {at, X}; I is then the constant rest
--            plus each block's ten sym.param values carried into the working frame (J.tree)
--   nm, iqe, ie      modes of a flexible body and their first q and v index (0-based); with
--                    nm > 0 also Mc (nm force columns), Me, K, D (nm × nm rows) in its frame
--   Psi      a joint on a flexible parent: the parent section's motion per unit modal rate
--            (nm(parent) motion columns, the parent's working frame)
-- and iXλ = J.Xup(b) = XJ(q_i) XT, kept factored.
local sp = import "spatial"
local REF = import "reference"
local J = {}

-- ---- the working tree ---------------------------------------------------------------------------

-- Plain copies of the model's (read-only) numbers.
local function copy(t, n)
  local c = {}
  for k = 1, n do c[k] = t[k] end
  return c
end

local function xform(X)
  return { E = copy(X.E, 9), r = copy(X.r, 3), k = X.k, c = X.c, s = X.s }
end

local cache = setmetatable({}, { __mode = "k" })

local function body_tree(model)
  if cache[model] then return cache[model] end
  local T = {}
  for i = 1, model.nb do
    local m = model.bodies[i]
    local jt = model.joint_types[m.type]
    local b = { i = i, name = m.name, joint = m.joint, parent = m.parent, type = m.type,
                k = m.axis, h = m.pitch or 0, iq = m.iq, nq = m.nq, iv = m.iv, nv = m.nv,
                angle = jt.angle, fixed_origin = jt.fixed_origin,
                children = copy(m.children, #m.children), XT = xform(m.XT),
                I = copy(m.inertia, 10), theta = m.theta, cz = m.cos_theta, sz = m.sin_theta,
                trig = m.trig, arm = m.armature or 0, damping = m.damping or 0,
                friction = m.friction or 0, stiffness = m.stiffness or 0,
                spring_ref = m.spring_ref or 0,
                Yo = xform(m.Yo) }
    b.S, b.J = b.type ~= "universal" and J.S(b) or nil, sp.second_moment(b.I)
    -- a flexible body's modes (0-based q and v indices iqe, ie: after the joint's coordinates)
    b.nm, b.iqe, b.ie = m.nm or 0, m.iq + m.nq, m.iv + m.nv
    local function cols(x) local c = {}; for k = 1, #x do c[k] = copy(x[k], 6) end; return c end
    local function rows(x) local c = {}; for k = 1, #x do c[k] = copy(x[k], #x) end; return c end
    if b.nm > 0 then
      b.Mc, b.Me, b.K, b.D = cols(m.Mc), rows(m.Me), rows(m.K), rows(m.D)
      b.Q = {}
      for k = 1, b.nm do b.Q[k] = copy(m.Q[k], 36) end
    end
    if m.Psi then b.Psi = cols(m.Psi) end
    if m.params then
      b.params = {}
      for k, blk in ipairs(m.params) do b.params[k] = { at = blk.at, X = xform(blk.X) } end
    end
    T[i] = b
  end
  cache[model] = T
  return T
end

-- The working tree of the function being built: the body frames' (cached), or, when the function
-- is built with world-aligned frames (sym.frame(): "joint", "com" or "world", --frame), that tree
-- re-expressed there (reference.lua; rigid bodies only: the generator asks for no other).
-- Pinocchio's parameter order (m, m c, Ixx, Ixy, Iyy, Ixz, Iyz, Izz) → the 10-number inertia's.
local PIN_TO_MODEL = { 1, 2, 3, 4, 5, 8, 6, 9, 10, 7 }

-- The inertia of body b with run-time parameters: the rest plus each block's pi values carried
-- into the working frame, as the constant 10 x 10 map of the transform (its columns: the unit
-- parameters carried over, numbers) times pi — each entry a sum over the map's nonzeros only,
-- fewer operations than carrying symbols through the transform's rotations and shifts.
local function param_inertia(b)
  local I = {}
  for l = 1, 10 do I[l] = b.I[l] end
  for _, blk in ipairs(b.params) do
    for l = 1, 10 do
      local e = {}
      for k = 1, 10 do e[k] = 0 end
      e[PIN_TO_MODEL[l]] = 1
      local col, p = sp.I_to_parent(blk.X, e), sym.param(blk.at + l - 1)
      for k = 1, 10 do
        local a = col[k]
        if math.abs(a) < 1e-15 then a = 0 end -- rounding of the rotation's zeros
        if a == 1 then I[k] = I[k] + p elseif a ~= 0 then I[k] = I[k] + a * p end
      end
    end
  end
  return sp.name(I, "I_" .. b.name)
end

-- T with the inertias of the bodies that have run-time parameters (b.params) symbolic. A new
-- table per call (its values belong to the function being built); T itself when no body has
-- parameters. I and J are made when first read, so that a function that never reads them (the
-- base parameters' map, which has a pi of its own) does not take the run-time ones.
local function with_params(T)
  local P
  for i, b in ipairs(T) do
    if b.params then
      P = P or { table.unpack(T) }
      local c = {}
      for k, x in pairs(b) do if k ~= "I" and k ~= "J" then c[k] = x end end
      P[i] = setmetatable(c, { __index = function(t, k)
        if k ~= "I" and k ~= "J" then return nil end
        rawset(t, "I", param_inertia(b))
        rawset(t, "J", sp.second_moment(t.I))
        return rawget(t, k)
      end })
    end
  end
  return P or T
end

-- T with the universal joints' bodies copied, their S(q) made when first read (symbols of the
-- function being built, which may have no q when it never reads S; equal expressions are one
-- node, so building them again per call costs nothing). The copy reads I and J as b does.
local function with_varying_S(T)
  local P
  for i, b in ipairs(T) do
    if b.type == "universal" then
      P = P or { table.unpack(T) }
      local c, mt = {}, getmetatable(b)
      for k, x in pairs(b) do c[k] = x end
      P[i] = setmetatable(c, { __index = function(t, k)
        if k == "S" then
          rawset(t, "S", J.S(b))
          return rawget(t, "S")
        end
        return mt and mt.__index(t, k) -- with_params's I and J
      end })
    end
  end
  return P or T
end

function J.tree(model)
  local T, point = with_varying_S(with_params(body_tree(model))), J.override or sym.frame()
  if point == "body" then return T end
  if not REF.POINTS[point] then error("joints.lua: unknown frame '" .. tostring(point) .. "'") end
  for _, b in ipairs(T) do
    if b.nm > 0 or b.Psi then error("joints.lua: --frame " .. point .. " for flexible bodies") end
  end
  return REF.tree(T, point, function(b) return sp.product(J.jcalc(b), b.XT) end)
end

-- fn() with J.tree in the frames of `point` ("body", "joint", "com", "world") whatever the
-- function's; its results.
function J.in_frames(point, fn)
  local saved = J.override
  J.override = point
  local r = table.pack(pcall(fn))
  J.override = saved
  if not r[1] then error(r[2], 0) end
  return table.unpack(r, 2, r.n)
end

-- fn() with J.tree in the body frames (the loop rows of loops.lua are built there; J.to_frame
-- carries them over).
function J.in_body_frames(fn) return J.in_frames("body", fn) end

-- A force f on body b given in its working (body) frame, in b's frame of the tree b is from.
function J.to_frame(b, f)
  if b.Xw then return sp.X_fv(b.Xw, f) end
  return f
end

-- The motion subspace: nv columns of 6 constants.
function J.S(b)
  local function e(l, x) local c = sp.zeros(6); c[l] = x or 1; return c end
  local t, k = b.type, b.k
  if t == "fixed" then return {} end -- a flexible body held by a fixed joint: its modes only
  if t == "revolute" or t == "continuous" then return { e(k) } end
  if t == "prismatic" then return { e(3 + k) } end
  if t == "helical" then local c = e(k); c[3 + k] = b.h; return { c } end
  if t == "spherical" then return { e(1), e(2), e(3) } end
  if t == "cylindrical" then return { e(k), e(3 + k) } end -- rotation about e_k, slide along it
  -- planar about e_k: slides along the plane's axes e_k+1, e_k+2 (cyclic; mb.h), turn about e_k
  if t == "planar" then return { e(3 + k % 3 + 1), e(3 + (k + 1) % 3 + 1), e(k) } end
  if t == "universal" then
    -- θ1 about e_k fixed in the parent, θ2 about e_j (j = k + 1, cyclic) fixed in the child:
    -- S = [R2ᵀ e_k, e_j] with R2ᵀ e_k = cos θ2 e_k + sin θ2 e_l (l = k + 2); |column| = 1
    local s2, c2 = sym.sincos(sym.input("q", b.iq + 1))
    local c = e(k, c2)
    c[(k + 1) % 3 + 1], c.w2, c.v2 = s2, 1, 0
    return { c, e(k % 3 + 1) }
  end
  return { e(4), e(5), e(6), e(1), e(2), e(3) } -- floating: [v_lin; ω] ↦ [ω; v]
end

-- The bias acceleration cJ = Ṡ q̇ of body b's joint (a 6-vector in b's frame), or nil when S is
-- constant (every type but universal) or qd (the input array of q̇) is nil. Universal: d/dt
-- (R2ᵀ e_k) = (R2ᵀ e_k) × e_j θ̇2, so cJ = [θ̇1 θ̇2 (cos θ2 e_l − sin θ2 e_k); 0] in the body
-- frame; in world-aligned frames (reference.lua: R, d, the body-frame columns Sb) [R x; d × R x].
function J.cJ(b, qd)
  if b.type ~= "universal" or not qd then return nil end
  local k, l, S1 = b.k, (b.k + 1) % 3 + 1, (b.Sb or b.S)[1]
  local w = sym.name(sym.input(qd, b.iv) * sym.input(qd, b.iv + 1), "wj_" .. b.name)
  local x = { 0, 0, 0 }
  x[l], x[k] = w * S1[k], -(w * S1[l])
  if not b.Sb then return { x[1], x[2], x[3], 0, 0, 0 } end
  local wr = sp.rot(b.R, x)
  local v = sp.cross(b.d, wr)
  return sp.name({ wr[1], wr[2], wr[3], v[1], v[2], v[3] }, "cJ_" .. b.name)
end

-- a + cJ (a a 6-vector), or a itself for no cJ.
function J.add_cJ(b, qd, a)
  local x = J.cJ(b, qd)
  if not x then return a end
  return sp.add(a, x)
end

-- The constrained directions T of the Constraint Force Algorithm (docs/cfa.md): 6 − nv constant
-- columns with Sᵀ T = 0 that complete S to a basis of R⁶: the unit coordinate columns S does not
-- touch, and for a helical joint of pitch h ≠ 0 also [−h e_k; e_k].
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

-- E = R(quat)ᵀ with R exactly as runtime/spatial.c mbs_quat_to_rot: the rotation of q/|q|,
-- R = 1 + s (w u× + u×²) with s = 2/|q|² (one division, no square root), so any nonzero quaternion
-- is accepted and the zero quaternion gives NaN (2/0 = Inf times 0).
local function quat_E(x, y, z, w, name)
  local xx, yy, zz = x * x, y * y, z * z
  local s = sym.name(2 / (xx + yy + zz + w * w), "qs_" .. name)
  local R = { 1 - s * (yy + zz), s * (x * y - z * w), s * (x * z + y * w),
              s * (x * y + z * w), 1 - s * (xx + zz), s * (y * z - x * w),
              s * (x * z - y * w), s * (y * z + x * w), 1 - s * (xx + yy) }
  return sp.transpose3(R)
end

-- XJ(q_i) of body b in its working frame (with the folded turn θ0 about its axis).
function J.jcalc(b)
  local t, k = b.type, b.k
  local function q(l) return sym.input("q", b.iq + l) end
  local r = { 0, 0, 0 }
  if t == "fixed" then return sp.identity() end
  if t == "revolute" or t == "continuous" or t == "helical" or t == "cylindrical" then
    -- rotation q + θ0 about e_k (helical: and the shift h q along e_k; cylindrical: q(1)); the
    -- _sc twins of --trig-input read its sine and cosine from sc (trig.lua)
    local s, c
    if sym.trig_input() then
      s, c = sym.input("sc", 2 * b.trig), sym.input("sc", 2 * b.trig + 1)
    else
      s, c = sym.sincos(q(0) + b.theta)
    end
    r[k] = (t == "helical") and b.h * q(0) or (t == "cylindrical") and q(1) or 0
    return { E = sp.planar(k, c, s), r = r, k = k, c = c, s = s }
  elseif t == "planar" then
    -- shift q(0) e_k+1 + q(1) e_k+2, then rotation q(2) about e_k (θ0 = 0: not a 1-dof joint)
    local s, c = sym.sincos(q(2))
    r[k % 3 + 1], r[(k + 1) % 3 + 1] = q(0), q(1)
    return { E = sp.planar(k, c, s), r = r, k = k, c = c, s = s }
  elseif t == "prismatic" then
    -- rotation θ0 about e_k, shift q e_k
    r[k] = q(0)
    local X = { E = sp.planar(k, b.cz, b.sz), r = r }
    if b.cz ~= 0 and b.sz ~= 0 then X.k, X.c, X.s = k, b.cz, b.sz end
    return X
  elseif t == "spherical" then
    return { E = quat_E(q(0), q(1), q(2), q(3), b.name), r = r }
  elseif t == "universal" then -- (θ0 = 0: not a 1-dof joint, its frame is the aligned one)
    local A, B = J.universal_factors(b)
    return sp.compose(A, B)
  end
  return { E = quat_E(q(3), q(4), q(5), q(6), b.name), r = { q(0), q(1), q(2) } } -- floating
end

-- A universal joint's XJ as two turns, A B: B = rot(e_k, θ1)ᵀ, then A = rot(e_j, θ2)ᵀ (E's,
-- parent to child), each with its axis and angle for spatial.lua's cheap products. The working
-- frame is the aligned one (generator/topology/align.h): axis = e_k, axis2 = e_j, j = k + 1.
function J.universal_factors(b)
  local k, j = b.k, b.k % 3 + 1
  local s1, c1 = sym.sincos(sym.input("q", b.iq))
  local s2, c2 = sym.sincos(sym.input("q", b.iq + 1))
  return { E = sp.planar(j, c2, s2), r = { 0, 0, 0 }, k = j, c = c2, s = s2 },
         { E = sp.planar(k, c1, s1), r = { 0, 0, 0 }, k = k, c = c1, s = s1 }
end

-- iXλ = XJ(q_i) XT(i), factored; in world-aligned frames the translation between the frames
-- (reference.lua).
function J.Xup(b)
  if b.Xf then return b.Xf end
  if b.type == "universal" then
    local A, B = J.universal_factors(b)
    return sp.product(A, B, b.XT)
  end
  return sp.product(J.jcalc(b), b.XT)
end

-- ---- joint-space quantities -------------------------------------------------------------------

-- The nv entries of body b in the input array `name` (zeros when name is nil).
function J.read(b, name)
  local x = {}
  for c = 1, b.nv do x[c] = name and sym.input(name, b.iv + c - 1) or 0 end
  return x
end

-- The nm modal entries of body b in the input array `name` (zeros when name is nil); q: η.
function J.read_modes(b, name)
  local x = {}
  local at = name == "q" and b.iqe or b.ie
  for c = 1, b.nm do x[c] = name and sym.input(name, at + c - 1) or 0 end
  return x
end

-- Σ_c cols[c] x[c] (6-vectors) added to m (a 6-vector, returned)
function J.cols_mv(cols, x, m)
  m = m or sp.zeros(6)
  for c, col in ipairs(cols) do
    for l = 1, 6 do m[l] = m[l] + col[l] * x[c] end
  end
  return m
end

-- colsᵀ f (one value per column)
function J.cols_T(cols, f)
  local y = {}
  for c, col in ipairs(cols) do y[c] = sp.dot(col, f) end
  return y
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

-- ---- pivot references (the pivot rule: docs/generator.md "Singular and non-finite inputs") -----

-- The base reference of every dof (aba, minv, crba_fd): an upper bound of the terms the pivot of
-- that dof is summed from, so of its rounding noise. With m_i the mass of body i's subtree and
-- J_i = ½ tr Ī_i + Σ_c (√J_c + √m_c |r_c|)² (children c, r_c = the origin of c in i's frame) a
-- bound of ∫ |p|² dm over the subtree, p measured from i's origin along the tree's offsets
-- (Minkowski's inequality), every entry of the subtree's composite or articulated inertia and every
-- term they are summed from is bounded by 2J (rotation), √(2J m) (coupling) or m (translation), so
-- a column s = [s_ω; s_v] of S_i has r = (|s_ω| √(2J) + |s_v| √m)². Numbers wherever no prismatic,
-- helical or floating joint moves an offset (sqrt of numbers folds). Returns base[i][l].
function J.base_references(T, X)
  local Jm, mass, base = {}, {}, {}
  for _, b in ipairs(T) do
    local I = b.I
    Jm[b.i], mass[b.i] = (I[5] + I[6] + I[7]) / 2, I[1]
  end
  for i = #T, 1, -1 do
    local b, p = T[i], T[i].parent
    if p > 0 then
      local r = sp.origin(X[i])
      local rn = X[i].rn or sym.sqrt(sp.dot(r, r)) -- rn: reference.lua's bound of |r|
      local s = sym.sqrt(Jm[i]) + sym.sqrt(mass[i]) * rn
      Jm[p], mass[p] = Jm[p] + s * s, mass[p] + mass[i]
    end
    base[i] = {}
    for l, c in ipairs(b.S) do
      local w2, v2 = c[1] * c[1] + c[2] * c[2] + c[3] * c[3], c[4] * c[4] + c[5] * c[5] + c[6] * c[6]
      if c.w2 then w2, v2 = c.w2, c.v2 end -- world-aligned: reference.lua's norms
      local r
      if v2 == 0 then
        r = w2 * (2 * Jm[i])
      elseif w2 == 0 then
        r = v2 * mass[i]
      else
        local x = sym.sqrt(w2) * sym.sqrt(2 * Jm[i]) + sym.sqrt(v2) * sym.sqrt(mass[i])
        r = x * x
      end
      if b.arm ~= 0 then r = r + b.arm end -- the rotor's inertia is part of the pivot
      base[i][l] = sym.name(r, "r_" .. b.name .. "_" .. (l - 1))
    end
  end
  return base
end

-- ---- the articulated-body step (aba, minv) -----------------------------------------------------

-- Body b with articulated inertia IA: U = IA S;  D = Sᵀ U = L diag(d) Lᵀ (every d a pivot, against
-- the references R of b's dofs, amplified inside D by sp.ldl); W = D⁻¹ Uᵀ (W S = 1: exact where S
-- selects a coordinate);  Ia = IA − U W, exactly zero in the rows and columns S selects (Ia S = 0).
-- With a rotor (armature a, D = Sᵀ U + a) neither holds (W S = 1 − D⁻¹ a): both computed.
-- W[l] is column l of W (n entries).
function J.articulated(b, IA, R)
  local U, D, n = {}, {}, b.nv
  for c, Sc in ipairs(b.S) do U[c] = J.name(sp.M6_mv(IA, Sc), "U" .. (c - 1), b) end
  for r = 1, n do
    D[r] = {}
    for c = 1, r do D[r][c] = sp.dot(b.S[r], U[c]) end
    if b.arm ~= 0 then D[r][r] = D[r][r] + b.arm end -- the rotor's inertia
  end
  local F = sp.ldl(D, n, function(d, l, Rl)
    sym.pivot(sym.name(d, "D_" .. b.name .. "_" .. (l - 1)), Rl, "joint '" .. b.joint .. "'")
  end, R)
  local W, zero = {}, {}
  for l = 1, 6 do
    local row = {}
    for c = 1, n do row[c] = U[c][l] end
    W[l] = sp.ldl_solve(F, row)
  end
  for c, Sc in ipairs(b.S) do -- W S = D⁻¹ Sᵀ IA S = 1 only without a rotor (D = Sᵀ IA S + armature)
    local nz, at = 0, 0
    for l = 1, 6 do if Sc[l] ~= 0 then nz, at = nz + 1, l end end
    if nz == 1 and Sc[at] == 1 and b.arm == 0 then
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

-- The articulated-body step of a flexible body b (Jain & Rodriguez 1990, §7, eqs. 7.2-7.3, its
-- hinge and modal dofs together): the articulated modal inertia [IA, PC; PCᵀ, PE] and the dofs'
-- map 𝓗ᵀ = [S 0; 0 1] give U = [IA S, PC] (nv + nm 6-vectors), D = [Sᵀ IA S, Sᵀ PC; PCᵀ S, PE]
-- (factored directly; the references of the modal pivots are D's diagonal), W = D⁻¹ Uᵀ and
-- Ia = IA − U W, zero where S selects a coordinate (W S = the first nv unit columns).
function J.articulated_modal(b, IA, PC, PE, R)
  local U, D, n, d, Rd = {}, {}, b.nv, b.nv + b.nm, {}
  for c, Sc in ipairs(b.S) do U[c] = J.name(sp.M6_mv(IA, Sc), "U" .. (c - 1), b) end
  for c = 1, b.nm do U[n + c] = PC[c] end
  for r = 1, d do
    D[r] = {}
    for c = 1, r do
      if r <= n then D[r][c] = sp.dot(b.S[r], U[c])
      elseif c <= n then D[r][c] = sp.dot(PC[r - n], b.S[c])
      else D[r][c] = PE[r - n][c - n] end
    end
    if r <= n and b.arm ~= 0 then D[r][r] = D[r][r] + b.arm end -- the rotor's inertia
    Rd[r] = r <= n and R[r] or D[r][r]
  end
  local F = sp.ldl(D, d, function(x, l, Rl)
    sym.pivot(sym.name(x, "D_" .. b.name .. "_" .. (l - 1)), Rl, "joint '" .. b.joint .. "'")
  end, Rd)
  local W, zero = {}, {}
  for l = 1, 6 do
    local row = {}
    for c = 1, d do row[c] = U[c][l] end
    W[l] = sp.ldl_solve(F, row)
  end
  for c, Sc in ipairs(b.S) do -- as J.articulated: only without a rotor
    local nz, at = 0, 0
    for l = 1, 6 do if Sc[l] ~= 0 then nz, at = nz + 1, l end end
    if nz == 1 and Sc[at] == 1 and b.arm == 0 then
      zero[at] = true
      for c2 = 1, d do W[at][c2] = (c2 == c) and 1 or 0 end
    end
  end
  local Ia = sp.sym6(function(i, j)
    if zero[i] or zero[j] then return 0 end
    local s = IA[sp.at6(i, j)]
    for c = 1, d do s = s - U[c][i] * W[j][c] end
    return s
  end)
  return { U = U, F = F, W = W, Ia = Ia }
end

-- The modal blocks of flexible bodies' composite or articulated inertias (crba, aba, minv):
-- J.modal_blocks(T) starts every flexible body's coupling PC and modal block PE from its own
-- Mc and Me (copies); J.name_modal names body b's; J.add_section adds a child locked to its
-- flexible parent's section, A_mv(x) = A x its (composite or articulated) inertia in the parent
-- frame: PC_λ += A Ψ, PE_λ += Ψᵀ A Ψ (Jain & Rodriguez 1990, §5 and §7).
function J.modal_blocks(T)
  local PC, PE = {}, {}
  for _, b in ipairs(T) do
    if b.nm > 0 then
      PC[b.i], PE[b.i] = {}, {}
      for c = 1, b.nm do PC[b.i][c], PE[b.i][c] = { table.unpack(b.Mc[c]) }, { table.unpack(b.Me[c]) } end
    end
  end
  return PC, PE
end

function J.name_modal(PC, PE, b)
  for c = 1, b.nm do
    PC[b.i][c] = sp.name(PC[b.i][c], "PC" .. (c - 1) .. "_" .. b.name)
    PE[b.i][c] = sp.name(PE[b.i][c], "PE" .. (c - 1) .. "_" .. b.name)
  end
end

function J.add_section(PC, PE, Psi, A_mv)
  local AP = {}
  for c, col in ipairs(Psi) do
    AP[c] = A_mv(col)
    PC[c] = sp.add(PC[c], AP[c])
  end
  for r, col in ipairs(Psi) do
    for c = 1, #Psi do PE[r][c] = PE[r][c] + sp.dot(col, AP[c]) end
  end
end

-- Child c's pivots amplified into the references R (a list, updated) of its parent p's dofs: the
-- lock term of p's dof l (what locking joint c would add to D_p) is y D_c⁻¹ y = Σ_m z_m² / d_m with
-- y = U_cᵀ X S_p,l (U_c carried to p's frame as forces, X = cXp) and z = L⁻¹ y; a pivot d_m of
-- D_c carries a rounding error up to about ε_mach base_m, which reaches D_p multiplied by the lock
-- term over d_m:  R_l += Σ_m z_m² base_m / d_m² .
function J.amplify(R, p, X, jt, base)
  local Y, w = {}, {}
  for m, Um in ipairs(jt.U) do
    Y[m] = sp.XT_fv(X, Um)
    w[m] = base[m] * (jt.F.dinv[m] * jt.F.dinv[m])
    if jt.f then w[m] = w[m] * jt.f[m] end -- hybrid.lua: a prescribed column amplifies nothing
  end
  for l, Sl in ipairs(p.S) do
    local z, sum = {}, 0
    for m = 1, #jt.U do
      local x = sp.dot(Sl, Y[m])
      for k = 1, m - 1 do x = x - jt.F.L[m][k] * z[k] end
      z[m] = x
      sum = sum + (x * x) * w[m]
    end
    R[l] = R[l] + sum
  end
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

-- The rows of W iXλ as 6-vectors: (W X) x = W (X x), row c = Xᵀ (row c of W).
function J.W_rows(jt, X)
  local R = {}
  for c = 1, #jt.U do
    local row = {}
    for l = 1, 6 do row[l] = jt.W[l][c] end
    R[c] = sp.XT_fv(X, row)
  end
  return R
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

-- Gravity in world coordinates: the model's numbers, or with --parameters gravity its three
-- run-time values (model.gravity.param, their index in pi); a table overriding model.gravity (the
-- recipes' {0, 0, 0} "without gravity") is taken as it is.
function J.gravity(model)
  local g = model.gravity
  if g.param == nil then return g end
  return { sym.param(g.param), sym.param(g.param + 1), sym.param(g.param + 2) }
end

-- a0 = −gravity
function J.a0(model)
  local g = J.gravity(model)
  return { 0, 0, 0, -g[1], -g[2], -g[3] }
end

-- The rotor inertias (b.arm) on the diagonal of M (rows M[r][c], 1-based dofs): crba, the
-- derivatives' M. The runtime's mb_add_armature.
function J.add_armature(T, M)
  for _, b in ipairs(T) do
    for c = 1, b.arm ~= 0 and b.nv or 0 do
      local k = b.iv + c
      M[k][k] = M[k][k] + b.arm
    end
  end
end

-- τ += armature q̈ on the joint dofs (tau 1-based; qdd the input array's name, nil for zero).
function J.armature_torques(T, tau, qdd)
  for _, b in ipairs(T) do
    for c = 1, (b.arm ~= 0 and qdd) and b.nv or 0 do
      local k = b.iv + c
      tau[k] = tau[k] + b.arm * sym.input(qdd, k - 1)
    end
  end
end

-- Coulomb friction's sign(v) made linear inside the band: v / max(|v|, 10⁻³), |v| as fmax(v, −v)
-- (exact, no overflow); passive_forces, joint_regressor (runtime/mb.h mb_coulomb_sign,
-- MB_COULOMB_BAND).
J.COULOMB_BAND = 1e-3
function J.coulomb_sign(v) return v / sym.fmax(sym.fmax(v, -v), J.COULOMB_BAND) end

-- Its derivative d/dv: 1 / band inside |v| < band, 0 outside and on its edge (runtime
-- mb_coulomb_sign_dv). With m = max(|v|, band), (m − |v|) / max(band − |v|, 10⁻³⁰) is exactly
-- 1 inside (x / x; band − |v| > 0 is far above 10⁻³⁰ in float and double) and exactly 0 outside.
function J.coulomb_sign_dv(v)
  local a = sym.fmax(v, -v)
  local m = sym.fmax(a, J.COULOMB_BAND)
  return (m - a) / sym.fmax(J.COULOMB_BAND - a, 1e-30) * (1 / J.COULOMB_BAND)
end

-- sym.name the entries of vector x as sym_body_0, sym_body_1, ...
function J.name(x, symbol, b) return sp.name(x, symbol .. "_" .. b.name) end

-- The n × n matrix A (rows A[r][c], 1-based) into the output array `name`, row-major.
function J.output_matrix(name, A, n)
  for r = 1, n do
    for c = 1, n do sym.output(name, n * (r - 1) + c - 1, A[r][c]) end
  end
end

return J
