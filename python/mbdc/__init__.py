"""mbdc from Python: compile a robot model (.mbd or URDF) with the multibody dynamics compiler
and call the generated C functions on numpy arrays, one state or many at once.

    import mbdc
    m = mbdc.compile("panda.urdf", functions=["rnea", "crba", "aba"])
    tau = m.rnea(q, v, a)          # q of shape (nq,) or (N, nq): tau (nv,) or (N, nv)

See docs/python.md in mbdc's sources."""

from ._build import MbdcWarning, build as _build, cache_root, find_mbdc, stats
from ._model import Function, Model
from .errors import CompileError, DynamicsError, MbdcError, ModelError

__version__ = "0.1.0"
__all__ = ["compile", "load", "Model", "Function", "MbdcError", "ModelError", "CompileError",
           "DynamicsError", "MbdcWarning", "cache_root", "find_mbdc", "stats"]


def compile(model, functions=None, floating_base=False, contacts=None, scalar="double",
            parameters=None, prefix=None, batch=True, cache_dir=None, mbdc=None, cc=None,
            cflags=None, extra_args=(), threads=False, rebuild=False, prescribed=None):
    """Generate MODEL's dynamics with mbdc, compile them into a shared library and load it.

    model          path of a .mbd or .urdf file
    functions      names (a list or "rnea,crba"): mbdc generate --functions; None: mbdc's
                   default set
    floating_base  --floating-base (URDF: the root link moves freely)
    contacts       frames in contact ("FOOT" or "FOOT:6"), a list or a string: --contacts
    prescribed     joints whose dofs hybrid_fixed prescribes, a list or a string: --prescribed
    scalar         "double" or "float": --scalar
    parameters     bodies, "all", "gravity" (a list or a string): --parameters; the functions
                   then take pi=..., default Model.pi (the model file's values)
    prefix         the C prefix (default: the model's name)
    batch          pass --batch when this mbdc offers it (the P_f_batch functions); without
                   them batches loop over the single-state functions in Python
    cache_dir      the cache (default $MBDC_CACHE, else $XDG_CACHE_HOME/mbdc or ~/.cache/mbdc)
    mbdc           the mbdc executable (default $MBDC, mbdc on PATH, the source tree's build)
    cc, cflags     the C compiler (default $CC, else cc) and its flags (default -O2 -std=c99;
                   -fPIC -shared are always added)
    threads        compile with -fopenmp and call P_f_batch_threads: a batch shared among
                   OpenMP's threads (OMP_NUM_THREADS)
    extra_args     more options for mbdc generate (e.g. ["--fuse", "ctl=rnea,crba"])
    rebuild        build again even when the cache has the entry

    The result is cached under a hash of the model file's bytes, these options, mbdc's
    version and executable, and the compiler: the same call again loads the library without
    running mbdc or the compiler. Raises ModelError (mbdc rejected the model: the message has
    its file:line:col diagnostics), CompileError (the compiler failed), MbdcError (mbdc could
    not be found or run)."""
    entry, info = _build(model, functions=functions, floating_base=floating_base,
                         contacts=contacts, scalar=scalar, parameters=parameters, prefix=prefix,
                         batch=batch, cache_dir=cache_dir, mbdc=mbdc, cc=cc, cflags=cflags,
                         extra_args=extra_args, threads=threads, rebuild=rebuild,
                         prescribed=prescribed)
    return Model(entry, info)


def load(directory):
    """Load a cache entry (Model.directory of an earlier compile) without checking its key."""
    return Model(directory)
