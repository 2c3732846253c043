-- fk.lua — forward kinematics: every body's world pose (R body → world, row-major; origin p).
local sp = import "spatial"
local J = import "joints"

return {
  name = "fk",
  summary = "forward kinematics: world pose (R row-major, p) of every body",
  returns = "void",
  params = {
    { name = "q", role = "q" },
    { name = "pose", role = "out_pose" },
  },
  build = function(model)
    local X0 = { [0] = sp.identity() }
    for k = 0, 11 do sym.output("pose", k, (k < 9 and k % 4 == 0) and 1 or 0) end
    for i, b in ipairs(J.tree(model)) do
      -- iX0 = iXλ λX0 = XJ (XT λX0)
      X0[i] = sp.compose(J.Xup(b), X0[b.parent])
      X0[i].E = J.name(X0[i].E, "E0", b)
      X0[i].r = J.name(X0[i].r, "r0", b)
      -- the original frame: R_world←orig = R_world←working Yo, same origin
      local Rw, p = J.pose(b, X0[i])
      for k = 1, 9 do sym.output("pose", 12 * i + k - 1, Rw[k]) end
      for k = 1, 3 do sym.output("pose", 12 * i + 8 + k, p[k]) end
    end
  end,
}
