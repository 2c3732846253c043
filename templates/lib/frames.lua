-- frames.lua — the operational frames' kinematics (frame_pose's frames, model.frames): the
-- recipes frame_jacobian, frame_jacobian_world, frame_velocity and frame_acceleration_bias are
-- its instances; the runtime's mb_frame_jacobian, mb_frame_velocity and mb_frame_acceleration_bias
-- (runtime/frames.c) compute the same.
--
-- Every body's world transform bX0 comes from the joints (working frames); a frame's is
-- fX0 = fXb bX0, its origin p_f = fX0.r in world coordinates. A dof's column in world Plücker
-- coordinates is 0Xj S (ω and the velocity of the point at the world origin); at the frame's origin
-- it is [ω; v_0 + ω × p_f]: the world-aligned Jacobian (Pinocchio's LOCAL_WORLD_ALIGNED but for
-- the row order [ω; v]); the local one is that rotated into the frame's axes (E of fX0). The
-- velocity and J̇v come from the Newton-Euler forward pass (rnea.lua) with q̈ = 0 and no gravity:
-- a body point r moves at v_o + ω × r and accelerates at a_c + U r (U = ω̇× + ω×ω×), rotated to
-- world axes.
local sp = import "spatial"
local J = import "joints"
local rnea = import "rnea"

local F = {}

-- Every body's world transform bX0 (1..nb) and the world's identity.
local function world(model)
  local T = J.tree(model)
  local X0 = { [0] = sp.identity() }
  for i, b in ipairs(T) do
    X0[i] = sp.compose(J.Xup(b), X0[b.parent]) -- iX0 = iXλ λX0
    X0[i].E = J.name(X0[i].E, "E0", b)
    X0[i].r = J.name(X0[i].r, "r0", b)
  end
  return T, X0
end

-- Frame k's world transform fX0 (E world → frame, r its origin in world coordinates).
local function frame_X0(f, X0, k)
  local X = sp.compose(f.X, X0[f.body])
  return { E = sp.name(X.E, "Ef_" .. (k - 1)), r = sp.name(X.r, "pf_" .. (k - 1)) }
end

-- frame_pose: R = Eᵀ (frame → world, row-major) and the origin, 12 per frame.
local function build_pose(model)
  local _, X0 = world(model)
  for k, f in ipairs(model.frames) do
    local X = sp.compose(f.X, X0[f.body])
    local R = sp.transpose3(X.E)
    for a = 1, 9 do sym.output("pose", 12 * (k - 1) + a - 1, R[a]) end
    for a = 1, 3 do sym.output("pose", 12 * (k - 1) + 8 + a, X.r[a]) end
  end
end

-- frame_jacobian (local) and frame_jacobian_world: 6 × NV per frame, row-major, rows [ω; v].
local function build_jacobian(model, localaxes)
  local T, X0 = world(model)
  local cols = {} -- per body: its dofs' world Plücker columns
  for i, b in ipairs(T) do
    local Xinv = sp.inverse(X0[i])
    cols[i] = {}
    for c = 1, b.nv do cols[i][c] = sp.name(sp.X_mv(Xinv, b.S[c]), "sw_" .. b.name .. "_" .. (c - 1)) end
  end
  local nv = model.nv
  for k, f in ipairs(model.frames) do
    local Xf = frame_X0(f, X0, k)
    local base = 6 * nv * (k - 1)
    local filled = {}
    local j = f.body
    while j > 0 do
      local b = T[j]
      for c = 1, b.nv do
        local s = cols[j][c]
        local w = { s[1], s[2], s[3] }
        local u = sp.add({ s[4], s[5], s[6] }, sp.cross(w, Xf.r))
        if localaxes then w, u = sp.rot(Xf.E, w), sp.rot(Xf.E, u) end
        local col = b.iv + c - 1
        filled[col] = true
        for a = 1, 3 do
          sym.output("J", base + nv * (a - 1) + col, w[a])
          sym.output("J", base + nv * (a + 2) + col, u[a])
        end
      end
      j = b.parent
    end
    for col = 0, nv - 1 do
      if not filled[col] then
        for r = 0, 5 do sym.output("J", base + nv * r + col, 0) end
      end
    end
  end
end

-- The forward pass at q̈ = 0 without gravity: body velocities, ω̇ and classical accelerations.
local function still_pass(model)
  local still = setmetatable({ gravity = { 0, 0, 0 } }, { __index = model })
  local T, X, v, _, wd, ac = rnea.forward(still, "v", nil)
  return T, X, v, wd, ac
end

-- frame_velocity ([ω; v of the origin], world axes) and frame_acceleration_bias (J̇v: [ω̇; the
-- classical acceleration of the origin] at q̈ = 0, world axes), 6 per frame.
local function build_motion(model, accel)
  local _, X0 = world(model)
  local _, _, v, wd, ac = still_pass(model)
  local out = accel and "acc" or "vel"
  for k, f in ipairs(model.frames) do
    local b, r = f.body, f.X.r
    local E = X0[b].E
    local w, x
    if b == 0 then
      w, x = sp.zeros(3), sp.zeros(3)
    elseif accel then
      w = wd[b]
      x = sp.add(ac[b], sp.mat3_mv(sp.U({ v[b][1], v[b][2], v[b][3] }, wd[b]), r))
    else
      w = { v[b][1], v[b][2], v[b][3] }
      x = sp.add({ v[b][4], v[b][5], v[b][6] }, sp.cross(w, r))
    end
    local ww, xw = sp.rotT(E, w), sp.rotT(E, x)
    for a = 1, 3 do
      sym.output(out, 6 * (k - 1) + a - 1, ww[a])
      sym.output(out, 6 * (k - 1) + a + 2, xw[a])
    end
  end
end

F.world, F.still_pass = world, still_pass

local recipes = {
  frame_pose = {
    summary = "world pose (R row-major, p) of every operational frame, P_FRAME_<name>",
    params = { { name = "q", role = "q" }, { name = "pose", role = "out_frames" } },
    build = build_pose,
  },
  frame_jacobian = {
    summary = "every operational frame's Jacobian, 6 x P_NV row-major per frame, rows [omega; v of "
      .. "its origin] in the frame's axes (Pinocchio's LOCAL, rows swapped)",
    params = { { name = "q", role = "q" }, { name = "J", role = "out_fjac" } },
    build = function(model) build_jacobian(model, true) end,
  },
  frame_jacobian_world = {
    summary = "every operational frame's Jacobian, 6 x P_NV row-major per frame, rows [omega; v of "
      .. "its origin] in world axes (Pinocchio's LOCAL_WORLD_ALIGNED, rows swapped)",
    params = { { name = "q", role = "q" }, { name = "J", role = "out_fjac" } },
    build = function(model) build_jacobian(model, false) end,
  },
  frame_velocity = {
    summary = "every operational frame's angular velocity and the velocity of its origin, world "
      .. "axes, 6 per frame: J v",
    params = { { name = "q", role = "q" }, { name = "v", role = "v" },
               { name = "vel", role = "out_fvec" } },
    build = function(model) build_motion(model, false) end,
  },
  frame_acceleration_bias = {
    summary = "every operational frame's angular acceleration and the classical acceleration of "
      .. "its origin at qdd = 0 (Jdot v, no gravity), world axes, 6 per frame",
    params = { { name = "q", role = "q" }, { name = "v", role = "v" },
               { name = "acc", role = "out_fvec" } },
    build = function(model) build_motion(model, true) end,
  },
}

-- The recipe of function name: frame_pose, frame_jacobian, ... (the registry:
-- generator/lua/lua_recipes.c).
function F.recipe(name)
  local r = recipes[name]
  return { name = name, summary = r.summary, returns = "void", params = r.params, build = r.build }
end

return F
