-- nle.lua — the bias forces h = C(q, v) v + g(q): the RNEA with q̈ = 0.
local rnea = import "rnea"

return {
  name = "nle",
  summary = "bias forces: h = C(q, v) v + g(q)",
  returns = "void",
  frames = true, -- world-aligned variants (--frame, reference.lua)
  params = {
    { name = "q", role = "q" },
    { name = "v", role = "v" },
    { name = "h", role = "out_nv" },
  },
  build = function(model)
    local h = rnea.passes(model, "v", nil)
    for k = 1, model.nv do sym.output("h", k - 1, h[k]) end
  end,
}
