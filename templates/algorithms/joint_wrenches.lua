-- joint_wrenches.lua — the wrench every joint transmits (Featherstone, "Rigid Body Dynamics
-- Algorithms", 2008, ch. 5): the RNEA's f_i after the backward pass, [torque; force] of the
-- parent on the child at the joint origin, returned in the original joint frame.
local J = import "joints"
local rnea = import "rnea"

return {
  name = "joint_wrenches",
  summary = "joint wrenches [torque; force] of parent on child, in each joint frame",
  returns = "void",
  frames = true, -- world-aligned variants (--frame, reference.lua)
  params = {
    { name = "q", role = "q" },
    { name = "v", role = "v" },
    { name = "a", role = "a" },
    { name = "wrench", role = "out_wrench" },
  },
  build = function(model)
    local _, f = rnea.passes(model, "v", "a")
    for k = 0, 5 do sym.output("wrench", k, 0) end
    for i, b in ipairs(J.tree(model)) do
      -- w_i = Yoᵀ f_i (working → original frame)
      for k, x in ipairs(J.wrench_out(b, f[i])) do sym.output("wrench", 6 * i + k - 1, x) end
    end
  end,
}
