"""Numerical probe for a silent precision downgrade on float32 tasks.

A float32 task run with TF32 off promises float32 arithmetic. A kernel that multiplies on
tensor cores in TF32, fp16 or bf16 (inline PTX, a library flag, a cast) can stay inside
atol = rtol = 1e-4 on friendly inputs and be twice as fast; on the H200 a TF32 product with
a short inner dimension came out at a relative error of 4.9e-5, inside every tolerance. What
such a kernel cannot hide is *where its error comes from*: it rounds its inputs to a short
mantissa. So the judge runs it twice, on the trial's inputs ``x`` and on ``x16``, the same
inputs with the low 16 mantissa bits cleared (values that bf16, fp16 and TF32 represent
exactly), and measures both outputs against a float64 evaluation of the reference:

- a float32 kernel's error is rounding in its arithmetic, about the same on ``x`` and ``x16``;
- a reduced-precision kernel's error on ``x`` is dominated by rounding its inputs, which
  vanishes on ``x16``: its error drops by a large factor.

Flagged when the candidate's error on ``x`` is at least DROP times its error on ``x16``,
DROP_RATIO times the float32 reference's own error on ``x``, and above FLOOR (1e-6, far below
any tolerance). An output whose error exceeds max(RATIO * reference error, ABSOLUTE) is flagged
too (arithmetic below float32 all the way through). Honest float32 kernels, however they sum,
are equally sensitive to the cleared bits, so they are never flagged by the first rule.
"""

import copy

from .evidence import map_tensors, tensor_leaves

DROP = 8.0
# how far above the float32 reference's own error: far for the absolute rule, a little for the
# drop rule (which by itself already separates rounded inputs from float32 arithmetic)
RATIO = 30.0
DROP_RATIO = 4.0
FLOOR = 1e-6
ABSOLUTE = 1e-4
# inputs larger than this are not probed (the float64 copies would double the memory)
MAX_BYTES = 256 << 20


def _double(value):
    import torch

    return map_tensors(value, lambda t: t.double() if t.dtype == torch.float32 else t)


def short_mantissa(value):
    """float32 tensors with the low 16 mantissa bits cleared (exact in bf16, fp16's
    mantissa, TF32); everything else unchanged."""
    import torch

    def clear(t):
        if t.dtype != torch.float32:
            return t
        bits = t.contiguous().view(torch.int32) & ~0xFFFF
        return bits.view(torch.float32).reshape(t.shape)

    return map_tensors(value, clear)


def relative_error(value, exact):
    """||value - exact||_2 / ||exact||_2 over all float leaves (float64)."""
    import torch

    num = den = 0.0
    for v, e in zip(tensor_leaves(value), tensor_leaves(exact)):
        if not (v.is_floating_point() and e.is_floating_point()) or v.shape != e.shape:
            continue
        v64, e64 = v.detach().to(e.device).double(), e.detach().double()
        fin = torch.isfinite(v64) & torch.isfinite(e64)
        num += float(((v64 - e64)[fin] ** 2).sum())
        den += float((e64[fin] ** 2).sum())
    if den == 0.0:
        return None
    return (num / den) ** 0.5


def applies(req, inputs, expected):
    import torch

    if req["precision"] != "fp32" or req["allow_tf32"]:
        return False
    outs = tensor_leaves(expected)
    if not outs or not all(o.dtype == torch.float32 for o in outs):
        return False
    if not any(t.dtype == torch.float32 for t in tensor_leaves(inputs)):
        return False
    size = sum(t.numel() * t.element_size() for t in tensor_leaves(inputs))
    return size <= MAX_BYTES


def exact_output(ref_model, inputs):
    """The reference evaluated in float64 on the same inputs, or None where it can't be."""
    import torch

    try:
        model = copy.deepcopy(ref_model).double()
        with torch.no_grad():
            return model(*_double(list(inputs)))
    except Exception:
        return None


def probe(exact, expected, got, exact16=None, got16=None):
    """The errors and the decision (a dict), or None where the probe does not apply."""
    if exact is None:
        return None
    e_ref = relative_error(expected, exact)
    e_cand = relative_error(got, exact)
    if e_ref is None or e_cand is None:
        return None
    e_cand16 = relative_error(got16, exact16) if exact16 is not None and got16 is not None else None
    out = {"reference_error": e_ref, "candidate_error": e_cand, "candidate_error_short_mantissa": e_cand16,
           "drop": DROP, "ratio": RATIO, "floor": FLOOR, "absolute": ABSOLUTE, "downgraded": False, "why": ""}
    if e_cand > max(RATIO * e_ref, ABSOLUTE):
        out.update(downgraded=True, why="its error is %.2e, the float32 reference's %.2e" % (e_cand, e_ref))
    elif e_cand16 is not None and e_cand > max(FLOOR, DROP_RATIO * e_ref) and e_cand >= DROP * e_cand16:
        out.update(downgraded=True, why=("its error is %.2e (the float32 reference's %.2e) and falls to %.2e on "
                                         "the same inputs rounded to a short mantissa: it rounds its inputs"
                                         % (e_cand, e_ref, e_cand16)))
    return out


# ---- the requested precision (fp16 / bf16) ------------------------------------------------
# A reduced-precision request casts the task's floating inputs and the floating parameters and
# buffers of both models (the reference's and the candidate's, constructed the same way) to
# that type, on both sides alike; integer and boolean tensors stay as they are.
DTYPE_NAMES = {"fp32": None, "fp16": "float16", "bf16": "bfloat16"}


def dtype_of(name):
    """The torch dtype a precision casts to; None for fp32 (nothing is cast)."""
    import torch

    dtype = DTYPE_NAMES.get(name)
    return getattr(torch, dtype) if dtype else None


def cast_inputs(values, dtype):
    """Floating tensors of ``values`` (a list) cast to ``dtype``; the rest unchanged."""
    if dtype is None:
        return values
    import torch

    return [x.to(dtype) if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in values]


def cast_model(model, dtype):
    """A module's floating parameters and buffers cast to ``dtype`` (Module.to does exactly
    that); anything that is not a module is left as it is."""
    if dtype is None or not hasattr(model, "to"):
        return model
    import torch

    return model.to(dtype) if isinstance(model, torch.nn.Module) else model
