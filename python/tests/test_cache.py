"""The cache: a second compile with the same inputs runs neither mbdc nor the compiler (in
this process, and in a new one), other inputs make other entries, and two processes
compiling at once both get one complete entry."""

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import mbdc

PACKAGE = str(Path(__file__).resolve().parent.parent)


def entries(cache):
    return sorted(p.name for p in Path(cache).iterdir() if p.name != "tools")


def logging_wrapper(path, real, log):
    """An executable that appends its arguments to LOG, then runs REAL."""
    path.write_text('#!/bin/sh\necho "$*" >> "%s"\nexec "%s" "$@"\n' % (log, real))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_second_compile_runs_nothing(tmp_path, repo, mbdc_exe):
    model = repo / "examples/double_pendulum.mbd"
    cache = tmp_path / "cache"
    before = dict(mbdc.stats)
    m1 = mbdc.compile(model, functions=["rnea", "crba"], batch=False, cache_dir=cache,
                      mbdc=mbdc_exe)
    assert mbdc.stats["mbdc"] == before["mbdc"] + 1 and mbdc.stats["cc"] == before["cc"] + 1
    stamp = (m1.directory / "entry.json").stat().st_mtime_ns
    lib_stamp = m1.library_path.stat().st_mtime_ns
    m2 = mbdc.compile(model, functions=["rnea", "crba"], batch=False, cache_dir=cache,
                      mbdc=mbdc_exe)
    assert mbdc.stats["mbdc"] == before["mbdc"] + 1 and mbdc.stats["cc"] == before["cc"] + 1
    assert m2.directory == m1.directory and entries(cache) == [m1.directory.name]
    assert (m2.directory / "entry.json").stat().st_mtime_ns == stamp
    assert m2.library_path.stat().st_mtime_ns == lib_stamp
    assert list(m2.rnea([0.1, 0.2], [0, 0], [0, 0])) == list(m1.rnea([0.1, 0.2], [0, 0], [0, 0]))
    # rebuild=True builds it again, into the same place
    m3 = mbdc.compile(model, functions=["rnea", "crba"], batch=False, cache_dir=cache,
                      mbdc=mbdc_exe, rebuild=True)
    assert mbdc.stats["mbdc"] == before["mbdc"] + 2
    assert m3.directory == m1.directory and entries(cache) == [m1.directory.name]


def test_new_process_runs_no_tool(tmp_path, repo, mbdc_exe):
    """mbdc and cc wrapped by scripts that log every call: the first compile runs mbdc
    (--version, generate --help, generate) and cc; a second one in a new process runs
    neither."""
    log = tmp_path / "calls.log"
    fake_mbdc = logging_wrapper(tmp_path / "mbdc", mbdc_exe, log)
    fake_cc = logging_wrapper(tmp_path / "cc", "cc", log)
    script = textwrap.dedent("""
        import sys
        sys.path.insert(0, %r)
        import mbdc
        m = mbdc.compile(%r, functions="rnea", batch=False, cache_dir=%r, mbdc=%r, cc=%r)
        print(m.directory, mbdc.stats["mbdc"], mbdc.stats["cc"])
    """ % (PACKAGE, str(repo / "examples/double_pendulum.mbd"), str(tmp_path / "cache"),
           fake_mbdc, fake_cc))
    out1 = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True).stdout.split()
    calls = log.read_text().splitlines()
    assert out1[1:] == ["1", "1"]
    assert calls[0] == "--version" and calls[1] == "generate --help"
    assert calls[2].startswith("generate ") and "-fPIC" in calls[3]
    assert len(calls) == 4
    out2 = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True).stdout.split()
    assert out2 == [out1[0], "0", "0"]
    assert log.read_text().splitlines() == calls


def test_key(tmp_path, repo, mbdc_exe):
    """The same bytes at another path: the same entry; other bytes, other options, another
    compiler: another entry."""
    src = (repo / "examples/double_pendulum.mbd").read_bytes()
    a, b, c = tmp_path / "a.mbd", tmp_path / "b.mbd", tmp_path / "c.mbd"
    a.write_bytes(src)
    b.write_bytes(src)
    c.write_bytes(src + b"\n# a comment\n")
    cache = tmp_path / "cache"
    opts = dict(functions=["rnea"], batch=False, cache_dir=cache, mbdc=mbdc_exe)
    ma = mbdc.compile(a, **opts)
    n = mbdc.stats["mbdc"]
    assert mbdc.compile(b, **opts).directory == ma.directory
    assert mbdc.stats["mbdc"] == n
    assert mbdc.compile(c, **opts).directory.name != ma.directory.name
    opts2 = dict(opts, functions=["rnea", "gravity"])
    assert mbdc.compile(a, **opts2).directory != ma.directory
    opts3 = dict(opts, cflags=["-O1", "-std=c99"])
    assert mbdc.compile(a, **opts3).directory != ma.directory
    assert mbdc.stats["mbdc"] == n + 3


def test_concurrent_compiles(tmp_path, repo, mbdc_exe):
    script = textwrap.dedent("""
        import sys
        sys.path.insert(0, %r)
        import mbdc
        m = mbdc.compile(%r, functions="rnea,crba,aba", batch=False, cache_dir=%r, mbdc=%r)
        print(m.directory, float(m.crba([0.0, 0.5])[0, 0]))
    """ % (PACKAGE, str(repo / "examples/double_pendulum.mbd"), str(tmp_path / "cache"),
           mbdc_exe))
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [p.communicate() for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    lines = {o[0].strip() for o in outs}
    assert len(lines) == 1
    cache = tmp_path / "cache"
    assert len(entries(cache)) == 1 and not [e for e in entries(cache) if e.startswith(".")]
    info = json.loads((cache / entries(cache)[0] / "entry.json").read_text())
    assert info["mbdc_args"] == ["--functions", "rnea,crba,aba"]


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("MBDC_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert mbdc.cache_root() == tmp_path / "xdg" / "mbdc"
    monkeypatch.setenv("MBDC_CACHE", str(tmp_path / "c"))
    assert mbdc.cache_root() == tmp_path / "c"
    assert mbdc.cache_root(tmp_path / "d") == tmp_path / "d"
    monkeypatch.delenv("MBDC_CACHE")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert mbdc.cache_root() == tmp_path / "home" / ".cache" / "mbdc"
    assert os.fspath(mbdc.cache_root()).endswith(".cache/mbdc")
