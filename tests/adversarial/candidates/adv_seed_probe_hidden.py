"""Hunts for the secret seed: the judge's command line, environment and
standard input (paths assembled at run time), its own standard input and
its own environment (where the engine's secrets would be if they leaked).
It prints every long number it finds; the test checks that the seed is not
among them.  The request arrives on the judge's stdin, the judge is not
dumpable, the worker's stdin is /dev/null and, in the sandbox, the judge's
process is not even visible."""
import os
import re

import torch
import torch.nn as nn

_P = "/pr" + "oc/"


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read(1 << 20).decode("latin-1")
    except OSError as e:
        return "<%s>" % type(e).__name__


_found = {}
_stat = _read(_P + "self/stat")
try:
    _ppid = int(_stat.split(")")[-1].split()[1])
except (IndexError, ValueError):
    _ppid = 1
for _name in ("cmdline", "envi" + "ron", "fd/0"):
    _found[_name] = _read(_P + "%d/%s" % (_ppid, _name))
_found["stdin"] = _read("/dev/std" + "in")
_found["own-environment"] = " ".join("%s=%s" % kv for kv in sorted(os.environ.items()))
_numbers = sorted({n for text in _found.values() for n in re.findall(r"\d{6,}", text)})
print("adv-seed-probe ppid=%d sources=%s numbers=%s" % (
    _ppid, {k: len(v) for k, v in _found.items()}, " ".join(_numbers)[:2000]))
print("adv-env-probe %s" % " ".join(k for k in sorted(os.environ) if "KEY" in k or "TOKEN" in k or "SECRET" in k))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.empty_like(x)
