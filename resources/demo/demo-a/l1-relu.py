import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_source = r"""
#include <torch/extension.h>

torch::Tensor relu_forward(torch::Tensor x) {
    TORCH_CHECK(x.scalar_type() == torch::kFloat, "relu_forward expects float32");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float* in = xc.data_ptr<float>();
    float* out = y.data_ptr<float>();
    for (int64_t i = 0; i < xc.numel(); ++i) {
        if (in[i] > 0.0f) {
            out[i] = in[i];
        } else {
            out[i] = 0.0f;
        }
    }
    return y;
}
"""

relu = load_inline(name="demo_a_relu", cpp_sources=[relu_source], functions=["relu_forward"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return relu.relu_forward(x)
