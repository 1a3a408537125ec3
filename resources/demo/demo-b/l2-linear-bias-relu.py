import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

relu_source = r"""
#include <torch/extension.h>

torch::Tensor relu_inplace(torch::Tensor y) {
    float* p = y.data_ptr<float>();
    for (int64_t i = 0; i < y.numel(); ++i) if (p[i] < 0.0f) p[i] = 0.0f;
    return y;
}
"""

relu = load_inline(name="demo_b_linear_relu", cpp_sources=[relu_source], functions=["relu_inplace"])


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        # the GEMM is PyTorch's, only the ReLU is custom
        y = F.linear(x, self.linear.weight, self.linear.bias)
        return relu.relu_inplace(y)
