-- loops.lua — the rows of the loop (cut) joints (docs/loops.md; the runtime's runtime/loops.c
-- computes the same rows): every row is one of Haug's basic constraints on the loop frame (on
-- body a) and the target frame (on body b), a scalar function of world vectors that move with
-- the bodies. A moving vector carries its value u, u̇, ü at q̈ = 0 and, per body, the "wrench
-- terms" of its velocity map; a row s = u · w gets its value, its covectors g_a, g_b (φ̇ = g_a · v_a
-- + g_b · v_b, body spatial velocities in working-frame coordinates) and s̈ at q̈ = 0.
local sp = import "spatial"
local J = import "joints"
local rnea = import "rnea"

local L = {}

-- The row catalogue: name, kind, the vectors used (loop-frame names).
local REV = { { "x", "d2", "x" }, { "y", "d2", "y" }, { "z", "d2", "z" },
              { "tilt1", "d1", "u1", "axis" }, { "tilt2", "d1", "u2", "axis" } }
local SPH = { { "x", "d2", "x" }, { "y", "d2", "y" }, { "z", "d2", "z" } }
L.ROWS = {
  revolute = REV,
  continuous = REV,
  prismatic = { { "tilt1", "d1", "u1", "axis" }, { "tilt2", "d1", "u2", "axis" },
                { "twist", "d1", "u1", "u2" }, { "slide1", "d2", "u1" }, { "slide2", "d2", "u2" } },
  helical = { { "tilt1", "d1", "u1", "axis" }, { "tilt2", "d1", "u2", "axis" },
              { "slide1", "d2", "u1" }, { "slide2", "d2", "u2" }, { "screw", "screw" } },
  spherical = SPH,
  s = SPH,
  fixed = { { "x", "d2", "x" }, { "y", "d2", "y" }, { "z", "d2", "z" },
            { "tilt1", "d1", "x", "z" }, { "tilt2", "d1", "y", "z" }, { "twist", "d1", "x", "y" } },
  planar = { { "tilt1", "d1", "u1", "axis" }, { "tilt2", "d1", "u2", "axis" },
             { "normal", "d2", "axis" } },
  cylindrical = { { "tilt1", "d1", "u1", "axis" }, { "tilt2", "d1", "u2", "axis" },
                  { "slide1", "d2", "u1" }, { "slide2", "d2", "u2" } },
  -- Haug's universal joint: the origins together, axis (on a) ⟂ axis2 (on b, the target frame)
  universal = { { "x", "d2", "x" }, { "y", "d2", "y" }, { "z", "d2", "z" },
                { "cross", "d1", "axis", "axis2" } },
  d1 = { { "d1", "d1", "axis", "axis2" } },
  d2 = { { "d2", "d2", "axis" } },
  ss = { { "ss", "ss" } },
}

-- u1: the coordinate axis least aligned with a (the first of equals) made orthogonal to a;
-- u2 = a × u1 (numbers: the axis is a constant of the model).
local function perp(a)
  local k = 1
  for j = 2, 3 do if math.abs(a[j]) < math.abs(a[k]) then k = j end end
  local u1, n = {}, 0
  for j = 1, 3 do
    u1[j] = (j == k and 1 or 0) - a[k] * a[j]
    n = n + u1[j] * u1[j]
  end
  n = math.sqrt(n)
  for j = 1, 3 do u1[j] = u1[j] / n end
  return u1, sp.cross(a, u1)
end

local function loop_vec(l, name)
  if name == "x" then return { 1, 0, 0 } end
  if name == "y" then return { 0, 1, 0 } end
  if name == "z" then return { 0, 0, 1 } end
  if name == "axis" then return { l.axis[1], l.axis[2], l.axis[3] } end
  if name == "axis2" then return { l.axis2[1], l.axis2[2], l.axis2[3] } end
  local u1, u2 = perp(l.axis)
  return name == "u1" and u1 or u2
end

-- A loop function of a model without a constraint row is an error (its arrays would be empty).
function L.require_loops(model, name)
  if model.nc == 0 then
    error(name .. " needs a model with loop joints ('loop' statements); this one has none", 0)
  end
end

-- ---- the bodies' world kinematics -------------------------------------------------------------

-- K.R[i] (working frame → world), K.p[i]; with qd: K.w, K.vo (world), K.al, K.ao (world, q̈ = 0,
-- no gravity) and K.v[i] (body spatial velocity, working frame).
function L.kinematics(model, qd)
  local T = J.tree(model)
  local X0 = { [0] = sp.identity() }
  local K = { T = T, X = {}, R = { [0] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 } }, p = { [0] = sp.zeros(3) } }
  for _, b in ipairs(T) do
    local i = b.i
    K.X[i] = J.Xup(b)
    X0[i] = sp.compose(K.X[i], X0[b.parent])
    K.R[i] = sp.transpose3(X0[i].E)
    K.p[i] = X0[i].r
  end
  if qd then
    local _, _, v, _, wd, ac = rnea.forward(model, qd, nil)
    local g = J.gravity(model)
    K.v = v
    K.w, K.vo, K.al, K.ao = { [0] = sp.zeros(3) }, { [0] = sp.zeros(3) }, { [0] = sp.zeros(3) },
      { [0] = sp.zeros(3) }
    for _, b in ipairs(T) do
      local i, R = b.i, K.R[b.i]
      -- the RNEA's a_c carries a0 = −gravity: the body's classical acceleration is a_c + E g
      local acn = sp.add(ac[i], sp.rot(X0[i].E, { g[1], g[2], g[3] }))
      K.w[i] = sp.rot(R, { v[i][1], v[i][2], v[i][3] })
      K.vo[i] = sp.rot(R, { v[i][4], v[i][5], v[i][6] })
      K.al[i] = sp.rot(R, wd[i])
      K.ao[i] = sp.rot(R, acn)
    end
  end
  return K
end

-- ---- moving vectors and rows ------------------------------------------------------------------

-- c (working-frame coordinates of body i) as a direction, or as a point when point is true.
local function mvec_body(K, i, side, c, point, bias)
  local R = K.R[i]
  local rho = sp.rot(R, c)
  local x = { u = point and sp.add(K.p[i], rho) or rho, terms = {} }
  -- a direction keeps its body coordinates: a force along it needs no rotation into the body
  if not point then x.body, x.cb = i, c end
  if i > 0 then x.terms[1] = { side = side, body = i, c = c, point = point, sign = 1 } end
  if bias and i > 0 then
    local wr = sp.cross(K.w[i], rho)
    x.du = point and sp.add(K.vo[i], wr) or wr
    local dd = sp.add(sp.cross(K.al[i], rho), sp.cross(K.w[i], wr))
    x.ddu = point and sp.add(K.ao[i], dd) or dd
  elseif bias then
    x.du, x.ddu = sp.zeros(3), sp.zeros(3)
  end
  return x
end

local function mvec_sub(p, q)
  local d = { u = sp.sub(p.u, q.u), terms = {} }
  if p.du then d.du, d.ddu = sp.sub(p.du, q.du), sp.sub(p.ddu, q.ddu) end
  for _, t in ipairs(p.terms) do d.terms[#d.terms + 1] = t end
  for _, t in ipairs(q.terms) do
    d.terms[#d.terms + 1] = { side = t.side, body = t.body, c = t.c, point = t.point,
                              sign = -t.sign }
  end
  return d
end

-- The covector of w · x through x's terms: the wrench of "force" w at ρ = R c, in body
-- coordinates: n = Rᵀ (ρ × w) = c × Rᵀw, f = Rᵀw (a point; 0 for a direction), with Rᵀw taken
-- from w's own body coordinates when w is a direction on the same body.
local function add_covector(K, g, x, wv)
  for _, t in ipairs(x.terms) do
    local wb = (wv.cb and wv.body == t.body) and wv.cb or sp.rotT(K.R[t.body], wv.u)
    local n = sp.cross(t.c, wb)
    local f = t.point and wb or sp.zeros(3)
    local o = 6 * t.side
    for k = 1, 3 do
      g[o + k] = g[o + k] + t.sign * n[k]
      g[o + 3 + k] = g[o + 3 + k] + t.sign * f[k]
    end
  end
end

local function dot_row(K, u, w, bias)
  local s = { val = sp.dot(u.u, w.u), g = sp.zeros(12) }
  add_covector(K, s.g, w, u)
  add_covector(K, s.g, u, w)
  if bias then
    s.dd = sp.dot(u.ddu, w.u) + 2 * sp.dot(u.du, w.du) + sp.dot(u.u, w.ddu)
  end
  return s
end

local function frame_vec(X, c) return sp.rotT(X.E, c) end

-- θ of a helical loop (atan2 of two d1 rows), its covector and θ̈ at q̈ = 0.
local function screw_angle(K, l, bias)
  local u1, u2 = perp(l.axis)
  local a1 = mvec_body(K, l.a, 0, frame_vec(l.Xa, u1), false, bias)
  local a2 = mvec_body(K, l.a, 0, frame_vec(l.Xa, u2), false, bias)
  local b1 = mvec_body(K, l.b, 1, frame_vec(l.Xb, u1), false, bias)
  local x, y = dot_row(K, a1, b1, bias), dot_row(K, a2, b1, bias)
  local rho = x.val * x.val + y.val * y.val
  local th = { val = sym.atan2(y.val, x.val), g = {} }
  for j = 1, 12 do th.g[j] = (x.val * y.g[j] - y.val * x.g[j]) / rho end
  if bias then
    local xd, yd = L.apply(K, l, x.g), L.apply(K, l, y.g)
    local num = x.val * yd - y.val * xd
    th.dd = (x.val * y.dd - y.val * x.dd) / rho - 2 * num * (x.val * xd + y.val * yd) / (rho * rho)
  end
  return th
end

-- g · [v_a; v_b] with the bodies' spatial velocities.
function L.apply(K, l, g)
  local s = 0
  for side, i in ipairs({ l.a, l.b }) do
    if i > 0 then
      for k = 1, 6 do s = s + g[6 * (side - 1) + k] * K.v[i][k] end
    end
  end
  return s
end

-- Row k of loop l: { val, g (12: g_a then g_b), dd (with bias) }.
function L.row(K, l, k, bias)
  local def = L.ROWS[l.type][k]
  local kind = def[2]
  local pa = mvec_body(K, l.a, 0, l.Xa.r, true, bias)
  local pb = mvec_body(K, l.b, 1, l.Xb.r, true, bias)
  local d = mvec_sub(pb, pa)
  if kind == "d1" then
    local u = mvec_body(K, l.a, 0, frame_vec(l.Xa, loop_vec(l, def[3])), false, bias)
    local w = mvec_body(K, l.b, 1, frame_vec(l.Xb, loop_vec(l, def[4])), false, bias)
    return dot_row(K, u, w, bias)
  elseif kind == "d2" then
    local u = mvec_body(K, l.a, 0, frame_vec(l.Xa, loop_vec(l, def[3])), false, bias)
    return dot_row(K, u, d, bias)
  elseif kind == "ss" then
    local s = dot_row(K, d, d, bias)
    s.val = s.val - l.distance * l.distance
    return s
  end
  -- screw: a · d − h θ
  local u = mvec_body(K, l.a, 0, frame_vec(l.Xa, loop_vec(l, "axis")), false, bias)
  local s, th = dot_row(K, u, d, bias), screw_angle(K, l, bias)
  s.val = s.val - l.pitch * th.val
  if bias then s.dd = s.dd - l.pitch * th.dd end
  for j = 1, 12 do s.g[j] = s.g[j] - l.pitch * th.g[j] end
  return s
end

-- Every kept row, in order: { loop = l, val, g, dd }.
function L.rows(model, K, bias)
  local out = {}
  for r, c in ipairs(model.constraints) do
    local l = model.loops[c.loop]
    out[r] = L.row(K, l, c.row, bias)
    out[r].loop = l
    out[r].name = l.name .. "." .. L.ROWS[l.type][c.row][1]
  end
  return out
end

-- K's row: the generalized force of the wrenches g_a on a and g_b on b, carried to the root
-- (K_rk = S_kᵀ kX*_x g_x). Returns a table of nv entries (1-based).
function L.jacobian_row(model, K, row)
  local Kr = sp.zeros(model.nv)
  for side, i in ipairs({ row.loop.a, row.loop.b }) do
    local f = {}
    for k = 1, 6 do f[k] = row.g[6 * (side - 1) + k] end
    while i > 0 do
      local b = K.T[i]
      for c, x in ipairs(J.ST(b, f)) do Kr[b.iv + c] = Kr[b.iv + c] + x end
      f = sp.XT_fv(K.X[i], f)
      i = b.parent
    end
  end
  return Kr
end

-- For loop_derivatives.lua: a row's loop-frame vectors by name (u1, u2: perp of the axis).
L.loop_vec = loop_vec

return L
