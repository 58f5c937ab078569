"""Two activations of two tensors mixed by a learned scalar: mish(x) + alpha * softplus(y, 2, 10).

The pointwise template's render context for this task:
    op     = "mish_softplus"
    expr   = ["add", ["mish", ["input", 0]],
                     ["mul", ["input", 1], ["softplus", ["input", 2], 2.0, 10.0]]]
    inputs = [{"kind": "full", "source": "arg", "index": 0},
              {"kind": "scalar", "source": "param", "path": "alpha"},
              {"kind": "full", "source": "arg", "index": 1}]
    params = [{"path": "alpha"}]
alpha is a 0-d Model parameter ("scalar" input, read by the kernel from memory: no host sync).
Inputs reach far enough that softplus's threshold and mish's overflow guard are both taken.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.alpha = nn.Parameter(torch.tensor(0.75))

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.mish(x) + self.alpha * F.softplus(y, beta=2.0, threshold=10.0)


rows = 8192
cols = 8192


def get_inputs():
    return [torch.randn(rows, cols) * 8.0, torch.randn(rows, cols) * 4.0]


def get_init_inputs():
    return []


KZOO = {
    "op": "mish_softplus",
    "shapes": [
        {"rows": 8192, "cols": 8192},
        {"rows": 4097, "cols": 4099},
        {"rows": 256, "cols": 4096},
    ],
    "cpu_shapes": [
        {"rows": 33, "cols": 1000},
        {"rows": 3, "cols": 37},
    ],
    "dtypes": ["float32", "bfloat16", "float16"],
    "bytes": lambda rows, cols, itemsize: (3 * rows * cols + 1) * itemsize,
    # mish: exp, product, add, divide, product, compare; softplus: exp, log, ~6 more; mix: 2
    "flops": lambda rows, cols: 20 * rows * cols,
}
