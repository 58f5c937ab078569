"""Log-softmax over a dimension that is not the last: (batch, channels, positions) normalized over the
channels, as a per-pixel class distribution or attention over heads. The kernel must reduce along a
strided dimension without a transposed copy."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(x, dim=1)


batch = 32
channels = 1000
positions = 1024


def get_inputs():
    return [torch.randn(batch, channels, positions) * 4.0]


def get_init_inputs():
    return []


KZOO = {
    "op": "log_softmax",
    "shapes": [
        {"batch": 32, "channels": 1000, "positions": 1024},
        {"batch": 8, "channels": 4097, "positions": 257},
        {"batch": 64, "channels": 128, "positions": 4096},
        {"batch": 4, "channels": 32768, "positions": 16},
    ],
    "cpu_shapes": [
        {"batch": 2, "channels": 5, "positions": 7},
        {"batch": 1, "channels": 300, "positions": 130},
        {"batch": 3, "channels": 33, "positions": 1},
        {"batch": 1, "channels": 2000, "positions": 3},
    ],
    "dtypes": ["float32", "bfloat16", "float16"],
    "bytes": lambda batch, channels, positions, itemsize: 2 * batch * channels * positions * itemsize,
    "flops": lambda batch, channels, positions: 4 * batch * channels * positions,
}
