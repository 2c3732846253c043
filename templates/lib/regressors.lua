-- regressors.lua — the dynamics as linear functions of the inertial parameters (the recipes
-- regressor, energy_regressor, base_regressor, base_params and joint_regressor are its instances;
-- runtime/regressor.c computes the same: mb_regressor, mb_energy_regressor, mb_joint_regressor;
-- the base parameters come from generator/topology/base_params.c through model.base_params()).
-- Every moving body has ten standard parameters π in Pinocchio's order
-- (Inertia::toDynamicParameters): m, m cx, m cy, m cz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz — the first
-- moment and the rotational inertia about the body frame's origin, in body axes; body i (1-based)
-- has columns 10 (i − 1) .. 10 i − 1, P_NREG in all.
--
-- τ = Y π: a body's force f_i = I_i a_i + v_i ×* I_i v_i is linear in its parameters, so its
-- column k is the force of the unit inertia e_k (sp.newton_euler_U with numbers 0 and 1, which fold
-- away); joint j's torque is S_jᵀ Σ_{i in j's subtree} jX*_i f_i, so Y's entry (j, i, k) is
-- (iX_j S_j) · A_i[k]: each dof's motion column carried down the subtree and dotted with the
-- blocks (Atkeson, An & Hollerbach, "Estimation of inertial parameters of manipulator loads and
-- links", IJRR 5(3), 1986). The entries of bodies outside j's subtree are zero.
local sp = import "spatial"
local J = import "joints"
local rnea = import "rnea"

local G = {}

-- Pinocchio's order → the model's 10-number inertia [m, h, ixx iyy izz ixy ixz iyz] (1-based).
local PIN_TO_MODEL = { 1, 2, 3, 4, 5, 8, 6, 9, 10, 7 }

-- The unit inertia of parameter k (1..10) of body b — the parameters are defined in the body's
-- original frame (its URDF link's, the runtime's) — in b's working frame, where the recipes
-- compute (Yo: original → working; numbers, so every term folds).
local function unit(b, k)
  local I = {}
  for l = 1, 10 do I[l] = 0 end
  I[PIN_TO_MODEL[k]] = 1
  return sp.I_to_parent(sp.inverse(b.Yo), I)
end

local function rigid_only(T, what)
  for _, b in ipairs(T) do
    if b.nm > 0 or b.Psi then error(what .. ": not for models with flexible bodies") end
  end
end

-- Y's entries, Y[r * nreg + c + 1] for row r and column c (0-based; 0 where joint r does not carry
-- the column's body): a body's block A_i[k], the force of the unit inertia e_k at its motion;
-- every dof of joint j: its column carried down j's subtree (s_i = iXλ s_λ), dotted with A_i.
-- Built body after body in tree order — the columns of the ancestors' dofs carried to body i,
-- then A_i, then its entries — so that a body's blocks are live only while its own entries are
-- made (built row after row, every A_i stayed live through all rows: Solo12's regressor kept
-- 391 values live at once). order[] lists the entries in that order.
local function regressor_entries(model, what)
  local T, X, v, _, wd, ac = rnea.forward(model, "v", "a")
  rigid_only(T, what)
  local nreg = 10 * #T
  local Y, order, cols, multi = {}, {}, {}, {}
  for r = 1, model.nv * nreg do Y[r] = 0 end
  -- cols[i]: {row, s} for every dof of i's 1- and 2-dof ancestors and of i itself, s carried into
  -- i's frame; multi[i]: {j, Xc = iX_j} for its ancestors of three dofs or more (spherical,
  -- floating) and itself: their rows are S_jᵀ (jX*_i A), the block carried up once and its
  -- components picked, fewer operations than six carried columns dotted with it
  for i, b in ipairs(T) do
    local list, mlist = {}, {}
    for _, x in ipairs(b.parent > 0 and cols[b.parent] or {}) do
      list[#list + 1] = { row = x.row, s = sp.name(sp.X_mv(X[i], x.s), x.name .. "_" .. b.name),
                          name = x.name }
    end
    for _, x in ipairs(b.parent > 0 and multi[b.parent] or {}) do
      local Xc = sp.compose(X[i], x.Xc)
      mlist[#mlist + 1] = { j = x.j, Xc = { E = sp.name(Xc.E, "E_" .. T[x.j].name .. "_" .. b.name),
                                            r = sp.name(Xc.r, "r_" .. T[x.j].name .. "_" .. b.name) } }
    end
    if b.nv >= 3 then
      mlist[#mlist + 1] = { j = i, Xc = sp.identity() }
    else
      for c = 1, b.nv do
        list[#list + 1] = { row = b.iv + c - 1, s = b.S[c], name = "s_" .. b.name .. "_" .. (c - 1) }
      end
    end
    cols[i], multi[i] = list, mlist
    local U = sp.U({ v[i][1], v[i][2], v[i][3] }, wd[i])
    for k = 1, 10 do
      local e = unit(b, k)
      local A = sp.newton_euler_U(e, sp.second_moment(e), ac[i], U)
      local col = 10 * (i - 1) + k
      for _, x in ipairs(list) do
        local at = x.row * nreg + col
        Y[at], order[#order + 1] = sp.dot(x.s, A), at
      end
      for _, x in ipairs(mlist) do
        local bj = T[x.j]
        local f = x.j == i and A or sp.XT_fv(x.Xc, A)
        for c = 1, bj.nv do
          local at = (bj.iv + c - 1) * nreg + col
          Y[at], order[#order + 1] = sp.dot(bj.S[c], f), at
        end
      end
    end
  end
  return Y, nreg, order
end

-- The entries in the order they were built (the schedule that follows the outputs then keeps
-- each body's work together), then the zeros.
local function build_regressor(model)
  local Y, nreg, order = regressor_entries(model, "regressor")
  local done = {}
  for _, at in ipairs(order) do sym.output("Y", at - 1, Y[at]); done[at] = true end
  for r = 1, model.nv * nreg do if not done[r] then sym.output("Y", r - 1, 0) end end
end

-- Y_b: the columns of Y the base parameters are named after (model.base_params().col, in that
-- order), so that Y π = Y_b β; the other columns are never output, and the engine drops what
-- only they used.
local function build_base_regressor(model)
  local base = model.base_params()
  local Y, nreg, order = regressor_entries(model, "base_regressor")
  local nb, kept, done = base.nbase, {}, {}
  for k = 1, nb do kept[base.col[k]] = k end
  for _, at in ipairs(order) do -- Y's entries in the order they were built, the kept columns'
    local r, c = (at - 1) // nreg, (at - 1) % nreg
    if kept[c] then
      local o = r * nb + kept[c]
      sym.output("Yb", o - 1, Y[at])
      done[o] = true
    end
  end
  for o = 1, model.nv * nb do if not done[o] then sym.output("Yb", o - 1, 0) end end
end

-- β = K π, K's nonzero entries as constants.
local function build_base_params(model)
  local base = model.base_params()
  rigid_only(J.tree(model), "base_params")
  for k = 1, base.nbase do
    local beta = 0
    for _, t in ipairs(base.K[k]) do beta = beta + t[2] * sym.input("pi", t[1]) end
    sym.output("beta", k - 1, beta)
  end
end

-- The joints' own columns, 4 per joint of one velocity coordinate in body order, on its row:
-- viscous friction v_j, Coulomb friction v_j / max(|v_j|, band) (sign(v_j) made linear inside the
-- band: runtime/mb.h mb_coulomb_sign, MB_COULOMB_BAND), armature q̈_j, offset 1 (runtime
-- mb_joint_regressor; J.coulomb_sign).
local function build_joint_regressor(model)
  local T, nj1 = J.tree(model), 0
  for _, b in ipairs(T) do if b.nv == 1 then nj1 = nj1 + 1 end end
  local ncol, col = 4 * nj1, 0
  local Yj = {}
  for r = 1, model.nv * ncol do Yj[r] = 0 end
  for _, b in ipairs(T) do
    if b.nv == 1 then
      local v, a, at = sym.input("v", b.iv), sym.input("a", b.iv), b.iv * ncol + col
      Yj[at + 1], Yj[at + 2], Yj[at + 3], Yj[at + 4] = v, J.coulomb_sign(v), a, 1
      col = col + 4
    end
  end
  for r = 1, model.nv * ncol do sym.output("Yj", r - 1, Yj[r]) end
end

-- T = y_k · π: ½ v_iᵀ I(e_k) v_i; U = y_p · π: −gᵀ (m p_i + R_i h_i), (R_i, p_i) body i's world
-- pose.
local function build_energy_regressor(model)
  local T = J.tree(model)
  rigid_only(T, "energy_regressor")
  local still = setmetatable({ gravity = { 0, 0, 0 } }, { __index = model })
  local _, _, v = rnea.forward(still, "v", nil)
  local g, X0 = J.gravity(model), { [0] = sp.identity() }
  for i, b in ipairs(T) do
    X0[i] = sp.compose(J.Xup(b), X0[b.parent])
    -- U = −gᵀ (m p + R h) in the working frame: −gᵀ p m − (E g) · h, E g = Rᵀ g
    local at, Eg, gp = 10 * (i - 1), sp.rot_of(X0[i], g), sp.dot(g, X0[i].r)
    for k = 1, 10 do
      local e = unit(b, k)
      sym.output("yk", at + k - 1, 0.5 * sp.dot(v[i], sp.I_mv(e, v[i])))
      sym.output("yp", at + k - 1, -(gp * e[1] + sp.dot(Eg, { e[2], e[3], e[4] })))
    end
  end
end

local recipes = {
  regressor = {
    summary = "the joint-torque regressor Y(q, v, a), P_NV x P_NREG row-major: tau = Y pi "
      .. "(rnea) for the bodies' standard inertial parameters pi (P_pi_all)",
    params = { { name = "q", role = "q" }, { name = "v", role = "v" }, { name = "a", role = "a" },
               { name = "Y", role = "out_nvreg" } },
    build = build_regressor,
  },
  energy_regressor = {
    summary = "the energy regressors: kinetic energy yk . pi, potential energy yp . pi",
    params = { { name = "q", role = "q" }, { name = "v", role = "v" },
               { name = "yk", role = "out_reg" }, { name = "yp", role = "out_reg" } },
    build = build_energy_regressor,
  },
  base_regressor = {
    summary = "the base regressor Yb(q, v, a), P_NV x P_NBASE row-major: the columns of Y the "
      .. "base parameters are named after, tau = Y pi = Yb beta (beta: base_params)",
    params = { { name = "q", role = "q" }, { name = "v", role = "v" }, { name = "a", role = "a" },
               { name = "Yb", role = "out_nvbase" } },
    build = build_base_regressor,
  },
  base_params = {
    summary = "the base parameters beta = K pi of the standard ones pi (listed above)",
    params = { { name = "pi", role = "pi" }, { name = "beta", role = "out_base" } },
    build = build_base_params,
  },
  joint_regressor = {
    summary = "the joints' regressor Yj(v, a), P_NV x 4 P_NJ1 row-major: per 1-dof joint "
      .. "viscous v, Coulomb v / max(|v|, 1e-3), armature a, offset 1 (tau += Yj phi)",
    params = { { name = "v", role = "v" }, { name = "a", role = "a" },
               { name = "Yj", role = "out_nvj1" } },
    build = build_joint_regressor,
  },
}

-- The recipe of function name: regressor, energy_regressor, base_regressor, base_params,
-- joint_regressor (the registry: generator/lua/lua_recipes.c).
function G.recipe(name)
  local r = recipes[name]
  return { name = name, summary = r.summary, returns = "void", params = r.params, build = r.build }
end

return G
