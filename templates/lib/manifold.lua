-- manifold.lua — the configuration manifold: integrate (q ⊕ v dt) and difference (q1 ⊖ q0, its
-- inverse), the recipes integrate and difference (the runtime's mb_integrate and mb_difference,
-- runtime/integrate.c, compute the same), and their Jacobians along the tangent spaces, the
-- recipes integrate_jacobians and difference_jacobians (mb_integrate_jacobians and
-- mb_difference_jacobians, runtime/manifold_jacobians.c; below, after build_difference). Scalars and modal coordinates add; a quaternion
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

-- Body b's joint coordinates c ⊖ a (its nv numbers).
local function body_log(b, a, c)
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
  return out
end

local function build_difference(model)
  for i = 1, model.nb do
    local b = model.bodies[i]
    local a = read("q0", b.iq, b.nq)
    local c = read("q1", b.iq, b.nq)
    local out = body_log(b, a, c)
    for k = 1, b.nv do sym.output("v", b.iv + k - 1, out[k]) end
    for k = 1, (b.nm or 0) do
      sym.output("v", b.iv + b.nv + k - 1,
        sym.input("q1", b.iq + b.nq + k - 1) - sym.input("q0", b.iq + b.nq + k - 1))
    end
  end
end

-- ---- The Jacobians of integrate and difference along the tangent spaces ----------------------
-- (runtime/manifold_jacobians.c has the same formulas and where they come from: Solà, Deray and
-- Atchuthan, "A micro Lie theory for state estimation in robotics", 2018). Each joint's q is a
-- group element M moved on the right, M ⊕ τ = M Exp(τ): integrate's Jacobians are
-- Ad_{Exp(−τ)} (w.r.t. q) and Jr(τ) dt (w.r.t. v), τ = v dt; difference's, τ = q1 ⊖ q0, are
-- −Jr⁻¹(−τ) (w.r.t. q0) and Jr⁻¹(τ) (w.r.t. q1); scalars and modal coordinates 1, dt, −1, 1.
--
-- The coefficients of a rotation angle θ, a = sin θ/θ, b = (1 − cos θ)/θ², c = (θ − sin θ)/θ³,
-- d = (1 − (θ/2) cot(θ/2))/θ², k2 = (θ² + 2 cos θ − 2)/(2θ⁴), k3 = (2θ − 3 sin θ + θ cos θ)/(2θ⁵),
-- multiply terms that vanish only like θ (c, in SE(2) and SE(3)'s Q), so their closed forms,
-- which lose digits like 1/θ² to 1/θ⁴ to cancellation, would not do near 0, where TINY would
-- not save them either. Each is therefore its Taylor series below θ = 0.5 and its closed form
-- above, chosen without a branch: w = min(1, max(0, (θ − 0.5) 1e30)) is exactly 0 for θ ≤ 0.5
-- and exactly 1 above (the smallest θ − 0.5 > 0 times 1e30 is far above 1, in float too), the
-- series is evaluated at min(θ², 0.25) and the closed form at max(θ, 0.5), so both stay finite
-- and w · closed + (1 − w) · series is one of them exactly.
local SERIES_BELOW, STEP, NSER = 0.5, 1e30, 8

local function factorial(n)
  local r = 1.0
  for k = 2, n do r = r * k end
  return r
end

-- The Taylor series in θ² of each coefficient (runtime/manifold_jacobians.c's SER_*): a, b, c,
-- k2 = Σ (−1)ⁿ θ²ⁿ/(2n + 1, 2, 3, 4)!, k3 = Σ (−1)ⁿ (n + 1) θ²ⁿ/(2n + 5)!,
-- d = Σ |B₂ₙ₊₂| θ²ⁿ/(2n + 2)! (B the Bernoulli numbers).
local COEFFS = { "a", "b", "c", "d", "k2", "k3" }
local SER = { a = {}, b = {}, c = {}, d = {}, k2 = {}, k3 = {} }
local BERNOULLI = { 1 / 6, 1 / 30, 1 / 42, 1 / 30, 5 / 66, 691 / 2730, 7 / 6, 3617 / 510 }
for n = 0, NSER - 1 do
  local sg = n % 2 == 0 and 1 or -1
  SER.a[n + 1] = sg / factorial(2 * n + 1)
  SER.b[n + 1] = sg / factorial(2 * n + 2)
  SER.c[n + 1] = sg / factorial(2 * n + 3)
  SER.k2[n + 1] = sg / factorial(2 * n + 4)
  SER.k3[n + 1] = sg * (n + 1) / factorial(2 * n + 5)
  SER.d[n + 1] = BERNOULLI[n + 1] / factorial(2 * n + 2)
end

local function fmin(x, y) return -sym.fmax(-x, -y) end

-- The coefficients of the angle θ = √th2 (d only for θ < 2π).
local function lie_coeffs(th2)
  local th = sym.sqrt(th2)
  local w = sym.fmax(0, fmin(1, (th - SERIES_BELOW) * STEP))
  local x, tl = fmin(th2, SERIES_BELOW * SERIES_BELOW), sym.fmax(th, SERIES_BELOW)
  local sn, cs = sym.sincos(tl)
  local sh, ch = sym.sincos(0.5 * tl)
  local t2 = tl * tl
  local closed = { a = sn / tl, b = (1 - cs) / t2, c = (tl - sn) / (t2 * tl),
                   d = (1 - 0.5 * tl * ch / sh) / t2, k2 = (t2 + 2 * cs - 2) / (2 * t2 * t2),
                   k3 = (2 * tl - 3 * sn + tl * cs) / (2 * t2 * t2 * tl) }
  local k = {}
  for _, name in ipairs(COEFFS) do
    local s = SER[name]
    local r = s[NSER]
    for j = NSER - 1, 1, -1 do r = r * x + s[j] end
    k[name] = w * closed[name] + (1 - w) * r
  end
  return k
end

-- 3 × 3 matrices, row-major {9}.
local function hat(x) return { 0, -x[3], x[2], x[3], 0, -x[1], -x[2], x[1], 0 } end

local function mul3(A, B)
  local C = {}
  for r = 0, 2 do
    for c = 1, 3 do
      C[3 * r + c] = A[3 * r + 1] * B[c] + A[3 * r + 2] * B[3 + c] + A[3 * r + 3] * B[6 + c]
    end
  end
  return C
end

-- 1 + al φ× + be φ×²
local function so3_poly(phi, al, be)
  local P = hat(phi)
  local P2 = mul3(P, P)
  local out = {}
  for k = 1, 9 do out[k] = ((k - 1) % 4 == 0 and 1 or 0) + al * P[k] + be * P2[k] end
  return out
end

local function norm2(x) return x[1] * x[1] + x[2] * x[2] + x[3] * x[3] end

-- SE(3)'s block Q of Jr(ρ, φ): −½ ρ× + c (φ×ρ× + ρ×φ× − φ×ρ×φ×) − k2 (φ×²ρ× + ρ×φ×² − 3 φ×ρ×φ×)
-- + k3 (φ×ρ×φ×² + φ×²ρ×φ×).
local function se3_Q(rho, phi, k)
  local P, R = hat(phi), hat(rho)
  local PR, RP = mul3(P, R), mul3(R, P)
  local PRP = mul3(P, RP)
  local PPR, RPP = mul3(P, PR), mul3(RP, P)
  local PRPP, PPRP = mul3(PRP, P), mul3(P, PRP)
  local Q = {}
  for i = 1, 9 do
    Q[i] = -0.5 * R[i] + k.c * (PR[i] + RP[i] - PRP[i]) - k.k2 * (PPR[i] + RPP[i] - 3 * PRP[i])
      + k.k3 * (PRPP[i] + PPRP[i])
  end
  return Q
end

-- [A B; 0 A] (6 × 6, row-major {36}) from 3 × 3 blocks.
local function block6(A, B)
  local out = {}
  for r = 0, 2 do
    for c = 1, 3 do
      out[6 * r + c], out[6 * r + 3 + c] = A[3 * r + c], B[3 * r + c]
      out[6 * (r + 3) + c], out[6 * (r + 3) + 3 + c] = 0, A[3 * r + c]
    end
  end
  return out
end

local function scaled(A, s)
  local out = {}
  for k = 1, #A do out[k] = s * A[k] end
  return out
end

-- integrate's blocks of joint type `type` at its τ: Ad_{Exp(−τ)} and Jr(τ).
local function integrate_blocks(type, tau)
  if type == "spherical" then
    local k = lie_coeffs(norm2(tau))
    return so3_poly(tau, -k.a, k.b), so3_poly(tau, -k.b, k.c)
  elseif type == "floating" then
    local rho, phi = { tau[1], tau[2], tau[3] }, { tau[4], tau[5], tau[6] }
    local k = lie_coeffs(norm2(phi))
    local Et, V = so3_poly(phi, -k.a, k.b), so3_poly(phi, k.b, k.c)
    local t = {}
    for r = 0, 2 do
      t[r + 1] = V[3 * r + 1] * rho[1] + V[3 * r + 2] * rho[2] + V[3 * r + 3] * rho[3]
    end
    return block6(Et, scaled(mul3(Et, hat(t)), -1)), -- −Eᵀ t×
      block6(so3_poly(phi, -k.b, k.c), se3_Q(rho, phi, k))
  end
  -- planar: τ = [u1 u2 φ]
  local u1, u2, phi = tau[1], tau[2], tau[3]
  local k = lie_coeffs(phi * phi)
  local sn, cs = sym.sincos(phi)
  local bp, cp = k.b * phi, k.c * phi
  local p1, p2 = k.a * u1 + bp * u2, -bp * u1 + k.a * u2 -- R(φ)ᵀ t = R(φ)ᵀ V(φ) u
  return { cs, sn, -p2, -sn, cs, p1, 0, 0, 1 },
    { k.a, bp, cp * u1 - k.b * u2, -bp, k.a, k.b * u1 + cp * u2, 0, 0, 1 }
end

-- Jr⁻¹(τ) of joint type `type`.
local function jr_inv(type, tau)
  if type == "spherical" then
    return so3_poly(tau, 0.5, lie_coeffs(norm2(tau)).d)
  elseif type == "floating" then
    local rho, phi = { tau[1], tau[2], tau[3] }, { tau[4], tau[5], tau[6] }
    local k = lie_coeffs(norm2(phi))
    local Ji = so3_poly(phi, 0.5, k.d)
    return block6(Ji, scaled(mul3(mul3(Ji, se3_Q(rho, phi, k)), Ji), -1))
  end
  local u1, u2, phi = tau[1], tau[2], tau[3]
  local k = lie_coeffs(phi * phi)
  local g, h = 1 - k.d * (phi * phi), 0.5 * phi
  local x, y = k.c * phi * u1 - k.b * u2, k.b * u1 + k.c * phi * u2 -- Jr's third column
  return { g, -h, -(g * x - h * y), h, g, -(h * x + g * y), 0, 0, 1 }
end

local LIE = { spherical = true, floating = true, planar = true }

-- Write the nv × nv block-diagonal `name` from blocks {at (0-based), n, B (n × n) or nil for the
-- identity, s (a factor)}; every other entry 0.
local function write_blocks(name, nv, blocks)
  local at = {}
  for _, x in ipairs(blocks) do for r = 0, x.n - 1 do at[x.at + r] = x end end
  for r = 0, nv - 1 do
    local x = at[r]
    for c = 0, nv - 1 do
      local e = 0
      if x and c >= x.at and c < x.at + x.n then
        local i, j = r - x.at, c - x.at
        e = x.s * (x.B and x.B[x.n * i + j + 1] or (i == j and 1 or 0))
      end
      sym.output(name, nv * r + c, e)
    end
  end
end

local function build_integrate_jacobians(model)
  local dt = sym.input("dt", 0)
  local bq, bv = {}, {}
  for i = 1, model.nb do
    local b = model.bodies[i]
    local Bq, Bv
    if LIE[b.type] then
      local tau = read("v", b.iv, b.nv)
      for k = 1, b.nv do tau[k] = tau[k] * dt end
      Bq, Bv = integrate_blocks(b.type, tau)
    end
    if b.nv > 0 then
      bq[#bq + 1] = { at = b.iv, n = b.nv, B = Bq, s = 1 }
      bv[#bv + 1] = { at = b.iv, n = b.nv, B = Bv, s = dt }
    end
    if (b.nm or 0) > 0 then -- modal coordinates: 1 and dt 1
      bq[#bq + 1] = { at = b.iv + b.nv, n = b.nm, s = 1 }
      bv[#bv + 1] = { at = b.iv + b.nv, n = b.nm, s = dt }
    end
  end
  write_blocks("Jq", model.nv, bq)
  write_blocks("Jv", model.nv, bv)
end

local function build_difference_jacobians(model)
  local b0, b1 = {}, {}
  for i = 1, model.nb do
    local b = model.bodies[i]
    local B0, B1
    if LIE[b.type] then
      local tau = body_log(b, read("q0", b.iq, b.nq), read("q1", b.iq, b.nq))
      B0, B1 = jr_inv(b.type, scaled(tau, -1)), jr_inv(b.type, tau)
    end
    if b.nv > 0 then
      b0[#b0 + 1] = { at = b.iv, n = b.nv, B = B0, s = -1 }
      b1[#b1 + 1] = { at = b.iv, n = b.nv, B = B1, s = 1 }
    end
    if (b.nm or 0) > 0 then -- modal coordinates subtract: −1 and 1
      b0[#b0 + 1] = { at = b.iv + b.nv, n = b.nm, s = -1 }
      b1[#b1 + 1] = { at = b.iv + b.nv, n = b.nm, s = 1 }
    end
  end
  write_blocks("J0", model.nv, b0)
  write_blocks("J1", model.nv, b1)
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
  integrate_jacobians = {
    summary = "the Jacobians of integrate along the tangent spaces: Jq = d(q + v dt)/dq, Jv = "
      .. "d(q + v dt)/dv (dt included), nv x nv, block-diagonal (Pinocchio's dIntegrate)",
    params = { { name = "q", role = "q" }, { name = "v", role = "v" }, { name = "dt", role = "dt" },
               { name = "Jq", role = "out_nvnv" }, { name = "Jv", role = "out_nvnv" } },
    build = build_integrate_jacobians,
  },
  difference_jacobians = {
    summary = "the Jacobians of difference along the tangent spaces: J0 = d(q1 - q0)/dq0, J1 = "
      .. "d(q1 - q0)/dq1, nv x nv, block-diagonal (Pinocchio's dDifference)",
    params = { { name = "q0", role = "q" }, { name = "q1", role = "q2" },
               { name = "J0", role = "out_nvnv" }, { name = "J1", role = "out_nvnv" } },
    build = build_difference_jacobians,
  },
}

-- The recipe of function name: integrate, difference, integrate_jacobians, difference_jacobians
-- (the registry: generator/lua/lua_recipes.c).
function C.recipe(name)
  local r = recipes[name]
  return { name = name, summary = r.summary, returns = "void", params = r.params, build = r.build }
end

return C
