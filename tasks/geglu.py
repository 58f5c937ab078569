"""GeGLU gate: gelu(a) * b with the exact (erf) GELU, the activation of GeGLU MLPs.

The pointwise template's render context for this task:
    op     = "geglu"
    expr   = ["mul", ["gelu", ["input", 0], "none"], ["input", 1]]
    inputs = [{"kind": "full", "source": "arg", "index": 0},
              {"kind": "full", "source": "arg", "index": 1}]
    params = []
Shapes: a large MLP activation (8192 x 16384, 268 MB per bf16 tensor), a mid-size one, odd sizes,
and a few decode tokens.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return F.gelu(a) * b


rows = 8192
cols = 16384


def get_inputs():
    return [torch.randn(rows, cols) * 3.0, torch.randn(rows, cols)]


def get_init_inputs():
    return []


KZOO = {
    "op": "geglu",
    "shapes": [
        {"rows": 8192, "cols": 16384},
        {"rows": 4096, "cols": 10240},
        {"rows": 4099, "cols": 3001},
        {"rows": 16, "cols": 16384},
    ],
    "cpu_shapes": [
        {"rows": 33, "cols": 1000},
        {"rows": 3, "cols": 37},
        {"rows": 1, "cols": 4099},
    ],
    "dtypes": ["float32", "bfloat16", "float16"],
    "bytes": lambda rows, cols, itemsize: 3 * rows * cols * itemsize,
    # gelu: scale, erf (counted as ~10), add, two products; then the product
    "flops": lambda rows, cols: 15 * rows * cols,
}
