"""The trusted side of an evaluation.

This process loads the task (the reference), generates every input from
seeds derived from the secret request seed, computes the reference outputs,
judges the candidate's outputs and times the reference.  The candidate is
imported and run only in the worker process (worker.py); from it this side
accepts tensors (decoded from raw bytes, never unpickled) and timing samples
that it cross-checks against its own wall clock.
"""

import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from . import (RESULT_SCHEMA, buildcache, buildservice, codec, compare, confine, envinfo, evidence, nvml, precision, procset, sandbox,
               seeds, static_check, taskload, timing, validate_task)
from .request import RequestError

# Resolved: a harness reached through a symbolic link under /tmp would vanish behind the
# sandbox's private /tmp.
HARNESS_ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
EXCESSIVE_SPEEDUP = 50.0
# Timing rotates among several input sets; together they may take at most this fraction of
# the GPU's memory (a 6 GB input gets two sets on a 141 GB GPU, not an out-of-memory error).
INPUT_SET_MEMORY_FRACTION = 0.1
# Tasks whose inputs take more than this are "large": judge and worker give cached GPU
# memory back to the driver between stages, since memory one process's allocator keeps
# cached is memory the other cannot have (6-7 GB inputs, several copies of them in each).
LARGE_TASK_BYTES = 1 << 30
LOG_TAIL = 4000
# A candidate median below this fraction of the memory roofline floor
# (input + output bytes / measured copy bandwidth) is implausible.
ROOFLINE_FRACTION = 0.9
# Strict comparison (weak tasks): atol shrinks to this fraction of the
# output's magnitude, and the output's variation around its mean must match
# to within STRICT_SPREAD_FRACTION of the reference's variation.
STRICT_ATOL_FRACTION = 1e-4
STRICT_SPREAD_FRACTION = 1e-2


def _make_undumpable():
    """Make this (trusted) process non-dumpable: other processes of the same
    user -- the candidate's worker included -- can no longer read its
    /proc/<pid>/environ, mem or fd entries (where a request or seed could be
    found).  Children get their own dumpable flag back when they exec."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except (OSError, AttributeError):
        pass


_BWRAP_STATE = {}


def torch_device_index(device):
    """2 for "cuda:2", None for the CPU."""
    if not device.startswith("cuda"):
        return None
    _, _, index = device.partition(":")
    return int(index) if index.isdigit() else 0


def bwrap_path():
    return sandbox.bwrap_path()


def sandbox_probe():
    """(ok, message): can bubblewrap start a sandbox with no network here?"""
    if "probe" in _BWRAP_STATE:
        return _BWRAP_STATE["probe"]
    path = bwrap_path()
    if not path:
        result = (False, "bwrap is not installed")
    else:
        try:
            proc = subprocess.run([path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                                   "--unshare-net", "--unshare-pid", "--tmpfs", "/tmp", "--die-with-parent",
                                   "--", shutil.which("true") or "/bin/true"], stdin=subprocess.DEVNULL,
                                  capture_output=True,
                                  timeout=30)
            if proc.returncode == 0:
                result = (True, "bwrap %s" % path)
            else:
                err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
                result = (False, "bwrap failed to start a sandbox: %s" % (err[-1] if err else
                                                                          "exit status %d" % proc.returncode))
        except (OSError, subprocess.TimeoutExpired) as e:
            result = (False, "bwrap failed to start a sandbox: %s" % e)
    _BWRAP_STATE["probe"] = result
    return result


def _die_with_judge():
    """In the unsandboxed worker before exec: killed when the judge dies (bwrap's
    --die-with-parent does this in the sandbox), so a worker never outlives its judge
    holding GPU memory."""
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _worker_preexec(cpus, die_with_judge, confine_cpus=False):
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


def _worker_cpus(num_threads):
    """The CPUs both workers run on: all this process may use but the first (left to the
    judge) when there are at least two; None (no pinning) otherwise."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None
    if len(cpus) < 2:
        return None
    return set(cpus[1:])


def _idle_probe_limit(device, probes=25):
    """How long a trivial GPU operation and a synchronisation take on an idle GPU (ms, a
    generous bound): the judge's test that nothing else runs on the GPU."""
    import torch

    x = torch.zeros(1, device=device)
    times = []
    for _ in range(probes):
        t0 = time.perf_counter()
        x.add_(1.0)
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1000.0)
    times.sort()
    return 3.0 * times[len(times) // 2] + 0.05


def _sandbox_command(device, workdir, writable, readable, hidden_roots=(), read_only_over=()):
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


def _worker_env_ok(name):
    if name.startswith("KBHARNESS_"):
        return False
    return name in _WORKER_ENV or name.startswith(_WORKER_ENV_PREFIXES)


class TaskFailure(Exception):
    """The reference task could not be run (a bad request, not a verdict)."""


class InfrastructureFailure(Exception):
    """The machinery failed, not the candidate (a build-cache entry changed after the judge
    recorded it): no verdict; the engine evaluates again."""


class WorkerFailure(Exception):
    def __init__(self, kind, message):
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

    def __init__(self, device, num_threads, workdir, sandbox=False, build_dir=None, memory_limit_mb=None,
                 readable=(), cuda_arch=None, cpus=None, hidden_roots=()):
        self.workdir = workdir
        self.sandboxed = sandbox
        self._worker_pid = None
        self.log_path = os.path.join(workdir, "worker.log")
        cmd_r, cmd_w = os.pipe()
        rep_r, rep_w = os.pipe()
        # only what builds and runs need: the engine's environment may hold
        # secrets (provider API keys) that the candidate could print into its log
        env = {k: v for k, v in os.environ.items() if _worker_env_ok(k)}
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
        cmd = [sys.executable, "-u", "-m", "kbharness.worker", "--cmd-fd", str(cmd_r), "--reply-fd", str(rep_w)]
        if memory_limit_mb:
            cmd += ["--memory-limit-mb", str(int(memory_limit_mb))]
        if sandbox:
            # the build cache is read-only here: the judge's build service writes it
            # (buildservice.py); its records beside it stay out of sight
            cmd = _sandbox_command(device, workdir, [workdir],
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

    def worker_pid(self):
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

    def kill(self):
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

    def send(self, header, payload=b"", stage="request"):
        try:
            codec.write_frame(self.cmd_fd, header, payload)
        except (BrokenPipeError, OSError):
            raise self._died(stage)

    def receive(self, timeout, stage):
        deadline = time.monotonic() + timeout
        try:
            return codec.read_frame(self.reply_fd, deadline)
        except codec.ChannelTimeout:
            self.kill()
            raise WorkerFailure("timeout", "candidate exceeded the %.1f s limit during %s (worker killed)" %
                                (timeout, stage))
        except codec.ChannelClosed:
            raise self._died(stage)
        except ValueError as e:
            self.kill()
            raise WorkerFailure("crash", "worker sent a malformed reply during %s: %s" % (stage, e))

    def call(self, header, payload, timeout, stage):
        self.send(header, payload, stage)
        return self.receive(timeout, stage)

    def close(self):
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

    def log_tail(self, limit=LOG_TAIL):
        try:
            with open(self.log_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                size = f.tell()
                f.seek(max(0, size - limit))
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""


def _tensor_bytes(value):
    import torch

    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, (list, tuple)):
        return sum(_tensor_bytes(v) for v in value)
    return 0


def _finite(value):
    """Replace non-finite floats (not valid JSON) by None, recursively."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _clone(value):
    import torch

    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, (list, tuple)):
        return type(value)(_clone(v) for v in value)
    return value


class Evaluation:
    def __init__(self, req, build_only=False):
        self.req = req
        self.build_only = build_only
        self.started = time.perf_counter()
        self.result = {
            "schema": RESULT_SCHEMA,
            "verdict": None,
            "message": "",
            "static_findings": [],
            "build": {"status": "skipped", "seconds": 0.0, "cache_key": None, "log": "", "errors": []},
            "correctness": None,
            "timing": None,
            "speedup": None,
            "flags": [],
            "sandbox": None,
            "gpu_state": None,
            "environment": None,
            "worker_log_tail": "",
            "harness_seconds": 0.0,
        }
        self.large = False
        self.worker_peak_bytes = None
        self.stage_peaks = {}
        self.stage = None  # the stage whose judge memory peak is being measured

    # ------------------------------------------------------------------
    def finish(self, verdict, message):
        self.result["verdict"] = verdict
        self.result["message"] = message.replace("\n", " ").strip()[:1000]
        return verdict

    def flag(self, name, message):
        self.result["flags"].append({"flag": name, "message": message})

    def runtime_finding(self, rule, severity, message):
        """Record a detection made while running as a finding (the engine
        stores static_findings per attempt); line 0 = no source location."""
        self.result["static_findings"].append({"rule": rule, "severity": severity, "line": 0, "col": 0,
                                               "message": message})

    def reject_at_runtime(self, rule, message):
        self.runtime_finding(rule, static_check.REJECT, message)
        return self.finish("rejected", "runtime check: %s: %s" % (rule, message))

    def run(self):
        try:
            self._run()
        finally:
            if not self.build_only:
                self._record_memory()
        self.result["harness_seconds"] = round(time.perf_counter() - self.started, 4)
        return _finite(self.result)

    def _release_memory(self):
        """Large tasks: give the judge's cached GPU memory back to the driver (and collect
        CUDA IPC blocks the worker has released), so the worker can allocate it."""
        if not self.large or not getattr(self, "device", "cpu").startswith("cuda"):
            return
        import torch

        torch.cuda.ipc_collect()
        torch.cuda.empty_cache()

    def _end_stage(self, name):
        """The judge's peak reserved GPU memory over the stage that ends here (the
        allocator's peak counter starts again for the next one)."""
        index = torch_device_index(getattr(self, "device", "cpu"))
        if index is None:
            return
        import torch

        peak = int(torch.cuda.max_memory_reserved(index))
        self.stage_peaks[name] = max(self.stage_peaks.get(name, 0), peak)
        torch.cuda.reset_peak_memory_stats(index)

    def _begin_stage(self, name):
        if self.stage is not None:
            self._end_stage(self.stage)
        self.stage = name

    def _note_worker_memory(self, reply):
        peak = reply.get("gpu_peak_bytes") if isinstance(reply, dict) else None
        if type(peak) is int and peak >= 0:
            self.worker_peak_bytes = max(self.worker_peak_bytes or 0, peak)

    def _record_memory(self):
        """Peak GPU memory each process's allocator held (reserved bytes): what a task needs,
        and where an out-of-memory verdict came from. The worker's figure is its own word."""
        index = torch_device_index(getattr(self, "device", "cpu"))
        if index is None:
            return
        import torch

        if self.stage is None and not self.stage_peaks:
            self.stage = "setup"  # it stopped before the reference was built
        self._begin_stage(None)
        self.result["gpu_memory"] = {
            "judge_peak_reserved_bytes": max(self.stage_peaks.values()),
            "judge_stage_peak_reserved_bytes": dict(self.stage_peaks),
            "worker_peak_reserved_bytes": self.worker_peak_bytes,
            "device_total_bytes": int(torch.cuda.get_device_properties(index).total_memory),
            "released_between_stages": self.large,
        }

    def _run(self):
        req = self.req
        _make_undumpable()
        import torch

        self.device = "cuda:%d" % req["gpu_index"] if req["device"] == "cuda" else "cpu"
        # CPU mode defaults to one thread: reproducible on shared machines and a
        # per-core comparison; the request can ask for more.
        self.num_threads = req["num_threads"] or (envinfo.available_cpus() if req["device"] == "cuda" else 1)
        torch.set_num_threads(self.num_threads)
        self.cuda_arch = None
        if self.device.startswith("cuda"):
            if not torch.cuda.is_available():
                raise TaskFailure("device 'cuda' requested but torch.cuda is not available")
            # the device's properties, without a context on it
            self.cuda_arch = "%d.%d" % torch.cuda.get_device_capability(req["gpu_index"])
            if not self.build_only:
                # The build pool (build_only) never touches the GPU: no context, no allocation,
                # its worker sees no GPU. Evaluations own it, one at a time.
                torch.cuda.set_device(torch.device(self.device))
                torch.backends.cuda.matmul.allow_tf32 = req["allow_tf32"]
                torch.backends.cudnn.allow_tf32 = req["allow_tf32"]
        if hasattr(torch, "set_float32_matmul_precision"):
            torch.set_float32_matmul_precision("high" if req["allow_tf32"] else "highest")
        self.result["environment"] = envinfo.describe(self.device, self.num_threads, req["allow_tf32"])

        # 1. static checks -------------------------------------------------
        policy = dict(req["policy"])
        policy.setdefault("precision", req["precision"])
        workspace = os.path.isdir(req["candidate_path"])
        self.result["candidate_format"] = "workspace" if workspace else "kernelbench"
        try:
            if workspace:
                findings = static_check.analyze_workspace(req["candidate_path"], policy)
            else:
                with open(req["candidate_path"], "r", encoding="utf-8") as f:
                    source = f.read()
                findings = static_check.analyze(source, policy)
        except (OSError, UnicodeDecodeError) as e:
            return self.finish("invalid_candidate", "cannot read candidate: %s" % e)
        self.result["static_findings"] = static_check.to_json(findings)
        verdict = static_check.verdict_for(findings)
        if verdict is not None:
            first = [f for f in findings if f.severity == static_check.REJECT][0]
            return self.finish(verdict, "static check: %s at line %d: %s" % (first.rule, first.line, first.message))

        # 2. reference (trusted) -------------------------------------------
        self._begin_stage("setup")
        try:
            self.task = taskload.load_task(req["task_path"])
        except taskload.TaskError as e:
            raise TaskFailure(str(e))
        # fp16 / bf16: the task's floating inputs and both models' floating weights are cast
        self.dtype = precision.dtype_of(req["precision"])
        self.result["precision"] = {"requested": req["precision"],
                                    "dtype": str(self.dtype or torch.float32).replace("torch.", ""),
                                    "inputs_cast": self.dtype is not None, "weights_cast": self.dtype is not None,
                                    "atol": req["atol"], "rtol": req["rtol"]}
        init_seed = seeds.init_seed(req["seed"])
        try:
            torch.manual_seed(init_seed)
            init_inputs = taskload.as_list(self.task.get_init_inputs(), "get_init_inputs")
        except Exception as e:
            raise TaskFailure("get_init_inputs() raised %s: %s" % (type(e).__name__, e))
        if not (self.build_only and self.device.startswith("cuda")):
            try:
                torch.manual_seed(init_seed)
                ref = self.task.Model(*init_inputs)
                ref = precision.cast_model(ref.to(self.device), self.dtype).eval()
            except Exception as e:
                raise TaskFailure("reference Model could not be constructed: %s: %s" % (type(e).__name__, e))
            self.ref_model = ref

        # 3. worker: build + construct --------------------------------------
        build_dir = req["build_dir"] or os.path.join(tempfile.gettempdir(), "kbharness-build-cache")
        os.makedirs(build_dir, exist_ok=True)
        use_sandbox = False
        if req["sandbox"] in ("auto", "bwrap"):
            ok, why = sandbox_probe()
            if ok:
                use_sandbox = True
            elif req["sandbox"] == "bwrap":
                raise TaskFailure("sandbox 'bwrap' was requested but is unavailable: %s" % why)
            else:
                self.runtime_finding("sandbox-unavailable", static_check.INFO,
                                     "the candidate ran without a sandbox (%s): it had the harness's network "
                                     "and file-system access" % why)
        else:
            self.runtime_finding("sandbox-disabled", static_check.INFO,
                                 "the request disabled the sandbox: the candidate had the harness's network and "
                                 "file-system access")
        self.result["sandbox"] = "bwrap" if use_sandbox else "none"
        self.use_sandbox = use_sandbox
        self.init_inputs = init_inputs
        self.worker_cpus = _worker_cpus(self.num_threads)
        self.gpu_idle_probe_ms = None
        if self.device.startswith("cuda") and not self.build_only:
            self.gpu_idle_probe_ms = _idle_probe_limit(self.device)
        # CUDA IPC moves GPU tensors between judge and worker without host copies (a 6 GB
        # input through the byte channel costs several host copies of it); "auto" takes it on
        # a GPU, the byte channel on the CPU. "bytes" forces the byte channel everywhere.
        transport = req["tensor_transport"]
        self.ipc = self.device.startswith("cuda") and transport in ("auto", "cuda_ipc")
        self.result["tensor_transport"] = "cuda_ipc" if self.ipc else "bytes"
        workdir = tempfile.mkdtemp(prefix="kbharness-")
        os.chmod(workdir, 0o700)
        worker = None
        self.ref_worker = None
        self.ref_dir = tempfile.mkdtemp(prefix="kbharness-ref-")
        os.chmod(self.ref_dir, 0o700)
        try:
            worker = WorkerHandle(self.worker_device(), self.num_threads, workdir, sandbox=use_sandbox,
                                  build_dir=build_dir, memory_limit_mb=req["memory_limit_mb"],
                                  readable=[req["candidate_path"] if os.path.isdir(req["candidate_path"])
                                            else os.path.dirname(req["candidate_path"])],
                                  cuda_arch=self.cuda_arch, cpus=self.worker_cpus,
                                  hidden_roots=[req["build_root"]] if req["build_root"] else [])
            if not self.build_only:
                self.ref_worker = self._spawn_reference(self.ref_dir)
            return self._with_worker(worker, init_inputs, init_seed, build_dir)
        finally:
            if worker is not None:
                worker.close()
                self.result["worker_log_tail"] = worker.log_tail()
            if self.ref_worker is not None:
                self.ref_worker.close()
            shutil.rmtree(workdir, ignore_errors=True)
            shutil.rmtree(self.ref_dir, ignore_errors=True)

    def worker_device(self):
        """Where the worker runs: the build pool's worker of a GPU run builds CUDA code on
        the CPU, with no GPU in sight."""
        return "cpu" if self.build_only else self.device

    def _inputs(self, seed):
        import torch

        torch.manual_seed(seed)
        if self.device.startswith("cuda") and hasattr(torch.device, "__enter__"):
            with torch.device(self.device):
                inputs = self.task.get_inputs()
        else:
            inputs = self.task.get_inputs()
        inputs = taskload.as_list(inputs, "get_inputs")
        inputs = [x.to(self.device) if isinstance(x, torch.Tensor) else x for x in inputs]
        return precision.cast_inputs(inputs, self.dtype)

    def _reference(self, inputs, fresh=False):
        """The reference's output on a copy of ``inputs`` (on ``inputs`` themselves where
        they are ``fresh``: made for this one call)."""
        import torch

        with torch.no_grad():
            out = self.ref_model(*(inputs if fresh else _clone(inputs)))
        if self.device.startswith("cuda"):
            torch.cuda.synchronize()
        return out

    def _short_mantissa_run(self, worker, inputs, stage):
        """(candidate output, float64 reference output) on ``inputs`` (the precision probe's
        second run); (None, None) where either cannot be had."""
        try:
            exact = precision.exact_output(self.ref_model, inputs)
            desc, data = codec.encode(inputs, ipc=self.ipc)
            reply, payload = worker.call({"cmd": "run", "inputs": desc, "release_memory": self.large}, data,
                                         self.req["trial_timeout_seconds"], stage + " (precision probe)")
            codec.release_shared()
            if not reply.get("ok"):
                return None, None
            return codec.decode(reply.get("output"), payload, allow_ipc=self.ipc), exact
        except (codec.DecodeError, TypeError, AttributeError, ValueError):
            return None, None

    def _check_threads(self, worker, reply, stage):
        """A Python thread the candidate started and left running is rejected (work outside
        the timed window). Native threads and processes are not counted here: torch starts
        its own, and whatever a helper does is caught where it matters, by the judge's
        clock and, on the CPU, by the CPU time of all the candidate's processes
        (interleave.py)."""
        py = reply.get("py_threads") if isinstance(reply, dict) else None
        if isinstance(py, int) and not isinstance(py, bool) and isinstance(self.base_py_threads, int) and \
                py > self.base_py_threads:
            return self.reject_at_runtime(
                "runtime-background-thread",
                "%d Python thread(s) started by the candidate were still running after %s: work can run outside "
                "the timed window" % (py - self.base_py_threads, stage))
        return None

    def _with_worker(self, worker, init_inputs, init_seed, build_dir):
        req = self.req
        self.base_py_threads = None
        try:
            reply, _ = worker.call({"cmd": "prepare", "device": self.worker_device(), "num_threads": self.num_threads,
                                    "allow_tf32": req["allow_tf32"], "cuda_ipc": self.ipc}, b"", 300.0, "worker start")
        except WorkerFailure as e:
            return self.finish(e.kind if e.kind == "timeout" else "runtime_error", e.message)
        if not reply.get("ok"):
            return self.finish("runtime_error", "the worker could not start: %s" % reply.get("error", "?"))
        self.base_py_threads = reply.get("py_threads")
        desc, data = codec.encode(init_inputs)
        header = {"cmd": "load", "candidate_path": req["candidate_path"], "device": self.worker_device(),
                  "init_seed": init_seed, "num_threads": self.num_threads, "build_dir": build_dir,
                  "allow_tf32": req["allow_tf32"], "init": desc,
                  "build_for": ("cuda-sm%s" % self.cuda_arch.replace(".", "")) if self.cuda_arch else "cpu",
                  "build_only": self.build_only, "build_service": True, "precision": req["precision"]}
        candidate_dir = req["candidate_path"] if os.path.isdir(req["candidate_path"]) else \
            os.path.dirname(req["candidate_path"])
        try:
            builds = buildservice.BuildService(build_dir, header["build_for"], worker.env, worker.sandboxed,
                                               [candidate_dir, worker.workdir], HARNESS_ROOT)
        except buildservice.CacheIntegrityError as e:
            raise InfrastructureFailure(str(e))
        try:
            reply, _ = self._load(worker, header, data, req["build_timeout_seconds"], "build and construction",
                                  builds)
        except WorkerFailure as e:
            return self.finish(e.kind if e.kind == "timeout" else "runtime_error", e.message)
        if builds.discarded:
            self.runtime_finding("build-cache-entry-discarded", static_check.INFO,
                                 "%d build-cache entr%s without a matching record of the judge (changed or not "
                                 "built by it) were discarded and built again" %
                                 (len(builds.discarded), "y" if len(builds.discarded) == 1 else "ies"))
        pid = worker.worker_pid()
        problems = builds.verify_mapped(pid) if pid else []
        if problems:
            for prefix, _ in problems:
                builds.discard(prefix)
            raise InfrastructureFailure("build cache: %s; the entry was discarded, evaluate again" % problems[0][1])
        build = reply.get("build") or {}
        if isinstance(build, dict):
            self.result["build"] = {
                "status": build.get("status", "skipped"),
                "seconds": float(build.get("seconds") or 0.0),
                "cache_key": build.get("cache_key"),
                "log": str(build.get("log", ""))[-200000:],
                "errors": build.get("errors") or [],
                "extensions": build.get("extensions") or [],
            }
            try:
                buildcache.map_to_candidate(self.result["build"]["errors"], self.result["build"]["extensions"],
                                            build_dir, req["candidate_path"])
            except (TypeError, AttributeError, KeyError, ValueError):
                pass  # the worker's build report is malformed: the errors stay as reported
        if not reply.get("ok"):
            stage = reply.get("stage")
            err = str(reply.get("error", "unknown error"))
            if stage == "build":
                n = len(self.result["build"]["errors"])
                first = self.result["build"]["errors"][0] if n else None
                where = (" (first: %s:%s: %s)" % (first.get("file"), first.get("line"), first.get("message"))
                         if first else "")
                return self.finish("build_error", "extension build failed with %d error(s)%s" % (n, where))
            if stage == "invalid":
                return self.finish("invalid_candidate", err)
            what = "constructing ModelNew" if stage == "construct" else "importing the candidate"
            return self.finish("runtime_error", "%s raised %s" % (what, err))
        if self._check_threads(worker, reply, "importing and constructing ModelNew"):
            return self.result["verdict"]
        if self.build_only:
            deferred = reply.get("deferred")
            if isinstance(deferred, str) and deferred:
                return self.finish("built", "candidate built (%s); %s, without a GPU, raised %s: the evaluation "
                                            "tries again on the GPU" % (self.result["build"]["status"],
                                                                        reply.get("stage", "import"), deferred[:300]))
            return self.finish("built", "candidate built (%s) and constructed" % self.result["build"]["status"])

        # 4. correctness ------------------------------------------------------
        self._begin_stage("correctness")
        trials = []
        strict = req["strict_check"] is True
        self.result["correctness"] = {"passed": False, "trials": trials, "atol": req["atol"], "rtol": req["rtol"],
                                      "strict": strict, "strict_reason": ["requested"] if strict else [],
                                      "strict_atol_fraction": STRICT_ATOL_FRACTION,
                                      "strict_spread_fraction": STRICT_SPREAD_FRACTION}
        expected_device = "cuda" if self.device.startswith("cuda") else "cpu"
        first_failure = None
        exact = probe_inputs = None
        for i in range(req["correctness_trials"]):
            tseed = seeds.trial_seed(req["seed"], i)
            expected = got = None  # the previous trial's tensors go before the next ones are made
            try:
                inputs = self._inputs(tseed)
                if i == 0:
                    self.large = _tensor_bytes(inputs) > LARGE_TASK_BYTES
                expected = self._reference(inputs)
                if i == 0 and precision.applies(req, inputs, expected):
                    exact = precision.exact_output(self.ref_model, inputs)
                    probe_inputs = precision.short_mantissa(inputs) if exact is not None else None
                desc, data = codec.encode(inputs, ipc=self.ipc)
            except Exception as e:
                raise TaskFailure("reference failed on trial %d: %s: %s" % (i, type(e).__name__, e))
            del inputs
            self._release_memory()
            if i == 0 and req["strict_check"] == "auto":
                weak = [name for name, _ in validate_task.weakness_flags(expected, req["atol"], req["rtol"])[0]
                        if name in validate_task.WEAK_OUTPUT_FLAGS]
                if weak:
                    strict = True
                    self.result["correctness"]["strict"] = True
                    self.result["correctness"]["strict_reason"] = weak
                    self.runtime_finding("weak-task-strict-check", static_check.INFO,
                                         "the reference output is %s at atol=%g: correctness is judged strictly "
                                         "(atol scaled to the output's magnitude)" % (", ".join(weak), req["atol"]))
            stage = "correctness trial %d" % i
            try:
                reply, payload = worker.call({"cmd": "run", "inputs": desc, "release_memory": self.large}, data,
                                             req["trial_timeout_seconds"], stage)
                codec.release_shared()  # the worker answered: it has its own copy
                self._note_worker_memory(reply)
            except WorkerFailure as e:
                trials.append({"index": i, "seed": tseed, "passed": False, "max_abs_error": None,
                               "max_rel_error": None, "mismatch_fraction": None, "message": e.message})
                return self.finish("timeout" if e.kind == "timeout" else "runtime_error", e.message)
            if not reply.get("ok"):
                msg = "forward raised %s in %s" % (reply.get("error", "an exception"), stage)
                trials.append({"index": i, "seed": tseed, "passed": False, "max_abs_error": None,
                               "max_rel_error": None, "mismatch_fraction": None, "message": msg})
                return self.finish("runtime_error", msg)
            try:
                got = codec.decode(reply.get("output"), payload, allow_ipc=self.ipc)
                devices = codec.tensor_devices(reply.get("output"))
            except (codec.DecodeError, TypeError, AttributeError) as e:
                got, devices = None, []
                cmp = {"passed": False, "max_abs_error": None, "max_rel_error": None,
                       "mismatch_fraction": 1.0, "message": "output rejected: %s" % e}
            else:
                # on the reference's device, chunk by chunk (a 6 GB output never goes to float64 whole)
                cmp = compare.compare(expected, got, req["atol"], req["rtol"], strict=strict,
                                      strict_atol_fraction=STRICT_ATOL_FRACTION,
                                      strict_spread_fraction=STRICT_SPREAD_FRACTION)
                wrong_dev = [d for d in devices if str(d).split(":")[0] != expected_device]
                if cmp["passed"] and wrong_dev:
                    cmp["passed"] = False
                    cmp["message"] = "output is on device %s, expected %s" % (wrong_dev[0], expected_device)
            cmp.update({"index": i, "seed": tseed})
            trials.append({k: cmp[k] for k in ("index", "seed", "passed", "max_abs_error", "max_rel_error",
                                               "mismatch_fraction", "message")})
            if self._check_threads(worker, reply, stage):
                return self.result["verdict"]
            if i == 0 and exact is not None and cmp["passed"]:
                got16, exact16 = self._short_mantissa_run(worker, probe_inputs, stage)
                probe = precision.probe(exact, expected, got, exact16, got16)
                exact = probe_inputs = got16 = exact16 = None
                self.result["correctness"]["precision_probe"] = probe
                if probe and probe["downgraded"]:
                    msg = ("arithmetic below float32 (TF32, fp16 or bf16) on a float32 task with TF32 off: against "
                           "a float64 evaluation %s" % probe["why"])
                    self.flag("precision-downgrade", msg)
                    self.runtime_finding("runtime-precision-downgrade", static_check.SUSPICIOUS, msg)
            if not cmp["passed"] and first_failure is None:
                first_failure = "trial %d: %s" % (i, cmp["message"] or "outputs differ")
        if first_failure is not None:
            failed = sum(1 for t in trials if not t["passed"])
            return self.finish("incorrect", "%d of %d correctness trials failed; %s" %
                               (failed, len(trials), first_failure))
        self.result["correctness"]["passed"] = True

        # 5. timing (judge-owned, interleaved with the reference: interleave.py) ----
        self._begin_stage("candidate_timing")
        box = [expected]  # handed over, so that the timing stage can drop it
        expected = got = None
        return self._timing(worker, box, strict, len(trials), build_dir)

    def _load(self, worker, header, data, timeout, stage, builds):
        """The worker's "load", serving the builds it asks for on the way (buildservice.py)."""
        deadline = time.monotonic() + timeout
        worker.send(header, data, stage)
        while True:
            reply, payload = worker.receive(max(0.1, deadline - time.monotonic()), stage)
            if isinstance(reply, dict) and reply.get("event") == "build":
                worker.send(builds.handle(reply, deadline), b"", stage)
                continue
            return reply, payload

    def _spawn_reference(self, workdir):
        """A worker that will load the task's own Model (and, when asked, its torch.compile):
        the reference is timed in a process set up exactly like the candidate's. Started
        beside the candidate's worker, so its start-up overlaps the candidate's build."""
        req = self.req
        worker = WorkerHandle(self.device, self.num_threads, workdir, sandbox=self.use_sandbox,
                              build_dir=None, memory_limit_mb=req["memory_limit_mb"],
                              readable=[os.path.dirname(req["task_path"])], cuda_arch=self.cuda_arch,
                              cpus=self.worker_cpus)
        worker.send({"cmd": "prepare", "device": self.device, "num_threads": self.num_threads,
                     "allow_tf32": req["allow_tf32"], "cuda_ipc": self.ipc}, b"", "reference worker start")
        return worker

    def _reference_worker(self, worker, workdir):
        req = self.req
        reply, _ = worker.receive(300.0, "reference worker start")
        if not reply.get("ok"):
            raise TaskFailure("the reference worker could not start: %s" % reply.get("error", "?"))
        import torch

        mode = None
        if req["baseline"].get("compile") and hasattr(torch, "compile"):
            mode = req["baseline"].get("compile_mode", "default")
        init_seed = seeds.init_seed(req["seed"])
        desc, data = codec.encode(self.init_inputs)
        reply, _ = worker.call({"cmd": "load", "candidate_path": req["task_path"], "class_name": "Model",
                                "device": self.device, "init_seed": init_seed, "num_threads": self.num_threads,
                                "build_dir": workdir, "allow_tf32": req["allow_tf32"], "init": desc,
                                "build_for": ("cuda-sm%s" % self.cuda_arch.replace(".", "")) if self.cuda_arch
                                else "cpu", "build_only": False, "compile_mode": mode, "precision": req["precision"]},
                               data, req["build_timeout_seconds"], "reference load")
        if not reply.get("ok"):
            raise TaskFailure("the reference worker could not load the task: %s" % reply.get("error", "?"))
        return worker, mode

    def _timing(self, worker, box, strict, ntrials, build_dir):
        from . import interleave, procset

        reference_output = box.pop()
        req = self.req
        template = self._inputs(seeds.timing_seed(req["seed"], 0))
        if self.large:
            # the slots need shapes and dtypes only: a 6 GB input or output is not kept twice
            template = [torch_empty_like(x) for x in template]
            reference_output = evidence.map_tensors(reference_output, torch_empty_like)
            try:
                worker.call({"cmd": "unbind"}, b"", 120.0, "timing set-up")  # the worker gives cached memory back
            except WorkerFailure as e:
                return self.finish("timeout" if e.kind == "timeout" else "runtime_error", e.message)
        self._release_memory()
        ref_worker, ref_dir = self.ref_worker, self.ref_dir
        gpu_index = torch_device_index(self.device)
        gpu_before = nvml.sample(gpu_index) if gpu_index is not None else None
        if ref_worker is not None:
            try:
                ref_worker, mode = self._reference_worker(ref_worker, ref_dir)
            except WorkerFailure as e:
                raise TaskFailure("the reference worker failed: %s" % e.message)
            cand_procs = procset.ProcessSet(worker.worker_pid(), worker.sandboxed)
            ref_procs = procset.ProcessSet(ref_worker.worker_pid(), ref_worker.sandboxed)
            cand = interleave.Side("candidate", worker, cand_procs, trusted=False)
            eager = interleave.Side("eager", ref_worker, ref_procs, trusted=True)
            sides = [cand, eager]
            compiled = None
            if req["baseline"].get("compile"):
                if mode:
                    compiled = interleave.Side("compile", ref_worker, ref_procs, trusted=True, variant="compile")
                    sides.append(compiled)
            timer = interleave.InterleavedTiming(self, reference_output, strict, sides, STRICT_ATOL_FRACTION)
            try:
                timer.bind(cand, template, worker.workdir)
                timer.bind(eager, template, ref_dir)
                if compiled is not None:
                    timer.share(compiled, eager)
                try:
                    timer.run()
                finally:
                    timer.close()
            except interleave.TimingAborted as e:
                cand_procs.cont(), ref_procs.cont()
                if e.rule and e.verdict == "rejected":
                    return self.reject_at_runtime(e.rule, e.message)
                if e.rule:
                    self.runtime_finding(e.rule, static_check.REJECT, e.message)
                return self.finish(e.verdict, e.message)
            except WorkerFailure as e:
                cand_procs.cont(), ref_procs.cont()
                return self.finish("timeout" if e.kind == "timeout" else "runtime_error", e.message)
            except RuntimeError as e:
                ref_procs.cont()
                raise TaskFailure(str(e))
            cand_procs.cont(), ref_procs.cont()
            if gpu_index is not None:
                self.result["gpu_state"] = {"gpu_index": gpu_index, "before": gpu_before,
                                            "after": nvml.sample(gpu_index)}
            return self._timing_verdict(timer, cand, eager, compiled, template, reference_output, ntrials)

    def _timing_verdict(self, timer, cand, eager, compiled, template, reference_output, ntrials):
        from . import interleave

        req = self.req
        cuda = self.device.startswith("cuda")
        unexplained, overhead_diff, gap_allowance = timer.unexplained_ms()
        forged, trip_diff, trip_allowance = timer.forged_ms()
        eff = [x for r in timer.effective_rounds(cand) for x in r]
        cstats = timing.stats(eff, cand.wall)
        cstats["worker_samples_ms"] = [round(x, 6) for x in cand.samples]
        cstats["round_trips_ms"] = [round(x, 6) for r in cand.trips for x in r]
        estats = timing.stats([x for r in timer.effective_rounds(eager) for x in r], eager.wall)
        estats["worker_samples_ms"] = [round(x, 6) for x in eager.samples]
        estats["round_trips_ms"] = [round(x, 6) for r in eager.trips for x in r]
        comp = None
        if compiled is not None:
            comp = ({"unavailable": compiled.unavailable} if compiled.unavailable else
                    dict(timing.stats(compiled.samples, compiled.wall), mode=req["baseline"].get("compile_mode",
                                                                                            "default")))
        elif req["baseline"].get("compile"):
            import torch

            comp = {"unavailable": "torch.compile is not available in torch %s" % torch.__version__}

        def interval(side):
            est = timer.speedup(side)
            if not est:
                return None
            value, low, high, half = est
            return {"speedup": round(value, 4), "ci_low": None if low is None else round(low, 4),
                    "ci_high": None if high is None else round(high, 4),
                    "rel_halfwidth": None if half is None else round(half, 4),
                    "noisy": half is None or half > interleave.NOISY_REL_HALFWIDTH, "blocks": len(side.rounds)}

        eager_cmp = interval(eager)
        compile_cmp = interval(compiled) if compiled is not None and not compiled.unavailable else None
        host = interleave.median(eager.host) or 0.0
        dev = estats.get("median_ms") or 0.0
        regime = "cpu" if not cuda else ("launch-bound" if dev and host >= 0.8 * dev else "device-bound")
        self.result["timing"] = {
            "candidate": cstats, "eager": estats, "compile": comp, "warmup": req["warmup"],
            "input_sets": len(cand.samples), "input_sets_requested": req["timing_input_sets"],
            "method": "interleaved+cuda-events+l2-flush" if cuda else "interleaved+perf_counter",
            "inputs": "fresh-per-call",
            "persisting_l2_reset": None,
            "roofline": None,
            "comparison": {"method": "interleaved", "regime": regime,
                           "target_rel_halfwidth": interleave.TARGET_REL_HALFWIDTH,
                           "noisy_rel_halfwidth": interleave.NOISY_REL_HALFWIDTH,
                           "eager": eager_cmp, "compile": compile_cmp, "rounds": timer.rounds,
                           "block_calls": interleave.BLOCK_CALLS, "stopped_by": timer.stopped_by},
            "evidence": {"calls_verified": len(cand.samples) + timer.rounds + max(1, req["warmup"]),
                         "judge_overhead_ms_per_call": {"candidate": _mean(cand.block_overheads),
                                                        "reference": _mean(eager.block_overheads)},
                         "after_return_ms_per_call": {"beyond_allowance": round(unexplained, 6),
                                                      "difference": round(overhead_diff, 6),
                                                      "allowance": round(gap_allowance, 6)},
                         "outside_samples_ms_per_call": {"beyond_allowance": round(forged, 6),
                                                         "difference": round(trip_diff, 6),
                                                         "allowance": round(trip_allowance, 6)},
                         "added_to_each_sample_ms": round(unexplained + forged, 6),
                         "cpu_per_wall": {"candidate": _round(timer.cpu_ratio(cand)),
                                          "reference": _round(timer.cpu_ratio(eager))},
                         "machine_busy_cores": {"candidate": _round(timer.busy_cores(cand)),
                                                "reference": _round(timer.busy_cores(eager))},
                         "threads": {"candidate": cand.procs.thread_count(), "reference": eager.procs.thread_count()},
                         "cpu_budget": timer.budget_evidence(),
                         "candidate_stopped_during_reference": bool(cand.procs.ns_init),
                         "judge_ms": {"candidate": {k: round(v, 3) for k, v in cand.diag.items()},
                                      "reference": {k: round(v, 3) for k, v in eager.diag.items()}}},
        }
        self.result["timing"]["roofline"] = self._roofline([template], [reference_output], cstats)
        # the judge's clock: time the candidate's samples leave out
        worker_median = interleave.median(cand.samples) or 0.0
        impossible = timer.impossible_samples()
        if impossible:
            return self.reject_at_runtime(
                "runtime-unmeasured-work",
                "%d of the candidate's samples are longer than the judge's clock says the calls took: the samples "
                "were forged" % impossible)
        fraction = interleave.UNEXPLAINED_REJECT_FRACTION if cuda else interleave.UNEXPLAINED_REJECT_FRACTION_CPU
        # the verdict rests on the robust tests alone (the call-by-call floor shifts both sides
        # alike with the machine's noise and decides only the numbers)
        if forged + unexplained > max(interleave.UNEXPLAINED_FLOOR_MS, fraction * worker_median):
            return self.reject_at_runtime(
                "runtime-unmeasured-work",
                "the judge's clock puts the candidate's calls at %.4f ms more than its own samples' median of %.4f ms (%.4f ms per "
                "call beyond the samples while the calls ran, %.4f ms after they returned, beyond what the "
                "reference's calls show): work ran outside the measured window or the samples were forged" %
                (forged + unexplained, worker_median, forged, unexplained))
        if not cuda:
            ratio = timer.cpu_ratio(cand)
            allowed = self.num_threads + interleave.CPU_SLACK
            if ratio is not None and ratio > allowed:
                return self.reject_at_runtime(
                    "runtime-hidden-parallelism",
                    "the candidate's processes used %.2f s of CPU per second of its timed calls, %d thread(s) were "
                    "allowed: work ran in parallel outside the thread budget" % (ratio, self.num_threads))
            # the whole machine: also sees helpers that exited before anyone counted them
            bc, br = timer.busy_cores(cand), timer.busy_cores(eager)
            if bc is not None and br is not None and bc - br > interleave.EXTRA_CORES:
                return self.reject_at_runtime(
                    "runtime-hidden-parallelism",
                    "the machine's processors were busy %.2f on average during the candidate's timed calls and %.2f "
                    "during the reference's, which runs the same harness with %d thread(s): the candidate worked "
                    "in parallel outside its thread budget" % (bc, br, self.num_threads))
        # a noisy measurement is a statement about the measurement, not a suspicion about the
        # candidate: it stays in timing.comparison (the engine shows it), never a flag
        speed = {"eager": eager_cmp["speedup"] if eager_cmp else None,
                 "compile": compile_cmp["speedup"] if compile_cmp else None}
        self.result["speedup"] = speed
        if speed["eager"] and speed["eager"] > EXCESSIVE_SPEEDUP:
            self.flag("excessive-speedup", "%.1fx faster than eager: review before counting" % speed["eager"])
        msg = "correct: %d/%d trials passed; median %.4f ms" % (ntrials, ntrials, cstats["median_ms"])
        if speed["eager"]:
            msg += " vs eager %.4f ms (%.3gx [%s, %s])" % (estats["median_ms"], speed["eager"], eager_cmp["ci_low"],
                                                           eager_cmp["ci_high"])
        return self.finish("correct", msg)

    def _roofline(self, sets, outs, cand):
        """Memory roofline floor: input + output bytes over the measured copy
        bandwidth.  A median below ROOFLINE_FRACTION of it is implausible."""
        import torch

        def nbytes(v):
            if type(v) is torch.Tensor:
                return v.numel() * v.element_size()
            if isinstance(v, (list, tuple)):
                return sum(nbytes(x) for x in v)
            return 0

        in_bytes = nbytes(sets[0]) if sets else 0
        out_bytes = nbytes(outs[0]) if outs and outs[0] is not None else 0
        total = in_bytes + out_bytes
        if not total or not cand.get("median_ms"):
            return None
        try:
            bw = _bandwidth(self.device, in_bytes)
        except Exception:
            bw = None
        if not bw:
            return None
        floor_ms = total / bw * 1000.0
        out = {"bytes": total, "bandwidth_gbps": round(bw / 1e9, 3), "floor_ms": round(floor_ms, 6),
               "fraction": ROOFLINE_FRACTION}
        if cand["median_ms"] < ROOFLINE_FRACTION * floor_ms:
            msg = ("median %.6f ms is below %.0f%% of the memory roofline floor %.6f ms (%d bytes at %.1f GB/s): "
                   "the candidate cannot have read its inputs and written its outputs" %
                   (cand["median_ms"], 100 * ROOFLINE_FRACTION, floor_ms, total, bw / 1e9))
            self.flag("below-roofline", msg)
            self.runtime_finding("runtime-below-roofline", static_check.SUSPICIOUS, msg)
        return out

def torch_empty_like(x):
    """A tensor of x's shape and dtype on x's device (its values do not matter), or x itself."""
    import torch

    return torch.empty_like(x) if isinstance(x, torch.Tensor) else x


def _mean(xs):
    return round(sum(xs) / len(xs), 6) if xs else None


def _round(x):
    return None if x is None else round(x, 4)


_BANDWIDTH = {}


def _bandwidth(device, task_bytes):
    """Best copy bandwidth (bytes/s), measured once per harness run and device:
    a 64 MB copy (CPU; 256 MB device-to-device on CUDA) and, on CPU, a copy of
    the task's own input size (cache-resident data copies faster)."""
    cuda = device.startswith("cuda")
    key = (device, "big")
    if key not in _BANDWIDTH:
        _BANDWIDTH[key] = timing.copy_bandwidth(device, (256 << 20) if cuda else (64 << 20), repeats=3)
    best = _BANDWIDTH[key]
    if not cuda and task_bytes:
        size = min(max(int(task_bytes), 64 << 10), 64 << 20)
        skey = (device, size)
        if skey not in _BANDWIDTH:
            _BANDWIDTH[skey] = timing.copy_bandwidth(device, size, repeats=7)
        if _BANDWIDTH[skey] and (best is None or _BANDWIDTH[skey] > best):
            best = _BANDWIDTH[skey]
    return best


def evaluate(req, build_only=False):
    """Run one evaluation; returns the result document (a dict).

    Raises RequestError / TaskFailure for problems that are not the
    candidate's fault.
    """
    ev = Evaluation(req, build_only=build_only)
    return ev.run()


__all__ = ["evaluate", "TaskFailure", "RequestError"]
