"""The timing stage of an evaluation: the candidate and the reference's own worker timed by
the judge in alternating blocks (interleave.py), then turned into the result's ``timing`` and
``speedup``, the checks on what the judge's clock and the CPU accounting saw, and the memory
roofline's plausibility test."""

from typing import Any, Dict, List, Optional

from . import evidence, interleave, nvml, procset, seeds, timing
from .compare import STRICT_ATOL_FRACTION
from .envinfo import torch_device_index
from .failures import TaskFailure
from .workerhandle import WorkerFailure, WorkerHandle

EXCESSIVE_SPEEDUP = 50.0
# A candidate median below this fraction of the memory roofline floor
# (input + output bytes / measured copy bandwidth) is implausible.
ROOFLINE_FRACTION = 0.9


def run(ev: Any, worker: WorkerHandle, box: List[Any], strict: bool, ntrials: int) -> Optional[str]:
    """The timing stage: the candidate and the reference (its own worker) timed in alternating
    blocks by the judge (interleave.py); ``box`` holds the last reference output, handed over
    so that it can be dropped. Returns the verdict."""
    reference_output = box.pop()
    req = ev.req
    template = ev.inputs(seeds.timing_seed(req["seed"], 0))
    if ev.large:
        # the slots need shapes and dtypes only: a 6 GB input or output is not kept twice
        template = [torch_empty_like(x) for x in template]
        reference_output = evidence.map_tensors(reference_output, torch_empty_like)
        try:
            worker.call({"cmd": "unbind"}, b"", 120.0, "timing set-up")  # the worker gives cached memory back
        except WorkerFailure as e:
            return ev.finish("timeout" if e.kind == "timeout" else "runtime_error", e.message)
    ev.release_memory()
    ref_worker, ref_dir = ev.ref_worker, ev.ref_dir
    gpu_index = torch_device_index(ev.device)
    gpu_before = nvml.sample(gpu_index) if gpu_index is not None else None
    if ref_worker is not None:
        try:
            ref_worker, mode = ev.load_reference_worker(ref_worker, ref_dir)
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
        timer = interleave.InterleavedTiming(ev, reference_output, strict, sides, STRICT_ATOL_FRACTION)
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
                return ev.reject_at_runtime(e.rule, e.message)
            if e.rule:
                ev.runtime_finding(e.rule, e.message)
            return ev.finish(e.verdict, e.message)
        except WorkerFailure as e:
            cand_procs.cont(), ref_procs.cont()
            return ev.finish("timeout" if e.kind == "timeout" else "runtime_error", e.message)
        except RuntimeError as e:
            ref_procs.cont()
            raise TaskFailure(str(e))
        cand_procs.cont(), ref_procs.cont()
        if gpu_index is not None:
            ev.result["gpu_state"] = {"gpu_index": gpu_index, "before": gpu_before,
                                      "after": nvml.sample(gpu_index)}
        return _verdict(ev, timer, cand, eager, compiled, template, reference_output, ntrials)


def _verdict(ev, timer, cand, eager, compiled, template, reference_output, ntrials):
    """The timing result, the checks on what the judge's clock and the CPU accounting saw,
    the speedup and the verdict."""
    req = ev.req
    cuda = ev.device.startswith("cuda")
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
                dict(timing.stats(compiled.samples, compiled.wall),
                     mode=req["baseline"].get("compile_mode", "default")))
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
    ev.result["timing"] = {
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
    ev.result["timing"]["roofline"] = roofline(ev, [template], [reference_output], cstats)
    # the judge's clock: time the candidate's samples leave out
    worker_median = interleave.median(cand.samples) or 0.0
    impossible = timer.impossible_samples()
    if impossible:
        return ev.reject_at_runtime(
            "runtime-unmeasured-work",
            "%d of the candidate's samples are longer than the judge's clock says the calls took: the samples "
            "were forged" % impossible)
    fraction = interleave.UNEXPLAINED_REJECT_FRACTION if cuda else interleave.UNEXPLAINED_REJECT_FRACTION_CPU
    # the verdict rests on the robust tests alone (the call-by-call floor shifts both sides
    # alike with the machine's noise and decides only the numbers)
    if forged + unexplained > max(interleave.UNEXPLAINED_FLOOR_MS, fraction * worker_median):
        return ev.reject_at_runtime(
            "runtime-unmeasured-work",
            "the judge's clock puts the candidate's calls at %.4f ms more than its own samples' median of %.4f ms "
            "(%.4f ms per "
            "call beyond the samples while the calls ran, %.4f ms after they returned, beyond what the "
            "reference's calls show): work ran outside the measured window or the samples were forged" %
            (forged + unexplained, worker_median, forged, unexplained))
    if not cuda:
        ratio = timer.cpu_ratio(cand)
        allowed = ev.num_threads + interleave.CPU_SLACK
        if ratio is not None and ratio > allowed:
            return ev.reject_at_runtime(
                "runtime-hidden-parallelism",
                "the candidate's processes used %.2f s of CPU per second of its timed calls, %d thread(s) were "
                "allowed: work ran in parallel outside the thread budget" % (ratio, ev.num_threads))
        # the whole machine: also sees helpers that exited before anyone counted them
        bc, br = timer.busy_cores(cand), timer.busy_cores(eager)
        if bc is not None and br is not None and bc - br > interleave.EXTRA_CORES:
            return ev.reject_at_runtime(
                "runtime-hidden-parallelism",
                "the machine's processors were busy %.2f on average during the candidate's timed calls and %.2f "
                "during the reference's, which runs the same harness with %d thread(s): the candidate worked "
                "in parallel outside its thread budget" % (bc, br, ev.num_threads))
    # a noisy measurement is a statement about the measurement, not a suspicion about the
    # candidate: it stays in timing.comparison (the engine shows it), never a flag
    speed = {"eager": eager_cmp["speedup"] if eager_cmp else None,
             "compile": compile_cmp["speedup"] if compile_cmp else None}
    ev.result["speedup"] = speed
    if speed["eager"] and speed["eager"] > EXCESSIVE_SPEEDUP:
        ev.flag("excessive-speedup", "%.1fx faster than eager: review before counting" % speed["eager"])
    msg = "correct: %d/%d trials passed; median %.4f ms" % (ntrials, ntrials, cstats["median_ms"])
    if speed["eager"]:
        msg += " vs eager %.4f ms (%.3gx [%s, %s])" % (estats["median_ms"], speed["eager"], eager_cmp["ci_low"],
                                                       eager_cmp["ci_high"])
    return ev.finish("correct", msg)


def roofline(ev: Any, sets: List[Any], outs: List[Any], cand: Dict[str, Any]) -> Optional[Dict[str, Any]]:
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
        bw = _bandwidth(ev.device, in_bytes)
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
        ev.flag("below-roofline", msg)
        ev.runtime_finding("runtime-below-roofline", msg)
    return out


def torch_empty_like(x: Any) -> Any:
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
