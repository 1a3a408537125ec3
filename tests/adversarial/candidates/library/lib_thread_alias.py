"""A thread the source scan cannot name: std::thread under a namespace alias, started and
detached so that it keeps running after forward returns. The built library imports
std::thread's start routine all the same."""
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

src = """
#include <torch/extension.h>
#include <thread>
#include <atomic>
namespace s = std;
static std::atomic<long> spins{0};
torch::Tensor fast(torch::Tensor x) {
  auto y = torch::empty_like(x);
  const float* a = x.data_ptr<float>();
  float* b = y.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); ++i) b[i] = a[i] > 0.f ? a[i] : 0.f;
  s::thread t([] { for (int i = 0; i < 1000; ++i) spins++; });
  t.detach();
  return y;
}
"""
ext = load_inline(name="kbadv_lib_thread_alias", cpp_sources=[src], functions=["fast"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.fast(x.contiguous())
