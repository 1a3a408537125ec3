"""Class 4: half of the rows computed by a helper made with clone(CLONE_VM) without
CLONE_THREAD: it shares the worker's memory but is not one of its threads, so it never
appears in /proc/<worker>/task. It lives for the whole evaluation and leaves the CPU the
worker is pinned to."""
import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "judge_kernels.cpp")) as _f:
    _SOURCE = _f.read()

kernels = load_inline(name="kbharness_judge_kernels", cpp_sources=[_SOURCE], extra_cflags=["-O3"])


class ModelNew(nn.Module):
    def forward(self, a, b):
        return kernels.mm_helper(a, b, True)
