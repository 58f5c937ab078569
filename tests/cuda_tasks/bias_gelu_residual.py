"""A chain with a broadcast parameter and a residual: gelu_tanh(x + bias) * 0.5 + residual, for the
CUDA C++ pointwise template's row-input path. Odd width so packs cross rows."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(dim))

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x + self.bias, approximate="tanh") * 0.5 + residual


batch_size = 1000
dim = 1001


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(batch_size, dim)]


def get_init_inputs():
    return [dim]


KZOO = {
    "op": "bias_gelu_residual",
    "shapes": [{"batch_size": 1000, "dim": 1001}, {"batch_size": 4099, "dim": 1001}],
    "cpu_shapes": [{"batch_size": 3, "dim": 1001}],
    "dtypes": ["float32", "bfloat16", "float16"],
    "bytes": lambda batch_size, dim, itemsize: 3 * batch_size * dim * itemsize,
}
