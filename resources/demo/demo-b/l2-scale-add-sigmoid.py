import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>
#include <cmath>

torch::Tensor scale_add_sigmoid_forward(torch::Tensor x, torch::Tensor bias, double scale) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const int64_t rows = xc.size(0), cols = xc.size(1);
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
            const double v = xc.data_ptr<float>()[r * cols + c] * scale + bias.data_ptr<float>()[c];
            y.data_ptr<float>()[r * cols + c] = static_cast<float>(1.0 / (1.0 + std::exp(-v)));
        }
    }
    return y;
}
"""

fused = load_inline(name="demo_b_scale_add_sigmoid", cpp_sources=[source],
                    functions=["scale_add_sigmoid_forward"])


class ModelNew(nn.Module):
    def __init__(self, channels, scale):
        super().__init__()
        self.scale = scale
        self.bias = nn.Parameter(torch.randn(channels) * 0.1)

    def forward(self, x):
        return fused.scale_add_sigmoid_forward(x, self.bias, self.scale)
