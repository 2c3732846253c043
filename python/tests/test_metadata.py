"""What a Model tells about its robot: sizes, names, limits, the header, the functions."""

import inspect

import numpy as np
import pytest


def test_panda_sizes_and_names(panda):
    assert (panda.nq, panda.nv, panda.nb, panda.nj) == (9, 9, 9, 9)
    assert panda.constants["NQ"] == 9 and panda.prefix == "panda"
    assert panda.joint_names[:2] == ("panda_joint1", "panda_joint2")
    assert panda.coord_names == panda.joint_names
    assert panda.body_names[0] == "world" and len(panda.body_names) == panda.nb + 1
    assert "panda_hand_tcp" in panda.frame_names and len(panda.frame_names) == panda.nf
    assert list(panda.joint_iq) == list(range(9))


def test_panda_limits(panda):
    """The URDF's <limit> of panda_joint1 and of the fingers."""
    assert panda.q_min[0] == -2.8973 and panda.q_max[0] == 2.8973
    assert panda.v_max[0] == 2.175 and panda.tau_max[0] == 87.0
    assert (panda.q_min[7], panda.q_max[7], panda.v_max[7], panda.tau_max[7]) == \
        (0.0, 0.04, 0.2, 100.0)
    assert panda.q_initial.shape == (9,) and panda.v_initial.shape == (9,)
    with pytest.raises(ValueError):
        panda.q_min[0] = 0  # the tables are read-only


def test_header(panda):
    assert panda.header_path.is_file()
    assert panda.header == panda.header_path.read_text()
    assert "#define PANDA_NQ 9" in panda.header
    assert panda.library_path.is_file()
    assert panda.scalar == "double" and panda.dtype == np.float64


def test_functions(panda):
    wanted = {"rnea", "nle", "gravity", "crba", "aba", "minv", "crba_fd", "com_jacobian",
              "energy", "frame_pose", "frame_jacobian_world"}
    assert wanted <= set(panda.functions)
    assert panda.function("rnea") is panda.rnea
    assert str(inspect.signature(panda.rnea)) == "(q, v, a)"
    assert str(inspect.signature(panda.aba)) == "(q, v, tau, *, check=True)"
    assert "inverse dynamics" in panda.rnea.__doc__
    assert panda.rnea.declaration.startswith("void panda_rnea(const double q[PANDA_NQ]")
    with pytest.raises(AttributeError):
        panda.function("no_such_function")


def test_output_shapes(panda):
    q = panda.q_initial
    assert panda.crba(q).shape == (9, 9)
    assert panda.com_jacobian(q).shape == (3, 9)
    assert panda.frame_pose(q).shape == (panda.nf, 12)
    assert panda.frame_jacobian_world(q).shape == (panda.nf, 6, 9)
    assert panda.energy(q, np.zeros(9)).shape == (2,)


def test_frame_jacobian_layout(panda):
    """J[f] is frame f's 6 x nv Jacobian, rows [omega; v of its origin] in world axes: its
    last three rows times v are the finite-difference velocity of frame_pose's origin, and
    its first three the rotation's (R' R^T = [omega]x)."""
    rng = np.random.default_rng(7)
    q = rng.uniform(-1, 1, 9) * 0.8
    v = rng.uniform(-1, 1, 9)
    eps = 1e-6
    J = panda.frame_jacobian_world(q)
    pp, pm = panda.frame_pose(q + eps * v), panda.frame_pose(q - eps * v)
    p0 = panda.frame_pose(q)
    for f in range(panda.nf):
        np.testing.assert_allclose(J[f, 3:] @ v, (pp[f, 9:] - pm[f, 9:]) / (2 * eps), atol=1e-8)
        R = p0[f, :9].reshape(3, 3)
        W = ((pp[f, :9] - pm[f, :9]).reshape(3, 3) / (2 * eps)) @ R.T
        np.testing.assert_allclose(J[f, :3] @ v, [W[2, 1], W[0, 2], W[1, 0]], atol=1e-8)
