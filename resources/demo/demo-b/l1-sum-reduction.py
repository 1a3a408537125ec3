import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

sum_source = r"""
#include <torch/extension.h>

torch::Tensor sum_forward(torch::Tensor x, int64_t dim) {
    auto xc = x.contiguous();
    const int64_t b = xc.size(0), n = xc.size(1), d = xc.size(2);
    auto y = torch::zeros({b, 1, d}, xc.options());
    float* in = xc.data_ptr<double>();
    float* out = y.data_ptr<float>();
    for (int64_t i = 0; i < b; ++i)
        for (int64_t k = 0; k < n; ++k)
            for (int64_t j = 0; j < d; ++j)
                out[i * d + j] += in[(i * n + k) * d + j];
    return y;
}
"""

reduce = load_inline(name="demo_b_sum_reduction", cpp_sources=[sum_source], functions=["sum_forward"])


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return reduce.sum_forward(x, self.dim)
