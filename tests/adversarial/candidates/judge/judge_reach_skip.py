"""Class 1: replaces the worker's call handler: after two honest calls it runs nothing,
stores no output and reports a tiny sample (the old harness skipped the re-verification
of a missing output)."""
import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "judge_kernels.cpp")) as _f:
    _SOURCE = _f.read()

kernels = load_inline(name="kbharness_judge_kernels", cpp_sources=[_SOURCE], extra_cflags=["-O3"])

_worker = kernels.module("__main__")  # the worker runs as python -m kbharness.worker
_call = _worker.Worker.cmd_call
_seen = [0]


def _skip(self, header, payload):
    _seen[0] += 1
    if _seen[0] <= 2:
        return _call(self, header, payload)
    self.reply({"ok": True, "ms": 0.01, "host_ms": 0.01, "scalars": []})


kernels.set_attr(_worker.Worker, "cmd_call", _skip)


class ModelNew(nn.Module):
    def forward(self, a, b):
        return kernels.mm_ok(a, b)
