"""Seed derivation.

The request seed is a per-run secret.  Everything that leaves the trusted
process (the worker's init seed, the seeds recorded in the result) is derived
from it through SHA-256, so the raw seed can't be recovered from them.
"""

import hashlib

_MASK = (1 << 63) - 1


def derive(seed, label):
    """Return a 63-bit seed derived from ``seed`` and a purpose ``label``."""
    digest = hashlib.sha256(("kbharness:%d:%s" % (int(seed), label)).encode("utf-8")).digest()
    value = int.from_bytes(digest[:8], "big") & _MASK
    if value == int(seed) & _MASK:  # astronomically unlikely; never echo the secret
        value ^= 1
    return value


def init_seed(seed):
    return derive(seed, "init")


def trial_seed(seed, index):
    return derive(seed, "trial-%d" % index)


def timing_seed(seed, index):
    return derive(seed, "timing-%d" % index)
