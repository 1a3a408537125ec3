"""An ATen op from C++ that the source scan cannot name: `using namespace at;` and an
unqualified call. The built library imports at::_ops::relu::call all the same."""
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

src = """
#include <torch/extension.h>
using namespace at;
Tensor fast(const Tensor& x) { return relu(x); }
"""
ext = load_inline(name="kbadv_lib_aten_unqualified", cpp_sources=[src], functions=["fast"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.fast(x)
