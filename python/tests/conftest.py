"""Fixtures: the source tree, the mbdc executable and the models the tests compile, each once
per session into a temporary cache (so that every run tests the current mbdc)."""

import os
import sys
import warnings
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = Path(os.environ.get("MBDC_SOURCE_DIR") or HERE.parent.parent)
sys.path.insert(0, str(HERE.parent))  # the package next to the tests, before any installed one

import mbdc  # noqa: E402

# The models every test reads; compiled lazily, once per session.
MODELS = {
    # the closed-form double pendulum, every default function, batch functions when mbdc has
    # them
    "pendulum": dict(model="examples/double_pendulum.mbd"),
    # the same, no batch functions: batches loop over the single-state functions
    "pendulum_loop": dict(model="examples/double_pendulum.mbd", batch=False),
    # run-time parameters: every body's inertias and gravity
    "pendulum_pi": dict(model="examples/double_pendulum.mbd", batch=False,
                        functions=["rnea", "gravity", "crba", "aba"],
                        parameters="all,gravity"),
    "pendulum_float": dict(model="examples/double_pendulum.mbd", scalar="float",
                           functions=["rnea", "crba", "aba"]),
    # a helical and a spherical joint: nq 5, nv 4, a quaternion
    "gimbal": dict(model="examples/gimbal.mbd",
                   functions=["rnea", "nle", "crba", "aba", "integrate", "difference"]),
    # a closed loop: in-place projections, rcr's int output
    "five_bar": dict(model="examples/five_bar.mbd",
                     functions=["rcr", "fd_loops", "loop_residual", "loop_jacobian"]),
    # hybrid dynamics: the run-time mask (an int array) and a pattern folded in
    "cart_pole_hybrid": dict(model="examples/cart_pole.mbd", functions=["hybrid", "hybrid_fixed",
                             "rnea", "aba"], prescribed="slider"),
    # a real arm, one state at a time
    "panda": dict(model="examples/urdf/panda.urdf", batch=False,
                  functions=["rnea", "nle", "gravity", "crba", "aba", "minv", "crba_fd",
                             "com_jacobian", "energy", "frame_pose", "frame_jacobian_world"]),
}


@pytest.fixture(scope="session")
def repo():
    return REPO


@pytest.fixture(scope="session")
def mbdc_exe():
    try:
        return mbdc.find_mbdc()
    except mbdc.MbdcError as e:
        pytest.skip(str(e))


@pytest.fixture(scope="session")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="session")
def compiled(cache, mbdc_exe):
    """compiled(name): the model MODELS[name], compiled once per session."""
    done = {}

    def get(name):
        if name not in done:
            opts = dict(MODELS[name])
            model = REPO / opts.pop("model")
            with warnings.catch_warnings():
                # mbdc's warnings (the Panda's mimic joint) are not the tests' subject
                warnings.simplefilter("ignore", mbdc.MbdcWarning)
                done[name] = mbdc.compile(model, cache_dir=cache, mbdc=mbdc_exe, **opts)
        return done[name]
    return get


@pytest.fixture(scope="session")
def pendulum(compiled):
    return compiled("pendulum")


@pytest.fixture(scope="session")
def panda(compiled):
    return compiled("panda")
