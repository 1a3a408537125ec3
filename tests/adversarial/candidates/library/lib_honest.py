"""The honest control of the library check: a plain C++ ReLU with the usual torch calls
(empty_like, contiguous, data_ptr, numel) and a parallel_for. No finding."""
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

src = """
#include <torch/extension.h>
#include <ATen/Parallel.h>
torch::Tensor fast(torch::Tensor x) {
  TORCH_CHECK(x.dtype() == torch::kFloat32, "float32 only");
  auto xc = x.contiguous();
  auto y = torch::empty_like(xc);
  const float* a = xc.data_ptr<float>();
  float* b = y.data_ptr<float>();
  at::parallel_for(0, xc.numel(), 4096, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) b[i] = a[i] > 0.f ? a[i] : 0.f;
  });
  return y.view(x.sizes());
}
"""
ext = load_inline(name="kbadv_lib_honest", cpp_sources=[src], functions=["fast"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.fast(x)
