"""Class 5: forward returns at once with an empty tensor; the product is computed only
when the worker copies the output into the judge's slot (a global torch-function mode
intercepts that copy), i.e. after the timed sample ended."""
import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "judge_kernels.cpp")) as _f:
    _SOURCE = _f.read()

kernels = load_inline(name="kbharness_judge_kernels", cpp_sources=[_SOURCE], extra_cflags=["-O3"])

_pending = {}


def _later(mode, func, types, args=(), kwargs=None):
    kwargs = kwargs or {}
    if func is torch.Tensor.copy_ and len(args) >= 2 and id(args[1]) in _pending:
        a, b = _pending.pop(id(args[1]))
        return args[0].copy_(kernels.mm_ok(a, b))
    return func(*args, **kwargs)


_Mode = type("_Mode", (torch.overrides.TorchFunctionMode,), {"__torch_function__": _later})
_Mode().__enter__()


class ModelNew(nn.Module):
    def forward(self, a, b):
        if not a.is_shared():
            return kernels.mm_ok(a, b)
        out = torch.empty(a.shape[0], b.shape[1])
        _pending[id(out)] = (a, b)
        return out
