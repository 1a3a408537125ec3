"""Comparison of a candidate's output with the reference output.

Runs in the trusted process on tensors decoded from the private channel.
"""


def _flatten(value, path="output"):
    import torch

    if type(value) is torch.Tensor:
        return [(path, value)], "tensor"
    if isinstance(value, (tuple, list)):
        items = []
        for i, v in enumerate(value):
            sub, _ = _flatten(v, "%s[%d]" % (path, i))
            items.extend(sub)
        return items, type(value).__name__
    return [(path, value)], "scalar"


def _structure(value):
    import torch

    if type(value) is torch.Tensor:
        return "tensor"
    if isinstance(value, torch.Tensor):
        return "tensor-subclass:" + type(value).__name__
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(_structure(v) for v in value))
    return type(value).__name__


def _describe(structure):
    if isinstance(structure, tuple):
        return "%s of %d" % (structure[0], len(structure[1]))
    return str(structure)


def compare(reference, candidate, atol, rtol, strict=False, strict_atol_fraction=1e-4,
            strict_spread_fraction=1e-2):
    """Return {passed, max_abs_error, max_rel_error, mismatch_fraction, message}.

    ``strict`` (weak tasks, whose outputs a zero or constant answer matches at
    the plain tolerance): for each floating tensor the absolute tolerance
    becomes ``min(atol, strict_atol_fraction * max|ref|)``, and the output's
    variation around its mean must match the reference's:
    ``max|(c - mean c) - (r - mean r)| <= strict_spread_fraction * max|r - mean r|
    + 8 * eps(dtype) * max|r|``.
    """
    import torch

    result = {"passed": False, "max_abs_error": None, "max_rel_error": None,
              "mismatch_fraction": None, "message": ""}
    rs, cs = _structure(reference), _structure(candidate)
    if rs != cs:
        result["message"] = "output structure differs: expected %s, got %s" % (_describe(rs), _describe(cs))
        return result
    ref_items, _ = _flatten(reference)
    cand_items, _ = _flatten(candidate)
    max_abs = 0.0
    max_rel = 0.0
    mismatches = 0
    total = 0
    messages = []
    for (path, r), (_, c) in zip(ref_items, cand_items):
        if type(r) is not torch.Tensor:
            if r != c:
                messages.append("%s: expected %r, got %r" % (path, r, c))
                mismatches += 1
            total += 1
            continue
        if type(c) is not torch.Tensor:
            result["message"] = "%s is %s, not an exact torch.Tensor" % (path, type(c).__name__)
            return result
        if tuple(r.shape) != tuple(c.shape):
            result["message"] = "%s shape mismatch: expected %s, got %s" % (path, list(r.shape), list(c.shape))
            return result
        if r.dtype != c.dtype:
            result["message"] = "%s dtype mismatch: expected %s, got %s" % (
                path, str(r.dtype).replace("torch.", ""), str(c.dtype).replace("torch.", ""))
            return result
        n = r.numel()
        total += n
        if n == 0:
            continue
        r64 = r.detach().to("cpu", torch.float64) if not r.is_complex() else r.detach().cpu()
        c64 = c.detach().to("cpu", torch.float64) if not c.is_complex() else c.detach().cpu()
        c_finite = torch.isfinite(c64)
        r_finite = torch.isfinite(r64)
        bad_nonfinite = (~c_finite) & r_finite
        if bool(bad_nonfinite.any()):
            count = int(bad_nonfinite.sum())
            nan = int((torch.isnan(c64) & r_finite).sum())
            result["message"] = "%s contains %d non-finite value(s) (%d NaN, %d Inf) where the reference " \
                                "is finite" % (path, count, nan, count - nan)
            result["mismatch_fraction"] = count / float(max(total, 1))
            return result
        # non-finite reference entries must be matched exactly
        nonfinite_ref = ~r_finite
        if bool(nonfinite_ref.any()):
            same = (torch.isnan(r64) & torch.isnan(c64)) | (r64 == c64)
            wrong = nonfinite_ref & ~same
            mismatches += int(wrong.sum())
        both = r_finite & c_finite
        diff = (c64 - r64).abs()
        diff = torch.where(both, diff, torch.zeros_like(diff))
        eff_atol = atol
        if strict and r.is_floating_point() and bool(both.any()):
            r_fin = r64[both]
            c_fin = c64[both]
            mag = float(r_fin.abs().max())
            eff_atol = min(atol, strict_atol_fraction * mag)
            dr = r_fin - r_fin.mean()
            dc = c_fin - c_fin.mean()
            spread = float(dr.abs().max())
            eps = torch.finfo(r.dtype).eps
            allowed = strict_spread_fraction * spread + 8.0 * eps * mag
            worst = float((dc - dr).abs().max())
            if worst > allowed:
                mismatches += 1
            if worst > allowed and not messages:
                messages.append("%s: strict check: the output's variation around its mean differs from the "
                                "reference's by %.3g (allowed %.3g; reference spread %.3g)" %
                                (path, worst, allowed, spread))
        tol = eff_atol + rtol * r64.abs()
        bad = (diff > torch.where(both, tol, torch.full_like(tol, float("inf"))))
        mismatches += int(bad.sum())
        max_abs = max(max_abs, float(diff.max()))
        denom = r64.abs().clamp_min(1e-12)
        rel = torch.where(both & (r64 != 0), diff / denom, torch.zeros_like(diff))
        max_rel = max(max_rel, float(rel.max()))
        if bad.any() and not messages:
            idx = int(torch.nonzero(bad.reshape(-1))[0])
            messages.append("%s: %d of %d elements outside atol=%g rtol=%g%s (first at flat index %d: "
                            "expected %.6g, got %.6g)" % (path, int(bad.sum()), n, eff_atol, rtol,
                                                         " (strict)" if strict else "", idx,
                                                         float(r64.reshape(-1)[idx]), float(c64.reshape(-1)[idx])))
    result["max_abs_error"] = max_abs
    result["max_rel_error"] = max_rel
    result["mismatch_fraction"] = mismatches / float(max(total, 1))
    result["passed"] = mismatches == 0
    result["message"] = "; ".join(messages) if messages else ""
    return result
