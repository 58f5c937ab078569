"""LayerNorm over the last dim with weight and bias (a transformer block's norm). Widths include odd
ones (1000, 4097), the common 4096 and 8192, and a wide row (65536) that takes the looped path."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, hidden: int, eps: float):
        super().__init__()
        self.norm = nn.LayerNorm(hidden, eps=eps)
        with torch.no_grad():  # ones and zeros would let a kernel that ignores them pass
            self.norm.weight.copy_(1.0 + 0.5 * torch.randn(hidden))
            self.norm.bias.copy_(0.5 * torch.randn(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


tokens = 4096
hidden = 4096
eps = 1e-5


def get_inputs():
    # An offset mean: a kernel computing the variance as E[x^2] - mean^2 loses precision here.
    return [torch.randn(tokens, hidden) * 2.0 + 3.0]


def get_init_inputs():
    return [hidden, eps]


KZOO = {
    "op": "layer_norm",
    "shapes": [
        {"tokens": 4099, "hidden": 1000},
        {"tokens": 4096, "hidden": 4097},
        {"tokens": 8192, "hidden": 4096},
        {"tokens": 16384, "hidden": 8192},
        {"tokens": 256, "hidden": 65536},
    ],
    "cpu_shapes": [
        {"tokens": 5, "hidden": 1000},
        {"tokens": 70, "hidden": 8},
        {"tokens": 3, "hidden": 4097},
        {"tokens": 2, "hidden": 40000},
    ],
    "dtypes": ["float32", "bfloat16", "float16"],
    "bytes": lambda tokens, hidden, itemsize: (2 * tokens * hidden + 2 * hidden) * itemsize,
    "flops": lambda tokens, hidden: 7 * tokens * hidden,
}
