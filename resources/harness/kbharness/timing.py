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

# Every call of a timing loop (warm-up included) gets inputs of its own: the
# floating-point tensors of its input set scaled by a per-call factor in
# [0.5, 1).  A cache keyed on input addresses, content hashes or fingerprints
# never sees the same input twice, and a cache tolerant of small differences
# returns outputs that differ by more than the tolerance (the steps are
# larger than rtol).  Positive scaling keeps signs, zeros, triangular and
# positive-definite structure and [0, 1] ranges.
PERTURB_STEP = {"float64": 2.0 ** -11, "float32": 2.0 ** -11, "float16": 2.0 ** -5, "bfloat16": 2.0 ** -4}


# The clock and synchronisation functions, captured before any candidate code
# runs (the worker calls capture() while preparing): patching time.perf_counter,
# torch.cuda.synchronize or torch.cuda.Event afterwards changes nothing here.
_CLOCK = {"perf": time.perf_counter}


def capture():
    import torch

    _CLOCK["perf"] = time.perf_counter
    _CLOCK["sync"] = torch.cuda.synchronize
    _CLOCK["event"] = torch.cuda.Event


def _perf():
    return _CLOCK["perf"]()


def _sync():
    import torch

    return _CLOCK.get("sync", torch.cuda.synchronize)()


def _event():
    import torch

    return _CLOCK.get("event", torch.cuda.Event)(enable_timing=True)


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


def perturb_scale(call_index, dtype):
    name = str(dtype).replace("torch.", "")
    step = PERTURB_STEP.get(name, 2.0 ** -11)
    distinct = int(0.5 / step)
    return 1.0 - step * (1 + call_index % distinct)


def call_inputs(input_set, call_index):
    """The inputs of call ``call_index``: fresh tensors, floating ones scaled."""
    import torch

    def one(v):
        if isinstance(v, torch.Tensor):
            if v.is_floating_point():
                return torch.mul(v, perturb_scale(call_index, v.dtype))
            return v.clone()
        if isinstance(v, (list, tuple)):
            return type(v)(one(x) for x in v)
        return v

    return [one(v) for v in input_set]


_CUDART = []


def _cudart():
    """The CUDA runtime library that torch loaded (for the persisting-L2 reset)."""
    if _CUDART:
        return _CUDART[0]
    lib = None
    try:
        import ctypes

        path = None
        with open("/proc/self/maps") as f:
            for line in f:
                if "libcudart" in line:
                    path = line.split()[-1]
                    break
        if path is None:
            import ctypes.util

            path = ctypes.util.find_library("cudart")
        if path:
            lib = ctypes.CDLL(path)
    except (OSError, ImportError):
        lib = None
    _CUDART.append(lib)
    return lib


def reset_persisting_l2():
    """cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0) and
    cudaCtxResetPersistingL2Cache(): lines a candidate pinned in L2 become
    normal again.  Returns True when the runtime accepted both calls."""
    lib = _cudart()
    if lib is None:
        return False
    try:
        import ctypes

        rc1 = lib.cudaDeviceSetLimit(ctypes.c_int(0x06), ctypes.c_size_t(0))  # cudaLimitPersistingL2CacheSize
        rc2 = lib.cudaCtxResetPersistingL2Cache()
        return rc1 == 0 and rc2 == 0
    except (AttributeError, OSError):
        return False


def copy_bandwidth(device, nbytes, repeats=5):
    """Best observed copy bandwidth in bytes/s (read + write) for a tensor of
    ``nbytes`` on ``device``: the roofline's memory bandwidth."""
    import torch

    n = max(1024, int(nbytes) // 4)
    src = torch.ones(n, dtype=torch.float32, device=device)
    dst = torch.empty_like(src)
    best = None
    cuda = str(device).startswith("cuda")
    for _ in range(repeats):
        if cuda:
            _sync()
            start = _event()
            end = _event()
            start.record()
            dst.copy_(src)
            end.record()
            end.synchronize()
            t = start.elapsed_time(end) / 1000.0
        else:
            src.add_(0.0)  # the source is freshly written, as cloned inputs are
            t0 = _perf()
            dst.copy_(src)
            t = _perf() - t0
        if t > 0 and (best is None or t < best):
            best = t
    if not best:
        return None
    return 2.0 * n * 4 / best


def time_callable(fn, input_sets, device, warmup, trials, max_seconds, on_start=None, keep_outputs=True,
                  reset_l2=False):
    """Time ``fn(*inputs)``, rotating through ``input_sets``.

    Every call gets inputs of its own (``call_inputs``: a fresh, scaled copy
    of its input set, made outside the measured window), so a kernel that
    writes to its inputs can't change later calls and no output cache can
    hit.

    Returns (samples_ms, last_outputs, last_calls) where samples_ms excludes
    the first (discarded) sample, last_outputs[i] is the output of the last
    timed call on input set i and last_calls[i] that call's index (for
    re-verification with ``call_inputs``).
    """
    import torch

    nsets = len(input_sets)
    last = [None] * nsets
    last_calls = [None] * nsets
    cuda = device.startswith("cuda")
    flush = None
    if cuda:
        flush = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.float32, device=device)
    call = 0
    with torch.no_grad():
        for i in range(max(0, warmup)):
            fn(*call_inputs(input_sets[i % nsets], call))
            call += 1
        if cuda:
            _sync()
        if on_start is not None:
            on_start()
        samples = []
        t_begin = _perf()
        total = max(1, trials) + 1
        for i in range(total):
            inputs = call_inputs(input_sets[i % nsets], call)
            this_call = call
            call += 1
            if cuda:
                if reset_l2:
                    reset_persisting_l2()
                flush.zero_()
                _sync()
                start = _event()
                end = _event()
                start.record()
                out = fn(*inputs)
                _sync()
                end.record()
                end.synchronize()
                samples.append(start.elapsed_time(end))
            else:
                t0 = _perf()
                out = fn(*inputs)
                t1 = _perf()
                samples.append((t1 - t0) * 1000.0)
            if keep_outputs:
                last[i % nsets] = out
                last_calls[i % nsets] = this_call
            del out, inputs
            if i >= 2 and _perf() - t_begin > max_seconds:
                break
    del flush
    return samples[1:], last, last_calls
