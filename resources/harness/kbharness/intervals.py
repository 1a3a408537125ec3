"""Small statistics for the judge's timing: Student's t quantiles, medians and quantiles, and
the interval of a speedup estimated from per-round ratios (interleave.py)."""

import math
from typing import Optional, Sequence, Tuple

# two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042]


# one-sided 99.9% quantiles of Student's t for 1..30 degrees of freedom
_T999 = [318.3, 22.33, 10.21, 7.173, 5.893, 5.208, 4.785, 4.501, 4.297, 4.144, 4.025, 3.930, 3.852, 3.787,
         3.733, 3.686, 3.646, 3.610, 3.579, 3.552, 3.527, 3.505, 3.485, 3.467, 3.450, 3.435, 3.421, 3.408,
         3.396, 3.385]


def t999(df: int) -> float:
    if df < 1:
        return float("inf")
    if df <= len(_T999):
        return _T999[df - 1]
    return 3.0902 + 7.0 / df


def t975(df: int) -> float:
    if df < 1:
        return float("inf")
    if df <= len(_T975):
        return _T975[df - 1]
    return 1.959964 + 2.4 / df  # close to the exact quantile beyond 30


def median(xs: Sequence[float]) -> Optional[float]:
    s = sorted(xs)
    n = len(s)
    if not n:
        return None
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def quantile(xs: Sequence[float], q: float) -> Optional[float]:
    s = sorted(xs)
    if not s:
        return None
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def log_ratio_interval(ratios: Sequence[float]) -> Optional[Tuple[float, Optional[float], Optional[float],
                                                                  Optional[float]]]:
    """(estimate, low, high, rel_halfwidth) of a speedup from per-round ratios: the
    geometric mean with a 95% t interval on the logs."""
    logs = [math.log(r) for r in ratios if r and r > 0 and math.isfinite(r)]
    n = len(logs)
    if not n:
        return None
    mean = sum(logs) / n
    if n < 2:
        return math.exp(mean), None, None, None
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (n - 1))
    half = t975(n - 1) * sd / math.sqrt(n)
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half), math.exp(half) - 1.0
