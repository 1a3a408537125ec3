"""Task validation: does a task file load, run, and make a meaningful test?

Flags (DESIGN §5.7): a task whose output is near-constant, whose output
magnitude is below the tolerance (all-zeros would pass), or whose output does
not depend on its input lets degenerate candidates pass.
"""

import time

from . import taskload

DEFAULT_SEED = 20240607


def _tensors(value):
    import torch

    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            out.extend(_tensors(v))
        return out
    return []


# Flags that make the evaluate command compare strictly (strict_check "auto").
WEAK_OUTPUT_FLAGS = ("below-tolerance", "mostly-below-tolerance", "near-constant")


# Elements looked at once: a 6 GB reference output is checked in float64 chunks of
# CHUNK * 8 bytes on its own device, never widened whole.
CHUNK = 1 << 24


def _float64_chunks(t):
    """t (floating point) flattened, in float64 chunks with NaN/Inf replaced as
    ``torch.nan_to_num`` does; yields (chunk, had_nonfinite)."""
    import torch

    flat = t.detach().reshape(-1)
    for a in range(0, flat.numel(), CHUNK):
        c = flat[a:a + CHUNK].to(torch.float64)
        bad = not bool(torch.isfinite(c).all())
        yield (torch.nan_to_num(c) if bad else c), bad


def weakness_flags(tensors, atol, rtol):
    """Flags for reference outputs that a degenerate answer could match.

    Returns (flags, max_abs_output) where flags is a list of (flag, message)
    among WEAK_OUTPUT_FLAGS and non-finite-output.  Each test is the
    whole-tensor one in float64 (NaN/Inf replaced as ``nan_to_num`` does):
    below-tolerance is ``allclose(zeros, t)``, near-constant is
    ``allclose(full(mean(t)), t)``; they are evaluated chunk by chunk.
    """
    flags = []
    floats = [t for t in _tensors(tensors) if t.is_floating_point() and t.numel() > 0]
    if not floats:
        return flags, None
    nonfinite = False
    max_mag = 0.0
    all_zero_like = True
    small = total = 0
    means = []
    for t in floats:
        s = 0.0
        for c, bad in _float64_chunks(t):
            nonfinite = nonfinite or bad
            mag = c.abs()
            max_mag = max(max_mag, float(mag.max()))
            # allclose(0, c): |0 - c| <= atol + rtol * |c|
            if all_zero_like and not bool((mag <= atol + rtol * mag).all()):
                all_zero_like = False
            small += int((mag <= atol).sum())
            s += float(c.sum())
        total += t.numel()
        means.append(s / t.numel())
    if nonfinite:
        flags.append(("non-finite-output", "the reference output contains NaN or Inf"))
    if all_zero_like:
        flags.append(("below-tolerance", "max |output| = %.3g is within atol=%g of zero: an all-zeros output "
                                         "passes" % (max_mag, atol)))
        return flags, max_mag
    constant = True
    for t, m in zip(floats, means):
        for c, _ in _float64_chunks(t):
            if not bool(((m - c).abs() <= atol + rtol * c.abs()).all()):
                constant = False
                break
        if not constant:
            break
    if constant:
        flags.append(("near-constant", "the output is constant within tolerance: a constant output passes"))
    elif small >= 0.95 * total:
        flags.append(("mostly-below-tolerance", "%.1f%% of the output elements are within atol=%g of zero"
                      % (100.0 * small / total, atol)))
    return flags, max_mag


def _state_differs(a, b):
    import torch

    sa, sb = a.state_dict(), b.state_dict()
    for k, v in sa.items():
        w = sb.get(k)
        if isinstance(v, torch.Tensor) and isinstance(w, torch.Tensor) and v.is_floating_point() and \
                v.shape == w.shape and not torch.equal(v, w):
            return True
    return False


def _same(t1, t2, atol, rtol):
    import torch

    return len(t1) == len(t2) and all(
        a.shape == b.shape and a.dtype == b.dtype and (
            torch.allclose(a.double(), b.double(), atol=atol, rtol=rtol, equal_nan=True)
            if a.is_floating_point() else torch.equal(a, b))
        for a, b in zip(t1, t2))


def validate(path, atol=1e-4, rtol=1e-4, seed=DEFAULT_SEED, num_threads=None, device="cpu"):
    import contextlib

    import torch

    report = {"ok": False, "errors": [], "output_shapes": [], "output_dtypes": [], "flags": [],
              "seconds": None, "task": path, "device": device}
    if device.startswith("cuda") and not torch.cuda.is_available():
        report["errors"].append("device %s requested but CUDA is not available" % device)
        return report
    # Inputs are generated where they are used (a 6 GB input takes seconds on the CPU).
    on_device = (lambda: torch.device(device)) if device != "cpu" and hasattr(torch.device, "__enter__") \
        else contextlib.nullcontext
    if num_threads:
        torch.set_num_threads(num_threads)
    try:
        task = taskload.load_task(path, module_name="kbstudio_task_validate")
    except taskload.TaskError as e:
        report["errors"].append(str(e))
        return report

    def flag(name, message):
        report["flags"].append({"flag": name, "message": message})

    try:
        torch.manual_seed(seed)
        init = taskload.as_list(task.get_init_inputs(), "get_init_inputs")
        torch.manual_seed(seed)
        model = task.Model(*init).eval().to(device)
    except Exception as e:
        report["errors"].append("constructing Model raised %s: %s" % (type(e).__name__, e))
        return report

    def inputs_for(s):
        torch.manual_seed(s)
        with on_device():
            inputs = taskload.as_list(task.get_inputs(), "get_inputs")
        return [x.to(device) if isinstance(x, torch.Tensor) else x for x in inputs]

    def run(s):
        inputs = inputs_for(s)
        with torch.no_grad():
            return model(*inputs)

    try:
        t0 = time.perf_counter()
        out1 = run(seed + 1)
        report["seconds"] = round(time.perf_counter() - t0, 6)
        out1b = run(seed + 1)
        out2 = run(seed + 2)
    except taskload.TaskError as e:
        report["errors"].append(str(e))
        return report
    except Exception as e:
        report["errors"].append("running Model raised %s: %s" % (type(e).__name__, e))
        return report
    t1, t1b, t2 = _tensors(out1), _tensors(out1b), _tensors(out2)
    if not t1:
        report["errors"].append("Model returned no tensor (got %s)" % type(out1).__name__)
        return report
    report["output_shapes"] = [list(t.shape) for t in t1]
    report["output_dtypes"] = [str(t.dtype).replace("torch.", "") for t in t1]
    report["ok"] = True

    weak, max_mag = weakness_flags(t1, atol, rtol)
    if max_mag is not None:
        report["max_abs_output"] = max_mag
    for name, message in weak:
        flag(name, message)
    if _same(t1, t2, atol, rtol):
        flag("input-insensitive", "two different seeded inputs give the same output within tolerance")
    # weights: a second Model built under another seed must change the output
    # (unless its weights come out the same, e.g. a task without parameters)
    try:
        torch.manual_seed(seed + 7919)
        other = task.Model(*init).eval().to(device)
        if _state_differs(model, other):
            inputs = inputs_for(seed + 1)
            with torch.no_grad():
                out_other = other(*inputs)
            if _same(t1, _tensors(out_other), atol, rtol):
                flag("weight-insensitive", "a Model with different random weights gives the same output within "
                                           "tolerance: a candidate can ignore its weights")
    except Exception as e:  # the main run worked; report and go on
        report["errors_weights_check"] = "%s: %s" % (type(e).__name__, e)
    repeat = len(t1) == len(t1b) and all(
        torch.equal(a, b) or (a.is_floating_point() and torch.allclose(a, b, atol=atol, rtol=rtol, equal_nan=True))
        for a, b in zip(t1, t1b))
    if not repeat:
        flag("nondeterministic", "the same input gives different outputs on two runs")
    return report
