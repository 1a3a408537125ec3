"""Comparison of a candidate's output with the reference output.

Runs in the trusted process on tensors decoded from the private channel.
"""

from typing import Any, Dict

# Strict comparison (weak tasks): atol shrinks to this fraction of the
# output's magnitude, and the output's variation around its mean must match
# to within STRICT_SPREAD_FRACTION of the reference's variation.
STRICT_ATOL_FRACTION = 1e-4
STRICT_SPREAD_FRACTION = 1e-2


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


def compare(reference: Any, candidate: Any, atol: float, rtol: float, strict: bool = False,
            strict_atol_fraction: float = 1e-4, strict_spread_fraction: float = 1e-2) -> Dict[str, Any]:
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
        t = _compare_tensor(r, c, atol, rtol, strict, strict_atol_fraction, strict_spread_fraction)
        if t["nonfinite"]:
            result["message"] = "%s contains %d non-finite value(s) (%d NaN, %d Inf) where the reference " \
                                "is finite" % (path, t["nonfinite"], t["nan"], t["nonfinite"] - t["nan"])
            result["mismatch_fraction"] = t["nonfinite"] / float(max(total, 1))
            return result
        mismatches += t["mismatches"]
        max_abs = max(max_abs, t["max_abs"])
        max_rel = max(max_rel, t["max_rel"])
        if t["strict_failed"] and not messages:
            messages.append("%s: strict check: the output's variation around its mean differs from the "
                            "reference's by %.3g (allowed %.3g; reference spread %.3g)" %
                            (path, t["worst"], t["allowed"], t["spread"]))
        if t["bad"] and not messages:
            messages.append("%s: %d of %d elements outside atol=%g rtol=%g%s (first at flat index %d: "
                            "expected %.6g, got %.6g)" % (path, t["bad"], n, t["atol"], rtol,
                                                          " (strict)" if strict else "", t["first_bad"],
                                                          t["first_expected"], t["first_got"]))
    result["max_abs_error"] = max_abs
    result["max_rel_error"] = max_rel
    result["mismatch_fraction"] = mismatches / float(max(total, 1))
    result["passed"] = mismatches == 0
    result["message"] = "; ".join(messages) if messages else ""
    return result


# Elements compared at once: the float64 working copies of one chunk take CHUNK * 8 bytes
# each, so a 6 GB output is compared in bounded memory, on the reference's device.
CHUNK = 1 << 24


def _chunks(r, c):
    """(offset, reference chunk, candidate chunk) in float64 (complex128) on r's device."""
    import torch

    rf, cf = r.detach().reshape(-1), c.detach().reshape(-1)
    wide = torch.complex128 if r.is_complex() else torch.float64
    for a in range(0, rf.numel(), CHUNK):
        b = min(a + CHUNK, rf.numel())
        yield a, rf[a:b].to(wide), cf[a:b].to(r.device).to(wide)


def _compare_tensor(r, c, atol, rtol, strict, strict_atol_fraction, strict_spread_fraction):
    """One tensor pair, chunk by chunk: the same numbers a whole-tensor float64 pass gives."""
    import torch

    out = {"nonfinite": 0, "nan": 0, "mismatches": 0, "max_abs": 0.0, "max_rel": 0.0, "bad": 0,
           "first_bad": None, "first_expected": None, "first_got": None, "strict_failed": False,
           "atol": atol, "worst": 0.0, "allowed": 0.0, "spread": 0.0}
    mean_r = mean_c = None
    if strict and r.is_floating_point():
        # first pass: the magnitude and the means over the entries finite on both sides
        mag, sr, sc, cnt = 0.0, 0.0, 0.0, 0
        for _, r64, c64 in _chunks(r, c):
            both = torch.isfinite(r64) & torch.isfinite(c64)
            k = int(both.sum())
            if k:
                rb, cb = r64[both], c64[both]
                mag = max(mag, float(rb.abs().max()))
                sr += float(rb.sum())
                sc += float(cb.sum())
                cnt += k
        if cnt:
            out["atol"] = min(atol, strict_atol_fraction * mag)
            mean_r, mean_c = sr / cnt, sc / cnt
            eps = torch.finfo(r.dtype).eps
    eff_atol = out["atol"]
    spread = worst = 0.0
    for a, r64, c64 in _chunks(r, c):
        c_finite, r_finite = torch.isfinite(c64), torch.isfinite(r64)
        bad_nonfinite = (~c_finite) & r_finite
        if bool(bad_nonfinite.any()):
            out["nonfinite"] += int(bad_nonfinite.sum())
            out["nan"] += int((torch.isnan(c64) & r_finite).sum())
        if out["nonfinite"]:
            continue
        nonfinite_ref = ~r_finite
        if bool(nonfinite_ref.any()):
            same = (torch.isnan(r64) & torch.isnan(c64)) | (r64 == c64)
            out["mismatches"] += int((nonfinite_ref & ~same).sum())
        both = r_finite & c_finite
        diff = torch.where(both, (c64 - r64).abs(), torch.zeros((), dtype=torch.float64, device=r64.device))
        if mean_r is not None and bool(both.any()):
            dr = r64[both] - mean_r
            dc = c64[both] - mean_c
            spread = max(spread, float(dr.abs().max()))
            worst = max(worst, float((dc - dr).abs().max()))
        tol = eff_atol + rtol * r64.abs()
        bad = both & (diff > tol)
        k = int(bad.sum())
        if k and out["first_bad"] is None:
            i = int(torch.nonzero(bad)[0])
            out["first_bad"], out["first_expected"], out["first_got"] = a + i, float(r64[i]), float(c64[i])
        out["bad"] += k
        out["max_abs"] = max(out["max_abs"], float(diff.max()))
        denom = r64.abs().clamp_min(1e-12)
        rel = torch.where(both & (r64 != 0), diff / denom, torch.zeros((), dtype=torch.float64, device=r64.device))
        out["max_rel"] = max(out["max_rel"], float(rel.max()))
    if out["nonfinite"]:
        return out
    if mean_r is not None:
        allowed = strict_spread_fraction * spread + 8.0 * eps * mag
        out.update(worst=worst, allowed=allowed, spread=spread, strict_failed=worst > allowed)
        if worst > allowed:
            out["mismatches"] += 1
    out["mismatches"] += out["bad"]
    return out
