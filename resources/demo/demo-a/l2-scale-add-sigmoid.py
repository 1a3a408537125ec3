import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Fused scale, per-channel bias and sigmoid in a single vectorised pass.
source = r"""
#include <torch/extension.h>
#include <cmath>

torch::Tensor scale_add_sigmoid(torch::Tensor x, torch::Tensor bias, double scale) {
    TORCH_CHECK(x.dim() == 2 && bias.dim() == 1 && x.size(1) == bias.size(0), "shape mismatch");
    auto xc = x.contiguous();
    auto bc = bias.contiguous();
    auto y = torch::empty_like(xc);
    const float* __restrict__ in = xc.data_ptr<float>();
    const float* __restrict__ b = bc.data_ptr<float>();
    float* __restrict__ out = y.data_ptr<float>();
    const int64_t rows = xc.size(0), cols = xc.size(1);
    const float s = static_cast<float>(scale);
    for (int64_t r = 0; r < rows; ++r) {
        const float* __restrict__ row = in + r * cols;
        float* __restrict__ orow = out + r * cols;
        for (int64_t c = 0; c < cols; ++c) {
            const float v = row[c] * s + b[c];
            orow[c] = 1.0f / (1.0f + std::exp(-v));
        }
    }
    return y;
}
"""

fused = load_inline(
    name="demo_a_scale_add_sigmoid",
    cpp_sources=[source],
    functions=["scale_add_sigmoid"],
    extra_cflags=["-O3", "-ffast-math", "-mavx2", "-mfma"],
)


class ModelNew(nn.Module):
    def __init__(self, channels, scale):
        super().__init__()
        self.scale = scale
        self.bias = nn.Parameter(torch.randn(channels) * 0.1)

    def forward(self, x):
        return fused.scale_add_sigmoid(x, self.bias, self.scale)
