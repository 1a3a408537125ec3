"""A system call no import shows: inline assembly (the instruction sits in a string
literal, which the source scan blanks). Here it only asks for the process id; the same
instruction could clone, signal or map memory. The built library's machine code holds it."""
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

src = """
#include <torch/extension.h>
static long raw(long n) {
  long ret;
  asm volatile("sysc" "all" : "=a"(ret) : "a"(n) : "rcx", "r11", "memory");
  return ret;
}
torch::Tensor fast(torch::Tensor x) {
  auto y = torch::empty_like(x);
  const float* a = x.data_ptr<float>();
  float* b = y.data_ptr<float>();
  long pid = raw(39);
  for (int64_t i = 0; i < x.numel(); ++i) b[i] = (a[i] > 0.f ? a[i] : 0.f) + (pid < 0 ? 1.f : 0.f);
  return y;
}
"""
ext = load_inline(name="kbadv_lib_raw_syscall", cpp_sources=[src], functions=["fast"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.fast(x.contiguous())
