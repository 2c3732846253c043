-- rnea_ext.lua — inverse dynamics with external wrenches: the RNEA with
-- f_i = I_i a_i + v_i ×* I_i v_i − fext_i, fext_i given in body i's original frame.
local rnea = import "rnea"

return {
  name = "rnea_ext",
  summary = "inverse dynamics with external wrenches: tau = M a + C v + g - sum J_i^T fext_i",
  returns = "void",
  frames = true, -- world-aligned variants (--frame, reference.lua)
  params = {
    { name = "q", role = "q" },
    { name = "v", role = "v" },
    { name = "a", role = "a" },
    { name = "fext", role = "fext" },
    { name = "tau", role = "out_nv" },
  },
  build = function(model)
    local tau = rnea.passes(model, "v", "a", "fext")
    for k = 1, model.nv do sym.output("tau", k - 1, tau[k]) end
  end,
}
