-- loop_jacobian.lua — the constraint Jacobian K(q) of the loop joints' independent rows
-- (loops.lua; docs/loops.md): K v = dφ/dt, row-major P_NC × P_NV.
local L = import "loops"

return {
  name = "loop_jacobian",
  summary = "loop constraint Jacobian K(q), row-major NC x NV: K v is the velocity error",
  returns = "void",
  params = {
    { name = "q", role = "q" },
    { name = "K", role = "out_ncnv" },
  },
  build = function(model)
    L.require_loops(model, "loop_jacobian")
    local K = L.kinematics(model, nil)
    for r, row in ipairs(L.rows(model, K, false)) do
      local Kr = L.jacobian_row(model, K, row)
      for k = 1, model.nv do sym.output("K", (r - 1) * model.nv + k - 1, Kr[k]) end
    end
  end,
}
