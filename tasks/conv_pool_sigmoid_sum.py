"""Conv2d, MaxPool2d, sigmoid and a sum over everything but the batch: two library calls and
a fused tail."""

import torch
import torch.nn as nn
import torch.nn.functional as F

class Model(nn.Module):
    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.pool(self.conv(x))).sum(dim=(1, 2, 3))


batch = 8
c_in = 3
c_out = 16
size = 32


def get_inputs():
    return [torch.randn(batch, c_in, size, size)]


def get_init_inputs():
    return [c_in, c_out]


KZOO = {
    "op": "conv_pool_sigmoid_sum",
    "shapes": [{'batch': 128, 'c_in': 32, 'c_out': 64, 'size': 64}],
    "cpu_shapes": [{'batch': 2, 'c_in': 3, 'c_out': 4, 'size': 10}],
    "dtypes": ['float32', 'bfloat16', 'float16'],
}
