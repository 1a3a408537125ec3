"""Class 3: honest in the correctness trials and in the first two timed calls, then
garbage for nine timed calls in ten (only one of them computed)."""
import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "judge_kernels.cpp")) as _f:
    _SOURCE = _f.read()

kernels = load_inline(name="kbharness_judge_kernels", cpp_sources=[_SOURCE], extra_cflags=["-O3"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.timed = 0

    def forward(self, a, b):
        if not a.is_shared():
            return kernels.mm_ok(a, b)
        self.timed += 1
        if self.timed <= 2 or self.timed % 10 == 0:
            return kernels.mm_ok(a, b)
        return torch.zeros(a.shape[0], b.shape[1])
