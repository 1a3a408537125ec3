"""The candidate's worker process as the judge sees it: started in a session of its own with a
filtered environment, its CPUs, a log file for what it prints and (where available) the
bubblewrap sandbox; driven over two private pipes of framed messages (codec.py); every way
it can end turned into a WorkerFailure with a readable message."""

import os
import signal
import subprocess
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from . import buildservice, codec, confine, procset, sandbox

# Resolved: a harness reached through a symbolic link under /tmp would vanish behind the
# sandbox's private /tmp.
HARNESS_ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
LOG_TAIL = 4000


def _die_with_judge():
    """In the unsandboxed worker before exec: killed when the judge dies (bwrap's
    --die-with-parent does this in the sandbox), so a worker never outlives its judge
    holding GPU memory."""
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _worker_preexec(cpus: Optional[Set[int]], die_with_judge: bool,
                    confine_cpus: bool = False) -> Callable[[], None]:
    """Before the worker's exec: its CPUs (the candidate's and the reference's workers get the
    same ones, away from the judge's), without the sandbox death with the judge, and in CPU
    mode the filter that keeps every process it makes from widening its processors
    (confine.py; inherited through bwrap)."""
    def run():
        if cpus:
            try:
                os.sched_setaffinity(0, cpus)
            except OSError:
                pass
        if die_with_judge:
            _die_with_judge()
        if confine_cpus:
            confine.install()
    return run


def worker_cpus(num_threads: int) -> Optional[Set[int]]:
    """The CPUs both workers run on: all this process may use but the first (left to the
    judge) when there are at least two; None (no pinning) otherwise."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None
    if len(cpus) < 2:
        return None
    return set(cpus[1:])


def sandbox_command(device: str, workdir: str, writable: Sequence[str], readable: Sequence[str],
                    hidden_roots: Sequence[str] = (), read_only_over: Sequence[str] = ()) -> List[str]:
    """bwrap arguments (sandbox.py): an allow-list of the system, the toolchain and the Python
    environment read-only, the named folders, a private /tmp, no network, a private PID
    namespace (the judge's process is invisible); write access only to ``writable``. On a GPU
    the device nodes and what the driver needs (sandbox.cuda_binds)."""
    return sandbox.command(workdir, writable=[w for w in writable if w != workdir], readable=readable,
                           read_only_over=read_only_over, hidden=hidden_roots, gpu=device.startswith("cuda"))


_WORKER_ENV = frozenset({
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TERM", "SHELL", "TMPDIR", "CC", "CXX",
    "CFLAGS", "CXXFLAGS", "LDFLAGS", "LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH",
    "CPLUS_INCLUDE_PATH", "MAX_JOBS", "PYTHONHOME", "VIRTUAL_ENV", "CONDA_PREFIX", "CUDACXX",
    "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "CCACHE_DIR",
})
_WORKER_ENV_PREFIXES = ("LC_", "CUDA_", "NVIDIA_", "CUBLAS_", "CUDNN_", "NCCL_", "OMP_", "MKL_", "KMP_", "GOMP_",
                        "TORCH_", "PYTORCH_", "ROCM_", "HIP_")


# Both sides' CPU allocations come from a heap that keeps what was freed (no mmap per large
# block, no trimming), as the GPU's caching allocator does: a new output then costs no page
# faults, so writing into a kept buffer or into the input gains nothing from skipping the
# reference's allocation (a 32 MB ReLU: a fresh output 48 ms against 14 ms into a kept buffer
# with glibc's defaults, 18 ms against 17 ms with these).
CPU_ALLOCATOR_TUNABLES = "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736"


def worker_env_ok(name: str) -> bool:
    """Whether the worker inherits environment variable ``name``."""
    if name.startswith("KBHARNESS_"):
        return False
    return name in _WORKER_ENV or name.startswith(_WORKER_ENV_PREFIXES)


class WorkerFailure(Exception):
    """The worker timed out or died (the candidate's failure: a verdict)."""

    def __init__(self, kind: str, message: str) -> None:
        Exception.__init__(self, message)
        self.kind = kind  # "timeout" | "crash"
        self.message = message


def _signal_name(num):
    try:
        return signal.Signals(num).name
    except ValueError:
        return "signal %d" % num


class WorkerHandle:
    """A candidate worker process with a private, framed channel."""

    def __init__(self, device: str, num_threads: int, workdir: str, sandbox: bool = False,
                 build_dir: Optional[str] = None, memory_limit_mb: Optional[int] = None,
                 readable: Sequence[str] = (), cuda_arch: Optional[str] = None, cpus: Optional[Set[int]] = None,
                 hidden_roots: Sequence[str] = ()) -> None:
        self.workdir = workdir
        self.sandboxed = sandbox
        self._worker_pid = None
        self.log_path = os.path.join(workdir, "worker.log")
        cmd_r, cmd_w = os.pipe()
        rep_r, rep_w = os.pipe()
        # only what builds and runs need: the engine's environment may hold
        # secrets (provider API keys) that the candidate could print into its log
        env = {k: v for k, v in os.environ.items() if worker_env_ok(k)}
        env["PYTHONPATH"] = HARNESS_ROOT
        env["OMP_NUM_THREADS"] = str(num_threads)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONHASHSEED"] = "0"
        if device.startswith("cuda"):
            env.pop("CUDA_LAUNCH_BLOCKING", None)
        else:
            # a CPU worker (a CPU run, or the build pool of a GPU run) sees no GPU: what the
            # candidate does while it is built never runs beside another candidate's timing
            env["CUDA_VISIBLE_DEVICES"] = ""
        if cuda_arch and not env.get("TORCH_CUDA_ARCH_LIST"):
            # the GPU's architecture, named: the build needs no GPU to find it, and the build
            # pool's and the evaluation's builds have the same cache key
            env["TORCH_CUDA_ARCH_LIST"] = cuda_arch
        self.env = dict(env)  # the build service builds for this worker with its environment
        self.log = open(self.log_path, "wb")
        # Unbuffered, so what the candidate prints is in the log when the judge reads its tail.
        env["PYTHONUNBUFFERED"] = "1"
        if not device.startswith("cuda"):
            env["GLIBC_TUNABLES"] = CPU_ALLOCATOR_TUNABLES
        cmd = [sys.executable, "-u", "-m", "kbharness.worker", "--cmd-fd", str(cmd_r), "--reply-fd", str(rep_w)]
        if memory_limit_mb:
            cmd += ["--memory-limit-mb", str(int(memory_limit_mb))]
        if sandbox:
            # the build cache is read-only here: the judge's build service writes it
            # (buildservice.py); its records beside it stay out of sight
            cmd = sandbox_command(device, workdir, [workdir],
                                  [HARNESS_ROOT] + list(readable) + ([build_dir] if build_dir else []),
                                  list(hidden_roots) + ([buildservice.trusted_dir(build_dir)] if build_dir else [])
                                  ) + cmd
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT, pass_fds=(cmd_r, rep_w),
            close_fds=True, cwd=workdir, env=env, start_new_session=True,
            preexec_fn=_worker_preexec(cpus, die_with_judge=not sandbox, confine_cpus=not device.startswith("cuda")))
        os.close(cmd_r)
        os.close(rep_w)
        self.cmd_fd = cmd_w
        self.reply_fd = rep_r
        self.dead = False

    def worker_pid(self) -> Optional[int]:
        """The pid of the Python worker (inside the sandbox it is a grandchild)."""
        if self._worker_pid is not None or self.proc.poll() is not None:
            return self._worker_pid
        if not self.sandboxed:
            self._worker_pid = self.proc.pid
            return self._worker_pid
        queue = [self.proc.pid]
        seen = set()
        while queue:
            pid = queue.pop(0)
            if pid in seen:
                continue
            seen.add(pid)
            try:
                with open("/proc/%d/cmdline" % pid, "rb") as f:
                    cmdline = f.read()
            except OSError:
                continue
            argv0 = os.path.basename(cmdline.split(b"\x00")[0])
            if b"kbharness.worker" in cmdline and argv0 != b"bwrap":
                self._worker_pid = pid
                return pid
            queue.extend(procset.children(pid))
        return None

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                try:
                    self.proc.kill()
                except ProcessLookupError:
                    pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self.dead = True

    def _died(self, stage):
        try:
            rc = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()
            rc = self.proc.returncode
        self.dead = True
        # leftover children of the candidate go too
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if rc is not None and self.sandboxed and 128 < rc < 128 + 65:
            rc = -(rc - 128)  # bwrap reports a child killed by a signal as 128 + signal
        if rc is not None and rc < 0:
            return WorkerFailure("crash", "worker killed by %s (%d) during %s" % (_signal_name(-rc), -rc, stage))
        return WorkerFailure("crash", "worker exited with status %s during %s" % (rc, stage))

    def send(self, header: Dict[str, Any], payload: bytes = b"", stage: str = "request") -> None:
        try:
            codec.write_frame(self.cmd_fd, header, payload)
        except (BrokenPipeError, OSError):
            raise self._died(stage)

    def receive(self, timeout: float, stage: str, deadline: Optional[float] = None) -> Tuple[Any, bytes]:
        deadline = time.monotonic() + timeout if deadline is None else deadline
        try:
            return codec.read_frame(self.reply_fd, deadline)
        except codec.ChannelTimeout:
            raise self._timed_out(timeout, stage)
        except codec.ChannelClosed:
            raise self._died(stage)
        except ValueError as e:
            self.kill()
            raise WorkerFailure("crash", "worker sent a malformed reply during %s: %s" % (stage, e))

    def call(self, header: Dict[str, Any], payload: bytes, timeout: float, stage: str,
             on_reply: Optional[Callable[[], None]] = None) -> Tuple[Any, bytes]:
        """Send a request and read the reply within ``timeout``. ``on_reply`` runs the moment
        the reply starts to arrive, before a byte of it is read (the judge stops the worker
        there)."""
        self.send(header, payload, stage)
        deadline = time.monotonic() + timeout
        if on_reply is not None:
            try:
                codec.wait_readable(self.reply_fd, deadline)
            except codec.ChannelTimeout:
                raise self._timed_out(timeout, stage)
            on_reply()
        return self.receive(timeout, stage, deadline)

    def _timed_out(self, timeout: float, stage: str) -> WorkerFailure:
        self.kill()
        return WorkerFailure("timeout", "candidate exceeded the %.1f s limit during %s (worker killed)" %
                             (timeout, stage))

    def close(self) -> None:
        if not self.dead and self.proc.poll() is None:
            try:
                self.call({"cmd": "exit"}, b"", 10.0, "shutdown")
            except WorkerFailure:
                pass
        self.kill()
        for fd in (self.cmd_fd, self.reply_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        self.log.close()

    def log_tail(self, limit: int = LOG_TAIL) -> str:
        try:
            with open(self.log_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                size = f.tell()
                f.seek(max(0, size - limit))
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""
