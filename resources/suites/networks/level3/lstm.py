import torch
import torch.nn as nn


class Model(nn.Module):
    """Two-layer LSTM over a sequence; returns the last layer's final hidden state through a linear head."""

    def __init__(self, input_size, hidden_size, num_layers, output_size):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, output_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _, (h, _) = self.lstm(x)
        return self.fc(h[-1])


batch_size = 10
sequence_length = 512
input_size = 128
hidden_size = 256
num_layers = 2
output_size = 10


def get_inputs():
    return [torch.randn(batch_size, sequence_length, input_size)]


def get_init_inputs():
    return [input_size, hidden_size, num_layers, output_size]
