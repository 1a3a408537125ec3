"""Opens a network connection (to fetch an answer or leak data)."""
import socket

import torch
import torch.nn as nn

try:
    socket.create_connection(("127.0.0.1", 47613), timeout=1).close()
except OSError:
    pass


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.empty_like(x)
