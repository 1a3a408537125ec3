"""Timing owned by the judge: the candidate and the reference measured the same way, in
alternating blocks, every call verified, every sample checked against the judge's clock.

Why (the threat model in README.md): anything that runs in the candidate's process can be
changed by the candidate -- its timing loop, its clock, its record of which outputs belong
to which call. So nothing the worker says is taken on its word:

- **Inputs** are the judge's: fresh values for every call from ``get_inputs`` under a
  secret per-call seed, written by the judge into slots the worker maps. Two calls share
  no values, so no output cache can hit, and nothing the worker keeps says anything about
  the next call's inputs.
- **Outputs** go into judge-owned slots that the judge reads the moment a call returns
  and reduces to a secret sketch (evidence.py). The reference runs the same inputs; every
  call of the candidate, warm-up included, must agree with it. A call that leaves no
  output, a stale one, or writes it later fails.
- **The clock.** The worker reports a CUDA-event (CPU: perf_counter) sample per call,
  which is precise but forgeable. The judge keeps its own wall clock around each block of
  calls, including its own work between calls and, at the end of a block, a wait until
  the GPU has nothing left to run: work the candidate moved out of its samples (forged
  samples, work deferred past the return, work on another stream or thread, a kernel left
  running) lands on that clock. The time the judge's clock saw beyond the samples, per
  call, must match what the reference's blocks show for the same harness work; what is
  left over is added to the candidate's samples and, past a threshold, rejects it.
- **Both sides run in identical worker processes** (the reference is the task's ``Model``
  loaded by a worker of its own), with the same inputs, slots, loop and settings,
  interleaved in blocks (A B, then B A) so drift and order effects fall on both alike;
  the speedup is the mean of per-round log ratios with a t interval, and sampling stops
  when the interval is tight enough or the time cap is reached (then it is ``noisy``).
- **While the reference runs, the candidate is stopped** (SIGSTOP to every process it
  has, found from outside: procset.py), and on a GPU the judge waits until the GPU is idle
  before the reference's block starts, so the candidate cannot slow the reference down.
- **CPU mode**: the CPU time of every process of the candidate over its blocks, read from
  /proc, must fit the threads it was given (hidden parallelism is rejected); and every side
  is held stopped from the moment its reply arrives until its next call is sent, so the
  output read is the one the call returned and nothing of the candidate runs while the
  judge reads outputs and writes inputs (``_hold``).
"""

import math
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import codec, confine, evidence, procset, seeds
from .intervals import log_ratio_interval, median, quantile, t999

BLOCK_CALLS = 10          # counted calls per block
TARGET_REL_HALFWIDTH = 0.02   # stop when the speedup's 95% interval is this tight
NOISY_REL_HALFWIDTH = 0.03    # wider than this at the stop: noisy
MIN_ROUNDS = 3
MAX_ROUNDS = 400
# unexplained time per call beyond this fraction of the candidate's median sample
# (and beyond UNEXPLAINED_FLOOR_MS) rejects the candidate
UNEXPLAINED_REJECT_FRACTION = 0.10
# CPU mode: a shared CPU machine's clock is far noisier than a GPU's events (scheduling delays
# of milliseconds); forged samples there hide most of the work (the attacks measured: 65-100%),
# so the rejection waits for half; smaller excesses are still added to the samples
UNEXPLAINED_REJECT_FRACTION_CPU = 0.5
UNEXPLAINED_FLOOR_MS = 0.002
# CPU mode: CPU time over wall time of the candidate's blocks may exceed its threads by this
CPU_SLACK = 0.35
# CPU mode: the candidate's blocks last at least this long (ms) before timing may stop, so that
# its CPU time (read in clock ticks of 10 ms) is known to a tenth; the processors it may use are
# enforced (confine.py), so this test is a second line and needs no finer resolution
MIN_CPU_WALL_MS = 100.0
# CPU mode: processors of the whole machine busy during the candidate's blocks beyond the
# reference's (same harness, same threads); more is hidden parallelism
EXTRA_CORES = 0.6
# a GPU is idle when this many probes in a row answer as fast as on the idle GPU
QUIET_PROBES = 3

# a sample may exceed its round trip by this much (and 1%) before it is impossible
IMPOSSIBLE_SLACK_MS = 0.05
# clock noise that grows with the call's length, allowed on top of the statistical bound: on a
# GPU host a few percent; on a CPU shared with other work a call that runs longer is more
# often preempted before it can reply (a scheduler slice of milliseconds), so twice the call
NOISE_FRACTION = 0.05
NOISE_FRACTION_CPU = 2.0


class TimingAborted(Exception):
    """The candidate failed during timing: verdict and message for the judge."""

    def __init__(self, verdict: str, message: str, rule: Optional[str] = None) -> None:
        Exception.__init__(self, message)
        self.verdict = verdict
        self.message = message
        self.rule = rule


class Side:
    """One timed variant: the worker that runs it, its slots and its record."""

    def __init__(self, name: str, worker: Any, procs: Any, trusted: bool, variant: str = "model") -> None:
        self.name = name
        self.worker = worker
        self.procs = procs
        self.trusted = trusted
        self.variant = variant
        self.samples = []        # counted samples (ms), in order
        self.host = []           # host-side time of the forward (ms) of counted calls
        self.rounds = []         # per round: list of counted samples
        self.trips = []          # per round: the judge's send-to-reply time of each counted call (ms)
        self.gaps = []           # per counted call: the judge's time from its reply to the next call (ms)
        self.block_overheads = []  # per block: (judge's block time - sum of round trips) / calls (ms)
        self.block_walls = []
        self.cpu = 0.0
        self.system_busy = 0.0   # busy CPU seconds of the whole machine during the side's blocks
        self.wall = 0.0
        self.sketches = {}       # call key -> sketch
        self.unavailable = None
        # where the judge's time went (ms, summed over counted calls and blocks)
        self.diag = {"prepare_ms": 0.0, "round_trip_ms": 0.0, "sketch_ms": 0.0, "calls_ms": 0.0, "stop_ms": 0.0,
                     "quiet_ms": 0.0, "hold_ms": 0.0, "calls": 0}


class InterleavedTiming:
    def __init__(self, ev: Any, reference_output: Any, strict: bool, sides: List[Side],
                 strict_atol_fraction: float) -> None:
        import torch

        self.ev = ev
        self.req = ev.req
        self.device = ev.device
        self.cuda = self.device.startswith("cuda")
        self.sides = sides
        self.strict = strict
        self.strict_atol_fraction = strict_atol_fraction
        self.torch = torch
        # longer secret vectors on a GPU: fewer chunks (launches) per output
        self.sketcher = evidence.Sketcher(self.device, seeds.derive(self.req["seed"], "sketch"),
                                          length=(1 << 23) if self.cuda else evidence.VECTOR_LENGTH)
        self.out_template = evidence.tensor_leaves(reference_output)
        self.flush = None
        if self.cuda:
            from .timing import L2_FLUSH_BYTES

            self.flush = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.float32, device=self.device)
            self.probe = torch.zeros(1, device=self.device)
        self.slots = {}
        # CPU mode: the processors every side is timed on (confine.py), as many as its threads
        self.cpu_budget = None
        if not self.cuda:
            import os

            self.cpu_budget = confine.timing_cpus(getattr(ev, "worker_cpus", None), getattr(ev, "num_threads", 1),
                                                  salt=os.getpid())
        self.narrowed_tasks = 0
        # CPU mode: a side is stopped from each reply until the next call is sent (see _call)
        self.hold = not self.cuda

    # -- slots --------------------------------------------------------------
    def bind(self, side: Side, inputs: Sequence[Any], directory: str) -> None:
        torch = self.torch
        in_slots, items = [], []
        for i, v in enumerate(inputs):
            if isinstance(v, torch.Tensor):
                t = self._slot(v.shape, v.dtype, directory, "%s-in-%d" % (side.name, i))
                in_slots.append(t)
                items.append({"slot": codec.share_slot(t)})
            else:
                in_slots.append(None)
                items.append({"scalar": v})
        outs = [self._slot(t.shape, t.dtype, directory, "%s-out-%d" % (side.name, i))
                for i, t in enumerate(self.out_template)]
        self.slots[side.name] = (in_slots, outs)
        reply, _ = side.worker.call({"cmd": "bind", "inputs": items, "outputs": [codec.share_slot(t) for t in outs]},
                                    b"", 120.0, "timing set-up")
        if not reply.get("ok"):
            raise TimingAborted("runtime_error", "the worker could not map the timing slots: %s" % reply.get("error"))

    def share(self, side: Side, other: Side) -> None:
        """``side`` uses ``other``'s slots (the same worker process)."""
        self.slots[side.name] = self.slots[other.name]

    def _slot(self, shape, dtype, directory, name):
        if self.cuda:
            return self.torch.empty(tuple(shape), dtype=dtype, device=self.device)
        return codec.cpu_slot(directory, name, tuple(shape), dtype)

    # -- one call -------------------------------------------------------------
    def _prepare(self, side, key):
        """Fresh inputs for call ``key`` into the side's slots; the L2 flushed."""
        torch = self.torch
        in_slots, _ = self.slots[side.name]
        fresh = self.ev.inputs(seeds.derive(self.req["seed"], "timed-call-%s" % (key,)))
        scalars = {}
        for i, (slot, v) in enumerate(zip(in_slots, fresh)):
            if slot is None:
                scalars[str(i)] = v
            elif isinstance(slot, codec.FileSlot):
                try:
                    slot.write(v)
                except (codec.SlotError, OSError) as e:
                    raise TimingAborted("runtime_error", "the candidate's input slot is unusable: %s" % e)
            else:
                slot.copy_(v)
        del fresh
        if self.cuda:
            self.flush.zero_()
            torch.cuda.synchronize()
        return scalars

    def _call(self, side, key, timeout):
        t0 = time.perf_counter()
        scalars = self._prepare(side, key)
        header = {"cmd": "call", "scalars": scalars, "variant": side.variant}
        replied = []

        def on_reply():
            replied.append(time.perf_counter())
            self._hold(side)

        if self.hold:
            side.procs.thaw()
        t1 = time.perf_counter()
        try:
            reply, _ = side.worker.call(header, b"", timeout, "timed call", on_reply=on_reply if self.hold else None)
        except TimingAborted:
            raise
        except Exception as e:  # WorkerFailure
            kind = getattr(e, "kind", "crash")
            raise TimingAborted("timeout" if kind == "timeout" else "runtime_error", getattr(e, "message", str(e)))
        t2 = replied[0] if replied else time.perf_counter()
        if not reply.get("ok"):
            raise TimingAborted("runtime_error", "forward raised %s during timing" % reply.get("error", "?"))
        py = reply.get("py_threads")
        base = getattr(self.ev, "base_py_threads", None)
        if not side.trusted and isinstance(py, int) and not isinstance(py, bool) and isinstance(base, int) and \
                py > base:
            raise TimingAborted("rejected", "%d Python thread(s) started by the candidate were running during its "
                                            "timed calls" % (py - base), rule="runtime-background-thread")
        ms, host = reply.get("ms"), reply.get("host_ms")
        if not _number(ms) or not _number(host):
            raise TimingAborted("runtime_error", "the worker returned a malformed timing sample")
        t3 = time.perf_counter()
        _, outs = self.slots[side.name]
        if side.variant != "compile":
            # read at once: an output written after the call returned is not this call's output
            side.sketches[key] = self.sketcher.sketch(self._read_outputs(outs), key, bound=True,
                                                      atol=self.req["atol"], rtol=self.req["rtol"],
                                                      strict_atol_fraction=self.strict_atol_fraction
                                                      if self.strict else None)
            side.sketches[key]["scalars"] = reply.get("scalars")
        self.last_round_trip = (t2 - t1) * 1000.0
        self.last_call_start, self.last_reply = t0, t2
        d = side.diag
        d["prepare_ms"] += (t1 - t0) * 1000.0
        d["round_trip_ms"] += (t2 - t1) * 1000.0
        d["hold_ms"] += (t3 - t2) * 1000.0
        d["sketch_ms"] += (time.perf_counter() - t3) * 1000.0
        d["calls"] += 1
        return float(ms), float(host)

    def _hold(self, side):
        """CPU mode: stop the side the moment it replies, before its output is read, and keep
        it stopped until its next call is sent. A call's output is what the slot holds when
        the call returns: a helper that went on writing it after the reply (a thread, a
        process sharing the memory, a mapping of the slot file) is stopped before the judge
        reads, so an unfinished output fails the call; and no work of the candidate runs
        while the judge reads and prepares, where its time would fall on no clock. Both
        sides alike, trusted ones too. A candidate task that cannot be stopped resumed
        itself (SIGSTOP holds only until a SIGCONT)."""
        awake = side.procs.freeze()
        if awake and not side.trusted:
            pid, tid, state = awake[0]
            raise TimingAborted(
                "rejected", "%d task(s) of the candidate kept running after its call returned and the judge stopped "
                            "it to read the output (task %d of process %d in state %s): it resumed itself" % (
                                len(awake), tid, pid, state),
                rule="runtime-escaped-stop")

    def _read_outputs(self, outs):
        """The output slots' contents: CUDA slots as they are (read on the device), file
        slots read with pread (a cut file is the candidate's failure, never the judge's)."""
        values = []
        for slot in outs:
            if isinstance(slot, codec.FileSlot):
                try:
                    values.append(slot.read())
                except (codec.SlotError, OSError) as e:
                    raise TimingAborted("incorrect", "the output of a timed call could not be read: %s" % e)
            else:
                values.append(slot)
        return values

    def close(self) -> None:
        for in_slots, outs in self.slots.values():
            for slot in list(in_slots) + list(outs):
                if isinstance(slot, codec.FileSlot):
                    slot.close()

    def _quiet(self, timeout):
        """Wait until the GPU runs nothing but the judge's probe (CUDA), as fast as when idle."""
        if not self.cuda:
            return
        torch = self.torch
        limit = self.ev.gpu_idle_probe_ms
        deadline = time.perf_counter() + timeout
        good = 0
        while good < QUIET_PROBES:
            t0 = time.perf_counter()
            self.probe.add_(1.0)
            torch.cuda.synchronize()
            dt = (time.perf_counter() - t0) * 1000.0
            good = good + 1 if dt <= limit else 0
            if time.perf_counter() > deadline:
                raise TimingAborted("timeout", "the GPU kept running work after the candidate's calls returned "
                                               "(%.1f s)" % timeout, rule="runtime-gpu-busy-after-return")

    def block(self, side: Side, keys: Sequence[str], warm_keys: Sequence[str], timeout: float) -> None:
        """Warm-up calls (verified, not counted), then counted calls; the judge's clock runs
        from the first counted call's preparation to the idle GPU after the last. Every
        side's worker is stopped after its block and let go again before its next one, the
        trusted ones too: the judge does exactly the same work around every block. In CPU
        mode every task of the side is held to the timing processors (confine.py) while it
        is stopped, and checked for them when it is stopped again."""
        if self.cpu_budget:
            self.narrowed_tasks += confine.narrow(side.procs, self.cpu_budget)
        others = [s for s in self.sides if s is not side and s.unavailable is None]
        for other in others:
            self._still_stopped(other, other.procs.settle(), side)
        if not self.hold:
            side.procs.cont()
        for k in warm_keys:
            self._call(side, k, timeout)
            self._others_stopped(others, side)
        cpu0 = side.procs.cpu_seconds()
        busy0 = procset.system_busy_seconds()
        t0 = time.perf_counter()
        samples, hosts, trips, gaps = [], [], [], []
        prev_reply = None
        for k in keys:
            ms, host = self._call(side, k, timeout)
            self._others_stopped(others, side)
            if prev_reply is not None:
                gaps.append((self.last_call_start - prev_reply) * 1000.0)
            prev_reply = self.last_reply
            samples.append(ms)
            hosts.append(host)
            trips.append(self.last_round_trip)
        t1 = time.perf_counter()
        side.procs.stop()
        if self.cpu_budget and not side.trusted:
            loose = confine.outside(side.procs, self.cpu_budget)
            if loose:
                pid, tid, allowed = loose[0]
                raise TimingAborted(
                    "rejected", "%d task(s) of the candidate could run outside the %d processor(s) it was timed on "
                                "(task %d of process %d: processors %s): it widened its CPU budget" % (
                                    len(loose), len(self.cpu_budget), tid, pid, ",".join(map(str, sorted(allowed)))),
                    rule="runtime-hidden-parallelism")
        t2 = time.perf_counter()
        self._quiet(timeout)
        t3 = time.perf_counter()
        gaps.append((t3 - prev_reply) * 1000.0)  # the last call's: stopping, waiting for an idle GPU
        side.gaps.extend(gaps)
        wall = (t3 - t0) * 1000.0
        side.diag["calls_ms"] += (t1 - t0) * 1000.0
        side.diag["stop_ms"] += (t2 - t1) * 1000.0
        side.diag["quiet_ms"] += (t3 - t2) * 1000.0
        side.cpu += (side.procs.cpu_seconds() - cpu0) if side.procs is not None else 0.0
        busy1 = procset.system_busy_seconds()
        if busy0 is not None and busy1 is not None:
            side.system_busy += busy1 - busy0
        side.wall += wall
        side.samples.extend(samples)
        side.host.extend(hosts)
        side.rounds.append(samples)
        side.trips.append(trips)
        side.block_walls.append(wall)
        # the judge's own time per call in this block: everything but the calls' round trips
        side.block_overheads.append((wall - sum(trips)) / len(trips))

    def _others_stopped(self, others, running):
        for other in others:
            self._still_stopped(other, other.procs.awake(), running)

    @staticmethod
    def _still_stopped(other, awake, running):
        """A side must stay stopped for the whole of another side's block: SIGSTOP holds a
        process only until someone sends it SIGCONT, and a candidate can send that to itself
        (a timer of its own, an asynchronous I/O signal) to run beside the reference. The
        judge looks after every call of the running side; one task of a stopped candidate
        found awake rejects it (the trusted sides are looked at alike, never rejected)."""
        if not awake or other.trusted:
            return
        pid, tid, state = awake[0]
        raise TimingAborted(
            "rejected", "%d task(s) of the candidate were running while it should have been stopped for the %s's "
                        "calls (task %d of process %d in state %s): it resumed itself" % (
                            len(awake), running.name, tid, pid, state),
            rule="runtime-escaped-stop")

    # -- the whole measurement -------------------------------------------------
    def run(self) -> "InterleavedTiming":
        req = self.req
        cand = self.sides[0]
        refs = self.sides[1:]
        timeout = float(req["timing_timeout_seconds"] or max(60.0, 4.0 * req["max_timing_seconds"]))
        cap = req["max_timing_seconds"]
        min_rounds = max(MIN_ROUNDS, int(math.ceil(req["timing_trials"] / float(BLOCK_CALLS))))
        started = time.perf_counter()
        self._pin()
        try:
            return self._run(req, cand, refs, timeout, cap, min_rounds, started)
        finally:
            self._unpin()

    def _pin(self):
        """The workers' main threads (which launch the work) on one and the same CPU, the
        judge's on another: where a thread runs changes launch-bound timings, so both sides
        run where the other did. Only the main threads: a build or the candidate's own
        threads keep every CPU."""
        import os

        self._judge_cpus = None
        if not self.cuda:
            return  # a CPU worker's timing is its thread's: leave the scheduler free to place it
        try:
            cpus = sorted(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            return
        if len(cpus) < 2:
            return
        self._judge_cpus = set(cpus)
        try:
            os.sched_setaffinity(0, {cpus[0]})
        except OSError:
            self._judge_cpus = None
        for side in self.sides:
            pid = side.worker.worker_pid()
            if pid:
                try:
                    os.sched_setaffinity(pid, {cpus[-1]})
                except OSError:
                    pass

    def _unpin(self):
        import os

        if self._judge_cpus:
            try:
                os.sched_setaffinity(0, self._judge_cpus)
            except OSError:
                pass

    def _run(self, req, cand, refs, timeout, cap, min_rounds, started):
        # warm-up of each side (the compile side compiles here; if that fails it is left out)
        for s in self.sides:
            s.procs.stop()
        for side in self.sides:
            keys = ["w%d" % i for i in range(max(1, req["warmup"]))]
            self._quiet(timeout)
            if not self.hold:
                side.procs.cont()
            try:
                for k in keys:
                    self._call(side, k, timeout)
            except TimingAborted as e:
                if side.trusted and side.variant == "compile":
                    side.unavailable = "torch.compile failed: %s" % e.message
                    continue
                if side.trusted:
                    raise RuntimeError("the reference failed during timing: %s" % e.message)
                raise
            side.procs.stop()
        self._verify(cand, refs[0], ["w%d" % i for i in range(max(1, req["warmup"]))])
        active = [s for s in self.sides if s.unavailable is None]
        rounds = 0
        self.stopped_by = "cap"
        while rounds < MAX_ROUNDS:
            order = active if rounds % 2 == 0 else list(reversed(active))
            keys = ["r%d-%d" % (rounds, j) for j in range(BLOCK_CALLS)]
            for side in order:
                self.block(side, keys, ["r%d-w" % rounds], timeout)
            self._verify(cand, refs[0], keys + ["r%d-w" % rounds])
            rounds += 1
            if rounds >= min_rounds:
                est = self.speedup(refs[0])
                enough_cpu = self.cuda or cand.wall >= MIN_CPU_WALL_MS
                # sample until the interval is tight and the judge's clock can vouch for the
                # samples to within the same relative margin
                tight_clock = self.integrity_bound_ms() <= TARGET_REL_HALFWIDTH * 4 * (median(cand.samples) or 0)
                if est and est[3] is not None and est[3] <= TARGET_REL_HALFWIDTH and enough_cpu and tight_clock:
                    self.stopped_by = "interval"
                    break
                if time.perf_counter() - started > cap and enough_cpu:
                    break
        self.rounds = rounds
        return self

    def _verify(self, cand, ref, keys):
        for k in keys:
            ok, why = evidence.agrees(cand.sketches.pop(k), ref.sketches.pop(k))
            if not ok:
                raise TimingAborted("incorrect", "the output of timed call %s differs from the reference on the same "
                                                 "inputs: %s" % (k, why))

    # -- results ----------------------------------------------------------------
    def _median_shift(self, a, b, scale):
        """(lower quartile of a - lower quartile of b, allowance). The lower quartile: a
        loaded machine delays some calls by a scheduler tick or more (a second mode of a few
        ms), which can reach half the calls but rarely three quarters, while a forgery that
        pays shifts most of them. The allowance is the larger of a high-confidence bound on
        that difference from the median absolute deviations (a t quantile at 99.9% for the
        smaller sample, so a handful of values never gives a tight bound) and NOISE_FRACTION
        of ``scale`` (the candidate's median sample: clock noise grows with the call)."""
        ma, mb = quantile(a, 0.25), quantile(b, 0.25)
        mad_a = median([abs(x - ma) for x in a]) * 1.4826
        mad_b = median([abs(x - mb) for x in b]) * 1.4826
        se = 1.2533 * math.sqrt(mad_a ** 2 / len(a) + mad_b ** 2 / len(b))
        n = min(len(a), len(b))
        q = t999(n - 1)
        fraction = NOISE_FRACTION if getattr(self, "cuda", True) else NOISE_FRACTION_CPU
        return ma - mb, max(q * se, fraction * scale)

    def forged_ms(self) -> Tuple[float, float, float]:
        """Time per call the judge's clock saw during the candidate's calls (send to reply)
        beyond its samples, compared with the same for the reference's calls (the harness's
        own per-call work, identical on both sides): (shift beyond the allowance, raw shift,
        allowance). A forged, scaled or reshaped sample shows here call by call."""
        cand, ref = self.sides[0], self.sides[1]
        a = [t - x for r, tr in zip(cand.rounds, cand.trips) for x, t in zip(r, tr)]
        b = [t - x for r, tr in zip(ref.rounds, ref.trips) for x, t in zip(r, tr)]
        if not a or not b:
            return 0.0, 0.0, 0.0
        shift, allowance = self._median_shift(a, b, median(cand.samples) or 0.0)
        return max(0.0, shift - allowance - UNEXPLAINED_FLOOR_MS), shift, allowance

    def impossible_samples(self) -> int:
        """The candidate's calls whose sample is longer than the judge's own round trip
        around the call, which contains it: no clock noise makes that happen, a forged
        sample does (one that moves time from some calls to others to keep the sum)."""
        cand = self.sides[0]
        return sum(1 for r, tr in zip(cand.rounds, cand.trips) for x, t in zip(r, tr)
                   if x > t * 1.01 + IMPOSSIBLE_SLACK_MS)

    def unexplained_ms(self) -> Tuple[float, float, float]:
        """The judge's time from each call's reply to the next call (reading the output,
        preparing the next inputs; after a block's last call, stopping the worker and waiting
        for an idle GPU) beyond the reference's: where work deferred past a call's return
        lands. Returns (shift beyond the allowance, raw shift, allowance), medians over calls."""
        a, b = self.sides[0].gaps, self.sides[1].gaps
        if not a or not b:
            return 0.0, 0.0, 0.0
        shift, allowance = self._median_shift(a, b, median(self.sides[0].samples) or 0.0)
        if not self.cuda:
            # On the CPU, work after a return either runs in parallel (the CPU-time checks) or
            # delays the next call's reply (the round trips); the judge's own time between calls
            # there varies with what else the machine does, so it is recorded, not charged.
            return 0.0, shift, allowance
        return max(0.0, shift - allowance - UNEXPLAINED_FLOOR_MS), shift, allowance

    def integrity_bound_ms(self) -> float:
        """The most a forgery could still hide per call: the two allowances."""
        return self.forged_ms()[2] + self.unexplained_ms()[2]

    def call_allowance(self) -> float:
        """The harness's own time per call outside the sample: the median of the reference's
        (round trip - sample)."""
        ref = self.sides[1]
        gaps = [t - x for r, tr in zip(ref.rounds, ref.trips) for x, t in zip(r, tr)]
        return median(gaps) if gaps else 0.0

    def effective_rounds(self, side: Side) -> List[List[float]]:
        """A side's samples as they count. Call by call, on both sides alike: never less than
        the judge's round trip minus the harness's own median time per call, never more than
        the round trip itself -- so a sample reshaped or scaled call by call counts about what
        the call really took, and identical code stays at 1.00x (both sides see the same
        clock noise). The candidate's then carry what the robust tests found beyond that
        (work after the returns, a shift of the whole distribution)."""
        a = self.call_allowance()
        u = (self.forged_ms()[0] + self.unexplained_ms()[0]) if side is self.sides[0] else 0.0
        if not side.trips:
            return side.rounds
        return [[min(max(x, t - a), t) + u for x, t in zip(r, tr)] for r, tr in zip(side.rounds, side.trips)]

    def speedup(self, ref: Side) -> Optional[Tuple[float, Optional[float], Optional[float], Optional[float]]]:
        cand_rounds = self.effective_rounds(self.sides[0])
        pairs = [(median(r), median(c)) for r, c in zip(self.effective_rounds(ref), cand_rounds) if r and c]
        ratios = [r / c for r, c in pairs if c and c > 0]
        return log_ratio_interval(ratios)

    def budget_evidence(self) -> Optional[Dict[str, Any]]:
        """CPU mode: the processors each side was held to, and whether the candidate's worker
        runs under the filter that keeps it from widening them (its /proc status)."""
        if not self.cpu_budget:
            return None
        return {"processors": len(self.cpu_budget), "tasks_narrowed": self.narrowed_tasks,
                "filter_in_force": confine.filtered(self.sides[0].worker.worker_pid())}

    def cpu_ratio(self, side: Side) -> Optional[float]:
        return side.cpu / (side.wall / 1000.0) if side.wall > 0 else None

    def busy_cores(self, side: Side) -> Optional[float]:
        """Busy processors of the whole machine, on average, during the side's blocks."""
        return side.system_busy / (side.wall / 1000.0) if side.wall > 0 else None


def _number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x >= 0
