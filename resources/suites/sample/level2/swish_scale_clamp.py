import torch
import torch.nn as nn


class Model(nn.Module):
    """Swish (x * sigmoid(x)), scaled, then clamped to [lo, hi]."""

    def __init__(self, scale: float, lo: float, hi: float):
        super().__init__()
        self.scale = scale
        self.lo = lo
        self.hi = hi

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * torch.sigmoid(x)
        x = x * self.scale
        return torch.clamp(x, min=self.lo, max=self.hi)


batch_size = 64
dim = 4096
scale = 2.0
lo = -0.5
hi = 3.0


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [scale, lo, hi]
