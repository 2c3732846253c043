-- nle_ext.lua — the bias forces with external wrenches, h − Σ J_iᵀ fext_i: the RNEA with q̈ = 0
-- (rnea_ext.lua's fext convention).
local rnea = import "rnea"

return {
  name = "nle_ext",
  summary = "bias forces with external wrenches: h = C(q, v) v + g(q) - sum J_i^T fext_i",
  returns = "void",
  frames = true, -- world-aligned variants (--frame, reference.lua)
  params = {
    { name = "q", role = "q" },
    { name = "v", role = "v" },
    { name = "fext", role = "fext" },
    { name = "h", role = "out_nv" },
  },
  build = function(model)
    local h = rnea.passes(model, "v", nil, "fext")
    for k = 1, model.nv do sym.output("h", k - 1, h[k]) end
  end,
}
