"""linear(x, W, b) + residual: an attention output projection with its residual add, fused into
the GEMM's epilogue (the residual is a "full" input read once per output tile).
Sizes M x N x K = tokens x hidden x in_features; bias redrawn at scale 0.5; default tolerances."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, in_features: int, hidden: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(hidden, in_features) / in_features ** 0.5)
        self.bias = nn.Parameter(0.5 * torch.randn(hidden))

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.weight, self.bias) + residual


tokens = 8192
in_features = 4096
hidden = 4096


def get_inputs():
    return [torch.randn(tokens, in_features), torch.randn(tokens, hidden)]


def get_init_inputs():
    return [in_features, hidden]


KZOO = {
    "op": "linear_residual",
    "shapes": [
        {"tokens": 8192, "in_features": 4096, "hidden": 4096},
        {"tokens": 4099, "in_features": 1000, "hidden": 3073},
    ],
    "cpu_shapes": [
        {"tokens": 33, "in_features": 65, "hidden": 47},
    ],
    "dtypes": ["bfloat16", "float16", "float32"],
    "bytes": lambda tokens, in_features, hidden, itemsize: (
        tokens * in_features + in_features * hidden + hidden + 2 * tokens * hidden) * itemsize,
    "flops": lambda tokens, in_features, hidden: 2 * tokens * in_features * hidden,
}
