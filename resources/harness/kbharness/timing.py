"""Timing loops shared by the trusted process (reference) and the worker
(candidate).  Both sides run exactly the same code with the same settings.

CPU: ``time.perf_counter`` around each call.
CUDA: CUDA events; the L2 cache is flushed (256 MB write) before each sample
and the whole device is synchronized before the end mark, so work queued on
side streams is inside the measurement.

The first timed sample is discarded (it is still counted in ``wall_ms``).
"""

import math
import time

L2_FLUSH_BYTES = 256 << 20


def stats(samples_ms, wall_ms=None):
    if not samples_ms:
        return {"samples_ms": [], "median_ms": None, "mean_ms": None, "std_ms": None,
                "min_ms": None, "max_ms": None, "wall_ms": wall_ms, "count": 0}
    s = sorted(samples_ms)
    n = len(s)
    median = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    mean = sum(s) / n
    std = math.sqrt(sum((x - mean) ** 2 for x in s) / (n - 1)) if n > 1 else 0.0
    return {
        "samples_ms": [round(x, 6) for x in samples_ms],
        "median_ms": round(median, 6),
        "mean_ms": round(mean, 6),
        "std_ms": round(std, 6),
        "min_ms": round(s[0], 6),
        "max_ms": round(s[-1], 6),
        "wall_ms": None if wall_ms is None else round(wall_ms, 3),
        "count": n,
    }


def _fresh(value):
    import torch

    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, (list, tuple)):
        return type(value)(_fresh(v) for v in value)
    return value


def time_callable(fn, input_sets, device, warmup, trials, max_seconds, on_start=None, keep_outputs=True):
    """Time ``fn(*inputs)``, rotating through ``input_sets``.

    Every call gets a fresh copy of its input set (made outside the measured
    window), so a kernel that writes to its inputs can't change later calls
    and can't key a cache on input addresses.

    Returns (samples_ms, last_outputs) where samples_ms excludes the first
    (discarded) sample and last_outputs[i] is the output of the last timed
    call on input set i (for re-verification).
    """
    import torch

    nsets = len(input_sets)
    last = [None] * nsets
    cuda = device.startswith("cuda")
    flush = None
    if cuda:
        flush = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.float32, device=device)
    with torch.no_grad():
        for i in range(max(0, warmup)):
            fn(*_fresh(input_sets[i % nsets]))
        if cuda:
            torch.cuda.synchronize()
        if on_start is not None:
            on_start()
        samples = []
        t_begin = time.perf_counter()
        total = max(1, trials) + 1
        for i in range(total):
            inputs = _fresh(input_sets[i % nsets])
            if cuda:
                flush.zero_()
                torch.cuda.synchronize()
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                out = fn(*inputs)
                torch.cuda.synchronize()
                end.record()
                end.synchronize()
                samples.append(start.elapsed_time(end))
            else:
                t0 = time.perf_counter()
                out = fn(*inputs)
                t1 = time.perf_counter()
                samples.append((t1 - t0) * 1000.0)
            if keep_outputs:
                last[i % nsets] = out
            if i >= 2 and time.perf_counter() - t_begin > max_seconds:
                break
    del flush
    return samples[1:], last
