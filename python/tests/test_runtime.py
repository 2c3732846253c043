"""The package's results against mbdc's generic runtime (runtime/, the reference every
generated function is checked against in C): the runtime's sources, the model as data
(P_model.c, generated beside the functions) and a small C shim are compiled into a second
shared library, called through ctypes at the same random states."""

import ctypes
import os
import shutil
import subprocess

import numpy as np
import pytest

SHIM = r"""
#include <stdlib.h>
#include "%(p)s_model.h"
static mb_workspace ws;
static void *buf;
static int ready(void) {
  if (!buf) {
    buf = malloc(mb_workspace_size(&%(p)s_model));
    if (!buf || mb_workspace_init(&ws, &%(p)s_model, buf) != MB_OK) return 0;
  }
  return 1;
}
int ref_rnea(const double *q, const double *v, const double *a, double *tau) {
  return ready() ? mb_rnea(&%(p)s_model, &ws, q, v, a, NULL, tau) : -9;
}
int ref_crba(const double *q, double *M) {
  return ready() ? mb_crba(&%(p)s_model, &ws, q, M) : -9;
}
int ref_aba(const double *q, const double *v, const double *tau, double *qdd) {
  return ready() ? mb_aba(&%(p)s_model, &ws, q, v, tau, NULL, qdd) : -9;
}
"""


@pytest.fixture(scope="module")
def reference(panda, repo, tmp_path_factory):
    runtime = repo / "runtime"
    if not (runtime / "mb.h").is_file():
        pytest.skip("no runtime sources at %s" % runtime)
    cc = os.environ.get("CC") or "cc"
    if shutil.which(cc) is None:
        pytest.skip("no C compiler")
    d = tmp_path_factory.mktemp("reference")
    p = panda.prefix
    (d / "shim.c").write_text(SHIM % {"p": p})
    srcs = sorted(str(s) for s in runtime.glob("*.c"))
    cmd = [cc, "-O1", "-std=c99", "-D_POSIX_C_SOURCE=200809L", "-fPIC", "-shared",
           "-I", str(runtime), "-I", str(panda.directory), str(d / "shim.c"),
           str(panda.directory / ("%s_model.c" % p)), *srcs, "-o", str(d / "libref.so"), "-lm"]
    subprocess.run(cmd, check=True, capture_output=True)
    lib = ctypes.CDLL(str(d / "libref.so"))
    for f in (lib.ref_rnea, lib.ref_crba, lib.ref_aba):
        f.restype = ctypes.c_int
    return lib


def ptr(x):
    return x.ctypes.data_as(ctypes.c_void_p)


def test_against_runtime(panda, reference):
    rng = np.random.default_rng(11)
    n = 40
    q = rng.uniform(np.maximum(panda.q_min, -3), np.minimum(panda.q_max, 3), (n, panda.nq))
    v = rng.uniform(-1, 1, (n, panda.nv))
    a = rng.uniform(-1, 1, (n, panda.nv))
    tau = panda.rnea(q, v, a)
    M = panda.crba(q)
    qdd = panda.aba(q, v, tau)
    for i in range(n):
        t, m, x = np.empty(panda.nv), np.empty((panda.nv, panda.nv)), np.empty(panda.nv)
        qi, vi, ai = (np.ascontiguousarray(y[i]) for y in (q, v, a))
        assert reference.ref_rnea(ptr(qi), ptr(vi), ptr(ai), ptr(t)) == 0
        assert reference.ref_crba(ptr(qi), ptr(m)) == 0
        ti = np.ascontiguousarray(tau[i])
        assert reference.ref_aba(ptr(qi), ptr(vi), ptr(ti), ptr(x)) == 0
        scale = max(1.0, np.abs(t).max())
        np.testing.assert_allclose(tau[i], t, rtol=0, atol=1e-10 * scale)
        np.testing.assert_allclose(M[i], m, rtol=0, atol=1e-10)
        np.testing.assert_allclose(qdd[i], x, rtol=0, atol=1e-9)
