"""Class 7: a float32 task computed on inputs rounded to a 10-bit mantissa (what TF32
tensor cores do), float32 sums. On all-positive inputs with a long inner dimension the
error stays inside atol = rtol = 1e-4."""
import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "judge_kernels.cpp")) as _f:
    _SOURCE = _f.read()

kernels = load_inline(name="kbharness_judge_kernels", cpp_sources=[_SOURCE], extra_cflags=["-O3"])


class ModelNew(nn.Module):
    def forward(self, a, b):
        return kernels.mm_tf32(a, b)
