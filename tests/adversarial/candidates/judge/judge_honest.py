"""Honest control: a naive float32 matrix product in C++."""
import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "judge_kernels.cpp")) as _f:
    _SOURCE = _f.read()

kernels = load_inline(name="kbharness_judge_kernels", cpp_sources=[_SOURCE], extra_cflags=["-O3"])


class ModelNew(nn.Module):
    def forward(self, a, b):
        return kernels.mm_ok(a, b)
