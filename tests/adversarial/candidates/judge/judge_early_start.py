"""Running while the judge prepares the next call: the honest kernel, plus a native
thread that watches the judge's input slots (mapped by name from the worker's folder)
between calls. Each time it finds the first input rewritten while the last one still
holds the previous call's values, the judge was half-way through writing the next call's
inputs while the candidate ran: work could start on them before the call (and its sample)
begins. forward logs how often that was seen: "adv-early polls=<n> torn=<m>"."""
import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "judge_kernels.cpp")) as _f:
    _SOURCE = _f.read()

kernels = load_inline(name="kbharness_judge_kernels", cpp_sources=[_SOURCE], extra_cflags=["-O3"])
_slots = {}
_calls = [0]


class ModelNew(nn.Module):
    def forward(self, a, b):
        out = kernels.mm_ok(a, b)
        if a.is_shared() and os.path.exists("candidate-in-1"):
            if not _slots:
                _slots["a"] = torch.from_file("candidate-in-0", shared=True, size=a.numel())
                _slots["b"] = torch.from_file("candidate-in-1", shared=True, size=b.numel())
            kernels.watch_inputs(_slots["a"], _slots["b"])
            _calls[0] += 1
            if _calls[0] % 10 == 0:
                polls, torn = kernels.watched()
                print("adv-early polls=%d torn=%d" % (polls, torn), flush=True)
        return out
