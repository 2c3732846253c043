-- hybrid_fixed.lua — hybrid dynamics with the mask fixed at generation (--prescribed JOINT,...:
-- every dof of those joints prescribed, the others free): hybrid.lua's arithmetic with m and f
-- as constants, so that the expression graph folds each dof to its side — a free dof's work is
-- the ABA's, a prescribed one's the articulated inertia passed on whole and its force, without
-- the run-time mask's blends (docs/analysis.md: the cost of both forms).
local H = import "hybrid"

local X = {
  name = "hybrid_fixed",
  summary = "hybrid dynamics with the dofs of the joints of --prescribed prescribed (qdd[k] = "
    .. "in[k] given, tau[k] computed) and the others free (tau[k] = in[k] given, qdd[k] computed)",
  returns = "int",
  frames = true,
  params = {
    { name = "q", role = "q" },
    { name = "v", role = "v" },
    { name = "in", role = "tau" },
    { name = "qdd", role = "out_nv" },
    { name = "tau", role = "out_nv" },
  },
}

function X.build(model)
  -- (refused before: without --prescribed, coupled joints, flexible bodies, --passive-in-fd)
  H.run(model, function(b, IA, R, pA, tau)
    local m = {}
    for c = 1, b.nv do m[c] = model.prescribed[b.iv + c] end
    return H.step(b, IA, R, pA, tau, m)
  end)
end

return X
