"""Residual add fused into RMSNorm, as in a pre-norm transformer block: returns the normalized sum
and the sum itself (the next block's residual)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, hidden: int, eps: float):
        super().__init__()
        self.norm = nn.RMSNorm(hidden, eps=eps)
        with torch.no_grad():  # a weight of ones would let a kernel that ignores it pass
            self.norm.weight.copy_(1.0 + 0.5 * torch.randn(hidden))

    def forward(self, x: torch.Tensor, residual: torch.Tensor):
        s = x + residual
        return self.norm(s), s


tokens = 4096
hidden = 4096
eps = 1e-6


def get_inputs():
    return [torch.randn(tokens, hidden), torch.randn(tokens, hidden) * 2.0]


def get_init_inputs():
    return [hidden, eps]


KZOO = {
    "op": "add_rms_norm",
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
    "bytes": lambda tokens, hidden, itemsize: (4 * tokens * hidden + hidden) * itemsize,
    "flops": lambda tokens, hidden: 5 * tokens * hidden,
}
