-- reference.lua — the working tree in world-aligned frames (--frame joint, com or world;
-- docs/frames.md). Kang & Yoon ("On the Improvement of a Fully Recursive Formulation for the
-- Dynamic Analysis of Multibody Systems", KSME International Journal, 2003) compare three points
-- at which a body's velocities and forces can be taken, all in world-aligned components: the
-- joint point, the centroid and the instantaneous global origin. Here every body i gets the frame
-- F_i with the world's axes and its origin o_i at
--   joint  the body's joint point p_i (the origin of its working frame),
--   com    its centre of mass (p_i for a massless body),
--   world  the world's origin,
-- and the recipes run unchanged on the tree this returns: spatial vectors are geometric objects,
-- so v_i = iXλ v_λ + S q̇, a_i = iXλ a_λ + S q̈ + v_i × S q̇, f_i = I_i a_i + v_i ×* I_i v_i and
-- τ_i = S_iᵀ f_i hold in any frames, the body's or these. What changes is where the work is:
--   iXλ     a translation by o_i − o_λ (none at all for world), instead of a rotation and an
--           offset;
--   S_i     q-dependent: [R s_ω; R s_v + d × R s_ω] for a body-frame column [s_ω; s_v], R the
--           working frame's orientation, d = p_i − o_i;
--   I_i     q-dependent: the body's inertia about its centre of mass rotated to the world,
--           R Ic Rᵀ, and moved to o_i (at the centre of mass it stays block diagonal);
--   Yo      the original body frame → F_i (wrenches in and out); Xw, the working frame → F_i;
-- and the orientations R_i and points p_i are carried down the tree, one rotation product per
-- joint. A body of the returned tree also has Xf (its iXλ, returned by J.Xup; with rn, a number
-- bounding the length of its offset, where there is one) and per column of S the squared norms
-- w2, v2 of its parts (bounds where exact would take a square root), for the pivot references
-- (J.base_references).
local sp = import "spatial"
local REF = {}

REF.POINTS = { joint = true, com = true, world = true }

local ID = { 1, 0, 0, 0, 1, 0, 0, 0, 1 }

local mul3, mv, mtv, cross = sp.mat3_mul, sp.rot, sp.rotT, sp.cross

-- A Bᵀ
local function mul3T(A, B) return mul3(A, sp.transpose3(B)) end

local function dot3(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end

-- K(c) = |c|² 1 − c cᵀ (= −c× c×) as {xx, yy, zz, xy, xz, yz}: the rotational inertia of a unit
-- mass at c about the origin.
local function K(c)
  local x, y, z = c[1], c[2], c[3]
  return { y * y + z * z, x * x + z * z, x * x + y * y, -(x * y), -(x * z), -(y * z) }
end

-- R S Rᵀ of a symmetric S {xx, yy, zz, xy, xz, yz}: A = R S, then the six entries of A Rᵀ.
local function congruence(R, S)
  local A = mul3(R, { S[1], S[4], S[5], S[4], S[2], S[6], S[5], S[6], S[3] })
  local function e(i, j)
    return A[3 * i + 1] * R[3 * j + 1] + A[3 * i + 2] * R[3 * j + 2] + A[3 * i + 3] * R[3 * j + 3]
  end
  return { e(0, 0), e(1, 1), e(2, 2), e(0, 1), e(0, 2), e(1, 2) }
end

-- The orientation (working frame → world components) and origin of body b's working frame from
-- its parent's, through the factors of iXλ (each (E, r): E to the next frame's coordinates, r
-- its origin in the current one), the one a motion vector meets first (the last) first.
local function pose(Rp, pp, X)
  local factors = X.prod and X or { X }
  local R, p = Rp, pp
  for k = #factors, 1, -1 do
    local F = factors[k]
    p = sp.add(p, mv(R, F.r))
    R = mul3T(R, F.E)
  end
  return R, p
end

-- The body's constant parts: mass, centre of mass c and rotational inertia about it, Ic (working
-- frame), computed here in double precision from the 10-number inertia at the origin.
local function central(I)
  local m = I[1]
  local c = m ~= 0 and { I[2] / m, I[3] / m, I[4] / m } or { 0, 0, 0 }
  local Kc, Ic = K(c), {}
  for k = 1, 6 do Ic[k] = I[4 + k] - m * Kc[k] end
  return m, c, Ic
end

-- The 10-number inertia I at the body's origin (body axes) seen from o = p − d in world axes,
-- without dividing by the mass (the run-time parameters' may be anything): with h' = R h the
-- first moment about p, ∫ K(d + r) dm = m K(d) + R Ī Rᵀ + 2 (d · h') 1 − d h'ᵀ − h' dᵀ.
local function shifted(I, R, d)
  local m, h = I[1], mv(R, { I[2], I[3], I[4] })
  local Ip, Kd, dh = congruence(R, { I[5], I[6], I[7], I[8], I[9], I[10] }), K(d), dot3(d, h)
  local cross_terms = { 2 * dh - 2 * d[1] * h[1], 2 * dh - 2 * d[2] * h[2], 2 * dh - 2 * d[3] * h[3],
                        -(d[1] * h[2] + h[1] * d[2]), -(d[1] * h[3] + h[1] * d[3]),
                        -(d[2] * h[3] + h[2] * d[3]) }
  local out = { m, m * d[1] + h[1], m * d[2] + h[2], m * d[3] + h[3] }
  for k = 1, 6 do out[4 + k] = Ip[k] + m * Kd[k] + cross_terms[k] end
  return out
end

-- The squared norms of a column's parts in F_i: |R s_ω|² = |s_ω|²; the linear part R (s_v −
-- c × s_ω) at the centre of mass has the norm of s_v − c × s_ω, at the joint that of s_v; at the
-- world's origin R s_v + p × R s_ω, bounded by (|s_v| + |p| |s_ω|)², |p|² symbolic.
local function norms(point, s, c, p)
  local w, v = { s[1], s[2], s[3] }, { s[4], s[5], s[6] }
  local w2 = dot3(w, w)
  if point == "joint" then return w2, dot3(v, v) end
  if point == "com" then
    local u = sp.sub(v, cross(c, w))
    return w2, dot3(u, u)
  end
  if w2 == 0 then return w2, dot3(v, v) end
  local v1 = math.sqrt(dot3(v, v))
  local p2 = dot3(p, p)
  -- (|s_v| + |p| |s_ω|)² ≤ 2 |s_v|² + 2 |p|² |s_ω|²: no square root of the symbolic |p|²
  if v1 == 0 then return w2, p2 * w2 end
  return w2, 2 * (v1 * v1) + 2 * p2 * w2
end

-- The working tree T (J.tree's, body frames) re-expressed in F_i for `point` ("joint", "com" or
-- "world"); Xup(b) is the body-frame iXλ of a tree body. A new tree per call: its entries are
-- symbolic values of the function being built.
function REF.tree(T, point, Xup)
  local W, Rw, P, O = {}, { [0] = ID }, { [0] = { 0, 0, 0 } }, { [0] = { 0, 0, 0 } }
  local Cn = { [0] = 0 } -- |c|, the distance of each body's centre of mass from its joint point
  for i, b0 in ipairs(T) do
    local b = {}
    for k, x in pairs(b0) do b[k] = x end
    local p0 = b0.parent
    local R, p = pose(Rw[p0], P[p0], Xup(b0))
    R, p = sp.name(R, "R_" .. b.name), sp.name(p, "p_" .. b.name)
    Rw[i], P[i] = R, p
    local o, d, c, m
    if b0.params then -- run-time parameters (joints.lua): no division by the mass
      if point == "com" then error("reference.lua: --frame com with run-time parameters") end
      o = point == "world" and { 0, 0, 0 } or p
      d = sp.sub(p, o)
      b.I, m, c = shifted(b0.I, R, d), b0.I[1], { 0, 0, 0 }
    else
      local Ic
      m, c, Ic = central(b0.I)
      local Rc = mv(R, c)
      if point == "world" then o = { 0, 0, 0 }
      elseif point == "joint" or m == 0 then o = p
      else o = sp.name(sp.add(p, Rc), "o_" .. b.name) end
      d = sp.sub(p, o)                                 -- p_i − o_i
      local cw = point == "com" and { 0, 0, 0 } or sp.add(d, Rc) -- the centre of mass from o_i
      local Icw, Kw = congruence(R, Ic), K(cw)
      local I = { m, m * cw[1], m * cw[2], m * cw[3] }
      for k = 1, 6 do I[4 + k] = Icw[k] + m * Kw[k] end
      b.I = I
    end
    O[i] = o
    b.I = sp.name(b.I, "I_" .. b.name)
    b.J = sp.second_moment(b.I)
    b.S, b.Sb, b.R, b.d = {}, b0.S, R, d -- Sb, R, d: S's factors (REF.project)
    for k, s in ipairs(b0.S) do
      local w = mv(R, { s[1], s[2], s[3] })
      local v = sp.add(mv(R, { s[4], s[5], s[6] }), cross(d, w))
      local col = sp.name({ w[1], w[2], w[3], v[1], v[2], v[3] }, "S" .. (k - 1) .. "_" .. b.name)
      col.w2, col.v2 = norms(point, s, c, p)
      b.S[k] = col
    end
    -- iXλ: F_λ → F_i, the axes kept, the origin moved by o_i − o_λ; rn, a bound of |o_i − o_λ|
    -- for the pivot references where a number is one: |p_i − p_λ| is the length of the body-frame
    -- offset when no joint translates it, and the centres of mass add their distances from p
    b.Xf = { E = ID, r = sp.sub(o, O[p0]) }
    local r0 = sp.origin(Xup(b0))
    if not (sym.is_symbolic(r0[1]) or sym.is_symbolic(r0[2]) or sym.is_symbolic(r0[3])) then
      local rn = math.sqrt(dot3(r0, r0))
      if point == "world" then rn = 0
      elseif point == "com" then rn = rn + math.sqrt(dot3(c, c)) + (Cn[p0] or 0) end
      b.Xf.rn = rn
    end
    Cn[i] = m ~= 0 and math.sqrt(dot3(c, c)) or 0
    -- the original body frame → F_i: Yo, then the working frame → F_i (E = R, the origin o_i in
    -- working coordinates Rᵀ (o_i − p_i))
    b.Xw = { E = R, r = mtv(R, sp.sub(o, p)) }
    b.Yo = sp.product(b.Xw, b0.Yo)
    W[i] = b
  end
  return W
end

-- S_cᵀ x for every column c of body b of REF.tree's tree, a force x in F_b: x moved to the joint
-- and turned into the body's frame, n' = Rᵀ (n − d × f), f' = Rᵀ f (f' only where a column
-- translates), then [s_ω; s_v]ᵀ [n'; f'] with the body-frame columns (constants: mostly picks).
-- 27 to 42 operations for all of them, against 11 a column for the dot products with S's columns:
-- the cheaper from three columns up (a spherical or floating joint).
function REF.project(b, x)
  local n, f = { x[1], x[2], x[3] }, { x[4], x[5], x[6] }
  local lin = false
  for _, s in ipairs(b.Sb) do lin = lin or s[4] ~= 0 or s[5] ~= 0 or s[6] ~= 0 end
  local nb = mtv(b.R, sp.sub(n, cross(b.d, f)))
  local fb = lin and mtv(b.R, f) or { 0, 0, 0 }
  local y = {}
  for c, s in ipairs(b.Sb) do
    y[c] = s[1] * nb[1] + s[2] * nb[2] + s[3] * nb[3] + s[4] * fb[1] + s[5] * fb[2] + s[6] * fb[3]
  end
  return y
end

return REF
