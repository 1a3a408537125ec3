import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# swish, scale and clamp fused: one read and one write per element.
source = r"""
#include <torch/extension.h>
#include <algorithm>
#include <cmath>

torch::Tensor swish_scale_clamp(torch::Tensor x, double scale, double lo, double hi) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float* __restrict__ in = xc.data_ptr<float>();
    float* __restrict__ out = y.data_ptr<float>();
    const float s = static_cast<float>(scale), l = static_cast<float>(lo), h = static_cast<float>(hi);
    const int64_t n = xc.numel();
    for (int64_t i = 0; i < n; ++i) {
        const float v = in[i];
        const float sw = v / (1.0f + std::exp(-v)) * s;
        out[i] = std::min(std::max(sw, l), h);
    }
    return y;
}
"""

fused = load_inline(
    name="demo_a_swish_scale_clamp",
    cpp_sources=[source],
    functions=["swish_scale_clamp"],
    extra_cflags=["-O3", "-ffast-math", "-mavx2", "-mfma"],
)


class ModelNew(nn.Module):
    def __init__(self, scale, lo, hi):
        super().__init__()
        self.scale = scale
        self.lo = lo
        self.hi = hi

    def forward(self, x):
        return fused.swish_scale_clamp(x, self.scale, self.lo, self.hi)
