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
  frames = true, -- world-aligned variants (--frame, reference.lua)
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
-- M x for an n × n matrix given as rows
local function mat_mv(A, x)
  local y = {}
  for r, row in ipairs(A) do y[r] = sp.dot(row, x) end
  return y
end

-- A flexible body's own forces (Jain & Rodriguez 1990, §4 and §8: the modal mass matrix constant
-- in the body frame, eq. 8.1): f_i gains Mc η̈ + v ×* (Mc η̇), and the modal force is
-- g_i = Mcᵀ a_i + Me η̈ + K η + D η̇ + [vᵀ Q_k v]_k (a_i spatial; Q the velocity-product forms).
local function modal_forces(b, f, v, wd, ac, qd, qdd)
  local ed, edd, eta = J.read_modes(b, qd), J.read_modes(b, qdd), J.read_modes(b, "q")
  if qdd then f = sp.add(f, J.cols_mv(b.Mc, edd)) end
  if qd then f = sp.add(f, sp.crf(v, J.cols_mv(b.Mc, ed))) end
  local wv = sp.cross(top(v), bottom(v))
  local a = { wd[1], wd[2], wd[3], ac[1] - wv[1], ac[2] - wv[2], ac[3] - wv[3] }
  local g = sp.add(J.cols_T(b.Mc, a), mat_mv(b.K, eta))
  if qdd then g = sp.add(g, mat_mv(b.Me, edd)) end
  if qd then
    g = sp.add(g, mat_mv(b.D, ed))
    -- the velocity-product load of the undeformed body on the modes (b_m⁰): vᵀ Q_k v
    for k = 1, b.nm do
      local Q, s = b.Q[k], 0
      for r = 1, 6 do
        local x = 0
        for c = 1, 6 do x = x + Q[6 * (r - 1) + c] * v[c] end
        s = s + v[r] * x
      end
      g[k] = g[k] + s
    end
  end
  return f, sp.name(g, "g_" .. b.name)
end

-- The forward pass at body b (its parent's done): iXλ, v, ω̇, a_c, U and the body force f of b
-- into the state st (tables X, v, wd, ac, U, f, g).
local function forward_body(st, b, qd, qdd, fext)
  local T, X, v, wd, ac, U, f, g = st.T, st.X, st.v, st.wd, st.ac, st.U, st.f, st.g
  local i, p = b.i, b.parent
  X[i] = J.Xup(b)
  -- vJ = S q̇;  v_i = iXλ ṽ + vJ, ṽ = v_λ + Ψ η̇_λ (the parent's section; v_λ when rigid)
  local vJ, aJ = J.S_mv(b, J.read(b, qd)), J.S_mv(b, J.read(b, qdd))
  local vp = v[p]
  if b.Psi and qd then vp = J.cols_mv(b.Psi, J.read_modes(T[p], qd), { table.unpack(v[p]) }) end
  v[i] = J.name(sp.add(sp.X_mv(X[i], vp), vJ), "v", b)
  local w = top(v[i])
  if b.Psi then
    -- a_i = iXλ ã + S q̈ + v_i × vJ, ã = a_λ + Ψ η̈_λ (a_λ spatial: [ω̇_λ; a_c,λ − ω_λ × v_λ])
    local wv = sp.cross(top(v[p]), bottom(v[p]))
    local al = { wd[p][1], wd[p][2], wd[p][3],
                 ac[p][1] - wv[1], ac[p][2] - wv[2], ac[p][3] - wv[3] }
    if qdd then al = J.cols_mv(b.Psi, J.read_modes(T[p], qdd), al) end
    local ai = J.add_cJ(b, qd, sp.add(sp.add(sp.X_mv(X[i], al), aJ), sp.crm(v[i], vJ)))
    wd[i], ac[i] = top(ai), sp.add(bottom(ai), sp.cross(w, bottom(v[i])))
  elseif b.fixed_origin and not b.Xf then
    -- (body frames:) ω̇_i = E ω̇_λ + S q̈ + ω_i × ωJ + cJ;  a_c,i = E (a_c,λ + U_λ p_i), p_i the
    -- origin in λ
    wd[i] = sp.add(sp.add(sp.rot_of(X[i], wd[p]), top(aJ)), sp.cross(w, top(vJ)))
    local cJ = J.cJ(b, qd)
    if cJ then wd[i] = sp.add(wd[i], top(cJ)) end
    ac[i] = sp.rot_of(X[i], sp.add(ac[p], sp.mat3_mv(U[p], sp.origin(X[i]))))
  else
    -- a_i = iXλ a_λ + S q̈ + v_i × vJ with a_λ = [ω̇_λ; a_c,λ − ω_λ × v_λ];
    -- a_c,i = a_i,v + ω_i × v_i
    local wv = sp.cross(top(v[p]), bottom(v[p]))
    local al = { wd[p][1], wd[p][2], wd[p][3],
                 ac[p][1] - wv[1], ac[p][2] - wv[2], ac[p][3] - wv[3] }
    local ai = J.add_cJ(b, qd, sp.add(sp.add(sp.X_mv(X[i], al), aJ), sp.crm(v[i], vJ)))
    wd[i], ac[i] = top(ai), sp.add(bottom(ai), sp.cross(w, bottom(v[i])))
  end
  wd[i], ac[i] = J.name(wd[i], "wd", b), J.name(ac[i], "ac", b)
  -- U_i = ω̇× + ω×ω×;  f_i = I_i a_i + v_i ×* I_i v_i − fext_i = [n; m a_c + U h] − fext_i
  U[i] = sp.U(w, wd[i])
  f[i] = sp.newton_euler_U(b.I, b.J, ac[i], U[i])
  if b.nm > 0 then f[i], g[i] = modal_forces(b, f[i], v[i], wd[i], ac[i], qd, qdd) end
  if fext then f[i] = sp.sub(f[i], J.fext(b, fext)) end
end

local function forward_state(model)
  local st = { T = J.tree(model), X = {}, v = { [0] = sp.zeros(6) }, wd = { [0] = sp.zeros(3) },
               ac = {}, U = {}, f = {}, g = {} }
  st.ac[0], st.U[0] = bottom(J.a0(model)), sp.zeros(9)
  return st
end

function R.forward(model, qd, qdd, fext)
  local st = forward_state(model)
  for _, b in ipairs(st.T) do forward_body(st, b, qd, qdd, fext) end
  return st.T, st.X, st.v, st.f, st.wd, st.ac, st.g
end

-- The backward pass at body i (its children's done): τ_i = S_iᵀ f_i (and the modes' g_i);
-- f_λ += λX*_i f_i, and a flexible parent's g_λ += Ψ_iᵀ λX*_i f_i.
local function backward_body(T, X, f, g, i, tau)
  local b = T[i]
  f[i] = J.name(f[i], "f", b)
  for c, x in ipairs(J.ST(b, f[i])) do tau[b.iv + c] = x end
  for c = 1, b.nm do tau[b.ie + c] = g[i][c] end
  if b.parent > 0 then
    local F = sp.XT_fv(X[i], f[i])
    f[b.parent] = sp.add(f[b.parent], F)
    if b.Psi then g[b.parent] = sp.add(g[b.parent], J.cols_T(b.Psi, F)) end
  end
end

local function zero_modes(T, g)
  for _, b in ipairs(T) do if b.nm > 0 then g[b.i] = g[b.i] or sp.zeros(b.nm) end end
end

-- The backward pass: τ_i = S_iᵀ f_i;  f_λ += λX*_i f_i; the modes: τ_η = g_i, and a flexible
-- parent's g_λ += Ψ_iᵀ λX*_i f_i. Returns τ (1-based over the dofs); f becomes the joint wrenches.
function R.backward(T, X, f, g)
  local tau = {}
  g = g or {}
  zero_modes(T, g)
  for i = #T, 1, -1 do backward_body(T, X, f, g, i, tau) end
  return tau
end

-- Both passes, τ and the joint wrenches f, built subtree by subtree: a body's forward step, its
-- children's subtrees, then its backward step. The same terms as R.forward then R.backward (the
-- children's wrenches added in child order, R.backward's in reverse), built in an order where a
-- leg's values are made and used together: the recipe's order, one of the orders the generated
-- statements may follow (sym.h, mbg_sym_schedule), keeps few of them live at once.
function R.passes(model, qd, qdd, fext)
  local st = forward_state(model)
  local T, tau = st.T, {}
  zero_modes(T, st.g)
  local function visit(i)
    forward_body(st, T[i], qd, qdd, fext)
    for _, c in ipairs(T[i].children) do visit(c) end
    backward_body(T, st.X, st.f, st.g, i, tau)
  end
  for _, b in ipairs(T) do if b.parent == 0 then visit(b.i) end end
  J.armature_torques(T, tau, qdd)
  return tau, st.f
end

function R.build(model)
  local tau = R.passes(model, "v", "a")
  for k = 1, model.nv do sym.output("tau", k - 1, tau[k]) end
end

return R
