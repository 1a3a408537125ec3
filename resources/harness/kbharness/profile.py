"""The agent's profiler: Nsight Compute (and Nsight Systems where present) on a candidate.

``python3 -m kbharness profile --request REQ --result OUT`` takes the same request as
``evaluate``. It statically checks the candidate, builds and constructs it in a target process
(the evaluator's own worker code, run in-process there), and runs a few forward calls on the
task's inputs under ``ncu`` inside the same sandbox the evaluator uses; only the calls between
cudaProfilerStart and cudaProfilerStop are profiled (warm-up, input generation and the build are
not). The result is a compact summary document (schema ``kbstudio.profile-result/1``) with a
text form for the model.

The parsers and the summary are in ncureport.py.

This profile is advice for the agent, not a judgement: the candidate is not checked for
correctness here and nothing it reports is trusted for scores.
"""

import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from .ncureport import (ALL_METRICS, CORE_METRICS, ParseError, format_summary, parse_ncu_raw,
                        parse_nsys_kernel_summary, summarize)

PROFILE_SCHEMA = "kbstudio.profile-result/1"
DEFAULT_KERNEL_LIMIT = 40
DEFAULT_CALLS = 3
DEFAULT_TIMEOUT = 300.0


# ----------------------------------------------------------------------------- the target

def run_target(spec_path):
    """The profiled process: builds and constructs ModelNew with the evaluator's own worker
    code (in this process), warms up, then runs the profiled calls between
    cudaProfilerStart and cudaProfilerStop. Its outcome goes to spec['status_path']."""
    with open(spec_path, "r", encoding="utf-8") as f:
        spec = json.load(f)
    status = {"ok": False, "stage": "setup", "error": ""}

    def done(**kw):
        status.update(kw)
        with open(spec["status_path"], "w", encoding="utf-8") as out:
            json.dump(status, out)
        return 0 if status["ok"] else 3

    try:
        import torch

        from . import codec, taskload, worker

        replies = []
        w = worker.Worker(None, None)
        w.reply = lambda header, payload=b"": replies.append(header)
        device = spec["device"]
        w.cmd_prepare({"device": device, "num_threads": spec["num_threads"], "allow_tf32": spec["allow_tf32"],
                       "cuda_ipc": False}, b"")
        if not replies[-1].get("ok"):
            return done(stage="setup", error=str(replies[-1].get("error")))
        task = taskload.load_task(spec["task_path"])
        torch.manual_seed(spec["init_seed"])
        init_inputs = taskload.as_list(task.get_init_inputs(), "get_init_inputs")
        desc, data = codec.encode(init_inputs)
        w.cmd_load({"cmd": "load", "candidate_path": spec["candidate_path"], "device": device,
                    "init_seed": spec["init_seed"], "num_threads": spec["num_threads"],
                    "build_dir": spec["build_dir"], "allow_tf32": spec["allow_tf32"], "init": desc,
                    "build_for": spec["build_for"], "build_only": False}, data)
        reply = replies[-1]
        if not reply.get("ok"):
            build = reply.get("build") or {}
            return done(stage=reply.get("stage") or "load", error=str(reply.get("error")),
                        build_errors=(build.get("errors") or [])[:5] if isinstance(build, dict) else [])
        torch.manual_seed(spec["input_seed"])
        if device.startswith("cuda") and hasattr(torch.device, "__enter__"):
            with torch.device(device):
                inputs = taskload.as_list(task.get_inputs(), "get_inputs")
        else:
            inputs = taskload.as_list(task.get_inputs(), "get_inputs")
        inputs = [x.to(device) if isinstance(x, torch.Tensor) else x for x in inputs]
        status["stage"] = "forward"
        for _ in range(spec["warmup"]):
            w._forward(inputs)
        if spec.get("profiled_calls"):
            import torch.cuda.profiler

            torch.cuda.synchronize()
            torch.cuda.profiler.start()
            for _ in range(spec["profiled_calls"]):
                w._forward(inputs)
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()
        name = torch.cuda.get_device_name(torch.cuda.current_device()) if device.startswith("cuda") else "cpu"
        return done(ok=True, stage="done", device_name=name)
    except BaseException as e:  # noqa: B902 - whatever the candidate does, the parent is told
        return done(error="%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0][:400] if str(e).strip()
                                      else ""))


# ----------------------------------------------------------------------------- the run

def find_tool(name):
    """ncu or nsys on PATH, in CUDA_HOME/bin, or in the usual install folders; None if absent."""
    found = shutil.which(name)
    if found:
        return found
    candidates = []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            candidates.append(os.path.join(os.environ[var], "bin", name))
    candidates.append(os.path.join("/usr/local/cuda/bin", name))
    folder = "nsight-compute" if name == "ncu" else "nsight-systems"
    candidates += sorted(glob.glob("/opt/nvidia/%s/*/%s" % (folder, name)), reverse=True)
    candidates += sorted(glob.glob("/opt/nvidia/%s/*/bin/%s" % (folder, name)), reverse=True)
    candidates += sorted(glob.glob("/usr/local/cuda*/bin/%s" % name), reverse=True)
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def tool_version(path):
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"(\d{4}\.\d+(?:\.\d+)*)", out or "")
    return m.group(1) if m else None


class _Runner:
    """Runs the target (under a profiler or not) in the evaluator's sandbox, with a timeout."""

    def __init__(self, req, workdir, extra_readable):
        from . import sandbox, workerhandle

        self.req = req
        self.workdir = workdir
        self.sandbox = None
        self.prefix = []
        if req["sandbox"] in ("auto", "bwrap"):
            ok, why = sandbox.probe()
            if ok:
                readable = [workerhandle.HARNESS_ROOT, os.path.dirname(req["task_path"]),
                            req["candidate_path"] if os.path.isdir(req["candidate_path"])
                            else os.path.dirname(req["candidate_path"])] + list(extra_readable)
                self.prefix = workerhandle.sandbox_command("cuda", workdir, [workdir], readable,
                                                           [req["build_root"]] if req["build_root"] else [])
                self.sandbox = "bwrap"
            elif req["sandbox"] == "bwrap":
                raise RuntimeError("sandbox 'bwrap' was requested but is unavailable: %s" % why)
            else:
                self.sandbox = "none (%s)" % why
        else:
            self.sandbox = "none (disabled by the request)"
        env = {k: v for k, v in os.environ.items() if workerhandle.worker_env_ok(k)}
        env.update({"PYTHONPATH": workerhandle.HARNESS_ROOT, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1",
                    "HOME": workdir, "TMPDIR": workdir})
        env.pop("CUDA_LAUNCH_BLOCKING", None)
        self.env = env

    def run(self, tool_args, spec_path, timeout, log_name):
        """(returncode or None on timeout, log text)."""
        cmd = self.prefix + list(tool_args) + [sys.executable, "-u", "-m", "kbharness.profile", "--target",
                                               spec_path]
        log_path = os.path.join(self.workdir, log_name)
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                    cwd=self.workdir, env=self.env, start_new_session=True)
            try:
                rc = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                rc = None
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    proc.kill()
                proc.wait()
        return rc, _read(log_path)


def _read(path, limit=2_000_000):
    try:
        with open(path, "rb") as f:
            return f.read()[-limit:].decode("utf-8", "replace")
    except OSError:
        return ""


def _tail(text, n=600):
    text = (text or "").strip()
    return text[-n:]


def _ncu_problem(log):
    """A readable reason from ncu's own error lines, or None."""
    if "ERR_NVGPUCTRPERM" in log:
        return ("ncu has no permission to read the GPU's performance counters (ERR_NVGPUCTRPERM): the host must "
                "allow profiling for this user (NVreg_RestrictProfilingToAdminUsers=0), or run it as an admin")
    errors = [ln.strip() for ln in log.splitlines() if ln.strip().startswith("==ERROR==")]
    return "; ".join(errors)[:600] if errors else None


def _base_doc():
    from . import HARNESS_VERSION

    return {"schema": PROFILE_SCHEMA, "status": None, "message": "", "harness_version": HARNESS_VERSION,
            "ncu": None, "ncu_version": None, "nsys": None, "sandbox": None, "notes": []}


def failure_doc(status, message):
    return _finish(_base_doc(), status, message)


def _finish(doc, status, message):
    doc["status"] = status
    doc["message"] = message
    doc["summary"] = format_summary(doc)
    return doc


def profile(req, calls=DEFAULT_CALLS, kernel_limit=DEFAULT_KERNEL_LIMIT, timeout=DEFAULT_TIMEOUT, use_nsys=True):
    """Profiles the request's candidate; always returns a document (status 'ok', or why not)."""
    from . import seeds, static_check

    started = time.monotonic()
    doc = _base_doc()
    if req["device"] != "cuda":
        return _finish(doc, "unavailable", "profiling needs a CUDA GPU; this run evaluates on the CPU")
    policy = dict(req["policy"])
    policy.setdefault("precision", req["precision"])
    try:
        if os.path.isdir(req["candidate_path"]):
            findings = static_check.analyze_workspace(req["candidate_path"], policy)
        else:
            with open(req["candidate_path"], "r", encoding="utf-8") as f:
                findings = static_check.analyze(f.read(), policy)
    except (OSError, UnicodeDecodeError) as e:
        return _finish(doc, "invalid_candidate", "cannot read the candidate: %s" % e)
    if static_check.verdict_for(findings) is not None:
        first = [f for f in findings if f.severity == static_check.REJECT][0]
        return _finish(doc, "rejected", "static check: %s at line %d: %s (it is not profiled)" %
                       (first.rule, first.line, first.message))
    ncu = find_tool("ncu")
    if not ncu:
        return _finish(doc, "unavailable", "Nsight Compute (ncu) is not installed on the GPU host (looked on PATH, "
                                           "in CUDA_HOME/bin, /usr/local/cuda/bin and /opt/nvidia/nsight-compute)")
    doc["ncu"] = ncu
    doc["ncu_version"] = tool_version(ncu)
    nsys = find_tool("nsys") if use_nsys else None
    doc["nsys"] = nsys
    import torch

    if not torch.cuda.is_available():
        return _finish(doc, "unavailable", "torch sees no CUDA GPU on this host")
    arch = "%d.%d" % torch.cuda.get_device_capability(req["gpu_index"])
    workdir = tempfile.mkdtemp(prefix="kbharness-profile-")
    os.chmod(workdir, 0o700)
    try:
        tool_roots = [os.path.dirname(os.path.dirname(os.path.realpath(t))) for t in (ncu, nsys) if t]
        try:
            runner = _Runner(req, workdir, tool_roots)
        except RuntimeError as e:
            return _finish(doc, "failed", str(e))
        doc["sandbox"] = runner.sandbox
        runner.env.setdefault("TORCH_CUDA_ARCH_LIST", arch)
        spec = {"task_path": req["task_path"], "candidate_path": req["candidate_path"],
                "device": "cuda:%d" % req["gpu_index"],
                "init_seed": seeds.init_seed(req["seed"]), "input_seed": seeds.trial_seed(req["seed"], 0),
                "num_threads": req["num_threads"] or 1, "allow_tf32": req["allow_tf32"],
                # A private build folder: candidate code runs where this build happens, and the
                # shared build cache is written only by the judge's build service.
                "build_dir": os.path.join(workdir, "build"),
                "build_for": "cuda-sm%s" % arch.replace(".", ""), "warmup": 1, "profiled_calls": 0,
                "status_path": os.path.join(workdir, "status.json")}

        def write_spec(**kw):
            spec.update(kw)
            path = os.path.join(workdir, "spec.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(spec, f)
            try:
                os.remove(spec["status_path"])
            except OSError:
                pass
            return path

        def status():
            try:
                with open(spec["status_path"], "r", encoding="utf-8") as f:
                    return json.load(f)
            except (OSError, ValueError):
                return None

        # 1. build, construct and run once without a profiler: a clear message for a candidate
        # that does not build or run, and a warm build cache for the profiled runs
        rc, log = runner.run([], write_spec(), req["build_timeout_seconds"] + 120.0, "prepare.log")
        st = status()
        if rc is None:
            return _finish(doc, "timeout", "building and running the candidate took over %.0f s" %
                           (req["build_timeout_seconds"] + 120.0))
        if not st or not st.get("ok"):
            stage = (st or {}).get("stage", "?")
            why = (st or {}).get("error") or _tail(log)
            errs = (st or {}).get("build_errors") or []
            if errs and isinstance(errs[0], dict):
                why += " (first: %s:%s: %s)" % (errs[0].get("file"), errs[0].get("line"), errs[0].get("message"))
            kind = "build_error" if stage == "build" else "runtime_error"
            return _finish(doc, kind, "the candidate failed before profiling (%s): %s" % (stage, why))
        doc["device_name"] = st.get("device_name")

        # 2. ncu over the profiled calls; a metric this ncu does not know costs the roofline only
        spec_path = write_spec(warmup=2, profiled_calls=calls)
        remaining = lambda: max(10.0, timeout - (time.monotonic() - started))  # noqa: E731
        launches = None
        problem = None
        for metrics in (ALL_METRICS, CORE_METRICS):
            csv_path = os.path.join(workdir, "ncu.csv")
            args = [ncu, "--target-processes", "all", "--profile-from-start", "off", "--launch-count",
                    str(kernel_limit), "--csv", "--page", "raw", "--metrics", ",".join(metrics), "--log-file",
                    csv_path]
            rc, log = runner.run(args, spec_path, remaining(), "ncu-run.log")
            if rc is None:
                return _finish(doc, "timeout", "ncu did not finish within %.0f s (%d kernel launches at most); "
                                               "profile fewer or shorter calls" % (timeout, kernel_limit))
            text = _read(csv_path)
            problem = _ncu_problem(text + "\n" + log)
            try:
                launches = parse_ncu_raw(text)
            except ParseError:
                launches = None
            if launches is not None and (launches or not problem):
                break
            if problem and "ERR_NVGPUCTRPERM" in problem:
                break
        if launches is None or (not launches and problem):
            st = status()
            why = problem or (st or {}).get("error") or _tail(log) or "ncu printed no kernel table"
            return _finish(doc, "failed", "ncu failed: %s" % why)
        if metrics is CORE_METRICS:
            doc["notes"].append("this ncu lacks the roofline metrics; no FLOP/byte figures")

        # 3. nsys where present: kernel times without ncu's replay
        nsys_kernels = None
        if nsys:
            rep = os.path.join(workdir, "trace")
            args = [nsys, "profile", "--capture-range=cudaProfilerApi", "--capture-range-end=stop", "--trace=cuda",
                    "--sample=none", "--cpuctxsw=none", "--force-overwrite=true", "-o", rep]
            rc, log = runner.run(args, spec_path, remaining(), "nsys-run.log")
            reports = glob.glob(rep + ".nsys-rep") + glob.glob(rep + ".qdrep")
            if rc is None:
                doc["notes"].append("nsys timed out; kernel times are ncu's")
            elif reports:
                for report in ("cuda_gpu_kern_sum", "gpukernsum"):
                    try:
                        out = subprocess.run([nsys, "stats", "--report", report, "--format", "csv", reports[0]],
                                             capture_output=True, text=True, timeout=remaining(), cwd=workdir,
                                             env=runner.env).stdout
                        nsys_kernels = parse_nsys_kernel_summary(out)
                        break
                    except (ParseError, OSError, subprocess.TimeoutExpired):
                        continue
            if nsys_kernels is None and rc is not None:
                doc["notes"].append("nsys gave no kernel summary; kernel times are ncu's")
        doc.update(summarize(launches, nsys_kernels, calls=calls, kernel_limit=kernel_limit))
        return _finish(doc, "ok", "")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def main(argv=None):
    """``python -m kbharness.profile --target SPEC``: the profiled process."""
    import argparse

    parser = argparse.ArgumentParser(prog="python3 -m kbharness.profile")
    parser.add_argument("--target", required=True)
    args = parser.parse_args(argv)
    return run_target(args.target)


if __name__ == "__main__":
    sys.exit(main())
