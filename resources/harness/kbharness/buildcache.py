"""Content-addressed build cache for ``torch.utils.cpp_extension`` builds.

The worker installs :func:`install` before it imports a candidate; from then
on ``load_inline`` and ``load`` build into ``<build_dir>/<key>/`` where the key
is a SHA-256 of the sources, the build options, the torch and Python versions,
the compiler settings and the device.  A finished build leaves a marker file;
the next evaluation of the same sources imports the finished module directly
("cached").  torch 1.13 rewrites its generated ``main.cpp`` on every call, so
relying on ninja's own up-to-date check would rebuild every time.

The compiler output of each build is captured at the file-descriptor level
(``verbose=True`` makes torch stream it) and parsed into file:line errors.
"""

import fcntl
import glob
import hashlib
import json
import os
import re
import sys
import tempfile
import time

from . import fastbuild

CACHE_FORMAT = "kbharness-build/1"
MARKER = "kbharness-build.json"
MAX_LOG = 200_000

# One record per load_inline/load call made by the candidate.
RECORDS = []

# The fast route for CUDA builds (kbharness.fastbuild); KBHARNESS_FAST_BUILD=0 turns it off.
FAST_BUILDS = os.environ.get("KBHARNESS_FAST_BUILD", "1") != "0"

_ERROR_PATTERNS = [
    # gcc / clang:  file:line:col: error: message
    re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?:(?P<col>\d+):)?\s*(?:fatal\s+)?error:\s*(?P<msg>.*)$"),
    # nvcc:  file(line): error: message
    re.compile(r"^(?P<file>[^\s(][^(]*)\((?P<line>\d+)\):\s*(?:catastrophic\s+)?error:?\s*(?P<msg>.*)$"),
    # linker
    re.compile(r"^(?P<file>[^\s:]*ld[^\s:]*):\s*(?P<msg>.*(?:undefined reference|cannot find).*)$"),
]


def parse_errors(log, limit=50):
    """Extract [{"file", "line", "col", "message"}] from a compiler log."""
    errors = []
    seen = set()
    for raw in log.splitlines():
        line = raw.strip()
        for pat in _ERROR_PATTERNS:
            m = pat.match(line)
            if not m:
                continue
            gd = m.groupdict()
            entry = {
                "file": os.path.basename(gd.get("file") or ""),
                "line": int(gd["line"]) if gd.get("line") else 0,
                "col": int(gd["col"]) if gd.get("col") else 0,
                "message": (gd.get("msg") or "").strip(),
            }
            key = (entry["file"], entry["line"], entry["message"])
            if key not in seen:
                seen.add(key)
                errors.append(entry)
            break
        if len(errors) >= limit:
            break
    if not errors:
        for raw in log.splitlines():
            if "undefined symbol" in raw or "ImportError" in raw:
                errors.append({"file": "", "line": 0, "col": 0, "message": raw.strip()[:500]})
                break
    return errors


def _stripped_lines(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return [line.strip() for line in f.read().splitlines()]
    except OSError:
        return None


def map_to_candidate(errors, extensions, build_dir, candidate_path, context=3):
    """Point errors in the files load_inline generates (main.cpp, cuda.cu) at the candidate.

    A compiler reports lines of the generated files, which the author never saw. Where the
    erroneous line is found in the candidate file (and, among several equal lines, one whose
    neighbours match best and uniquely), the error's file becomes the candidate's name and
    its line the candidate's; the generated location stays in generated_file/generated_line.
    Errors that cannot be placed are left as they are. Returns the number mapped.
    """
    if os.path.isdir(candidate_path):  # workspace format: compilers already name its files
        return 0
    cand = _stripped_lines(candidate_path)
    if not cand:
        return 0
    dirs = [os.path.join(build_dir, e["cache_key"][:32]) for e in extensions or []
            if isinstance(e, dict) and isinstance(e.get("cache_key"), str)]
    generated = {}
    mapped = 0
    for err in errors:
        name, line = err.get("file"), err.get("line") or 0
        if not name or line <= 0 or name != os.path.basename(name):
            continue
        if name not in generated:
            generated[name] = next((g for g in (_stripped_lines(os.path.join(d, name)) for d in dirs) if g), None)
        gen = generated[name]
        if not gen or line > len(gen) or not gen[line - 1]:
            continue
        target = gen[line - 1]
        best, best_score, tie = None, -1, False
        for i, text in enumerate(cand):
            if text != target:
                continue
            score = sum(1 for k in range(-context, context + 1) if k and 0 <= line - 1 + k < len(gen) and
                        0 <= i + k < len(cand) and gen[line - 1 + k] == cand[i + k])
            if score > best_score:
                best, best_score, tie = i, score, False
            elif score == best_score:
                tie = True
        if best is None or tie:
            continue
        err["generated_file"], err["generated_line"] = name, line
        err["file"], err["line"] = os.path.basename(candidate_path), best + 1
        mapped += 1
    return mapped


def _torch():
    import torch
    import torch.utils.cpp_extension as cpp_extension

    return torch, cpp_extension


def _as_list(v):
    if v is None:
        return []
    if isinstance(v, (str, bytes)):
        return [v]
    return list(v)


def _file_digest(path):
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    except OSError as e:
        h.update(("unreadable:%s" % e).encode())
    return h.hexdigest()


def cache_key(kind, name, sources, options, device, env=None):
    """The entry's key; ``env`` is the building process's environment (the judge computes the
    key of a build it runs for the worker with the worker's)."""
    torch, _ = _torch()
    env = os.environ if env is None else env
    material = {
        "format": CACHE_FORMAT,
        "kind": kind,
        "name": name,
        "sources": sources,
        "options": options,
        "device": device,
        "torch": torch.__version__,
        "torch_cuda": getattr(torch.version, "cuda", None),
        "python": "%d.%d.%d" % sys.version_info[:3],
        "platform": sys.platform,
        "cxx": env.get("CXX", ""),
        "cuda_arch": env.get("TORCH_CUDA_ARCH_LIST", ""),
        "cxx11_abi": bool(getattr(torch._C, "_GLIBCXX_USE_CXX11_ABI", True)),
    }
    blob = json.dumps(material, sort_keys=True, default=str).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


class _FdCapture:
    """Redirect fds 1 and 2 into a temporary file for the duration."""

    def __enter__(self):
        sys.stdout.flush()
        sys.stderr.flush()
        self.tmp = tempfile.TemporaryFile(mode="w+b")
        self.saved = (os.dup(1), os.dup(2))
        os.dup2(self.tmp.fileno(), 1)
        os.dup2(self.tmp.fileno(), 2)
        return self

    def __exit__(self, *exc):
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:
            pass
        os.dup2(self.saved[0], 1)
        os.dup2(self.saved[1], 2)
        os.close(self.saved[0])
        os.close(self.saved[1])
        self.tmp.seek(0)
        data = self.tmp.read()
        self.tmp.close()
        self.text = data.decode("utf-8", "replace")
        return False


def _lock(path):
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def _unlock(fd):
    try:
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _marker_ok(directory, key, name):
    try:
        with open(os.path.join(directory, MARKER)) as f:
            meta = json.load(f)
    except (OSError, ValueError):
        return False
    return meta.get("key") == key and os.path.exists(os.path.join(directory, meta.get("library", name + ".so")))


def _library_name(directory, name):
    for fname in os.listdir(directory):
        if fname.startswith(name) and (fname.endswith(".so") or fname.endswith(".pyd")):
            return fname
    return name + ".so"


def _clear_build_outputs(directory):
    """Before a default build after a failed fast one: nothing of the fast try may be reused."""
    for pattern in ("build.ninja", ".ninja_log", ".ninja_deps", "*.o", "*.so"):
        for path in glob.glob(os.path.join(directory, pattern)):
            try:
                os.remove(path)
            except OSError:
                pass


def _try_fast(orig, arguments, directory, build_root, record):
    """One fast build (kbharness.fastbuild). Returns (module or None, log)."""
    _, cpp_extension = _torch()
    try:
        include_root = cpp_extension.include_paths()[0]
        fast, notes = fastbuild.fast_arguments(arguments, directory, build_root, include_root)
    except Exception as e:  # never let the optimisation cost a candidate its build
        return None, "fast build not attempted: %s\n" % e
    if fast is None:
        return None, ""
    cap = _FdCapture()
    try:
        with fastbuild.NvccWrapper(getattr(cpp_extension, "CUDA_HOME", None)):
            with cap:
                module = orig(**fast)
    except Exception as e:
        record["path"] = "default (fast build failed, built again the default way)"
        return None, ("fast build (%s) failed; building again the default way\n%s\n%s\n" % (
            ", ".join(notes), getattr(cap, "text", "")[-20000:], e))
    record["path"] = "fast (%s)" % ", ".join(notes)
    return module, cap.text


# The load_inline/load arguments that make a build (sent to the judge's build service as they
# are: strings, lists of strings, booleans, None).
WIRE_ARGUMENTS = ("name", "cpp_sources", "cuda_sources", "functions", "sources", "extra_cflags",
                  "extra_cuda_cflags", "extra_ldflags", "extra_include_paths", "with_cuda", "is_python_module",
                  "with_pytorch_error_handling", "is_standalone", "keep_intermediates")


def key_material(kind, a, read_source=_file_digest):
    """(sources, options) of a build's key from its bound arguments ``a``."""
    if kind == "inline":
        sources = {"cpp": _as_list(a.get("cpp_sources")), "cuda": _as_list(a.get("cuda_sources"))}
        funcs = a.get("functions")
        if isinstance(funcs, dict):
            funcs = sorted(funcs.items())
        options_src = funcs
    else:
        sources = {p: read_source(p) for p in _as_list(a.get("sources"))}
        options_src = None
    options = {k: a.get(k) for k in ("extra_cflags", "extra_cuda_cflags", "extra_ldflags",
                                     "extra_include_paths", "with_cuda", "is_python_module",
                                     "with_pytorch_error_handling", "is_standalone")}
    options["functions"] = options_src
    return sources, options


def build_here(kind, orig, a, key, name, directory, device, build_root, record):
    """Build in this process into ``directory`` (the default route, or first the fast one for
    CUDA) and leave the marker. Returns what torch's call returned; raises on failure with the
    record filled."""
    a = dict(a)
    a["build_directory"] = directory
    a["verbose"] = True
    t0 = time.perf_counter()
    module, fast_log = None, ""
    if kind == "inline" and str(device).startswith("cuda") and FAST_BUILDS:
        module, fast_log = _try_fast(orig, a, directory, build_root, record)
    cap = _FdCapture()
    try:
        if module is None:
            _clear_build_outputs(directory)
            with cap:
                module = orig(**a)
            record["path"] = "default" if "path" not in record else record["path"]
        else:
            cap.text = ""
    except BaseException as e:
        record["seconds"] = time.perf_counter() - t0
        record["status"] = "failed"
        record["log"] = (fast_log + getattr(cap, "text", "") + "\n" + str(e))[-MAX_LOG:]
        record["exception"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
        raise
    record["seconds"] = time.perf_counter() - t0
    record["log"] = (fast_log + cap.text)[-MAX_LOG:]
    if str(device).startswith("cuda") and FAST_BUILDS:
        try:
            fastbuild.after_build(build_root, directory)
        except Exception:
            pass
    write_marker(directory, key, name, record["seconds"])
    return module


def write_marker(directory, key, name, seconds):
    meta = {"key": key, "name": name, "library": _library_name(directory, name), "seconds": seconds,
            "created": time.time()}
    tmp = os.path.join(directory, MARKER + ".tmp")
    with open(tmp, "w") as f:
        json.dump(meta, f)
    os.replace(tmp, os.path.join(directory, MARKER))
    return meta


class BuildFailed(RuntimeError):
    """A build the judge's build service ran failed (its log is in the build record)."""


def install(build_dir, device, remote=None):
    """Wrap torch.utils.cpp_extension.load_inline/load with the cache.

    ``remote``: a function that asks the judge to build (buildservice.py): it takes
    ``{"event": "build", "kind", "args"}`` and returns the judge's answer. The judge computes
    the key itself, builds in a sandbox of its own where no candidate code runs, records the
    library's digest and answers with the entry's folder; this process only imports it (its
    view of the cache is read-only). Without ``remote`` this process builds itself."""
    import inspect

    _, cpp_extension = _torch()
    if remote is None:
        os.makedirs(build_dir, exist_ok=True)
    orig_inline = cpp_extension.load_inline
    orig_load = cpp_extension.load
    sig_inline = inspect.signature(orig_inline)
    sig_load = inspect.signature(orig_load)
    import_from_library = cpp_extension._import_module_from_library

    def run(kind, orig, sig, args, kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        a = dict(bound.arguments)
        name = a["name"]
        if remote is not None:
            return run_remote(kind, a, name)
        sources, options = key_material(kind, a)
        key = cache_key(kind, name, sources, options, device)
        directory = os.path.join(build_dir, key[:32])
        os.makedirs(directory, exist_ok=True)
        record = {"name": name, "cache_key": key, "status": "ok", "seconds": 0.0, "log": "",
                  "directory": directory}
        RECORDS.append(record)
        lock = _lock(os.path.join(directory, ".kbharness.lock"))
        try:
            if _marker_ok(directory, key, name):
                t0 = time.perf_counter()
                module = import_from_library(name, directory, a.get("is_python_module", True))
                record["status"] = "cached"
                record["seconds"] = time.perf_counter() - t0
                return module
            return build_here(kind, orig, a, key, name, directory, device, build_dir, record)
        finally:
            _unlock(lock)

    def run_remote(kind, a, name):
        record = {"name": name, "cache_key": None, "status": "failed", "seconds": 0.0, "log": "",
                  "directory": None}
        RECORDS.append(record)
        wire = {k: a.get(k) for k in WIRE_ARGUMENTS if k in a}
        answer = remote({"event": "build", "kind": kind, "args": wire})
        if not isinstance(answer, dict):
            answer = {}
        for k in ("cache_key", "status", "seconds", "log", "path", "exception", "directory"):
            if k in answer:
                record[k] = answer[k]
        if answer.get("status") not in ("ok", "cached") or not isinstance(answer.get("directory"), str):
            record["status"] = "failed"
            raise BuildFailed("Error building extension '%s': %s" % (name, answer.get("exception") or "build failed"))
        directory = answer["directory"]
        if a.get("is_standalone"):
            return os.path.join(directory, name)
        t0 = time.perf_counter()
        module = import_from_library(name, directory, a.get("is_python_module", True))
        if record["status"] == "cached":
            record["seconds"] = time.perf_counter() - t0
        return module

    def load_inline(*args, **kwargs):
        return run("inline", orig_inline, sig_inline, args, kwargs)

    def load(*args, **kwargs):
        return run("file", orig_load, sig_load, args, kwargs)

    load_inline.__doc__ = orig_inline.__doc__
    load.__doc__ = orig_load.__doc__
    cpp_extension.load_inline = load_inline
    cpp_extension.load = load
    if remote is None:
        os.environ["TORCH_EXTENSIONS_DIR"] = os.path.join(build_dir, "torch_extensions")


def summary():
    """Aggregate the build records into the result's "build" object."""
    if not RECORDS:
        return {"status": "skipped", "seconds": 0.0, "cache_key": None, "log": "", "errors": [],
                "extensions": []}
    statuses = [r["status"] for r in RECORDS]
    if "failed" in statuses:
        status = "failed"
    elif all(s == "cached" for s in statuses):
        status = "cached"
    else:
        status = "ok"
    log = "\n".join(r["log"] for r in RECORDS if r["log"])[-MAX_LOG:]
    errors = []
    for r in RECORDS:
        if r["status"] == "failed":
            errors.extend(parse_errors(r["log"]))
            if not errors and r.get("exception"):
                errors.append({"file": "", "line": 0, "col": 0, "message": r["exception"]})
    return {
        "status": status,
        "seconds": round(sum(r["seconds"] for r in RECORDS), 4),
        "cache_key": RECORDS[0]["cache_key"],
        "log": log,
        "errors": errors,
        "extensions": [{"name": r["name"], "status": r["status"], "seconds": round(r["seconds"], 4),
                        "cache_key": r["cache_key"],
                        "path": r.get("path", "cached" if r["status"] == "cached" else "default")}
                       for r in RECORDS],
    }
