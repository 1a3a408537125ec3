import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>

torch::Tensor scale_forward(torch::Tensor x) {
    auto y = torch::empty_like(x);
    volatile int spin = 0;
    while (spin == 0) {
    }  // never returns
    return y;
}
"""

ext = load_inline(name="e2e_loop_scale", cpp_sources=[source], functions=["scale_forward"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.scale_forward(x)
