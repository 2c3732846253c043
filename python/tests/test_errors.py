"""What goes wrong, and what the package says: mbdc's located errors, the C compiler's, wrong
shapes and arguments, failing states."""

import os
import stat

import numpy as np
import pytest

import mbdc

BAD = """model bad;
body a { mass 1; com 0 0 0; inertia 1 1 1;
joint j revolute world -> a { axis 0 0 1; }
"""


def leftovers(cache):
    return [p.name for p in cache.iterdir() if p.name.startswith(".")]


def test_syntax_error_is_a_located_model_error(tmp_path, mbdc_exe):
    model = tmp_path / "bad.mbd"
    model.write_text(BAD)
    cache = tmp_path / "cache"
    with pytest.raises(mbdc.ModelError) as e:
        mbdc.compile(model, cache_dir=cache, mbdc=mbdc_exe)
    err = e.value
    assert "%s:3:1: error: " % model in str(err)
    assert err.errors and err.errors[0][:4] == (str(model), 3, 1, "error")
    assert err.returncode == 1
    assert leftovers(cache) == []


def test_semantic_error_is_a_located_model_error(tmp_path, mbdc_exe):
    model = tmp_path / "unknown.mbd"
    model.write_text(BAD.replace("1 1 1;", "1 1 1; }").replace("-> a", "-> b"))
    with pytest.raises(mbdc.ModelError) as e:
        mbdc.compile(model, cache_dir=tmp_path / "cache", mbdc=mbdc_exe)
    (path, line, col, severity, text), *_ = e.value.errors
    assert (path, line, severity) == (str(model), 3, "error") and col > 1 and "b" in text


def test_missing_model(tmp_path, mbdc_exe):
    with pytest.raises(FileNotFoundError):
        mbdc.compile(tmp_path / "none.mbd", cache_dir=tmp_path, mbdc=mbdc_exe)


def test_missing_mbdc(tmp_path, repo):
    with pytest.raises(mbdc.MbdcError, match="no executable"):
        mbdc.compile(repo / "examples/double_pendulum.mbd", cache_dir=tmp_path,
                     mbdc=str(tmp_path / "no-mbdc"))


def test_compiler_not_found(tmp_path, repo, mbdc_exe):
    cache = tmp_path / "cache"
    with pytest.raises(mbdc.CompileError, match="cannot run"):
        mbdc.compile(repo / "examples/double_pendulum.mbd", functions=["rnea"], batch=False,
                     cache_dir=cache, mbdc=mbdc_exe, cc=str(tmp_path / "no-cc"))
    assert leftovers(cache) == []


def test_compiler_failure_shows_its_output(tmp_path, repo, mbdc_exe):
    cc = tmp_path / "failing-cc"
    cc.write_text("#!/bin/sh\necho \"failing-cc: error: out of registers in $*\" >&2\n"
                  "exit 1\n")
    cc.chmod(cc.stat().st_mode | stat.S_IXUSR)
    cache = tmp_path / "cache"
    with pytest.raises(mbdc.CompileError) as e:
        mbdc.compile(repo / "examples/double_pendulum.mbd", functions=["rnea"], batch=False,
                     cache_dir=cache, mbdc=mbdc_exe, cc=str(cc))
    assert "failing-cc: error: out of registers" in str(e.value)
    assert "double_pendulum_dynamics.c" in str(e.value)
    assert e.value.returncode == 1
    assert leftovers(cache) == []
    # nothing was cached: a working compiler builds it
    m = mbdc.compile(repo / "examples/double_pendulum.mbd", functions=["rnea"], batch=False,
                     cache_dir=cache, mbdc=mbdc_exe)
    assert m.rnea([0, 0], [0, 0], [0, 0]).shape == (2,)


def test_wrong_shapes(pendulum):
    z = np.zeros(2)
    with pytest.raises(ValueError, match=r"rnea: argument q: expected shape \(2,\).*"
                                         r"got \(3,\)"):
        pendulum.rnea(np.zeros(3), z, z)
    with pytest.raises(ValueError, match=r"argument a: .*got \(5, 3\)"):
        pendulum.rnea(z, z, np.zeros((5, 3)))
    with pytest.raises(ValueError, match=r"argument fext: expected shape \(3, 6\) or \(18,\)"):
        pendulum.rnea_ext(z, z, z, np.zeros(17))
    with pytest.raises(ValueError, match="do not broadcast"):
        pendulum.rnea(np.zeros((4, 2)), np.zeros((5, 2)), z)
    # fext flat or one wrench per body
    f = np.arange(18.0)
    np.testing.assert_array_equal(pendulum.rnea_ext(z, z, z, f),
                                  pendulum.rnea_ext(z, z, z, f.reshape(3, 6)))


def test_wrong_arguments(pendulum):
    z = np.zeros(2)
    with pytest.raises(TypeError, match="missing argument: a"):
        pendulum.rnea(z, z)
    with pytest.raises(TypeError, match="unexpected keyword argument 'tau'"):
        pendulum.rnea(z, z, tau=z)
    with pytest.raises(TypeError, match="multiple values"):
        pendulum.rnea(z, z, z, q=z)
    assert np.array_equal(pendulum.rnea(a=z, v=z, q=z), pendulum.gravity(z))


def test_failed_state_raises(pendulum):
    q = np.array([np.nan, 0.0])
    with pytest.raises(mbdc.DynamicsError, match="aba returned -1"):
        pendulum.aba(q, np.zeros(2), np.zeros(2))
    qdd, status = pendulum.aba(q, np.zeros(2), np.zeros(2), check=False)
    assert status == -1 and qdd.shape == (2,)
    assert pendulum.aba(np.zeros(2), np.zeros(2), np.zeros(2), check=False)[1] == 0


def test_error_hierarchy():
    assert issubclass(mbdc.ModelError, mbdc.MbdcError)
    assert issubclass(mbdc.CompileError, mbdc.MbdcError)
    assert issubclass(mbdc.DynamicsError, ArithmeticError)


def test_find_mbdc(monkeypatch, tmp_path, mbdc_exe):
    """The argument, else $MBDC, else mbdc on PATH, else the build trees beside the sources."""
    assert mbdc.find_mbdc(mbdc_exe) == os.path.abspath(mbdc_exe)
    monkeypatch.setenv("MBDC", mbdc_exe)
    assert mbdc.find_mbdc() == os.path.abspath(mbdc_exe)
    monkeypatch.setenv("MBDC", str(tmp_path / "none"))
    with pytest.raises(mbdc.MbdcError, match=r"\$MBDC names no executable"):
        mbdc.find_mbdc()
    monkeypatch.delenv("MBDC")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "mbdc").symlink_to(mbdc_exe)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert mbdc.find_mbdc() == str(tmp_path / "bin" / "mbdc")
    monkeypatch.setenv("PATH", str(tmp_path))
    try:
        found = mbdc.find_mbdc()
    except mbdc.MbdcError as e:
        assert "cannot find the mbdc executable" in str(e)
    else:
        assert found.endswith(os.path.join("generator", "mbdc"))
