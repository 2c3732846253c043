-- manifold.lua — the configuration manifold: integrate (q ⊕ v dt) and difference (q1 ⊖ q0, its
-- inverse), the recipes integrate and difference (the runtime's mb_integrate and mb_difference,
-- runtime/integrate.c, compute the same). Scalars and modal coordinates add; a quaternion
-- [x y z w] (w last) turns by exp(φ) in its child frame (q ⊗ exp(v dt)), renormalized; a floating
-- joint [p; quat] moves by the SE(3) exponential of its body twist (u, φ) = (v_lin dt, ω dt):
-- p' = p + R V(φ) u, V(φ) = 1 + A φ× + B φ×², A = (1 − cos θ)/θ², B = (θ − sin θ)/θ³; a planar
-- joint [x y θ] by the same exponential in its plane (SE(2), φ = ω dt about the normal, u =
-- [v_u v_w] dt: φ× u = φ J u, J the quarter turn, φ×² u = −φ² u), θ' = θ + φ.
--
-- The generated code has no branches, so the formulas are the ones that stay finite and accurate
-- at θ = 0 without the runtime's Taylor branches: sin(θ/2)/θ and A = 2 (sin(θ/2)/θ)² are written
-- with θ + TINY below, B and the logarithm's C = (sin h − h cos h)/(4 h² sin h) (h = θ/2) with
-- TINY added to their denominators. TINY = 1e-30 (a normal number in float too) is below every
-- denominator whose numerator is not rounded to zero; each term it touches is then O(θ²) smaller
-- than the quantity it is added to, so the error stays within rounding of |u| and |q|.
local C = {}

local TINY = 1e-30

local function cross(a, b)
  return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] }
end

-- a ⊗ b, quaternions [x y z w].
local function qmul(a, b)
  return { a[4] * b[1] + a[1] * b[4] + a[2] * b[3] - a[3] * b[2],
           a[4] * b[2] - a[1] * b[3] + a[2] * b[4] + a[3] * b[1],
           a[4] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[4],
           a[4] * b[4] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3] }
end

-- R (row-major, child → parent) of the quaternion q/|q|.
local function qrot(q)
  local x, y, z, w = q[1], q[2], q[3], q[4]
  local s = 2 / (x * x + y * y + z * z + w * w)
  return { 1 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y),
           s * (x * y + w * z), 1 - s * (x * x + z * z), s * (y * z - w * x),
           s * (x * z - w * y), s * (y * z + w * x), 1 - s * (x * x + y * y) }
end

local function read(name, at, n)
  local x = {}
  for k = 1, n do x[k] = sym.input(name, at + k - 1) end
  return x
end

-- quat ⊗ exp(φ), normalized; also θ = |φ| and s = sin(θ/2)/θ.
local function quat_step(q, phi)
  local th = sym.sqrt(phi[1] * phi[1] + phi[2] * phi[2] + phi[3] * phi[3])
  local sn, cs = sym.sincos(th * 0.5)
  local s = sn / (th + TINY)
  local r = qmul(q, { s * phi[1], s * phi[2], s * phi[3], cs })
  local inv = 1 / sym.sqrt(r[1] * r[1] + r[2] * r[2] + r[3] * r[3] + r[4] * r[4])
  return { r[1] * inv, r[2] * inv, r[3] * inv, r[4] * inv }, th, s
end

-- The coefficients A = 2 (sin(θ/2)/θ)² and B = (θ − sin θ)/θ³ of V(φ), θ = |φ| (a vector φ or,
-- for a planar joint, its one component).
local function exp_coeffs(th)
  local sn = sym.sin(th * 0.5) / (th + TINY)
  return 2 * sn * sn, (th - sym.sin(th)) / (th * th * th + TINY)
end

-- planar q = [x y θ] ⊕ (u, φ): [x y] + R(θ) V(φ) u, V(φ) u = u + A φ J u − B φ² u, J u = [−u₂ u₁].
local function planar_step(q, u, phi)
  local A, B = exp_coeffs(sym.sqrt(phi * phi))
  local Ap, Bp = A * phi, B * (phi * phi)
  local t1, t2 = u[1] - Ap * u[2] - Bp * u[1], u[2] + Ap * u[1] - Bp * u[2]
  local sn, cs = sym.sincos(q[3])
  return { q[1] + cs * t1 - sn * t2, q[2] + sn * t1 + cs * t2, q[3] + phi }
end

local function build_integrate(model)
  local dt = sym.input("dt", 0)
  for i = 1, model.nb do
    local b = model.bodies[i]
    local q = read("q", b.iq, b.nq)
    local v = read("v", b.iv, b.nv)
    local out
    if b.type == "spherical" then
      out = quat_step(q, { v[1] * dt, v[2] * dt, v[3] * dt })
    elseif b.type == "floating" then
      local u, phi = { v[1] * dt, v[2] * dt, v[3] * dt }, { v[4] * dt, v[5] * dt, v[6] * dt }
      local quat, th, s = quat_step({ q[4], q[5], q[6], q[7] }, phi)
      local A = 2 * s * s
      local sn = sym.sin(th)
      local B = (th - sn) / (th * th * th + TINY)
      local c1 = cross(phi, u)
      local c2 = cross(phi, c1)
      local t = {}
      for k = 1, 3 do t[k] = u[k] + A * c1[k] + B * c2[k] end
      local R = qrot({ q[4], q[5], q[6], q[7] })
      out = {}
      for k = 1, 3 do
        out[k] = q[k] + R[3 * k - 2] * t[1] + R[3 * k - 1] * t[2] + R[3 * k] * t[3]
      end
      for k = 1, 4 do out[3 + k] = quat[k] end
    elseif b.type == "planar" then
      out = planar_step(q, { v[1] * dt, v[2] * dt }, v[3] * dt)
    else
      out = {}
      for k = 1, b.nq do out[k] = q[k] + v[k] * dt end
    end
    for k = 1, b.nq do sym.output("q_out", b.iq + k - 1, out[k]) end
    for k = 1, (b.nm or 0) do -- modal coordinates: η + η̇ dt
      sym.output("q_out", b.iq + b.nq + k - 1,
        sym.input("q", b.iq + b.nq + k - 1) + sym.input("v", b.iv + b.nv + k - 1) * dt)
    end
  end
end

-- φ = log(a⁻¹ ⊗ b), the shorter rotation (|φ| ≤ π): θ = atan2(2 n w, w² − n²) wrapped to
-- (−π, π], φ = θ vec / n; also h = |θ|/2 = atan2(n, |w|) and |w| (for the SE(3) logarithm).
local function quat_log_rel(a, b)
  local r = qmul({ -a[1], -a[2], -a[3], a[4] }, b)
  local n = sym.sqrt(r[1] * r[1] + r[2] * r[2] + r[3] * r[3])
  local w = r[4]
  local th = sym.atan2(2 * n * w, w * w - n * n)
  local k = th / (n + TINY)
  return { k * r[1], k * r[2], k * r[3] }, sym.atan2(n, sym.sqrt(w * w))
end

-- planar q1 ⊖ q0: φ = θ1 − θ0 (not wrapped), u = V(φ)⁻¹ R(θ0)ᵀ (p1 − p0) with V⁻¹ u = u − ½ φ J u
-- − C φ² u, C = (1 − h cot h)/φ² = (sin h − h cos h)/(4 h² sin h), h = |φ|/2 (the SE(3) one's).
local function planar_log(a, c)
  local phi = c[3] - a[3]
  local h = sym.sqrt(phi * phi) * 0.5
  local sn, cs = sym.sincos(h)
  local Cc = (sn - h * cs) / (4 * h * h * sn + TINY)
  local s0, c0 = sym.sincos(a[3])
  local dx, dy = c[1] - a[1], c[2] - a[2]
  local t1, t2 = c0 * dx + s0 * dy, c0 * dy - s0 * dx
  local Cp = Cc * (phi * phi)
  return { t1 + 0.5 * phi * t2 - Cp * t1, t2 - 0.5 * phi * t1 - Cp * t2, phi }
end

local function build_difference(model)
  for i = 1, model.nb do
    local b = model.bodies[i]
    local a = read("q0", b.iq, b.nq)
    local c = read("q1", b.iq, b.nq)
    local out
    if b.type == "spherical" then
      out = quat_log_rel(a, c)
    elseif b.type == "floating" then
      local qa = { a[4], a[5], a[6], a[7] }
      local phi, h = quat_log_rel(qa, { c[4], c[5], c[6], c[7] })
      local sn, cs = sym.sincos(h)
      local Cc = (sn - h * cs) / (4 * h * h * sn + TINY)
      local R = qrot(qa)
      local d = { c[1] - a[1], c[2] - a[2], c[3] - a[3] }
      local t = {}
      for k = 1, 3 do t[k] = R[k] * d[1] + R[3 + k] * d[2] + R[6 + k] * d[3] end -- Rᵀ d
      local c1 = cross(phi, t)
      local c2 = cross(phi, c1)
      out = {}
      for k = 1, 3 do out[k], out[3 + k] = t[k] - 0.5 * c1[k] + Cc * c2[k], phi[k] end
    elseif b.type == "planar" then
      out = planar_log(a, c)
    else
      out = {}
      for k = 1, b.nq do out[k] = c[k] - a[k] end
    end
    for k = 1, b.nv do sym.output("v", b.iv + k - 1, out[k]) end
    for k = 1, (b.nm or 0) do
      sym.output("v", b.iv + b.nv + k - 1,
        sym.input("q1", b.iq + b.nq + k - 1) - sym.input("q0", b.iq + b.nq + k - 1))
    end
  end
end

local recipes = {
  integrate = {
    summary = "q_out = q + v dt on the configuration manifold: scalars add, a quaternion turns by "
      .. "exp(omega dt) in its child frame, a floating joint by the SE(3) exponential of its body "
      .. "twist (Pinocchio's integrate of v dt)",
    params = { { name = "q", role = "q" }, { name = "v", role = "v" }, { name = "dt", role = "dt" },
               { name = "q_out", role = "out_nq" } },
    build = build_integrate,
  },
  difference = {
    summary = "v = q1 - q0 on the configuration manifold, the inverse of integrate with dt = 1 "
      .. "(the shorter rotation, |phi| <= pi; Pinocchio's difference)",
    params = { { name = "q0", role = "q" }, { name = "q1", role = "q2" },
               { name = "v", role = "out_nv" } },
    build = build_difference,
  },
}

-- The recipe of function name: integrate, difference (the registry: generator/lua/lua_recipes.c).
function C.recipe(name)
  local r = recipes[name]
  return { name = name, summary = r.summary, returns = "void", params = r.params, build = r.build }
end

return C
