import torch
import torch.nn as nn


class Model(nn.Module):
    """Two ViT-Base encoder layers (nn.TransformerEncoderLayer, pre-norm, GELU) over patch tokens."""

    def __init__(self, d_model, nhead, ff, layers):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=ff, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.norm(self.encoder(tokens))


batch_size = 8
tokens = 197
d_model = 768
nhead = 12
ff = 3072
layers = 2


def get_inputs():
    return [torch.randn(batch_size, tokens, d_model)]


def get_init_inputs():
    return [d_model, nhead, ff, layers]
