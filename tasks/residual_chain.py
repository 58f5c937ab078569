"""A residual chain: hardtanh(leaky_relu(x, 0.1) + residual, -2, 2).

The pointwise template's render context for this task:
    op     = "residual_chain"
    expr   = ["hardtanh", ["add", ["leaky_relu", ["input", 0], 0.1], ["input", 1]], -2.0, 2.0]
    inputs = [{"kind": "full", "source": "arg", "index": 0},
              {"kind": "full", "source": "arg", "index": 1}]
    params = []
Shapes: a large one (8192 x 8192, 134 MB per bf16 tensor), odd sizes on both dims, a long odd row.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return F.hardtanh(F.leaky_relu(x, 0.1) + residual, -2.0, 2.0)


rows = 8192
cols = 8192


def get_inputs():
    # Spread so that both slopes of leaky_relu and both clamp bounds are hit.
    return [torch.randn(rows, cols) * 2.0, torch.randn(rows, cols)]


def get_init_inputs():
    return []


KZOO = {
    "op": "residual_chain",
    "shapes": [
        {"rows": 8192, "cols": 8192},
        {"rows": 4097, "cols": 4099},
        {"rows": 3, "cols": 1000003},
        {"rows": 256, "cols": 4096},
    ],
    "cpu_shapes": [
        {"rows": 33, "cols": 1000},
        {"rows": 3, "cols": 37},
        {"rows": 1, "cols": 4099},
    ],
    "dtypes": ["float32", "bfloat16", "float16"],
    "bytes": lambda rows, cols, itemsize: 3 * rows * cols * itemsize,
    # leaky_relu: compare, product, select; add; two compares and selects
    "flops": lambda rows, cols: 6 * rows * cols,
}
