-- cfa.lua — forward dynamics and the joint wrenches by the Constraint Force Algorithm
-- (Liu, Hu & Zhang, "Constraint force algorithm for tree-like multibody system dynamics",
-- Chinese Journal of Theoretical and Applied Mechanics 48(1), 2016, §2-3, eqs. 4, 16-44;
-- docs/cfa.md). Joint j transmits the wrench
-- w_j = S_j x_j + T_j F_S,j with x_j = (S_jᵀ S_j)⁻¹ τ_j and F_S the constraint forces. With f0
-- the body forces of the RNEA's forward pass at q̈ = 0 (I a0 + v ×* I v), the relative
-- accelerations z = Pᵀ I⁻¹ (P w − f0) (three sparse sweeps) must lie in span S:
-- A F_S = −Tᵀ z(S x), A = Tᵀ Pᵀ I⁻¹ P T, its blocks constants in the frames fixed in the bodies
-- (cfa_blocks.lua), factored block by block in the elimination order model.cfa (tips or
-- odd-even, computed with its fill by the generator; cfa_ldl.lua).
local sp = import "spatial"
local J = import "joints"
local rnea = import "rnea"
local CB = import "cfa_blocks"
local LDL = import "cfa_ldl"
local PF = import "passive_forces"

local C = {
  name = "cfa",
  summary = "forward dynamics and joint wrenches by the constraint force algorithm",
  returns = "int",
  params = {
    { name = "q", role = "q" },
    { name = "v", role = "v" },
    { name = "tau", role = "tau" },
    { name = "qdd", role = "out_nv" },
    { name = "wrench", role = "out_wrench" },
  },
}

-- (Sᵀ S)⁻¹ y: the identity but for a helical joint's column [e_k; h e_k].
local function gram_solve(b, y)
  if b.nv ~= 1 then return y end
  local g = sp.dot(b.S[1], b.S[1])
  return g == 1 and y or { y[1] / g }
end

function C.build(model)
  -- the forward pass at q̈ = 0: iXλ and the body forces f0
  local T, X, _, f0 = rnea.forward(model, "v", nil)
  local G, Tc, x, F0, tau = {}, {}, {}, {}, PF.fd_tau(model) -- tau: --passive-in-fd
  for _, b in ipairs(T) do
    local i = b.i
    G[i], Tc[i] = CB.inverse_inertia(b.I), J.T(b)
    f0[i] = J.name(f0[i], "f0", b)
    x[i] = gram_solve(b, tau and { table.unpack(tau, b.iv + 1, b.iv + b.nv) } or J.read(b, "tau"))
    F0[i] = J.S_mv(b, x[i])
  end
  -- the right-hand side b_j = −T_jᵀ z_j(S x), in the body frames
  local z0, rhs = CB.sweeps(T, X, G, F0, f0), {}
  for _, b in ipairs(T) do
    rhs[b.i] = { body = {} }
    for l, t in ipairs(Tc[b.i]) do
      rhs[b.i].body[l] = sym.name(-sp.dot(t, z0[b.i]), "A_b_" .. b.name .. "_" .. (l - 1))
    end
  end
  -- Ã F̃_S = b̃: the frames, the constant blocks, factor, solve (F_S back in the body frames)
  local F = CB.frames(T, Tc, model.cfa.hubs)
  local S = CB.assemble(T, G, F, model.cfa.blocks)
  local fac = LDL.factor(F, S, model.cfa.steps)
  local FS = LDL.solve(F, fac, model.cfa.steps, rhs)
  -- w = S x + T F_S;  z = Pᵀ I⁻¹ (P w − f0);  q̈_j = (Sᵀ S)⁻¹ Sᵀ z_j
  local W = {}
  for _, b in ipairs(T) do
    local w = F0[b.i]
    for l, t in ipairs(Tc[b.i]) do w = sp.add(w, sp.scale(t, FS[b.i][l])) end
    W[b.i] = J.name(w, "w", b)
  end
  local z = CB.sweeps(T, X, G, W, f0, "alpha")
  for k = 0, 5 do sym.output("wrench", k, 0) end
  for _, b in ipairs(T) do
    local qdd = gram_solve(b, J.ST(b, z[b.i]))
    for c = 1, b.nv do sym.output("qdd", b.iv + c - 1, qdd[c]) end
    for k, w in ipairs(J.wrench_out(b, W[b.i])) do
      sym.output("wrench", 6 * b.i + k - 1, w)
    end
  end
end

return C
