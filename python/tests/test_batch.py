"""Many states at once: (N, nq) and (N1, N2, nq) against N single-state calls, through the
P_f_batch functions when mbdc generated them and through the loop over single calls when
not (batch=False)."""

import numpy as np
import pytest

import mbdc


@pytest.fixture(params=["pendulum", "pendulum_loop", "gimbal"])
def model(request, compiled):
    return compiled(request.param)


def states(m, n, seed=0):
    rng = np.random.default_rng(seed)
    q = m.integrate(np.broadcast_to(m.q_initial, (n, m.nq)), rng.uniform(-2, 2, (n, m.nv)),
                    1.0)
    v = rng.uniform(-1, 1, (n, m.nv))
    a = rng.uniform(-1, 1, (n, m.nv))
    return q, v, a


def close(x, y):
    # The batch functions compute as the single ones do (bit for bit in GCC's ISO modes, as
    # here); a compiler contracting a * b + c into an FMA differs by rounding only.
    np.testing.assert_allclose(x, y, rtol=1e-13, atol=1e-13)


def test_uses_batch_functions_when_generated(compiled):
    # this mbdc has --batch: compile() asks for it by default
    m = compiled("pendulum")
    assert m.has_batch and m.rnea.has_batch and m.aba.has_batch
    loop = compiled("pendulum_loop")
    assert not loop.has_batch and not loop.rnea.has_batch


def test_batch_equals_single_calls(model):
    n = 37
    q, v, a = states(model, n)
    tau = model.rnea(q, v, a)
    assert tau.shape == (n, model.nv)
    close(tau, np.array([model.rnea(*s) for s in zip(q, v, a)]))
    M = model.crba(q)
    assert M.shape == (n, model.nv, model.nv)
    close(M, np.array([model.crba(x) for x in q]))
    qdd = model.aba(q, v, tau)
    assert qdd.shape == (n, model.nv)
    close(qdd, np.array([model.aba(*s) for s in zip(q, v, tau)]))
    close(qdd, a)
    h = model.nle(q, v)
    close(h, np.array([model.nle(*s) for s in zip(q, v)]))


def test_scalar_argument_per_state(model):
    """integrate's dt: one number for all states, or one per state."""
    q, v, _ = states(model, 8, 1)
    dt = np.linspace(0.0, 0.7, 8)
    out = model.integrate(q, v, dt)
    close(out, np.array([model.integrate(*s) for s in zip(q, v, dt)]))
    close(model.integrate(q, v, 0.25), np.array([model.integrate(x, y, 0.25)
                                                 for x, y in zip(q, v)]))


def test_leading_dimensions_and_broadcasting(model):
    q, v, a = states(model, 12, 2)
    tau = model.rnea(q.reshape(3, 4, -1), v.reshape(3, 4, -1), a.reshape(3, 4, -1))
    assert tau.shape == (3, 4, model.nv)
    close(tau.reshape(12, -1), model.rnea(q, v, a))
    # one v and a for every q
    tau = model.rnea(q, v[0], a[0])
    close(tau, np.array([model.rnea(x, v[0], a[0]) for x in q]))
    # an empty batch
    assert model.rnea(q[:0], v[:0], a[:0]).shape == (0, model.nv)
    # outputs are fresh C-ordered arrays
    assert tau.flags.c_contiguous and tau.flags.writeable


def test_status_per_state(model):
    q, v, tau = states(model, 6, 3)
    q[2] = np.nan
    q[4] = np.inf
    with pytest.raises(mbdc.DynamicsError) as e:
        model.aba(q, v, tau)
    assert e.value.failed == [2, 4] and e.value.function == "aba"
    assert "2 of 6 states" in str(e.value)
    qdd, status = model.aba(q, v, tau, check=False)
    assert status.shape == (6,)
    assert list(status < 0) == [False, False, True, False, True, False]
    good = status == 0
    close(qdd[good], np.array([model.aba(*s) for s in zip(q[good], v[good], tau[good])]))
    with pytest.raises(mbdc.DynamicsError) as e:
        model.aba(q.reshape(2, 3, -1), v.reshape(2, 3, -1), tau.reshape(2, 3, -1))
    assert e.value.failed == [(0, 2), (1, 1)]


def test_batch_and_loop_agree(compiled):
    m, loop = compiled("pendulum"), compiled("pendulum_loop")
    q, v, a = states(m, 50, 4)
    for f in ("rnea", "crba", "frame_jacobian", "fk", "energy", "com_jacobian"):
        args = {"rnea": (q, v, a), "energy": (q, v)}.get(f, (q,))
        close(getattr(m, f)(*args), getattr(loop, f)(*args))
