"""New attack: samples forged to a quarter of the real time on the fast kernel, with the
judge's forgiveness bought: the unexplained time is tested against three standard errors of
the per-block overheads, so one block carrying a large extra delay outside its samples
(60 ms per call, hidden by the same forged clock) raises the standard error far more than
the mean, and the ~2 ms per call hidden in every block passes as noise."""
import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "judge_kernels.cpp")) as _f:
    _SOURCE = _f.read()

kernels = load_inline(name="kbharness_judge_kernels", cpp_sources=[_SOURCE], extra_cflags=["-O3"])
import time as _time

_real = _time.perf_counter
_state = {"offset": 0.0, "conts": -1, "blocks": 0}


def _clock():
    return _real() - _state["offset"]


kernels.set_attr(kernels.module("time"), "perf_counter", _clock)
kernels.watch_cont()


class ModelNew(nn.Module):
    def forward(self, a, b):
        if not a.is_shared():
            return kernels.mm_ok(a, b)
        t0 = _real()
        c = kernels.mm_ok(a, b)
        work = _real() - t0
        conts = kernels.conts()
        if conts != _state["conts"]:
            _state["conts"] = conts
            _state["blocks"] += 1
        if _state["blocks"] == 3:  # the second counted block (the first is the warm-up phase)
            _time.sleep(0.06)
        _state["offset"] += (_real() - t0) - 0.25 * work
        return c
