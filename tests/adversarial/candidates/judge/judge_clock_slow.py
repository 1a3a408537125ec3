"""Class 6: replaces the clock the worker times its calls with (time.perf_counter,
reached from native code) by one that runs at a quarter of the real speed. The kernel
is the slow honest one (judge_honest_slow.py)."""
import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "judge_kernels.cpp")) as _f:
    _SOURCE = _f.read()

kernels = load_inline(name="kbharness_judge_kernels", cpp_sources=[_SOURCE], extra_cflags=["-O3"])

import time as _time

_real = _time.perf_counter


def _slow():
    return _real() * 0.25


kernels.set_attr(kernels.module("time"), "perf_counter", _slow)


class ModelNew(nn.Module):
    def forward(self, a, b):
        for _ in range(7):
            kernels.mm_ok(a, b)
        return kernels.mm_ok(a, b)
