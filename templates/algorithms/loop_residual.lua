-- loop_residual.lua — the position residual φ(q) of the loop joints' independent rows
-- (loops.lua; docs/loops.md): zero where every loop is closed.
local L = import "loops"

return {
  name = "loop_residual",
  summary = "loop closure residual phi(q), one entry per independent constraint row",
  returns = "void",
  params = {
    { name = "q", role = "q" },
    { name = "phi", role = "out_nc" },
  },
  build = function(model)
    L.require_loops(model, "loop_residual")
    local K = L.kinematics(model, nil)
    for r, row in ipairs(L.rows(model, K, false)) do sym.output("phi", r - 1, row.val) end
  end,
}
