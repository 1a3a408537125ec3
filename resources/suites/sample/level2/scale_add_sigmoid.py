import torch
import torch.nn as nn


class Model(nn.Module):
    """y = sigmoid(x * scale + bias) with a per-channel bias."""

    def __init__(self, channels: int, scale: float):
        super().__init__()
        self.scale = scale
        self.bias = nn.Parameter(torch.randn(channels) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * self.scale
        x = x + self.bias
        return torch.sigmoid(x)


batch_size = 64
channels = 4096
scale = 1.5


def get_inputs():
    return [torch.randn(batch_size, channels)]


def get_init_inputs():
    return [channels, scale]
