"""A matrix product whose output has 2^21 elements (two of the judge's 2^20-element
sketch chunks)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(2048, 32), torch.randn(32, 1024)]


def get_init_inputs():
    return []
