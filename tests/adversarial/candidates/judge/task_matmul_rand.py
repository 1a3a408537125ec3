"""A float32 matrix product on all-positive inputs with a long inner dimension: rounding
errors average out, so arithmetic below float32 stays inside atol = rtol = 1e-4."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.rand(128, 2048), torch.rand(2048, 128)]


def get_init_inputs():
    return []
