import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """A GPT-2 style block: pre-norm causal self-attention and a GELU MLP, written out in torch ops."""

    def __init__(self, d_model, nhead, max_len):
        super().__init__()
        self.nhead = nhead
        self.ln1 = nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.fc1 = nn.Linear(d_model, 4 * d_model)
        self.fc2 = nn.Linear(4 * d_model, d_model)
        self.register_buffer("mask", torch.tril(torch.ones(max_len, max_len)).view(1, 1, max_len, max_len))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q = q.view(b, t, self.nhead, c // self.nhead).transpose(1, 2)
        k = k.view(b, t, self.nhead, c // self.nhead).transpose(1, 2)
        v = v.view(b, t, self.nhead, c // self.nhead).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
        att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
        y = (F.softmax(att, dim=-1) @ v).transpose(1, 2).contiguous().view(b, t, c)
        x = x + self.proj(y)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))


batch_size = 8
seq_len = 512
d_model = 768
nhead = 12


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, nhead, seq_len]
