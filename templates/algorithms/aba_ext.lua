-- aba_ext.lua — forward dynamics with external wrenches by the articulated-body algorithm
-- (aba.lua): the bias forces at q̈ = 0 less each body's external wrench, fext_i given at the body's
-- origin in its original frame, as rnea_ext takes them.
local aba = import "aba"
local rnea = import "rnea"
local PF = import "passive_forces"
local CP = import "coupled"

return {
  name = "aba_ext",
  summary = "forward dynamics with external wrenches: qdd = M^-1 (tau - h + sum J_i^T fext_i)",
  returns = "int",
  frames = true, -- world-aligned variants (--frame, reference.lua)
  params = {
    { name = "q", role = "q" },
    { name = "v", role = "v" },
    { name = "tau", role = "tau" },
    { name = "fext", role = "fext" },
    { name = "qdd", role = "out_nv" },
  },
  build = function(model)
    if model.coupling then return CP.forward(model, "fext") end -- coupled joints: coupled.lua
    local T, X, _, pA, _, _, pe = rnea.forward(model, "v", nil, "fext")
    local jt, u = aba.backward(T, X, pA, nil, pe, PF.fd_tau(model))
    local qdd = aba.forward(T, X, jt, u, "da")
    for _, b in ipairs(T) do
      for k = 1, b.nv + b.nm do sym.output("qdd", b.iv + k - 1, qdd[b.i][k]) end
    end
  end,
}
