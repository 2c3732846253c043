-- rcr_pivots.lua — the pivot ratios of every selection of dependent coordinates of p_rcr
-- (rcr_variant.lua; docs/loops.md "Recursive coordinate reduction"): for selection s, dependent d
-- of a group (chain order), ratio[s · P_NC + k] = c_dᵀ R c_d / (|c_d|² + 1e-12 Σ_d' |c_d'|²) with
-- c_d the dependent's column of the group's rows and R the projector removing the columns
-- eliminated before it (from the chain's end), the same as the runtime's mb_rcr_pivots. p_rcr uses the first
-- selection whose smallest ratio is ≥ P_RCR_SWITCH (else the largest, if above P_PIVOT_EPS).
local L = import "loops"
local V = import "rcr_variant"

local F = {
  name = "rcr_pivots",
  summary = "the pivot ratios of p_rcr's selections of dependent coordinates",
  returns = "void",
  params = {
    { name = "q", role = "q" },
    { name = "ratio", role = "out_rcr" },
  },
}

function F.build(model)
  L.require_loops(model, "rcr_pivots")
  local W = V.setup(model)
  local k = 0
  for s, sel in ipairs(model.rcr.sel) do
    k = (s - 1) * model.nc
    for _, grp in ipairs(sel.groups) do
      local _, _, col = V.group_rows(W, grp)
      local _, piv, cc = V.project(grp, col, false)
      for d = 1, #grp.dep do
        sym.output("ratio", k, piv[d] / cc[d])
        k = k + 1
      end
    end
  end
end

return F
