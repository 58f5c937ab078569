"""log-softmax over a non-last dim of a 3-D tensor: the CUDA C++ column kernel's task."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(x, dim=1)


outer = 8
r = 1000
inner = 257


def get_inputs():
    return [torch.randn(outer, r, inner) * 4.0]


def get_init_inputs():
    return []


KZOO = {
    "op": "log_softmax",
    "shapes": [{"outer": 8, "r": 1000, "inner": 257}, {"outer": 3, "r": 33, "inner": 4096}],
    "cpu_shapes": [{"outer": 2, "r": 5, "inner": 3}],
    "dtypes": ["float32", "bfloat16", "float16"],
}
