-- rnea.lua — inverse dynamics by the recursive Newton-Euler algorithm (Featherstone, "Rigid Body
-- Dynamics Algorithms", 2008, ch. 5; Jain & Rodriguez, "Recursive Dynamics for Flexible Multibody
-- Systems Using Spatial Operators", JPL Publication 90-26, 1990, §4, eqs. 4.1-4.2). R.forward
-- and R.backward are shared with rnea_ext, nle, gravity, joint_wrenches, crba_fd and aba.
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

local function top(x) return { x[1], x[2], x[3] } end
local function bottom(x) return { x[4], x[5], x[6] } end

-- The forward pass with q̇, q̈ and fext read from the named inputs (nil: zero). Returns the working
-- tree T, iXλ, v and the body forces f_i = I_i a_i + v_i ×* I_i v_i − fext_i (working frames),
-- then ω̇ and the classical acceleration a_c of every body origin (working frames).
-- Accelerations are carried as ω̇ and the classical acceleration a_c = a_v + ω × v of the origin,
-- with U = ω̇× + ω×ω× (a body point x accelerates as a_c + U x): linear velocities are then only
-- needed below a joint that translates.
function R.forward(model, qd, qdd, fext)
  local T = J.tree(model)
  local X, v, wd, ac, U, f = {}, { [0] = sp.zeros(6) }, { [0] = sp.zeros(3) }, {}, {}, {}
  ac[0], U[0] = bottom(J.a0(model)), sp.zeros(9)
  for _, b in ipairs(T) do
    local i, p = b.i, b.parent
    X[i] = J.Xup(b)
    -- vJ = S q̇;  v_i = iXλ v_λ + vJ
    local vJ, aJ = J.S_mv(b, J.read(b, qd)), J.S_mv(b, J.read(b, qdd))
    v[i] = J.name(sp.add(sp.X_mv(X[i], v[p]), vJ), "v", b)
    local w = top(v[i])
    if J.FIXED_ORIGIN[b.type] then
      -- ω̇_i = E ω̇_λ + S q̈ + ω_i × ωJ;  a_c,i = E (a_c,λ + U_λ p_i), p_i the origin in λ
      wd[i] = sp.add(sp.add(sp.rot_of(X[i], wd[p]), top(aJ)), sp.cross(w, top(vJ)))
      ac[i] = sp.rot_of(X[i], sp.add(ac[p], sp.mat3_mv(U[p], sp.origin(X[i]))))
    else
      -- a_i = iXλ a_λ + S q̈ + v_i × vJ with a_λ = [ω̇_λ; a_c,λ − ω_λ × v_λ];
      -- a_c,i = a_i,v + ω_i × v_i
      local wv = sp.cross(top(v[p]), bottom(v[p]))
      local al = { wd[p][1], wd[p][2], wd[p][3],
                   ac[p][1] - wv[1], ac[p][2] - wv[2], ac[p][3] - wv[3] }
      local ai = sp.add(sp.add(sp.X_mv(X[i], al), aJ), sp.crm(v[i], vJ))
      wd[i], ac[i] = top(ai), sp.add(bottom(ai), sp.cross(w, bottom(v[i])))
    end
    wd[i], ac[i] = J.name(wd[i], "wd", b), J.name(ac[i], "ac", b)
    -- U_i = ω̇× + ω×ω×;  f_i = I_i a_i + v_i ×* I_i v_i − fext_i = [n; m a_c + U h] − fext_i
    U[i] = sp.U(w, wd[i])
    f[i] = sp.newton_euler_U(b.I, b.J, ac[i], U[i])
    if fext then f[i] = sp.sub(f[i], J.fext(b, fext)) end
  end
  return T, X, v, f, wd, ac
end

-- The backward pass: τ_i = S_iᵀ f_i;  f_λ += λX*_i f_i. Returns τ (1-based over the dofs); f
-- becomes the joint wrenches.
function R.backward(T, X, f)
  local tau = {}
  for i = #T, 1, -1 do
    local b = T[i]
    f[i] = J.name(f[i], "f", b)
    for c, x in ipairs(J.ST(b, f[i])) do tau[b.iv + c] = x end
    if b.parent > 0 then f[b.parent] = sp.add(f[b.parent], sp.XT_fv(X[i], f[i])) end
  end
  return tau
end

-- Both passes: τ and the joint wrenches f.
function R.passes(model, qd, qdd, fext)
  local T, X, _, f = R.forward(model, qd, qdd, fext)
  return R.backward(T, X, f), f
end

function R.build(model)
  local tau = R.passes(model, "v", "a")
  for k = 1, model.nv do sym.output("tau", k - 1, tau[k]) end
end

return R
