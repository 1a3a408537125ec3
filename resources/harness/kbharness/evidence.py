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
MAX_CHUNKS = 1 << 16
# output elements checked one by one (against atol + rtol * |ref|, as in the correctness
# trials) in every timed call, at secret positions drawn afresh for every call
SAMPLE_ELEMENTS = 2048
# standard deviations a correct output's projection may differ by (two-sided tail 1.2e-15)
Z = 8.0
# float64 sums of up to ~1e10 products carry a relative error far below this
ROUNDING_SLACK = 1e-9


def tensor_leaves(value):
    """The tensors of a tensor or a (nested) list/tuple of them, in order."""
    import torch

    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in tensor_leaves(v)]
    return []


def map_tensors(value, fn):
    """``fn`` applied to every tensor of a (nested) list/tuple, the structure kept."""
    import torch

    if isinstance(value, torch.Tensor):
        return fn(value)
    if isinstance(value, (list, tuple)):
        return type(value)(map_tensors(v, fn) for v in value)
    return value


class Sketcher:
    """Secret random vectors on one device, made once per evaluation."""

    def __init__(self, device, seed, vectors=VECTORS, length=VECTOR_LENGTH):
        import torch

        gen = torch.Generator(device=device)
        gen.manual_seed(int(seed))
        self.device = device
        # (length, k): a prefix of rows is contiguous
        self.vectors = torch.randn((length, vectors), generator=gen, dtype=torch.float64, device=device)
        # a secret weight per chunk: the vectors repeat from chunk to chunk, the weights do not,
        # so moving values between chunks (say, one chunk's sum standing for all) is seen
        self.chunk_weights = torch.randn((MAX_CHUNKS, vectors), generator=gen, dtype=torch.float64).tolist()
        self.k = vectors
        self.length = length
        self.seed = int(seed)

    def _chunks(self, t):
        import torch

        flat = t.detach().reshape(-1)
        if flat.is_complex():
            flat = torch.view_as_real(flat).reshape(-1)
        n = flat.numel()
        for a in range(0, n, self.length):
            b = min(a + self.length, n)
            yield flat[a:b].to(self.device).to(torch.float64), b - a

    def sketch(self, value, key, bound=False, atol=0.0, rtol=0.0, strict_atol_fraction=None):
        """{"dots", "nonfinite", "sample", "bound" (with ``bound``), "atol"} of a tensor or a
        (nested) list of them, for the timed call ``key`` (which picks the sampled positions:
        the same for the candidate and the reference). Non-finite entries count, and enter the
        products as 0; ``bound`` is Z times the 2-norm of the element-wise tolerance around this
        output, each chunk weighted as in the products."""
        import torch

        dots = torch.zeros(self.k, dtype=torch.float64, device=self.device)
        tolsq = torch.zeros(self.k, dtype=torch.float64, device=self.device)
        nonfinite = torch.zeros((), dtype=torch.float64, device=self.device)
        samples = []
        chunk = 0
        eff_atols = []
        for li, leaf in enumerate(tensor_leaves(value)):
            eff_atol = atol
            if strict_atol_fraction is not None and leaf.is_floating_point() and leaf.numel():
                finite = leaf[torch.isfinite(leaf)]
                mag = float(finite.abs().max()) if finite.numel() else 0.0
                eff_atol = min(atol, strict_atol_fraction * mag)
            eff_atols.append(eff_atol)
            samples.append(self._sample(leaf, key, li))
            for x, n in self._chunks(leaf):
                w = torch.tensor(self.chunk_weights[chunk % MAX_CHUNKS], dtype=torch.float64, device=self.device)
                chunk += 1
                fin = torch.isfinite(x)
                nonfinite += (~fin).sum()
                x = torch.where(fin, x, torch.zeros((), dtype=x.dtype, device=x.device))
                dots += w * (x @ self.vectors[:n])
                if bound:
                    tol = x.abs().mul_(rtol).add_(eff_atol)
                    tolsq += (w * w) * tol.dot(tol)
        packed = torch.cat([dots, tolsq, nonfinite.reshape(1)]).tolist()
        k = self.k
        out = {"dots": packed[:k], "nonfinite": int(packed[-1]), "sample": samples, "atol": eff_atols,
               "rtol": rtol}
        if bound:
            out["bound"] = Z * math.sqrt(max(packed[k:2 * k]))
        return out

    def _sample(self, leaf, key, index):
        """The values (float64, on the host) at SAMPLE_ELEMENTS secret positions of ``leaf``,
        drawn for this call."""
        import hashlib

        import torch

        n = leaf.numel()
        if n == 0:
            return []
        digest = hashlib.sha256(("%d:%s:%d" % (self.seed, key, index)).encode()).digest()
        gen = torch.Generator()
        gen.manual_seed(int.from_bytes(digest[:8], "big") & ((1 << 63) - 1))
        pos = torch.randint(0, n, (min(SAMPLE_ELEMENTS, n),), generator=gen).to(leaf.device)
        flat = leaf.detach().reshape(-1)
        if flat.is_complex():
            flat = torch.view_as_real(flat).reshape(-1)[: n]
        return flat.index_select(0, pos).to(torch.float64).cpu().tolist()


def agrees(candidate, reference):
    """(ok, message): does the candidate's sketch agree with the reference's: every sampled
    element within atol + rtol * |ref| (NaN where the reference has NaN), and every projection
    within the reference's bound?"""
    if candidate.get("scalars") != reference.get("scalars"):
        return False, "its non-tensor outputs %r differ from the reference's %r" % (candidate.get("scalars"),
                                                                                    reference.get("scalars"))
    if candidate["nonfinite"] != reference["nonfinite"]:
        return False, "%d non-finite value(s) where the reference has %d" % (candidate["nonfinite"],
                                                                             reference["nonfinite"])
    rtol = reference["rtol"]
    for li, (cs, rs, atol) in enumerate(zip(candidate["sample"], reference["sample"], reference["atol"])):
        if len(cs) != len(rs):
            return False, "output %d has another size" % li
        for c, r in zip(cs, rs):
            if math.isnan(r) or math.isinf(r):
                if not (c == r or (math.isnan(c) and math.isnan(r))):
                    return False, "output %d: expected %r, got %r at a checked element" % (li, r, c)
                continue
            if not math.isfinite(c) or abs(c - r) > atol + rtol * abs(r):
                return False, ("output %d: an element checked is %.6g, the reference's %.6g (allowed %.3g)" %
                               (li, c, r, atol + rtol * abs(r)))
    b = reference["bound"]
    for i, (c, r) in enumerate(zip(candidate["dots"], reference["dots"])):
        if not (math.isfinite(c) and math.isfinite(r)):
            return False, "the output's projection is not finite"
        allowed = b + ROUNDING_SLACK * (abs(r) + b) + 1e-300
        if abs(c - r) > allowed:
            return False, ("its projection on secret vector %d is %.6g, the reference's %.6g; an output within "
                           "tolerance differs by less than %.3g" % (i, c, r, allowed))
    return True, ""
