"""A closed loop (examples/five_bar.mbd): the projections, read and written in place in C,
return new arrays here; rcr's int output; both for one state and for a batch."""

import numpy as np


def test_projections(compiled):
    m = compiled("five_bar")
    rng = np.random.default_rng(8)
    Q = m.q_initial + 0.05 * rng.standard_normal((6, m.nq))
    Q0 = Q.copy()
    P = m.project_q(Q)
    np.testing.assert_array_equal(Q, Q0)  # the argument is not changed
    np.testing.assert_allclose(m.loop_residual(P), 0, atol=1e-10)
    np.testing.assert_allclose(P, np.array([m.project_q(q) for q in Q]), atol=1e-12)
    V = rng.standard_normal((6, m.nv))
    W = m.project_v(P, V)
    np.testing.assert_allclose(np.einsum("nij,nj->ni", m.loop_jacobian(P), W), 0, atol=1e-10)
    np.testing.assert_allclose(W, [m.project_v(q, v) for q, v in zip(P, V)], atol=1e-12)


def test_rcr_against_fd_loops(compiled):
    m = compiled("five_bar")
    rng = np.random.default_rng(9)
    q = m.project_q(m.q_initial + 0.05 * rng.standard_normal((5, m.nq)))
    v = m.project_v(q, rng.standard_normal((5, m.nv)))
    tau = rng.standard_normal((5, m.nv))
    qdd, used = m.rcr(q, v, tau)
    assert used.shape == (5,) and used.dtype == np.intc and set(used) <= {0, 1}
    qdd_l, lam = m.fd_loops(q, v, tau)
    assert lam.shape == (5, m.nc)
    np.testing.assert_allclose(qdd, qdd_l, atol=1e-8)
    one, used0 = m.rcr(q[0], v[0], tau[0])
    assert isinstance(used0, int) and used0 == used[0]
    np.testing.assert_allclose(one, qdd[0], atol=1e-12)
