"""New attack: like the persistent clone(CLONE_VM) helper, but a fresh helper per call
that exits before the call returns, with SIGCHLD ignored so the kernel reaps it at once:
its CPU time is added to no process the judge reads."""
import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "judge_kernels.cpp")) as _f:
    _SOURCE = _f.read()

kernels = load_inline(name="kbharness_judge_kernels", cpp_sources=[_SOURCE], extra_cflags=["-O3"])

kernels.forget_children()


class ModelNew(nn.Module):
    def forward(self, a, b):
        return kernels.mm_helper(a, b, False)
