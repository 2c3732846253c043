"""A compiled model: the shared library of P_dynamics.c loaded with ctypes, every function of
its header as a method taking and returning numpy arrays."""

import ctypes
import inspect
import keyword
import json
import math
from pathlib import Path

import numpy as np

from ._header import Header
from .errors import DynamicsError

_DTYPE = {"double": np.dtype(np.float64), "float": np.dtype(np.float32),
          "int": np.dtype(np.intc)}
_CTYPE = {"double": ctypes.c_double, "float": ctypes.c_float, "int": ctypes.c_int}


def _pyname(name):
    """A C parameter's name in Python: a Python keyword gets a trailing underscore (hybrid's
    in -> in_, as PEP 8 advises)."""
    return name + "_" if keyword.iskeyword(name) else name


_SLOW = object()
_BATCH_SUFFIXES = ("_batch", "_batch_range", "_batch_threads")


def _fmt(shape):
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


class Function:
    """One generated function, callable on numpy arrays.

    Inputs are the C function's const arrays and scalars, in its order, positionally or by
    their C names; outputs are returned (a tuple when there are several). Each input has the
    shape the header gives it (Function.shapes), or flat (its size), after any leading batch
    dimensions; the batch shapes broadcast against each other and lead every output. A
    function returning int raises DynamicsError when a state fails, unless check=False: then
    the status is returned last (an int, or an array over the batch shape). One state: the
    outputs are views of one new buffer; a batch: new arrays."""

    def __init__(self, model, decl, batch_decl):
        self.model = model
        self.name = decl.cname[len(model.prefix) + 1:]
        self.cname = decl.cname
        self.declaration = decl.line
        self.returns_status = decl.ret == "int"
        self.__doc__ = "%s\n\nC: %s" % (decl.comment, decl.line)
        self.__name__ = self.name
        npi = model.prefix.upper() + "_NPI"
        self._params = decl.params
        self._pi = None
        self.inputs = []
        for p in decl.params:
            if p.kind == "in" and p.expr == npi and self._pi is None and p is decl.params[0]:
                self._pi = p
            elif p.kind in ("in", "inout"):
                self.inputs.append(p)
        self.outputs = [p for p in decl.params if p.kind in ("out", "inout")]
        self._index = {_pyname(p.name): i for i, p in enumerate(self.inputs)}
        self.shapes = {p.name: p.shape for p in decl.params if p.kind != "n"}

        cfunc = getattr(model._lib, decl.cname)
        cfunc.argtypes = [ctypes.c_void_p if p.pointer else _CTYPE[p.ctype]
                          for p in decl.params]
        cfunc.restype = ctypes.c_int if self.returns_status else None
        self._cfunc = cfunc
        self._bfunc = None
        if batch_decl is not None:
            bparams = batch_decl.params
            extra = 1 if self.returns_status else 0
            ok = (len(bparams) == len(decl.params) + 1 + extra and bparams[0].kind == "n"
                  and all(b.name == p.name for b, p in zip(bparams[1:], decl.params)))
            if ok:
                bfunc = getattr(model._lib, batch_decl.cname)
                bfunc.argtypes = [ctypes.c_int] + [ctypes.c_void_p] * (len(bparams) - 1)
                bfunc.restype = ctypes.c_int if batch_decl.ret == "int" else None
                self._bfunc = bfunc
                self.batch_declaration = batch_decl.line
        # The fast path of one state: every argument an array of the scalar type, all of
        # them in one buffer (one allocation, one address), the outputs views of it.
        kinds = {p.ctype for p in decl.params}
        self._fast = None
        if all(p.pointer and p.size for p in decl.params) and len(kinds) == 1 and \
                "int" not in kinds:
            dtype = _DTYPE[kinds.pop()]
            ins, outs, offsets, off = [], [], [], 0
            for p in decl.params:
                if p.kind == "out":
                    outs.append((off, off + p.size, p.shape))
                else:
                    ins.append((p.shape, (p.size,), off, off + p.size))
                    if p.kind == "inout":
                        outs.append((off, off + p.size, p.shape))
                offsets.append(off * dtype.itemsize)
                off += p.size
            self._fast = (dtype, off, ins, offsets, outs)
        self._nin = len(self.inputs)
        self._keywords = set()
        if self._pi is not None:
            self._keywords.add("pi")
        if self.returns_status:
            self._keywords.add("check")
        params = [inspect.Parameter(_pyname(p.name), inspect.Parameter.POSITIONAL_OR_KEYWORD)
                  for p in self.inputs]
        if self._pi is not None:
            params.append(inspect.Parameter("pi", inspect.Parameter.KEYWORD_ONLY, default=None))
        if self.returns_status:
            params.append(inspect.Parameter("check", inspect.Parameter.KEYWORD_ONLY,
                                            default=True))
        self.__signature__ = inspect.Signature(params)

    @property
    def has_batch(self):
        """True when the library has this function's P_f_batch (else batches loop in
        Python)."""
        return self._bfunc is not None

    def __repr__(self):
        return "<mbdc function %s%s>" % (self.name, self.__signature__)

    def _bind(self, args, kwargs):
        check = kwargs.pop("check", True) if self.returns_status else True
        pi = kwargs.pop("pi", None) if self._pi is not None else None
        if len(args) > len(self.inputs):
            raise TypeError("%s() takes %d positional arguments (%s), %d given" %
                            (self.name, len(self.inputs),
                             ", ".join(p.name for p in self.inputs), len(args)))
        values = list(args) + [None] * (len(self.inputs) - len(args))
        given = [True] * len(args) + [False] * (len(self.inputs) - len(args))
        for k, val in kwargs.items():
            i = self._index.get(k)
            if i is None:
                raise TypeError("%s() got an unexpected keyword argument '%s'" % (self.name, k))
            if given[i]:
                raise TypeError("%s() got multiple values for argument '%s'" % (self.name, k))
            values[i], given[i] = val, True
        missing = [p.name for p, g in zip(self.inputs, given) if not g]
        if missing:
            raise TypeError("%s() missing argument%s: %s" %
                            (self.name, "s" if len(missing) > 1 else "", ", ".join(missing)))
        vals = {p.name: v for p, v in zip(self.inputs, values)}
        if self._pi is not None:
            vals[self._pi.name] = self.model.pi if pi is None else pi
        return vals, check

    def _prepare(self, p, x):
        """x as an array of p's dtype, and its batch shape (the dimensions before p's)."""
        a = np.asarray(x, dtype=_DTYPE[p.ctype])
        if not p.pointer:
            return a, a.shape
        cs = p.shape
        nd = len(cs)
        if a.ndim >= nd and a.shape[a.ndim - nd:] == cs:
            batch = a.shape[:a.ndim - nd]
        elif a.ndim >= 1 and a.shape[-1] == p.size:
            batch = a.shape[:-1]
        else:
            want = _fmt(cs) if cs == (p.size,) else "%s or (%d,)" % (_fmt(cs), p.size)
            raise ValueError("%s: argument %s: expected shape %s (after any batch dimensions), "
                             "got %s" % (self.name, p.name, want, _fmt(a.shape)))
        return a.reshape(batch + (p.size,)), batch

    def __call__(self, *args, **kwargs):
        if self._fast is not None and len(args) == self._nin and (
                not kwargs or kwargs.keys() <= self._keywords):
            result = self._fast_call(args, kwargs)
            if result is not _SLOW:
                return result
        vals, check = self._bind(args, kwargs)
        arrays = {}
        batches = []
        for p in self._params:
            if p.kind in ("in", "inout"):
                arrays[p.name], b = self._prepare(p, vals[p.name])
                batches.append(b)
        try:
            batch = np.broadcast_shapes(*batches) if batches else ()
        except ValueError:
            raise ValueError("%s: the batch dimensions of the arguments do not broadcast: %s" %
                             (self.name, ", ".join(
                                 "%s %s" % (p.name, _fmt(arrays[p.name].shape))
                                 for p in self._params if p.name in arrays))) from None
        if batch == ():
            return self._single(arrays, check)
        return self._batch(arrays, batch, check)

    def _fast_call(self, args, kwargs):
        dtype, total, ins, offsets, outs = self._fast
        if self._pi is not None:
            pi = kwargs.get("pi")
            args = (self.model.pi if pi is None else pi,) + args
        buf = np.empty(total, dtype)
        for (shape, flat, lo, hi), x in zip(ins, args):
            a = np.asarray(x)
            if a.shape != shape and a.shape != flat:
                return _SLOW  # a batch, or a wrong shape: the general path says which
            buf[lo:hi] = a if a.ndim == 1 else a.reshape(-1)
        base = buf.ctypes.data
        status = self._cfunc(*[base + o for o in offsets])
        if len(outs) == 1 and not self.returns_status:
            lo, hi, shape = outs[0]
            return buf[lo:hi].reshape(shape)
        results = [buf[lo:hi].reshape(shape) for lo, hi, shape in outs]
        return self._one_state_results(results, status, kwargs.get("check", True))

    def _single(self, arrays, check):
        cargs = []
        outs = []
        keep = []
        for p in self._params:
            dt = _DTYPE[p.ctype]
            if p.kind == "in":
                a = arrays[p.name]
                if not p.pointer:
                    cargs.append(a.item())
                    continue
                a = np.ascontiguousarray(a)
                keep.append(a)
                cargs.append(a.ctypes.data)
            else:
                if p.kind == "inout":
                    o = np.array(arrays[p.name], dtype=dt, order="C")
                else:
                    o = np.empty(p.size or 1, dtype=dt)
                outs.append((p, o))
                cargs.append(o.ctypes.data)
        status = self._cfunc(*cargs)
        results = [o.reshape(p.shape) if p.shape else o[0].item() for p, o in outs]
        return self._one_state_results(results, status, check)

    def _one_state_results(self, results, status, check):
        """One state's outputs (a tuple when several); an int function's status raised as
        DynamicsError when negative and check, else appended."""
        if self.returns_status:
            if check and status < 0:
                raise DynamicsError("%s returned %d: %s" %
                                    (self.name, status, self._failure_text()), self.name,
                                    status, [()])
            if not check:
                results.append(status)
        return results[0] if len(results) == 1 else tuple(results)

    def _failure_text(self):
        return ("a pivot failed (a singular system) or an output is not finite "
                "(NaN or Inf in the inputs?)")

    def _rows(self, arrays, batch, n):
        """Per parameter: (p, its numpy dtype, its size, its values as an (n, size) array, broadcast
        over the batch, for an input or an in-out argument; None for an output)."""
        for p in self._params:
            size = p.size or 1
            rows = None
            if p.kind in ("in", "inout"):
                shape = batch + ((size,) if p.pointer else ())
                rows = np.broadcast_to(arrays[p.name], shape).reshape(n, size)
            yield p, _DTYPE[p.ctype], size, rows

    def _batch(self, arrays, batch, check):
        n = math.prod(batch)
        outs = []
        status = np.zeros(n, dtype=np.intc)
        if n > 0 and self._bfunc is not None:
            cargs = [n]
            keep = []
            for p, dt, size, rows in self._rows(arrays, batch, n):
                if rows is None:
                    a = np.empty((size, n), dtype=dt)
                    outs.append((p, a))
                elif p.kind == "inout":
                    a = np.array(rows.T, dtype=dt, order="C")
                    outs.append((p, a))
                else:
                    a = np.ascontiguousarray(rows.T, dtype=dt)
                keep.append(a)
                cargs.append(a.ctypes.data)
            if self.returns_status:
                cargs.append(status.ctypes.data)
            self._bfunc(*cargs)
            results = [np.ascontiguousarray(a.T).reshape(batch + p.shape) for p, a in outs]
        else:
            steps = []
            keep = []
            for p, dt, size, rows in self._rows(arrays, batch, n):
                if rows is None:
                    a = np.empty((n, size), dtype=dt)
                    outs.append((p, a))
                else:
                    a = np.array(rows, dtype=dt, order="C")
                    if p.kind == "inout":
                        outs.append((p, a))
                    if not p.pointer:
                        steps.append((None, a.reshape(n).tolist()))
                        continue
                keep.append(a)
                steps.append((a.ctypes.data, size * dt.itemsize))
            f = self._cfunc
            for i in range(n):
                r = f(*[b + i * s if b is not None else s[i] for b, s in steps])
                if r is not None:
                    status[i] = r
            results = [a.reshape(batch + p.shape) for p, a in outs]
        if self.returns_status:
            st = status.reshape(batch)
            if check and (st < 0).any():
                bad = np.argwhere(st < 0)
                failed = [tuple(int(i) for i in b) if len(batch) > 1 else int(b[0])
                          for b in bad]
                shown = ", ".join(str(f) for f in failed[:10])
                raise DynamicsError("%s failed for %d of %d states (%s%s): %s" %
                                    (self.name, len(failed), n, shown,
                                     ", ..." if len(failed) > 10 else "",
                                     self._failure_text()), self.name, st, failed)
            if not check:
                results.append(st)
        return results[0] if len(results) == 1 else tuple(results)


class Model:
    """A generated and compiled model (mbdc.compile returns one).

    Every function of the header is a method (m.rnea, m.crba, ...; m.function(name) finds any
    of them); m.functions lists their names. Sizes: m.nq, m.nv, m.nb, m.nj, m.nf and every
    other number the header defines (m.constants, without the prefix). Tables: m.joint_names,
    m.coord_names, m.body_names, m.frame_names, m.q_min, m.q_max, m.v_max, m.tau_max,
    m.q_initial, m.v_initial and the rest of the header's extern arrays (m.tables)."""

    def __init__(self, directory, info=None):
        self.directory = Path(directory)
        if info is None:
            try:
                info = json.loads((self.directory / "entry.json").read_text())
            except OSError:
                info = {}
        self.info = info
        headers = sorted(self.directory.glob("*_dynamics.h"))
        if info.get("prefix"):
            self.prefix = info["prefix"]
        elif len(headers) == 1:
            self.prefix = headers[0].name[: -len("_dynamics.h")]
        else:
            raise ValueError("%s: expected one *_dynamics.h" % directory)
        self.header_path = self.directory / ("%s_dynamics.h" % self.prefix)
        self.source_path = self.directory / ("%s_dynamics.c" % self.prefix)
        self.library_path = self.directory / info.get("library", "lib%s.so" % self.prefix)
        self.header = self.header_path.read_text()
        self._lib = ctypes.CDLL(str(self.library_path))
        h = Header(self.header, self.prefix)
        up = self.prefix.upper() + "_"
        self.constants = {k[len(up):]: v for k, v in h.constants.items() if k.startswith(up)}
        self.tables = {}
        low = self.prefix + "_"
        for cname, (ctype, size) in h.tables.items():
            if not cname.startswith(low):
                continue
            try:
                if ctype == "char*":
                    raw = (ctypes.c_char_p * size).in_dll(self._lib, cname)
                    value = tuple(s.decode() if s is not None else None for s in raw)
                else:
                    raw = (_CTYPE[ctype] * size).in_dll(self._lib, cname)
                    value = np.array(raw, dtype=_DTYPE[ctype])
                    value.flags.writeable = False
            except ValueError:
                continue
            self.tables[cname[len(low):]] = value
        self.pi = None
        if "pi_model" in self.tables:
            self.pi = np.array(self.tables["pi_model"], dtype=np.float64)
        decls = h.functions
        # compile(threads=True): OpenMP's P_f_batch_threads, else P_f_batch.
        batch_suffix = "_batch_threads" if info.get("threads") else "_batch"
        self._functions = {}
        for cname, decl in decls.items():
            if not cname.startswith(low):
                continue
            if decl.params and decl.params[0].kind == "n" and cname.endswith(_BATCH_SUFFIXES):
                continue
            try:
                fn = Function(self, decl, decls.get(cname + batch_suffix))
            except AttributeError:
                continue  # declared, but not in the library
            self._functions[fn.name] = fn
        self.scalar = "double"
        for fn in self._functions.values():
            types = {p.ctype for p in fn._params if p.ctype != "int"}
            if types:
                self.scalar = types.pop()
                break
        self.dtype = _DTYPE[self.scalar]
        for name, fn in self._functions.items():
            if not hasattr(type(self), name) and name not in self.__dict__:
                setattr(self, name, fn)

    # -- sizes and names -------------------------------------------------------------------
    def _constant(macro, doc):  # noqa: N805 (a helper of the class body, not a method)
        return property(lambda self: self.constants[macro], doc=doc)

    nq = _constant("NQ", "Position coordinates (P_NQ).")
    nv = _constant("NV", "Velocity coordinates (P_NV).")
    nb = _constant("NB", "Moving bodies (P_NB; per-body arrays have nb + 1 entries, the world "
                         "first).")
    nj = _constant("NJ", "Moving joints (P_NJ).")
    nf = _constant("NF", "Operational frames (P_NF).")
    del _constant

    @property
    def functions(self):
        """The names of the generated functions, in the header's order."""
        return list(self._functions)

    @property
    def has_batch(self):
        """True when the library was generated with --batch (P_HAVE_BATCH)."""
        return self.constants.get("HAVE_BATCH") == 1

    def function(self, name):
        """The generated function NAME (without the prefix)."""
        try:
            return self._functions[name]
        except KeyError:
            raise AttributeError("model %s has no function %s (it has: %s)" %
                                 (self.prefix, name, ", ".join(self._functions))) from None

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        d = self.__dict__
        if name in d.get("tables", {}):
            return d["tables"][name]
        if name.upper() in d.get("constants", {}) and name.islower():
            return d["constants"][name.upper()]
        raise AttributeError("%s object has no attribute %s" % (type(self).__name__, name))

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.tables) |
                      {k.lower() for k in self.constants})

    def __repr__(self):
        return "<mbdc.Model %s: nq %d, nv %d, %d functions%s, %s>" % (
            self.prefix, self.nq, self.nv, len(self._functions),
            ", batch" if self.has_batch else "", self.directory)
