-- project.lua — the loop projections of <prefix>_dynamics.c: Newton's method on φ(q) = 0 and the
-- orthogonal projection of v onto K v = 0, written over the generated loop_residual and
-- loop_jacobian (the same iteration as the runtime's mb_project_q / mb_project_v, docs/loops.md).
local M = {}

-- Present when the model has loop rows and both building blocks are generated.
function M.wanted(d)
  if (d.nc or 0) == 0 then return false end
  local have = {}
  for _, f in ipairs(d.functions) do have[f.name] = true end
  return have.loop_residual and have.loop_jacobian
end

function M.declare(b, d)
  local p, P, real = d.prefix, d.PREFIX, d.scalar
  b("")
  b("/* Project q onto the loops' constraint manifold phi(q) = 0: Newton's method with the")
  b(" * minimum-norm step dv = -K^T (K K^T + mu 1)^-1 phi (mu = 1e-10 max diag K K^T), applied on the")
  b(" * joint manifolds (quaternions stay unit), until max |phi_r| <= ", P, "_PROJECT_TOL, at most")
  b(" * ", P, "_PROJECT_MAXIT iterations. 0, or -1 (q unchanged) when it does not converge. */")
  b("int ", p, "_project_q(", real, " q[", P, "_NQ]);")
  b("/* Replace v by its orthogonal projection onto K(q) v = 0: v - K^T (K K^T)^-1 K v. 0, or -1")
  b(" * (v unchanged) when K K^T is singular at q. */")
  b("int ", p, "_project_v(const ", real, " q[", P, "_NQ], ", real, " v[", P, "_NV]);")
end

-- The manifold step x ⊕ (−dv) of every joint, as the runtime's mb_integrate with dt = −1.
local function step(b, d)
  for _, j in ipairs(d.joints) do
    if j.type == "spherical" then
      b("  quat_step(x + ", j.iq, ", dv + ", j.iv, ");")
    elseif j.type == "floating" then
      b("  free_step(x + ", j.iq, ", dv + ", j.iv, ", dv + ", j.iv + 3, ");")
    elseif j.type == "planar" then
      b("  planar_step(x + ", j.iq, ", dv + ", j.iv, ");")
    else -- a vector space (nq = nv): x − dv
      for k = 0, j.nq - 1 do b("  x[", j.iq + k, "] -= dv[", j.iv + k, "];") end
    end
  end
end

local function has(d, t)
  for _, j in ipairs(d.joints) do if j.type == t then return true end end
  return false
end

-- Static helpers: the quaternion and SE(3) steps (by −dv), the Cholesky solve with the pivot rule.
local function helpers(b, d)
  local real, P = d.scalar, d.PREFIX
  local f = real == "float" and "f" or ""
  local sq, sn, cs = "sqrt" .. f, "sin" .. f, "cos" .. f
  if has(d, "spherical") or has(d, "floating") then
    b("")
    b("/* quat <- quat * exp(-w), renormalized (a rotation by -w in the child frame). */")
    b("static void quat_step(", real, " *quat, const ", real, " *w) {")
    b("  ", real, " th = ", sq, "(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);")
    b("  ", real, " s = th < 1e-4", f, " ? 0.5", f, " - th * th / 48.0", f, " : ", sn, "(0.5", f,
      " * th) / th;")
    b("  ", real, " e[4] = {-s * w[0], -s * w[1], -s * w[2], ", cs, "(0.5", f, " * th)};")
    b("  ", real, " a[4] = {quat[0], quat[1], quat[2], quat[3]};")
    b("  quat[0] = a[3] * e[0] + e[3] * a[0] + a[1] * e[2] - a[2] * e[1];")
    b("  quat[1] = a[3] * e[1] + e[3] * a[1] + a[2] * e[0] - a[0] * e[2];")
    b("  quat[2] = a[3] * e[2] + e[3] * a[2] + a[0] * e[1] - a[1] * e[0];")
    b("  quat[3] = a[3] * e[3] - (a[0] * e[0] + a[1] * e[1] + a[2] * e[2]);")
    b("  ", real, " n = ", sq, "(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + ",
      "quat[3] * quat[3]);")
    b("  for (int k = 0; k < 4; k++) quat[k] /= n;")
    b("}")
  end
  if has(d, "floating") then
    b("")
    b("/* (p, quat) <- (p, quat) exp(-(u, w)): the SE(3) exponential of the body twist, p' = p +")
    b(" * R V(w) u with V = 1 + (1 - cos t)/t^2 w^ + (t - sin t)/t^3 w^2, t = |w|. */")
    b("static void free_step(", real, " *x, const ", real, " *lin, const ", real, " *ang) {")
    b("  ", real, " u[3] = {-lin[0], -lin[1], -lin[2]}, w[3] = {-ang[0], -ang[1], -ang[2]};")
    b("  ", real, " t2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2], t = ", sq, "(t2);")
    b("  ", real, " A = t < 1e-4", f, " ? 0.5", f, " - t2 / 24.0", f, " : (1 - ", cs, "(t)) / t2;")
    b("  ", real, " B = t < 1e-4", f, " ? 1.0", f, " / 6 - t2 / 120.0", f, " : (t - ", sn, "(t)) / (t2 * t);")
    b("  ", real, " c1[3] = {w[1] * u[2] - w[2] * u[1], w[2] * u[0] - w[0] * u[2], ",
      "w[0] * u[1] - w[1] * u[0]};")
    b("  ", real, " c2[3] = {w[1] * c1[2] - w[2] * c1[1], w[2] * c1[0] - w[0] * c1[2], ",
      "w[0] * c1[1] - w[1] * c1[0]};")
    b("  ", real, " s[3], *qu = x + 3, n2 = qu[0] * qu[0] + qu[1] * qu[1] + qu[2] * qu[2] + ",
      "qu[3] * qu[3];")
    b("  for (int k = 0; k < 3; k++) s[k] = u[k] + A * c1[k] + B * c2[k];")
    b("  /* R(quat) s, R = 1 + (2/|q|^2)(qw u^ + u^ u^) */")
    b("  ", real, " cu[3] = {qu[1] * s[2] - qu[2] * s[1], qu[2] * s[0] - qu[0] * s[2], ",
      "qu[0] * s[1] - qu[1] * s[0]};")
    b("  ", real, " cc[3] = {qu[1] * cu[2] - qu[2] * cu[1], qu[2] * cu[0] - qu[0] * cu[2], ",
      "qu[0] * cu[1] - qu[1] * cu[0]};")
    b("  for (int k = 0; k < 3; k++) x[k] += s[k] + (2 / n2) * (qu[3] * cu[k] + cc[k]);")
    b("  quat_step(x + 3, ang);")
    b("}")
  end
  if has(d, "planar") then
    b("")
    b("/* [x y th] <- [x y th] exp(-(u, w)): the SE(2) exponential of the planar twist, [x y] +=")
    b(" * R(th) V(w) u with V = [s -c; c s], s = sin w / w, c = (1 - cos w)/w; th += w. */")
    b("static void planar_step(", real, " *x, const ", real, " *dv) {")
    b("  ", real, " u0 = -dv[0], u1 = -dv[1], w = -dv[2], h = ", sn, "(0.5", f, " * w);")
    b("  int small = w < 1e-4", f, " && w > -1e-4", f, ";")
    b("  ", real, " s = small ? 1 - w * w / 6 : ", sn, "(w) / w;")
    b("  ", real, " c = small ? w * (0.5", f, " - w * w / 24) : 2 * h * h / w;")
    b("  ", real, " a = s * u0 - c * u1, bb = c * u0 + s * u1, ct = ", cs, "(x[2]), st = ", sn,
      "(x[2]);")
    b("  x[0] += ct * a - st * bb;")
    b("  x[1] += st * a + ct * bb;")
    b("  x[2] += w;")
    b("}")
  end
  b("")
  b("/* A = L L^T in place (lower triangle), the pivot rule against A's diagonal; y <- A^-1 y. */")
  b("static int chol_solve(int n, ", real, " *A, ", real, " *y) {")
  b("  for (int j = 0; j < n; j++) {")
  b("    ", real, " d = A[n * j + j], ref = d;")
  b("    for (int k = 0; k < j; k++) d -= A[n * j + k] * A[n * j + k];")
  b("    if (!(ref > 0 && d > ", P, "_PIVOT_EPS * ref)) return -1;")
  b("    A[n * j + j] = ", sq, "(d);")
  b("    for (int i = j + 1; i < n; i++) {")
  b("      ", real, " s = A[n * i + j];")
  b("      for (int k = 0; k < j; k++) s -= A[n * i + k] * A[n * j + k];")
  b("      A[n * i + j] = s / A[n * j + j];")
  b("    }")
  b("  }")
  b("  for (int i = 0; i < n; i++) {")
  b("    for (int k = 0; k < i; k++) y[i] -= A[n * i + k] * y[k];")
  b("    y[i] /= A[n * i + i];")
  b("  }")
  b("  for (int i = n - 1; i >= 0; i--) {")
  b("    for (int k = i + 1; k < n; k++) y[i] -= A[n * k + i] * y[k];")
  b("    y[i] /= A[n * i + i];")
  b("  }")
  b("  return 0;")
  b("}")
  b("")
  b("/* A = K K^T (+ damp max diag) and dv = K^T y. */")
  b("static void gram(const ", real, " *K, ", real, " *A, ", real, " damp) {")
  b("  ", real, " dmax = 0;")
  b("  for (int r = 0; r < ", P, "_NC; r++)")
  b("    for (int c = 0; c <= r; c++) {")
  b("      ", real, " s = 0;")
  b("      for (int k = 0; k < ", P, "_NV; k++) s += K[", P, "_NV * r + k] * K[", P, "_NV * c + k];")
  b("      A[", P, "_NC * r + c] = s;")
  b("      if (r == c && s > dmax) dmax = s;")
  b("    }")
  b("  for (int r = 0; r < ", P, "_NC; r++) A[", P, "_NC * r + r] += damp * dmax;")
  b("}")
  b("")
  b("static void kt_mul(const ", real, " *K, const ", real, " *y, ", real, " *dv) {")
  b("  for (int k = 0; k < ", P, "_NV; k++) dv[k] = 0;")
  b("  for (int r = 0; r < ", P, "_NC; r++)")
  b("    for (int k = 0; k < ", P, "_NV; k++) dv[k] += K[", P, "_NV * r + k] * y[r];")
  b("}")
end

function M.define(b, d)
  local p, P, real = d.prefix, d.PREFIX, d.scalar
  helpers(b, d)
  b("")
  b("int ", p, "_project_q(", real, " q[", P, "_NQ]) {")
  b("  ", real, " x[", P, "_NQ], phi[", P, "_NC], K[", P, "_NC * ", P, "_NV], A[", P, "_NC * ", P,
    "_NC], dv[", P, "_NV];")
  b("  for (int k = 0; k < ", P, "_NQ; k++) x[k] = q[k];")
  b("  for (int it = 0;; it++) {")
  b("    ", real, " err = 0;")
  b("    ", p, "_loop_residual(x, phi);")
  b("    for (int r = 0; r < ", P, "_NC; r++)")
  b("      if (!(fabs(phi[r]) <= err)) err = fabs(phi[r]); /* NaN is the worst */")
  b("    if (!(err <= 1e300)) return -1;")
  b("    if (err <= ", P, "_PROJECT_TOL) break;")
  b("    if (it == ", P, "_PROJECT_MAXIT) return -1;")
  b("    ", p, "_loop_jacobian(x, K);")
  b("    gram(K, A, 1e-10", real == "float" and "f" or "", ");")
  b("    if (chol_solve(", P, "_NC, A, phi)) return -1;")
  b("    kt_mul(K, phi, dv);")
  step(b, d)
  b("  }")
  b("  for (int k = 0; k < ", P, "_NQ; k++) q[k] = x[k];")
  b("  return 0;")
  b("}")
  b("")
  b("int ", p, "_project_v(const ", real, " q[", P, "_NQ], ", real, " v[", P, "_NV]) {")
  b("  ", real, " K[", P, "_NC * ", P, "_NV], A[", P, "_NC * ", P, "_NC], y[", P, "_NC], dv[", P,
    "_NV];")
  b("  ", p, "_loop_jacobian(q, K);")
  b("  gram(K, A, 0);")
  b("  for (int r = 0; r < ", P, "_NC; r++) {")
  b("    y[r] = 0;")
  b("    for (int k = 0; k < ", P, "_NV; k++) y[r] += K[", P, "_NV * r + k] * v[k];")
  b("  }")
  b("  if (chol_solve(", P, "_NC, A, y)) return -1;")
  b("  kt_mul(K, y, dv);")
  b("  for (int k = 0; k < ", P, "_NV; k++)")
  b("    if (!isfinite(v[k] - dv[k])) return -1;")
  b("  for (int k = 0; k < ", P, "_NV; k++) v[k] -= dv[k];")
  b("  return 0;")
  b("}")
end

return M
