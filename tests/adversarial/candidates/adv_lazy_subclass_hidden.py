"""A tensor subclass made with type() and attached through a computed getattr
(both only suspicious statically); the output encoding accepts exact
torch.Tensor objects only."""
import torch
import torch.nn as nn

LazyRelu = type("LazyRelu", (torch.Tensor,), {})


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)
        return getattr(out, "as_" + "subclass")(LazyRelu)
