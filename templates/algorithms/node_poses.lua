-- node_poses.lua — the world pose of every node of the flexible bodies (R node → world,
-- row-major; position p), as runtime/flex_nodes.c: the body's pose composed with the node's
-- deflection (Jain & Rodriguez, "Recursive Dynamics for Flexible Multibody Systems Using Spatial
-- Operators", JPL Publication 90-26, 1990, §3): p = p_body + R_body (r + t η) and
-- R = R_body Rot(φ), φ = r_shape η, Rot(φ) the rotation of the quaternion (φ/2, 1) (exp(φ×) to
-- second order, a proper rotation for every φ).
local sp = import "spatial"
local J = import "joints"

-- Σ_c col[c][from..from+2] x[c], plus base
local function part(cols, from, x, base)
  local y = { base[1], base[2], base[3] }
  for c, col in ipairs(cols) do
    for a = 1, 3 do y[a] = y[a] + col[from + a - 1] * x[c] end
  end
  return y
end

-- The rotation of the quaternion (x, y, z, 1) / |.|, as runtime/spatial.c mbs_quat_to_rot.
local function rot_small(u)
  local x, y, z = u[1], u[2], u[3]
  local xx, yy, zz = x * x, y * y, z * z
  local s = 2 / (xx + yy + zz + 1)
  return { 1 - s * (yy + zz), s * (x * y - z), s * (x * z + y),
           s * (x * y + z), 1 - s * (xx + zz), s * (y * z - x),
           s * (x * z - y), s * (y * z + x), 1 - s * (xx + yy) }
end

return {
  name = "node_poses",
  summary = "world pose (R row-major, p) of every node of the flexible bodies",
  returns = "void",
  params = {
    { name = "q", role = "q" },
    { name = "pose", role = "out_nodes" },
  },
  build = function(model)
    local T, X0, pose = J.tree(model), { [0] = sp.identity() }, {}
    for i, b in ipairs(T) do
      X0[i] = sp.compose(J.Xup(b), X0[b.parent])
      X0[i].E = J.name(X0[i].E, "E0", b)
      X0[i].r = J.name(X0[i].r, "r0", b)
    end
    for k, n in ipairs(model.nodes) do
      local b = T[n.body]
      local Rw, p = J.pose(b, X0[n.body])
      local eta = J.read_modes(b, "q")
      local half = part(n.shape, 1, eta, { 0, 0, 0 })
      for a = 1, 3 do half[a] = half[a] * 0.5 end
      local Rd, x = rot_small(half), part(n.shape, 4, eta, n.r)
      for r = 1, 3 do
        for c = 1, 3 do
          local s = 0
          for m = 1, 3 do s = s + Rw[3 * (r - 1) + m] * Rd[3 * (m - 1) + c] end
          sym.output("pose", 12 * (k - 1) + 3 * (r - 1) + c - 1, s)
        end
        local y = p[r]
        for m = 1, 3 do y = y + Rw[3 * (r - 1) + m] * x[m] end
        sym.output("pose", 12 * (k - 1) + 8 + r, y)
      end
    end
  end,
}
