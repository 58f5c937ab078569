"""Embedding lookup then LayerNorm: the gather stays a library call; the norm is generated."""

import torch
import torch.nn as nn
import torch.nn.functional as F

class Model(nn.Module):
    def __init__(self, vocab: int, hidden: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.norm = nn.LayerNorm(hidden)
        with torch.no_grad():
            self.norm.weight.copy_(1.0 + 0.5 * torch.randn(hidden))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.norm(self.embed(ids))


vocab = 1000
hidden = 256
tokens = 512


def get_inputs():
    return [torch.randint(0, vocab, (tokens,))]


def get_init_inputs():
    return [vocab, hidden]


KZOO = {
    "op": "embedding_layer_norm",
    "shapes": [{'vocab': 32000, 'hidden': 4096, 'tokens': 8192}],
    "cpu_shapes": [{'vocab': 50, 'hidden': 40, 'tokens': 7}],
    "dtypes": ['float32', 'bfloat16', 'float16'],
}
