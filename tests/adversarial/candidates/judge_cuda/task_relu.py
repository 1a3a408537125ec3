import torch
import torch.nn as nn


class Model(nn.Module):
    """ReLU over a 256 MB tensor."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs():
    return [torch.randn(4096, 16384)]


def get_init_inputs():
    return []
