"""New attack: exact in the correctness trials (and so in the precision probe), bf16-like
arithmetic (inputs rounded to 7-bit mantissas) in every timed call. Its timed outputs are
up to ~2.6x outside the element-wise tolerance, but the sketch test bounds only the error's
2-norm, at 8 times the tolerance's 2-norm, so they all pass."""
import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "judge_kernels.cpp")) as _f:
    _SOURCE = _f.read()

kernels = load_inline(name="kbharness_judge_kernels", cpp_sources=[_SOURCE], extra_cflags=["-O3"])


def _bf16(x):
    # round to a 7-bit mantissa, as a bf16 tensor core would read the value
    return ((x.contiguous().view(torch.int32) + 0x8000) & -65536).view(torch.float32)


class ModelNew(nn.Module):
    def forward(self, a, b):
        if not a.is_shared():
            return kernels.mm_ok(a, b)
        return kernels.mm_ok(_bf16(a), _bf16(b))
