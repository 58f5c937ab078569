"""Bias add, tanh-approximate GELU and a scale: the epilogue of a GPT-style MLP's first matmul.

The pointwise template's render context for this task:
    op     = "bias_gelu_scale"
    expr   = ["mul", ["gelu", ["add", ["input", 0], ["input", 1]], "tanh"], ["const", 0.5]]
    inputs = [{"kind": "full", "source": "arg", "index": 0},
              {"kind": "row", "source": "param", "path": "bias"}]
    params = [{"path": "bias"}]
The bias is a Model parameter broadcast along the last dim ("row" input). Shapes: a large one
(16384 x 4096, 134 MB per bf16 tensor), an LLM-width one, odd rows, and an odd width whose rows
break 16-byte alignment (the flat layout).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(hidden) * 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x + self.bias, approximate="tanh") * 0.5


rows = 16384
cols = 4096


def get_inputs():
    return [torch.randn(rows, cols) * 3.0]


def get_init_inputs():
    return [cols]


KZOO = {
    "op": "bias_gelu_scale",
    "shapes": [
        {"rows": 16384, "cols": 4096},
        {"rows": 4096, "cols": 14336},
        {"rows": 4099, "cols": 3072},
        {"rows": 2048, "cols": 5121},
    ],
    "cpu_shapes": [
        {"rows": 33, "cols": 1000},
        {"rows": 3, "cols": 37},
        {"rows": 5, "cols": 2050},
    ],
    "dtypes": ["float32", "bfloat16", "float16"],
    "bytes": lambda rows, cols, itemsize: (2 * rows * cols + cols) * itemsize,
    # add; gelu-tanh: cube, fma, scale, exp, add, divide (~8); scale
    "flops": lambda rows, cols: 10 * rows * cols,
}
