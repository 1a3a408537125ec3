"""Replaces the clock and the device synchronisation through vars(), which the
static check only marks suspicious.  The harness captured both before the
candidate was imported, so the samples stay real."""
import os
import time

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "adv_kernels.cpp")) as _f:
    _SOURCE = _f.read()

kernels = load_inline(
    name="kbharness_adversarial_kernels",
    cpp_sources=[_SOURCE],
    functions=["relu_ok", "relu_mutate", "relu_ptr_cache", "relu_hash_cache", "relu_native_thread",
               "relu_write_outside", "relu_network", "crash"],
    extra_cflags=["-O2"],
)

vars(time)["perf_counter"] = lambda: 0.0
vars(torch.cuda)["synchronize"] = lambda *args, **kwargs: None


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return kernels.relu_ok(x)
