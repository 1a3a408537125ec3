"""Honest control for the candidates built on adv_kernels.cpp: the plain C++ ReLU (relu_ok),
with nothing else done. An attack on the measurement is judged against this kernel's speed."""
import os

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


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return kernels.relu_ok(x)
