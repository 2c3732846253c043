"""Running mbdc and the C compiler into the cache, and finding both."""

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

from .errors import CompileError, MbdcError, ModelError

# Bumped when the layout of a cache entry or the way it is built changes.
CACHE_FORMAT = 1
# -O3 and the machine's vector width: the batch functions vectorize across states (docs/batch.md);
# ISO C99 (no contraction into fused multiply-adds): a batch is bit for bit its single calls.
DEFAULT_CFLAGS = ("-O3", "-march=native", "-std=c99")

# How many times this process ran mbdc generate and the C compiler (tests read them).
stats = {"mbdc": 0, "cc": 0}

_tool_memo = {}


class MbdcWarning(UserWarning):
    """A warning mbdc printed while generating (shown once, when the cache entry is built)."""


def cache_root(cache_dir=None):
    """The cache directory: the argument, else $MBDC_CACHE, else $XDG_CACHE_HOME/mbdc, else
    ~/.cache/mbdc."""
    if cache_dir is not None:
        return Path(cache_dir)
    if os.environ.get("MBDC_CACHE"):
        return Path(os.environ["MBDC_CACHE"])
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "mbdc"
    return Path.home() / ".cache" / "mbdc"


def find_mbdc(mbdc=None):
    """The mbdc executable: the argument (a path, or a name looked up on PATH), else $MBDC,
    else `mbdc` on PATH, else the build tree of the sources this package sits in
    (<repo>/build/generator/mbdc, then <repo>/build-rel/generator/mbdc), else <prefix>/bin/mbdc
    of the prefix it was installed into."""
    tried = []
    for cand, origin in ((mbdc, "the argument mbdc"), (os.environ.get("MBDC"), "$MBDC")):
        if not cand:
            continue
        cand = os.fspath(cand)
        if os.sep in cand:
            found = cand if os.path.isfile(cand) and os.access(cand, os.X_OK) else None
        else:
            found = shutil.which(cand)
        if found:
            return os.path.abspath(found)
        raise MbdcError("mbdc: %s names no executable: %s" % (origin, cand))
    found = shutil.which("mbdc")
    if found:
        return os.path.abspath(found)
    tried.append("mbdc on PATH")
    here = Path(__file__).resolve().parents
    # the sources' build trees (python/mbdc/ in the sources), then the bin/ of the prefix the
    # package was installed into (lib/python3.X/dist-packages/mbdc/)
    cands = [here[2] / b / "generator" / "mbdc" for b in ("build", "build-rel")]
    if len(here) > 4 and here[2].name.startswith("python3"):
        cands.append(here[4] / "bin" / "mbdc")
    for cand in cands:
        tried.append(str(cand))
        if cand.is_file() and os.access(cand, os.X_OK):
            return str(cand)
    raise MbdcError("mbdc: cannot find the mbdc executable (tried %s); pass mbdc=PATH or set "
                    "$MBDC" % ", ".join(tried))


def _sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _atomic_write(path, text):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=str(path.parent))
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def tool_info(exe, root):
    """mbdc's version (`mbdc --version`), the SHA-256 of the executable and whether
    `mbdc generate --help` offers --batch; remembered per executable (path, size and mtime)
    in this process and in ROOT/tools/, so that a cache hit runs no process at all."""
    st = os.stat(exe)
    ident = "%s\0%d\0%d" % (os.path.realpath(exe), st.st_size, st.st_mtime_ns)
    if ident in _tool_memo:
        return _tool_memo[ident]
    memo = Path(root) / "tools" / (hashlib.sha256(ident.encode()).hexdigest()[:32] + ".json")
    try:
        info = json.loads(memo.read_text())
        if info.get("format") == CACHE_FORMAT:
            _tool_memo[ident] = info
            return info
    except (OSError, ValueError):
        pass
    try:
        version = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True)
        helptext = subprocess.run([exe, "generate", "--help"], capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError) as e:
        raise MbdcError("mbdc: cannot run %s --version: %s" % (exe, e)) from e
    info = {"format": CACHE_FORMAT, "version": version.stdout.strip(),
            "sha256": _sha256_file(exe),
            "batch": re.search(r"--batch\b", helptext.stdout + helptext.stderr) is not None}
    _atomic_write(memo, json.dumps(info))
    _tool_memo[ident] = info
    return info


def _join(value):
    if value is None:
        return None
    if isinstance(value, (str, bytes, os.PathLike)):
        return os.fsdecode(value)
    return ",".join(str(v) for v in value)


def _check_prefix(prefix):
    if prefix is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", prefix):
        raise ValueError("prefix: %r is not a C identifier" % (prefix,))


def build(model, functions=None, floating_base=False, contacts=None, scalar="double",
          parameters=None, prefix=None, batch=True, cache_dir=None, mbdc=None, cc=None,
          cflags=None, extra_args=(), threads=False, rebuild=False, prescribed=None):
    """Generate and compile MODEL into the cache (or find it there); returns the entry's
    directory and its description (entry.json)."""
    model = os.fspath(model)
    with open(model, "rb") as f:
        model_bytes = f.read()
    if scalar not in ("double", "float"):
        raise ValueError("scalar: 'double' or 'float', got %r" % (scalar,))
    _check_prefix(prefix)
    root = cache_root(cache_dir)
    root.mkdir(parents=True, exist_ok=True)
    exe = find_mbdc(mbdc)
    tool = tool_info(exe, root)

    args = []
    if prefix is not None:
        args += ["--prefix", prefix]
    if floating_base:
        args.append("--floating-base")
    if scalar != "double":
        args += ["--scalar", scalar]
    if functions is not None:
        args += ["--functions", _join(functions)]
    if contacts is not None:
        args += ["--contacts", _join(contacts)]
    if parameters is not None:
        args += ["--parameters", _join(parameters)]
    if prescribed is not None:
        args += ["--prescribed", _join(prescribed)]
    if batch and tool["batch"]:
        args.append("--batch")
    args += [os.fspath(a) for a in extra_args]

    if cc is None:
        cc = os.environ.get("CC") or "cc"
    cc_words = shlex.split(cc) if isinstance(cc, str) else [os.fspath(w) for w in cc]
    if not cc_words:
        raise CompileError("cc: empty compiler command")
    cc_path = shutil.which(cc_words[0]) or cc_words[0]
    flags = list(DEFAULT_CFLAGS if cflags is None else cflags)
    if threads and "-fopenmp" not in flags:
        flags.append("-fopenmp")

    key_data = {
        "format": CACHE_FORMAT,
        "model_sha256": hashlib.sha256(model_bytes).hexdigest(),
        "model_suffix": os.path.splitext(model)[1].lower(),
        "mbdc_args": args,
        "mbdc_version": tool["version"],
        "mbdc_sha256": tool["sha256"],
        "cc": [os.path.realpath(cc_path)] + cc_words[1:],
        "cflags": flags,
        "threads": bool(threads),
    }
    key = hashlib.sha256(json.dumps(key_data, sort_keys=True).encode()).hexdigest()
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.splitext(os.path.basename(model))[0])
    entry = root / key[:32]
    info_path = entry / "entry.json"
    if not rebuild:
        try:
            info = json.loads(info_path.read_text())
            if info.get("key") == key:
                return entry, info
        except (OSError, ValueError):
            pass

    tmp = Path(tempfile.mkdtemp(prefix=".tmp-%s-" % stem, dir=str(root)))
    try:
        cmd = [exe, "generate", model, "-o", str(tmp)] + args
        stats["mbdc"] += 1
        try:
            run = subprocess.run(cmd, capture_output=True, text=True)
        except OSError as e:
            raise MbdcError("mbdc: cannot run %s: %s" % (exe, e), cmd) from e
        if run.returncode == 1:
            raise ModelError(run.stderr.strip() or "mbdc: the model has errors", cmd,
                             run.returncode, run.stderr)
        if run.returncode != 0:
            raise MbdcError("mbdc generate failed (exit status %d):\n%s" %
                            (run.returncode, run.stderr.strip()), cmd, run.returncode,
                            run.stderr)
        headers = sorted(tmp.glob("*_dynamics.h"))
        if len(headers) != 1:
            raise MbdcError("mbdc generate wrote %d *_dynamics.h files into %s" %
                            (len(headers), tmp), cmd, run.returncode, run.stderr)
        pfx = headers[0].name[: -len("_dynamics.h")]
        lib = "lib%s.so" % pfx
        ccmd = cc_words + flags + ["-fPIC", "-shared", "%s_dynamics.c" % pfx, "-o", lib, "-lm"]
        stats["cc"] += 1
        try:
            crun = subprocess.run(ccmd, cwd=str(tmp), capture_output=True, text=True)
        except OSError as e:
            raise CompileError("cc: cannot run %s: %s" % (" ".join(ccmd), e), ccmd) from e
        if crun.returncode != 0 or not (tmp / lib).is_file():
            raise CompileError(
                "the C compiler failed (exit status %d) in %s:\n  %s\n%s" %
                (crun.returncode, tmp, " ".join(shlex.quote(w) for w in ccmd),
                 (crun.stdout + crun.stderr).strip()), ccmd, crun.returncode,
                crun.stdout + crun.stderr)
        info = dict(key_data, key=key, prefix=pfx, library=lib, model=os.path.abspath(model),
                    mbdc=exe, mbdc_output=run.stderr, cc_output=crun.stdout + crun.stderr)
        (tmp / "entry.json").write_text(json.dumps(info, indent=1, sort_keys=True))
        os.chmod(tmp, 0o755)
        if entry.exists():
            # A stale or broken entry of the same key (rebuild=True, or a file edited by hand):
            # moved aside first, so that the rename below stays atomic.
            trash = Path(tempfile.mkdtemp(prefix=".old-", dir=str(root)))
            try:
                os.rename(entry, trash / "entry")
            except OSError:
                pass
            shutil.rmtree(trash, ignore_errors=True)
        try:
            os.rename(tmp, entry)
        except OSError:
            # Another process renamed its complete entry into place first: use that one.
            info2 = json.loads(info_path.read_text())
            if info2.get("key") != key:
                raise
            shutil.rmtree(tmp, ignore_errors=True)
            return entry, info2
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    for line in run.stderr.splitlines():
        if ": warning: " in line:
            warnings.warn("mbdc: " + line, MbdcWarning, stacklevel=3)
    return entry, info
