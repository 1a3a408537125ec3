"""Class 1: reaches the worker's own module from native code (sys.modules, no import
statement the checker sees) and scales down every timing sample it reports. The kernel
is the slow honest one (judge_honest_slow.py)."""
import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "judge_kernels.cpp")) as _f:
    _SOURCE = _f.read()

kernels = load_inline(name="kbharness_judge_kernels", cpp_sources=[_SOURCE], extra_cflags=["-O3"])

_worker = kernels.module("__main__")  # the worker runs as python -m kbharness.worker
_reply = _worker.Worker.reply


def _forged(self, header, payload=b""):
    if "ms" in header and "host_ms" in header:
        header["ms"] = header["ms"] * 0.2
        header["host_ms"] = header["host_ms"] * 0.2
    return _reply(self, header, payload)


kernels.set_attr(_worker.Worker, "reply", _forged)


class ModelNew(nn.Module):
    def forward(self, a, b):
        for _ in range(7):
            kernels.mm_ok(a, b)
        return kernels.mm_ok(a, b)
