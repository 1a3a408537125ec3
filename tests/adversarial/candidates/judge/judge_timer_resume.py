"""Helpers that resume themselves: two helper processes arm a periodic POSIX timer whose
signal is SIGCONT, so the judge's SIGSTOP holds them for one timer period at most. They sleep
while the worker runs and burn the budget processor (and stream through memory) while it is
stopped, i.e. while the reference is timed, to slow the reference down. The candidate's own
work is the honest naive product."""
import os

import torch.nn as nn
from torch.utils.cpp_extension import load_inline

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "judge_timer_kernels.cpp")) as _f:
    _SOURCE = _f.read()

kernels = load_inline(name="kbharness_judge_timer_kernels", cpp_sources=[_SOURCE], extra_cflags=["-O3"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        print("adv-timer helpers", kernels.start_helpers(2, 5000), flush=True)

    def forward(self, a, b):
        return kernels.mm(a, b)
