-- loop_derivatives.lua — the derivatives of the closed-loop forward dynamics: the recipe
-- fd_loops_derivatives (runtime/loop_derivatives.c computes the same; docs/derivatives.md
-- "Closed loops" has the derivation).
--
-- fd_loops solves M q̈ − Kᵀλ = τ − h, K q̈ = −K̇v: the contact system with the loop rows for the
-- contact rows, every row active. Along x ∈ {q, v, τ}: M ∂q̈ − Kᵀ ∂λ = −∂R, K ∂q̈ = −∂c, with
-- R = rnea(q, v, q̈) − Kᵀλ − τ at q̈, λ held, and c = K q̈ + K̇v = φ̈ at q̈ held. The graph
-- computes q̈ and λ (fd_loops.lua), ∂R and ∂c, M and K; the epilogue of the contact derivatives
-- (templates/c/epilogue_contact.lua, kind loop_derivatives) solves the system.
--
-- Every row is a scalar function of world vectors moving with the loop frame (on body a) and the
-- target frame (on body b): directions u = R e and the frames' origins. Each scalar is carried as
-- a jet: s, ṡ, s̈ along the motion, each with its gradient over (q, v) (sparse tables: key k for
-- q_k, nv + k for v_k, 1-based). A direction's jet comes from its frame's velocity and
-- acceleration derivatives (frame_derivatives.lua): u̇ = ω × u, ü = α × u + ω × u̇,
-- ∂u/∂q_k = ω_k × u; an origin's is the frame's (v_p, a_p). ∂c is the gradient of s̈. For ∂(Kᵀλ):
-- (Kᵀλ)_j = Σ_r λ_r ṡ_r at v = e_j, so its row j is the q-gradient of Σ_r λ_r ṡ_r in a pass of
-- the kinematics at the unit velocity e_j (a constant: most of it folds away).
local sp = import "spatial"
local J = import "joints"
local D = import "derivatives"
local FD = import "frame_derivatives"
local LP = import "loops"
local FL = import "fd_loops"

local LD = {}

local top, bottom = sp.top, sp.bottom

-- ---- jets ---------------------------------------------------------------------------------------

local function jet(s) return { c = { s or 0, 0, 0 }, g = { {}, {}, {} } } end

local function acc(t, j, x) t[j] = t[j] and t[j] + x or x end

-- out += k a b (Leibniz's rule on the three coefficients, the product rule on the gradients);
-- keys in order (the graph is built the same way every run).
local function mul_acc(out, k, a, b, nv)
  local a0, a1, a2, b0, b1, b2 = a.c[1], a.c[2], a.c[3], b.c[1], b.c[2], b.c[3]
  out.c[1] = out.c[1] + k * a0 * b0
  out.c[2] = out.c[2] + k * (a1 * b0 + a0 * b1)
  out.c[3] = out.c[3] + k * (a2 * b0 + 2 * a1 * b1 + a0 * b2)
  local o1, o2, o3 = out.g[1], out.g[2], out.g[3]
  for j = 1, 2 * nv do
    local x = a.g[1][j]
    if x then acc(o1, j, k * x * b0); acc(o2, j, k * x * b1); acc(o3, j, k * x * b2) end
    x = a.g[2][j]
    if x then acc(o2, j, k * x * b0); acc(o3, j, 2 * k * x * b1) end
    x = a.g[3][j]
    if x then acc(o3, j, k * x * b0) end
    x = b.g[1][j]
    if x then acc(o1, j, k * a0 * x); acc(o2, j, k * a1 * x); acc(o3, j, k * a2 * x) end
    x = b.g[2][j]
    if x then acc(o2, j, k * a0 * x); acc(o3, j, 2 * k * a1 * x) end
    x = b.g[3][j]
    if x then acc(o3, j, k * a0 * x) end
  end
end

local function axpy(out, k, a, nv)
  for i = 1, 3 do
    out.c[i] = out.c[i] + k * a.c[i]
    for j = 1, 2 * nv do
      if a.g[i][j] then acc(out.g[i], j, k * a.g[i][j]) end
    end
  end
end

local function dot(u, w, nv)
  local s = jet()
  for a = 1, 3 do mul_acc(s, 1, u[a], w[a], nv) end
  return s
end

local function vsub(p, q, nv)
  local d = {}
  for a = 1, 3 do
    d[a] = jet()
    axpy(d[a], 1, p[a], nv)
    axpy(d[a], -1, q[a], nv)
  end
  return d
end

-- θ = atan2(y, x): θ̇ = N/ρ, θ̈ = (x ÿ − y ẍ)/ρ − 2 N P/ρ² (N = x ẏ − y ẋ, P = x ẋ + y ẏ,
-- ρ = x² + y²), the gradients through the partial derivatives in the coefficients.
local function atan2_jet(y, x, nv)
  local x0, x1, x2, y0, y1, y2 = x.c[1], x.c[2], x.c[3], y.c[1], y.c[2], y.c[3]
  local r = x0 * x0 + y0 * y0
  local N, P, A = x0 * y1 - y0 * x1, x0 * x1 + y0 * y1, x0 * y2 - y0 * x2
  local r2 = r * r
  local r3 = r2 * r
  local d = {
    { -y0 / r, x0 / r },
    { y1 / r - 2 * N * x0 / r2, -x1 / r - 2 * N * y0 / r2, -y0 / r, x0 / r },
    { y2 / r - 2 * A * x0 / r2 - 2 * (y1 * P + N * x1) / r2 + 8 * N * P * x0 / r3,
      -x2 / r - 2 * A * y0 / r2 - 2 * (N * y1 - x1 * P) / r2 + 8 * N * P * y0 / r3,
      -2 * (N * x0 - y0 * P) / r2, -2 * (x0 * P + N * y0) / r2, -y0 / r, x0 / r },
  }
  local t = jet(sym.atan2(y0, x0))
  t.c[2], t.c[3] = N / r, A / r - 2 * N * P / r2
  for i = 1, 3 do
    for c = 1, i do
      local dx, dy = d[i][2 * c - 1], d[i][2 * c]
      for j = 1, 2 * nv do
        if x.g[c][j] then acc(t.g[i], j, dx * x.g[c][j]) end
        if y.g[c][j] then acc(t.g[i], j, dy * y.g[c][j]) end
      end
    end
  end
  return t
end

-- ---- the frames' moving vectors -----------------------------------------------------------------

-- One side of a loop at a pass of the kinematics: the body's rotation R (working → world), ω, α,
-- the frame's origin p, v_p, a_p and its columns (vel: ∂V/∂q, J; accl: ∂A/∂q, ∂A/∂v; nil at the
-- unit-velocity passes). The world (body 0) is fixed.
local function side_state(T, kin, body, r, key, accel)
  if body == 0 then
    local z = sp.zeros(3)
    return { R = { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, w = z, al = z, p = r, vp = z, ap = z,
             vel = { dq = {}, dv = {} }, accl = accel and { dq = {}, dv = {} } or nil }
  end
  local f = { body = body, X = { r = r } }
  local want = { dq = true, dv = true }
  local vel = FD.frame_columns(T, f, key, kin.V, kin.Acc, kin.dof, false, want, nil)
  local accl = accel and FD.frame_columns(T, f, key, kin.V, kin.Acc, kin.dof, true, want, nil)
  local v = (accl or vel).val
  return { R = v.R, w = v.w, al = v.al, p = v.p, vp = v.vp, ap = v.ap or sp.zeros(3), vel = vel,
           accl = accl }
end

-- The jet of the direction R c (c in the body's working coordinates).
local function dir_jet(st, c, nv)
  local x = sp.rot(st.R, c)
  local d = sp.cross(st.w, x)
  local dd = sp.add(sp.cross(st.al, x), sp.cross(st.w, d))
  local u = {}
  for a = 1, 3 do
    u[a] = jet(x[a])
    u[a].c[2], u[a].c[3] = d[a], st.accl and dd[a] or 0
  end
  for col = 0, nv - 1 do
    local Jc = st.vel.dv[col]
    if Jc then
      local k, Jw, dw = col + 1, top(Jc), top(st.vel.dq[col])
      local q0 = sp.cross(Jw, x)                                -- ∂u = ω_k × u
      local q1 = sp.add(sp.cross(dw, x), sp.cross(st.w, q0))    -- ∂u̇ = ∂ω × u + ω × ∂u
      local q2, v2
      if st.accl then
        local da, dav = top(st.accl.dq[col]), top(st.accl.dv[col])
        q2 = sp.add(sp.add(sp.cross(da, x), sp.cross(st.al, q0)), -- ∂ü = ∂α × u + α × ∂u
          sp.add(sp.cross(dw, d), sp.cross(st.w, q1)))            --   + ∂ω × u̇ + ω × ∂u̇
        v2 = sp.add(sp.add(sp.cross(dav, x), sp.cross(Jw, d)), sp.cross(st.w, q0))
      end
      for a = 1, 3 do
        local g = u[a].g
        g[1][k], g[2][k], g[2][nv + k] = q0[a], q1[a], q0[a]
        if q2 then g[3][k], g[3][nv + k] = q2[a], v2[a] end
      end
    end
  end
  return u
end

-- The jet of the frame's origin: p, v_p, a_p.
local function origin_jet(st, nv)
  local p = {}
  for a = 1, 3 do
    p[a] = jet(st.p[a])
    p[a].c[2], p[a].c[3] = st.vp[a], st.accl and st.ap[a] or 0
  end
  for col = 0, nv - 1 do
    local Jc = st.vel.dv[col]
    if Jc then
      local k, Jv, dv = col + 1, bottom(Jc), bottom(st.vel.dq[col])
      local aq = st.accl and bottom(st.accl.dq[col])
      local av = st.accl and bottom(st.accl.dv[col])
      for a = 1, 3 do
        local g = p[a].g
        g[1][k], g[2][k], g[2][nv + k] = Jv[a], dv[a], Jv[a]
        if aq then g[3][k], g[3][nv + k] = aq[a], av[a] end
      end
    end
  end
  return p
end

-- Row k of loop l as a jet, from its sides sa (loop frame) and sb (target frame).
local function row_jet(l, k, sa, sb, nv)
  local def = LP.ROWS[l.type][k]
  local kind = def[2]
  local function on(st, X, name) return dir_jet(st, sp.rotT(X.E, LP.loop_vec(l, name)), nv) end
  local d = vsub(origin_jet(sb, nv), origin_jet(sa, nv), nv)
  if kind == "d1" then return dot(on(sa, l.Xa, def[3]), on(sb, l.Xb, def[4]), nv) end
  if kind == "d2" then return dot(on(sa, l.Xa, def[3]), d, nv) end
  if kind == "ss" then
    local s = dot(d, d, nv)
    s.c[1] = s.c[1] - l.distance * l.distance
    return s
  end
  -- screw: axis · d − pitch θ, θ = atan2(u2 · u1', u1 · u1')
  local s = dot(on(sa, l.Xa, "axis"), d, nv)
  local b1 = on(sb, l.Xb, "u1")
  local th = atan2_jet(dot(on(sa, l.Xa, "u2"), b1, nv), dot(on(sa, l.Xa, "u1"), b1, nv), nv)
  axpy(s, -l.pitch, th, nv)
  return s
end

-- Every kept row's jet at a pass of the kinematics (kin: V, Acc, dof of FD.forward).
local function rows_at(model, T, kin, accel)
  local out, sides = {}, {}
  for r, c in ipairs(model.constraints) do
    local l = model.loops[c.loop]
    if not sides[c.loop] then
      local key = 1000 + 2 * c.loop
      sides[c.loop] = { side_state(T, kin, l.a, l.Xa.r, key, accel),
                        side_state(T, kin, l.b, l.Xb.r, key + 1, accel) }
    end
    out[r] = row_jet(l, c.row, sides[c.loop][1], sides[c.loop][2], model.nv)
  end
  return out
end

local function kinematics(T, qd, qdd)
  local V, Acc, dof = FD.forward(T, qd, qdd)
  return { V = V, Acc = Acc, dof = dof }
end

-- ---- the recipe ---------------------------------------------------------------------------------

local function build(model)
  if model.passive_in_fd then
    error("fd_loops_derivatives is not generated with --passive-in-fd yet (the runtime's "
      .. "reference has no passive forces)", 0)
  end
  local nv = model.nv
  local qdd, lambda = FL.solve(model, "fd_loops_derivatives")
  for k = 1, nv do qdd[k] = sym.name(qdd[k], "qdd_" .. (k - 1)) end
  for r = 1, #lambda do lambda[r] = sym.name(lambda[r], "lambda_" .. (r - 1)) end
  local qd, zero = {}, {}
  for k = 1, nv do qd[k], zero[k] = sym.input("v", k - 1), 0 end
  -- ∂R: the inverse dynamics' derivatives at (v, q̈), gravity as fd_loops'
  local dq, dv, M, _, T = D.rnea(model, qd, qdd, nil)
  J.add_armature(J.tree(model), M)
  -- ∂c (the gradient of s̈) and K (of s) at (v, q̈)
  local Cq, Cv, K = {}, {}, {}
  for r, s in ipairs(rows_at(model, T, kinematics(T, qd, qdd), true)) do
    Cq[r], Cv[r], K[r] = {}, {}, {}
    for k = 1, nv do
      Cq[r][k], Cv[r][k], K[r][k] = s.g[3][k] or 0, s.g[3][nv + k] or 0, s.g[1][k] or 0
    end
  end
  -- ∂(Kᵀλ)/∂q: row j the q-gradient of Σ_r λ_r ṡ_r at v = e_j
  for j = 1, nv do
    local e = {}
    for k = 1, nv do e[k] = k == j and 1 or 0 end
    for r, s in ipairs(rows_at(model, T, kinematics(T, e, zero), false)) do
      for k = 1, nv do
        local x = s.g[2][k]
        if x then dq[j][k] = dq[j][k] - lambda[r] * x end
      end
    end
  end
  for k = 1, nv do sym.output("qdd", k - 1, qdd[k]) end
  for r = 1, #lambda do sym.output("lambda", r - 1, lambda[r]) end
  J.output_matrix("dqdd_dq", dq, nv)
  J.output_matrix("dqdd_dv", dv, nv)
  J.output_matrix("dqdd_dtau", M, nv)
  D.output_rows("dlambda_dq", Cq, nv)
  D.output_rows("dlambda_dv", Cv, nv)
  D.output_rows("dlambda_dtau", K, nv)
end

-- The recipe of function name: fd_loops_derivatives (the registry: generator/lua/lua_recipes.c).
function LD.recipe(name)
  return {
    name = name,
    summary = "fd_loops and its derivatives: qdd and lambda as fd_loops'; dqdd_dq, dqdd_dv, "
      .. "dqdd_dtau (nv x nv) and dlambda_dq, dlambda_dv, dlambda_dtau (nc x nv), row-major; "
      .. "d/dq along the tangent space (column k: d/de at integrate(q, e_k, e))",
    returns = "int",
    params = { { name = "q", role = "q" }, { name = "v", role = "v" },
               { name = "tau", role = "tau" }, { name = "qdd", role = "out_nv" },
               { name = "lambda", role = "out_nc" },
               { name = "dqdd_dq", role = "out_nvnv" }, { name = "dqdd_dv", role = "out_nvnv" },
               { name = "dqdd_dtau", role = "out_nvnv" },
               { name = "dlambda_dq", role = "out_ncnv" },
               { name = "dlambda_dv", role = "out_ncnv" },
               { name = "dlambda_dtau", role = "out_ncnv" } },
    frame = "world",
    epilogue = "loop_derivatives",
    build = build,
  }
end

return LD
