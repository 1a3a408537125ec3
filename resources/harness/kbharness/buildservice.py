"""The build cache, written only by the trusted side.

A candidate's worker never builds: its ``load_inline``/``load`` (buildcache.install with a
``remote``) sends the call's arguments to the judge, which

1. computes the entry's key itself (sources, options, torch, compiler, architecture);
   ``load``'s source files are read once, from the candidate's folder or the worker's own
   folder only, and the build compiles that copy, so what is built is what was hashed;
2. answers from the cache when the entry's library has the SHA-256 recorded when it was built;
   an entry without a record, or whose library changed, is discarded and built again;
3. otherwise builds it in a sandbox of its own (builder.py): no candidate code runs there (the
   library is never imported), and the entry's folder is the only one it may write;
4. records the library's digest in a folder beside the cache that no sandbox sees
   (``.<cache>.trusted``), writes the entry's marker, and tells the worker where to import from.

The worker's view of the cache is read-only. After the worker has loaded the candidate, the judge
reads ``/proc/<worker>/maps``: every file it mapped from the cache must be a recorded library,
with the recorded inode's content (verify_mapped). A mismatch is the machinery's failure: the
entry is discarded and the evaluation ends as an infrastructure error, never as the candidate's.
"""

import fcntl
import hashlib
import json
import os
import re
import select
import shutil
import signal
import stat
import subprocess
import sys
import time

from . import buildcache, sandbox

MAX_SOURCE_BYTES = 16 << 20
MAX_RESULT_BYTES = 4 << 20
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
_LIST_ARGS = ("cpp_sources", "cuda_sources", "sources", "extra_cflags", "extra_cuda_cflags", "extra_ldflags",
              "extra_include_paths")
_BOOL_ARGS = ("with_cuda", "is_python_module", "with_pytorch_error_handling", "is_standalone",
              "keep_intermediates")


class CacheIntegrityError(Exception):
    """A library the worker mapped from the cache is not the one the judge recorded."""


def trusted_dir(build_dir):
    """Where the judge keeps its records of the entries of ``build_dir``: beside it, never
    bound into a sandbox."""
    bd = os.path.abspath(build_dir).rstrip(os.sep)
    return os.path.join(os.path.dirname(bd), "." + os.path.basename(bd) + ".trusted")


def file_digest(path):
    """(sha256, stat) of a regular file, not following a final link; None if it is not one."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        h = hashlib.sha256()
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            h.update(chunk)
        return h.hexdigest(), st
    finally:
        os.close(fd)


def _under(path, root):
    root = os.path.realpath(root)
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _check_args(kind, a):
    """The worker's arguments, checked field by field (it is the candidate's process)."""
    if kind not in ("inline", "file") or not isinstance(a, dict):
        raise ValueError("malformed build request")
    name = a.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError("the extension's name must be an identifier, got %r" % (name,))
    out = {"name": name}
    for k in _LIST_ARGS:
        v = a.get(k)
        if v is None:
            out[k] = None
            continue
        if isinstance(v, str):
            v = [v]
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise ValueError("%s must be a string or a list of strings" % k)
        out[k] = v
    funcs = a.get("functions")
    if isinstance(funcs, str):
        funcs = [funcs]
    if funcs is not None and not (isinstance(funcs, list) and all(isinstance(x, str) for x in funcs)) and \
            not (isinstance(funcs, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in funcs.items())):
        raise ValueError("functions must be a list of names or a dict of names to docstrings")
    if kind == "inline":
        out["functions"] = funcs
    for k in _BOOL_ARGS:
        if k in a:
            v = a.get(k)
            if v is not None and not isinstance(v, bool):
                raise ValueError("%s must be a boolean" % k)
            out[k] = v
    if kind == "inline":
        out.pop("sources", None)
    else:
        for k in ("cpp_sources", "cuda_sources"):
            out.pop(k, None)
        if not out.get("sources"):
            raise ValueError("load() needs sources")
    return out


class BuildService:
    """Builds for one worker (one candidate) into ``build_dir``."""

    def __init__(self, build_dir, device, env, sandboxed, source_roots, harness_root):
        self.build_dir = os.path.abspath(build_dir)
        self.device = device  # what the code is built for: "cpu" or "cuda-smXY"
        self.env = dict(env)
        self.sandboxed = sandboxed
        self.source_roots = [os.path.realpath(r) for r in source_roots if r and os.path.isdir(r)]
        self.harness_root = harness_root
        self.trusted = trusted_dir(build_dir)
        os.makedirs(self.build_dir, exist_ok=True)
        os.makedirs(self.trusted, mode=0o700, exist_ok=True)
        st = os.lstat(self.trusted)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
            # another account (a shared /tmp) could have put records there
            raise CacheIntegrityError("the build cache's records folder %s is not this account's own" % self.trusted)
        self.discarded = []  # entries found changed or unrecorded, and built again
        self.mapped_libraries = []  # the recorded libraries verify_mapped found mapped, as host paths

    # ---- records ---------------------------------------------------------------------
    def _record_path(self, prefix):
        return os.path.join(self.trusted, prefix + ".json")

    def record(self, prefix):
        try:
            with open(self._record_path(prefix)) as f:
                rec = json.load(f)
        except (OSError, ValueError):
            return None
        return rec if isinstance(rec, dict) and isinstance(rec.get("library"), str) else None

    def entry_intact(self, entry, rec):
        """Is the entry's library the one recorded (a regular file, not a link, same digest)?"""
        if os.path.islink(entry) or not os.path.isdir(entry):
            return False
        lib = rec["library"]
        if os.sep in lib or lib.startswith("."):
            return False
        got = file_digest(os.path.join(entry, lib))
        return got is not None and got[0] == rec.get("sha256")

    def discard(self, prefix):
        entry = os.path.join(self.build_dir, prefix)
        try:
            os.remove(self._record_path(prefix))
        except OSError:
            pass
        if os.path.islink(entry) or os.path.isfile(entry):
            os.remove(entry)
        elif os.path.isdir(entry):
            shutil.rmtree(entry, ignore_errors=True)

    # ---- one build -------------------------------------------------------------------
    def _read_sources(self, paths):
        """{path: (digest, bytes)} of load()'s sources: regular files inside the candidate's
        folder or the worker's own folder only."""
        out = {}
        for p in paths:
            if not os.path.isabs(p):
                raise ValueError("source %r is not an absolute path" % p)
            real = os.path.realpath(p)
            if not any(_under(real, r) for r in self.source_roots):
                raise ValueError("source %s is outside the candidate's folders" % p)
            try:
                fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK)
            except OSError as e:
                raise ValueError("cannot read source %s: %s" % (p, e.strerror))
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_SOURCE_BYTES:
                    raise ValueError("source %s is not a regular file of at most 16 MiB" % p)
                data = b""
                while len(data) <= MAX_SOURCE_BYTES:
                    chunk = os.read(fd, 1 << 20)
                    if not chunk:
                        break
                    data += chunk
            finally:
                os.close(fd)
            out[p] = (hashlib.sha256(data).hexdigest(), data)
        return out

    def handle(self, request, deadline):
        """The judge's answer to one build request of the worker."""
        t0 = time.perf_counter()
        try:
            kind = request.get("kind")
            a = _check_args(kind, request.get("args"))
            files = self._read_sources(a["sources"]) if kind == "file" else {}
        except (ValueError, TypeError, AttributeError) as e:
            return {"status": "failed", "exception": "build request refused: %s" % e, "log": str(e)}
        sources, options = buildcache.key_material(kind, a, read_source=lambda p: files[p][0])
        key = buildcache.cache_key(kind, a["name"], sources, options, self.device, env=self.env)
        prefix = key[:32]
        entry = os.path.join(self.build_dir, prefix)
        lock = os.open(os.path.join(self.trusted, prefix + ".lock"), os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            rec = self.record(prefix)
            if rec is not None and rec.get("key") == key and self.entry_intact(entry, rec):
                return {"status": "cached", "cache_key": key, "directory": entry, "seconds": 0.0, "log": ""}
            if rec is not None or os.path.lexists(entry):
                self.discarded.append(prefix)
            self.discard(prefix)
            os.makedirs(entry)
            extra_includes = []
            if kind == "file":
                snap = os.path.join(entry, "sources")
                os.makedirs(snap)
                copies = []
                for i, p in enumerate(a["sources"]):
                    os.makedirs(os.path.join(snap, str(i)))
                    dst = os.path.join(snap, str(i), os.path.basename(p))  # compilers name it as before
                    with open(dst, "wb") as f:
                        f.write(files[p][1])
                    copies.append(dst)
                    d = os.path.dirname(os.path.abspath(p))
                    if d not in extra_includes:
                        extra_includes.append(d)  # its quoted includes are found as before
                a["sources"] = copies
            result = self._run_builder(kind, a, key, entry, extra_includes, deadline)
            result["cache_key"] = key
            result["seconds"] = round(time.perf_counter() - t0, 4)
            if result.get("status") != "ok":
                result["status"] = "failed"
                return result
            lib = buildcache._library_name(entry, a["name"])
            got = file_digest(os.path.join(entry, lib))
            if got is None:
                result.update(status="failed", exception="the build left no library %s" % lib)
                return result
            buildcache.write_marker(entry, key, a["name"], result["seconds"])
            rec = {"key": key, "name": a["name"], "library": lib, "sha256": got[0], "size": got[1].st_size,
                   "created": time.time()}
            tmp = self._record_path(prefix) + ".tmp"
            with open(tmp, "w") as f:
                json.dump(rec, f)
            os.replace(tmp, self._record_path(prefix))
            result["directory"] = entry
            return result
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
            os.close(lock)

    def _builder_command(self, entry):
        cmd = [sys.executable, "-m", "kbharness.builder"]
        if not self.sandboxed:
            return cmd
        return sandbox.command(entry, readable=[self.harness_root, self.build_dir] + self.source_roots,
                               hidden=[self.trusted], cuda_toolkit=str(self.device).startswith("cuda")) + cmd

    def _run_builder(self, kind, a, key, entry, extra_includes, deadline):
        spec = {"kind": kind, "args": a, "key": key, "directory": entry, "device": self.device,
                "build_root": self.build_dir, "extra_include_paths": extra_includes}
        env = dict(self.env)
        env["PYTHONPATH"] = self.harness_root
        env["TMPDIR"] = entry
        r, w = os.pipe()
        cmd = self._builder_command(entry) + ["--result-fd", str(w)]
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                pass_fds=(w,), close_fds=True, cwd=entry, env=env, start_new_session=True)
        os.close(w)
        data = b""
        timed_out = False
        try:
            try:
                proc.stdin.write(json.dumps(spec).encode())
                proc.stdin.close()
            except OSError:
                pass
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    timed_out = True
                    break
                ready, _, _ = select.select([r], [], [], min(left, 1.0))
                if not ready:
                    continue
                chunk = os.read(r, 1 << 16)
                if not chunk:
                    break
                data += chunk
                if len(data) > MAX_RESULT_BYTES:
                    break
        finally:
            os.close(r)
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # whatever the build left running goes too
            except (ProcessLookupError, PermissionError):
                pass
            proc.wait()
        if timed_out:
            return {"status": "failed", "exception": "the build passed its time limit", "log": ""}
        try:
            out = json.loads(data.decode("utf-8", "replace"))
        except ValueError:
            return {"status": "failed", "exception": "the build process ended without a report (status %s)" %
                    proc.returncode, "log": ""}
        if not isinstance(out, dict):
            return {"status": "failed", "exception": "malformed build report", "log": ""}
        return {"status": out.get("status"), "log": str(out.get("log") or "")[-buildcache.MAX_LOG:],
                "path": str(out.get("path") or "default"), "exception": out.get("exception")}

    # ---- after the load ----------------------------------------------------------------
    def verify_mapped(self, pid):
        """[problem] for every file the process maps from the cache that is not a recorded
        library with the recorded content (its inode's file checked by digest now)."""
        roots = sorted({self.build_dir, os.path.realpath(self.build_dir)}, key=len, reverse=True)
        try:
            with open("/proc/%d/maps" % pid) as f:
                lines = f.read().splitlines()
        except OSError:
            return []  # the worker is gone: nothing is loaded any more
        problems, seen = [], set()
        self.mapped_libraries = []
        for line in lines:
            parts = line.split(None, 5)
            if len(parts) < 6:
                continue
            path = parts[5]
            rel = next((path[len(r) + 1:] for r in roots if path.startswith(r + os.sep)), None)
            if rel is None or path in seen:
                continue
            seen.add(path)
            prefix, _, fname = rel.partition(os.sep)
            rec = self.record(prefix)
            inode = int(parts[4]) if parts[4].isdigit() else -1
            host = os.path.join(self.build_dir, rel)
            got = file_digest(host) if not path.endswith(" (deleted)") else None
            if rec is None or fname != rec["library"] or got is None or got[0] != rec.get("sha256") or \
                    got[1].st_ino != inode:
                problems.append((prefix, "%s is not the library recorded when it was built" % rel))
            else:
                self.mapped_libraries.append(host)
        return problems
