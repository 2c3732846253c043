"""The generated functions through the package against closed forms and against one another."""

import numpy as np
import pytest

import mbdc

G = 9.81


def pendulum_closed_form(q, v, a):
    """tau = M(q) a + h(q, v) + g(q) of examples/double_pendulum.mbd: two uniform rods,
    m = 1 kg, L = 1 m, hinged about parallel axes (the file's header gives M and g):
      M11 = m L^2 (5/3 + cos q2), M12 = m L^2 (1/3 + cos(q2) / 2), M22 = m L^2 / 3
      h1 = -(m L^2 / 2) sin q2 (2 v1 v2 + v2^2), h2 = (m L^2 / 2) sin q2 v1^2
      g1 = m g L (3/2 sin q1 + 1/2 sin(q1 + q2)), g2 = m g L / 2 sin(q1 + q2)."""
    q1, q2 = q
    v1, v2 = v
    M = np.array([[5 / 3 + np.cos(q2), 1 / 3 + np.cos(q2) / 2],
                  [1 / 3 + np.cos(q2) / 2, 1 / 3]])
    h = 0.5 * np.sin(q2) * np.array([-(2 * v1 * v2 + v2 ** 2), v1 ** 2])
    g = G * np.array([1.5 * np.sin(q1) + 0.5 * np.sin(q1 + q2), 0.5 * np.sin(q1 + q2)])
    return M, M @ a + h + g, g


def test_pendulum_closed_form(pendulum):
    rng = np.random.default_rng(1)
    for _ in range(20):
        q, v, a = rng.uniform(-3, 3, (3, 2))
        M, tau, g = pendulum_closed_form(q, v, a)
        np.testing.assert_allclose(pendulum.rnea(q, v, a), tau, rtol=0, atol=1e-12)
        np.testing.assert_allclose(pendulum.crba(q), M, rtol=0, atol=1e-14)
        np.testing.assert_allclose(pendulum.gravity(q), g, rtol=0, atol=1e-12)
        np.testing.assert_allclose(pendulum.aba(q, v, tau), a, rtol=0, atol=1e-10)


def test_pendulum_energy(pendulum):
    """Kinetic energy 1/2 v^T M v; potential m g z of both centres of mass (z up, zero at the
    shoulder): -m g L (3/2 cos q1 + 1/2 cos(q1 + q2))."""
    q, v = np.array([0.4, -1.1]), np.array([0.7, 2.0])
    M, _, _ = pendulum_closed_form(q, v, np.zeros(2))
    ek, ep = pendulum.energy(q, v)
    assert ek == pytest.approx(0.5 * v @ M @ v, abs=1e-13)
    assert ep == pytest.approx(-G * (1.5 * np.cos(q[0]) + 0.5 * np.cos(q[0] + q[1])), abs=1e-12)


def random_states(m, n, seed):
    rng = np.random.default_rng(seed)
    lo = np.where(np.isfinite(m.q_min), m.q_min, -np.pi)
    hi = np.where(np.isfinite(m.q_max), m.q_max, np.pi)
    q = rng.uniform(lo, hi, (n, m.nq))
    v = rng.uniform(-1, 1, (n, m.nv))
    a = rng.uniform(-1, 1, (n, m.nv))
    return q, v, a


def test_panda_aba_inverts_rnea(panda):
    for q, v, a in zip(*random_states(panda, 50, 2)):
        tau = panda.rnea(q, v, a)
        np.testing.assert_allclose(panda.aba(q, v, tau), a, rtol=0, atol=1e-10)
        np.testing.assert_allclose(panda.crba_fd(q, v, tau), a, rtol=0, atol=1e-10)


def test_panda_crba_nle_rnea(panda):
    for q, v, a in zip(*random_states(panda, 50, 3)):
        M = panda.crba(q)
        assert M.shape == (panda.nv, panda.nv)
        np.testing.assert_array_equal(M, M.T)
        assert np.linalg.eigvalsh(M).min() > 0
        tau = panda.rnea(q, v, a)
        np.testing.assert_allclose(M @ a + panda.nle(q, v), tau, rtol=0,
                                   atol=1e-10 * max(1.0, np.abs(tau).max()))
        np.testing.assert_allclose(panda.minv(q) @ M, np.eye(panda.nv), rtol=0, atol=1e-9)


def test_panda_gravity(panda):
    """g(q) = dV/dq with V = mass g z_com: g(q) = mass g (row z of the centre of mass
    Jacobian); the first joint turns about the vertical axis, so g_1 = 0 exactly; and
    g(q) = rnea(q, 0, 0)."""
    mass = panda.mass
    zero = np.zeros(panda.nv)
    for q, _, _ in zip(*random_states(panda, 20, 4)):
        g = panda.gravity(q)
        np.testing.assert_allclose(g, mass * G * panda.com_jacobian(q)[2], rtol=0, atol=1e-11)
        assert g[0] == pytest.approx(0, abs=1e-12)
        np.testing.assert_allclose(panda.rnea(q, zero, zero), g, rtol=0, atol=1e-12)


def test_gimbal_quaternion(compiled):
    """nq 5, nv 4 (a helical joint, then a spherical one): aba inverts rnea, and difference
    inverts integrate on the manifold."""
    m = compiled("gimbal")
    assert (m.nq, m.nv) == (5, 4)
    rng = np.random.default_rng(5)
    for _ in range(20):
        q = m.integrate(m.q_initial, rng.uniform(-2, 2, m.nv), 1.0)
        v, a = rng.uniform(-1, 1, (2, m.nv))
        np.testing.assert_allclose(m.aba(q, v, m.rnea(q, v, a)), a, rtol=0, atol=1e-10)
        dv = rng.uniform(-0.5, 0.5, m.nv)
        np.testing.assert_allclose(m.difference(q, m.integrate(q, dv, 1.0)), dv, rtol=0,
                                   atol=1e-12)


def test_float_scalar(compiled, pendulum):
    m = compiled("pendulum_float")
    assert m.scalar == "float" and m.dtype == np.float32
    q, v, a = np.array([0.3, -0.8]), np.array([1.0, 0.5]), np.array([-2.0, 0.25])
    tau = m.rnea(q, v, a)
    assert tau.dtype == np.float32
    np.testing.assert_allclose(tau, pendulum.rnea(q, v, a), rtol=1e-5, atol=1e-5)
    taus = m.rnea(np.tile(q, (9, 1)), v, a)
    assert taus.dtype == np.float32 and taus.shape == (9, 2)
    np.testing.assert_allclose(taus, np.tile(tau, (9, 1)), rtol=1e-6, atol=1e-6)


def test_parameters(compiled, pendulum):
    """--parameters all,gravity: pi defaults to the model file's values; gravity scaled by
    two doubles the gravity torques; a second rod of twice the mass changes M by the closed
    form (M of two rods with m2 = 2: M22 = 2/3)."""
    m = compiled("pendulum_pi")
    assert m.npi == 23 and len(m.pi_names) == 23 and m.pi_names[-1] == "gravity.z"
    q, v, a = np.array([0.3, -0.8]), np.array([1.0, 0.5]), np.array([-2.0, 0.25])
    np.testing.assert_allclose(m.rnea(q, v, a), pendulum.rnea(q, v, a), rtol=0, atol=1e-12)
    pi = m.pi.copy()
    pi[-3:] *= 2
    np.testing.assert_allclose(m.gravity(q, pi=pi), 2 * pendulum.gravity(q), rtol=0,
                               atol=1e-12)
    pi = m.pi.copy()
    pi[10:20] *= 2
    assert m.crba(q, pi=pi)[1, 1] == pytest.approx(2 / 3, abs=1e-14)
    # a batch of parameters: one per state
    pis = np.stack([m.pi, pi])
    Ms = m.crba(q, pi=pis)
    np.testing.assert_allclose(Ms[0], pendulum.crba(q), atol=1e-14)
    np.testing.assert_allclose(Ms[1], m.crba(q, pi=pi), atol=1e-14)


def test_hybrid_mask_and_fixed(compiled):
    """hybrid with a run-time mask (an int array, batched too) against rnea (all prescribed), aba
    (none) and hybrid_fixed (the slider prescribed at generation, --prescribed slider)."""
    m = compiled("cart_pole_hybrid")
    rng = np.random.default_rng(5)
    q, v, x = rng.uniform(-1, 1, (3, 8, m.nv))
    for k in range(8):
        qdd, tau = m.hybrid(q[k], v[k], np.ones(m.nv, dtype=np.intc), x[k])
        np.testing.assert_allclose(tau, m.rnea(q[k], v[k], x[k]), rtol=0, atol=1e-12)
        qdd, tau = m.hybrid(q[k], v[k], np.zeros(m.nv, dtype=np.intc), x[k])
        np.testing.assert_allclose(qdd, m.aba(q[k], v[k], x[k]), rtol=0, atol=1e-12)
        np.testing.assert_array_equal(tau, x[k])
    mask = np.tile(np.array([1, 0], dtype=np.intc), (8, 1))
    qdd, tau = m.hybrid(q, v, mask, x)
    fqdd, ftau = m.hybrid_fixed(q, v, x)
    np.testing.assert_allclose(fqdd, qdd, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ftau, tau, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(qdd[:, 0], x[:, 0])
    with pytest.raises(mbdc.DynamicsError):
        m.hybrid(q[0], v[0], np.array([2, 0], dtype=np.intc), x[0])
