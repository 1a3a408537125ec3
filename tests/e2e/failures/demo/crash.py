import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>

torch::Tensor scale_forward(torch::Tensor x) {
    auto y = torch::empty_like(x);
    volatile float* nowhere = nullptr;
    nowhere[x.numel()] = 1.0f;  // writes through a null pointer: the process dies with SIGSEGV
    return y;
}
"""

ext = load_inline(name="e2e_crash_scale", cpp_sources=[source], functions=["scale_forward"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.scale_forward(x)
