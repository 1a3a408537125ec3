import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

linear_source = r"""
#include <torch/extension.h>

// y = relu(x @ w^T + b), one output element at a time.
torch::Tensor linear_bias_relu(torch::Tensor x, torch::Tensor w, torch::Tensor b) {
    TORCH_CHECK(x.dim() == 2 && w.dim() == 2 && b.dim() == 1, "bad ranks");
    TORCH_CHECK(x.size(1) == w.size(1) && w.size(0) == b.size(0), "shape mismatch");
    auto xc = x.contiguous(), wc = w.contiguous(), bc = b.contiguous();
    const int64_t n = xc.size(0), k = xc.size(1), m = wc.size(0);
    auto y = torch::empty({n, m}, xc.options());
    const float* xp = xc.data_ptr<float>();
    const float* wp = wc.data_ptr<float>();
    const float* bp = bc.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < m; ++j) {
            float acc = bp[j];
            for (int64_t t = 0; t < k; ++t) acc += xp[i * k + t] * wp[j * k + t];
            yp[i * m + j] = acc > 0.0f ? acc : 0.0f;
        }
    }
    return y;
}
"""

fused = load_inline(name="demo_a_linear_bias_relu", cpp_sources=[linear_source], functions=["linear_bias_relu"])


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        # same parameters (and initialisation) as the reference's nn.Linear
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return fused.linear_bias_relu(x, self.linear.weight, self.linear.bias)
