"""A deliberately weak task: softmax over a very wide row makes every output
smaller than the default 1e-4 tolerance, so an all-zeros answer passes the
plain check.  The harness compares strictly on such tasks."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=1)


def get_inputs():
    return [torch.rand(2, 131072)]


def get_init_inputs():
    return []
