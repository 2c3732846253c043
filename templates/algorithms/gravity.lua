-- gravity.lua — the gravity torques g(q): the RNEA with q̇ = q̈ = 0.
local rnea = import "rnea"

return {
  name = "gravity",
  summary = "gravity torques: g(q)",
  returns = "void",
  frames = true, -- world-aligned variants (--frame, reference.lua)
  params = {
    { name = "q", role = "q" },
    { name = "g", role = "out_nv" },
  },
  build = function(model)
    local g = rnea.passes(model, nil, nil)
    for k = 1, model.nv do sym.output("g", k - 1, g[k]) end
  end,
}
