"""A projection followed by LayerNorm: a GEMM (with its bias in the epilogue), then a row norm."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, d_in: int, d_out: int):
        super().__init__()
        self.proj = nn.Linear(d_in, d_out)
        self.norm = nn.LayerNorm(d_out)
        with torch.no_grad():
            self.proj.bias.copy_(torch.randn(d_out) * 0.5)
            self.norm.weight.copy_(1.0 + 0.5 * torch.randn(d_out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(self.proj(x))


tokens = 256
d_in = 512
d_out = 1024


def get_inputs():
    return [torch.randn(tokens, d_in)]


def get_init_inputs():
    return [d_in, d_out]


KZOO = {
    "op": "linear_layer_norm",
    "shapes": [{"tokens": 8192, "d_in": 4096, "d_out": 4096},
               {"tokens": 1000, "d_in": 1024, "d_out": 3000}],
    "cpu_shapes": [{"tokens": 7, "d_in": 24, "d_out": 40}],
    "dtypes": ["bfloat16", "float16", "float32"],
    "flops": lambda tokens, d_in, d_out: 2 * tokens * d_in * d_out,
}
