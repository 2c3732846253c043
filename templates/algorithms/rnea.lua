-- rnea.lua — inverse dynamics by the recursive Newton-Euler algorithm (ALGORITHMS.md §1; seed 003
-- §4, eqs. 4.1-4.2). R.passes is shared with rnea_ext, nle, gravity and joint_wrenches.
local sp = import "spatial"
local J = import "joints"

local R = {
  name = "rnea",
  summary = "inverse dynamics: tau = M(q) a + C(q, v) v + g(q)",
  returns = "void",
  params = {
    { name = "q", role = "q" },
    { name = "v", role = "v" },
    { name = "a", role = "a" },
    { name = "tau", role = "out_nv" },
  },
}

-- Both passes with q̇, q̈ and fext read from the named inputs (nil: zero). Returns τ (1-based
-- over the dofs) and the joint wrenches f_i in the working frames.
function R.passes(model, qd, qdd, fext)
  local T = J.tree(model)
  local X, v, a, f = {}, { [0] = sp.zeros(6) }, { [0] = J.a0(model) }, {}
  for _, b in ipairs(T) do
    local i, p = b.i, b.parent
    X[i] = J.Xup(b)
    -- vJ = S q̇;  v_i = iXλ v_λ + vJ
    local vJ = J.S_mv(b, J.read(b, qd))
    v[i] = J.name(sp.add(sp.X_mv(X[i], v[p]), vJ), "v", b)
    -- a_i = iXλ a_λ + S q̈ + v_i × vJ
    local aJ = sp.add(J.S_mv(b, J.read(b, qdd)), sp.crm(v[i], vJ))
    a[i] = J.name(sp.add(sp.X_mv(X[i], a[p]), aJ), "a", b)
    -- f_i = I_i a_i + v_i ×* I_i v_i − fext_i
    f[i] = sp.newton_euler(b.I, a[i], v[i])
    if fext then f[i] = sp.sub(f[i], J.fext(b, fext)) end
  end
  local tau = {}
  for i = #T, 1, -1 do
    local b = T[i]
    -- τ_i = S_iᵀ f_i;  f_λ += λX*_i f_i
    f[i] = J.name(f[i], "f", b)
    for c, x in ipairs(J.ST(b, f[i])) do tau[b.iv + c] = x end
    if b.parent > 0 then f[b.parent] = sp.add(f[b.parent], sp.XT_fv(X[i], f[i])) end
  end
  return tau, f
end

function R.build(model)
  local tau = R.passes(model, "v", "a")
  for k = 1, model.nv do sym.output("tau", k - 1, tau[k]) end
end

return R
