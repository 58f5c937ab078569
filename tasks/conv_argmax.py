"""Conv2d then argmax over channels: a library call and a generated reduction."""

import torch
import torch.nn as nn
import torch.nn.functional as F

class Model(nn.Module):
    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.argmax(self.conv(x), dim=1)


batch = 8
c_in = 8
c_out = 21
size = 32


def get_inputs():
    return [torch.randn(batch, c_in, size, size)]


def get_init_inputs():
    return [c_in, c_out]


KZOO = {
    "op": "conv_argmax",
    "shapes": [{'batch': 32, 'c_in': 64, 'c_out': 21, 'size': 128}],
    "cpu_shapes": [{'batch': 2, 'c_in': 3, 'c_out': 5, 'size': 6}],
    "dtypes": ['float32', 'bfloat16', 'float16'],
}
