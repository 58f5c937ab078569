"""Row-wise softmax at small interpreter shapes: the task of the LLM proposer's tests (two shapes keep
CI quick; the GPU shapes are large enough for a slow kernel to show)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


batch_size = 256
dim = 2051


def get_inputs():
    return [torch.randn(batch_size, dim) * 4.0]


def get_init_inputs():
    return []


KZOO = {
    "op": "softmax",
    "shapes": [
        {"batch_size": 4096, "dim": 4096},
        {"batch_size": 2048, "dim": 8192},
        {"batch_size": 1027, "dim": 3001},
    ],
    "cpu_shapes": [{"batch_size": 3, "dim": 1000}, {"batch_size": 2, "dim": 2051}],
    "dtypes": ["float32"],
}
