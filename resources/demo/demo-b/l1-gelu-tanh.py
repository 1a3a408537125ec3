import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

gelu_source = r"""
#include <torch/extension.h>
#include <cmath>

torch::Tensor gelu_forward(torch::Tensor x) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float* in = xc.data_ptr<float>();
    float* out = y.data_ptr<float>();
    const float k0 = 0.7978845608f;
    for (int64_t i = 0; i < xc.numel(); ++i) {
        const float v = in[i];
        const float inner = k0 * (v + 0.044715f * v * v * v);
        out[i] = v * (1.0f + std::tanh(inner));   // the factor 0.5 is missing
    }
    return y;
}
"""

gelu = load_inline(name="demo_b_gelu_tanh", cpp_sources=[gelu_source], functions=["gelu_forward"],
                   extra_cflags=["-O2"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return gelu.gelu_forward(x)
