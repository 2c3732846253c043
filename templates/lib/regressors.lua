-- regressors.lua — the dynamics as linear functions of the inertial parameters (the recipes
-- regressor, energy_regressor and joint_regressor are its instances; runtime/regressor.c computes
-- the same: mb_regressor, mb_energy_regressor, mb_joint_regressor). Every moving body has ten
-- standard parameters π in Pinocchio's order (Inertia::toDynamicParameters): m, m cx, m cy, m cz,
-- Ixx, Ixy, Iyy, Ixz, Iyz, Izz — the first moment and the rotational inertia about the body
-- frame's origin, in body axes; body i (1-based) has columns 10 (i − 1) .. 10 i − 1, P_NREG in all.
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

local function build_regressor(model)
  local T, X, v, _, wd, ac = rnea.forward(model, "v", "a")
  rigid_only(T, "regressor")
  local nreg = 10 * #T
  -- body i's block A_i[k] (k = 1..10): the force of the unit inertia e_k at its motion
  local A = {}
  for i, b in ipairs(T) do
    local U = sp.U({ v[i][1], v[i][2], v[i][3] }, wd[i])
    A[i] = {}
    for k = 1, 10 do
      local e = unit(b, k)
      A[i][k] = sp.newton_euler_U(e, sp.second_moment(e), ac[i], U)
    end
  end
  local Y = {}
  for r = 1, model.nv * nreg do Y[r] = 0 end
  -- every dof of joint j: its column carried down j's subtree (s_i = iXλ s_λ), dotted with A_i
  for j, bj in ipairs(T) do
    for c = 1, bj.nv do
      local row = bj.iv + c - 1
      local s = { [j] = bj.S[c] }
      local function visit(i)
        for k = 1, 10 do Y[row * nreg + 10 * (i - 1) + k] = sp.dot(s[i], A[i][k]) end
        for _, ch in ipairs(T[i].children) do
          s[ch] = sp.name(sp.X_mv(X[ch], s[i]), "s_" .. bj.name .. "_" .. (c - 1) .. "_"
                            .. T[ch].name)
          visit(ch)
        end
      end
      visit(j)
    end
  end
  for r = 1, model.nv * nreg do sym.output("Y", r - 1, Y[r]) end
end

-- T = y_k · π: ½ v_iᵀ I(e_k) v_i; U = y_p · π: −gᵀ (m p_i + R_i h_i), (R_i, p_i) body i's world
-- pose.
local function build_energy_regressor(model)
  local T = J.tree(model)
  rigid_only(T, "energy_regressor")
  local still = setmetatable({ gravity = { 0, 0, 0 } }, { __index = model })
  local _, _, v = rnea.forward(still, "v", nil)
  local g, X0 = model.gravity, { [0] = sp.identity() }
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
}

-- The recipe of function name: regressor, energy_regressor (the registry:
-- generator/lua/lua_recipes.c).
function G.recipe(name)
  local r = recipes[name]
  return { name = name, summary = r.summary, returns = "void", params = r.params, build = r.build }
end

return G
