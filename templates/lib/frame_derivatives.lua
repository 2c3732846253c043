-- frame_derivatives.lua — the derivatives of the operational frames' velocity and acceleration:
-- the recipes frame_velocity_derivatives(_local) (∂V/∂q, ∂V/∂v = J of V = J v) and
-- frame_acceleration_derivatives(_local) (∂A/∂q, ∂A/∂v, ∂A/∂a = J of A = J a + J̇ v: the angular
-- acceleration and the classical acceleration of the origin, no gravity), in world axes or in the
-- frame's own; runtime/frame_derivatives.c computes the same and docs/derivatives.md ("Frame
-- kinematics derivatives") has the derivation.
--
-- Every body's quantities are taken in the world frame at the world's origin (the tree of
-- reference.lua's `world`, as derivatives.lua): a tangent step of dof c of joint k ⪯ b (b the
-- frame's body) turns every world 3-vector of the frame by ω_c × and changes b's spatial velocity
-- and acceleration intrinsically by Ψ̇_c = v_λ × S_c and Ψ̈_c + Ψ̇_c × v_b (Ψ̈_c = a_λ × S_c +
-- v_λ × Ψ̇_c); with P(x) = x_v + x_ω × p (a spatial vector's linear part at the frame's origin p),
-- ω, v_p = P(v_b), α and a_p = P(a_b) + ω × v_p:
--   ∂ω/∂q_c = ω_c × ω + Ψ̇_ω             ∂v_p/∂q_c = ω_c × v_p + P(Ψ̇)
--   ∂α/∂q_c = ω_c × α + y_ω              ∂a_p/∂q_c = ω_c × a_p + P(y) + Ψ̇_ω × v_p + ω × P(Ψ̇)
--   ∂α/∂v_c = z_ω                        ∂a_p/∂v_c = P(z) + S_ω × v_p + ω × P(S_c)
-- with y = Ψ̈_c + Ψ̇_c × v_b, z = A_c + S_c × v_b, A_c = Ψ̇_c + v_k × S_c; ∂V/∂v_c = ∂A/∂a_c =
-- [S_ω; P(S_c)]. In the frame's axes the ω_c × terms drop out (the axes turn with the frame) and
-- every column is rotated into them.
local sp = import "spatial"
local J = import "joints"
local D = import "derivatives"

local FD = {}

-- The world-frame forward pass without gravity (a frame's own acceleration): per body v and a,
-- per dof {S, Pd = Ψ̇, Pdd = Ψ̈, A} (derivatives.lua's kinematics).
local function forward(T, qd, qdd) return D.kinematics(T, qd, qdd, sp.zeros(6)) end

local top = sp.top

-- One frame's columns: a table of the outputs (keys dq, dv, da; only those in `want`), each a
-- list of 6-vectors by 0-based column (nil: zero), and val: the body's rotation R (working →
-- world), the frame's origin p, ω, v_p, α and (accel) a_p, world axes. accel: the
-- acceleration's, else the velocity's. E: the frame's rotation world → frame axes (nil: world
-- axes).
local function frame_columns(T, f, k, V, Acc, dof, accel, want, E)
  local b = T[f.body]
  local R, pb = b.R, b.d -- working → world, the body's origin (the world's point: d = p)
  local pf = sp.name(sp.add(pb, sp.rot(R, f.X.r)), "pf_" .. (k - 1))
  local vb, ab = V[b.i], Acc[b.i]
  local function P(x) return sp.add({ x[4], x[5], x[6] }, sp.cross(top(x), pf)) end
  local w, vp = top(vb), sp.name(P(vb), "vpf_" .. (k - 1))
  local al, ap = top(ab), nil
  if accel then ap = sp.name(sp.add(P(ab), sp.cross(w, vp)), "apf_" .. (k - 1)) end
  -- the column [x; y] (world axes), plus ω_c × [x0; y0] in world axes, into the frame's if E
  local function col(x, y, wc, x0, y0)
    if E then return sp.rot(E, x), sp.rot(E, y) end
    if wc then x, y = sp.add(x, sp.cross(wc, x0)), sp.add(y, sp.cross(wc, y0)) end
    return x, y
  end
  local out = { dq = {}, dv = {}, da = {},
                val = { R = R, p = pf, w = w, vp = vp, al = al, ap = ap } }
  local j = f.body
  while j > 0 do
    local bj = T[j]
    for c = 1, bj.nv do
      local d, at = dof[bj.iv + c], bj.iv + c - 1
      local S, Pd = d.S, d.Pd
      local wc, PS = top(S), P(S)
      local function put(key, x, y, r0, x0, y0)
        if not want[key] then return end
        local u, e = col(x, y, r0, x0, y0)
        out[key][at] = { u[1], u[2], u[3], e[1], e[2], e[3] }
      end
      if not accel then
        put("dq", top(Pd), P(Pd), wc, w, vp)
        put("dv", wc, PS)
      else
        local PP = P(Pd)
        local y = sp.add(d.Pdd, sp.crm(Pd, vb))
        put("dq", top(y), sp.add(sp.add(P(y), sp.cross(top(Pd), vp)), sp.cross(w, PP)), wc, al,
            ap)
        local z = sp.add(d.A, sp.crm(S, vb))
        put("dv", top(z), sp.add(sp.add(P(z), sp.cross(wc, vp)), sp.cross(w, PS)))
        put("da", wc, PS)
      end
    end
    j = bj.parent
  end
  return out
end

-- The recipe's build: outputs {key, name} (key dq, dv or da; in order) for every frame, 6 × NV
-- row-major each.
local function build(model, accel, localaxes, outputs)
  -- the working tree in the world frame at the origin, whatever the function's --frame
  local T = J.in_frames("world", function() return J.tree(model) end)
  local nv = model.nv
  local qd, qdd = {}, {}
  for k = 1, nv do
    qd[k] = sym.input("v", k - 1)
    qdd[k] = accel and sym.input("a", k - 1) or 0
  end
  local V, Acc, dof = forward(T, qd, qdd)
  local want = {}
  for _, o in ipairs(outputs) do want[o[1]] = true end
  for k, f in ipairs(model.frames) do
    local cols = {}
    if f.body > 0 then
      local E = nil
      if localaxes then
        E = sp.name(sp.mat3_mul(f.X.E, sp.transpose3(T[f.body].R)), "Ef_" .. (k - 1))
      end
      cols = frame_columns(T, f, k, V, Acc, dof, accel, want, E)
    end
    local base = 6 * nv * (k - 1)
    for _, o in ipairs(outputs) do
      local name, byc = o[2], cols[o[1]] or {}
      for c = 0, nv - 1 do
        local x = byc[c]
        for r = 0, 5 do sym.output(name, base + nv * r + c, x and x[r + 1] or 0) end
      end
    end
  end
end

local TANGENT = "; d/dq along the tangent space (column k: d/de at integrate(q, e_k, e))"
local V_PARAMS = { { name = "q", role = "q" }, { name = "v", role = "v" },
                   { name = "dvel_dq", role = "out_fjac" },
                   { name = "dvel_dv", role = "out_fjac" } }
local A_PARAMS = { { name = "q", role = "q" }, { name = "v", role = "v" },
                   { name = "a", role = "a" }, { name = "dacc_dq", role = "out_fjac" },
                   { name = "dacc_dv", role = "out_fjac" },
                   { name = "dacc_da", role = "out_fjac" } }
local V_OUT = { { "dq", "dvel_dq" }, { "dv", "dvel_dv" } }
local A_OUT = { { "dq", "dacc_dq" }, { "dv", "dacc_dv" }, { "da", "dacc_da" } }

local recipes = {
  frame_velocity_derivatives = {
    summary = "derivatives of every frame's velocity J v ([omega; v of its origin], world axes): "
      .. "dvel_dq and dvel_dv = J, 6 x P_NV row-major per frame" .. TANGENT,
    params = V_PARAMS,
    build = function(model) build(model, false, false, V_OUT) end,
  },
  frame_velocity_derivatives_local = {
    summary = "derivatives of every frame's velocity in its own axes (R^T J v): dvel_dq and "
      .. "dvel_dv = J (local), 6 x P_NV row-major per frame" .. TANGENT,
    params = V_PARAMS,
    build = function(model) build(model, false, true, V_OUT) end,
  },
  frame_acceleration_derivatives = {
    summary = "derivatives of every frame's acceleration J a + Jdot v ([omega dot; classical "
      .. "acceleration of its origin], world axes, no gravity): dacc_dq, dacc_dv and dacc_da = J, "
      .. "6 x P_NV row-major per frame" .. TANGENT,
    params = A_PARAMS,
    build = function(model) build(model, true, false, A_OUT) end,
  },
  frame_acceleration_derivatives_local = {
    summary = "derivatives of every frame's acceleration in its own axes (R^T (J a + Jdot v), "
      .. "classical): dacc_dq, dacc_dv and dacc_da = J (local), 6 x P_NV row-major per frame"
      .. TANGENT,
    params = A_PARAMS,
    build = function(model) build(model, true, true, A_OUT) end,
  },
}

-- For other recipes (contact_derivatives.lua): the world-frame forward pass without gravity and
-- one frame's columns, as above.
FD.forward, FD.frame_columns = forward, frame_columns

-- The recipe of function name (the registry: generator/lua/lua_recipes.c).
function FD.recipe(name)
  local r = recipes[name]
  return { name = name, summary = r.summary, returns = "void", params = r.params,
           frame = "world", build = r.build }
end

return FD
