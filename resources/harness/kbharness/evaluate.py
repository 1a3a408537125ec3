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
import tempfile
import time
from typing import Any, Dict, List, Optional, Tuple

from . import (RESULT_SCHEMA, buildcache, buildservice, codec, correctnessstage, cppscan, envinfo, precision, rules,
               sandbox, seeds, static_check, symcheck, taskload, timingstage)
from .envinfo import torch_device_index
from .failures import InfrastructureFailure, TaskFailure
from .request import RequestError
from .workerhandle import HARNESS_ROOT, WorkerFailure, WorkerHandle, worker_cpus

sandbox_probe = sandbox.probe  # used by bench/gpu/sandbox_check.py

# Timing rotates among several input sets; together they may take at most this fraction of
# the GPU's memory (a 6 GB input gets two sets on a 141 GB GPU, not an out-of-memory error).
INPUT_SET_MEMORY_FRACTION = 0.1


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


def _process_age() -> Optional[float]:
    """Seconds since this process started (the interpreter's start and the harness's imports
    before the evaluation), to the kernel's clock tick; None where /proc cannot tell."""
    try:
        with open("/proc/self/stat") as f:
            start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return round(max(0.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK")), 2)
    except (OSError, ValueError, IndexError):
        return None


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


def _finite(value):
    """Replace non-finite floats (not valid JSON) by None, recursively."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


class Evaluation:
    """One evaluation: the result document and the stages that fill it (static check, reference,
    worker start, build and construction, correctness, timing: timingstage.py)."""

    def __init__(self, req: Dict[str, Any], build_only: bool = False) -> None:
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
        self._mark_at = self.started
        self.result["stage_seconds"] = {"judge_start": _process_age()}
        self.worker_peak_bytes = None
        self.stage_peaks = {}
        self.stage = None  # the stage whose judge memory peak is being measured

    # ------------------------------------------------------------------
    def finish(self, verdict: str, message: str) -> str:
        self.result["verdict"] = verdict
        self.result["message"] = message.replace("\n", " ").strip()[:1000]
        return verdict

    def flag(self, name: str, message: str) -> None:
        self.result["flags"].append({"flag": name, "message": message})

    def runtime_finding(self, rule: str, message: str) -> None:
        """Record a detection made while running as a finding, with its severity from rules.py
        (the engine stores static_findings per attempt); line 0 = no source location."""
        self.result["static_findings"].append({"rule": rule, "severity": rules.severity(rule), "line": 0, "col": 0,
                                               "message": message})

    def reject_at_runtime(self, rule: str, message: str) -> str:
        """A runtime rule (of severity reject) rejects the candidate."""
        self.runtime_finding(rule, message)
        return self.finish("rejected", "runtime check: %s: %s" % (rule, message))

    def run(self) -> Dict[str, Any]:
        try:
            self._run()
        finally:
            if not self.build_only:
                self._record_memory()
            self.mark("teardown")
        self.result["harness_seconds"] = round(time.perf_counter() - self.started, 4)
        return _finite(self.result)

    def mark(self, stage: str) -> None:
        """The wall time since the previous mark is ``stage``'s (``stage_seconds`` in the
        result: where an evaluation's time goes, the fixed costs included)."""
        now = time.perf_counter()
        times = self.result["stage_seconds"]
        times[stage] = round(times.get(stage, 0.0) + now - self._mark_at, 4)
        self._mark_at = now

    def release_memory(self) -> None:
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

    def note_worker_memory(self, reply: Any) -> None:
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

    def _run(self) -> Optional[str]:
        req = self.req
        _make_undumpable()
        self._set_up_torch()
        self.mark("judge_setup")
        # 1. static checks -------------------------------------------------
        verdict = self._static_check()
        self.mark("static_check")
        if verdict is not None:
            return verdict
        # 2. reference (trusted) -------------------------------------------
        self._begin_stage("setup")
        init_inputs, init_seed = self._load_reference()
        self.mark("reference")
        # 3. worker: build + construct --------------------------------------
        build_dir = req["build_dir"] or os.path.join(tempfile.gettempdir(), "kbharness-build-cache")
        os.makedirs(build_dir, exist_ok=True)
        use_sandbox = self._choose_sandbox()
        self.result["sandbox"] = "bwrap" if use_sandbox else "none"
        self.use_sandbox = use_sandbox
        self.init_inputs = init_inputs
        self.worker_cpus = worker_cpus(self.num_threads)
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

    def _set_up_torch(self) -> None:
        """The device, the thread count and the matmul precision of the judge's torch."""
        req = self.req
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

    def _static_check(self) -> Optional[str]:
        """The static rules on the candidate's source (static_check.py): the verdict where a
        finding rejects it."""
        req = self.req
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
        return None

    def _load_reference(self) -> Tuple[List[Any], int]:
        """The task in this (trusted) process: its init inputs and, except in a GPU run's build
        pool, the reference Model. Returns the init inputs and their seed."""
        req = self.req
        import torch

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
        return init_inputs, init_seed

    def _choose_sandbox(self) -> bool:
        """Whether the workers run under bubblewrap: as the request asks and the host allows
        (recorded as a finding where they do not)."""
        req = self.req
        use_sandbox = False
        if req["sandbox"] in ("auto", "bwrap"):
            ok, why = sandbox.probe()
            if ok:
                use_sandbox = True
            elif req["sandbox"] == "bwrap":
                raise TaskFailure("sandbox 'bwrap' was requested but is unavailable: %s" % why)
            else:
                self.runtime_finding("sandbox-unavailable",
                                     "the candidate ran without a sandbox (%s): it had the harness's network "
                                     "and file-system access" % why)
        else:
            self.runtime_finding("sandbox-disabled",
                                 "the request disabled the sandbox: the candidate had the harness's network and "
                                 "file-system access")
        return use_sandbox

    def worker_device(self) -> str:
        """Where the worker runs: the build pool's worker of a GPU run builds CUDA code on
        the CPU, with no GPU in sight."""
        return "cpu" if self.build_only else self.device

    def inputs(self, seed: int) -> List[Any]:
        """The task's inputs under ``seed``, on the device, in the task's precision."""
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

    def check_threads(self, worker: WorkerHandle, reply: Any, stage: str) -> Optional[str]:
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

    def _with_worker(self, worker: WorkerHandle, init_inputs: List[Any], init_seed: int,
                     build_dir: str) -> Optional[str]:
        """The stages that need the candidate's worker, in order; each one ends the evaluation
        with a verdict or hands over to the next. Returns the verdict."""
        self.base_py_threads = None
        verdict = self._start_worker(worker)
        self.mark("worker_start")
        if verdict is None:
            verdict = self._build_and_construct(worker, init_inputs, init_seed, build_dir)
            self.mark("build_and_construct")
        if verdict is not None:
            return verdict
        # 4. correctness ------------------------------------------------------
        self._begin_stage("correctness")
        box = []  # the last reference output, handed over so that the timing stage can drop it
        verdict = correctnessstage.run(self, worker, box)
        self.mark("correctness")
        if verdict is not None:
            return verdict
        # 5. timing (judge-owned, interleaved with the reference: interleave.py) ----
        self._begin_stage("candidate_timing")
        correctness = self.result["correctness"]
        verdict = timingstage.run(self, worker, box, correctness["strict"], len(correctness["trials"]))
        self.mark("timing")
        return verdict

    def _start_worker(self, worker: WorkerHandle) -> Optional[str]:
        """The worker sets torch up before any candidate code runs; its Python threads then are
        the baseline."""
        req = self.req
        try:
            reply, _ = worker.call({"cmd": "prepare", "device": self.worker_device(), "num_threads": self.num_threads,
                                    "allow_tf32": req["allow_tf32"], "cuda_ipc": self.ipc}, b"", 300.0, "worker start")
        except WorkerFailure as e:
            return self.finish(e.kind if e.kind == "timeout" else "runtime_error", e.message)
        if not reply.get("ok"):
            return self.finish("runtime_error", "the worker could not start: %s" % reply.get("error", "?"))
        self.base_py_threads = reply.get("py_threads")
        return None

    def _build_and_construct(self, worker: WorkerHandle, init_inputs: List[Any], init_seed: int,
                             build_dir: str) -> Optional[str]:
        """The worker imports the candidate (its builds served by the judge's build service) and
        constructs ModelNew; the build report becomes the result's ``build``. The build pool's
        evaluation ends here."""
        req = self.req
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
            self.runtime_finding("build-cache-entry-discarded",
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
        verdict = self._check_libraries(builds.mapped_libraries)
        if verdict is not None:
            return verdict
        if self.check_threads(worker, reply, "importing and constructing ModelNew"):
            return self.result["verdict"]
        if self.build_only:
            deferred = reply.get("deferred")
            if isinstance(deferred, str) and deferred:
                return self.finish("built", "candidate built (%s); %s, without a GPU, raised %s: the evaluation "
                                            "tries again on the GPU" % (self.result["build"]["status"],
                                                                        reply.get("stage", "import"), deferred[:300]))
            return self.finish("built", "candidate built (%s) and constructed" % self.result["build"]["status"])
        return None

    def _check_libraries(self, libraries: List[str]) -> Optional[str]:
        """What the built libraries the worker loaded import and call (symcheck.py), under the
        C++ scan's rules and the request's policy; a rule the source scan already reported at
        the same severity is not reported again. The verdict where a finding rejects the
        candidate."""
        policy = self.req["policy"]
        report = {"libraries": len(libraries), "status": "ok"}
        self.result["build"]["library_check"] = report
        if not self.req["library_check"]:
            report["status"] = "off (the request turned it off)"
            return None
        if not libraries:
            return None
        try:
            vendor = cppscan.vendor_allowance(policy.get("allow_vendor_libraries"))
            found = []
            for lib in libraries:
                found += symcheck.check_library(lib, bool(policy.get("allow_torch_ops")), vendor)
        except symcheck.ToolMissing as e:
            report["status"] = "not checked: %s" % e
            return None
        known = {(f["rule"], f["severity"]) for f in self.result["static_findings"]}
        found = [f for f in found if (f.rule, f.severity) not in known]
        self.result["static_findings"] += static_check.to_json(found)
        report["findings"] = len(found)
        rejecting = [f for f in found if f.severity == rules.REJECT]
        if rejecting:
            return self.finish("rejected", "library check: %s: %s" % (rejecting[0].rule, rejecting[0].message))
        return None

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

    def load_reference_worker(self, worker: WorkerHandle, workdir: str) -> Tuple[WorkerHandle, Optional[str]]:
        """The reference's worker, started beside the candidate's, loads the task's Model (and
        its torch.compile where asked); returns it and the compile mode."""
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

    def _roofline(self, sets: List[Any], outs: List[Any], cand: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        """The memory roofline's plausibility test (timingstage.py)."""
        return timingstage.roofline(self, sets, outs, cand)


def evaluate(req: Dict[str, Any], build_only: bool = False) -> Dict[str, Any]:
    """Run one evaluation; returns the result document (a dict).

    Raises RequestError / TaskFailure for problems that are not the
    candidate's fault.
    """
    ev = Evaluation(req, build_only=build_only)
    return ev.run()


__all__ = ["evaluate", "TaskFailure", "RequestError"]
