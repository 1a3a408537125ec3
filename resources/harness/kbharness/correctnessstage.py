"""The correctness stage of an evaluation: trials on fresh inputs from per-trial seeds, each
candidate output compared with the reference's (compare.py) on the reference's device; the
first reference output can make the comparison strict (a weak task), and trial 0 runs the
precision probe (precision.py)."""

from dataclasses import asdict, dataclass
from typing import Any, Dict, List, Optional

from . import codec, compare, precision, seeds, validate_task
from .compare import STRICT_ATOL_FRACTION, STRICT_SPREAD_FRACTION
from .failures import TaskFailure
from .workerhandle import WorkerFailure, WorkerHandle

# Tasks whose inputs take more than this are "large": judge and worker give cached GPU
# memory back to the driver between stages, since memory one process's allocator keeps
# cached is memory the other cannot have (6-7 GB inputs, several copies of them in each).
LARGE_TASK_BYTES = 1 << 30


@dataclass
class Trial:
    """One correctness trial as the result reports it."""
    index: int
    seed: int
    passed: bool
    max_abs_error: Optional[float] = None
    max_rel_error: Optional[float] = None
    mismatch_fraction: Optional[float] = None
    message: Optional[str] = None

    def as_json(self) -> Dict[str, Any]:
        return asdict(self)


def run(ev: Any, worker: WorkerHandle, box: List[Any]) -> Optional[str]:
    """Every correctness trial on fresh inputs; the first weak reference output may make the
    comparison strict, and trial 0 runs the precision probe. On success the last reference
    output goes into ``box``."""
    req = ev.req
    trials = []
    strict = req["strict_check"] is True
    ev.result["correctness"] = {"passed": False, "trials": trials, "atol": req["atol"], "rtol": req["rtol"],
                                "strict": strict, "strict_reason": ["requested"] if strict else [],
                                "strict_atol_fraction": STRICT_ATOL_FRACTION,
                                "strict_spread_fraction": STRICT_SPREAD_FRACTION}
    expected_device = "cuda" if ev.device.startswith("cuda") else "cpu"
    first_failure = None
    exact = probe_inputs = None
    for i in range(req["correctness_trials"]):
        tseed = seeds.trial_seed(req["seed"], i)
        expected = got = None  # the previous trial's tensors go before the next ones are made
        try:
            inputs = ev.inputs(tseed)
            if i == 0:
                ev.large = _tensor_bytes(inputs) > LARGE_TASK_BYTES
            expected = _reference(ev, inputs)
            if i == 0 and precision.applies(req, inputs, expected):
                exact = precision.exact_output(ev.ref_model, inputs)
                probe_inputs = precision.short_mantissa(inputs) if exact is not None else None
            desc, data = codec.encode(inputs, ipc=ev.ipc)
        except Exception as e:
            raise TaskFailure("reference failed on trial %d: %s: %s" % (i, type(e).__name__, e))
        del inputs
        ev.release_memory()
        if i == 0 and req["strict_check"] == "auto":
            weak = [name for name, _ in validate_task.weakness_flags(expected, req["atol"], req["rtol"])[0]
                    if name in validate_task.WEAK_OUTPUT_FLAGS]
            if weak:
                strict = True
                ev.result["correctness"]["strict"] = True
                ev.result["correctness"]["strict_reason"] = weak
                ev.runtime_finding("weak-task-strict-check",
                                   "the reference output is %s at atol=%g: correctness is judged strictly "
                                   "(atol scaled to the output's magnitude)" % (", ".join(weak), req["atol"]))
        stage = "correctness trial %d" % i
        try:
            reply, payload = worker.call({"cmd": "run", "inputs": desc, "release_memory": ev.large}, data,
                                         req["trial_timeout_seconds"], stage)
            codec.release_shared()  # the worker answered: it has its own copy
            ev.note_worker_memory(reply)
        except WorkerFailure as e:
            trials.append(Trial(i, tseed, False, message=e.message).as_json())
            return ev.finish("timeout" if e.kind == "timeout" else "runtime_error", e.message)
        if not reply.get("ok"):
            msg = "forward raised %s in %s" % (reply.get("error", "an exception"), stage)
            trials.append(Trial(i, tseed, False, message=msg).as_json())
            return ev.finish("runtime_error", msg)
        try:
            got = codec.decode(reply.get("output"), payload, allow_ipc=ev.ipc)
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
        trials.append(Trial(i, tseed, cmp["passed"], cmp["max_abs_error"], cmp["max_rel_error"],
                            cmp["mismatch_fraction"], cmp["message"]).as_json())
        if ev.check_threads(worker, reply, stage):
            return ev.result["verdict"]
        if i == 0 and exact is not None and cmp["passed"]:
            got16, exact16 = _short_mantissa_run(ev, worker, probe_inputs, stage)
            probe = precision.probe(exact, expected, got, exact16, got16)
            exact = probe_inputs = got16 = exact16 = None
            ev.result["correctness"]["precision_probe"] = probe
            if probe and probe["downgraded"]:
                msg = ("arithmetic below float32 (TF32, fp16 or bf16) on a float32 task with TF32 off: against "
                       "a float64 evaluation %s" % probe["why"])
                ev.flag("precision-downgrade", msg)
                ev.runtime_finding("runtime-precision-downgrade", msg)
        if not cmp["passed"] and first_failure is None:
            first_failure = "trial %d: %s" % (i, cmp["message"] or "outputs differ")
    if first_failure is not None:
        failed = sum(1 for t in trials if not t["passed"])
        return ev.finish("incorrect", "%d of %d correctness trials failed; %s" %
                         (failed, len(trials), first_failure))
    ev.result["correctness"]["passed"] = True
    box.append(expected)
    return None


def _reference(ev, inputs, fresh=False):
    """The reference's output on a copy of ``inputs`` (on ``inputs`` themselves where
    they are ``fresh``: made for this one call)."""
    import torch

    with torch.no_grad():
        out = ev.ref_model(*(inputs if fresh else _clone(inputs)))
    if ev.device.startswith("cuda"):
        torch.cuda.synchronize()
    return out


def _short_mantissa_run(ev, worker, inputs, stage):
    """(candidate output, float64 reference output) on ``inputs`` (the precision probe's
    second run); (None, None) where either cannot be had."""
    try:
        exact = precision.exact_output(ev.ref_model, inputs)
        desc, data = codec.encode(inputs, ipc=ev.ipc)
        reply, payload = worker.call({"cmd": "run", "inputs": desc, "release_memory": ev.large}, data,
                                     ev.req["trial_timeout_seconds"], stage + " (precision probe)")
        codec.release_shared()
        if not reply.get("ok"):
            return None, None
        return codec.decode(reply.get("output"), payload, allow_ipc=ev.ipc), exact
    except (codec.DecodeError, TypeError, AttributeError, ValueError):
        return None, None


def _tensor_bytes(value):
    import torch

    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, (list, tuple)):
        return sum(_tensor_bytes(v) for v in value)
    return 0


def _clone(value):
    import torch

    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, (list, tuple)):
        return type(value)(_clone(v) for v in value)
    return value
