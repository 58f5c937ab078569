"""SwiGLU gate: silu(a) * b, the activation of an LLM MLP (Llama 3 8B: tokens x 14336).

The pointwise template's render context for this task:
    op     = "swiglu"
    expr   = ["mul", ["silu", ["input", 0]], ["input", 1]]
    inputs = [{"kind": "full", "source": "arg", "index": 0},
              {"kind": "full", "source": "arg", "index": 1}]
    params = []
Shapes: a large MLP activation (8192 x 14336, 235 MB per bf16 tensor, several times the 50 MB L2),
a mid-size one, odd sizes on both dims, and a few decode tokens.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return F.silu(a) * b


rows = 8192
cols = 14336


def get_inputs():
    # Gate pre-activations spread over silu's curved range and its tails.
    return [torch.randn(rows, cols) * 3.0, torch.randn(rows, cols)]


def get_init_inputs():
    return []


KZOO = {
    "op": "swiglu",
    "shapes": [
        {"rows": 8192, "cols": 14336},
        {"rows": 4096, "cols": 11008},
        {"rows": 4097, "cols": 4099},
        {"rows": 16, "cols": 14336},
    ],
    # Interpreter: several full tiles plus a partial one, an odd width, a single row.
    "cpu_shapes": [
        {"rows": 33, "cols": 1000},
        {"rows": 3, "cols": 37},
        {"rows": 1, "cols": 4099},
    ],
    "dtypes": ["float32", "bfloat16", "float16"],
    "bytes": lambda rows, cols, itemsize: 3 * rows * cols * itemsize,
    # silu: negate, exp, add, divide; then the product
    "flops": lambda rows, cols: 5 * rows * cols,
}
