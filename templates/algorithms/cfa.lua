-- cfa.lua — forward dynamics and the joint wrenches by the Constraint Force Algorithm
-- (ALGORITHMS.md §4; seed 000 §2-3, eqs. 4, 16-44). Every joint transmits w_j = f_j(bias) + F_j,
-- f_j(bias) the RNEA joint wrench at q̈ = 0 and F_j = S_j x_j + T_j F_S,j with x_j =
-- (S_jᵀ S_j)⁻¹ F_T,j, F_T = τ − b known and F_S the constraint forces. The relative
-- accelerations z = Pᵀ I⁻¹ P F (three sparse sweeps) must lie in span S:  A F_S = −Tᵀ z(S x),
-- A = Tᵀ Pᵀ I⁻¹ P T, assembled only where it is not zero and factored block by block in the
-- elimination order model.cfa (tips or odd-even, computed with its fill by the generator).
local sp = import "spatial"
local J = import "joints"
local rnea = import "rnea"
local CB = import "cfa_blocks"

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
  -- the bias pass: b = rnea(q, v, 0), keeping f(bias), the joint wrenches at q̈ = 0
  local T, X, _, f = rnea.forward(model, "v", nil)
  local bias = rnea.backward(T, X, f)
  local G, Tc, nt, x = {}, {}, {}, {}
  for _, b in ipairs(T) do
    local i = b.i
    G[i], Tc[i] = CB.inverse_inertia(b.I), J.T(b)
    nt[i] = #Tc[i]
    -- x = (Sᵀ S)⁻¹ F_T,  F_T = τ − b
    local FT = {}
    for c = 1, b.nv do FT[c] = sym.input("tau", b.iv + c - 1) - bias[b.iv + c] end
    x[i] = J.name(gram_solve(b, FT), "FT", b)
  end
  -- the right-hand side: rhs_j = −T_jᵀ z_j(S x)
  local F0 = {}
  for _, b in ipairs(T) do F0[b.i] = J.S_mv(b, x[b.i]) end
  local z0, rhs = CB.sweeps(T, X, G, F0), {}
  for _, b in ipairs(T) do
    rhs[b.i] = {}
    for l, t in ipairs(Tc[b.i]) do
      rhs[b.i][l] = sym.name(-sp.dot(t, z0[b.i]), "A_b_" .. b.name .. "_" .. (l - 1))
    end
  end
  -- A F_S = rhs: assemble, factor, solve
  local A = CB.assemble(T, G, Tc, nt, model.cfa.blocks)
  local fac = CB.factor(T, A, nt, model.cfa.steps)
  local FS = CB.solve(fac, nt, model.cfa.steps, rhs)
  -- F = S x + T F_S;  z = Pᵀ I⁻¹ P F;  q̈_j = (Sᵀ S)⁻¹ Sᵀ z_j;  w_j = f_j(bias) + F_j
  local F = {}
  for _, b in ipairs(T) do
    local Fi = J.S_mv(b, x[b.i])
    for l, t in ipairs(Tc[b.i]) do Fi = sp.add(Fi, sp.scale(t, FS[b.i][l])) end
    F[b.i] = J.name(Fi, "F", b)
  end
  local z = CB.sweeps(T, X, G, F, "alpha")
  for k = 0, 5 do sym.output("wrench", k, 0) end
  for _, b in ipairs(T) do
    local qdd = gram_solve(b, J.ST(b, z[b.i]))
    for c = 1, b.nv do sym.output("qdd", b.iv + c - 1, qdd[c]) end
    for k, w in ipairs(J.wrench_out(b, sp.add(f[b.i], F[b.i]))) do
      sym.output("wrench", 6 * b.i + k - 1, w)
    end
  end
end

return C
