"""Evidence that every timed call produced the right output, kept by the judge.

Keeping every timed output for a full comparison is impossible (a 6 GB output, a hundred
calls), and re-verifying only some of them lets a kernel return garbage for the others. So
the judge reads each output the moment the call returns and reduces it to a *sketch*: its
inner products with a few secret Gaussian vectors ``v`` (float64, chunk by chunk on the
output's device) and its count of non-finite values. The reference, run on the same inputs
in its own worker, gives the reference's sketch and a tolerance bound.

Why this never fails a correct output: the vectors are drawn by the judge from a secret
seed after the candidate's code is fixed, so a candidate's error ``e = c - r`` is
independent of them and ``<e, v>`` is normal with standard deviation ``||e||_2``. An output
within tolerance element by element has ``||e||_2 <= ||atol + rtol * |r| ||_2``, so
``|<c, v> - <r, v>| <= Z * ||atol + rtol * |r| ||_2`` fails with probability below
``2e-15`` per product (Z = 8). A wrong output -- garbage, zeros, stale, partial, a few
wrong rows -- has an error norm far above that bound and fails with certainty in practice.
"""

import math

# Length of the secret vectors; longer outputs reuse them chunk by chunk (the vectors are
# secret, so their period is of no use to a candidate).
VECTOR_LENGTH = 1 << 20
VECTORS = 2
# standard deviations a correct output's projection may differ by (two-sided tail 1.2e-15)
Z = 8.0
# float64 sums of up to ~1e10 products carry a relative error far below this
ROUNDING_SLACK = 1e-9


class Sketcher:
    """Secret random vectors on one device, made once per evaluation."""

    def __init__(self, device, seed, vectors=VECTORS, length=VECTOR_LENGTH):
        import torch

        gen = torch.Generator(device=device)
        gen.manual_seed(int(seed))
        self.device = device
        # (length, k): a prefix of rows is contiguous
        self.vectors = torch.randn((length, vectors), generator=gen, dtype=torch.float64, device=device)
        self.k = vectors
        self.length = length

    def _leaves(self, value):
        import torch

        if isinstance(value, torch.Tensor):
            return [value]
        if isinstance(value, (list, tuple)):
            out = []
            for v in value:
                out.extend(self._leaves(v))
            return out
        return []

    def _chunks(self, t):
        import torch

        flat = t.detach().reshape(-1)
        if flat.is_complex():
            flat = torch.view_as_real(flat).reshape(-1)
        n = flat.numel()
        for a in range(0, n, self.length):
            b = min(a + self.length, n)
            yield flat[a:b].to(self.device).to(torch.float64), b - a

    def sketch(self, value, bound=False, atol=0.0, rtol=0.0, strict_atol_fraction=None):
        """{"dots": [...], "nonfinite": n, "bound": b (with ``bound``)} of a tensor or a
        (nested) list of them. Non-finite entries count, and enter the products as 0;
        ``bound`` is Z times the 2-norm of the element-wise tolerance around this output."""
        import torch

        dots = torch.zeros(self.k, dtype=torch.float64, device=self.device)
        tolsq = torch.zeros((), dtype=torch.float64, device=self.device)
        nonfinite = 0
        for leaf in self._leaves(value):
            eff_atol = atol
            if bound and strict_atol_fraction is not None and leaf.is_floating_point() and leaf.numel():
                finite = leaf[torch.isfinite(leaf)]
                mag = float(finite.abs().max()) if finite.numel() else 0.0
                eff_atol = min(atol, strict_atol_fraction * mag)
            for x, n in self._chunks(leaf):
                prod = x @ self.vectors[:n]
                if not bool(torch.isfinite(prod).all()):
                    # rare: count the non-finite entries and take them as 0
                    fin = torch.isfinite(x)
                    nonfinite += int((~fin).sum())
                    x = torch.where(fin, x, torch.zeros((), dtype=x.dtype, device=x.device))
                    prod = x @ self.vectors[:n]
                dots += prod
                if bound:
                    tol = x.abs().mul_(rtol).add_(eff_atol)
                    tolsq += tol.dot(tol)
        out = {"dots": [float(d) for d in dots], "nonfinite": nonfinite}
        if bound:
            out["bound"] = Z * math.sqrt(float(tolsq))
        return out


def agrees(candidate, reference):
    """(ok, message): does the candidate's sketch agree with the reference's within the
    reference's bound?"""
    if candidate["nonfinite"] != reference["nonfinite"]:
        return False, "%d non-finite value(s) where the reference has %d" % (candidate["nonfinite"],
                                                                             reference["nonfinite"])
    b = reference["bound"]
    for i, (c, r) in enumerate(zip(candidate["dots"], reference["dots"])):
        if not (math.isfinite(c) and math.isfinite(r)):
            return False, "the output's projection is not finite"
        allowed = b + ROUNDING_SLACK * (abs(r) + b) + 1e-300
        if abs(c - r) > allowed:
            return False, ("its projection on secret vector %d is %.6g, the reference's %.6g; an output within "
                           "tolerance differs by less than %.3g" % (i, c, r, allowed))
    return True, ""
