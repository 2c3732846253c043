-- frame_pose.lua — every operational frame's world pose (R frame → world, row-major; origin p):
-- the frame's fixed transform on its body (model.frames, in the body's working frame) composed
-- with the body's world transform.
local sp = import "spatial"
local J = import "joints"

return {
  name = "frame_pose",
  summary = "world pose (R row-major, p) of every operational frame, P_FRAME_<name>",
  returns = "void",
  params = {
    { name = "q", role = "q" },
    { name = "pose", role = "out_frames" },
  },
  build = function(model)
    local X0 = { [0] = sp.identity() }
    for i, b in ipairs(J.tree(model)) do
      X0[i] = sp.compose(J.Xup(b), X0[b.parent]) -- iX0 = iXλ λX0
      X0[i].E = J.name(X0[i].E, "E0", b)
      X0[i].r = J.name(X0[i].r, "r0", b)
    end
    for k, f in ipairs(model.frames) do
      local X = sp.compose(f.X, X0[f.body]) -- fX0 = fXb bX0
      local R = sp.transpose3(X.E)
      for a = 1, 9 do sym.output("pose", 12 * (k - 1) + a - 1, R[a]) end
      for a = 1, 3 do sym.output("pose", 12 * (k - 1) + 8 + a, X.r[a]) end
    end
  end,
}
