"""GeGLU, gelu(a) * b (erf gelu): a minimal copy of the pointwise family's task for the CUDA C++ tests
(tasks/geglu.py belongs to the pointwise family's branch). Odd widths and a large shape."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(a) * b


batch_size = 4096
dim = 4097


def get_inputs():
    return [torch.randn(batch_size, dim) * 3.0, torch.randn(batch_size, dim)]


def get_init_inputs():
    return []


KZOO = {
    "op": "geglu",
    "shapes": [
        {"batch_size": 4099, "dim": 1000},
        {"batch_size": 4096, "dim": 4097},
        {"batch_size": 8192, "dim": 14336},
    ],
    "cpu_shapes": [{"batch_size": 3, "dim": 1000}, {"batch_size": 2, "dim": 4097}],
    "dtypes": ["float32", "bfloat16", "float16"],
    "bytes": lambda batch_size, dim, itemsize: 3 * batch_size * dim * itemsize,
    "flops": lambda batch_size, dim: 10 * batch_size * dim,
}
